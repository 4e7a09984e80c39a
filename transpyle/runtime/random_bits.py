"""Counter-based random numbers (Threefry-2x32) behind ``transpyle.random``: keys, splitting, and
the draws, eagerly in NumPy and compiled in Numba from the same element functions."""
import numpy as np

from numba import literal_unroll, types
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
_KEY_HELP = "a key is a uint32 array of shape (2,) made by transpyle.random.key(seed), split or fold_in"


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


# -- argument checks of eager calls (compiled code is checked by the kind rules in rules/random.py) --
def _integer(value, what):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"transpyle.random: {what} must be an integer, got {type(value).__name__}")
    return int(value)


def _key_words(key):
    """The two words of ``key`` as ints, or a TypeError/ValueError that says what a key is."""
    if not isinstance(key, np.ndarray) or key.dtype.kind not in "iu":
        got = f"a {key.dtype} array" if isinstance(key, np.ndarray) else type(key).__name__
        raise TypeError(f"transpyle.random: expected a key, got {got}; {_KEY_HELP}")
    if key.shape != (2,):
        hint = "; index a stack of keys from split (keys[0])" if key.ndim == 2 and key.shape[-1] == 2 else ""
        raise ValueError(f"transpyle.random: a key has shape (2,), got shape {key.shape}{hint}")
    k0, k1 = int(key[0]), int(key[1])
    if not (0 <= k0 <= _MASK32 and 0 <= k1 <= _MASK32):
        raise ValueError(f"transpyle.random: key words must be in [0, 2**32), got {key.tolist()}")
    return k0, k1


def _shape_tuple(shape):
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, (bool, np.bool_)):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"transpyle.random: shape must be an int or a tuple of ints, got {type(shape).__name__}")
    dims = tuple(_integer(d, "each dimension of shape") for d in shape)
    if any(d < 0 for d in dims):
        raise ValueError(f"transpyle.random: negative dimensions are not allowed in shape {dims}")
    return dims


def _float_dtype(dtype):
    dt = np.dtype(float if dtype is None else dtype)
    if dt not in (np.float64, np.float32):
        raise ValueError(f"transpyle.random: dtype must be float64 or float32, got {dt}")
    return dt


def _number(value, what):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"transpyle.random: {what} must be a number, got {type(value).__name__}")
    return float(value)


def _shaped(flat, shape):
    return flat[0] if shape == () else flat.reshape(shape)


# -- the public functions (transpyle.random re-exports them): eager NumPy code, and primitives ------
def random_key(seed):
    """A key from an integer seed: the uint32 array [high word, low word] of the seed's 64 bits
    (as ``jax.random.PRNGKey``)."""
    seed = _integer(seed, "seed")
    if not -2 ** 63 <= seed < 2 ** 64:
        raise ValueError(f"transpyle.random.key: seed {seed} does not fit in 64 bits")
    return _key_from_words((seed >> 32) & _MASK32, seed & _MASK32)


def random_split(key, num=2):
    """``num`` new keys, a uint32 array of shape (num, 2): row i is Threefry-2x32 of counter i under
    ``key``. Use the children and not ``key`` from then on."""
    k0, k1 = _key_words(key)
    num = _integer(num, "num")
    if num < 0:
        raise ValueError(f"transpyle.random.split: num must be non-negative, got {num}")
    return _split_keys(k0, k1, num)


def random_fold_in(key, data):
    """A new key from ``key`` and an integer ``data`` (a step or example number): Threefry-2x32 of
    the counter ``data`` under ``key``. Different data give independent keys."""
    k0, k1 = _key_words(key)
    data = _integer(data, "data")
    if not -2 ** 63 <= data < 2 ** 64:
        raise ValueError(f"transpyle.random.fold_in: data {data} does not fit in 64 bits")
    return _fold_in_key(k0, k1, data)


def random_uniform(key, shape=(), dtype=float, minval=0.0, maxval=1.0):
    """Floats uniform in [minval, maxval) of the given shape and dtype (float64 or float32); a
    number for ``shape=()``. Made from the top 52 (float32: 23) bits of each element's random word."""
    k0, k1 = _key_words(key)
    shape, dt = _shape_tuple(shape), _float_dtype(dtype)
    minval, maxval = _number(minval, "minval"), _number(maxval, "maxval")
    flat = _uniform_flat(k0, k1, _size(shape), dt == np.float32, minval, maxval)
    return _shaped(flat.astype(dt), shape)


def random_normal(key, shape=(), dtype=float):
    """Standard normal floats of the given shape and dtype (float64 or float32; float32 values are the
    float64 ones rounded); a number for ``shape=()``. Inverse-CDF method: AS 241 applied to uniforms
    in (0, 1) with 52 random bits."""
    k0, k1 = _key_words(key)
    shape, dt = _shape_tuple(shape), _float_dtype(dtype)
    return _shaped(_normal_flat(k0, k1, _size(shape)).astype(dt), shape)


