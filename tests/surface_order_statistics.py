"""Entries of the NumPy surface table (tests/surface_programs.py) for NumPy's order statistics and NaN-ignoring
reductions written in NumPy (transpyle/twins/order_statistics.py, nan_reductions.py): one program per
function and variant, `np.sum(w * f(...))` with a random weight. The inputs hold no NaN (finite differences
there are NaN): tests/test_twins_order_statistics.py checks NaN inputs, ties and the refusals' lines."""
import numpy as np

from surface_programs import C, D, I, M, N, P, S, U, Z, apart, _G  # noqa: F401

CASES = []


# ---- np.ptp, np.median ----------------------------------------------------------------------------------
def ptp_all(a, w):
    return np.sum(w * np.ptp(a))


def ptp_axis0_keepdims(a, w):
    return np.sum(w * np.ptp(a, axis=0, keepdims=True))


def ptp_axis_neg(a, w):
    return np.sum(w * np.ptp(a, axis=-1))


def median_all(a, w):
    return np.sum(w * np.median(a))


def median_axis1(a, w):
    return np.sum(w * np.median(a, axis=1))


def median_axis0_rank3(a, w):
    return np.sum(w * np.median(a, axis=0))


def median_keepdims(a, w):
    return np.sum(w * np.median(a, axis=2, keepdims=True))


def median_all_keepdims(a, w):
    return np.sum(w * np.median(a, keepdims=True, overwrite_input=True))


def median_integers(k, w):
    return np.sum(w * np.median(k, axis=0))


CASES += [
    C("np.ptp", "all", ptp_all, D(3, 4)),
    C("np.ptp", "axis=0, keepdims", ptp_axis0_keepdims, D(3, 4), numba=_G),
    C("np.ptp", "axis=-1, rank 3", ptp_axis_neg, D(2, 3, 4)),
    C("np.median", "all, odd count", median_all, D(3, 5), numba=_G),
    C("np.median", "axis=1, even count", median_axis1, D(3, 4)),
    C("np.median", "axis=0, rank 3", median_axis0_rank3, D(3, 2, 4)),
    C("np.median", "axis=2, keepdims", median_keepdims, D(2, 3, 5), numba=_G),
    C("np.median", "all, keepdims, overwrite_input", median_all_keepdims, D(2, 3)),
    C("np.median", "integers, axis=0", median_integers, I(4, 3, hi=9)),
]


# ---- np.quantile, np.percentile --------------------------------------------------------------------------
def quantile_all(a, w):
    return np.sum(w * np.quantile(a, 0.3))


def quantile_axis1(a, w):
    return np.sum(w * np.quantile(a, 0.75, axis=1))


def quantile_given_q(a, q, w):
    return np.sum(w * np.quantile(a, q, axis=0))


def quantile_q_vector(a, q, w):
    return np.sum(w * np.quantile(a, q, axis=2))


def quantile_q_matrix_keepdims(a, q, w):
    return np.sum(w * np.quantile(a, q, axis=1, keepdims=True))


def quantile_q_tuple(a, w):
    return np.sum(w * np.quantile(a, np.array([0.1, 0.5, 0.9])))


def quantile_ends(a, w):
    return np.sum(w * np.quantile(a, np.array([0.0, 1.0]), axis=0))


def percentile_all(a, w):
    return np.sum(w * np.percentile(a, 40))


def percentile_axis0_keepdims(a, w):
    return np.sum(w * np.percentile(a, 62.5, axis=0, keepdims=True))


def percentile_all_keepdims(a, q, w):
    return np.sum(w * np.percentile(a, q, keepdims=True))


def percentile_integers(k, w):
    return np.sum(w * np.percentile(k, 35.0, axis=1))


def _method(name):
    def program(a, w):
        return np.sum(w * np.quantile(a, np.array([0.05, 0.3, 0.5, 0.77, 1.0]), axis=1, method=name))
    program.__name__ = f"quantile_method_{name}"
    return program


def percentile_method_interpolated(a, q, w):
    return np.sum(w * np.percentile(a, q, axis=0, method="median_unbiased"))


def quantile_of_scores(a, b, w):
    return np.sum(w * np.quantile(a * b, 0.4, axis=0))


