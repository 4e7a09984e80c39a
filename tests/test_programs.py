"""Whole programs as numerical users write them, differentiated on both backends: RK4 integrators,
an iterative solver stopped by a tolerance, a heat-equation stencil with in-place writes, and
logistic-regression losses (vectorised and loop forms).
"""
import math

import numpy as np
import pytest

import transpyle
from gradcheck import ALL_BACKENDS, check_grad, uniform


# ---- RK4 on a Lotka-Volterra system, scalar state, helper returning a tuple ------------------------------
def _lotka_volterra(u, v, p):
    return p[0] * u - p[1] * u * v, p[2] * u * v - p[3] * v


def rk4_lotka_volterra(p, y0, dt, steps):
    u = y0[0]
    v = y0[1]
    for n in range(steps):
        k1u, k1v = _lotka_volterra(u, v, p)
        k2u, k2v = _lotka_volterra(u + 0.5 * dt * k1u, v + 0.5 * dt * k1v, p)
        k3u, k3v = _lotka_volterra(u + 0.5 * dt * k2u, v + 0.5 * dt * k2v, p)
        k4u, k4v = _lotka_volterra(u + dt * k3u, v + dt * k3v, p)
        u = u + dt / 6.0 * (k1u + 2.0 * k2u + 2.0 * k3u + k4u)
        v = v + dt / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v)
    return (u - 1.0) ** 2 + v * v


# ---- RK4 on a vector state ---------------------------------------------------------------------------------
def _coupled_decay(y, k):
    return -k * y + 0.3 * np.sin(y[::-1])


def rk4_vector(y0, k, dt):
    y = y0.copy()
    for n in range(40):
        k1 = _coupled_decay(y, k)
        k2 = _coupled_decay(y + 0.5 * dt * k1, k)
        k3 = _coupled_decay(y + 0.5 * dt * k2, k)
        k4 = _coupled_decay(y + dt * k3, k)
        y = y + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return np.sum(y * y)


# ---- Jacobi iteration until the residual is below a tolerance ----------------------------------------------
def jacobi_solve(a, b, c, tol):
    n = b.shape[0]
    diag = np.zeros(n)
    for i in range(n):
        diag[i] = a[i, i]
    x = np.zeros(n)
    r = b - a @ x
    k = 0
    while np.sqrt(np.sum(r * r)) > tol and k < 500:
        x = x + r / diag
        r = b - a @ x
        k += 1
    return np.sum(c * x)


def _diagonally_dominant(rng, n):
    """Off-diagonal rows sum to at most 0.9 against a diagonal of at least 2: Jacobi contracts by 0.45."""
    a = rng.uniform(-0.3, 0.3, (n, n))
    np.fill_diagonal(a, rng.uniform(2.0, 3.0, n))
    return a


# ---- explicit 2D heat equation with in-place writes --------------------------------------------------------
def heat_2d(u0, kappa, source):
    u = u0.copy()
    n, m = u.shape
    for step in range(8):
        old = u.copy()
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                lap = old[i - 1, j] + old[i + 1, j] + old[i, j - 1] + old[i, j + 1] - 4.0 * old[i, j]
                u[i, j] = old[i, j] + kappa * lap + 0.05 * source[i, j] * old[i, j]
    return np.sum(u[1:-1, 1:-1] ** 2)


# ---- logistic regression ---------------------------------------------------------------------------------
def logistic_loss(w, b, x, y, lam):
    z = x @ w + b
    loss = np.mean(np.log1p(np.exp(-y * z)))
    return loss + lam * np.sum(w * w)


def logistic_loss_loop(w, x, y):
    r = 0.0
    for i in range(x.shape[0]):
        p = 1.0 / (1.0 + math.exp(-np.dot(x[i], w)))
        r -= y[i] * math.log(p) + (1.0 - y[i]) * math.log(1.0 - p)
    return r / x.shape[0]


# ---- tests ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_rk4_lotka_volterra(backend, rng):
    p = np.array([1.0, 0.5, 0.5, 1.0]) * uniform(rng, (4,), 0.8, 1.2)
    y0 = uniform(rng, (2,), 0.5, 1.5)
    dt = uniform(rng, (), 0.01, 0.03)
    check_grad(rk4_lotka_volterra, (p, y0, dt, 50), (0, 1, 2), backend=backend)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_rk4_vector(backend, rng):
    y0 = rng.standard_normal(5)
    k = uniform(rng, (5,), 0.5, 1.5)
    check_grad(rk4_vector, (y0, k, 0.05), (0, 1), backend=backend)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_jacobi_solver(backend, rng):
    a = _diagonally_dominant(rng, 4)
    b, c = rng.standard_normal(4), rng.standard_normal(4)
    ga, gb = check_grad(jacobi_solve, (a, b, c, 1e-11), (0, 1), backend=backend)
    # the solver converged, so its derivative is that of the exact solution x = A^-1 b
    lam = np.linalg.solve(a.T, c)
    np.testing.assert_allclose(gb, lam, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(ga, -np.outer(lam, np.linalg.solve(a, b)), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_heat_2d(backend, rng):
    u0 = rng.standard_normal((6, 6))
    source = rng.standard_normal((6, 6))
    kappa = uniform(rng, (), 0.05, 0.2)
    check_grad(heat_2d, (u0, kappa, source), (0, 1, 2), backend=backend)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_logistic_regression(backend, rng):
    x = rng.standard_normal((20, 3))
    y = rng.choice([-1.0, 1.0], 20)
    w, b = rng.standard_normal(3), float(rng.standard_normal())
    check_grad(logistic_loss, (w, b, x, y, 0.1), (0, 1), backend=backend)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_logistic_regression_loop(backend, rng):
    x = rng.standard_normal((20, 3))
    y = rng.integers(0, 2, 20).astype(float)
    w = rng.standard_normal(3)
    g = check_grad(logistic_loss_loop, (w, x, y), 0, backend=backend)
    p = 1.0 / (1.0 + np.exp(-x @ w))
    np.testing.assert_allclose(g, x.T @ (p - y) / 20, rtol=1e-10, atol=1e-12)


@pytest.mark.numba
def test_backends_agree(rng):
    """Both backends run the same generated code: they agree to rounding."""
    u0, source = rng.standard_normal((6, 6)), rng.standard_normal((6, 6))
    by_numpy = transpyle.grad(heat_2d, argnums=(0, 1), backend="numpy")(u0, 0.1, source)
    by_numba = transpyle.grad(heat_2d, argnums=(0, 1), backend="numba")(u0, 0.1, source)
    np.testing.assert_allclose(by_numba[0], by_numpy[0], rtol=1e-12, atol=1e-14)
    assert by_numba[1] == pytest.approx(by_numpy[1], rel=1e-12)



# ---- float32 inputs keep float32 gradients ----------------------------------------------------------------
def float32_loop(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        s += math.sin(x[i]) * w[i] ** 2
    return s + np.sum(x * x)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_float32_arguments(backend, rng):
    x = rng.normal(size=6).astype(np.float32)
    w = rng.normal(size=6).astype(np.float32)
    gx, gw = transpyle.grad(float32_loop, argnums=(0, 1), backend=backend)(x, w)
    assert gx.dtype == np.float32 and gw.dtype == np.float32
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    np.testing.assert_allclose(gx, np.cos(x64) * w64 ** 2 + 2.0 * x64, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gw, 2.0 * np.sin(x64) * w64, rtol=1e-5, atol=1e-6)
