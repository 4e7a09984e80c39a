"""The kernels of kernels.py written for jax.numpy: its JAX columns time ``jax.jit(jax.grad(f))`` of these.

Each function has the signature and computes the loss of the NumPy kernel of the same name, ported as a
JAX user ports it: in-place writes become ``x.at[...].set/add`` (a new array), time loops with the same
shapes every step become ``lax.fori_loop`` (``scan`` for recurrences). Loops whose slices change length
from one step to the next (the triangular loops of covariance, correlation, syrk, syr2k, trmm) are
fori_loops too, over whole rows or columns with the slice as a mask (``jnp.where``): unrolled in Python
they took 30-50 s each to compile. An innermost loop over scalars is written as the vector operation it
accumulates (syrk's and syr2k's loop over k, trmm's over j); doitgen's loops over the slabs, a batch of
vector-matrix products, are one batched product. Integer arguments (step counts) are static.
``programs()`` enables float64 first.
"""
import jax
import jax.numpy as jnp
from jax import lax


# ==== stencils ========================================================================================
def diffusion_1d(u0, k, steps):
    def step(t, u):
        return u.at[1:-1].add(k * (u[:-2] - 2.0 * u[1:-1] + u[2:]))
    u = lax.fori_loop(0, steps, step, u0)
    return jnp.sum(u * u)


def jacobi_1d(a0, steps):
    def step(t, ab):
        a, b = ab
        b = b.at[1:-1].set(0.33333 * (a[:-2] + a[1:-1] + a[2:]))
        a = a.at[1:-1].set(0.33333 * (b[:-2] + b[1:-1] + b[2:]))
        return a, b
    a, b = lax.fori_loop(0, steps, step, (a0, a0))
    return jnp.sum(a * a) + jnp.sum(jnp.sin(b))


def jacobi_2d(a0, steps):
    def average(a):
        return 0.2 * (a[1:-1, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:] + a[2:, 1:-1] + a[:-2, 1:-1])

    def step(t, ab):
        a, b = ab
        b = b.at[1:-1, 1:-1].set(average(a))
        a = a.at[1:-1, 1:-1].set(average(b))
        return a, b
    a, b = lax.fori_loop(0, steps, step, (a0, a0))
    return jnp.sum(a * a)


def heat_3d(a0, steps):
    def heat(a):
        return (0.125 * (a[2:, 1:-1, 1:-1] - 2.0 * a[1:-1, 1:-1, 1:-1] + a[:-2, 1:-1, 1:-1])
                + 0.125 * (a[1:-1, 2:, 1:-1] - 2.0 * a[1:-1, 1:-1, 1:-1] + a[1:-1, :-2, 1:-1])
                + 0.125 * (a[1:-1, 1:-1, 2:] - 2.0 * a[1:-1, 1:-1, 1:-1] + a[1:-1, 1:-1, :-2])
                + a[1:-1, 1:-1, 1:-1])

    def step(t, ab):
        a, b = ab
        b = b.at[1:-1, 1:-1, 1:-1].set(heat(a))
        a = a.at[1:-1, 1:-1, 1:-1].set(heat(b))
        return a, b
    a, b = lax.fori_loop(0, steps, step, (a0, a0))
    return jnp.sum(a * a)


def fdtd_2d(ex0, ey0, hz0, fict):
    def step(t, fields):
        ex, ey, hz = fields
        ey = ey.at[0, :].set(fict[t])
        ey = ey.at[1:, :].add(-0.5 * (hz[1:, :] - hz[:-1, :]))
        ex = ex.at[:, 1:].add(-0.5 * (hz[:, 1:] - hz[:, :-1]))
        hz = hz.at[:-1, :-1].add(-0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1]))
        return ex, ey, hz
    ex, ey, hz = lax.fori_loop(0, fict.shape[0], step, (ex0, ey0, hz0))
    return jnp.sum(hz * hz) + jnp.sum(ex * ey)


# Gauss-Seidel: rows in order (fori_loop); along a row, the sum of the neighbours not yet updated in
# this row is a vector, and the left neighbour's new value makes a scalar recurrence (scan)
def seidel_2d(a0, steps):
    n = a0.shape[0]

    def row(i, a):
        up, cur, down = a[i - 1], a[i], a[i + 1]
        rest = up[:-2] + up[1:-1] + up[2:] + cur[1:-1] + cur[2:] + down[:-2] + down[1:-1] + down[2:]

        def point(left, s):
            new = (s + left) / 9.0
            return new, new
        _, new = lax.scan(point, cur[0], rest)
        return a.at[i, 1:-1].set(new)

    a = lax.fori_loop(0, steps, lambda t, a: lax.fori_loop(1, n - 1, row, a), a0)
    return jnp.sum(a * a)


