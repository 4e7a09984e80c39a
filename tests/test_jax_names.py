"""The names JAX programs reach for, each checked against an independent NumPy/SciPy computation at random
inputs: eagerly, in jit and vmap, and through grad against finite differences (numpy backend; a few on
numba). transpyle.nn, transpyle.scipy.special, lax (stop_gradient, map, select, switch, dynamic slices),
transpyle.numpy's names and array methods, tree_util, random.categorical/choice, the optimizers, the
device functions, pmap's signature, and docs/porting-from-jax.md (its table is current, its example runs)."""
import re
import runpy

import numpy as np
import pytest
import scipy.special as ss

import transpyle
import transpyle.numpy as jnp
from gradcheck import check_grad
from jax_names_table import PAGE, render
from transpyle import lax, nn, random, tree_util
from transpyle.example_libraries import optimizers
from transpyle.scipy import special


def _elu(x, alpha=1.0):
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0.0)))


# variants with arguments, as named functions (the transforms read a lambda's source from its line)
def gelu_exact(x):
    return nn.gelu(x, approximate=False)


def elu_alpha(x):
    return nn.elu(x, alpha=0.5)


def celu_alpha(x):
    return nn.celu(x, 0.7)


def leaky_relu_slope(x):
    return nn.leaky_relu(x, negative_slope=0.2)


# name -> (transpyle function, independent reference, (lo, hi), kinks to keep away from)
ELEMENTWISE = {
    "relu": (nn.relu, lambda x: np.maximum(x, 0.0), (-3, 8), (0.0,)),
    "relu6": (nn.relu6, lambda x: np.clip(x, 0.0, 6.0), (-3, 8), (0.0, 6.0)),
    "sigmoid": (nn.sigmoid, ss.expit, (-8, 8), ()),
    "softplus": (nn.softplus, lambda x: np.logaddexp(x, 0.0), (-8, 8), ()),
    "silu": (nn.silu, lambda x: x * ss.expit(x), (-8, 8), ()),
    "swish": (nn.swish, lambda x: x / (1.0 + np.exp(-x)), (-8, 8), ()),
    "gelu": (nn.gelu, lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3))), (-4, 4), ()),
    "gelu_exact": (gelu_exact, lambda x: x * ss.ndtr(x), (-4, 4), ()),
    "elu": (nn.elu, _elu, (-4, 4), (0.0,)),
    "elu_alpha": (elu_alpha, lambda x: _elu(x, 0.5), (-4, 4), (0.0,)),
    "celu": (celu_alpha, lambda x: np.maximum(x, 0) + np.minimum(0, 0.7 * np.expm1(x / 0.7)), (-4, 4), (0.0,)),
    "selu": (nn.selu, lambda x: 1.0507009873554805 * _elu(x, 1.6732632423543772), (-4, 4), (0.0,)),
    "leaky_relu": (nn.leaky_relu, lambda x: np.where(x >= 0, x, 0.01 * x), (-4, 4), (0.0,)),
    "leaky_relu_slope": (leaky_relu_slope, lambda x: np.maximum(x, 0.2 * x), (-4, 4), (0.0,)),
    "hard_tanh": (nn.hard_tanh, lambda x: np.clip(x, -1.0, 1.0), (-3, 3), (-1.0, 1.0)),
    "soft_sign": (nn.soft_sign, lambda x: x / (1.0 + np.abs(x)), (-4, 4), (0.0,)),
    "log_sigmoid": (nn.log_sigmoid, lambda x: -np.logaddexp(0.0, -x), (-8, 8), ()),
    "expit": (special.expit, ss.expit, (-8, 8), ()),
    "erf": (special.erf, ss.erf, (-3, 3), ()),
    "gammaln": (special.gammaln, ss.gammaln, (0.2, 6), ()),
    "gammaln_negative": (special.gammaln, ss.gammaln, (-2.9, -2.1), ()),
    "digamma": (special.digamma, ss.digamma, (0.2, 6), ()),
}
ON_NUMBA = ("relu", "gelu_exact", "softplus", "erf", "gammaln", "digamma")


