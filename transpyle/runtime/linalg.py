"""Linear algebra at run time: the parts of NumPy's multi-output functions, matrix norms, triangular
solves, and the adjoints and tangents that need a factorization."""
import numpy as np

from numba.extending import register_jitable


# ---- linear algebra --------------------------------------------------------------------------------
# The parts of NumPy's multi-output functions (``np.linalg.eigh(a)`` is resolved to the tuple
# ``(rt.eigh_values(a), rt.eigh_vectors(a))``), the matrix norms Numba lacks, a triangular solve, and
# the adjoints and tangents that need a factorization (each recomputes the one it needs). Written
# in the subset Numba compiles, so both backends run the same code. Real matrices whose eigenvalues
# may be complex are converted to complex128 first (Numba's eig only returns complex eigenvalues
# for complex input).


def hermitian_part(x):
    """(x + x^H) / 2: the part of a tangent a symmetric (Hermitian) factorization sees."""
    return 0.5 * (x + np.conj(x.T))


def lower_half(x):
    """The lower triangle of x with its diagonal halved (Murray's Phi in the Cholesky rules)."""
    out = np.tril(x)
    for i in range(min(out.shape[0], out.shape[1])):
        out[i, i] *= 0.5
    return out


def _complex(a):
    return a.astype(np.complex128)


def gap_inverse(w):
    """F[i, j] = 1 / (w[j] - w[i]) off the diagonal, 0 on it (inf where eigenvalues repeat)."""
    n = w.shape[0]
    eye = np.eye(n, dtype=w.dtype)
    return 1.0 / (w.reshape((1, n)) - w.reshape((n, 1)) + eye) - eye


def slogdet_sign(a):
    return np.linalg.slogdet(a)[0]


def slogdet_logdet(a):
    return np.linalg.slogdet(a)[1]


def eigh_values(a):
    return np.linalg.eigh(a)[0]


def eigh_vectors(a):
    return np.linalg.eigh(a)[1]


def eig_values(a):
    return np.linalg.eigvals(_complex(a))


def eig_vectors(a):
    return np.linalg.eig(_complex(a))[1]


def qr_q(a):
    return np.linalg.qr(a)[0]


def qr_r(a):
    return np.linalg.qr(a)[1]


def svd_u(a, full_matrices=True):
    return np.linalg.svd(a, full_matrices)[0]


def svd_s(a, full_matrices=True):
    return np.linalg.svd(a, full_matrices)[1]


def svd_vh(a, full_matrices=True):
    return np.linalg.svd(a, full_matrices)[2]


# NumPy's default cut-off (rcond=None) is what np.linalg.lstsq gives without one; Numba takes only numbers
def lstsq_solution(a, b, rcond=None):
    return np.linalg.lstsq(a, b)[0] if rcond is None else np.linalg.lstsq(a, b, rcond)[0]


def lstsq_residuals(a, b, rcond=None):
    return np.linalg.lstsq(a, b)[1] if rcond is None else np.linalg.lstsq(a, b, rcond)[1]


def lstsq_rank(a, b, rcond=None):
    return np.linalg.lstsq(a, b)[2] if rcond is None else np.linalg.lstsq(a, b, rcond)[2]


def lstsq_singular_values(a, b, rcond=None):
    return np.linalg.lstsq(a, b)[3] if rcond is None else np.linalg.lstsq(a, b, rcond)[3]


def nuclear_norm(x):
    return np.sum(np.linalg.svd(x, False)[1])


def solve_triangular(a, b, lower):
    """x with a @ x = b for a triangular ``a`` (only its ``lower`` or upper triangle is read); ``b`` a
    vector or a matrix. Substitution loops: scipy.linalg.solve_triangular does not compile in Numba."""
    return _substitute(a, b, lower)


def _substitute(a, b, lower):
    # row by row: each row of x is one dot product of a row of a with the rows already solved
    # (contiguous, BLAS-backed on both backends)
    n = a.shape[0]
    b = np.ascontiguousarray(b)
    x = np.zeros(b.shape, a.dtype) + np.zeros(b.shape, b.dtype)      # the promoted dtype, on both backends
    a = np.ascontiguousarray(a).astype(x.dtype)
    x2 = x.reshape((n, -1))
    b2 = b.reshape((n, -1))
    for step in range(n):
        i = step if lower else n - 1 - step
        lo, hi = (0, i) if lower else (i + 1, n)
        x2[i] = (b2[i] - np.dot(a[i, lo:hi], x2[lo:hi])) / a[i, i]
    return x


