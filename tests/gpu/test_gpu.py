"""The checks of tests/test_cuda.py on a real GPU (larger batches, both precisions); skipped where
there is none. The GPU is detected without importing numba.cuda, so that on machines without one
tests/test_cuda.py can still turn on the simulator when it imports numba.cuda first."""
import glob
import importlib.util
import os
import sys
from pathlib import Path

import numpy as np
import pytest

if not glob.glob("/dev/nvidia[0-9]*") or importlib.util.find_spec("numba_cuda") is None \
        or os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
    pytest.skip("no NVIDIA GPU (or numba-cuda missing, or the simulator is on)", allow_module_level=True)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from numba import cuda  # noqa: E402

import transpyle  # noqa: E402
import test_cuda as checks  # noqa: E402   (the functions under test)

if checks.cuda_api.simulating():
    pytest.skip("numba.cuda was imported with the simulator on", allow_module_level=True)

B = 100_000


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_per_example_gradients_of_a_loop(rng, dtype):
    g, c, x0 = (a.astype(dtype) for a in (rng.uniform(5, 10, B), rng.uniform(0.1, 0.5, B), rng.uniform(-1, 1, B)))
    grad = transpyle.grad(checks.pendulum20, argnums=(0, 1))
    got = transpyle.vmap(grad, backend="cuda")(g, c, x0)
    want = transpyle.vmap(grad)(g, c, x0)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-10 if dtype == np.float64 else 1e-4, atol=1e-5)


def test_while_loops_branches_and_workspace(rng):
    x, s = rng.uniform(0.2, 60.0, B), rng.uniform(0.01, 0.1, B)
    vg = transpyle.value_and_grad(checks.halving)
    for a, b in zip(transpyle.vmap(vg, backend="cuda")(x, s), transpyle.vmap(vg)(x, s)):
        np.testing.assert_allclose(a, b, rtol=1e-10)
    u = rng.normal(size=(B, 7))
    vg = transpyle.value_and_grad(checks.differences, argnums=1)
    for a, b in zip(transpyle.vmap(vg, backend="cuda")(u, s), transpyle.vmap(vg)(u, s)):
        np.testing.assert_allclose(a, b, rtol=1e-10)
    g = transpyle.grad(checks.long_history)
    np.testing.assert_allclose(transpyle.vmap(g, backend="cuda")(x), transpyle.vmap(g)(x), rtol=1e-10)


def test_device_arrays_in_and_out(rng):
    x, s = rng.normal(size=B), rng.uniform(0.5, 1.5, B)
    grad = transpyle.grad(checks.powers, argnums=(0, 1))
    got = transpyle.vmap(grad, backend="cuda")(cuda.to_device(x), cuda.to_device(s))
    for a, b in zip(got, transpyle.vmap(grad)(x, s)):
        assert not isinstance(a, np.ndarray)
        np.testing.assert_allclose(a.copy_to_host(), b, rtol=1e-10)
