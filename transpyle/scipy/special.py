"""``transpyle.scipy.special``, for code ported from ``jax.scipy.special``: ``erf``, ``gammaln``, ``digamma``
(elementwise primitives with derivative rules, ``rules/special_functions.py``), ``expit`` (plain NumPy,
inlined by the transforms like a user's helper) and ``logsumexp``.

``logsumexp`` takes optional weights ``b=None``, which transformed code cannot test for at run time, so
in transformed code a call is written out when it is read (``rules/rewrites.py``), for the arguments it
has; called eagerly it runs as NumPy.
"""
import inspect

import gast
import numpy as np

from .. import runtime as _rt
from ..base.ast_utils import template_expr
from ..rules.common import StaticError, const_value
from ..rules.rewrites import define_call

erf = _rt.erf
gammaln = _rt.gammaln
digamma = _rt.digamma

__all__ = ["erf", "gammaln", "digamma", "expit", "logsumexp"]


def expit(x):
    """The logistic function 1 / (1 + exp(-x)), from exp(-|x|) so that nothing overflows."""
    z = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + z), z / (1.0 + z))


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    """``log(sum(b * exp(a)))`` over ``axis`` (every axis for None), computed from ``a`` less its maximum so
    that nothing overflows; ``return_sign=True`` returns ``(log |sum|, sign of the sum)``, for weights ``b``
    of both signs (eagerly only)."""
    a = np.asarray(a, dtype=np.result_type(a, 0.0))
    shift = np.max(a, axis=axis, keepdims=True)
    shift = np.where(np.isfinite(shift), shift, 0.0)
    terms = np.exp(a - shift) if b is None else np.asarray(b) * np.exp(a - shift)
    total = np.sum(terms, axis=axis, keepdims=keepdims)
    kept = np.max(a, axis=axis, keepdims=keepdims)
    kept = np.where(np.isfinite(kept), kept, 0.0)
    if return_sign:
        with np.errstate(divide="ignore"):
            return np.log(np.abs(total)) + kept, np.sign(total)
    with np.errstate(divide="ignore"):
        return np.log(total) + kept


def _bound(function, call):
    """The arguments of ``call`` by ``function``'s parameter names (absent ones left out)."""
    names = list(inspect.signature(function).parameters)
    if len(call.args) > len(names) or any(kw.arg not in names for kw in call.keywords):
        raise StaticError(f"{function.__name__} takes the parameters {', '.join(names)}")
    bound = dict(zip(names, call.args))
    for kw in call.keywords:
        if kw.arg in bound:
            raise StaticError(f"{function.__name__} got the argument {kw.arg} twice")
        bound[kw.arg] = kw.value
    return bound


def _is_none(node):
    return node is None or isinstance(node, gast.Constant) and node.value is None


def _logsumexp_call(call):
    """The formula of ``logsumexp(a, axis, b, keepdims)`` in transformed code: the shift by the maximum
    carries no derivative (the result does not depend on it)."""
    bound = _bound(logsumexp, call)
    if "a" not in bound:
        raise StaticError("logsumexp needs the array a")
    if not _is_none(bound.get("return_sign")) and const_value(bound["return_sign"], "return_sign"):
        raise StaticError("logsumexp with return_sign=True is not supported in transformed code",
                          hint="for weights of one sign, take the logsumexp of a + log(|b|)")
    subs = {"a": bound["a"], "axis": bound.get("axis", gast.Constant(value=None, kind=None)),
            "keep": bound.get("keepdims", gast.Constant(value=False, kind=None))}
    weights = ""
    if not _is_none(bound.get("b")):
        subs["b"] = bound["b"]
        weights = "b * "
    whole = _is_none(bound.get("axis")) and not const_value(subs["keep"], "keepdims")
    along = "" if whole else ", axis=axis, keepdims=keep"      # np.sum(x): Numba takes no axis=None
    shift = "rt.stop_gradient(np.max(a, axis=axis, keepdims=True))"
    kept = f"rt.stop_gradient(np.max(a{along}))"
    text = f"np.log(np.sum({weights}np.exp(a - np.where(np.isfinite({shift}), {shift}, 0.0)){along})) + " \
           f"np.where(np.isfinite({kept}), {kept}, 0.0)"
    return template_expr(text, **subs)


define_call([logsumexp], _logsumexp_call)
