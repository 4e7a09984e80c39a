"""Index grids: ``np.mgrid[...]``, ``np.ogrid[...]`` and ``np.indices(shape)``, written with
``np.arange`` (``np.linspace`` for a complex step: ``np.mgrid[0:1:5j]`` is 5 points from 0 to 1),
reshapes and broadcasting sums when they are resolved (``rules/rewrites``).

Each axis ``k`` of a grid of rank ``d`` is its 1-D range reshaped to length 1 on every other axis.
``mgrid`` adds zero times the other axes' ranges, which broadcasts it to the full grid and gives
every coordinate array NumPy's common dtype (a float bound or step anywhere makes all of them
floats); ``ogrid`` keeps the reshaped ranges, adding the (zero) sum of an empty slice of the other
ranges for the same common dtype. The grids are constants: they carry no derivative.
"""
import gast
import numpy as np

from ..base.ast_utils import template_expr
from .common import StaticError, const_value
from .rewrites import define_call, define_subscript


def _zero(value=0):
    return gast.Constant(value=value, kind=None)


def _range(part):
    """The 1-D range a slice of an index grid stands for."""
    if not isinstance(part, gast.Slice):
        raise StaticError("an index grid takes slices: np.mgrid[0:3, 0:4]")
    if part.upper is None:
        raise StaticError("each slice of an index grid needs its stop: np.mgrid[0:n]")
    start = part.lower if part.lower is not None else _zero()
    if isinstance(part.step, gast.Constant) and isinstance(part.step.value, complex):
        count = int(abs(part.step.value))
        return template_expr("np.linspace(1.0 * start, 1.0 * stop, num)", start=start, stop=part.upper,
                             num=_zero(count))
    step = part.step if part.step is not None else _zero(1)
    return template_expr("np.arange(start, stop, step)", start=start, stop=part.upper, step=step)


def _axes(ranges):
    """Each range reshaped to run along its own axis of the grid."""
    d = len(ranges)
    if d == 1:
        return list(ranges)
    shapes = [tuple(-1 if j == k else 1 for j in range(d)) for k in range(d)]
    return [template_expr(f"np.reshape(r, {shape!r})", r=r) for r, shape in zip(ranges, shapes)]


def _with_others(k, axes, other):
    """``axes[k]`` plus ``other(j)`` for every other axis j (a sum that broadcasts or promotes)."""
    total = axes[k]
    for j in range(len(axes)):
        if j != k:
            total = gast.BinOp(left=total, op=gast.Add(), right=other(j))
    return total


def _dense_one(ranges, k):
    """Coordinate ``k`` of the dense grid of ``ranges``."""
    axes = _axes(ranges)
    if len(axes) == 1:
        return axes[0]
    return _with_others(k, axes, lambda j: template_expr("0 * r", r=axes[j]))


def _stacked(ranges):
    grids = [_dense_one(ranges, k) for k in range(len(ranges))]
    return template_expr("np.stack(grids)", grids=gast.Tuple(elts=grids, ctx=gast.Load()))


def _dense(ranges):
    return ranges[0] if len(ranges) == 1 else _stacked(ranges)


def _sparse(ranges):
    axes = _axes(ranges)
    if len(axes) == 1:
        return axes[0]
    empty = [template_expr("np.sum(r[:0])", r=r) for r in ranges]
    return gast.Tuple(elts=[_with_others(k, axes, lambda j: empty[j]) for k in range(len(axes))], ctx=gast.Load())


def _slices(subscript):
    index = subscript.slice
    return index.elts if isinstance(index, gast.Tuple) else [index]


def _indices(call):
    """``np.indices(dimensions, dtype=int, sparse=False)``: the grid of 0:n for each n."""
    names = ("dimensions", "dtype", "sparse")
    bound = dict(zip(names, call.args))
    bound.update({kw.arg: kw.value for kw in call.keywords if kw.arg in names})
    if len(call.args) > len(names) or any(kw.arg not in names for kw in call.keywords):
        raise StaticError("np.indices is supported as np.indices(dimensions, dtype=int, sparse=False)")
    dtype = bound.get("dtype")
    if dtype is not None and not (isinstance(dtype, gast.Name) and dtype.id == "int") and \
            not (isinstance(dtype, gast.Attribute) and dtype.attr in ("int64", "int_", "intp")):
        raise StaticError("np.indices makes integer grids only", hint="convert the result with 1.0 * grid")
    dims = bound.get("dimensions")
    if not isinstance(dims, (gast.Tuple, gast.List)):
        raise StaticError("np.indices needs its dimensions written as a tuple: np.indices((3, 4))")
    ranges = [template_expr("np.arange(0, n, 1)", n=n) for n in dims.elts]
    sparse = const_value(bound.get("sparse", _zero(False)), "sparse")
    if not ranges:
        raise StaticError("np.indices of no dimensions is not supported")
    if sparse:
        return gast.Tuple(elts=_axes(ranges), ctx=gast.Load()) if len(ranges) > 1 else \
            gast.Tuple(elts=ranges, ctx=gast.Load())
    return _stacked(ranges)


define_subscript([np.mgrid], lambda s: _dense([_range(p) for p in _slices(s)]))
define_subscript([np.ogrid], lambda s: _sparse([_range(p) for p in _slices(s)]))
define_call([np.indices], _indices)
