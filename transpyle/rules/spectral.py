"""Discrete Fourier transforms: ``rt.fft_along``/``rt.ifft_along`` (one axis), ``rt.fft_axes``/``rt.ifft_axes``
(several) and ``rt.fit_axis`` (an axis cut or zero-padded to a length), the primitives ``transpyle.twins.spectral``
writes NumPy's ``np.fft`` functions with.

Each transform is linear, and its matrix is symmetric (``F[j, k] = exp(-2 pi i j k / n)``, scaled by the norm),
so its transpose is the same transform: the cotangent of ``y = fft(a)`` is ``fft(g)``, with the same axes and norm
(a real operand takes the real part of it, as every complex result's real operand does). The cotangent of a cut
or padded axis is the cotangent cut or padded back to the operand's length. Tangents are the same calls on the
tangents. Results are complex128 (complex64 for float32 and complex64 operands, as NumPy 2 gives).

``rt.half_shift(x, axes, sign)`` (np.fft.fftshift for sign 1, ifftshift for -1) is written, once the rank is
known, as the two parts of each axis joined in the other order, which carry the derivatives.
"""
from .. import runtime as rt
from ..base.ast_utils import template_expr
from . import LINEAR, define
from .call_forms import literal
from .common import StaticError, const_value
from .rearrangements import _axes, part


def _complex(k, s):
    a = k["a"]
    if a.ndim == 0:
        raise StaticError("a Fourier transform of a number is not supported", hint="transform an array")
    return a.with_dtype("complex64" if a.dtype in ("float32", "complex64") else "complex128")


def _shifted(axis):
    """An axis of one example as an axis of the batch (a leading batch axis: non-negative axes move by one)."""
    return axis + 1 if axis >= 0 else axis


def _along_lanes(helper):
    def batch(batched, kinds, statics):
        axis = const_value(statics["axis"], "axis")
        return f"rt.{helper}(a, {_shifted(axis)}, norm)" if batched["a"] else None
    return batch


def _axes_lanes(helper):
    def batch(batched, kinds, statics):
        axes = const_value(statics["axes"], "axes")
        axes = tuple(range(kinds["a"].ndim)) if axes is None else axes if isinstance(axes, tuple) else (axes,)
        return f"rt.{helper}(a, {tuple(_shifted(a) for a in axes)!r}, norm)" if batched["a"] else None
    return batch


for _helper, _fn in (("fft_along", rt.fft_along), ("ifft_along", rt.ifft_along)):
    define(f"rt.{_helper}", [_fn], "a, axis=-1, norm=None", _complex, {"a": f"rt.{_helper}(g, axis, norm)"}, diff=("a",),
           jvp=LINEAR, batch=_along_lanes(_helper))
for _helper, _fn in (("fft_axes", rt.fft_axes), ("ifft_axes", rt.ifft_axes)):
    define(f"rt.{_helper}", [_fn], "a, axes=None, norm=None", _complex, {"a": f"rt.{_helper}(g, axes, norm)"}, diff=("a",),
           jvp=LINEAR, batch=_axes_lanes(_helper))


def _fit_lanes(batched, kinds, statics):
    if batched["length"]:
        return None
    return f"rt.fit_axis(x, length, {_shifted(const_value(statics['axis'], 'axis'))})" if batched["x"] else None


define("rt.fit_axis", [rt.fit_axis], "x, length, axis=-1", lambda k, s: k["x"],
       {"x": "rt.fit_axis(g, x.shape[axis], axis)"}, diff=("x",), jvp=LINEAR, batch=_fit_lanes)


def _half_shift_kind(k, s):
    if k["x"].ndim == 0:
        raise StaticError("np.fft.fftshift of a number is not supported", hint="shift an array")
    return k["x"]


def _half_shift(statics, kinds, operands):
    ndim = kinds["x"].ndim
    axes = literal(statics["axes"], "axes")
    out = "x"
    for axis in (range(ndim) if axes is None else _axes(axes, ndim, "axes")):
        length = f"x.shape[{axis}]"
        # fftshift rolls by n // 2 (the last n // 2 entries first), ifftshift by -(n // 2)
        cut = f"({length} - {length} // 2)" if literal(statics["sign"], "sign") > 0 else f"({length} // 2)"
        out = f"np.concatenate(({part(f'({out})', axis, ndim, f'{cut}:')}, {part(f'({out})', axis, ndim, f':{cut}')})" \
              f", axis={axis})"
    return template_expr(out, x=operands["x"])


define("rt.half_shift", [rt.half_shift], "x, axes=None, sign=1", _half_shift_kind, lower=_half_shift)
