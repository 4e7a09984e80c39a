"""Edges of the order statistics and NaN-ignoring reductions written in NumPy (transpyle/twins/order_statistics.py
and nan_reductions.py) that the surface table (tests/surface_order_statistics.py) cannot hold: NaN inputs (the
values NumPy gives, zero derivatives at the NaNs), all-NaN slices, ties, the twins called eagerly, the
errors NumPy raises when run, and the refused forms with their lines; a few on the numba backend."""
import warnings

import numpy as np
import pytest

import transpyle
from transpyle.base.errors import TranspileError
from transpyle.twins import nan_reductions, order_statistics

NAN = np.nan
X = np.array([[0.3, NAN, -1.2, 2.5, 0.7],
              [NAN, NAN, NAN, NAN, NAN],
              [1.1, -0.4, NAN, 0.9, -2.0]])
ROWS_OK = [0, 2]           # the rows with values


def _quiet(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return fn(*args)


# ---- values with NaNs against NumPy ----------------------------------------------------------------------
def nan_programs():
    return {
        "nanmedian": lambda a: np.nanmedian(a, axis=1),
        "nanquantile": lambda a: np.nanquantile(a, np.array([0.2, 0.9]), axis=1),
        "nanpercentile": lambda a: np.nanpercentile(a, 30.0, axis=1, method="hazen", keepdims=True),
        "nansum": lambda a: np.nansum(a, axis=1),
        "nanprod": lambda a: np.nanprod(a, axis=1),
        "nanmean": lambda a: np.nanmean(a, axis=1),
        "nanvar": lambda a: np.nanvar(a, axis=1, ddof=1),
        "nanstd": lambda a: np.nanstd(a, axis=1),
        "nanmax": lambda a: np.nanmax(a, axis=1),
        "nanmin": lambda a: np.nanmin(a, axis=1, keepdims=True),
        "nancumsum": lambda a: np.nancumsum(a, axis=1),
        "nancumprod": lambda a: np.nancumprod(a),
        "median": lambda a: np.median(a, axis=1),
        "quantile": lambda a: np.quantile(a, 0.4, axis=1),
    }


def _named(name, body):
    """A program of its own (transpyle reads a function's source): ``body`` applied to the argument."""
    namespace = {"np": np, "body": body}
    exec(f"def {name}(a):\n    return body(a)\n", namespace)
    return namespace[name]


def _nanmedian_rows(a):
    return np.nanmedian(a, axis=1)


def _nanquantile_rows(a):
    return np.nanquantile(a, np.array([0.2, 0.9]), axis=1)


def _nanpercentile_rows(a):
    return np.nanpercentile(a, 30.0, axis=1, method="hazen", keepdims=True)


def _nansum_rows(a):
    return np.nansum(a, axis=1)


def _nanprod_rows(a):
    return np.nanprod(a, axis=1)


def _nanmean_rows(a):
    return np.nanmean(a, axis=1)


def _nanvar_rows(a):
    return np.nanvar(a, axis=1, ddof=1)


def _nanstd_rows(a):
    return np.nanstd(a, axis=1)


def _nanmax_rows(a):
    return np.nanmax(a, axis=1)


def _nanmin_rows(a):
    return np.nanmin(a, axis=1, keepdims=True)


def _nancumsum_rows(a):
    return np.nancumsum(a, axis=1)


def _nancumprod_all(a):
    return np.nancumprod(a)


def _median_rows(a):
    return np.median(a, axis=1)


def _quantile_rows(a):
    return np.quantile(a, 0.4, axis=1)


PROGRAMS = [_nanmedian_rows, _nanquantile_rows, _nanpercentile_rows, _nansum_rows, _nanprod_rows, _nanmean_rows,
            _nanvar_rows, _nanstd_rows, _nanmax_rows, _nanmin_rows, _nancumsum_rows, _nancumprod_all,
            _median_rows, _quantile_rows]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_values_with_nans_and_all_nan_rows(program):
    want = _quiet(program, X.copy())
    got = _quiet(transpyle.jit(program, backend="numpy"), X.copy())
    assert np.shape(got) == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=1e-12, equal_nan=True)


