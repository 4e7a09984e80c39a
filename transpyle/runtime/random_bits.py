"""Counter-based random bits (Threefry-2x32) behind ``transpyle.random``: the cipher, the element
functions that make one float or integer from the two words of a counter, and whole draws over the
counters 0, 1, ..., n - 1, eagerly in NumPy and compiled in Numba from the same element functions.
The public functions that take keys, shapes and dtypes are in ``random_draws``."""
import numpy as np

from numba import types
from numba.extending import overload, register_jitable


# ---- random numbers: explicit keys, counter-based (Threefry-2x32) ---------------------------------
# A key is a uint32 array of shape (2,). Every draw is a pure function of (key, element index): element
# i of a draw encrypts the counter i (its high and low 32-bit words) with Threefry-2x32 under the key.
# Each element is computed by one set of functions (Threefry, then the element functions below), written
# with operators that mean the same on numbers and on arrays (+ ^ & | << >> * / sqrt, _select):
# eager calls and the numpy backend apply them to arrays of counters, compiled code to one counter
# at a time. Integer words are held in int64, where no sum or shift overflows, and masked to 32 bits;
# floats are made from integer mantissas exactly, and the normal transform calls no library
# transcendental (the logarithm is a series below). So the same key gives the same bits everywhere.
_MASK32 = 0xFFFFFFFF
_PARITY32 = 0x1BD11BDA          # the Threefish key-schedule constant
_TWO_M23 = 2.0 ** -23
_TWO_M52 = 2.0 ** -52
_TWO_M53 = 2.0 ** -53
_LN2 = 0.6931471805599453
_SQRT_HALF = 0.7071067811865476


def _rotl32(x, r):
    return ((x << r) | (x >> (32 - r))) & _MASK32


def _four_rounds(x0, x1, r0, r1, r2, r3):
    x0 = (x0 + x1) & _MASK32
    x1 = _rotl32(x1, r0) ^ x0
    x0 = (x0 + x1) & _MASK32
    x1 = _rotl32(x1, r1) ^ x0
    x0 = (x0 + x1) & _MASK32
    x1 = _rotl32(x1, r2) ^ x0
    x0 = (x0 + x1) & _MASK32
    x1 = _rotl32(x1, r3) ^ x0
    return x0, x1


def threefry2x32(k0, k1, x0, x1):
    """Threefry-2x32 with 20 rounds (Salmon et al. 2011, as in Random123 and JAX): the counter words
    (x0, x1) encrypted under the key words (k0, k1). Words are non-negative ints below 2**32 held in
    int64 (Python ints, int64 arrays, Numba int64 values or arrays); returns the two output words."""
    k2 = k0 ^ k1 ^ _PARITY32
    x0 = (x0 + k0) & _MASK32
    x1 = (x1 + k1) & _MASK32
    x0, x1 = _four_rounds(x0, x1, 13, 15, 26, 6)
    x0, x1 = (x0 + k1) & _MASK32, (x1 + k2 + 1) & _MASK32
    x0, x1 = _four_rounds(x0, x1, 17, 29, 16, 24)
    x0, x1 = (x0 + k2) & _MASK32, (x1 + k0 + 2) & _MASK32
    x0, x1 = _four_rounds(x0, x1, 13, 15, 26, 6)
    x0, x1 = (x0 + k0) & _MASK32, (x1 + k1 + 3) & _MASK32
    x0, x1 = _four_rounds(x0, x1, 17, 29, 16, 24)
    x0, x1 = (x0 + k1) & _MASK32, (x1 + k2 + 4) & _MASK32
    x0, x1 = _four_rounds(x0, x1, 13, 15, 26, 6)
    x0, x1 = (x0 + k2) & _MASK32, (x1 + k0 + 5) & _MASK32
    return x0, x1


def _select(c, a, b):
    """``a`` where ``c`` else ``b``: np.where on arrays, a conditional on numbers in compiled code."""
    return np.where(c, a, b)


@overload(_select, jit_options={"cache": True})
def _select_numba(c, a, b):
    if isinstance(c, types.Array):
        return lambda c, a, b: np.where(c, a, b)
    return lambda c, a, b: a if c else b


# -- one element of a draw, from the two output words of its counter (numbers or arrays) --------------
def _unit52(y0, y1):
    """A float64 in [0, 1) from the 52 top bits of the 64-bit word y0:y1 (exact)."""
    return ((y0 << 20) | (y1 >> 12)) * _TWO_M52


def _unit23(y0, y1):
    """A float in [0, 1), exact in float32, from the 23 top bits of y0 ^ y1."""
    return ((y0 ^ y1) >> 9) * _TWO_M23


def _open_unit52(y0, y1):
    """A float64 in the open interval (0, 1): (2m + 1) * 2**-53 for the 52-bit mantissa m (exact)."""
    return (2 * ((y0 << 20) | (y1 >> 12)) + 1) * _TWO_M53


