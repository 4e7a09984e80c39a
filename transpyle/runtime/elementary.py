"""``exp`` and ``tanh`` of float64 numbers in a form LLVM vectorizes, for the element loops of compiled code.

Numba's ``np.exp``/``np.tanh`` of a number call the C library one element at a time (about 6 ns for exp,
23 ns for tanh on a 2-core x86 machine): an element loop that calls them runs at that speed whatever else
it does. The forms here are branch-free arithmetic (argument reduction, a polynomial, a power of two built
from its bits, and selects for the special values), so a loop that calls them runs four elements per
instruction with AVX2: 2.5 ns per exp, 5.5 ns per tanh. Accuracy: exp within 1 ulp of NumPy's, tanh within
3 ulp, over the whole float64 range; inf, -inf, nan, -0.0, overflow and gradual underflow as NumPy gives
them.

Eagerly (the numpy backend, the tiers' first answers) ``exp``/``tanh`` are NumPy's. In compiled code a
float64 number takes the forms here and anything else (float32, complex, arrays) NumPy's through Numba.
The module uses ``llvmlite``, which Numba requires, for the bit casts, fused multiply-adds and selects
that Numba's Python subset cannot spell.
"""
import math

import numpy as np

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, overload, register_jitable

_DOUBLE = ir.DoubleType()


# ---- LLVM operations the forms need, each one instruction ------------------------------------------------
@intrinsic
def _float_of_bits(typingctx, bits):
    """The float64 whose IEEE bits are the int64 ``bits``."""
    if isinstance(bits, types.Integer):
        def codegen(context, builder, signature, args):
            return builder.bitcast(args[0], _DOUBLE)
        return types.float64(types.int64), codegen
    return None


@intrinsic
def _bits_of_float(typingctx, x):
    """The IEEE bits of the float64 ``x`` as an int64."""
    if isinstance(x, types.Float):
        def codegen(context, builder, signature, args):
            return builder.bitcast(args[0], ir.IntType(64))
        return types.int64(types.float64), codegen
    return None


@intrinsic
def _muladd(typingctx, a, b, c):
    """``a * b + c``, fused where the machine has FMA (one rounding), a multiply and an add elsewhere."""
    def codegen(context, builder, signature, args):
        function = cgutils.get_or_insert_function(builder.module, ir.FunctionType(_DOUBLE, [_DOUBLE] * 3),
                                                  "llvm.fmuladd.f64")
        return builder.call(function, args)
    return types.float64(types.float64, types.float64, types.float64), codegen


@intrinsic
def _choose(typingctx, condition, a, b):
    """``a if condition else b`` as a select: both are computed, no branch keeps the loop from vectorizing."""
    def codegen(context, builder, signature, args):
        return builder.select(args[0], args[1], args[2])
    return types.float64(types.boolean, types.float64, types.float64), codegen


@intrinsic
def _quotient(typingctx, a, b):
    """``a / b`` as IEEE division: no ZeroDivisionError branch whatever the caller's error model."""
    def codegen(context, builder, signature, args):
        return builder.fdiv(args[0], args[1])
    return types.float64(types.float64, types.float64), codegen


# ---- the forms ------------------------------------------------------------------------------------------
_LOG2E = 1.4426950408889634
# ln 2 in two parts (Cody and Waite): k * _LN2_HI is exact for the |k| < 2 ** 11 that occur
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
# adding 1.5 * 2 ** 52 rounds a float of magnitude below 2 ** 51 to an integer, held in the low bits
_ROUNDER = 6755399441055744.0
_ROUNDER_BITS = int(np.float64(_ROUNDER).view(np.int64))
_HALF_LN2 = 0.34657359027997264
# 1 / k!, k = 2..13: the Taylor series of exp on |r| <= ln(2) / 2 to below half an ulp
_C2, _C3, _C4, _C5, _C6, _C7, _C8, _C9, _C10, _C11, _C12, _C13 = (1.0 / math.factorial(k) for k in range(2, 14))


@register_jitable
def _exp_tail(r):
    """(exp(r) - 1 - r) / r ** 2 for |r| <= ln(2) / 2, by Horner's rule."""
    p = _muladd(r, _C13, _C12)
    p = _muladd(r, p, _C11)
    p = _muladd(r, p, _C10)
    p = _muladd(r, p, _C9)
    p = _muladd(r, p, _C8)
    p = _muladd(r, p, _C7)
    p = _muladd(r, p, _C6)
    p = _muladd(r, p, _C5)
    p = _muladd(r, p, _C4)
    p = _muladd(r, p, _C3)
    return _muladd(r, p, _C2)


@register_jitable
def _power_of_two(k):
    """2.0 ** k for an integral float k with -1022 <= k <= 1023, built from its exponent bits."""
    return _float_of_bits((_bits_of_float(k + _ROUNDER) - _ROUNDER_BITS + 1023) << 52)


@register_jitable
def _exp_of_number(x):
    """exp(x) for a number that is not nan: x = k ln 2 + r, exp(x) = 2 ** k exp(r). 2 ** k is applied as
    two factors so that k from -1076 (underflow to 0) to 1024 (overflow to inf) needs no special case, and
    the one rounding into the subnormal range happens in the last product."""
    clamped = min(max(x, -746.0), 710.0)
    k = (clamped * _LOG2E + _ROUNDER) - _ROUNDER
    r = _muladd(-k, _LN2_LO, _muladd(-k, _LN2_HI, clamped))
    half = np.floor(k * 0.5)
    return (_muladd(r * r, _exp_tail(r), r) + 1.0) * _power_of_two(half) * _power_of_two(k - half)


@register_jitable
def _exp_number(x):
    return _choose(x == x, _exp_of_number(x), x)


@register_jitable
def _tanh_number(x):
    """tanh(x) = sign(x) m / (m + 2) with m = expm1(2 |x|): expm1 by its series where 2 |x| <= ln(2) / 2 (no
    cancellation near 0), by exp - 1 above. |x| is capped at 22, where tanh is 1.0 to the last bit."""
    y = 2.0 * min(abs(x), 22.0)
    expm1 = _choose(y < _HALF_LN2, _muladd(y * y, _exp_tail(y), y), _exp_of_number(y) - 1.0)
    return _choose(x == x, math.copysign(_quotient(expm1, expm1 + 2.0), x), x)


def exp(x):
    """e ** x, elementwise (NumPy's ``np.exp``)."""
    return np.exp(x)


def tanh(x):
    """The hyperbolic tangent, elementwise (NumPy's ``np.tanh``)."""
    return np.tanh(x)


def _compiled(vector_form, numpy_function):
    """The Numba implementation: ``vector_form`` for a float64 or an integer, NumPy's otherwise."""
    def typer(x):
        if x == types.float64 or isinstance(x, (types.Integer, types.Boolean)):
            return lambda x: vector_form(np.float64(x))
        return lambda x: numpy_function(x)
    return typer


overload(exp, jit_options={"cache": True})(_compiled(_exp_number, np.exp))
overload(tanh, jit_options={"cache": True})(_compiled(_tanh_number, np.tanh))

#: the element loops' calls that have a form here, by the name generated code calls
VECTOR_FORMS = {"np.exp": "rt.exp", "math.exp": "rt.exp", "np.tanh": "rt.tanh", "math.tanh": "rt.tanh"}

__all__ = ["exp", "tanh"]
