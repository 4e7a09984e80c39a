"""Transforms in every order: each emits code that is again valid input to every transform."""
import math

import numpy as np
import pytest

import transpyle


def weighted_exp(x, c):
    s = 0.0
    for i in range(x.shape[0]):
        s += math.exp(c * x[i]) * x[i]
    return s


def directional(x, c):
    return transpyle.jvp(weighted_exp, (x, c), (np.ones(x.shape[0]), 0.0))[1]


def test_vmap_of_hessian(rng):
    x = rng.normal(size=(4, 3))
    got = transpyle.vmap(transpyle.hessian(weighted_exp), in_axes=(0, None), backend="numpy")(x, 0.3)
    want = np.stack([transpyle.hessian(weighted_exp, backend="numpy")(row, 0.3) for row in x])
    np.testing.assert_allclose(got, want, rtol=1e-13)


def test_grad_of_jit_and_jit_of_grad(rng):
    x = rng.normal(size=3)
    want = transpyle.grad(weighted_exp, backend="numpy")(x, 0.3)
    np.testing.assert_allclose(transpyle.grad(transpyle.jit(weighted_exp), backend="numpy")(x, 0.3), want)
    np.testing.assert_allclose(transpyle.jit(transpyle.grad(weighted_exp), backend="numpy")(x, 0.3), want)


def test_jacfwd_and_jvp_of_vmap(rng):
    x, c, h = rng.normal(size=(5, 3)), 0.3, 1e-6
    fd = np.array([(weighted_exp(row, c + h) - weighted_exp(row, c - h)) / (2 * h) for row in x])
    batched = transpyle.vmap(weighted_exp, in_axes=(0, None), backend="numpy")
    np.testing.assert_allclose(transpyle.jacfwd(batched, argnums=1, backend="numpy")(x, c), fd, rtol=1e-6, atol=1e-8)
    _, tangent = transpyle.jvp(batched, (x, c), (np.zeros_like(x), 1.0), backend="numpy")
    np.testing.assert_allclose(tangent, fd, rtol=1e-6, atol=1e-8)


def test_vmap_of_a_function_calling_jvp(rng):
    x, c = rng.normal(size=(5, 3)), 0.3
    got = transpyle.vmap(directional, in_axes=(0, None), backend="numpy")(x, c)
    np.testing.assert_allclose(got, np.sum(np.exp(c * x) * (1 + c * x), axis=1), rtol=1e-12)


# ---- composition gaps: complex Python scalars in jvp, grad of a function calling grad ----------------
def complex_square(z):
    return z * z + 1.0


def test_jvp_takes_complex_python_scalars():
    z, dz = 1.0 + 2.0j, 0.5 - 1.0j
    out, tangent = transpyle.jvp(complex_square, (z,), (dz,), backend="numpy")
    assert out == z * z + 1.0 and tangent == 2.0 * z * dz


def test_a_complex_tangent_of_a_real_argument_is_refused():
    with pytest.raises(transpyle.TranspileError, match="tangent of argument 0 is complex"):
        transpyle.jvp(complex_square, (1.5,), (1.0j,), backend="numpy")


def _broadcast_sum(a, b):
    return np.sum(a + b * 2.0)          # b is broadcast: its gradient is un-broadcast


def gradient_times_input(a, b):
    return transpyle.grad(_broadcast_sum, argnums=1)(a, b) * b * np.sum(a * a)


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=pytest.mark.numba)])
def test_grad_of_a_function_calling_grad_through_unbroadcast(backend, rng):
    a = rng.normal(size=(2, 3))
    b = float(rng.normal())
    ga, gb = transpyle.grad(gradient_times_input, argnums=(0, 1), backend=backend)(a, b)
    np.testing.assert_allclose(gb, 12.0 * np.sum(a * a), rtol=1e-12)     # f = 12 b sum(a^2): 6 elements, 2 each
    np.testing.assert_allclose(ga, 24.0 * b * a, rtol=1e-12)
