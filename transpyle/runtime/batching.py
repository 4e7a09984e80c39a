"""Run-time helpers of array-lifted (batched) code: a value copied into every lane of a batch, and
the masked update that keeps the lanes a branch or a loop does not run for.

A lane is one example of the batch: the index along the leading (batch) axis, or along the last
axis where lane-loop code stores an array lanes-last (``lanes_last``, ``transforms/layout``). Each helper is plain
NumPy (what the numpy backend runs) with a Numba implementation registered by ``overload``.
"""
import numba
import numpy as np

from numba import types
from numba.extending import overload, register_jitable


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
    """``new`` in the lanes where ``mask`` is true, ``old`` elsewhere (both have the batch axis). An ``old``
    of another shape is a placeholder (an array declared before its first value): ``new`` replaces it."""
    mask = np.asarray(mask)
    if np.shape(old) != np.shape(new):
        return np.copy(new)
    return np.where(mask.reshape(mask.shape + (1,) * (np.ndim(old) - 1)), new, old)


@overload(select_lanes, jit_options={"cache": True})
def _select_lanes_numba(mask, new, old):
    def impl(mask, new, old):
        if old.shape != new.shape:
            return new.copy()
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


# ---- tapes of batched numbers: one row per lane ----------------------------------------------------
# Lanes run different trip counts, so a tape grows to the longest lane; the entries a lane does not
# use are never read back (each lane pops only what it pushed), so tapes need no masked update.
def lane_value(x, b):
    """``x[b]`` for a batched value, ``x`` itself for one shared by every lane."""
    return x[b] if np.ndim(x) else x


@overload(lane_value, jit_options={"cache": True})
def _lane_value_numba(x, b):
    if isinstance(x, types.Array):
        return lambda x, b: x[b]
    return lambda x, b: x


def reserve_lanes(tape, size):
    """``tape`` (a row per lane) with room for ``size`` entries in every row (a number, or one per lane)."""
    need = 0
    for b in range(tape.shape[0]):
        need = max(need, lane_value(size, b))
    if need <= tape.shape[1]:
        return tape
    bigger = np.empty((tape.shape[0], max(need, 2 * tape.shape[1])), tape.dtype)
    for b in range(tape.shape[0]):
        for k in range(tape.shape[1]):
            bigger[b, k] = tape[b, k]
    return bigger


def push_lanes(tape, top, value):
    """Store each lane's ``value`` at its ``top`` (numbers, or one per lane), growing the tape if needed."""
    need = 0
    for b in range(tape.shape[0]):
        need = max(need, lane_value(top, b) + 1)
    tape = reserve_lanes(tape, 2 * need if need > tape.shape[1] else need)
    for b in range(tape.shape[0]):
        tape[b, lane_value(top, b)] = lane_value(value, b)
    return tape


def lanes_last(x):
    """``x`` with its lanes (leading axis) moved to the last axis, C-contiguous (see ``transforms/layout``)."""
    size = x.shape[0]
    flat = np.ascontiguousarray(x).reshape((size, x.size // size if size else 0))
    return np.ascontiguousarray(flat.T).reshape(x.shape[1:] + (size,))


def lanes_first(x):
    """``x`` with its lanes (last axis) moved to the leading axis, C-contiguous."""
    size = x.shape[-1]
    flat = np.ascontiguousarray(x).reshape((x.size // size if size else 0, size))
    return np.ascontiguousarray(flat.T).reshape((size,) + x.shape[:-1])


#: the fewest directions one thread of vector-mode derivative code carries: below this many lanes a lane
#: loop hardly vectorizes, and each thread repeats the primal sweep
MIN_CHUNK_DIRECTIONS = 16
#: the threads of Numba's pool (a constant: compiled code that asks the pool at run time is not cached)
THREADS = numba.config.NUMBA_NUM_THREADS


def direction_chunks(n):
    """How many threads share ``n`` directions of a vector-mode Jacobian (``transforms/jacobian``)."""
    return max(1, min(THREADS, n // MIN_CHUNK_DIRECTIONS))


register_jitable(reserve_lanes)
register_jitable(push_lanes)
register_jitable(direction_chunks)
register_jitable(lanes_last)       # not np.moveaxis: Numba takes seconds to compile that
register_jitable(lanes_first)
