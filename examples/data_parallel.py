"""Data-parallel gradient descent with pmap: each core takes the gradient of the loss on its shard
of the examples, lax.pmean averages the shards' gradients, and every shard takes the same step.
With equal shards this is full-batch gradient descent, which the script checks.

    python examples/data_parallel.py
"""
import numpy as np

import transpyle
from transpyle import lax


def loss(w, X, y):
    p = 1.0 / (1.0 + np.exp(-(X @ w)))
    return -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))


def update(w, X, y, lr):
    g = transpyle.grad(loss)(w, X, y)        # this shard's gradient
    g = lax.pmean(g, 'data')                 # the mean over the shards: the full-batch gradient
    return w - lr * g


def main(steps=100, lr=1.0):
    devices = transpyle.local_device_count()
    rng = np.random.default_rng(0)
    X = rng.normal(size=(devices * 500, 3))
    w_true = np.array([1.5, -2.0, 0.5])
    y = (rng.uniform(size=X.shape[0]) < 1.0 / (1.0 + np.exp(-X @ w_true))).astype(float)
    step = transpyle.pmap(update, axis_name='data', in_axes=(None, 0, 0, None), out_axes=None)
    Xs, ys = X.reshape(devices, -1, 3), y.reshape(devices, -1)     # one shard of examples per core
    w = np.zeros(3)
    for _ in range(steps):
        w = step(w, Xs, ys, lr)
    grad = transpyle.grad(loss)
    w_one = np.zeros(3)
    for _ in range(steps):
        w_one = w_one - lr * grad(w_one, X, y)
    print(f"{devices} shards: w = {np.round(w, 3)}; one process: {np.round(w_one, 3)}; true: {w_true}")
    return w, w_one


if __name__ == "__main__":
    main()
