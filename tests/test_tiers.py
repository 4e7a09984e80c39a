"""Tiered first calls (backends/tiers.py): the NumPy backend answers the first call, Numba compiles at
the second and answers from then on. The switch is checked for being exact (same answers across
transforms), for bounding a long NumPy run, for errors of either backend, and for what is not tiered."""
import threading
import time
import types
import warnings

import numpy as np
import pytest

import transpyle
from transpyle.backends import tiers
from transpyle.backends.compile_time import CompileTimeWarning

from gradcheck import uniform


def _module(text):
    module = types.ModuleType("tier_test")
    exec(compile(text, "<tier test>", "exec"), module.__dict__)
    return module


# ---- loop checks --------------------------------------------------------------------------------
LOOPS = '''def f(x, n):
    # a.py:2: s = 0
    s = 0.0
    # a.py:3: for i in range(n):
    for i in range(n):
        # a.py:4: s += x
        s = s + x
        k = 0
        while k < 2:
            k = k + 1
    return s
'''


def test_loop_checks_open_every_loop_body_and_keep_the_source_comments():
    text, stoppable = tiers.with_loop_checks(LOOPS)
    assert stoppable
    lines = text.splitlines()
    assert lines.count("        _tier_check()") == 1 and lines.count("            _tier_check()") == 1
    assert lines[lines.index("    for i in range(n):") + 1:][:2] == ["        # a.py:4: s += x", "        _tier_check()"]
    assert lines[lines.index("        while k < 2:") + 1] == "            _tier_check()"
    assert [line for line in lines if "_tier_check" not in line] == LOOPS.splitlines()
    calls = []
    module = _module(text)
    module._tier_check = lambda: calls.append(1)
    assert module.f(1.5, 3) == 4.5 and len(calls) == 3 + 3 * 2


def test_code_without_loops_is_not_stoppable():
    text = "def f(x):\n    return x + 1\n"
    assert tiers.with_loop_checks(text) == (text, False)


# ---- the switch ---------------------------------------------------------------------------------
def _stand_in(text, fname="f"):
    def make():
        checked, stoppable = tiers.with_loop_checks(text)
        return _module(checked), fname, stoppable
    return make


def _slow(value, seconds=0.3):
    def compile_():
        time.sleep(seconds)
        if isinstance(value, Exception):
            raise value
        return value
    return compile_


def test_calls_are_answered_by_the_stand_in_until_the_compile_is_done():
    tier = tiers.Tiered(_slow(lambda x: ("numba", x)), _stand_in("def f(x):\n    return ('numpy', x)\n"), "f")
    assert tier(1) == ("numpy", 1)
    assert tier(2) == ("numpy", 2)
    assert transpyle.wait_compiled(10)
    assert tier(3) == ("numba", 3)
    assert tier.run(4) == ("numba", 4)          # the compiled function itself, no wrapper left


def test_a_long_numpy_run_stops_when_the_compile_is_done():
    endless = "def f(x):\n    while True:\n        x = x + 1\n"
    tier = tiers.Tiered(_slow(lambda x: ("numba", x), 0.2), _stand_in(endless), "f")
    start = time.perf_counter()
    assert tier(np.zeros(2))[0] == "numba"
    assert time.perf_counter() - start < 20


def test_the_numpy_backend_answers_for_a_bounded_time_in_all(monkeypatch):
    monkeypatch.setenv("TRANSPYLE_TIER_SECONDS", "0.25")
    sleepy = "import time\n\ndef f(x):\n    time.sleep(0.15)\n    return ('numpy', x)\n"
    tier = tiers.Tiered(_slow(lambda x: ("numba", x), 2.0), _stand_in(sleepy), "f")
    assert tier(1) == ("numpy", 1)
    assert tier(2) == ("numpy", 2)
    assert tier(3) == ("numba", 3)              # 0.3 s spent: this call waits for the compile


def test_a_stoppable_run_works_on_copies_of_the_arrays():
    writes = "def f(x):\n    for i in range(x.shape[0]):\n        x[i] = 7.0\n    return x.sum()\n"
    tier = tiers.Tiered(_slow(lambda x: float(x.sum())), _stand_in(writes), "f")
    x = np.zeros(3)
    assert tier(x) == 21.0
    assert np.all(x == 0.0)


def test_an_error_of_the_numpy_run_leaves_the_answer_to_the_compiled_code():
    failing = "def f(x):\n    raise ValueError('numpy backend only')\n"
    tier = tiers.Tiered(_slow(lambda x: ("numba", x)), _stand_in(failing), "f")
    assert tier(1) == ("numba", 1)


def test_a_failed_compile_leaves_the_numpy_backend_answering_with_one_warning():
    looping = "def f(x):\n    s = 0\n    for i in range(3):\n        s = s + x\n    return s\n"
    tier = tiers.Tiered(_slow(RuntimeError("cannot compile")), _stand_in(looping), "grad of 'f'",
                        ("/somewhere/f.py", 7))
    assert tier(5) == 15
    assert transpyle.wait_compiled(10)
    with pytest.warns(CompileTimeWarning, match="Numba could not compile grad of 'f'.*cannot compile") as record:
        assert tier(6) == 18
    assert record[0].filename == "/somewhere/f.py" and record[0].lineno == 7
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert tier(7) == 21


