"""Products and transposes: np.dot, @, np.outer, .T / np.transpose.

The adjoint of a product depends on the operands' ranks; each case is the textbook rule
(for C = A @ B: bA = g @ B.T, bB = A.T @ g).
"""
import numpy as np

from ..kinds import promote
from . import LINEAR, define
from .common import StaticError


def _dot_kind(k, s):
    a, b = k["a"], k["b"]
    if a.ndim > 2 or b.ndim > 2:
        raise StaticError("products of arrays with more than 2 dimensions are not supported")
    ndim = {(0, 0): 0, (1, 1): 0, (2, 1): 1, (1, 2): 1, (2, 2): 2}.get((a.ndim, b.ndim), max(a.ndim, b.ndim))
    return promote(a, b).with_ndim(ndim)


_DOT_VJP = {
    (1, 1): {"a": "g * b", "b": "g * a"},
    (2, 1): {"a": "np.outer(g, b)", "b": "np.dot(a.T, g)"},
    (1, 2): {"a": "np.dot(b, g)", "b": "np.outer(a, g)"},
    (2, 2): {"a": "np.dot(g, b.T)", "b": "np.dot(a.T, g)"},
}


def _dot_vjp(k, s):
    ranks = (k["a"].ndim, k["b"].ndim)
    if 0 in ranks:          # a product with a scalar is elementwise
        return {"a": "rt.unbroadcast(g * b, a)", "b": "rt.unbroadcast(g * a, b)"}
    return _DOT_VJP[ranks]


def _dot_jvp(k, s):
    # bilinear: d(a . b) = da . b + a . db
    if 0 in (k["a"].ndim, k["b"].ndim):
        return {"a": "t * b", "b": "a * t"}
    return {"a": "np.dot(t, b)", "b": "np.dot(a, t)"}


# batched products (a leading batch axis on a, b or both) that one 2-D product or a sum computes;
# keyed by (rank of a, rank of b, a batched, b batched) for one example; other cases run per example
_DOT_BATCH = {
    (1, 1, True, True): "rt.sum_axis(a * b, 1, False)",
    (1, 1, True, False): "np.dot(a, b)",
    (1, 1, False, True): "np.dot(b, a)",
    (2, 1, False, True): "np.dot(b, np.transpose(a))",       # rows W @ x_b of one matrix W
    (2, 1, True, True): "rt.sum_axis(a * np.expand_dims(b, 1), 2, False)",
    (1, 2, True, False): "np.dot(a, b)",                     # x_b @ W
    (1, 2, True, True): "rt.sum_axis(np.expand_dims(a, 2) * b, 1, False)",
}


def _dot_batch(batched, k, s):
    ranks = (k["a"].ndim, k["b"].ndim)
    if 0 in ranks:
        return "a * b" if ranks == (0, 0) else None
    return _DOT_BATCH.get(ranks + (batched["a"], batched["b"]))


define("np.dot", [np.dot], "a, b", _dot_kind, _dot_vjp, jvp=_dot_jvp, batch=_dot_batch)
define("MatMult", [np.matmul], "a, b", _dot_kind, _dot_vjp, jvp=_dot_jvp, batch=_dot_batch)
define("np.outer", [np.outer], "a, b", lambda k, s: promote(k["a"], k["b"]).with_ndim(2),
       {"a": "np.dot(g, b)", "b": "np.dot(a, g)"}, jvp={"a": "np.outer(t, b)", "b": "np.outer(a, t)"})
define("np.transpose", [np.transpose], "x", lambda k, s: k["x"], {"x": "np.transpose(g)"}, jvp=LINEAR, view="x")
