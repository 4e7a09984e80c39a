"""A module as a new user writes it (loops with integer step counts, arrays used through ``.copy()``,
helpers), shown and compiled in every mode without kinds: the compiled module imports and its
derivatives match finite differences."""
import importlib.util
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import transpyle

ROOT = Path(__file__).resolve().parents[1]

MODEL = textwrap.dedent('''\
    import math

    import numpy as np


    def _accel(theta, g):
        return -g * np.sin(theta)


    def pendulum(u0, params):
        u = u0.copy()
        dt = params[0]
        for _ in range(50):
            th, om = u[0], u[1]
            u[0] = th + dt * om
            u[1] = om + dt * _accel(th, params[1])
        return u[0] ** 2 + u[1] ** 2


    def decay(x, rate, n):
        y = x.copy()
        for k in range(n):
            y = y - rate * y * y
        return np.sum(y)


    def smooth(signal, width):
        out = np.zeros(signal.shape[0] - width + 1)
        for i in range(out.shape[0]):
            acc = 0.0
            for j in range(width):
                acc += signal[i + j]
            out[i] = acc / width
        return np.sum(out * out)


    def logistic(w, X, y):
        r = 0.0
        for i in range(X.shape[0]):
            p = 1.0 / (1.0 + math.exp(-np.dot(X[i], w)))
            r -= y[i] * math.log(p) + (1 - y[i]) * math.log(1 - p)
        return r / X.shape[0]
    ''')

FUNCTIONS = ["pendulum", "decay", "smooth", "logistic"]
MODES = ["primal", "grad", "value_and_grad", "vjp", "jvp", "jacfwd", "jacrev", "hessian", "vmap"]
KINDS = {"pendulum": "u0: float64[:], params: float64[:]", "decay": "x: float64[:], rate: float64, n: int64",
         "smooth": "signal: float64[:], width: int64", "logistic": "w: float64[:], X: float64[:, :], y: float64[:]"}


def arguments(rng):
    return {
        "pendulum": (np.array([0.3, 0.1]), np.array([0.05, 9.8])),
        "decay": (rng.uniform(0.1, 0.5, 4), 0.1, 5),
        "smooth": (rng.normal(size=8), 3),
        "logistic": (rng.normal(size=3), rng.normal(size=(10, 3)), (rng.uniform(size=10) > 0.5).astype(float)),
    }


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    folder = tmp_path_factory.mktemp("new_user")
    (folder / "model.py").write_text(MODEL)
    return folder


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def compiled(folder, name, backend, functions=FUNCTIONS, modes=MODES):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    words = [sys.executable, "-m", "transpyle", "compile", "model.py", "--backend", backend, "-o", f"{name}.py"]
    words += [w for f in functions for w in ("--function", f)] + [w for m in modes for w in ("--mode", m)]
    result = subprocess.run(words, cwd=folder, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    return load(folder / f"{name}.py", name)


def finite_difference(f, args, i, eps=1e-6):
    x = np.asarray(args[i], dtype=float)
    g = np.zeros(x.shape)
    for idx in np.ndindex(x.shape):
        for sign in (1, -1):
            shifted = x.copy()
            shifted[idx] += sign * eps
            a = list(args)
            a[i] = shifted if x.shape else float(shifted)
            g[idx] += sign * f(*a) / (2 * eps)
    return g


def check_module(mod, user, rng, functions=FUNCTIONS):
    for name, args in arguments(rng).items():
        if name not in functions:
            continue
        f = getattr(user, name)
        floats = [i for i, a in enumerate(args) if isinstance(a, (float, np.ndarray))]
        fd = {i: finite_difference(f, args, i) for i in floats}
        np.testing.assert_allclose(getattr(mod, name)(*args), f(*args), rtol=1e-12)
        np.testing.assert_allclose(getattr(mod, f"{name}_grad")(*args), fd[0], atol=1e-5)
        value, grad = getattr(mod, f"{name}_value_and_grad")(*args)
        np.testing.assert_allclose(value, f(*args), rtol=1e-12)
        np.testing.assert_allclose(grad, fd[0], atol=1e-5)
        cts = getattr(mod, f"{name}_vjp")(*args, 1.0)
        for c, i in zip(cts if isinstance(cts, tuple) else (cts,), floats):      # one per float argument
            np.testing.assert_allclose(c, fd[i], atol=1e-5)
        tangents = [np.ones_like(args[i]) if isinstance(args[i], np.ndarray) else 1.0 for i in floats]
        _, tangent = getattr(mod, f"{name}_jvp")(*args, *tangents)
        np.testing.assert_allclose(tangent, sum(np.sum(fd[i] * t) for i, t in zip(floats, tangents)), atol=1e-4)
        np.testing.assert_allclose(getattr(mod, f"{name}_jacfwd")(*args), fd[0], atol=1e-5)
        np.testing.assert_allclose(getattr(mod, f"{name}_jacrev")(*args), fd[0], atol=1e-5)
        grad_of = getattr(mod, f"{name}_grad")
        hessian = np.stack([finite_difference(lambda x, *rest, k=k: grad_of(x, *rest).ravel()[k], args, 0)
                            for k in range(np.size(args[0]))]).reshape(np.shape(args[0]) * 2)
        np.testing.assert_allclose(getattr(mod, f"{name}_hessian")(*args), hessian, atol=1e-4)
        batched = tuple(np.stack([a, a]) if isinstance(a, np.ndarray) else np.array([a, a]) for a in args)
        np.testing.assert_allclose(getattr(mod, f"{name}_vmap")(*batched), [f(*args)] * 2, rtol=1e-12)


@pytest.mark.parametrize("mode", MODES + ["jit"])
@pytest.mark.parametrize("name", FUNCTIONS)
def test_show_without_kinds(model, name, mode):
    user = load(model / "model.py", "model")
    text = transpyle.show(getattr(user, name), mode=mode)
    assert text.splitlines()[0].startswith(f'"""Generated by transpyle {transpyle.__version__}: {mode} of {name} '
                                           f'from model.py:')
    assert KINDS[name] in text.splitlines()[0]
    compile(text, "<show>", "exec")


@pytest.mark.subprocess
def test_compiled_without_kinds_matches_finite_differences(model, rng):
    mod = compiled(model, "model_ad", "numpy")
    check_module(mod, load(model / "model.py", "model"), rng)


@pytest.mark.numba
@pytest.mark.subprocess
def test_compiled_for_numba_without_kinds(model, rng):
    mod = compiled(model, "model_nb", "numba", functions=["decay"])
    check_module(mod, load(model / "model.py", "model"), rng, functions=["decay"])


def test_the_python_transforms_agree(model, rng):
    user = load(model / "model.py", "model")
    args = arguments(rng)["pendulum"]
    fd = finite_difference(user.pendulum, args, 0)
    np.testing.assert_allclose(transpyle.grad(user.pendulum, backend="numpy")(*args), fd, atol=1e-5)
    assert math.isfinite(transpyle.jit(user.decay, backend="numpy")(*arguments(rng)["decay"]))
