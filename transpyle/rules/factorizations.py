"""Factorizations and what is computed from them: np.linalg.cholesky, eigh/eigvalsh, eig/eigvals, qr,
svd, pinv, lstsq (``matrices`` holds the conventions these rules follow, and resolves the multi-output
ones into their parts: ``rt.qr_q``, ``rt.qr_r``...).

Cholesky, eigh and the singular values are written with primitives that have rules of their own (the
factorization recomputed where a rule needs it: ``rt.eigh_vectors(a)``), so derivative code can be
differentiated again; the others call a run-time helper (``rt.qr_q_vjp``...) that has no rule.
"""
import numpy as np

from .. import runtime as rt
from ..base.ast_utils import template_expr
from . import LINEAR, define
from .common import real_of
from .matrices import (conjugate_transposed, conjugated, define_helpers, matrix, matrix_operand, real_part,
                       real_tangent, rhs_kind)


# ---- Cholesky --------------------------------------------------------------------------------------
def _cholesky_rules(k, s):
    """Murray's rules (JAX's), for L = cholesky(a) real or complex: the tangent dL = L Phi(L^-1 herm(t) L^-H),
    the adjoint herm(L^-T Phi(L^T g) conj(L)^-1) its transpose; each inverse is a triangular solve.

    NumPy's cholesky reads only the lower triangle of ``a`` (the upper one is taken as its conjugate
    transpose, whatever it holds): a tangent acts through ``tril(t) + tril(t, -1)^H``, and the adjoint S
    (hermitian) goes to the lower triangle, each element below the diagonal getting both of its halves
    (``2 tril(S, -1) + diag(S)``) and the upper triangle nothing, where JAX, whose function symmetrizes,
    splits S evenly."""
    sym = (f"rt.hermitian_part(rt.solve_triangular({conjugate_transposed(k, 'a', 'y')}, "
           "rt.solve_triangular(y.T, rt.lower_half(np.dot(y.T, g)), False).T, False).T)")
    vjp = f"2.0 * np.tril({sym}, -1) + np.diag(np.diag({sym}))"
    read = "(np.tril(t) + np.conj(np.transpose(np.tril(t, -1))))"
    jvp = (f"np.dot(y, rt.lower_half(rt.solve_triangular({conjugated(k, 'a', 'y')}, "
           f"rt.solve_triangular(y, {read}, True).T, True).T))")
    return {"a": vjp}, {"a": jvp}


define("np.linalg.cholesky", [np.linalg.cholesky], "a", matrix(), lambda k, s: _cholesky_rules(k, s)[0],
       jvp=lambda k, s: _cholesky_rules(k, s)[1])


# ---- eigenvalues and eigenvectors ------------------------------------------------------------------
# eigh assumes a symmetric (Hermitian) matrix and its rules are symmetrized (as JAX's); NumPy reads the lower
# triangle. With V = eigh(a)[1] and F[i, j] = 1 / (w[j] - w[i]) (0 on the diagonal):
#   dw = Re diag(V^H t V),  dV = V (F * (V^H herm(t) V)),
# the eigenvector tangent being JAX's: V^H dV has a zero diagonal, which fixes the phase (sign) that eigh
# leaves free. The adjoints are their transposes. Written with primitives that have rules of their own, so
# the derivative code can be differentiated again (hessian, grad of grad).
def _eigh_rules(k, s):
    v, f = "rt.eigh_vectors(a)", "rt.gap_inverse(rt.eigh_values(a))"
    values = ({"a": f"np.dot({conjugated(k, 'a', v)} * g, {v}.T)"},
              {"a": real_tangent(k, "a", f"np.sum({conjugated(k, 'a', v)} * np.dot(t, {v}), axis=0)")})
    vectors = ({"a": f"rt.hermitian_part(np.dot({conjugated(k, 'a', 'y')}, np.dot({f} * np.dot(y.T, g), y.T)))"},
               {"a": f"np.dot(y, {f} * np.dot({conjugate_transposed(k, 'a', 'y')}, np.dot(rt.hermitian_part(t), y)))"})
    return values, vectors


define("np.linalg.eigvalsh", [np.linalg.eigvalsh, rt.eigh_values], "a", matrix(ndim=1, dtype="real"),
       lambda k, s: _eigh_rules(k, s)[0][0], jvp=lambda k, s: _eigh_rules(k, s)[0][1])
define("rt.eigh_vectors", [rt.eigh_vectors], "a", matrix(), lambda k, s: _eigh_rules(k, s)[1][0], diff=("a",),
       jvp=lambda k, s: _eigh_rules(k, s)[1][1])


def _eigvals_lower(statics, kinds, operands):
    # Numba computes complex eigenvalues only from a complex matrix: the helper converts first
    return template_expr("rt.eig_values(a)", a=operands["a"])


define("np.linalg.eigvals", [np.linalg.eigvals, rt.eig_values], "a", matrix(ndim=1, dtype="complex128"),
       lambda k, s: {"a": real_part(k, "a", "rt.eig_values_vjp(a, g)")}, lower=_eigvals_lower,
       jvp={"a": "rt.eig_values_jvp(a, t)"})
# eigenvectors of a general matrix: no rule (as in JAX), so differentiating through them is an error
define("rt.eig_vectors", [rt.eig_vectors], "a", matrix(dtype="complex128"), diff=("a",))


