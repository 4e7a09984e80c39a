"""``transpyle demo``: fit a logistic regression written as a plain Python loop, with transpyle.grad.

The model and its loss are ordinary Python (a loop over samples, ``math.exp``, ``np.dot``); the
gradient is generated from that source and compiled with Numba. The demo draws synthetic data,
checks the gradient once against central finite differences, runs gradient descent while
printing progress, and times one gradient on the numba and numpy backends.
"""
import math
import time

import numpy as np

from . import api


def loss(w, b, X, y, l2):
    """Mean negative log-likelihood of a logistic model, plus an L2 penalty on ``w``."""
    r = 0.0
    for i in range(X.shape[0]):
        z = np.dot(X[i], w) + b
        # log(1 + exp(-|z|)) keeps both branches finite for large |z|
        if z >= 0.0:
            r += math.log1p(math.exp(-z)) + (1.0 - y[i]) * z
        else:
            r += math.log1p(math.exp(z)) - y[i] * z
    return r / X.shape[0] + 0.5 * l2 * np.dot(w, w)


def synthetic_data(n_samples=4000, n_features=8, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, n_features))
    w_true = rng.normal(size=n_features)
    b_true = 0.3
    p = 1.0 / (1.0 + np.exp(-(X @ w_true + b_true)))
    y = (rng.random(n_samples) < p).astype(np.float64)
    return X, y, w_true, b_true


def finite_difference_gradient(f, w, args, eps=1e-6):
    g = np.zeros_like(w)
    for k in range(w.size):
        step = np.zeros_like(w)
        step[k] = eps
        g[k] = (f(w + step, *args) - f(w - step, *args)) / (2 * eps)
    return g


def _time_per_call(fn, args, min_seconds=0.3):
    fn(*args)
    calls, start = 0, time.perf_counter()
    while True:
        fn(*args)
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            return elapsed / calls


def main(steps=200, learning_rate=0.5, l2=1e-3):
    X, y, w_true, b_true = synthetic_data()
    n, d = X.shape
    print(f"transpyle demo: logistic regression on {n} synthetic samples with {d} features")
    print("  the loss is a Python loop over samples; transpyle.grad differentiates its source\n")

    grad = api.grad(loss, argnums=(0, 1))
    start = time.perf_counter()
    w, b = np.zeros(d), 0.0
    gw, gb = grad(w, b, X, y, l2)
    print(f"generated and compiled the gradient in {time.perf_counter() - start:.2f} s")

    rng = np.random.default_rng(1)
    w_check, b_check = rng.normal(size=d), 0.1
    gw, gb = grad(w_check, b_check, X, y, l2)
    fd_w = finite_difference_gradient(lambda v, *a: loss(v, *a), w_check, (b_check, X, y, l2))
    fd_b = (loss(w_check, b_check + 1e-6, X, y, l2) - loss(w_check, b_check - 1e-6, X, y, l2)) / 2e-6
    err = max(np.max(np.abs(gw - fd_w)) / max(np.max(np.abs(fd_w)), 1e-12), abs(gb - fd_b) / max(abs(fd_b), 1e-12))
    status = "ok" if err < 1e-6 else "MISMATCH"
    print(f"gradient vs central finite differences at a random point: max relative error {err:.1e} [{status}]\n")

    print(f"{'step':>6} {'loss':>10} {'|grad|':>10}")
    for step in range(steps + 1):
        gw, gb = grad(w, b, X, y, l2)
        if step % 25 == 0:
            norm = math.sqrt(float(np.dot(gw, gw)) + gb * gb)
            print(f"{step:>6} {loss(w, b, X, y, l2):>10.5f} {norm:>10.2e}")
        w = w - learning_rate * gw
        b = b - learning_rate * gb
    cosine = float(np.dot(w, w_true) / (np.linalg.norm(w) * np.linalg.norm(w_true)))
    print(f"\nfitted bias {b:+.3f} (true {b_true:+.3f}); cosine(fitted w, true w) = {cosine:.3f}")

    print("\ntime per gradient (same generated source, two backends):")
    t_numba = _time_per_call(grad, (w, b, X, y, l2))
    t_numpy = _time_per_call(api.grad(loss, argnums=(0, 1), backend="numpy"), (w, b, X, y, l2))
    t_primal = _time_per_call(loss, (w, b, X, y, l2))
    print(f"  numba backend  {t_numba * 1e3:9.3f} ms")
    print(f"  numpy backend  {t_numpy * 1e3:9.3f} ms   ({t_numpy / t_numba:.0f}x slower: plain Python loops)")
    print(f"  (the loss itself, interpreted Python: {t_primal * 1e3:.3f} ms)")
    return 0 if status == "ok" else 1


if __name__ == "__main__":
    raise SystemExit(main())
