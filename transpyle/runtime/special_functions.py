"""Special functions elementwise, of numbers and arrays: ``erf``, ``gammaln`` (log |Gamma|), ``digamma``
(its derivative) and ``trigamma`` (the digamma's). Eagerly they map Python's ``math`` functions over the
elements; in compiled code the same loop calls Numba's ``math.erf``/``math.lgamma``. The digamma and
trigamma functions have no ``math`` form, so they are written here: the recurrence ``psi(x) = psi(x + 1) -
1/x`` moves the argument to 10 or more, where the asymptotic series is accurate to about 1e-15, and
arguments below 1/2 use the reflection formula."""
import math

import numpy as np

from numba import types
from numba.extending import overload, register_jitable

# Bernoulli numbers B_2k / (2k), k = 1..8: the coefficients of the digamma's asymptotic series
_DIGAMMA_SERIES = (1.0 / 12.0, -1.0 / 120.0, 1.0 / 252.0, -1.0 / 240.0, 1.0 / 132.0, -691.0 / 32760.0, 1.0 / 12.0,
                   -3617.0 / 8160.0)
# Bernoulli numbers B_2k, k = 1..8: the coefficients of the trigamma's asymptotic series
_TRIGAMMA_SERIES = (1.0 / 6.0, -1.0 / 30.0, 1.0 / 42.0, -1.0 / 30.0, 5.0 / 66.0, -691.0 / 2730.0, 7.0 / 6.0,
                    -3617.0 / 510.0)
_SHIFT_TO = 10.0


def _digamma_number(x):
    if x != x or x == -math.inf:
        return math.nan
    if x <= 0.0 and x == math.floor(x):
        return math.nan                       # the poles of the Gamma function
    total = 0.0
    if x < 0.5:                               # reflection: psi(x) = psi(1 - x) - pi cot(pi x)
        total = -math.pi / math.tan(math.pi * (x - math.floor(x + 0.5)))    # cot has period pi: exact reduction
        x = 1.0 - x
    while x < _SHIFT_TO:
        total -= 1.0 / x
        x += 1.0
    inv2 = 1.0 / (x * x)
    series, power = 0.0, inv2
    for c in _DIGAMMA_SERIES:
        series += c * power
        power *= inv2
    return total + math.log(x) - 0.5 / x - series


def _trigamma_number(x):
    if x != x or x == -math.inf:
        return math.nan
    if x <= 0.0 and x == math.floor(x):
        return math.inf
    total, sign = 0.0, 1.0
    if x < 0.5:                               # reflection: psi1(x) = pi^2 / sin(pi x)^2 - psi1(1 - x)
        s = math.sin(math.pi * (x - math.floor(x + 0.5)))
        total, sign = math.pi * math.pi / (s * s), -1.0
        x = 1.0 - x
    shifted = 0.0
    while x < _SHIFT_TO:
        shifted += 1.0 / (x * x)
        x += 1.0
    inv = 1.0 / x
    inv2 = inv * inv
    series, power = 0.0, inv2 * inv
    for c in _TRIGAMMA_SERIES:
        series += c * power
        power *= inv2
    return total + sign * (shifted + inv + 0.5 * inv2 + series)


register_jitable(_digamma_number)
register_jitable(_trigamma_number)


def _elementwise(number_function):
    """The eager form: ``number_function`` of a number, or of each element of an array (a float64 array)."""
    def apply(x):
        if isinstance(x, np.ndarray):
            out = np.empty(x.shape)
            flat = out.reshape(-1)
            for i, v in enumerate(x.flat):
                flat[i] = number_function(float(v))
            return out
        return number_function(float(x))
    return apply


def erf(x):
    """The error function, elementwise."""
    return _elementwise(math.erf)(x)


def gammaln(x):
    """log |Gamma(x)|, elementwise."""
    return _elementwise(math.lgamma)(x)


def digamma(x):
    """The digamma function psi = d/dx log Gamma(x), elementwise."""
    return _elementwise(_digamma_number)(x)


def trigamma(x):
    """The trigamma function psi' = d/dx digamma(x), elementwise."""
    return _elementwise(_trigamma_number)(x)


def _compiled(number_function):
    """The Numba implementation of an elementwise function: a float of a number, a float64 array of the
    array's shape (written element by element, in C order) of an array."""
    def typer(x):
        if isinstance(x, (types.Float, types.Integer, types.Boolean)):
            return lambda x: number_function(np.float64(x))
        if isinstance(x, types.Array):
            def impl(x):
                out = np.empty(x.size)
                i = 0
                for v in x.flat:
                    out[i] = number_function(np.float64(v))
                    i += 1
                return out.reshape(x.shape)
            return impl
        return None
    return typer


@register_jitable
def _erf_number(x):
    return math.erf(x)


@register_jitable
def _lgamma_number(x):
    return math.lgamma(x)


overload(erf, jit_options={"cache": True})(_compiled(_erf_number))
overload(gammaln, jit_options={"cache": True})(_compiled(_lgamma_number))
overload(digamma, jit_options={"cache": True})(_compiled(_digamma_number))
overload(trigamma, jit_options={"cache": True})(_compiled(_trigamma_number))

__all__ = ["erf", "gammaln", "digamma", "trigamma"]
