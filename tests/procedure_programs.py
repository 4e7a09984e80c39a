"""Objectives over the procedures of procedure_kernels.py, for test_procedures.py.

An objective per kernel copies its float inputs (so they are never modified), allocates the
outputs, calls the kernel and returns a weighted scalar of what it wrote. Some objectives call a
kernel twice or in a loop, pass one array as two arguments (they alias, both read or both
written), pass rows, columns, transposes, strided or overlapping blocks of a larger array (views),
pass arguments by keyword, or call a helper that writes into an argument and also returns a value.

- ``SIZED``: (objective, maker factory n -> (rng -> args), sizes, whether the numba backend runs it);
- ``PROGRAMS``: the table of test_procedures.py, each objective at its first size;
- ``JIT_CASES``: (id, kernel, maker, call) for ``transpyle.jit(kernel)`` called on arrays directly:
  ``call(kernel, *state)`` calls the kernel on the arrays of ``state`` (or views of them) and the
  arrays of ``state`` must afterwards hold what NumPy leaves in them.
"""
import numpy as np

from gradcheck import normals, uniforms
from procedure_kernels import (kernel_jacobi_1d, kernel_jacobi_2d, kernel_seidel_2d, kernel_heat_3d,
                               kernel_fdtd_2d, kernel_adi, kernel_gemm, kernel_2mm, kernel_3mm, kernel_atax,
                               kernel_bicg, kernel_mvt, kernel_gesummv, kernel_gemver, kernel_syrk,
                               kernel_syr2k, kernel_symm, kernel_trmm, kernel_doitgen, kernel_gramschmidt,
                               kernel_cholesky, kernel_lu, kernel_ludcmp, kernel_trisolv, kernel_durbin,
                               kernel_covariance, cholesky_logdet, durbin_residual, kernel_lu_solve,
                               kernel_normalize_rows, kernel_axpy, zero_boundary)

N, U = normals, uniforms


def _spd(rng, n):
    """A well-conditioned symmetric positive definite matrix."""
    a = rng.normal(size=(n, n))
    return a @ a.T / n + 2.0 * np.eye(n)


def _lower(rng, n):
    """A lower triangular matrix with a dominant diagonal."""
    return np.tril(rng.normal(size=(n, n))) + 3.0 * np.eye(n)


def _weights(a):
    """Distinct weights, one per entry of ``a``."""
    return np.arange(1.0, 1.0 + a.size).reshape(a.shape) / a.size


# ---- objectives ------------------------------------------------------------------------------------
def jacobi_1d(A, B):
    A, B = A.copy(), B.copy()
    kernel_jacobi_1d(2, A, B)
    return np.sum(A * np.arange(A.shape[0])) + np.sum(B ** 2)


# the two arrays are the rows of one buffer
def jacobi_1d_rows(G):
    G = G.copy()
    kernel_jacobi_1d(2, G[0], G[1])
    return np.sum(G * _weights(G))


# the step count is an argument (an int: shared by a batch, not differentiated)
def jacobi_2d(tsteps, A):
    A = A.copy()
    B = np.zeros_like(A)
    kernel_jacobi_2d(tsteps, A, B)
    return np.sum(np.sin(A)) + np.sum(B * B)


# the two arrays are the left and right halves of one buffer (strided views)
def jacobi_2d_halves(G):
    G = G.copy()
    n = G.shape[0]
    kernel_jacobi_2d(1, G[:, :n], G[:, n:])
    return np.sum(G * np.cos(G))


# two calls, two sweeps each
def seidel_2d(A):
    A = A.copy()
    kernel_seidel_2d(1, A)
    kernel_seidel_2d(1, A)
    return np.sum(A * A * _weights(A))


def heat_3d(tsteps, A):
    A = A.copy()
    B = A.copy()
    kernel_heat_3d(tsteps, A, B)
    return np.sum(A ** 2) + np.sum(B[1])


def fdtd_2d(ex, ey, hz, fict):
    ex, ey, hz = ex.copy(), ey.copy(), hz.copy()
    kernel_fdtd_2d(fict.shape[0], ex, ey, hz, fict)
    return np.sum(ex * ey) + np.sum(hz ** 2)


def adi(u):
    u = u.copy()
    v = np.zeros_like(u)
    p = np.zeros_like(u)
    q = np.zeros_like(u)
    kernel_adi(2, u, v, p, q)
    return np.sum(u * _weights(u)) + np.sum(v[1:-1, 1:-1] ** 2)


def gemm(alpha, beta, C, A, B):
    C = C.copy()
    kernel_gemm(alpha, beta, C, A, B)
    return np.sum(C * C)


