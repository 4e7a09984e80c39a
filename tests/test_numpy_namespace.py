"""``import transpyle.numpy as jnp`` and the functional update ``x.at[idx].set/add/multiply/min/max``."""
import numpy as np
import pytest

import transpyle
import transpyle.numpy as jnp
from transpyle.base.arrays import library_object
from gradcheck import ALL_BACKENDS


def functional_updates(x, v):
    y = x.at[1].set(v * 2.0)
    z = y.at[0:2].add(jnp.sin(x[2:4]))
    w = z.at[3].max(v)
    return jnp.sum(w * w) + jnp.sum(x.at[0].multiply(3.0)) + jnp.sum(x.at[2].min(-v))


def in_place_equivalent(x, v):
    y = x.copy()
    y[1] = v * 2.0
    z = y.copy()
    z[0:2] += np.sin(x[2:4])
    w = z.copy()
    w[3] = max(w[3], v)
    a = x.copy()
    a[0] *= 3.0
    b = x.copy()
    b[2] = min(b[2], -v)
    return np.sum(w * w) + np.sum(a) + np.sum(b)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_at_updates_match_in_place_writes(backend, rng):
    x, v = rng.normal(size=4), float(rng.uniform(0.2, 1.0))
    x[3] = v + 0.5 if rng.random() < 0.5 else v - 0.5          # away from the max tie
    x[2] = -v + 0.3 if rng.random() < 0.5 else -v - 0.3
    before = x.copy()
    gx, gv = transpyle.grad(functional_updates, argnums=(0, 1), backend=backend)(x, v)
    np.testing.assert_array_equal(x, before)                  # .at never writes into x
    h = 1e-6
    fdx = np.array([(in_place_equivalent(x + h * e, v) - in_place_equivalent(x - h * e, v)) / (2 * h)
                    for e in np.eye(4)])
    fdv = (in_place_equivalent(x, v + h) - in_place_equivalent(x, v - h)) / (2 * h)
    np.testing.assert_allclose(gx, fdx, rtol=1e-6, atol=1e-7)
    assert gv == pytest.approx(fdv, rel=1e-6)


def test_namespace_is_numpy():
    # NumPy's own functions, wrapped so that eager results are arrays with .at (base/arrays)
    assert library_object(jnp.sin) is np.sin and library_object(jnp.sum) is np.sum
    assert library_object(jnp.linalg.norm) is np.linalg.norm
    assert {"exp", "where", "dot", "zeros", "clip"} <= set(jnp.__all__)


def scatter_add(v, idx):
    return jnp.zeros(5).at[idx].add(v)


def scatter_loss(x, v, idx):
    return jnp.sum(jnp.sin(x.at[idx].add(v * x[0])) ** 2)


def rows_accumulated(x):
    acc = jnp.zeros((3, x.shape[1]))
    for k in range(x.shape[0]):
        acc = acc.at[k % 3].add(x[k] * x[k])
    return jnp.sum(acc ** 2)


def numbers_scaled_in_a_loop(x):
    y = jnp.ones(3)
    for k in range(x.shape[0]):
        y = y.at[k % 3].multiply(x[k])
    return jnp.sum(y)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_add_at_repeated_positions_takes_every_value(backend, rng):
    """JAX's .at[idx].add is a scatter-add: each repeated position gets every value (np.add.at)."""
    idx = rng.integers(0, 5, size=7)
    idx[:2] = 3                                      # a repeat, always
    v = rng.normal(size=7)
    want = np.zeros(5)
    np.add.at(want, idx, v)
    np.testing.assert_allclose(transpyle.jit(scatter_add, backend=backend)(v, idx), want, rtol=1e-14)
    x = rng.normal(size=5)

    def reference(x, v):
        y = x.copy()
        np.add.at(y, idx, v * x[0])
        return np.sum(np.sin(y) ** 2)
    gx, gv = transpyle.grad(scatter_loss, argnums=(0, 1), backend=backend)(x, v, idx)
    h = 1e-6
    np.testing.assert_allclose(gx, [(reference(x + h * e, v) - reference(x - h * e, v)) / (2 * h) for e in np.eye(5)],
                               rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(gv, [(reference(x, v + h * e) - reference(x, v - h * e)) / (2 * h) for e in np.eye(7)],
                               rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_updates_at_positions_that_are_numbers_differentiate(backend, rng):
    x = rng.normal(size=(5, 2))
    acc = np.zeros((3, 2))
    for k in range(5):
        acc[k % 3] += x[k] * x[k]
    np.testing.assert_allclose(transpyle.grad(rows_accumulated, backend=backend)(x),
                               4 * acc[np.arange(5) % 3] * x, rtol=1e-12)
    s = rng.uniform(0.5, 1.5, size=4)
    want = np.array([s[0] * s[3], s[1], s[2]])
    g = transpyle.grad(numbers_scaled_in_a_loop, backend=backend)(s)
    np.testing.assert_allclose(g, [s[3], 1.0, 1.0, s[0]], rtol=1e-12)
    assert transpyle.jit(numbers_scaled_in_a_loop, backend=backend)(s) == pytest.approx(want.sum())


def multiply_at_positions(x, idx):
    return jnp.ones(4).at[idx].multiply(x)


def add_at_columns(x, idx):
    return x.at[:, idx].add(1.0)


@pytest.mark.parametrize("f", [multiply_at_positions, add_at_columns])
def test_scatters_that_would_drop_repeats_are_refused(f):
    with pytest.raises(transpyle.TranspileError, match="a repeated position must take every value"):
        transpyle.jit(f, backend="numpy")(np.ones((4, 4)) if f is add_at_columns else np.ones(2), np.array([0, 0]))
