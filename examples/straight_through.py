"""A straight-through estimator with stop_gradient: the forward pass rounds the weights, the
gradient passes through the rounding as if it were the identity. Fits quantized weights.

    python examples/straight_through.py
"""
import numpy as np

import transpyle
from transpyle import stop_gradient


def quantized_loss(w, x, y):
    q = w + stop_gradient(np.round(w * 4.0) / 4.0 - w)      # value: w rounded to quarters
    r = x @ q - y
    return np.sum(r * r) / x.shape[0]


def main():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(100, 3))
    y = x @ np.array([0.75, -1.25, 0.5])
    grad = transpyle.grad(quantized_loss)
    w = np.zeros(3)
    for step in range(300):
        w = w - 0.05 * grad(w, x, y)
    print("latent weights   ", np.round(w, 3))
    print("quantized weights", np.round(w * 4.0) / 4.0, f"loss {quantized_loss(w, x, y):.2e}")
    return w


if __name__ == "__main__":
    main()
