"""Gradient speed on scientific kernels: transpyle against JAX and against the compiled primal.

    python benchmarks/kernels.py [--only name1,name2] [--plot docs/kernels.png] [--json out.json]
                                 [--warm-cache] [--blas-threads N]

Each kernel below is written as a NumPy user writes it (stencils with in-place slice updates and time
loops, scalar loops, dense linear algebra with triangular loops, statistics, small networks, a fluid
solver, an N-body step) and returns a scalar loss; the gradient is taken with respect to its first
argument. ``kernels_jax.py`` holds the same kernels written for jax.numpy (functional ``.at[]``
updates, ``lax.fori_loop``/``scan`` for time loops, float64). For each kernel one row, all from one
run:

- ``tp grad``: ``transpyle.grad(f)`` (numba backend), best time per call of the compiled code;
- ``jax grad``: ``jax.jit(jax.grad(f_jax))`` on the CPU after one warm-up call, ``block_until_ready``;
- ``primal``: ``transpyle.jit(f)``, the compiled function itself;
- ``jax/tp``: JAX time over transpyle time (above 1: transpyle faster); ``grad/primal``: transpyle's
  gradient time over the compiled primal's;
- ``compile s``: seconds of transpyle's first gradient call (transform and Numba compile). By default
  the script compiles into an empty temporary TRANSPYLE_CACHE_DIR with Numba already initialised
  (a cold-ish compile); ``--warm-cache`` uses the usual cache, and the column then shows cache loads;
- ``FD``: the largest relative error of transpyle's gradient along 3 random directions against central
  differences of the plain NumPy kernel (``ok`` below 1e-5, else ``FAIL``); ``vs jax``: rel_err of
  transpyle's gradient against JAX's.

Times are of compiled code with transpyle's tiers off (timing.py sets TRANSPYLE_TIERED=0), best of 7
batches. BLAS keeps the threads it starts with, as on a user's machine (NumPy's and SciPy's, which
Numba's compiled code calls; JAX has its own thread pool), and transpyle's element loops over many
elements run on every core (``transforms/parallel_loops``). On a busy machine a threaded OpenBLAS waits
for its threads (on 2 shared cores a 200x200 product took 16 ms instead of 0.8 ms): ``--blas-threads 1``
then gives steadier figures. The header gives the versions, the core count, the BLAS
threads, the load average when the run started and the commit transpyle comes from (with the number
of files under transpyle/ that differ from it).

A kernel that transpyle refuses, or whose JAX version fails, prints the error under its row and the
script goes on; without JAX the JAX columns say n/a. The summary gives the geometric means of the two
ratios and how many kernels transpyle differentiates faster than JAX, and at over 3x and over 6x the
primal. ``--json`` writes the rows (times in seconds) and the summary; ``--plot`` (needs matplotlib)
draws both ratios per kernel as horizontal bars on a log axis. A full run takes 5-8 minutes on 2
cores, most of it Numba compiling the gradients. This is a script, not a test.
"""
import argparse
import dataclasses
import json
import math
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import best_time, fmt, optional_jax, rel_err  # noqa: E402  (sets TRANSPYLE_TIERED=0)


# ==== stencils ========================================================================================
# 1-D diffusion, explicit Euler: the interior updated in place through a view, k the diffusion number
def diffusion_1d(u0, k, steps):
    u = u0.copy()
    inner = u[1:-1]
    for t in range(steps):
        inner += k * (u[:-2] - 2.0 * u[1:-1] + u[2:])
    return np.sum(u * u)


# 1-D Jacobi: two arrays updated alternately over the interior
def jacobi_1d(a0, steps):
    a = a0.copy()
    b = a0.copy()
    for t in range(steps):
        b[1:-1] = 0.33333 * (a[:-2] + a[1:-1] + a[2:])
        a[1:-1] = 0.33333 * (b[:-2] + b[1:-1] + b[2:])
    return np.sum(a * a) + np.sum(np.sin(b))


# 2-D Jacobi: five-point average of the interior
def jacobi_2d(a0, steps):
    a = a0.copy()
    b = a0.copy()
    for t in range(steps):
        b[1:-1, 1:-1] = 0.2 * (a[1:-1, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:] + a[2:, 1:-1] + a[:-2, 1:-1])
        a[1:-1, 1:-1] = 0.2 * (b[1:-1, 1:-1] + b[1:-1, :-2] + b[1:-1, 2:] + b[2:, 1:-1] + b[:-2, 1:-1])
    return np.sum(a * a)


