"""Products and transposes: np.dot, @ / np.matmul, np.outer, np.matrix_transpose (``.mT``); np.transpose
(``.T``, any permutation of the axes) is with the other axis permutations in ``arrays``.

The adjoint of a product depends on the operands' ranks; each case is the textbook rule
(for C = A @ B: bA = g @ B.T, bB = A.T @ g).

``@`` follows NumPy's matmul for operands of any rank: stacks of matrices, the leading (batch)
dimensions broadcast against each other, a 1-D operand read as one row (left) or one column (right)
whose dimension the result drops. Numba's own ``@`` multiplies only 1-D and 2-D arrays of one float
dtype; every other product is lowered to ``rt.matmul`` (runtime/products.py), whose rules are written
with itself: bA = unbroadcast(g @ swap(B), A), bB = unbroadcast(swap(A) @ g, B), swap exchanging the
last two axes and unbroadcast summing over the batch dimensions an operand was broadcast along.
np.dot is lowered the same way where Numba lacks it (a number, mixed or integer dtypes, 3 or more axes).
"""
import numpy as np

from .. import runtime as rt
from ..base.ast_utils import template_expr
from ..base.kinds import Kind, promote
from . import LINEAR, define
from .common import StaticError


def _dot_kind(k, s):
    """NumPy's dot: a product with a number is elementwise; otherwise the last axis of a meets the
    second-to-last of b (the only one of a 1-D b), and the result has the other axes of a, then of b."""
    a, b = k["a"], k["b"]
    ndim = max(a.ndim, b.ndim) if 0 in (a.ndim, b.ndim) else a.ndim + b.ndim - 2
    return promote(a, b).with_ndim(ndim)


def _dot_lower(statics, kinds, operands):
    """np.dot as Numba has it (1-D and 2-D operands of one float or complex dtype) where it applies; else
    a product with a number is ``a * b``, and the rest ``rt.matmul``, whose products are dot's where b is
    1-D or 2-D or a is 1-D. For a of 2 or more axes and b of 3 or more, a's rows become 1 x k matrices
    broadcast against b's stack, and that length-1 axis is summed away."""
    a, b = kinds["a"], kinds["b"]
    if 0 in (a.ndim, b.ndim):
        return template_expr("a * b", a=operands["a"], b=operands["b"])
    if a.ndim <= 2 and b.ndim <= 2 and a.dtype == b.dtype and a.is_float:
        return None
    if a.ndim == 1 or b.ndim <= 2:
        return template_expr("rt.matmul(a, b)", a=operands["a"], b=operands["b"])
    rows = "a"
    for _ in range(b.ndim - 1):
        rows = f"np.expand_dims({rows}, -2)"
    return template_expr(f"rt.sum_axis(rt.matmul({rows}, b), {a.ndim + b.ndim - 3}, False)",
                         a=operands["a"], b=operands["b"])


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


def _matrices(k):
    """Products of vectors and matrices: their adjoints have the operands' shapes (no stacks broadcast)."""
    return all(isinstance(k.get(p), Kind) and k[p].ndim in (1, 2) for p in ("a", "b"))


define("np.dot", [np.dot], "a, b", _dot_kind, _dot_vjp, jvp=_dot_jvp, batch=_dot_batch, lower=_dot_lower,
       exact=_matrices)


def _outer_vjp(k, s):
    """np.outer flattens its operands: the adjoint of an operand of rank above 1 is folded back to its shape."""
    a = "np.dot(g, b)" if k["b"].ndim == 1 else "np.dot(g, np.ravel(b))"
    b = "np.dot(a, g)" if k["a"].ndim == 1 else "np.dot(np.ravel(a), g)"
    return {"a": a if k["a"].ndim == 1 else f"np.reshape({a}, a.shape)",
            "b": b if k["b"].ndim == 1 else f"np.reshape({b}, b.shape)"}


define("np.outer", [np.outer], "a, b", lambda k, s: promote(k["a"], k["b"]).with_ndim(2),
       _outer_vjp, jvp={"a": "np.outer(t, b)", "b": "np.outer(a, t)"}, exact=True)


# ---- @ / np.matmul with NumPy's semantics for every rank --------------------------------------------
def _matmul_kind(k, s):
    a, b = k["a"], k["b"]
    if a.ndim == 0 or b.ndim == 0:
        raise StaticError("matmul of a scalar: NumPy's @ needs operands of rank 1 or more",
                          hint="multiply by a scalar with *")
    if a.ndim == 1 or b.ndim == 1:          # a 1-D operand's own dimension is contracted and dropped
        return promote(a, b).with_ndim(a.ndim + b.ndim - 2)
    return promote(a, b).with_ndim(max(a.ndim, b.ndim))