# -- adjoints (``_vjp``: cotangent g of the output -> contribution to the operand) and tangents
def matrix_power(a, n):
    """a^n by repeated squaring (inverse first for n < 0); Numba's matrix_power types its result as
    optional, which the arithmetic on it then refuses."""
    base = np.linalg.inv(a) if n < 0 else np.ascontiguousarray(a) + 0.0 * a[0, 0]
    m = -n if n < 0 else n
    out = np.eye(a.shape[0], dtype=base.dtype)
    while m > 0:
        if m % 2 == 1:
            out = np.dot(out, base)
        base = np.dot(base, base)
        m //= 2
    return out


def identity_like(a):
    """The identity with the shape of ``a`` (ones on the main diagonal): the cotangent of a trace."""
    return np.eye(a.shape[0], a.shape[1])


def _power_tangent(a, n, t):
    """d(a^n) along t for n >= 0: D_{k+1} = D_k a + a^k t."""
    d = np.zeros_like(t)
    p = np.eye(a.shape[0], dtype=a.dtype)
    for k in range(n):
        d = np.dot(d, a) + np.dot(p, t)
        p = np.dot(p, a)
    return d


def matrix_power_jvp(a, n, t):
    if n >= 0:
        return _power_tangent(a, n, t)
    p = np.linalg.inv(a)
    return _power_tangent(p, -n, -np.dot(np.dot(p, t), p))


def matrix_power_vjp(a, n, g):
    # the transpose of the tangent map: the same sum with a.T and g
    if n >= 0:
        return _power_tangent(np.ascontiguousarray(a.T), n, g)
    p = np.ascontiguousarray(np.linalg.inv(a).T)
    return -np.dot(np.dot(p, _power_tangent(p, -n, g)), p)


def norm2_direction(x, which):
    """d(sigma)/dx for the largest (which=0) or smallest (which=-1) singular value of x: the conjugate
    of u v^T, so that d sigma = Re(sum(direction * dx))."""
    u, s, vh = np.linalg.svd(x, False)
    k = which % s.shape[0]
    return np.conj(np.outer(u[:, k], vh[k, :]))


def eig_values_vjp(a, g):
    # dl = diag(V^-1 da V), so abar = V^-T diag(g) V^T (a real matrix takes the real part)
    v = np.linalg.eig(_complex(a))[1]
    vt = np.ascontiguousarray(v.T)
    return np.linalg.solve(vt, g.reshape((g.shape[0], 1)) * vt)


def eig_values_jvp(a, t):
    v = np.linalg.eig(_complex(a))[1]
    return np.diag(np.dot(np.linalg.solve(v, _complex(t)), v))


for _helper in (hermitian_part, lower_half, _complex, gap_inverse, slogdet_sign, slogdet_logdet, eigh_values,
                eigh_vectors, eig_values, eig_vectors, qr_q, qr_r, svd_u, svd_s, svd_vh, lstsq_solution,
                lstsq_residuals, lstsq_rank, lstsq_singular_values, nuclear_norm, solve_triangular, matrix_power,
                identity_like, _substitute, _power_tangent, matrix_power_jvp, matrix_power_vjp, norm2_direction,
                eig_values_vjp, eig_values_jvp):
    register_jitable(_helper)


def qr_q_vjp(a, g):
    q, r = np.linalg.qr(a)
    return _qr_vjp(q, r, g, np.zeros_like(r))


def qr_r_vjp(a, g):
    q, r = np.linalg.qr(a)
    return _qr_vjp(q, r, np.zeros_like(q), g)


def _h(x):
    """The conjugate transpose (the transpose of a real matrix: np.conj keeps a real dtype)."""
    return np.conj(np.ascontiguousarray(x.T))


def _imaginary_diagonal(x):
    """i Im(x) on the diagonal, 0 off it: (x - conj(x)) / 2 masked, 0 (and real) for a real x."""
    return 0.5 * (x - np.conj(x)) * np.eye(x.shape[0], x.shape[1])


# QR (JAX's rule, after Townsend's note; reduced QR, m >= n): with x = t R^-1 and c = Q^H x,
#   omega = tril(c, -1) - tril(c, -1)^H + i Im diag(c),  dQ = Q (omega - c) + x,  dR = (c - omega) R;
# the adjoint is its transpose: with M = Q^T gq - gr R^T,
#   abar = (gq + conj(Q) (-M + tril(M - M^H, -1) + i Im diag(M))) R^-T.
def _qr_vjp(q, r, gq, gr):
    m = np.dot(q.T, gq) - np.dot(gr, r.T)
    gc = np.tril(m - _h(m), -1) - m + _imaginary_diagonal(m)
    b = gq + np.dot(np.conj(q), gc)
    return _substitute(r, np.ascontiguousarray(b.T), False).T


