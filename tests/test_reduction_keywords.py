"""Forms of NumPy's reductions, positions and .item() that the surface table cannot hold: those NumPy itself
refuses or that are refused here, each a clear error at the user's line; and values checked on numba."""
import numpy as np
import pytest

import transpyle
from transpyle.base.errors import TranspileError


def max_where_without_initial(x):
    return np.max(x, where=x > 0.0)


def mean_into_out_with_initial(x):
    totals = np.zeros((2, x.shape[0]))
    np.mean(x[None, :], axis=0, out=totals[0], where=x[None, :] > 0.0)
    return np.sum(totals)


def max_into_out_with_initial(x):
    totals = np.zeros((2, x.shape[0]))
    np.max(x[None, :], axis=0, out=totals[0], initial=0.5)
    return np.sum(totals * totals)


def test_out_with_initial_writes_the_result(rng):
    x = rng.uniform(0.0, 1.0, 6)
    np.testing.assert_allclose(transpyle.jit(max_into_out_with_initial, backend="numpy")(x),
                               max_into_out_with_initial(x), rtol=1e-12)
    np.testing.assert_allclose(transpyle.grad(max_into_out_with_initial, backend="numpy")(x),
                               np.where(x > 0.5, 2 * x, 0.0), rtol=1e-12)


def nonzero_of_a_number(x):
    return np.sum(np.nonzero(np.sum(x))[0] * 1.0)


def write_through_ix(x):
    y = np.zeros((3, 3))
    y[np.ix_([0, 2], [1, 2])] = np.ones((2, 2)) * x[0]
    return np.sum(y)


def number_written_through_ix(x):
    y = np.zeros((3, 3))
    y[np.ix_([0, 2], [1, 2])] = 1.5
    return np.sum(y * y) * x[0]


def test_a_number_written_through_ix(rng):
    x = rng.normal(size=3)
    for backend in ("numpy", "numba"):
        assert transpyle.jit(number_written_through_ix, backend=backend)(x) == pytest.approx(9.0 * x[0])


def item_with_a_position(x):
    return x.item(0) * 2.0


@pytest.mark.parametrize("fn, says", [
    (max_where_without_initial, "needs initial="),
    (mean_into_out_with_initial, "out= and these keywords is not supported"),
    (nonzero_of_a_number, "of a number is not supported"),
    (item_with_a_position, "takes at most 1 positional argument"),
    (write_through_ix, "multi-dimensional index array"),
])
@pytest.mark.parametrize("transform", [transpyle.jit, transpyle.grad])
def test_refused_at_the_line(fn, says, transform):
    with pytest.raises(TranspileError) as err:
        transform(fn, backend="numpy")(np.linspace(0.1, 1.0, 4))
    assert says in err.value.message
    assert err.value.lineno is not None and err.value.lineno > fn.__code__.co_firstlineno


def keywords_everywhere(x, m):
    a = np.sum(x, axis=0, where=m, initial=1.0)
    b = np.max(x, axis=1, where=m, initial=-5.0)
    c = np.mean(x, where=m)
    d = x.prod(axis=1, where=m)
    return np.sum(a) + np.sum(b * b) + c + np.sum(d)


@pytest.mark.numba
def test_keywords_on_numba_match_numpy(rng):
    x = rng.uniform(0.5, 1.5, (4, 5))
    m = rng.uniform(size=(4, 5)) > 0.3
    m[:, 0] = True
    want = keywords_everywhere(x, m)
    for backend in ("numpy", "numba"):
        np.testing.assert_allclose(transpyle.jit(keywords_everywhere, backend=backend)(x, m), want, rtol=1e-12)
    g = transpyle.grad(keywords_everywhere, backend="numba")(x, m)
    eps, fd = 1e-6, np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        fd[i] = (keywords_everywhere(up, m) - keywords_everywhere(down, m)) / (2 * eps)
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-6)


def counts_weighed(a, w):
    return np.sum(w * np.sum(a > 0, axis=None, keepdims=True)) + np.prod(a > -10.0)


@pytest.mark.parametrize("strategy", ["array", "loop"])
def test_a_sum_of_booleans_counts_them_under_vmap(strategy, rng):
    a, w = rng.normal(size=(3, 2, 3, 4)), rng.normal(size=(3, 1, 1, 1))
    got = transpyle.vmap(counts_weighed, in_axes=(0, 0), strategy=strategy, backend="numpy")(a, w)
    np.testing.assert_allclose(got, [counts_weighed(a[i], w[i]) for i in range(3)], rtol=1e-12)
