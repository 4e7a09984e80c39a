"""A straight-through estimator with custom_vjp: the forward pass rounds the weights to quarters,
the backward pass lets the gradient through the rounding as if it were the identity (the same
derivative as ``w + stop_gradient(quantize(w) - w)``, said directly). Fits quantized weights.

    python examples/straight_through.py
"""
import numpy as np

import transpyle


@transpyle.custom_vjp
def quantize(w):
    return np.round(w * 4.0) / 4.0             # w rounded to quarters


def quantize_fwd(w):
    return quantize(w), ()                     # no residuals


def quantize_bwd(res, g):
    return (g,)                                # straight through: d quantize / dw read as 1


quantize.defvjp(quantize_fwd, quantize_bwd)


def quantized_loss(w, x, y):
    r = x @ quantize(w) - y
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
    print("quantized weights", quantize(w), f"loss {quantized_loss(w, x, y):.2e}")
    return w


if __name__ == "__main__":
    main()
