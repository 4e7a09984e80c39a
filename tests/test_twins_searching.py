"""Edge semantics of NumPy's searching, binning and elementwise functions written in NumPy (transpyle/twins/
interpolation.py, elementwise.py; the primitives np.searchsorted and np.signbit, rules/searching.py) that the
surface table (tests/surface_searching.py) cannot express: values at knots, bin edges and outside the range,
NaNs and infinities, integer dtypes of results, derivatives at the knots (JAX's conventions), run-time errors
NumPy raises, refusals at the user's line, and the same values compiled by Numba."""
import inspect

import numpy as np
import pytest

import transpyle
from transpyle.base.errors import TranspileError

NAN, INF = np.nan, np.inf


def _same(got, want):
    """Equal values (NaNs where NumPy has NaNs) of the same shape."""
    assert np.shape(got) == np.shape(want), (np.shape(got), np.shape(want))
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=0.0)


# ---- np.interp ---------------------------------------------------------------------------------------------
def _interp(x, xp, fp):
    return np.interp(x, xp, fp)


def _interp_ends(x, xp, fp):
    return np.interp(x, xp, fp, left=10.0, right=20.0)


def _interp_sum(x, xp, fp):
    return np.sum(np.interp(x, xp, fp))


XP = np.array([-1.0, 0.0, 0.5, 2.0])
FP = np.array([3.0, 1.0, -2.0, 4.0])


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=pytest.mark.numba)])
def test_interp_at_knots_outside_and_nan(backend):
    x = np.array([-1.0, 0.0, 0.5, 2.0, -3.0, 5.0, NAN, INF, -INF, 0.25, 1e-300])
    _same(transpyle.jit(_interp, backend=backend)(x, XP, FP), np.interp(x, XP, FP))
    _same(transpyle.jit(_interp_ends, backend=backend)(x, XP, FP), np.interp(x, XP, FP, left=10.0, right=20.0))
    # exactly fp at every knot, the last included
    assert np.array_equal(transpyle.jit(_interp, backend=backend)(XP, XP, FP), FP)


def test_interp_one_knot_and_repeated_last_knot():
    jitted = transpyle.jit(_interp, backend="numpy")
    x = np.array([-1.0, 0.5, 2.0, NAN])
    _same(jitted(x, np.array([0.5]), np.array([7.0])), np.interp(x, [0.5], [7.0]))
    xp, fp = np.array([0.0, 1.0, 1.0]), np.array([0.0, 2.0, 5.0])
    _same(jitted(np.array([0.5, 1.0, 1.5, NAN]), xp, fp), np.interp([0.5, 1.0, 1.5, NAN], xp, fp))
    assert np.isfinite(transpyle.grad(_interp_sum, argnums=(0, 1, 2), backend="numpy")(np.array([1.0]), xp, fp)[1]).all()


def test_interp_number_is_a_number():
    got = transpyle.jit(_interp, backend="numpy")(0.25, XP, FP)
    assert np.ndim(got) == 0 and got == np.interp(0.25, XP, FP)


def test_interp_derivatives_at_knots_follow_jax():
    # at a knot the slope of the segment to its right; at the last knot that of the last segment; outside, 0
    x = np.array([-1.0, 0.0, 0.5, 2.0, -3.0, 5.0])
    slopes = np.diff(FP) / np.diff(XP)
    want_x = np.array([slopes[0], slopes[1], slopes[2], slopes[2], 0.0, 0.0])
    dx = transpyle.grad(_interp_sum, backend="numpy")(x, XP, FP)
    np.testing.assert_allclose(dx, want_x, rtol=1e-14)
    _, tangent = transpyle.jvp(_interp_sum, (x, XP, FP), (np.ones(6), np.zeros(4), np.zeros(4)), backend="numpy")
    np.testing.assert_allclose(tangent, want_x.sum(), rtol=1e-14)
    # in fp: each point's weight on its knots (1 at a knot it sits on, fp[0] / fp[-1] outside)
    dfp = transpyle.grad(_interp_sum, argnums=2, backend="numpy")(x, XP, FP)
    np.testing.assert_allclose(dfp, [2.0, 1.0, 1.0, 2.0], rtol=1e-14)


# ---- np.searchsorted, np.digitize ------------------------------------------------------------------------------
def _search(a, v):
    return np.searchsorted(a, v, side="right")


def _search_left(a, v):
    return np.searchsorted(a, v)


def _digitize(x, bins):
    return np.digitize(x, bins)


