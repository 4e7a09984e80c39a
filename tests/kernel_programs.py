"""Scientific kernels written the way NumPy users write them, for test_kernels.py.

Stencils, dense linear algebra, statistics, small networks, particle and fluid codes: each kernel
is a module-level function of float arrays (sometimes an integer index array, not differentiated)
returning a float scalar, a weighted sum of what the kernel computes, at small sizes. They are
written from the algorithms' definitions, in the idioms of such code: in-place slice updates,
helpers that write into their arguments and return None, scalar loops, time-step loops. Inputs are
copied first, so NumPy running a kernel never changes its arguments. ``PROGRAMS`` lists
(function, input maker, whether the numba backend runs it too).
"""
import numpy as np

from gradcheck import distincts, draw, normals, signeds, uniform, uniforms

N, U, S, D = normals, uniforms, signeds, distincts


def _spd(rng, n):
    """A well-conditioned symmetric positive definite matrix."""
    a = rng.normal(size=(n, n))
    return a @ a.T / n + 2.0 * np.eye(n)


# ---- stencils ----------------------------------------------------------------------------------
# 1-D Jacobi: two arrays updated alternately over the interior
def jacobi_1d(a, b):
    a = a.copy()
    b = b.copy()
    for t in range(3):
        b[1:-1] = 0.33333 * (a[:-2] + a[1:-1] + a[2:])
        a[1:-1] = 0.33333 * (b[:-2] + b[1:-1] + b[2:])
    return np.sum(a * np.arange(a.shape[0])) + np.sum(b ** 2)


# 2-D Jacobi: five-point average of the interior
def jacobi_2d(a):
    a = a.copy()
    b = np.zeros_like(a)
    for t in range(2):
        b[1:-1, 1:-1] = 0.2 * (a[1:-1, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:] + a[2:, 1:-1] + a[:-2, 1:-1])
        a[1:-1, 1:-1] = 0.2 * (b[1:-1, 1:-1] + b[1:-1, :-2] + b[1:-1, 2:] + b[2:, 1:-1] + b[:-2, 1:-1])
    return np.sum(np.sin(a)) + np.sum(b * b)


# 3-D heat equation, explicit second differences along each axis
def heat_3d(a):
    a = a.copy()
    b = a.copy()
    for t in range(2):
        b[1:-1, 1:-1, 1:-1] = (0.125 * (a[2:, 1:-1, 1:-1] - 2.0 * a[1:-1, 1:-1, 1:-1] + a[:-2, 1:-1, 1:-1])
                               + 0.125 * (a[1:-1, 2:, 1:-1] - 2.0 * a[1:-1, 1:-1, 1:-1] + a[1:-1, :-2, 1:-1])
                               + 0.125 * (a[1:-1, 1:-1, 2:] - 2.0 * a[1:-1, 1:-1, 1:-1] + a[1:-1, 1:-1, :-2])
                               + a[1:-1, 1:-1, 1:-1])
        a, b = b, a
    return np.sum(a ** 2) + np.sum(b[1])


# Gauss-Seidel sweeps: each point uses neighbours already updated in this sweep
def seidel_2d(a):
    a = a.copy()
    n = a.shape[0]
    for t in range(2):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                a[i, j] = (a[i - 1, j - 1] + a[i - 1, j] + a[i - 1, j + 1] + a[i, j - 1] + a[i, j]
                           + a[i, j + 1] + a[i + 1, j - 1] + a[i + 1, j] + a[i + 1, j + 1]) / 9.0
    return np.sum(a * a)


# Yee scheme in 2-D: electric fields from the magnetic one and back, a source row each step
def fdtd_2d(ex, ey, hz, fict):
    ex, ey, hz = ex.copy(), ey.copy(), hz.copy()
    for t in range(fict.shape[0]):
        ey[0, :] = fict[t]
        ey[1:, :] = ey[1:, :] - 0.5 * (hz[1:, :] - hz[:-1, :])
        ex[:, 1:] = ex[:, 1:] - 0.5 * (hz[:, 1:] - hz[:, :-1])
        hz[:-1, :-1] -= 0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1])
    return np.sum(ex * ey) + np.sum(hz ** 2)


# horizontal diffusion (weather): Laplacian, limited fluxes, update of the interior
def hdiff(infield, coeff):
    i, j = infield.shape[0] - 4, infield.shape[1] - 4
    lap = 4.0 * infield[1:i + 3, 1:j + 3, :] - (infield[2:i + 4, 1:j + 3, :] + infield[0:i + 2, 1:j + 3, :]
                                                 + infield[1:i + 3, 2:j + 4, :] + infield[1:i + 3, 0:j + 2, :])
    flx = lap[1:, 1:-1, :] - lap[:-1, 1:-1, :]
    flx = np.where(flx * (infield[2:i + 3, 2:j + 2, :] - infield[1:i + 2, 2:j + 2, :]) > 0.0, 0.0, flx)
    fly = lap[1:-1, 1:, :] - lap[1:-1, :-1, :]
    fly = np.where(fly * (infield[2:i + 2, 2:j + 3, :] - infield[2:i + 2, 1:j + 2, :]) > 0.0, 0.0, fly)
    out = infield[2:i + 2, 2:j + 2, :] - coeff[2:i + 2, 2:j + 2, :] * (
        flx[1:, :, :] - flx[:-1, :, :] + fly[:, 1:, :] - fly[:, :-1, :])
    return np.sum(out * out)


