"""Polybench-style kernels written as procedures, for procedure_programs.py and test_procedures.py.

Each ``kernel_*`` follows its algorithm's textbook definition with Polybench's signature: it writes
its results into array arguments and returns None, in the idioms of such code: whole-array writes
(``D[:] = ...``), slice writes and ``+=`` on slices, element writes under triangular bounds, nested
loops, work arrays passed in, numbers rebound by ``-=``. A few helpers write into an argument and
also return a value (``cholesky_logdet``, ``durbin_residual``, ``zero_boundary``); a few kernels
call other kernels, end early or take defaults.
"""
import numpy as np

# ---- stencils ----------------------------------------------------------------------------------
def kernel_jacobi_1d(tsteps, A, B):
    for t in range(tsteps):
        B[1:-1] = 0.33333 * (A[:-2] + A[1:-1] + A[2:])
        A[1:-1] = 0.33333 * (B[:-2] + B[1:-1] + B[2:])


def kernel_jacobi_2d(tsteps, A, B):
    for t in range(tsteps):
        B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1])
        A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1] + B[:-2, 1:-1])


# Gauss-Seidel: each point uses the neighbours already updated in this sweep
def kernel_seidel_2d(tsteps, A):
    n = A.shape[0]
    for t in range(tsteps):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                A[i, j] = (A[i - 1, j - 1] + A[i - 1, j] + A[i - 1, j + 1] + A[i, j - 1] + A[i, j]
                           + A[i, j + 1] + A[i + 1, j - 1] + A[i + 1, j] + A[i + 1, j + 1]) / 9.0


def kernel_heat_3d(tsteps, A, B):
    for t in range(tsteps):
        B[1:-1, 1:-1, 1:-1] = (0.125 * (A[2:, 1:-1, 1:-1] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[:-2, 1:-1, 1:-1])
                               + 0.125 * (A[1:-1, 2:, 1:-1] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[1:-1, :-2, 1:-1])
                               + 0.125 * (A[1:-1, 1:-1, 2:] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[1:-1, 1:-1, :-2])
                               + A[1:-1, 1:-1, 1:-1])
        A[1:-1, 1:-1, 1:-1] = (0.125 * (B[2:, 1:-1, 1:-1] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[:-2, 1:-1, 1:-1])
                               + 0.125 * (B[1:-1, 2:, 1:-1] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[1:-1, :-2, 1:-1])
                               + 0.125 * (B[1:-1, 1:-1, 2:] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[1:-1, 1:-1, :-2])
                               + B[1:-1, 1:-1, 1:-1])


# Yee scheme: electric fields from the magnetic one and back, a source row each step
def kernel_fdtd_2d(tmax, ex, ey, hz, fict):
    for t in range(tmax):
        ey[0, :] = fict[t]
        ey[1:, :] = ey[1:, :] - 0.5 * (hz[1:, :] - hz[:-1, :])
        ex[:, 1:] = ex[:, 1:] - 0.5 * (hz[:, 1:] - hz[:, :-1])
        hz[:-1, :-1] -= 0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1])


# alternating direction implicit: a tridiagonal solve along columns, then along rows, per step
def kernel_adi(tsteps, u, v, p, q):
    n = u.shape[0]
    dx = 1.0 / n
    dt = 1.0 / tsteps
    mul1 = 2.0 * dt / (dx * dx)
    mul2 = 1.0 * dt / (dx * dx)
    a = -mul1 / 2.0
    b = 1.0 + mul1
    c = a
    d = -mul2 / 2.0
    e = 1.0 + mul2
    f = d
    for t in range(tsteps):
        v[0, 1:n - 1] = 1.0
        p[1:n - 1, 0] = 0.0
        q[1:n - 1, 0] = v[0, 1:n - 1]
        for j in range(1, n - 1):
            p[1:n - 1, j] = -c / (a * p[1:n - 1, j - 1] + b)
            q[1:n - 1, j] = (-d * u[j, 0:n - 2] + (1.0 + 2.0 * d) * u[j, 1:n - 1] - f * u[j, 2:n]
                             - a * q[1:n - 1, j - 1]) / (a * p[1:n - 1, j - 1] + b)
        v[n - 1, 1:n - 1] = 1.0
        for j in range(n - 2, 0, -1):
            v[j, 1:n - 1] = p[1:n - 1, j] * v[j + 1, 1:n - 1] + q[1:n - 1, j]
        u[1:n - 1, 0] = 1.0
        p[1:n - 1, 0] = 0.0
        q[1:n - 1, 0] = u[1:n - 1, 0]
        for j in range(1, n - 1):
            p[1:n - 1, j] = -f / (d * p[1:n - 1, j - 1] + e)
            q[1:n - 1, j] = (-a * v[0:n - 2, j] + (1.0 + 2.0 * a) * v[1:n - 1, j] - c * v[2:n, j]
                             - d * q[1:n - 1, j - 1]) / (d * p[1:n - 1, j - 1] + e)
        u[1:n - 1, n - 1] = 1.0
        for j in range(n - 2, 0, -1):
            u[1:n - 1, j] = p[1:n - 1, j] * u[1:n - 1, j + 1] + q[1:n - 1, j]