def _top63(y0, y1):
    """A non-negative 63-bit integer (int64): the top 63 bits of y0:y1."""
    return (y0 << 31) | (y1 >> 1)


def _uniform_element(y0, y1, single, minval, maxval):
    u = _unit23(y0, y1) if single else _unit52(y0, y1)
    return u * (maxval - minval) + minval


def _polynomial(coefficients, x):
    """Horner's rule, coefficients from the highest power down."""
    acc = x * 0.0 + coefficients[0]
    for j in range(1, len(coefficients)):
        acc = acc * x + coefficients[j]
    return acc


# 2 atanh(s) = log((1 + s) / (1 - s)): 1 + s^2/3 + s^4/5 + ... + s^20/21, highest power first
_ATANH_SERIES = tuple(1.0 / (2 * j + 1) for j in range(10, -1, -1))
# the exact scalings of _log: below 2**-s, multiply by 2**s (s = 32, 16, ..., 1)
_LOG_SHIFTS = (32.0, 16.0, 8.0, 4.0, 2.0, 1.0)
_LOG_BELOW = tuple(2.0 ** -s for s in _LOG_SHIFTS)
_LOG_SCALE = tuple(2.0 ** s for s in _LOG_SHIFTS)


def _log(x):
    """Natural logarithm of values in (2**-63, 1], with + - * / only (so it has the same bits in
    NumPy and Numba): x = m * 2**e with m in [sqrt(1/2), sqrt(2)), found by exact scalings, and
    log(m) = 2 atanh((m - 1) / (m + 1)) by its series (|s| < 0.172, 11 terms: a few ulps)."""
    m = x * 1.0
    e = x * 0.0
    for j in range(len(_LOG_SHIFTS)):
        small = m < _LOG_BELOW[j]
        m = _select(small, m * _LOG_SCALE[j], m)
        e = _select(small, e - _LOG_SHIFTS[j], e)
    low = m < _SQRT_HALF              # m was in [1/2, 1)
    m = _select(low, m * 2.0, m)
    e = _select(low, e - 1.0, e)
    s = (m - 1.0) / (m + 1.0)
    return 2.0 * s * _polynomial(_ATANH_SERIES, s * s) + e * _LN2


# Wichura's AS 241 (Applied Statistics 37, 1988): the normal quantile function to about 1e-16,
# rational functions on three ranges; numerators then denominators, highest power first
_AS241_CENTRAL = ((2.5090809287301226727e+3, 3.3430575583588128105e+4, 6.7265770927008700853e+4,
                   4.5921953931549871457e+4, 1.3731693765509461125e+4, 1.9715909503065514427e+3,
                   1.3314166789178437745e+2, 3.3871328727963666080e+0),
                  (5.2264952788528545610e+3, 2.8729085735721942674e+4, 3.9307895800092710610e+4,
                   2.1213794301586595867e+4, 5.3941960214247511077e+3, 6.8718700749205790830e+2,
                   4.2313330701600911252e+1, 1.0))
_AS241_NEAR = ((7.74545014278341407640e-4, 2.27238449892691845833e-2, 2.41780725177450611770e-1,
                1.27045825245236838258e+0, 3.64784832476320460504e+0, 5.76949722146069140550e+0,
                4.63033784615654529590e+0, 1.42343711074968357734e+0),
               (1.05075007164441684324e-9, 5.47593808499534494600e-4, 1.51986665636164571966e-2,
                1.48103976427480074590e-1, 6.89767334985100004550e-1, 1.67638483018380384940e+0,
                2.05319162663775882187e+0, 1.0))
_AS241_FAR = ((2.01033439929228813265e-7, 2.71155556874348757815e-5, 1.24266094738807843860e-3,
               2.65321895265761230930e-2, 2.96560571828504891230e-1, 1.78482653991729133580e+0,
               5.46378491116411436990e+0, 6.65790464350110377720e+0),
              (2.04426310338993978564e-15, 1.42151175831644588870e-7, 1.84631831751005468180e-5,
               7.86869131145613259100e-4, 1.48753612908506148525e-2, 1.36929880922735805310e-1,
               5.99832206555887937690e-1, 1.0))


def _normal_quantile(p):
    """The standard normal quantile of ``p`` in (0, 1) (a number or an array)."""
    q = p - 0.5
    r = 0.180625 - q * q
    central = q * _polynomial(_AS241_CENTRAL[0], r) / _polynomial(_AS241_CENTRAL[1], r)
    t = np.sqrt(-_log(np.minimum(p, 1.0 - p)))
    near = _polynomial(_AS241_NEAR[0], t - 1.6) / _polynomial(_AS241_NEAR[1], t - 1.6)
    far = _polynomial(_AS241_FAR[0], t - 5.0) / _polynomial(_AS241_FAR[1], t - 5.0)
    tail = _select(t <= 5.0, near, far)
    tail = _select(q < 0.0, -tail, tail)
    return _select(np.abs(q) <= 0.425, central, tail)


