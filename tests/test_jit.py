"""jit with static arguments: specialization on ints, floats, strings, tuples, None and functions,
transforms inside jitted code, data-dependent control flow on non-static arguments, cache keyed on
the static values, and JAX-like errors."""
import math

import numpy as np
import pytest

import transpyle
from gradcheck import ALL_BACKENDS


def mse(w, x, y):
    r = x @ w - y
    return np.sum(r * r) / x.shape[0]


def huber(w, x, y):
    s = 0.0
    for i in range(x.shape[0]):
        r = np.dot(x[i], w) - y[i]
        if abs(r) < 1.0:
            s += 0.5 * r * r
        else:
            s += abs(r) - 0.5
    return s / x.shape[0]


def fit(w0, x, y, loss, steps, lr):
    g = transpyle.grad(loss)
    w = w0.copy()
    for i in range(steps):
        w = w - lr * g(w, x, y)
    return w


def python_fit(w0, x, y, loss, steps, lr):
    g = transpyle.grad(loss, backend="numpy")
    w = w0.copy()
    for i in range(steps):
        w = w - lr * g(w, x, y)
    return w


def poly(x, coeffs, mode):
    s = 0.0
    for c in coeffs:
        s = s * x + c
    if mode == "square":
        s = s * s
    elif mode is None:
        s = -s
    return s


@pytest.mark.parametrize("backend", ALL_BACKENDS)
@pytest.mark.parametrize("loss", [mse, huber])
def test_fit_loop_with_the_loss_as_a_static_argument(loss, backend, rng):
    x = rng.normal(size=(40, 3))
    y = x @ np.array([1.0, -2.0, 0.5]) + 0.01 * rng.normal(size=40)
    fitted = transpyle.jit(fit, static_argnums=(3, 4), backend=backend)(np.zeros(3), x, y, loss, 50, 0.1)
    np.testing.assert_allclose(fitted, python_fit(np.zeros(3), x, y, loss, 50, 0.1), rtol=1e-10, atol=1e-12)


def test_static_values_fold_loops_and_branches():
    jitted = transpyle.jit(poly, static_argnames=("coeffs", "mode"), backend="numpy")
    for coeffs in [(1.0, 2.0, 3.0), (0.5,), (1.0, -1.0)]:
        for mode in ["square", None, "plain"]:
            assert jitted(1.7, coeffs, mode) == pytest.approx(poly(1.7, coeffs, mode))


def test_cache_is_keyed_on_static_values():
    jitted = transpyle.jit(poly, static_argnums=(1, 2), backend="numpy")
    jitted(1.0, (1.0, 2.0), "plain")
    jitted(1.0, (1.0, 2.0), "plain")
    jitted(1.0, (3.0,), "plain")
    assert len(jitted._compiled) == 2


def test_non_static_arguments_may_drive_control_flow(rng):
    def signed_sum(x):
        if x[0] > 0.0:
            return np.sum(x)
        return -np.sum(x)
    jitted = transpyle.jit(signed_sum, backend="numpy")
    assert jitted(np.array([1.0, 2.0])) == 3.0 and jitted(np.array([-1.0, 2.0])) == -1.0


def test_transforms_inside_jit(rng):
    def per_example_grads(w, x, y, loss):
        return transpyle.vmap(transpyle.grad(loss), in_axes=(None, 0, 0))(w, x, y)

    def example_loss(w, x, y):
        return (np.dot(x, w) - y) ** 2
    w, x, y = rng.normal(size=3), rng.normal(size=(5, 3)), rng.normal(size=5)
    got = transpyle.jit(per_example_grads, static_argnums=3, backend="numpy")(w, x, y, example_loss)
    want = np.stack([2 * (np.dot(x[i], w) - y[i]) * x[i] for i in range(5)])
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_jit_as_a_decorator():
    @transpyle.jit
    def f(x):
        return math.sin(x) * 2.0
    assert f(0.5) == pytest.approx(2.0 * math.sin(0.5))


def test_unhashable_static_argument():
    with pytest.raises(transpyle.TranspileError, match="unhashable"):
        transpyle.jit(poly, static_argnums=(1, 2), backend="numpy")(1.0, [1.0, 2.0], "plain")


def test_unknown_static_argname():
    with pytest.raises(transpyle.TranspileError, match="static_argnames"):
        transpyle.jit(poly, static_argnames="degree")
