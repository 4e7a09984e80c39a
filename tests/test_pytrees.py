"""Pytrees as arguments and results of every transform: the structure is resolved at transform
time (``params['W']``, loops over layers, unpacking, helpers, ``tree.map``) and derivatives come
back in the structure of the arguments. Gradients are checked against finite differences leaf by
leaf."""
import dataclasses
from collections import namedtuple

import numpy as np
import pytest

import transpyle
from gradcheck import ALL_BACKENDS
from transpyle import TranspileError, tree

Params = namedtuple("Params", "w b")


@tree.register_dataclass
@dataclasses.dataclass
class Linear:
    W: np.ndarray
    b: np.ndarray


def layer(p, h):
    return np.tanh(h @ p["W"] + p["b"])


def mlp(params, x):
    *hidden, last = params
    h = x
    for p in hidden:
        h = layer(p, h)
    return h @ last["W"] + last["b"]


def mlp_loss(params, x, y):
    r = mlp(params, x) - y
    return np.sum(r * r) / x.shape[0]


def l2_by_items(params):
    total = 0.0
    for name, value in params.items():
        total = total + np.sum(value * value)
    return total


def indexed_by_range(params, x):
    s = 0.0
    for i in range(len(params)):
        s = s + np.sum(params[i] * x) * (i + 1)
    return s


def zipped(params, scales):
    s = 0.0
    for k, (p, c) in enumerate(zip(params, scales)):
        s = s + c * np.sum(p ** 2) + k
    return s


def namedtuple_loss(p, x):
    return np.sum((x * p.w + p.b) ** 2)


def dataclass_loss(layer_, x):
    return np.sum(np.sin(x @ layer_.W + layer_.b))


def with_aux(params, x):
    y = x @ params["w"]
    return np.sum(y ** 2), {"pred": y, "norm": np.sum(params["w"] ** 2)}


def optional_bias(params, x):
    y = x @ params["w"]
    if params["b"] is None:
        return np.sum(y ** 2)
    return np.sum((y + params["b"]) ** 2)


def build_and_return(x, a):
    return {"double": 2.0 * x, "pair": (x + a, a * a), "sum": np.sum(x)}


def scaled(params, factor):
    return tree.map(lambda p: p * factor, params)


def frozen_bias(params, x):
    fixed = transpyle.stop_gradient(params)
    return np.sum((x @ params["w"] + fixed["b"]) ** 2) + np.sum(fixed["w"])


def rebinding(params, x):
    new = {"w": params["w"] * 2.0, "b": params["b"]}
    new["b"] = new["b"] + 1.0
    return np.sum((x @ new["w"] + new["b"]) ** 2)


def dict_jacobian(params):
    return params["a"] * np.sum(params["m"] ** 2)


def init_layers(sizes_in, sizes_out, scale):
    return [{"W": np.ones((sizes_in, sizes_out)) * scale, "b": np.zeros(sizes_out)}]


def loss_of_fresh_layers(x, scale):
    params = init_layers(x.shape[1], 2, scale)
    return np.sum(mlp(params, x))


def sgd_fit(params, x, y, steps, lr):
    g = transpyle.grad(mlp_loss)
    for step in range(steps):
        grads = g(params, x, y)
        params = tree.map(lambda p, d: p - lr * d, params, grads)
    return params


def random_mlp(rng, sizes):
    return [{"W": rng.normal(size=(m, n)) / np.sqrt(m), "b": rng.normal(size=n)} for m, n in zip(sizes, sizes[1:])]


def fd_tree(f, args, argnum=0, h=1e-6):
    """The finite-difference gradient of scalar f with respect to every leaf of args[argnum]."""
    leaves, td = tree.flatten(args[argnum])
    out = []
    for i, leaf in enumerate(leaves):
        leaf = np.asarray(leaf, dtype=float)
        g = np.zeros_like(leaf)
        for idx in np.ndindex(leaf.shape):
            plus = [np.array(v, dtype=float, copy=True) for v in leaves]
            minus = [np.array(v, dtype=float, copy=True) for v in leaves]
            plus[i][idx] += h
            minus[i][idx] -= h
            a_plus, a_minus = list(args), list(args)
            a_plus[argnum] = tree.unflatten(td, [p if np.ndim(p) else float(p) for p in plus])
            a_minus[argnum] = tree.unflatten(td, [m if np.ndim(m) else float(m) for m in minus])
            g[idx] = (f(*a_plus) - f(*a_minus)) / (2 * h)
        out.append(g if leaf.ndim else float(g))
    return tree.unflatten(td, out)


