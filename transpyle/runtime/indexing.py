"""Run-time helpers of indexing: positions picked by index arrays and masks, the gather that reads
them and the scatter-add that is its adjoint; and the write of an array part compiled code calls.

An advanced index (``x[idx]``, ``x[:, i, j]``, ``x[mask]``) is compiled as a basic index followed
by a gather of ``count`` adjacent axes starting at ``axis``: those axes are merged, and ``flat``
holds positions in the merged axis (C order), in the shape the result takes there. Masks and
integer arrays differ only in how ``flat`` is made (``mask_positions``, ``axis_positions``).
Positions are checked against the axis length like NumPy does (an ``IndexError``), and negative
integers count from the end.
"""
import numpy as np

from numba import types
from numba.extending import overload, register_jitable


# ---- positions ---------------------------------------------------------------------------------
def axis_positions(i, n):
    """Integer index ``i`` (an array or a number) into an axis of length ``n``: checked, made
    non-negative, as int64."""
    arr = np.asarray(i, dtype=np.int64)
    if np.any((arr < -n) | (arr >= n)):
        raise IndexError("index out of bounds for an axis of the indexed array")
    out = np.where(arr < 0, arr + n, arr)
    return out if out.ndim else int(out)


def mask_positions(mask, shape, axis):
    """The flat positions (C order) where ``mask`` is true, ``mask`` indexing the axes of an array of
    ``shape`` from ``axis`` on; NumPy's ``IndexError`` when the shapes differ."""
    if mask.shape != tuple(shape[axis:axis + mask.ndim]):
        raise IndexError("boolean index does not match the shape of the indexed array")
    return np.flatnonzero(mask)


@overload(axis_positions)
def _axis_positions(i, n):
    if isinstance(i, types.Array):
        def impl(i, n):
            flat = i.ravel()
            out = np.empty(flat.shape[0], np.int64)
            for k in range(flat.shape[0]):
                v = flat[k]
                if v < -n or v >= n:
                    raise IndexError("index out of bounds for an axis of the indexed array")
                out[k] = v + n if v < 0 else v
            return out.reshape(i.shape)
        return impl
    if isinstance(i, types.Integer):
        def impl_scalar(i, n):
            if i < -n or i >= n:
                raise IndexError("index out of bounds for an axis of the indexed array")
            return i + n if i < 0 else i
        return impl_scalar
    return None


@overload(mask_positions, prefer_literal=True)
def _mask_positions(mask, shape, axis):
    ax = getattr(axis, "literal_value", None)
    if not isinstance(mask, types.Array) or ax is None:
        return None
    m = mask.ndim

    def impl(mask, shape, axis):
        for d in range(m):
            if mask.shape[d] != shape[ax + d]:
                raise IndexError("boolean index does not match the shape of the indexed array")
        return np.flatnonzero(mask)
    return impl


# ---- gather and its adjoint ---------------------------------------------------------------------
def gather(x, flat, axis, count):
    """``x`` with its axes ``axis .. axis+count-1`` replaced by the entries at positions ``flat``."""
    merged = x.reshape(x.shape[:axis] + (-1,) + x.shape[axis + count:])
    return np.take(merged, flat, axis=axis)


def scatter_sum(v, flat, like, axis, count):
    """The adjoint of ``gather``: an array shaped like ``like`` holding the sum of the entries of
    ``v`` gathered from each position (repeated positions add up)."""
    out = np.zeros(like.shape, np.result_type(v, like))
    dims = like.shape[axis:axis + count]
    where = np.unravel_index(np.ravel(flat), dims) if count > 1 else (np.ravel(flat),)
    lead = (slice(None),) * axis
    moved = np.reshape(v, v.shape[:axis] + (-1,) + v.shape[axis + np.ndim(flat):])
    np.add.at(out, lead + where, moved)
    return out


def _index_dims(names):
    return "(" + "".join(n + ", " for n in names) + ")"


