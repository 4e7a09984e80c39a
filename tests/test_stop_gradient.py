"""stop_gradient: the value passes through, the derivative is zero, in reverse and forward mode and
in second derivatives (a straight-through estimator is the usual use)."""
import numpy as np
import pytest

import transpyle
from gradcheck import ALL_BACKENDS
from transpyle import stop_gradient


def scaled_by_a_constant_copy(x):
    c = stop_gradient(x * 2.0)
    return np.sum(c * x)


def straight_through(x):
    return np.sum((x + stop_gradient(np.round(x) - x)) ** 2)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_reverse_and_forward(backend, rng):
    x = rng.normal(size=5)
    np.testing.assert_allclose(transpyle.grad(scaled_by_a_constant_copy, backend=backend)(x), 2 * x, rtol=1e-14)
    _, tangent = transpyle.jvp(scaled_by_a_constant_copy, (x,), (np.ones(5),), backend=backend)
    assert tangent == pytest.approx(float(np.sum(2 * x)))
    assert scaled_by_a_constant_copy(x) == pytest.approx(float(np.sum(2 * x * x)))


def test_straight_through_estimator(rng):
    x = rng.uniform(-3, 3, size=6)
    value, g = transpyle.value_and_grad(straight_through, backend="numpy")(x)
    assert value == pytest.approx(float(np.sum(np.round(x) ** 2)))
    np.testing.assert_allclose(g, 2 * np.round(x), rtol=1e-14)


def test_second_derivative_through_stop_gradient():
    def f(t):
        return t ** 3 * stop_gradient(t)
    assert transpyle.grad(transpyle.grad(f, backend="numpy"), backend="numpy")(2.0) == pytest.approx(6 * 2.0 * 2.0)
