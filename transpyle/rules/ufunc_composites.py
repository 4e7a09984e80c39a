"""Elementwise functions written with others, exact in value and derivative, each where NumPy's own is defined:

- ``np.add(a, b)`` and ``np.subtract(a, b)`` are ``a + b`` and ``a - b`` (written when resolved);

and once the operands' kinds are known (``lower``):

- ``np.fmax``, ``np.fmin``: the maximum (minimum) of the operands that are not NaN (``np.where`` of
  ``np.isnan`` around ``np.maximum``); ties split the cotangent as ``np.maximum`` does;
- ``np.logaddexp(a, b)``: ``m + log1p(exp(d))`` with ``m`` the larger operand and ``d`` the smaller less the
  larger (0 where they are equal, so that two equal infinities give that infinity); at a tie each operand
  gets half of the cotangent, as the function's own gradient has it; ``np.logaddexp2`` in base 2;
- ``np.angle(z, deg)``: ``np.arctan2`` of the imaginary and real parts (of 0 and ``z`` for a real ``z``).
"""
import gast
import numpy as np

from .call_forms import arguments, define_written, literal, rewrite
from .common import StaticError, elementwise, floating


def _operator(name, op):
    def build(call):
        bound = arguments(call, ("x1", "x2"), {}, name)
        return gast.BinOp(left=bound["x1"], op=op(), right=bound["x2"])
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
