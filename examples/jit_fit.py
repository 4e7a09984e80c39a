"""Linear regression fitted by gradient descent inside a jitted loop, with the loss as a static
argument: mean squared error, ridge and lasso, each compiled into one function with its gradient.

    python examples/jit_fit.py
"""
import numpy as np

import transpyle


def mse(w, x, y):
    r = x @ w - y
    return np.sum(r * r) / x.shape[0]


def ridge(w, x, y):
    return mse(w, x, y) + 0.1 * np.sum(w * w)


def lasso(w, x, y):
    return mse(w, x, y) + 0.05 * np.sum(np.abs(w))


def fit(w0, x, y, loss, steps, lr):
    grad = transpyle.grad(loss)          # built when fit is compiled: loss is static
    w = w0.copy()
    for step in range(steps):
        w = w - lr * grad(w, x, y)
    return w


def main():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 5))
    w_true = np.array([2.0, -1.0, 0.0, 0.5, 0.0])
    y = x @ w_true + 0.1 * rng.normal(size=200)
    fit_jit = transpyle.jit(fit, static_argnums=(3, 4))
    print("true weights      ", w_true)
    for loss in (mse, ridge, lasso):
        w = fit_jit(np.zeros(5), x, y, loss, 500, 0.05)
        print(f"{loss.__name__:6} fitted weights", np.round(w, 3), f"loss {loss(w, x, y):.4f}")
    return w


if __name__ == "__main__":
    main()
