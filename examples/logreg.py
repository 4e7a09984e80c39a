"""Logistic-regression loss written as a plain Python loop, differentiated with transpyle.

    python examples/logreg.py                              # gradient on synthetic data
    transpyle show examples/logreg.py:loss --mode grad     # the generated gradient code
"""
import math

import numpy as np

import transpyle


def loss(w, X, y):
    r = 0.0
    for i in range(X.shape[0]):
        p = 1.0 / (1.0 + math.exp(-np.dot(X[i], w)))
        r -= y[i] * math.log(p) + (1 - y[i]) * math.log(1 - p)
    return r / X.shape[0]


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    n_samples, n_features = 200, 3
    X = rng.normal(size=(n_samples, n_features))
    w_true = np.array([1.5, -2.0, 0.5])
    y = (X @ w_true + 0.5 * rng.normal(size=n_samples) > 0).astype(np.float64)
    w = np.zeros(n_features)

    g = transpyle.grad(loss)(w, X, y)
    print("loss at w = 0:", loss(w, X, y))
    print("gradient:     ", g)
