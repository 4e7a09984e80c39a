"""Reductions: sum, mean, prod, max, min, any, all (with ``axis`` and ``keepdims``), and var and std written with
means when they are resolved (``rules/rewrites``); norms are in ``matrices``.

The cotangent of a reduction is spread back over the reduced axes: ``expand(g)`` below
re-inserts them (``g[:, None]``; a number with ``rt.expand_dims``) unless ``keepdims``
kept them, after which NumPy broadcasting does the rest. max/min split the cotangent evenly among
tied maxima, as JAX does. Reductions with an axis or keepdims are emitted as calls to the run-time
helpers, which have NumPy's semantics on both backends. ``axis`` is an int or a tuple of ints
(``common.axis_of`` normalises it: a tuple of one axis is that axis, of every axis None).
"""
import math

import gast
import numpy as np

from .. import runtime as rt
from ..base.ast_utils import parse_expr, template_expr
from . import LINEAR, AlongAxis, define
from .common import StaticError, axis_of, const_value, reduced
from .call_forms import define_written
from .rewrites import define_call


def _expand(kinds, statics, what):
    axis = axis_of(statics, kinds)
    if axis is None or const_value(statics["keepdims"]):
        return what
    axes = axis if isinstance(axis, tuple) else (axis,)
    rank = kinds["x"].ndim - len(axes)
    if rank:
        # new axes where x was reduced (g[:, None, None, :]): a view the shapes and element loops follow
        index = ", ".join("None" if a in axes else ":" for a in range(kinds["x"].ndim))
        return f"{what}[{index}]" if what.isidentifier() else f"({what})[{index}]"
    for a in axes:
        # a 1-D array reduced along its axis is a number, which Numba's np.expand_dims does not take
        what = f"{'np' if rank else 'rt'}.expand_dims({what}, {a})"
        rank += 1
    return what


def _of_arrays(rule, seed):
    """``rule`` for an array x; for a number, which every reduction but any/all returns as it is, ``seed``
    (the cotangent g or the tangent t) itself."""
    return lambda k, s: rule(k, s) if k["x"].ndim else {"x": seed}


def _lower(helper, whole):
    """Emit ``rt.<helper>(x, axis, keepdims)`` when an axis or keepdims is given; ``whole(x)`` (the NumPy
    function, without the ``axis=None`` or ``keepdims=False`` Numba does not take) otherwise."""
    def lower(statics, kinds, operands):
        axis = axis_of(statics, kinds)
        keep = const_value(statics["keepdims"])
        if axis is None and not keep:
            return template_expr(f"{whole}(x)", x=operands["x"])
        return template_expr(f"rt.{helper}(x, {axis!r}, {keep!r})", x=operands["x"])
    return lower


def _sum_vjp(k, s):
    return {"x": _expand(k, s, "g")}


def _mean_vjp(k, s):
    axis = axis_of(s, k)
    count = "x.size" if axis is None else f"x.shape[{axis}]" if isinstance(axis, int) else \
        "(" + " * ".join(f"x.shape[{a}]" for a in axis) + ")" if axis else "1"
    return {"x": f"{_expand(k, s, 'g')} / {count}"}


def _prod_vjp(k, s):
    axis = axis_of(s, k)
    if axis is None:
        return {"x": "g * rt.prod_others(x)"}
    # the product of the other elements of each slice, not y / x: exact where an element is zero
    return {"x": f"{_expand(k, s, 'g')} * {_prod_others(axis)}"}


def _prod_others(axis):
    """For each element of x, the product of the others in its slice along ``axis`` (an int or a tuple)."""
    if axis == ():
        return "np.ones_like(x)"
    helper = "prod_others_axis" if isinstance(axis, int) else "prod_others_axes"
    return f"rt.{helper}(x, {axis!r})"


def _chooser_vjp(k, s):
    # cotangent shared evenly among the positions that attain the extreme value
    hit = f"(x == {_expand(k, s, 'y')})"
    axis = axis_of(s, k)
    if axis is None:
        return {"x": f"g * {hit} / np.sum({hit})"}
    return {"x": f"{_expand(k, s, 'g')} * {hit} / rt.sum_axis({hit}, {axis}, True)"}


def _reduce_sum(k, s, what):
    """Source summing ``what`` (shaped like x) the way this reduction reduces x."""
    axis = axis_of(s, k)
    keep = const_value(s["keepdims"])
    if axis is None and not keep:
        return f"np.sum({what})"
    return f"rt.sum_axis({what}, {axis!r}, {keep!r})"