# vertical advection (weather): a tridiagonal system along the vertical axis, Thomas algorithm
def vadv(wcon, u_stage, u_pos, utens):
    ni, nj, nk = u_stage.shape
    ccol = np.zeros((ni, nj, nk))
    dcol = np.zeros((ni, nj, nk))
    out = np.zeros((ni, nj, nk))
    dtr = 0.3
    gcv = 0.25 * (wcon[1:, :, 1] + wcon[:-1, :, 1])
    cs = gcv * 0.5
    ccol[:, :, 0] = cs
    bcol = dtr - ccol[:, :, 0]
    corr = -cs * (u_stage[:, :, 1] - u_stage[:, :, 0])
    dcol[:, :, 0] = dtr * u_pos[:, :, 0] + utens[:, :, 0] + corr
    div = 1.0 / bcol
    ccol[:, :, 0] = ccol[:, :, 0] * div
    dcol[:, :, 0] = dcol[:, :, 0] * div
    for k in range(1, nk - 1):
        gav = -0.25 * (wcon[1:, :, k] + wcon[:-1, :, k])
        gcv = 0.25 * (wcon[1:, :, k + 1] + wcon[:-1, :, k + 1])
        acol = gav * 0.5
        cs = gcv * 0.5
        bcol = dtr - acol - cs
        corr = -cs * (u_stage[:, :, k + 1] - u_stage[:, :, k]) + gav * 0.5 * (u_stage[:, :, k] - u_stage[:, :, k - 1])
        div = 1.0 / (bcol - ccol[:, :, k - 1] * acol)
        ccol[:, :, k] = cs * div
        dcol[:, :, k] = (dtr * u_pos[:, :, k] + utens[:, :, k] + corr - dcol[:, :, k - 1] * acol) * div
    k = nk - 1
    gav = -0.25 * (wcon[1:, :, k] + wcon[:-1, :, k])
    acol = gav * 0.5
    bcol = dtr - acol
    corr = gav * 0.5 * (u_stage[:, :, k] - u_stage[:, :, k - 1])
    div = 1.0 / (bcol - ccol[:, :, k - 1] * acol)
    dcol[:, :, k] = (dtr * u_pos[:, :, k] + utens[:, :, k] + corr - dcol[:, :, k - 1] * acol) * div
    out[:, :, k] = dcol[:, :, k]
    for k in range(nk - 2, -1, -1):
        out[:, :, k] = dcol[:, :, k] - ccol[:, :, k] * out[:, :, k + 1]
    return np.sum(out * np.cos(u_pos))


# ---- dense linear algebra ---------------------------------------------------------------------
def gemm(alpha, beta, c, a, b):
    c = c.copy()
    c *= beta
    c += alpha * a @ b
    return np.sum(c * c)


def k2mm(alpha, beta, a, b, c, d):
    d = d.copy()
    d[:] = alpha * a @ b @ c + beta * d
    return np.sum(np.sin(d))


def k3mm(a, b, c, d):
    return np.sum((a @ b) @ (c @ d) * np.arange(1.0, 4.0))


def atax(a, x):
    return np.sum((a @ x) @ a * x)


def bicg(a, p, r):
    return np.sum(r @ a) * np.sum(a @ p) + np.dot(a @ p, r)


def mvt(x1, x2, y1, y2, a):
    x1 = x1.copy()
    x2 = x2.copy()
    x1 += a @ y1
    x2 += y2 @ a
    return np.sum(x1 * x2)


def gemver(alpha, beta, a, u1, v1, u2, v2, y, z):
    a = a.copy()
    a += np.outer(u1, v1) + np.outer(u2, v2)
    x = beta * y @ a + z
    w = alpha * a @ x
    return np.sum(w ** 2) + np.sum(x)


def gesummv(alpha, beta, a, b, x):
    return np.sum(np.tanh(alpha * a @ x + beta * b @ x))


# C = alpha A B + beta C with A symmetric, only its lower triangle read
def symm(alpha, beta, c, a, b):
    c = c.copy()
    m, n = c.shape
    temp2 = np.empty(n)
    for i in range(m):
        for j in range(n):
            c[:i, j] += alpha * b[i, j] * a[i, :i]
            temp2[j] = b[:i, j] @ a[i, :i]
        c[i, :] = beta * c[i, :] + alpha * b[i, :] * a[i, i] + alpha * temp2
    return np.sum(c * np.cos(c))


