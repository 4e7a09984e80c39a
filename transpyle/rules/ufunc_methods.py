"""NumPy's ufunc methods: ``f.outer``, ``f.reduce``, ``f.accumulate`` and ``f.at``, and the scans
(``np.cumsum``, ``np.cumprod``, the running maximum and minimum) they need.

Each method is written with other primitives when it is resolved (``rules/rewrites``):

- ``f.outer(a, b)`` is ``f(rt.outer_left(a, b), b)``: ``a`` with a length-1 axis appended per
  axis of ``b`` broadcasts against ``b`` into every pair, so the elementwise primitive's rules give
  the derivatives (``rt.outer_left`` is a reshape);
- ``f.reduce(x, axis=0)`` is the reduction (``np.sum``, ``np.prod``, ``np.max``, ``np.min``); the
  default axis is 0, as NumPy's, not None;
- ``f.accumulate(x, axis=0)`` is a scan along the axis, ``rt.cumsum_axis`` ... ``rt.cummin_axis``,
  primitives below whose run-time helpers are loops (Numba has no ufunc methods). The cotangent of
  a running maximum (minimum) goes to the position that holds it: the latest position along the
  axis whose value attains the running extreme (at a tie the cotangent moves to the new position);
- ``f.at(a, indices, b)`` writes into ``a``: it is the in-place write ``a[:] = rt.add_at(a,
  indices, b)`` (``rules/writes``), where ``rt.add_at`` is a functional unbuffered update: a
  repeated index adds every value given for it. The adjoint of ``b`` gathers ``a``'s at the
  indices; ``a``'s passes through. ``multiply``, ``maximum`` and ``minimum`` have ``.at`` values
  but no derivative rule (differentiating through them is an error).
"""
import gast
import numpy as np

from .. import runtime as rt
from ..base.ast_utils import parse_expr, template_expr
from ..base.kinds import INT, Kind, TupleKind
from . import LINEAR, define
from .common import StaticError, axis_of, const_value
from .rewrites import define_call, define_method
from .writes import define_writer

# ---- the primitives ---------------------------------------------------------------------------


def _lanes(operands):
    """The batching rule of a helper along an axis: every operand in ``operands`` with the batch axis
    (copied into each lane when it has none), the axis one further along."""
    def rule(helper):
        def batch(batched, kinds, statics):
            axis = axis_of(statics, kinds, operands[0]) + 1
            args = [p if batched[p] else f"rt.lanes({p}, _B)" for p in operands]
            return f"rt.{helper}({', '.join(args)}, {axis})"
        return batch
    return rule


_ONE = _lanes(("x",))
_TWO_X = _lanes(("x", "v"))
_TWO_V = _lanes(("v", "source"))


def _scan_kind(k, s):
    axis_of(s, k)                       # an axis that exists, or a StaticError naming it
    if k["x"].ndim == 0:
        raise StaticError("a scan needs an array, not a number")
    if k["x"].dtype == "bool":        # np.cumsum counts (int64) where np.add.accumulate takes logical ors
        raise StaticError("a scan of a boolean array is not supported", hint="scan 1 * mask (integers) instead")
    return k["x"]


def _source_kind(k, s):
    return INT.with_ndim(_scan_kind(k, s).ndim)


_SCAN = "x, axis"
define("rt.cumsum_axis", [rt.cumsum_axis], _SCAN, _scan_kind, {"x": "rt.rcumsum_axis(g, axis)"}, diff=("x",),
       jvp=LINEAR, batch=_ONE("cumsum_axis"))
define("rt.rcumsum_axis", [rt.rcumsum_axis], _SCAN, _scan_kind, {"x": "rt.cumsum_axis(g, axis)"}, diff=("x",),
       jvp=LINEAR, batch=_ONE("rcumsum_axis"))
# the product's tangent and adjoint are recurrences (rt.cumprod_jvp/_vjp), exact where x holds zeros; they are
# linear in v, and each other's transposes; their derivative in x (a second derivative of cumprod) has no rule
define("rt.cumprod_axis", [rt.cumprod_axis], _SCAN, _scan_kind, {"x": "rt.cumprod_vjp(x, g, axis)"}, diff=("x",),
       jvp={"x": "rt.cumprod_jvp(x, t, axis)"}, batch=_ONE("cumprod_axis"))
define("rt.cumprod_jvp", [rt.cumprod_jvp], "x, v, axis", _scan_kind, {"v": "rt.cumprod_vjp(x, g, axis)"},
       diff=("x", "v"), jvp={"v": "rt.cumprod_jvp(x, t, axis)"}, batch=_TWO_X("cumprod_jvp"))
define("rt.cumprod_vjp", [rt.cumprod_vjp], "x, v, axis", _scan_kind, {"v": "rt.cumprod_jvp(x, g, axis)"},
       diff=("x", "v"), jvp={"v": "rt.cumprod_vjp(x, t, axis)"}, batch=_TWO_X("cumprod_vjp"))
