"""transpyle.lax (fori_loop, while_loop, cond, switch, select) and functions passed to helpers:
inlined into ordinary loops and branches, differentiable in both modes (reverse through
while_loop too), with tuple carries split into one variable per element."""
import math

import numpy as np
import pytest

import transpyle
from gradcheck import ALL_BACKENDS, check_grad, check_jvp
from transpyle import lax


def fori_scalar(x, n):
    def body(i, v):
        return v * math.cos(x) + i * 0.1
    return lax.fori_loop(0, n, body, x)


def fori_tuple_carry(x):
    def body(i, carry):
        a, b = carry
        return (a + b * x, b * 0.5 + math.sin(a))
    a, b = lax.fori_loop(0, 5, body, (x, 1.0))
    return a * b


def fori_array(v, w):
    def body(i, acc):
        return acc * w + np.sin(acc) * 0.1
    return np.sum(lax.fori_loop(0, 6, body, v))


def while_scalar(x):
    return lax.while_loop(lambda v: v < 10.0, lambda v: v * 1.5 + x, x)


def cond_both_ways(x):
    return lax.cond(x > 0.0, lambda v: v * v, lambda v: -3.0 * v, x) + \
        lax.cond(x < 0.0, lambda v: v * v, lambda v: -3.0 * v, x)


def switch_branches(x, k):
    return lax.switch(k, (lambda v: v * 2.0, lambda v: math.sin(v), lambda v: v ** 3), x)


def scan_recurrence(xs, a):
    def step(c, x):
        c = c * a + math.sin(x)
        return c, c * c
    carry, ys = lax.scan(step, 0.0, xs)
    return carry + np.sum(ys * xs)


def scan_rnn(h0, xs, w):
    def step(h, x):
        h = np.tanh(w * h + x)
        return h, h * 2.0
    h, hs = lax.scan(step, h0, xs)
    return np.sum(hs) + np.sum(h)


def select_where(x, y):
    return np.sum(lax.select(x > y, x * y, x - y))


def _apply_twice(fn, v):
    return fn(fn(v))


def higher_order_helper(x):
    return _apply_twice(lambda t: t * math.cos(x), 2.0) + _apply_twice(np.negative, x) * 0.0


def higher_order_local_def(x):
    def scale(t):
        return t * x
    return _apply_twice(scale, x)


CASES = [
    ("fori_loop", fori_scalar, lambda rng: (float(rng.uniform(0.2, 1.0)), 5), 0),
    ("fori_loop tuple carry", fori_tuple_carry, lambda rng: (float(rng.uniform(0.2, 1.0)),), 0),
    ("fori_loop array carry", fori_array, lambda rng: (rng.normal(size=4), rng.uniform(0.5, 0.9, size=4)), (0, 1)),
    ("while_loop", while_scalar, lambda rng: (float(rng.uniform(1.1, 1.3)),), 0),
    ("cond", cond_both_ways, lambda rng: (float(rng.choice([-1, 1]) * rng.uniform(0.2, 1.0)),), 0),
    ("switch", switch_branches, lambda rng: (float(rng.uniform(0.2, 1.0)), int(rng.integers(-1, 5))), 0),
    ("scan", scan_recurrence, lambda rng: (rng.normal(size=6), float(rng.uniform(0.3, 0.9))), (0, 1)),
    ("scan array carry", scan_rnn, lambda rng: (rng.normal(size=3), rng.normal(size=(5, 3)),
                                                float(rng.uniform(0.2, 0.8))), (0, 1, 2)),
    ("select", select_where, lambda rng: (rng.normal(size=5), rng.normal(size=5) + 3.0), (0, 1)),
    ("local def passed to a helper", higher_order_local_def, lambda rng: (float(rng.uniform(0.2, 1.0)),), 0),
]


@pytest.mark.parametrize("backend", ALL_BACKENDS)
@pytest.mark.parametrize("label, fn, make, argnums", CASES, ids=[c[0] for c in CASES])
def test_reverse_mode(label, fn, make, argnums, backend, rng):
    check_grad(fn, make(rng), argnums, backend=backend)


@pytest.mark.parametrize("label, fn, make, argnums", CASES, ids=[c[0] for c in CASES])
def test_forward_mode(label, fn, make, argnums, rng):
    check_jvp(fn, make(rng), argnums, rng)


def test_library_function_as_a_value():
    """np.negative passed to a helper is a function calling it (frontend/wrapped_callables)."""
    x = 0.5
    assert transpyle.grad(higher_order_helper, backend="numpy")(x) == pytest.approx(-4 * math.cos(x) * math.sin(x))


def test_runs_as_python_outside_transforms():
    assert fori_scalar(0.5, 3) == pytest.approx(((0.5 * math.cos(0.5)) * math.cos(0.5) + 0.1) * math.cos(0.5) + 0.2)
    assert lax.switch(7, (lambda v: 1.0, lambda v: 2.0), 0.0) == 2.0
