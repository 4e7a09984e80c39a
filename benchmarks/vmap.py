"""Per-example gradients with vmap(grad): transpyle against JAX and a Python loop.

    python benchmarks/vmap.py

One table from one run:
- logistic regression, B = 100 000 examples, d = 64: per-example gradient of the loss w.r.t. w;
- the damped pendulum of benchmarks/loop_grad.py, B = 10 000 parameter pairs, n = 1 000 steps:
  per-example gradient w.r.t. (k, c).
Columns: transpyle vmap(grad) by loop lifting (the numba default) on all threads and on one thread
(numba.set_num_threads), by array lifting compiled with Numba and run by plain NumPy (the numpy
backend's default), JAX jit(vmap(grad)) on CPU (when JAX is installed: the `bench` extra), and a
Python loop calling the compiled transpyle grad per example (on a subset, scaled to B). All results
are checked against each other. This is a script, not a test.
"""
import math
import os
import sys
import time

import numba
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import transpyle  # noqa: E402
from timing import best_time, optional_jax, rel_err  # noqa: E402

B_LOGISTIC, D = 100_000, 64
B_PENDULUM, STEPS = 10_000, 1_000


def logistic_loss(w, x, y):
    z = np.dot(x, w)
    if z >= 0.0:
        return math.log1p(math.exp(-z)) + (1.0 - y) * z
    return math.log1p(math.exp(z)) - y * z


def pendulum(p, n):
    k = p[0]
    c = p[1]
    th = 1.0
    om = 0.0
    for i in range(n):
        a = -k * math.sin(th) - c * om
        th = th + 0.01 * om
        om = om + 0.01 * a
    return th * th + om * om


def jax_programs():
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)

    def jlogistic(w, x, y):
        z = jnp.dot(x, w)
        return jnp.logaddexp(0.0, -z) + (1.0 - y) * z

    def jpendulum(p, n):
        def step(i, s):
            th, om = s
            a = -p[0] * jnp.sin(th) - p[1] * om
            return th + 0.01 * om, om + 0.01 * a
        th, om = jax.lax.fori_loop(0, n, step, (1.0, 0.0))
        return th * th + om * om

    return {"logistic": jax.jit(jax.vmap(jax.grad(jlogistic), in_axes=(None, 0, 0))),
            "pendulum": jax.jit(jax.vmap(jax.grad(jpendulum), in_axes=(0, None)), static_argnums=1),
            "version": jax.__version__}


def main():
    rng = np.random.default_rng(0)
    w = rng.normal(size=D) * 0.1
    x = rng.normal(size=(B_LOGISTIC, D))
    y = (rng.random(B_LOGISTIC) < 0.5).astype(np.float64)
    params = np.stack([rng.uniform(0.5, 2.0, B_PENDULUM), rng.uniform(0.0, 0.1, B_PENDULUM)], axis=1)

    cases = [
        (f"logistic regression, B={B_LOGISTIC}, d={D}", "logistic", logistic_loss, (None, 0, 0), (w, x, y),
         lambda i: (w, x[i], y[i])),
        (f"pendulum loop, B={B_PENDULUM}, n={STEPS}", "pendulum", pendulum, (0, None), (params, STEPS),
         lambda i: (params[i], STEPS)),
    ]
    jx = optional_jax(jax_programs)
    threads = numba.get_num_threads()
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, numba {numba.__version__}, "
          f"jax {jx['version'] if jx else 'absent'}, {threads} threads; best of 5\n")
    head = f"{'case':36} | {'vmap(grad)':11} | {'1 thread':11} | {'speedup':7} | {'array numba':11} | " \
           f"{'array numpy':11} | {'JAX jit':11} | {'vs JAX':7} | {'Python loop':11} | agreement"
    print(head)
    print("-" * len(head))
    for label, key, fn, in_axes, args, example in cases:
        batched = transpyle.vmap(transpyle.grad(fn), in_axes=in_axes)
        got = batched(*args)
        t_all = best_time(lambda: batched(*args))
        numba.set_num_threads(1)
        t_one = best_time(lambda: batched(*args))
        numba.set_num_threads(threads)
        single = transpyle.grad(fn)
        subset = 2000
        t0 = time.perf_counter()
        looped = np.stack([single(*example(i)) for i in range(subset)])
        t_loop = (time.perf_counter() - t0) * len(got) / subset
        agree = [f"loop {rel_err(got[:subset], looped):.0e}"]
        t_array = {}
        for backend in ("numba", "numpy"):
            lifted = transpyle.vmap(transpyle.grad(fn, backend=backend), in_axes=in_axes, backend=backend,
                                    strategy="array")
            agree.append(f"array {backend} {rel_err(got, lifted(*args)):.0e}")
            t_array[backend] = best_time(lambda: lifted(*args), repeat=3)
        t_jax = None
        if jx:
            jfn = jx[key]
            want = np.asarray(jfn(*args))
            t_jax = best_time(lambda: jfn(*args).block_until_ready())
            agree.append(f"jax {rel_err(got, want):.0e}")
        jcol = f"{t_jax * 1e3:8.2f} ms" if t_jax else "     -     "
        ratio = f"{t_all / t_jax:6.2f}x" if t_jax else "   -   "
        print(f"{label:36} | {t_all * 1e3:8.2f} ms | {t_one * 1e3:8.2f} ms | {t_one / t_all:6.2f}x | "
              f"{t_array['numba'] * 1e3:8.2f} ms | {t_array['numpy'] * 1e3:8.2f} ms | {jcol} | "
              f"{ratio} | {t_loop * 1e3:8.1f} ms | {', '.join(agree)}")
    print("\nvs JAX = transpyle time / JAX time (below 1: transpyle faster); speedup = 1 thread / all threads.")


if __name__ == "__main__":
    main()
