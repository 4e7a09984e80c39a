"""Whole training loops inside one jitted call: transpyle.jit against jax.jit on CPU, float64.

    python benchmarks/fit.py

One table from one run. Rows:
- linear regression fitted by 1 000 gradient-descent steps on 1 000 x 20 data, with the loss
  (mean squared error, then ridge) a static argument: `fit(w0, x, y, loss, steps, lr)` whose
  body takes `grad(loss)` and loops `w = w - lr * g(w, x, y)`. JAX: jax.jit of the same with
  jax.grad and lax.fori_loop;
- one SGD epoch of an MLP 16-64-64-1 (tanh) with list-of-dict parameters [{'W', 'b'}, ...] on
  N = 4 096 examples in minibatches of 128 (32 steps), updated with tree.map. transpyle loops
  `for start in range(0, n, batch)` over slices; JAX is timed twice: lax.fori_loop over
  lax.dynamic_slice_in_dim, and a Python loop unrolled by tracing;
- per-example gradients of that MLP, B = 1 024: vmap(grad(loss), in_axes=(None, 0, 0)) against
  jax.jit(jax.vmap(jax.grad(loss))).
Times are warm (best of 5, compilation excluded); compile times are the first call, measured
separately, transpyle's with an empty cache (the script points TRANSPYLE_CACHE_DIR at a fresh
temporary directory). All transpyle figures are taken before JAX starts, so that XLA's threads do
not compete with them. Numba's np.dot calls OpenBLAS, whose threads make small products slow and
erratic when the cores are busy, so the transpyle figures are also taken in a child process with
OPENBLAS_NUM_THREADS=1 (column "1 BLAS thr"; it loads the compiled code from the cache). Every row
checks that both give the same result (largest relative error over the parameter leaves). JAX is
optional (the `bench` extra): without it the transpyle figures are still printed. A row that fails
prints its error; the other rows still run. This is a script, not a test.
"""
import os
import subprocess
import sys
import tempfile

import numba
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import transpyle  # noqa: E402
from transpyle import tree  # noqa: E402
from timing import best_time, fmt, optional_jax, rel_err, timed_first_call  # noqa: E402

N_FIT, D_FIT, FIT_STEPS, FIT_LR = 1_000, 20, 1_000, 0.01
SIZES, N_MLP, BATCH, MLP_LR = (16, 64, 64, 1), 4_096, 128, 0.05
B_PER_EXAMPLE = 1_024


# ---- the programs, as a user writes them ------------------------------------------------------------
def mse(w, x, y):
    r = x @ w - y
    return np.sum(r * r) / x.shape[0]


def ridge(w, x, y):
    return mse(w, x, y) + 0.1 * np.sum(w * w)


def fit(w0, x, y, loss, steps, lr):
    g = transpyle.grad(loss)          # built when fit is compiled: loss is static
    w = w0.copy()
    for step in range(steps):
        w = w - lr * g(w, x, y)
    return w


def layer(p, h):
    return np.tanh(h @ p["W"] + p["b"])


def mlp(params, x):
    *hidden, last = params
    h = x
    for p in hidden:
        h = layer(p, h)
    return h @ last["W"] + last["b"]


def mlp_loss(params, x, y):
    r = mlp(params, x) - y
    return np.sum(r * r) / x.shape[0]


def epoch(params, x, y, loss, batch, lr):
    g = transpyle.grad(loss)          # loss is static, as in fit
    n = x.shape[0]
    for start in range(0, n, batch):
        grads = g(params, x[start:start + batch], y[start:start + batch])
        params = tree.map(lambda p, d: p - lr * d, params, grads)
    return params


