"""Reading at positions: np.take, np.take_along_axis, np.sort and np.argsort along any axis, and np.select.

- ``np.take(a, i, axis)`` is the index ``a[:, :, i]`` (``np.ravel(a)[i]`` without an axis), so the rules of
  indexing by integer arrays apply (its adjoint adds the cotangents of a position taken twice);
- ``np.take_along_axis(a, i, axis)`` is ``rt.gather_along``, whose adjoint is ``rt.scatter_along`` (each
  cotangent added at its position) and back: both are linear in the values;
- ``np.argsort(a, axis)`` is ``rt.argsort_along`` (a stable sort: positions, not differentiated), and
  ``np.sort(a, axis)`` reads ``a`` at those positions, so its adjoint is the scatter by that permutation;
- ``np.select(conditions, choices, default)`` is a chain of ``np.where``, the first true condition winning.
"""
import gast
import numpy as np

from .. import runtime as rt
from ..base.ast_utils import template_expr
from ..base.kinds import INT, Kind
from . import LINEAR, define
from .common import StaticError
from .call_forms import arguments, axis_index, literal, refuse_unless_default, rewrite


def _int_axis(bound, what):
    axis = literal(bound["axis"], "axis")
    if axis is not None and (not isinstance(axis, int) or isinstance(axis, bool)):
        raise StaticError(f"{what} takes one constant axis (or None), not {axis!r}")
    return axis


# ---- np.take ------------------------------------------------------------------------------------------
def _take(call):
    bound = arguments(call, ("a", "indices", "axis", "out", "mode"), {"axis": None, "out": None, "mode": "raise"},
                      "np.take")
    refuse_unless_default(bound, ("out",), "np.take")
    if literal(bound["mode"], "mode") != "raise":
        raise StaticError("np.take with mode= other than 'raise' is not supported",
                          hint="clip or wrap the positions first (np.clip, %)")
    axis = _int_axis(bound, "np.take")
    if axis is None:
        return template_expr("np.ravel(a)[i]", a=bound["a"], i=bound["indices"])
    return template_expr("a" + axis_index(axis, "i"), a=bound["a"], i=bound["indices"])


rewrite([np.take], _take)


# ---- gathers and scatters along an axis -------------------------------------------------------------------
def _along_kind(values, positions):
    def kind(k, s):
        v, i = k[values], k[positions]
        if not isinstance(i, Kind) or i.dtype not in ("int64", "int32") or not isinstance(v, Kind):
            raise StaticError("the positions must be an integer array")
        if v.ndim == 0 or v.ndim != i.ndim:
            raise StaticError(f"the positions must have the array's rank ({v.ndim}), not {i.ndim}",
                              hint="np.expand_dims the positions of np.argmax(x, axis) along that axis")
        axis = literal(s["axis"], "axis")
        if not isinstance(axis, int) or not -v.ndim <= axis < v.ndim:
            raise StaticError(f"axis {axis!r} is not an axis of an array of rank {v.ndim}")
        return v
    return kind


def _along_batch(helper, operands):
    """Every operand with the batch axis (copied into each lane when it has none), the axis counted past it."""
    def batch(batched, kinds, statics):
        axis = literal(statics["axis"], "axis")
        args = [p if batched[p] else f"rt.lanes({p}, _B)" for p in operands]
        return f"rt.{helper}({', '.join(args)}, {axis + 1 if axis >= 0 else axis})"
    return batch


_gather_kind = _along_kind("v", "source")
define("rt.gather_along", [rt.gather_along], "v, source, axis",
       lambda k, s: _gather_kind(k, s).with_ndim(k["source"].ndim), {"v": "rt.scatter_along(g, source, v, axis)"},
       diff=("v",), jvp=LINEAR, batch=_along_batch("gather_along", ("v", "source")))
define("rt.scatter_along", [rt.scatter_along], "v, source, like, axis",
       lambda k, s: _along_kind("like", "source")(k, s).with_dtype(k["v"].dtype),
       {"v": "rt.gather_along(g, source, axis)"}, diff=("v",), jvp=LINEAR,
       batch=_along_batch("scatter_along", ("v", "source", "like")))


def _argsort_kind(k, s):
    x = k["x"]
    if not isinstance(x, Kind) or x.ndim == 0:
        raise StaticError("np.argsort needs an array")
    axis = literal(s["axis"], "axis")
    if not isinstance(axis, int) or not -x.ndim <= axis < x.ndim:
        raise StaticError(f"axis {axis!r} is not an axis of an array of rank {x.ndim}")
    return INT.with_ndim(x.ndim)