def assert_tree_close(got, want, rtol=1e-6, atol=1e-8):
    assert tree.structure(got) == tree.structure(want), f"{tree.structure(got)} != {tree.structure(want)}"
    for g, w in zip(tree.leaves(got), tree.leaves(want)):
        assert np.shape(g) == np.shape(w)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_grad_of_a_list_of_dicts_mlp(backend, rng):
    params = random_mlp(rng, [3, 5, 4, 2])
    x, y = rng.normal(size=(7, 3)), rng.normal(size=(7, 2))
    g = transpyle.grad(mlp_loss, backend=backend)(params, x, y)
    assert isinstance(g, list) and isinstance(g[0], dict)
    assert_tree_close(g, fd_tree(mlp_loss, (params, x, y)), rtol=1e-5)


@pytest.mark.parametrize("fn, make", [
    (l2_by_items, lambda rng: ({"a": rng.normal(size=3), "b": rng.normal(size=(2, 2)), "c": 0.7},)),
    (indexed_by_range, lambda rng: ([rng.normal(size=3), rng.normal(size=3)], rng.normal(size=3))),
    (zipped, lambda rng: ((rng.normal(size=2), rng.normal(size=4)), (0.5, 2.0))),
    (namedtuple_loss, lambda rng: (Params(rng.normal(size=3), 0.3), rng.normal(size=3))),
    (dataclass_loss, lambda rng: (Linear(rng.normal(size=(3, 2)), rng.normal(size=2)), rng.normal(size=(4, 3)))),
    (optional_bias, lambda rng: ({"w": rng.normal(size=3), "b": None}, rng.normal(size=(4, 3)))),
    (optional_bias, lambda rng: ({"w": rng.normal(size=3), "b": 0.5}, rng.normal(size=(4, 3)))),
    (rebinding, lambda rng: ({"w": rng.normal(size=3), "b": 0.5}, rng.normal(size=(4, 3)))),
    (frozen_bias, lambda rng: ({"w": rng.normal(size=3), "b": 0.5}, rng.normal(size=(4, 3)))),
], ids=["items", "range-len", "zip-enumerate", "namedtuple", "dataclass", "none-leaf", "scalar-leaf",
        "rebinding", "stop-gradient"])
def test_structure_constructs(fn, make, rng):
    args = make(rng)
    g = transpyle.grad(fn, backend="numpy")(*args)
    if fn is frozen_bias:          # only the w inside x @ w carries a derivative
        x, w, b = args[1], args[0]["w"], args[0]["b"]
        want = {"w": 2 * x.T @ (x @ w + b), "b": 0.0}
        assert_tree_close(g, want)
        return
    assert_tree_close(g, fd_tree(fn, args), rtol=1e-5)


def test_tuple_argnums_and_value_and_grad(rng):
    params = random_mlp(rng, [2, 3, 1])
    x, y = rng.normal(size=(5, 2)), rng.normal(size=(5, 1))
    (gp, gx) = transpyle.grad(mlp_loss, argnums=(0, 1), backend="numpy")(params, x, y)
    assert_tree_close(gp, fd_tree(mlp_loss, (params, x, y)), rtol=1e-5)
    assert_tree_close(gx, fd_tree(mlp_loss, (params, x, y), argnum=1), rtol=1e-5)
    value, g = transpyle.value_and_grad(mlp_loss, backend="numpy")(params, x, y)
    assert value == pytest.approx(mlp_loss(params, x, y))
    assert_tree_close(g, gp)


def test_has_aux_returns_a_pytree_aux(rng):
    params, x = {"w": rng.normal(size=3)}, rng.normal(size=(4, 3))
    g, aux = transpyle.grad(with_aux, has_aux=True, backend="numpy")(params, x)
    assert_tree_close(g, {"w": 2 * x.T @ (x @ params["w"])})
    assert set(aux) == {"pred", "norm"}
    np.testing.assert_allclose(aux["pred"], x @ params["w"])
    (value, aux2), g2 = transpyle.value_and_grad(with_aux, has_aux=True, backend="numpy")(params, x)
    assert value == pytest.approx(with_aux(params, x)[0]) and aux2["norm"] == pytest.approx(aux["norm"])
    assert_tree_close(g2, g)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_jit_returns_pytrees(backend, rng):
    x = rng.normal(size=4)
    out = transpyle.jit(build_and_return, backend=backend)(x, 1.5)
    want = build_and_return(x, 1.5)
    assert_tree_close(out, want)
    assert isinstance(out["pair"], tuple)
    params = {"w": rng.normal(size=3), "b": [1.0, rng.normal(size=2)]}
    assert_tree_close(transpyle.jit(scaled, backend=backend)(params, 3.0), scaled(params, 3.0))