def test_a_failed_compile_with_no_numpy_answer_raises_its_error():
    failing = "def f(x):\n    raise ValueError('numpy backend only')\n"
    tier = tiers.Tiered(_slow(RuntimeError("cannot compile")), _stand_in(failing), "f")
    with pytest.raises(RuntimeError, match="cannot compile"):
        tier(5)


def test_a_long_compile_prints_one_line_and_can_be_silenced(monkeypatch, capsys):
    monkeypatch.setenv("TRANSPYLE_COMPILE_NOTICE", "0.05")
    tier = tiers.Tiered(_slow(lambda: "done", 0.5), _stand_in("def f():\n    return 'numpy'\n"),
                        "grad of 'loss' (a.py:3)")
    tier.compiled()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "grad of 'loss' (a.py:3)" in err and "TRANSPYLE_COMPILE_NOTICE=0" in err
    monkeypatch.setenv("TRANSPYLE_COMPILE_NOTICE", "0")
    assert tiers.notice_seconds() is None
    tier = tiers.Tiered(_slow(lambda: "done", 0.3), _stand_in("def f():\n    return 'numpy'\n"), "g")
    tier.compiled()
    assert capsys.readouterr().err == ""


def test_the_switches_read_the_environment(monkeypatch):
    monkeypatch.setenv("TRANSPYLE_TIERED", "0")
    assert not tiers.tiered()
    monkeypatch.setenv("TRANSPYLE_TIERED", "off")
    assert not tiers.tiered()
    monkeypatch.delenv("TRANSPYLE_TIERED")
    assert tiers.tiered()
    monkeypatch.setenv("TRANSPYLE_COMPILE_NOTICE", "soon")
    assert tiers.notice_seconds() == tiers.NOTICE_SECONDS
    monkeypatch.setenv("TRANSPYLE_TIER_SECONDS", "0.5")
    assert tiers.stand_in_seconds() == 0.5


# ---- the compile thread leaves the caller's warnings alone ----------------------------------------
def _warning_compile(started, release):
    def compile_():
        started.set()
        with warnings.catch_warnings(record=True):          # what Numba's compiler does, many times
            warnings.simplefilter("ignore")
            release.wait(10)
            warnings.warn("from the compile", UserWarning)
        return lambda: "numba"
    return compile_


def test_the_compile_thread_neither_undoes_nor_reaches_the_callers_warning_state():
    started, release = threading.Event(), threading.Event()
    before = list(warnings.filters)
    tier = tiers.Tiered(_warning_compile(started, release), _stand_in("def f():\n    return 'numpy'\n"), "f")
    assert started.wait(10)
    with pytest.warns(UserWarning, match="from the caller") as record:
        release.set()
        assert tier.outcome.done.wait(10)
        warnings.warn("from the caller", UserWarning)
    assert [str(w.message) for w in record] == ["from the caller"]
    assert warnings.filters == before
    assert tier() == "numba"


def test_warnings_of_other_threads_keep_their_place():
    from transpyle.backends import quiet_threads
    with quiet_threads.quiet():            # installs the thread-aware warnings functions
        pass
    with pytest.warns(UserWarning) as record:
        warnings.warn("here", UserWarning, stacklevel=1)
    assert record[0].filename == __file__


# ---- transforms with tiers on -------------------------------------------------------------------
def mlp(W1, b1, W2, x, y):
    h = np.tanh(x @ W1 + b1)
    return np.mean((h @ W2 - y) ** 2)


def chain(x):
    s = 0.0
    for i in range(x.shape[0] - 1):
        if x[i] > x[i + 1]:
            s = s + np.sin(x[i]) * x[i + 1]
        else:
            s = s + x[i] ** 2
    return s


def flow(y0, k):
    y = y0.copy()
    for step in range(20):
        y = y + 0.05 * (np.cos(y) - k * y)
    return y


def _mlp_args(rng, n):
    return (uniform(rng, (3, n)), uniform(rng, (n,)), uniform(rng, (n, 2)), uniform(rng, (5, 3)), uniform(rng, (5, 2)))


TRANSFORMS = [
    ("grad mlp", lambda: transpyle.grad(mlp, argnums=(0, 1, 2)), _mlp_args),
    ("value_and_grad mlp", lambda: transpyle.value_and_grad(mlp), _mlp_args),
    ("hessian mlp", lambda: transpyle.hessian(mlp, argnums=1), _mlp_args),
    ("vmap grad mlp", lambda: transpyle.vmap(transpyle.grad(mlp), in_axes=(None, None, None, 0, 0)), _mlp_args),
    ("grad chain", lambda: transpyle.grad(chain), lambda rng, n: (uniform(rng, (n + 3,)),)),
    ("jacfwd grad chain", lambda: transpyle.jacfwd(transpyle.grad(chain)), lambda rng, n: (uniform(rng, (n + 3,)),)),
    ("jacrev flow", lambda: transpyle.jacrev(flow), lambda rng, n: (uniform(rng, (n,)), 0.3)),
    ("jacfwd flow", lambda: transpyle.jacfwd(flow, argnums=1), lambda rng, n: (uniform(rng, (n,)), 0.3)),
]


