"""Entries of the NumPy surface table (tests/surface_programs.py) for NumPy's order statistics written in NumPy
(transpyle/twins): one program per function and variant, `np.sum(w * f(...))` with a random weight."""
import numpy as np

from surface_programs import C, D, I, M, N, P, S, U, Z, apart, _G  # noqa: F401

CASES = []


def median_all(a, w):
    return np.sum(w * np.median(a))


def median_axis1(a, w):
    return np.sum(w * np.median(a, axis=1))


def ptp_axis0_keepdims(a, w):
    return np.sum(w * np.ptp(a, axis=0, keepdims=True))


CASES += [
    C("np.median", "all, odd count", median_all, D(3, 5), numba=_G),
    C("np.median", "axis=1, even count", median_axis1, D(3, 4)),
    C("np.ptp", "axis=0, keepdims", ptp_axis0_keepdims, D(3, 4), numba=_G),
]
