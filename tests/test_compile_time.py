"""Compile time: the gradients of shapes that once kept Numba compiling for minutes (a 3-D heat
stencil, a rank-4 softmax, 2-D fluid stencils) are right and compile in bounded time; the LLVM
level chosen for generated code; the guard that warns about a long compile and, with
backend="auto", answers with the NumPy backend until the compile is done."""
import time
import warnings

import numpy as np
import pytest

import transpyle
from transpyle.backends import compile_time
from transpyle.backends.compile_time import CompileTimeWarning, compile_guarded, opt_level_for

from gradcheck import check_grad, uniform


# ---- the shapes ---------------------------------------------------------------------------------
def heat3d(u0, alpha):
    u = u0.copy()
    for t in range(3):
        lap = (u[2:, 1:-1, 1:-1] + u[:-2, 1:-1, 1:-1] + u[1:-1, 2:, 1:-1] + u[1:-1, :-2, 1:-1]
               + u[1:-1, 1:-1, 2:] + u[1:-1, 1:-1, :-2] - 6.0 * u[1:-1, 1:-1, 1:-1])
        v = u.copy()
        v[1:-1, 1:-1, 1:-1] = u[1:-1, 1:-1, 1:-1] + alpha * lap
        u[1:-1, 1:-1, 1:-1] = v[1:-1, 1:-1, 1:-1]
    return np.sum(u ** 2)


def softmax4(x, w):
    m = np.max(x, axis=-1, keepdims=True)
    e = np.exp(x - m)
    s = np.sum(e, axis=-1, keepdims=True)
    return np.sum(e / s * w)


def channel(u0, p0, dt):
    """A 2-D channel flow: pressure Poisson sweeps, then a velocity update, with periodic walls."""
    u = u0.copy()
    p = p0.copy()
    for n in range(2):
        un = u.copy()
        b = np.zeros_like(p)
        b[1:-1, 1:-1] = (un[1:-1, 2:] - un[1:-1, :-2]) / dt - ((un[2:, 1:-1] - un[:-2, 1:-1]) * 0.5) ** 2
        for q in range(3):
            pn = p.copy()
            p[1:-1, 1:-1] = 0.25 * (pn[1:-1, 2:] + pn[1:-1, :-2] + pn[2:, 1:-1] + pn[:-2, 1:-1]) - 0.01 * b[1:-1, 1:-1]
            p[:, -1] = p[:, 1]
            p[:, 0] = p[:, -2]
            p[0, :] = p[1, :]
        u[1:-1, 1:-1] = (un[1:-1, 1:-1] - un[1:-1, 1:-1] * dt * (un[1:-1, 1:-1] - un[1:-1, :-2])
                         - dt * (p[1:-1, 2:] - p[1:-1, :-2]) + 0.1 * dt * (un[2:, 1:-1] - 2 * un[1:-1, 1:-1] + un[:-2, 1:-1]))
        u[0, :] = 0.0
        u[-1, :] = 0.0
    return np.sum(u ** 2) + np.sum(p * u)


def hdiff(f, coeff):
    lap = 4.0 * f[1:-1, 1:-1] - (f[2:, 1:-1] + f[:-2, 1:-1] + f[1:-1, 2:] + f[1:-1, :-2])
    flx = lap[1:, 1:-1] - lap[:-1, 1:-1]
    fly = lap[1:-1, 1:] - lap[1:-1, :-1]
    out = f[2:-2, 2:-2] - coeff * (flx[1:, :] - flx[:-1, :] + fly[:, 1:] - fly[:, :-1])
    return np.sum(out ** 2)


SHAPES = [
    ("heat3d", heat3d, lambda rng, n: (uniform(rng, (n, n, n)), 0.1), (0, 1)),
    ("softmax4", softmax4, lambda rng, n: (uniform(rng, (2, 3, n, n + 1)), uniform(rng, (2, 3, n, n + 1))), (0, 1)),
    ("channel", channel, lambda rng, n: (uniform(rng, (n, n + 1)), uniform(rng, (n, n + 1)), 0.05), (0, 1, 2)),
    ("hdiff", hdiff, lambda rng, n: (uniform(rng, (n + 2, n + 3)), 0.05), (0, 1)),
]


@pytest.mark.parametrize("name, f, make, argnums", SHAPES, ids=[s[0] for s in SHAPES])
@pytest.mark.parametrize("n", [4, 5])
def test_gradients_of_the_shapes_match_finite_differences(name, f, make, argnums, n):
    rng = np.random.default_rng(n)
    args = make(rng, n)
    for argnum in argnums:
        check_grad(f, args, argnums=argnum, backend="numpy", rtol=1e-5, atol=1e-7)


