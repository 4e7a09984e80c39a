"""An MLP whose parameters are a list of dicts, trained on a synthetic regression task.

The training epoch is one jitted function: it loops over minibatches, takes `grad` of the loss
with respect to the whole parameter list (the gradient has the same list-of-dict structure) and
updates every leaf with `tree.map`. Per-example gradients come from `vmap(grad(loss))` and are
clipped per example before averaging (the clipped update of differentially private SGD).

    python examples/mlp_pytree.py          # writes mlp_pytree_loss.png beside it if matplotlib is installed
"""
from pathlib import Path

import numpy as np

import transpyle
from transpyle import tree


def init_params(rng, sizes):
    return [{"W": rng.normal(size=(m, n)) / np.sqrt(m), "b": np.zeros(n)} for m, n in zip(sizes, sizes[1:])]


def predict(params, x):
    *hidden, last = params
    h = x
    for layer in hidden:
        h = np.tanh(h @ layer["W"] + layer["b"])
    return h @ last["W"] + last["b"]


def loss(params, x, y):
    r = predict(params, x) - y
    return np.sum(r * r) / x.shape[0]


def epoch(params, x, y, batch, lr):
    g = transpyle.grad(loss)
    for start in range(0, x.shape[0], batch):
        grads = g(params, x[start:start + batch], y[start:start + batch])
        params = tree.map(lambda p, d: p - lr * d, params, grads)
    return params


def clipped_mean(per_example, bound):
    """Average of per-example gradients, each scaled down to a global norm of at most ``bound``."""
    leaves = tree.leaves(per_example)
    n = leaves[0].shape[0]
    norms = np.sqrt(sum(np.sum(leaf.reshape(n, -1) ** 2, axis=1) for leaf in leaves))
    scale = np.minimum(1.0, bound / norms)
    return tree.map(lambda leaf: np.tensordot(scale, leaf, axes=1) / n, per_example)


def synthetic(rng, n):
    x = rng.uniform(-2, 2, size=(n, 2))
    y = (np.sin(x[:, 0]) + 0.5 * x[:, 1] ** 2)[:, None]
    return x, y


def main(epochs=30, plot=True, sizes=(2, 32, 32, 1)):
    rng = np.random.default_rng(0)
    x, y = synthetic(rng, 2048)
    params = init_params(rng, list(sizes))
    train = transpyle.jit(epoch, static_argnums=3)
    history = [loss(params, x, y)]
    for _ in range(epochs):
        params = train(params, x, y, 64, 0.05)
        history.append(loss(params, x, y))
    print(f"loss {history[0]:.4f} -> {history[-1]:.4f} after {epochs} epochs "
          f"({len(params)} layers: " + ", ".join(f"W{tuple(p['W'].shape)}" for p in params) + ")")

    per_example = transpyle.vmap(transpyle.grad(loss), in_axes=(None, 0, 0))(params, x[:256, None], y[:256, None])
    update = clipped_mean(per_example, bound=1.0)
    print("per-example gradients:", [tuple(p["W"].shape) for p in per_example],
          "clipped mean norm %.4f" % np.sqrt(sum(np.sum(leaf ** 2) for leaf in tree.leaves(update))))
    if plot:
        _plot(history)
    return history, per_example, params


def _plot(history):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    path = Path(__file__).with_name("mlp_pytree_loss.png")
    plt.figure(figsize=(5, 3))
    plt.semilogy(history)
    plt.xlabel("epoch")
    plt.ylabel("training loss")
    plt.tight_layout()
    plt.savefig(path, dpi=100)
    print(f"loss curve written to {path}")


if __name__ == "__main__":
    main()
