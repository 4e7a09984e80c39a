"""np.cov, np.corrcoef, np.histogram and the index grids (np.mgrid, np.ogrid, np.indices): a table of
programs checked in jit (against NumPy), grad (finite differences), jvp and vmap by loop and by
array lifting (against a Python loop), a few also compiled by Numba; then NumPy's result shapes and
dtypes, the histogram's binning at the edges, and the forms that are refused.
"""
import numpy as np
import pytest

import transpyle
from transpyle.base.errors import TranspileError
from gradcheck import normal
from mode_table import check_mode, mode_params


# ---- np.cov, np.corrcoef ---------------------------------------------------------------------------
def cov_rows(x):
    return np.sum(np.sin(np.cov(x)))


def cov_vector(x):
    return np.cov(x) * 1.0


def cov_columns(x):
    return np.sum(np.cov(x, rowvar=False, ddof=0) ** 2)


def cov_biased(x):
    return np.sum(np.cos(np.cov(x, bias=True)))


def cov_ddof(x):
    return np.sum(np.cov(x, ddof=2) * np.arange(9.0).reshape(3, 3))


def cov_pair(x, y):
    return np.sum(np.sin(np.cov(x, y)))


def cov_of_stacked(x, y):
    return np.sum(np.cov(x, y, rowvar=False) ** 2)


def corrcoef_rows(x):
    return np.sum(np.sin(np.corrcoef(x)) * np.arange(9.0).reshape(3, 3))


def corrcoef_columns(x):
    return np.sum(np.corrcoef(x, rowvar=False) ** 3)


def corrcoef_pair(x, y):
    return np.corrcoef(x, y)[0, 1]


def corrcoef_vector(x):
    return np.corrcoef(x) + np.sum(x)


def _normals(*shapes):
    return lambda rng: tuple(normal(rng, shape) for shape in shapes)


COV_CASES = [
    ("cov-rows", cov_rows, _normals((3, 6)), ("grad",)),
    ("cov-vector", cov_vector, _normals((7,)), ()),
    ("cov-columns", cov_columns, _normals((6, 3)), ()),
    ("cov-biased", cov_biased, _normals((2, 5)), ()),
    ("cov-ddof", cov_ddof, _normals((3, 7)), ()),
    ("cov-pair", cov_pair, _normals((6,), (6,)), ()),
    ("cov-stacked", cov_of_stacked, _normals((6, 2), (6, 1)), ()),
    ("corrcoef-rows", corrcoef_rows, _normals((3, 6)), ("jvp",)),
    ("corrcoef-columns", corrcoef_columns, _normals((6, 3)), ()),
    ("corrcoef-pair", corrcoef_pair, _normals((5,), (5,)), ()),
    ("corrcoef-vector", corrcoef_vector, _normals((5,)), ()),
]


@pytest.mark.parametrize("mode, fn, make, backend", mode_params(COV_CASES))
def test_cov_corrcoef(mode, fn, make, backend, rng):
    check_mode(mode, fn, make, backend, rng)


def test_cov_shapes_follow_numpy(rng):
    def shapes(x, v):
        return np.cov(x), np.cov(v), np.corrcoef(x), np.corrcoef(v), np.cov(v, v)
    x, v = normal(rng, (3, 5)), normal(rng, (5,))
    for got, want in zip(transpyle.jit(shapes, backend="numpy")(x, v), shapes(x, v)):
        assert np.shape(got) == np.shape(want)
        np.testing.assert_allclose(got, want, rtol=1e-12)


# ---- np.histogram ------------------------------------------------------------------------------------
def histogram_weights_range(a, w):
    counts, edges = np.histogram(a, bins=5, range=(-2.0, 2.0), weights=w)
    return np.sum(np.sin(counts)) + np.sum(edges)


def histogram_weights_spread(a, w):
    # the edges follow the smallest and largest value of a: differentiable in them
    counts, edges = np.histogram(a, bins=4, weights=w)
    return np.sum(counts * np.arange(1.0, 5.0)) + np.sum(edges ** 2)


def histogram_counts(a):
    counts, edges = np.histogram(a, 6)
    return np.sum(counts * edges[1:])


def histogram_given_edges(a, w, edges):
    counts, out_edges = np.histogram(a, bins=edges, weights=w)
    return np.sum(counts ** 2) + np.sum(out_edges * np.arange(5.0))


def histogram_of_matrix(a, w):
    counts, edges = np.histogram(a, bins=3, range=(-1.5, 1.5), weights=w * w)
    return np.sum(np.cos(counts))


def _sample(*shapes):
    return lambda rng: tuple(rng.uniform(-1.9, 1.9, shape) for shape in shapes)


def _with_edges(rng):
    return rng.uniform(-1.9, 1.9, 20), normal(rng, (20,)), np.sort(rng.uniform(-2.0, 2.0, 5))


HISTOGRAM_CASES = [
    ("weights-range", histogram_weights_range, _sample((20,), (20,)), ("grad",)),
    ("weights-spread", histogram_weights_spread, _sample((20,), (20,)), ()),
    ("counts", histogram_counts, _sample((30,)), ("jit",)),
    ("given-edges", histogram_given_edges, _with_edges, ()),
    ("matrix", histogram_of_matrix, _sample((4, 5), (4, 5)), ()),
]