# C and A are one array: each row's writes are seen by its later reads
def gemm_aliased(alpha, beta, M, B):
    M = M.copy()
    kernel_gemm(alpha, beta, M, M, B)
    return np.sum(M * _weights(M))


def k2mm(alpha, beta, A, B, C, D):
    D = D.copy()
    tmp = np.empty((A.shape[0], B.shape[1]))
    kernel_2mm(alpha, beta, tmp, A, B, C, D)
    return np.sum(np.sin(D)) + np.sum(tmp)


def k3mm(A, B, C, D):
    E = np.zeros((A.shape[0], B.shape[1]))
    F = np.zeros((C.shape[0], D.shape[1]))
    G = np.zeros((A.shape[0], D.shape[1]))
    kernel_3mm(E, A, B, F, C, D, G)
    return np.sum(G * _weights(G)) + np.sum(E * E)


def atax(A, x):
    y = np.empty(A.shape[1])
    tmp = np.empty(A.shape[0])
    kernel_atax(A, x, y, tmp)
    return np.sum(y * x) + np.sum(tmp ** 2)


# s and q are rows of one output buffer
def bicg(A, p, r):
    out = np.zeros((2, A.shape[0]))
    kernel_bicg(A, out[0], out[1], p, r)
    return np.sum(out * _weights(out))


# x1 and x2 are one array: it receives both products
def mvt_aliased(x, y_1, y_2, A):
    x = x.copy()
    kernel_mvt(x, x, y_1, y_2, A)
    return np.sum(x * x * np.arange(1.0, x.shape[0] + 1.0))


def gesummv(alpha, beta, A, B, x):
    tmp = np.empty(A.shape[0])
    y = np.empty(A.shape[0])
    kernel_gesummv(alpha, beta, A, B, tmp, x, y)
    return np.sum(np.tanh(y)) + np.sum(tmp)


def gemver(alpha, beta, A, u1, v1, u2, v2, y, z):
    A = A.copy()
    w = np.zeros(A.shape[0])
    x = np.zeros(A.shape[0])
    kernel_gemver(alpha, beta, A, u1, v1, u2, v2, w, x, y, z)
    return np.sum(w ** 2) + np.sum(x) + np.sum(A[0])


def syrk(alpha, beta, C, A):
    C = C.copy()
    kernel_syrk(alpha, beta, C, A)
    return np.sum(np.tril(C) ** 2)


# A and B are one array (read twice through two names)
def syr2k_same(alpha, beta, C, A):
    C = C.copy()
    kernel_syr2k(alpha, beta, C, A, A)
    return np.sum(C * _weights(C))


def symm(alpha, beta, C, A, B):
    C = C.copy()
    kernel_symm(alpha, beta, C, A, B)
    return np.sum(C * np.cos(C))


def trmm(alpha, A, B):
    B = B.copy()
    kernel_trmm(alpha, A, B)
    return np.sum(B ** 2)


def doitgen(A, C4):
    A = A.copy()
    work = np.zeros(C4.shape[1])
    kernel_doitgen(A, C4, work)
    return np.sum(A ** 2) + np.sum(work)


def gramschmidt(A):
    A = A.copy()
    n = A.shape[1]
    R = np.zeros((n, n))
    Q = np.zeros_like(A)
    kernel_gramschmidt(A, R, Q)
    return np.sum(R * _weights(R)) + np.sum(Q[0] * Q[-1])


# the helper factors in place and returns log det
def cholesky(A):
    L = A.copy()
    logdet = cholesky_logdet(L)
    return logdet + np.sum(np.tril(L) * _weights(L))


def lu(A):
    A = A.copy()
    kernel_lu(A)
    return np.sum(A ** 2)


def ludcmp(A, b):
    A = A.copy()
    x = np.zeros_like(b)
    y = np.zeros_like(b)
    kernel_ludcmp(A, b, x, y)
    return np.sum(x * np.arange(1.0, x.shape[0] + 1.0)) + np.sum(y)


# two right-hand sides (rows of B), two solutions written into the columns of X
def trisolv_columns(L, B):
    X = np.zeros((L.shape[0], 2))
    kernel_trisolv(L, X[:, 0], B[0])
    kernel_trisolv(L, X[:, 1], B[1])
    return np.sum(X ** 3) + np.sum(X[:, 0] * X[:, 1])


# the helper solves in place and returns the residual
def durbin(r):
    y = np.zeros_like(r)
    res = durbin_residual(r, y)
    return np.sum(y * y) + 10.0 * res


