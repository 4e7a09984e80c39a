"""Twins of NumPy's elementwise functions that have no primitive, written with the primitives' arithmetic,
``np.where`` and ``np.signbit`` (rules/searching.py). Operands are numbers or arrays of any rank, broadcast
together; integer operands give float results where NumPy's do.

- ``np.sinc(x)``: sin(pi x) / (pi x), 1 at 0; near 0 its Taylor series, so that every derivative there is
  right (the first is 0).
- ``np.heaviside(x1, x2)``: 0 below 0, 1 above, ``x2`` at 0 (NaN for NaN); derivative in ``x2`` where x1 == 0.
- ``np.copysign(x1, x2)``: |x1| with the sign bit of ``x2``; derivative in ``x1`` that of abs (slope +1 at 0,
  as JAX's), zero in ``x2``.
- ``np.fmod(x1, x2)``: the remainder with the sign of ``x1`` (C's fmod): |x1| % |x2| signed; derivatives
  1 in ``x1`` and -trunc(x1 / x2) in ``x2``. (At x1 = -0.0 the value is +0.0.)
- ``np.divmod(x1, x2)``: the pair (x1 // x2, x1 % x2).
- ``np.modf(x)``: the pair (fractional part, integral part), both with the sign of ``x`` ((0, inf) at inf).
- ``np.float_power(x1, x2)``: ``x1 ** x2`` in floats (an integer base with a negative exponent too).
- ``np.deg2rad``, ``np.radians``, ``np.rad2deg``, ``np.degrees``: multiplication by pi/180 or 180/pi.
- ``np.nan_to_num(x, copy, nan, posinf, neginf)``: NaNs, +inf and -inf replaced (by 0 and the largest finite
  float64 by default), differentiable in ``x`` (1 where finite) and in the replacements where they are used;
  ``copy`` is ignored (the result is a new array).
"""
import numpy as np

from . import twin

#: np.finfo(np.float64).max: what np.nan_to_num puts for infinities by default
_LARGEST = 1.7976931348623157e308


@twin(np.sinc)
def sinc(x):
    """sin(pi x) / (pi x)."""
    y = np.pi * x
    small = np.abs(y) < 0.05
    # sin(y) / y = 1 - y^2/6 + y^4/120 - y^6/5040 + y^8/362880 - ..., nested; below |y| = 0.05 the next term
    # is under 1e-20, and the series' derivatives are those of sinc (no 0 / 0 at 0)
    near = np.where(small, y, 0.0)
    near2 = near * near
    series = 1.0 - near2 / 6.0 * (1.0 - near2 / 20.0 * (1.0 - near2 / 42.0 * (1.0 - near2 / 72.0)))
    far = np.where(small, 1.0, y)
    return np.where(small, series, np.sin(far) / far)


@twin(np.heaviside)
def heaviside(x1, x2):
    """The step function: 0 for x1 < 0, x2 at 0, 1 for x1 > 0."""
    return np.where(x1 < 0, 0.0, np.where(x1 > 0, 1.0, np.where(x1 == 0, x2, x1)))


@twin(np.copysign)
def copysign(x1, x2):
    """|x1| with the sign of x2."""
    magnitude = np.abs(x1) * 1.0
    return np.where(np.signbit(x2), -magnitude, magnitude)


@twin(np.fmod)
def fmod(x1, x2):
    """The remainder of x1 / x2 with the sign of x1."""
    # % of non-negative operands is exact and is C's fmod there
    r = np.abs(x1) % np.abs(x2)
    return np.where(x1 < 0, -r, r)


@twin(np.divmod)
def divmod_(x1, x2):
    """(x1 // x2, x1 % x2)."""
    return x1 // x2, x1 % x2


@twin(np.modf)
def modf(x):
    """(x - trunc(x), trunc(x)), each with the sign of x."""
    whole = np.trunc(x * 1.0)
    # x - trunc(x) is NaN at the infinities, whose fractional part is 0 with their sign
    part = np.where(np.isfinite(x), x - whole, np.where(np.isnan(x), x, 0.0 * np.sign(x)))
    return part, whole


@twin(np.float_power)
def float_power(x1, x2):
    """x1 ** x2 in floats."""
    return (x1 * 1.0) ** (x2 * 1.0)


@twin(np.deg2rad, np.radians)
def deg2rad(x):
    """Degrees to radians."""
    return x * (np.pi / 180.0)


@twin(np.rad2deg, np.degrees)
def rad2deg(x):
    """Radians to degrees."""
    return x * (180.0 / np.pi)


@twin(np.nan_to_num)
def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """x with NaNs, +inf and -inf replaced by numbers."""
    if posinf is None:
        high = _LARGEST
    else:
        high = posinf
    if neginf is None:
        low = -_LARGEST
    else:
        low = neginf
    return np.where(np.isnan(x), nan, np.where(x == np.inf, high, np.where(x == -np.inf, low, x)))
