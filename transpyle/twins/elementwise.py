"""Twins of NumPy's elementwise (filled in below)."""
import numpy as np

from . import twin  # noqa: F401
