"""A 1-D convolution written as loops, its Jacobian with respect to the kernel (jacfwd and
jacrev agree), and a kernel fitted by gradient descent to recover a blur.

    python examples/conv1d.py
"""
import numpy as np

import transpyle


def conv1d(signal, kernel):
    n, k = signal.shape[0], kernel.shape[0]
    out = np.zeros(n - k + 1)
    for i in range(n - k + 1):
        for j in range(k):
            out[i] += signal[i + j] * kernel[j]
    return out


def fit_loss(kernel, signal, target):
    r = conv1d(signal, kernel) - target
    return np.sum(r * r)


def main():
    rng = np.random.default_rng(0)
    signal = rng.normal(size=64)
    true_kernel = np.array([0.25, 0.5, 0.25])
    target = conv1d(signal, true_kernel)
    jf = transpyle.jacfwd(conv1d, argnums=1)(signal, true_kernel)
    jr = transpyle.jacrev(conv1d, argnums=1)(signal, true_kernel)
    print(f"Jacobian w.r.t. the kernel: {jf.shape}, jacfwd vs jacrev max difference {np.max(np.abs(jf - jr)):.1e}")
    grad = transpyle.grad(fit_loss)
    kernel = np.zeros(3)
    for step in range(200):
        kernel = kernel - 0.005 * grad(kernel, signal, target)
    print("fitted kernel", np.round(kernel, 4), "true", true_kernel)
    return kernel


if __name__ == "__main__":
    main()
