"""Elementwise primitives: arithmetic operators, math/np functions, comparisons, selection.

Every contribution here is un-broadcast to its operand's shape by the shared helper.
"""
import cmath
import math

import gast
import numpy as np

from .. import runtime as rt
from ..base.ast_utils import parse_expr, template_expr
from . import LANEWISE, define
from .common import StaticError, boolean, const_value, elementwise, floating, real_of, same
from .rewrites import define_call

# ---- operators (keys are the gast operator class names) -------------------------------------
def _on_masks(logical):
    """Lowering of ``+`` or ``*`` of two arrays of bools: NumPy's logical or / and, written so (Numba's fused
    array expressions add them as numbers: True + True is 2 there)."""
    def lower(s, k, ops):
        a, b = k.get("a"), k.get("b")
        if not (a is not None and b is not None and a.dtype == b.dtype == "bool" and max(a.ndim, b.ndim) > 0):
            return None
        return template_expr(f"{logical}(a, b)", a=ops["a"], b=ops["b"])
    return lower


define("Add", [], "a, b", elementwise("a", "b"), {"a": "g", "b": "g"}, broadcasts=True,
       lower=_on_masks("np.logical_or"))
define("Sub", [], "a, b", elementwise("a", "b"), {"a": "g", "b": "-g"}, broadcasts=True)
define("Mult", [np.multiply], "a, b", elementwise("a", "b"), {"a": "g * b", "b": "g * a"}, broadcasts=True,
       lower=_on_masks("np.logical_and"))
define("Div", [np.divide, np.true_divide], "a, b", floating("a", "b"),
       {"a": "g / b", "b": "-g * y / b"}, broadcasts=True)


def _whole_power(b):
    """Whether the exponent is a constant 0, 1, 2, ...: a ** b then has a finite slope everywhere."""
    try:
        value = const_value(b, "b")
    except StaticError:
        return False
    return isinstance(value, (int, float)) and float(value).is_integer() and value >= 0


define("Pow", [np.power, pow], "a, b", elementwise("a", "b"),
       # JAX's conventions at a == 0: d/da is 0 where b == 0 (a ** 0 is 1 everywhere; b * a ** (b - 1)
       # would be 0 * inf there), and d/db uses log(a) taken as 0; x ** 0.5 is infinitely steep at 0
       {"a": "g * b * a ** (b - 1 + (b == 0))", "b": "g * y * np.log(a + (a == 0))"}, broadcasts=True,
       infinite_slope=lambda s: not _whole_power(s["b"]))
define("FloorDiv", [np.floor_divide], "a, b", elementwise("a", "b"), {"a": "0.0 * g", "b": "0.0 * g"},
       broadcasts=True)
define("Mod", [np.mod, np.remainder], "a, b", elementwise("a", "b"),
       {"a": "g", "b": "-g * np.floor(a / b)"}, broadcasts=True)
define("USub", [np.negative], "x", same("x"), {"x": "-g"}, broadcasts=True)
define("UAdd", [np.positive], "x", same("x"), {"x": "g"}, broadcasts=True)
define("Not", [np.logical_not], "x", boolean("x"), batch=LANEWISE)
def _ordered(k, s):
    if k["a"].is_complex or k["b"].is_complex:
        raise StaticError("complex numbers cannot be ordered", )
    return boolean("a", "b")(k, s)


# the comparison operators, also in NumPy's function spellings (np.greater(a, b) is a > b)
for _op, _ufunc in (("Eq", np.equal), ("NotEq", np.not_equal)):
    define(_op, [_ufunc], "a, b", boolean("a", "b"), batch=LANEWISE)
for _op, _ufunc in (("Lt", np.less), ("LtE", np.less_equal), ("Gt", np.greater), ("GtE", np.greater_equal)):
    define(_op, [_ufunc], "a, b", _ordered, batch=LANEWISE)
define("np.logical_and", [np.logical_and], "a, b", boolean("a", "b"), batch=LANEWISE)
define("np.logical_or", [np.logical_or], "a, b", boolean("a", "b"), batch=LANEWISE)
define("np.logical_xor", [np.logical_xor], "a, b", boolean("a", "b"), batch=LANEWISE)


# & | ^ ~ of booleans (masks combined as `(r >= a) & (r < b)`) and of integers: bitwise, no derivative
def _bitwise(*names):
    def kind(k, s):
        if any(k[n].is_float for n in names):
            raise StaticError("bitwise operators take booleans or integers, not floats",
                              hint="combine conditions with & only after comparing them: (x > a) & (x < b)")
        return elementwise(*names)(k, s)
    return kind