# ---- dense linear algebra ---------------------------------------------------------------------
# C = alpha A B + beta C, row by row
def kernel_gemm(alpha, beta, C, A, B):
    for i in range(C.shape[0]):
        C[i, :] *= beta
        for k in range(A.shape[1]):
            C[i, :] += alpha * A[i, k] * B[k, :]


# D = alpha A B C + beta D through the work array tmp
def kernel_2mm(alpha, beta, tmp, A, B, C, D):
    for i in range(A.shape[0]):
        for j in range(B.shape[1]):
            tmp[i, j] = alpha * A[i, :] @ B[:, j]
    D[:] = tmp @ C + beta * D


# G = (A B) (C D)
def kernel_3mm(E, A, B, F, C, D, G):
    E[:] = A @ B
    F[:] = C @ D
    G[:] = E @ F


# y = A^T (A x)
def kernel_atax(A, x, y, tmp):
    y[:] = 0.0
    for i in range(A.shape[0]):
        tmp[i] = A[i, :] @ x
        y[:] += tmp[i] * A[i, :]


# s = A^T r, q = A p
def kernel_bicg(A, s, q, p, r):
    s[:] = 0.0
    for i in range(A.shape[0]):
        s += r[i] * A[i, :]
        q[i] = A[i, :] @ p


# x1 += A y1, x2 += A^T y2
def kernel_mvt(x1, x2, y_1, y_2, A):
    for i in range(A.shape[0]):
        x1[i] += A[i, :] @ y_1
    x2 += y_2 @ A


# y = alpha A x + beta B x
def kernel_gesummv(alpha, beta, A, B, tmp, x, y):
    for i in range(A.shape[0]):
        tmp[i] = A[i, :] @ x
        y[i] = B[i, :] @ x
        y[i] = alpha * tmp[i] + beta * y[i]


# rank-2 update of A, then two matrix-vector products
def kernel_gemver(alpha, beta, A, u1, v1, u2, v2, w, x, y, z):
    A += np.outer(u1, v1) + np.outer(u2, v2)
    x += beta * y @ A + z
    w += alpha * A @ x


# symmetric rank-k update of the lower triangle
def kernel_syrk(alpha, beta, C, A):
    for i in range(C.shape[0]):
        C[i, :i + 1] *= beta
        for k in range(A.shape[1]):
            C[i, :i + 1] += alpha * A[i, k] * A[:i + 1, k]


# symmetric rank-2k update of the lower triangle
def kernel_syr2k(alpha, beta, C, A, B):
    for i in range(C.shape[0]):
        C[i, :i + 1] *= beta
        for k in range(A.shape[1]):
            C[i, :i + 1] += A[:i + 1, k] * alpha * B[i, k] + B[:i + 1, k] * alpha * A[i, k]


# C = alpha A B + beta C with A symmetric, only its lower triangle read
def kernel_symm(alpha, beta, C, A, B):
    temp2 = np.empty(C.shape[1])
    C *= beta
    for i in range(C.shape[0]):
        for j in range(C.shape[1]):
            C[:i, j] += alpha * B[i, j] * A[i, :i]
            temp2[j] = B[:i, j] @ A[i, :i]
        C[i, :] += alpha * B[i, :] * A[i, i] + alpha * temp2


# B = alpha A^T B with A unit lower triangular
def kernel_trmm(alpha, A, B):
    for i in range(B.shape[0]):
        for j in range(B.shape[1]):
            B[i, j] += A[i + 1:, i] @ B[i + 1:, j]
    B *= alpha


# a tensor contracted with a matrix along its last axis, slab by slab, through a work vector
def kernel_doitgen(A, C4, sum):
    for r in range(A.shape[0]):
        for q in range(A.shape[1]):
            sum[:] = A[r, q, :] @ C4
            A[r, q, :] = sum


# modified Gram-Schmidt: A = Q R
def kernel_gramschmidt(A, R, Q):
    n = A.shape[1]
    for k in range(n):
        nrm = A[:, k] @ A[:, k]
        R[k, k] = np.sqrt(nrm)
        Q[:, k] = A[:, k] / R[k, k]
        for j in range(k + 1, n):
            R[k, j] = Q[:, k] @ A[:, j]
            A[:, j] -= Q[:, k] * R[k, j]


