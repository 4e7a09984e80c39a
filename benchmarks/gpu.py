"""Per-example gradients on the GPU: transpyle's cuda backend against JAX and hand-written Numba-CUDA.

    python benchmarks/gpu.py              # on a machine with an NVIDIA GPU
    python benchmarks/gpu.py --simulate   # tiny sizes in Numba's CUDA simulator: the correctness checks only

One table from one run:
1. damped pendulum, explicit Euler, n = 1 000 steps: per-sample gradient w.r.t. its 2 parameters
   (g, c), B = 65 536 and 1 048 576 (float64);
2. logistic regression, d = 256, B = 524 288, float32: per-example gradient of the loss w.r.t. w.
Columns: transpyle vmap(grad) with backend="cuda" (inputs already on the device, results left
there), JAX jit(vmap(grad)) with lax.fori_loop (when JAX with a GPU is installed), a hand-written
Numba-CUDA kernel (one thread per sample: forward mode for (1), the closed-form gradient for (2)), and for (2) the memory bandwidth each
achieves (bytes of X read and gradients written, over the time). Every result is checked against
the hand-written kernel. This is a script, not a test.
"""
import math
import os
import sys
import time

SIMULATE = "--simulate" in sys.argv
if SIMULATE:
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"        # before numba.cuda is imported

import numpy as np  # noqa: E402
from numba import cuda  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import transpyle  # noqa: E402
from timing import optional_jax, rel_err  # noqa: E402

STEPS = 20 if SIMULATE else 1_000
PENDULUM_BATCHES = (48,) if SIMULATE else (65_536, 1_048_576)
B_LOGISTIC, D = (48, 8) if SIMULATE else (524_288, 256)
DT = 0.01


def pendulum(g, c, x0):
    x, v = x0, 0.0
    for i in range(STEPS):
        a = -g * math.sin(x) - c * v
        x = x + DT * v
        v = v + DT * a
    return x * x + v * v


def logistic_loss(w, x, y):
    z = 0.0
    for j in range(x.shape[0]):
        z += w[j] * x[j]
    if z >= 0.0:
        return math.log1p(math.exp(-z)) + (1.0 - y) * z
    return math.log1p(math.exp(z)) - y * z


@cuda.jit
def pendulum_kernel(g, c, x0, dg, dc):
    """Forward mode by hand: tangents of (x, v) along g and along c, one thread per sample."""
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for i in range(start, g.shape[0], stride):
        x, v = x0[i], 0.0
        xg = vg = xc = vc = 0.0
        for _ in range(STEPS):
            s, co = math.sin(x), math.cos(x)
            a = -g[i] * s - c[i] * v
            ag = -s - g[i] * co * xg - c[i] * vg
            ac = -g[i] * co * xc - v - c[i] * vc
            x, xg, xc = x + DT * v, xg + DT * vg, xc + DT * vc
            v, vg, vc = v + DT * a, vg + DT * ag, vc + DT * ac
        dg[i] = 2.0 * x * xg + 2.0 * v * vg
        dc[i] = 2.0 * x * xc + 2.0 * v * vc


@cuda.jit
def logistic_kernel(w, X, y, out):
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for i in range(start, X.shape[0], stride):
        z = 0.0
        for j in range(X.shape[1]):
            z += w[j] * X[i, j]
        p = 1.0 / (1.0 + math.exp(-z))
        for j in range(X.shape[1]):
            out[i, j] = (p - y[i]) * X[i, j]


