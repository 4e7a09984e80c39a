"""Twins of NumPy's discrete Fourier transforms (``np.fft``), written with the transforms along one axis and
over several axes (``rt.fft_along``, ``rt.fft_axes``, their inverses: rules/spectral) and ``rt.fit_axis``.

- ``np.fft.fft``, ``np.fft.ifft`` (``n=``: the axis cut or zero-padded to n first, ``axis=``, ``norm=``);
- ``np.fft.fftn``, ``np.fft.ifftn``, ``np.fft.fft2``, ``np.fft.ifft2`` (``axes=``, ``norm=``; ``s=`` refused);
- ``np.fft.rfft`` (the first n // 2 + 1 entries of the full transform) and ``np.fft.irfft`` (the inverse of the
  Hermitian-symmetric spectrum the half spectrum stands for: its mirror joined, conjugated; the imaginary parts
  of the first entry, and of the last for an even length, are ignored, as NumPy ignores them);
- ``np.fft.fftfreq``, ``np.fft.rfftfreq`` (sample frequencies) and ``np.fft.fftshift``, ``np.fft.ifftshift``
  (the zero frequency moved to the centre and back, over every axis or the axes given).
``out=`` is refused (assign the result); ``rfftn``, ``irfftn``, ``hfft`` and ``ihfft`` have no twin.
The numba backend compiles the transforms with rocket-fft's implementations of NumPy's.
"""
import numpy as np

from .. import runtime as rt
from . import TwinRefusal, VARIABLE, twin


def _no_out(args):
    if args.get("out") is not None:
        raise TwinRefusal("out= is not supported", hint="assign the result instead")
    for name in ("axis", "axes", "norm"):
        if args.get(name, None) is VARIABLE:
            raise TwinRefusal(f"{name}= must be a constant")


def _no_shape(args):
    _no_out(args)
    if args["s"] is not None:
        raise TwinRefusal("s= (a shape to cut or pad to) is not supported",
                          hint="cut or pad the array first, or transform one axis at a time with n=")


@twin(np.fft.fft, check=_no_out)
def fft(a, n=None, axis=-1, norm=None, out=None):
    """The discrete Fourier transform along ``axis``."""
    if n is None:
        return rt.fft_along(a, axis, norm)
    return rt.fft_along(rt.fit_axis(a, n, axis), axis, norm)


@twin(np.fft.ifft, check=_no_out)
def ifft(a, n=None, axis=-1, norm=None, out=None):
    """The inverse discrete Fourier transform along ``axis``."""
    if n is None:
        return rt.ifft_along(a, axis, norm)
    return rt.ifft_along(rt.fit_axis(a, n, axis), axis, norm)


@twin(np.fft.fftn, check=_no_shape)
def fftn(a, s=None, axes=None, norm=None, out=None):
    """The transform over ``axes`` (every axis for None)."""
    return rt.fft_axes(a, axes, norm)


@twin(np.fft.ifftn, check=_no_shape)
def ifftn(a, s=None, axes=None, norm=None, out=None):
    """The inverse transform over ``axes`` (every axis for None)."""
    return rt.ifft_axes(a, axes, norm)


@twin(np.fft.fft2, check=_no_shape)
def fft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """The transform over the last two axes (or ``axes``)."""
    return rt.fft_axes(a, axes, norm)


@twin(np.fft.ifft2, check=_no_shape)
def ifft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """The inverse transform over the last two axes (or ``axes``)."""
    return rt.ifft_axes(a, axes, norm)


@twin(np.fft.rfft, check=_no_out)
def rfft(a, n=None, axis=-1, norm=None, out=None):
    """The non-negative frequency terms of the transform of real values."""
    if n is None:
        full = rt.fft_along(a, axis, norm)
    else:
        full = rt.fft_along(rt.fit_axis(a, n, axis), axis, norm)
    return rt.fit_axis(full, full.shape[axis] // 2 + 1, axis)


@twin(np.fft.irfft, check=_no_out)
def irfft(a, n=None, axis=-1, norm=None, out=None):
    """The real values whose transform's non-negative frequency terms are ``a``: ``n`` values (2 (m - 1) for
    m terms by default)."""
    if n is None:
        length = 2 * (a.shape[axis] - 1)
    else:
        length = n
    half = np.swapaxes(rt.fit_axis(a, length // 2 + 1, axis), axis, -1)
    mirror = np.conj(half[..., 1:length - length // 2][..., ::-1])
    spectrum = np.concatenate((half, mirror), axis=-1)
    return np.swapaxes(np.real(rt.ifft_along(spectrum, -1, norm)), axis, -1)


@twin(np.fft.fftfreq)
def fftfreq(n, d=1.0, device=None):
    """The sample frequencies of a transform of ``n`` values spaced ``d``: 0, 1, ..., then the negative ones."""
    k = np.concatenate((np.arange((n - 1) // 2 + 1), np.arange(-(n // 2), 0)))
    return k / (n * d)


@twin(np.fft.rfftfreq)
def rfftfreq(n, d=1.0, device=None):
    """The non-negative sample frequencies of ``rfft`` of ``n`` values spaced ``d``."""
    return np.arange(n // 2 + 1) / (n * d)


def _check_shift_axes(args):
    if args["axes"] is VARIABLE:
        raise TwinRefusal("axes= must be a constant axis or tuple of axes")


@twin(np.fft.fftshift, check=_check_shift_axes)
def fftshift(x, axes=None):
    """The zero frequency moved to the centre: a roll by half the length along each of ``axes``."""
    return rt.half_shift(x, axes, 1)


@twin(np.fft.ifftshift, check=_check_shift_axes)
def ifftshift(x, axes=None):
    """The inverse of ``fftshift``."""
    return rt.half_shift(x, axes, -1)
