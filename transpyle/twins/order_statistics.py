"""Twins of NumPy's order statistics: the range, the median and the quantiles, plain and NaN-ignoring.

Each sorts the values of every slice along the axis (``np.sort``, whose adjoint scatters the cotangent back
by the sorting permutation) and reads the order statistics it needs, so derivatives go to the elements at
the chosen ranks, as JAX's do; at ties the sorting permutation picks one of the tied elements.

- ``np.ptp(a, axis=None, out=None, keepdims=False)``: ``axis`` None, an int or a tuple. Refused: ``out=``, an
  axis computed at run time.
- ``np.median(a, axis=None, out=None, overwrite_input=False, keepdims=False)``: the mean of the two middle
  values; a slice holding a NaN gives NaN, as in NumPy. ``overwrite_input`` is ignored (nothing is written).
- ``np.quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
  weights=None, interpolation=None)`` and ``np.percentile`` (``q`` in percent): ``q`` a number or an array
  of any shape (the result's leading axes), constant or computed (its derivative too, where the method
  interpolates); every ``method`` NumPy has. A ``q`` outside [0, 1] raises NumPy's ValueError when run.
  Refused: ``weights=`` (NumPy takes it only for ``method="inverted_cdf"``), ``interpolation=`` (NumPy's
  deprecated spelling of ``method``), ``out=``.
- ``np.nanmedian``, ``np.nanquantile``, ``np.nanpercentile`` (same parameters): the same over the values that
  are not NaN, counted per slice at run time; an all-NaN slice gives NaN.

``axis`` is None or one int, negative ones too (a tuple of axes for ``np.ptp``); the median and quantile
functions refuse a tuple of axes by name (their slices are rows of one axis).

The quantiles work on rows: the values are laid out as a matrix, one slice per row (``_rows``), the ranks
are read from each sorted row (``_row_quantiles``), and the result takes the shape NumPy gives it from a
template array of that shape (``_result_like``): a shape built by tuple arithmetic is not accepted here.
"""
import numpy as np

from . import TwinRefusal, VARIABLE, refuse_unless, twin

#: NumPy's quantile methods: (alpha, beta) of the continuous ones (Hyndman and Fan's virtual index
#: ``n q + alpha + q (1 - alpha - beta) - 1``); the others are spelled out in ``_row_quantiles``
METHODS = ("linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf", "averaged_inverted_cdf",
           "closest_observation", "interpolated_inverted_cdf", "hazen", "weibull", "median_unbiased",
           "normal_unbiased")


def check_axis(args, what, tuples=False):
    """Refuse an axis that is not None or one int written in the call (or, with ``tuples``, a tuple of them: the
    reductions the twin is written with take those)."""
    axis = args["axis"]
    if axis is VARIABLE:
        raise TwinRefusal(f"{what} with an axis computed at run time is not supported",
                          hint="write axis= as a number or None")
    if isinstance(axis, tuple) and not tuples:
        raise TwinRefusal(f"{what} with a tuple of axes is not supported",
                          hint="move the axes together (np.moveaxis) and merge them (np.reshape), "
                               "then pass one axis")
    if args.get("out", None) is not None:
        raise TwinRefusal(f"{what} with out= is not supported", hint="assign the result instead")


def _check_ptp(args):
    check_axis(args, "np.ptp", tuples=True)


def _check_sorted_axis(args, what):
    """An axis None or one int counted from the front: a negative axis reaches the sorting helpers as ``-1``,
    and their transform-time test ``axis is None`` is then left undecided (see the module's docstring)."""
    check_axis(args, what)


def _median_check(what):
    return lambda args: _check_sorted_axis(args, what)


def _quantile_check(what):
    def check(args):
        _check_sorted_axis(args, what)
        refuse_unless(args, "method", METHODS, what)
        refuse_unless(args, "weights", (None,), what)
        if args["interpolation"] is not None:
            raise TwinRefusal("interpolation= (NumPy's deprecated name) is not supported",
                              hint="pass method= instead")
    return check


