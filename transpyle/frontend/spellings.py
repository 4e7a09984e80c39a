"""Library spellings: the one canonical spelling (``np.sin``, ``math.exp``, ``rt.astype``) of every library
object the rule tables know, the function form of array methods (``x.sum(axis=0)`` is ``np.sum(x, axis=0)``)
and of array attributes that are calls (``x.T`` is ``np.transpose(x)``), and multi-output functions written
as the tuple of their parts.
"""
import builtins
import cmath
import copy
import math

import gast
import numpy as np

from .. import rules, runtime
from ..base.ast_utils import parse_expr

# methods of arrays that have a function form in the rule tables
METHODS = {"copy": "np.copy", "sum": "np.sum", "mean": "np.mean", "prod": "np.prod", "max": "np.max",
           "min": "np.min", "ravel": "np.ravel", "flatten": "np.ravel", "dot": "np.dot",
           "transpose": "np.transpose", "reshape": "np.reshape", "fill": "np.copyto",
           "swapaxes": "np.swapaxes", "astype": "rt.astype", "any": "np.any", "all": "np.all",
           "trace": "np.trace", "diagonal": "np.diagonal", "squeeze": "np.squeeze", "std": "np.std", "var": "np.var",
           "argmax": "np.argmax", "argmin": "np.argmin", "cumsum": "np.cumsum", "cumprod": "np.cumprod",
           "clip": "np.clip", "conj": "np.conj", "conjugate": "np.conj", "round": "np.round",
           "sort": "rt.sort_in_place", "view": "np.asarray", "item": "rt.item"}

# array attributes that are calls: x.T is np.transpose(x), z.real is np.real(z) (views of x, z)
ATTRIBUTE_CALLS = {"T": "np.transpose", "mT": "np.matrix_transpose", "real": "np.real", "imag": "np.imag"}

_SPELLING = None


def _spellings():
    """Canonical spelling of every library object the rule tables know."""
    global _SPELLING
    if _SPELLING is None:
        table = {}
        for prefix, module in (("np.linalg.", np.linalg), ("np.", np), ("math.", math), ("rt.", runtime)):
            for attr in dir(module):
                obj = getattr(module, attr)
                prim = rules.by_object(obj)
                if prim is not None:    # a class (np.ndarray) is spelled as the function it is (np.empty)
                    table.setdefault(id(obj), (obj, prim.key if isinstance(obj, type) else prefix + attr))
        for attr in dir(cmath):       # cmath functions are written as the np.* primitive they are
            prim = rules.by_object(getattr(cmath, attr))
            if prim is not None:
                table.setdefault(id(getattr(cmath, attr)), (getattr(cmath, attr), prim.key))
        for attr in ("abs", "max", "min", "float", "int", "len", "round", "pow"):
            obj = getattr(builtins, attr)
            table[id(obj)] = (obj, attr)
        _SPELLING = table
    return _SPELLING


def spelling_of(obj):
    hit = _spellings().get(id(obj))
    if hit and hit[0] is obj:
        return hit[1]
    prim = rules.by_object(obj)       # another library's function that a run-time helper implements
    return prim.key if prim is not None and prim.key.startswith("rt.") else None


def library_name(obj):
    mod = getattr(obj, "__module__", None) or ""
    nm = getattr(obj, "__name__", None) or repr(obj)
    if isinstance(obj, np.ufunc) or mod.startswith("numpy"):
        sub = mod.replace("numpy.", "np.").replace("numpy", "np")
        if sub.startswith(("np.linalg", "np.fft")):
            return f"{sub[:sub.index('.', 3) if sub.count('.') > 1 else len(sub)]}.{nm}"
        return f"np.{nm}"
    return f"{mod}.{nm}" if mod else nm



def method_call(node):
    """The function form of a method call ``x.m(...)`` whose receiver is resolved, or None where the method
    has none (``x.transpose(1, 0, 2)`` passes its axes as one tuple; ``x.flatten()`` is a copy of the ravel)."""
    func = node.func
    target = METHODS.get(func.attr)
    if target is None or func.attr == "view" and (node.args or node.keywords):   # x.view(dtype): no
        return None
    args = list(node.args)
    if func.attr in ("reshape", "transpose") and len(args) > 1:      # x.transpose(1, 0, 2)
        args = [gast.Tuple(elts=args, ctx=gast.Load())]
    if func.attr == "sort" and not args and not any(kw.arg == "axis" for kw in node.keywords):
        args = [gast.Constant(value=-1, kind=None)]                     # x.sort(): along the last axis
    call = gast.Call(func=parse_expr(target), args=[func.value] + args, keywords=node.keywords)
    if func.attr == "flatten":        # a new array, where ravel may return a view
        call = gast.Call(func=parse_expr("np.copy"), args=[call], keywords=[])
    return call


def multi_output_call(node, parts, single):
    """A call of a multi-output function (np.linalg.eigh) as the tuple of its parts' calls
    (rules/matrices.py, MULTI_OUTPUT), or one part where a keyword selects it (svd, compute_uv=False)."""
    keywords = node.keywords
    if single is not None:
        flag, value, part, absent = single + (False,) * (4 - len(single))
        chosen = [kw for kw in keywords if kw.arg == flag]
        if chosen and not isinstance(chosen[0].value, gast.Constant):
            parts = parts[part:part + 1]          # the keyword stays: that part's rule refuses it by name
        else:
            keywords = [kw for kw in keywords if kw.arg != flag]
            if chosen and chosen[0].value.value == value or not chosen and absent:
                parts = parts[part:part + 1]
    calls = [gast.copy_location(gast.Call(func=parse_expr(part), args=copy.deepcopy(node.args),
                                          keywords=copy.deepcopy(keywords)), node) for part in parts]
    if len(calls) == 1:
        return calls[0]
    return gast.copy_location(gast.Tuple(elts=calls, ctx=gast.Load()), node)

