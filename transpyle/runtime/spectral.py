"""Discrete Fourier transforms at run time: along one axis (``fft_along``, ``ifft_along``) and over several
(``fft_axes``, ``ifft_axes``), each NumPy's ``np.fft`` function (which Numba compiles with rocket-fft's
implementations), and ``fit_axis``, an array cut or padded with zeros to a length along one axis (the ``n=`` of
NumPy's transforms, and its transpose)."""
import numpy as np

from numba.extending import register_jitable


def fft_along(a, axis, norm):
    return np.fft.fft(a, None, axis, norm)


def ifft_along(a, axis, norm):
    return np.fft.ifft(a, None, axis, norm)


def fft_axes(a, axes, norm):
    return np.fft.fftn(a, None, axes, norm)


def ifft_axes(a, axes, norm):
    return np.fft.ifftn(a, None, axes, norm)


def fit_axis(x, length, axis):
    """``x`` with its first ``length`` entries along ``axis``, zeros after its own when it has fewer."""
    moved = np.swapaxes(x, axis, -1)
    out = np.zeros(moved.shape[:-1] + (length,), x.dtype)
    kept = min(length, moved.shape[-1])
    out[..., :kept] = moved[..., :kept]
    return np.ascontiguousarray(np.swapaxes(out, axis, -1))


def half_shift(x, axes, sign):
    """np.fft.fftshift (sign 1) or np.fft.ifftshift (sign -1) of ``x``; transformed code writes it with slices
    and joins once ranks are known (rules/spectral), so only the numpy backend's first calls read this."""
    return np.fft.fftshift(x, axes) if sign > 0 else np.fft.ifftshift(x, axes)


for _helper in (fft_along, ifft_along, fft_axes, ifft_axes, fit_axis):
    register_jitable(_helper)

__all__ = ["fft_along", "ifft_along", "fft_axes", "ifft_axes", "fit_axis", "half_shift"]