# 3-D heat equation, explicit second differences along each axis
def heat_3d(a0, steps):
    a = a0.copy()
    b = a0.copy()
    for t in range(steps):
        b[1:-1, 1:-1, 1:-1] = (0.125 * (a[2:, 1:-1, 1:-1] - 2.0 * a[1:-1, 1:-1, 1:-1] + a[:-2, 1:-1, 1:-1])
                               + 0.125 * (a[1:-1, 2:, 1:-1] - 2.0 * a[1:-1, 1:-1, 1:-1] + a[1:-1, :-2, 1:-1])
                               + 0.125 * (a[1:-1, 1:-1, 2:] - 2.0 * a[1:-1, 1:-1, 1:-1] + a[1:-1, 1:-1, :-2])
                               + a[1:-1, 1:-1, 1:-1])
        a[1:-1, 1:-1, 1:-1] = (0.125 * (b[2:, 1:-1, 1:-1] - 2.0 * b[1:-1, 1:-1, 1:-1] + b[:-2, 1:-1, 1:-1])
                               + 0.125 * (b[1:-1, 2:, 1:-1] - 2.0 * b[1:-1, 1:-1, 1:-1] + b[1:-1, :-2, 1:-1])
                               + 0.125 * (b[1:-1, 1:-1, 2:] - 2.0 * b[1:-1, 1:-1, 1:-1] + b[1:-1, 1:-1, :-2])
                               + b[1:-1, 1:-1, 1:-1])
    return np.sum(a * a)


# Yee scheme in 2-D: electric fields from the magnetic one and back, a source row each step
def fdtd_2d(ex0, ey0, hz0, fict):
    ex, ey, hz = ex0.copy(), ey0.copy(), hz0.copy()
    for t in range(fict.shape[0]):
        ey[0, :] = fict[t]
        ey[1:, :] -= 0.5 * (hz[1:, :] - hz[:-1, :])
        ex[:, 1:] -= 0.5 * (hz[:, 1:] - hz[:, :-1])
        hz[:-1, :-1] -= 0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1])
    return np.sum(hz * hz) + np.sum(ex * ey)


# Gauss-Seidel sweeps, scalar loops: each point uses the neighbours already updated in this sweep
def seidel_2d(a0, steps):
    a = a0.copy()
    n = a.shape[0]
    for t in range(steps):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                a[i, j] = (a[i - 1, j - 1] + a[i - 1, j] + a[i - 1, j + 1] + a[i, j - 1] + a[i, j]
                           + a[i, j + 1] + a[i + 1, j - 1] + a[i + 1, j] + a[i + 1, j + 1]) / 9.0
    return np.sum(a * a)


# alternating direction implicit (polybench's ADI, vectorised over the lines as NumPy code does it):
# per step a tridiagonal solve along columns into v, then along rows back into u (Thomas algorithm)
def adi(u0, steps):
    u = u0.copy()
    n = u.shape[0]
    v = np.zeros((n, n))
    p = np.zeros((n, n))
    q = np.zeros((n, n))
    dx, dt = 1.0 / n, 1.0 / steps
    mul1 = 2.0 * dt / (dx * dx)
    mul2 = 1.0 * dt / (dx * dx)
    a, b, c = -mul1 / 2.0, 1.0 + mul1, -mul1 / 2.0
    d, e, f = -mul2 / 2.0, 1.0 + mul2, -mul2 / 2.0
    for t in range(steps):
        v[0, 1:n - 1] = 1.0
        p[1:n - 1, 0] = 0.0
        q[1:n - 1, 0] = v[0, 1:n - 1]
        for j in range(1, n - 1):
            p[1:n - 1, j] = -c / (a * p[1:n - 1, j - 1] + b)
            q[1:n - 1, j] = ((-d * u[j, 0:n - 2] + (1.0 + 2.0 * d) * u[j, 1:n - 1] - f * u[j, 2:n]
                              - a * q[1:n - 1, j - 1]) / (a * p[1:n - 1, j - 1] + b))
        v[n - 1, 1:n - 1] = 1.0
        for j in range(n - 2, 0, -1):
            v[j, 1:n - 1] = p[1:n - 1, j] * v[j + 1, 1:n - 1] + q[1:n - 1, j]
        u[1:n - 1, 0] = 1.0
        p[1:n - 1, 0] = 0.0
        q[1:n - 1, 0] = u[1:n - 1, 0]
        for j in range(1, n - 1):
            p[1:n - 1, j] = -f / (d * p[1:n - 1, j - 1] + e)
            q[1:n - 1, j] = ((-a * v[0:n - 2, j] + (1.0 + 2.0 * a) * v[1:n - 1, j] - c * v[2:n, j]
                              - d * q[1:n - 1, j - 1]) / (d * p[1:n - 1, j - 1] + e))
        u[1:n - 1, n - 1] = 1.0
        for j in range(n - 2, 0, -1):
            u[1:n - 1, j] = p[1:n - 1, j] * u[1:n - 1, j + 1] + q[1:n - 1, j]
    return np.sum(u * u)


