"""Complex numbers: holomorphic derivatives (``holomorphic=True``) against analytic derivatives, and
real-valued functions of complex arguments against finite differences under JAX's convention
(the gradient is df/dx - i df/dy). A complex output without the flag is a clear error.
"""
import cmath
import math

import numpy as np
import pytest

import transpyle
from gradcheck import ALL_BACKENDS


def complex_normal(rng, shape=()):
    return rng.normal(size=shape) + 1j * rng.normal(size=shape)


def cube_exp_sin(z):
    return np.sum(z ** 3 + np.exp(z) * np.sin(z))


def scalar_holomorphic(z):
    w = z
    for k in range(3):
        w = w * cmath.exp(0.1 * z) + cmath.sin(w) * 0.5
    return w


def elementwise(z):
    return np.sin(z) * z + np.exp(0.5 * z)


def real_of_complex(z):
    s = 0.0
    for i in range(z.shape[0]):
        s += abs(z[i]) ** 2 + np.real(z[i] * z[i]) * 0.5 - np.imag(np.conj(z[i]) * 1.5j)
    return s


def wirtinger_fd(f, z, h=1e-6):
    """df/dx - i df/dy for real f of complex array z, by central differences."""
    out = np.zeros(z.shape, dtype=complex)
    for idx in np.ndindex(z.shape):
        step = np.zeros(z.shape, dtype=complex)
        step[idx] = h
        dx = (f(z + step) - f(z - step)) / (2 * h)
        dy = (f(z + 1j * step) - f(z - 1j * step)) / (2 * h)
        out[idx] = dx - 1j * dy
    return out


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_holomorphic_grad_of_an_array_sum(backend, rng):
    z = complex_normal(rng, 4)
    got = transpyle.grad(cube_exp_sin, holomorphic=True, backend=backend)(z)
    np.testing.assert_allclose(got, 3 * z ** 2 + np.exp(z) * (np.sin(z) + np.cos(z)), rtol=1e-12)


def test_holomorphic_grad_of_a_scalar_loop(rng):
    z = complex(*rng.normal(size=2) * 0.5)
    got = transpyle.grad(scalar_holomorphic, holomorphic=True, backend="numpy")(z)
    h = 1e-6
    fd = (scalar_holomorphic(z + h) - scalar_holomorphic(z - h)) / (2 * h)
    assert abs(got - fd) <= 1e-7 * max(1.0, abs(fd))
    fd_imag = (scalar_holomorphic(z + 1j * h) - scalar_holomorphic(z - 1j * h)) / (2j * h)
    assert abs(got - fd_imag) <= 1e-7 * max(1.0, abs(fd))       # Cauchy-Riemann: the same derivative


@pytest.mark.parametrize("backend", ALL_BACKENDS)
@pytest.mark.parametrize("transform", [transpyle.jacfwd, transpyle.jacrev])
def test_holomorphic_jacobians(transform, backend, rng):
    z = complex_normal(rng, 3)
    jac = transform(elementwise, holomorphic=True, backend=backend)(z)
    np.testing.assert_allclose(jac, np.diag(np.cos(z) * z + np.sin(z) + 0.5 * np.exp(0.5 * z)), rtol=1e-12,
                               atol=1e-14)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_real_function_of_complex_arguments(backend, rng):
    z = complex_normal(rng, 4)
    got = transpyle.grad(real_of_complex, backend=backend)(z)
    np.testing.assert_allclose(got, wirtinger_fd(real_of_complex, z), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(transpyle.jacrev(real_of_complex, backend="numpy")(z), got, rtol=1e-12)


def test_jvp_of_complex_functions(rng):
    z, t = complex_normal(rng, 3), complex_normal(rng, 3)
    _, tangent = transpyle.jvp(elementwise, (z,), (t,), backend="numpy")
    np.testing.assert_allclose(tangent, (np.cos(z) * z + np.sin(z) + 0.5 * np.exp(0.5 * z)) * t, rtol=1e-12)
    _, tangent = transpyle.jvp(real_of_complex, (z,), (t,), backend="numpy")
    h = 1e-6
    fd = (real_of_complex(z + h * t) - real_of_complex(z - h * t)) / (2 * h)
    assert tangent == pytest.approx(fd, rel=1e-6)


def test_complex_output_needs_the_flag():
    with pytest.raises(transpyle.TranspileError, match="holomorphic=True"):
        transpyle.grad(cube_exp_sin, backend="numpy")(np.ones(2) + 0j)
    with pytest.raises(transpyle.TranspileError, match="holomorphic=True"):
        transpyle.jacrev(elementwise, backend="numpy")(np.ones(2) + 0j)


def test_holomorphic_needs_complex_arguments():
    with pytest.raises(transpyle.TranspileError, match="complex"):
        transpyle.grad(lambda x: x * x, holomorphic=True, backend="numpy")(1.5)


def test_ordering_complex_numbers_is_an_error():
    def f(z):
        if z > 0.0:
            return z * z
        return z
    with pytest.raises(transpyle.TranspileError, match="ordered"):
        transpyle.grad(f, holomorphic=True, backend="numpy")(1.0 + 1j)


def test_math_abs_of_real_still_follows_the_sign():
    assert transpyle.grad(lambda x: abs(x) * 2.0, backend="numpy")(-1.5) == -2.0
    assert transpyle.grad(lambda x: math.fabs(x), backend="numpy")(0.0) == 1.0


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_abs_of_complex_zero_has_zero_derivative(backend):
    def f(z):
        return np.sum(np.abs(z))
    z = np.array([0.0 + 0.0j, 3.0 + 4.0j])
    np.testing.assert_allclose(transpyle.grad(f, backend=backend)(z), [0.0, 0.6 - 0.8j])
    _, t = transpyle.jvp(f, (z,), (np.array([1.0 + 1.0j, 1.0 + 0.0j]),), backend=backend)
    assert t == pytest.approx(0.6)
