"""Positions of the nonzero elements, written with ``np.flatnonzero`` once the operand's rank is known
(``define_written``): integer results, no derivative; their lengths depend on the values (``ragged``, as
boolean masks), which vmap's loop strategy takes.

- ``np.nonzero(x)``: the tuple of x's coordinates along each axis, in C order: the flat positions divided by
  the axis's stride, modulo its length. A number (rank 0) is refused, as NumPy 2 refuses it.
- ``np.where(condition)`` with one argument: ``np.nonzero(condition)``, as NumPy documents it.
- ``np.argwhere(x)``: those coordinates as the columns of an (n, ndim) array.
- ``np.ix_(a, b, ...)``: the tuple of the sequences shaped as an open grid (``rt.ix_part``: each along its own
  axis, a mask as its positions), so ``x[np.ix_(rows, cols)]`` reads the block; a write through it is refused
  by name (an index array of two or more axes).
"""
import gast
import numpy as np

from .. import runtime as rt
from ..base.ast_utils import const, parse_expr, template_expr
from ..base.kinds import INT, TupleKind
from . import define
from .call_forms import define_written, literal, rewrite
from .common import StaticError


def _coordinates(ndim):
    """Texts of the coordinate along each axis of the flat positions ``np.flatnonzero(x)``."""
    flat = "np.flatnonzero(x)"
    out = []
    for d in range(ndim):
        stride = " * ".join(f"x.shape[{e}]" for e in range(d + 1, ndim))
        coordinate = f"({flat} // ({stride}))" if stride else flat
        out.append(f"{coordinate} % x.shape[{d}]" if d else coordinate)
    return out


def _ranked(k, what):
    ndim = k["x"].ndim
    if ndim == 0:
        raise StaticError(f"{what} of a number is not supported (NumPy 2 refuses it)",
                          hint="call it on an array: np.atleast_1d(x)")
    return ndim


def _nonzero_kind(k, s):
    return TupleKind((INT.with_ndim(1),) * _ranked(k, "np.nonzero"))


def _nonzero_text(s, k):
    parts = _coordinates(_ranked(k, "np.nonzero"))
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


def _argwhere_text(s, k):
    parts = _coordinates(_ranked(k, "np.argwhere"))
    if len(parts) == 1:
        return f"np.expand_dims({parts[0]}, 1)"
    return "np.stack((" + ", ".join(parts) + "), axis=1)"


define_written("np.nonzero", "x", _nonzero_kind, _nonzero_text)
define_written("np.argwhere", "x", lambda k, s: INT.with_ndim(2) if _ranked(k, "np.argwhere") else None,
               _argwhere_text)


def _where_of_one(call):
    """``np.where(condition)``: np.nonzero of it; the three-argument form is the selection primitive (None)."""
    if len(call.args) == 1 and not call.keywords:
        return template_expr("np.nonzero(c)", c=call.args[0])
    return None


rewrite([np.where], _where_of_one)


def _ix_part_kind(k, s):
    if k["x"].ndim != 1 or k["x"].is_float or k["x"].is_complex:
        raise StaticError("np.ix_ takes 1-D sequences of integers or booleans")
    return INT.with_ndim(literal(s["count"], "count"))


def _ix_part(statics, kinds, operands):
    axis, count = literal(statics["axis"], "axis"), literal(statics["count"], "count")
    positions = "np.flatnonzero(x)" if kinds["x"].dtype == "bool" else "x"
    grid = (1,) * axis + (-1,) + (1,) * (count - axis - 1)
    return template_expr(f"np.reshape({positions}, {grid!r})", x=operands["x"])


define("rt.ix_part", [rt.ix_part], "x, axis=0, count=1", _ix_part_kind, lower=_ix_part)


def _ix(call):
    """``np.ix_(a, b, ...)``: the tuple of each sequence along its own axis (a list written there an array)."""
    if call.keywords or not call.args or any(isinstance(a, gast.Starred) for a in call.args):
        raise StaticError("np.ix_ takes the sequences one by one")
    parts = []
    for axis, arg in enumerate(call.args):
        arg = gast.Call(func=parse_expr("np.array"), args=[arg], keywords=[]) if isinstance(arg, gast.List) else arg
        parts.append(gast.Call(func=parse_expr("rt.ix_part"), args=[arg, const(axis), const(len(call.args))],
                               keywords=[]))
    return gast.Tuple(elts=parts, ctx=gast.Load())


rewrite([np.ix_], _ix)