@twin(np.ptp, check=_check_ptp)
def ptp(a, axis=None, out=None, keepdims=False):
    """The range max - min along ``axis``."""
    return np.max(a, axis=axis, keepdims=keepdims) - np.min(a, axis=axis, keepdims=keepdims)


@twin(np.median, check=_median_check("np.median"))
def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The middle value along ``axis`` (the mean of the two middle ones for an even count); NaN for a slice
    holding a NaN (np.sort puts NaNs last)."""
    return _median(a, axis, keepdims)


def _median(a, axis, keepdims):
    # the slices as rows, one for axis None; a helper, as the quantiles' are
    s = np.sort(_rows(a, axis), axis=1)
    n = s.shape[1]
    middle = 0.5 * (s[:, (n - 1) // 2] + s[:, n // 2])
    middle = np.where(np.isnan(s[:, n - 1]), np.nan, middle)
    if axis is None and not keepdims:
        return middle[0]
    template = np.sum(a, axis=axis, keepdims=keepdims)       # of the result's shape
    return np.reshape(middle, template.shape)


@twin(np.quantile, check=_quantile_check("np.quantile"))
def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
             weights=None, interpolation=None):
    """The ``q``-quantiles along ``axis`` by ``method``; NaN for a slice holding a NaN."""
    return _quantiles(a, q, axis, method, keepdims, False)


@twin(np.percentile, check=_quantile_check("np.percentile"))
def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
               weights=None, interpolation=None):
    """The percentiles ``q`` (in percent) along ``axis`` by ``method``."""
    return _quantiles(a, np.true_divide(q, 100), axis, method, keepdims, False)


@twin(np.nanquantile, check=_quantile_check("np.nanquantile"))
def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
                weights=None, interpolation=None):
    """The ``q``-quantiles of the values that are not NaN along ``axis``."""
    return _quantiles(a, q, axis, method, keepdims, True)


@twin(np.nanpercentile, check=_quantile_check("np.nanpercentile"))
def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
                  weights=None, interpolation=None):
    """The percentiles ``q`` of the values that are not NaN along ``axis``."""
    return _quantiles(a, np.true_divide(q, 100), axis, method, keepdims, True)


@twin(np.nanmedian, check=_median_check("np.nanmedian"))
def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The median of the values that are not NaN along ``axis``: the mean of the middle two of each slice's
    count; NaN for an all-NaN slice."""
    rows = _rows(a, axis)
    s = np.sort(rows, axis=1)
    count = np.sum(np.where(np.isnan(s), 0, 1), axis=1)
    below = np.maximum((count - 1) // 2, 0)
    above = np.maximum(count // 2, 0)
    middle = 0.5 * (np.take_along_axis(s, np.expand_dims(below, 1), axis=1) +
                    np.take_along_axis(s, np.expand_dims(above, 1), axis=1))
    return _result_like(middle, 0.5, a, axis, keepdims)


def _rows(a, axis):
    """The slices along ``axis`` as the rows of a matrix (one row for axis None)."""
    if axis is None:
        return np.reshape(a, (1, -1))
    moved = np.moveaxis(a, axis, -1)
    return np.reshape(moved, (-1, moved.shape[-1]))


def _result_like(per_row, q, a, axis, keepdims):
    """``per_row`` (rows x quantiles) in NumPy's layout: the quantiles' axes first, then the slices' axes
    (with a length-1 axis in place of ``axis`` under ``keepdims``), shaped after a template of that shape."""
    if axis is None and not keepdims:      # q's shape (Numba's outer of two numbers is a number)
        template = np.asarray(q, dtype=np.float64)
    else:
        reduced = np.sum(a, axis=axis, keepdims=keepdims)
        template = np.multiply.outer(q, reduced)      # q as given: Numba's outer takes no 0-d array
    return np.reshape(np.transpose(per_row), template.shape)


def _quantiles(a, q, axis, method, keepdims, skip_nan):
    # q as a vector, a number as one element (a sum, not np.asarray: Numba's adjoint of asarray of a number
    # is a 0-d array added to a number)
    fractions = np.ravel(q + np.zeros(1))
    if np.any(fractions < 0.0) or np.any(fractions > 1.0):
        raise ValueError("Quantiles must be in the range [0, 1]")
    rows = _rows(a, axis)
    s = np.sort(rows, axis=1)
    if skip_nan:
        count = np.sum(np.where(np.isnan(s), 0, 1), axis=1)
    else:
        count = np.zeros(s.shape[0], dtype=np.int64) + s.shape[1]
    values = _row_quantiles(s, count, fractions, method)
    if not skip_nan:      # NumPy's quantile of a slice holding a NaN (sorted last) is NaN
        values = np.where(np.isnan(s[:, s.shape[1] - 1:]), np.nan, values)
    return _result_like(values, q, a, axis, keepdims)


def _row_quantiles(s, count, q, method):
    """The quantiles ``q`` (a vector) of each row of ``s`` (sorted, its first ``count`` values counted), by
    NumPy's definitions: rows x quantiles."""
    n = np.expand_dims(count, 1).astype(np.float64)        # rows x 1, against q: rows x quantiles
    last = np.expand_dims(count, 1) - 1
    if method == "lower":
        return _at(s, np.floor(q * (n - 1)).astype(np.int64), last)
    if method == "higher":
        return _at(s, np.ceil(q * (n - 1)).astype(np.int64), last)
    if method == "nearest":
        return _at(s, np.round(q * (n - 1)).astype(np.int64), last)
    if method == "inverted_cdf" or method == "closest_observation":
        if method == "inverted_cdf":
            index = n * q - 1
        else:
            index = n * q - 1.5
        below = np.floor(index)
        at_below = index - below == 0
        if method == "closest_observation":     # the even order statistic, 1-based
            at_below = at_below & (below % 2 == 1)
        chosen = np.where(at_below, below, below + 1).astype(np.int64)
        return _at(s, np.maximum(chosen, 0), last)
    if method == "linear" or method == "midpoint":
        index = q * (n - 1)
    elif method == "averaged_inverted_cdf":
        index = n * q - 1
    else:
        alpha, beta = _PLOTTING_POSITIONS[method]
        index = n * q + (alpha + q * (1 - alpha - beta)) - 1
    below = np.floor(index)
    gamma = index - below
    if method == "midpoint":
        gamma = np.where(gamma == 0.0, 0.0, 0.5)
    elif method == "averaged_inverted_cdf":
        gamma = np.where(gamma == 0.0, 0.5, 1.0)
    # past the last counted value both neighbours are the last; before the first, the first
    high_end = index >= last
    low_end = index < 0
    lower = np.where(high_end, last, np.where(low_end, 0, below)).astype(np.int64)
    upper = np.where(high_end, last, np.where(low_end, 0, below + 1)).astype(np.int64)
    return _lerp(_at(s, lower, last), _at(s, upper, last), gamma)


#: (alpha, beta) of the continuous methods other than linear
_PLOTTING_POSITIONS = {"interpolated_inverted_cdf": (0.0, 1.0), "hazen": (0.5, 0.5), "weibull": (0.0, 0.0),
                       "median_unbiased": (1.0 / 3.0, 1.0 / 3.0), "normal_unbiased": (3.0 / 8.0, 3.0 / 8.0)}


def _at(s, positions, last):
    """The values of each row of ``s`` at ``positions`` (rows x quantiles), kept within the row (an all-NaN
    row's positions fall below 0)."""
    return np.take_along_axis(s, np.clip(positions, 0, s.shape[1] - 1), axis=1)


def _lerp(below, above, gamma):
    """NumPy's interpolation between neighbours: from the nearer end, so that gamma 0 and 1 are exact."""
    step = above - below
    return np.where(gamma >= 0.5, above - step * (1 - gamma), below + step * gamma)
