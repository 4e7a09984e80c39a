"""Entries of the NumPy surface table (tests/surface_programs.py) for NumPy's searching written in NumPy
(transpyle/twins): one program per function and variant, `np.sum(w * f(...))` with a random weight."""
import numpy as np

from surface_programs import C, D, I, M, N, P, S, U, Z, apart, _G  # noqa: F401

CASES = []
