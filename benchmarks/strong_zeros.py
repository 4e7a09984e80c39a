"""The cost of strong zeros (transpyle/rules/strong_zeros.py): gradients of kernels whose rules take the
guard (sqrt, fractional powers, np.maximum, np.where, np.clip), compiled with strong zeros on (the
default) and off (TRANSPYLE_STRONG_ZEROS=0, JAX's convention), timed side by side in one run on the
numba backend with tiers off. Prints each kernel's per-call times, the on/off ratio, whether the gradient
is finite either way, and the geometric mean of the ratios.

Run: ``python benchmarks/strong_zeros.py`` (``--size N`` scales the inputs).
"""
import argparse
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from timing import best_time  # noqa: E402

import transpyle  # noqa: E402


def pairwise_energy(x):
    dx = x[:, None] - x[None, :]
    return np.sum(np.triu(np.sqrt(dx ** 2 + 1e-3), 1))


def relu_network(w, x):
    h = np.maximum(x @ w, 0.0)
    return np.sum(np.maximum(h @ w.T, 0.0) ** 2)


def row_norms(a):
    return np.sum(np.sqrt(np.sum(a * a, axis=1)))


def piecewise(x):
    return np.sum(np.where(x > 0.0, np.sqrt(np.abs(x) + 1.0), x * x))


def clipped_power(u):
    v = np.clip(u, -1.0, 1.0)
    return np.sum(np.abs(v) ** 1.5 + 0.5 * v)


def stencil_with_sqrt(u):
    u = u.copy()
    for t in range(20):
        grad_u = u[1:] - u[:-1]
        flux = np.sqrt(grad_u * grad_u + 1e-2) * grad_u
        u[1:-1] += 0.1 * (flux[1:] - flux[:-1])
    return np.sum(u * u)


def inputs(n, rng):
    m = int(math.sqrt(n))
    return {
        pairwise_energy: (rng.normal(size=m),),
        relu_network: (rng.normal(size=(m, m)), rng.normal(size=(m, m))),
        row_norms: (rng.normal(size=(m, m)),),
        piecewise: (rng.normal(size=n),),
        clipped_power: (2.0 * rng.normal(size=n),),
        stencil_with_sqrt: (rng.normal(size=n),),
    }


def gradient(f, strong):
    os.environ["TRANSPYLE_STRONG_ZEROS"] = "1" if strong else "0"
    try:
        return transpyle.grad(f, backend="numba")
    finally:
        os.environ.pop("TRANSPYLE_STRONG_ZEROS")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=250_000)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    print(f"{'kernel':20s} {'on (ms)':>9s} {'off (ms)':>9s} {'on/off':>7s}  finite on/off")
    ratios = []
    for f, xs in inputs(args.size, rng).items():
        on, off = gradient(f, True), gradient(f, False)
        g_on, g_off = on(*xs), off(*xs)          # compiles (tiers off: timing.py)
        t_on, t_off = best_time(lambda: on(*xs)), best_time(lambda: off(*xs))
        ratios.append(t_on / t_off)
        print(f"{f.__name__:20s} {t_on * 1e3:9.3f} {t_off * 1e3:9.3f} {t_on / t_off:7.2f}  "
              f"{bool(np.all(np.isfinite(g_on)))}/{bool(np.all(np.isfinite(g_off)))}")
    print(f"geometric mean on/off: {math.exp(sum(map(math.log, ratios)) / len(ratios)):.2f}")


if __name__ == "__main__":
    main()
