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
from transpyle.base.errors import TranspileError
from gradcheck import assert_unchanged
from kernel_programs import PROGRAMS
from program_modes import ProgramTable, mode_tests

WRONG = AssertionError        # the value or a derivative differs from NumPy / finite differences
REFUSED = TranspileError      # transpyle rejects the program

_ALL = ("jit", "grad", "jvp", "vmap", "vmap_array")


RAGGED = "refused by array lifting: the entries a mask selects differ in number per example"
_FAILING = [
    # program, modes, exception, what fails
    # a mask computed from batched data selects a different number of entries per example (as in JAX)
    ("correlation", ("vmap_array",), REFUSED, RAGGED),
    ("azimint_naive", ("vmap_array",), REFUSED, RAGGED),
]

# array lifting is a numpy-backend check here: the numba runs cover the default strategy
TABLE = ProgramTable(PROGRAMS, _FAILING, modes=_ALL, numpy_only=("vmap_array",))
globals().update(mode_tests(TABLE))


@pytest.mark.parametrize("fn, make", [pytest.param(fn, make, id=fn.__name__) for fn, make, _ in PROGRAMS])
def test_kernel_is_a_pure_scalar_function(fn, make, rng):
    """The suite's own premise: NumPy runs each kernel without touching its inputs and returns a
    real scalar, so finite differences of the kernel are derivatives of one function."""
    args = make(rng)
    before = copy.deepcopy(args)
    value = fn(*args)
    assert_unchanged(before, args, "argument")
    assert np.ndim(value) == 0 and np.isrealobj(value) and np.isfinite(value)


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