# ---- solvers -------------------------------------------------------------------------------------
# Cholesky factor in the lower triangle of A
def kernel_cholesky(A):
    n = A.shape[0]
    for i in range(n):
        for j in range(i):
            A[i, j] -= A[i, :j] @ A[j, :j]
            A[i, j] /= A[j, j]
        A[i, i] -= A[i, :i] @ A[i, :i]
        A[i, i] = np.sqrt(A[i, i])


# LU without pivoting (Doolittle), in place
def kernel_lu(A):
    n = A.shape[0]
    for i in range(n):
        for j in range(i):
            A[i, j] -= A[i, :j] @ A[:j, j]
            A[i, j] /= A[j, j]
        for j in range(i, n):
            A[i, j] -= A[i, :i] @ A[:i, j]


# LU, then forward and back substitution; w is a number, so 'w -= ...' rebinds it
def kernel_ludcmp(A, b, x, y):
    n = A.shape[0]
    for i in range(n):
        for j in range(i):
            w = A[i, j]
            w -= A[i, :j] @ A[:j, j]
            A[i, j] = w / A[j, j]
        for j in range(i, n):
            w = A[i, j]
            w -= A[i, :i] @ A[:i, j]
            A[i, j] = w
    for i in range(n):
        y[i] = b[i] - A[i, :i] @ y[:i]
    for i in range(n - 1, -1, -1):
        x[i] = (y[i] - A[i, i + 1:] @ x[i + 1:]) / A[i, i]


# forward substitution with a lower triangular matrix
def kernel_trisolv(L, x, b):
    for i in range(x.shape[0]):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]


# Levinson-Durbin recursion for a Toeplitz system, through the work vector z
def kernel_durbin(r, y):
    n = r.shape[0]
    z = np.empty_like(y)
    y[0] = -r[0]
    beta = 1.0
    alpha = -r[0]
    for k in range(1, n):
        beta = (1.0 - alpha * alpha) * beta
        s = r[k - 1::-1] @ y[:k]
        alpha = -(r[k] + s) / beta
        z[:k] = y[:k] + alpha * y[k - 1::-1]
        y[:k] = z[:k]
        y[k] = alpha


# ---- statistics ----------------------------------------------------------------------------------
def kernel_covariance(data, cov, mean):
    float_n = float(data.shape[0])
    m = data.shape[1]
    mean[:] = np.sum(data, axis=0) / float_n
    data -= mean
    for i in range(m):
        for j in range(i, m):
            cov[i, j] = data[:, i] @ data[:, j] / (float_n - 1.0)
            cov[j, i] = cov[i, j]


# ---- helpers that write into an argument and return a value ------------------------------------
def cholesky_logdet(A):
    """Factor A in place and return log det A."""
    kernel_cholesky(A)
    return 2.0 * np.sum(np.log(np.diag(A)))


def durbin_residual(r, y):
    """Solve into y and return how far y is from solving the Yule-Walker system."""
    kernel_durbin(r, y)
    n = r.shape[0]
    res = 0.0
    for i in range(n):
        row = 0.0
        for j in range(n):
            row += (1.0 if i == j else r[abs(i - j) - 1]) * y[j]
        res += (row + r[i]) ** 2
    return res


# ---- kernels called in more ways: nested, with early returns and defaults, returning a view ------
# nested procedures: LU in place, then a forward and a back substitution through helpers
def kernel_forward_unit(A, y, b):
    for i in range(y.shape[0]):
        y[i] = b[i] - A[i, :i] @ y[:i]


def kernel_backward(A, x, y):
    n = x.shape[0]
    for i in range(n - 1, -1, -1):
        x[i] = (y[i] - A[i, i + 1:] @ x[i + 1:]) / A[i, i]


def kernel_lu_solve(A, b, x):
    kernel_lu(A)
    y = np.empty_like(b)
    kernel_forward_unit(A, y, b)
    kernel_backward(A, x, y)


# an early return, a skipped row and a default argument
def kernel_normalize_rows(A, scale=1.0):
    if A.shape[0] == 0:
        return
    for i in range(A.shape[0]):
        nrm = np.sqrt(A[i, :] @ A[i, :])
        if nrm == 0.0:
            continue
        A[i, :] *= scale / nrm


def kernel_axpy(x, y, a=1.0):
    y += a * x


# zeroes the boundary rows and returns the interior, a view the caller writes through
def zero_boundary(A):
    A[0, :] = 0.0
    A[-1, :] = 0.0
    return A[1:-1, :]


# the two arrays overlap: B is A shifted by one
