"""Run-time helpers of NumPy's ufunc methods: scans along an axis (``np.add.accumulate`` is
``cumsum_axis``, the running maximum ``cummax_axis``...), the gathers and scatters their
derivatives use, the left operand of ``f.outer`` and unbuffered writes at indices (``np.add.at``).

Numba has no ufunc methods, so each helper is written with loops over an array seen as a
(before, along, after) block around the axis; they run unchanged under NumPy and Numba. The axis
may be negative. Helpers whose result rank depends on the operands' ranks have a Numba overload.
"""
import numpy as np

from numba import types
from numba.extending import overload, register_jitable


def _blocks(x, axis):
    """``x`` as a C-contiguous (before, along, after) block around ``axis``, and that axis."""
    axis = axis % x.ndim
    pre, post = 1, 1
    for d in range(axis):
        pre *= x.shape[d]
    for d in range(axis + 1, x.ndim):
        post *= x.shape[d]
    return np.ascontiguousarray(x).reshape((pre, x.shape[axis], post))


# ---- scans: y[..., i, ...] combines x[..., :i + 1, ...] -------------------------------------------
def cumsum_axis(x, axis):
    """``np.add.accumulate(x, axis)``."""
    b = _blocks(x, axis)
    out = np.empty(b.shape, b.dtype)
    for a in range(b.shape[0]):
        for c in range(b.shape[2]):
            acc = b[a, 0, c] - b[a, 0, c]
            for i in range(b.shape[1]):
                acc += b[a, i, c]
                out[a, i, c] = acc
    return out.reshape(x.shape)


def rcumsum_axis(x, axis):
    """Sums of x[..., i:, ...] along ``axis``: the transpose of ``cumsum_axis``."""
    b = _blocks(x, axis)
    out = np.empty(b.shape, b.dtype)
    for a in range(b.shape[0]):
        for c in range(b.shape[2]):
            acc = b[a, 0, c] - b[a, 0, c]
            for i in range(b.shape[1] - 1, -1, -1):
                acc += b[a, i, c]
                out[a, i, c] = acc
    return out.reshape(x.shape)


def cumprod_axis(x, axis):
    """``np.multiply.accumulate(x, axis)``."""
    b = _blocks(x, axis)
    out = np.empty(b.shape, b.dtype)
    for a in range(b.shape[0]):
        for c in range(b.shape[2]):
            acc = b[a, 0, c] - b[a, 0, c] + 1
            for i in range(b.shape[1]):
                acc *= b[a, i, c]
                out[a, i, c] = acc
    return out.reshape(x.shape)


def cumprod_jvp(x, t, axis):
    """The tangent of ``cumprod_axis(x, axis)`` along ``t``: dy[i] = dy[i-1] x[i] + y[i-1] t[i], a
    forward recurrence that needs no division (exact where x has zeros); ``t`` is shaped like ``x``."""
    b, d = _blocks(x, axis), _blocks(t, axis)
    out = np.empty(d.shape, d.dtype)
    for a in range(b.shape[0]):
        for c in range(b.shape[2]):
            y, dy = 1.0 + 0.0 * b[a, 0, c], 0.0 * d[a, 0, c]
            for i in range(b.shape[1]):
                dy = dy * b[a, i, c] + y * d[a, i, c]
                y *= b[a, i, c]
                out[a, i, c] = dy
    return out.reshape(t.shape)


def cumprod_vjp(x, g, axis):
    """The transpose of ``cumprod_jvp`` applied to ``g``: with the adjoint of y[i] carried backwards,
    c[i] = g[i] + x[i+1] c[i+1], the cotangent of x[i] is c[i] y[i-1]."""
    b, h = _blocks(x, axis), _blocks(g, axis)
    out = np.empty(h.shape, h.dtype)
    before = np.empty(b.shape[1], b.dtype)
    for a in range(b.shape[0]):
        for c in range(b.shape[2]):
            y = 1.0 + 0.0 * b[a, 0, c]
            for i in range(b.shape[1]):
                before[i] = y
                y *= b[a, i, c]
            carry = 0.0 * h[a, 0, c]
            for i in range(b.shape[1] - 1, -1, -1):
                carry = h[a, i, c] + (b[a, i + 1, c] * carry if i + 1 < b.shape[1] else 0.0 * carry)
                out[a, i, c] = carry * before[i]
    return out.reshape(g.shape)


