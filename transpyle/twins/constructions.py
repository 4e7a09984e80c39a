"""Twins of NumPy's constructions (filled in below)."""
import numpy as np

from . import twin  # noqa: F401
