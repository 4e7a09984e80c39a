"""Procedures (functions that write into their array arguments and return None) called from
transformed functions: every objective of procedure_programs.py (over the kernels of
procedure_kernels.py) in jit, grad, jvp, vjp, jacfwd and vmap (the default strategy, array lifting
and loop lifting), against NumPy and finite differences, with grad also at a second size;
``transpyle.jit`` of each kernel called on arrays directly (the caller's arrays, or views of them,
must hold what NumPy leaves in them, and the call returns None); and the error for grad, jvp, vjp,
jacfwd, jacrev and vmap applied to a procedure itself.

Cases that fail today are listed in _FAILING with what goes wrong, and run as strict xfails
restricted to that exception type, as in test_kernels.py: a wrong value or derivative is an
AssertionError, a refusal a TranspileError.
"""
import copy

import numpy as np
import pytest

import transpyle
from transpyle.base.errors import TranspileError
from gradcheck import assert_matches_fd, assert_unchanged, check_grad, check_vjp
from procedure_kernels import kernel_cholesky, kernel_gemm, kernel_trisolv
from procedure_programs import JIT_CASES, NUMBA_JIT_CASES, PROGRAMS, SIZED, gemm
from program_modes import ProgramTable, float_argnums, mode_tests

WRONG = AssertionError        # the value or a derivative differs from NumPy / finite differences
REFUSED = TranspileError      # transpyle rejects the program

_FAILING = [
    # program, modes, exception, what fails
    # documented (docs/subset.md, Aliasing): the default strategy runs such a function example by example
    ("gemm_transposed", ("vmap_array",), REFUSED,
     "refused by array lifting: a view made by np.transpose (C.T passed to the kernel) and written in place"),
]

TABLE = ProgramTable(PROGRAMS, _FAILING)
globals().update(mode_tests(TABLE))


# ---- modes beyond the shared table: vjp, jacfwd, and grad at a second size -----------------------
_EXTRA_FAILING = [
    # program, modes, exception, what fails
]
EXTRA = ProgramTable(PROGRAMS, _EXTRA_FAILING, modes=("vjp", "jacfwd"), numpy_only=("vjp", "jacfwd"))
LARGER = ProgramTable([(fn, factory(sizes[1]), False) for fn, factory, sizes, _ in SIZED if len(sizes) > 1],
                      [entry for entry in _FAILING if "grad" in entry[1]], modes=("grad",))


@pytest.mark.parametrize("fn, make, backend", EXTRA.cases("vjp"))
def test_vjp(fn, make, backend, rng):
    args = make(rng)
    if any(isinstance(a, int) for a in args):
        # vjp differentiates every primal: an int one (a step count) is refused, naming it
        with pytest.raises(TranspileError, match="cannot differentiate with respect to 'tsteps' of type int"):
            transpyle.vjp(fn, *args, backend=backend)[1](1.0)
        return
    check_vjp(fn, args, rng, backend=backend)


@pytest.mark.parametrize("fn, make, backend", EXTRA.cases("jacfwd"))
def test_jacfwd(fn, make, backend, rng):
    args = make(rng)
    nums = float_argnums(args)
    before = copy.deepcopy(args)
    got = transpyle.jacfwd(fn, argnums=nums, backend=backend)(*args)
    assert_unchanged(before, args, "argument")
    nums, got = (nums, got) if isinstance(nums, tuple) else ((nums,), (got,))
    for g, i in zip(got, nums):
        assert_matches_fd(np.asarray(g) if isinstance(args[i], np.ndarray) else float(g), fn, args, i)


@pytest.mark.parametrize("fn, make, backend", LARGER.cases("grad"))
def test_grad_at_a_second_size(fn, make, backend, rng):
    args = make(rng)
    check_grad(fn, args, float_argnums(args), backend=backend)


def test_extra_tables_name_programs_and_modes():
    EXTRA.check_entries()
    LARGER.check_entries()