def _thomas(rhs, lo, mid, hi):
    """The interior rows j = 1..n-2 of polybench ADI's sweep: forward elimination p, q (p_0 = 0,
    q_0 = 1) and back substitution from x_{n-1} = 1, for every line (column of rhs) at once."""
    def forward(carry, r):
        p, q = carry
        den = lo * p + mid
        p, q = -hi / den, (r - lo * q) / den
        return (p, q), (p, q)

    ones = jnp.ones(rhs.shape[1])
    _, (ps, qs) = lax.scan(forward, (jnp.zeros_like(ones), ones), rhs)

    def backward(x, pq):
        x = pq[0] * x + pq[1]
        return x, x
    _, xs = lax.scan(backward, ones, (ps, qs), reverse=True)
    return xs


def adi(u0, steps):
    n = u0.shape[0]
    dx, dt = 1.0 / n, 1.0 / steps
    mul1 = 2.0 * dt / (dx * dx)
    mul2 = 1.0 * dt / (dx * dx)
    a, b, c = -mul1 / 2.0, 1.0 + mul1, -mul1 / 2.0
    d, e, f = -mul2 / 2.0, 1.0 + mul2, -mul2 / 2.0

    def step(t, u):
        # columns: v[j, i] for the lines i, rhs indexed [j - 1, i - 1]
        rhs = -d * u[1:-1, :-2] + (1.0 + 2.0 * d) * u[1:-1, 1:-1] - f * u[1:-1, 2:]
        v = jnp.zeros((n, n)).at[0, 1:-1].set(1.0).at[-1, 1:-1].set(1.0)
        v = v.at[1:-1, 1:-1].set(_thomas(rhs, a, b, c))
        # rows: u[i, j] for the lines i, rhs indexed [j - 1, i - 1]
        rhs = (-a * v[:-2, 1:-1] + (1.0 + 2.0 * a) * v[1:-1, 1:-1] - c * v[2:, 1:-1]).T
        u = u.at[1:-1, 1:-1].set(_thomas(rhs, d, e, f).T)
        return u.at[1:-1, 0].set(1.0).at[1:-1, -1].set(1.0)

    u = lax.fori_loop(0, steps, step, u0)
    return jnp.sum(u * u)


def hdiff(field, coeff):
    ni, nj = field.shape[0] - 4, field.shape[1] - 4
    lap = 4.0 * field[1:ni + 3, 1:nj + 3, :] - (field[2:ni + 4, 1:nj + 3, :] + field[0:ni + 2, 1:nj + 3, :] +
                                                 field[1:ni + 3, 2:nj + 4, :] + field[1:ni + 3, 0:nj + 2, :])
    res = lap[1:, 1:nj + 1, :] - lap[:-1, 1:nj + 1, :]
    flx = jnp.where(res * (field[2:ni + 3, 2:nj + 2, :] - field[1:ni + 2, 2:nj + 2, :]) > 0, 0, res)
    res = lap[1:ni + 1, 1:, :] - lap[1:ni + 1, :-1, :]
    fly = jnp.where(res * (field[2:ni + 2, 2:nj + 3, :] - field[2:ni + 2, 1:nj + 2, :]) > 0, 0, res)
    out = field[2:ni + 2, 2:nj + 2, :] - coeff * (flx[1:] - flx[:-1] + fly[:, 1:] - fly[:, :-1])
    return jnp.sum(out * out)


# ==== statistics ======================================================================================
def covariance(data):
    n, m = data.shape
    d = data - jnp.mean(data, axis=0)
    idx = jnp.arange(m)

    def column(i, cov):
        tail = idx >= i                               # the slice i:m, as a mask
        col = d[:, i] @ d / (n - 1.0)
        cov = cov.at[:, i].set(jnp.where(tail, col, cov[:, i]))
        return cov.at[i, :].set(jnp.where(tail, col, cov[i, :]))
    cov = lax.fori_loop(0, m, column, jnp.zeros((m, m)))
    return jnp.sum(cov * cov)


