"""The keywords of NumPy's reductions beyond ``axis`` and ``keepdims``: ``dtype=``, ``initial=``, ``where=``
(and ``out=None``), on ``np.sum``, ``np.prod``, ``np.mean``, ``np.max``/``np.amax``, ``np.min``/``np.amin``,
``np.any``, ``np.all`` and their methods (``x.sum(where=m)``), written with the plain reductions when a call
is resolved (``rules/rewrites``); a call without them is the reduction primitive itself.

- ``dtype=d``: the operand converted first (``rt.astype``), as NumPy accumulates in ``d``;
- ``where=m``: the elements where ``m`` is False replaced by the reduction's identity (0 for sums, 1 for
  products, ``initial`` for max and min, which NumPy requires there), a mean divided by the count of the
  selected elements;
- ``initial=v``: joined to the result (added, multiplied, or the max or min taken with it);
- ``out=``: the result written into it (as any call's ``out=``); with ``where=`` on a mean or with ``initial=``
  (a result computed after the reduction) it is refused by name: assign the result instead.
Positional arguments follow NumPy's signatures (``np.sum(a, 0, None, None, True)``).
"""
import gast
import numpy as np

from ..base.ast_utils import template_expr
from .call_forms import arguments, rewrite
from .common import StaticError

# NumPy's parameters of each reduction, in order
_SIGNATURES = {
    "np.sum": ("a", "axis", "dtype", "out", "keepdims", "initial", "where"),
    "np.prod": ("a", "axis", "dtype", "out", "keepdims", "initial", "where"),
    "np.mean": ("a", "axis", "dtype", "out", "keepdims", "where"),
    "np.max": ("a", "axis", "out", "keepdims", "initial", "where"),
    "np.min": ("a", "axis", "out", "keepdims", "initial", "where"),
    "np.any": ("a", "axis", "out", "keepdims", "where"),
    "np.all": ("a", "axis", "out", "keepdims", "where"),
}
# what a False of where= stands for, and how initial= joins the result
_IDENTITY = {"np.sum": "0", "np.prod": "1", "np.any": "False", "np.all": "True"}
_JOIN = {"np.sum": "({r}) + initial", "np.prod": "({r}) * initial", "np.max": "np.maximum({r}, initial)",
         "np.min": "np.minimum({r}, initial)"}
_PLAIN = {"a", "axis", "keepdims"}


def _given(node):
    return not (isinstance(node, gast.Constant) and node.value is None)


def _builder(key):
    params = _SIGNATURES[key]
    defaults = {p: None for p in params[1:]}
    defaults["keepdims"] = False

    def build(call):
        if len(call.args) <= 2 and all(kw.arg in _PLAIN for kw in call.keywords):
            return None                     # the reduction primitive binds it
        bound = arguments(call, params, defaults, key)
        subs = {p: bound[p] for p in params}
        operand = "rt.astype(a, dtype)" if "dtype" in bound and _given(bound["dtype"]) else "a"
        initial = "initial" in bound and _given(bound["initial"])
        where = _given(bound["where"])
        if where:
            if key in ("np.max", "np.min") and not initial:
                raise StaticError(f"{key} with where= needs initial= (NumPy's rule: a slice may select nothing)",
                                  hint="give initial=, for example -np.inf for a maximum")
            fill = "initial" if key in ("np.max", "np.min") else _IDENTITY.get(key, "0")
            selected = f"np.where(where, {operand}, {fill})"
        else:
            selected = operand
        text = f"{key}({selected}, axis=axis, keepdims=keepdims)"
        if key == "np.mean" and where:
            count = "np.sum(np.where(where, np.ones_like(a), 0.0), axis=axis, keepdims=keepdims)"
            text = f"np.sum({selected}, axis=axis, keepdims=keepdims) / {count}"
        if initial:
            text = _JOIN[key].format(r=text)
        written = template_expr(text, **subs)
        if _given(bound["out"]):      # written into out by normalize, as any call's out= is
            if not isinstance(written, gast.Call):
                raise StaticError(f"{key} with out= and these keywords is not supported",
                                  hint="assign the result instead")
            written.keywords.append(gast.keyword(arg="out", value=bound["out"]))
        return written
    return build


for _key in _SIGNATURES:
    _objects = [getattr(np, _key[3:])] + ([getattr(np, "a" + _key[3:])] if _key in ("np.max", "np.min") else [])
    if _key != "np.prod":           # np.prod's builder (shape products, rules/reductions) calls this one
        rewrite(_objects, _builder(_key))

prod_keywords = _builder("np.prod")
