"""Positions along one axis: ``gather_along`` (NumPy's ``np.take_along_axis``: positions of any length along
the axis, the operand's lengths on the others), its transpose ``scatter_along`` (each value added at its
position, into zeros shaped like another array), and ``argsort_along`` (``np.argsort`` along an axis, stable).
Numba has none of these along an axis of an array of any rank: each is written with loops over the array
seen as a (before, along, after) block around the axis, and runs unchanged under NumPy and Numba. The axis
may be negative; positions may be negative (counted from the end); a position out of range is an IndexError.
"""
import numpy as np

from numba.extending import register_jitable


def _around(shape, axis):
    """(the product of the lengths before ``axis``, its length, the product after) for a normalised axis."""
    before, after = 1, 1
    for d in range(axis):
        before *= shape[d]
    for d in range(axis + 1, len(shape)):
        after *= shape[d]
    return before, shape[axis], after


def _check_sides(shape, positions, axis):
    for d in range(len(shape)):
        if d != axis and shape[d] != positions[d]:
            raise ValueError("the positions must have the array's lengths on every axis but the one they index")


def gather_along(v, source, axis):
    """``np.take_along_axis(v, source, axis)``: the result has ``source``'s shape, and reads ``v`` at the
    position ``source`` holds along ``axis`` (the same place on the other axes)."""
    axis = axis % v.ndim
    _check_sides(v.shape, source.shape, axis)
    pre, n, post = _around(v.shape, axis)
    m = source.shape[axis]
    values = np.ascontiguousarray(v).reshape((pre, n, post))
    where = np.ascontiguousarray(source).reshape((pre, m, post))
    out = np.empty((pre, m, post), v.dtype)
    for a in range(pre):
        for i in range(m):
            for c in range(post):
                j = where[a, i, c]
                if j < 0:
                    j += n
                if j < 0 or j >= n:
                    raise IndexError("a position along the axis is out of range")
                out[a, i, c] = values[a, j, c]
    return out.reshape(source.shape)


def scatter_along(v, source, like, axis):
    """The transpose of ``gather_along``: zeros shaped like ``like`` (of ``v``'s dtype), with each value of
    ``v`` added at the position ``source`` holds for it along ``axis`` (a position given twice gets both)."""
    axis = axis % like.ndim
    _check_sides(like.shape, source.shape, axis)
    pre, n, post = _around(like.shape, axis)
    m = source.shape[axis]
    values = np.ascontiguousarray(v).reshape((pre, m, post))
    where = np.ascontiguousarray(source).reshape((pre, m, post))
    out = np.zeros((pre, n, post), v.dtype)
    for a in range(pre):
        for i in range(m):
            for c in range(post):
                j = where[a, i, c]
                if j < 0:
                    j += n
                if j < 0 or j >= n:
                    raise IndexError("a position along the axis is out of range")
                out[a, j, c] += values[a, i, c]
    return out.reshape(like.shape)


def argsort_along(x, axis):
    """``np.argsort(x, axis, kind="stable")``: the positions that sort each line along ``axis``."""
    axis = axis % x.ndim
    pre, n, post = _around(x.shape, axis)
    values = np.ascontiguousarray(x).reshape((pre, n, post))
    out = np.empty((pre, n, post), np.int64)
    line = np.empty(n, x.dtype)
    for a in range(pre):
        for c in range(post):
            for i in range(n):
                line[i] = values[a, i, c]
            order = np.argsort(line, kind="mergesort")
            for i in range(n):
                out[a, i, c] = order[i]
    return out.reshape(x.shape)


for _helper in (_around, _check_sides, gather_along, scatter_along, argsort_along):
    register_jitable(_helper)


__all__ = ["gather_along", "scatter_along", "argsort_along"]