def random_bernoulli(key, p=0.5, shape=None):
    """Booleans that are True with probability ``p`` (a number, or an array broadcast to ``shape``);
    ``shape`` defaults to the shape of ``p``. True where a float64 uniform of the key is below p."""
    k0, k1 = _key_words(key)
    if isinstance(p, np.ndarray):
        p_shape = p.shape
    else:
        p = _number(p, "p")
        p_shape = ()
    shape = p_shape if shape is None else _shape_tuple(shape)
    if np.broadcast_shapes(p_shape, shape) != shape:
        raise ValueError(f"transpyle.random.bernoulli: p of shape {p_shape} does not broadcast to shape {shape}")
    return _shaped(_uniform_flat(k0, k1, _size(shape), False, 0.0, 1.0), shape) < p


def random_randint(key, shape, minval, maxval):
    """Integers (int64) uniform in [minval, maxval) of the given shape; a number for ``shape=()``."""
    k0, k1 = _key_words(key)
    shape = _shape_tuple(shape)
    minval, maxval = _integer(minval, "minval"), _integer(maxval, "maxval")
    return _shaped(_randint_flat(k0, k1, _size(shape), minval, maxval), shape)


def random_permutation(key, x):
    """For an int ``x``, a random permutation of ``arange(x)``; for an array, a copy with its rows
    (axis 0) in random order (the permutation of ``len(x)`` for the same key)."""
    k0, k1 = _key_words(key)
    if isinstance(x, np.ndarray):
        if x.ndim == 0:
            raise TypeError("transpyle.random.permutation: x must be an int or an array of rank 1 or more")
        return x[_permutation_indices(k0, k1, x.shape[0])]
    n = _integer(x, "x (an int or an array)")
    if n < 0:
        raise ValueError(f"transpyle.random.permutation: x must be non-negative, got {n}")
    return _permutation_indices(k0, k1, n)


def _size(shape):
    n = 1
    for d in shape:
        n *= d
    return n



# -- the same functions in compiled code: typed by their arguments, calling the same kernels --------
def _jit_key_words(key):
    if key.shape[0] != 2:
        raise ValueError("transpyle.random: a key has shape (2,)")
    return np.int64(key[0]) & _MASK32, np.int64(key[1]) & _MASK32


register_jitable(_jit_key_words)


def _jit_rank(shape):
    """The rank of an array made with a shape of Numba type ``shape`` (an int or a tuple of ints)."""
    if isinstance(shape, types.Omitted):
        shape = shape.value
    if isinstance(shape, tuple):          # a default value, not a type
        return len(shape)
    if isinstance(shape, types.Integer):
        return 1
    if isinstance(shape, types.BaseTuple) and all(isinstance(t, types.Integer) for t in shape.types):
        return len(shape.types)
    return None


def _jit_dims(shape):
    """The shape as a tuple (an int n is (n,))."""
    return (shape,) if isinstance(shape, int) else tuple(shape)


@overload(_jit_dims, jit_options={"cache": True})
def _jit_dims_numba(shape):
    if isinstance(shape, types.Integer):
        return lambda shape: (shape,)
    return lambda shape: shape


@overload(_size, jit_options={"cache": True})
def _size_numba(shape):
    if isinstance(shape, types.BaseTuple) and len(shape.types) == 0:
        return lambda shape: 1

    def impl(shape):
        n = 1
        for d in literal_unroll(shape):
            n *= d
        return n
    return impl


def _jit_float(dtype):
    """np.float64 or np.float32 for a dtype argument's Numba type (a class, or omitted/None), else None."""
    if isinstance(dtype, types.Omitted):
        dtype = dtype.value
    if not isinstance(dtype, types.Type):    # a default value
        return np.float32 if dtype in (np.float32, "float32", "f4") else \
            np.float64 if dtype in (None, float, np.float64, "float64", "f8") else None
    if isinstance(dtype, types.NoneType):
        return np.float64
    if isinstance(dtype, types.NumberClass) and dtype.instance_type in (types.float64, types.float32):
        return np.float32 if dtype.instance_type == types.float32 else np.float64
    return None


def _is_int(t):
    return isinstance(t, (types.Integer, types.Omitted, int)) and not isinstance(t, (types.Boolean, bool))


def _is_number(t):
    return isinstance(t, (types.Integer, types.Float, types.Omitted, int, float)) and \
        not isinstance(t, (types.Boolean, bool))


def _is_key(t):
    return isinstance(t, types.Array) and t.ndim == 1 and isinstance(t.dtype, types.Integer)


@overload(random_key, jit_options={"cache": True})
def _random_key_numba(seed):
    if isinstance(seed, types.Integer):
        return lambda seed: _key_from_words((np.int64(seed) >> 32) & _MASK32, np.int64(seed) & _MASK32)


