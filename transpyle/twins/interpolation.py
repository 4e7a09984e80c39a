"""Twins of NumPy's interpolation, binning and membership, written with the primitive ``np.searchsorted``
(rules/searching.py), gathers and ``np.where``:

- ``np.interp(x, xp, fp, left, right)``: ``x`` a number or an array of any rank, ``xp`` increasing; ``left`` and
  ``right`` numbers or arrays (default ``fp[0]``, ``fp[-1]``). Its derivatives in ``x``, ``xp`` and ``fp`` are
  those of the piecewise-linear interpolant, with JAX's conventions: at a knot the slope of the segment to its
  right (of the last segment at the last knot), outside ``[xp[0], xp[-1]]`` zero in ``x``. Refused: ``period=``.
- ``np.digitize(x, bins, right)``: the bin of each value, bins increasing or decreasing (a run-time
  ValueError otherwise, as NumPy's); ``right`` a constant bool. An integer result: no derivative.
- ``np.isin(element, test_elements, assume_unique, invert, kind)``: a boolean of ``element``'s shape (NaN is in
  nothing); ``assume_unique`` and ``kind`` change NumPy's method, not its result, and are ignored here.
- ``np.bincount(x, weights, minlength)``: ``x`` a vector of non-negative integers (a run-time ValueError for a
  negative one and TypeError for floats, as NumPy's); the counts, or the sums of ``weights`` per value
  (differentiable in ``weights``), of length ``max(max(x) + 1, minlength)``: a length known only at run time, so
  ``vmap`` over ``x`` runs per example and needs every example to give the same length.
"""
import numpy as np

from .. import runtime as rt
from . import TwinRefusal, refuse_unless, twin


def _check_interp(args):
    if args["period"] is not None:
        raise TwinRefusal("np.interp with period= is not supported",
                          hint="reduce x and xp modulo the period and pad xp, fp by one period on each side")


@twin(np.interp, check=_check_interp)
def interp(x, xp, fp, left=None, right=None, period=None):
    """The piecewise-linear interpolant through (xp, fp) at x."""
    n = xp.shape[0]
    # the segment [xp[i - 1], xp[i]] holding x (the first or last one outside the knots, where the result is
    # replaced below): searching to the right of ties gives a knot the segment to its right, as JAX does
    i = np.clip(np.searchsorted(xp, x, side="right"), 1, n - 1)
    start = xp[i - 1]
    width = xp[i] - start
    # a segment of zero width (repeated last knots, or a single knot) gives the right-hand value (NaN at a NaN,
    # except for a single knot, as in NumPy); the divisor is made 1 there so that no 0 / 0 reaches the derivatives
    flat = width == 0.0
    t = np.where(flat, 1.0 + np.where(n > 1, 0.0 * x, 0.0), (x - start) / np.where(flat, 1.0, width))
    # (1 - t) fp[i - 1] + t fp[i] is exactly fp at the knots (t = 0 or 1)
    f = (1.0 - t) * fp[i - 1] + t * fp[i]
    if left is None:
        f = np.where(x < xp[0], fp[0], f)
    else:
        f = np.where(x < xp[0], left, f)
    if right is None:
        f = np.where(x > xp[n - 1], fp[n - 1], f)
    else:
        f = np.where(x > xp[n - 1], right, f)
    return f


def _check_digitize(args):
    refuse_unless(args, "right", (False, True), "np.digitize")


@twin(np.digitize, check=_check_digitize)
def digitize(x, bins, right=False):
    """The index of the bin of each value of x: bins[i - 1] <= x < bins[i] for increasing bins (< and <= swapped
    with right=True), bins[i - 1] > x >= bins[i] for decreasing ones."""
    rising = np.all(bins[1:] >= bins[:-1])
    if not rising:
        if not np.all(bins[1:] <= bins[:-1]):
            raise ValueError("bins must be monotonically increasing or decreasing")
    # decreasing bins are searched reversed, and the position counted from the other end
    if right:
        up = np.searchsorted(bins, x, side="left")
        down = bins.shape[0] - np.searchsorted(np.flip(bins), x, side="left")
    else:
        up = np.searchsorted(bins, x, side="right")
        down = bins.shape[0] - np.searchsorted(np.flip(bins), x, side="right")
    return np.where(rising, up, down)


def _check_isin(args):
    refuse_unless(args, "invert", (False, True), "np.isin")


@twin(np.isin, check=_check_isin)
def isin(element, test_elements, assume_unique=False, invert=False, kind=None):
    """Whether each element equals one of test_elements."""
    s = np.sort(np.ravel(test_elements))
    # a value is there where the positions before and after its equals differ; NaN equals nothing
    # (searchsorted sorts NaNs as equal, last)
    found = (np.searchsorted(s, element, side="right") > np.searchsorted(s, element, side="left")) & \
        (element == element)
    if invert:
        return np.logical_not(found)
    return found


def _check_bincount(args):
    if args["minlength"] is None:
        raise TwinRefusal("np.bincount with minlength=None is not supported", hint="minlength= is an int, 0 by default")


@twin(np.bincount, check=_check_bincount)
def bincount(x, weights=None, minlength=0):
    """How many times each of 0, 1, ..., n - 1 occurs in x (the sum of the weights where they do)."""
    if x.dtype == np.float64 or x.dtype == np.float32 or x.dtype == np.complex128:
        raise TypeError("np.bincount counts integers: x must be an integer array")
    if x.ndim != 1:
        raise ValueError("np.bincount: x must be a vector (1-D)")
    if np.any(x < 0):
        raise ValueError("np.bincount: x must not have negative values")
    top = 0
    if x.shape[0] > 0:
        top = np.max(x) + 1
    n = max(top, minlength)
    if weights is None:
        return rt.bin_counts(x, n)
    return rt.bin_sums(weights * 1.0, x, n)
