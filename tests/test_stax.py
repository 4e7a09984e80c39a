"""transpyle.example_libraries.stax: networks built from (init_fun, apply_fun) pairs, as JAX's stax builds
them, under jit, grad and vmap on both backends: apply_fun gives the eager value, gradients in the
parameters (a list of per-layer tuples) match finite differences, Dropout draws the same numbers in
every path, and a jitted training step with an optimizer from example_libraries runs unchanged."""
import numpy as np
import pytest

import transpyle
from transpyle import random, tree
from transpyle.example_libraries import optimizers, stax

from gradcheck import ALL_BACKENDS

NETWORKS = {
    "mlp": (lambda: stax.serial(stax.Dense(6), stax.Relu, stax.Dense(4), stax.Tanh, stax.Dense(3),
                                stax.LogSoftmax), (5, 4)),
    "nested": (lambda: stax.serial(stax.serial(stax.Dense(5), stax.Softplus), stax.serial(stax.Dense(3),
                                                                                          stax.Sigmoid),
                                   stax.Dense(2)), (4, 3)),
    "flatten": (lambda: stax.serial(stax.Flatten, stax.Dense(4), stax.Gelu, stax.Dense(2), stax.Softmax), (3, 2, 3)),
    "activations": (lambda: stax.serial(stax.Dense(4), stax.Elu, stax.Dense(4), stax.LeakyRelu, stax.Dense(4),
                                        stax.Selu, stax.Identity, stax.Dense(3), stax.Exp), (3, 2)),
}


def _fd(loss, params, x, h=1e-6):
    leaves, td = tree.flatten(params)
    out = []
    for i, leaf in enumerate(leaves):
        g = np.zeros_like(leaf)
        for idx in np.ndindex(leaf.shape):
            plus = [v.copy() for v in leaves]
            minus = [v.copy() for v in leaves]
            plus[i][idx] += h
            minus[i][idx] -= h
            g[idx] = (loss(tree.unflatten(td, plus), x) - loss(tree.unflatten(td, minus), x)) / (2 * h)
        out.append(g)
    return out


def _network(name, seed):
    make, shape = NETWORKS[name]
    init_fun, apply_fun = make()
    out_shape, params = init_fun(random.PRNGKey(seed), (-1,) + shape[1:])
    x = np.random.default_rng(seed).normal(size=shape)
    return apply_fun, params, x, out_shape


@pytest.mark.parametrize("backend", ALL_BACKENDS)
@pytest.mark.parametrize("name", sorted(NETWORKS))
def test_apply_and_its_gradient(name, backend, rng):
    apply_fun, params, x, out_shape = _network(name, int(rng.integers(1 << 16)))

    def loss(params, x):
        return np.sum(apply_fun(params, x) ** 2)
    eager = apply_fun(params, x)
    assert eager.shape[1:] == tuple(out_shape[1:])
    np.testing.assert_allclose(transpyle.jit(apply_fun, backend=backend)(params, x), eager, rtol=1e-12, atol=1e-14)
    got = transpyle.grad(loss, backend=backend)(params, x)
    assert tree.structure(got) == tree.structure(params)
    for g, want in zip(tree.leaves(got), _fd(loss, params, x)):
        np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-7)
    per_row = transpyle.vmap(apply_fun, in_axes=(None, 0), backend=backend)(params, x[:, None])
    np.testing.assert_allclose(per_row[:, 0], eager, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_dropout_draws_as_eagerly_and_differentiates(backend, rng):
    init_fun, apply_fun = stax.serial(stax.Dense(8), stax.Relu, stax.Dropout(0.7), stax.Dense(2))
    _, params = init_fun(random.PRNGKey(3), (-1, 3))
    x = rng.normal(size=(6, 3))
    key = random.PRNGKey(int(rng.integers(1 << 16)))

    def loss(params, x, key):
        return np.sum(apply_fun(params, x, rng=key) ** 2)
    np.testing.assert_allclose(transpyle.jit(loss, backend=backend)(params, x, key), loss(params, x, key), rtol=1e-12)
    got = transpyle.grad(loss, backend=backend)(params, x, key)
    for g, want in zip(tree.leaves(got), _fd(lambda p, x: loss(p, x, key), params, x)):
        np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-7)
    eval_fun = stax.serial(stax.Dense(8), stax.Dropout(0.7, mode="test"))[1]
    np.testing.assert_allclose(transpyle.jit(eval_fun, backend=backend)(params[:1] + [()], x),
                               x @ params[0][0] + params[0][1], rtol=1e-12)


def test_dropout_without_a_key_raises():
    _, apply_fun = stax.Dropout(0.5)
    with pytest.raises(ValueError, match="PRNG key"):
        transpyle.jit(apply_fun, backend="numpy")((), np.ones(3))


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_a_jitted_training_step_lowers_the_loss(backend, rng):
    init_fun, predict = stax.serial(stax.Dense(16), stax.Tanh, stax.Dense(1))
    _, params = init_fun(random.PRNGKey(0), (-1, 2))
    x = rng.normal(size=(32, 2))
    y = np.sin(x[:, :1]) + x[:, 1:] ** 2
    opt_init, opt_update, get_params = optimizers.adam(1e-2)

    def loss(params, x, y):
        return np.mean((predict(params, x) - y) ** 2)

    @transpyle.jit
    def step(i, state, x, y):
        value, grads = transpyle.value_and_grad(loss)(get_params(state), x, y)
        return value, opt_update(i, grads, state)
    step = transpyle.jit(step.__wrapped__ if hasattr(step, "__wrapped__") else step, backend=backend)
    state = opt_init(params)
    first = None
    for i in range(30):
        value, state = step(i, state, x, y)
        first = value if first is None else first
    assert loss(get_params(state), x, y) < 0.7 * first