def _digitize_right(x, bins):
    return np.digitize(x, bins, right=True)


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=pytest.mark.numba)])
def test_searchsorted_ties_nans_and_dtype(backend):
    a = np.array([0.0, 1.0, 1.0, 2.0, NAN])
    v = np.array([[1.0, NAN], [-INF, INF]])
    for fn, side in ((_search, "right"), (_search_left, "left")):
        got = transpyle.jit(fn, backend=backend)(a, v)
        assert got.dtype.kind == "i" and np.array_equal(got, np.searchsorted(a, v, side=side))
    one = transpyle.jit(_search, backend=backend)(a, 1.0)
    assert np.ndim(one) == 0 and one == 3
    ints = np.array([0, 2, 2, 5])
    assert np.array_equal(transpyle.jit(_search_left, backend=backend)(ints, np.array([2, 6, -1])), [1, 4, 0])


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=pytest.mark.numba)])
def test_digitize_at_edges_both_directions(backend):
    x = np.array([-1.0, 0.0, 0.5, 1.0, 3.0, 4.0, NAN])
    for bins in (np.array([0.0, 1.0, 1.0, 3.0]), np.array([3.0, 1.0, 1.0, 0.0])):
        for fn, right in ((_digitize, False), (_digitize_right, True)):
            got = transpyle.jit(fn, backend=backend)(x, bins)
            assert got.dtype.kind == "i" and np.array_equal(got, np.digitize(x, bins, right=right)), (bins, right)


def test_digitize_refuses_unsorted_bins_at_run_time():
    with pytest.raises(ValueError, match="monotonically"):
        transpyle.jit(_digitize, backend="numpy")(np.array([0.5]), np.array([0.0, 2.0, 1.0]))


# ---- np.isin -------------------------------------------------------------------------------------------------------
def _isin(element, test):
    return np.isin(element, test)


def _isin_out(element, test):
    return np.isin(element, test, invert=True)


def _isin_weighted(element, test, w):
    return np.sum(w * np.isin(element, test))


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=pytest.mark.numba)])
def test_isin_floats_nan_and_signed_zero(backend):
    element = np.array([[0.5, NAN], [-0.0, 2.0]])
    test = np.array([NAN, 2.0, 0.0, 0.5, 0.5])
    for fn, invert in ((_isin, False), (_isin_out, True)):
        got = transpyle.jit(fn, backend=backend)(element, test)
        assert got.dtype == np.bool_ and np.array_equal(got, np.isin(element, test, invert=invert))
    assert not transpyle.jit(_isin, backend=backend)(0.5, np.zeros(0))


def test_isin_float_members_under_vmap():
    rng = np.random.default_rng(0)
    test = rng.normal(size=(3, 4))
    element = np.where(rng.random((3, 5)) < 0.5, test[:, :1], rng.normal(size=(3, 5)))
    w = np.ones(5)
    for strategy in ("array", "loop"):
        got = transpyle.vmap(_isin_weighted, in_axes=(0, 0, None), strategy=strategy, backend="numpy")(element, test, w)
        _same(got, [_isin_weighted(element[b], test[b], w) for b in range(3)])


# ---- np.bincount --------------------------------------------------------------------------------------------------
def _bincount(x):
    return np.bincount(x, minlength=3)


def _bincount_weighted(x, v):
    return np.bincount(x, v)


def _bincount_sum(x, v):
    return np.sum(np.bincount(x, v * v) * np.arange(5.0)[:4])


def test_bincount_empty_dtype_and_errors():
    jitted = transpyle.jit(_bincount, backend="numpy")
    got = jitted(np.zeros(0, dtype=np.int64))
    assert got.dtype.kind == "i" and np.array_equal(got, [0, 0, 0])
    assert np.array_equal(jitted(np.array([4, 0, 4])), np.bincount([4, 0, 4], minlength=3))
    with pytest.raises(ValueError, match="negative"):
        jitted(np.array([1, -1]))
    with pytest.raises(TypeError, match="integer"):
        jitted(np.array([1.0, 2.0]))
    v = np.array([0.5, 2.0, -1.0])
    got = transpyle.jit(_bincount_weighted, backend="numpy")(np.array([1, 3, 1]), v)
    assert got.dtype == np.float64 and np.array_equal(got, np.bincount([1, 3, 1], v))
    x = np.array([0, 3, 1, 3])
    v = np.array([1.0, 2.0, 3.0, 4.0])
    np.testing.assert_allclose(transpyle.grad(_bincount_sum, argnums=1, backend="numpy")(x, v), 2 * v * x)


# ---- elementwise ----------------------------------------------------------------------------------------------------
def _signs(x, y):
    return np.signbit(x), np.copysign(2.0, x), np.copysign(y, x), np.heaviside(x, y)


def _remainders(x, y):
    part, whole = np.modf(x)
    q, r = np.divmod(x, y)
    return np.fmod(x, y), part, whole, q, r


def _replaced(x):
    return np.nan_to_num(x), np.nan_to_num(x, nan=1.0, posinf=2.0, neginf=3.0)