for _name, _source in (("cummax_axis", "running_argmax"), ("cummin_axis", "running_argmin")):
    define(f"rt.{_name}", [getattr(rt, _name)], _SCAN, _scan_kind,
           {"x": f"rt.put_along(g, rt.{_source}(x, axis), axis)"}, diff=("x",),
           jvp={"x": f"rt.take_along(t, rt.{_source}(x, axis), axis)"}, batch=_ONE(_name))
    define(f"rt.{_source}", [getattr(rt, _source)], _SCAN, _source_kind, batch=_ONE(_source))
# reading at a position along the axis, and its transpose (adding there): linear in v
_ALONG = "v, source, axis"
define("rt.take_along", [rt.take_along], _ALONG, lambda k, s: _scan_kind({"x": k["v"]}, s),
       {"v": "rt.put_along(g, source, axis)"}, diff=("v",), jvp=LINEAR, batch=_TWO_V("take_along"))
define("rt.put_along", [rt.put_along], _ALONG, lambda k, s: _scan_kind({"x": k["v"]}, s),
       {"v": "rt.take_along(g, source, axis)"}, diff=("v",), jvp=LINEAR, batch=_TWO_V("put_along"))


def _outer_left_kind(k, s):
    a, b = k["a"], k["b"]
    if not isinstance(a, Kind) or not isinstance(b, Kind):
        raise StaticError("the operands of a ufunc's .outer must be numbers or arrays")
    return a.with_ndim(a.ndim + b.ndim) if a.ndim else a


def _outer_left_vjp(k, s):
    return {"a": "np.sum(g)" if k["a"].ndim == 0 else "np.reshape(np.ascontiguousarray(g), a.shape)"}


def _outer_left_lanes(batched, kinds, statics):
    ones = "(" + "1, " * kinds["b"].ndim + ")"
    reshaped = f"np.ascontiguousarray(a).reshape(a.shape + {ones})" if kinds["a"].ndim else "a"
    return reshaped if batched["a"] else f"rt.lanes({reshaped}, _B)"


define("rt.outer_left", [rt.outer_left], "a, b", _outer_left_kind, _outer_left_vjp, diff=("a",), jvp=LINEAR,
       batch=_outer_left_lanes)


def _at_kind(k, s):
    indices = k["indices"]
    if isinstance(indices, TupleKind) or not isinstance(indices, Kind) or indices.dtype not in ("int64", "int32"):
        raise StaticError("ufunc.at takes an integer or an integer array of positions along the first axis",
                          hint="for several axes, index a reshaped view or write the loop out")
    if k["a"].ndim == 0:
        raise StaticError("ufunc.at needs an array to write into")
    return k["a"]


def _take_at_kind(k, s):
    _at_kind({"a": k["v"], "indices": k["indices"]}, s)
    return k["v"].with_ndim(k["v"].ndim - 1 + k["indices"].ndim)


_AT = "a, indices, v"
define("rt.add_at", [rt.add_at], _AT, _at_kind,
       {"a": "g", "v": "rt.unbroadcast(rt.take_at(g, indices), v)"}, diff=("a", "v"), jvp=LINEAR)
define("rt.take_at", [rt.take_at], "v, indices", _take_at_kind, {"v": "rt.add_at(np.zeros_like(v), indices, g)"},
       diff=("v",), jvp=LINEAR)
for _name in ("multiply_at", "maximum_at", "minimum_at"):     # values only: an error where differentiated
    define(f"rt.{_name}", [getattr(rt, _name)], _AT, _at_kind, diff=("a", "v"))

# ---- the methods, written with the primitives ----------------------------------------------------------


def _arguments(call, names, what):
    """The call's arguments by parameter name (positional ones first); a keyword not in ``names`` is refused."""
    if len(call.args) > len(names):
        raise StaticError(f"{what} takes at most {len(names)} arguments")
    bound = dict(zip(names, call.args))
    for kw in call.keywords:
        if kw.arg not in names or kw.arg in bound:
            raise StaticError(f"{what}: the keyword '{kw.arg}' is not supported",
                              hint=f"{what} is supported as {what}({', '.join(names)})")
        bound[kw.arg] = kw.value
    return bound


def _unset(node):
    return node is None or isinstance(node, gast.Constant) and node.value is None


#: binary ufuncs and how their elementwise call is written (operators have no function primitive)
_ELEMENTWISE = {np.add: "a + b", np.subtract: "a - b", np.multiply: "a * b", np.divide: "a / b",
                np.power: "a ** b", np.floor_divide: "a // b", np.remainder: "a % b", np.greater: "a > b",
                np.greater_equal: "a >= b", np.less: "a < b", np.less_equal: "a <= b", np.equal: "a == b",
                np.not_equal: "a != b", np.maximum: "np.maximum(a, b)", np.minimum: "np.minimum(a, b)",
                np.arctan2: "np.arctan2(a, b)", np.hypot: "np.hypot(a, b)",
                np.logical_and: "np.logical_and(a, b)", np.logical_or: "np.logical_or(a, b)"}