def test_objectives_are_pure_scalar_functions(rng):
    """The suite's own premise: NumPy runs each objective at each size without touching its inputs
    and returns a real scalar."""
    for fn, factory, sizes, _ in SIZED:
        for n in sizes:
            args = factory(n)(rng)
            before = copy.deepcopy(args)
            value = fn(*args)
            assert_unchanged(before, args, f"{fn.__name__} argument")
            assert np.ndim(value) == 0 and np.isrealobj(value) and np.isfinite(value), fn.__name__


# ---- jit of a procedure, called on the caller's arrays ------------------------------------------
def _jit_cases():
    params = []
    for case_id, kernel, make, call in JIT_CASES:
        params.append(pytest.param(kernel, make, call, "numpy", id=f"{case_id}-numpy"))
        if case_id in NUMBA_JIT_CASES:
            params.append(pytest.param(kernel, make, call, "numba", id=f"{case_id}-numba", marks=pytest.mark.numba))
    return params


@pytest.mark.parametrize("kernel, make, call, backend", _jit_cases())
def test_jit_of_a_procedure_writes_into_the_callers_arrays(kernel, make, call, backend, rng):
    want = make(rng)
    got = copy.deepcopy(want)
    assert call(kernel, *want) is None
    result = call(transpyle.jit(kernel, backend=backend), *got)
    assert result is None, f"jit of a procedure returned {result!r}"
    for k, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12, err_msg=f"argument {k} after the call")


def test_jit_of_a_procedure_twice_on_the_same_arrays(rng):
    """A second call starts from what the first one wrote."""
    L = np.tril(rng.normal(size=(4, 4))) + 3.0 * np.eye(4)
    x, b = np.zeros(4), rng.normal(size=4)
    solve = transpyle.jit(kernel_trisolv, backend="numpy")
    solve(L, x, b)
    np.testing.assert_allclose(L @ x, b, rtol=1e-12, atol=1e-12)
    want = b.copy()
    kernel_trisolv(L, want, want)
    solve(L, b, b)                    # x and b one array: each x[i] is written after b[i] is read
    np.testing.assert_allclose(b, want, rtol=1e-12)
    np.testing.assert_allclose(b, x, rtol=1e-12)


# ---- transforms of a procedure itself ------------------------------------------------------------
def _procedure_transforms():
    def grad(f, args):
        return transpyle.grad(f, backend="numpy")(*args)

    def jvp(f, args):
        return transpyle.jvp(f, args, tuple(np.zeros_like(a) for a in args), backend="numpy")

    def vjp(f, args):
        return transpyle.vjp(f, *args, backend="numpy")

    def jacfwd(f, args):
        return transpyle.jacfwd(f, backend="numpy")(*args)

    def jacrev(f, args):
        return transpyle.jacrev(f, backend="numpy")(*args)

    def vmap(f, args):
        return transpyle.vmap(f, backend="numpy")(*(np.stack([a, a]) for a in args))

    return [pytest.param(t, id=t.__name__) for t in (grad, jvp, vjp, jacfwd, jacrev, vmap)]


@pytest.mark.parametrize("transform", _procedure_transforms())
def test_transform_of_a_procedure_says_it_returns_nothing(transform, rng):
    A = rng.normal(size=(3, 3))
    A = A @ A.T + 3.0 * np.eye(3)
    before = A.copy()
    with pytest.raises(TranspileError, match="returns nothing") as err:
        transform(kernel_cholesky, (A,))
    assert "kernel_cholesky" in str(err.value)
    assert err.value.filename.endswith("procedure_kernels.py")
    assert err.value.lineno == kernel_cholesky.__code__.co_firstlineno
    assert np.array_equal(A, before)


