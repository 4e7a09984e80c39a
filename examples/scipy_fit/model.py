"""A model written as plain loops: a sum of tanh units fitted to noisy samples, and the Robertson
chemical kinetics (a stiff ODE). `transpyle compile` turns them into `fit_ad.py` and `ode_ad.py`."""
import math

import numpy as np


def loss(theta, t, y):
    """Mean squared error of a sum of tanh units, sum_k a_k tanh(w_k t + c_k), against samples y
    (theta holds a_k, w_k, c_k for each unit)."""
    units = theta.shape[0] // 3
    r = 0.0
    for i in range(t.shape[0]):
        m = 0.0
        for k in range(units):
            m += theta[3 * k] * math.tanh(theta[3 * k + 1] * t[i] + theta[3 * k + 2])
        r += (m - y[i]) ** 2
    return 0.5 * r / t.shape[0]


def robertson(y, k):
    """dy/dt of the Robertson problem; k holds the three rate constants."""
    out = np.empty(3)
    out[0] = -k[0] * y[0] + k[2] * y[1] * y[2]
    out[1] = k[0] * y[0] - k[2] * y[1] * y[2] - k[1] * y[1] * y[1]
    out[2] = k[1] * y[1] * y[1]
    return out
