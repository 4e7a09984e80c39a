"""Reverse mode replays the forward pass: recorded branch decisions, values saved before they are
overwritten, arrays made anew in each iteration (tests/replay_programs.py).

Every program is checked in grad (both arguments), value_and_grad, vjp and jvp against central
finite differences, at fresh random inputs where the program is smooth (finite differences at two
step sizes agree, so no branch switches between them), and vmap(grad) against a loop of grad.
"""
import numpy as np
import pytest

import transpyle
from gradcheck import ALL_BACKENDS, assert_matches_fd, check_grad, check_vjp
from replay_programs import PROGRAMS


def _fd(f, args, i, h):
    x = args[i]
    g = np.zeros_like(x)
    for j in range(x.size):
        plus, minus = [a.copy() for a in args], [a.copy() for a in args]
        plus[i][j] += h
        minus[i][j] -= h
        g[j] = (f(*plus) - f(*minus)) / (2 * h)
    return g


def smooth_point(f, rng):
    """Inputs where ``f`` is smooth: central differences at two step sizes agree."""
    for _ in range(50):
        args = (rng.uniform(0.1, 1.0, 6), rng.uniform(0.1, 1.0, 4))
        if all(np.allclose(_fd(f, args, i, 1e-6), _fd(f, args, i, 1e-3), rtol=1e-2, atol=1e-4) for i in (0, 1)):
            return args
    pytest.skip("no smooth point found")


@pytest.mark.parametrize("backend", ALL_BACKENDS)
@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_grad_and_vjp(f, backend, rng):
    args = smooth_point(f, rng)
    check_grad(f, args, argnums=(0, 1), backend=backend)
    value, grads = transpyle.value_and_grad(f, argnums=(0, 1), backend=backend)(*args)
    assert np.isclose(value, f(*[a.copy() for a in args]), rtol=1e-12, atol=1e-12)
    check_vjp(f, args, rng, backend=backend)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_jvp_matches_grad(f, backend, rng):
    args = smooth_point(f, rng)
    tangents = (rng.standard_normal(6), rng.standard_normal(4))
    value, tangent = transpyle.jvp(f, args, tangents, backend=backend)
    assert np.isclose(value, f(*[a.copy() for a in args]), rtol=1e-12, atol=1e-12)
    expected = sum(float(np.dot(_fd(f, args, i, 1e-6), tangents[i])) for i in (0, 1))
    assert np.isclose(tangent, expected, rtol=1e-5, atol=1e-6), (tangent, expected)


@pytest.mark.parametrize("f", PROGRAMS[::3], ids=lambda f: f.__name__)
def test_vmap_of_grad(f, rng):
    points = [smooth_point(f, rng) for _ in range(3)]
    xs = np.stack([p[0] for p in points])
    y = points[0][1]
    per_example = transpyle.vmap(transpyle.grad(f), in_axes=(0, None), backend="numpy")(xs, y)
    for k, (x, _) in enumerate(points):
        assert_matches_fd(per_example[k], f, (x, y), 0, rtol=1e-5, atol=1e-7)
