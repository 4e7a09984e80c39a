"""Twins of NumPy's order statistics: np.ptp."""
import numpy as np

from . import twin


@twin(np.ptp)
def ptp(a, axis=None, keepdims=False):
    """The range max - min along ``axis``."""
    return np.max(a, axis=axis, keepdims=keepdims) - np.min(a, axis=axis, keepdims=keepdims)


@twin(np.median)
def median(a, axis=None, keepdims=False):
    """The middle value along ``axis`` (the mean of the two middle ones for an even count)."""
    if axis is None:
        s = np.sort(np.ravel(a))
        n = s.shape[0]
        return 0.5 * (s[(n - 1) // 2] + s[n // 2])
    s = np.sort(a, axis=axis)
    n = s.shape[axis]
    return 0.5 * (np.take(s, (n - 1) // 2, axis=axis) + np.take(s, n // 2, axis=axis))
