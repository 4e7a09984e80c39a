"""Compile latency of gradients whose shapes once kept Numba compiling for minutes: a 3-D heat
stencil (slice updates in a time loop), a rank-4 softmax (keepdims reductions and broadcasting
divides), a 2-D cavity flow (pressure Poisson iteration and slice updates of p, u, v) and a
horizontal diffusion (nested stencils, as in weather kernels).

Each shape's gradient is compiled in a new process with an empty cache (cold: the first call's
seconds), then again in a new process with that cache (warm start), and timed warm (best per-call
time). ``--timeout S`` bounds each process. Run: ``python benchmarks/compile_shapes.py [names]``.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np


def heat3d(u0, alpha):
    u = u0.copy()
    for t in range(5):
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


def cavity(u, v, p, dt):
    dx = 0.1
    dy = 0.1
    rho = 1.0
    nu = 0.1
    for n in range(3):
        un = u.copy()
        vn = v.copy()
        b = np.zeros_like(p)
        b[1:-1, 1:-1] = rho * (1.0 / dt * ((u[1:-1, 2:] - u[1:-1, :-2]) / (2 * dx)
                                           + (v[2:, 1:-1] - v[:-2, 1:-1]) / (2 * dy))
                               - ((u[1:-1, 2:] - u[1:-1, :-2]) / (2 * dx)) ** 2
                               - 2 * ((u[2:, 1:-1] - u[:-2, 1:-1]) / (2 * dy) * (v[1:-1, 2:] - v[1:-1, :-2]) / (2 * dx))
                               - ((v[2:, 1:-1] - v[:-2, 1:-1]) / (2 * dy)) ** 2)
        for q in range(4):
            pn = p.copy()
            p[1:-1, 1:-1] = (((pn[1:-1, 2:] + pn[1:-1, :-2]) * dy ** 2 + (pn[2:, 1:-1] + pn[:-2, 1:-1]) * dx ** 2)
                             / (2 * (dx ** 2 + dy ** 2))
                             - dx ** 2 * dy ** 2 / (2 * (dx ** 2 + dy ** 2)) * b[1:-1, 1:-1])
            p[:, -1] = p[:, -2]
            p[0, :] = p[1, :]
            p[:, 0] = p[:, 1]
            p[-1, :] = 0.0
        u[1:-1, 1:-1] = (un[1:-1, 1:-1] - un[1:-1, 1:-1] * dt / dx * (un[1:-1, 1:-1] - un[1:-1, :-2])
                         - vn[1:-1, 1:-1] * dt / dy * (un[1:-1, 1:-1] - un[:-2, 1:-1])
                         - dt / (2 * rho * dx) * (p[1:-1, 2:] - p[1:-1, :-2])
                         + nu * (dt / dx ** 2 * (un[1:-1, 2:] - 2 * un[1:-1, 1:-1] + un[1:-1, :-2])
                                 + dt / dy ** 2 * (un[2:, 1:-1] - 2 * un[1:-1, 1:-1] + un[:-2, 1:-1])))
        v[1:-1, 1:-1] = (vn[1:-1, 1:-1] - un[1:-1, 1:-1] * dt / dx * (vn[1:-1, 1:-1] - vn[1:-1, :-2])
                         - vn[1:-1, 1:-1] * dt / dy * (vn[1:-1, 1:-1] - vn[:-2, 1:-1])
                         - dt / (2 * rho * dy) * (p[2:, 1:-1] - p[:-2, 1:-1])
                         + nu * (dt / dx ** 2 * (vn[1:-1, 2:] - 2 * vn[1:-1, 1:-1] + vn[1:-1, :-2])
                                 + dt / dy ** 2 * (vn[2:, 1:-1] - 2 * vn[1:-1, 1:-1] + vn[:-2, 1:-1])))
        u[0, :] = 0.0
        u[:, 0] = 0.0
        u[:, -1] = 0.0
        u[-1, :] = 1.0
        v[0, :] = 0.0
        v[-1, :] = 0.0
        v[:, 0] = 0.0
        v[:, -1] = 0.0
    return np.sum(u ** 2) + np.sum(v ** 2) + np.sum(p ** 2)


def hdiff(f, coeff):
    lap = 4.0 * f[1:-1, 1:-1] - (f[2:, 1:-1] + f[:-2, 1:-1] + f[1:-1, 2:] + f[1:-1, :-2])
    flx = lap[1:, 1:-1] - lap[:-1, 1:-1]
    fly = lap[1:-1, 1:] - lap[1:-1, :-1]
    out = f[2:-2, 2:-2] - coeff * (flx[1:, :] - flx[:-1, :] + fly[:, 1:] - fly[:, :-1])
    return np.sum(out ** 2)


def example_args(name):
    rng = np.random.default_rng(0)
    return {
        "heat3d": lambda: (rng.random((6, 6, 6)), 0.1),
        "softmax4": lambda: (rng.random((2, 3, 4, 5)), rng.random((2, 3, 4, 5))),
        "cavity": lambda: (rng.random((8, 8)), rng.random((8, 8)), rng.random((8, 8)), 0.001),
        "hdiff": lambda: (rng.random((10, 10)), 0.05),
    }[name]()


SHAPES = ("heat3d", "softmax4", "cavity", "hdiff")


def measure_one(name, backend):
    """In this process: seconds of the first call of the gradient, and the best warm call."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import transpyle
    from timing import best_time
    args = example_args(name)
    g = transpyle.grad(globals()[name], backend=backend)
    t0 = time.perf_counter()
    g(*args)
    first = time.perf_counter() - t0
    return {"first_s": first, "warm_us": best_time(lambda: g(*args), repeat=3) * 1e6}


def run_child(name, backend, cache, timeout):
    env = dict(os.environ, TRANSPYLE_CACHE_DIR=cache)
    try:
        out = subprocess.run([sys.executable, __file__, "--child", name, "--backend", backend],
                             env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-2000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", default=list(SHAPES))
    parser.add_argument("--backend", default="numba")
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.child:
        print(json.dumps(measure_one(opts.child, opts.backend)))
        return
    print(f"{'shape':10} {'cold first call s':>18} {'warm start s':>13} {'warm call us':>13}")
    for name in opts.names:
        with tempfile.TemporaryDirectory() as cache:
            cold = run_child(name, opts.backend, cache, opts.timeout)
            warm = run_child(name, opts.backend, cache, opts.timeout) if cold else None
        cold_s = f"{cold['first_s']:.1f}" if cold else f">{opts.timeout:g}"
        warm_s = f"{warm['first_s']:.2f}" if warm else "-"
        call = f"{warm['warm_us']:.1f}" if warm else "-"
        print(f"{name:10} {cold_s:>18} {warm_s:>13} {call:>13}", flush=True)


if __name__ == "__main__":
    main()
