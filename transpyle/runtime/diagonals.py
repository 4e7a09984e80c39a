"""Diagonals along two axes: ``diagonal(x, offset, axis1, axis2)`` (NumPy's np.diagonal, as a new array)
and ``diagonal_vjp(g, x, offset, axis1, axis2)``, zeros shaped like ``x`` with ``g`` on those diagonals
(its adjoint). Both move the two axes last and work on a stack of matrices; Numba's implementations
are specialized on the constant axes (Numba has np.diagonal of matrices only).
"""
import numpy as np

from numba.extending import overload, register_jitable


def _span(n, m, offset):
    """(first row, first column, length) of diagonal ``offset`` of an n x m matrix."""
    row, col = max(-offset, 0), max(offset, 0)
    return row, col, max(min(n - row, m - col), 0)


def _count(x):
    """How many matrices the stack ``x`` (its last two axes a matrix) holds; 0 for matrices of no elements."""
    cells = x.shape[-2] * x.shape[-1]
    return x.size // cells if cells else 0


def _diagonal_last(x, offset):
    n, m = x.shape[-2], x.shape[-1]
    row, col, d = _span(n, m, offset)
    count = _count(x)
    if count == 0:
        return np.zeros(x.shape[:-2] + (d,), x.dtype)
    flat = np.ascontiguousarray(x).reshape((count, n, m))
    out = np.empty((count, d), x.dtype)
    for b in range(count):
        for i in range(d):
            out[b, i] = flat[b, row + i, col + i]
    return out.reshape(x.shape[:-2] + (d,))


def _fill_diagonal_last(g, like, offset):
    n, m = like.shape[-2], like.shape[-1]
    row, col, d = _span(n, m, offset)
    count = _count(like)
    parts = np.ascontiguousarray(g).reshape((count, d))
    out = np.zeros((count, n, m), g.dtype)
    for b in range(count):
        for i in range(d):
            out[b, row + i, col + i] = parts[b, i]
    return out.reshape(like.shape)


def _order(ndim, axis1, axis2):
    """The permutation moving ``axis1`` and ``axis2`` (non-negative, distinct) last, and its inverse."""
    order = tuple(a for a in range(ndim) if a != axis1 and a != axis2) + (axis1, axis2)
    return order, tuple(sorted(range(ndim), key=order.__getitem__))


def diagonal(x, offset, axis1, axis2):
    return _diagonal_last(np.transpose(x, _order(x.ndim, axis1, axis2)[0]), offset)


def diagonal_vjp(g, x, offset, axis1, axis2):
    order, inverse = _order(x.ndim, axis1, axis2)
    return np.transpose(_fill_diagonal_last(g, np.transpose(x, order), offset), inverse)


for _helper in (_span, _count, _diagonal_last, _fill_diagonal_last):
    register_jitable(_helper)


def _constant_axes(axis1, axis2):
    a1, a2 = getattr(axis1, "literal_value", None), getattr(axis2, "literal_value", None)
    return None if a1 is None or a2 is None else (a1, a2)


@overload(diagonal, prefer_literal=True)
def _diagonal_numba(x, offset, axis1, axis2):
    axes = _constant_axes(axis1, axis2)
    if axes is None:
        return None                 # the axes must be constants
    order = _order(x.ndim, *axes)[0]

    def impl(x, offset, axis1, axis2):
        return _diagonal_last(np.transpose(x, order), offset)
    return impl


@overload(diagonal_vjp, prefer_literal=True)
def _diagonal_vjp_numba(g, x, offset, axis1, axis2):
    axes = _constant_axes(axis1, axis2)
    if axes is None:
        return None
    order, inverse = _order(x.ndim, *axes)

    def impl(g, x, offset, axis1, axis2):
        return np.transpose(_fill_diagonal_last(g, np.transpose(x, order), offset), inverse)
    return impl


__all__ = ["diagonal", "diagonal_vjp"]
