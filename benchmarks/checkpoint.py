"""Reverse mode in bounded memory: taped against checkpointed gradients of long simulations, beside JAX.

    python benchmarks/checkpoint.py [--quick] [--only heat,wave,lorenz]

Three simulations, each differentiated in its parameters:

- ``heat``: a 1-D heat equation with a diffusion coefficient per point, written with element loops and a
  copy per step (as Fortran-style codes write it), the gradient in the coefficients;
- ``wave``: a 1-D wave equation, leapfrog in array form (slices), the gradient in the initial displacement;
- ``lorenz``: the Lorenz system by RK4, many short steps (to t = 2), the gradient in its three parameters.

Each row is one (simulation, size, budget) run in a process of its own: the gradient is compiled and run once
on a few steps (so compiling does not count), then timed on the full problem once, and the row gives the
seconds (compiled code, tiers off) and the peak resident memory the call added above the process's
memory before it (Linux's VmHWM, reset before the call). ``budget``: ``taped`` is ``grad(f)``, the others ``grad(f,
memory=...)``. ``x taped``: time over the taped gradient's. ``check``: the largest relative difference of
the gradient from the taped one, and the directional derivative against central differences of the
compiled primal (relative error). JAX rows (the ``bench`` extra): ``jax.jit(jax.grad(f))`` of the same
simulation as a ``lax.scan``, plain (``jax scan``: every step's carry saved), with the step under
``jax.checkpoint`` (``jax remat step``) and as a scan of checkpointed scans of ``sqrt(n)`` steps (``jax
remat sqrt``, the two-level schedule); float64 on the CPU, timed once after a warm-up run of the same size.
Unset OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE in the command on machines that pin them. This is a script,
not a test.
"""
import argparse
import ctypes
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

os.environ.setdefault("TRANSPYLE_TIERED", "0")


# ==== the simulations (NumPy, as users write them) ======================================================
def heat(kappa, u0, steps, dt):
    u = u0.copy()
    n = u.shape[0]
    for t in range(steps):
        un = u.copy()
        for i in range(1, n - 1):
            u[i] = un[i] + dt * kappa[i] * (un[i - 1] - 2.0 * un[i] + un[i + 1]) - dt * 0.1 * un[i] ** 3
    return np.sum(u * u)


def wave(u0, c, steps, dt):
    prev = u0.copy()
    u = u0.copy()
    r = (c * dt) ** 2
    for t in range(steps):
        nxt = np.zeros_like(u)
        nxt[1:-1] = 2.0 * u[1:-1] - prev[1:-1] + r * (u[2:] - 2.0 * u[1:-1] + u[:-2]) - 1e-4 * u[1:-1] ** 3
        prev = u
        u = nxt
    return np.sum(u * u) + 0.5 * np.sum(prev)


def _lorenz(y, p):
    return np.array([p[0] * (y[1] - y[0]), y[0] * (p[1] - y[2]) - y[1], y[0] * y[1] - p[2] * y[2]])


def lorenz(p, y0, steps, dt):
    y = y0.copy()
    for t in range(steps):
        k1 = _lorenz(y, p)
        k2 = _lorenz(y + 0.5 * dt * k1, p)
        k3 = _lorenz(y + 0.5 * dt * k2, p)
        k4 = _lorenz(y + dt * k3, p)
        y = y + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return np.sum(y * y)


def _inputs(name, n, steps):
    rng = np.random.default_rng(0)
    if name == "heat":
        return (rng.uniform(0.5, 1.0, n), np.sin(np.linspace(0, 3, n)) + 0.1 * rng.normal(size=n), steps, 0.2)
    if name == "wave":
        return (np.exp(-np.linspace(-3, 3, n) ** 2), 1.0, steps, 0.5 * 6.0 / n)
    return (np.array([10.0, 28.0, 8.0 / 3.0]), np.array([1.0, 1.0, 1.0]) + 0.01 * rng.normal(size=3), steps, 1e-5)