def launch(kernel, n, *args):
    threads = 16 if SIMULATE else 128
    kernel[max(1, min(-(-n // threads), 2 if SIMULATE else 4096)), threads](*args)


def gpu_time(fn, repeat=1 if SIMULATE else 5):
    fn()
    cuda.synchronize()
    best = math.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        cuda.synchronize()
        best = min(best, time.perf_counter() - t0)
    return best


def jax_programs():
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)

    def jpendulum(g, c, x0):
        def body(i, s):
            x, v = s
            a = -g * jnp.sin(x) - c * v
            return x + DT * v, v + DT * a
        x, v = jax.lax.fori_loop(0, STEPS, body, (x0, 0.0 * x0))
        return x * x + v * v

    def jlogistic(w, x, y):
        z = jnp.dot(x, w)
        return jnp.logaddexp(0.0, -z) + (1.0 - y) * z

    return (jax.jit(jax.vmap(jax.grad(jpendulum, argnums=(0, 1)))),
            jax.jit(jax.vmap(jax.grad(jlogistic), in_axes=(None, 0, 0))))


def fmt(seconds):
    return "-" if seconds is None else f"{seconds * 1e3:10.3f} ms"


def main():
    rng = np.random.default_rng(0)
    jax_fns = None if SIMULATE else optional_jax(jax_programs)
    rows = []
    tp_pendulum = transpyle.vmap(transpyle.grad(pendulum, argnums=(0, 1)), backend="cuda")
    for B in PENDULUM_BATCHES:
        g, c, x0 = (cuda.to_device(a) for a in (rng.uniform(5, 10, B), rng.uniform(0.1, 0.5, B), rng.uniform(-1, 1, B)))
        dg, dc = cuda.device_array(B), cuda.device_array(B)
        t_hand = gpu_time(lambda: launch(pendulum_kernel, B, g, c, x0, dg, dc))
        ref = (dg.copy_to_host(), dc.copy_to_host())
        got = tp_pendulum(g, c, x0)
        t_tp = gpu_time(lambda: tp_pendulum(g, c, x0))
        err = max(rel_err(a.copy_to_host(), b) for a, b in zip(got, ref))
        t_jax = None
        if jax_fns is not None:
            import jax
            on_gpu = [jax.device_put(h.copy_to_host()) for h in (g, c, x0)]      # JAX's own device arrays
            err = max(err, *(rel_err(np.asarray(a), b) for a, b in zip(jax_fns[0](*on_gpu), ref)))
            t_jax = gpu_time(lambda: [a.block_until_ready() for a in jax_fns[0](*on_gpu)])
        rows.append((f"pendulum n={STEPS} B={B}", t_tp, t_jax, t_hand, err, None))

    w = rng.normal(size=D).astype(np.float32)
    X = cuda.to_device(rng.normal(size=(B_LOGISTIC, D)).astype(np.float32))
    y = cuda.to_device(rng.integers(0, 2, B_LOGISTIC).astype(np.float32))
    out = cuda.device_array((B_LOGISTIC, D), np.float32)
    t_hand = gpu_time(lambda: launch(logistic_kernel, B_LOGISTIC, w, X, y, out))
    ref = out.copy_to_host()
    tp_logistic = transpyle.vmap(transpyle.grad(logistic_loss), in_axes=(None, 0, 0), backend="cuda")
    err = rel_err(tp_logistic(w, X, y).copy_to_host(), ref)
    t_tp = gpu_time(lambda: tp_logistic(w, X, y))
    t_jax = None
    if jax_fns is not None:
        import jax
        on_gpu = [jax.device_put(a) for a in (w, X.copy_to_host(), y.copy_to_host())]
        err = max(err, rel_err(np.asarray(jax_fns[1](*on_gpu)), ref))
        t_jax = gpu_time(lambda: jax_fns[1](*on_gpu).block_until_ready())
    moved = 2 * B_LOGISTIC * D * 4 + B_LOGISTIC * 4          # X read, gradients written, y read
    rows.append((f"logistic d={D} B={B_LOGISTIC} f32", t_tp, t_jax, t_hand, err, moved))

    print("simulated (times are meaningless)" if SIMULATE else f"device: {cuda.get_current_device().name}")
    print(f"{'case':36} {'transpyle cuda':>14} {'JAX jit(vmap)':>14} {'hand Numba-CUDA':>16} {'max rel err':>12}  "
          "bandwidth (transpyle / JAX / hand)")
    for name, t_tp, t_jax, t_hand, err, moved in rows:
        bw = "" if moved is None else " / ".join("-" if t is None else f"{moved / t / 1e9:.0f} GB/s"
                                                 for t in (t_tp, t_jax, t_hand))
        print(f"{name:36} {fmt(t_tp):>14} {fmt(t_jax):>14} {fmt(t_hand):>16} {err:12.2e}  {bw}")
    assert all(err < 1e-4 for *_, err, _ in rows), "the implementations disagree"


if __name__ == "__main__":
    main()
