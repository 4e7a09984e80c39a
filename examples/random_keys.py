"""Random numbers with explicit keys: noisy regression data drawn from split keys, a jitted fit
whose gradient uses a fresh dropout mask (bernoulli) at every step, and an ensemble of perturbed
predictions with vmap over a stack of keys. Every number comes from one seed, so a run repeats
exactly, eagerly or compiled. In expectation, dropping weights with probability ``rate`` (and
scaling the kept ones by 1 / (1 - rate)) adds the ridge penalty rate / (1 - rate) * |w|^2 for these
unit-variance inputs, so the fit lands near (1 - rate) * w_true.

    python examples/random_keys.py
"""
import numpy as np

import transpyle
from transpyle import random


def make_data(key, n, w_true):
    kx, knoise = random.split(key)
    x = random.normal(kx, (n, w_true.shape[0]))
    y = x @ w_true + 0.1 * random.normal(knoise, (n,))
    return x, y


def dropout_loss(w, x, y, key, rate):
    keep = random.bernoulli(key, 1.0 - rate, w.shape)       # drop each weight with probability rate
    w_dropped = np.where(keep, w / (1.0 - rate), 0.0)
    r = x @ w_dropped - y
    return np.sum(r * r) / x.shape[0]


def fit(w, x, y, key, steps, lr, rate):
    grad = transpyle.grad(dropout_loss)
    for step in range(steps):
        key, sub = random.split(key)                          # a new mask at every step
        w = w - lr * grad(w, x, y, sub, rate)
    return w


def perturbed_prediction(key, w, x):
    return x @ (w + 0.05 * random.normal(key, w.shape))


def main():
    key = random.key(0)
    key, kdata, kfit, kens = random.split(key, 4)
    w_true = np.array([1.5, -2.0, 0.0, 0.5])
    x, y = make_data(kdata, 500, w_true)

    w = transpyle.jit(fit)(np.zeros(4), x, y, kfit, 400, 0.02, 0.1)
    print("true weights  ", w_true)
    print("fitted weights", np.round(w, 3))

    keys = random.split(kens, 16)
    ensemble = transpyle.vmap(perturbed_prediction, in_axes=(0, None, None))(keys, w, x[:5])
    looped = np.array([perturbed_prediction(k, w, x[:5]) for k in keys])
    print("ensemble of 16 perturbed predictions, spread per example:", np.round(ensemble.std(axis=0), 3))
    print("vmap over keys equals the loop:", np.array_equal(ensemble, looped))
    return w, ensemble, looped


if __name__ == "__main__":
    main()
