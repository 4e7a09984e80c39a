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

import transpyle
from gradcheck import assert_unchanged

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
