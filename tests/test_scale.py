"""pmap against vmap and NumPy loops (transforms inside, pytrees, out_axes), the collectives
(psum, pmean, pmax, pmin) against NumPy reductions over the shards, the errors of pmap and of
collectives where they are refused, and transpyle.dask on a LocalCluster of two worker processes.
"""
import numpy as np
import pytest

import transpyle
from transpyle import lax


def loss(w, X, y):
    """Logistic regression, mean over the examples given."""
    p = 1.0 / (1.0 + np.exp(-(X @ w)))
    return -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))


def example_loss(w, x, y):
    p = 1.0 / (1.0 + np.exp(-np.dot(x, w)))
    return -(y * np.log(p) + (1 - y) * np.log(1 - p))


def loss_grad_reference(w, X, y):
    """The closed form: X^T (sigmoid(X w) - y) / n."""
    return X.T @ (1.0 / (1.0 + np.exp(-(X @ w))) - y) / X.shape[0]


def data(rng, shards, per_shard, d):
    return (rng.normal(size=d), rng.normal(size=(shards, per_shard, d)),
            rng.integers(0, 2, (shards, per_shard)).astype(float))


def step(w, X, y):
    g = transpyle.grad(loss)(w, X, y)
    return lax.pmean(g, 'batch')


def several(w, X, y):
    total = lax.psum(np.sum(X), 'i')
    shards = lax.psum(1.0, 'i')
    scaled = X * (total / shards) + w
    top = lax.pmax(scaled, 'i')
    low = lax.pmin(np.min(y), 'i')
    return top - low, shards


@pytest.mark.numba
def test_pmap_of_grad_and_of_vmap_grad_equal_references(rng):
    w, X, y = data(rng, 2, 5, 3)
    g = transpyle.pmap(transpyle.grad(loss), in_axes=(None, 0, 0))(w, X, y)
    np.testing.assert_allclose(g, [loss_grad_reference(w, X[i], y[i]) for i in range(2)], rtol=1e-12, atol=1e-14)
    per_example = transpyle.vmap(transpyle.grad(example_loss), in_axes=(None, 0, 0))
    got = transpyle.pmap(per_example, in_axes=(None, 0, 0))(w, X, y)
    reference = transpyle.vmap(transpyle.grad(example_loss), in_axes=(None, 0, 0), backend="numpy")
    want = reference(w, X.reshape(10, 3), y.reshape(10)).reshape(2, 5, 3)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


@pytest.mark.numba
def test_pmean_of_gradients_is_the_gradient_over_all_shards(rng):
    w, X, y = data(rng, 2, 6, 4)
    g = transpyle.pmap(step, axis_name='batch', in_axes=(None, 0, 0))(w, X, y)
    want = loss_grad_reference(w, X.reshape(12, 4), y.reshape(12))    # equal shards: the mean of the means
    assert g.shape == (2, 4)
    np.testing.assert_allclose(g, [want, want], rtol=1e-12, atol=1e-14)
    once = transpyle.pmap(step, axis_name='batch', in_axes=(None, 0, 0), out_axes=None)(w, X, y)
    np.testing.assert_allclose(once, want, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=pytest.mark.numba)])
def test_several_collectives_split_the_function(rng, backend):
    w, X, y = data(rng, 2, 3, 4)
    top, shards = transpyle.pmap(several, axis_name='i', in_axes=(None, 0, 0), out_axes=(None, 0),
                                 backend=backend)(w, X, y)
    scaled = X * (X.sum() / 2) + w
    np.testing.assert_allclose(top, np.max(scaled, axis=0) - y.min(), rtol=1e-12)
    np.testing.assert_array_equal(shards, [2.0, 2.0])


def mlp_loss(params, x, y):
    h = np.tanh(x @ params['W'] + params['b'])
    return np.mean((h @ params['v'] - y) ** 2)


def mlp_step(params, x, y):
    return lax.psum(transpyle.grad(mlp_loss)(params, x, y), 'd')