# symmetric rank-k update of the lower triangle
def syrk(alpha, beta, c, a):
    c = c.copy()
    n = c.shape[0]
    for i in range(n):
        c[i, :i + 1] *= beta
        for k in range(a.shape[1]):
            c[i, :i + 1] += alpha * a[i, k] * a[:i + 1, k]
    return np.sum(np.tril(c) ** 2)


def syr2k(alpha, beta, c, a, b):
    c = c.copy()
    n = c.shape[0]
    for i in range(n):
        c[i, :i + 1] *= beta
        for k in range(a.shape[1]):
            c[i, :i + 1] += a[:i + 1, k] * alpha * b[i, k] + b[:i + 1, k] * alpha * a[i, k]
    return np.sum(c * c)


# B = alpha A^T B with A unit lower triangular
def trmm(alpha, a, b):
    b = b.copy()
    m = b.shape[0]
    for i in range(m):
        for j in range(b.shape[1]):
            b[i, j] += np.dot(a[i + 1:, i], b[i + 1:, j])
    b *= alpha
    return np.sum(b ** 2)


# in-place Cholesky of the lower triangle
def _cholesky_into(a):
    n = a.shape[0]
    for i in range(n):
        for j in range(i):
            a[i, j] -= np.dot(a[i, :j], a[j, :j])
            a[i, j] /= a[j, j]
        a[i, i] -= np.dot(a[i, :i], a[i, :i])
        a[i, i] = np.sqrt(a[i, i])


def cholesky(a):
    a = a.copy()
    _cholesky_into(a)
    return np.sum(np.tril(a) * np.arange(a.shape[0]))


# in-place LU without pivoting (Doolittle)
def _lu_into(a):
    n = a.shape[0]
    for i in range(n):
        for j in range(i):
            a[i, j] -= a[i, :j] @ a[:j, j]
            a[i, j] /= a[j, j]
        for j in range(i, n):
            a[i, j] -= a[i, :i] @ a[:i, j]


def lu(a):
    a = a.copy()
    _lu_into(a)
    return np.sum(a ** 2)


# LU, then forward and back substitution
def ludcmp(a, b):
    a = a.copy()
    _lu_into(a)
    n = a.shape[0]
    y = np.zeros_like(b)
    x = np.zeros_like(b)
    for i in range(n):
        y[i] = b[i] - a[i, :i] @ y[:i]
    for i in range(n - 1, -1, -1):
        x[i] = (y[i] - a[i, i + 1:] @ x[i + 1:]) / a[i, i]
    return np.sum(x * np.arange(1.0, n + 1.0))


# Levinson-Durbin recursion for a Toeplitz system
def durbin(r):
    n = r.shape[0]
    y = np.empty(n)
    y[0] = -r[0]
    beta = 1.0
    alpha = -r[0]
    for k in range(1, n):
        beta *= 1.0 - alpha * alpha
        alpha = -(r[k] + np.dot(np.flip(r[:k]), y[:k])) / beta
        y[:k] += alpha * np.flip(y[:k])
        y[k] = alpha
    return np.sum(y * y)


# modified Gram-Schmidt QR
def gramschmidt(a):
    a = a.copy()
    m, n = a.shape
    q = np.zeros_like(a)
    r = np.zeros((n, n))
    for k in range(n):
        nrm = np.dot(a[:, k], a[:, k])
        r[k, k] = np.sqrt(nrm)
        q[:, k] = a[:, k] / r[k, k]
        for j in range(k + 1, n):
            r[k, j] = np.dot(q[:, k], a[:, j])
            a[:, j] -= q[:, k] * r[k, j]
    return np.sum(r * np.arange(n * n).reshape(n, n)) + np.sum(q[0] * q[-1])


# forward substitution with a lower triangular matrix
def trisolv(l, b):
    x = np.zeros_like(b)
    for i in range(x.shape[0]):
        x[i] = (b[i] - l[i, :i] @ x[:i]) / l[i, i]
    return np.sum(x ** 3)


def covariance(data):
    n = data.shape[0]
    mean = np.mean(data, axis=0)
    centred = data - mean
    cov = np.zeros((data.shape[1], data.shape[1]))
    for i in range(data.shape[1]):
        cov[i, i:] = centred[:, i] @ centred[:, i:] / (n - 1.0)
        cov[i:, i] = cov[i, i:]
    return np.sum(cov * np.cos(cov))


def correlation(data):
    n = data.shape[0]
    mean = np.mean(data, axis=0)
    stddev = np.std(data, axis=0)
    stddev[stddev <= 0.1] = 1.0
    d = (data - mean) / (np.sqrt(float(n)) * stddev)
    corr = np.eye(data.shape[1])
    for i in range(data.shape[1] - 1):
        corr[i + 1:, i] = corr[i, i + 1:] = d[:, i] @ d[:, i + 1:]
    return np.sum(corr * np.arange(corr.size).reshape(corr.shape))


