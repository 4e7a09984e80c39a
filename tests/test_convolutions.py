"""np.convolve and np.correlate (rules/convolutions.py): values as NumPy's in every mode and for every
order of lengths, gradients and tangents against finite differences in both operands, Hessians (the
cotangent rule's own rules) against differences of gradients, and vmap, on both backends."""
import functools

import numpy as np
import pytest

import transpyle

from gradcheck import ALL_BACKENDS, check_jvp

MODES = ["full", "same", "valid"]
LENGTHS = [(7, 3), (3, 7), (5, 5), (1, 4)]


def convolved(x, k, mode):
    y = np.convolve(x, k, mode=mode)
    return np.sum(np.sin(y) * np.arange(1.0, 1.0 + y.shape[0]))


def correlated(x, k, mode):
    return np.sum(np.correlate(x, k, mode) ** 2)


def smoothing(x, k):
    y = np.convolve(x, k, mode="same")
    return np.sum(y ** 2) + np.sum(np.convolve(k, x, "valid") * x[0])


@pytest.mark.parametrize("backend", ALL_BACKENDS)
@pytest.mark.parametrize("f", [convolved, correlated])
@pytest.mark.parametrize("mode", MODES)
def test_values_and_derivatives(f, mode, backend, rng):
    for n, m in LENGTHS:
        x, k = rng.normal(size=n), rng.normal(size=m)
        assert transpyle.jit(f, static_argnums=2, backend=backend)(x, k, mode) == pytest.approx(f(x, k, mode), rel=1e-12)
        g = transpyle.grad(functools.partial(f, mode=mode), argnums=(0, 1), backend=backend)(x, k)
        h = 1e-6
        for i, arg in enumerate((x, k)):
            fd = [(f(*[a + h * e if j == i else a for j, a in enumerate((x, k))], mode) -
                   f(*[a - h * e if j == i else a for j, a in enumerate((x, k))], mode)) / (2 * h) for e in np.eye(arg.size)]
            np.testing.assert_allclose(g[i], fd, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_hessians_tangents_and_vmap(backend, rng):
    x, k = rng.normal(size=6), rng.normal(size=3)
    check_jvp(smoothing, (x, k), (0, 1), rng, backend=backend, atol=1e-8)
    grad = transpyle.grad(smoothing, argnums=(0, 1), backend="numpy")
    h = 1e-5
    for i, size in enumerate((6, 3)):
        hess = transpyle.hessian(smoothing, argnums=i, backend=backend)(x, k)
        fd = [(grad(*[a + h * e if j == i else a for j, a in enumerate((x, k))])[i] -
               grad(*[a - h * e if j == i else a for j, a in enumerate((x, k))])[i]) / (2 * h) for e in np.eye(size)]
        np.testing.assert_allclose(hess, np.array(fd), rtol=1e-5, atol=1e-6)
    batch = rng.normal(size=(4, 6))
    np.testing.assert_allclose(transpyle.vmap(smoothing, in_axes=(0, None), backend=backend)(batch, k),
                               [smoothing(b, k) for b in batch], rtol=1e-12)


def test_unknown_mode_is_refused():
    with pytest.raises(transpyle.TranspileError, match="mode='wrap'"):
        transpyle.jit(lambda x: np.convolve(x, x, "wrap"), backend="numpy")(np.ones(3))
