"""Twins of NumPy's interpolation (filled in below)."""
import numpy as np

from . import twin  # noqa: F401
