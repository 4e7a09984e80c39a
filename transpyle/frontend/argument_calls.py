"""Calls, as ``argument_uses`` runs a function's body over ranks (``CallUses``, a part of ``Uses``):
what NumPy functions, ``math``, builtins and ``transpyle.random`` need of their arguments and give
back, helpers run on the values passed to them, and ``grad(f)(x)`` run as ``f(x)``."""
import builtins
import inspect
import math
import sys
from dataclasses import dataclass

import gast
import numpy as np

from ..base.ast_utils import dotted
from .argument_values import NUMBER, UNKNOWN, Frame, Val, where, widest
from .source import is_user_function, read_function

_ELEMENTWISE = set("""sin cos tan arcsin arccos arctan sinh cosh tanh arcsinh arccosh arctanh exp expm1 exp2 log
log1p log2 log10 sqrt cbrt abs absolute fabs negative positive square sign floor ceil round rint trunc real imag
conj conjugate reciprocal sinc deg2rad rad2deg radians degrees isnan isfinite isinf logical_not add subtract
multiply divide true_divide floor_divide power float_power maximum minimum fmax fmin arctan2 hypot where clip
logaddexp logaddexp2 copysign mod fmod remainder heaviside logical_and logical_or logical_xor greater less equal
not_equal greater_equal less_equal nan_to_num angle""".split())
_REDUCTIONS = set("""sum mean prod max min amax amin std var median average nansum nanmean nanmax nanmin argmax
argmin any all ptp norm logsumexp count_nonzero""".split())
_SAME_RANK = set("""zeros_like ones_like empty_like full_like copy array asarray ascontiguousarray asfortranarray
cumsum cumprod diff sort flip fliplr flipud roll transpose negative nancumsum gradient""".split())
_CREATORS = {"zeros", "ones", "empty", "full"}
_PRODUCTS = {"dot", "matmul", "inner", "tensordot", "vdot"}
_METHOD_SAME = {"copy", "astype", "conj", "conjugate", "clip", "round", "cumsum", "cumprod", "transpose"}