def test_pytree_parameters_and_gradients(rng, backend="numpy"):
    # flattening happens before any backend; the compiled path is covered by the other tests and by grad_sum
    params = {'W': rng.normal(size=(3, 4)), 'b': rng.normal(size=4), 'v': rng.normal(size=4)}
    X, y = rng.normal(size=(2, 5, 3)), rng.normal(size=(2, 5))
    total = transpyle.pmap(mlp_step, axis_name='d', in_axes=(None, 0, 0), out_axes=None, backend=backend)(params, X, y)
    per_shard = transpyle.pmap(transpyle.grad(mlp_loss), in_axes=(None, 0, 0), backend=backend)(params, X, y)
    reference = [transpyle.grad(mlp_loss, backend="numpy")(params, X[i], y[i]) for i in range(2)]
    for k in params:
        np.testing.assert_allclose(per_shard[k], [r[k] for r in reference], rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(total[k], reference[0][k] + reference[1][k], rtol=1e-12, atol=1e-14)


def scaled_rows(x, a):
    return x * a


def test_in_axes_other_than_zero_and_devices_as_a_count(rng):
    x = rng.normal(size=(4, 3))
    out = transpyle.pmap(scaled_rows, in_axes=(1, None), devices=3, backend="numpy")(x, 2.0)
    np.testing.assert_allclose(out, 2.0 * x.T)
    out = transpyle.pmap(scaled_rows, in_axes=(1, None), out_axes=1, devices=transpyle.local_devices()[:1] * 3,
                         backend="numpy")(x, 2.0)
    np.testing.assert_allclose(out, 2.0 * x)


# ---- errors ------------------------------------------------------------------------------------------------------
def loop_psum(x):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + lax.psum(x[i], 'i')
    return s


def other_axis(x):
    return lax.psum(x, 'j')


def squared_norm_everywhere(v):
    return lax.psum(np.sum(v * v), 'i')


def grad_of_psum(x):
    return transpyle.grad(squared_norm_everywhere)(x)


def test_more_shards_than_devices_and_size_mismatch():
    too_many = transpyle.local_device_count() + 1
    with pytest.raises(transpyle.TranspileError, match=rf"size {too_many} \(x has size {too_many} along axis 0\), "
                                                       r"which is more shards than the \d+ local devices"):
        transpyle.pmap(scaled_rows, in_axes=(0, None), backend="numpy")(np.ones((too_many, 2)), 1.0)
    with pytest.raises(transpyle.TranspileError, match=r"size 2 \(x has size 2 along axis 0\), but 3 devices"):
        transpyle.pmap(scaled_rows, in_axes=(0, None), devices=3, backend="numpy")(np.ones((2, 2)), 1.0)
    with pytest.raises(transpyle.TranspileError, match="inconsistent sizes.*x has size 2.*a has size 3"):
        transpyle.pmap(scaled_rows, devices=2, backend="numpy")(np.ones((2, 2)), np.ones(3))


@pytest.mark.parametrize("fun, message", [
    (loop_psum, r"test_scale.py:\d+: s = s \+ lax.psum\(x\[i\], 'i'\): lax.psum inside a loop"),
    (other_axis, r"test_scale.py:\d+: return lax.psum\(x, 'j'\): lax.psum: unbound axis name 'j': the enclosing "
                 r"pmap binds 'i'"),
    (grad_of_psum, r"test_scale.py:\d+: .*lax.psum: a collective inside a differentiated function"),
])
def test_collectives_where_they_are_refused(fun, message):
    with pytest.raises(transpyle.TranspileError, match=message) as info:
        transpyle.pmap(fun, axis_name='i', devices=2, backend="numpy")(np.ones((2, 3)))
    assert "\n  hint: " in str(info.value)


def test_collectives_outside_pmap():
    with pytest.raises(transpyle.TranspileError, match="unbound axis name 'j': it is not inside a function mapped"):
        transpyle.jit(other_axis, backend="numpy")(np.ones(3))
    with pytest.raises(NameError, match="unbound axis name: 'j'"):
        other_axis(np.ones(3))
    with pytest.raises(transpyle.TranspileError, match="inside a loop or a branch.*\n.*hint: .*vmap"):
        transpyle.pmap(transpyle.vmap(other_axis), axis_name='j', devices=2, backend="numpy")(np.ones((2, 3)))


def not_positive_definite(a):
    return np.linalg.cholesky(a)


@pytest.mark.numba
def test_a_failing_shard_raises_its_error():
    a = np.stack([np.eye(2), -np.eye(2)])
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        transpyle.pmap(not_positive_definite)(a)


# ---- dask --------------------------------------------------------------------------------------------------------
def params_loss(params, X, y):
    p = 1.0 / (1.0 + np.exp(-(X @ params['w'] + params['b'])))
    return -np.sum(y * np.log(p) + (1 - y) * np.log(1 - p))


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=40) as cluster, distributed.Client(cluster) as c:
        yield c


@pytest.mark.numba
def test_dask_map_blocks_and_grad_sum(client, rng):
    da = pytest.importorskip("dask.array")
    import transpyle.dask as tdask
    X, y, w = rng.normal(size=(40, 3)), rng.integers(0, 2, 40).astype(float), rng.normal(size=3)
    dX, dy = da.from_array(X, chunks=(10, 3)), da.from_array(y, chunks=15)    # unequal chunks are aligned
    per_example = transpyle.vmap(transpyle.grad(example_loss), in_axes=(None, 0, 0))
    got = tdask.map_blocks(per_example, w, dX, dy)
    assert got.shape == (40, 3) and got.chunks[0] == (10, 5, 5, 10, 10)
    reference = transpyle.vmap(transpyle.grad(example_loss), in_axes=(None, 0, 0), backend="numpy")
    np.testing.assert_allclose(got.compute(), reference(w, X, y), rtol=1e-12, atol=1e-14)
    params = {'w': w, 'b': 0.5}
    g = tdask.grad_sum(params_loss, params, dX, dy, split_every=2)
    want = transpyle.grad(params_loss, backend="numpy")(params, X, y)
    np.testing.assert_allclose(g['w'], want['w'], rtol=1e-10)
    np.testing.assert_allclose(g['b'], want['b'], rtol=1e-10)
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):      # raised on a worker
        tdask.map_blocks(not_positive_definite, -da.ones((4, 2, 2), chunks=(2, 2, 2)), dtype=float,
                         shape=(2, 2)).compute()
