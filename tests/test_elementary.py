"""The vectorizable exp and tanh of the runtime (``runtime.elementary``): accuracy against NumPy over the
float64 range and at the special values, in compiled code and eagerly; element loops call them, and the
gradients that do match finite differences on both backends; a compiled module carries them."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import transpyle
from transpyle import runtime as rt

from gradcheck import numerical_grad

ROOT = Path(__file__).resolve().parents[1]
SPECIAL = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 5e-324, -5e-324, 1e-310, 1e-300, -1e-300,
                    0.5, -0.5, 0.34657359027997264, 0.1732867951399863, 709.78, 709.79, 710.0, -708.39, -708.4,
                    -745.1, -745.2, -746.0, 21.9, 22.0, 22.1, -22.1, 1e308, -1e308, 40.0, -40.0])
BOUND_ULP = {"exp": 1.0, "tanh": 3.0}


def _loop_of(name):
    numba = pytest.importorskip("numba")
    form = getattr(rt, name)

    @numba.njit(error_model="numpy")
    def apply(x, out):
        for i in range(x.shape[0]):
            out[i] = form(x[i])
    return apply


def _ulps(got, want):
    with np.errstate(all="ignore"):
        return np.where(got == want, 0.0, np.abs(got - want) / np.spacing(np.maximum(np.abs(want), 5e-324)))


@pytest.mark.numba
@pytest.mark.parametrize("name", ["exp", "tanh"])
@pytest.mark.parametrize("scale", [1e-200, 1e-8, 1e-3, 0.2, 0.35, 1.0, 3.0, 20.0, 100.0, 700.0, 745.0])
def test_compiled_forms_are_within_their_ulps(name, scale):
    x = np.random.default_rng(int(scale * 1000) % 2 ** 32).uniform(-scale, scale, 20000)
    out = np.empty_like(x)
    _loop_of(name)(x, out)
    with np.errstate(all="ignore"):
        want = getattr(np, name)(x)
    assert np.max(_ulps(out, want)) <= BOUND_ULP[name]


@pytest.mark.numba
@pytest.mark.parametrize("name", ["exp", "tanh"])
def test_special_values_are_numpys(name):
    out = np.empty_like(SPECIAL)
    _loop_of(name)(SPECIAL, out)
    with np.errstate(all="ignore"):
        want = getattr(np, name)(SPECIAL)
    assert np.array_equal(np.isnan(out), np.isnan(want))
    finite = ~np.isnan(want)
    assert np.all(_ulps(out[finite], want[finite]) <= BOUND_ULP[name])
    assert np.array_equal(np.signbit(out[finite]), np.signbit(want[finite]))     # -0.0 stays -0.0


@pytest.mark.numba
def test_other_types_take_numpys_functions():
    numba = pytest.importorskip("numba")

    @numba.njit
    def both(x, i, z):
        return rt.exp(x), rt.tanh(x), rt.exp(i), rt.exp(z), rt.tanh(np.ones(2))

    f32, i, z = np.float32(0.5), 3, 1j
    got = both(f32, i, z)
    np.testing.assert_allclose(got[:2], (np.exp(f32), np.tanh(f32)), rtol=3e-7)      # float32's own functions
    assert abs(got[2] - np.exp(3.0)) <= np.spacing(np.exp(3.0)) and got[3] == np.exp(z)
    np.testing.assert_allclose(got[4], np.tanh(np.ones(2)), rtol=1e-15)


def test_eager_forms_are_numpys():
    x = np.linspace(-3, 3, 7)
    assert np.array_equal(rt.exp(x), np.exp(x)) and np.array_equal(rt.tanh(x), np.tanh(x))
    assert rt.exp(0.5) == np.exp(0.5)


def softmax(x, w):
    m = np.max(x, axis=-1, keepdims=True)
    e = np.exp(x - m)
    s = e / np.sum(e, axis=-1, keepdims=True)
    return np.sum(s * w)


def layer(w, x):
    h = np.tanh(x @ w)
    return np.sum(h * h) + np.sum(np.exp(-h))


def sigmoid_loss(w, x, y):
    z = x @ w
    p = 1.0 / (1.0 + np.exp(-z))
    return np.mean((p - y) ** 2) + np.sum(np.tanh(w) ** 2)


CASES = {
    "softmax": (softmax, lambda r, n: (r.normal(size=(n, n + 3)) * 10, r.normal(size=(n, n + 3)))),
    "layer": (layer, lambda r, n: (r.normal(size=(n + 1, n)), r.normal(size=(n + 2, n + 1)))),
    "sigmoid_loss": (sigmoid_loss, lambda r, n: (r.normal(size=n), r.normal(size=(n + 4, n)), r.normal(size=n + 4))),
}


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=pytest.mark.numba)])
@pytest.mark.parametrize("case", sorted(CASES))
def test_gradients_through_the_forms_match_finite_differences(case, backend):
    fun, make = CASES[case]
    for n in (1, 3, 6):
        args = make(np.random.default_rng(n), n)
        got = transpyle.grad(fun, backend=backend)(*args)
        want, noise = numerical_grad(fun, args, 0)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7 + 10 * np.max(noise))


def test_element_loops_call_the_forms():
    text = transpyle.show(softmax, mode="grad", kinds=("f8[:, :]", "f8[:, :]"))
    assert "rt.exp(x[_e0, _e1] - m[_e0, 0])" in text
    text = transpyle.show(layer, mode="grad", kinds=("f8[:, :]", "f8[:, :]"))
    assert "rt.tanh(_t1[_e0, _e1])" in text


MODEL = textwrap.dedent('''\
    import numpy as np


    def layer(w, x):
        h = np.tanh(x @ w)
        return np.sum(h * h) + np.sum(np.exp(-h))
    ''')

USE = textwrap.dedent('''\
    import sys
    sys.modules["transpyle"] = None
    import numpy as np
    mod = __import__("layer_ad")
    w, x = np.linspace(-1, 1, 12).reshape(4, 3), np.linspace(0, 2, 20).reshape(5, 4)
    print(repr(mod.layer_grad(w, x).tolist()))
    ''')


@pytest.mark.subprocess
@pytest.mark.numba
def test_a_compiled_module_carries_the_forms(tmp_path):
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "use.py").write_text(USE)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    made = subprocess.run([sys.executable, "-m", "transpyle", "compile", "model.py", "--function", "layer",
                           "--mode", "grad", "--kinds", "f8[:,:],f8[:,:]", "--backend", "numba", "-o", "layer_ad.py"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert made.returncode == 0, made.stderr
    assert "def tanh(" in (tmp_path / "layer_ad.py").read_text()
    run = subprocess.run([sys.executable, "use.py"], cwd=tmp_path, env=dict(os.environ, PYTHONPATH=""),
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    w, x = np.linspace(-1, 1, 12).reshape(4, 3), np.linspace(0, 2, 20).reshape(5, 4)
    np.testing.assert_allclose(eval(run.stdout), transpyle.grad(layer, backend="numpy")(w, x), rtol=1e-13)
