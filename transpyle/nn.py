"""``transpyle.nn``, for code ported from ``jax.nn``: activation functions, softmax and its logarithm,
``one_hot`` and ``standardize``.

Each is plain NumPy in the subset the transforms accept, so called eagerly it runs as NumPy, and in
transformed code (grad, jit, vmap, ...) it is inlined like a helper of the user's own, with the
derivatives of the operations it is made of. They are written in numerically stable forms: no
``exp`` of a large positive number, and softmax's shift by the maximum carries no derivative. At the
kinks the derivatives are JAX's: ``relu`` has slope 0 at 0, ``leaky_relu`` slope 1.
"""
import numpy as np

from . import runtime as _rt
from .scipy.special import expit, logsumexp

__all__ = ["relu", "relu6", "sigmoid", "softplus", "silu", "swish", "gelu", "elu", "celu", "selu", "leaky_relu",
           "hard_tanh", "soft_sign", "log_sigmoid", "softmax", "log_softmax", "logsumexp", "one_hot",
           "standardize"]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def relu(x):
    """max(x, 0), with slope 0 at 0."""
    return np.where(x > 0, x, 0)


def relu6(x):
    """min(max(x, 0), 6), with slope 0 at 0 and at 6."""
    return np.where(x > 0, np.where(x < 6, x, 6), 0)


def sigmoid(x):
    """The logistic function 1 / (1 + exp(-x))."""
    return expit(x)


def softplus(x):
    """log(1 + exp(x)), as max(x, 0) + log1p(exp(-|x|))."""
    return np.where(x >= 0, x, 0.0) + np.log1p(np.exp(-np.abs(x)))


def log_sigmoid(x):
    """log(sigmoid(x)) = -softplus(-x)."""
    return -softplus(-x)


def silu(x):
    """x * sigmoid(x)."""
    return x * expit(x)


swish = silu


def gelu(x, approximate=True):
    """x times the standard normal CDF of x: its tanh approximation by default, with erf for
    ``approximate=False``."""
    # both forms are computed and one kept: a branch on the flag is not yet removed where it is a constant
    tanh_cdf = 0.5 * (1.0 + np.tanh(0.7978845608028654 * (x + 0.044715 * (x * x * x))))
    erf_cdf = 0.5 * (1.0 + _rt.erf(x * 0.7071067811865476))
    return x * np.where(approximate, tanh_cdf, erf_cdf)


def elu(x, alpha=1.0):
    """x for x > 0, alpha * (exp(x) - 1) otherwise."""
    safe = np.where(x > 0, 0.0, x)
    return np.where(x > 0, x, alpha * np.expm1(safe))


def celu(x, alpha=1.0):
    """max(x, 0) + min(0, alpha * (exp(x / alpha) - 1))."""
    safe = np.where(x > 0, 0.0, x)
    return np.where(x > 0, x, alpha * np.expm1(safe / alpha))


def selu(x):
    """The scaled ELU of Klambauer et al. (2017)."""
    return _SELU_SCALE * elu(x, _SELU_ALPHA)


def leaky_relu(x, negative_slope=0.01):
    """x for x >= 0, negative_slope * x otherwise."""
    return np.where(x >= 0, x, negative_slope * x)


def hard_tanh(x):
    """x clipped to [-1, 1], with slope 0 outside (-1, 1)."""
    return np.where(x > 1, 1.0, np.where(x < -1, -1.0, x))


def soft_sign(x):
    """x / (|x| + 1)."""
    return x / (np.abs(x) + 1.0)


def softmax(x, axis=-1):
    """exp(x) normalized to sum 1 along ``axis``."""
    unnormalized = np.exp(x - _rt.stop_gradient(np.max(x, axis=axis, keepdims=True)))
    return unnormalized / np.sum(unnormalized, axis=axis, keepdims=True)


def log_softmax(x, axis=-1):
    """x - logsumexp(x) along ``axis``."""
    shifted = x - _rt.stop_gradient(np.max(x, axis=axis, keepdims=True))
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def one_hot(x, num_classes, dtype=np.float64, axis=-1):
    """1.0 where ``x`` equals the class index, along a new axis ``axis`` of length ``num_classes``
    (all zeros for an index out of range). float64 by default, where JAX's default is float32."""
    hot = np.asarray(np.expand_dims(x, -1) == np.arange(num_classes), dtype=dtype)
    return np.moveaxis(hot, -1, axis)


def standardize(x, axis=-1, epsilon=1e-5):
    """(x - mean) / sqrt(variance + epsilon) along ``axis``, the variance as mean(x^2) - mean^2 (as JAX's)."""
    mean = np.mean(x, axis=axis, keepdims=True)
    variance = np.mean(x * x, axis=axis, keepdims=True) - mean * mean
    return (x - mean) / np.sqrt(variance + epsilon)
