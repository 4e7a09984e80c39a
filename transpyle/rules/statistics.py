"""Statistics: ``np.cov``, ``np.corrcoef`` and ``np.histogram``, written with other primitives when
they are resolved (``rules/rewrites``), and ``np.atleast_1d``, ``np.atleast_2d``, ``np.atleast_3d``.

``np.cov(m)`` is the product of the centred rows with their transpose, divided by the number of
observations less ``ddof``; ``np.corrcoef`` divides the same product by the outer product of the
rows' norms and clips to [-1, 1] as NumPy does. Means, products, square roots and divisions carry
the derivatives. ``rt.cov_result`` gives NumPy's result shape: a number for one variable given as
a vector. (NumPy also returns a number for a matrix of one row; here that is a 1 x 1 matrix.)

``np.histogram(a, bins, range, weights=w)`` is ``(counts, edges)``: the edges (``rt.histogram_edges``,
from ``range`` or from the smallest and largest value of ``a``, differentiable in those), the bin of
each value (``rt.bin_index``, an integer array: the counts are piecewise constant in ``a``, so their
derivative in ``a`` is zero, as in JAX) and the sum of the weights per bin (``rt.bin_sums``, linear in
the weights; its transpose ``rt.bin_gather`` reads a cotangent per bin back at each value's bin).
"""
import copy

import gast
import numpy as np

from .. import runtime as rt
from ..base.ast_utils import template_expr
from ..base.kinds import INT, Kind
from . import LINEAR, define
from .common import StaticError, const_value
from .rewrites import define_call
from .ufunc_methods import _arguments, _unset

# ---- primitives --------------------------------------------------------------------------------


def _atleast_2d_lanes(batched, kinds, statics):
    ndim = kinds["x"].ndim
    return "x" if ndim >= 2 else "np.expand_dims(x, 1)" if ndim == 1 else None


define("np.atleast_2d", [np.atleast_2d], "x", lambda k, s: k["x"].with_ndim(max(2, k["x"].ndim)),
       lambda k, s: {"x": "np.sum(g)" if k["x"].ndim == 0 else "np.reshape(np.ascontiguousarray(g), x.shape)"},
       diff=("x",), jvp=LINEAR, batch=_atleast_2d_lanes, view="x")
# np.atleast_1d: a number as a vector of it, an array itself (a view); np.atleast_3d: (n,) -> (1, n, 1),
# (m, n) -> (m, n, 1), as NumPy's; their batched forms loop
define("np.atleast_1d", [np.atleast_1d], "x", lambda k, s: k["x"].with_ndim(max(1, k["x"].ndim)),
       lambda k, s: {"x": "np.sum(g)" if k["x"].ndim == 0 else "g"}, diff=("x",), jvp=LINEAR, view="x")
define("np.atleast_3d", [np.atleast_3d], "x", lambda k, s: k["x"].with_ndim(max(3, k["x"].ndim)),
       lambda k, s: {"x": "np.sum(g)" if k["x"].ndim == 0 else "np.reshape(np.ascontiguousarray(g), x.shape)"},
       diff=("x",), jvp=LINEAR, view="x")


def _cov_result_kind(k, s):
    c, x = k["c"], k["x"]
    if x.is_complex or c.is_complex:
        raise StaticError("np.cov and np.corrcoef of complex values are not supported", hint="pass real values")
    return c if x.ndim >= 2 else c.with_ndim(0)


def _cov_result_lanes(batched, kinds, statics):
    if not batched["c"]:
        return None
    return "c" if kinds["x"].ndim >= 2 else "np.ascontiguousarray(c).reshape(c.shape[:1])"


define("rt.cov_result", [rt.cov_result], "c, x", _cov_result_kind,
       lambda k, s: {"c": "g" if k["x"].ndim >= 2 else "g + np.zeros_like(c)"}, diff=("c",), jvp=LINEAR,
       batch=_cov_result_lanes)


def _edges_kind(k, s):
    if k["bins"].ndim > 1 or (k["bins"].ndim == 0 and k["bins"].is_float):
        raise StaticError("bins must be a number of bins (an integer) or a 1-D array of edges")
    return Kind("float64", 1)


def _edges_vjp(k, s):
    if k["bins"].ndim == 1:                   # the edges given: the identity in them, no dependence on lo, hi
        return {"bins": "g", "lo": "0.0 * np.sum(g)", "hi": "0.0 * np.sum(g)"}
    # edge i of n is lo + (hi - lo) i / n
    return {"lo": "np.sum(g) - np.sum(g * np.linspace(0.0, 1.0, g.shape[0]))",
            "hi": "np.sum(g * np.linspace(0.0, 1.0, g.shape[0]))"}


def _edges_jvp(k, s):
    if k["bins"].ndim == 1:
        return {"bins": "t", "lo": "0.0 * y", "hi": "0.0 * y"}
    return {"lo": "t * (1.0 - np.linspace(0.0, 1.0, y.shape[0]))", "hi": "t * np.linspace(0.0, 1.0, y.shape[0])"}


define("rt.histogram_edges", [rt.histogram_edges], "bins, lo, hi", _edges_kind, _edges_vjp, diff=("bins", "lo", "hi"),
       jvp=_edges_jvp)