def covariance(data):
    data = data.copy()
    m = data.shape[1]
    cov = np.zeros((m, m))
    mean = np.zeros(m)
    kernel_covariance(data, cov, mean)
    return np.sum(cov * np.cos(cov)) + np.sum(mean ** 2) + np.sum(data[0])


def jacobi_1d_overlapping(G):
    G = G.copy()
    kernel_jacobi_1d(1, G[:-1], G[1:])
    return np.sum(G * _weights(G))


# the two arrays interleave: every other entry of one buffer
def jacobi_1d_strided(G):
    G = G.copy()
    kernel_jacobi_1d(2, G[::2], G[1::2])
    return np.sum(G * _weights(G))


# one array as both A and B
def jacobi_1d_same(A):
    A = A.copy()
    kernel_jacobi_1d(2, A, A)
    return np.sum(A * _weights(A))


# C^T = B^T A^T + beta C^T: every argument a transposed view, passed by keyword
def gemm_transposed(alpha, beta, C, A, B):
    C = C.copy()
    kernel_gemm(alpha, beta, C=C.T, A=B.T, B=A.T)
    return np.sum(C * _weights(C))


# one call per row, in a loop
def trisolv_rows(L, B):
    X = np.zeros_like(B)
    for i in range(B.shape[0]):
        kernel_trisolv(L, X[i], B[i])
    return np.sum(X * X * _weights(X))


def lu_solve(A, b):
    A = A.copy()
    x = np.zeros_like(b)
    kernel_lu_solve(A, b, x)
    return np.sum(x * np.arange(1.0, x.shape[0] + 1.0)) + np.sum(np.triu(A))


def normalize_rows(A, y):
    A = A.copy()
    y = y.copy()
    kernel_normalize_rows(A)
    kernel_normalize_rows(A, 2.0)
    kernel_axpy(A[0], y)
    kernel_axpy(A[1], y, a=-0.5)
    return np.sum(A * _weights(A)) + np.sum(y ** 2)


def seidel_interior(A):
    A = A.copy()
    inner = zero_boundary(A)
    inner *= 2.0
    kernel_seidel_2d(1, A)
    return np.sum(A * A * _weights(A)) + np.sum(inner)


# factors the leading block of a larger matrix through a view, then solves with that factor and its
# last row as the right-hand side
def cholesky_block(A):
    M = A.copy()
    n = M.shape[0] - 1
    kernel_cholesky(M[:n, :n])
    x = np.zeros(n)
    kernel_trisolv(M[:n, :n], x, M[n, :n])
    return np.sum(x ** 2) + np.sum(np.tril(M) * _weights(M))


# C and B are one array: each row of C is rewritten while the later rows of B still hold the originals
def gemm_into_b(A, B):
    B = B.copy()
    kernel_gemm(1.5, 0.5, B, A, B)
    return np.sum(B * _weights(B))


# sweeps over a slab of a 3-D array and over a block of another slab
def seidel_slabs(V):
    V = V.copy()
    kernel_seidel_2d(1, V[1])
    kernel_seidel_2d(1, V[:, 1:, 1:][0])
    return np.sum(V * V * _weights(V))


# ---- the table -------------------------------------------------------------------------------------
def _args(*parts):
    """A maker of an argument tuple: each part a maker (rng -> value) or a function of rng alone."""
    return lambda rng: tuple(p(rng) for p in parts)


def _spd_of(n):
    return lambda rng: _spd(rng, n)


def _lower_of(n):
    return lambda rng: _lower(rng, n)