class CallUses:
    """The calls of ``Uses`` (see the module docstring)."""

    def call(self, node, frame, depth):
        args = [UNKNOWN if isinstance(a, gast.Starred) else self.expr(a, frame, depth) for a in node.args]
        kwargs = {k.arg: self.expr(k.value, frame, depth) for k in node.keywords if k.arg}
        why = where(node, frame.filename)
        func = node.func
        head = dotted(func)
        local = head is not None and head.split(".")[0] in frame.env
        if isinstance(func, gast.Attribute) and (head is None or local):     # a method of a value
            return self.method(func.attr, self.expr(func.value, frame, depth), args, kwargs, node, frame)
        if isinstance(func, gast.Call):               # a transform applied and called: grad(f)(x)
            target = self.expr(func, frame, depth).func
        else:
            target = frame.env[head].func if local and head in frame.env else frame.resolve(func)
        if target is None or isinstance(target, gast.FunctionDef):
            return UNKNOWN
        if isinstance(target, _Applied):
            return self.applied(target, args, kwargs, depth)
        target = getattr(target, "fun", target) if hasattr(target, "transpyle_source") else target  # custom rules
        if inspect.isfunction(target) and is_user_function(target) or hasattr(target, "transpyle_source"):
            return self.helper(target, args, kwargs, depth)
        name = getattr(target, "__name__", "")
        module = getattr(target, "__module__", None) or ""
        if _transform_name(target) and node.args:
            name = _transform_name(target)
            argnums = node.keywords[0].value if node.keywords and node.keywords[0].arg == "argnums" else None
            argnums = argnums.value if isinstance(argnums, gast.Constant) else 0
            return Val(func=_Applied(name, args[0].func, argnums))
        if module.endswith("random_draws") and name.startswith("random_") and args:
            return self.random(name, args, kwargs, node, frame, why)
        if target is getattr(math, name, None) and name:
            for a in args:
                self.at_most(a, 0, why)
            return NUMBER
        if target is getattr(builtins, name, None) and name:
            return self.builtin(name, args, node, frame, why)
        numpy = module.startswith("numpy") or isinstance(target, np.ufunc)
        return self.numpy(name, target, args, kwargs, node, frame, why) if numpy else UNKNOWN

    def applied(self, applied, args, kwargs, depth):
        """``grad(f)(x, ...)``: what ``f`` does with the arguments is evidence; grad's result has the
        differentiated argument's rank, jit's is f's."""
        fun = getattr(applied.fun, "fun", applied.fun) if hasattr(applied.fun, "transpyle_source") else applied.fun
        if not (inspect.isfunction(fun) and is_user_function(fun) or hasattr(fun, "transpyle_source")):
            return UNKNOWN
        if applied.name == "vmap":                      # a batch of calls: the ranks are f's plus one
            return UNKNOWN
        result = self.helper(fun, args, kwargs, depth)
        if applied.name == "jit":
            return result
        if applied.name == "grad" and isinstance(applied.argnums, int) and -len(args) <= applied.argnums < len(args):
            return args[applied.argnums]
        return UNKNOWN

    def random(self, name, args, kwargs, node, frame, why):
        """A draw of transpyle.random: its key is an integer array of shape (2,); a shape is integers."""
        key = args[0]
        self.at_least(key, 1, why)
        self.at_most(key, 1, why)
        self.mark(key, "key", why)
        if name == "random_split":
            return Val(2)
        if name in ("random_fold_in", "random_key"):
            for a, n in zip(args[1:], node.args[1:]):
                self.integer(a, n, frame)
            return Val(1)
        for val, n in list(zip(args[1:], node.args[1:])) + [(v, None) for k, v in kwargs.items() if k == "shape"]:
            if val.items is not None:
                for item, e in zip(val.items, getattr(n, "elts", [None] * len(val.items))):
                    self.mark(item, "integer", why)
                    self.at_most(item, 0, why)
                return Val(len(val.items))
            if val.shape_of is not None:
                return Val(val.shape_of.rank)
        return UNKNOWN

    def helper(self, target, args, kwargs, depth):
        if depth >= self.depth_limit:
            return UNKNOWN
        try:
            unit = read_function(target)
        except Exception:
            return UNKNOWN
        params = [a.id for a in unit.tree.args.args]
        defaults = unit.tree.args.defaults
        env = {p: NUMBER for p in params[len(params) - len(defaults):]}
        env.update(zip(params, args))
        env.update({k: v for k, v in kwargs.items() if k in params})
        return self.run_function(Frame(unit, env), depth + 1)

    def builtin(self, name, args, node, frame, why):
        if name == "len" and args:
            self.at_least(args[0], 1, why)
            return NUMBER
        if name in ("int", "float", "bool", "complex", "round"):
            for a in args[:1]:
                self.at_most(a, 0, why)
            return NUMBER
        if name == "abs" and args:
            return args[0]
        if name in ("min", "max") and len(args) > 1:
            for a in args:
                self.at_most(a, 0, why)
            return NUMBER
        if name == "range":
            for a, n in zip(args, node.args):
                self.integer(a, n, frame)
        return UNKNOWN

    def numpy(self, name, target, args, kwargs, node, frame, why):
        first = args[0] if args else UNKNOWN
        axis = kwargs.get("axis") or (args[1] if len(args) > 1 and name in _REDUCTIONS else None)
        if name in _ELEMENTWISE:
            for a in args:
                self.mark(a, "arithmetic", why)
            return widest(args)
        if name in _REDUCTIONS:
            self.at_least(first, 1, why)
            if axis is None:
                return NUMBER
            return Val(first.rank - 1) if first.rank else UNKNOWN
        if name in _SAME_RANK:
            return first
        if name in _PRODUCTS:
            return self.product(first, args[1] if len(args) > 1 else UNKNOWN, why)
        if name == "outer":
            for a in args:
                self.at_least(a, 1, why)
            return Val(2)
        if name in _CREATORS or name in ("eye", "identity", "arange", "linspace", "reshape", "tile"):
            return self.creator(name, args, node, frame)
        if name in ("ravel", "flatten"):
            self.at_least(first, 1, why)
            return Val(1)
        if name in ("det", "trace", "slogdet"):
            self.at_least(first, 2, why)
            return NUMBER if name != "slogdet" else UNKNOWN
        if name in ("inv", "cholesky", "expm", "pinv"):
            self.at_least(first, 2, why)
            return Val(2)
        if name == "solve" and len(args) == 2:
            self.at_least(first, 2, why, open_=True)
            self.at_least(args[1], 1, why, open_=True)
            return args[1] if not args[1].links else Val(args[1].rank)
        if name == "stack" and first.items:
            return Val(widest(first.items).rank + 1) if widest(first.items).rank is not None else UNKNOWN
        if name in ("concatenate", "hstack", "vstack") and first.items:
            return Val(widest(first.items).rank)
        return UNKNOWN

    def creator(self, name, args, node, frame):
        if name in ("eye", "identity"):
            for a, n in zip(args[:2], node.args[:2]):
                self.integer(a, n, frame)
            return Val(2)
        if name in ("arange", "linspace"):
            if name == "arange":
                for a, n in zip(args, node.args):
                    self.integer(a, n, frame)
            return Val(1)
        shape, shape_node = (args[1], node.args[1]) if name in ("reshape", "tile") and len(args) > 1 else \
            (args[0] if args else UNKNOWN, node.args[0] if node.args else None)
        if shape.items is not None:
            for item, n in zip(shape.items, getattr(shape_node, "elts", [])):
                self.integer(item, n, frame)
            return Val(len(shape.items))
        if shape.shape_of is not None:
            return Val(shape.shape_of.rank)
        if shape_node is not None and shape.rank == 0:
            self.integer(shape, shape_node, frame)
            return Val(1)
        return UNKNOWN

    def method(self, attr, base, args, kwargs, node, frame):
        why = where(node, frame.filename)
        if attr in _METHOD_SAME:
            self.at_least(base, 1, why)
            return base
        if attr in _REDUCTIONS:
            self.at_least(base, 1, why)
            axis = kwargs.get("axis") or (args[0] if args else None)
            return NUMBER if axis is None else (Val(base.rank - 1) if base.rank else UNKNOWN)
        if attr in ("ravel", "flatten"):
            self.at_least(base, 1, why)
            return Val(1)
        if attr == "reshape":
            self.at_least(base, 1, why)
            shape = args[0] if len(args) == 1 else Val(items=tuple(args))
            if shape.items is not None:
                for item in shape.items:
                    self.mark(item, "integer", why)
                return Val(len(shape.items))
            return Val(1) if shape.rank == 0 else UNKNOWN
        if attr == "dot" and args:
            return self.product(base, args[0], why)
        if attr == "item":
            return NUMBER
        return UNKNOWN


_TRANSFORMS = {"grad", "value_and_grad", "jacfwd", "jacrev", "hessian", "jit", "vmap"}


@dataclass(frozen=True)
class _Applied:
    """A transform applied to a function, not yet called (``g = transpyle.grad(loss)``)."""
    name: str
    fun: object
    argnums: object


def _transform_name(target):
    """'grad' for transpyle.grad (looked up, not imported: the API is a layer above)."""
    top = sys.modules.get("transpyle")
    return next((n for n in _TRANSFORMS if top is not None and getattr(top, n, None) is target), None)


