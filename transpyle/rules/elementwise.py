"""Elementwise primitives: arithmetic operators, math/np functions, comparisons, selection.

Every contribution here is un-broadcast to its operand's shape by the shared helper.
"""
import math

import numpy as np

from . import define
from .common import boolean, elementwise, floating, same

# ---- operators (keys are the gast operator class names) -------------------------------------
define("Add", [], "a, b", elementwise("a", "b"), {"a": "g", "b": "g"}, broadcasts=True)
define("Sub", [], "a, b", elementwise("a", "b"), {"a": "g", "b": "-g"}, broadcasts=True)
define("Mult", [np.multiply], "a, b", elementwise("a", "b"), {"a": "g * b", "b": "g * a"}, broadcasts=True)
define("Div", [np.divide, np.true_divide], "a, b", floating("a", "b"),
       {"a": "g / b", "b": "-g * y / b"}, broadcasts=True)
define("Pow", [np.power, pow], "a, b", elementwise("a", "b"),
       # d(a**b)/db uses log(a), taken as 0 where a == 0 (JAX's convention)
       {"a": "g * b * a ** (b - 1)", "b": "g * y * np.log(a + (a == 0))"}, broadcasts=True)
define("FloorDiv", [np.floor_divide], "a, b", elementwise("a", "b"), {"a": "0.0 * g", "b": "0.0 * g"},
       broadcasts=True)
define("Mod", [np.mod, np.remainder], "a, b", elementwise("a", "b"),
       {"a": "g", "b": "-g * np.floor(a / b)"}, broadcasts=True)
define("USub", [np.negative], "x", same("x"), {"x": "-g"}, broadcasts=True)
define("UAdd", [np.positive], "x", same("x"), {"x": "g"}, broadcasts=True)
define("Not", [np.logical_not], "x", boolean("x"))
for _op in ("Eq", "NotEq", "Lt", "LtE", "Gt", "GtE"):
    define(_op, [], "a, b", boolean("a", "b"))
define("np.logical_and", [np.logical_and], "a, b", boolean("a", "b"))
define("np.logical_or", [np.logical_or], "a, b", boolean("a", "b"))
define("np.isnan", [np.isnan, math.isnan], "x", boolean("x"))
define("np.isfinite", [np.isfinite, math.isfinite], "x", boolean("x"))

# ---- unary functions: y = f(x) ----------------------------------------------------------------
_UNARY = {
    "sin": ("g * np.cos(x)", [math.sin]),
    "cos": ("-g * np.sin(x)", [math.cos]),
    "tan": ("g * (1.0 + y * y)", [math.tan]),
    "exp": ("g * y", [math.exp]),
    "exp2": ("g * y * 0.6931471805599453", []),
    "log": ("g / x", [math.log]),
    "log2": ("g / (x * 0.6931471805599453)", [math.log2]),
    "log10": ("g / (x * 2.302585092994046)", [math.log10]),
    "log1p": ("g / (1.0 + x)", [math.log1p]),
    "expm1": ("g * (y + 1.0)", [math.expm1]),
    "sqrt": ("g * 0.5 / y", [math.sqrt]),
    "square": ("2.0 * g * x", []),
    "reciprocal": ("-g * y * y", []),
    "tanh": ("g * (1.0 - y * y)", [math.tanh]),
    "sinh": ("g * np.cosh(x)", [math.sinh]),
    "cosh": ("g * np.sinh(x)", [math.cosh]),
    "arctan": ("g / (1.0 + x * x)", [math.atan]),
    "arcsin": ("g / np.sqrt(1.0 - x * x)", [math.asin]),
    "arccos": ("-g / np.sqrt(1.0 - x * x)", [math.acos]),
    "arcsinh": ("g / np.sqrt(x * x + 1.0)", [math.asinh]),
    "arccosh": ("g / np.sqrt(x * x - 1.0)", [math.acosh]),
    "arctanh": ("g / (1.0 - x * x)", [math.atanh]),
    # |x|: slope +1 at x == 0, as in JAX
    "abs": ("g * (2.0 * (x >= 0) - 1.0)", [np.absolute, abs, math.fabs]),
}
for _name, (_rule, _more) in _UNARY.items():
    define(f"np.{_name}", [getattr(np, _name)] + _more, "x", floating("x"), {"x": _rule}, broadcasts=True)

# piecewise-constant functions: derivative zero almost everywhere
for _name, _more in {"sign": [], "floor": [math.floor], "ceil": [math.ceil], "round": [round],
                     "rint": [], "trunc": [math.trunc]}.items():
    define(f"np.{_name}", [getattr(np, _name)] + _more, "x", same("x"))

define("np.arctan2", [np.arctan2, math.atan2], "a, b", floating("a", "b"),
       {"a": "g * b / (a * a + b * b)", "b": "-g * a / (a * a + b * b)"}, broadcasts=True)
define("np.hypot", [np.hypot, math.hypot], "a, b", floating("a", "b"),
       {"a": "g * a / y", "b": "g * b / y"}, broadcasts=True)

# ---- selection: at ties the cotangent is split evenly, as in JAX --------------------------------
define("np.maximum", [np.maximum, max], "a, b", elementwise("a", "b"),
       {"a": "g * ((a > b) + 0.5 * (a == b))", "b": "g * ((b > a) + 0.5 * (a == b))"}, broadcasts=True)
define("np.minimum", [np.minimum, min], "a, b", elementwise("a", "b"),
       {"a": "g * ((a < b) + 0.5 * (a == b))", "b": "g * ((b < a) + 0.5 * (a == b))"}, broadcasts=True)
define("np.where", [np.where], "c, a, b", elementwise("a", "b"),
       {"a": "g * c", "b": "g * np.logical_not(c)"}, diff=("a", "b"), broadcasts=True)
# clip(x, lo, hi) = minimum(maximum(x, lo), hi), each step with the tie rule above
_BELOW_HI = "((np.maximum(x, lo) < hi) + 0.5 * (np.maximum(x, lo) == hi))"
define("np.clip", [np.clip], "x, lo, hi", elementwise("x", "lo", "hi"),
       {"x": f"g * ((x > lo) + 0.5 * (x == lo)) * {_BELOW_HI}",
        "lo": f"g * ((lo > x) + 0.5 * (x == lo)) * {_BELOW_HI}",
        "hi": "g * ((hi < np.maximum(x, lo)) + 0.5 * (np.maximum(x, lo) == hi))"}, broadcasts=True)