def _prod_jvp(k, s):
    if axis_of(s, k) is None:
        return {"x": f"{_reduce_sum(k, s, 't * rt.prod_others(x)')}"}
    return {"x": _reduce_sum(k, s, f"t * {_prod_others(axis_of(s, k))}")}


def _chooser_jvp(k, s):
    # the mean of the tangents at the positions attaining the extreme value (the tie rule above)
    hit = f"(x == {_expand(k, s, 'y')})"
    return {"x": f"{_reduce_sum(k, s, f't * {hit}')} / {_reduce_sum(k, s, hit)}"}


def _counted(k, s):
    """The kind of a sum or product: NumPy's sum of booleans counts them (int64)."""
    out = reduced(k, s)
    return out.with_dtype("int64") if out.dtype == "bool" else out


_SIG = "x, axis=None, keepdims=False"
define("np.sum", [np.sum, rt.sum_axis], _SIG, _counted, _sum_vjp, diff=("x",), lower=_lower("sum_axis", "np.sum"),
       batch=AlongAxis("sum_axis"), jvp=LINEAR)
define("np.mean", [np.mean, rt.mean_axis], _SIG, lambda k, s: reduced(k, s).with_dtype("float64")
       if not k["x"].is_float else reduced(k, s), _of_arrays(_mean_vjp, "g"), diff=("x",),
       lower=_lower("mean_axis", "np.mean"), batch=AlongAxis("mean_axis"), jvp=LINEAR)
define("np.prod", [np.prod, rt.prod_axis], _SIG, _counted, _of_arrays(_prod_vjp, "g"), diff=("x",),
       lower=_lower("prod_axis", "np.prod"), batch=AlongAxis("prod_axis"), jvp=_of_arrays(_prod_jvp, "t"))
define("np.max", [np.max, np.amax, rt.max_axis], _SIG, reduced, _of_arrays(_chooser_vjp, "g"), diff=("x",),
       lower=_lower("max_axis", "np.max"), batch=AlongAxis("max_axis"), jvp=_of_arrays(_chooser_jvp, "t"))
define("np.min", [np.min, np.amin, rt.min_axis], _SIG, reduced, _of_arrays(_chooser_vjp, "g"), diff=("x",),
       lower=_lower("min_axis", "np.min"), batch=AlongAxis("min_axis"), jvp=_of_arrays(_chooser_jvp, "t"))
# whether any (every) element is nonzero: boolean results, piecewise constant, no derivative
define("np.any", [np.any, rt.any_axis], _SIG, lambda k, s: reduced(k, s).with_dtype("bool"),
       lower=_lower("any_axis", "np.any"), batch=AlongAxis("any_axis"))
define("np.all", [np.all, rt.all_axis], _SIG, lambda k, s: reduced(k, s).with_dtype("bool"),
       lower=_lower("all_axis", "np.all"), batch=AlongAxis("all_axis"))



# ---- variance and standard deviation: means of squared deviations ---------------------------------
def _spread(name, root):
    """The builder of ``np.var``/``np.std(x, axis, ddof=, keepdims=)``: the mean of ``|x - mean|**2`` (the
    sum over the count less ``ddof``), its square root for std; the mean's rules give the derivative."""
    def build(call):
        params = ("x", "axis", "dtype", "out", "ddof", "keepdims")
        if len(call.args) > len(params) or any(kw.arg not in params for kw in call.keywords):
            raise StaticError(f"{name} takes x, axis, ddof and keepdims")
        bound = dict(zip(params, call.args))
        bound.update({kw.arg: kw.value for kw in call.keywords})
        if "x" not in bound:
            raise StaticError(f"{name} needs the array")
        for unsupported in ("dtype", "out"):
            if bound.get(unsupported) is not None and const_value(bound[unsupported], unsupported) is not None:
                raise StaticError(f"{name} with {unsupported}= is not supported")
        ddof = const_value(bound.get("ddof", gast.Constant(value=0, kind=None)), "ddof")
        subs = {"x": bound["x"], "axis": bound.get("axis", gast.Constant(value=None, kind=None)),
                "keep": bound.get("keepdims", gast.Constant(value=False, kind=None))}
        squares = "np.abs(x - np.mean(x, axis=axis, keepdims=True)) ** 2"
        if ddof == 0:
            text = f"np.mean({squares}, axis=axis, keepdims=keep)"
        else:
            text = f"np.sum({squares}, axis=axis, keepdims=keep) / " \
                   f"(np.sum(np.ones_like(x), axis=axis, keepdims=keep) - {float(ddof)!r})"
        return template_expr(f"np.sqrt({text})" if root else text, **subs)
    return build