def _qr_tangent(a, t):
    q, r = np.linalg.qr(a)
    x = _substitute(np.ascontiguousarray(r.T), np.ascontiguousarray(t.T), True).T     # t R^-1
    c = np.dot(_h(q), x)
    low = np.tril(c, -1)
    omega = low - _h(low) + _imaginary_diagonal(c)
    return q, r, x, c, omega


def qr_q_jvp(a, t):
    q, r, x, c, omega = _qr_tangent(a, t)
    return x - np.dot(q, c - omega)


def qr_r_jvp(a, t):
    q, r, x, c, omega = _qr_tangent(a, t)
    return np.dot(c - omega, r)


def _svd_parts(a):
    u, s, vh = np.linalg.svd(a, False)
    return u, s, vh, gap_inverse(s * s)


# SVD (JAX's svd_jvp_rule, reduced): with dS = U^H t V and F[i, j] = 1 / (s_j^2 - s_i^2),
#   dU = U (F * (dS S + (dS S)^H) + i Im diag(dS) S^-1) + (I - U U^H) t V S^-1,
#   dV = V (F * (S dS + (S dS)^H)) + (I - V V^H) t^H U S^-1,
# the gauge JAX chooses: V^H dV has a zero diagonal, and the phase of each singular pair moves with U.
# The adjoints are the transposes of these maps in JAX's convention (no conjugation of g).
def svd_jvp(a, t, which):
    """Tangent of part ``which`` (0 u, 2 vh) of the reduced SVD."""
    u, s, vh, f = _svd_parts(a)
    v = _h(vh)
    ds = np.dot(_h(u), np.dot(t, v))
    k = s.shape[0]
    srow = s.reshape((1, k))
    if which == 0:
        dss = ds * srow
        du = np.dot(u, f * (dss + _h(dss)) + _imaginary_diagonal(ds) / srow)
        if a.shape[0] > k:
            dav = np.dot(t, v)
            du = du + (dav - np.dot(u, np.dot(_h(u), dav))) / srow
        return du
    sds = srow.T * ds
    dv = np.dot(v, f * (sds + _h(sds)))
    if a.shape[1] > k:
        dau = np.dot(_h(t), u)
        dv = dv + (dau - np.dot(v, np.dot(vh, dau))) / srow
    return _h(dv)


def svd_vjp(a, g, which):
    """Adjoint of part ``which`` (0 u, 2 vh) of the reduced SVD: the transpose of ``svd_jvp``."""
    u, s, vh, f = _svd_parts(a)
    k = s.shape[0]
    srow = s.reshape((1, k))
    if which == 0:
        gx = np.dot(u.T, g)
        j = f * gx
        gds = (j + _h(j)) * srow + _imaginary_diagonal(gx) / srow
        out = np.dot(np.conj(u), np.dot(gds, np.conj(vh)))
        if a.shape[0] > k:
            proj = g - np.dot(np.conj(u), np.dot(u.T, g))
            out = out + np.dot(proj / srow, np.conj(vh))
        return out
    gv = _h(g)
    j = f * np.dot(np.conj(vh), gv)              # V^T gv
    out = np.dot(np.conj(u), np.dot(srow.T * (j + _h(j)), np.conj(vh)))
    if a.shape[1] > k:
        proj = g - np.dot(np.dot(g, vh.T), np.conj(vh))      # g conj(I - V V^H)
        out = out + np.dot(np.conj(u) / srow, proj)
    return out


# the pseudo-inverse P of a at constant rank (Golub and Pereyra, as JAX):
#   dP = -P t P + P P^H t^H (I - A P) + (I - P A) t^H P^H P, and its transpose
def pinv_jvp(a, p, t):
    m, n = a.shape
    ph, th = _h(p), _h(t)
    return (-np.dot(p, np.dot(t, p)) + np.dot(np.dot(p, ph), np.dot(th, np.eye(m) - np.dot(a, p)))
            + np.dot(np.eye(n) - np.dot(p, a), np.dot(th, np.dot(ph, p))))


def pinv_vjp(a, p, g):
    m, n = a.shape
    ph = _h(p)
    gt = np.ascontiguousarray(g.T)
    # conj(C) g^H conj(B) for each term B t^H C above, written as conj(C g^T B)
    return (-np.dot(p.T, np.dot(g, p.T)) + np.conj(np.dot(np.eye(m) - np.dot(a, p), np.dot(gt, np.dot(p, ph))))
            + np.conj(np.dot(np.dot(ph, p), np.dot(gt, np.eye(n) - np.dot(p, a)))))


for _helper in (_h, _imaginary_diagonal, qr_q_vjp, qr_r_vjp, _qr_vjp, _qr_tangent, qr_q_jvp, qr_r_jvp, _svd_parts, svd_jvp, svd_vjp,
                pinv_jvp, pinv_vjp):
    register_jitable(_helper)
