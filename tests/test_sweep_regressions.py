"""Reverse sweeps that once gave wrong values without an error, or crashed, on kernel-shaped code:
a loop temporary whose shape changes with the loop index (its adjoint must start each reversed
iteration at this iteration's shape; numba read past arrays), a loop variable reusing an earlier
name whose value the sweep still needs, and np.where broadcasting numbers by its condition."""
import numpy as np
import pytest

import transpyle
from gradcheck import ALL_BACKENDS, check_grad, check_jvp


def shrinking_slices(l, y):
    x = np.zeros(4)
    for i in range(4):
        x[i] = np.sum(y[i:] * l[i, i:])
    return np.sum(x ** 2)


def shrinking_sum(y, l):
    t = 0.0
    for i in range(4):
        t = t + np.sum(y[i:] ** 2) * l[i, 0]
    return t


def growing_view_in_branch(y, l):
    t = 0.0
    for i in range(4):
        v = y[:i + 1]
        if i % 2 == 0:
            t = t + np.sum(v * v)
        t = t + np.sum(np.sin(v) * l[i, :i + 1])
    return t


def triangular_solve(l, b):
    x = np.zeros(4)
    for i in range(4):
        x[i] = (b[i] - np.dot(l[i, :i], x[:i])) / (l[i, i] + 3.0)
    return np.sum(x * x)


def loop_reuses_name(c, d):
    out = np.zeros(4)
    k = 3
    out[k] = d[k] * c[k]
    for k in range(2):
        out[k] = d[k]
    return np.sum(out * out)


def two_loops_one_name(c, d):
    s = 0.0
    for i in range(3):
        s = s + c[i] * d[i]
    for i in range(2):
        s = s * c[i + 1]
    return s


def loop_of_no_iterations_keeps_name(c, d):
    i = 1
    s = c[i] * d[i]
    for i in range(0):
        s = s + 1.0
    return s * c[i]


def where_of_numbers(c, w):
    return np.sum(np.where(c[0] > 0, 1.0, 2.0) * w) + np.sum(np.where(c[1] > 0.5, c[2], 0.0) ** 2)


PROGRAMS = [shrinking_slices, shrinking_sum, growing_view_in_branch, triangular_solve, loop_reuses_name,
            two_loops_one_name, loop_of_no_iterations_keeps_name, where_of_numbers]


def _args(fn, rng):
    return (rng.normal(size=(4, 4)), rng.normal(size=4)) if fn in (shrinking_slices, triangular_solve) else \
        (rng.normal(size=4), rng.normal(size=(4, 4))) if fn in (shrinking_sum, growing_view_in_branch) else \
        (rng.normal(size=(3, 4)), rng.normal(size=4)) if fn is where_of_numbers else \
        (rng.normal(size=4), rng.normal(size=4))


@pytest.mark.parametrize("backend", ALL_BACKENDS)
@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
def test_grad_and_jvp(fn, backend, rng):
    args = _args(fn, rng)
    check_grad(fn, args, (0, 1), backend=backend)
    if backend == "numpy":
        check_jvp(fn, args, (0, 1), rng, backend=backend)


@pytest.mark.parametrize("strategy", ["array", "loop"])
def test_where_of_numbers_batched(strategy, rng):
    c, w = rng.normal(size=(3, 3, 4)), rng.normal(size=(3, 4))
    got = transpyle.vmap(where_of_numbers, backend="numpy", strategy=strategy)(c, w)
    np.testing.assert_allclose(got, [where_of_numbers(c[b], w[b]) for b in range(3)], rtol=1e-12)
