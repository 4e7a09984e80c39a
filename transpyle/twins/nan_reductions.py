"""Twins of NumPy's NaN-ignoring reductions: each is NumPy's reduction of the values with every NaN replaced
by the reduction's neutral value (0 for sums, 1 for products, -inf / +inf for extremes), so a NaN element's
derivative is zero, as in JAX (``np.where`` passes no cotangent to the branch not taken).

- ``np.nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None)`` and
  ``np.nanprod`` (same parameters): ``initial`` a number or an array (added / multiplied in).
- ``np.nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None)``: NaN for an all-NaN slice.
- ``np.nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None, mean=None,
  correction=None)`` and ``np.nanstd``: ``ddof`` (or ``correction``) a number or computed; NaN where the
  count of values is at most ``ddof``. Real input.
- ``np.nanmax(a, axis=None, out=None, keepdims=False, initial=None, where=None)`` and ``np.nanmin``: NaN for
  an all-NaN slice; ``initial`` joins every slice. Ties share the cotangent, as np.max's do.
- ``np.nanargmax(a, axis=None, out=None, *, keepdims=False)`` and ``np.nanargmin``: NumPy's ValueError
  "All-NaN slice encountered" when run on an all-NaN slice.
- ``np.nancumsum(a, axis=None, dtype=None, out=None)`` and ``np.nancumprod``.

NumPy's keyword-only ``correction`` and ``keepdims`` (of the argmax pair) are ordinary parameters here: the
inliner binds the defaults of positional parameters only, and these are read in the bodies.

Refused everywhere: ``out=``, ``where=``, ``dtype=`` other than None, ``mean=`` (NumPy's precomputed mean), and
an ``axis`` computed at run time, and a tuple of axes for the positions and cumulative forms (NumPy's take one). The
extremes and means of integer input are computed in floating point (equal values, a float dtype).
"""
import numpy as np

from . import TwinRefusal, refuse_unless, twin
from .order_statistics import check_axis


def _checker(what, *absent, tuples=True):
    """A check refusing a run-time axis (and an axis tuple unless ``tuples``), out=, and any of ``absent`` given
    other than None."""
    def check(args):
        check_axis(args, what, tuples=tuples)
        for name in absent:
            refuse_unless(args, name, (None,), what)
        if "ddof" in args and args.get("correction") is not None and args["ddof"] != 0:
            raise TwinRefusal(f"{what} with both ddof= and correction= is not supported",
                              hint="pass one of them")
    return check


@twin(np.nansum, check=_checker("np.nansum", "dtype", "where"))
def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """The sum of the values that are not NaN (0 for an all-NaN slice)."""
    total = np.sum(np.where(np.isnan(a), 0, a), axis=axis, keepdims=keepdims)
    if initial is None:
        return total
    return total + initial


@twin(np.nanprod, check=_checker("np.nanprod", "dtype", "where"))
def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """The product of the values that are not NaN (1 for an all-NaN slice)."""
    product = np.prod(np.where(np.isnan(a), 1, a), axis=axis, keepdims=keepdims)
    if initial is None:
        return product
    return product * initial


@twin(np.nanmean, check=_checker("np.nanmean", "dtype", "where"))
def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """The mean of the values that are not NaN."""
    missing = np.isnan(a)
    count = _count(missing, axis, keepdims)
    return np.sum(np.where(missing, 0.0, a), axis=axis, keepdims=keepdims) / count


@twin(np.nanvar, check=_checker("np.nanvar", "dtype", "where", "mean"))
def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, correction=None, *, where=None,
           mean=None):
    """The variance of the values that are not NaN, over count - ddof."""
    if correction is None:
        return _nan_variance(a, axis, ddof, keepdims)
    return _nan_variance(a, axis, correction, keepdims)