# ---- JAX versions (same math, jax.numpy) ----------------------------------------------------------------
def jax_programs():
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)

    def jmse(w, x, y):
        r = x @ w - y
        return jnp.sum(r * r) / x.shape[0]

    def jridge(w, x, y):
        return jmse(w, x, y) + 0.1 * jnp.sum(w * w)

    def jfit(w0, x, y, loss, steps, lr):
        g = jax.grad(loss)
        return jax.lax.fori_loop(0, steps, lambda i, w: w - lr * g(w, x, y), w0)

    def jmlp(params, x):
        *hidden, last = params
        h = x
        for p in hidden:
            h = jnp.tanh(h @ p["W"] + p["b"])
        return h @ last["W"] + last["b"]

    def jmlp_loss(params, x, y):
        r = jmlp(params, x) - y
        return jnp.sum(r * r) / x.shape[0]

    def update(params, grads, lr):
        return jax.tree_util.tree_map(lambda p, d: p - lr * d, params, grads)

    def epoch_fori(params, x, y, batch, lr):
        g = jax.grad(jmlp_loss)

        def body(i, params):
            xb = jax.lax.dynamic_slice_in_dim(x, i * batch, batch)
            yb = jax.lax.dynamic_slice_in_dim(y, i * batch, batch)
            return update(params, g(params, xb, yb), lr)

        return jax.lax.fori_loop(0, x.shape[0] // batch, body, params)

    def epoch_unrolled(params, x, y, batch, lr):
        g = jax.grad(jmlp_loss)
        for start in range(0, x.shape[0], batch):
            params = update(params, g(params, x[start:start + batch], y[start:start + batch]), lr)
        return params

    return {
        "fit": jax.jit(jfit, static_argnums=(3, 4)),
        "mse": jmse,
        "ridge": jridge,
        "epoch_fori": jax.jit(epoch_fori, static_argnums=3),
        "epoch_unrolled": jax.jit(epoch_unrolled, static_argnums=3),
        "per_example": jax.jit(jax.vmap(jax.grad(jmlp_loss), in_axes=(None, 0, 0))),
        "device_put": jax.device_put,
        "ready": jax.block_until_ready,
        "version": jax.__version__,
    }


# ---- helpers ---------------------------------------------------------------------------------------------
def tree_rel_err(got, want):
    """Largest relative error over the leaves of two pytrees of the same structure."""
    a, b = tree.leaves(got), tree.leaves(want)
    if len(a) != len(b):
        raise AssertionError(f"{len(a)} leaves against {len(b)}")
    return max(rel_err(x, y) for x, y in zip(a, b))


def as_numpy(t):
    """A JAX result (any pytree of arrays) as the same structure of NumPy arrays."""
    if isinstance(t, (list, tuple)):
        return type(t)(as_numpy(v) for v in t)
    if isinstance(t, dict):
        return {k: as_numpy(v) for k, v in t.items()}
    return np.asarray(t)


def first_line(exc):
    text = f"{type(exc).__name__}: {exc}".strip().splitlines()[0]
    return text if len(text) <= 110 else text[:107] + "..."


def problem():
    """The data, the initial parameters and the transpyle calls (key -> zero-argument call)."""
    rng = np.random.default_rng(0)
    data = {"x_fit": rng.normal(size=(N_FIT, D_FIT))}
    w_true = rng.normal(size=D_FIT)
    data["y_fit"] = data["x_fit"] @ w_true + 0.1 * rng.normal(size=N_FIT)
    data["w0"] = np.zeros(D_FIT)
    data["params0"] = [{"W": rng.normal(size=(m, n)) / np.sqrt(m), "b": np.zeros(n)}
                       for m, n in zip(SIZES, SIZES[1:])]
    x_mlp = data["x_mlp"] = rng.normal(size=(N_MLP, SIZES[0]))
    y_mlp = data["y_mlp"] = np.sin(x_mlp[:, :1]) + 0.5 * x_mlp[:, 1:2] * x_mlp[:, 2:3]
    data["x_per"] = x_mlp[:B_PER_EXAMPLE].reshape(B_PER_EXAMPLE, 1, SIZES[0])
    data["y_per"] = y_mlp[:B_PER_EXAMPLE].reshape(B_PER_EXAMPLE, 1, 1)

    d = data
    fit_tp = transpyle.jit(fit, static_argnums=(3, 4))
    epoch_tp = transpyle.jit(epoch, static_argnums=(3, 4))
    per_example_tp = transpyle.vmap(transpyle.grad(mlp_loss), in_axes=(None, 0, 0))
    calls = {
        "mse": lambda: fit_tp(d["w0"], d["x_fit"], d["y_fit"], mse, FIT_STEPS, FIT_LR),
        "ridge": lambda: fit_tp(d["w0"], d["x_fit"], d["y_fit"], ridge, FIT_STEPS, FIT_LR),
        "epoch": lambda: epoch_tp(d["params0"], d["x_mlp"], d["y_mlp"], mlp_loss, BATCH, MLP_LR),
        "per_example": lambda: per_example_tp(d["params0"], d["x_per"], d["y_per"]),
    }
    return data, calls


# Child: the warm transpyle times with OpenBLAS (which Numba's np.dot calls) on one thread. It shares
# the parent's TRANSPYLE_CACHE_DIR, so it loads the compiled code instead of compiling it again.
ONE_BLAS_THREAD_CHILD = """
import sys
sys.path.insert(0, {here!r})
from fit import problem
from timing import best_time
_, calls = problem()
for key, call in calls.items():
    call()
    print(key, best_time(call, repeat=5))
"""


def one_blas_thread_times():
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    code = ONE_BLAS_THREAD_CHILD.format(here=os.path.dirname(os.path.abspath(__file__)))
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        lines = (proc.stderr or proc.stdout).strip().splitlines() or ["(no output)"]
        errors = [line for line in lines if not line.startswith(" ") and "Error" in line]
        raise RuntimeError(f"child exited {proc.returncode}: {(errors or lines)[-1]}")
    return {key: float(t) for key, t in (line.split() for line in proc.stdout.strip().splitlines())}


def main():
    d, transpyle_calls = problem()
    jx = optional_jax(jax_programs)

    # (label, key into transpyle_calls, JAX call, what the JAX side is)
    rows = [
        (f"linreg fit, mse: {N_FIT}x{D_FIT}, {FIT_STEPS} steps", "mse",
         lambda: jx["fit"](j["w0"], j["x_fit"], j["y_fit"], jx["mse"], FIT_STEPS, FIT_LR), "fori_loop"),
        (f"linreg fit, ridge: {N_FIT}x{D_FIT}, {FIT_STEPS} steps", "ridge",
         lambda: jx["fit"](j["w0"], j["x_fit"], j["y_fit"], jx["ridge"], FIT_STEPS, FIT_LR), "fori_loop"),
        (f"MLP epoch: N={N_MLP}, batch {BATCH}, {N_MLP // BATCH} steps", "epoch",
         lambda: jx["epoch_fori"](j["params0"], j["x_mlp"], j["y_mlp"], BATCH, MLP_LR), "fori_loop + dynamic_slice"),
        (f"MLP epoch: N={N_MLP}, batch {BATCH}, {N_MLP // BATCH} steps", "epoch",
         lambda: jx["epoch_unrolled"](j["params0"], j["x_mlp"], j["y_mlp"], BATCH, MLP_LR), "Python loop, unrolled"),
        (f"MLP per-example grads: B={B_PER_EXAMPLE}", "per_example",
         lambda: jx["per_example"](j["params0"], j["x_per"], j["y_per"]), "jit(vmap(grad))"),
    ]

    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, numba {numba.__version__}, "
          f"jax {jx['version'] if jx else 'absent'}, {os.cpu_count()} cores, float64; best of 5", flush=True)
    # All transpyle figures first, JAX last, so that JAX's threads do not exist yet while transpyle runs.
    numba.njit(lambda v: v + 1.0)(1.0)        # Numba's own start-up is not charged to the first row
    measured = {}                             # key -> (result, compile s, warm s) or the error
    for key, call in transpyle_calls.items():
        try:
            got, compile_tp = timed_first_call(call)
            measured[key] = got, compile_tp, best_time(call, repeat=5)
        except Exception as exc:
            measured[key] = exc
    try:
        one_thread = one_blas_thread_times()
    except Exception as exc:
        one_thread = {}
        print(f"(one-BLAS-thread column skipped: {first_line(exc)})")

    if jx:                                    # JAX starts here, after transpyle
        j = {k: jx["device_put"](v) for k, v in d.items()}
    head = f"{'case':42} | {'transpyle':12} | {'1 BLAS thr':12} | {'JAX jit':12} | {'ratio':7} | " \
           f"{'ratio 1 thr':11} | {'compile tp / jax':17} | {'JAX variant':26} | agreement"
    print()
    print(head)
    print("-" * len(head))
    printed = set()
    for label, key, jax_call, variant in rows:
        if key in printed and not jx:
            continue                          # the second MLP epoch row differs only on the JAX side
        printed.add(key)
        try:
            if isinstance(measured[key], Exception):
                raise measured[key]
            got, compile_tp, t_tp = measured[key]
            t_one = one_thread.get(key)
            t_jax = compile_jax = None
            agree = "-"
            if jx:
                want, compile_jax = timed_first_call(lambda: as_numpy(jx["ready"](jax_call())))
                t_jax = best_time(lambda: jx["ready"](jax_call()), repeat=5)
                agree = f"jax {tree_rel_err(got, want):.0e}"
        except Exception as exc:
            print(f"{label:42} | error: {first_line(exc)}")
            continue
        ratio = f"{t_tp / t_jax:6.2f}x" if t_jax else "   -   "
        ratio_one = f"{t_one / t_jax:6.2f}x" if t_jax and t_one else "   -   "
        one_col = fmt(t_one) if t_one else "      -     "
        jax_col = fmt(t_jax) if t_jax else "      -     "
        compiles = f"{compile_tp:5.1f} s / " + (f"{compile_jax:4.1f} s" if compile_jax is not None else "  -  ")
        print(f"{label:42} | {fmt(t_tp)} | {one_col} | {jax_col} | {ratio} | {ratio_one:11} | {compiles:17} | "
              f"{variant if jx else '-':26} | {agree}", flush=True)
    print("\nratio = transpyle time / JAX time (below 1: transpyle faster). Times exclude compilation; the two "
          "MLP epoch rows share one transpyle measurement.\n1 BLAS thr = transpyle in a child process with "
          "OPENBLAS_NUM_THREADS=1 (Numba's np.dot calls OpenBLAS; JAX does not use it).")


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as _cache:
        os.environ["TRANSPYLE_CACHE_DIR"] = _cache
        main()