def test_grad_of_a_procedure_with_scalars_names_its_line():
    with pytest.raises(TranspileError, match="grad needs a function that returns a real scalar") as err:
        transpyle.grad(kernel_gemm, argnums=(0, 1), backend="numpy")(1.0, 2.0, np.ones((2, 2)), np.ones((2, 2)),
                                                                      np.ones((2, 2)))
    assert err.value.filename.endswith("procedure_kernels.py")
    assert err.value.lineno == kernel_gemm.__code__.co_firstlineno
    assert "procedure_kernels.py:" in str(err.value)


# ---- procedures that end early, and objectives that write into their own arguments -----------------
def _scale_until_negative(A, s):
    if s == 0.0:
        return None
    for i in range(A.shape[0]):
        if A[i] < 0.0:
            return
        A[i] *= s


def _scaled_until_negative(A, s):
    A = A.copy()
    _scale_until_negative(A, s)
    _scale_until_negative(A[::-1], s)
    return np.sum(A * A * np.arange(1.0, A.shape[0] + 1.0))


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=pytest.mark.numba)])
def test_a_procedure_that_returns_early(backend, rng):
    """Early returns in a procedure (bare, or 'return None', one inside a loop) end it: it returns None,
    whether inlined into a caller or jitted itself, and transforms of it say it returns nothing."""
    A = np.array([1.5, 0.5, -1.0, 2.0, 0.75])
    for s in (2.0, 0.0):
        got, want = A.copy(), A.copy()
        assert transpyle.jit(_scale_until_negative, backend=backend)(got, s) is None
        _scale_until_negative(want, s)
        np.testing.assert_array_equal(got, want)
    check_grad(_scaled_until_negative, (A + 0.01 * rng.uniform(size=5), 1.3), (0, 1), backend=backend)
    with pytest.raises(TranspileError, match="returns nothing") as err:
        transpyle.grad(_scale_until_negative, backend=backend)(A, 2.0)
    assert err.value.lineno == _scale_until_negative.__code__.co_firstlineno


def _gemm_into_argument(alpha, beta, C, A, B):
    kernel_gemm(alpha, beta, C, A, B)
    return np.sum(C * C)


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=pytest.mark.numba)])
def test_an_objective_that_writes_into_its_argument(backend, rng):
    """grad and jvp leave the caller's arrays as they were, with the derivatives of the objective
    that copies first; jit writes into them, as NumPy does."""
    args = (1.3, 0.7, rng.normal(size=(3, 4)), rng.normal(size=(3, 2)), rng.normal(size=(2, 4)))
    before = copy.deepcopy(args)
    got = transpyle.grad(_gemm_into_argument, argnums=(0, 1, 2, 3), backend=backend)(*args)
    assert_unchanged(before, args, "argument")
    want = transpyle.grad(gemm, argnums=(0, 1, 2, 3), backend="numpy")(*args)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
    value, tangent = transpyle.jvp(_gemm_into_argument, args, (1.0, 0.0, np.zeros((3, 4)), np.zeros((3, 2)),
                                                                np.zeros((2, 4))), backend=backend)
    assert_unchanged(before, args, "argument")
    np.testing.assert_allclose(value, gemm(*args), rtol=1e-12)
    np.testing.assert_allclose(tangent, want[0], rtol=1e-10)
    written = copy.deepcopy(args)
    value = transpyle.jit(_gemm_into_argument, backend=backend)(*written)
    expected = copy.deepcopy(args)
    np.testing.assert_allclose(value, _gemm_into_argument(*expected), rtol=1e-12)
    np.testing.assert_allclose(written[2], expected[2], rtol=1e-12)


def test_vjp_of_an_objective_that_writes_into_its_argument(rng):
    args = (1.3, 0.7, rng.normal(size=(3, 4)), rng.normal(size=(3, 2)), rng.normal(size=(2, 4)))
    before = copy.deepcopy(args)
    out, pullback = transpyle.vjp(_gemm_into_argument, *args, backend="numpy")
    cts = pullback(1.0)
    assert_unchanged(before, args, "argument")
    want = transpyle.grad(gemm, argnums=(0, 1, 2, 3, 4), backend="numpy")(*args)
    for g, w in zip(cts, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