def _matmul_vjp(k, s):
    """A 1-D a is the row (1, k) and a 1-D b the column (k, 1): their adjoints are the 2-D ones with g given
    that axis back, un-broadcast (summed over the batch) to the operand; outer products are elementwise."""
    ra, rb = k["a"].ndim, k["b"].ndim
    if ra == 1 and rb == 1:
        return {"a": "g * b", "b": "g * a"}
    if ra == 1:
        return {"a": "rt.unbroadcast(rt.matmul(np.expand_dims(g, -2), np.swapaxes(b, -1, -2)), a)",
                "b": "rt.unbroadcast(np.expand_dims(a, -1) * np.expand_dims(g, -2), b)"}
    if rb == 1:
        return {"a": "rt.unbroadcast(np.expand_dims(g, -1) * b, a)",
                "b": "rt.unbroadcast(rt.matmul(np.expand_dims(g, -2), a), b)"}
    if rb == 2 and ra >= 3:     # one b under a stack: its adjoint, summed over the stack, is one product
        return {"a": "rt.matmul(g, b.T)",       # of all the stack's rows (rt.matmul: any dtypes)
                "b": "rt.matmul(rt.reshape(a, (-1, a.shape[-1])).T, rt.reshape(g, (-1, g.shape[-1])))"}
    return {"a": "rt.unbroadcast(rt.matmul(g, np.swapaxes(b, -1, -2)), a)",
            "b": "rt.unbroadcast(rt.matmul(np.swapaxes(a, -1, -2), g), b)"}


_MATMUL_JVP = {"a": "rt.matmul(t, b)", "b": "rt.matmul(a, t)"}       # bilinear

# both operands vectors: (batched a, batched b) -> the product of each lane
_MATMUL_VECTORS = {(True, True): "rt.sum_axis(a * b, 1, False)", (True, False): "rt.matmul(a, b)",
                   (False, True): "rt.matmul(b, a)"}


def _matmul_batch(batched, k, s):
    """The batched product is one matmul: the batch axis becomes the first batch dimension. A batched operand
    gets length-1 dimensions after it up to the result's batch rank (so the batch axis lines up with the other
    operand's batch dimensions, aligned from the right); a batched 1-D operand becomes a row (column) stack
    whose length-1 axis is summed away afterwards. An unbatched operand broadcasts as it is."""
    ra, rb = k["a"].ndim, k["b"].ndim
    if ra == 0 or rb == 0:
        return None
    if ra == 1 and rb == 1:
        return _MATMUL_VECTORS[(batched["a"], batched["b"])]
    depth = max(ra, rb) - 2                   # batch dimensions of one example's result

    def lined_up(p, rank, vector_axis):
        if not batched[p]:
            return p, False
        text = f"np.expand_dims({p}, {vector_axis})" if rank == 1 else p
        for _ in range(depth - (max(rank, 2) - 2)):
            text = f"np.expand_dims({text}, 1)"
        return text, rank == 1

    a, row = lined_up("a", ra, 1)
    b, column = lined_up("b", rb, 2)
    product = f"rt.matmul({a}, {b})"
    if row or column:                         # drop the length-1 row (column) axis of the vector
        return f"rt.sum_axis({product}, {1 + depth + column}, False)"
    return product


def _matmul_lower(statics, kinds, operands):
    """Numba's @ where it applies (1-D and 2-D operands of one float dtype), rt.matmul everywhere else."""
    a, b = kinds["a"], kinds["b"]
    native = a.ndim <= 2 and b.ndim <= 2 and a.dtype == b.dtype and a.is_float
    return template_expr("a @ b" if native else "rt.matmul(a, b)", a=operands["a"], b=operands["b"])


def _stays_2d(rule, general):
    """A rule of ``@`` as Numba runs it (operands of rank 2 at most) where that has one, else the general one."""
    def pick(*args):
        k = args[-2]
        if k["a"].ndim <= 2 and k["b"].ndim <= 2:
            found = rule(*args)
            if found is not None:
                return found
        return general(*args)
    return pick


# NumPy 2 spells it np.linalg.matmul too
_MATMULS = [np.matmul] + [f for f in (getattr(np.linalg, "matmul", None),) if f is not None and f is not np.matmul]
define("MatMult", _MATMULS, "a, b", _matmul_kind, _stays_2d(_dot_vjp, _matmul_vjp),
       jvp=_stays_2d(_dot_jvp, lambda k, s: _MATMUL_JVP), batch=_stays_2d(_dot_batch, _matmul_batch),
       lower=_matmul_lower, exact=_matrices)
define("rt.matmul", [rt.matmul], "a, b", _matmul_kind, _matmul_vjp, jvp=_MATMUL_JVP, batch=_matmul_batch)


# np.matrix_transpose: the transpose of every matrix of a stack, written as np.swapaxes (whose rules apply)
def _matrix_transpose_kind(k, s):
    if k["x"].ndim < 2:
        raise StaticError(f"matrix_transpose needs an array of rank 2 or more, got rank {k['x'].ndim}")
    return k["x"]


_MATRIX_TRANSPOSES = [f for f in (getattr(np, "matrix_transpose", None), getattr(np.linalg, "matrix_transpose", None))
                      if f is not None]
define("np.matrix_transpose", _MATRIX_TRANSPOSES, "x", _matrix_transpose_kind, {"x": "np.swapaxes(g, -1, -2)"},
       jvp=LINEAR, view="x", lower=lambda s, k, ops: template_expr("np.swapaxes(x, -1, -2)", x=ops["x"]))
