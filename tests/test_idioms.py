"""The idioms of real NumPy programs (tests/idiom_programs.py) run unchanged: jit gives the function's
value, grad and jvp match finite differences at random inputs of several shapes, on both backends; the
forms still refused are refused at the user's line, by name."""
import numpy as np
import pytest

import transpyle
from transpyle.base.errors import TranspileError

import idiom_programs as P
from gradcheck import backend_cases, check_grad, check_jvp

VECTOR, MATRIX = "vector", "matrix"
CASES = [
    (P.builtin_max_abs, VECTOR), (P.builtin_min_column, MATRIX), (P.builtin_sum_vector, VECTOR),
    (P.builtin_sum_rows, MATRIX), (P.builtin_list_folds, VECTOR), (P.builtin_abs_array, VECTOR),
    (P.rounded, VECTOR), (P.eye_with_dtype, MATRIX), (P.repeat_computed, VECTOR),
    (P.repeat_rows_computed, MATRIX), (P.diff_orders, VECTOR), (P.diff_axes, MATRIX), (P.diff_ends, VECTOR),
    (P.ediff, VECTOR), (P.gradient_1d, VECTOR), (P.gradient_axis, MATRIX), (P.closeness, VECTOR),
    (P.list_shapes, VECTOR), (P.array_of_array, VECTOR), (P.walrus_branch, VECTOR), (P.walrus_while, VECTOR),
    (P.walrus_nested, VECTOR), (P.def_in_loop, VECTOR), (P.def_in_branch, VECTOR),
    (P.tuple_shapes, VECTOR), (P.printed_in_branch, VECTOR), (P.view_rows_read_after, VECTOR),
    (P.view_columns_read_after, MATRIX), (P.view_read_after_base_written, VECTOR),
    (P.reshape_of_transpose, MATRIX), (P.state_run, VECTOR), (P.custom_vjp_without_residuals, VECTOR),
    (P.generator_sums, VECTOR), (P.generator_pairs, MATRIX), (P.generator_tests, VECTOR),
    (P.appended_trajectory, VECTOR), (P.appended_energies, VECTOR), (P.cholesky_reads_lower, MATRIX),
    (P.reversed_self_assignment, VECTOR), (P.snapshot_of_alias, VECTOR),
]
SHAPES = {VECTOR: [(5,), (8,)], MATRIX: [(4, 3), (5, 6)]}


def _inputs(kind, seed):
    rng = np.random.default_rng(seed)
    # away from the kinks of abs, max and round, and from ties
    return [rng.uniform(0.2, 1.0, size=s) * rng.choice([-1.0, 1.0], size=s) + 0.001 * np.arange(np.prod(s)).reshape(s)
            for s in SHAPES[kind]]


PARAMS = backend_cases([(f.__name__, (f, kind), True) for f, kind in CASES])


@pytest.mark.parametrize("f, kind, backend", PARAMS)
def test_jit_gives_the_value(f, kind, backend):
    for x in _inputs(kind, 1):
        got = transpyle.jit(f, backend=backend)(x.copy())
        np.testing.assert_allclose(got, f(x.copy()), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("f, kind, backend", PARAMS)
def test_grad_matches_finite_differences(f, kind, backend):
    for x in _inputs(kind, 2):
        check_grad(f, (x,), backend=backend, rtol=1e-5, atol=1e-6)


#: reverse-mode rules only (custom_vjp): forward mode refuses them, as JAX does
NO_FORWARD = {P.custom_vjp_without_residuals}


@pytest.mark.parametrize("f, kind, backend", [p for p in PARAMS if p.values[0] not in NO_FORWARD])
def test_jvp_matches_finite_differences(f, kind, backend):
    x = _inputs(kind, 3)[0]
    check_jvp(f, (x,), 0, np.random.default_rng(4), backend=backend, rtol=1e-5, atol=1e-6)


REFUSED = [
    (P.walrus_after_and, (np.ones(3),), "only some evaluations reach"),
    (P.walrus_reads_first, (np.ones(3),), "'n' is read in this statement before"),
    (P.def_twice, (np.ones(3), 1.0), "'g' is defined twice"),
    (P.view_rebound_before_the_loop, (np.ones(3),), "'r' refers to the buffer of 'b' in one place"),
    (P.appended_then_written, (np.ones(3),), "'y' is appended to a list (or a view of it is) and written in place"),
    (P.max_with_default, (np.ones(3),), "max() with default= is not supported"),
    (P.diff_of_order_computed, (np.ones(6),), "np.diff: n must be a constant"),
    (P.join_of_one_array, (np.ones(6),), "np.concatenate of one array"),
]


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=pytest.mark.numba)])
def test_a_written_reshape_numpy_views_is_an_error_where_the_copy_differs(backend):
    """A reshape of a strided vector is a view (its one axis split); of a strided matrix, written in
    place, it is followed as a copy, and where NumPy makes a view instead the call raises, in every
    transform."""
    y = np.random.default_rng(7).normal(size=8)
    np.testing.assert_allclose(transpyle.grad(P.strided_reshape_written, backend=backend)(y),
                               jax_free_grad(P.strided_reshape_written, y), rtol=1e-6, atol=1e-8)
    for transform in (transpyle.jit, transpyle.grad):
        with pytest.raises(ValueError, match="NumPy makes it a view"):
            transform(P.strided_matrix_reshape_written, backend=backend)(y)
    x = np.arange(1.0, 7.0)
    got = transpyle.grad(P.strided_transpose_reshape_written, backend=backend)(x)
    np.testing.assert_allclose(got, jax_free_grad(P.strided_transpose_reshape_written, x), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=pytest.mark.numba)])
def test_complex_normal_draws(backend):
    """random.normal with a complex dtype: independent real and imaginary parts of variance 1/2."""
    from transpyle import random

    def draw(key):
        return random.normal(key, (20000,), dtype=np.complex128)
    z = transpyle.jit(draw, backend=backend)(random.key(3))
    assert z.dtype == np.complex128
    assert abs(np.var(z.real) - 0.5) < 0.03 and abs(np.var(z.imag) - 0.5) < 0.03
    assert abs(np.corrcoef(z.real, z.imag)[0, 1]) < 0.03


def jax_free_grad(f, x, h=1e-6):
    out = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = h
        out[i] = (f(x + e) - f(x - e)) / (2 * h)
    return out


@pytest.mark.parametrize("f, args, message", REFUSED, ids=[r[0].__name__ for r in REFUSED])
def test_refused_by_name_at_the_line(f, args, message):
    with pytest.raises(TranspileError) as info:
        transpyle.grad(f)(*args)
    assert message in str(info.value)
    assert "idiom_programs.py:" in str(info.value)