CASES += [
    C("np.quantile", "all, q=0.3", quantile_all, D(3, 4), numba=_G),
    C("np.quantile", "axis=1, q=0.75", quantile_axis1, D(3, 5)),
    C("np.quantile", "q an argument (its derivative too), axis=0", quantile_given_q, D(5, 3), U(lo=0.05, hi=0.95)),
    C("np.quantile", "q a vector argument, axis=2", quantile_q_vector, D(2, 3, 6), U(4, lo=0.05, hi=0.95),
      numba=_G),
    C("np.quantile", "q a matrix, axis=1, keepdims", quantile_q_matrix_keepdims, D(2, 5, 3), U(2, 2, lo=0.05, hi=0.95)),
    C("np.quantile", "q an array of constants", quantile_q_tuple, D(7)),
    C("np.quantile", "q 0 and 1, axis=0", quantile_ends, D(4, 3)),
    C("np.quantile", "of a product, axis=0", quantile_of_scores, D(4, 3), P(4, 3)),
    C("np.percentile", "all, q=40", percentile_all, D(9), numba=_G),
    C("np.percentile", "axis=0, keepdims", percentile_axis0_keepdims, D(4, 3)),
    C("np.percentile", "all, keepdims, q an argument", percentile_all_keepdims, D(2, 3, 2), U(lo=5.0, hi=95.0)),
    C("np.percentile", "integers, axis=1", percentile_integers, I(3, 5, hi=20)),
    C("np.percentile", "method='median_unbiased', q a vector", percentile_method_interpolated, D(6, 2),
      U(3, lo=5.0, hi=95.0)),
]
CASES += [C("np.quantile", f"method={name!r}", _method(name), D(3, 6), numba=_G if name == "hazen" else ())
          for name in ("lower", "higher", "midpoint", "nearest", "inverted_cdf", "averaged_inverted_cdf",
                       "closest_observation", "interpolated_inverted_cdf", "hazen", "weibull",
                       "median_unbiased", "normal_unbiased")]


# ---- NaN-ignoring order statistics (no NaN here: the values equal the plain ones) -----------------------
def nanmedian_all(a, w):
    return np.sum(w * np.nanmedian(a))


def nanmedian_axis1_keepdims(a, w):
    return np.sum(w * np.nanmedian(a, axis=1, keepdims=True))


def nanquantile_axis0(a, q, w):
    return np.sum(w * np.nanquantile(a, q, axis=0))


def nanpercentile_vector(a, w):
    return np.sum(w * np.nanpercentile(a, np.array([10.0, 50.0, 90.0]), axis=1, method="weibull"))


CASES += [
    C("np.nanmedian", "all", nanmedian_all, D(3, 4), numba=_G),
    C("np.nanmedian", "axis=1, keepdims", nanmedian_axis1_keepdims, D(2, 5, 3)),
    C("np.nanquantile", "q an argument, axis=0", nanquantile_axis0, D(5, 3), U(lo=0.05, hi=0.95), numba=_G),
    C("np.nanpercentile", "a vector of q, axis=1, method='weibull'", nanpercentile_vector, D(3, 6)),
]


# ---- NaN-ignoring reductions -------------------------------------------------------------------------------
def nansum_all(a, w):
    return np.sum(w * np.nansum(a))


def nansum_axis1(a, w):
    return np.sum(w * np.nansum(a, axis=1))


def nansum_keepdims_initial(a, w):
    return np.sum(w * np.nansum(a, axis=0, keepdims=True, initial=1.5))


def nanprod_axis(a, w):
    return np.sum(w * np.nanprod(a, axis=-1))


def nanprod_zeros(a, w):
    return np.sum(w * np.nanprod(a, axis=0, keepdims=True))


def nanmean_all(a, w):
    return np.sum(w * np.nanmean(a))


def nanmean_axis(a, w):
    return np.sum(w * np.nanmean(a, axis=1, keepdims=True))


def nanvar_axis_ddof(a, w):
    return np.sum(w * np.nanvar(a, axis=0, ddof=1))


def nanvar_correction(a, w):
    return np.sum(w * np.nanvar(a, axis=-1, keepdims=True, correction=1))


def nanstd_all(a, w):
    return np.sum(w * np.nanstd(a))


def nanstd_keepdims(a, w):
    return np.sum(w * np.nanstd(a, axis=1, ddof=2, keepdims=True))


def nanmax_all(a, w):
    return np.sum(w * np.nanmax(a))


def nanmax_axis(a, w):
    return np.sum(w * np.nanmax(a, axis=0, keepdims=True))


def nanmax_initial(a, w):
    return np.sum(w * np.nanmax(a, axis=1, initial=0.0))


def nanmin_axis(a, w):
    return np.sum(w * np.nanmin(a, axis=-1))


def nanargmax_flat(a, w):
    return np.sum(w * np.ravel(a)[np.nanargmax(a)])


def nanargmax_axis(a, w):
    return np.sum(w * np.take_along_axis(a, np.nanargmax(a, axis=1, keepdims=True), axis=1))


def nanargmin_axis(a, w):
    return np.sum(w * np.take_along_axis(a, np.expand_dims(np.nanargmin(a, axis=0), 0), axis=0))


