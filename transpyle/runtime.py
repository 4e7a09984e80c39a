"""Run-time helpers called by generated code: tapes, loop bounds, un-broadcasting, reductions, and
the counter-based random numbers behind ``transpyle.random``.

Each helper is a plain Python function with NumPy semantics (what the numpy backend runs) and
a Numba implementation registered with ``numba.extending.overload`` (what compiled code runs).
This module imports only numpy, numba and math, so it can be copied beside generated modules
that must run without transpyle installed.
"""
import numpy as np

from numba import literal_unroll, types
from numba.extending import overload, register_jitable


# ---- loops -----------------------------------------------------------------------------------
def trip_count(start, stop, step):
    """How many times ``for i in range(start, stop, step)`` runs."""
    if step > 0:
        return max(0, (stop - start + step - 1) // step)
    return max(0, (start - stop - step - 1) // (-step))


def in_range(i, stop, step):
    """Whether ``i`` is still inside ``range(..., stop, step)``."""
    return i < stop if step > 0 else i > stop


# ---- tapes -----------------------------------------------------------------------------------
def push(tape, top, value):
    """Store ``value`` at ``tape[top]``, doubling the tape when full; returns the tape."""
    if top == tape.shape[0]:
        bigger = np.empty(2 * tape.shape[0] + 16, tape.dtype)
        _copy_rows(tape, bigger, top)
        tape = bigger
    tape[top] = value
    return tape


def reserve(tape, size):
    """A tape with room for ``size`` entries (the trip count, when known before a loop). It grows
    at least twofold, so reserving before an inner loop on every outer iteration stays linear."""
    if size <= tape.shape[0]:
        return tape
    bigger = np.empty(max(size, 2 * tape.shape[0]), tape.dtype)
    _copy_rows(tape, bigger, tape.shape[0])
    return bigger


def array_tape(like):
    """An empty tape (a list) for arrays like ``like``; ``tape_push``/``tape_pop`` use it as a stack."""
    tape = [like]
    tape.pop()
    return tape


def tape_push(tape, value):
    # contiguous, so that the tape has one item type whatever views are saved (Numba types lists strictly)
    tape.append(np.ascontiguousarray(value))
    return tape


def tape_pop(tape):
    return tape.pop()


def _copy_rows(src, dst, count):
    # an explicit loop: Numba compiles a slice assignment ~10x slower (seconds on first use)
    for k in range(count):
        dst[k] = src[k]


def stack_like(n, item):
    """An uninitialized array of ``n`` items shaped like ``item`` (a number or an array)."""
    return np.empty((n,) + np.shape(item), np.asarray(item).dtype)


@overload(stack_like, jit_options={"cache": True})
def _stack_like_numba(n, item):
    if isinstance(item, types.Array):
        return lambda n, item: np.empty((n,) + item.shape, item.dtype)
    dtype = np.complex128 if isinstance(item, types.Complex) else np.int64 if isinstance(item, types.Integer) \
        else np.bool_ if isinstance(item, types.Boolean) else np.float64
    return lambda n, item: np.empty(n, dtype)


def stop_gradient(x):
    """``x`` itself; to the transforms, a value whose derivative is zero (as ``jax.lax.stop_gradient``).
    Applied to a pytree in transformed code, it applies to every leaf."""
    return x


stop_gradient.__transpyle_leafwise__ = True


for _helper in (trip_count, in_range, _copy_rows, push, reserve, array_tape, tape_push, tape_pop, stop_gradient):
    register_jitable(_helper)


# ---- custom derivative rules ---------------------------------------------------------------------
# Markers the inline pass writes where a call uses a custom rule (``transpyle.custom_jvp``,
# ``custom_vjp``); the transform gives them their derivatives, then they are replaced by plain values
# (passes/custom_rules), so generated modules never call them.
def custom_primal(x):
    """``x``, with no derivative: the primal operand of a custom jvp rule."""
    return x


def custom_tangent(x):
    """Zero shaped like ``x``, whose derivative is that of ``x``: a tangent operand of a jvp rule."""
    return np.zeros_like(x) if isinstance(x, np.ndarray) else type(x)(0)


def custom_output(value, tangent):
    """``value``, whose derivative is that of ``tangent`` (the tangent output of a jvp rule)."""
    return value


def custom_vjp_call(inputs, residuals, value, bwd, cotangents, nondiff):
    """``value``, whose adjoint sweep calls ``bwd(*nondiff, residuals, g)`` for the cotangents of ``inputs``."""
    return value


# ---- adjoints of broadcasting -------------------------------------------------------------------
def unbroadcast(g, x):
    """Sum ``g`` down to the shape of ``x`` (undoing NumPy broadcasting of ``x`` into ``g``)."""
    xs = np.shape(x)
    gs = np.shape(g)
    if gs == xs:
        return g
    if not xs:
        return np.sum(g)
    lead = len(gs) - len(xs)
    g = np.sum(g, axis=tuple(range(lead))) if lead > 0 else g
    axes = tuple(k for k, n in enumerate(xs) if n == 1 and g.shape[k] != 1)
    return np.sum(g, axis=axes, keepdims=True) if axes else g


@overload(unbroadcast, jit_options={"cache": True})
def _unbroadcast_numba(g, x):
    if not isinstance(g, types.Array):
        return lambda g, x: g
    if not isinstance(x, types.Array):
        return lambda g, x: np.sum(g)
    gnd, xnd = g.ndim, x.ndim
    lead = gnd - xnd

    def impl(g, x):
        if gnd == xnd:
            same = True
            for k in range(gnd):
                if g.shape[k] != x.shape[k]:
                    same = False
            if same:
                return np.ascontiguousarray(g)
        flat = np.ascontiguousarray(g).ravel()
        out = np.zeros(x.size, g.dtype)
        for f in range(flat.size):
            rem = f
            xi = 0
            mult = 1
            for k in range(gnd - 1, -1, -1):
                ik = rem % g.shape[k]
                rem //= g.shape[k]
                kx = k - lead
                if kx >= 0:
                    n = x.shape[kx]
                    if n != 1:
                        xi += ik * mult
                    mult *= n
            out[xi] += flat[f]
        return out.reshape(x.shape)
    return impl


def prod_others(x):
    """For each element, the product of all the other elements (exact with zeros)."""
    flat = np.ravel(x)
    n = flat.size
    out = np.empty(n, flat.dtype)
    acc = 1.0
    for i in range(n):
        out[i] = acc
        acc *= flat[i]
    acc = 1.0
    for i in range(n - 1, -1, -1):
        out[i] *= acc
        acc *= flat[i]
    return out.reshape(np.shape(x))


register_jitable(prod_others)


# ---- reductions along one axis (NumPy semantics; Numba lacks axis/keepdims for most) ------------
def sum_axis(x, axis, keepdims):
    return np.sum(x, axis=axis, keepdims=keepdims)


def mean_axis(x, axis, keepdims):
    return np.mean(x, axis=axis, keepdims=keepdims)


def prod_axis(x, axis, keepdims):
    return np.prod(x, axis=axis, keepdims=keepdims)


def max_axis(x, axis, keepdims):
    return np.max(x, axis=axis, keepdims=keepdims)


def min_axis(x, axis, keepdims):
    return np.min(x, axis=axis, keepdims=keepdims)


_COMBINE = {"sum": ("0", "acc + v"), "mean": ("0", "acc + v"), "prod": ("1", "acc * v"),
            "max": ("FIRST", "max(acc, v)"), "min": ("FIRST", "min(acc, v)")}


def _reduce_impl(op, ndim, axis, keepdims, out_dtype):
    """Source of a Numba implementation for one (op, rank, axis, keepdims): plain nested loops,
    outer ones over the kept dimensions, inner ones over the reduced ones (Numba compiles
    transpose/reshape pipelines for seconds; these loops compile in a fraction of that)."""
    axes = list(range(ndim)) if axis is None else [axis]
    keep = [k for k in range(ndim) if k not in axes]
    idx = [f"i{k}" for k in range(ndim)]
    start, step = _COMBINE[op]
    first = "x[" + ", ".join("0" if k in axes else idx[k] for k in range(ndim)) + "]"
    start = first if start == "FIRST" else start
    count = " * ".join(f"x.shape[{k}]" for k in axes)
    kept_shape = ", ".join(f"x.shape[{k}]" for k in keep)
    lines = ["def impl(x, axis, keepdims):"]
    if keep:
        lines.append(f"    out = np.empty(({kept_shape},), out_dtype)")
    depth = 1
    for k in keep:
        lines.append("    " * depth + f"for {idx[k]} in range(x.shape[{k}]):")
        depth += 1
    lines.append("    " * depth + f"acc = {start}")
    inner = depth
    for k in axes:
        lines.append("    " * depth + f"for {idx[k]} in range(x.shape[{k}]):")
        depth += 1
    lines.append("    " * depth + f"v = x[{', '.join(idx)}]")
    lines.append("    " * depth + f"acc = {step}")
    if op == "mean":
        lines.append("    " * inner + f"acc = acc / ({count})")
    if keep:
        lines.append("    " * inner + f"out[{', '.join(idx[k] for k in keep)}] = acc")
        result = "out"
    else:
        result = "acc"
    if keepdims:
        shape = ", ".join(f"x.shape[{k}]" if k in keep else "1" for k in range(ndim))
        if keep:
            result = f"out.reshape(({shape},))"
        else:
            lines.append(f"    out = np.empty(({shape},), out_dtype)")
            lines.append(f"    out[{', '.join('0' for _ in range(ndim))}] = acc")
            result = "out"
    lines.append(f"    return {result}" if keep or keepdims else "    return out_type(acc)")
    out_dtype = np.dtype(out_dtype)
    scope = {"np": np, "out_dtype": out_dtype, "out_type": out_dtype.type}
    exec("\n".join(lines), scope)
    return scope["impl"]


def _register_reduction(func, op):
    def typer(x, axis, keepdims):
        if not isinstance(x, types.Array):
            return None
        ax = getattr(axis, "literal_value", None)
        keep = bool(getattr(keepdims, "literal_value", False))
        if isinstance(axis, types.Integer) and ax is None:
            return None       # the axis must be a constant
        dt = x.dtype
        if op == "mean" or isinstance(dt, types.Boolean):
            out_dtype = np.float64
        else:
            out_dtype = np.dtype(str(dt))
        return _reduce_impl(op, x.ndim, ax, keep, out_dtype)
    overload(func, prefer_literal=True)(typer)


for _f, _op in ((sum_axis, "sum"), (mean_axis, "mean"), (prod_axis, "prod"), (max_axis, "max"),
                (min_axis, "min")):
    _register_reduction(_f, _op)


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


# ---- linear algebra --------------------------------------------------------------------------------
# The parts of NumPy's multi-output functions (``np.linalg.eigh(a)`` is resolved to the tuple
# ``(rt.eigh_values(a), rt.eigh_vectors(a))``), the matrix norms Numba lacks, a triangular solve, and
# the adjoints and tangents that need a factorization (each recomputes the one it needs). Written
# in the subset Numba compiles, so both backends run the same code. Real matrices whose eigenvalues
# may be complex are converted to complex128 first (Numba's eig only returns complex eigenvalues
# for complex input).
def _sym(x):
    return 0.5 * (x + x.T)


def _complex(a):
    return a.astype(np.complex128)


def _gap_inverse(w):
    """F[i, j] = 1 / (w[j] - w[i]) off the diagonal, 0 on it (inf where eigenvalues repeat)."""
    n = w.shape[0]
    eye = np.eye(n, dtype=w.dtype)
    return 1.0 / (w.reshape((1, n)) - w.reshape((n, 1)) + eye) - eye


def slogdet_sign(a):
    return np.linalg.slogdet(a)[0]


def slogdet_logdet(a):
    return np.linalg.slogdet(a)[1]


def eigh_values(a):
    return np.linalg.eigh(a)[0]


def eigh_vectors(a):
    return np.linalg.eigh(a)[1]


def eig_values(a):
    return np.linalg.eigvals(_complex(a))


def eig_vectors(a):
    return np.linalg.eig(_complex(a))[1]


def qr_q(a):
    return np.linalg.qr(a)[0]


def qr_r(a):
    return np.linalg.qr(a)[1]


def svd_u(a, full_matrices=True):
    return np.linalg.svd(a, full_matrices)[0]


def svd_s(a, full_matrices=True):
    return np.linalg.svd(a, full_matrices)[1]


def svd_vh(a, full_matrices=True):
    return np.linalg.svd(a, full_matrices)[2]


def lstsq_solution(a, b):
    return np.linalg.lstsq(a, b)[0]


def lstsq_residuals(a, b):
    return np.linalg.lstsq(a, b)[1]


def lstsq_rank(a, b):
    return np.linalg.lstsq(a, b)[2]


def lstsq_singular_values(a, b):
    return np.linalg.lstsq(a, b)[3]


def nuclear_norm(x):
    return np.sum(np.linalg.svd(x, False)[1])


def solve_triangular(a, b, lower):
    """x with a @ x = b for a triangular ``a`` (only its ``lower`` or upper triangle is read); ``b`` a
    vector or a matrix. Substitution loops: scipy.linalg.solve_triangular does not compile in Numba."""
    return _substitute(a, b, lower)


def _substitute(a, b, lower):
    # row by row: each row of x is one dot product of a row of a with the rows already solved
    # (contiguous, BLAS-backed on both backends)
    n = a.shape[0]
    b = np.ascontiguousarray(b)
    x = np.zeros(b.shape, a.dtype) + np.zeros(b.shape, b.dtype)      # the promoted dtype, on both backends
    a = np.ascontiguousarray(a).astype(x.dtype)
    x2 = x.reshape((n, -1))
    b2 = b.reshape((n, -1))
    for step in range(n):
        i = step if lower else n - 1 - step
        lo, hi = (0, i) if lower else (i + 1, n)
        x2[i] = (b2[i] - np.dot(a[i, lo:hi], x2[lo:hi])) / a[i, i]
    return x


# -- adjoints (``_vjp``: cotangent g of the output -> contribution to the operand) and tangents
def matrix_power(a, n):
    """a^n by repeated squaring (inverse first for n < 0); Numba's matrix_power types its result as
    optional, which the arithmetic on it then refuses."""
    base = np.linalg.inv(a) if n < 0 else np.ascontiguousarray(a) + 0.0 * a[0, 0]
    m = -n if n < 0 else n
    out = np.eye(a.shape[0], dtype=base.dtype)
    while m > 0:
        if m % 2 == 1:
            out = np.dot(out, base)
        base = np.dot(base, base)
        m //= 2
    return out


def identity_like(a):
    """The identity with the shape of ``a`` (ones on the main diagonal): the cotangent of a trace."""
    return np.eye(a.shape[0], a.shape[1])


def _power_tangent(a, n, t):
    """d(a^n) along t for n >= 0: D_{k+1} = D_k a + a^k t."""
    d = np.zeros_like(t)
    p = np.eye(a.shape[0], dtype=a.dtype)
    for k in range(n):
        d = np.dot(d, a) + np.dot(p, t)
        p = np.dot(p, a)
    return d


def matrix_power_jvp(a, n, t):
    if n >= 0:
        return _power_tangent(a, n, t)
    p = np.linalg.inv(a)
    return _power_tangent(p, -n, -np.dot(np.dot(p, t), p))


def matrix_power_vjp(a, n, g):
    # the transpose of the tangent map: the same sum with a.T and g
    if n >= 0:
        return _power_tangent(np.ascontiguousarray(a.T), n, g)
    p = np.ascontiguousarray(np.linalg.inv(a).T)
    return -np.dot(np.dot(p, _power_tangent(p, -n, g)), p)


def norm2_direction(x, which):
    """d(sigma)/dx for the largest (which=0) or smallest (which=-1) singular value of x: the conjugate
    of u v^T, so that d sigma = Re(sum(direction * dx))."""
    u, s, vh = np.linalg.svd(x, False)
    k = which % s.shape[0]
    return np.conj(np.outer(u[:, k], vh[k, :]))


def nuclear_direction(x):
    u, s, vh = np.linalg.svd(x, False)
    return np.conj(np.dot(u, vh))


def eigh_values_vjp(a, g):
    v = np.linalg.eigh(a)[1]
    return np.dot(v * g.reshape((1, g.shape[0])), v.T)


def eigh_values_jvp(a, t):
    v = np.linalg.eigh(a)[1]
    return np.diag(np.dot(v.T, np.dot(_sym(t), v)))


def eigh_vectors_vjp(a, v, g):
    w = np.linalg.eigh(a)[0]
    return _sym(np.dot(v, np.dot(_gap_inverse(w) * np.dot(v.T, g), v.T)))


def eigh_vectors_jvp(a, v, t):
    w = np.linalg.eigh(a)[0]
    return np.dot(v, _gap_inverse(w) * np.dot(v.T, np.dot(_sym(t), v)))


def eig_values_vjp(a, g):
    # dl = diag(V^-1 da V), so abar = V^-T diag(g) V^T (a real matrix takes the real part)
    v = np.linalg.eig(_complex(a))[1]
    vt = np.ascontiguousarray(v.T)
    return np.linalg.solve(vt, g.reshape((g.shape[0], 1)) * vt)


def eig_values_jvp(a, t):
    v = np.linalg.eig(_complex(a))[1]
    return np.diag(np.dot(np.linalg.solve(v, _complex(t)), v))


def cholesky_vjp(l, g):
    """Murray's adjoint, symmetrized: abar = sym(L^-T Phi(L^T g) L^-1), Phi = lower triangle with the
    diagonal halved; the two inverses are triangular solves."""
    p = np.tril(np.dot(l.T, g))
    for i in range(p.shape[0]):
        p[i, i] *= 0.5
    lt = np.ascontiguousarray(l.T)
    s = _substitute(lt, p, False)                                     # L^-T P
    s = _substitute(lt, np.ascontiguousarray(s.T), False).T           # (L^-T (L^-T P)^T)^T = L^-T P L^-1
    return _sym(s)


def cholesky_jvp(l, t):
    # dL = L Phi(L^-1 sym(t) L^-T)
    x = _substitute(l, _sym(t), True)
    x = _substitute(l, np.ascontiguousarray(x.T), True)
    p = np.tril(x)
    for i in range(p.shape[0]):
        p[i, i] *= 0.5
    return np.dot(l, p)


for _helper in (_sym, _complex, _gap_inverse, slogdet_sign, slogdet_logdet, eigh_values, eigh_vectors, eig_values,
                eig_vectors, qr_q, qr_r, svd_u, svd_s, svd_vh, lstsq_solution, lstsq_residuals, lstsq_rank,
                lstsq_singular_values, nuclear_norm, solve_triangular, matrix_power, identity_like, _substitute, _power_tangent, matrix_power_jvp,
                matrix_power_vjp, norm2_direction, nuclear_direction, eigh_values_vjp, eigh_values_jvp,
                eigh_vectors_vjp, eigh_vectors_jvp, eig_values_vjp, eig_values_jvp, cholesky_vjp, cholesky_jvp):
    register_jitable(_helper)


def qr_q_vjp(a, g):
    q, r = np.linalg.qr(a)
    return _qr_vjp(q, r, g, np.zeros_like(r))


def qr_r_vjp(a, g):
    q, r = np.linalg.qr(a)
    return _qr_vjp(q, r, np.zeros_like(q), g)


def _qr_vjp(q, r, gq, gr):
    # abar = (gq + Q copyltu(M)) R^-T with M = R gr^T - gq^T Q (reduced QR, m >= n)
    m = np.dot(r, gr.T) - np.dot(gq.T, q)
    b = gq + np.dot(q, np.tril(m) + np.tril(m, -1).T)
    return _substitute(r, np.ascontiguousarray(b.T), False).T


def _qr_tangent(a, t):
    q, r = np.linalg.qr(a)
    x = _substitute(np.ascontiguousarray(r.T), np.ascontiguousarray(t.T), True).T     # t R^-1
    c = np.dot(q.T, x)
    low = np.tril(c, -1)
    omega = low - low.T
    return q, r, x, c, omega


def qr_q_jvp(a, t):
    q, r, x, c, omega = _qr_tangent(a, t)
    return x - np.dot(q, c - omega)


def qr_r_jvp(a, t):
    q, r, x, c, omega = _qr_tangent(a, t)
    return np.dot(c - omega, r)


def _svd_parts(a):
    u, s, vh = np.linalg.svd(a, False)
    return u, s, vh, _gap_inverse(s * s)


def svd_jvp(a, t, which):
    """Tangent of part ``which`` (0 u, 2 vh; s is ``svd_s_jvp``) of the reduced SVD (JAX's rule)."""
    u, s, vh, f = _svd_parts(a)
    v = np.ascontiguousarray(vh.T)
    ds = np.dot(u.T, np.dot(t, v))
    k = s.shape[0]
    srow = s.reshape((1, k))
    if which == 0:
        dss = ds * srow
        du = np.dot(u, f * (dss + dss.T))
        if a.shape[0] > k:
            dav = np.dot(t, v)
            du = du + (dav - np.dot(u, np.dot(u.T, dav))) / srow
        return du
    sds = srow.T * ds
    dv = np.dot(v, f * (sds + sds.T))
    if a.shape[1] > k:
        dau = np.dot(t.T, u)
        dv = dv + (dau - np.dot(v, np.dot(vh, dau))) / srow
    return np.ascontiguousarray(dv.T)


def svd_s_jvp(a, t):
    u, s, vh = np.linalg.svd(a, False)
    return np.diag(np.dot(u.T, np.dot(t, vh.T))).copy()


def svd_vjp(a, g, which):
    """Adjoint of part ``which`` of the reduced SVD: the transpose of ``svd_jvp`` (Townsend's formula)."""
    u, s, vh, f = _svd_parts(a)
    v = np.ascontiguousarray(vh.T)
    k = s.shape[0]
    srow = s.reshape((1, k))
    if which == 1:
        return np.dot(u * g.reshape((1, k)), vh)
    if which == 0:
        j = f * np.dot(u.T, g)
        inner = (j + j.T) * srow
        out = np.dot(u, np.dot(inner, vh))
        if a.shape[0] > k:
            proj = g - np.dot(u, np.dot(u.T, g))
            out = out + np.dot(proj / srow, vh)
        return out
    gv = np.ascontiguousarray(g.T)
    j = f * np.dot(v.T, gv)
    inner = srow.T * (j + j.T)
    out = np.dot(u, np.dot(inner, vh))
    if a.shape[1] > k:
        proj = gv - np.dot(v, np.dot(vh, gv))
        out = out + np.dot(u / srow, proj.T)
    return out


def pinv_jvp(a, p, t):
    m, n = a.shape
    return (-np.dot(p, np.dot(t, p)) + np.dot(np.dot(p, p.T), np.dot(t.T, np.eye(m) - np.dot(a, p)))
            + np.dot(np.eye(n) - np.dot(p, a), np.dot(t.T, np.dot(p.T, p))))


def pinv_vjp(a, p, g):
    m, n = a.shape
    return (-np.dot(p.T, np.dot(g, p.T)) + np.dot(np.eye(m) - np.dot(a, p), np.dot(g.T, np.dot(p, p.T)))
            + np.dot(np.dot(p.T, p), np.dot(g.T, np.eye(n) - np.dot(p, a))))


for _helper in (qr_q_vjp, qr_r_vjp, _qr_vjp, _qr_tangent, qr_q_jvp, qr_r_jvp, _svd_parts, svd_jvp, svd_s_jvp, svd_vjp,
                pinv_jvp, pinv_vjp):
    register_jitable(_helper)
