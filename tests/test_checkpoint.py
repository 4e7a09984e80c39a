"""Reverse mode in bounded memory (transforms/checkpoint_loops, frontend/remat): gradients with a memory
budget, and with checkpointed functions, equal the taped gradients (to rounding) on time-stepping programs
(tests/checkpoint_programs.py) at several budgets down to the smallest one that works, on both backends;
the taped gradients agree with finite differences; a budget too small is a MemoryError naming the loop;
the numpy backend's peak memory stays within the budget where the taped gradient's does not."""
import tracemalloc

import numpy as np
import pytest

import transpyle
from transpyle import runtime as rt
from transpyle.base.errors import TranspileError
from transpyle.base.memory_budget import parse_budget

from checkpoint_programs import PROGRAMS, heat_rebind
from gradcheck import numerical_grad

#: budgets tried, from large to small (bytes): the programs' states are 50 B to 700 B
BUDGETS = [10 ** 9, 20000, 8000, 4000, 2500, 1500, 1000, 700, 500, 350, 250, 180, 120]


def _rel(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))


def _args(make, seed=7):
    return make(np.random.default_rng(seed))


@pytest.mark.parametrize("name, fn, make, argnum", PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_budgets_match_the_taped_gradient_numpy(name, fn, make, argnum, monkeypatch):
    # the numpy backend calls the schedule through the runtime module: record the segments it chooses
    chosen, schedule = [], rt.segment_length
    monkeypatch.setattr(rt, "segment_length", lambda *a: chosen.append((a[0], schedule(*a))) or chosen[-1][1])
    args = _args(make)
    taped = transpyle.grad(fn, argnums=argnum, backend="numpy")(*args)
    fd, noise = numerical_grad(fn, list(args), argnum)
    assert np.all(np.abs(np.asarray(taped) - fd) <= 1e-6 * (1 + np.abs(fd)) + noise), name
    worked = []
    for budget in BUDGETS:
        try:
            got = transpyle.grad(fn, argnums=argnum, backend="numpy", memory=budget)(*args)
        except MemoryError as exc:
            assert "too small to checkpoint the loop at checkpoint_programs.py:" in str(exc)
            break
        assert _rel(got, taped) < 1e-12, (name, budget)
        worked.append(budget)
    # the large budgets work, and some that split the loop into segments; the smallest that works was
    # checked like the others
    assert len(worked) >= 2 and worked[0] == BUDGETS[0], (name, worked)
    if chosen:          # a for loop: some budget split it into segments (a while loop thins its own)
        assert any(1 <= k < trips for trips, k in chosen), (name, chosen)


NUMBA_CASES = ["heat_rebind", "ping_pong", "element_loops", "pendulum_until", "jacobi_2d", "rk4", "two_loops",
               "first_step_special"]


@pytest.mark.numba
@pytest.mark.parametrize("name", NUMBA_CASES)
def test_budget_matches_the_taped_gradient_numba(name):
    _, fn, make, argnum = next(p for p in PROGRAMS if p[0] == name)
    args = _args(make, seed=11)
    taped = transpyle.grad(fn, argnums=argnum, backend="numpy")(*args)
    # the smallest budget that works on the numpy backend: the segments are shortest there
    smallest = None
    for budget in BUDGETS:
        try:
            transpyle.grad(fn, argnums=argnum, backend="numpy", memory=budget)(*args)
        except MemoryError:
            break
        smallest = budget
    got = transpyle.grad(fn, argnums=argnum, backend="numba", memory=smallest)(*args)
    assert _rel(got, taped) < 1e-12, name


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=pytest.mark.numba)])
def test_value_and_grad_vjp_and_jacrev_under_a_budget(backend):
    _, fn, make, _ = next(p for p in PROGRAMS if p[0] == "ping_pong")
    a0, steps = _args(make)
    value, g = transpyle.value_and_grad(fn, backend=backend, memory=20000)(a0, steps)
    assert value == pytest.approx(fn(a0, steps), rel=1e-12)
    ref = transpyle.grad(fn, backend="numpy")(a0, steps)
    assert _rel(g, ref) < 1e-12
    out, pullback = transpyle.vjp(lambda a: fn(a, steps), a0, backend=backend, memory="20kB")
    assert _rel(pullback(2.0)[0], 2.0 * ref) < 1e-12
    jac = transpyle.jacrev(fn, backend=backend, memory=20000)(a0, steps)
    assert _rel(jac, ref) < 1e-12