@overload(random_split, jit_options={"cache": True})
def _random_split_numba(key, num=2):
    if _is_key(key) and _is_int(num):
        def impl(key, num=2):
            k0, k1 = _jit_key_words(key)
            return _split_keys(k0, k1, num)
        return impl


@overload(random_fold_in, jit_options={"cache": True})
def _random_fold_in_numba(key, data):
    if _is_key(key) and isinstance(data, types.Integer):
        def impl(key, data):
            k0, k1 = _jit_key_words(key)
            return _fold_in_key(k0, k1, np.int64(data))
        return impl


@overload(random_uniform, jit_options={"cache": True})
def _random_uniform_numba(key, shape=(), dtype=float, minval=0.0, maxval=1.0):
    rank, cast = _jit_rank(shape), _jit_float(dtype)
    if not _is_key(key) or rank is None or cast is None or not (_is_number(minval) and _is_number(maxval)):
        return None
    single = cast is np.float32

    def impl(key, shape=(), dtype=float, minval=0.0, maxval=1.0):
        k0, k1 = _jit_key_words(key)
        dims = _jit_dims(shape)
        flat = _uniform_flat(k0, k1, _size(dims), single, np.float64(minval), np.float64(maxval))
        return flat.astype(cast).reshape(dims)

    def impl_scalar(key, shape=(), dtype=float, minval=0.0, maxval=1.0):
        k0, k1 = _jit_key_words(key)
        return cast(_uniform_flat(k0, k1, 1, single, np.float64(minval), np.float64(maxval))[0])
    return impl if rank else impl_scalar


@overload(random_normal, jit_options={"cache": True})
def _random_normal_numba(key, shape=(), dtype=float):
    rank, cast = _jit_rank(shape), _jit_float(dtype)
    if not _is_key(key) or rank is None or cast is None:
        return None

    def impl(key, shape=(), dtype=float):
        k0, k1 = _jit_key_words(key)
        dims = _jit_dims(shape)
        return _normal_flat(k0, k1, _size(dims)).astype(cast).reshape(dims)

    def impl_scalar(key, shape=(), dtype=float):
        k0, k1 = _jit_key_words(key)
        return cast(_normal_flat(k0, k1, 1)[0])
    return impl if rank else impl_scalar


@overload(random_bernoulli, jit_options={"cache": True})
def _random_bernoulli_numba(key, p=0.5, shape=None):
    if not _is_key(key) or not (_is_number(p) or isinstance(p, types.Array)):
        return None
    if shape is None or isinstance(shape, types.NoneType) or \
            (isinstance(shape, types.Omitted) and shape.value is None):
        if isinstance(p, types.Array):
            def impl_like(key, p=0.5, shape=None):
                k0, k1 = _jit_key_words(key)
                return _uniform_flat(k0, k1, p.size, False, 0.0, 1.0).reshape(p.shape) < p
            return impl_like

        def impl_one(key, p=0.5, shape=None):
            k0, k1 = _jit_key_words(key)
            return _uniform_flat(k0, k1, 1, False, 0.0, 1.0)[0] < p
        return impl_one
    rank = _jit_rank(shape)
    if rank is None:
        return None
    if rank == 0:
        def impl_scalar(key, p=0.5, shape=None):
            k0, k1 = _jit_key_words(key)
            return _uniform_flat(k0, k1, 1, False, 0.0, 1.0)[0] < p
        return impl_scalar

    def impl(key, p=0.5, shape=None):
        k0, k1 = _jit_key_words(key)
        dims = _jit_dims(shape)
        return _uniform_flat(k0, k1, _size(dims), False, 0.0, 1.0).reshape(dims) < p
    return impl


@overload(random_randint, jit_options={"cache": True})
def _random_randint_numba(key, shape, minval, maxval):
    rank = _jit_rank(shape)
    if not _is_key(key) or rank is None or not (_is_int(minval) and _is_int(maxval)):
        return None

    def impl(key, shape, minval, maxval):
        k0, k1 = _jit_key_words(key)
        dims = _jit_dims(shape)
        return _randint_flat(k0, k1, _size(dims), np.int64(minval), np.int64(maxval)).reshape(dims)

    def impl_scalar(key, shape, minval, maxval):
        k0, k1 = _jit_key_words(key)
        return _randint_flat(k0, k1, 1, np.int64(minval), np.int64(maxval))[0]
    return impl if rank else impl_scalar


@overload(random_permutation, jit_options={"cache": True})
def _random_permutation_numba(key, x):
    if not _is_key(key):
        return None
    if isinstance(x, types.Integer):
        def impl_range(key, x):
            k0, k1 = _jit_key_words(key)
            return _permutation_indices(k0, k1, x)
        return impl_range
    if isinstance(x, types.Array) and x.ndim >= 1:
        def impl(key, x):
            k0, k1 = _jit_key_words(key)
            return x[_permutation_indices(k0, k1, x.shape[0])]
        return impl
