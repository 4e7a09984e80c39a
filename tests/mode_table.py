"""The table checks of test_ufunc_methods.py and test_statistics.py: a case is a program (a function of
arrays and numbers) with a maker of its arguments from a random generator, checked in each mode
against references that never involve transpyle:

- jit: the value against the program run by NumPy;
- grad: the gradient in every float argument against central finite differences;
- jvp: a random directional derivative against a directional finite difference;
- vmap_loop, vmap_array (vmap by loop lifting and by array lifting): over a leading batch axis of
  every float array argument (numbers and integer arrays are shared), against a Python loop.
"""
import copy

import numpy as np
import pytest

import transpyle
from gradcheck import assert_unchanged, check_grad, check_jvp

MODES = ("jit", "grad", "jvp", "vmap_loop", "vmap_array")
BATCH = 3


# ---- the checks -----------------------------------------------------------------------------------
def _float_argnums(args):
    nums = tuple(i for i, a in enumerate(args) if isinstance(a, float) or
                 (isinstance(a, np.ndarray) and a.dtype.kind == "f"))
    return nums if len(nums) > 1 else nums[0]


def check_mode(mode, fn, make, backend, rng):
    args = make(rng)
    before = copy.deepcopy(args)
    if mode == "jit":
        want = fn(*copy.deepcopy(args))
        got = transpyle.jit(fn, backend=backend)(*args)
        assert_unchanged(before, args, "argument")
        assert np.shape(got) == np.shape(want)
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12, err_msg="jit value differs from NumPy")
    elif mode == "grad":
        check_grad(fn, args, _float_argnums(args), backend=backend)
    elif mode == "jvp":
        check_jvp(fn, args, _float_argnums(args), rng, backend=backend)
    else:
        check_vmap(fn, make, backend, mode[len("vmap_"):], rng)


def check_vmap(fn, make, backend, strategy, rng):
    """Float arrays batched along a new leading axis (numbers shared), against a loop of NumPy."""
    examples = [make(rng) for _ in range(BATCH)]
    in_axes = tuple(0 if isinstance(a, np.ndarray) and a.dtype.kind == "f" else None for a in examples[0])
    args = tuple(np.stack([ex[i] for ex in examples]) if ax == 0 else examples[0][i]
                 for i, ax in enumerate(in_axes))
    want = np.array([fn(*copy.deepcopy(tuple(a[b] if ax == 0 else a for a, ax in zip(args, in_axes))))
                     for b in range(BATCH)])
    before = copy.deepcopy(args)
    got = transpyle.vmap(fn, in_axes=in_axes, backend=backend, strategy=strategy)(*args)
    assert_unchanged(before, args, "argument")
    assert np.shape(got) == np.shape(want), f"vmap returned shape {np.shape(got)}, expected {np.shape(want)}"
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12, err_msg="vmap differs from a loop of NumPy")


def mode_params(cases):
    """(mode, fn, make, backend) for each case ``(id, fn, make, numba_modes)``: every mode on the numpy
    backend, and ``numba_modes`` (a few cases, a mode each: compiles are slow) on the numba one, marked."""
    params = []
    for case_id, fn, make, numba_modes in cases:
        for mode in MODES:
            params.append(pytest.param(mode, fn, make, "numpy", id=f"{case_id}-{mode}"))
            if mode in numba_modes:
                params.append(pytest.param(mode, fn, make, "numba", id=f"{case_id}-{mode}-numba",
                                           marks=pytest.mark.numba))
    return params
