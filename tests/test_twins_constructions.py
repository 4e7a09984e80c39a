"""NumPy's constructions and small algorithms (transpyle/twins/constructions.py, transpyle/rules/constructions.py)
at what the surface table (tests/surface_constructions.py) cannot express: eager values of the twins, dtypes of
results, exact ends and signed zeros, the refusals' messages at the user's line, and values compiled by numba."""
import numpy as np
import pytest

import transpyle
from transpyle.base.errors import TranspileError
from transpyle.twins import constructions as twins

RNG = np.random.default_rng(7)
A = RNG.normal(size=(3, 4))
X = np.array([0.3, -0.7, 1.2])


# ---- eager: a twin called as Python gives NumPy's value -----------------------------------------------------
@pytest.mark.parametrize("name, args, kwargs", [
    ("logspace", (0.5, 2.0, 7), {"base": 3.0}),
    ("geomspace", (0.25, 8.0, 6), {"endpoint": False}),
    ("tri", (3, 5, -1), {}),
    ("vander", (X,), {"N": 4}),
    ("append", (A, X), {}),
    ("insert", (A, 1, X), {"axis": 1}),
    ("delete", (A, np.array([0, -1])), {"axis": 1}),
    ("vdot", (A, 2 * A), {}),
    ("trapezoid", (A,), {"x": np.array([0.0, 0.5, 2.0]), "axis": 0}),
    ("polyval", (np.array([1.0, -2.0, 0.5]), A), {}),
    ("unwrap", (np.array([0.0, 3.0, 6.5, 1.0, -4.0]),), {}),
])
def test_eager_twin_is_numpy(name, args, kwargs):
    np.testing.assert_allclose(getattr(twins, name)(*args, **kwargs), getattr(np, name)(*args, **kwargs),
                               rtol=1e-13, atol=1e-15)


def test_index_twins_are_numpy():
    for got, want in ((twins.triu_indices(4, 1), np.triu_indices(4, 1)),
                      (twins.tril_indices(3, -1, 5), np.tril_indices(3, -1, 5))):
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)


# ---- dtypes and exact values -------------------------------------------------------------------------------
def _tri_int(x):
    return x * np.tri(3, 4, 0, dtype=int)


def _broadcast_int(i):
    return np.broadcast_to(i, (2, 3))


def _vander_int(i):
    return np.vander(i, 3)


def _geomspace_ends(a, b):
    return np.geomspace(a, b, 7)


def _broadcast_signed_zero(x):
    return np.broadcast_to(x, (2, 2))


def _cumulative_int(i):
    return np.cumulative_sum(i, include_initial=True)


def test_dtypes_follow_numpy():
    ints = np.array([2, -3, 4])
    got = transpyle.jit(_broadcast_int, backend="numpy")(np.array([1, 2, 3]))
    assert got.dtype == np.int64 and np.array_equal(got, np.broadcast_to(np.array([1, 2, 3]), (2, 3)))
    got = transpyle.jit(_vander_int, backend="numpy")(ints)
    assert got.dtype.kind == "i" and np.array_equal(got, np.vander(ints, 3))
    got = transpyle.jit(_cumulative_int, backend="numpy")(ints)
    assert got.dtype.kind == "i" and np.array_equal(got, np.cumulative_sum(ints, include_initial=True))
    got = transpyle.jit(_tri_int, backend="numpy")(A)
    np.testing.assert_array_equal(got, A * np.tri(3, 4, 0, dtype=int))


def test_geomspace_ends_exact_and_signed_zero_kept():
    out = transpyle.jit(_geomspace_ends, backend="numpy")(0.3, 7.1)
    assert out[0] == 0.3 and out[-1] == 7.1
    out = transpyle.jit(_broadcast_signed_zero, backend="numpy")(np.array([-0.0, 1.0]))
    assert np.signbit(out[:, 0]).all()


# ---- refusals at the user's line ---------------------------------------------------------------------------
def _insert_tuple(x):
    return np.sum(np.insert(x, (0, 1), 2.0))


def _logspace_axis(a):
    return np.sum(np.logspace(a, 2.0, 4, axis=1))


def _multi_dot_out(a):
    return np.sum(np.linalg.multi_dot([a, a.T], out=a))


def _multi_dot_name(a):
    factors = [a, a.T]
    return np.sum(np.linalg.multi_dot(factors))


def _broadcast_subok(x):
    return np.sum(np.broadcast_to(x, (2, 3), subok=True))


def _column_stack_number(x):
    return np.sum(np.column_stack((x, 1.0)))


def _cumulative_dtype(x):
    return np.sum(np.cumulative_sum(x, dtype=np.float32))


def _unwrap_computed_period(p, t):
    return np.sum(np.unwrap(p, period=t))


@pytest.mark.parametrize("fn, args, message", [
    (_insert_tuple, (X,), "np.insert at (0, 1) is not supported"),
    (_logspace_axis, (0.5,), "np.logspace of numbers with axis=1 is not supported"),
    (_multi_dot_out, (A,), "np.linalg.multi_dot with out= is not supported"),
    (_multi_dot_name, (A,), "not written as a list in the call"),
    (_broadcast_subok, (X,), "np.broadcast_to with subok=True is not supported"),
    (_column_stack_number, (X,), "np.column_stack of a number is not supported"),
    (_cumulative_dtype, (X,), "np.cumulative_sum with dtype= is not supported"),
    (_unwrap_computed_period, (X, 4.0), "computed at run time is not supported"),
])
def test_refused_at_the_users_line(fn, args, message):
    with pytest.raises(TranspileError) as err:
        transpyle.grad(fn, backend="numpy")(*args)
    assert message in err.value.message
    assert err.value.lineno == fn.__code__.co_firstlineno + (2 if fn is _multi_dot_name else 1)


def _insert_at(x, i):
    return np.insert(x, i, 5.0)


def test_insert_out_of_range_raises():
    with pytest.raises(IndexError):
        transpyle.jit(_insert_at, backend="numpy")(X, 7)
    np.testing.assert_array_equal(transpyle.jit(_insert_at, backend="numpy")(X, -3), np.insert(X, -3, 5.0))


# ---- numba values -----------------------------------------------------------------------------------------
def _numba_mix(x, p):
    r, c = np.triu_indices(3, 1)
    return (np.sum(np.geomspace(0.5, 4.0, 5)) + np.sum(np.unwrap(p)) + np.sum(np.insert(x, 1, 2.0))
            + np.sum(np.cumulative_prod(x, include_initial=True)) + np.sum(np.vander(x)[r, c])
            + np.sum(np.broadcast_to(x, (2, 3))) + np.trapezoid(x) + np.vdot(x, x))


@pytest.mark.numba
def test_numba_values():
    p = np.array([0.0, 3.0, 6.5, 1.0, -4.0])
    np.testing.assert_allclose(transpyle.jit(_numba_mix, backend="numba")(X, p), _numba_mix(X, p), rtol=1e-12)
