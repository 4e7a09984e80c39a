"""Sums and means along one axis (or several) of elementwise expressions, summed as the elements are computed
(transforms/element_reductions), and operands broadcast against each other (outer differences, made with
the result's shape by element_loops): values against NumPy, gradients against the NumPy backend and
finite differences, over ranks, axes, keepdims and broadcasts."""
import re

import numpy as np
import pytest

import transpyle
from gradcheck import numerical_grad


def rows_of_products(x, y):
    return np.sum(np.sum(x * y, axis=1) ** 2)


def columns_of_squares(x, y):
    return np.sum(np.tanh(np.sum(x * x + y, axis=0)))


def last_axis_kept(x, y):
    s = np.sum(np.exp(x - y), axis=-1, keepdims=True)
    return np.sum(x / s)


def means_of_three(x, y):
    a = np.mean(x * y, axis=0)
    b = np.mean(x - y, axis=1, keepdims=True)
    c = np.mean(x * 2.0, axis=2)
    return np.sum(a * a) + np.sum(b * x) + np.sum(np.sin(c))


def middle_axis_dropped(x, y):
    s = np.sum(x * y + 1.0, axis=1)
    return np.sum(s * s) + np.sum(s[:, 0])


def broadcast_row(x, y):
    w = y[0]
    s = np.sum(x * w, axis=1, keepdims=True)
    return np.sum((x - s) ** 2)


def parts_summed(x, y):
    d = x[1:, :] - x[:-1, :]
    s = np.sum(d * d, axis=1)
    return np.sum(np.sqrt(s + 1.0)) + np.sum(y[:-1, 0] * s)


def variance_by_hand(x, y):
    m = np.mean(x, axis=0)
    v = np.mean((x - m) ** 2, axis=0)
    return np.sum(v * y[0])


def rescaled_in_a_loop(x, y):
    z = x.copy()
    for _ in range(3):
        z = z / np.sum(z * z, axis=1, keepdims=True) + y
    return np.sum(z)


def pairwise_distances(x, y):
    d = x[None, :, :] - x[:, None, :]
    r = np.sqrt(np.sum(d * d, axis=2) + 1.0)
    return np.sum(r * y[:, :1]) + np.sum(d[:, :, 0] * y[:, 0])


def gaussian_kernel(x, y):
    k = np.exp(-(x[:, 0][:, None] - y[:, 0][None, :]) ** 2)
    return np.sum(k * (x[:, None, 0] + 1.0))


def outer_scaled(x, y):
    p = x[:, :, None] * y[:, None, :] - 0.5
    return np.sum(np.tanh(p)) + np.sum(np.mean(p, axis=1) ** 2)


def over_two_axes(x, y):
    # a normalization over the first two axes (batch statistics) and a sum over the middle and last
    mu = np.mean(x, axis=(0, 1))
    v = np.mean((x - mu) ** 2, axis=(0, 1), keepdims=True)
    s = np.sum(x * y, axis=(-1, 1))
    return np.sum((x - mu) / np.sqrt(v + 1.0) * y) + np.sum(np.tanh(s))


def over_the_ends(x, y):
    s = np.sum(np.sin(x) * y, axis=(0, 2))
    t = np.sum(x - y, axis=(0, 2), keepdims=True)
    return np.sum(s * s) + np.sum(t * x)


CASES = [
    (over_two_axes, 3), (over_the_ends, 3),
    (rows_of_products, 2), (columns_of_squares, 2), (last_axis_kept, 2), (last_axis_kept, 3),
    (means_of_three, 3), (middle_axis_dropped, 3), (broadcast_row, 2), (parts_summed, 2),
    (variance_by_hand, 2), (rescaled_in_a_loop, 2), (pairwise_distances, 2), (gaussian_kernel, 2),
    (outer_scaled, 2),
]


def _args(rng, rank, n, m):
    shape = (n, m) if rank == 2 else (n, m, 3)
    return rng.normal(size=shape), rng.normal(size=shape)


@pytest.mark.numba
@pytest.mark.parametrize("f, rank", CASES, ids=[f"{f.__name__}-{r}d" for f, r in CASES])
def test_values_and_gradients(f, rank, rng):
    jitted = transpyle.jit(f, backend="numba")
    compiled = transpyle.grad(f, argnums=(0, 1), backend="numba")
    reference = transpyle.grad(f, argnums=(0, 1), backend="numpy")
    for n, m in ((4, 3), (1, 5), (5, 1), (6, 7)):
        args = _args(rng, rank, n, m)
        np.testing.assert_allclose(jitted(*args), f(*args), rtol=1e-12, atol=1e-12)
        got, want = compiled(*args), reference(*args)
        for k in range(2):
            np.testing.assert_allclose(got[k], want[k], rtol=1e-10, atol=1e-12)
            fd, noise = numerical_grad(f, args, k)
            np.testing.assert_allclose(got[k], fd, rtol=1e-5, atol=1e-7 + 10 * np.max(noise))


