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