def test_peak_memory_stays_within_the_budget():
    """The numpy backend's arrays are traced by tracemalloc: the taped gradient of 600 steps of 4000 points
    saves about 60 MB, the checkpointed one stays within its 4 MB budget."""
    rng = np.random.default_rng(0)
    args = (0.4, rng.normal(size=4000), 600)
    taped_grad = transpyle.grad(heat_rebind, backend="numpy")
    small_grad = transpyle.grad(heat_rebind, backend="numpy", memory="4MB")
    small_grad(0.4, args[1], 3)         # transforms first: the pipeline's own memory is not measured
    taped_grad(0.4, args[1], 3)
    peaks = {}
    for label, g in (("taped", taped_grad), ("budget", small_grad)):
        tracemalloc.start()
        value = g(*args)
        peaks[label] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        peaks[label + " value"] = value
    assert peaks["taped"] > 30e6
    assert peaks["budget"] < 4e6 + 1e6          # the budget, and the few arrays of one step outside the tapes
    assert peaks["budget value"] == pytest.approx(peaks["taped value"], rel=1e-12)


def test_a_budget_too_small_names_the_loop():
    _, fn, make, _ = next(p for p in PROGRAMS if p[0] == "heat_rebind")
    with pytest.raises(MemoryError, match=r"memory=50 bytes is too small to checkpoint the loop at "
                                          r"checkpoint_programs\.py:\d+"):
        transpyle.grad(fn, backend="numpy", memory=50)(*_args(make))


def test_budget_spellings():
    assert parse_budget("1GB") == 10 ** 9
    assert parse_budget("512 MiB") == 512 * 2 ** 20
    assert parse_budget("2.5e6") == 2500000
    assert parse_budget(4096) == 4096
    assert parse_budget(None) is None
    for bad in ("lots", "-1MB", 0, True, "1 parsec"):
        with pytest.raises(TranspileError):
            parse_budget(bad)
    with pytest.raises(TranspileError, match="is not a size"):
        transpyle.grad(heat_rebind, memory="plenty")


def test_environment_default(monkeypatch):
    monkeypatch.setenv("TRANSPYLE_MEMORY", "900")
    text = transpyle.show(transpyle.grad(heat_rebind), kinds="f8, f8[:], i8")
    assert "checkpointed loop (memory budget 900 B)" in text
    monkeypatch.delenv("TRANSPYLE_MEMORY")
    assert "checkpointed" not in transpyle.show(transpyle.grad(heat_rebind), kinds="f8, f8[:], i8")


def test_show_names_the_schedule():
    text = transpyle.show(transpyle.grad(heat_rebind, memory="1MB"), kinds="f8, f8[:], i8")
    assert "rt.segment_length(" in text and "snapshots of u at segment starts" in text
    assert "run again with its saves, and replayed backwards" in text


def test_a_loop_that_saves_nothing_is_not_checkpointed():
    def linear(u0, k, steps):
        u = u0.copy()
        for t in range(steps):
            u[1:-1] += k * (u[:-2] - 2.0 * u[1:-1] + u[2:])
        return np.sum(u)
    assert "checkpointed" not in transpyle.show(transpyle.grad(linear, memory=100), kinds="f8[:], f8, i8")


# ---- transpyle.checkpoint ------------------------------------------------------------------------------
@transpyle.checkpoint
def _step(u, k):
    lap = np.zeros_like(u)
    lap[1:-1] = u[:-2] - 2.0 * u[1:-1] + u[2:]
    return u + k * lap - 0.01 * u ** 3


def _plain_step(u, k):
    lap = np.zeros_like(u)
    lap[1:-1] = u[:-2] - 2.0 * u[1:-1] + u[2:]
    return u + k * lap - 0.01 * u ** 3


def decorated(k, u0, steps):
    u = u0.copy()
    for t in range(steps):
        u = _step(u, k)
    return np.sum(u * u)


def built_in_the_body(k, u0, steps):
    u = u0.copy()
    step = transpyle.checkpoint(_plain_step)
    for t in range(steps):
        u = step(u, k)
    return np.sum(u * u)


def called_at_once_in_a_while(k, u0, steps):
    u = u0.copy()
    t = 0
    while t < steps:
        u = transpyle.remat(_plain_step)(u, k)
        t += 1
    return np.sum(u * u)


def fori_loop_body(k, u0, steps):
    def body(i, u):
        return _step(u, k)
    return np.sum(transpyle.lax.fori_loop(0, steps, body, u0.copy()) ** 2)


def scan_body(k, u0, steps):
    def body(u, x):
        return transpyle.checkpoint(_plain_step)(u, k * x), np.sum(u)
    u, sums = transpyle.lax.scan(body, u0.copy(), np.linspace(0.5, 1.5, 7))
    return np.sum(u * u) + np.sum(sums)


def with_policy(k, u0, steps):
    u = u0.copy()
    step = transpyle.checkpoint(_plain_step, policy=transpyle.checkpoint_policies.dots_saveable)
    for t in range(steps):
        u = step(u, k)
    return np.sum(u * u)


def _unmarked(k, u0, steps):
    u = u0.copy()
    for t in range(steps):
        u = _plain_step(u, k)
    return np.sum(u * u)