# doitgen: a tensor contracted with a matrix along its last axis, slab by slab
def doitgen(a, c4):
    a = a.copy()
    for r in range(a.shape[0]):
        for q in range(a.shape[1]):
            a[r, q, :] = a[r, q, :] @ c4
    return np.sum(a ** 2)


# ---- networks ----------------------------------------------------------------------------------
def softmax(x):
    m = np.max(x, axis=-1, keepdims=True)
    e = np.exp(x - m)
    s = e / np.sum(e, axis=-1, keepdims=True)
    return np.sum(s * np.arange(x.shape[-1]))


def _relu(x):
    return np.maximum(x, 0.0)


def mlp(x, w1, b1, w2, b2, w3, b3):
    h = _relu(x @ w1 + b1)
    h = _relu(h @ w2 + b2)
    z = h @ w3 + b3
    z = np.exp(z - np.max(z, axis=1, keepdims=True))
    z /= np.sum(z, axis=1, keepdims=True)
    return np.sum(z * z)


# valid 2-D convolution (cross-correlation) over channels, loops over output positions
def _conv2d(x, w):
    k = w.shape[0]
    h, wd = x.shape[1] - k + 1, x.shape[2] - k + 1
    out = np.empty((x.shape[0], h, wd, w.shape[3]))
    for i in range(h):
        for j in range(wd):
            patch = x[:, i:i + k, j:j + k, :, np.newaxis]
            out[:, i, j, :] = np.sum(patch * w[np.newaxis, :, :, :], axis=(1, 2, 3))
    return out


def conv2d(x, w):
    return np.sum(np.sin(_conv2d(x, w)))


# conv + bias + relu + 2x2 max pooling, then a dense layer
def _maxpool2(x):
    n, h, w, c = x.shape
    out = np.empty((n, h // 2, w // 2, c))
    for i in range(h // 2):
        for j in range(w // 2):
            out[:, i, j, :] = np.max(x[:, 2 * i:2 * i + 2, 2 * j:2 * j + 2, :], axis=(1, 2))
    return out


def lenet(x, w, b, fc):
    y = _relu(_conv2d(x, w) + b)
    p = _maxpool2(y)
    flat = p.reshape(p.shape[0], -1)
    return np.sum(np.tanh(flat @ fc))


# ---- particles, geometry, sparse ---------------------------------------------------------------
# gravitational accelerations with softening, leapfrog steps, kinetic plus potential energy
def _accelerations(pos, mass, soft):
    dx = pos[:, 0:1].T - pos[:, 0:1]
    dy = pos[:, 1:2].T - pos[:, 1:2]
    dz = pos[:, 2:3].T - pos[:, 2:3]
    inv3 = (dx ** 2 + dy ** 2 + dz ** 2 + soft ** 2) ** (-1.5)
    ax = (dx * inv3) @ mass
    ay = (dy * inv3) @ mass
    az = (dz * inv3) @ mass
    return np.hstack((ax, ay, az))


def nbody(pos, vel, mass):
    pos = pos.copy()
    vel = vel.copy()
    dt = 0.01
    acc = _accelerations(pos, mass, 0.1)
    for s in range(2):
        vel += acc * dt / 2.0
        pos += vel * dt
        acc = _accelerations(pos, mass, 0.1)
        vel += acc * dt / 2.0
    ke = 0.5 * np.sum(mass * vel ** 2)
    dx = pos[:, 0:1].T - pos[:, 0:1]
    dy = pos[:, 1:2].T - pos[:, 1:2]
    dz = pos[:, 2:3].T - pos[:, 2:3]
    inv_r = np.sqrt(dx ** 2 + dy ** 2 + dz ** 2 + 0.01)
    inv_r = 1.0 / inv_r
    pe = np.sum(np.triu(-(mass * mass.T) * inv_r, 1))
    return ke + pe


# great-circle distances (haversine) between pairs of points
def arc_distance(theta_1, phi_1, theta_2, phi_2):
    temp = np.sin((theta_2 - theta_1) / 2) ** 2 + np.cos(theta_1) * np.cos(theta_2) * np.sin((phi_2 - phi_1) / 2) ** 2
    distance_matrix = 2 * np.arctan2(np.sqrt(temp), np.sqrt(1 - temp))
    return np.sum(distance_matrix)


# azimuthal integration: mean intensity per radial bin (the radii are not differentiated)
def azimint_hist(data, radius):
    histu = np.histogram(radius, 5, range=(0.0, 1.0))[0]
    histw = np.histogram(radius, 5, range=(0.0, 1.0), weights=data)[0]
    return np.sum((histw / np.maximum(histu, 1)) ** 2)


# compressed-sparse-row matrix times a vector
def spmv(val, x, row_ptr, col_idx):
    y = np.zeros(row_ptr.shape[0] - 1)
    for i in range(row_ptr.shape[0] - 1):
        cols = col_idx[row_ptr[i]:row_ptr[i + 1]]
        y[i] = val[row_ptr[i]:row_ptr[i + 1]] @ x[cols]
    return np.sum(y * y)


def _csr(rng):
    row_ptr = np.array([0, 2, 3, 6, 8])
    col_idx = np.array([0, 3, 1, 0, 2, 4, 1, 4])
    return rng.normal(size=8), rng.normal(size=5), row_ptr, col_idx


# a scalar loop summing tanh of the diagonal, added to every entry
def go_fast(a):
    trace = 0.0
    for i in range(a.shape[0]):
        trace += np.tanh(a[i, i])
    return np.sum((a + trace) ** 2)


# all-pairs shortest paths, relaxing through each node in turn
def floyd_warshall(path):
    path = path.copy()
    for k in range(path.shape[0]):
        path[:] = np.minimum(path[:], np.add.outer(path[:, k], path[k, :]))
    return np.sum(path * np.arange(path.size).reshape(path.shape))


# ---- fluids -----------------------------------------------------------------------------------
def _pressure_source(b, rho, dt, u, v, dx, dy):
    b[1:-1, 1:-1] = rho * (1.0 / dt * ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2 * dx) + (v[2:, 1:-1] - v[0:-2, 1:-1]) / (2 * dy))
                           - ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2 * dx)) ** 2
                           - 2 * ((u[2:, 1:-1] - u[0:-2, 1:-1]) / (2 * dy) * (v[1:-1, 2:] - v[1:-1, 0:-2]) / (2 * dx))
                           - ((v[2:, 1:-1] - v[0:-2, 1:-1]) / (2 * dy)) ** 2)


