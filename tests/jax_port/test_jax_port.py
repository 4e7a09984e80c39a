"""JAX programs ported by changing the imports: each program in this folder is written as a JAX user
writes one (``import transpyle as jax``, ``import transpyle.numpy as jnp``, ``from transpyle import
lax, random``; with those three lines changed back it runs on JAX and prints the same numbers). Each
test loads a program fresh for a backend, runs its ``main()`` and checks the numbers against NumPy
alone: closed forms, the same algorithm written in NumPy, or central finite differences.
"""
import importlib.util
import itertools
import os
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
NUMBA = pytest.param("numba", marks=pytest.mark.numba)
_COUNTER = itertools.count()


def load(name, backend, monkeypatch):
    """The program ``name`` imported as a new module, its transforms on ``backend``."""
    monkeypatch.setenv("TRANSPYLE_BACKEND", backend)
    spec = importlib.util.spec_from_file_location(f"jax_port_{name}_{next(_COUNTER)}", HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def central_differences(f, x, eps=1e-6):
    """The gradient of the NumPy function ``f`` at the array ``x``."""
    x = np.array(x, dtype=float)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        g[i] = (f(up) - f(down)) / (2 * eps)
    return g


def assert_number(value, expected, rtol=1e-9, atol=1e-12):
    """A scalar result as JAX gives one: it has a shape and a dtype, and the expected value."""
    assert np.shape(value) == () and hasattr(value, "dtype") and hasattr(value, "item"), type(value)
    np.testing.assert_allclose(float(value), expected, rtol=rtol, atol=atol)


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


@pytest.mark.parametrize("backend", ["numpy", NUMBA])
def test_linear_regression(backend, monkeypatch):
    prog = load("linear_regression", backend, monkeypatch)
    out = prog.main()
    X, y = prog.X, prog.y
    w, b = np.zeros(3), 0.0
    for _ in range(300):
        r = X @ w + b - y
        w, b = w - 0.1 * 2 * X.T @ r / len(y), b - 0.1 * 2 * np.mean(r)
    np.testing.assert_allclose(out["w"], w, rtol=1e-10)
    assert_number(out["b"], b, rtol=1e-10)
    assert_number(out["loss"], np.mean((X @ w + b - y) ** 2), rtol=1e-8)
    exact = np.linalg.lstsq(np.c_[X, np.ones(len(y))], y, rcond=None)[0]
    np.testing.assert_allclose(np.r_[out["w"], out["b"]], exact, atol=1e-6)
    point = np.array([0.3, -0.1, 0.7])
    expected = central_differences(lambda v: np.mean((X @ v + 1.0 - y) ** 2), point)
    np.testing.assert_allclose(prog.jax.grad(prog.loss)(point, 1.0), expected, rtol=1e-6)


def _mlp_forward(params, images):
    activations = images
    for W, b in params[:-1]:
        activations = np.maximum(activations @ W.T + b, 0)
    W, b = params[-1]
    logits = activations @ W.T + b
    top = logits.max(axis=1, keepdims=True)
    return logits - top - np.log(np.exp(logits - top).sum(axis=1, keepdims=True))


def test_mlp_classifier(monkeypatch):
    prog = load("mlp_classifier", "numpy", monkeypatch)
    params = prog.init_network_params(prog.layer_sizes, prog.random.PRNGKey(0))
    assert [(W.shape, b.shape) for W, b in params] == [((8, 4), (8,)), ((3, 8), (3,))]

    def numpy_loss(ps):
        return -np.mean(_mlp_forward(ps, prog.images) * prog.targets)
    assert_number(prog.loss(params, prog.images, prog.targets), numpy_loss(params))
    grads = prog.jax.grad(prog.loss)(params, prog.images, prog.targets)
    for layer, (W, b) in enumerate(params):
        for which, leaf in ((0, W), (1, b)):
            def loss_of_leaf(v, layer=layer, which=which):
                ps = [list(p) for p in params]
                ps[layer][which] = v
                return numpy_loss(ps)
            np.testing.assert_allclose(grads[layer][which], central_differences(loss_of_leaf, leaf), atol=1e-8)
    stepped = prog.update(params, prog.images, prog.targets)
    np.testing.assert_allclose(stepped[0][0], params[0][0] - 0.5 * grads[0][0], rtol=1e-12)
    out = prog.main()
    assert out["loss"] < out["start"]
    assert_number(out["loss"], numpy_loss(out["params"]))
    expected_accuracy = np.mean(_mlp_forward(out["params"], prog.images).argmax(1) == prog.labels)
    assert_number(out["accuracy"], expected_accuracy)


@pytest.mark.parametrize("backend", ["numpy", NUMBA])
def test_per_example_gradients(backend, monkeypatch):
    prog = load("per_example_gradients", backend, monkeypatch)
    out = prog.main()
    X, y, w = prog.inputs, prog.targets, np.asarray(out["w"])
    expected = (sigmoid(X @ w) - y)[:, None] * X
    np.testing.assert_allclose(out["grads"], expected, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(out["total"], expected.mean(axis=0), rtol=1e-10, atol=1e-14)


def test_prng_keys(monkeypatch):
    prog = load("prng_keys", "numpy", monkeypatch)
    out = prog.main()
    a = np.asarray(out["a"])
    np.testing.assert_array_equal(a, out["again"])
    assert a.shape == (1000,) and abs(a.mean()) < 4 / np.sqrt(1000) and abs(a.std() - 1) < 0.1
    xs, ys = np.asarray(out["xs"]), np.asarray(out["ys"])
    assert 0 <= xs.min() and xs.max() < 1 and not np.array_equal(xs, ys)
    assert_number(out["pi"], 4 * np.mean(xs ** 2 + ys ** 2 <= 1.0))
    assert abs(float(out["pi"]) - np.pi) < 0.05
    assert abs(np.mean(out["coin"]) - 0.3) < 0.03
    assert sorted(np.asarray(out["order"]).tolist()) == list(range(10))
    np.testing.assert_array_equal(out["jitted"], out["eager"])


def test_adam_optimizer(monkeypatch):
    prog = load("adam_optimizer", "numpy", monkeypatch)
    out = prog.main()
    p = np.array([-1.5, 2.0])
    m, v = np.zeros(2), np.zeros(2)
    history = []
    for t in range(1, 2001):
        x, y = p
        g = np.array([-2 * (1 - x) - 400 * x * (y - x ** 2), 200 * (y - x ** 2)])
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g ** 2
        p = p - 0.02 * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
        if t % 500 == 0:
            history.append((1 - p[0]) ** 2 + 100 * (p[1] - p[0] ** 2) ** 2)
    np.testing.assert_allclose([out["params"]["x"], out["params"]["y"]], p, rtol=1e-8)
    np.testing.assert_allclose(out["history"], history, rtol=1e-6)
    assert abs(p[0] - 1) < 0.01


def test_control_flow(monkeypatch):
    prog = load("control_flow", "numpy", monkeypatch)
    out = prog.main()
    np.testing.assert_allclose(out["roots"], np.sqrt([2.0, 9.0, 0.25]), rtol=1e-12)
    np.testing.assert_allclose(out["branches"], [-np.sin(-1.0), 0.25], rtol=1e-15)
    np.testing.assert_allclose(out["picks"], [4.0, 6.0, 27.0])

    def logistic(x0, r=3.2):
        x = x0
        for _ in range(20):
            x = r * x * (1 - x)
        return x
    assert_number(out["slope"], central_differences(lambda r: logistic(0.3, r[0]), [3.2])[0], rtol=1e-5)
    c = np.asarray(out["coefficients"])
    assert_number(out["value"], np.polyval(c, 1.5))
    assert_number(out["dvalue"], np.polyval(np.polyder(c), 1.5))
    for piece in (prog.piecewise, prog.newton_sqrt):
        assert all(hasattr(r, "dtype") for r in (piece(2.0), piece(0.5)))


def test_model_class(monkeypatch):
    prog = load("model_class", "numpy", monkeypatch)
    out = prog.main()
    X, y, lam = prog.X, prog.y, prog.model.lam

    def gradient(w):
        return X.T @ (X @ w - y) / len(y) + lam * w
    np.testing.assert_allclose(out["g"], gradient(np.zeros(4)), rtol=1e-12)
    np.testing.assert_allclose(out["g_call"], out["g"], rtol=1e-14)
    assert_number(out["value"], 0.5 * np.mean(y ** 2))
    w = np.zeros(4)
    for _ in range(500):
        w = w - 0.2 * gradient(w)
    np.testing.assert_allclose(out["w"], w, rtol=1e-10)
    np.testing.assert_allclose(out["predictions"], X[:5] @ w, rtol=1e-10)
    prog.model.lam = 0.0           # the instance's numbers are read when the method is transformed anew
    np.testing.assert_allclose(prog.jax.grad(prog.model.loss)(w), X.T @ (X @ w - y) / len(y), atol=1e-12)


def test_closures(monkeypatch):
    prog = load("closures", "numpy", monkeypatch)
    out = prog.main()
    A, b, W, xs, w = prog.A, prog.b, prog.W, prog.xs, np.asarray(out["w"])
    np.testing.assert_allclose(out["g"], 2 * A.T @ (A @ w - b) / len(b), rtol=1e-12)
    assert_number(out["total"], np.tanh(xs @ W.T).sum())
    t = np.tanh(xs @ W.T)
    np.testing.assert_allclose(out["per_input"], (2 * t * (1 - t ** 2)) @ W, rtol=1e-10)
    np.testing.assert_allclose(out["g_lambda"], 0.5 * 2 * W.T @ W @ xs[0], rtol=1e-12)


def test_defaults_and_static(monkeypatch):
    prog = load("defaults_and_static", "numpy", monkeypatch)
    out = prog.main()
    w = np.asarray(out["w"])

    def loss(v, X=prog.X_train, y=prog.y_train, lam=0.01):
        return np.mean((X @ v - y) ** 2) + lam * np.sum(v ** 2)
    assert_number(out["train"], loss(w))
    assert_number(out["test"], loss(w, prog.X_test, prog.y_test))
    assert_number(out["no_reg"], loss(w, lam=0.0))
    np.testing.assert_allclose(out["grad_train"], central_differences(loss, w), rtol=1e-6)
    np.testing.assert_allclose(out["grad_test"], central_differences(
        lambda v: loss(v, prog.X_test, prog.y_test, 0.1), w), rtol=1e-6)
    z = prog.X_test[:3] @ w
    np.testing.assert_allclose(out["tanh"], np.tanh(z), rtol=1e-14)
    np.testing.assert_allclose(out["relu"], np.maximum(z, 0), rtol=1e-14)
    np.testing.assert_allclose(out["linear"], z, rtol=1e-14)
    assert out["float32"].dtype == np.float32
    assert_number(out["float32"], prog.X_test[0].astype(np.float32).sum(), rtol=1e-6)
    assert_number(out["float"], prog.X_test[0].sum())
    assert_number(out["none"], np.sum(w ** 2))
    np.testing.assert_allclose(out["shift"], 2 * (w - 1.0), rtol=1e-14)


def test_newton_logistic(monkeypatch):
    prog = load("newton_logistic", "numpy", monkeypatch)
    out = prog.main()
    X, t, lam = prog.X, prog.labels, prog.lam

    def gradient(w):
        return X.T @ (sigmoid(X @ w) - t) / len(t) + lam * w

    def hessian(w):
        p = sigmoid(X @ w)
        return X.T @ (X * (p * (1 - p))[:, None]) / len(t) + lam * np.eye(3)
    np.testing.assert_allclose(gradient(np.asarray(out["w"])), 0, atol=1e-10)
    np.testing.assert_allclose(out["H"], hessian(np.asarray(out["w"])), rtol=1e-10)
    point = np.array([0.1, -0.2, 0.3])
    rows = [central_differences(lambda v, i=i: (hessian(v) @ gradient(v))[i], point) for i in range(3)]
    np.testing.assert_allclose(out["energy_hessian"], np.array(rows), rtol=1e-5, atol=1e-9)


def test_functional_updates(monkeypatch):
    prog = load("functional_updates", "numpy", monkeypatch)
    out = prog.main()
    np.testing.assert_array_equal(out["A"], 2 * np.eye(5) - np.eye(5, k=1) - np.eye(5, k=-1))
    np.testing.assert_array_equal(out["counts"], np.bincount([0, 2, 2, 1, 4, 2, 0], minlength=5))
    x = np.array([3.0, -1.0, 7.0, 0.5])
    np.testing.assert_array_equal(out["x"], x)                       # never changed in place
    np.testing.assert_array_equal(out["capped"], [3.0, -1.0, 4.0, 0.5])
    np.testing.assert_array_equal(out["floored"], [3.0, 0.0, 7.0, 0.5])
    np.testing.assert_array_equal(out["scaled"], [6.0, -1.0, 7.0, 0.5])
    assert_number(out["second"], -1.0)
    grid = np.linspace(0.0, 1.0, 6)
    expected = grid.copy()
    expected[0] = expected[-1] = 0.0
    expected[1:-1] += 0.5 * (grid[:-2] + grid[2:])
    np.testing.assert_allclose(out["smoothed"], expected, rtol=1e-15)
    np.testing.assert_array_equal(out["bumped"], [3.0, -1.0, 21.0, 0.5])
    assert all(hasattr(out[k], "at") for k in ("A", "counts", "capped", "smoothed", "bumped"))


def test_jacobians(monkeypatch):
    prog = load("jacobians", "numpy", monkeypatch)
    out = prog.main()
    x0, x1, x2 = np.asarray(out["x"])
    J = np.array([[x1, x0, 0.0], [2 * x0, 0.0, np.cos(x2)], [0.0, np.exp(x1) * x2, np.exp(x1)]])
    v = np.asarray(out["v"])
    np.testing.assert_allclose(out["y"], [x0 * x1, np.sin(x2) + x0 ** 2, np.exp(x1) * x2], rtol=1e-14)
    for key, expected in (("jv", J @ v), ("lin", J @ v), ("vj", v @ J), ("J_fwd", J), ("J_rev", J)):
        np.testing.assert_allclose(out[key], expected, rtol=1e-12, atol=1e-15)
    x = np.array([x0, x1, x2])
    t = np.tanh(x)
    H = np.diag(2 * (1 - t ** 2) ** 2 - 4 * t ** 2 * (1 - t ** 2))
    H += np.array([[0, x2, x1], [x2, 0, x0], [x1, x0, 0]])
    np.testing.assert_allclose(out["H"], H, rtol=1e-12, atol=1e-15)


def _rnn_loss(params, xs, targets):
    Wh, Wx, Wo = params
    h = np.zeros(Wh.shape[0])
    outputs = []
    for x in xs:
        h = np.tanh(Wh @ h + Wx @ x)
        outputs.append(Wo @ h)
    return np.mean((np.array(outputs) - targets) ** 2)


def test_scan_rnn(monkeypatch):
    prog = load("scan_rnn", "numpy", monkeypatch)
    out = prog.main()
    assert_number(out["value"], _rnn_loss(prog.params, prog.xs, prog.targets))
    for k, leaf in enumerate(prog.params):
        def loss_of_leaf(v, k=k):
            ps = list(prog.params)
            ps[k] = v
            return _rnn_loss(ps, prog.xs, prog.targets)
        np.testing.assert_allclose(out["grads"][k], central_differences(loss_of_leaf, leaf), rtol=1e-6, atol=1e-9)
    assert_number(out["total"], 15.0)
    np.testing.assert_array_equal(out["partial"], np.cumsum(np.arange(1.0, 6.0)))


def test_stax_mlp(monkeypatch):
    prog = load("stax_mlp", "numpy", monkeypatch)
    out = prog.main()

    def numpy_loss(params):
        logits = np.tanh(prog.xs @ params["W1"].T + params["b1"]) @ params["W2"].T + params["b2"]
        log_probs = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
        return -np.mean(np.sum(log_probs * prog.ys, axis=1))
    assert_number(out["value"], numpy_loss(prog.params))
    for key, leaf in prog.params.items():
        expected = central_differences(lambda v, key=key: numpy_loss(dict(prog.params, **{key: v})), leaf)
        np.testing.assert_allclose(out["grads"][key], expected, rtol=1e-6, atol=1e-9)
        np.testing.assert_allclose(out["by_label"][key], out["grads"][key], rtol=1e-12, atol=1e-15)


def test_every_program_is_tested():
    programs = {p.stem for p in HERE.glob("*.py") if not p.stem.startswith("test_")}
    tested = {name[len("test_"):] for name in globals() if name.startswith("test_")}
    assert programs <= tested, programs - tested
    assert len(programs) >= 12


def test_programs_import_transpyle_as_jax():
    """The only lines that differ from the JAX programs are the imports."""
    for path in HERE.glob("*.py"):
        if path.stem.startswith("test_"):
            continue
        text = path.read_text()
        assert "import transpyle as jax\n" in text and "import transpyle.numpy as jnp\n" in text, path.name
        lines = [line for line in text.splitlines() if "transpyle" in line]
        assert all(line.startswith(("import transpyle", "from transpyle import")) for line in lines), path.name
        assert os.path.basename(path) == path.name
