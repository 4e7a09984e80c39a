"""Entries of the NumPy surface table (tests/surface_programs.py) for np.fft (transpyle/twins/spectral,
rules/spectral): complex results are weighed through their real and imaginary parts."""
import numpy as np

from surface_programs import C, N, _G

CASES = []


def _weighed(w, z):
    return np.sum(w * np.real(z)) + np.sum(w * w * np.imag(z))


def fft_real(x, w):
    return _weighed(w, np.fft.fft(x))


def fft_padded(x, w):
    return _weighed(w, np.fft.fft(x, n=8))


def fft_cut_axis0_ortho(x, w):
    return _weighed(w, np.fft.fft(x, 3, axis=0, norm="ortho"))


def ifft_of_complex(x, y, w):
    return _weighed(w, np.fft.ifft(x + 1j * y))


def fft2_default(x, w):
    return _weighed(w, np.fft.fft2(x))


def ifft2_forward(x, w):
    return _weighed(w, np.fft.ifft2(x * 1.5, norm="forward"))


def fftn_axes(x, w):
    return _weighed(w, np.fft.fftn(x, axes=(0, 2)))


def ifftn_all(x, y, w):
    return _weighed(w, np.fft.ifftn(x - 2j * y))


def rfft_even(x, w):
    return _weighed(w, np.fft.rfft(x))


def rfft_odd_axis0(x, w):
    return _weighed(w, np.fft.rfft(x, n=5, axis=0))


def irfft_default(x, y, w):
    return np.sum(w * np.fft.irfft(x + 1j * y))


def irfft_odd_length_ortho(x, y, w):
    return np.sum(w * np.fft.irfft(x + 1j * y, n=7, axis=0, norm="ortho"))


def round_trip(x, w):
    return np.sum(w * np.fft.irfft(np.fft.rfft(x) * np.arange(1.0, 6.0), n=9))


def frequencies(x, w):
    return np.sum(w * x * np.fft.fftfreq(x.shape[0], 0.1)) + np.sum(x[:4] * np.fft.rfftfreq(7))


def fftshift_all(x, w):
    return np.sum(w * np.fft.fftshift(x))


def fftshift_axis(x, w):
    return np.sum(w * np.fft.fftshift(x, axes=1))


def ifftshift_axes(x, w):
    return np.sum(w * np.fft.ifftshift(x * x, axes=(0, 2)))


def spectral_derivative(u, w):
    k = 2.0 * np.pi * np.fft.fftfreq(u.shape[0], 1.0 / u.shape[0])
    return np.sum(w * np.real(np.fft.ifft(1j * k * np.fft.fft(u))) ** 2)


def fft_out(x, w):
    out = np.zeros(x.shape, np.complex128)
    np.fft.fft(x, out=out)
    return np.sum(w * np.real(out))


CASES += [
    C("np.fft.fft", "real vector", fft_real, N(6), numba=_G),
    C("np.fft.fft", "n=8 (zero-padded)", fft_padded, N(5)),
    C("np.fft.fft", "n=3 (cut), axis=0, norm='ortho'", fft_cut_axis0_ortho, N(5, 2), numba=_G),
    C("np.fft.ifft", "complex vector", ifft_of_complex, N(6), N(6)),
    C("np.fft.fft2", "matrix", fft2_default, N(3, 4)),
    C("np.fft.ifft2", "norm='forward'", ifft2_forward, N(2, 3, 4), numba=_G),
    C("np.fft.fftn", "axes=(0, 2)", fftn_axes, N(2, 3, 4)),
    C("np.fft.ifftn", "every axis, complex", ifftn_all, N(3, 4), N(3, 4)),
    C("np.fft.rfft", "even length", rfft_even, N(8), numba=_G),
    C("np.fft.rfft", "n=5, axis=0", rfft_odd_axis0, N(6, 3)),
    C("np.fft.irfft", "default length", irfft_default, N(5), N(5), numba=_G),
    C("np.fft.irfft", "n=7, axis=0, norm='ortho'", irfft_odd_length_ortho, N(4, 3), N(4, 3)),
    C("np.fft.irfft", "of rfft, n=9", round_trip, N(9)),
    C("np.fft.fftfreq", "and rfftfreq", frequencies, N(8)),
    C("np.fft.fftshift", "every axis", fftshift_all, N(3, 4), numba=_G),
    C("np.fft.fftshift", "axes=1", fftshift_axis, N(3, 5)),
    C("np.fft.ifftshift", "axes=(0, 2)", ifftshift_axes, N(3, 2, 5)),
    C("np.fft.ifft", "a spectral derivative", spectral_derivative, N(16), numba=_G),
]