# horizontal diffusion of a weather model (COSMO's hdiff): a fourth-order stencil whose fluxes a limiter
# sets to zero where they run against the gradient, sizes computed from the field's shape
def hdiff(field, coeff):
    ni, nj = field.shape[0] - 4, field.shape[1] - 4
    lap = 4.0 * field[1:ni + 3, 1:nj + 3, :] - (field[2:ni + 4, 1:nj + 3, :] + field[0:ni + 2, 1:nj + 3, :] +
                                                 field[1:ni + 3, 2:nj + 4, :] + field[1:ni + 3, 0:nj + 2, :])
    res = lap[1:, 1:nj + 1, :] - lap[:-1, 1:nj + 1, :]
    flx = np.where(res * (field[2:ni + 3, 2:nj + 2, :] - field[1:ni + 2, 2:nj + 2, :]) > 0, 0, res)
    res = lap[1:ni + 1, 1:, :] - lap[1:ni + 1, :-1, :]
    fly = np.where(res * (field[2:ni + 2, 2:nj + 3, :] - field[2:ni + 2, 1:nj + 2, :]) > 0, 0, res)
    out = field[2:ni + 2, 2:nj + 2, :] - coeff * (flx[1:] - flx[:-1] + fly[:, 1:] - fly[:, :-1])
    return np.sum(out * out)


# ==== statistics ======================================================================================
# covariance of the columns, one column of the lower triangle per step, mirrored to the upper one
def covariance(data):
    n, m = data.shape
    mean = np.mean(data, axis=0)
    d = data - mean
    cov = np.zeros((m, m))
    for i in range(m):
        cov[i:m, i] = d[:, i] @ d[:, i:m] / (n - 1.0)
        cov[i, i:m] = cov[i:m, i]
    return np.sum(cov * cov)


# correlation of the columns (polybench: a small deviation counts as 1), weighted
def correlation(data, w):
    n, m = data.shape
    mean = np.mean(data, axis=0)
    stddev = np.std(data, axis=0)
    stddev[stddev <= 0.1] = 1.0
    d = (data - mean) / (np.sqrt(n) * stddev)
    corr = np.eye(m)
    for i in range(m - 1):
        corr[i + 1:m, i] = d[:, i] @ d[:, i + 1:m]
        corr[i, i + 1:m] = corr[i + 1:m, i]
    return np.sum(corr * w)


# ==== dense linear algebra ============================================================================
def gemm(a, b, c, alpha, beta):
    c = c.copy()
    c *= beta
    c += alpha * a @ b
    return np.sum(c * c)


def gemver(a, u1, v1, u2, v2, y, z, alpha, beta):
    a = a + np.outer(u1, v1) + np.outer(u2, v2)
    x = beta * (y @ a) + z
    w = alpha * (a @ x)
    return np.sum(w * w) + np.sum(x)


def atax(a, x):
    y = (a @ x) @ a
    return np.sum(y * y)


def bicg(a, p, r):
    q = a @ p
    s = r @ a
    return np.sum(q * q) + np.sum(s * s)


def mvt(a, x1, x2, y1, y2):
    x1 = x1 + a @ y1
    x2 = x2 + y2 @ a
    return np.sum(x1 * x2)


def gesummv(a, b, x, alpha, beta):
    y = alpha * a @ x + beta * b @ x
    return np.sum(np.tanh(y))


# symmetric rank-k update of the lower triangle, loops over rows and the inner dimension
def syrk(a, c, alpha, beta):
    c = c.copy()
    n, m = a.shape
    for i in range(n):
        c[i, :i + 1] *= beta
        for k in range(m):
            c[i, :i + 1] += alpha * a[i, k] * a[:i + 1, k]
    return np.sum(np.tril(c) ** 2)


# symmetric rank-2k update of the lower triangle
def syr2k(a, b, c, alpha, beta):
    c = c.copy()
    n, m = a.shape
    for i in range(n):
        c[i, :i + 1] *= beta
        for k in range(m):
            c[i, :i + 1] += a[:i + 1, k] * alpha * b[i, k] + b[:i + 1, k] * alpha * a[i, k]
    return np.sum(np.tril(c) ** 2)


# B = alpha A^T B with A unit lower triangular, one dot product per entry
def trmm(a, b, alpha):
    b = b.copy()
    m, n = b.shape
    for i in range(m):
        for j in range(n):
            b[i, j] += np.dot(a[i + 1:, i], b[i + 1:, j])
    b *= alpha
    return np.sum(b * b)


# a 3-D tensor contracted with a matrix along its last axis, slab by slab
def doitgen(a, c4):
    a = a.copy()
    for r in range(a.shape[0]):
        for q in range(a.shape[1]):
            a[r, q, :] = a[r, q, :] @ c4
    return np.sum(a * a)


# the same contraction as NumPy code writes it: the slabs as a stack of rows times one matrix
def doitgen_stack(a, c4):
    nr, nq, width = a.shape
    b = np.reshape(np.reshape(a, (nr, nq, 1, width)) @ c4, (nr, nq, width))
    return np.sum(b * b)


# ==== networks ========================================================================================
def softmax(x, w):
    m = np.max(x, axis=-1, keepdims=True)
    e = np.exp(x - m)
    s = e / np.sum(e, axis=-1, keepdims=True)
    return np.sum(s * w)


