"""Run-time helpers of every generated function: loop bounds, tapes, dtype conversion (np.clip in NumPy's
dtype too), the markers of custom rules and un-broadcasting (the adjoint of NumPy broadcasting).
Reductions along axes are in ``axis_reductions``, the products of the other elements (the derivative
of ``np.prod``) in ``exclusive_products``.

Each helper is a plain Python function with NumPy semantics (what the numpy backend runs) and,
where Numba needs one, an implementation registered with ``numba.extending.overload`` (what
compiled code runs).
"""
import numpy as np

from numba import types
from numba.extending import overload, register_jitable


# ---- loops -----------------------------------------------------------------------------------
def item(x):
    """``x.item()``: a number itself, or the one element of an array (transformed code writes it as an
    index, rules/conversions)."""
    return np.ravel(np.asarray(x))[0]


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


def conform(a, ref):
    """Whether the array ``a`` has the trailing axes of ``ref`` (NumPy broadcasts it without stretching
    an axis of length one): the test before an elementwise loop (``transforms/element_loops``)."""
    off = ref.ndim - a.ndim
    if off < 0:
        return False
    for j in range(a.ndim):
        if a.shape[j] != ref.shape[off + j]:
            return False
    return True


def stop_gradient(x):
    """``x`` itself; to the transforms, a value whose derivative is zero (as ``jax.lax.stop_gradient``).
    Applied to a pytree in transformed code, it applies to every leaf."""
    return x


stop_gradient.__transpyle_leafwise__ = True


def parallel_pays(count, fewest):
    """Whether an element loop nest over ``count`` elements runs on several threads: at least ``fewest``
    elements (``transforms/parallel_loops``). Not asking Numba for its thread count: compiled code that
    reads it holds the address of a function of the threading layer, and Numba's cache keeps no such code."""
    return count >= fewest


def recompute_here(x):
    """0: the marker a checkpointed function's body starts with in transformed code (``frontend/remat``);
    reverse mode recomputes the iterations of the loop around it instead of saving them."""
    return 0


for _helper in (trip_count, in_range, _copy_rows, push, reserve, array_tape, tape_push, tape_pop, conform,
                stop_gradient, recompute_here, parallel_pays):
    register_jitable(_helper)


# ---- dtype conversion ---------------------------------------------------------------------------
def astype(x, dtype):
    """``x.astype(dtype)``: a converted copy of an array; a number converted for a number."""
    return x.astype(dtype) if isinstance(x, np.ndarray) else dtype(x)


@overload(astype, jit_options={"cache": True})
def _astype_numba(x, dtype):
    if isinstance(x, types.Array):
        return lambda x, dtype: x.astype(dtype)
    return lambda x, dtype: dtype(x)


def clip(x, lo, hi):
    """``np.clip(x, lo, hi)`` in NumPy's dtype: Numba's np.clip clips an integer array to integers whatever
    the bounds, and takes no number as ``x``. NumPy defines it as minimum(maximum(x, lo), hi)."""
    return np.clip(x, lo, hi)


@overload(clip, jit_options={"cache": True})
def _clip_numba(x, lo, hi):
    return lambda x, lo, hi: np.minimum(np.maximum(x, lo), hi)


def select(c, a, b):
    """``np.where(c, a, b)`` of three numbers, as a number of NumPy's dtype: Numba's np.where of numbers is a
    0-d array, which a number rebound in a loop cannot also be."""
    return np.where(c, a, b)[()]


@overload(select, jit_options={"cache": True})
def _select_numba(c, a, b):
    return lambda c, a, b: a if c else b


# ---- custom derivative rules ---------------------------------------------------------------------
# Markers the inline pass writes where a call uses a custom rule (``transpyle.custom_jvp``,
# ``custom_vjp``); the transform gives them their derivatives, then they are replaced by plain values
# (transforms/custom_rules), so generated modules never call them.
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


# ---- 1-D convolution with NumPy's modes (Numba's np.convolve has the full mode only) --------------------
@register_jitable
def convolution_start(n, m, mode):
    """Where a mode's result starts in the full convolution of lengths ``n`` and ``m``, and its length."""
    big, small = max(n, m), min(n, m)
    if mode == "same":
        return (small - 1) // 2, big
    if mode == "valid":
        return small - 1, big - small + 1
    return 0, n + m - 1


def convolve(a, v, mode):
    """``np.convolve(a, v, mode)`` of 1-D arrays."""
    return np.convolve(a, v, mode)


@overload(convolve, jit_options={"cache": True})
def _convolve_numba(a, v, mode):
    def impl(a, v, mode):
        start, size = convolution_start(a.shape[0], v.shape[0], mode)
        return np.convolve(a, v)[start:start + size].copy()
    return impl


def convolution_cotangent(g, other, n, mode):
    """The cotangent of the convolved operand of length ``n`` from ``g``, the cotangent of
    ``convolve(operand, other, mode)``: ``g`` placed in the full convolution's length, correlated with
    ``other`` (its part of ``n`` entries)."""
    m = other.shape[0]
    start, size = convolution_start(n, m, mode)
    full = np.zeros(n + m - 1, np.result_type(g, other))
    full[start:start + size] = g
    return np.convolve(full, other[::-1])[m - 1:m - 1 + n].copy()


@overload(convolution_cotangent, jit_options={"cache": True})
def _convolution_cotangent_numba(g, other, n, mode):
    def impl(g, other, n, mode):
        m = other.shape[0]
        start, size = convolution_start(n, m, mode)
        full = np.zeros(n + m - 1, g.dtype)
        full[start:start + size] = g
        return np.convolve(full, other[::-1])[m - 1:m - 1 + n].copy()
    return impl