def cummax_axis(x, axis):
    """``np.maximum.accumulate(x, axis)``."""
    b = _blocks(x, axis)
    out = np.empty(b.shape, b.dtype)
    for a in range(b.shape[0]):
        for c in range(b.shape[2]):
            acc = b[a, 0, c]
            for i in range(b.shape[1]):
                acc = max(acc, b[a, i, c])
                out[a, i, c] = acc
    return out.reshape(x.shape)


def cummin_axis(x, axis):
    """``np.minimum.accumulate(x, axis)``."""
    b = _blocks(x, axis)
    out = np.empty(b.shape, b.dtype)
    for a in range(b.shape[0]):
        for c in range(b.shape[2]):
            acc = b[a, 0, c]
            for i in range(b.shape[1]):
                acc = min(acc, b[a, i, c])
                out[a, i, c] = acc
    return out.reshape(x.shape)


def _running_source(x, axis, sign):
    """For each position along ``axis``, the position that holds the running extreme there: the latest one
    whose value attains it (``sign`` 1 for the maximum, -1 for the minimum), so a tie moves the source."""
    b = _blocks(x, axis)
    out = np.empty(b.shape, np.int64)
    for a in range(b.shape[0]):
        for c in range(b.shape[2]):
            best = b[a, 0, c]
            at = 0
            for i in range(b.shape[1]):
                v = b[a, i, c]
                if sign * v >= sign * best:
                    best = v
                    at = i
                out[a, i, c] = at
    return out.reshape(x.shape)


def running_argmax(x, axis):
    """The position along ``axis`` each element of ``np.maximum.accumulate(x, axis)`` comes from."""
    return _running_source(x, axis, 1)


def running_argmin(x, axis):
    """The position along ``axis`` each element of ``np.minimum.accumulate(x, axis)`` comes from."""
    return _running_source(x, axis, -1)


def take_along(v, source, axis):
    """``v`` read at positions ``source`` along ``axis`` (``np.take_along_axis`` with same-shaped indices)."""
    b, s = _blocks(v, axis), _blocks(source, axis)
    out = np.empty(b.shape, b.dtype)
    for a in range(b.shape[0]):
        for c in range(b.shape[2]):
            for i in range(b.shape[1]):
                out[a, i, c] = b[a, s[a, i, c], c]
    return out.reshape(v.shape)


def put_along(v, source, axis):
    """The transpose of ``take_along``: each element of ``v`` added at its position ``source`` along ``axis``."""
    b, s = _blocks(v, axis), _blocks(source, axis)
    out = np.zeros(b.shape, b.dtype)
    for a in range(b.shape[0]):
        for c in range(b.shape[2]):
            for i in range(b.shape[1]):
                out[a, s[a, i, c], c] += b[a, i, c]
    return out.reshape(v.shape)


for _helper in (_blocks, cumsum_axis, rcumsum_axis, cumprod_axis, cumprod_jvp, cumprod_vjp, cummax_axis,
                cummin_axis, _running_source, running_argmax, running_argmin, take_along, put_along):
    register_jitable(_helper)


# ---- f.outer(a, b) = f(a[..., None, ..., None], b) ------------------------------------------------
def outer_left(a, b):
    """``a`` with one length-1 axis appended per axis of ``b``: broadcast against ``b`` it gives the
    operand pairs of ``f.outer(a, b)``. A number is returned as it is (it broadcasts by itself)."""
    if np.ndim(a) == 0:
        return a
    return np.reshape(a, np.shape(a) + (1,) * np.ndim(b))


