"""Errors of a call to a transformed function, in the user's terms.

- An argument of a type no transform takes (a string, a list of strings, an object) is named: its
  position, its parameter and its type.
- Arguments of float32 and float64 mixed in one call follow NumPy's promotion: the float32 arrays
  are promoted to float64 (NumPy would compute in float64 too), so the compiled code sees one
  precision.
- A ``ValueError`` raised by compiled code (Numba's "unable to broadcast argument 1 to output
  array" has no place and no shapes) is located by running the same generated code as Python on
  copies of the arguments: NumPy's message then names the shapes, the traceback the generated
  line, and the ``# file.py:12: <line>`` comment above that line the user's line. The error says
  what the line expected and got, and the shapes of the array arguments.
"""
import copy
import re

import numpy as np

from ..base.errors import TranspileError
from ..base.kinds import kind_of_value


class CallError(TranspileError, ValueError):
    """Arguments that do not fit the function they are passed to (a ValueError, as NumPy raises)."""


_SOURCE_COMMENT = re.compile(r"^\s*# (\S+):(\d+): (.*)$")
_SHAPES = re.compile(r"\(\d*(?:,\s*\d+)*,?\)")


def parameter_names(fun, count):
    """The names of the first ``count`` parameters of ``fun`` (``arg 3`` where it has none)."""
    import inspect
    try:
        names = list(inspect.signature(fun).parameters)
    except (TypeError, ValueError):
        names = []
    return [names[i] if i < len(names) else f"arg {i}" for i in range(count)]


def kinds_of(fun, args):
    """The kinds of ``args``; an argument of a type no transform takes is named in the error."""
    out = []
    for i, a in enumerate(args):
        try:
            out.append(kind_of_value(a))
        except TypeError as exc:
            name = parameter_names(fun, len(args))[i]
            raise TranspileError(f"argument '{name}' (position {i}) of '{getattr(fun, '__name__', fun)}': {exc}",
                                 hint="pass floats, ints, bools, complex numbers or NumPy arrays (or dicts, lists "
                                      "and tuples of them)") from None
    return tuple(out)


def promoted(args):
    """``args`` with float32 arrays and scalars promoted to float64 where a float64 array or NumPy
    float64 scalar is among them (NumPy's promotion: the result would be float64); else ``args``."""
    def dtype(a):
        return a.dtype if isinstance(a, (np.ndarray, np.floating)) else None
    dtypes = {dtype(a) for a in args}
    if np.dtype(np.float32) not in dtypes or np.dtype(np.float64) not in dtypes:
        return args
    return tuple(a.astype(np.float64) if dtype(a) == np.dtype(np.float32) else a for a in args)


def with_precisions(exc, fun, args):
    """``exc`` (a compile error of jit, which keeps each argument's dtype) saying which arguments mix
    float32 and float64, where they do."""
    names = parameter_names(fun, len(args))
    dtypes = {n: a.dtype for n, a in zip(names, args) if isinstance(a, (np.ndarray, np.floating))}
    narrow = [n for n, d in dtypes.items() if d == np.float32]
    wide = [n for n, d in dtypes.items() if d == np.float64]
    if narrow and wide:
        exc.hint = (exc.hint + "; " if exc.hint else "") + \
            f"{', '.join(narrow)} {'are' if len(narrow) > 1 else 'is'} float32 and {', '.join(wide)} float64: " \
            f"jit keeps each argument's dtype (its writes reach your arrays), so pass " \
            f"{narrow[0]}.astype(np.float64) as NumPy would compute the mix"
    return exc


def located(exc, fun, rerun, args):
    """The CallError for ``exc`` (a ValueError of compiled code called with ``args``), found by
    ``rerun`` (the same call on the numpy backend); None where that run does not fail the same way."""
    try:
        rerun(*copy.deepcopy(args))
    except ValueError as py_exc:
        if type(py_exc) is not ValueError and not isinstance(py_exc, CallError):
            return None
        if isinstance(py_exc, CallError):
            return py_exc
        if _raised_by_the_function(py_exc.__traceback__):
            return None            # the function's own `raise ValueError(...)`: the user's error as it is
        where = _user_line(py_exc.__traceback__)
        reason = str(py_exc)
    except Exception:              # another failure: not the one being explained
        return None
    else:
        return None
    names = parameter_names(fun, len(args))
    arrays = [(n, a) for n, a in zip(names, args) if isinstance(a, np.ndarray)]
    detail, shapes_named = _expected_and_got(reason.strip())
    owners = [n for n, a in arrays if str(a.shape).replace(" ", "") in shapes_named]
    if owners:
        detail += f"; {', '.join(owners)} {'have those shapes' if len(owners) > 1 else 'has that shape'}"
    filename, lineno, construct = where or (None, None, getattr(fun, "__name__", None))
    listing = ", ".join(f"{n}: {a.shape}" for n, a in arrays)
    compiled = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return CallError(detail, filename=filename, lineno=lineno, construct=construct,
                     hint=(f"the array arguments: {listing}; " if listing else "") + f"compiled code said: {compiled}")


def _expected_and_got(reason):
    """(NumPy's ``reason`` said as what was expected and what came, the shapes it names)."""
    shapes = [g.replace(" ", "") for g in _SHAPES.findall(reason)]
    into = re.search(r"from shape (\(.*?\)) into shape (\(.*?\))", reason)
    size = re.search(r"size (\d+) is different from (\d+)", reason)
    if into:
        return f"expected shape {into.group(2)}, got {into.group(1)} ({reason})", shapes
    if size:
        return f"expected size {size.group(2)} along the axis the product sums over, got {size.group(1)} " \
               f"({reason})", shapes
    if len(shapes) >= 2:
        return f"expected shapes that broadcast together, got {' and '.join(shapes)} ({reason})", shapes
    return reason, shapes


def _generated_frame(tb):
    """(the generated module's text, the line) of the last frame of ``tb`` in a generated module, or
    (None, None)."""
    text, lineno = None, None
    while tb is not None:
        generated = tb.tb_frame.f_globals.get("__transpyle_text__")
        if generated is not None:
            text, lineno = generated, tb.tb_lineno
        tb = tb.tb_next
    return text, lineno


def _raised_by_the_function(tb):
    """Whether the generated line that raised is a ``raise`` statement (the function's own check)."""
    text, lineno = _generated_frame(tb)
    return text is not None and text.splitlines()[lineno - 1].lstrip().startswith("raise ")


def _user_line(tb):
    """(file, line, the line's text) of the user's line above the generated line that raised: the
    last frame in a generated module, and the ``# file.py:12: <line>`` comment above its line."""
    text, lineno = _generated_frame(tb)
    if text is None:
        return None
    for line in reversed(text.splitlines()[:lineno]):
        found = _SOURCE_COMMENT.match(line)
        if found:
            return found.group(1), int(found.group(2)), found.group(3).strip()
    return None