def test_helper_returning_a_pytree(rng):
    x = rng.normal(size=(3, 4))
    g = transpyle.grad(loss_of_fresh_layers, argnums=1, backend="numpy")(x, 0.3)
    assert g == pytest.approx(fd_tree(loss_of_fresh_layers, (x, 0.3), argnum=1), rel=1e-6)


@pytest.mark.numba
def test_jitted_fit_loop_with_grad_of_a_pytree(rng):
    params = random_mlp(rng, [2, 4, 1])
    x = rng.normal(size=(20, 2))
    y = np.sin(x[:, :1])
    fitted = transpyle.jit(sgd_fit, static_argnums=3)(params, x, y, 30, 0.05)
    want = params
    for _ in range(30):
        g = transpyle.grad(mlp_loss, backend="numpy")(want, x, y)
        want = tree.map(lambda p, d: p - 0.05 * d, want, g)
    assert_tree_close(fitted, want, rtol=1e-9, atol=1e-12)
    assert mlp_loss(fitted, x, y) < mlp_loss(params, x, y)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_per_example_gradients_with_vmap(backend, rng):
    params = random_mlp(rng, [3, 4, 1])
    x, y = rng.normal(size=(6, 1, 3)), rng.normal(size=(6, 1, 1))
    per = transpyle.vmap(transpyle.grad(mlp_loss), in_axes=(None, 0, 0), backend=backend)(params, x, y)
    for i in range(6):
        assert_tree_close(tree.map(lambda a: a[i], per),
                          transpyle.grad(mlp_loss, backend="numpy")(params, x[i], y[i]), rtol=1e-10)


def test_vmap_in_axes_mirror_the_structure(rng):
    params = {"w": rng.normal(size=(5, 3)), "b": 0.25}
    x = rng.normal(size=(5, 4, 3))
    out = transpyle.vmap(optional_bias, in_axes=({"w": 0, "b": None}, 0), backend="numpy")(params, x)
    want = [optional_bias({"w": params["w"][i], "b": 0.25}, x[i]) for i in range(5)]
    np.testing.assert_allclose(out, want)
    with pytest.raises(TranspileError, match="does not match"):
        transpyle.vmap(optional_bias, in_axes=({"w": 0}, 0), backend="numpy")(params, x)