def _pressure_poisson(p, b, dx, dy, nit):
    for q in range(nit):
        pn = p.copy()
        p[1:-1, 1:-1] = (((pn[1:-1, 2:] + pn[1:-1, 0:-2]) * dy ** 2 + (pn[2:, 1:-1] + pn[0:-2, 1:-1]) * dx ** 2)
                         / (2 * (dx ** 2 + dy ** 2))
                         - dx ** 2 * dy ** 2 / (2 * (dx ** 2 + dy ** 2)) * b[1:-1, 1:-1])
        p[:, -1] = p[:, -2]
        p[0, :] = p[1, :]
        p[:, 0] = p[:, 1]
        p[-1, :] = 0.0


# lid-driven cavity: momentum and pressure Poisson, walls at rest, the lid moving
def cavity_flow(u, v, p):
    u, v, p = u.copy(), v.copy(), p.copy()
    ny, nx = u.shape
    dx, dy, dt, rho, nu = 2.0 / (nx - 1), 2.0 / (ny - 1), 0.001, 1.0, 0.1
    b = np.zeros((ny, nx))
    for n in range(2):
        un = u.copy()
        vn = v.copy()
        _pressure_source(b, rho, dt, u, v, dx, dy)
        _pressure_poisson(p, b, dx, dy, 2)
        u[1:-1, 1:-1] = (un[1:-1, 1:-1] - un[1:-1, 1:-1] * dt / dx * (un[1:-1, 1:-1] - un[1:-1, 0:-2])
                         - vn[1:-1, 1:-1] * dt / dy * (un[1:-1, 1:-1] - un[0:-2, 1:-1])
                         - dt / (2 * rho * dx) * (p[1:-1, 2:] - p[1:-1, 0:-2])
                         + nu * (dt / dx ** 2 * (un[1:-1, 2:] - 2 * un[1:-1, 1:-1] + un[1:-1, 0:-2])
                                 + dt / dy ** 2 * (un[2:, 1:-1] - 2 * un[1:-1, 1:-1] + un[0:-2, 1:-1])))
        v[1:-1, 1:-1] = (vn[1:-1, 1:-1] - un[1:-1, 1:-1] * dt / dx * (vn[1:-1, 1:-1] - vn[1:-1, 0:-2])
                         - vn[1:-1, 1:-1] * dt / dy * (vn[1:-1, 1:-1] - vn[0:-2, 1:-1])
                         - dt / (2 * rho * dy) * (p[2:, 1:-1] - p[0:-2, 1:-1])
                         + nu * (dt / dx ** 2 * (vn[1:-1, 2:] - 2 * vn[1:-1, 1:-1] + vn[1:-1, 0:-2])
                                 + dt / dy ** 2 * (vn[2:, 1:-1] - 2 * vn[1:-1, 1:-1] + vn[0:-2, 1:-1])))
        u[0, :] = 0.0
        u[:, 0] = 0.0
        u[:, -1] = 0.0
        u[-1, :] = 1.0
        v[0, :] = 0.0
        v[-1, :] = 0.0
        v[:, 0] = 0.0
        v[:, -1] = 0.0
    return np.sum(u * u) + np.sum(v * p)