# two dense layers, tanh between them, mean squared error
def mlp(w1, b1, w2, b2, x, y):
    h = np.tanh(x @ w1 + b1)
    out = h @ w2 + b2
    return np.mean((out - y) ** 2)


# valid 2-D convolution (cross-correlation) over input channels: explicit loops over the kernel
# offsets and channels, one broadcast slice update each
def conv2d(w, x):
    cout, cin, k = w.shape[0], w.shape[1], w.shape[2]
    h, wd = x.shape[1] - k + 1, x.shape[2] - k + 1
    out = np.zeros((cout, h, wd))
    for di in range(k):
        for dj in range(k):
            for c in range(cin):
                out += w[:, c, di, dj][:, np.newaxis, np.newaxis] * x[c, di:di + h, dj:dj + wd]
    return np.sum(np.tanh(out))


# the same layer as NPBench's conv2d_bias writes it: per output pixel, the window times the weights
# summed over its rows, columns and channels (NHWC input, HWIO weights)
def conv2d_pixels(x, w, bias):
    k = w.shape[0]
    h, wd = x.shape[1] - k + 1, x.shape[2] - k + 1
    out = np.empty((x.shape[0], h, wd, w.shape[3]))
    for i in range(h):
        for j in range(wd):
            out[:, i, j, :] = np.sum(x[:, i:i + k, j:j + k, :, np.newaxis] * w[np.newaxis, :, :, :], axis=(1, 2, 3))
    out = out + bias
    return np.sum(out * out)


# ==== physics =========================================================================================
# lid-driven cavity flow (Barba's "12 steps to Navier-Stokes"): momentum steps with a pressure
# Poisson iteration each; helpers write into their arguments
def _build_up_b(b, rho, dt, u, v, dx, dy):
    b[1:-1, 1:-1] = rho * (1.0 / dt * ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2.0 * dx)
                                       + (v[2:, 1:-1] - v[0:-2, 1:-1]) / (2.0 * dy))
                           - ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2.0 * dx)) ** 2
                           - 2.0 * ((u[2:, 1:-1] - u[0:-2, 1:-1]) / (2.0 * dy)
                                    * (v[1:-1, 2:] - v[1:-1, 0:-2]) / (2.0 * dx))
                           - ((v[2:, 1:-1] - v[0:-2, 1:-1]) / (2.0 * dy)) ** 2)


def _pressure_poisson(p, b, dx, dy, nit):
    for q in range(nit):
        pn = p.copy()
        p[1:-1, 1:-1] = (((pn[1:-1, 2:] + pn[1:-1, 0:-2]) * dy ** 2 + (pn[2:, 1:-1] + pn[0:-2, 1:-1]) * dx ** 2)
                         / (2.0 * (dx ** 2 + dy ** 2))
                         - dx ** 2 * dy ** 2 / (2.0 * (dx ** 2 + dy ** 2)) * b[1:-1, 1:-1])
        p[:, -1] = p[:, -2]
        p[0, :] = p[1, :]
        p[:, 0] = p[:, 1]
        p[-1, :] = 0.0


def cavity_flow(u0, v0, p0, nt, nit):
    u, v, p = u0.copy(), v0.copy(), p0.copy()
    ny, nx = u.shape
    dx, dy, dt, rho, nu = 2.0 / (nx - 1), 2.0 / (ny - 1), 0.001, 1.0, 0.1
    b = np.zeros((ny, nx))
    for n in range(nt):
        un = u.copy()
        vn = v.copy()
        _build_up_b(b, rho, dt, u, v, dx, dy)
        _pressure_poisson(p, b, dx, dy, nit)
        u[1:-1, 1:-1] = (un[1:-1, 1:-1] - un[1:-1, 1:-1] * dt / dx * (un[1:-1, 1:-1] - un[1:-1, 0:-2])
                         - vn[1:-1, 1:-1] * dt / dy * (un[1:-1, 1:-1] - un[0:-2, 1:-1])
                         - dt / (2.0 * rho * dx) * (p[1:-1, 2:] - p[1:-1, 0:-2])
                         + nu * (dt / dx ** 2 * (un[1:-1, 2:] - 2.0 * un[1:-1, 1:-1] + un[1:-1, 0:-2])
                                 + dt / dy ** 2 * (un[2:, 1:-1] - 2.0 * un[1:-1, 1:-1] + un[0:-2, 1:-1])))
        v[1:-1, 1:-1] = (vn[1:-1, 1:-1] - un[1:-1, 1:-1] * dt / dx * (vn[1:-1, 1:-1] - vn[1:-1, 0:-2])
                         - vn[1:-1, 1:-1] * dt / dy * (vn[1:-1, 1:-1] - vn[0:-2, 1:-1])
                         - dt / (2.0 * rho * dy) * (p[2:, 1:-1] - p[0:-2, 1:-1])
                         + nu * (dt / dx ** 2 * (vn[1:-1, 2:] - 2.0 * vn[1:-1, 1:-1] + vn[1:-1, 0:-2])
                                 + dt / dy ** 2 * (vn[2:, 1:-1] - 2.0 * vn[1:-1, 1:-1] + vn[0:-2, 1:-1])))
        u[0, :] = 0.0
        u[:, 0] = 0.0
        u[:, -1] = 0.0
        u[-1, :] = 1.0
        v[0, :] = 0.0
        v[-1, :] = 0.0
        v[:, 0] = 0.0
        v[:, -1] = 0.0
    return np.sum(u * u) + np.sum(v * p)


