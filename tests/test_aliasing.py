"""NumPy aliasing conformance (issue #25): every program in alias_programs.py, in six modes.

transpyle must follow NumPy's buffer model: names bound by `z = y`, views (basic indexing, `.T`,
transposes, contiguous reshapes, complex parts) and helper arguments share a buffer, and a write
through any of them is seen through all the others, in the value and in every derivative. Each
program is checked against references that never involve transpyle:

- jit: the value against the program run by NumPy itself (on copies of the inputs);
- grad: the gradient in every argument against central finite differences (gradcheck.check_grad);
- jvp: a random directional derivative against a directional finite difference (check_jvp);
- vmap, vmap_array, vmap_loop: over a leading batch axis of every array argument (a float argument
  is shared), with the default strategy, by array lifting and by loop lifting, against a Python
  loop of the program run by NumPy.

Every program runs on the numpy backend; those marked in PROGRAMS also on the numba one (where the
default vmap strategy is loop lifting, so vmap_loop is not repeated there).

Cases that fail today are listed in KNOWN_FAILURES with what goes wrong, and run as strict xfails
restricted to that exception type: a wrong value or derivative is an AssertionError, a refusal a
TranspileError. A fix makes its cases XPASS, which fails the run until the entry is removed, and a
case whose failure changes kind (a refusal that becomes a wrong value) fails too, so the list
stays accurate. NUMBA_ONLY lists the few cases that fail on the numba backend alone.
"""
import copy

import numpy as np
import pytest

import transpyle
from transpyle.base.errors import TranspileError
from alias_programs import PROGRAMS
from gradcheck import assert_unchanged, check_grad
from program_modes import ProgramTable, mode_tests

# The programs alias on purpose; transpyle's warning for code that may rely on JAX's copy semantics
# ("'z = y' makes 'z' the same array as 'y' ...") is expected for them.
pytestmark = pytest.mark.filterwarnings("ignore:.*the same array as:UserWarning")

WRONG = AssertionError        # the value or a derivative differs from NumPy / finite differences
REFUSED = TranspileError      # transpyle rejects the program

# ---- what fails today, by cause -------------------------------------------------------------------


def rebound_alias(name, other):
    return (f"refused: '{name}' refers to the buffer of '{other}' in one place and is assigned again, and that "
            f"buffer is written in place: which array '{name}' is depends on the run")


def lifted_view(function):
    return f"refused: vmap by array lifting does not support a view made by {function} and written in place"


def no_rule(function):
    return f"refused: {function} has no derivative rule"


_ALL = ("jit", "grad", "jvp", "vmap", "vmap_array", "vmap_loop")
_FAILING = [
    # program, modes, exception, what fails
    ("transpose_attr_view", ("vmap_array",), REFUSED, lifted_view("np.transpose")),
    ("np_transpose_view", ("vmap_array",), REFUSED, lifted_view("np.transpose")),
    ("swapaxes_view", ("vmap_array",), REFUSED, lifted_view("np.swapaxes")),
    ("moveaxis_view", ("vmap_array",), REFUSED, lifted_view("np.moveaxis")),
    ("reshape_view", ("vmap_array",), REFUSED, lifted_view("np.reshape")),
    ("reshape_flat_view", ("vmap_array",), REFUSED, lifted_view("np.reshape")),
    ("ravel_view", ("vmap_array",), REFUSED, lifted_view("np.ravel")),
    ("put_writes_target", ("vmap_array",), REFUSED, lifted_view("np.ravel")),
    ("np_ravel_view", ("vmap_array",), REFUSED, lifted_view("np.ravel")),
    ("real_part_view", ("vmap_array",), REFUSED, lifted_view("np.real")),
    ("imag_part_view", _ALL, REFUSED, "refused: writes through the imaginary parts of a complex array (z.imag) "
                                      "are not supported"),
    ("base_write_seen_by_transpose", ("vmap_array",), REFUSED, lifted_view("np.transpose")),
    ("found_rebind_to_other_rank_view", ("vmap_array",), REFUSED, lifted_view("np.reshape")),
    ("loop_view_across_iterations", _ALL, REFUSED, rebound_alias("v", "y")),
]

TABLE = ProgramTable(PROGRAMS, _FAILING, numpy_only=("vmap_loop",))
globals().update(mode_tests(TABLE))


@pytest.mark.parametrize("fn, make", [pytest.param(fn, make, id=fn.__name__) for fn, make, _ in PROGRAMS])
def test_program_is_a_pure_scalar_function(fn, make, rng):
    """The suite's own premise: NumPy runs each program without touching its inputs and returns a
    real scalar, so finite differences of the program are derivatives of one function."""
    args = make(rng)
    before = copy.deepcopy(args)
    value = fn(*args)
    assert_unchanged(before, args, "argument")
    assert np.ndim(value) == 0 and np.isrealobj(value) and np.isfinite(value)


def _ported_update(x, v):
    x = x.copy()
    x_old = x                      # JAX code means a saved copy; NumPy makes it the same array
    x += 0.5 * v
    return np.sum(x_old * x)


@pytest.mark.filterwarnings("always::UserWarning")
def test_ported_alias_warns_at_the_users_line():
    x, v = np.linspace(0.1, 1.0, 4), np.linspace(1.0, 2.0, 4)
    with pytest.warns(UserWarning, match="'x_old = x' makes 'x_old' the same array as 'x'") as caught:
        g = transpyle.grad(_ported_update, backend="numpy")(x, v)
    hit = next(w for w in caught if "x_old" in str(w.message))
    assert hit.filename == __file__ and "x_old = x" in open(__file__).read().splitlines()[hit.lineno - 1]
    check_grad(_ported_update, (x, v), backend="numpy")     # NumPy's meaning: sum(x * x) after the update
    assert g.shape == x.shape
