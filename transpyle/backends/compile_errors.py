"""Where a generated line came from, and Numba's compile errors told at the user's line.

Generated code carries a ``# file.py:12: <source line>`` comment above the statements made from each user
line, and its module docstring names the function's file and line. A Numba failure (a typing, lowering
or unsupported error) becomes a TranspileError that names the user's file, line and source line, says
the numba backend cannot compile it and what to do, with Numba's own message shortened after that:
never Numba's traceback, nor the generated module's path.
"""
import linecache
import os
import re

from ..base.errors import TranspileError

_SOURCE_COMMENT = re.compile(r"^\s*# (\S+):(\d+): (.*)$")
_HEADER = re.compile(r"from (\S+):(\d+) for")
# the statements of a sweep start after these: a comment above them belongs to other code
_BOUNDARY = re.compile(r"^\s*(def |# (primal|adjoint) sweep)")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")

HINT = ("run it with backend='numpy' (the same generated code as plain Python), or write the construct with "
        "other NumPy calls; 'transpyle show' prints the generated code")


def function_place(text):
    """(file, line) of the function the generated module ``text`` was made from, or None."""
    m = _HEADER.search(text)
    return (m.group(1), int(m.group(2))) if m else None


def source_place(text, lineno):
    """(file, line, source line) of the user's line that line ``lineno`` of the generated module ``text``
    was made from: the source comment above it in the same sweep, None where there is none."""
    for line in reversed(text.splitlines()[:lineno or 0]):
        if _BOUNDARY.match(line):
            return None
        m = _SOURCE_COMMENT.match(line)
        if m:
            return m.group(1), int(m.group(2)), m.group(3)
    return None


def _generated_line(module, exc):
    """The line of ``module`` Numba's error ``exc`` points at: its location, else the first place in its
    message in the module's file (an error inside a run-time helper names the call in the module too)."""
    base = os.path.basename(getattr(module, "__file__", "") or "")
    if not base:
        return None
    loc = getattr(exc, "loc", None)
    if loc is not None and os.path.basename(str(getattr(loc, "filename", ""))) == base and loc.line:
        return loc.line
    for m in re.finditer(r'File "([^"]+)", line (\d+)|at (\S+) \((\d+)\)', _ANSI.sub("", str(exc))):
        path, line = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        if os.path.basename(path) == base:
            return int(line)
    return None


def numba_summary(exc):
    """Numba's message in one line: its first statement of the problem (with the signature it found no
    implementation for)."""
    lines = [ln.strip() for ln in _ANSI.sub("", str(exc)).splitlines()]
    lines = [ln for ln in lines if ln and not ln.startswith("Failed in")]
    if not lines:
        return type(exc).__name__
    first = lines[0]
    if first.endswith("signature:") and len(lines) > 1 and lines[1].startswith(">>>"):
        first = f"{first} {lines[1][3:].strip()}"
    return first[:240]


def numba_failure(module, fname, exc):
    """The TranspileError telling that Numba could not compile ``module.fname`` (``exc``), at the user's line."""
    text = getattr(module, "__transpyle_text__", "")
    lineno = _generated_line(module, exc)
    summary = numba_summary(exc)
    place = source_place(text, lineno) if lineno else None
    if place is not None:
        filename, line, source = place
        return TranspileError(f"the numba backend cannot compile this construct (Numba: {summary})",
                              filename=filename, lineno=line, construct=source, hint=HINT)
    # no source comment above the line (the declarations of a sweep): the function's line, and the statement
    lines = text.splitlines()
    statement = lines[lineno - 1].strip() if lineno and lineno <= len(lines) else None
    what = f"the generated statement `{statement}`" if statement else f"the generated function '{fname}'"
    function = function_place(text)
    filename, line = function if function else (None, None)
    construct = linecache.getline(filename, line).strip().rstrip(":") if filename else ""
    return TranspileError(f"the numba backend cannot compile {what} (Numba: {summary})",
                          filename=filename, lineno=line, construct=construct or fname, hint=HINT)
