"""Scientific kernels (every program of kernel_programs.py) in jit, grad, jvp and vmap (the default
strategy and array lifting), checked against NumPy and finite differences as test_aliasing.py does.

Cases that fail today are listed in KNOWN_FAILURES with what goes wrong, and run as strict xfails
restricted to that exception type: a wrong value or derivative is an AssertionError, a refusal a
TranspileError, a crash of the generated code any other exception. A fix makes its cases XPASS,
which fails the run until the entry is removed, and a case whose failure changes kind fails too.
"""
import copy

import numpy as np
import pytest

import transpyle
from transpyle.errors import TranspileError
from gradcheck import assert_unchanged, check_grad, check_jvp
from kernel_programs import PROGRAMS
from program_modes import check_jit, check_vmap, float_argnums

WRONG = AssertionError        # the value or a derivative differs from NumPy / finite differences
REFUSED = TranspileError      # transpyle rejects the program

_ALL = ("jit", "grad", "jvp", "vmap", "vmap_array")


def no_rule(function):
    return f"refused: {function} has no derivative rule"


RAGGED = "refused by array lifting: the entries a mask selects differ in number per example"
_FAILING = [
    # program, modes, exception, what fails
    # a mask computed from batched data selects a different number of entries per example (as in JAX)
    ("correlation", ("vmap_array",), REFUSED, RAGGED),
    ("azimint_naive", ("vmap_array",), REFUSED, RAGGED),
    ("einsum_contract", _ALL, REFUSED, no_rule("np.einsum")),
    ("padded_conv", _ALL, REFUSED, no_rule("np.pad")),
]

# (program, mode) -> (exception type, what fails), on every backend
KNOWN_FAILURES = {(program, mode): (raises, reason)
                  for program, modes, raises, reason in _FAILING for mode in modes}

# failures of the numba backend alone (the numpy backend passes these), same format
NUMBA_ONLY = {}


def _cases(mode):
    params = []
    for fn, make, on_numba in PROGRAMS:
        # array lifting is a numpy-backend check here: the numba runs cover the default strategy
        for backend in ("numpy", "numba") if on_numba and mode != "vmap_array" else ("numpy",):
            marks = [pytest.mark.numba] if backend == "numba" else []
            known = KNOWN_FAILURES.get((fn.__name__, mode))
            if known is None and backend == "numba":
                known = NUMBA_ONLY.get((fn.__name__, mode))
            if known is not None:
                raises, reason = known
                marks.append(pytest.mark.xfail(strict=True, raises=raises, reason=reason))
            params.append(pytest.param(fn, make, backend, id=f"{fn.__name__}-{backend}", marks=marks))
    return params


def test_known_failures_name_programs_and_modes():
    """An entry for a renamed or removed program would silently stop applying."""
    names = {fn.__name__ for fn, _, _ in PROGRAMS}
    assert len(names) == len(PROGRAMS), "two programs share a name"
    for table in (KNOWN_FAILURES, NUMBA_ONLY):
        assert {program for program, _ in table} <= names
        assert {mode for _, mode in table} <= set(_ALL)
    assert not set(NUMBA_ONLY) & set(KNOWN_FAILURES)


@pytest.mark.parametrize("fn, make", [pytest.param(fn, make, id=fn.__name__) for fn, make, _ in PROGRAMS])
def test_kernel_is_a_pure_scalar_function(fn, make, rng):
    """The suite's own premise: NumPy runs each kernel without touching its inputs and returns a
    real scalar, so finite differences of the kernel are derivatives of one function."""
    args = make(rng)
    before = copy.deepcopy(args)
    value = fn(*args)
    assert_unchanged(before, args, "argument")
    assert np.ndim(value) == 0 and np.isrealobj(value) and np.isfinite(value)


@pytest.mark.parametrize("fn, make, backend", _cases("jit"))
def test_jit(fn, make, backend, rng):
    check_jit(fn, make(rng), backend)


@pytest.mark.parametrize("fn, make, backend", _cases("grad"))
def test_grad(fn, make, backend, rng):
    args = make(rng)
    check_grad(fn, args, float_argnums(args), backend=backend)


@pytest.mark.parametrize("fn, make, backend", _cases("jvp"))
def test_jvp(fn, make, backend, rng):
    args = make(rng)
    check_jvp(fn, args, float_argnums(args), rng, backend=backend)


@pytest.mark.parametrize("fn, make, backend", _cases("vmap"))
def test_vmap(fn, make, backend, rng):
    check_vmap(fn, make, backend, "auto", rng)


@pytest.mark.parametrize("fn, make, backend", _cases("vmap_array"))
def test_vmap_array(fn, make, backend, rng):
    check_vmap(fn, make, backend, "array", rng)


def _float_bits(x):
    return np.sum((x > 0.0) & x)


def _shifted(n):
    return float(n << 2)


@pytest.mark.parametrize("fn, arg, message", [
    (_float_bits, np.ones(3), "bitwise operators take booleans or integers, not floats"),
    (_shifted, 3, "the operator 'LShift' is not supported"),
])
def test_refused_operators_name_the_line(fn, arg, message):
    with pytest.raises(TranspileError, match=message) as err:
        transpyle.jit(fn, backend="numpy")(arg)
    assert err.value.lineno == fn.__code__.co_firstlineno + 1