def _replaced_sum(x, a):
    return np.sum(np.nan_to_num(x, nan=a, posinf=2.0 * a))


EDGES = np.array([-0.0, 0.0, -NAN, NAN, INF, -INF, -2.5, 3.0])


def _numpy_signs(x, y):
    return np.signbit(x), np.copysign(2.0, x), np.copysign(y, x), np.heaviside(x, y)


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=pytest.mark.numba)])
def test_elementwise_at_zeros_nans_and_infinities(backend):
    y = np.full(EDGES.shape, 0.75)
    got = transpyle.jit(_signs, backend=backend)(EDGES, y)
    for g, w in zip(got, _numpy_signs(EDGES, y)):
        _same(g, w)
    # the sign of -0.0 and of a NaN that carries one is read from its bit
    assert np.array_equal(got[0], np.signbit(EDGES)) and np.array_equal(np.signbit(got[1]), np.signbit(EDGES))
    divisors = np.array([0.7, -0.7, 0.7, 2.0, 0.7, 0.7, 2.0, INF])
    with np.errstate(invalid="ignore"):
        got = transpyle.jit(_remainders, backend=backend)(EDGES, divisors)
        part, whole = np.modf(EDGES)
        q, r = np.divmod(EDGES, divisors)
        for g, w in zip(got, (np.fmod(EDGES, divisors), part, whole, q, r)):
            _same(g, w)
    for g, w in zip(transpyle.jit(_replaced, backend=backend)(EDGES),
                    (np.nan_to_num(EDGES), np.nan_to_num(EDGES, nan=1.0, posinf=2.0, neginf=3.0))):
        _same(g, w)


def test_derivatives_at_the_steps():
    def heaviside_sum(x, y):
        return np.sum(np.heaviside(x, y))
    gx, gy = transpyle.grad(heaviside_sum, argnums=(0, 1), backend="numpy")(np.array([-1.0, 0.0, 2.0]), np.ones(3))
    assert np.array_equal(gx, [0.0, 0.0, 0.0]) and np.array_equal(gy, [0.0, 1.0, 0.0])
    # nan_to_num: 1 where x is finite; in the replacements, how many entries they replace
    gx, ga = transpyle.grad(_replaced_sum, argnums=(0, 1), backend="numpy")(np.array([NAN, 1.0, INF, NAN]), 0.5)
    assert np.array_equal(gx, [0.0, 1.0, 0.0, 0.0]) and ga == 4.0


def _sinc(x):
    return np.sinc(x)


def test_sinc_derivatives_at_zero():
    assert transpyle.jit(_sinc, backend="numpy")(0.0) == 1.0
    assert transpyle.grad(_sinc, backend="numpy")(0.0) == 0.0
    np.testing.assert_allclose(transpyle.grad(transpyle.grad(_sinc), backend="numpy")(0.0), -np.pi ** 2 / 3,
                               rtol=1e-12)
    # either side of the switch to the series, the same derivative
    for x in (0.05 / np.pi * (1 - 1e-9), 0.05 / np.pi * (1 + 1e-9)):
        y = np.pi * x
        want = (np.cos(y) * y - np.sin(y)) / (y * x)
        np.testing.assert_allclose(transpyle.grad(_sinc, backend="numpy")(x), want, rtol=1e-8)


# ---- refusals at the user's line ---------------------------------------------------------------------------------
def _sorter(a, v):
    return np.sum(np.searchsorted(a, v, sorter=np.argsort(a)) * v)


def _matrix_search(a, v):
    return np.sum(np.searchsorted(a, v) * v)


def _periodic(x, xp, fp):
    return np.sum(np.interp(x, xp, fp, period=360.0))


def _right_variable(x, bins):
    return np.sum(np.digitize(x, bins, right=bins[0] > 0.0) * x)


def _complex_signbit(z):
    return np.sum(np.signbit(z) * 1.0)


@pytest.mark.parametrize("fn, args, message", [
    (_sorter, (np.arange(3.0), np.ones(2)), "np.searchsorted: sorter= is not supported"),
    (_matrix_search, (np.ones((2, 2)), np.ones(2)), "a must be a sorted vector"),
    (_periodic, (np.ones(2), np.arange(3.0), np.ones(3)), "np.interp with period= is not supported"),
    (_right_variable, (np.ones(2), np.arange(3.0)), "right=a value computed at run time is not supported"),
    (_complex_signbit, (np.ones(2, dtype=complex),), "complex values have no sign bit"),
])
def test_refusals_name_the_function_at_the_line(fn, args, message):
    with pytest.raises(TranspileError) as err:
        transpyle.grad(fn, backend="numpy")(*args)
    assert message in err.value.message
    assert err.value.lineno == fn.__code__.co_firstlineno + 1
    assert err.value.filename == inspect.getsourcefile(fn)
