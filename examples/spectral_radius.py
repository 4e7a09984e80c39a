"""The spectral radius of a matrix by power iteration (a while loop on data), and its gradient with
respect to the matrix, compared with the closed form u v^T / (v^T u) for the dominant eigenpair.

    python examples/spectral_radius.py
"""
import numpy as np

import transpyle


def spectral_radius(a):
    v = np.ones(a.shape[0]) / np.sqrt(a.shape[0])
    lam = 0.0
    change = 1.0
    while change > 1e-13:
        w = a @ v
        new = np.linalg.norm(w)
        v = w / new
        change = abs(new - lam)
        lam = new
    return lam


def main():
    rng = np.random.default_rng(1)
    a = rng.uniform(0.1, 1.0, size=(5, 5))          # positive: a real dominant eigenvalue
    rho = spectral_radius(a)
    g = transpyle.grad(spectral_radius)(a)
    vals, right = np.linalg.eig(a)
    vals_t, left = np.linalg.eig(a.T)
    u = np.real(right[:, np.argmax(np.abs(vals))])
    v = np.real(left[:, np.argmax(np.abs(vals_t))])
    closed = np.outer(v, u) / np.dot(v, u)
    print(f"spectral radius {rho:.6f} (numpy eig: {np.max(np.abs(vals)):.6f})")
    print(f"gradient vs closed form: max difference {np.max(np.abs(g - closed)):.1e}")
    return g, closed


if __name__ == "__main__":
    main()