SIMULATIONS = {"heat": heat, "wave": wave, "lorenz": lorenz}
#: (n, steps) per simulation: the full runs and --quick
SIZES = {"heat": [(2000, 20000), (10000, 100000)], "wave": [(4000, 20000)], "lorenz": [(3, 200000)]}
QUICK = {"heat": [(2000, 4000)], "wave": [(2000, 4000)], "lorenz": [(3, 40000)]}
BUDGETS = ["taped", "1GB", "100MB", "10MB"]
#: rows left out where they would not fit this machine: every step's state kept (8 GB at 10,000 x 100,000)
TOO_BIG = {("heat", 10000, 100000): ("taped", "jax scan", "jax remat step")}


# ==== JAX versions: the step as a scan body ===============================================================
def _jax_runner(name, variant, args):
    import jax
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    from jax import lax
    a0, a1, steps, dt = args
    if name == "heat":
        kappa0, u0 = jnp.asarray(a0), jnp.asarray(a1)

        def step(u, kappa):
            lap = jnp.zeros_like(u).at[1:-1].set(u[:-2] - 2.0 * u[1:-1] + u[2:])
            return u + dt * kappa * lap - dt * 0.1 * u ** 3 * (jnp.arange(u.shape[0]) % (u.shape[0] - 1) != 0)

        def loss(kappa, carry_steps):
            return _scanned(lambda u: step(u, kappa), u0, carry_steps, lambda u: jnp.sum(u * u))
        wrt = kappa0
    elif name == "wave":
        u00 = jnp.asarray(a0)
        r = (a1 * dt) ** 2

        def step(carry):
            prev, u = carry
            nxt = jnp.zeros_like(u).at[1:-1].set(2.0 * u[1:-1] - prev[1:-1] + r * (u[2:] - 2.0 * u[1:-1] + u[:-2])
                                                 - 1e-4 * u[1:-1] ** 3)
            return (u, nxt)

        def loss(u0, carry_steps):
            return _scanned(step, (u0, u0), carry_steps, lambda c: jnp.sum(c[1] * c[1]) + 0.5 * jnp.sum(c[0]))
        wrt = u00
    else:
        p0, y00 = jnp.asarray(a0), jnp.asarray(a1)

        def f(y, p):
            return jnp.array([p[0] * (y[1] - y[0]), y[0] * (p[1] - y[2]) - y[1], y[0] * y[1] - p[2] * y[2]])

        def step(y, p):
            k1 = f(y, p)
            k2 = f(y + 0.5 * dt * k1, p)
            k3 = f(y + 0.5 * dt * k2, p)
            k4 = f(y + dt * k3, p)
            return y + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)

        def loss(p, carry_steps):
            return _scanned(lambda y: step(y, p), y00, carry_steps, lambda y: jnp.sum(y * y))
        wrt = p0

    def _scanned(step, init, n, final):
        if variant == "jax scan":
            out, _ = lax.scan(lambda c, _: (step(c), None), init, None, length=n)
        elif variant == "jax remat step":
            out, _ = lax.scan(jax.checkpoint(lambda c, _: (step(c), None)), init, None, length=n)
        else:                                   # sqrt(n) segments of sqrt(n) steps, each segment checkpointed
            inner = max(1, int(round(n ** 0.5)))
            outer = n // inner
            segment = jax.checkpoint(lambda c, _: (lax.scan(lambda c2, _: (step(c2), None), c, None,
                                                            length=inner)[0], None))
            out, _ = lax.scan(segment, init, None, length=outer)
            out, _ = lax.scan(lambda c, _: (step(c), None), out, None, length=n - outer * inner)
        return final(out)

    grad = jax.jit(jax.grad(loss), static_argnums=1)
    return lambda: np.asarray(grad(wrt, steps).block_until_ready())