# ---- QR and SVD (reduced QR of a tall or square matrix; real or complex) ----------------------------
define("rt.qr_q", [rt.qr_q], "a", matrix(), {"a": "rt.qr_q_vjp(a, g)"}, jvp={"a": "rt.qr_q_jvp(a, t)"})
define("rt.qr_r", [rt.qr_r], "a", matrix(), {"a": "rt.qr_r_vjp(a, g)"}, jvp={"a": "rt.qr_r_jvp(a, t)"})
# ds_i = Re(u_i^H t v_i): the adjoint is conj(U diag(g) Vh) (U diag(g) Vh when real), JAX's convention
_U, _VH = "rt.svd_u(a, False)", "rt.svd_vh(a, False)"
define("rt.svd_s", [rt.svd_s], "a, full_matrices=True", matrix(ndim=1, dtype="real"),
       lambda k, s: {"a": f"np.dot({conjugated(k, 'a', _U)} * g, {conjugated(k, 'a', _VH)})"}, diff=("a",),
       jvp=lambda k, s: {"a": real_tangent(k, "a", f"np.sum({conjugated(k, 'a', _U)} * np.dot(t, "
                                                 f"{conjugate_transposed(k, 'a', _VH)}), axis=0)")})
# singular vectors in JAX's gauge (see runtime/linalg.py): only functions that do not depend on the phase
# of each singular pair have derivatives that mean anything
for _k, _part in ((0, rt.svd_u), (2, rt.svd_vh)):
    define(f"rt.{_part.__name__}", [_part], "a, full_matrices=True", matrix(), {"a": f"rt.svd_vjp(a, g, {_k})"},
           diff=("a",), jvp={"a": f"rt.svd_jvp(a, t, {_k})"})


# ---- pseudo-inverse and least squares (derivatives at constant rank) ------------------------------
define("np.linalg.pinv", [np.linalg.pinv], "a", matrix(), {"a": "rt.pinv_vjp(a, y, g)"},
       jvp={"a": "rt.pinv_jvp(a, y, t)"})


def _lstsq_vjp(k, s):
    pbar = "np.outer(g, b)" if k["b"].ndim == 1 else "np.dot(g, b.T)"
    return {"a": f"rt.pinv_vjp(a, np.linalg.pinv(a), {pbar})", "b": "np.dot(np.linalg.pinv(a).T, g)"}


def _lstsq_kind(k, s):
    matrix_operand(k, "a")
    return rhs_kind(k, s)


# rcond= (None: NumPy's machine-precision cut-off) is passed through; it carries no derivative
define("rt.lstsq_solution", [rt.lstsq_solution], "a, b, rcond=None", _lstsq_kind, _lstsq_vjp,
       jvp={"a": "np.dot(rt.pinv_jvp(a, np.linalg.pinv(a), t), b)", "b": "np.dot(np.linalg.pinv(a), t)"})
define("rt.lstsq_residuals", [rt.lstsq_residuals], "a, b, rcond=None", lambda k, s: _lstsq_kind(k, s).with_ndim(1),
       diff=("a", "b"))
define("rt.lstsq_rank", [rt.lstsq_rank], "a, b, rcond=None", lambda k, s: _lstsq_kind(k, s).with_dtype("int64").with_ndim(0))
define("rt.lstsq_singular_values", [rt.lstsq_singular_values], "a, b, rcond=None",
       lambda k, s: _lstsq_kind(k, s).with_ndim(1), diff=("a", "b"))


# ---- the pieces the rules above are written with, and the run-time helpers they call ----------------
# herm(x) and Phi(x) are linear and their own transposes (herm's conjugation transposes to a
# conjugation, as np.conj's rule); F = gap_inverse(w) has dF[i, j] = -F[i, j]^2 (dw[j] - dw[i])
define("rt.hermitian_part", [rt.hermitian_part], "x", matrix("x", stacks=False), {"x": "rt.hermitian_part(g)"},
       jvp=LINEAR)
define("rt.lower_half", [rt.lower_half], "x", matrix("x", stacks=False), {"x": "rt.lower_half(g)"}, jvp=LINEAR)
define("rt.gap_inverse", [rt.gap_inverse], "w", lambda k, s: real_of(k["w"]).with_ndim(2),
       # (no keyword arguments: the reverse pass reads a template with '=' as a statement)
       {"w": "rt.sum_axis(g * y * y, 1, False) - rt.sum_axis(g * y * y, 0, False)"},
       jvp={"w": "-(y * y) * (np.reshape(t, (1, t.shape[0])) - np.reshape(t, (t.shape[0], 1)))"})
define_helpers(((rt.eig_values_vjp, "a, g", 2, "complex128"), (rt.eig_values_jvp, "a, t", 1, "complex128"),
                (rt.qr_q_vjp, "a, g", 2, None), (rt.qr_r_vjp, "a, g", 2, None), (rt.qr_q_jvp, "a, t", 2, None),
                (rt.qr_r_jvp, "a, t", 2, None), (rt.svd_jvp, "a, t, which", 2, None),
                (rt.svd_vjp, "a, g, which", 2, None), (rt.pinv_jvp, "a, p, t", 2, None),
                (rt.pinv_vjp, "a, p, g", 2, None)))
