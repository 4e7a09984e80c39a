"""Gradient of a loop-heavy model: transpyle against a hand-written Numba adjoint and JAX.

The model is a damped pendulum integrated with explicit Euler for n steps; the gradient is taken
with respect to the stiffness k and the damping c. All rows come from one run and are printed as
one table:

    python benchmarks/loop_grad.py

Rows: run time of the gradient (transpyle, hand adjoint, JAX), cold compile time for a short and a
long loop (each in a fresh process with an empty TRANSPYLE_CACHE_DIR), warm start of a new process
over the floor that Numba itself costs, and the per-call overhead of the transpyle wrapper. A row
that fails prints its error; the other rows still run. This is a script, not a test.
"""
import dataclasses
import math
import os
import subprocess
import sys
import tempfile
import textwrap
import time

import numba
import numpy as np

from timing import best_time, rel_err

N = 100_000
K, C = 1.5, 0.03

# --- the model ------------------------------------------------------------------------------


def pendulum(k, c, n):
    th = 1.0
    om = 0.0
    dt = 0.01
    for i in range(n):
        a = -k * math.sin(th) - c * om
        th = th + dt * om
        om = om + dt * a
    return th * th + om * om


pendulum_nb = numba.njit(pendulum)


@numba.njit
def pendulum_adjoint(k, c, n):
    """Hand-written reverse mode: returns (d/dk, d/dc) of pendulum(k, c, n)."""
    dt = 0.01
    ths = np.empty(n)
    oms = np.empty(n)
    th = 1.0
    om = 0.0
    for i in range(n):  # forward sweep, storing the state each step reads
        ths[i] = th
        oms[i] = om
        a = -k * math.sin(th) - c * om
        th = th + dt * om
        om = om + dt * a
    bth = 2.0 * th
    bom = 2.0 * om
    bk = 0.0
    bc = 0.0
    for i in range(n - 1, -1, -1):  # reverse sweep
        th = ths[i]
        om = oms[i]
        ba = dt * bom  # om_next = om + dt * a
        bom = bom + dt * bth  # th_next = th + dt * om
        # a = -k * sin(th) - c * om
        bk -= ba * math.sin(th)
        bc -= ba * om
        bth -= ba * k * math.cos(th)
        bom -= ba * c
    return bk, bc


def pendulum_fd(k, c, n, h=1e-6):
    """Central finite differences of the compiled primal."""
    dk = (pendulum_nb(k + h, c, n) - pendulum_nb(k - h, c, n)) / (2 * h)
    dc = (pendulum_nb(k, c + h, n) - pendulum_nb(k, c - h, n)) / (2 * h)
    return dk, dc


# --- timing helpers -------------------------------------------------------------------------


HERE = os.path.dirname(os.path.abspath(__file__))
MODULE = os.path.splitext(os.path.basename(__file__))[0]


def run_child(code, cache_dir=None, workdir=None):
    """Run `code` in a fresh Python and return the number it prints last.

    The child sees its launch time (time.time() just before the spawn) as $BENCH_LAUNCHED, so it
    can report wall time from process launch, interpreter start-up included.
    """
    env = dict(os.environ)
    if cache_dir is not None:
        env["TRANSPYLE_CACHE_DIR"] = cache_dir
    env["BENCH_LAUNCHED"] = repr(time.time())
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, cwd=workdir,
                          capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        lines = (proc.stderr or proc.stdout).strip().splitlines() or ["(no output)"]
        raise RuntimeError(f"child exited {proc.returncode}: {lines[-1]}")
    return float(proc.stdout.strip().splitlines()[-1])


# Child: seconds of transpyle's first call (transform + Numba compile of the generated code).
# Numba's compiler is initialised first by one throw-away njit compile, which is not counted.
COLD_CHILD = """
    import sys, time
    sys.path.insert(0, {here!r})
    import numba, transpyle
    from {module} import pendulum, K, C
    numba.njit(lambda x: x + 1.0)(1.0)
    t0 = time.perf_counter()
    transpyle.grad(pendulum, argnums=(0, 1), backend="numba")(K, C, {n})
    print(time.perf_counter() - t0)
"""

# Child: seconds from process launch to the first gradient, everything included.
WARM_CHILD = """
    import os, sys, time
    sys.path.insert(0, {here!r})
    import transpyle
    from {module} import pendulum, K, C
    transpyle.grad(pendulum, argnums=(0, 1), backend="numba")(K, C, {n})
    print(time.time() - float(os.environ["BENCH_LAUNCHED"]))
"""

