"""Argument kinds without ``kinds=``: from annotations, else from how the body uses each argument
(indexing depth, ``.shape``, ``.copy()``, ``range(n)``, arithmetic with arrays, helpers), each
choice tried by the frontend; ambiguous or contradictory uses are errors naming the argument."""
import math

import numpy as np
import numpy.typing as npt
import pytest

import transpyle
from transpyle import random
from transpyle.api.argument_kinds import example_kinds, resolved_kinds as resolved, spelled_kinds
from transpyle.api.show import generate


def resolved_kinds(fun):
    return resolved(fun, generate)


def kinds_of(fun):
    return spelled_kinds(resolved_kinds(fun))


# ---- uses ----------------------------------------------------------------------------------------
def pendulum(u0, params):
    u = u0.copy()
    dt = params[0]
    for _ in range(100):
        th, om = u[0], u[1]
        u[0] = th + dt * om
        u[1] = om - dt * params[1] * np.sin(th)
    return u[0] ** 2 + u[1] ** 2


def steps(x, n):
    s = 0.0
    for i in range(n):
        s = s + np.sin(x * i)
    return s


def conv(signal, kernel):
    n, k = signal.shape[0], kernel.shape[0]
    out = np.zeros(n - k + 1)
    for i in range(n - k + 1):
        for j in range(k):
            out[i] += signal[i + j] * kernel[j]
    return out


def fit_loss(kernel, signal, target):
    r = conv(signal, kernel) - target          # a residual has the shape of the array it is taken from
    return np.sum(r * r)


def logreg(w, X, y):
    r = 0.0
    for i in range(X.shape[0]):
        p = 1.0 / (1.0 + math.exp(-np.dot(X[i], w)))
        r -= y[i] * math.log(p) + (1 - y[i]) * math.log(1 - p)
    return r / X.shape[0]


def rows(a, scale):
    n, m = a.shape
    total = 0.0
    for i in range(n):
        total += scale * np.sum(a[i] ** 2) / m
    return total


def descend(w0, x, lr, n):
    w = w0.copy()
    for _ in range(n):
        w = w - lr * (w - x)            # x is taken from an array: an array; lr multiplies one: a number
    return np.sum(w)


def net(params, x):
    s = 0.0
    for i in range(x.shape[0]):
        s += math.tanh(params["W"][i, 0] * x[i] + params["b"][i])
    return s


def keyed(key, w):
    return np.sum(w * random.normal(key, w.shape))


def calls_grad(w, x):
    g = transpyle.grad(logreg)(w, x, np.ones(x.shape[0]))
    return np.sum(g * g)


@pytest.mark.parametrize("fun, want", [
    (pendulum, "f8[:],f8[:]"), (steps, "f8,i8"), (conv, "f8[:],f8[:]"), (fit_loss, "f8[:],f8[:],f8[:]"),
    (logreg, "f8[:],f8[:, :],f8[:]"), (rows, "f8[:, :],f8"), (descend, "f8[:],f8[:],f8,i8"),
    (keyed, "i8[:],f8[:]"), (calls_grad, "f8[:],f8[:, :]"),
], ids=lambda v: getattr(v, "__name__", v))
def test_kinds_read_from_uses(fun, want):
    assert kinds_of(fun) == want


def test_a_dict_read_by_keys_gets_a_dict_of_kinds():
    (params, x), = [resolved_kinds(net)]
    assert {k: str(v) for k, v in params.items()} == {"W": "float64[:, :]", "b": "float64[:]"}
    assert str(x) == "float64[:]"


# ---- annotations -----------------------------------------------------------------------------------
F4_MATRIX = "f4[:, :]"          # transpyle's own spelling, as an annotation


def annotated(a: npt.NDArray[np.float64], n: int, t: float, b: F4_MATRIX):
    s = 0.0
    for i in range(n):
        s += a[i, 0] * t
    return s + np.sum(b)


def shaped(a: np.ndarray[tuple[int, int], np.dtype[np.float32]], v: np.ndarray):
    s = 0.0
    for i in range(v.shape[0]):
        s += v[i] * a[0, i]
    return s


def test_annotations_come_first():
    assert kinds_of(annotated) == "f8[:, :],i8,f8,f4[:, :]"      # NDArray's rank from the indexing
    assert kinds_of(shaped) == "f4[:, :],f8[:]"


# ---- ambiguous and contradictory uses --------------------------------------------------------------
def matmul_loss(w, x, y):
    r = x @ w - y
    return np.sum(r * r)


def number_and_array(x):
    return math.sin(x) + x[0]


def test_ambiguous_kinds_name_the_argument_and_the_choices():
    with pytest.raises(transpyle.TranspileError) as info:
        resolved_kinds(matmul_loss)
    text = str(info.value)
    assert "'w'" in text and "f8[:] or f8[:, :]" in text and "--kinds" in text and "--example" in text
    assert "test_argument_kinds.py" in text


def test_contradictory_uses_name_both_places():
    with pytest.raises(transpyle.TranspileError) as info:
        resolved_kinds(number_and_array)
    text = str(info.value)
    assert "'x'" in text and "math.sin(x)" in text and "x[0]" in text


def test_kinds_that_do_not_fit_say_which_were_read():
    def unsupported(x):
        return np.linalg.cond(x[0])
    with pytest.raises(transpyle.TranspileError, match=r"argument kinds read from the source: x: f8\[:\]"):
        resolved_kinds(unsupported)


# ---- show and examples -----------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["primal", "jit", "grad", "vjp", "jvp", "jacfwd", "jacrev", "hessian", "vmap"])
def test_show_reads_the_kinds_in_every_mode(mode):
    text = transpyle.show(pendulum, mode=mode)
    first = text.splitlines()[0]
    assert f": {mode} of pendulum from test_argument_kinds.py:" in first
    assert "u0: float64[:], params: float64[:]" in first      # vmap's: those of one example
    assert first.endswith("(per example). Edits are overwritten.\"\"\"") == (mode == "vmap")


def test_show_with_an_int_step_count():
    text = transpyle.show(steps, mode="grad")
    assert "n: int64" in text.splitlines()[0]
    compile(text, "<show>", "exec")


def test_kinds_of_an_example_call():
    kinds = example_kinds((np.ones(3), 5, {"W": np.ones((2, 3))}))
    assert spelled_kinds(kinds) == "f8[:],i8,{'W': 'f8[:, :]'}"
    with pytest.raises(transpyle.TranspileError, match="example argument 1"):
        example_kinds((np.ones(3), "text"))
