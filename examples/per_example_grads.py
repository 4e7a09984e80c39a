"""Per-example gradients of a logistic-regression loss with vmap(grad), compared with a loop.

    python examples/per_example_grads.py
"""
import math
import time

import numpy as np

import transpyle


def example_loss(w, x, y):
    z = np.dot(x, w)
    if z >= 0.0:
        return math.log1p(math.exp(-z)) + (1.0 - y) * z
    return math.log1p(math.exp(z)) - y * z


def main():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(20_000, 16))
    y = (rng.random(20_000) < 0.5).astype(np.float64)
    w = rng.normal(size=16) * 0.1
    per_example = transpyle.vmap(transpyle.grad(example_loss), in_axes=(None, 0, 0))
    grads = per_example(w, x, y)
    start = time.perf_counter()
    grads = per_example(w, x, y)
    elapsed = time.perf_counter() - start
    single = transpyle.grad(example_loss)
    check = max(np.max(np.abs(grads[i] - single(w, x[i], y[i]))) for i in range(0, 20_000, 997))
    print(f"per-example gradients: {grads.shape} in {elapsed * 1e3:.1f} ms; max difference from single calls {check:.1e}")
    norms = np.linalg.norm(grads, axis=1)
    print(f"gradient norms: mean {norms.mean():.3f}, max {norms.max():.3f} (e.g. for clipping)")
    return grads


if __name__ == "__main__":
    main()