# N-body, gravitational accelerations with softening from pairwise differences (broadcasting),
# leapfrog steps; kinetic energy plus a spread term
def _accelerations(pos, mass, soft):
    d = pos[np.newaxis, :, :] - pos[:, np.newaxis, :]          # d[i, j] = pos[j] - pos[i]
    inv3 = (np.sum(d * d, axis=2) + soft * soft) ** -1.5
    return np.sum(d * (inv3 * mass)[:, :, np.newaxis], axis=1)


def nbody(pos0, vel0, mass, steps, dt):
    pos = pos0.copy()
    vel = vel0.copy()
    acc = _accelerations(pos, mass, 0.1)
    for s in range(steps):
        vel += 0.5 * dt * acc
        pos += dt * vel
        acc = _accelerations(pos, mass, 0.1)
        vel += 0.5 * dt * acc
    return 0.5 * np.sum(mass[:, np.newaxis] * vel * vel) + 0.01 * np.sum(pos * pos)


# ==== the table of kernels ============================================================================
@dataclasses.dataclass
class Kernel:
    name: str
    family: str
    fn: object
    make: object        # rng -> the arguments (the first one is differentiated)
    size: str
    fd_step: float = 1e-5   # the finite differences' step, relative to the largest argument entry


def _normal(rng, *shape):
    return rng.normal(size=shape)


def _spread(rng, n, m):
    """Samples of m variables with different spreads."""
    return rng.normal(size=(n, m)) * rng.uniform(0.5, 2.0, m)


KERNELS = [
    # stencils
    Kernel("diffusion_1d", "stencil", diffusion_1d,
           lambda r: (_normal(r, 10000), 0.25, 50), "n=10000, 50 steps"),
    Kernel("jacobi_1d", "stencil", jacobi_1d, lambda r: (_normal(r, 10000), 40), "n=10000, 40 steps"),
    Kernel("jacobi_2d", "stencil", jacobi_2d, lambda r: (_normal(r, 200, 200), 10), "200x200, 10 steps"),
    Kernel("heat_3d", "stencil", heat_3d, lambda r: (_normal(r, 32, 32, 32), 4), "32^3, 4 steps"),
    Kernel("fdtd_2d", "stencil", fdtd_2d,
           lambda r: (_normal(r, 80, 100), _normal(r, 80, 100), _normal(r, 80, 100), _normal(r, 20)),
           "80x100, 20 steps"),
    Kernel("seidel_2d", "stencil", seidel_2d, lambda r: (_normal(r, 100, 100), 4), "100x100, 4 sweeps"),
    Kernel("adi", "stencil", adi, lambda r: (_normal(r, 40, 40), 4), "40x40, 4 steps"),
    # its limiters switch fluxes off where a difference changes sign: a smaller step crosses none of those
    Kernel("hdiff", "stencil", hdiff, lambda r: (_normal(r, 68, 68, 16), 0.3), "64x64x16", fd_step=1e-8),
    # statistics
    Kernel("covariance", "statistics", covariance, lambda r: (_spread(r, 500, 100),), "500x100"),
    Kernel("correlation", "statistics", correlation,
           lambda r: (_spread(r, 500, 100), _normal(r, 100, 100)), "500x100"),
    # dense linear algebra
    Kernel("gemm", "linalg", gemm,
           lambda r: (_normal(r, 200, 200), _normal(r, 200, 200), _normal(r, 200, 200), 1.5, 1.2),
           "200x200"),
    Kernel("gemver", "linalg", gemver,
           lambda r: (_normal(r, 500, 500),) + tuple(_normal(r, 500) for _ in range(6)) + (1.5, 1.2),
           "n=500"),
    Kernel("atax", "linalg", atax, lambda r: (_normal(r, 800, 1000), _normal(r, 1000)), "800x1000"),
    Kernel("bicg", "linalg", bicg,
           lambda r: (_normal(r, 800, 1000), _normal(r, 1000), _normal(r, 800)), "800x1000"),
    Kernel("mvt", "linalg", mvt, lambda r: (_normal(r, 800, 800),) + tuple(_normal(r, 800) for _ in range(4)),
           "n=800"),
    Kernel("gesummv", "linalg", gesummv,
           lambda r: (_normal(r, 500, 500) / 20, _normal(r, 500, 500) / 20, _normal(r, 500), 1.5, 1.2),
           "n=500"),
    Kernel("syrk", "linalg", syrk,
           lambda r: (_normal(r, 100, 80), _normal(r, 100, 100), 1.5, 1.2), "n=100, m=80"),
    Kernel("syr2k", "linalg", syr2k,
           lambda r: (_normal(r, 80, 60), _normal(r, 80, 60), _normal(r, 80, 80), 1.5, 1.2), "n=80, m=60"),
    Kernel("trmm", "linalg", trmm, lambda r: (_normal(r, 80, 80), _normal(r, 80, 100), 1.5), "m=80, n=100"),
    Kernel("doitgen", "linalg", doitgen,
           lambda r: (_normal(r, 25, 20, 30), _normal(r, 30, 30) / 5), "25x20x30"),
    Kernel("doitgen_stack", "linalg", doitgen_stack,
           lambda r: (_normal(r, 25, 20, 30), _normal(r, 30, 30) / 5), "25x20x30"),
    # networks
    Kernel("softmax", "network", softmax, lambda r: (_normal(r, 256, 512), _normal(r, 256, 512)), "256x512"),
    Kernel("mlp", "network", mlp,
           lambda r: (_normal(r, 64, 256) / 8, _normal(r, 256), _normal(r, 256, 10) / 16, _normal(r, 10),
                      _normal(r, 512, 64), _normal(r, 512, 10)), "512x64-256-10"),
    Kernel("conv2d", "network", conv2d,
           lambda r: (_normal(r, 8, 4, 3, 3) / 6, _normal(r, 4, 34, 34)), "4->8 ch, 34x34, 3x3"),
    Kernel("conv2d_pixels", "network", conv2d_pixels,
           lambda r: (_normal(r, 4, 20, 20, 3), _normal(r, 3, 3, 3, 8), _normal(r, 8)), "4x20x20x3 -> 8, 3x3"),
    # physics
    Kernel("cavity_flow", "physics", cavity_flow,
           lambda r: (0.1 * _normal(r, 41, 41), 0.1 * _normal(r, 41, 41), 0.1 * _normal(r, 41, 41), 10, 20),
           "41x41, 10 steps x 20 it"),
    Kernel("nbody", "physics", nbody,
           lambda r: (_normal(r, 64, 3), 0.1 * _normal(r, 64, 3), r.uniform(0.5, 1.5, 64), 4, 0.01),
           "64 bodies, 4 steps"),
]


