"""Constructions whose form depends on their operands' ranks, written with other primitives once those are
known (the twins in ``transpyle/twins/constructions.py`` hold the rest).

- ``np.column_stack(tup)``: a vector becomes a column (``np.reshape(a, (-1, 1))``), arrays of rank 2 or
  more are joined as they are, all along axis 1 (``np.concatenate``, whose derivatives and batching apply).
  A number among them, or arrays of different ranks above 1, are refused by name.
- ``np.broadcast_to(array, shape)``: ``array * np.ones(shape, np.bool_)``, a new array holding the broadcast
  values (NumPy's read-only view holds the same, and no write may go through it): the product with booleans
  keeps every value (-0.0, infinities, NaN) and the dtype. ``subok=True`` is refused.
- ``np.linalg.multi_dot([a, b, ...])``: ``np.dot`` from left to right (the first may be a vector, read as a
  row, the last a vector, read as a column): NumPy's value up to rounding, whatever order NumPy picks. The
  arrays must be written as a list or tuple in the call; ``out=`` is refused.
- ``np.cumulative_sum(x, axis=, include_initial=)`` and ``np.cumulative_prod``: ``np.cumsum``/``np.cumprod``
  along ``axis`` (a constant; a vector's axis 0 without one), of ``x`` after one slice of zeros (ones) with
  ``include_initial``, which the running sum (product) leaves as it is. ``dtype=`` and ``out=`` are refused.
"""
import gast
import numpy as np

from ..base.ast_utils import template_expr
from . import define
from .call_forms import arguments, literal, rewrite
from .common import StaticError
from .rewrites import call_rewrite


def _column_stack_kind(k, s):
    parts = k["tup"]
    ranks = [p.ndim for p in parts]
    if 0 in ranks:
        raise StaticError("np.column_stack of a number is not supported",
                          hint="give vectors (columns) or arrays of rank 2 or more")
    joined = {max(r, 2) for r in ranks}
    if len(joined) > 1:
        raise StaticError("np.column_stack of arrays of different ranks: " + ", ".join(map(str, ranks)),
                          hint="give vectors and matrices, or arrays of one rank")
    out = parts[0]
    for p in parts[1:]:
        out = out.with_dtype(np.result_type(out.dtype, p.dtype).name)
    return out.with_ndim(joined.pop())


def _column_stack_lower(s, k, ops):
    parts = ops["tup"]
    if not isinstance(parts, (gast.List, gast.Tuple)):
        return None
    columns = [template_expr("np.reshape(a, (-1, 1))", a=e) if p.ndim == 1 else e
               for e, p in zip(parts.elts, k["tup"])]
    return template_expr("np.concatenate(arrays, axis=1)", arrays=gast.Tuple(elts=columns, ctx=gast.Load()))


define("np.column_stack", [np.column_stack], "tup", _column_stack_kind, varargs=True, lower=_column_stack_lower)


def _broadcast_to(call):
    bound = arguments(call, ("array", "shape", "subok"), {"subok": False}, "np.broadcast_to")
    if literal(bound["subok"], "subok") is not False:
        raise StaticError("np.broadcast_to with subok=True is not supported", hint="leave subok= out")
    # the shape stays written in the call (a tuple bound to a name first loses its length to the numba loops)
    return template_expr("array * np.ones(shape, np.bool_)", array=bound["array"], shape=bound["shape"])


rewrite([np.broadcast_to], _broadcast_to)


def _multi_dot(call):
    bound = arguments(call, ("arrays", "out"), {"out": None}, "np.linalg.multi_dot")
    if not (isinstance(bound["out"], gast.Constant) and bound["out"].value is None):
        raise StaticError("np.linalg.multi_dot with out= is not supported", hint="assign the result instead")
    factors = bound["arrays"]
    if not isinstance(factors, (gast.List, gast.Tuple)):
        raise StaticError("np.linalg.multi_dot of arrays not written as a list in the call is not supported",
                          hint="write the factors in the call: np.linalg.multi_dot([a, b, c])")
    if len(factors.elts) < 2:
        raise StaticError("np.linalg.multi_dot needs at least two arrays")
    product = factors.elts[0]
    for factor in factors.elts[1:]:
        product = template_expr("np.dot(a, b)", a=product, b=factor)
    return product


rewrite([np.linalg.multi_dot], _multi_dot)


def _cumulative(name, running, initial):
    """The builder of ``name``'s call: NumPy's older running function's call, written by its own builder."""
    older = call_rewrite(getattr(np, running[len("np."):]))

    def build(call):
        bound = arguments(call, ("x", "axis", "dtype", "out", "include_initial"),
                          {"axis": None, "dtype": None, "out": None, "include_initial": False}, name)
        for p in ("dtype", "out"):
            if not (isinstance(bound[p], gast.Constant) and bound[p].value is None):
                raise StaticError(f"{name} with {p}= is not supported", hint=f"leave {p}= out")
        axis = literal(bound["axis"], "axis")
        axis = 0 if axis is None else axis
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise StaticError(f"{name} takes one constant int axis")
        if literal(bound["include_initial"], "include_initial") is not True:
            return older(template_expr(f"{running}(x, axis={axis})", x=bound["x"]))
        text = (f"{running}(np.moveaxis(np.concatenate(({initial}(np.moveaxis(x, {axis}, 0)[:1]), "
                f"np.moveaxis(x, {axis}, 0)), axis=0), 0, {axis}), axis={axis})")
        return older(template_expr(text, x=bound["x"]))
    return build


for _name, _running, _initial in (("cumulative_sum", "np.cumsum", "np.zeros_like"),
                                  ("cumulative_prod", "np.cumprod", "np.ones_like")):
    if hasattr(np, _name):
        rewrite([getattr(np, _name)], _cumulative(f"np.{_name}", _running, _initial))