# channel flow: periodic in x (the edges read the opposite side), a body force, walls top and bottom
def channel_flow(u, v, p):
    u, v, p = u.copy(), v.copy(), p.copy()
    ny, nx = u.shape
    dx, dy, dt, rho, nu, force = 2.0 / (nx - 1), 2.0 / (ny - 1), 0.001, 1.0, 0.1, 1.0
    for n in range(2):
        un = u.copy()
        vn = v.copy()
        u[1:-1, 1:-1] = (un[1:-1, 1:-1] - un[1:-1, 1:-1] * dt / dx * (un[1:-1, 1:-1] - un[1:-1, 0:-2])
                         - vn[1:-1, 1:-1] * dt / dy * (un[1:-1, 1:-1] - un[0:-2, 1:-1])
                         - dt / (2 * rho * dx) * (p[1:-1, 2:] - p[1:-1, 0:-2])
                         + nu * (dt / dx ** 2 * (un[1:-1, 2:] - 2 * un[1:-1, 1:-1] + un[1:-1, 0:-2])
                                 + dt / dy ** 2 * (un[2:, 1:-1] - 2 * un[1:-1, 1:-1] + un[0:-2, 1:-1]))
                         + force * dt)
        # periodic edge in x: the last column's right neighbour is the first column
        u[1:-1, -1] = (un[1:-1, -1] - un[1:-1, -1] * dt / dx * (un[1:-1, -1] - un[1:-1, -2])
                       - dt / (2 * rho * dx) * (p[1:-1, 0] - p[1:-1, -2])
                       + nu * dt / dx ** 2 * (un[1:-1, 0] - 2 * un[1:-1, -1] + un[1:-1, -2]) + force * dt)
        v[1:-1, 1:-1] = (vn[1:-1, 1:-1] - un[1:-1, 1:-1] * dt / dx * (vn[1:-1, 1:-1] - vn[1:-1, 0:-2])
                         - vn[1:-1, 1:-1] * dt / dy * (vn[1:-1, 1:-1] - vn[0:-2, 1:-1])
                         - dt / (2 * rho * dy) * (p[2:, 1:-1] - p[0:-2, 1:-1]))
        u[0, :] = 0.0
        u[-1, :] = 0.0
        v[0, :] = 0.0
        v[-1, :] = 0.0
    return np.sum(u ** 2) + np.sum(v * u)


# ---- complex arithmetic ------------------------------------------------------------------------
# a discrete Fourier transform as a product with the matrix of roots of unity, then the power
def dft_power(x):
    n = x.shape[0]
    k = np.arange(n)
    m = np.exp(-2j * np.pi * np.outer(k, k) / n)
    spec = m @ x
    return np.sum(np.abs(spec) ** 2 * np.arange(1.0, n + 1.0))


# radix-2 decimation in time, the butterflies written into halves of a complex work array
def fft_stages(x):
    n = x.shape[0]
    y = x.astype(np.complex128)
    # bit-reversed order for n = 8
    y = y[np.array([0, 4, 2, 6, 1, 5, 3, 7])]
    size = 2
    while size <= n:
        half = size // 2
        w = np.exp(-2j * np.pi * np.arange(half) / size)
        for start in range(0, n, size):
            top = y[start:start + half].copy()
            bot = y[start + half:start + size] * w
            y[start:start + half] = top + bot
            y[start + half:start + size] = top - bot
        size *= 2
    return np.sum(np.real(y) ** 2 - np.imag(y) * np.arange(n))


# a contour integral of a resolvent-like quantity, by the trapezoidal rule on a circle
def contour_integral(a, radius):
    n = a.shape[0]
    total = 0.0 + 0.0j
    for k in range(4):
        z = radius * np.exp(2j * np.pi * k / 4)
        m = z * np.eye(n) - a
        total = total + z * np.trace(np.linalg.inv(m)) / 4
    return np.abs(total) ** 2


# scattering-like: a field summed over sources with phases exp(i k r), its intensity
def scattering(src, amp, kwave):
    obs = np.linspace(-1.0, 1.0, 5)
    r = np.sqrt((obs[:, None] - src[None, :]) ** 2 + 1.0)
    field = np.sum(amp[None, :] * np.exp(1j * kwave * r) / r, axis=1)
    return np.sum(np.abs(field) ** 2)


# ---- other numerical kernels -------------------------------------------------------------------
# the weighted sum of a clipped array and two others
def compute_clip(a, b, c):
    return np.sum(np.clip(a, -0.5, 0.5) * 3.0 + b * 2.0 + c * np.sin(a))


