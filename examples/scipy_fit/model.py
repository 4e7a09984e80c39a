"""A model written as plain loops: a damped oscillation fitted to noisy samples, and the Robertson
chemical kinetics (a stiff ODE). `transpyle compile` turns them into `fit_ad.py` and `ode_ad.py`."""
import math

import numpy as np


def loss(theta, t, y):
    """Half the squared error of a * exp(-b t) * cos(w t + phi) against the samples y."""
    a, b, w, phi = theta[0], theta[1], theta[2], theta[3]
    r = 0.0
    for i in range(t.shape[0]):
        m = a * math.exp(-b * t[i]) * math.cos(w * t[i] + phi)
        r += (m - y[i]) ** 2
    return 0.5 * r


def robertson(y, k):
    """dy/dt of the Robertson problem; k holds the three rate constants."""
    out = np.empty(3)
    out[0] = -k[0] * y[0] + k[2] * y[1] * y[2]
    out[1] = k[0] * y[0] - k[2] * y[1] * y[2] - k[1] * y[1] * y[1]
    out[2] = k[1] * y[1] * y[1]
    return out