# ==== measuring =======================================================================================
FD_DIRECTIONS = 3
FD_TOL = 1e-5


def first_line(exc):
    text = (f"{type(exc).__name__}: {exc}".strip().splitlines() or [type(exc).__name__])[0]
    return text if len(text) <= 160 else text[:157] + "..."


def fd_check(fn, args, grad, rng, step=1e-5):
    """Largest relative error of <grad, d> against central differences of the NumPy kernel ``fn``
    along FD_DIRECTIONS random directions d (entries up to 1 in size)."""
    x = args[0]
    h = step * max(1.0, float(np.max(np.abs(x))))
    worst = 0.0
    for _ in range(FD_DIRECTIONS):
        d = rng.normal(size=x.shape)
        d /= np.max(np.abs(d))
        fd = (fn(x + h * d, *args[1:]) - fn(x - h * d, *args[1:])) / (2.0 * h)
        gd = float(np.sum(grad * d))
        worst = max(worst, abs(fd - gd) / max(abs(fd), abs(gd), 1e-300))
    return worst


def measure(kernel, jax_fns, jax_info):
    """One row (a dict) for ``kernel``; each part that fails leaves its error and the rest goes on."""
    import transpyle

    rng = np.random.default_rng(0)
    args = kernel.make(rng)
    row = {"name": kernel.name, "family": kernel.family, "size": kernel.size, "errors": []}
    grad = None
    try:
        g = transpyle.grad(kernel.fn)
        t0 = time.perf_counter()
        grad = np.asarray(g(*args))
        row["compile_s"] = time.perf_counter() - t0
        row["t_grad"] = best_time(lambda: g(*args))
    except Exception as exc:
        row["errors"].append("transpyle grad: " + first_line(exc))
    try:
        jitted = transpyle.jit(kernel.fn)
        jitted(*args)
        row["t_primal"] = best_time(lambda: jitted(*args))
    except Exception as exc:
        row["errors"].append("transpyle jit: " + first_line(exc))
    if grad is not None:
        try:
            row["fd_err"] = fd_check(kernel.fn, args, grad, np.random.default_rng(1), kernel.fd_step)
            row["fd_ok"] = bool(row["fd_err"] < FD_TOL)
        except Exception as exc:
            row["errors"].append("finite differences: " + first_line(exc))
    if jax_fns is not None:
        try:
            jg, jargs = jax_info["grad_and_args"](jax_fns[kernel.name], args)
            t0 = time.perf_counter()
            want = np.asarray(jax_info["block"](jg(*jargs)))
            row["jax_compile_s"] = time.perf_counter() - t0
            row["t_jax"] = best_time(lambda: jax_info["block"](jg(*jargs)))
            if grad is not None:
                row["jax_err"] = rel_err(grad, want)
        except Exception as exc:
            row["errors"].append("jax: " + first_line(exc))
    if "t_grad" in row and "t_jax" in row:
        row["jax_over_tp"] = row["t_jax"] / row["t_grad"]
    if "t_grad" in row and "t_primal" in row:
        row["grad_over_primal"] = row["t_grad"] / row["t_primal"]
    return row