def correlation(data, w):
    n, m = data.shape
    mean = jnp.mean(data, axis=0)
    stddev = jnp.std(data, axis=0)
    stddev = jnp.where(stddev <= 0.1, 1.0, stddev)
    d = (data - mean) / (jnp.sqrt(n) * stddev)
    idx = jnp.arange(m)

    def column(i, corr):
        tail = idx > i                                # the slice i + 1:m
        col = d[:, i] @ d
        corr = corr.at[:, i].set(jnp.where(tail, col, corr[:, i]))
        return corr.at[i, :].set(jnp.where(tail, col, corr[i, :]))
    corr = lax.fori_loop(0, m - 1, column, jnp.eye(m))
    return jnp.sum(corr * w)


# ==== dense linear algebra ============================================================================
def gemm(a, b, c, alpha, beta):
    c = beta * c + alpha * a @ b
    return jnp.sum(c * c)


def gemver(a, u1, v1, u2, v2, y, z, alpha, beta):
    a = a + jnp.outer(u1, v1) + jnp.outer(u2, v2)
    x = beta * (y @ a) + z
    w = alpha * (a @ x)
    return jnp.sum(w * w) + jnp.sum(x)


def atax(a, x):
    y = (a @ x) @ a
    return jnp.sum(y * y)


def bicg(a, p, r):
    q = a @ p
    s = r @ a
    return jnp.sum(q * q) + jnp.sum(s * s)


def mvt(a, x1, x2, y1, y2):
    return jnp.sum((x1 + a @ y1) * (x2 + y2 @ a))


def gesummv(a, b, x, alpha, beta):
    return jnp.sum(jnp.tanh(alpha * a @ x + beta * b @ x))


def syrk(a, c, alpha, beta):
    idx = jnp.arange(a.shape[0])

    def row(i, c):
        new = beta * c[i] + alpha * (a @ a[i])
        return c.at[i].set(jnp.where(idx <= i, new, c[i]))      # the slice :i + 1, as a mask
    c = lax.fori_loop(0, a.shape[0], row, c)
    return jnp.sum(jnp.tril(c) ** 2)


def syr2k(a, b, c, alpha, beta):
    idx = jnp.arange(a.shape[0])

    def row(i, c):
        new = beta * c[i] + alpha * (a @ b[i]) + alpha * (b @ a[i])
        return c.at[i].set(jnp.where(idx <= i, new, c[i]))
    c = lax.fori_loop(0, a.shape[0], row, c)
    return jnp.sum(jnp.tril(c) ** 2)


def trmm(a, b, alpha):
    idx = jnp.arange(b.shape[0])

    def row(i, b):
        below = jnp.where(idx > i, a[:, i], 0.0)                # a[i + 1:, i], zero above
        return b.at[i].add(below @ b)
    b = alpha * lax.fori_loop(0, b.shape[0], row, b)
    return jnp.sum(b * b)


def doitgen(a, c4):
    a = a @ c4
    return jnp.sum(a * a)


doitgen_stack = doitgen


# ==== networks ========================================================================================
def softmax(x, w):
    e = jnp.exp(x - jnp.max(x, axis=-1, keepdims=True))
    return jnp.sum(e / jnp.sum(e, axis=-1, keepdims=True) * w)


def mlp(w1, b1, w2, b2, x, y):
    h = jnp.tanh(x @ w1 + b1)
    return jnp.mean((h @ w2 + b2 - y) ** 2)


def conv2d(w, x):
    cout, cin, k = w.shape[0], w.shape[1], w.shape[2]
    h, wd = x.shape[1] - k + 1, x.shape[2] - k + 1
    out = jnp.zeros((cout, h, wd))
    for di in range(k):
        for dj in range(k):
            for c in range(cin):
                out = out + w[:, c, di, dj][:, None, None] * x[c, di:di + h, dj:dj + wd]
    return jnp.sum(jnp.tanh(out))


