"""Backends: turn a generated module into callables. ``numpy`` runs the source as plain Python
(the reference and the debugger's view); ``numba`` compiles each function with ``njit(cache=True)``; ``cuda`` (``cuda_backend``) compiles
vmapped functions as CUDA kernels.
"""
import ast
import functools
import os

from ..base.errors import TranspileError
from .compile_errors import function_place, source_place
from .freed_memory import keep_freed_memory

#: "auto" is numba, with the NumPy backend answering while a long compile runs (backends/compile_time.py)
BACKENDS = ("numba", "numpy", "cuda", "auto")


def choose(backend):
    backend = backend or os.environ.get("TRANSPYLE_BACKEND") or "numba"
    if backend not in BACKENDS:
        raise TranspileError(f"unknown backend '{backend}'", hint="use one of: " + ", ".join(BACKENDS))
    return backend


def boundscheck(check=None):
    """Whether compiled code checks its indices (an IndexError naming the user's line, as NumPy raises,
    instead of reading past an array): the transform's ``boundscheck=`` argument, else
    ``TRANSPYLE_BOUNDSCHECK=1``. Off by default on numba, where it costs speed; the numpy backend always
    checks, being NumPy."""
    if check is not None:
        return bool(check)
    return os.environ.get("TRANSPYLE_BOUNDSCHECK", "0") not in ("", "0", "false", "no")


def module_marker(backend, check=None):
    """A line that makes a module compiled with bounds checks a different module (Numba's cache
    keys a compiled function by its module's text, not by the options it was compiled with)."""
    return "\n# compiled with bounds checks\n" if backend in ("numba", "auto") and boundscheck(check) else ""


def _writes_a_part(stmt):
    """Whether ``stmt`` is ``name[index] = value`` with a slice in the index (an array part is written)."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Subscript)):
        return False
    index = stmt.targets[0].slice
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    return isinstance(stmt.targets[0].value, ast.Name) and any(isinstance(p, ast.Slice) for p in parts)


def spelled_for(backend, text, check=None):
    """The module text compiled on ``backend``. For Numba, a write of an array part (``u[1:-1, 1:-1] = v``,
    one line of generated code) calls ``rt.write_part(u[1:-1, 1:-1], v)``: the same write, compiled once
    per type instead of at every line (a cavity-flow gradient: 66 s cold to 58 s, a 3-D heat stencil's
    calls 117 us to 67 us). ``transpyle show`` prints the module before this spelling."""
    if backend not in ("numba", "auto"):
        return text + module_marker(backend, check)
    lines = text.split("\n")
    for k, line in enumerate(lines):
        code = line.strip()
        if "] = " not in code or code.startswith("#"):
            continue
        try:
            stmt = ast.parse(code).body[0]
        except SyntaxError:
            continue
        if _writes_a_part(stmt):
            part = ast.unparse(stmt.targets[0])
            lines[k] = f"{line[:len(line) - len(line.lstrip())]}rt.write_part({part}, {ast.unparse(stmt.value)})"
    return "\n".join(lines) + module_marker(backend, check)


def _user_place(module, tb):
    """Where an error raised in ``module``'s code is in the user's source: the source comment above
    the generated line it came from (numpy backend), else the function the module was made from."""
    text = getattr(module, "__transpyle_text__", "")
    lineno = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == getattr(module, "__file__", None):
            lineno = tb.tb_lineno
        tb = tb.tb_next
    place = source_place(text, lineno)
    if place is not None:
        return f"{os.path.basename(place[0])}:{place[1]}: {place[2]}"
    function = function_place(text)
    return f"the function at {function[0]}:{function[1]}" if function else None


def _with_index_errors_located(fn, module):
    """``fn``, whose IndexError (an index out of range, as NumPy raises it) names the user's line."""
    @functools.wraps(fn)
    def call(*args):
        try:
            return fn(*args)
        except IndexError as exc:
            place = _user_place(module, exc.__traceback__)
            if place is None:
                raise
            raise IndexError(f"{exc} (at {place})") from None
    return call


def compile_function(backend, module, fname, args, check=None):
    """The callable for ``module.fname`` on ``backend``, compiled for ``args``' types; ``check``: bounds
    checks on numba (see ``boundscheck``)."""
    keep_freed_memory()
    if backend == "numpy":
        return _with_index_errors_located(getattr(module, fname), module)
    if backend == "cuda":          # batched code becomes kernels (Vmapped); nothing else runs on the GPU
        raise TranspileError(f"the cuda backend compiles batched functions, and '{fname}' is not one",
                             hint="wrap it in transpyle.vmap(..., backend='cuda'), or use the numba backend")
    from .numba_backend import compile_function as njit_compile
    compiled = njit_compile(module, fname, args, check=check)
    return _with_index_errors_located(compiled, module) if boundscheck(check) else compiled