@pytest.mark.numba
@pytest.mark.parametrize("program", [_nanquantile_rows, _nanmax_rows, _nanvar_rows, _median_rows],
                         ids=lambda p: p.__name__)
def test_values_with_nans_on_numba(program):
    want = _quiet(program, X.copy())
    got = _quiet(transpyle.jit(program, backend="numba"), X.copy())
    np.testing.assert_allclose(got, want, rtol=1e-12, equal_nan=True)


# ---- derivatives with NaNs: zero at the NaNs, the NaN-free function's elsewhere ----------------------------
def _weighted(program):
    def loss(a):
        return np.sum(np.where(np.isnan(program(a)), 0.0, program(a)))
    return loss


def _nansum_loss(a):
    return np.sum(np.nansum(a, axis=1) * np.array([1.0, 2.0, -1.5]))


def _nanmean_loss(a):
    return np.sum(np.nanmean(a[np.array([0, 2])], axis=1) * np.array([1.0, -1.5]))


def _nanvar_loss(a):
    return np.sum(np.nanvar(a[np.array([0, 2])], axis=1) * np.array([1.0, -1.5]))


def _nanmax_loss(a):
    return np.sum(np.nanmax(a[np.array([0, 2])], axis=1) * np.array([1.0, -1.5]))


def _nanmedian_loss(a):
    return np.sum(np.nanmedian(a[np.array([0, 2])], axis=1) * np.array([1.0, -1.5]))


def _nanquantile_loss(a):
    return np.sum(np.nanquantile(a[np.array([0, 2])], 0.3, axis=1) * np.array([1.0, -1.5]))


def _row_reference(reduce, weights=(1.0, -1.5)):
    """The gradient of the weighted reductions of the rows' values by central differences over those values."""
    grad = np.zeros_like(X)
    for r, wt in zip(ROWS_OK, weights):
        keep = ~np.isnan(X[r])
        v = X[r][keep]
        for j, col in enumerate(np.flatnonzero(keep)):
            e = np.zeros_like(v)
            e[j] = 1e-6
            grad[r, col] = wt * (reduce(v + e) - reduce(v - e)) / 2e-6
    return grad


@pytest.mark.parametrize("loss, reduce", [
    (_nanmean_loss, np.mean), (_nanvar_loss, np.var), (_nanmax_loss, np.max),
    (_nanmedian_loss, np.median), (_nanquantile_loss, lambda v: np.quantile(v, 0.3))],
    ids=["nanmean", "nanvar", "nanmax", "nanmedian", "nanquantile"])
def test_gradient_at_nans(loss, reduce):
    got = transpyle.grad(loss, backend="numpy")(X.copy())
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, _row_reference(reduce), atol=1e-6)


def test_nansum_gradient_is_the_weight_where_a_value_is():
    got = transpyle.grad(_nansum_loss, backend="numpy")(X.copy())
    want = np.where(np.isnan(X), 0.0, np.array([1.0, 2.0, -1.5])[:, None])
    np.testing.assert_array_equal(got, want)


@pytest.mark.numba
def test_nanquantile_gradient_at_nans_on_numba():
    got = transpyle.grad(_nanquantile_loss, backend="numba")(X.copy())
    np.testing.assert_allclose(got, _row_reference(lambda v: np.quantile(v, 0.3)), atol=1e-6)


# ---- ties: the cotangent goes to tied elements, finite, summing to the weight --------------------------------
def _median_loss(a):
    return np.median(a) * 3.0


def _quantile_loss(a):
    return np.quantile(a, 0.5)


def _ptp_loss(a):
    return np.ptp(a)


@pytest.mark.parametrize("loss, total", [(_median_loss, 3.0), (_quantile_loss, 1.0), (_ptp_loss, 0.0)],
                         ids=["median", "quantile", "ptp"])