define_call([np.var], _spread("np.var", root=False))
define_call([np.std], _spread("np.std", root=True))


def _shape_product(call):
    """``np.prod`` of a shape is written with shape facts: ``np.prod(x.shape)`` is ``x.size``,
    ``np.prod(x.shape[k:])`` is ``x.size`` over the first k entries, ``np.prod(x.shape[:k])`` their product
    (k a constant); any other ``np.prod`` is the reduction (None)."""
    if len(call.args) != 1 or call.keywords:
        return prod_keywords(call)
    arg = call.args[0]
    if isinstance(arg, gast.Attribute) and arg.attr == "shape":
        return gast.Attribute(value=arg.value, attr="size", ctx=gast.Load())
    if not (isinstance(arg, gast.Subscript) and isinstance(arg.value, gast.Attribute) and arg.value.attr == "shape"
            and isinstance(arg.slice, gast.Slice) and arg.slice.step is None):
        return None
    lower, upper = arg.slice.lower, arg.slice.upper
    bound = lower if upper is None else upper if lower is None or getattr(lower, "value", None) == 0 else None
    if not (isinstance(bound, gast.Constant) and isinstance(bound.value, int) and bound.value >= 0):
        return None
    leading = " * ".join(f"x.shape[{i}]" for i in range(bound.value)) or "1"
    text = f"x.size // ({leading})" if upper is None else f"({leading})"
    return template_expr(text, x=arg.value.value)


define_call([np.prod, math.prod], _shape_product)
from .reduction_keywords import prod_keywords  # noqa: E402  (the keywords of np.prod: dtype=, initial=, where=)

__all__ = ["parse_expr"]


# ---- weighted means: np.average -----------------------------------------------------------------
def _average_parts(s, k):
    """Texts of (the weighted mean, the sum of the weights broadcast to its shape) of np.average."""
    ndim = k["a"].ndim
    axis, keep = const_value(s["axis"], "axis"), const_value(s["keepdims"], "keepdims")
    over = f"axis={axis!r}, keepdims={keep!r}"
    if k["weights"] is None:
        return f"np.mean(a, {over})", f"np.sum(np.ones_like(a) * 1.0, {over})"
    w = "weights"
    if k["weights"].ndim != ndim:
        if k["weights"].ndim != 1 or not isinstance(axis, int):
            raise StaticError("np.average's weights must have the array's shape, or be 1-D along one axis",
                              hint="give axis= as one int for 1-D weights")
        w = f"np.reshape(weights, {tuple(-1 if d == axis % ndim else 1 for d in range(ndim))!r})"
    return f"np.sum(a * {w}, {over}) / np.sum({w} * np.ones_like(a), {over})", \
        f"np.sum({w} * np.ones_like(a), {over})"


def _average_kind(k, s):
    if const_value(s["returned"], "returned"):
        raise StaticError("np.average's returned= must be a constant keyword (returned=True or returned=False)",
                          hint="write returned=True as a keyword; the call is then (average, sum of weights)")
    _average_parts(s, k)
    averaged = _averaged(k, s)
    return averaged if k["a"].is_complex else averaged.with_dtype("float64")


def _weights_sum_kind(k, s):
    return _averaged(k, s).with_dtype("float64")


def _averaged(k, s):
    """The kind of ``a`` reduced along np.average's ``axis`` (with ``keepdims``): the shape of both its values."""
    return reduced({"x": k["a"]}, {"axis": s["axis"], "keepdims": s["keepdims"]})


_AVERAGE = "a, axis=None, weights=None, returned=False, keepdims=False"
# the mean weighted by ``weights`` (of a's shape, or 1-D along one axis); with returned=True the call is
# the pair (that mean, rt.average_weights_sum: the sum of the weights broadcast to its shape), the parts of
# a multi-output call (rules/matrices.py, MULTI_OUTPUT)
define_written("np.average", _AVERAGE, _average_kind, lambda s, k: _average_parts(s, k)[0])
define_written("rt.average_weights_sum", _AVERAGE, _weights_sum_kind, lambda s, k: _average_parts(s, k)[1],
               objects=[rt.average_weights_sum])
