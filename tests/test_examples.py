"""Every example in examples/ runs and reaches its documented result."""
import importlib.util
from pathlib import Path

import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

pytestmark = pytest.mark.numba


def load(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_jit_fit():
    w = load("jit_fit").main()                                # the lasso fit, last
    np.testing.assert_allclose(w, [2.0, -1.0, 0.0, 0.5, 0.0], atol=0.1)


def test_per_example_grads():
    assert load("per_example_grads").main().shape == (20_000, 16)


def test_newton_hessian():
    np.testing.assert_allclose(load("newton_hessian").main(), np.ones(4), atol=1e-6)


def test_spectral_radius():
    g, closed = load("spectral_radius").main()
    np.testing.assert_allclose(g, closed, atol=1e-8)


def test_straight_through():
    w = load("straight_through").main()
    np.testing.assert_allclose(np.round(w * 4.0) / 4.0, [0.75, -1.25, 0.5])


def test_conv1d():
    np.testing.assert_allclose(load("conv1d").main(), [0.25, 0.5, 0.25], atol=1e-3)


def test_logreg_example_runs():
    load("logreg")


def test_selu_mlp():
    first, last = load("selu_mlp").main(steps=100)
    assert last < 0.5 * first


def test_mlp_pytree():
    history, per_example, params = load("mlp_pytree").main(epochs=3, plot=False, sizes=(2, 16, 1))
    assert history[-1] < 0.5 * history[0]
    assert [p["W"].shape for p in per_example] == [(256,) + p["W"].shape for p in params]


def test_random_keys():
    w, ensemble, looped = load("random_keys").main()
    np.testing.assert_allclose(w, 0.9 * np.array([1.5, -2.0, 0.0, 0.5]), atol=0.05)   # dropout's shrinkage
    np.testing.assert_array_equal(ensemble, looped)


def test_scipy_fit_with_a_compiled_module():
    spec = importlib.util.spec_from_file_location("scipy_fit_run", EXAMPLES / "scipy_fit" / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    fit_ad, ode_ad = module.build()
    fits = module.fit(fit_ad, units=3)
    ours, fd = fits["jac=loss_grad (transpyle)"], fits["finite differences"]
    assert ours.nfev < fd.nfev / 3 and ours.fun <= fd.fun * 1.01
    odes = module.ode(ode_ad)
    np.testing.assert_allclose(odes["jac=robertson_jacfwd"].y[:, -1], odes["finite differences"].y[:, -1], rtol=1e-6)


def test_data_parallel():
    w, w_one = load("data_parallel").main()
    np.testing.assert_allclose(w, w_one, rtol=1e-10)
