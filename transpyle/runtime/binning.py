"""Run-time helpers of ``np.histogram`` and ``np.cov``: bin edges, the bin each value falls in,
sums of weights per bin and their transpose (a gather per value), and the result shape of a
covariance.

Numba's ``np.histogram`` takes no weights, so the histogram is written as ``bin_index`` (which
bin, or -1 outside the edges) followed by ``bin_sums`` or ``bin_counts``; with NumPy's rules:
bins are half-open ``[e[k], e[k+1])`` except the last, which holds its right edge too.
"""
import numpy as np

from numba import types
from numba.extending import overload, register_jitable


def histogram_edges(bins, lo, hi):
    """The edges of ``bins`` equal bins over [lo, hi] (widened by 0.5 each way when lo == hi, as NumPy
    does), or ``bins`` itself as floats when it is an array of edges."""
    if np.ndim(bins) == 1:
        return np.asarray(bins, dtype=np.float64).copy()
    lo, hi = float(lo), float(hi)
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return np.linspace(lo, hi, bins + 1)


@overload(histogram_edges, jit_options={"cache": True})
def _histogram_edges_numba(bins, lo, hi):
    if isinstance(bins, types.Array):
        return lambda bins, lo, hi: bins.astype(np.float64)

    def impl(bins, lo, hi):
        first, last = float(lo), float(hi)
        if first == last:
            first, last = first - 0.5, last + 0.5
        return np.linspace(first, last, bins + 1)
    return impl


def bin_index(a, edges):
    """For each value of ``a``, the bin it falls in (an int array shaped like ``a``), -1 outside the edges."""
    flat = np.ravel(np.asarray(a))
    out = np.empty(flat.size, np.int64)
    n = edges.shape[0] - 1
    for k in range(flat.size):
        v = flat[k]
        if v == edges[n]:
            out[k] = n - 1
        elif edges[0] <= v < edges[n]:
            out[k] = np.searchsorted(edges, v, side="right") - 1
        else:
            out[k] = -1
    return out.reshape(np.shape(a))


def bin_sums(w, slot, n):
    """The sum of the weights ``w`` in each of ``n`` bins (values outside every bin are left out)."""
    flat_w, flat_i = np.ravel(w), np.ravel(slot)
    out = np.zeros(n, flat_w.dtype)
    for k in range(flat_i.size):
        if flat_i[k] >= 0:
            out[flat_i[k]] += flat_w[k]
    return out


def bin_counts(slot, n):
    """How many values fall in each of ``n`` bins."""
    flat_i = np.ravel(slot)
    out = np.zeros(n, np.int64)
    for k in range(flat_i.size):
        if flat_i[k] >= 0:
            out[flat_i[k]] += 1
    return out


def bin_gather(v, slot):
    """``v`` (one value per bin) read at each value's bin, zero outside: the transpose of ``bin_sums``."""
    flat_i = np.ravel(slot)
    out = np.zeros(flat_i.size, v.dtype)
    for k in range(flat_i.size):
        if flat_i[k] >= 0:
            out[k] = v[flat_i[k]]
    return out.reshape(slot.shape)


for _helper in (bin_index, bin_sums, bin_counts, bin_gather):
    register_jitable(_helper)


def cov_result(c, x):
    """The covariance matrix ``c`` as ``np.cov(x)`` returns it: a number when ``x`` is one variable
    (rank 0 or 1), the matrix otherwise."""
    return c[0, 0] if np.ndim(x) < 2 else c


@overload(cov_result, jit_options={"cache": True})
def _cov_result_numba(c, x):
    if isinstance(x, types.Array) and x.ndim >= 2:
        return lambda c, x: c
    return lambda c, x: c[0, 0]