# Child: the floor, i.e. seconds from launch to the result of a trivial cached njit function.
FLOOR_MODULE = """
import numba

@numba.njit(cache=True)
def one(x):
    return x + 1.0
"""
FLOOR_CHILD = """
    import os, time
    import numba, floor_mod
    floor_mod.one(1.0)
    print(time.time() - float(os.environ["BENCH_LAUNCHED"]))
"""


# --- rows -----------------------------------------------------------------------------------


@dataclasses.dataclass
class Row:
    case: str
    value: str = ""
    ratio: str = ""
    target: str = ""
    note: str = ""


def fmt_time(s):
    if s >= 0.1:
        return f"{s:.3f} s"
    if s >= 1e-4:
        return f"{s * 1e3:.3f} ms"
    return f"{s * 1e6:.2f} us"


def first_line(exc):
    text = f"{type(exc).__name__}: {exc}".strip().splitlines()[0]
    return text if len(text) <= 100 else text[:97] + "..."


def hand_adjoint_row(results):
    worst = 0.0
    for n in (1_000, N):
        err = rel_err(pendulum_adjoint(K, C, n), pendulum_fd(K, C, n))
        worst = max(worst, err)
        if not err < 1e-5:
            raise AssertionError(f"hand adjoint disagrees with finite differences at n={n}: "
                                 f"rel. error {err:.1e}")
    results["hand"] = best_time(lambda: pendulum_adjoint(K, C, N))
    results["hand_grad"] = pendulum_adjoint(K, C, N)
    return (fmt_time(results["hand"]), "1.00x", "baseline",
            f"vs central FD (n=1000, {N}): rel. err <= {worst:.1e}")


def primal_row(results):
    t = best_time(lambda: pendulum_nb(K, C, N))
    return fmt_time(t), ratio(t, results), "", "for reference"


def ratio(t, results):
    return f"{t / results['hand']:.2f}x" if "hand" in results else "n/a"


def check_against_hand(grad, results):
    if "hand_grad" not in results:
        return "not checked (no hand adjoint)"
    err = rel_err(grad, results["hand_grad"])
    return f"vs hand adjoint: rel. err {err:.1e}" + ("" if err < 1e-8 else "  WRONG")


def transpyle_row(results):
    import transpyle

    g = transpyle.grad(pendulum, argnums=(0, 1), backend="numba")
    note = check_against_hand(g(K, C, N), results)
    t = results["transpyle"] = best_time(lambda: g(K, C, N))
    target = "<= 1.20x"
    if "hand" in results:
        target += "  " + ("ok" if t <= 1.2 * results["hand"] else "MISS")
    return fmt_time(t), ratio(t, results), target, note


def jax_row(results):
    try:
        import jax
    except ImportError:
        return ("jax not installed",)
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)

    def pendulum_jax(k, c, n):
        dt = 0.01

        def step(i, state):
            th, om = state
            a = -k * jnp.sin(th) - c * om
            return th + dt * om, om + dt * a

        th, om = jax.lax.fori_loop(0, n, step, (jnp.float64(1.0), jnp.float64(0.0)))
        return th * th + om * om

    g = jax.jit(jax.grad(pendulum_jax, argnums=(0, 1)), static_argnums=2)
    kj, cj = jnp.float64(K), jnp.float64(C)
    note = check_against_hand(jax.block_until_ready(g(kj, cj, N)), results)
    t = best_time(lambda: jax.block_until_ready(g(kj, cj, N)))
    target = "transpyle faster"
    if "transpyle" in results:
        target += "  " + ("ok" if results["transpyle"] < t else "MISS")
    return fmt_time(t), ratio(t, results), target, f"jax {jax.__version__}; {note}"


def cold_compile_rows():
    rows = []
    for n in (10, N):
        case = f"cold compile: 1st call, n={n}"
        try:
            times = []
            for _ in range(2):
                with tempfile.TemporaryDirectory() as cache:
                    times.append(run_child(COLD_CHILD.format(here=HERE, module=MODULE, n=n),
                                           cache_dir=cache))
            t = min(times)
            rows.append(Row(case, fmt_time(t), "", "<= 2 s  " + ("ok" if t <= 2.0 else "MISS"),
                            "empty cache, Numba initialised; best of 2"))
        except Exception as exc:
            rows.append(Row(case, "error", note=first_line(exc)))
    return rows