def jax_setup():
    """The JAX versions of the kernels and how to call them, or an exception when JAX is missing."""
    import jax
    import jax.numpy as jnp
    import kernels_jax

    programs = kernels_jax.programs()      # float64 on, the CPU platform

    def grad_and_args(fj, args):
        static = tuple(i for i, a in enumerate(args) if isinstance(a, int) and not isinstance(a, bool))
        jargs = tuple(jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args)
        return jax.jit(jax.grad(fj), static_argnums=static), jargs

    return programs, {"grad_and_args": grad_and_args, "block": jax.block_until_ready,
                                    "version": jax.__version__}


# ==== the table =======================================================================================
COLUMNS = [("kernel", 13), ("size", 23), ("tp grad", 12), ("jax grad", 12), ("primal", 12),
           ("jax/tp", 7), ("grad/primal", 11), ("compile s", 9), ("FD", 12), ("vs jax", 7)]


def _ratio(x, width):
    return f"{x:.2f}x".rjust(width) if x is not None else "n/a".rjust(width)


def format_row(row, have_jax):
    na = "n/a" if not have_jax else "-"
    cells = [row["name"], row["size"],
             fmt(row["t_grad"]) if "t_grad" in row else "-",
             fmt(row["t_jax"]) if "t_jax" in row else na,
             fmt(row["t_primal"]) if "t_primal" in row else "-",
             _ratio(row.get("jax_over_tp"), 7), _ratio(row.get("grad_over_primal"), 11),
             f"{row['compile_s']:.1f}" if "compile_s" in row else "-",
             (f"{row['fd_err']:.0e} " + ("ok" if row["fd_ok"] else "FAIL")) if "fd_err" in row else "-",
             f"{row['jax_err']:.0e}" if "jax_err" in row else na]
    text = " | ".join(c.rjust(w) if i > 1 else c.ljust(w) for i, (c, (_, w)) in enumerate(zip(cells, COLUMNS)))
    for err in row["errors"]:
        text += "\n    " + err
    return text