define("rt.bin_index", [rt.bin_index], "a, edges", lambda k, s: INT.with_ndim(k["a"].ndim))
define("rt.bin_counts", [rt.bin_counts], "slot, n", lambda k, s: INT.with_ndim(1))
define("rt.bin_sums", [rt.bin_sums], "w, slot, n", lambda k, s: k["w"].with_ndim(1),
       {"w": "rt.bin_gather(g, slot)"}, diff=("w",), jvp=LINEAR)
define("rt.bin_gather", [rt.bin_gather], "v, slot", lambda k, s: k["v"].with_ndim(k["slot"].ndim),
       {"v": "rt.bin_sums(g, slot, v.shape[0])"}, diff=("v",), jvp=LINEAR)


# ---- np.cov, np.corrcoef, np.histogram --------------------------------------------------------------
def _refuse_set(bound, names, what):
    for name in names:
        if not _unset(bound.get(name)):
            raise StaticError(f"{what}: the argument '{name}' is not supported",
                              hint="see docs/subset.md for the supported arguments")


def _rows(bound):
    """Source of the variables as rows of a matrix (``m`` and ``y`` stacked), with ``m`` and ``y`` as names."""
    rowvar = const_value(bound.get("rowvar", gast.Constant(value=True, kind=None)), "rowvar")
    pattern = "np.atleast_2d({})" if rowvar else "np.atleast_2d(np.transpose({}))"
    if _unset(bound.get("y")):
        return pattern.format("m")
    return f"np.concatenate(({pattern.format('m')}, {pattern.format('y')}), axis=0)"


def _as_numpy_returns(text, bound):
    """``text`` (the matrix) as NumPy returns it: a number for one variable given as a vector; with ``y``
    there are always two variables or more."""
    return f"rt.cov_result({text}, m)" if _unset(bound.get("y")) else text


def _centred(rows):
    return f"({rows} - np.mean({rows}, axis=1, keepdims=True))"


def _cov(call):
    bound = _arguments(call, ("m", "y", "rowvar", "bias", "ddof", "fweights", "aweights", "dtype"), "np.cov")
    _refuse_set(bound, ("fweights", "aweights", "dtype"), "np.cov")
    bias = const_value(bound.get("bias", gast.Constant(value=False, kind=None)), "bias")
    ddof = const_value(bound.get("ddof", gast.Constant(value=None, kind=None)), "ddof")
    if ddof is None:
        ddof = 0 if bias else 1
    rows = _rows(bound)
    centred = _centred(rows)
    text = _as_numpy_returns(f"{centred} @ np.transpose({centred}) / (len(np.transpose({rows})) - {ddof!r})", bound)
    return template_expr(text, m=bound["m"], y=bound.get("y", gast.Constant(value=None, kind=None)))


def _corrcoef(call):
    bound = _arguments(call, ("m", "y", "rowvar", "dtype"), "np.corrcoef")
    _refuse_set(bound, ("dtype",), "np.corrcoef")
    centred = _centred(_rows(bound))
    norms = f"np.sqrt(np.sum({centred} * {centred}, axis=1))"
    text = _as_numpy_returns(f"np.clip({centred} @ np.transpose({centred}) / np.outer({norms}, {norms}), -1.0, 1.0)",
                             bound)
    return template_expr(text, m=bound["m"], y=bound.get("y", gast.Constant(value=None, kind=None)))


def _histogram(call):
    bound = _arguments(call, ("a", "bins", "range", "density", "weights"), "np.histogram")
    if not _unset(bound.get("density")) and const_value(bound["density"], "density") is not False:
        raise StaticError("np.histogram with density=True is not supported",
                          hint="divide the counts by their sum and by np.diff of the edges")
    bins = bound.get("bins", gast.Constant(value=10, kind=None))
    if isinstance(bins, gast.Constant) and not isinstance(bins.value, int):
        raise StaticError("bins must be a number of bins or an array of edges (bin rules by name are not supported)")
    span = bound.get("range")
    if _unset(span):
        lo, hi = template_expr("np.min(a)", a=bound["a"]), template_expr("np.max(a)", a=bound["a"])
    elif isinstance(span, gast.Tuple) and len(span.elts) == 2:
        lo, hi = span.elts
    else:
        lo, hi = (gast.Subscript(value=copy.deepcopy(span), slice=gast.Constant(value=i, kind=None), ctx=gast.Load())
                  for i in (0, 1))
    edges = template_expr("rt.histogram_edges(bins, lo, hi)", bins=bins, lo=lo, hi=hi)
    slot = template_expr("rt.bin_index(a, edges)", a=bound["a"], edges=edges)
    count = bins if isinstance(bins, gast.Constant) else template_expr("len(edges) - 1", edges=edges)
    if _unset(bound.get("weights")):
        counts = template_expr("rt.bin_counts(slot, n)", slot=slot, n=count)
    else:
        counts = template_expr("rt.bin_sums(w, slot, n)", w=bound["weights"], slot=slot, n=count)
    return gast.Tuple(elts=[counts, edges], ctx=gast.Load())


define_call([np.cov], _cov)
define_call([np.corrcoef], _corrcoef)
define_call([np.histogram], _histogram)
