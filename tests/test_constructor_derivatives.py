"""Arrays made from differentiated numbers: np.linspace and np.arange with float bounds and steps,
random.uniform's interval and random.permutation's rows. Their derivatives were once silently zero;
each is checked against finite differences in grad and jvp, at several sizes."""
import numpy as np
import pytest

from transpyle import random as tr
from gradcheck import ALL_BACKENDS, check_grad, check_jvp


def grid_between(a, b):
    return np.sum(np.sin(np.linspace(a, b, 7)) * np.arange(7.0))


def grid_of_two(a, b):
    return np.sum(np.linspace(a * b, b, 2) ** 2)


def grid_stepped(a, b):
    return np.sum(np.arange(a, 3.0, 0.3 * b) ** 2)


def grid_from(a, b):
    return np.sum(np.cos(np.arange(a, a + 2.0)) * b)


def draws_between(a, b):
    u = tr.uniform(tr.key(3), (5,), minval=a, maxval=a + b * b)
    return np.sum(u ** 2)


def draw_one(a, b):
    return tr.uniform(tr.key(4), minval=-a, maxval=b) * b


def rows_shuffled(a, b):
    x = np.array([a, b, a * b, a + b])
    p = tr.permutation(tr.fold_in(tr.key(1), 2), x)
    return np.sum(p * np.arange(4.0))


CASES = [grid_between, grid_of_two, grid_stepped, grid_from, draws_between, draw_one, rows_shuffled]


@pytest.mark.parametrize("backend", ALL_BACKENDS[:1])
@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("point", [(0.3, 1.7), (-0.4, 1.1), (0.9, 2.3)])
def test_grad_and_jvp(fn, point, backend, rng):
    check_grad(fn, point, (0, 1), backend=backend)
    check_jvp(fn, point, (0, 1), rng, backend=backend)


@pytest.mark.numba
@pytest.mark.parametrize("fn", [grid_between, draws_between, rows_shuffled], ids=lambda f: f.__name__)
def test_grad_compiled(fn):
    check_grad(fn, (0.3, 1.7), (0, 1), backend="numba")
