"""The NumPy surface (tests/surface_programs.py): every function and variant of the table in every mode on
the numpy backend (value against NumPy, grad and jvp against finite differences, vmap by array lifting and
by a loop against a loop of NumPy), a subset on the numba backend; the clear errors of the forms refused;
and the coverage table docs/numpy-coverage.md, which is written from the same table and must be current.
"""
import numpy as np
import pytest

import transpyle
from transpyle.base.errors import TranspileError
from mode_table import check_mode
from surface_programs import CASES, COVERAGE, MODES, coverage_table


def _params():
    params = []
    for case in CASES:
        for mode in MODES:
            marks = []
            if mode in case.fails:
                raises, why = case.fails[mode]
                marks.append(pytest.mark.xfail(raises=raises, strict=True, reason=why))
            params.append(pytest.param(case, mode, "numpy", id=f"{case.id}-{mode}", marks=marks))
            if mode in case.numba:
                params.append(pytest.param(case, mode, "numba", id=f"{case.id}-{mode}-numba",
                                           marks=marks + [pytest.mark.numba]))
    return params


@pytest.mark.parametrize("case, mode, backend", _params())
def test_surface(case, mode, backend, rng):
    if mode in case.refused:
        with pytest.raises(TranspileError) as err:
            check_mode(mode, case.fn, case.make, backend, rng)
        assert case.refused[mode] in err.value.message
        assert err.value.lineno is not None and err.value.lineno > case.fn.__code__.co_firstlineno
        return
    check_mode(mode, case.fn, case.make, backend, rng)


def test_table_entries_are_distinct():
    ids = [case.id for case in CASES]
    assert len(set(ids)) == len(ids), sorted({i for i in ids if ids.count(i) > 1})
    assert all(set(case.numba) <= set(MODES) and set(case.refused) <= set(MODES) and set(case.fails) <= set(MODES)
               for case in CASES)


def test_coverage_table_is_current():
    assert COVERAGE.exists() and COVERAGE.read_text() == coverage_table(), \
        "docs/numpy-coverage.md is stale: python tests/surface_programs.py --update"


# ---- values at the edges: NaNs, infinities, ties --------------------------------------------------------
def _logaddexp_sum(a, b):
    return np.sum(np.logaddexp(a, b))


def _logaddexp2_sum(a, b):
    return np.sum(np.logaddexp2(a, b))


def _fmax_sum(a, b):
    return np.sum(np.fmax(a, b) + 2.0 * np.fmin(a, b))


def test_logaddexp_at_infinities_and_ties():
    inf = np.inf
    a = np.array([-inf, inf, -inf, 0.5, 3.0, 0.0])
    b = np.array([-inf, inf, 2.0, 0.5, -inf, -40.0])
    for fn, ref in ((_logaddexp_sum, np.logaddexp), (_logaddexp2_sum, np.logaddexp2)):
        for i in range(len(a)):
            got = transpyle.jit(fn, backend="numpy")(a[i:i + 1], b[i:i + 1])
            assert got == ref(a[i], b[i]) or np.isclose(got, ref(a[i], b[i]), rtol=1e-15, atol=0.0)
    # at a tie each operand gets half of the cotangent, as the function's gradient has it
    ga, gb = transpyle.grad(_logaddexp_sum, argnums=(0, 1), backend="numpy")(np.array([0.5]), np.array([0.5]))
    np.testing.assert_allclose([ga[0], gb[0]], [0.5, 0.5], rtol=1e-15)


def test_fmax_fmin_ignore_nan():
    a = np.array([np.nan, 1.0, np.nan, -2.0])
    b = np.array([3.0, np.nan, np.nan, 5.0])
    got = transpyle.jit(_fmax_sum, backend="numpy")(a[:2], b[:2])
    assert got == np.sum(np.fmax(a[:2], b[:2]) + 2.0 * np.fmin(a[:2], b[:2]))
    ga, gb = transpyle.grad(_fmax_sum, argnums=(0, 1), backend="numpy")(a[:2], b[:2])
    np.testing.assert_array_equal(ga, [0.0, 3.0])         # the operand that is not NaN gets the cotangent
    np.testing.assert_array_equal(gb, [3.0, 0.0])
    assert np.isnan(transpyle.jit(_fmax_sum, backend="numpy")(a[2:3], b[2:3]))


def _sorted_with_ties(x):
    return np.sum(np.arange(1.0, 6.0) * np.sort(x))


def test_sort_with_ties_scatters_by_one_permutation():
    x = np.array([2.0, 1.0, 2.0, 0.0, 1.0])
    g = transpyle.grad(_sorted_with_ties, backend="numpy")(x)
    # stable order: 0.0 (3), 1.0 (1, 4), 2.0 (0, 2) get the weights 1, 2, 3, 4, 5
    np.testing.assert_array_equal(g, [4.0, 2.0, 5.0, 1.0, 3.0])


# ---- forms refused with a clear error at the user's line -----------------------------------------------------
def _pad_mean(x):
    return np.sum(np.pad(x, 1, mode="mean"))


def _einsum_two_for_one(x):
    return np.sum(np.einsum("ij,jk->ik", x))


def _einsum_wrong_rank(x):
    return np.sum(np.einsum("ijk->i", x))


def _moveaxis_mixed(x):
    return np.sum(np.moveaxis(x, (0, -1), (1, 2)))


def _take_clipped(x, i):
    return np.sum(np.take(x, i, mode="clip"))


def _tensordot_too_many(a, b):
    return np.sum(np.tensordot(a, b, axes=3))


def _sort_order(x):
    return np.sum(np.sort(x, order="f"))


@pytest.mark.parametrize("fn, args, message", [
    (_pad_mean, (np.ones((2, 3)),), "np.pad with mode='mean' is not supported"),
    (_einsum_two_for_one, (np.ones((2, 3)),), "name 2 operands, the call passes 1"),
    (_einsum_wrong_rank, (np.ones((2, 3)),), "operand 0 has rank 2; its subscripts 'ijk' name 3 axes"),
    (_moveaxis_mixed, (np.ones((2, 3, 4)),), "counts some axes from the start and some from the end"),
    (_take_clipped, (np.ones(4), np.array([0, 5])), "np.take with mode= other than 'raise' is not supported"),
    (_tensordot_too_many, (np.ones((2, 3)), np.ones((3, 2))), "contracts more axes than the operands have"),
    (_sort_order, (np.ones(3),), "np.sort with order= is not supported"),
], ids=lambda v: getattr(v, "__name__", None))
def test_refused_forms_name_the_line(fn, args, message):
    with pytest.raises(TranspileError, match=message) as err:
        transpyle.grad(fn, backend="numpy")(*args)
    assert err.value.lineno == fn.__code__.co_firstlineno + 1


def _padded_reflect(x):
    return np.sum(np.pad(x, 3, mode="reflect"))


def test_widths_an_axis_cannot_give_fail_at_run_time():
    """A reflection wider than the axis has elements NumPy repeats, which the slices do not hold: the
    reshape of the too-short block fails instead of giving a shorter result."""
    np.testing.assert_allclose(transpyle.jit(_padded_reflect, backend="numpy")(np.arange(5.0)),
                               np.sum(np.pad(np.arange(5.0), 3, mode="reflect")))
    with pytest.raises(ValueError):
        transpyle.jit(_padded_reflect, backend="numpy")(np.arange(3.0))