@twin(np.nanstd, check=_checker("np.nanstd", "dtype", "where", "mean"))
def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, correction=None, *, where=None,
           mean=None):
    """The standard deviation of the values that are not NaN, over count - ddof."""
    if correction is None:
        return np.sqrt(_nan_variance(a, axis, ddof, keepdims))
    return np.sqrt(_nan_variance(a, axis, correction, keepdims))


def _nan_variance(a, axis, ddof, keepdims):
    missing = np.isnan(a)
    count = _count(missing, axis, True)
    centre = np.sum(np.where(missing, 0.0, a), axis=axis, keepdims=True) / count
    deviation = np.where(missing, 0.0, a - centre)
    squares = np.sum(deviation * deviation, axis=axis, keepdims=keepdims)
    freedom = _count(missing, axis, keepdims) - ddof
    # NumPy's NaN where no degree of freedom is left (the division there is not taken)
    return np.where(freedom > 0, squares / np.maximum(freedom, 1), np.nan)


def _count(missing, axis, keepdims):
    """How many values are not NaN (a sum of integers: a sum of booleans with keepdims is wrong under vmap's
    array lifting)."""
    return np.sum(np.where(missing, 0, 1), axis=axis, keepdims=keepdims)


@twin(np.nanmax, check=_checker("np.nanmax", "where"))
def nanmax(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """The largest value that is not NaN (NaN for an all-NaN slice unless ``initial`` is given)."""
    missing = np.isnan(a)
    largest = np.max(np.where(missing, -np.inf, a), axis=axis, keepdims=keepdims)
    if initial is None:
        return np.where(np.all(missing, axis=axis, keepdims=keepdims), np.nan, largest)
    return np.maximum(largest, initial)


@twin(np.nanmin, check=_checker("np.nanmin", "where"))
def nanmin(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """The smallest value that is not NaN (NaN for an all-NaN slice unless ``initial`` is given)."""
    missing = np.isnan(a)
    smallest = np.min(np.where(missing, np.inf, a), axis=axis, keepdims=keepdims)
    if initial is None:
        return np.where(np.all(missing, axis=axis, keepdims=keepdims), np.nan, smallest)
    return np.minimum(smallest, initial)


@twin(np.nanargmax, check=_checker("np.nanargmax", tuples=False))
def nanargmax(a, axis=None, out=None, keepdims=False):
    """The position of the largest value that is not NaN; NumPy's error for an all-NaN slice."""
    missing = np.isnan(a)
    if np.any(np.all(missing, axis=axis)):
        raise ValueError("All-NaN slice encountered")
    position = np.argmax(np.where(missing, -np.inf, a), axis=axis)
    return _kept(position, a, axis, keepdims)


@twin(np.nanargmin, check=_checker("np.nanargmin", tuples=False))
def nanargmin(a, axis=None, out=None, keepdims=False):
    """The position of the smallest value that is not NaN; NumPy's error for an all-NaN slice."""
    missing = np.isnan(a)
    if np.any(np.all(missing, axis=axis)):
        raise ValueError("All-NaN slice encountered")
    position = np.argmin(np.where(missing, np.inf, a), axis=axis)
    return _kept(position, a, axis, keepdims)


def _kept(reduced, a, axis, keepdims):
    """``reduced`` with the reduced axes kept as length 1 under ``keepdims`` (np.argmax has no keepdims)."""
    if keepdims:
        template = np.sum(a, axis=axis, keepdims=True)
        return np.reshape(reduced, template.shape)
    return reduced


@twin(np.nancumsum, check=_checker("np.nancumsum", "dtype", tuples=False))
def nancumsum(a, axis=None, dtype=None, out=None):
    """The running sum with NaNs counted as 0."""
    return np.cumsum(np.where(np.isnan(a), 0, a), axis=axis)


@twin(np.nancumprod, check=_checker("np.nancumprod", "dtype", tuples=False))
def nancumprod(a, axis=None, dtype=None, out=None):
    """The running product with NaNs counted as 1."""
    return np.cumprod(np.where(np.isnan(a), 1, a), axis=axis)
