"""Slices at positions known at run time with sizes known when the code is compiled, as
``lax.dynamic_slice(x, start_indices, slice_sizes)`` and ``lax.dynamic_update_slice(x, update,
start_indices)`` define them: each start is clamped so that the slice lies inside ``x``. Both return new
arrays. Numba's implementations are generated per rank (one slice expression over every axis)."""
import numpy as np

from numba import types
from numba.extending import overload


def _clamped(shape, starts, sizes):
    return tuple(min(max(int(s), 0), d - n) for s, d, n in zip(starts, shape, sizes))


def _check(x, starts, sizes, what):
    if len(starts) != x.ndim or len(sizes) != x.ndim:
        raise ValueError(f"{what}: an array of rank {x.ndim} needs {x.ndim} start indices and sizes, got "
                         f"{len(starts)} and {len(sizes)}")
    if any(n < 0 or n > d for n, d in zip(sizes, x.shape)):
        raise ValueError(f"{what}: slice sizes {tuple(sizes)} do not fit in an array of shape {x.shape}")


def dynamic_slice(x, start_indices, slice_sizes):
    """The part of ``x`` of shape ``slice_sizes`` starting at ``start_indices`` (clamped), as a new array."""
    x = np.asarray(x)
    sizes = tuple(int(n) for n in slice_sizes)
    _check(x, list(start_indices), sizes, "dynamic_slice")
    starts = _clamped(x.shape, start_indices, sizes)
    return x[tuple(slice(s, s + n) for s, n in zip(starts, sizes))].copy()


def dynamic_update_slice(x, update, start_indices):
    """A copy of ``x`` with ``update`` written at ``start_indices`` (clamped so that it fits)."""
    x, update = np.asarray(x), np.asarray(update)
    if update.ndim != x.ndim:
        raise ValueError(f"dynamic_update_slice: the update has rank {update.ndim}, the array rank {x.ndim}")
    _check(x, list(start_indices), update.shape, "dynamic_update_slice")
    starts = _clamped(x.shape, start_indices, update.shape)
    out = x.astype(np.result_type(x, update))
    out[tuple(slice(s, s + n) for s, n in zip(starts, update.shape))] = update
    return out


def _window(ndim, sizes):
    """The clamped starts s0, s1, ... of a slice of sizes ``sizes`` (an expression), and the index over them."""
    lines = [f"    s{k} = min(max(np.int64(start_indices[{k}]), 0), x.shape[{k}] - {sizes}[{k}])"
             for k in range(ndim)]
    index = ", ".join(f"s{k}:s{k} + {sizes}[{k}]" for k in range(ndim))
    return lines, index


def _compiled(source, name, **scope):
    scope["np"] = np
    exec(source, scope)
    return scope[name]


@overload(dynamic_slice)          # generated source: not cacheable
def _dynamic_slice_numba(x, start_indices, slice_sizes):
    if not isinstance(x, types.Array):
        return None
    lines, index = _window(x.ndim, "slice_sizes")
    return _compiled("\n".join(["def impl(x, start_indices, slice_sizes):"] + lines +
                               [f"    return x[{index},].copy()"]), "impl")


@overload(dynamic_update_slice)
def _dynamic_update_slice_numba(x, update, start_indices):
    if not (isinstance(x, types.Array) and isinstance(update, types.Array)):
        return None
    lines, index = _window(x.ndim, "update.shape")
    dtype = np.result_type(np.dtype(str(x.dtype)), np.dtype(str(update.dtype)))
    return _compiled("\n".join(["def impl(x, update, start_indices):"] + lines +
                               ["    out = x.astype(dtype)", f"    out[{index},] = update", "    return out"]),
                     "impl", dtype=dtype)


__all__ = ["dynamic_slice", "dynamic_update_slice"]
