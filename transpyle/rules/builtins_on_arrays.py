"""Python's builtins ``max``, ``min`` and ``sum`` over what they iterate, written as the NumPy calls and
operators they compute (``rewrites``: resolve writes each call before anything reads it).

Python iterates an array along its first axis, so one array argument reduces along axis 0: ``max(x)``
is ``np.max(x, axis=0)`` (a number for a vector, a row for a matrix), ``sum(x)`` is ``np.sum(x,
axis=0)`` and ``sum(x, start)`` adds ``start``. A list or tuple written in the call is folded pairwise:
``max([a, b, c])`` and ``max(a, b, c)`` are ``max(max(a, b), c)``, each pair the elementwise maximum
(``np.maximum``, with its tie rule), and ``sum([a, b])`` is ``a + b``. ``key=`` and ``default=`` choose
by a function or guard an empty iterable: refused by name. ``abs``, ``round`` and ``pow`` need no
rewrite: they are the primitives ``np.abs``, ``np.round`` and ``**`` (``lower_calls`` spells them as
NumPy functions where an operand is an array, which Numba's builtins do not take).
"""
import builtins

import gast

from ..base.ast_utils import name, template_expr
from .call_forms import rewrite
from .common import StaticError


def _pairwise(func, items):
    """``func(func(a, b), c)`` over ``items`` (a builtin max or min of two, the np.maximum primitive)."""
    out = items[0]
    for item in items[1:]:
        out = gast.Call(func=name(func), args=[out, item], keywords=[])
    return out


def _one_iterable(call, what):
    """The single iterable argument of ``max(x)``/``sum(x)``, or None where there are several."""
    for kw in call.keywords:
        if what != "sum" or kw.arg != "start":
            raise StaticError(f"{what}() with {kw.arg}= is not supported",
                              hint=f"write the loop out, or use np.{'max' if what == 'max' else what} on an array")
    return call.args[0] if len(call.args) == 1 else None


def _extreme(what):
    def write(call):
        if not call.args:
            raise StaticError(f"{what}() needs an argument")
        single = _one_iterable(call, what)
        if single is None:
            return _pairwise(what, call.args) if len(call.args) > 2 else None    # two: the primitive itself
        if isinstance(single, (gast.List, gast.Tuple)):
            if not single.elts:
                raise StaticError(f"{what}() of an empty sequence")
            return _pairwise(what, single.elts) if len(single.elts) > 1 else single.elts[0]
        if isinstance(single, gast.Starred):
            raise StaticError(f"{what}(*...) is not supported")
        return template_expr(f"np.{what}(x, axis=0)", x=single)
    return write


def _sum(call):
    if not call.args or len(call.args) > 2:
        raise StaticError("sum() takes an iterable and an optional start")
    _one_iterable(gast.Call(func=call.func, args=call.args[:1], keywords=call.keywords), "sum")
    start = call.args[1] if len(call.args) == 2 else next((kw.value for kw in call.keywords), None)
    items = call.args[0]
    if isinstance(items, (gast.List, gast.Tuple)):
        terms = ([start] if start is not None else []) + list(items.elts)
        if not terms:
            return gast.Constant(value=0, kind=None)
        out = terms[0]
        for t in terms[1:]:
            out = gast.BinOp(left=out, op=gast.Add(), right=t)
        return out
    total = template_expr("np.sum(x, axis=0)", x=items)
    return total if start is None else gast.BinOp(left=start, op=gast.Add(), right=total)


rewrite([builtins.max], _extreme("max"))
rewrite([builtins.min], _extreme("min"))
rewrite([builtins.sum], _sum)
