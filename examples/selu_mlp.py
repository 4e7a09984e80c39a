"""A two-layer network with SELU activations trained on a synthetic regression task: the loss is a
Python loop over examples, the gradient comes from transpyle.grad with respect to four weight
arrays at once, and per-example gradient norms from vmap(grad).

    python examples/selu_mlp.py
"""
import time

import numpy as np

import transpyle

ALPHA, SCALE = 1.6732632423543772, 1.0507009873554805


def selu(z):
    return SCALE * np.where(z > 0.0, z, ALPHA * (np.exp(np.minimum(z, 0.0)) - 1.0))


def predict(w1, b1, w2, b2, x):
    h = selu(w1 @ x + b1)
    return np.dot(w2, h) + b2


def example_loss(w1, b1, w2, b2, x, y):
    r = predict(w1, b1, w2, b2, x) - y
    return r * r


def loss(w1, b1, w2, b2, xs, ys):
    total = 0.0
    for i in range(xs.shape[0]):
        total += example_loss(w1, b1, w2, b2, xs[i], ys[i])
    return total / xs.shape[0]


def main(steps=300, lr=0.05):
    rng = np.random.default_rng(0)
    xs = rng.uniform(-2.0, 2.0, size=(256, 2))
    ys = np.sin(xs[:, 0]) * np.cos(xs[:, 1])
    w1, b1 = rng.normal(size=(16, 2)) * 0.5, np.zeros(16)
    w2, b2 = rng.normal(size=16) * 0.25, 0.0
    grad = transpyle.grad(loss, argnums=(0, 1, 2, 3))
    start = time.perf_counter()
    first = loss(w1, b1, w2, b2, xs, ys)
    for step in range(steps):
        g1, gb1, g2, gb2 = grad(w1, b1, w2, b2, xs, ys)
        w1, b1, w2, b2 = w1 - lr * g1, b1 - lr * gb1, w2 - lr * g2, b2 - lr * gb2
    last = loss(w1, b1, w2, b2, xs, ys)
    print(f"loss {first:.4f} -> {last:.4f} after {steps} steps ({time.perf_counter() - start:.1f} s incl. compile)")
    per_example = transpyle.vmap(transpyle.grad(example_loss, argnums=2), in_axes=(None, None, None, None, 0, 0))
    norms = np.linalg.norm(per_example(w1, b1, w2, b2, xs, ys), axis=1)
    print(f"per-example gradient norms of the output layer: median {np.median(norms):.3f}, max {norms.max():.3f}")
    return first, last


if __name__ == "__main__":
    main()
