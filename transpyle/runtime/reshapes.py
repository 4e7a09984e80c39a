"""``reshape``: NumPy's reshape in compiled code, for arrays of any memory layout; ``reshape_copy``: a
reshape that the code follows as a copy of a strided array, written in place.

Numba reshapes only contiguous arrays (it raises NotImplementedError on ``B.T.reshape(-1)``). NumPy gives
a view where the new shape can be laid over the old strides (splitting or merging axes whose elements
are evenly spaced: ``y[::2].reshape(2, 2)``) and a copy otherwise. The compiled form does the same: a
contiguous array is reshaped as Numba does; another one gets the strides NumPy's no-copy rule finds
(``as_strided``: a view, so writes through it reach the array), or a C-ordered copy where there are none.

Whether NumPy views or copies is decided by the strides at run time; the aliasing model decides when the
code is transformed, and follows a reshape of a strided array as a copy (``analysis/aliases``). Where a
write could then tell the two apart, the call is ``reshape_copy``: the copy, and a ValueError where NumPy
would have made a view.
"""
import numpy as np

from numba import types
from numba.extending import overload, register_jitable
from numba.np.unsafe.ndarray import to_fixed_tuple
from numpy.lib.stride_tricks import as_strided


def reshape(x, shape):
    """``np.reshape(x, shape)``."""
    return np.reshape(x, shape)


_VIEWED = ("a reshape of an array whose elements are not contiguous is written in place, and NumPy makes "
           "it a view for these shapes: take .copy() of the reshape for a separate array, or write through "
           "slices of the array itself")


def reshape_copy(x, shape):
    """``np.reshape(x, shape)`` where NumPy copies; a ValueError where it makes a view."""
    out = np.reshape(x, shape)
    if np.shares_memory(out, x) and out.size:
        raise ValueError(_VIEWED)
    return out


@register_jitable
def _resolved(size, dims):
    """``dims`` with its one -1 (if any) replaced by what the size leaves."""
    known, free = 1, -1
    for k in range(len(dims)):
        if dims[k] == -1:
            free = k
        else:
            known *= dims[k]
    out = np.empty(len(dims), np.int64)
    for k in range(len(dims)):
        out[k] = dims[k]
    if free >= 0:
        out[free] = size // known if known else 0
    return out


@register_jitable
def _view_strides(shape, strides, dims, itemsize):
    """The strides of ``dims`` over the elements of an array of ``shape`` and ``strides`` without
    copying, as NumPy finds them (axes merged only where their elements are evenly spaced), or an
    empty array where there are none."""
    old_d = [shape[k] for k in range(len(shape)) if shape[k] != 1]
    old_s = [strides[k] for k in range(len(shape)) if shape[k] != 1]
    new_s = np.zeros(len(dims), np.int64)
    none = np.empty(0, np.int64)
    oi, oj, ni, nj = 0, 1, 0, 1
    while ni < len(dims) and oi < len(old_d):
        n_p, o_p = dims[ni], old_d[oi]
        while n_p != o_p:
            if n_p < o_p:
                n_p *= dims[nj]
                nj += 1
            else:
                o_p *= old_d[oj]
                oj += 1
        for ok in range(oi, oj - 1):
            if old_s[ok] != old_d[ok + 1] * old_s[ok + 1]:
                return none
        new_s[nj - 1] = old_s[oj - 1]
        for nk in range(nj - 1, ni, -1):
            new_s[nk - 1] = new_s[nk] * dims[nk]
        ni, oi = nj, oj
        nj, oj = nj + 1, oj + 1
    last = new_s[ni - 1] if ni >= 1 else itemsize
    for nk in range(ni, len(dims)):
        new_s[nk] = last
    return new_s


@register_jitable
def _c_strides(dims, itemsize):
    out = np.empty(len(dims), np.int64)
    step = itemsize
    for k in range(len(dims) - 1, -1, -1):
        out[k] = step
        step *= max(dims[k], 1)
    return out


def _typed_shape(x, shape):
    """(whether ``shape`` is one integer, the result's rank) for an array ``x`` and an integer or tuple
    ``shape``, as Numba types them; None for anything else."""
    if not isinstance(x, types.Array):
        return None
    single = isinstance(shape, types.Integer)
    if not (single or isinstance(shape, types.BaseTuple)):
        return None
    return single, 1 if single else len(shape)


@overload(reshape, jit_options={"cache": True})
def _reshape_numba(x, shape):
    typed = _typed_shape(x, shape)
    if typed is None:
        return None
    single, rank = typed
    if x.layout == "C":
        return lambda x, shape: x.reshape(shape)

    def impl(x, shape):
        dims = _resolved(x.size, (shape,) if single else shape)
        out_shape = to_fixed_tuple(dims, rank)
        if x.flags.c_contiguous:
            return as_strided(x, out_shape, to_fixed_tuple(_c_strides(dims, x.itemsize), rank))
        strides = _view_strides(x.shape, x.strides, dims, x.itemsize)
        if x.size == 0 or strides.size == 0:
            copied = np.ascontiguousarray(x)
            return as_strided(copied, out_shape, to_fixed_tuple(_c_strides(dims, x.itemsize), rank))
        return as_strided(x, out_shape, to_fixed_tuple(strides, rank))
    return impl


@overload(reshape_copy, jit_options={"cache": True})
def _reshape_copy_numba(x, shape):
    typed = _typed_shape(x, shape)
    if typed is None:
        return None
    single, rank = typed

    def impl(x, shape):
        dims = _resolved(x.size, (shape,) if single else shape)
        if x.size and (x.flags.c_contiguous or _view_strides(x.shape, x.strides, dims, x.itemsize).size):
            raise ValueError(_VIEWED)
        copied = np.ascontiguousarray(x)
        return as_strided(copied, to_fixed_tuple(dims, rank), to_fixed_tuple(_c_strides(dims, x.itemsize), rank))
    return impl