CHECKPOINTED = [decorated, built_in_the_body, called_at_once_in_a_while, fori_loop_body, with_policy]


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=pytest.mark.numba)])
@pytest.mark.parametrize("fn", CHECKPOINTED + [scan_body], ids=lambda f: f.__name__)
def test_checkpointed_functions_give_the_taped_gradient(fn, backend):
    rng = np.random.default_rng(5)
    k, u0, steps = 0.2, rng.normal(size=10), 9
    reference = _unmarked if fn is not scan_body else fn
    expected = transpyle.grad(reference, argnums=(0, 1), backend="numpy")(k, u0, steps)
    got = transpyle.grad(fn, argnums=(0, 1), backend=backend)(k, u0, steps)
    for g, e in zip(got, expected):
        assert _rel(g, e) < 1e-12
    fd, noise = numerical_grad(fn, [k, u0, steps], 0)
    assert abs(got[0] - fd) <= 1e-6 * (1 + abs(fd)) + noise


@pytest.mark.parametrize("fn", CHECKPOINTED, ids=lambda f: f.__name__)
def test_checkpointed_loops_are_recomputed(fn):
    text = transpyle.show(transpyle.grad(fn), kinds="f8, f8[:], i8")
    assert "a checkpointed function is called in it: every iteration is recomputed" in text


def test_everything_saveable_keeps_the_tape():
    def taped(k, u0, steps):
        u = u0.copy()
        step = transpyle.checkpoint(_plain_step, policy=transpyle.checkpoint_policies.everything_saveable)
        for t in range(steps):
            u = step(u, k)
        return np.sum(u * u)
    assert "checkpointed" not in transpyle.show(transpyle.grad(taped), kinds="f8, f8[:], i8")


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=pytest.mark.numba)])
def test_checkpoint_composes_with_jit_vmap_and_jvp(backend):
    rng = np.random.default_rng(2)
    u0 = rng.normal(size=8)
    assert transpyle.jit(decorated, backend=backend)(0.3, u0, 6) == pytest.approx(decorated(0.3, u0, 6), rel=1e-12)
    ks = np.array([0.1, 0.2, 0.3])
    batched = transpyle.vmap(decorated, in_axes=(0, None, None), backend=backend)(ks, u0, 6)
    assert np.allclose(batched, [decorated(k, u0, 6) for k in ks], rtol=1e-12)
    tangent = transpyle.jvp(decorated, (0.3, u0, 6), (1.0, np.zeros(8), 0), backend=backend)[1]
    assert tangent == pytest.approx(transpyle.grad(_unmarked, backend="numpy")(0.3, u0, 6), rel=1e-10)
    # the checkpointed function itself, and outside any transform
    assert np.allclose(_step(u0, 0.3), _plain_step(u0, 0.3))
    g = transpyle.grad(lambda u: np.sum(_step(u, 0.3) ** 2), backend=backend)(u0)
    assert _rel(g, transpyle.grad(lambda u: np.sum(_plain_step(u, 0.3) ** 2), backend="numpy")(u0)) < 1e-12


def test_command_line_show_takes_a_budget(capsys):
    from pathlib import Path
    from transpyle import cli
    target = f"{Path(__file__).with_name('checkpoint_programs.py')}:heat_rebind"
    assert cli.main(["show", target, "--kinds", "f8, f8[:], i8", "--memory", "2MB"]) in (0, None)
    assert "checkpointed loop (memory budget 2 MB)" in capsys.readouterr().out


def test_array_lifting_refuses_checkpointed_loops():
    """Each example's segments start at other iterations: vmap by array lifting says so (``auto`` loops)."""
    with pytest.raises(TranspileError, match=r"checkpoint_programs\.py:\d+: .*checkpointed loop(.|\n)*strategy='loop'"):
        transpyle.vmap(transpyle.grad(heat_rebind, memory=30000), in_axes=(0, None, None), backend="numpy",
                       strategy="array")(np.array([0.5, 0.7]), np.ones(6), 5)


@pytest.mark.parametrize("strategy", ["loop", "auto"])
def test_vmap_of_checkpointed_gradients(strategy):
    """Per-example gradients under a budget: trip counts and segment lengths differ between examples
    (the while loop stops early for some)."""
    u0 = np.random.default_rng(4).normal(size=10)
    ks = np.array([0.5, 0.7, 0.9])
    got = transpyle.vmap(transpyle.grad(heat_rebind, memory=30000), in_axes=(0, None, None), backend="numpy",
                         strategy=strategy)(ks, u0, 13)
    want = [transpyle.grad(heat_rebind, backend="numpy")(k, u0, 13) for k in ks]
    assert _rel(got, want) < 1e-12
    _, pendulum, _, _ = next(p for p in PROGRAMS if p[0] == "pendulum_until")
    starts = np.array([0.3, 2.5, 3.1])          # the last ones pass y > 10 and stop early
    got = transpyle.vmap(transpyle.grad(pendulum, memory=400), in_axes=(0, None, None), backend="numpy",
                         strategy=strategy)(starts, 0.2, 60)
    want = [transpyle.grad(pendulum, backend="numpy")(y, 0.2, 60) for y in starts]
    assert _rel(got, want) < 1e-12
