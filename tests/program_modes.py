"""Checks shared by the program tables (test_aliasing.py, test_advanced_indexing.py): a program is a
function of arrays and numbers returning one real number, checked against references that never
involve transpyle.

- ``check_jit``: the value against the program run by NumPy itself (on copies of the inputs);
- ``check_vmap``: over a leading batch axis of every float array argument (other arguments are
  shared by the batch), against a Python loop of the program run by NumPy;
- ``float_argnums``: the arguments grad and jvp differentiate.
"""
import copy

import numpy as np
import pytest

import transpyle
from gradcheck import assert_unchanged, check_grad, check_jvp

BATCH = 3


def _is_float(a):
    return isinstance(a, float) or (isinstance(a, np.ndarray) and a.dtype.kind in "fc")


def float_argnums(args):
    """Every float argument: a tuple, or an int for one."""
    nums = tuple(i for i, a in enumerate(args) if _is_float(a))
    return nums if len(nums) > 1 else nums[0]


def numpy_value(fn, args):
    """The program run by NumPy itself, on copies so nothing it might write reaches the caller."""
    return fn(*copy.deepcopy(args))


def check_jit(fn, args, backend):
    want = numpy_value(fn, args)
    before = copy.deepcopy(args)
    got = transpyle.jit(fn, backend=backend)(*args)
    assert_unchanged(before, args, "argument")
    assert np.ndim(got) == 0, f"jit returned shape {np.shape(got)} for a scalar program"
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12, err_msg="jit value differs from NumPy")


def check_vmap(fn, make, backend, strategy, rng):
    examples = [make(rng) for _ in range(BATCH)]
    # float arrays are batched along a new leading axis; numbers and index arrays are shared by the batch
    in_axes = tuple(0 if isinstance(a, np.ndarray) and _is_float(a) else None for a in examples[0])
    args = tuple(np.stack([ex[i] for ex in examples]) if ax == 0 else examples[0][i]
                 for i, ax in enumerate(in_axes))
    want = np.array([numpy_value(fn, tuple(a[b] if ax == 0 else a for a, ax in zip(args, in_axes)))
                     for b in range(BATCH)])
    before = copy.deepcopy(args)
    got = transpyle.vmap(fn, in_axes=in_axes, backend=backend, strategy=strategy)(*args)
    assert_unchanged(before, args, "argument")
    assert np.shape(got) == (BATCH,), f"vmap returned shape {np.shape(got)}, expected ({BATCH},)"
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12, err_msg="vmap differs from a loop of NumPy")


# ---- a table of programs checked in every mode ---------------------------------------------------
MODES = ("jit", "grad", "jvp", "vmap", "vmap_array", "vmap_loop")


class ProgramTable:
    """``programs``: (function, input maker, whether the numba backend runs it too). ``failing``:
    (program, modes, exception type, what fails) of the cases that fail today, run as strict xfails
    restricted to that exception type, so a fix (XPASS) or a change of kind fails the run until the
    entry changes; ``numba_only``: (program, mode) -> (exception type, what fails) on numba alone.
    ``numpy_only``: the modes checked on the numpy backend only."""

    def __init__(self, programs, failing=(), numba_only=None, modes=MODES, numpy_only=("vmap_array", "vmap_loop")):
        self.programs, self.modes, self.numpy_only = programs, modes, numpy_only
        self.known = {(program, mode): (raises, reason)
                      for program, program_modes, raises, reason in failing for mode in program_modes}
        self.numba_only = numba_only or {}

    def cases(self, mode):
        params = []
        for fn, make, on_numba in self.programs:
            for backend in ("numpy", "numba") if on_numba and mode not in self.numpy_only else ("numpy",):
                marks = [pytest.mark.numba] if backend == "numba" else []
                known = self.known.get((fn.__name__, mode))
                if known is None and backend == "numba":
                    known = self.numba_only.get((fn.__name__, mode))
                if known is not None:
                    raises, reason = known
                    marks.append(pytest.mark.xfail(strict=True, raises=raises, reason=reason))
                params.append(pytest.param(fn, make, backend, id=f"{fn.__name__}-{backend}", marks=marks))
        return params

    def check_entries(self):
        """An entry for a renamed or removed program would silently stop applying."""
        names = {fn.__name__ for fn, _, _ in self.programs}
        assert len(names) == len(self.programs), "two programs share a name"
        for table in (self.known, self.numba_only):
            assert {program for program, _ in table} <= names
            assert {mode for _, mode in table} <= set(self.modes)
        assert not set(self.numba_only) & set(self.known)


def mode_tests(table):
    """The test functions of ``table``, one per mode (``globals().update(mode_tests(TABLE))`` in a test
    module), each parametrized over the table's programs and backends."""
    def jit(fn, make, backend, rng):
        check_jit(fn, make(rng), backend)

    def grad(fn, make, backend, rng):
        args = make(rng)
        check_grad(fn, args, float_argnums(args), backend=backend)

    def jvp(fn, make, backend, rng):
        args = make(rng)
        check_jvp(fn, args, float_argnums(args), rng, backend=backend)

    def vmap(fn, make, backend, rng):
        check_vmap(fn, make, backend, "auto", rng)

    def vmap_array(fn, make, backend, rng):
        check_vmap(fn, make, backend, "array", rng)

    def vmap_loop(fn, make, backend, rng):
        check_vmap(fn, make, backend, "loop", rng)

    checks = {"jit": jit, "grad": grad, "jvp": jvp, "vmap": vmap, "vmap_array": vmap_array, "vmap_loop": vmap_loop}
    tests = {}
    for mode in table.modes:
        test = pytest.mark.parametrize("fn, make, backend", table.cases(mode))(checks[mode])
        test.__name__ = f"test_{mode}"
        tests[test.__name__] = test

    def test_known_failures_name_programs_and_modes():
        table.check_entries()
    tests["test_known_failures_name_programs_and_modes"] = test_known_failures_name_programs_and_modes
    return tests