def test_jvp_and_vjp_of_pytrees(rng):
    params = random_mlp(rng, [2, 3, 2])
    x = rng.normal(size=(4, 2))
    tangent = tree.map(lambda p: rng.normal(size=np.shape(p)), params)
    out, t_out = transpyle.jvp(mlp, (params, x), (tangent, np.zeros_like(x)), backend="numpy")
    h = 1e-6
    plus = mlp(tree.map(lambda p, t: p + h * t, params, tangent), x)
    minus = mlp(tree.map(lambda p, t: p - h * t, params, tangent), x)
    np.testing.assert_allclose(t_out, (plus - minus) / (2 * h), rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(out, mlp(params, x))
    out2, pullback = transpyle.vjp(mlp, params, x, backend="numpy")
    ct = rng.normal(size=out2.shape)
    g_params, g_x = pullback(ct)
    assert_tree_close(g_params, fd_tree(lambda p, x_: np.sum(ct * mlp(p, x_)), (params, x)), rtol=1e-5)
    with pytest.raises(TranspileError, match="structures differ"):
        transpyle.jvp(mlp, (params, x), (tangent[:1], np.zeros_like(x)))


def test_jacobians_have_the_argument_structure(rng):
    params = {"a": rng.normal(size=2), "m": rng.normal(size=(2, 2))}
    for jac in (transpyle.jacfwd, transpyle.jacrev):
        j = jac(dict_jacobian, backend="numpy")(params)
        assert j["a"].shape == (2, 2) and j["m"].shape == (2, 2, 2)
        np.testing.assert_allclose(j["a"], np.eye(2) * np.sum(params["m"] ** 2))
        np.testing.assert_allclose(j["m"], 2 * params["a"][:, None, None] * params["m"][None])


def test_show_prints_the_flat_function(rng):
    params = random_mlp(rng, [2, 3, 1])
    text = transpyle.show(mlp_loss, args=(params, np.ones((4, 2)), np.ones((4, 1))))
    assert "def mlp_loss_grad(params_0_W, params_0_b, params_1_W, params_1_b, x, y):" in text


def index_by_runtime_value(params, i):
    return np.sum(params[i])


def wrong_key(params):
    return np.sum(params["missing"])


def pytree_as_a_value(params):
    return np.sum(params)


@pytest.mark.parametrize("fn, args, message", [
    (index_by_runtime_value, ([np.ones(2), np.ones(2)], 1), "known only at run time"),
    (wrong_key, ({"w": np.ones(2)},), "has no entry 'missing'"),
    (pytree_as_a_value, ({"w": np.ones(2)},), "cannot be used as a value"),
])
def test_errors_name_the_line(fn, args, message):
    with pytest.raises(TranspileError, match=message) as info:
        transpyle.grad(fn, backend="numpy")(*args)
    assert "test_pytrees.py" in str(info.value)


class Affine:
    """A class registered by hand: its children are found by attribute in transformed code."""

    def __init__(self, scale, shift, name):
        self.scale, self.shift, self.name = scale, shift, name


tree.register_pytree_node(Affine, lambda a: ((a.scale, a.shift), a.name),
                          lambda name, children: Affine(*children, name))


def affine_loss(a, x):
    return np.sum((a.scale * x + a.shift) ** 2)


def test_registered_class_by_attribute(rng):
    a, x = Affine(rng.normal(size=3), 0.5, "first"), rng.normal(size=3)
    g = transpyle.grad(affine_loss, backend="numpy")(a, x)
    assert isinstance(g, Affine) and g.name == "first"
    r = 2 * (a.scale * x + a.shift)
    np.testing.assert_allclose(g.scale, r * x)
    assert g.shift == pytest.approx(np.sum(r))


def inner_transforms(params, x, y):
    value, grads = transpyle.value_and_grad(mlp_loss)(params, x, y)
    gx = transpyle.grad(mlp_loss, argnums=1)(params, x, y)
    (g2, aux) = transpyle.grad(with_aux, has_aux=True)({"w": params[0]["b"]}, x)
    return value, grads, gx, g2, aux


def test_transforms_of_pytrees_inside_jit(rng):
    params = random_mlp(rng, [3, 3, 1])
    x, y = rng.normal(size=(4, 3)), rng.normal(size=(4, 1))
    value, grads, gx, g2, aux = transpyle.jit(inner_transforms, backend="numpy")(params, x, y)
    assert value == pytest.approx(mlp_loss(params, x, y))
    assert_tree_close(grads, transpyle.grad(mlp_loss, backend="numpy")(params, x, y))
    assert_tree_close(gx, fd_tree(mlp_loss, (params, x, y), argnum=1), rtol=1e-5)
    want_g2, want_aux = transpyle.grad(with_aux, has_aux=True, backend="numpy")({"w": params[0]["b"]}, x)
    assert_tree_close(g2, want_g2)
    assert_tree_close(aux, want_aux)


def step_with_static_loss(params, x, y, loss_fn, lr):
    grads = transpyle.grad(loss_fn)(params, x, y)
    return tree.map(lambda p, d: p - lr * d, params, grads)


def test_jit_with_a_static_loss_on_pytrees(rng):
    params = random_mlp(rng, [2, 3, 1])
    x, y = rng.normal(size=(5, 2)), rng.normal(size=(5, 1))
    got = transpyle.jit(step_with_static_loss, static_argnums=3, backend="numpy")(params, x, y, mlp_loss, 0.1)
    g = transpyle.grad(mlp_loss, backend="numpy")(params, x, y)
    assert_tree_close(got, tree.map(lambda p, d: p - 0.1 * d, params, g))


def options_loss(x, opts):
    s = np.sum(x * opts.get("scale", 1.0)) + opts.get("shift", 0.5)
    if "weights" in opts:
        s = s + np.sum(opts["weights"] * x ** 2)
    if "bias" not in opts:
        s = s + 1.0
    return s


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_keys_of_a_dict_are_known_from_its_structure(backend, rng):
    """``'key' in d``, ``'key' not in d`` and ``d.get(key, default)`` of a dict argument are decided when
    the function is transformed, for the keys the call passes, as Python decides them."""
    x = rng.normal(size=4)
    for opts in ({"scale": 2.0, "weights": rng.normal(size=4)}, {"bias": 0.3}, {"shift": rng.normal()}):
        np.testing.assert_allclose(transpyle.jit(options_loss, backend=backend)(x, opts), options_loss(x, opts))
        want = opts.get("scale", 1.0) + (2 * opts["weights"] * x if "weights" in opts else 0.0)
        np.testing.assert_allclose(transpyle.grad(options_loss, backend=backend)(x, opts), want + 0 * x)
