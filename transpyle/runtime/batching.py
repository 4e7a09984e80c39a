"""Run-time helpers of array-lifted (batched) code: a value copied into every lane of a batch, and
the masked update that keeps the lanes a branch or a loop does not run for.

A lane is one example of the batch: the index along the leading (batch) axis. Each helper is plain
NumPy (what the numpy backend runs) with a Numba implementation registered by ``overload``.
"""
import numpy as np

from numba import types
from numba.extending import overload


def lanes(value, size):
    """``size`` copies of ``value`` (an array or a number) stacked along a new leading axis."""
    value = np.asarray(value)
    return np.broadcast_to(value, (size,) + value.shape).copy()


@overload(lanes, jit_options={"cache": True})
def _lanes_numba(value, size):
    if isinstance(value, types.Array):
        def impl(value, size):
            out = np.empty((size,) + value.shape, value.dtype)
            for b in range(size):
                out[b] = value
            return out
        return impl
    return lambda value, size: np.full(size, value)


def select_lanes(mask, new, old):
    """``new`` in the lanes where ``mask`` is true, ``old`` elsewhere (both have the batch axis)."""
    mask = np.asarray(mask)
    return np.where(mask.reshape(mask.shape + (1,) * (np.ndim(old) - 1)), new, old)


@overload(select_lanes, jit_options={"cache": True})
def _select_lanes_numba(mask, new, old):
    def impl(mask, new, old):
        out = old.copy()
        for b in range(mask.shape[0]):
            if mask[b]:
                out[b] = new[b]
        return out
    return impl



def gather_lanes(x, index):
    """``x[b, index[b]]`` for every lane ``b``: each example reads its own position."""
    return x[np.arange(index.shape[0]), index]


@overload(gather_lanes, jit_options={"cache": True})
def _gather_lanes_numba(x, index):
    def impl(x, index):
        first = x[0, index[0]]
        out = np.empty((index.shape[0],) + np.shape(first), x.dtype)
        for b in range(index.shape[0]):
            out[b] = x[b, index[b]]
        return out
    return impl