def _gather_loops_source(what, ndim, flat_ndim, axis, count):
    """Source of the Numba implementation of ``gather`` (what='gather') or ``scatter_sum``: a loop
    over the positions ravelled into one axis, each moving a basic-indexed part (Numba lacks
    ``np.take`` with an axis and ``np.add.at``)."""
    lead = ":, " * axis
    where = ", ".join(f"j{c}" for c in range(count))
    unravel = ["        q = fr[k]"]
    for c in reversed(range(1, count)):
        unravel += [f"        j{c} = q % src.shape[{axis + c}]", f"        q = q // src.shape[{axis + c}]"]
    unravel.append("        j0 = q")
    before = [f"src.shape[{d}]" for d in range(axis)]
    after = [f"src.shape[{d}]" for d in range(axis + count, ndim)]
    if what == "gather":
        head = ["def impl(x, flat, axis, count):", "    src = x", "    fr = flat.ravel()",
                f"    out = np.empty({_index_dims(before + ['fr.shape[0]'] + after)}, src.dtype)"]
        move = [f"        out[{lead}k] = src[{lead}{where}]"]
        shape = _index_dims(before + [f"flat.shape[{d}]" for d in range(flat_ndim)] + after)
        tail = [f"    return out.reshape({shape})"]
    else:
        head = ["def impl(v, flat, like, axis, count):", "    src = like", "    fr = flat.ravel()",
                f"    gr = np.ascontiguousarray(v).reshape({_index_dims(before + ['fr.shape[0]'] + after)})",
                "    out = np.zeros(like.shape, out_dtype)"]
        move = [f"        out[{lead}{where}] += gr[{lead}k]"]
        tail = ["    return out"]
    loop = ["    for k in range(fr.shape[0]):"]
    return "\n".join(head + loop + unravel + move + tail)


def _gather_compile(what, ndim, flat_ndim, axis, count, out_dtype=None):
    scope = {"np": np, "out_dtype": out_dtype}
    exec(_gather_loops_source(what, ndim, flat_ndim, axis, count), scope)
    return scope["impl"]


@overload(gather, prefer_literal=True)
def _gather(x, flat, axis, count):
    ax, cnt = getattr(axis, "literal_value", None), getattr(count, "literal_value", None)
    if not isinstance(x, types.Array) or not isinstance(flat, types.Array) or ax is None or cnt is None:
        return None
    return _gather_compile("gather", x.ndim, flat.ndim, ax, cnt)


@overload(scatter_sum, prefer_literal=True)
def _scatter_sum(v, flat, like, axis, count):
    ax, cnt = getattr(axis, "literal_value", None), getattr(count, "literal_value", None)
    if not isinstance(like, types.Array) or not isinstance(flat, types.Array) or ax is None or cnt is None:
        return None
    dtype = np.result_type(np.dtype(str(v.dtype if isinstance(v, types.Array) else v)), np.dtype(str(like.dtype)))
    return _gather_compile("scatter", like.ndim, flat.ndim, ax, cnt, dtype)


# ---- writes of array parts -------------------------------------------------------------------------
def write_part(part, value):
    """``part[...] = value`` for a basic-indexed view ``part``: compiled code writes array parts through
    this one function (compiled once per type) rather than a copy of Numba's broadcasting write at every
    such line, which made long stencil gradients compile for minutes."""
    part[...] = value


@register_jitable
def _byte_span(a):
    """The first and one-past-last byte addresses ``a``'s elements occupy (strides may be negative)."""
    lo = 0
    hi = 0
    for k in range(a.ndim):
        reach = (a.shape[k] - 1) * a.strides[k]
        if reach < 0:
            lo += reach
        else:
            hi += reach
    return a.ctypes.data + lo, a.ctypes.data + hi + a.itemsize


@register_jitable
def _copy_elements(part, value):
    source = np.broadcast_to(value, part.shape)
    for idx in np.ndindex(part.shape):
        part[idx] = source[idx]


@overload(write_part, jit_options={"cache": True})
def _write_part_numba(part, value):
    if not (isinstance(part, types.Array) and part.ndim >= 1):
        return None
    if not isinstance(value, types.Array):
        def fill(part, value):
            part[:] = value
        return fill

    # An element loop, not Numba's own slice write: Numba compiles the message of that write's shape
    # error (integer-to-string formatting) at every new pair of ranks, 1-3 s of a cold first call.
    def impl(part, value):
        if part.size == 0:
            np.broadcast_to(value, part.shape)       # the shape check only
            return
        p_lo, p_hi = _byte_span(part)
        v_lo, v_hi = _byte_span(value)
        if value.size and p_lo < v_hi and v_lo < p_hi:   # overlapping memory: NumPy copies the source first
            _copy_elements(part, value.copy())
        else:
            _copy_elements(part, value)
    return impl


def ix_part(x, axis, count):
    """Part ``axis`` of ``np.ix_`` of ``count`` sequences: ``x`` (a mask's positions) along that axis of an
    open grid. Transformed code writes it with a reshape once the kind is known (rules/positions)."""
    x = np.asarray(x)
    if x.dtype == np.bool_:
        x = np.flatnonzero(x)
    return x.reshape((1,) * axis + (-1,) + (1,) * (count - axis - 1))


__all__ = ["axis_positions", "mask_positions", "gather", "scatter_sum", "write_part", "ix_part"]
