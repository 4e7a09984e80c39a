"""Callables without source of their own, transformed as JAX transforms them (frontend/wrapped_callables.py):
``functools.partial`` of a function (numbers bound into the code, arrays and functions read at each call)
and library functions (``grad(jnp.tanh)``, ``vmap(jnp.dot)``, ``np.tanh`` passed to a helper); and
lambdas given to the API side by side on one line, each read as itself."""
import functools

import numpy as np
import pytest

import transpyle
import transpyle.numpy as jnp

from gradcheck import ALL_BACKENDS, check_grad


def scaled_power_loss(w, x, scale=1.0, power=2):
    return scale * np.sum((x @ w) ** power)


def activated(w, x, act):
    return np.sum(act(x @ w))


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_partials(backend, rng):
    w, x = rng.normal(size=3), rng.normal(size=(4, 3))
    check_grad(functools.partial(scaled_power_loss, scale=3.0), (w, x), backend=backend)
    check_grad(functools.partial(scaled_power_loss, x=x, power=3), (w,), backend=backend)
    check_grad(functools.partial(scaled_power_loss, w), (x,), backend=backend)
    check_grad(functools.partial(activated, act=np.tanh), (w, x), backend=backend)
    batched = transpyle.vmap(functools.partial(scaled_power_loss, scale=2.0), in_axes=(None, 0), backend=backend)
    np.testing.assert_allclose(batched(w, x[:, None, :]), 2.0 * (x @ w) ** 2, rtol=1e-12)
    # a bound array is read at each call, as the partial holds it
    bound = functools.partial(scaled_power_loss, x=x.copy())
    f = transpyle.jit(bound, backend=backend)
    before = f(w)
    bound.keywords["x"][:] *= 2.0
    assert f(w) == pytest.approx(4.0 * before)


def test_partials_of_other_numbers_are_other_code():
    w, x = np.ones(3), np.ones((2, 3))
    g = transpyle.grad(functools.partial(scaled_power_loss, scale=2.0), backend="numpy")(w, x)
    h = transpyle.grad(functools.partial(scaled_power_loss, scale=5.0), backend="numpy")(w, x)
    np.testing.assert_allclose(h, 2.5 * g)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_library_functions(backend, rng):
    x = float(rng.uniform(-1, 1))
    assert transpyle.grad(jnp.tanh, backend=backend)(x) == pytest.approx(1 - np.tanh(x) ** 2)
    a = rng.normal(size=(3, 3)) + 3 * np.eye(3)
    np.testing.assert_allclose(transpyle.grad(np.linalg.det, backend=backend)(a),
                               np.linalg.det(a) * np.linalg.inv(a).T, rtol=1e-10)
    u, v = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    np.testing.assert_allclose(transpyle.vmap(jnp.dot, backend=backend)(u, v), np.sum(u * v, axis=1), rtol=1e-12)
    np.testing.assert_allclose(transpyle.jacfwd(np.sin, backend=backend)(u[0]), np.diag(np.cos(u[0])), rtol=1e-12)


def test_lambdas_side_by_side_are_each_their_own():
    f, g = transpyle.grad(lambda v: v * v * 3.0, backend="numpy"), transpyle.grad(lambda v: v * v * 5.0, backend="numpy")
    assert (f(1.0), g(1.0)) == (6.0, 10.0)
