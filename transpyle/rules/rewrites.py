"""Library constructs that resolve writes with other primitives: a builder per construct takes the
call (or subscript) whose arguments are already resolved and returns the expression it stands for,
in canonical spellings (``np.cov(x)`` becomes means, a matrix product and a division). Their
derivatives and batching then come from the primitives they are written with.

Three kinds of entries: library functions (``define_call``), methods of ufuncs (``define_method``:
``np.add.outer`` is a new bound method on every attribute access, so these are found by the ufunc
and the method's name), and objects indexed like arrays (``define_subscript``: ``np.mgrid[0:3]``).
A builder raises ``StaticError`` for a form it refuses; resolve reports it at the user's line.
"""
import numpy as np

from .common import StaticError

_CALLS = {}
_METHODS = {}
_SUBSCRIPTS = {}


def define_call(objects, builder):
    """``builder(call)`` writes a call of any of ``objects``."""
    for obj in objects:
        _CALLS[id(obj)] = (obj, builder)


def define_method(method, ufuncs, builder):
    """``builder(ufunc, call)`` writes ``ufunc.<method>(...)`` for each of ``ufuncs``."""
    for ufunc in ufuncs:
        _METHODS[(ufunc.__name__, method)] = builder


def define_subscript(objects, builder):
    """``builder(subscript)`` writes ``obj[...]`` for each of ``objects``."""
    for obj in objects:
        _SUBSCRIPTS[id(obj)] = (obj, builder)


def call_rewrite(obj):
    """The builder of a call of ``obj`` (a function of the call node), else None."""
    owner = getattr(obj, "__self__", None)
    if isinstance(owner, np.ufunc) and owner is getattr(np, owner.__name__, None):
        builder = _METHODS.get((owner.__name__, obj.__name__))
        if builder is None:
            return _refused(owner, obj.__name__)
        return lambda call: builder(owner, call)
    hit = _CALLS.get(id(obj))
    return hit[1] if hit is not None and hit[0] is obj else None


def subscript_rewrite(obj):
    """The builder of ``obj[...]`` (a function of the subscript node), else None."""
    hit = _SUBSCRIPTS.get(id(obj))
    return hit[1] if hit is not None and hit[0] is obj else None


def _refused(ufunc, method):
    supported = sorted(name for (u, name) in _METHODS if u == ufunc.__name__)

    def refuse(call):
        also = f"; np.{ufunc.__name__} supports " + ", ".join(f".{m}" for m in supported) if supported else ""
        raise StaticError(f"np.{ufunc.__name__}.{method} is not supported{also}",
                          hint="the supported ufunc methods are listed in docs/subset.md")
    return refuse