def _outer(ufunc, call):
    bound = _arguments(call, ("a", "b"), f"np.{ufunc.__name__}.outer")
    if set(bound) != {"a", "b"}:
        raise StaticError(f"np.{ufunc.__name__}.outer needs two operands")
    left = template_expr("rt.outer_left(a, b)", a=bound["a"], b=bound["b"])
    return template_expr(_ELEMENTWISE[ufunc], a=left, b=bound["b"])


_REDUCTIONS = {np.add: "np.sum", np.multiply: "np.prod", np.maximum: "np.max", np.minimum: "np.min"}


def _reduce(ufunc, call):
    what = f"np.{ufunc.__name__}.reduce"
    bound = _arguments(call, ("x", "axis", "dtype", "out", "keepdims"), what)
    if not _unset(bound.get("dtype")):
        raise StaticError(f"{what} with a dtype is not supported", hint="convert the operand with .astype first")
    keywords = [gast.keyword(arg="axis", value=bound.get("axis", gast.Constant(value=0, kind=None)))]
    keywords += [gast.keyword(arg=k, value=bound[k]) for k in ("keepdims", "out") if k in bound and
                 not _unset(bound[k])]
    return gast.Call(func=parse_expr(_REDUCTIONS[ufunc]), args=[bound["x"]], keywords=keywords)


_SCANS = {np.add: "cumsum_axis", np.multiply: "cumprod_axis", np.maximum: "cummax_axis",
          np.minimum: "cummin_axis"}


def _scan(helper, x, axis, what, out=None):
    if _unset(axis):
        x, axis = gast.Call(func=parse_expr("np.ravel"), args=[x], keywords=[]), gast.Constant(value=0, kind=None)
    elif not isinstance(const_value(axis, "axis"), int):
        raise StaticError(f"{what}: the axis must be one integer")
    keywords = [] if _unset(out) else [gast.keyword(arg="out", value=out)]
    return gast.Call(func=parse_expr(f"rt.{helper}"), args=[x, axis], keywords=keywords)


def _accumulate(ufunc, call):
    what = f"np.{ufunc.__name__}.accumulate"
    bound = _arguments(call, ("x", "axis", "dtype", "out"), what)
    if not _unset(bound.get("dtype")):
        raise StaticError(f"{what} with a dtype is not supported", hint="convert the operand with .astype first")
    # NumPy's default axis is 0 (None is refused by NumPy itself; here it would flatten, like np.cumsum)
    return _scan(_SCANS[ufunc], bound["x"], bound.get("axis", gast.Constant(value=0, kind=None)), what,
                 bound.get("out"))


def _cumulative(helper, what):
    def build(call):
        bound = _arguments(call, ("x", "axis", "dtype", "out"), what)
        if not _unset(bound.get("dtype")):
            raise StaticError(f"{what} with a dtype is not supported", hint="convert the operand with .astype first")
        return _scan(helper, bound["x"], bound.get("axis"), what, bound.get("out"))
    return build


def _at(ufunc, call):
    """Kept as a call spelled ``np.<ufunc>.at``: normalize writes it out as the writer registered below."""
    what = f"np.{ufunc.__name__}.at"
    bound = _arguments(call, ("a", "indices", "b"), what)
    if set(bound) != {"a", "indices", "b"}:
        raise StaticError(f"{what} needs the array, the indices and the values: {what}(a, indices, b)")
    return gast.Call(func=parse_expr(what), args=[bound["a"], bound["indices"], bound["b"]], keywords=[])


define_method("outer", list(_ELEMENTWISE), _outer)
define_method("reduce", list(_REDUCTIONS), _reduce)
define_method("accumulate", list(_SCANS), _accumulate)
define_method("at", [np.add, np.subtract, np.multiply, np.maximum, np.minimum], _at)
define_call([np.cumsum], _cumulative("cumsum_axis", "np.cumsum"))
define_call([np.cumprod], _cumulative("cumprod_axis", "np.cumprod"))

_AT_WRITES = {"add": "rt.add_at(a, indices, b)", "subtract": "rt.add_at(a, indices, -b)",
              "multiply": "rt.multiply_at(a, indices, b)", "maximum": "rt.maximum_at(a, indices, b)",
              "minimum": "rt.minimum_at(a, indices, b)"}
for _ufunc, _update in _AT_WRITES.items():
    define_writer(f"np.{_ufunc}.at", [], "a, indices, b", f"a[:] = {_update}")