def test_ties_give_finite_gradients(loss, total):
    a = np.array([1.0, 2.0, 2.0, 2.0, 5.0, -1.0, 5.0])
    got = transpyle.grad(loss, backend="numpy")(a)
    assert np.all(np.isfinite(got))
    assert np.isclose(np.sum(got), total)
    assert got[0] == 0.0 and got[5] == 0.0 or loss is _ptp_loss


# ---- the twins called eagerly give NumPy's values -----------------------------------------------------------
def test_twins_called_eagerly():
    rng = np.random.default_rng(3)
    a = rng.normal(size=(4, 5))
    q = np.array([0.1, 0.5, 0.95])
    for method in order_statistics.METHODS:
        np.testing.assert_allclose(order_statistics.quantile(a, q, axis=1, method=method),
                                   np.quantile(a, q, axis=1, method=method), rtol=1e-13)
    np.testing.assert_allclose(order_statistics.percentile(a, 35, axis=0, keepdims=True),
                               np.percentile(a, 35, axis=0, keepdims=True))
    np.testing.assert_allclose(order_statistics.median(a, axis=-1), np.median(a, axis=-1))
    np.testing.assert_allclose(_quiet(order_statistics.nanmedian, X), _quiet(np.nanmedian, X))
    np.testing.assert_allclose(_quiet(nan_reductions.nanstd, X, 1), _quiet(np.nanstd, X, 1), equal_nan=True)
    assert nan_reductions.nanargmax(X[0]) == np.nanargmax(X[0])


# ---- NumPy's errors when run --------------------------------------------------------------------------------
def _quantile_of(a, q):
    return np.quantile(a, q)


def _nanargmax_rows(a):
    return np.nanargmax(a, axis=1)


def test_quantile_outside_0_1_raises():
    with pytest.raises(ValueError, match=r"Quantiles must be in the range \[0, 1\]"):
        transpyle.jit(_quantile_of, backend="numpy")(np.arange(4.0), 1.5)


def test_nanargmax_of_an_all_nan_slice_raises():
    with pytest.raises(ValueError, match="All-NaN slice encountered"):
        transpyle.jit(_nanargmax_rows, backend="numpy")(X.copy())
    np.testing.assert_array_equal(transpyle.jit(_nanargmax_rows, backend="numpy")(X[ROWS_OK]),
                                  np.nanargmax(X[ROWS_OK], axis=1))


# ---- refused forms, at the user's line ------------------------------------------------------------------------
def _median_tuple(a):
    return np.median(a, axis=(0, 1))


def _quantile_method(a):
    return np.quantile(a, 0.5, method="no_such_method")


def _quantile_interpolation(a):
    return np.quantile(a, 0.5, interpolation="lower")


def _ptp_out(a, o):
    return np.ptp(a, out=o)


def _nanmax_axis_variable(a, k):
    return np.nanmax(a, axis=k)


def _nansum_dtype(a):
    return np.nansum(a, dtype=np.float32)


@pytest.mark.parametrize("program, args, message", [
    (_median_tuple, (np.ones((2, 3)),), "np.median with a tuple of axes is not supported"),
    (_quantile_method, (np.ones(3),), "np.quantile with method='no_such_method' is not supported"),
    (_quantile_interpolation, (np.ones(3),), "interpolation= (NumPy's deprecated name) is not supported"),
    (_ptp_out, (np.ones(3), np.ones(())), "np.ptp with out= is not supported"),
    (_nanmax_axis_variable, (np.ones((2, 3)), 1), "np.nanmax with an axis computed at run time is not supported"),
    (_nansum_dtype, (np.ones(3),), "np.nansum with dtype="),
], ids=["axis tuple", "method", "interpolation", "out", "run-time axis", "dtype"])
def test_refused_at_the_call(program, args, message):
    with pytest.raises(TranspileError) as err:
        transpyle.jit(program, backend="numpy")(*args)
    assert message in err.value.message
    assert err.value.lineno == program.__code__.co_firstlineno + 1