SIZED = [
    # objective, maker factory (size -> maker), sizes, numba too
    (jacobi_1d, lambda n: _args(N(n), N(n)), (5, 8), True),
    (jacobi_1d_rows, lambda n: _args(N((2, n))), (5, 7), False),
    (jacobi_2d, lambda n: _args(lambda rng: 2, N((n, n))), (4, 5), False),
    (jacobi_2d_halves, lambda n: _args(N((n, 2 * n))), (4, 5), False),
    (seidel_2d, lambda n: _args(N((n, n))), (4, 5), False),
    (heat_3d, lambda n: _args(lambda rng: 2, N((n, n, n))), (3, 4), False),
    (fdtd_2d, lambda n: _args(N((3, n)), N((3, n)), N((3, n)), N((2, n))), (3, 4), False),
    (adi, lambda n: _args(N((n, n))), (4, 5), False),
    (gemm, lambda n: _args(N(), N(), N((3, n)), N((3, 2)), N((2, n))), (3, 4), True),
    (gemm_aliased, lambda n: _args(N(), N(), N((n, n)), N((n, n))), (3, 4), False),
    (k2mm, lambda n: _args(N(), N(), N((2, 3)), N((3, n)), N((n, 2)), N((2, 2))), (3, 4), False),
    (k3mm, lambda n: _args(N((2, n)), N((n, 2)), N((2, 3)), N((3, 3))), (3, 4), False),
    (atax, lambda n: _args(N((3, n)), N(n)), (3, 4), False),
    (bicg, lambda n: _args(N((n, n)), N(n), N(n)), (3, 4), False),
    (mvt_aliased, lambda n: _args(N(n), N(n), N(n), N((n, n))), (3, 4), False),
    (gesummv, lambda n: _args(N(), N(), N((n, n)), N((n, n)), N(n)), (3, 4), False),
    (gemver, lambda n: _args(N(), N(), N((n, n)), N(n), N(n), N(n), N(n), N(n), N(n)), (3, 4), False),
    (syrk, lambda n: _args(N(), N(), N((n, n)), N((n, 3))), (3, 4), False),
    (syr2k_same, lambda n: _args(N(), N(), N((n, n)), N((n, 2))), (3, 4), False),
    (symm, lambda n: _args(N(), N(), N((3, n)), N((3, 3)), N((3, n))), (3, 4), False),
    (trmm, lambda n: _args(N(), N((n, n)), N((n, 2))), (3, 4), False),
    (doitgen, lambda n: _args(N((2, 2, n)), N((n, n))), (3, 4), False),
    (gramschmidt, lambda n: _args(N((n + 1, n))), (3, 4), False),
    (cholesky, lambda n: _args(_spd_of(n)), (4, 5), True),
    (lu, lambda n: _args(_spd_of(n)), (4, 5), False),
    (ludcmp, lambda n: _args(_spd_of(n), N(n)), (4, 5), True),
    (trisolv_columns, lambda n: _args(_lower_of(n), N((2, n))), (4, 5), False),
    (durbin, lambda n: _args(U(n, -0.4, 0.4)), (4, 6), False),
    (covariance, lambda n: _args(N((n, 3))), (5, 6), True),
    (jacobi_1d_overlapping, lambda n: _args(N(n)), (6, 8), False),
    (jacobi_1d_strided, lambda n: _args(N(2 * n)), (4, 5), False),
    (jacobi_1d_same, lambda n: _args(N(n)), (5, 7), False),
    (gemm_transposed, lambda n: _args(N(), N(), N((3, n)), N((3, 2)), N((2, n))), (3, 4), False),
    (trisolv_rows, lambda n: _args(_lower_of(n), N((3, n))), (3, 4), False),
    (lu_solve, lambda n: _args(_spd_of(n), N(n)), (3, 4), False),
    (normalize_rows, lambda n: _args(N((3, n)), N(n)), (3, 4), False),
    (seidel_interior, lambda n: _args(N((n, n))), (4, 5), False),
    (cholesky_block, lambda n: _args(_spd_of(n)), (4, 5), False),
    (gemm_into_b, lambda n: _args(N((n, n)), N((n, n))), (3, 4), False),
    (seidel_slabs, lambda n: _args(N((3, n, n))), (4, 5), False),
]

PROGRAMS = [(fn, factory(sizes[0]), on_numba) for fn, factory, sizes, on_numba in SIZED]


def _plain(kernel, *state):
    return kernel(*state)


