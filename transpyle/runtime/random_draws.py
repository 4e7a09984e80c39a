"""The public functions of ``transpyle.random`` as generated code calls them (``rt.random_uniform``...):
keys from seeds, split and fold_in, and the draws of a shape and dtype. Each checks its arguments and
runs a whole draw of ``random_bits`` eagerly in NumPy, and has a Numba implementation, typed by its
arguments, that runs the same draw compiled."""
import numpy as np

from numba import literal_unroll, types
from numba.extending import overload, register_jitable

# the whole draws and key words these functions are written with (private: not rt names of their own)
from .random_bits import (_MASK32, _fold_in_key, _key_from_words, _normal_flat, _permutation_indices, _randint_flat,
                          _split_keys, _uniform_flat)

_KEY_HELP = "a key is a uint32 array of shape (2,) made by transpyle.random.key(seed), split or fold_in"


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


def random_choice(key, a, shape=(), replace=True, p=None, axis=0):
    """Draws from ``a`` (an int n stands for arange(n); for an array, its slices along ``axis``), of the given
    shape: with replacement, uniformly (``randint``) or with probabilities ``p`` (uniforms placed in their
    cumulative sum); without, the first of a ``permutation``, or with ``p`` the largest log p plus Gumbel
    noise. Eager only: it has no rule in transformed code."""
    k0, k1 = _key_words(key)
    population = None
    if isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_)):
        n = int(a)
    else:
        population = np.asarray(a)
        if population.ndim == 0:
            raise ValueError("transpyle.random.choice: a must be an int or an array of rank 1 or more")
        n = population.shape[axis]
    shape = _shape_tuple(shape)
    size = _size(shape)
    weights = None if p is None else np.asarray(p, dtype=np.float64)
    if weights is not None and weights.shape != (n,):
        raise ValueError(f"transpyle.random.choice: p must have shape ({n},), got {weights.shape}")
    if replace:
        if weights is None:
            picked = _randint_flat(k0, k1, size, 0, n)
        else:
            cumulative = np.cumsum(weights)
            u = _uniform_flat(k0, k1, size, False, 0.0, 1.0) * cumulative[-1]
            picked = np.minimum(np.searchsorted(cumulative, u, side="right"), n - 1)
    else:
        if size > n:
            raise ValueError(f"transpyle.random.choice: cannot take {size} samples without replacement from {n}")
        if weights is None:
            picked = _permutation_indices(k0, k1, n)[:size]
        else:
            u = _uniform_flat(k0, k1, n, False, 0.0, 1.0)
            with np.errstate(divide="ignore"):
                noisy = np.log(weights) - np.log(-np.log(u + (u == 0.0) * 2.0 ** -1074))
            picked = np.argsort(-noisy, kind="stable")[:size]
    picked = picked.astype(np.int64).reshape(shape)
    if population is None:
        return picked[()] if shape == () else picked
    return np.take(population, picked, axis=axis)


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