def geomean(values):
    values = [v for v in values if v is not None and v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def summary(rows):
    jax_ratios = [r["jax_over_tp"] for r in rows if "jax_over_tp" in r]
    primal_ratios = [r["grad_over_primal"] for r in rows if "grad_over_primal" in r]
    gj, gp = geomean(jax_ratios), geomean(primal_ratios)
    lines = [
        f"geometric mean of jax/tp over {len(jax_ratios)} kernels: " + (f"{gj:.2f}x" if gj else "n/a")
        + "  (above 1: transpyle faster)",
        f"geometric mean of grad/primal over {len(primal_ratios)} kernels: " + (f"{gp:.2f}x" if gp else "n/a"),
        f"transpyle faster than JAX: {sum(r > 1.0 for r in jax_ratios)} of {len(jax_ratios)}; "
        f"gradient over 3x the primal: {sum(r > 3.0 for r in primal_ratios)}, over 6x: "
        f"{sum(r > 6.0 for r in primal_ratios)} of {len(primal_ratios)}",
    ]
    failed_fd = [r["name"] for r in rows if r.get("fd_ok") is False]
    failed = [r["name"] for r in rows if "t_grad" not in r]
    lines.append(f"finite-difference check failed: {', '.join(failed_fd) or 'none'}; "
                 f"transpyle gradient failed: {', '.join(failed) or 'none'}")
    return lines, {"geomean_jax_over_tp": gj, "geomean_grad_over_primal": gp}


def plot(rows, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"(--plot skipped: matplotlib is not installed; pip install matplotlib)")
        return
    rows = [r for r in rows if "jax_over_tp" in r or "grad_over_primal" in r]
    names = [r["name"] for r in rows]
    ys = np.arange(len(rows))
    fig, ax = plt.subplots(figsize=(8, 0.32 * len(rows) + 1.5))
    for offset, key, label, color in ((-0.2, "jax_over_tp", "JAX time / transpyle time", "tab:blue"),
                                      (0.2, "grad_over_primal", "transpyle grad / compiled primal", "tab:orange")):
        vals = [r.get(key, np.nan) for r in rows]
        bars = ax.barh(ys + offset, vals, height=0.38, label=label, color=color)
        ax.bar_label(bars, labels=[("" if v != v else f"{v:.2f}" if v < 10 else f"{v:.0f}") for v in vals], fontsize="x-small", padding=2)
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_yticks(ys)
    ax.set_yticklabels(names)
    ax.invert_yaxis()
    ax.set_xlabel("ratio (log scale)")
    ax.set_title("Gradients of scientific kernels: transpyle (numba) against JAX jit and the primal")
    ax.legend(loc="lower right", fontsize="small")
    ax.grid(axis="x", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"plot written to {path}")


def blas_threads():
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "unknown"
    return ",".join(str(i["num_threads"]) for i in threadpool_info() if i["user_api"] == "blas") or "unknown"


def source_state():
    """The commit of the checkout this transpyle comes from, with the number of files under transpyle/
    that differ from it (others' edits change what a run measures), or None outside git."""
    import subprocess
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True,
                              text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "transpyle"], cwd=root, capture_output=True,
                               text=True, timeout=10).stdout.splitlines()
    except (OSError, subprocess.SubprocessError):
        return None
    return f"{head}{f' + {len(dirty)} changed files under transpyle/' if dirty else ''}" if head else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="comma-separated kernel names")
    parser.add_argument("--plot", metavar="PNG", help="draw both ratios per kernel (needs matplotlib)")
    parser.add_argument("--json", metavar="PATH", help="write the rows and the summary as JSON")
    parser.add_argument("--warm-cache", action="store_true",
                        help="use the usual TRANSPYLE_CACHE_DIR instead of an empty temporary one")
    parser.add_argument("--blas-threads", type=int, default=0, metavar="N",
                        help="NumPy's and SciPy's BLAS (the one Numba calls) run on N threads (threadpoolctl); "
                             "0 (the default) leaves them as they are")
    opts = parser.parse_args()
    kernels = KERNELS
    if opts.only:
        wanted = [n.strip() for n in opts.only.split(",") if n.strip()]
        unknown = sorted(set(wanted) - {k.name for k in KERNELS})
        if unknown:
            parser.error(f"unknown kernels {', '.join(unknown)}; known: {', '.join(k.name for k in KERNELS)}")
        kernels = [k for k in KERNELS if k.name in wanted]

    cache = None
    if not opts.warm_cache:             # before transpyle is imported
        cache = tempfile.TemporaryDirectory(prefix="transpyle-kernels-")
        os.environ["TRANSPYLE_CACHE_DIR"] = cache.name
    os.environ.setdefault("TRANSPYLE_COMPILE_WARN", "3600")   # the compile column reports long compiles
    os.environ.setdefault("TRANSPYLE_COMPILE_NOTICE", "0")
    import numba
    import transpyle

    started = time.perf_counter()
    if opts.blas_threads:
        try:
            import scipy.linalg  # noqa: F401  (loads SciPy's BLAS, which Numba's compiled code calls)
            from threadpoolctl import threadpool_limits
            blas_limit = threadpool_limits(opts.blas_threads, user_api="blas")  # noqa: F841  (kept for the run)
        except ImportError as exc:
            print(f"(BLAS threads left as they are: {exc})")
    jx = optional_jax(jax_setup)
    jax_fns, jax_info = jx if jx else (None, None)
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, numba {numba.__version__}, "
          f"jax {jax_info['version'] if jax_info else 'absent'}, {os.cpu_count()} cores, "
          f"BLAS threads {blas_threads()}, load average {os.getloadavg()[0]:.1f}; tiers off, "
          f"{'warm' if opts.warm_cache else 'empty'} transpyle cache; best of 7; "
          f"transpyle at {source_state() or 'unknown'}\n", flush=True)

    def _warm(x):
        return np.sum(x * x)
    transpyle.grad(_warm)(np.ones(3))      # Numba initialised: not counted in the compile column
    transpyle.jit(_warm)(np.ones(3))

    header = " | ".join(name.ljust(w) if i < 2 else name.rjust(w) for i, (name, w) in enumerate(COLUMNS))
    print(header)
    print("-" * len(header), flush=True)
    rows = []
    for kernel in kernels:
        row = measure(kernel, jax_fns, jax_info)
        rows.append(row)
        print(format_row(row, jax_fns is not None), flush=True)
    elapsed = time.perf_counter() - started
    lines, means = summary(rows)
    print()
    for line in lines:
        print(line)
    print(f"jax/tp = JAX time / transpyle time; grad/primal = transpyle gradient / compiled primal; "
          f"times exclude compilation. Whole run: {elapsed:.0f} s")
    if opts.json:
        with open(opts.json, "w") as fh:
            json.dump({"numpy": np.__version__, "numba": numba.__version__,
                       "jax": jax_info["version"] if jax_info else None, "cores": os.cpu_count(),
                       "blas_threads": blas_threads(), "load_average_at_end": os.getloadavg()[0],
                       "transpyle_source": source_state(), "warm_cache": opts.warm_cache, "seconds": elapsed,
                       "rows": rows, **means}, fh, indent=1)
        print(f"rows written to {opts.json}")
    if opts.plot:
        plot(rows, opts.plot)
    if cache is not None:
        cache.cleanup()


if __name__ == "__main__":
    main()