define("BitAnd", [np.bitwise_and], "a, b", _bitwise("a", "b"), batch=LANEWISE)
define("BitOr", [np.bitwise_or], "a, b", _bitwise("a", "b"), batch=LANEWISE)
define("BitXor", [np.bitwise_xor], "a, b", _bitwise("a", "b"), batch=LANEWISE)
define("Invert", [np.invert], "x", _bitwise("x"), batch=LANEWISE)
define("np.isnan", [np.isnan, math.isnan], "x", boolean("x"), batch=LANEWISE)
define("np.isfinite", [np.isfinite, math.isfinite], "x", boolean("x"), batch=LANEWISE)

# ---- unary functions: y = f(x) ----------------------------------------------------------------
_UNARY = {
    "sin": ("g * np.cos(x)", [math.sin, cmath.sin]),
    "cos": ("-g * np.sin(x)", [math.cos, cmath.cos]),
    "tan": ("g * (1.0 + y * y)", [math.tan, cmath.tan]),
    "exp": ("g * y", [math.exp, cmath.exp]),
    "exp2": ("g * y * 0.6931471805599453", []),
    "log": ("g / x", [math.log, cmath.log]),
    "log2": ("g / (x * 0.6931471805599453)", [math.log2]),
    "log10": ("g / (x * 2.302585092994046)", [math.log10, cmath.log10]),
    "log1p": ("g / (1.0 + x)", [math.log1p]),
    "expm1": ("g * (y + 1.0)", [math.expm1]),
    "sqrt": ("g * 0.5 / y", [math.sqrt, cmath.sqrt]),
    "cbrt": ("g / (3.0 * y * y)", [math.cbrt]),
    "square": ("2.0 * g * x", []),
    "reciprocal": ("-g * y * y", []),
    "tanh": ("g * (1.0 - y * y)", [math.tanh, cmath.tanh]),
    "sinh": ("g * np.cosh(x)", [math.sinh, cmath.sinh]),
    "cosh": ("g * np.sinh(x)", [math.cosh, cmath.cosh]),
    "arctan": ("g / (1.0 + x * x)", [math.atan, cmath.atan]),
    "arcsin": ("g / np.sqrt(1.0 - x * x)", [math.asin, cmath.asin]),
    "arccos": ("-g / np.sqrt(1.0 - x * x)", [math.acos, cmath.acos]),
    "arcsinh": ("g / np.sqrt(x * x + 1.0)", [math.asinh, cmath.asinh]),
    "arccosh": ("g / np.sqrt(x * x - 1.0)", [math.acosh, cmath.acosh]),
    "arctanh": ("g / (1.0 - x * x)", [math.atanh, cmath.atanh]),
}
#: finite where their derivative is infinite (sqrt at 0, arcsin at 1): rules/strong_zeros
_INFINITE_SLOPE = ("sqrt", "cbrt", "arcsin", "arccos", "arccosh")
for _name, (_rule, _more) in _UNARY.items():
    define(f"np.{_name}", [getattr(np, _name)] + _more, "x", floating("x"), {"x": _rule}, broadcasts=True,
           infinite_slope=_name in _INFINITE_SLOPE)


# ---- functions that are not holomorphic on complex values ----------------------------------------
# For a real output of complex z the adjoint follows JAX: df/dx - i df/dy; tangents are real parts.
# At z == 0 the complex rules give 0, as JAX does (conj(z) is 0 there; the divisor is made 1).
def _abs_vjp(k, s):
    if k["x"].is_complex:
        return {"x": "g * np.conj(x) / (y + (y == 0))"}
    return {"x": "g * (2.0 * (x >= 0) - 1.0)"}        # |x|: slope +1 at x == 0, as in JAX


def _abs_jvp(k, s):
    if k["x"].is_complex:
        return {"x": "np.real(np.conj(x) * t) / (y + (y == 0))"}
    return _abs_vjp(k, s)


define("np.abs", [np.abs, np.absolute, abs, math.fabs], "x", lambda k, s: real_of(k["x"]), _abs_vjp,
       broadcasts=True, jvp=_abs_jvp)
# z.real and z.imag are views of the complex buffer (z itself for a real z). The real parts of z's adjoint
# are the real part's adjoint, so a write through z.real is followed as a view; the imaginary parts of
# z's adjoint are minus the imaginary part's (JAX's convention), which no view of it can carry
define("np.real", [np.real], "x", lambda k, s: real_of(k["x"]), {"x": "g"}, broadcasts=True,
       jvp={"x": "np.real(t)"}, view="x")
define("np.imag", [np.imag], "x", lambda k, s: real_of(k["x"]),
       lambda k, s: {"x": "-1j * g" if k["x"].is_complex else "0.0 * g"}, broadcasts=True,
       jvp={"x": "np.imag(t)"}, view="x",
       readonly="writes through the imaginary parts of a complex array (z.imag) are not supported")
define("np.conj", [np.conj, np.conjugate], "x", same("x"), {"x": "np.conj(g)"}, broadcasts=True,
       jvp={"x": "np.conj(t)"})

