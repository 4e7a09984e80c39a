"""np.fft beyond the surface table (tests/surface_spectral.py): forms refused at the user's line, the twins
called eagerly giving NumPy's values, and a spectral solver's gradient on numba against finite differences."""
import numpy as np
import pytest

import transpyle
from transpyle.base.errors import TranspileError
from transpyle.twins import spectral


def fft_into_out(x):
    out = np.zeros(x.shape, np.complex128)
    np.fft.fft(x, out=out)
    return np.sum(np.real(out))


def fftn_with_shape(x):
    return np.sum(np.real(np.fft.fftn(x, s=(4, 4))))


def fft_along_a_computed_axis(x, k):
    return np.sum(np.real(np.fft.fft(x, axis=k)))


@pytest.mark.parametrize("fn, args, says", [
    (fft_into_out, (np.ones(4),), "out= is not supported"),
    (fftn_with_shape, (np.ones((3, 3)),), "s= (a shape to cut or pad to) is not supported"),
    (fft_along_a_computed_axis, (np.ones((3, 3)), 1), "axis= must be a constant"),
])
def test_refused_at_the_line(fn, args, says):
    with pytest.raises(TranspileError) as err:
        transpyle.jit(fn, backend="numpy")(*args)
    assert says in err.value.message
    assert err.value.lineno is not None and err.value.lineno > fn.__code__.co_firstlineno


def test_twins_called_eagerly_give_numpy_values(rng):
    x, y = rng.normal(size=(6, 5)), rng.normal(size=(6, 5))
    z = x + 1j * y
    pairs = [(spectral.fft(x, 8, 0, "ortho"), np.fft.fft(x, 8, 0, "ortho")),
             (spectral.ifft(z, 4), np.fft.ifft(z, 4)),
             (spectral.fftn(z, axes=(0, 1)), np.fft.fftn(z, axes=(0, 1))),
             (spectral.ifft2(z), np.fft.ifft2(z)),
             (spectral.rfft(x, 7, 0), np.fft.rfft(x, 7, 0)),
             (spectral.irfft(z), np.fft.irfft(z)),
             (spectral.irfft(z, 9, 0, "forward"), np.fft.irfft(z, 9, 0, "forward")),
             (spectral.fftfreq(7, 0.5), np.fft.fftfreq(7, 0.5)),
             (spectral.rfftfreq(6), np.fft.rfftfreq(6)),
             (spectral.fftshift(x), np.fft.fftshift(x)),
             (spectral.ifftshift(x, axes=1), np.fft.ifftshift(x, axes=1))]
    for got, want in pairs:
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def heat_by_spectral_steps(u0, nu):
    """Diffusion on a periodic grid, stepped exactly in Fourier space."""
    n = u0.shape[0]
    k = 2.0 * np.pi * np.fft.rfftfreq(n, 1.0 / n)
    u = u0
    for _ in range(5):
        u = np.fft.irfft(np.fft.rfft(u) * np.exp(-nu * k * k * 0.01), n=n)
    return np.sum(u ** 3)


@pytest.mark.numba
def test_spectral_solver_gradient_on_numba(rng):
    u0 = rng.normal(size=12)
    g = transpyle.grad(heat_by_spectral_steps, backend="numba")(u0, 0.3)
    np.testing.assert_allclose(transpyle.jit(heat_by_spectral_steps, backend="numba")(u0, 0.3),
                               heat_by_spectral_steps(u0, 0.3), rtol=1e-12)
    eps, fd = 1e-6, np.zeros_like(u0)
    for i in range(u0.shape[0]):
        up, down = u0.copy(), u0.copy()
        up[i] += eps
        down[i] -= eps
        fd[i] = (heat_by_spectral_steps(up, 0.3) - heat_by_spectral_steps(down, 0.3)) / (2 * eps)
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-7)