# ==== one row, in a process of its own ====================================================================
def _status(field):
    """A memory figure of this process from /proc/self/status, in bytes."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0


def _reset_peak():
    """Linux: memory freed by the compiles goes back to the system (else the call reuses it unseen), and
    the peak resident memory (VmHWM) starts again from the current one."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def child(name, n, steps, budget):
    args = _inputs(name, n, steps)
    warm = args[:2] + (min(steps, 50),) + args[3:]
    if budget.startswith("jax"):
        start = time.perf_counter()
        run = _jax_runner(name, budget, args)
        run()                                       # compiles for these shapes and the full trip count
        compile_seconds = time.perf_counter() - start
    else:
        import transpyle
        fn = SIMULATIONS[name]
        grad = transpyle.grad(fn) if budget == "taped" else transpyle.grad(fn, memory=budget)
        start = time.perf_counter()
        grad(*warm)
        compile_seconds = time.perf_counter() - start
        run = lambda: grad(*args)     # noqa: E731
    if not _reset_peak():
        raise SystemExit("needs Linux's /proc/self/clear_refs to measure the peak of one call")
    before = _status("VmRSS")
    start = time.perf_counter()
    g = run()
    seconds = time.perf_counter() - start
    peak = _status("VmHWM")
    row = {"seconds": seconds, "extra_bytes": max(0, peak - before), "grad": np.asarray(g).tolist(),
           "compile": compile_seconds}
    if budget == "taped":               # the directional derivative against central differences of the primal
        import transpyle
        primal = transpyle.jit(SIMULATIONS[name])
        x = np.asarray(args[0], dtype=float)
        d = np.random.default_rng(1).normal(size=x.shape)
        h = 1e-6 * max(1.0, float(np.max(np.abs(x))))
        plus = primal(*((x + h * d) if x.ndim else float(x + h * d),) + args[1:])
        minus = primal(*((x - h * d) if x.ndim else float(x - h * d),) + args[1:])
        fd = (plus - minus) / (2 * h)
        row["fd_err"] = abs(float(np.sum(np.asarray(g) * d)) - fd) / max(abs(fd), 1e-300)
    print(json.dumps(row))


def _run_child(name, n, steps, budget):
    with tempfile.TemporaryDirectory() as cache:        # a cold compile: an empty cache, a new process
        out = subprocess.run([sys.executable, __file__, "--child", name, str(n), str(steps), budget],
                             capture_output=True, text=True, env=dict(os.environ, TRANSPYLE_CACHE_DIR=cache))
    if out.returncode != 0:
        return {"error": (out.stderr.strip().splitlines() or ["failed"])[-1][:120]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def _mb(b):
    return f"{b / 1e6:9.1f} MB"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="smaller problems (a minute or two)")
    parser.add_argument("--only", default="")
    parser.add_argument("--no-jax", action="store_true")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.child:
        name, n, steps, budget = opts.child
        child(name, int(n), int(steps), budget)
        return
    import transpyle
    print(f"transpyle {transpyle.__version__}, numpy {np.__version__}, {os.cpu_count()} cores; compiled code, "
          f"tiers off; one timed call per row; extra: peak resident memory the call added")
    sizes = QUICK if opts.quick else SIZES
    names = [s for s in opts.only.split(",") if s] or list(SIMULATIONS)
    variants = BUDGETS + ([] if opts.no_jax else ["jax scan", "jax remat step", "jax remat sqrt"])
    print(f"{'simulation':<10} {'n':>6} {'steps':>7} {'budget':<15} {'time':>11} {'x taped':>8} {'extra':>12} "
          f"{'compile':>9}  check")
    for name in names:
        for n, steps in sizes[name]:
            taped = first = None
            for budget in variants:
                if budget in TOO_BIG.get((name, n, steps), ()):
                    print(f"{name:<10} {n:>6} {steps:>7} {budget:<15} not run: every step's state, "
                          f"{8 * n * steps / 1e9:.0f} GB, is more than this machine holds")
                    continue
                row = _run_child(name, n, steps, budget)
                if "error" in row:
                    print(f"{name:<10} {n:>6} {steps:>7} {budget:<15} {row['error']}")
                    continue
                g = np.asarray(row["grad"])
                if budget == "taped":
                    taped = row
                    check = f"FD {row['fd_err']:.1e}"
                else:
                    first = first or row
                    ref = np.asarray((taped or first)["grad"])
                    versus = "taped" if taped else "1GB"
                    check = f"vs {versus} {np.max(np.abs(g - ref)) / max(np.max(np.abs(ref)), 1e-300):.1e}"
                ratio = f"{row['seconds'] / taped['seconds']:8.2f}" if taped else f"{'-':>8}"
                print(f"{name:<10} {n:>6} {steps:>7} {budget:<15} {row['seconds']:9.3f} s {ratio} "
                      f"{_mb(row['extra_bytes'])} {row['compile']:7.1f} s  {check}", flush=True)


if __name__ == "__main__":
    main()
