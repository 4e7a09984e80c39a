"""Element loops run on every core (transforms/parallel_loops): which nests get a parallel copy, that the
copy computes what the serial nest does (on arrays above and below the size where it runs), and that code
another transform runs in its own parallel loop, or code that calls BLAS, starts no threads of its own.

The suite runs with TRANSPYLE_PARALLEL_ELEMENTS=1 (conftest): every numba test takes the parallel copies."""
import os
import re

import gast
import numpy as np
import pytest

import transpyle
from transpyle.backends.blas_threads import threads_blas
from transpyle.transforms import parallel_loops
from tests.gradcheck import check_grad

pytestmark = pytest.mark.numba


# ---- functions ----------------------------------------------------------------------------------------
def stencil(u0, k, steps):
    u = u0.copy()
    inner = u[1:-1]
    for t in range(steps):
        inner += k * np.tanh(u[:-2] - 2.0 * u[1:-1] + u[2:])
    return np.sum(u * u)


def plain_stencil(u0, k, steps):
    u = u0.copy()
    inner = u[1:-1]
    for t in range(steps):
        inner += k * (u[:-2] - 2.0 * u[1:-1] + u[2:])
    return np.sum(u * u)


def softmax(x, w):
    m = np.max(x, axis=-1, keepdims=True)
    e = np.exp(x - m)
    s = e / np.sum(e, axis=-1, keepdims=True)
    return np.sum(s * w)


def columns(x, w):
    c = np.sum(x * w, axis=0)          # a sum along the outer axis: its nest stays serial
    return np.sum(np.tanh(c) * c) + np.sum(np.sin(x) * x)


def grid(a0, steps):
    a = a0.copy()
    b = a0.copy()
    for t in range(steps):
        b[1:-1, 1:-1] = np.sin(a[1:-1, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:] + a[2:, 1:-1] + a[:-2, 1:-1])
        a[1:-1, 1:-1] = 0.2 * (b[1:-1, 1:-1] + b[1:-1, :-2] + b[1:-1, 2:] + b[2:, 1:-1] + b[:-2, 1:-1])
    return np.sum(a * a) + np.sum(np.cos(b))


def shifted(x):
    y = x.copy()
    y[:-1] = np.exp(y[1:]) * 0.5 + y[:-1]     # reads memory the loop writes at another element
    return np.sum(y * y)


def matvec(a, x):
    y = np.tanh(a @ x)
    return np.sum(y * y) + np.sum(a * a)


# ---- the code ---------------------------------------------------------------------------------------
def test_a_nest_gets_a_parallel_copy_called_when_it_pays():
    text = transpyle.show(softmax, args=(np.ones((3, 4)), np.ones((3, 4))))
    helpers = re.findall(r"def (softmax_grad_parallel\d+)\(", text)
    assert helpers
    for h in helpers:
        assert re.search(rf"def {h}\(.*\):\n    for _e0 in numba\.prange\(", text)
        assert re.search(rf"if rt\.parallel_pays\(.*\):\n\s+_this_module\.{h}\(", text)
    body = text.split("def softmax_grad(")[1]
    assert "numba.prange" not in body          # the function itself has no parallel loop
    assert "else:\n" in body                   # the serial nest serves small arrays


def test_a_few_additions_per_element_stay_serial():
    text = transpyle.show(plain_stencil, args=(np.ones(10), 0.1, 3))
    assert "prange" not in text and "parallel_pays" not in text
    heavy = transpyle.show(stencil, args=(np.ones(10), 0.1, 3))
    assert "prange" in heavy


@pytest.mark.parametrize("text, work", [
    ("for _e0 in range(n):\n    o[_e0] = a[_e0] + 2.0 * b[_e0]", 2),
    ("for _e0 in range(n):\n    o[_e0] = math.exp(a[_e0])", 16),
    ("for _e0 in range(n):\n    o[_e0] = a[_e0] ** 2 + abs(b[_e0])", 3),
    ("for _e0 in range(n):\n    o[_e0] = a[_e0] ** 0.5", 16),
])
def test_work_per_element(text, work):
    assert parallel_loops.work_per_element(_nest(text)) == work


def test_switched_off_no_nest_is_parallel(monkeypatch):
    monkeypatch.setenv("TRANSPYLE_PARALLEL_LOOPS", "0")
    text = transpyle.show(softmax, args=(np.ones((3, 4)), np.ones((3, 4))))
    assert "prange" not in text and "parallel_pays" not in text