def _points(rng, name, shape=(4, 5)):
    _, _, (lo, hi), kinks = ELEMENTWISE[name]
    x = rng.uniform(lo, hi, shape)
    for _ in range(100):
        near = np.zeros(shape, dtype=bool)
        for k in kinks:
            near |= np.abs(x - k) < 0.05
        if not near.any():
            return x
        x = np.where(near, rng.uniform(lo, hi, shape), x)
    raise AssertionError("no points away from the kinks")


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_elementwise_eager_jit_vmap(name, rng):
    fn, ref, _, _ = ELEMENTWISE[name]
    x = _points(rng, name)
    np.testing.assert_allclose(fn(x), ref(x), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(float(fn(float(x[0, 0]))), ref(x[0, 0]), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(transpyle.jit(lambda v: fn(v), backend="numpy")(x), ref(x), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(transpyle.vmap(lambda v: fn(v), backend="numpy")(x), ref(x), rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_elementwise_grad(name, rng):
    fn, _, _, _ = ELEMENTWISE[name]
    x, w = _points(rng, name, (3, 4)), rng.standard_normal((3, 4))
    check_grad(lambda v, u: np.sum(fn(v) * u), (x, w))
    check_grad(lambda s: fn(s) * 3.0, (float(x[0, 0]),))


@pytest.mark.numba
@pytest.mark.parametrize("name", ON_NUMBA)
def test_elementwise_numba(name, rng):
    fn, ref, _, _ = ELEMENTWISE[name]
    x, w = _points(rng, name, (3, 4)), rng.standard_normal((3, 4))
    np.testing.assert_allclose(transpyle.jit(lambda v: fn(v), backend="numba")(x), ref(x), rtol=1e-13, atol=1e-15)
    check_grad(lambda v, u: np.sum(fn(v) * u), (x, w), backend="numba")


def test_elementwise_at_extremes():
    """No overflow, no nan, in values or gradients, far out on either side."""
    x = np.array([-800.0, -40.0, 40.0, 800.0])
    for fn, ref in [(nn.sigmoid, ss.expit), (nn.softplus, lambda v: np.logaddexp(v, 0.0)),
                    (nn.log_sigmoid, lambda v: -np.logaddexp(0.0, -v)), (nn.silu, lambda v: v * ss.expit(v))]:
        with np.errstate(over="raise"):
            np.testing.assert_allclose(fn(x), ref(x), rtol=1e-14)
        g = transpyle.grad(lambda v: np.sum(fn(v)), backend="numpy")(x)
        assert np.all(np.isfinite(g)), g
    # at the kinks, JAX's slopes: relu 0, leaky_relu 1, softplus 1/2
    grad_at_zero = [float(transpyle.grad(f, backend="numpy")(0.0)) for f in (nn.relu, nn.leaky_relu, nn.softplus)]
    assert grad_at_zero == [0.0, 1.0, 0.5]


def test_special_function_derivatives(rng):
    x = rng.uniform(0.3, 5.0, 4)
    hess = transpyle.hessian(lambda v: np.sum(special.gammaln(v)), backend="numpy")(x)
    np.testing.assert_allclose(hess, np.diag(ss.polygamma(1, x)), rtol=1e-12)
    np.testing.assert_allclose(transpyle.grad(lambda v: np.sum(special.erf(v)), backend="numpy")(x),
                               2 / np.sqrt(np.pi) * np.exp(-x * x), rtol=1e-14)
    # scipy's own functions, in transformed code, are the same primitives
    np.testing.assert_allclose(transpyle.grad(lambda v: np.sum(ss.gammaln(v)), backend="numpy")(x), ss.digamma(x),
                               rtol=1e-12)
    with pytest.raises(transpyle.TranspileError, match="trigamma"):
        transpyle.hessian(lambda v: np.sum(special.digamma(v)), backend="numpy")(x)


def softmax_axis0(x):
    return nn.softmax(x, axis=0)


def log_softmax_axis0(x):
    return nn.log_softmax(x, axis=0)


def logsumexp_axis1(x):
    return special.logsumexp(x, axis=1)


def logsumexp_keepdims(x):
    return special.logsumexp(x, axis=0, keepdims=True)


def logsumexp_weights(x):
    return special.logsumexp(x, 1, x * x + 0.5)


def standardize_axis0(x):
    return nn.standardize(x, axis=0, epsilon=0.1)


def _standardized(x, axis, epsilon):
    return (x - x.mean(axis, keepdims=True)) / np.sqrt(x.var(axis, keepdims=True) + epsilon)


# name -> (transpyle function of x of shape (3, 5), independent reference)
ALONG_AXES = {
    "softmax": (nn.softmax, lambda x: ss.softmax(x, axis=-1)),
    "softmax_axis0": (softmax_axis0, lambda x: ss.softmax(x, axis=0)),
    "log_softmax": (nn.log_softmax, lambda x: ss.log_softmax(x, axis=-1)),
    "log_softmax_axis0": (log_softmax_axis0, lambda x: ss.log_softmax(x, axis=0)),
    "logsumexp": (nn.logsumexp, ss.logsumexp),
    "logsumexp_axis1": (logsumexp_axis1, lambda x: ss.logsumexp(x, axis=1)),
    "logsumexp_keepdims": (logsumexp_keepdims, lambda x: ss.logsumexp(x, axis=0, keepdims=True)),
    "logsumexp_weights": (logsumexp_weights, lambda x: ss.logsumexp(x, 1, x * x + 0.5)),
    "standardize": (nn.standardize, lambda x: _standardized(x, -1, 1e-5)),
    "standardize_axis0": (standardize_axis0, lambda x: _standardized(x, 0, 0.1)),
}


@pytest.mark.parametrize("name", sorted(ALONG_AXES))
def test_along_axes(name, rng):
    fn, ref = ALONG_AXES[name]
    x = rng.normal(size=(3, 5)) * 3.0
    np.testing.assert_allclose(fn(x), ref(x), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(transpyle.jit(lambda v: fn(v), backend="numpy")(x), ref(x), rtol=1e-12, atol=1e-14)
    xs = rng.normal(size=(2, 3, 5))
    np.testing.assert_allclose(transpyle.vmap(lambda v: fn(v), backend="numpy")(xs), [ref(v) for v in xs],
                               rtol=1e-12, atol=1e-14)
    w = rng.normal(size=np.shape(ref(x)))
    check_grad(lambda v, u: np.sum(fn(v) * u), (x, w))


@pytest.mark.numba
def test_along_axes_numba(rng):
    x, w = rng.normal(size=(3, 5)), rng.normal(size=(3, 5))
    check_grad(lambda v, u: np.sum(nn.log_softmax(v) * u) + nn.logsumexp(v) + np.sum(nn.softmax(v, axis=0) * u),
               (x, w), backend="numba")


def test_shifts_keep_large_and_infinite_values():
    x = np.array([[1000.0, 1001.0, 999.0], [-np.inf, 0.0, 1.0]])
    np.testing.assert_allclose(nn.softmax(x), ss.softmax(x, axis=-1))
    np.testing.assert_allclose(special.logsumexp(x, axis=1), ss.logsumexp(x, axis=1))
    np.testing.assert_allclose(transpyle.jit(lambda v: special.logsumexp(v, axis=1), backend="numpy")(x),
                               ss.logsumexp(x, axis=1))
    assert special.logsumexp(np.full(3, -np.inf)) == -np.inf
    b = np.array([1.0, -2.0, 0.5])
    value, sign = special.logsumexp(np.array([0.1, 0.2, 0.3]), b=b, return_sign=True)
    np.testing.assert_allclose((value, sign), ss.logsumexp(np.array([0.1, 0.2, 0.3]), b=b, return_sign=True))
    with pytest.raises(transpyle.TranspileError, match="return_sign"):
        transpyle.jit(lambda v: special.logsumexp(v, return_sign=True)[0], backend="numpy")(x[0])


def test_one_hot(rng):
    idx = rng.integers(-1, 6, size=7)                 # -1 and 5 are out of range: rows of zeros
    expected = (idx[:, None] == np.arange(5)).astype(float)
    np.testing.assert_array_equal(nn.one_hot(idx, 5), expected)
    np.testing.assert_array_equal(nn.one_hot(idx, 5, axis=0), expected.T)
    assert nn.one_hot(idx, 5, dtype=np.float32).dtype == np.float32
    np.testing.assert_array_equal(transpyle.jit(lambda i: nn.one_hot(i, 5), backend="numpy")(idx), expected)
    np.testing.assert_array_equal(transpyle.jit(lambda i: nn.one_hot(i, 5, axis=0), backend="numpy")(idx), expected.T)
    x = rng.normal(size=(7, 5))
    g = transpyle.grad(lambda v, i: np.sum(nn.log_softmax(v) * nn.one_hot(i, 5)), backend="numpy")(x, idx)
    np.testing.assert_allclose(g, expected - ss.softmax(x, axis=-1) * expected.sum(1, keepdims=True), atol=1e-14)


# ---- lax ---------------------------------------------------------------------------------------------
def test_lax_stop_gradient_map_select_switch(rng):
    x = rng.normal(size=(4, 3))
    g = transpyle.grad(lambda v: np.sum(v * lax.stop_gradient(v)), backend="numpy")(x)
    np.testing.assert_allclose(g, x)

    def rows(v):
        return lax.map(lambda r: np.sin(r) * np.sum(r * r), v)
    expected = np.stack([np.sin(r) * np.sum(r * r) for r in x])
    np.testing.assert_allclose(rows(x), expected)
    np.testing.assert_allclose(transpyle.jit(rows, backend="numpy")(x), expected)
    check_grad(lambda v, u: np.sum(rows(v) * u), (x, rng.normal(size=(4, 3))))

    def picked(v, k):
        return np.sum(lax.select(v > 0, v * v, -v)) + lax.switch(k, (lambda a: np.sum(a), lambda a: np.prod(a)), v[0])
    for k in (0, 1, 5):
        ref = np.sum(np.where(x > 0, x * x, -x)) + (np.sum(x[0]) if k == 0 else np.prod(x[0]))
        np.testing.assert_allclose(picked(x, k), ref)
        np.testing.assert_allclose(transpyle.jit(picked, backend="numpy")(x, k), ref)
        check_grad(picked, (x, k))


def _slice_reference(x, starts, sizes):
    starts = [min(max(s, 0), d - n) for s, d, n in zip(starts, x.shape, sizes)]
    return x[tuple(slice(s, s + n) for s, n in zip(starts, sizes))], starts


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=pytest.mark.numba)])
def test_dynamic_slices(backend, rng):
    x, u = rng.normal(size=(5, 6)), rng.normal(size=(2, 3))
    window = transpyle.jit(lambda v, i, j: lax.dynamic_slice(v, (i, j), (2, 3)), backend=backend)
    update = transpyle.jit(lambda v, w, i: lax.dynamic_update_slice(v, w, (i, 2)), backend=backend)
    for i, j in [(0, 0), (3, 4), (-2, 1), (9, 9), tuple(rng.integers(0, 4, 2))]:
        ref, (a, b) = _slice_reference(x, (i, j), (2, 3))
        np.testing.assert_array_equal(lax.dynamic_slice(x, (i, j), (2, 3)), ref)
        np.testing.assert_array_equal(window(x, int(i), int(j)), ref)
        _, (a, b) = _slice_reference(x, (i, 2), (2, 3))
        expected = x.copy()
        expected[a:a + 2, b:b + 3] = u
        np.testing.assert_array_equal(lax.dynamic_update_slice(x, u, (i, 2)), expected)
        np.testing.assert_array_equal(update(x, u, int(i)), expected)
    i = int(rng.integers(0, 4))
    check_grad(lambda v, k: np.sum(np.sin(lax.dynamic_slice(v, (k, 1), (2, 3)))), (x, i), backend=backend)
    check_grad(lambda v, w, k: np.sum(np.cos(lax.dynamic_update_slice(v, w * w, (k, 2)))), (x, u, i),
               argnums=(0, 1), backend=backend)
    starts = np.array([0, 3, 1])
    batched = transpyle.vmap(lambda v, k: lax.dynamic_slice(v, (k, 0), (2, 6)), in_axes=(None, 0), backend=backend)
    np.testing.assert_array_equal(batched(x, starts), np.stack([x[k:k + 2] for k in starts]))


# ---- transpyle.numpy ---------------------------------------------------------------------------------
def test_numpy_names(rng):
    x, a = rng.normal(size=(3, 1, 4)), rng.normal(size=(4, 4))
    for name, args in [("argmax", (x,)), ("argmin", (x,)), ("std", (x,)), ("var", (x,)), ("squeeze", (x, 1)),
                       ("outer", (x[0, 0], x[1, 0])), ("cumsum", (x,))]:
        assert name in jnp.__all__
        np.testing.assert_array_equal(getattr(jnp, name)(*args), getattr(np, name)(*args))
    for name in ("eigvals", "eigvalsh", "norm", "det", "inv", "solve", "eigh", "svd", "cholesky", "slogdet"):
        assert hasattr(jnp.linalg, name)
    for name in ("eigvals", "eigvalsh", "norm", "det", "inv"):
        np.testing.assert_array_equal(getattr(jnp.linalg, name)(a @ a.T), getattr(np.linalg, name)(a @ a.T))


def test_numpy_functions_and_methods_in_transformed_code(rng):
    x = rng.normal(size=(3, 1, 4))

    def f(v):
        m = v.squeeze(1)                                  # (3, 4)
        total = np.sum(m.T.reshape(2, 6) ** 2) + np.sum(m.sum(axis=0) * m.mean(axis=1)[0])
        total = total + np.sum(m.max(axis=0)) + m.std() + np.sum(m.var(axis=0)) + np.sum(jnp.std(m, axis=1))
        total = total + np.sum(jnp.squeeze(v, axis=1).astype(np.float64) * np.cumsum(m, axis=1))
        return total + np.sum(m.clip(-0.5, 0.5)) + float(np.argmax(m[0])) + float(m.argmin(axis=1)[1])
    np.testing.assert_allclose(transpyle.jit(f, backend="numpy")(x), f(x), rtol=1e-13)
    check_grad(f, (x,))
    np.testing.assert_allclose(transpyle.vmap(f, backend="numpy")(np.stack([x, 2 * x])), [f(x), f(2 * x)],
                               rtol=1e-13)
    with pytest.raises(transpyle.TranspileError, match="squeeze without"):
        transpyle.jit(lambda v: np.sum(v.squeeze()), backend="numpy")(x)


def test_numpy_linalg_names(rng):
    a = rng.normal(size=(4, 4))
    s = a + a.T
    # NumPy's eigvalsh reads one triangle: differentiate a function of the symmetric part
    check_grad(lambda m: np.sum(jnp.linalg.eigvalsh((m + m.T) / 2) ** 3) + jnp.linalg.norm(m), (s,))
    got = transpyle.jit(lambda m: jnp.linalg.eigvals(m), backend="numpy")(a)
    distance = np.abs(got[:, None] - np.linalg.eigvals(a)[None, :])
    assert np.all(distance.min(axis=0) < 1e-10) and np.all(distance.min(axis=1) < 1e-10)


# ---- tree_util ---------------------------------------------------------------------------------------
def test_tree_util_eager(rng):
    a = {"w": rng.normal(size=3), "b": (1.0, [2.0, None])}
    b = {"w": rng.normal(size=3), "b": (3.0, [4.0, None])}
    summed = tree_util.tree_map(lambda u, v: u + v, a, b)
    np.testing.assert_allclose(summed["w"], a["w"] + b["w"])
    assert summed["b"] == (4.0, [6.0, None])
    leaves, treedef = tree_util.tree_flatten(a)
    assert leaves[0] == 1.0 and leaves[1] == 2.0 and leaves[2] is a["w"]       # dict keys in sorted order
    assert tree_util.tree_leaves(a) == leaves and tree_util.tree_structure(b) == treedef
    assert tree_util.tree_unflatten(treedef, [5.0, 6.0, 7.0]) == {"w": 7.0, "b": (5.0, [6.0, None])}
    assert treedef.unflatten(leaves)["b"] == a["b"] and treedef.num_leaves == 3
    assert tree_util.tree_reduce(lambda s, v: s + np.sum(v), b, 0.0) == pytest.approx(7.0 + np.sum(b["w"]))
    assert tree_util.tree_all([True, (1, 2.0)]) and not tree_util.tree_all({"a": 0, "b": 1})

    class Pair:
        def __init__(self, first, second):
            self.first, self.second = first, second
    tree_util.register_pytree_node(Pair, lambda p: ((p.first, p.second), None), lambda aux, c: Pair(*c))
    doubled = tree_util.tree_map(lambda v: 2 * v, Pair(1.0, np.ones(2)))
    assert isinstance(doubled, Pair) and doubled.first == 2.0

    scaled = tree_util.Partial(np.multiply, 3.0)
    assert tree_util.tree_leaves(scaled) == [3.0] and scaled(2.0) == 6.0
    assert tree_util.tree_map(lambda v: v + 1.0, scaled)(2.0) == 8.0


@tree_util.register_pytree_node_class
class Affine:
    def __init__(self, weight, shift):
        self.weight, self.shift = weight, shift

    def tree_flatten(self):
        return (self.weight, self.shift), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


def test_tree_util_in_transformed_code(rng):
    def loss(params, x):
        squared = tree_util.tree_map(lambda p, q: p * q, params, params)
        return np.sum(squared["w"] * x) + squared["b"] + np.sum(tree_util.tree_leaves(params)[1])
    params, x = {"w": rng.normal(size=3), "b": 0.7}, rng.normal(size=3)
    g = transpyle.grad(loss, backend="numpy")(params, x)
    np.testing.assert_allclose(g["w"], 2 * params["w"] * x + 1.0)
    assert g["b"] == pytest.approx(2 * 0.7)

    def affine_loss(layer, x):
        return np.sum((layer.weight * x + layer.shift) ** 2)
    layer = Affine(rng.normal(size=3), 0.3)
    g = transpyle.grad(affine_loss, backend="numpy")(layer, x)
    residual = layer.weight * x + layer.shift
    assert isinstance(g, Affine)
    np.testing.assert_allclose(g.weight, 2 * residual * x)
    assert g.shift == pytest.approx(np.sum(2 * residual))


# ---- random ------------------------------------------------------------------------------------------
def test_categorical(rng):
    key = random.PRNGKey(int(rng.integers(2 ** 31)))
    assert random.PRNGKey is random.key
    probs = np.array([0.1, 0.25, 0.05, 0.6])
    logits = np.tile(np.log(probs) + 3.0, (40000, 1))
    draws = random.categorical(key, logits)
    assert draws.shape == (40000,) and draws.dtype == np.int64
    freq = np.bincount(draws, minlength=4) / len(draws)
    assert np.all(np.abs(freq - probs) < 5 * np.sqrt(probs * (1 - probs) / len(draws))), freq
    np.testing.assert_array_equal(transpyle.jit(lambda k, l: random.categorical(k, l), backend="numpy")(key, logits),
                                  draws)
    along_rows = random.categorical(random.fold_in(key, 1), logits.T, axis=0)
    freq = np.bincount(along_rows, minlength=4) / len(along_rows)
    assert np.all(np.abs(freq - probs) < 5 * np.sqrt(probs * (1 - probs) / len(along_rows))), freq
    keys = random.split(key, 3)
    batched = transpyle.vmap(lambda k, l: random.categorical(k, l), in_axes=(0, None), backend="numpy")(keys, logits[0])
    np.testing.assert_array_equal(batched, [random.categorical(k, logits[0]) for k in keys])


@pytest.mark.numba
def test_categorical_numba(rng):
    key, logits = random.key(7), rng.normal(size=(50, 6))
    np.testing.assert_array_equal(transpyle.jit(lambda k, l: random.categorical(k, l), backend="numba")(key, logits),
                                  random.categorical(key, logits))


def test_choice(rng):
    key = random.key(int(rng.integers(2 ** 31)))
    n = 30000
    uniform = random.choice(key, 4, (n,))
    assert uniform.min() >= 0 and uniform.max() <= 3
    assert np.all(np.abs(np.bincount(uniform) / n - 0.25) < 5 * np.sqrt(0.25 * 0.75 / n))
    p = np.array([0.5, 0.1, 0.4])
    weighted = random.choice(key, 3, (n,), p=p)
    assert np.all(np.abs(np.bincount(weighted, minlength=3) / n - p) < 5 * np.sqrt(p * (1 - p) / n))
    population = rng.normal(size=(10, 2))
    rows = random.choice(key, population, (2, 3), replace=False)
    assert rows.shape == (2, 3, 2)
    taken = [tuple(r) for r in rows.reshape(6, 2)]
    assert len(set(taken)) == 6 and all(r in [tuple(q) for q in population] for r in taken)
    distinct = random.choice(key, 5, (5,), replace=False, p=np.array([0.1, 0.2, 0.3, 0.2, 0.2]))
    assert sorted(distinct) == [0, 1, 2, 3, 4]
    assert random.choice(key, 7).shape == ()
    assert np.array_equal(random.choice(key, 9, (4,)), random.choice(key, 9, (4,)))


# ---- optimizers --------------------------------------------------------------------------------------
def _reference_steps(kind, params, grads_of, steps, rate=0.05, mass=0.9, b1=0.9, b2=0.999, eps=1e-8):
    """The update rules written out on flat arrays (the leaves in order)."""
    x = [np.array(p, dtype=float) for p in tree_util.tree_leaves(params)]
    m = [np.zeros_like(v) for v in x]
    v2 = [np.zeros_like(v) for v in x]
    treedef = tree_util.tree_structure(params)
    for i in range(steps):
        g = [np.asarray(v, dtype=float) for v in tree_util.tree_leaves(grads_of(treedef.unflatten(x)))]
        for k in range(len(x)):
            if kind == "sgd":
                x[k] = x[k] - rate * g[k]
            elif kind == "momentum":
                m[k] = mass * m[k] + g[k]
                x[k] = x[k] - rate * m[k]
            else:
                m[k] = (1 - b1) * g[k] + b1 * m[k]
                v2[k] = (1 - b2) * g[k] ** 2 + b2 * v2[k]
                mhat, vhat = m[k] / (1 - b1 ** (i + 1)), v2[k] / (1 - b2 ** (i + 1))
                x[k] = x[k] - rate * mhat / (np.sqrt(vhat) + eps)
    return x


_OPTIMIZERS = {"sgd": lambda: optimizers.sgd(0.05), "momentum": lambda: optimizers.momentum(0.05, 0.9),
               "adam": lambda: optimizers.adam(0.05)}


def _mlp_loss(params, x):
    return np.sum(np.tanh(x @ params["w"] + params["b"]) ** 2) + params["scale"] ** 2


@pytest.mark.parametrize("kind, backend", [(k, b) for k in sorted(_OPTIMIZERS) for b in ("eager", "numpy")] +
                         [pytest.param("adam", "numba", marks=pytest.mark.numba)])
def test_optimizers(kind, backend, rng):
    params = {"w": rng.normal(size=(3, 2)), "b": rng.normal(size=2), "scale": 0.8}
    x = rng.normal(size=(4, 3))
    opt_init, opt_update, get_params = _OPTIMIZERS[kind]()
    grad = transpyle.grad(_mlp_loss, backend="numpy")

    def step(i, state, data):
        return opt_update(i, transpyle.grad(_mlp_loss)(get_params(state), data), state)
    run = (lambda i, s, d: opt_update(i, grad(get_params(s), d), s)) if backend == "eager" else \
        transpyle.jit(step, backend=backend)
    state = opt_init(params)
    for i in range(4):
        state = run(i, state, x)
    got = tree_util.tree_leaves(get_params(state))
    for g, e in zip(got, _reference_steps(kind, params, lambda p: grad(p, x), 4)):
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-14)


def test_optimizer_schedules():
    assert optimizers.exponential_decay(0.1, 10, 0.5)(20) == pytest.approx(0.025)
    assert optimizers.inverse_time_decay(0.1, 10, 1.0)(10) == pytest.approx(0.05)
    init, update, get = optimizers.sgd(optimizers.exponential_decay(1.0, 1, 0.5))
    assert get(update(2, 1.0, init(3.0))) == pytest.approx(3.0 - 0.25)


# ---- devices, pmap -----------------------------------------------------------------------------------
def test_device_functions():
    x = np.arange(3.0)
    assert transpyle.device_put(x) is x and transpyle.device_get(x) is x and transpyle.block_until_ready(x) is x
    assert transpyle.devices() == transpyle.local_devices()


def test_pmap_takes_axis_name_second():
    def centered(v):
        return v - lax.pmean(v, "i")
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(transpyle.pmap(centered, "i", devices=2, backend="numpy")(x), x - x.mean(0))
    with pytest.raises(TypeError):
        transpyle.pmap(centered, "i", 0)


# ---- docs/porting-from-jax.md ------------------------------------------------------------------------
def test_porting_table_is_current():
    text = PAGE.read_text()
    assert render(text) == text, "docs/porting-from-jax.md is stale: run python tests/jax_names_table.py --update"


def test_porting_example_runs(monkeypatch, tmp_path, rng):
    monkeypatch.setenv("TRANSPYLE_BACKEND", "numpy")
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(), re.S)
    program = tmp_path / "ported.py"             # a file, so that the transforms can read the functions' source
    program.write_text("\n".join(blocks[:2]))
    scope = runpy.run_path(str(program))
    params = {"w1": rng.normal(size=(5, 8)) * 0.5, "b1": np.zeros(8), "w2": rng.normal(size=(8, 10)) * 0.5,
              "b2": np.zeros(10)}
    x, y = rng.normal(size=(16, 5)), rng.integers(0, 10, 16)
    state = scope["opt_init"](params)
    losses = []
    for i in range(20):
        loss, state = scope["step"](i, state, x, y)
        losses.append(loss)
    p = scope["get_params"](state)
    h = np.maximum(x @ p["w1"] + p["b1"], 0.0)
    expected = -np.mean(ss.log_softmax(h @ p["w2"] + p["b2"], axis=-1)[np.arange(16), y])
    assert scope["cross_entropy"](p, x, y) == pytest.approx(expected, rel=1e-12)
    assert losses[-1] < losses[0]
