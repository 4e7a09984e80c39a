"""``transpyle.example_libraries.optimizers``, for code ported from ``jax.example_libraries.optimizers``:
``sgd``, ``momentum`` and ``adam``, each returning the triple ``(init, update, get_params)``::

    opt_init, opt_update, get_params = optimizers.adam(1e-3)
    opt_state = opt_init(params)
    opt_state = opt_update(step, grads, opt_state)     # inside a jit-compiled step too
    params = get_params(opt_state)

Parameters and gradients are pytrees of arrays and numbers. The state is a tuple of pytrees shaped like
the parameters (the parameters, then each running average), which transformed functions take and return
like any pytree. The functions are plain Python over ``tree.map``, inlined by the transforms like a helper
of the user's own. ``step_size`` is a number or a function of the step number (a schedule).
"""
import collections

import numpy as np

from .. import tree

__all__ = ["Optimizer", "sgd", "momentum", "adam", "constant", "exponential_decay", "inverse_time_decay"]

#: what every optimizer returns: three functions
Optimizer = collections.namedtuple("Optimizer", ["init_fn", "update_fn", "params_fn"])


def constant(step_size):
    """The schedule of a constant step size."""
    def schedule(i):
        return step_size
    return schedule


def exponential_decay(step_size, decay_steps, decay_rate):
    """``step_size * decay_rate ** (i / decay_steps)``."""
    def schedule(i):
        return step_size * decay_rate ** (i / decay_steps)
    return schedule


def inverse_time_decay(step_size, decay_steps, decay_rate):
    """``step_size / (1 + decay_rate * i / decay_steps)``."""
    def schedule(i):
        return step_size / (1.0 + decay_rate * i / decay_steps)
    return schedule


def _schedule(step_size):
    return step_size if callable(step_size) else constant(step_size)


def _zeros(params):
    return tree.map(lambda x: x * 0.0, params)


def sgd(step_size):
    """Gradient descent: ``x - step_size(i) * g``. The state is the parameters."""
    rate = _schedule(step_size)

    def init(params):
        return params

    def update(i, grads, state):
        step = rate(i)
        return tree.map(lambda x, g: x - step * g, state, grads)

    def get_params(state):
        return state
    return Optimizer(init, update, get_params)


def momentum(step_size, mass):
    """Gradient descent with momentum: ``v = mass * v + g``, ``x - step_size(i) * v``. The state is
    ``(params, velocity)``."""
    rate = _schedule(step_size)

    def init(params):
        return params, _zeros(params)

    def update(i, grads, state):
        params, velocity = state
        step = rate(i)
        velocity = tree.map(lambda v, g: mass * v + g, velocity, grads)
        params = tree.map(lambda x, v: x - step * v, params, velocity)
        return params, velocity

    def get_params(state):
        return state[0]
    return Optimizer(init, update, get_params)


def adam(step_size, b1=0.9, b2=0.999, eps=1e-8):
    """Adam (Kingma and Ba, 2015): running averages of the gradient and its square, corrected for their
    start at zero. The state is ``(params, first moment, second moment)``."""
    rate = _schedule(step_size)

    def init(params):
        return params, _zeros(params), _zeros(params)

    def update(i, grads, state):
        params, m, v = state
        step = rate(i)
        m = tree.map(lambda mi, g: (1.0 - b1) * g + b1 * mi, m, grads)
        v = tree.map(lambda vi, g: (1.0 - b2) * (g * g) + b2 * vi, v, grads)
        m_scale = 1.0 / (1.0 - b1 ** (i + 1))
        v_scale = 1.0 / (1.0 - b2 ** (i + 1))
        params = tree.map(lambda x, mi, vi: x - step * (mi * m_scale) / (np.sqrt(vi * v_scale) + eps), params, m, v)
        return params, m, v

    def get_params(state):
        return state[0]
    return Optimizer(init, update, get_params)
