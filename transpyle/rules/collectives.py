"""Collectives over a pmap axis (``lax.psum``, ``pmean``, ``pmax``, ``pmin``): their kinds, and where
they are accepted.

A collective is a marker that ``transpyle/pmap.py`` carries out on the host between two compiled
parts of the mapped function, so the rules here only check: the axis name is a string constant
bound by an enclosing ``pmap`` (``lower`` runs for every call, after ``infer``; an unbound name is
an error at the user's line, as JAX's NameError), and a collective is not differentiated (its vjp
and jvp rules refuse, with the pattern that works instead).
"""
import contextlib
import contextvars

import gast

from .. import runtime as rt
from . import define
from .common import StaticError, floating, same

#: the axis names bound by the pmap whose code is being generated
BOUND_AXES = contextvars.ContextVar("transpyle_bound_axes", default=())

#: primitive key -> what the host does with the shards' values (see pmap.py)
COLLECTIVES = {"lax.psum": "sum", "lax.pmean": "mean", "lax.pmax": "max", "lax.pmin": "min"}


@contextlib.contextmanager
def binding(axis_name):
    """Code generated inside this block may use collectives over ``axis_name``."""
    token = BOUND_AXES.set(BOUND_AXES.get() + ((axis_name,) if axis_name is not None else ()))
    try:
        yield
    finally:
        BOUND_AXES.reset(token)


def _axis_name(statics):
    node = statics["axis_name"]
    if not (isinstance(node, gast.Constant) and isinstance(node.value, str)):
        raise StaticError("the axis name must be a string constant", hint="e.g. lax.psum(x, 'batch')")
    return node.value


def _kind(result):
    def kind(k, s):
        _axis_name(s)
        return result(k, s)
    return kind


def _check_bound(bound, kinds, statics):
    name, axes = _axis_name(statics), BOUND_AXES.get()
    if name not in axes:
        where = f"the enclosing pmap binds {', '.join(map(repr, axes))}" if axes else \
            "it is not inside a function mapped by transpyle.pmap"
        raise StaticError(f"unbound axis name {name!r}: {where}",
                          hint=f"map the function with transpyle.pmap(f, axis_name={name!r}), or use the name it binds")
    return None                   # the call stays as it is: pmap splits the function there


def _refuse(k, s):
    raise StaticError("a collective inside a differentiated function is not supported",
                      hint="differentiate first, then combine: g = grad(loss)(w, x, y); lax.pmean(g, 'batch')")


for _fn, _result in ((rt.psum, same("x")), (rt.pmean, floating("x")), (rt.pmax, same("x")), (rt.pmin, same("x"))):
    define(f"lax.{_fn.__name__}", [_fn], "x, axis_name", _kind(_result), vjp=_refuse, jvp=_refuse,
                   diff=("x",), lower=_check_bound)