@overload(outer_left, jit_options={"cache": True})
def _outer_left_numba(a, b):
    if not isinstance(a, types.Array):
        return lambda a, b: a
    ones = (1,) * (b.ndim if isinstance(b, types.Array) else 0)
    return lambda a, b: np.ascontiguousarray(a).reshape(a.shape + ones)


# ---- np.add.at(a, indices, v): unbuffered writes at integer indices along the first axis -----------
def _combine(op, old, new):
    """old (op) new, elementwise: op 0 adds, 1 multiplies, 2 takes the maximum, 3 the minimum."""
    if op == 0:
        return old + new
    if op == 1:
        return old * new
    if op == 2:
        return np.maximum(old, new)
    return np.minimum(old, new)


def _at_rows(a, indices, v, op):
    """A copy of ``a`` with ``v`` combined into ``a[indices]`` element by element, a repeated index
    combining every value given for it; ``indices`` an integer array of any shape."""
    out = np.copy(a)
    positions = np.ravel(np.asarray(indices))
    width = a.size // a.shape[0] if a.shape[0] else 0
    rows = np.ascontiguousarray(np.broadcast_to(np.asarray(v), indices.shape + a.shape[1:]))
    rows = rows.reshape((positions.size, width))
    flat_out = out.reshape((a.shape[0], width))
    for k in range(positions.size):
        row = positions[k]
        for j in range(width):
            flat_out[row, j] = _combine(op, flat_out[row, j], rows[k, j])
    return out


def _at(a, indices, v, op):
    if np.ndim(indices) == 0:
        out = np.copy(a)
        out[indices] = _combine(op, out[indices], v)
        return out
    return _at_rows(a, np.asarray(indices), v, op)


@overload(_at, jit_options={"cache": True})
def _at_numba(a, indices, v, op):
    if isinstance(indices, types.Integer):
        def impl(a, indices, v, op):
            out = np.copy(a)
            out[indices] = _combine(op, out[indices], v)
            return out
        return impl
    return lambda a, indices, v, op: _at_rows(a, indices, v, op)


def add_at(a, indices, v):
    """``np.add.at`` on a copy of ``a``, which it returns."""
    return _at(a, indices, v, 0)


def multiply_at(a, indices, v):
    """``np.multiply.at`` on a copy of ``a``, which it returns."""
    return _at(a, indices, v, 1)


def maximum_at(a, indices, v):
    """``np.maximum.at`` on a copy of ``a``, which it returns."""
    return _at(a, indices, v, 2)


def minimum_at(a, indices, v):
    """``np.minimum.at`` on a copy of ``a``, which it returns."""
    return _at(a, indices, v, 3)


def _take_rows(v, indices):
    positions = np.ravel(indices)
    width = v.size // v.shape[0] if v.shape[0] else 0
    flat = np.ascontiguousarray(v).reshape((v.shape[0], width))
    out = np.empty((positions.size, width), v.dtype)
    for k in range(positions.size):
        for j in range(width):
            out[k, j] = flat[positions[k], j]
    return out.reshape(indices.shape + v.shape[1:])


def take_at(v, indices):
    """``v[indices]`` for an integer or an integer array ``indices`` along the first axis: the transpose
    of the write ``add_at`` makes with its third operand."""
    if np.ndim(indices) == 0:
        return np.copy(v[indices]) if np.ndim(v) > 1 else v[indices]
    return _take_rows(v, np.asarray(indices))


@overload(take_at, jit_options={"cache": True})
def _take_at_numba(v, indices):
    if isinstance(indices, types.Integer):
        if v.ndim == 1:
            return lambda v, indices: v[indices]
        return lambda v, indices: np.copy(v[indices])
    return lambda v, indices: _take_rows(v, indices)


for _helper in (_combine, _at_rows, add_at, multiply_at, maximum_at, minimum_at, _take_rows):
    register_jitable(_helper)