def warm_start_rows():
    rows = []
    floor = None
    with tempfile.TemporaryDirectory() as work:
        case = "floor: import numba + 1st cached njit call"
        try:
            with open(os.path.join(work, "floor_mod.py"), "w") as fh:
                fh.write(FLOOR_MODULE)
            run_child(FLOOR_CHILD, workdir=work)  # populate Numba's cache for floor_mod.one
            floor = min(run_child(FLOOR_CHILD, workdir=work) for _ in range(3))
            rows.append(Row(case, fmt_time(floor), "", "", "from process launch; best of 3"))
        except Exception as exc:
            rows.append(Row(case, "error", note=first_line(exc)))

        case = "warm start: launch to 1st gradient, n=10"
        try:
            cache = os.path.join(work, "transpyle-cache")
            os.mkdir(cache)
            code = WARM_CHILD.format(here=HERE, module=MODULE, n=10)
            run_child(code, cache_dir=cache)  # populate transpyle's cache (and Numba's in it)
            warm = min(run_child(code, cache_dir=cache) for _ in range(3))
            if floor is None:
                rows.append(Row(case, fmt_time(warm), "", "<= floor + 0.2 s", "no floor"))
            else:
                over = warm - floor
                rows.append(Row(case, fmt_time(warm), "", "<= floor + 0.2 s  " +
                                ("ok" if over <= 0.2 else "MISS"),
                                f"{over:+.3f} s over the floor; best of 3"))
        except Exception as exc:
            rows.append(Row(case, "error", note=first_line(exc)))
    return rows


def call_overhead_rows():
    try:
        import transpyle

        g = transpyle.grad(pendulum, argnums=(0, 1), backend="numba")
        check = check_against_hand(g(K, C, 1), {"hand_grad": pendulum_adjoint(K, C, 1)})
        t_api = best_time(lambda: g(K, C, 1), min_batch_s=0.05)
    except Exception as exc:
        return [Row("call, n=1: transpyle.grad(...)(k, c, n)", "error", note=first_line(exc))]
    t_bare = best_time(lambda: pendulum_adjoint(K, C, 1), min_batch_s=0.05)
    over = t_api - t_bare
    return [
        Row("call, n=1: transpyle.grad(...)(k, c, n)", fmt_time(t_api), "", "", check),
        Row("call, n=1: bare njit (hand adjoint)", fmt_time(t_bare), "", "",
            "same arguments and results"),
        Row("wrapper overhead per call", f"{over * 1e6:.2f} us", "",
            "<= 1 us  " + ("ok" if over <= 1e-6 else "MISS")),
    ]


def guarded(case, measure, results):
    """One table row: Row(case, *measure(results)), or the error that measure raised."""
    try:
        return Row(case, *measure(results))
    except Exception as exc:
        return Row(case, "error", note=first_line(exc))


def print_table(rows):
    header = Row("case", "time", "vs hand adjoint", "target", "note")
    cols = ["case", "value", "ratio", "target", "note"]
    widths = [max(len(getattr(r, c)) for r in [header] + rows) for c in cols]
    line = lambda r: " | ".join(getattr(r, c).ljust(w) for c, w in zip(cols, widths)).rstrip()
    print(line(header))
    print("-+-".join("-" * w for w in widths))
    for r in rows:
        print(line(r))


def main():
    results = {}
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, numba {numba.__version__}, "
          f"{os.cpu_count()} cores; pendulum k={K}, c={C}; times are best of several", flush=True)
    # Numba rows and start-up rows first, JAX last, so that JAX's threads do not exist yet.
    hand = guarded(f"hand adjoint (numba), n={N}", hand_adjoint_row, results)
    primal = guarded(f"primal only (numba), n={N}", primal_row, results)
    grad = guarded(f"transpyle.grad (numba), n={N}", transpyle_row, results)
    overhead = call_overhead_rows()
    cold = cold_compile_rows()
    warm = warm_start_rows()
    jx = guarded(f"jax.jit(jax.grad), fori_loop, n={N}", jax_row, results)
    print()
    print_table([grad, hand, primal, jx] + cold + warm + overhead)


if __name__ == "__main__":
    main()