# piecewise-constant functions: derivative zero almost everywhere
for _name, _more in {"sign": [], "floor": [math.floor], "ceil": [math.ceil], "rint": [], "trunc": [math.trunc]}.items():
    define(f"np.{_name}", [getattr(np, _name)] + _more, "x", same("x"), batch=LANEWISE)
# rounding to ``decimals`` places (round(x, 2) is the same function of numbers)
define("np.round", [np.round, np.around, round], "x, decimals=0", same("x"), batch=LANEWISE)

define("np.arctan2", [np.arctan2, math.atan2], "a, b", floating("a", "b"),
       {"a": "g * b / (a * a + b * b)", "b": "-g * a / (a * a + b * b)"}, broadcasts=True)
define("np.hypot", [np.hypot, math.hypot], "a, b", floating("a", "b"),
       {"a": "g * a / y", "b": "g * b / y"}, broadcasts=True, infinite_slope=True)

# ---- selection: at ties the cotangent is split evenly, as in JAX --------------------------------
define("np.maximum", [np.maximum, max], "a, b", elementwise("a", "b"),
       {"a": "g * ((a > b) + 0.5 * (a == b))", "b": "g * ((b > a) + 0.5 * (a == b))"}, broadcasts=True,
       zero_slope=True)
define("np.minimum", [np.minimum, min], "a, b", elementwise("a", "b"),
       {"a": "g * ((a < b) + 0.5 * (a == b))", "b": "g * ((b < a) + 0.5 * (a == b))"}, broadcasts=True,
       zero_slope=True)
# the dtype of the branches, the rank of all three (a condition may broadcast numbers to an array)
def _where_lower(statics, kinds, operands):
    """rt.select where all three are numbers (a number, where Numba's np.where gives a 0-d array)."""
    if any(kinds[p] is None or kinds[p].ndim for p in ("c", "a", "b")):
        return None
    return template_expr("rt.select(c, a, b)", **{p: operands[p] for p in ("c", "a", "b")})


define("np.where", [np.where, rt.select], "c, a, b",
       lambda k, s: elementwise("a", "b")(k, s).with_ndim(max(k["c"].ndim, k["a"].ndim, k["b"].ndim)),
       {"a": "g * c", "b": "g * np.logical_not(c)"}, diff=("a", "b"), broadcasts=True, zero_slope=True,
       lower=_where_lower)
# clip(x, lo, hi) = minimum(maximum(x, lo), hi), each step with the tie rule above
_BELOW_HI = "((np.maximum(x, lo) < hi) + 0.5 * (np.maximum(x, lo) == hi))"


def _clip_lower(statics, kinds, operands):
    """rt.clip (the same in NumPy's dtype) where Numba's np.clip differs: of a number, or of an integer array
    with a float bound (Numba clips integers to integers whatever the bounds)."""
    def inexact(p):            # a bound written as a negative number has no kind here: its value tells
        return kinds[p].is_float if kinds[p] is not None else isinstance(const_value(statics[p], p), (float, complex))
    if kinds["x"].ndim and (kinds["x"].is_float or not (inexact("lo") or inexact("hi"))):
        return None
    return template_expr("rt.clip(x, lo, hi)", **{p: operands[p] for p in ("x", "lo", "hi")})


define("np.clip", [np.clip, rt.clip], "x, lo, hi", elementwise("x", "lo", "hi"),
       {"x": f"g * ((x > lo) + 0.5 * (x == lo)) * {_BELOW_HI}",
        "lo": f"g * ((lo > x) + 0.5 * (x == lo)) * {_BELOW_HI}",
        "hi": "g * ((hi < np.maximum(x, lo)) + 0.5 * (np.maximum(x, lo) == hi))"}, broadcasts=True,
       lower=_clip_lower, zero_slope=True)


def _clip_one_side(call):
    """np.clip with one bound None (NumPy's "no bound on that side"): np.maximum or np.minimum of the other;
    both None is NumPy's error; any other call is the primitive (None)."""
    bounds = dict(zip(("a", "a_min", "a_max"), call.args))
    bounds.update({kw.arg: kw.value for kw in call.keywords if kw.arg in ("a_min", "a_max", "min", "max")})
    lo, hi = bounds.get("a_min", bounds.get("min")), bounds.get("a_max", bounds.get("max"))
    none = [isinstance(b, gast.Constant) and b.value is None for b in (lo, hi)]
    if not any(none) or len(call.args) + len(call.keywords) != 3:
        return None
    if all(none):
        raise StaticError("np.clip needs one bound at least (both are None)")
    fn, bound = ("np.minimum", hi) if none[0] else ("np.maximum", lo)
    return gast.Call(func=parse_expr(fn), args=[call.args[0], bound], keywords=[])


define_call([np.clip], _clip_one_side)
