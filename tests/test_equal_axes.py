"""Compiled code specialized on which argument axes have equal lengths (``base.kinds.equal_axes``): the
symbolic shapes prove more shapes equal, so element loops need no run-time shape tests; a call whose
arguments have other equal axes compiles code of its own, through the slow and the fast path alike. An
integer argument equal to an axis length (a size passed beside the array) is specialized on the same way."""
import numpy as np
import pytest

import transpyle
from transpyle.base.kinds import equal_axes
from gradcheck import numerical_grad


def scaled_update(u0, v, w):
    u = u0.copy()
    for _ in range(3):
        u[1:] -= 0.3 * (v[1:] - u[:-1]) * w
        u += 0.1 * np.tanh(v * u)
    return np.sum(u * u)


def rows(x, r):
    return np.sum(np.exp(0.1 * (x - r)) * x)


def grid(u0, w):
    ny, nx = u0.shape
    b = np.zeros((ny, nx))
    for i in range(3):
        b[1:-1, 1:-1] = b[1:-1, 1:-1] * 0.5 + u0[1:-1, 1:-1] * w[i]
    return np.sum(b * u0)


def test_arrays_made_with_axis_lengths_have_those_axes():
    text = transpyle.show(grid, kinds=("f8[:, :]", "f8[:]"))
    assert "rt.conform" not in text


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=pytest.mark.numba)])
def test_gradient_of_arrays_made_with_axis_lengths(backend):
    rng = np.random.default_rng(5)
    for shape in ((4, 5), (3, 3), (1, 4)):
        args = (rng.normal(size=shape), rng.normal(size=3))
        got = transpyle.grad(grid, argnums=(0, 1), backend=backend)(*args)
        for k in (0, 1):
            want, noise = numerical_grad(grid, args, k)
            np.testing.assert_allclose(got[k], want, rtol=1e-6, atol=1e-8 + 10 * np.max(noise))


def test_equal_axes_name_the_first_axis_of_each_length():
    a, b, c = np.zeros((3, 4)), np.zeros(4), np.zeros((4, 3))
    assert equal_axes((a, 2.0, b, c)) == (((0, 0), (0, 1)), None, ((0, 1),), ((0, 1), (0, 0)))
    # an integer equal to an axis length names that axis; others, and bools, name none
    assert equal_axes((4, a, 3, 5, True, np.int64(3))) == (((1, 1),), ((1, 0), (1, 1)), ((1, 0),), None, None,
                                                          ((1, 0),))


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=pytest.mark.numba)])
def test_calls_with_other_equal_axes_get_their_own_code(backend):
    rng = np.random.default_rng(3)
    g = transpyle.grad(rows, backend=backend)
    shapes = [((4, 3), (4, 3)), ((4, 3), (1, 3)), ((4, 3), (3,)), ((4, 3), (4, 1)), ((4, 3), (4, 3)),
              ((3, 3), (3, 3)), ((3, 3), (1, 3)), ((2, 5), (2, 5))]
    for xs, rs in shapes:
        for _ in range(2):                    # the second call takes the fast path
            x, r = rng.normal(size=xs), rng.normal(size=rs)
            want, noise = numerical_grad(rows, (x, r), 0)
            np.testing.assert_allclose(g(x, r), want, rtol=1e-6, atol=1e-8 + 10 * np.max(noise))


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=pytest.mark.numba)])
def test_gradients_at_equal_and_broadcast_shapes(backend):
    rng = np.random.default_rng(4)
    g = transpyle.grad(scaled_update, argnums=(0, 1), backend=backend)
    for n, vshape, w in ((5, (5,), 1.5), (5, (5,), np.linspace(0, 1, 4)), (1, (1,), 2.0), (6, (6,), 0.5),
                         (4, (4,), np.ones(1))):
        args = (rng.normal(size=n), rng.normal(size=vshape), w)
        got = g(*args)
        for k in (0, 1):
            want, noise = numerical_grad(scaled_update, args, k)
            np.testing.assert_allclose(got[k], want, rtol=1e-6, atol=1e-8 + 10 * np.max(noise))


def test_show_of_example_arguments_shows_the_specialized_code():
    x = np.ones((4, 3))
    text = transpyle.show(rows, args=(x, x))
    assert "where x.shape[0] == r.shape[0], x.shape[1] == r.shape[1]" in text
    assert "rt.conform" not in text
    general = transpyle.show(rows, kinds=("f8[:, :]", "f8[:, :]"))
    assert "where" not in general.splitlines()[0] and "rt.conform" in general


def test_fast_entries_stay_bounded_across_many_shapes():
    g = transpyle.grad(lambda x: np.sum(x * x), backend="numpy")
    for n in range(1, 300):
        x = np.linspace(0.0, 1.0, n)
        np.testing.assert_allclose(g(x), 2 * x)
        np.testing.assert_allclose(g(x), 2 * x)          # the fast path
    assert len(g._fast) <= 256


# ---- integer arguments equal to an axis length --------------------------------------------------------
def interior_sweeps(u, n):
    # n passed beside the array, as array codes pass sizes; it may also be smaller than the array
    v = np.zeros((n, n))
    for j in range(1, n - 1):
        v[1:n - 1, j] = 0.5 * (u[j, 0:n - 2] + u[j, 2:n]) + 0.25 * v[1:n - 1, j - 1]
    return np.sum(v * v) + np.sum(u[:n, 0] ** 2)


def test_an_integer_equal_to_an_axis_length_is_specialized_on():
    text = transpyle.show(transpyle.grad(interior_sweeps), args=(np.ones((6, 6)), 6))
    assert "u.shape[0] == u.shape[1] == n" in text.splitlines()[0]
    assert "rt.conform" not in text and "rt.unbroadcast" not in text
    other = transpyle.show(transpyle.grad(interior_sweeps), args=(np.ones((6, 6)), 4))
    assert "== n" not in other.splitlines()[0]


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=pytest.mark.numba)])
def test_calls_with_integers_equal_to_a_length_and_not_keep_their_own_code(backend):
    rng = np.random.default_rng(6)
    grad, jit = transpyle.grad(interior_sweeps, backend=backend), transpyle.jit(interior_sweeps, backend=backend)
    u = rng.normal(size=(6, 6))
    # the same array with n equal to its length, then smaller, then equal again: each call its own answer
    for n in (6, 4, 6, 5, 1, 6):
        assert np.isclose(jit(u, n), interior_sweeps(u, n), rtol=1e-12)
        for _ in range(2):                    # the second call takes the fast path
            want, noise = numerical_grad(lambda u: interior_sweeps(u, n), (u,), 0)
            np.testing.assert_allclose(grad(u, n), want, rtol=1e-6, atol=1e-8 + 10 * np.max(noise))