def _argsort_batch(batched, kinds, statics):
    axis = literal(statics["axis"], "axis")
    return f"rt.argsort_along(x, {axis + 1 if axis >= 0 else axis})"


define("rt.argsort_along", [rt.argsort_along], "x, axis", _argsort_kind, batch=_argsort_batch)


def _take_along_axis(call):
    bound = arguments(call, ("arr", "indices", "axis"), {}, "np.take_along_axis")
    if literal(bound["axis"], "axis") is None:
        return template_expr("rt.gather_along(np.ravel(a), i, 0)", a=bound["arr"], i=bound["indices"])
    _int_axis(bound, "np.take_along_axis")
    return template_expr("rt.gather_along(a, i, axis)", a=bound["arr"], i=bound["indices"], axis=bound["axis"])


def _argsort(call):
    bound = arguments(call, ("a", "axis", "kind", "order", "stable"),
                      {"axis": -1, "kind": None, "order": None, "stable": None}, "np.argsort")
    refuse_unless_default(bound, ("order",), "np.argsort")
    if _int_axis(bound, "np.argsort") is None:
        return template_expr("rt.argsort_along(np.ravel(a), 0)", a=bound["a"])
    return template_expr("rt.argsort_along(a, axis)", a=bound["a"], axis=bound["axis"])


def _lexsort(call):
    """np.lexsort((k0, k1, ...)) of 1-D keys: stable sorts, the first key's first and the last key's last, each
    of the keys read in the order found so far (the last key decides first, as in NumPy)."""
    bound = arguments(call, ("keys", "axis"), {"axis": -1}, "np.lexsort")
    if literal(bound["axis"], "axis") not in (-1, 0):
        raise StaticError("np.lexsort with an axis other than the last is not supported")
    keys = bound["keys"]
    if not isinstance(keys, (gast.Tuple, gast.List)) or not keys.elts:
        raise StaticError("np.lexsort of an array of keys is not supported",
                          hint="give the keys as a tuple: np.lexsort((a[0], a[1]))")
    if len(keys.elts) > 4:
        raise StaticError("np.lexsort of more than 4 keys is not supported",
                          hint="sort by the first keys, then by the others, with np.argsort(kind='stable')")
    order = template_expr("rt.argsort_along(k, 0)", k=keys.elts[0])
    for key in keys.elts[1:]:
        order = template_expr("o[rt.argsort_along(k[o], 0)]", o=order, k=key)
    return order


rewrite([np.take_along_axis], _take_along_axis)
rewrite([np.argsort], _argsort)
rewrite([np.lexsort], _lexsort)


# ---- np.sort: the array read at the positions that sort it ------------------------------------------------
def _sort_kind(k, s):
    x = k["x"]
    if not isinstance(x, Kind) or x.ndim == 0:
        raise StaticError("np.sort needs an array")
    if literal(s["order"], "order") is not None:
        raise StaticError("np.sort with order= is not supported")
    axis = literal(s["axis"], "axis")
    if axis is None:
        return x.with_ndim(1)
    if not isinstance(axis, int) or isinstance(axis, bool) or not -x.ndim <= axis < x.ndim:
        raise StaticError(f"axis {axis!r} is not an axis of an array of rank {x.ndim}")
    return x


def _sort_lower(s, k, ops):
    if literal(s["axis"], "axis") is None:
        return template_expr("rt.gather_along(np.ravel(x), rt.argsort_along(np.ravel(x), 0), 0)", x=ops["x"])
    return template_expr("rt.gather_along(x, rt.argsort_along(x, axis), axis)", x=ops["x"], axis=ops["axis"])


define("np.sort", [np.sort], "x, axis=-1, kind=None, order=None", _sort_kind, lower=_sort_lower)


# ---- np.select: the first choice whose condition holds, else the default ----------------------------------
def _select(call):
    bound = arguments(call, ("condlist", "choicelist", "default"), {"default": 0}, "np.select")
    conditions, choices = bound["condlist"], bound["choicelist"]
    if not isinstance(conditions, (gast.List, gast.Tuple)) or not isinstance(choices, (gast.List, gast.Tuple)):
        raise StaticError("np.select takes its conditions and choices as lists written in the call")
    if len(conditions.elts) != len(choices.elts) or not conditions.elts:
        raise StaticError("np.select needs as many conditions as choices, at least one")
    out = bound["default"]
    for c, v in reversed(list(zip(conditions.elts, choices.elts))):
        out = template_expr("np.where(c, v, rest)", c=c, v=v, rest=out)
    return out


rewrite([np.select], _select)
