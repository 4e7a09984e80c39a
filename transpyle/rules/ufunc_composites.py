"""Elementwise functions written with others, exact in value and derivative, each where NumPy's own is defined:

- ``np.add(a, b)`` and ``np.subtract(a, b)`` are ``a + b`` and ``a - b`` (written when resolved); with
  ``out=c``, that value written into ``c`` (``np.positive(a + b, out=c)``, as any ufunc's ``out=``);

and once the operands' kinds are known (``lower``):

- ``np.fmax``, ``np.fmin``: the maximum (minimum) of the operands that are not NaN (``np.where`` of
  ``np.isnan`` around ``np.maximum``); ties split the cotangent as ``np.maximum`` does;
- ``np.logaddexp(a, b)``: ``m + log1p(exp(d))`` with ``m`` the larger operand and ``d`` the smaller less the
  larger (0 where they are equal, so that two equal infinities give that infinity); at a tie each operand
  gets half of the cotangent, as the function's own gradient has it; ``np.logaddexp2`` in base 2;
- ``np.angle(z, deg)``: ``np.arctan2`` of the imaginary and real parts (of 0 and ``z`` for a real ``z``);
- ``np.isclose(a, b, rtol, atol, equal_nan)``: ``|a - b| <= atol + rtol * |b|`` (equal infinities are close;
  NaNs are where ``equal_nan``), ``np.allclose`` the same for every element; ``np.count_nonzero(a, axis)``:
  the sum of ``a != 0``. Tests of values: no derivative flows through them.
"""
import gast
import numpy as np

from ..base.ast_utils import parse_expr
from .call_forms import arguments, define_written, literal, rewrite
from .common import StaticError, elementwise, floating


def _operator(name, op):
    def build(call):
        bound = arguments(call, ("x1", "x2", "out"), {"out": None}, name)
        value = gast.BinOp(left=bound["x1"], op=op(), right=bound["x2"])
        if not (isinstance(bound["out"], gast.Constant) and bound["out"].value is None):
            # out=c: the value written into c (normalize writes a call's out=), through the identity ufunc
            return gast.Call(func=parse_expr("np.positive"), args=[value],
                             keywords=[gast.keyword(arg="out", value=bound["out"])])
        return value
    return build


rewrite([np.add], _operator("np.add", gast.Add))
rewrite([np.subtract], _operator("np.subtract", gast.Sub))


def _either(chooser):
    def text(s, k):
        if not (k["a"].is_float or k["b"].is_float):
            return f"np.{chooser}(a, b)"           # integers are never NaN
        return f"np.where(np.isnan(a), b, np.where(np.isnan(b), a, np.{chooser}(a, b)))"
    return text


define_written("np.fmax", "a, b", elementwise("a", "b"), _either("maximum"))
define_written("np.fmin", "a, b", elementwise("a", "b"), _either("minimum"))

# the smaller operand less the larger, 0 where they are equal (no inf - inf: two equal infinities give 0)
_TIE = "np.maximum(a, b) == np.minimum(a, b)"
_GAP = f"np.where({_TIE}, 0.0, np.minimum(a, b)) - np.where({_TIE}, 0.0, np.maximum(a, b))"
define_written("np.logaddexp", "a, b", floating("a", "b"),
               lambda s, k: f"np.maximum(a, b) + np.log1p(np.exp({_GAP}))")
define_written("np.logaddexp2", "a, b", floating("a", "b"),
               lambda s, k: f"np.maximum(a, b) + np.log1p(np.exp2({_GAP})) * {float(1.0 / np.log(2.0))!r}")


def _angle_kind(k, s):
    z = k["z"]
    if getattr(z, "ndim", None) is None:
        raise StaticError("np.angle takes a number or an array")
    return z.with_dtype("float32" if z.dtype in ("complex64", "float32") else "float64")


def _angle_text(s, k):
    deg = literal(s["deg"], "deg")
    parts = "np.imag(z), np.real(z)" if k["z"].is_complex else "0.0 * z, z"
    return f"np.arctan2({parts})" + (f" * {float(180.0 / np.pi)!r}" if deg else "")


define_written("np.angle", "z, deg=False", _angle_kind, _angle_text)


def _isclose(s, k):
    equal_nan = literal(s["equal_nan"], "equal_nan")
    if equal_nan not in (True, False):
        raise StaticError("equal_nan must be True or False")
    close = "((np.abs(a - b) <= atol + rtol * np.abs(b)) | (a == b))"
    return f"({close} | (np.isnan(a) & np.isnan(b)))" if equal_nan else close


_CLOSE = "a, b, rtol=1e-05, atol=1e-08, equal_nan=False"
define_written("np.isclose", _CLOSE, lambda k, s: elementwise("a", "b")(k, s).with_dtype("bool"), _isclose)
define_written("np.allclose", _CLOSE, lambda k, s: elementwise("a", "b")(k, s).with_dtype("bool").with_ndim(0),
               lambda s, k: f"np.all({_isclose(s, k)})")
def _count_kind(k, s):
    axis, keep, ndim = literal(s["axis"], "axis"), literal(s["keepdims"], "keepdims"), k["a"].ndim
    dropped = 0 if keep else ndim if axis is None else len(axis) if isinstance(axis, tuple) else 1
    return k["a"].with_dtype("int64").with_ndim(ndim - dropped)


define_written("np.count_nonzero", "a, axis=None, keepdims=False", _count_kind,
               lambda s, k: "np.sum(a != 0, axis=axis, keepdims=keepdims)")
