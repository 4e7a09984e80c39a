"""Structured control flow with JAX's names and semantics (``fori_loop``, ``while_loop``, ``cond``, ``switch``,
``scan``, ``map``, ``select``), ``stop_gradient``, ``dynamic_slice`` and ``dynamic_update_slice`` (primitives),
and pmap's collectives (``psum``, ``pmean``, ``pmax``, ``pmin``: markers pmap carries out, runtime/collectives.py).

Each is a plain Python function. In transformed code it is inlined like any helper, and the
functions passed to it are inlined in turn, so it becomes an ordinary loop or branch: differentiable
in both modes (reverse mode through ``while_loop`` too, which JAX refuses) and batchable by vmap.
Called outside transformed code they run as Python.
"""
import numpy as np

from . import runtime as rt


def fori_loop(lower, upper, body_fun, init_val):
    """``val = body_fun(i, val)`` for ``i`` in ``range(lower, upper)``, starting from ``init_val``."""
    val = init_val
    for i in range(lower, upper):
        val = body_fun(i, val)
    return val


def while_loop(cond_fun, body_fun, init_val):
    """``val = body_fun(val)`` while ``cond_fun(val)``, starting from ``init_val``."""
    val = init_val
    while cond_fun(val):
        val = body_fun(val)
    return val


def cond(pred, true_fun, false_fun, operand):
    """``true_fun(operand)`` if ``pred`` else ``false_fun(operand)`` (one operand; pass a tuple for more)."""
    if pred:
        return true_fun(operand)
    return false_fun(operand)


def switch(index, branches, operand):
    """``branches[index](operand)``, with ``index`` clamped to the valid range as JAX does.
    ``branches`` is a tuple of functions (unrolled: each branch is compiled, one runs)."""
    i = min(max(index, 0), len(branches) - 1)
    result = branches[0](operand)
    k = 0
    for branch in branches:
        if k == i and k > 0:
            result = branch(operand)
        k += 1
    return result


def scan(f, init, xs):
    """``carry, y = f(carry, x)`` for each ``x`` along the first axis of ``xs``; returns the final
    carry and the ``y``s stacked along a new first axis (``y`` one array or number per step)."""
    carry, y = f(init, xs[0])
    ys = rt.stack_like(xs.shape[0], y)
    ys[0] = y
    for i in range(1, xs.shape[0]):
        carry, y = f(carry, xs[i])
        ys[i] = y
    return carry, ys


psum, pmean, pmax, pmin = rt.psum, rt.pmean, rt.pmax, rt.pmin


def select(pred, on_true, on_false):
    """Elementwise ``on_true`` where ``pred`` else ``on_false`` (``np.where``)."""
    return np.where(pred, on_true, on_false)


def map(f, xs):
    """``f(x)`` for each ``x`` along the first axis of ``xs``, stacked along a new first axis (``scan``
    without a carry)."""
    y = f(xs[0])
    ys = rt.stack_like(xs.shape[0], y)
    ys[0] = y
    for i in range(1, xs.shape[0]):
        ys[i] = f(xs[i])
    return ys


stop_gradient = rt.stop_gradient
# slices at positions known at run time, of sizes known when compiled: primitives (rules/dynamic_slices.py)
dynamic_slice = rt.dynamic_slice
dynamic_update_slice = rt.dynamic_update_slice