def conv2d_pixels(x, w, bias):
    out = jax.lax.conv_general_dilated(x, w, (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC")) + bias
    return jnp.sum(out * out)


# ==== physics =========================================================================================
def cavity_flow(u0, v0, p0, nt, nit):
    ny, nx = u0.shape
    dx, dy, dt, rho, nu = 2.0 / (nx - 1), 2.0 / (ny - 1), 0.001, 1.0, 0.1

    def source(u, v):
        return jnp.zeros((ny, nx)).at[1:-1, 1:-1].set(
            rho * (1.0 / dt * ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2.0 * dx) + (v[2:, 1:-1] - v[0:-2, 1:-1]) / (2.0 * dy))
                   - ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2.0 * dx)) ** 2
                   - 2.0 * ((u[2:, 1:-1] - u[0:-2, 1:-1]) / (2.0 * dy) * (v[1:-1, 2:] - v[1:-1, 0:-2]) / (2.0 * dx))
                   - ((v[2:, 1:-1] - v[0:-2, 1:-1]) / (2.0 * dy)) ** 2))

    def poisson(b, pn):
        p = pn.at[1:-1, 1:-1].set(
            ((pn[1:-1, 2:] + pn[1:-1, 0:-2]) * dy ** 2 + (pn[2:, 1:-1] + pn[0:-2, 1:-1]) * dx ** 2)
            / (2.0 * (dx ** 2 + dy ** 2))
            - dx ** 2 * dy ** 2 / (2.0 * (dx ** 2 + dy ** 2)) * b[1:-1, 1:-1])
        p = p.at[:, -1].set(p[:, -2])
        p = p.at[0, :].set(p[1, :])
        p = p.at[:, 0].set(p[:, 1])
        return p.at[-1, :].set(0.0)

    def step(n, state):
        un, vn, p = state
        b = source(un, vn)
        p = lax.fori_loop(0, nit, lambda q, p: poisson(b, p), p)
        u = un.at[1:-1, 1:-1].set(
            un[1:-1, 1:-1] - un[1:-1, 1:-1] * dt / dx * (un[1:-1, 1:-1] - un[1:-1, 0:-2])
            - vn[1:-1, 1:-1] * dt / dy * (un[1:-1, 1:-1] - un[0:-2, 1:-1])
            - dt / (2.0 * rho * dx) * (p[1:-1, 2:] - p[1:-1, 0:-2])
            + nu * (dt / dx ** 2 * (un[1:-1, 2:] - 2.0 * un[1:-1, 1:-1] + un[1:-1, 0:-2])
                    + dt / dy ** 2 * (un[2:, 1:-1] - 2.0 * un[1:-1, 1:-1] + un[0:-2, 1:-1])))
        v = vn.at[1:-1, 1:-1].set(
            vn[1:-1, 1:-1] - un[1:-1, 1:-1] * dt / dx * (vn[1:-1, 1:-1] - vn[1:-1, 0:-2])
            - vn[1:-1, 1:-1] * dt / dy * (vn[1:-1, 1:-1] - vn[0:-2, 1:-1])
            - dt / (2.0 * rho * dy) * (p[2:, 1:-1] - p[0:-2, 1:-1])
            + nu * (dt / dx ** 2 * (vn[1:-1, 2:] - 2.0 * vn[1:-1, 1:-1] + vn[1:-1, 0:-2])
                    + dt / dy ** 2 * (vn[2:, 1:-1] - 2.0 * vn[1:-1, 1:-1] + vn[0:-2, 1:-1])))
        u = u.at[0, :].set(0.0).at[:, 0].set(0.0).at[:, -1].set(0.0).at[-1, :].set(1.0)
        v = v.at[0, :].set(0.0).at[-1, :].set(0.0).at[:, 0].set(0.0).at[:, -1].set(0.0)
        return u, v, p

    u, v, p = lax.fori_loop(0, nt, step, (u0, v0, p0))
    return jnp.sum(u * u) + jnp.sum(v * p)


def _accelerations(pos, mass, soft):
    d = pos[None, :, :] - pos[:, None, :]
    inv3 = (jnp.sum(d * d, axis=2) + soft * soft) ** -1.5
    return jnp.sum(d * (inv3 * mass)[:, :, None], axis=1)


def nbody(pos0, vel0, mass, steps, dt):
    def step(s, state):
        pos, vel, acc = state
        vel = vel + 0.5 * dt * acc
        pos = pos + dt * vel
        acc = _accelerations(pos, mass, 0.1)
        return pos, vel + 0.5 * dt * acc, acc

    pos, vel, _ = lax.fori_loop(0, steps, step, (pos0, vel0, _accelerations(pos0, mass, 0.1)))
    return 0.5 * jnp.sum(mass[:, None] * vel * vel) + 0.01 * jnp.sum(pos * pos)


NAMES = ("diffusion_1d", "jacobi_1d", "jacobi_2d", "heat_3d", "fdtd_2d", "seidel_2d", "adi", "hdiff", "covariance",
         "correlation", "gemm", "gemver", "atax", "bicg", "mvt", "gesummv", "syrk", "syr2k", "trmm", "doitgen",
         "doitgen_stack", "softmax", "mlp", "conv2d", "conv2d_pixels", "cavity_flow", "nbody")


def programs():
    """name -> JAX version of the kernel, with float64 enabled and JAX on the CPU."""
    jax.config.update("jax_enable_x64", True)
    jax.config.update("jax_platforms", "cpu")
    return {name: globals()[name] for name in NAMES}