JIT_CASES = [
    # id, kernel, maker of the state, call(kernel, *state)
    ("jacobi_1d", kernel_jacobi_1d, _args(lambda rng: 3, N(6), N(6)), _plain),
    ("jacobi_1d_rows", kernel_jacobi_1d, _args(N((2, 6))), lambda k, G: k(2, G[0], G[1])),
    ("jacobi_2d", kernel_jacobi_2d, _args(lambda rng: 2, N((5, 5)), N((5, 5))), _plain),
    ("jacobi_2d_halves", kernel_jacobi_2d, _args(N((4, 8))), lambda k, G: k(2, G[:, :4], G[:, 4:])),
    ("seidel_2d", kernel_seidel_2d, _args(lambda rng: 2, N((5, 5))), _plain),
    ("heat_3d", kernel_heat_3d, _args(lambda rng: 2, N((4, 4, 4)), N((4, 4, 4))), _plain),
    ("fdtd_2d", kernel_fdtd_2d, _args(lambda rng: 2, N((3, 4)), N((3, 4)), N((3, 4)), N((2, 4))), _plain),
    ("adi", kernel_adi, _args(lambda rng: 2, N((5, 5)), N((5, 5)), N((5, 5)), N((5, 5))), _plain),
    ("gemm", kernel_gemm, _args(N(), N(), N((3, 4)), N((3, 2)), N((2, 4))), _plain),
    ("gemm_aliased", kernel_gemm, _args(N(), N(), N((3, 3)), N((3, 3))),
     lambda k, al, be, M, B: k(al, be, M, M, B)),
    ("2mm", kernel_2mm, _args(N(), N(), N((2, 3)), N((2, 4)), N((4, 3)), N((3, 2)), N((2, 2))), _plain),
    ("3mm", kernel_3mm, _args(N((2, 2)), N((2, 3)), N((3, 2)), N((2, 2)), N((2, 3)), N((3, 2)), N((2, 2))),
     _plain),
    ("atax", kernel_atax, _args(N((3, 4)), N(4), N(4), N(3)), _plain),
    ("bicg", kernel_bicg, _args(N((3, 3)), N((2, 3)), N(3), N(3)), lambda k, A, out, p, r: k(A, out[0], out[1], p, r)),
    ("mvt_aliased", kernel_mvt, _args(N(3), N(3), N(3), N((3, 3))), lambda k, x, y1, y2, A: k(x, x, y1, y2, A)),
    ("gesummv", kernel_gesummv, _args(N(), N(), N((3, 3)), N((3, 3)), N(3), N(3), N(3)), _plain),
    ("gemver", kernel_gemver, _args(N(), N(), N((3, 3)), N(3), N(3), N(3), N(3), N(3), N(3), N(3), N(3)), _plain),
    ("syrk", kernel_syrk, _args(N(), N(), N((4, 4)), N((4, 3))), _plain),
    ("syr2k_same", kernel_syr2k, _args(N(), N(), N((3, 3)), N((3, 2))), lambda k, al, be, C, A: k(al, be, C, A, A)),
    ("symm", kernel_symm, _args(N(), N(), N((3, 4)), N((3, 3)), N((3, 4))), _plain),
    ("trmm", kernel_trmm, _args(N(), N((3, 3)), N((3, 2))), _plain),
    ("doitgen", kernel_doitgen, _args(N((2, 2, 3)), N((3, 3)), N(3)), _plain),
    ("gramschmidt", kernel_gramschmidt, _args(N((4, 3)), N((3, 3)), N((4, 3))), _plain),
    ("cholesky", kernel_cholesky, _args(_spd_of(4)), _plain),
    ("lu", kernel_lu, _args(_spd_of(4)), _plain),
    ("ludcmp", kernel_ludcmp, _args(_spd_of(4), N(4), N(4), N(4)), _plain),
    ("trisolv", kernel_trisolv, _args(_lower_of(4), N(4), N(4)), _plain),
    ("trisolv_column", kernel_trisolv, _args(_lower_of(4), N((4, 2)), N(4)), lambda k, L, X, b: k(L, X[:, 1], b)),
    ("durbin", kernel_durbin, _args(U(5, -0.4, 0.4), N(5)), _plain),
    ("covariance", kernel_covariance, _args(N((5, 3)), N((3, 3)), N(3)), _plain),
    ("jacobi_1d_overlapping", kernel_jacobi_1d, _args(N(7)), lambda k, G: k(2, G[:-1], G[1:])),
    ("jacobi_1d_strided", kernel_jacobi_1d, _args(N(10)), lambda k, G: k(2, G[::2], G[1::2])),
    ("gemm_transposed", kernel_gemm, _args(N(), N(), N((3, 4)), N((3, 2)), N((2, 4))),
     lambda k, al, be, C, A, B: k(al, be, C.T, B.T, A.T)),
    ("lu_solve", kernel_lu_solve, _args(_spd_of(4), N(4), N(4)), _plain),
    ("normalize_rows", kernel_normalize_rows, _args(N((3, 4)), lambda rng: 2.0), _plain),
    ("seidel_transposed", kernel_seidel_2d, _args(N((3, 5, 5))), lambda k, V: k(1, V[1].T)),
    ("gemm_into_b", kernel_gemm, _args(N((3, 3)), N((3, 3))), lambda k, A, B: k(1.5, 0.5, B, A, B)),
    ("durbin_reversed", kernel_durbin, _args(U(6, -0.4, 0.4), N(6)), lambda k, r, y: k(r[::-1], y[::-1])),
]

# the kernels of JIT_CASES run on the numba backend too (one compile each)
NUMBA_JIT_CASES = ("jacobi_1d_rows", "gemm_aliased", "cholesky", "trisolv_column", "covariance", "normalize_rows")