def test_the_threshold_is_written_into_the_code(monkeypatch):
    monkeypatch.setenv("TRANSPYLE_PARALLEL_ELEMENTS", "5000")
    text = transpyle.show(softmax, args=(np.ones((3, 4)), np.ones((3, 4))))
    assert re.search(r"rt\.parallel_pays\(.*, 5000\)", text)
    monkeypatch.delenv("TRANSPYLE_PARALLEL_ELEMENTS")
    assert parallel_loops.fewest() == parallel_loops.PARALLEL_ELEMENTS


def test_code_that_calls_blas_keeps_its_loops_serial():
    text = transpyle.show(matvec, args=(np.ones((3, 4)), np.ones(4)))
    assert "prange" not in text


@pytest.mark.parametrize("mode", ["vmap", "jacrev", "jacfwd"])
def test_code_run_inside_a_drivers_parallel_loop_has_none(mode):
    x = np.ones((3, 4))
    f = {"vmap": lambda: transpyle.vmap(transpyle.grad(softmax)),
         "jacrev": lambda: transpyle.jacrev(softmax), "jacfwd": lambda: transpyle.jacfwd(softmax)}[mode]()
    args = (np.ones((2, 3, 4)), np.ones((2, 3, 4))) if mode == "vmap" else (x, x)
    text = transpyle.show(f, args=args)
    assert not re.search(r"_parallel\d+\(", text) and "parallel_pays" not in text


def test_driver_loops_and_element_loops_are_told_apart_for_blas():
    assert threads_blas("for b in numba.prange(n):\n    y[b] = f(a @ x)")
    assert not threads_blas("def f_parallel1(a):\n    for _e0 in numba.prange(n):\n        a[_e0] = 1.0\n"
                            "def f(a):\n    return a @ a")


# ---- the proof on nests -------------------------------------------------------------------------------
def _nest(text):
    return gast.parse(text).body[0]


def _independent(text, elsewhere=()):
    from collections import Counter
    nest = _nest(text)
    mentions = Counter(n.id for n in gast.walk(nest) if isinstance(n, gast.Name))
    mentions.update(elsewhere)
    return parallel_loops._independent_iterations(nest, mentions)


@pytest.mark.parametrize("text", [
    "for _e0 in range(n):\n    for _e1 in range(m):\n        o[_e0, _e1] = a[_e0, _e1] * math.exp(b[_e1])",
    "for _e0 in range(n):\n    o[_e0] += a[_e0]\n    o[_e0] *= 2.0",
    "for _e0 in range(n):\n    _r1 = 0.0\n    for _e1 in range(m):\n        _r1 += a[_e0, _e1]\n    o[_e0, 0] = _r1",
    "for _e0 in range(n):\n    _s1 = a[_e0] * 2.0\n    o[_e0] = _s1 + np.sin(_s1)",
    "for _e0 in range(o.shape[0]):\n    for _e1 in range(o.shape[1]):\n        o[_e1, _e0] = a[_e0, _e1]",
])
def test_nests_whose_iterations_are_independent(text):
    assert _independent(text)


@pytest.mark.parametrize("text, why", [
    ("for _e0 in range(n):\n    for _e1 in range(m):\n        o[0, _e1] += a[_e0, _e1]", "a sum along the outer axis"),
    ("for _e0 in range(n):\n    s += a[_e0]", "a running total"),
    ("for _e0 in range(n):\n    o[_e0] = o[_e0 + 1] * 2.0", "another element of what it writes"),
    ("for _e0 in range(n):\n    o[_e0] = a[_e0]\n    o[_e0 + 1] = a[_e0]", "two elements written"),
    ("for _e0 in range(n):\n    o[_e0] = f(a[_e0])", "a call of an unknown function"),
    ("for _e0 in range(n):\n    o[_e0] = rt.tape_pop(t)", "a tape"),
    ("for _e0 in range(n):\n    if a[_e0] > 0:\n        o[_e0] = 1.0", "a branch"),
    ("for _e0 in range(n):\n    o[_e0] = _s1\n    _s1 = a[_e0]", "a name read before it is set"),
    ("for _e0 in range(n):\n    g(o)\n    o[_e0] = 1.0", "the written array passed whole"),
])
def test_nests_that_stay_serial(text, why):
    assert not _independent(text), why


def test_a_name_the_function_reads_after_the_nest_keeps_it_serial():
    text = "for _e0 in range(n):\n    _s1 = a[_e0]\n    o[_e0] = _s1"
    assert _independent(text)
    assert not _independent(text, elsewhere=["_s1"])