# cross-entropy of a softmax over logits, labels as integer positions
def cross_entropy(logits, labels):
    m = np.max(logits, axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.sum(np.exp(logits - m), axis=1))
    picked = logits[np.arange(logits.shape[0]), labels]
    return np.mean(lse - picked)


# trace of a product and the upper triangle of a matrix, with np.trace and np.triu
def trace_triu(a, b):
    return np.trace(a @ b) + np.sum(np.triu(a) * b) + np.sum(np.tril(b, -1))


# an array's transpose with explicit axes, then a contraction
def transpose_axes(x, w):
    y = np.transpose(x, (2, 0, 1))
    return np.sum((y @ w) ** 2)


# masked relaxation: points above a threshold relax towards their neighbours (np.where)
def masked_relax(x):
    a = x.copy()
    keep = x[1:-1] > 0.0
    for t in range(2):
        avg = 0.5 * (a[:-2] + a[2:])
        a[1:-1] = np.where(keep, avg, a[1:-1])
    return np.sum(a ** 2) + float(np.any(a > 5.0)) + float(np.all(a < 5.0))


# azimuthal integration by a loop over radial shells: the mean of the values whose radius falls in each
def azimint_naive(data, radius):
    rmax = 1.0
    nbins = 4
    res = np.zeros(nbins)
    for i in range(nbins):
        r1 = rmax * i / nbins
        r2 = rmax * (i + 1) / nbins
        mask = (radius >= r1) & (radius < r2)
        res[i] = np.mean(data[mask]) if np.sum(mask) > 0 else 0.0
    return np.sum(res ** 2)


def _radii(rng, counts):
    """Radii in shuffled order, counts[i] of them inside shell i of width 1/4, away from the shell edges."""
    shells = np.repeat(np.arange(len(counts)), counts)
    return rng.permutation((shells + rng.uniform(0.1, 0.9, shells.size)) / 4.0)


# Deriche edge detector: a causal and an anticausal recursive filter along rows, summed
def deriche(img):
    a1, a2, b1, b2 = 0.3, 0.2, 0.4, -0.1
    h, w = img.shape
    y1 = np.empty((h, w))
    y2 = np.empty((h, w))
    for i in range(h):
        ym1, ym2, xm1 = 0.0, 0.0, 0.0
        for j in range(w):
            y1[i, j] = a1 * img[i, j] + a2 * xm1 + b1 * ym1 + b2 * ym2
            xm1 = img[i, j]
            ym2 = ym1
            ym1 = y1[i, j]
        yp1, yp2 = 0.0, 0.0
        for j in range(w - 1, -1, -1):
            y2[i, j] = b1 * yp1 + b2 * yp2
            yp2 = yp1
            yp1 = y2[i, j] + img[i, j]
    return np.sum((y1 + y2) ** 2)


# alternating direction implicit sweeps: tridiagonal solves along columns, then rows
def adi(u0):
    u = u0.copy()
    n = u.shape[0]
    p = np.zeros((n, n))
    q = np.zeros((n, n))
    a, b, c = -0.2, 1.4, -0.2
    for i in range(1, n - 1):
        p[i, 0] = 0.0
        q[i, 0] = u[0, i]
        for j in range(1, n - 1):
            p[i, j] = -c / (a * p[i, j - 1] + b)
            q[i, j] = (u[j, i - 1] + u[j, i + 1] - a * q[i, j - 1]) / (a * p[i, j - 1] + b)
        for j in range(n - 2, 0, -1):
            u[j, i] = p[i, j] * u[j + 1, i] + q[i, j]
    return np.sum(u * u)


# Cholesky by the library, then two triangular solves with a right-hand side. The matrix is made
# symmetric from the input: NumPy's cholesky reads only the lower triangle, while the derivative
# follows JAX in treating the matrix as symmetric (docs/subset.md)
def cholesky_solve(m, b):
    a = m @ m.T / m.shape[1] + 2.0 * np.eye(m.shape[0])
    l = np.linalg.cholesky(a)
    y = np.linalg.solve(l, b)
    x = np.linalg.solve(l.T, y)
    return np.sum(x * b) + np.sum(np.log(np.diag(l)))


# a tensor contraction written with np.einsum
def einsum_contract(a, b):
    return np.sum(np.einsum("ijk,kl->ijl", a, b) ** 2)


# a convolution of a zero-padded image (np.pad), 3x3 kernel, same-size output
def padded_conv(img, k):
    p = np.pad(img, 1)
    h, w = img.shape
    out = np.zeros((h, w))
    for di in range(3):
        for dj in range(3):
            out += k[di, dj] * p[di:di + h, dj:dj + w]
    return np.sum(np.tanh(out))