def _normal_element(y0, y1):
    """Inverse-CDF method: AS 241 of a uniform in (0, 1) with 52 random bits."""
    return _normal_quantile(_open_unit52(y0, y1))


def _randint_element(y0, y1, minval, span):
    """63 random bits modulo the span (bias below span / 2**63)."""
    return minval + _top63(y0, y1) % span


def _key_from_words(hi, lo):
    out = np.empty(2, np.uint32)
    out[0] = hi
    out[1] = lo
    return out


def _fold_in_key(k0, k1, data):
    y0, y1 = threefry2x32(k0, k1, (data >> 32) & _MASK32, data & _MASK32)
    return _key_from_words(y0, y1)


def _check_randint(minval, maxval):
    if maxval <= minval:
        raise ValueError("transpyle.random.randint: maxval must be greater than minval")


for _helper in (_rotl32, _four_rounds, threefry2x32, _unit52, _unit23, _open_unit52, _top63, _uniform_element,
                _polynomial, _log, _normal_quantile, _normal_element, _randint_element, _key_from_words,
                _fold_in_key, _check_randint):
    register_jitable(_helper)


# -- whole draws: the element functions over the counters 0, 1, ..., n - 1. NumPy applies them to the
# arrays of all counters at once; compiled code (the overloads below) loops over the counters, which
# compiles several times faster than array expressions and computes the same bits. -----------------
def _counter_words(k0, k1, n):
    """The two output words of each counter 0, 1, ..., n - 1 (its high and low words encrypted)."""
    i = np.arange(n, dtype=np.int64)
    return threefry2x32(k0, k1, i >> 32, i & _MASK32)


def _split_keys(k0, k1, num):
    y0, y1 = _counter_words(k0, k1, num)
    return np.ascontiguousarray(np.stack((y0, y1), axis=1)).astype(np.uint32)


def _uniform_flat(k0, k1, n, single, minval, maxval):
    """``n`` floats (float64 values) in [minval, maxval), as JAX makes them: 52 top bits of y0:y1,
    or 23 bits of y0 ^ y1 when ``single`` (exact in float32)."""
    y0, y1 = _counter_words(k0, k1, n)
    return _uniform_element(y0, y1, single, minval, maxval)


def _normal_flat(k0, k1, n):
    y0, y1 = _counter_words(k0, k1, n)
    return _normal_element(y0, y1)


def _randint_flat(k0, k1, n, minval, maxval):
    _check_randint(minval, maxval)
    y0, y1 = _counter_words(k0, k1, n)
    return _randint_element(y0, y1, minval, maxval - minval)


def _bits63(k0, k1, n):
    y0, y1 = _counter_words(k0, k1, n)
    return _top63(y0, y1)


def _permutation_indices(k0, k1, n):
    """A random permutation of 0..n-1: the order that sorts n random 63-bit numbers (a stable sort,
    so the rare ties are broken by index the same way everywhere)."""
    return np.argsort(_bits63(k0, k1, n), kind="mergesort")


register_jitable(_permutation_indices)


@overload(_split_keys, jit_options={"cache": True})
def _split_keys_numba(k0, k1, num):
    def impl(k0, k1, num):
        out = np.empty((num, 2), np.uint32)
        for i in range(num):
            y0, y1 = threefry2x32(k0, k1, i >> 32, i & _MASK32)
            out[i, 0] = y0
            out[i, 1] = y1
        return out
    return impl


@overload(_uniform_flat, jit_options={"cache": True})
def _uniform_flat_numba(k0, k1, n, single, minval, maxval):
    def impl(k0, k1, n, single, minval, maxval):
        out = np.empty(n, np.float64)
        for i in range(n):
            y0, y1 = threefry2x32(k0, k1, i >> 32, i & _MASK32)
            out[i] = _uniform_element(y0, y1, single, minval, maxval)
        return out
    return impl


@overload(_normal_flat, jit_options={"cache": True})
def _normal_flat_numba(k0, k1, n):
    def impl(k0, k1, n):
        out = np.empty(n, np.float64)
        for i in range(n):
            y0, y1 = threefry2x32(k0, k1, i >> 32, i & _MASK32)
            out[i] = _normal_element(y0, y1)
        return out
    return impl


@overload(_randint_flat, jit_options={"cache": True})
def _randint_flat_numba(k0, k1, n, minval, maxval):
    def impl(k0, k1, n, minval, maxval):
        _check_randint(minval, maxval)
        out = np.empty(n, np.int64)
        for i in range(n):
            y0, y1 = threefry2x32(k0, k1, i >> 32, i & _MASK32)
            out[i] = _randint_element(y0, y1, minval, maxval - minval)
        return out
    return impl


@overload(_bits63, jit_options={"cache": True})
def _bits63_numba(k0, k1, n):
    def impl(k0, k1, n):
        out = np.empty(n, np.int64)
        for i in range(n):
            y0, y1 = threefry2x32(k0, k1, i >> 32, i & _MASK32)
            out[i] = _top63(y0, y1)
        return out
    return impl