# ---- values ----------------------------------------------------------------------------------------
def _both_ways(monkeypatch, fun, args, argnums=0):
    """The gradient with every nest's parallel copy running, and with no parallel copy at all."""
    monkeypatch.setenv("TRANSPYLE_PARALLEL_ELEMENTS", "1")
    on = transpyle.grad(fun, argnums=argnums, backend="numba")(*args)
    monkeypatch.setenv("TRANSPYLE_PARALLEL_LOOPS", "0")
    off = transpyle.grad(fun, argnums=argnums, backend="numba")(*args)
    return on, off


@pytest.mark.parametrize("fun, make", [
    (stencil, lambda r, n: (r.normal(size=n * 50), 0.2, 3)),
    (softmax, lambda r, n: (r.normal(size=(n, 17)), r.normal(size=(n, 17)))),
    (columns, lambda r, n: (r.normal(size=(n, 9)), r.normal(size=9))),
    (grid, lambda r, n: (r.normal(size=(n, n + 3)), 2)),
    (shifted, lambda r, n: (r.normal(size=n * 30),)),
])
@pytest.mark.parametrize("n", [3, 40])
def test_parallel_and_serial_give_the_same_gradient(monkeypatch, fun, make, n):
    args = make(np.random.default_rng(n), n)
    on, off = _both_ways(monkeypatch, fun, args)
    np.testing.assert_allclose(on, off, rtol=1e-12, atol=1e-12)
    check_grad(fun, args, argnums=0, backend="numba")


def test_above_the_default_threshold_the_parallel_copy_answers(monkeypatch):
    monkeypatch.delenv("TRANSPYLE_PARALLEL_ELEMENTS", raising=False)
    r = np.random.default_rng(5)
    x, w = r.normal(size=(200, 300)), r.normal(size=(200, 300))      # 60000 elements: over 16384
    g = transpyle.grad(softmax, backend="numba")(x, w)
    ref = transpyle.grad(softmax, backend="numpy")(x, w)
    np.testing.assert_allclose(g, ref, rtol=1e-10, atol=1e-12)


def test_primal_and_jvp_too():
    r = np.random.default_rng(2)
    x, w = r.normal(size=(30, 20)), r.normal(size=(30, 20))
    assert "_parallel" in transpyle.show(transpyle.jit(softmax), args=(x, w))
    np.testing.assert_allclose(transpyle.jit(softmax)(x, w), softmax(x, w), rtol=1e-12)
    t = r.normal(size=x.shape)
    _, tangent = transpyle.jvp(softmax, (x, w), (t, np.zeros_like(w)))
    eps = 1e-6
    fd = (softmax(x + eps * t, w) - softmax(x - eps * t, w)) / (2 * eps)
    np.testing.assert_allclose(tangent, fd, rtol=1e-6, atol=1e-8)


def test_environment_of_the_suite_takes_the_parallel_copies():
    assert os.environ.get("TRANSPYLE_PARALLEL_ELEMENTS") == "1"


def test_a_compiled_module_runs_its_parallel_copies_without_transpyle(tmp_path):
    import importlib.util
    import sys
    (tmp_path / "softmax_program.py").write_text(
        "import numpy as np\n\n\ndef softmax(x, w):\n    m = np.max(x, axis=-1, keepdims=True)\n"
        "    e = np.exp(x - m)\n    s = e / np.sum(e, axis=-1, keepdims=True)\n    return np.sum(s * w)\n")
    text = transpyle.compile_module(tmp_path / "softmax_program.py", ["softmax"], modes=["grad"],
                                    kinds=["f8[:, :]", "f8[:, :]"], backend="numba")
    helper = re.search(r"def (softmax_grad_parallel\d+)\(", text).group(1)
    assert re.search(rf"parallel=PRANGE_ONLY\)\ndef {helper}\(", text)
    assert not re.search(r"parallel=PRANGE_ONLY\)\ndef softmax_grad\(", text)
    (tmp_path / "softmax_ad.py").write_text(text)
    spec = importlib.util.spec_from_file_location("softmax_ad", tmp_path / "softmax_ad.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["softmax_ad"] = module
    try:
        spec.loader.exec_module(module)
        r = np.random.default_rng(3)
        x, w = r.normal(size=(6, 5)), r.normal(size=(6, 5))
        np.testing.assert_allclose(getattr(module, module.__all__[0])(x, w),
                                   transpyle.grad(softmax, backend="numpy")(x, w), rtol=1e-12)
    finally:
        del sys.modules["softmax_ad"]
