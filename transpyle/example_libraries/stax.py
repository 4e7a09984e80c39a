"""``transpyle.example_libraries.stax``, for code ported from ``jax.example_libraries.stax``: neural
networks as pairs ``(init_fun, apply_fun)``, composed with ``serial``::

    init_fun, apply_fun = stax.serial(stax.Dense(64), stax.Relu, stax.Dense(10), stax.LogSoftmax)
    out_shape, params = init_fun(random.PRNGKey(0), (-1, 28 * 28))
    logits = apply_fun(params, inputs)                  # inside grad, jit and vmap too

``init_fun(rng, input_shape)`` runs eagerly (plain Python with ``transpyle.random`` keys) and returns the
output shape and the layer's parameters: a tuple ``(W, b)`` for ``Dense``, ``()`` for a layer without
parameters, a list of the layers' parameters for ``serial``. ``apply_fun(params, inputs,
rng=None)`` is plain NumPy in the subset the transforms accept: transformed code inlines it like a helper
of the user's own, and a loop over the layers of ``serial`` is unrolled (a tuple of functions is static).
``rng`` is the key of ``Dropout``, split among the layers of ``serial`` as JAX does; JAX passes it as a
keyword (``apply_fun(params, x, rng=key)``), which works here too.

Layers: ``Dense``, the elementwise ``Tanh``, ``Relu``, ``Exp``, ``LogSoftmax``, ``Softmax``, ``Softplus``,
``Sigmoid``, ``Elu``, ``LeakyRelu``, ``Selu``, ``Gelu``, ``Identity``, ``Flatten``, ``Dropout``; the
combinator ``serial`` (nested too). Not provided: convolutions, pooling, ``BatchNorm``, and ``parallel``
with the fan layers (``FanOut``, ``FanInSum``, ``FanInConcat``): their lists of arrays between layers are
not pytrees here; write such blocks as functions of your own. Initial weights follow JAX's
initializers in scale (``glorot_normal``: normal with variance ``2 / (fan_in + fan_out)``; biases normal
with standard deviation 0.01) but are not JAX's numbers.
"""
import numpy as np

from .. import nn, random

__all__ = ["Dense", "Tanh", "Relu", "Exp", "LogSoftmax", "Softmax", "Softplus", "Sigmoid", "Elu", "LeakyRelu",
           "Selu", "Gelu", "Identity", "Flatten", "Dropout", "serial", "glorot_normal", "normal", "zeros", "ones"]


# ---- initializers: functions (key, shape) -> array -------------------------------------------------
def glorot_normal():
    """Normal weights with variance 2 / (fan_in + fan_out) (the two last axes of the shape)."""
    def init(key, shape):
        fan_in, fan_out = (shape[-2], shape[-1]) if len(shape) > 1 else (shape[0], shape[0])
        return random.normal(key, shape) * np.sqrt(2.0 / (fan_in + fan_out))
    return init


def normal(stddev=1e-2):
    """Normal values with standard deviation ``stddev``."""
    def init(key, shape):
        return random.normal(key, shape) * stddev
    return init


def zeros(key, shape):
    return np.zeros(shape)


def ones(key, shape):
    return np.ones(shape)


# ---- layers --------------------------------------------------------------------------------------
def Dense(out_dim, W_init=None, b_init=None):
    """A fully connected layer: ``inputs @ W + b``, ``W`` of shape (input features, out_dim)."""
    W_init = W_init or glorot_normal()
    b_init = b_init or normal()

    def init_fun(rng, input_shape):
        k1, k2 = random.split(rng)
        return tuple(input_shape[:-1]) + (out_dim,), (W_init(k1, (input_shape[-1], out_dim)),
                                                      b_init(k2, (out_dim,)))

    def apply_fun(params, inputs, rng=None):
        W, b = params
        return inputs @ W + b
    return init_fun, apply_fun


def _shape_kept(rng, input_shape):
    return input_shape, ()


def _elementwise(fun):
    """A layer without parameters applying ``fun`` to its inputs."""
    def apply_fun(params, inputs, rng=None):
        return fun(inputs)
    return _shape_kept, apply_fun


def _log_softmax_last(x):
    return nn.log_softmax(x, axis=-1)


def _softmax_last(x):
    return nn.softmax(x, axis=-1)


def _identity(x):
    return x


Tanh = _elementwise(np.tanh)
Relu = _elementwise(nn.relu)
Exp = _elementwise(np.exp)
LogSoftmax = _elementwise(_log_softmax_last)
Softmax = _elementwise(_softmax_last)
Softplus = _elementwise(nn.softplus)
Sigmoid = _elementwise(nn.sigmoid)
Elu = _elementwise(nn.elu)
LeakyRelu = _elementwise(nn.leaky_relu)
Selu = _elementwise(nn.selu)
Gelu = _elementwise(nn.gelu)
Identity = _elementwise(_identity)


def _flatten_shape(rng, input_shape):
    return (input_shape[0], int(np.prod(input_shape[1:]))), ()


def _flatten_apply(params, inputs, rng=None):
    return np.reshape(inputs, (inputs.shape[0], -1))


Flatten = (_flatten_shape, _flatten_apply)


def Dropout(rate, mode="train"):
    """Keeps each input with probability ``rate`` (JAX's meaning: the kept fraction), scaled by 1 / rate,
    in ``mode="train"``; ``apply_fun`` then needs ``rng``. Any other mode passes the inputs through."""
    def apply_fun(params, inputs, rng=None):
        if mode != "train":
            return inputs
        if rng is None:
            raise ValueError("Dropout needs a PRNG key: apply_fun(params, inputs, rng=key)")
        keep = random.bernoulli(rng, rate, inputs.shape)
        return np.where(keep, inputs / rate, 0.0)
    return _shape_kept, apply_fun


# ---- combinators ---------------------------------------------------------------------------------
def serial(*layers):
    """The layers one after another; the parameters are the list of the layers' parameters."""
    count = len(layers)
    init_funs = tuple(layer[0] for layer in layers)
    apply_funs = tuple(layer[1] for layer in layers)

    def init_fun(rng, input_shape):
        params = []
        for init in init_funs:
            rng, layer_rng = random.split(rng)
            input_shape, param = init(layer_rng, input_shape)
            params.append(param)
        return input_shape, params

    def apply_fun(params, inputs, rng=None):
        if rng is None:
            for fun, param in zip(apply_funs, params):
                inputs = fun(param, inputs)
            return inputs
        rngs = random.split(rng, count)
        for i, (fun, param) in enumerate(zip(apply_funs, params)):
            inputs = fun(param, inputs, rngs[i])
        return inputs
    return init_fun, apply_fun