@pytest.mark.parametrize("mode, fn, make, backend", mode_params(HISTOGRAM_CASES))
def test_histogram(mode, fn, make, backend, rng):
    check_mode(mode, fn, make, backend, rng)


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=pytest.mark.numba)])
def test_histogram_bins_values_on_edges_as_numpy(backend):
    """Values on an inner edge fall in the bin to its right, on the last edge in the last bin, outside the
    range in none; counts are integers without weights."""
    def both(a, w):
        counts, edges = np.histogram(a, bins=4, range=(0.0, 2.0))
        sums, _ = np.histogram(a, bins=4, range=(0.0, 2.0), weights=w)
        return counts, sums, edges
    a = np.array([0.0, 0.5, 0.5, 1.0, 1.5, 2.0, 2.5, -0.1, 1.25])
    w = np.arange(1.0, 10.0)
    for got, want in zip(transpyle.jit(both, backend=backend)(a, w), both(a, w)):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


# ---- index grids -------------------------------------------------------------------------------------------
def mgrid_weights(x):
    rows, cols = np.mgrid[0:3, 0:4]
    return np.sum(x * rows + x ** 2 * cols)


def mgrid_steps(x):
    return np.sum(x * np.mgrid[0:1:4j, 1:7:2][0]) + np.sum(np.mgrid[0:2:0.5] * x[:, 0])


def ogrid_weights(x):
    rows, cols = np.ogrid[0:3, 0:4]
    return np.sum(np.sin(x * (10 * rows + cols)))


def indices_weights(x):
    grid = np.indices((3, 4))
    return np.sum(x * grid[0] - x * grid[1])


GRID_CASES = [
    ("mgrid", mgrid_weights, _normals((3, 4)), ("jit",)),
    ("mgrid-steps", mgrid_steps, _normals((4, 3)), ()),
    ("ogrid", ogrid_weights, _normals((3, 4)), ()),
    ("indices", indices_weights, _normals((3, 4)), ()),
]


@pytest.mark.parametrize("mode, fn, make, backend", mode_params(GRID_CASES))
def test_grids(mode, fn, make, backend, rng):
    check_mode(mode, fn, make, backend, rng)


def _grid_values(n):
    return (np.mgrid[0:3, 0:4], np.mgrid[0:n, 1:7:2], np.mgrid[0:1:5j], np.mgrid[0:2, 0:1:0.25], np.mgrid[:3],
            np.ogrid[0:3, 0:4], np.ogrid[0:3, 0:1:0.5], np.indices((3, n)), np.indices((3, 4), sparse=True),
            np.indices((4,)))


def test_grids_match_numpy_values_and_dtypes():
    def leaves(tree):
        return [leaf for item in tree for leaf in leaves(item)] if isinstance(tree, (tuple, list)) else [tree]
    for got, want in zip(leaves(transpyle.jit(_grid_values, backend="numpy")(5)), leaves(_grid_values(5))):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


# ---- refusals ----------------------------------------------------------------------------------------------
def histogram_density(a):
    counts, _ = np.histogram(a, bins=3, density=True)
    return np.sum(counts)


def histogram_named_bins(a):
    counts, _ = np.histogram(a, bins="auto")
    return np.sum(counts)


def cov_weighted(x):
    return np.sum(np.cov(x, aweights=np.ones(4)))


def mgrid_open_ended(x):
    return np.sum(x * np.mgrid[0:])


@pytest.mark.parametrize("fn, message", [
    (histogram_density, "density=True is not supported"),
    (histogram_named_bins, "bin rules by name are not supported"),
    (cov_weighted, "the argument 'aweights' is not supported"),
    (mgrid_open_ended, "needs its stop"),
])
def test_refused_at_the_users_line(fn, message, rng):
    with pytest.raises(TranspileError) as err:
        transpyle.grad(fn, backend="numpy")(normal(rng, (4,)))
    assert message in str(err.value)
    assert "test_statistics.py" in str(err.value)


# ---- second derivatives ------------------------------------------------------------------------------------
def _hessian_fd(fn, x, eps=1e-5):
    grad = transpyle.grad(fn, backend="numpy")
    columns = []
    for i in range(x.size):
        step = np.zeros(x.size)
        step[i] = eps
        columns.append(((grad(x + step.reshape(x.shape)) - grad(x - step.reshape(x.shape))) / (2 * eps)).ravel())
    return np.array(columns).T


def histogram_second(x):
    counts, _ = np.histogram(x[0], bins=3, range=(-2.0, 2.0), weights=x[1] ** 2)
    return np.sum(np.sin(counts))


@pytest.mark.parametrize("fn", [cov_rows, corrcoef_rows, histogram_second])
def test_second_derivatives(fn, rng):
    x = rng.uniform(-1.0, 1.0, (3, 4)) if fn is not histogram_second else rng.uniform(-1.0, 1.0, (2, 6))
    got = transpyle.hessian(fn, backend="numpy")(x).reshape(x.size, x.size)
    np.testing.assert_allclose(got, _hessian_fd(fn, x), rtol=1e-6, atol=1e-7)