PROGRAMS = [
    (jacobi_1d, draw(N(7), N(7)), True),
    (jacobi_2d, draw(N((5, 5))), False),
    (heat_3d, draw(N((4, 4, 4))), False),
    (seidel_2d, draw(N((4, 4))), True),
    (fdtd_2d, draw(N((3, 4)), N((3, 4)), N((3, 4)), N((2, 4))), False),
    (hdiff, draw(N((6, 6, 2)), N((6, 6, 2))), True),
    (vadv, draw(U((3, 2, 4), 0.1, 0.5), N((2, 2, 4)), N((2, 2, 4)), N((2, 2, 4))), False),
    (gemm, draw(N(), N(), N((3, 4)), N((3, 2)), N((2, 4))), True),
    (k2mm, draw(N(), N(), N((2, 3)), N((3, 4)), N((4, 2)), N((2, 2))), False),
    (k3mm, draw(N((2, 3)), N((3, 2)), N((2, 4)), N((4, 3))), False),
    (atax, draw(N((3, 4)), N(4)), False),
    (bicg, draw(N((3, 4)), N(4), N(3)), False),
    (mvt, draw(N(3), N(3), N(3), N(3), N((3, 3))), False),
    (gemver, draw(N(), N(), N((3, 3)), N(3), N(3), N(3), N(3), N(3), N(3)), False),
    (gesummv, draw(N(), N(), N((3, 3)), N((3, 3)), N(3)), False),
    (symm, draw(N(), N(), N((3, 4)), N((3, 3)), N((3, 4))), False),
    (syrk, draw(N(), N(), N((4, 4)), N((4, 3))), False),
    (syr2k, draw(N(), N(), N((3, 3)), N((3, 2)), N((3, 2))), False),
    (trmm, draw(N(), N((3, 3)), N((3, 2))), False),
    (cholesky, lambda rng: (_spd(rng, 4),), False),
    (lu, lambda rng: (_spd(rng, 4),), True),
    (ludcmp, lambda rng: (_spd(rng, 4), rng.normal(size=4)), False),
    # a diagonally dominant Toeplitz system: its recursion stays well conditioned
    (durbin, draw(U(5, -0.12, 0.12)), False),
    (gramschmidt, draw(N((4, 3))), False),
    (trisolv, lambda rng: (np.tril(rng.normal(size=(4, 4))) + 3.0 * np.eye(4), rng.normal(size=4)), False),
    (covariance, draw(N((5, 3))), False),
    (correlation, draw(N((6, 3))), False),
    (doitgen, draw(N((2, 2, 3)), N((3, 3))), False),
    (softmax, draw(N((2, 3, 4))), False),
    (mlp, draw(N((2, 3)), N((3, 4)), N(4), N((4, 3)), N(3), N((3, 2)), N(2)), True),
    (conv2d, draw(N((1, 4, 4, 2)), N((2, 2, 2, 3))), False),
    (lenet, draw(D((1, 5, 5, 1)), D((2, 2, 1, 2)), N(2), N((8, 2))), False),
    (nbody, draw(N((3, 3)), N((3, 3)), U((3, 1), 0.5, 1.5)), False),
    (arc_distance, draw(U(4, 0.1, 1.0), U(4, 0.1, 1.0), U(4, 0.1, 1.0), U(4, 0.1, 1.0)), False),
    (azimint_hist, lambda rng: (rng.normal(size=8), uniform(rng, 8, 0.0, 0.99, avoid=(0.2, 0.4, 0.6, 0.8))), False),
    (spmv, _csr, False),
    (go_fast, draw(N((3, 3))), False),
    (floyd_warshall, draw(D((4, 4), 0.0, 3.0)), False),
    (cavity_flow, draw(N((5, 5)), N((5, 5)), N((5, 5))), False),
    (channel_flow, draw(N((4, 5)), N((4, 5)), N((4, 5))), False),
    (dft_power, draw(N(4)), False),
    (fft_stages, draw(N(8)), False),
    (contour_integral, lambda rng: (0.3 * rng.normal(size=(3, 3)), uniform(rng, (), 1.5, 2.5)), False),
    (scattering, draw(N(3), N(3), U((), 1.0, 3.0)), False),
    (compute_clip, draw(U((2, 3), avoid=(-0.5, 0.5)), N((2, 3)), N((2, 3))), False),
    (cross_entropy, lambda rng: (rng.normal(size=(3, 4)), np.array([0, 3, 1])), False),
    (trace_triu, draw(N((3, 3)), N((3, 3))), False),
    (transpose_axes, draw(N((2, 3, 4)), N((3, 2))), False),
    (masked_relax, draw(U(6, avoid=(0.0,))), False),
    (azimint_naive, lambda rng: (rng.normal(size=10), _radii(rng, (2, 3, 1, 4))), False),
    (deriche, draw(N((2, 5))), False),
    (adi, draw(N((5, 5))), False),
    (cholesky_solve, draw(N((3, 3)), N(3)), False),
    (einsum_contract, draw(N((2, 3, 4)), N((4, 2))), False),
    (padded_conv, draw(N((4, 4)), N((3, 3))), False),
]