def _leaves(out):
    return [np.asarray(o) for o in (out if isinstance(out, tuple) else (out,))]


@pytest.mark.numba
@pytest.mark.parametrize("name, make, args", TRANSFORMS, ids=[t[0] for t in TRANSFORMS])
@pytest.mark.parametrize("n", [3, 5])
def test_the_numpy_answer_and_the_numba_answers_agree(name, make, args, n, monkeypatch, rng, tmp_path):
    monkeypatch.setenv("TRANSPYLE_CACHE_DIR", str(tmp_path))     # not compiled before: tiered
    monkeypatch.setenv("TRANSPYLE_TIERED", "1")
    monkeypatch.setenv("TRANSPYLE_COMPILE_NOTICE", "0")
    made = []
    monkeypatch.setattr(tiers.Tiered, "__init__", _recording(made))
    f = make()
    first_args = args(rng, n)
    first = f(*first_args)
    assert transpyle.wait_compiled(300)
    second = f(*first_args)
    # (a module this process compiled before is not tiered: its compile is a lookup)
    for a, b in zip(_leaves(first), _leaves(second)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    again = args(rng, n)                     # fresh inputs, compiled code, the NumPy backend as reference
    expected = make_numpy(make)(*again)
    for a, b in zip(_leaves(f(*again)), _leaves(expected)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def make_numpy(make):
    f = make()
    f.backend = f.backend_name = "numpy"
    inner = getattr(f, "fun", None)
    if isinstance(inner, transpyle.api.transformed.Transformed):
        inner.backend = inner.backend_name = "numpy"
    return f


def _recording(made):
    original = tiers.Tiered.__init__

    def init(self, *a, **k):
        original(self, *a, **k)
        made.append(self)
    return init


def _scale(x):
    x[0] = 2.0 * x[0]
    return x.sum()


def _shift(a, b):
    for i in range(b.shape[0]):
        a[i] = a[i] + b[i]
    return a.sum()


@pytest.mark.numba
def test_jit_writes_into_its_arguments_on_either_backend(monkeypatch, tmp_path):
    monkeypatch.setenv("TRANSPYLE_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("TRANSPYLE_TIERED", "1")
    monkeypatch.setenv("TRANSPYLE_COMPILE_NOTICE", "0")
    made = []
    monkeypatch.setattr(tiers.Tiered, "__init__", _recording(made))
    scale = transpyle.jit(_scale)
    x = np.ones(3)
    assert scale(x) == 4.0 and x[0] == 2.0            # the NumPy backend's write reaches x
    assert made and transpyle.wait_compiled(120)
    assert scale(x) == 6.0 and x[0] == 4.0            # and so does the compiled code's
    shift = transpyle.jit(_shift)
    a, b = np.arange(4.0), np.ones(4)
    assert shift(a, b) == 10.0 and np.all(a == np.arange(4.0) + 1)
    y = np.arange(5.0)
    expected = y.copy()
    for i in range(4):                                 # the same memory twice: the compiled code answers
        expected[i] = expected[i] + expected[1:][i]
    assert shift(y, y[1:]) == expected.sum() and np.array_equal(y, expected)


def test_a_numpy_run_of_jit_writes_back_only_what_changed():
    body = "def f(a, b):\n    a[1] = 5.0\n    return b.sum()\n"
    tier = tiers.Tiered(_slow(lambda a, b: "numba", 5.0), _stand_in(body), "f", writes_arguments=True)
    a, b = np.zeros(3), np.full(2, np.nan)
    assert tier(a, b) != "numba"
    assert a.tolist() == [0.0, 5.0, 0.0] and np.isnan(b).all()


def _clipped(a):
    y = np.clip(a, 0.0, 1.0) * a
    return y + 1.0


@pytest.mark.numba
def test_a_function_numba_refuses_keeps_the_numpy_answers_and_says_why(monkeypatch, tmp_path):
    from transpyle import rules

    def clip(x, lo, hi):            # no Numba implementation: Numba's typing fails on it
        return np.clip(x, lo, hi)
    monkeypatch.setattr(transpyle.runtime, "clip", clip)
    monkeypatch.setitem(rules._BY_OBJECT, id(clip), (clip, rules.by_key("np.clip")))
    monkeypatch.setenv("TRANSPYLE_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("TRANSPYLE_TIERED", "1")
    monkeypatch.setenv("TRANSPYLE_COMPILE_NOTICE", "0")
    g = transpyle.grad(_clipped)
    assert g(0.5) == 1.0
    assert transpyle.wait_compiled(120)
    with pytest.warns(CompileTimeWarning, match="Numba could not compile grad of '_clipped'.*numba backend cannot"):
        assert g(0.25) == 0.5
    assert g(2.0) == 1.0