@pytest.mark.numba
def test_rank4_softmax_gradient_compiles_in_bounded_time(tmp_path, monkeypatch):
    # at Numba's default -O3 this gradient compiled for more than 300 s on two cores
    monkeypatch.setenv("TRANSPYLE_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("NUMBA_OPT", raising=False)
    monkeypatch.delenv("TRANSPYLE_NUMBA_OPT", raising=False)
    rng = np.random.default_rng(0)
    x, w = uniform(rng, (2, 3, 4, 5)), uniform(rng, (2, 3, 4, 5))
    start = time.perf_counter()
    got = transpyle.grad(softmax4, backend="numba")(x, w)
    assert time.perf_counter() - start < 90
    np.testing.assert_allclose(got, transpyle.grad(softmax4, backend="numpy")(x, w), rtol=1e-12, atol=1e-14)


# ---- the optimization level ---------------------------------------------------------------------
def _text(statements):
    return '"""header"""\nimport numpy as np\n\ndef f(x):\n' + "    # a comment\n    x = x + 1\n" * statements


def test_opt_level_is_2_for_short_code_and_0_for_long(monkeypatch):
    monkeypatch.delenv("NUMBA_OPT", raising=False)
    monkeypatch.delenv("TRANSPYLE_NUMBA_OPT", raising=False)
    assert opt_level_for(_text(10)) == 2
    assert opt_level_for(_text(compile_time.LONG_FUNCTION_STATEMENTS - 10)) == 2
    assert opt_level_for(_text(compile_time.LONG_FUNCTION_STATEMENTS + 10)) == 0


def test_opt_level_follows_the_users_settings(monkeypatch):
    monkeypatch.setenv("NUMBA_OPT", "3")
    monkeypatch.delenv("TRANSPYLE_NUMBA_OPT", raising=False)
    assert opt_level_for(_text(10)) is None              # Numba's own setting stays
    monkeypatch.setenv("TRANSPYLE_NUMBA_OPT", "1")
    assert opt_level_for(_text(10)) == 1
    assert opt_level_for(_text(1000)) == 1


def test_optimization_sets_and_restores_numbas_level():
    from numba.core import config
    before = config.OPT
    with compile_time.optimization(1):
        assert int(config.OPT) == 1
    assert config.OPT is before
    with compile_time.optimization(None):
        assert config.OPT is before


# ---- the guard ----------------------------------------------------------------------------------
WHERE = ("kernel", "/somewhere/kernels.py", 12)


def _slow(value, seconds=0.3):
    def compile_():
        time.sleep(seconds)
        return value
    return compile_


def test_a_long_compile_warns_with_the_function_and_its_place(monkeypatch):
    monkeypatch.setenv("TRANSPYLE_COMPILE_WARN", "0.01")
    with pytest.warns(CompileTimeWarning, match=r"'kernel' \(/somewhere/kernels.py:12\)") as record:
        assert compile_guarded(_slow("done"), WHERE) == "done"
    assert record[0].filename == "/somewhere/kernels.py" and record[0].lineno == 12


def test_a_short_compile_does_not_warn(monkeypatch):
    monkeypatch.setenv("TRANSPYLE_COMPILE_WARN", "30")
    with warnings.catch_warnings():
        warnings.simplefilter("error", CompileTimeWarning)
        assert compile_guarded(lambda: "done", WHERE) == "done"
        assert compile_guarded(lambda: "done", WHERE, fallback=lambda: "stand-in") == "done"


def test_a_failed_compile_raises_its_error(monkeypatch):
    monkeypatch.setenv("TRANSPYLE_COMPILE_WARN", "30")

    def failing():
        raise ValueError("no")
    with pytest.raises(ValueError, match="no"):
        compile_guarded(failing, WHERE, fallback=lambda: None)


def test_the_fallback_answers_until_the_compile_is_done(monkeypatch):
    monkeypatch.setenv("TRANSPYLE_COMPILE_WARN", "0.01")
    with pytest.warns(CompileTimeWarning, match="NumPy backend until it is done"):
        entry = compile_guarded(_slow(lambda x: ("compiled", x)), WHERE, fallback=lambda: lambda x: ("numpy", x))
    assert entry(1) == ("numpy", 1)
    assert entry.outcome.done.wait(10)
    assert entry(2) == ("compiled", 2)


def test_auto_is_a_backend_and_the_warning_threshold_reads_the_environment(monkeypatch):
    assert transpyle.grad(hdiff, backend="auto").backend_name == "auto"
    monkeypatch.setenv("TRANSPYLE_COMPILE_WARN", "2.5")
    assert compile_time.warn_seconds() == 2.5
    monkeypatch.setenv("TRANSPYLE_COMPILE_WARN", "soon")
    assert compile_time.warn_seconds() == compile_time.COMPILE_WARN_SECONDS


def _decay(x):
    return np.sum(np.exp(-x) * x)


@pytest.mark.numba
def test_numba_compile_past_the_threshold_warns_at_the_users_function(tmp_path, monkeypatch):
    monkeypatch.setenv("TRANSPYLE_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("TRANSPYLE_COMPILE_WARN", "0.01")
    x = np.linspace(0.1, 1.0, 4)
    with pytest.warns(CompileTimeWarning, match="'_decay'") as record:
        got = transpyle.grad(_decay, backend="numba")(x)
    assert record[0].filename == __file__ and record[0].lineno == _decay.__code__.co_firstlineno
    np.testing.assert_allclose(got, np.exp(-x) * (1 - x), rtol=1e-12)


def _growth(x):        # its own function: a module compiled in this process compiles at once
    return np.sum(np.exp(-x) * x)


@pytest.mark.numba
def test_auto_backend_answers_with_numpy_then_with_numba(tmp_path, monkeypatch):
    monkeypatch.setenv("TRANSPYLE_CACHE_DIR", str(tmp_path))
    # serial element loops: after the test above, a compile with a parallel copy (its own Numba
    # pipeline) left pytest's record of this warning empty, though the warning is issued (a script
    # running the two calls records it)
    monkeypatch.setenv("TRANSPYLE_PARALLEL_LOOPS", "0")
    monkeypatch.setenv("TRANSPYLE_COMPILE_WARN", "0.01")
    x = np.linspace(0.1, 1.0, 4)
    g = transpyle.grad(_growth, backend="auto")
    with pytest.warns(CompileTimeWarning, match="'_growth'.*NumPy backend until it is done"):
        first = g(x)
    np.testing.assert_allclose(first, np.exp(-x) * (1 - x), rtol=1e-12)
    entry = next(iter(g._compiled.values()))
    assert entry.outcome.done.wait(300)
    assert entry.outcome.error is None
    np.testing.assert_allclose(g(x), first, rtol=1e-12)


# ---- a long function: its element loops are functions of their own ------------------------------
def _long_stencil_module(folder, steps):
    lines = ["import numpy as np", "", "", "def long_stencil(u0, k):", "    u = u0.copy()"]
    for i in range(steps):
        lines.append(f"    u[1:-1] = u[1:-1] + k * {1.0 + 0.01 * i!r} * (u[2:] - 2.0 * u[1:-1] + u[:-2]) * u[1:-1]")
    lines.append("    return np.sum(u * u)")
    path = folder / "long_stencil_program.py"
    path.write_text("\n".join(lines) + "\n")
    import importlib.util
    spec = importlib.util.spec_from_file_location("long_stencil_program", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.long_stencil


def test_the_element_loops_of_a_long_function_are_functions_of_their_own(tmp_path, monkeypatch):
    monkeypatch.delenv("NUMBA_OPT", raising=False)
    monkeypatch.delenv("TRANSPYLE_NUMBA_OPT", raising=False)
    f = _long_stencil_module(tmp_path, 22)
    text = transpyle.show(f, args=(np.ones(8), 0.1))
    assert "_this_module = sys.modules[__name__]" in text
    assert "def long_stencil_grad_loops1(" in text and "_this_module.long_stencil_grad_loops1(" in text
    # statements that differ only in their names share a helper
    assert text.count("def long_stencil_grad_loops") < 12 < text.count("_this_module.long_stencil_grad_loops")
    assert opt_level_for(text) == 0 and compile_time.outlined_loops_level() == 2


@pytest.mark.numba
def test_a_long_function_with_outlined_loops_is_right_and_cached(tmp_path):
    import warnings
    f = _long_stencil_module(tmp_path, 22)
    rng = np.random.default_rng(4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        g = transpyle.grad(f, argnums=(0, 1), backend="numba")
        for n in (6, 9):
            args = (rng.uniform(-0.5, 0.5, n), 0.05)
            got = g(*args)
            want = transpyle.grad(f, argnums=(0, 1), backend="numpy")(*args)
            np.testing.assert_allclose(got[0], want[0], rtol=1e-10, atol=1e-12)
            np.testing.assert_allclose(got[1], want[1], rtol=1e-10)
            check_grad(f, args, argnums=(0, 1), backend="numba")
    # code at -O0 that called global functions held their addresses, which Numba does not cache
    assert not [w for w in caught if "Cannot cache" in str(w.message)]


def test_a_compiled_module_calls_its_outlined_loops_through_itself(tmp_path):
    f = _long_stencil_module(tmp_path, 22)
    for backend in ("numpy", "numba"):
        text = transpyle.compile_module(tmp_path / "long_stencil_program.py", ["long_stencil"], modes=["grad"],
                                        kinds=["f8[:]", "f8"], backend=backend)
        assert "_this_module = sys.modules[__name__]" in text and "import sys" in text
        assert "def long_stencil_grad_loops1(" in text and "_this_module.long_stencil_grad_loops1(" in text
    # the numpy module runs as written: the helpers are found through the module
    numpy_text = transpyle.compile_module(tmp_path / "long_stencil_program.py", ["long_stencil"],
                                          modes=["grad"], kinds=["f8[:]", "f8"], backend="numpy")
    (tmp_path / "long_stencil_ad.py").write_text(numpy_text)
    import importlib.util
    spec = importlib.util.spec_from_file_location("long_stencil_ad", tmp_path / "long_stencil_ad.py")
    module = importlib.util.module_from_spec(spec)
    import sys
    sys.modules["long_stencil_ad"] = module
    try:
        spec.loader.exec_module(module)
        u = np.linspace(-0.4, 0.4, 7)
        public = module.__all__[0]
        np.testing.assert_allclose(getattr(module, public)(u, 0.05),
                                   transpyle.grad(f, backend="numpy")(u, 0.05), rtol=1e-12)
    finally:
        del sys.modules["long_stencil_ad"]