def test_the_summed_expression_is_not_built():
    text = transpyle.show(rows_of_products, mode="primal", args=(np.ones((3, 4)), np.ones((3, 4))))
    assert "rt.sum_axis" not in text
    # one nest adds x * y into each row's sum: no array of the products
    assert re.search(r"_r\d+\[_e0, 0\] \+= x\[_e0, _e1\] \* y\[_e0, _e1\]", text)
    assert "np.empty(x.shape" not in text


def test_a_reduction_of_unknown_shape_stays_the_call():
    # the shapes do not know y's length is x's: x * y may broadcast, and the sum stays NumPy's
    text = transpyle.show(rows_of_products, mode="primal", kinds=("f8[:, :]", "f8[:]"))
    assert "rt.sum_axis" in text


def test_an_outer_difference_is_one_loop_over_the_result():
    text = transpyle.show(pairwise_distances, mode="primal", args=(np.ones((5, 3)), np.ones((5, 3))))
    # made with the broadcast shape, filled by the loops: no NumPy broadcast kept as the fallback
    assert re.search(r"d = np\.empty\(\((_a\d+)\.shape\[0\], (_a\d+)\.shape\[1\], \2\.shape\[2\]\)", text), text
    assert re.search(r"d\[_e0, _e1, _e2\] = _a\d+\[0, _e1, _e2\] - _a\d+\[_e0, 0, _e2\]", text)
    assert "else:" not in text.split("_r1[:, :, 0]")[0]


def test_sums_over_several_axes_are_not_built():
    text = transpyle.show(over_the_ends, mode="primal", args=(np.ones((3, 4, 2)), np.ones((3, 4, 2))))
    assert "rt.sum_axis" not in text
    assert re.search(r"_r\d+\[0, _e1, 0\] \+= np.sin\(x\[_e0, _e1, _e2\]\) \* y\[_e0, _e1, _e2\]", text)


# ---- sums of windows times weights (a convolution written per output pixel) ------------------------------
def pixel_convolution(x, w):
    # channels first (N, C, H, W), weights (O, C, k, k): the window sums over its trailing axes
    k = w.shape[2]
    out = np.zeros((x.shape[0], w.shape[0], x.shape[2] - k + 1, x.shape[3] - k + 1))
    for i in range(out.shape[2]):
        for j in range(out.shape[3]):
            window = x[:, None, :, i:i + k, j:j + k]
            out[:, :, i, j] = np.sum(window * w[None, :, :, :, :], axis=(2, 3, 4))
    return np.sum(np.tanh(out))


def window_means(x, w):
    s = 0.0
    for i in range(x.shape[0] - 1):
        m = np.mean(x[i:i + 2, :, None] * w[None, :, :], axis=(0, 1))
        s += np.sum(m * m)
    return s


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=pytest.mark.numba)])
@pytest.mark.parametrize("f, shapes", [
    (pixel_convolution, ((2, 3, 5, 4), (2, 3, 2, 2))), (pixel_convolution, ((1, 1, 3, 3), (4, 1, 3, 3))),
    (window_means, ((4, 3), (3, 2))), (window_means, ((2, 1), (1, 5))),
])
def test_sums_of_windows(f, shapes, backend, rng):
    args = tuple(rng.normal(size=s) for s in shapes)
    np.testing.assert_allclose(transpyle.jit(f, backend=backend)(*args), f(*args), rtol=1e-12)
    got = transpyle.grad(f, argnums=(0, 1), backend=backend)(*args)
    for k in range(2):
        fd, noise = numerical_grad(f, args, k)
        np.testing.assert_allclose(got[k], fd, rtol=1e-5, atol=1e-7 + 10 * np.max(noise))


def test_the_window_cotangent_is_summed_in_loops():
    text = transpyle.show(transpyle.grad(pixel_convolution), args=(np.ones((2, 3, 5, 4)), np.ones((2, 3, 2, 2))))
    adjoint = text.split("# adjoint sweep")[1]
    assert re.search(r"b\w+\[_e0, 0, _e2, _e3, _e4\] \+= ", adjoint)
