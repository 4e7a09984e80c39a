"""First-call latency: transpyle against JAX jit on the same functions, each case in a new process.

For each case (a 3-layer MLP, a 50-dim loop function, a 100-step ODE) and transform (grad, jacrev,
hessian, vmap of grad) the script runs a child process with empty caches (transpyle's folder and
Numba's, so that even the run-time helpers compile) and reports:

- ``cold``: seconds of the first call (the NumPy backend answers it while Numba compiles: tiers);
- ``ready``: seconds from the first call until compiled code has answered (the child waits for the
  compile with ``transpyle.wait_compiled()``, then calls again);
- ``warm``: the first call of a second new process that finds the caches the first one filled;
- ``import``: seconds of ``import transpyle`` in the cold process;
- ``jax cold`` and ``jax warm``: the same for ``jax.jit`` of the same transform (warm: JAX's
  persistent compilation cache), when JAX is installed (``pip install -e '.[bench]'``).

``--no-tiers`` measures with ``TRANSPYLE_TIERED=0`` (the first call waits for the compile). Each child
also checks that the first (NumPy) and later (Numba) answers agree. Run:
``python benchmarks/compile_time.py [case ...] [--no-tiers]``.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as onp

CASES = ("mlp_grad", "mlp_jacrev", "mlp_hessian", "mlp_vmap_grad",
         "loop_grad", "loop_jacrev", "loop_hessian", "loop_vmap_grad", "ode_jacrev")


# The measured functions read the array namespace ``np`` at call time: NumPy for transpyle, jax.numpy in
# the JAX child (child_jax rebinds it).
np = onp


def mlp_loss(W1, b1, W2, b2, W3, b3, x, y):
    h1 = np.tanh(x @ W1 + b1)
    h2 = np.tanh(h1 @ W2 + b2)
    out = h2 @ W3 + b3
    return np.mean((out - y) ** 2)


def mlp_out(x, W1, b1, W2, b2, W3, b3):
    h1 = np.tanh(W1 @ x + b1)
    h2 = np.tanh(W2 @ h1 + b2)
    return W3 @ h2 + b3


def loop50(x):
    s = 0.0
    for i in range(49):
        s = s + 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1.0 - x[i]) ** 2
    return s


def ode(y0, k):
    y = y0
    for step in range(100):
        y = y + 0.01 * (np.sin(y) - k * y)
    return y


def arguments(name):
    rng = onp.random.default_rng(0)
    params = [rng.standard_normal((8, 16)), rng.standard_normal(16), rng.standard_normal((16, 16)),
              rng.standard_normal(16), rng.standard_normal((16, 4)), rng.standard_normal(4)]
    x, y = rng.standard_normal((32, 8)), rng.standard_normal((32, 4))
    if name.startswith("mlp_jacrev"):
        return (x[0], params[0].T.copy(), params[1], params[2], params[3], params[4].T.copy(), params[5])
    if name.startswith("mlp_vmap"):
        return (*params, x, y)
    if name.startswith("mlp"):
        return (*params, x, y)
    if name == "loop_vmap_grad":
        return (rng.standard_normal((16, 50)),)
    if name.startswith("loop"):
        return (rng.standard_normal(50),)
    return (rng.standard_normal(8), 0.5)


def transformed(name, lib):
    """The transform of case ``name`` built with ``lib`` (the transpyle or jax module)."""
    mlp_params = (0, 1, 2, 3, 4, 5)
    return {
        "mlp_grad": lambda: lib.grad(mlp_loss, argnums=mlp_params),
        "mlp_jacrev": lambda: lib.jacrev(mlp_out),
        "mlp_hessian": lambda: lib.hessian(mlp_loss, argnums=5),
        "mlp_vmap_grad": lambda: lib.vmap(lib.grad(mlp_loss), in_axes=(None,) * 6 + (0, 0)),
        "loop_grad": lambda: lib.grad(loop50),
        "loop_jacrev": lambda: lib.jacrev(lib.grad(loop50)),
        "loop_hessian": lambda: lib.hessian(loop50),
        "loop_vmap_grad": lambda: lib.vmap(lib.grad(loop50)),
        "ode_jacrev": lambda: lib.jacrev(ode),
    }[name]()


def _flat(out):
    return onp.concatenate([onp.ravel(onp.asarray(o)) for o in (out if isinstance(out, tuple) else (out,))])


def child_transpyle(name):
    t0 = time.perf_counter()
    import transpyle
    imported = time.perf_counter() - t0
    f, args = transformed(name, transpyle), arguments(name)
    t0 = time.perf_counter()
    first = f(*args)
    t1 = time.perf_counter()
    transpyle.wait_compiled()           # the compile the first call started (none when the cache had it)
    second = f(*args)
    t2 = time.perf_counter()
    best = min(_timed(f, args) for _ in range(5))
    diff = float(onp.max(onp.abs(_flat(first) - _flat(second))) / (1 + onp.max(onp.abs(_flat(second)))))
    return {"import": imported, "first": t1 - t0, "ready": t2 - t0, "call_us": best * 1e6, "diff": diff}


def child_jax(name, cache):
    global np
    t0 = time.perf_counter()
    import jax
    np = jax.numpy
    jax.config.update("jax_enable_x64", True)
    if cache:
        jax.config.update("jax_compilation_cache_dir", cache)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
        jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)
    imported = time.perf_counter() - t0
    f, args = jax.jit(transformed(name, jax)), arguments(name)
    t0 = time.perf_counter()
    jax.block_until_ready(f(*args))
    first = time.perf_counter() - t0
    return {"import": imported, "first": first}


def _timed(f, args):
    t0 = time.perf_counter()
    f(*args)
    return time.perf_counter() - t0


def run_child(args, env, timeout):
    try:
        out = subprocess.run([sys.executable, __file__, *args], env=env, capture_output=True, text=True,
                             timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def _have_jax():
    try:
        import importlib.util
        return importlib.util.find_spec("jax") is not None
    except ImportError:
        return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", default=list(CASES))
    parser.add_argument("--no-tiers", action="store_true", help="TRANSPYLE_TIERED=0: the first call compiles")
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--jax-cache", default="", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.child:
        lib, name = opts.child.split(":")
        print(json.dumps(child_transpyle(name) if lib == "transpyle" else child_jax(name, opts.jax_cache)))
        return
    jax = _have_jax()
    print(f"{'case':15} {'import s':>8} {'cold s':>7} {'ready s':>8} {'warm s':>7} {'call us':>8}"
          f" {'jax cold s':>10} {'jax warm s':>10}  numpy/numba answers")
    env = dict(os.environ, TRANSPYLE_COMPILE_NOTICE="0")
    if opts.no_tiers:
        env["TRANSPYLE_TIERED"] = "0"
    for name in opts.cases:
        with tempfile.TemporaryDirectory() as folder:
            caches = dict(env, TRANSPYLE_CACHE_DIR=os.path.join(folder, "transpyle"),
                          NUMBA_CACHE_DIR=os.path.join(folder, "numba"))
            cold = run_child(["--child", f"transpyle:{name}"], caches, opts.timeout)
            warm = run_child(["--child", f"transpyle:{name}"], caches, opts.timeout)
            jcold = jwarm = None
            if jax:
                jcache = os.path.join(folder, "jax")
                jcold = run_child(["--child", f"jax:{name}", "--jax-cache", jcache], env, opts.timeout)
                jwarm = run_child(["--child", f"jax:{name}", "--jax-cache", jcache], env, opts.timeout)
        agree = "agree" if cold["diff"] <= 1e-9 else f"differ by {cold['diff']:.2g} (relative)"
        print(f"{name:15} {cold['import']:8.2f} {cold['first']:7.2f} {cold['ready']:8.2f} {warm['first']:7.2f}"
              f" {warm['call_us']:8.1f} {jcold['first'] if jcold else float('nan'):10.2f}"
              f" {jwarm['first'] if jwarm else float('nan'):10.2f}  {agree}", flush=True)


if __name__ == "__main__":
    main()