def nancumsum_flat(a, w):
    return np.sum(w * np.nancumsum(a))


def nancumsum_axis(a, w):
    return np.sum(w * np.nancumsum(a, axis=1))


def nancumprod_axis(a, w):
    return np.sum(w * np.nancumprod(a, axis=0))


def nansum_integers(k, w):
    return np.sum(w * np.nansum(k, axis=0))


CASES += [
    C("np.nansum", "all", nansum_all, N(3, 4)),
    C("np.nansum", "axis=1", nansum_axis1, N(2, 3, 4), numba=_G),
    C("np.nansum", "axis=0, keepdims, initial", nansum_keepdims_initial, N(3, 4)),
    C("np.nansum", "integers, axis=0", nansum_integers, I(3, 4, hi=9)),
    C("np.nanprod", "axis=-1", nanprod_axis, N(3, 4)),
    C("np.nanprod", "axis=0, keepdims, zeros", nanprod_zeros, Z(3, 4), numba=_G),
    C("np.nanmean", "all", nanmean_all, N(3, 4)),
    C("np.nanmean", "axis=1, keepdims", nanmean_axis, N(2, 3, 4), numba=_G),
    C("np.nanvar", "axis=0, ddof=1", nanvar_axis_ddof, N(4, 3)),
    C("np.nanvar", "axis=-1, keepdims, correction=1", nanvar_correction, N(3, 4)),
    C("np.nanstd", "all", nanstd_all, N(3, 4), numba=_G),
    C("np.nanstd", "axis=1, ddof=2, keepdims", nanstd_keepdims, N(2, 5, 3)),
    C("np.nanmax", "all", nanmax_all, D(3, 4)),
    C("np.nanmax", "axis=0, keepdims", nanmax_axis, D(3, 4), numba=_G),
    C("np.nanmax", "axis=1, initial=0.0", nanmax_initial, D(3, 4)),
    C("np.nanmin", "axis=-1", nanmin_axis, D(2, 3, 4)),
    C("np.nanargmax", "flattened", nanargmax_flat, D(3, 4)),
    C("np.nanargmax", "axis=1, keepdims", nanargmax_axis, D(3, 4), numba=_G),
    C("np.nanargmin", "axis=0", nanargmin_axis, D(3, 4)),
    C("np.nancumsum", "flattened", nancumsum_flat, N(3, 4)),
    C("np.nancumsum", "axis=1", nancumsum_axis, N(3, 4), numba=_G),
    C("np.nancumprod", "axis=0", nancumprod_axis, N(3, 4)),
]


# ---- refused forms --------------------------------------------------------------------------------------
def median_axes_tuple(a, w):
    return np.sum(w * np.median(a, axis=(0, 2)))


def quantile_weights(a, w):
    return np.sum(w * np.quantile(a, 0.5, method="inverted_cdf", weights=np.ones(4)))


def median_negative_axis(a, w):
    return np.sum(w * np.median(a, axis=-1))


def nanquantile_negative_axis(a, w):
    return np.sum(w * np.nanquantile(a, 0.3, axis=-2, keepdims=True))


def ptp_axes_tuple(a, w):
    return np.sum(w * np.ptp(a, axis=(0, 2)))


def nansum_axes_tuple(a, w):
    return np.sum(w * np.nansum(a, axis=(0, -1), keepdims=True))


def nanmean_axes_tuple(a, w):
    return np.sum(w * np.nanmean(a, axis=(1, 2)))


def nanmean_where(a, m, w):
    return np.sum(w * np.nanmean(a, where=m))


_ALL = ("jit", "grad", "jvp", "vmap_array", "vmap_loop")
CASES += [
    C("np.median", "axis=(0, 2): refused", median_axes_tuple, D(2, 3, 4),
      refused={m: "np.median with a tuple of axes is not supported" for m in _ALL}),
    C("np.median", "axis=-1", median_negative_axis, D(3, 4), numba=_G),
    C("np.nanquantile", "axis=-2, keepdims", nanquantile_negative_axis, D(3, 4)),
    C("np.ptp", "axis=(0, 2)", ptp_axes_tuple, D(2, 3, 4)),
    C("np.nansum", "axis=(0, -1), keepdims", nansum_axes_tuple, N(2, 3, 4), numba=_G),
    C("np.nanmean", "axis=(1, 2)", nanmean_axes_tuple, N(2, 3, 4)),
    C("np.quantile", "weights=: refused", quantile_weights, D(4),
      refused={m: "with weights=a value computed at run time is not supported" for m in _ALL}),
    C("np.nanmean", "where=: refused", nanmean_where, N(3, 4), M(3, 4),
      refused={m: "np.nanmean with where=a value computed at run time is not supported" for m in _ALL}),
]
