"""1-D convolution and correlation: ``np.convolve(a, v, mode)`` and ``np.correlate(a, v, mode)``.

``np.convolve`` is the primitive ``rt.convolve`` (NumPy's modes ``'full'``, ``'same'``, ``'valid'``; Numba's
own has the full mode only). It is bilinear: its tangent is the convolution of each tangent with the
other operand, and the cotangent of an operand is the output's cotangent, placed in the full
convolution's length, correlated with the other operand (``rt.convolution_cotangent``, itself bilinear
and given its own rules, so second derivatives go through). ``np.correlate(a, v, mode)`` of real arrays
is ``np.convolve(a, v[::-1], mode)``, written so when the call is read; its default mode is ``'valid'``.
"""
import gast
import numpy as np

from .. import runtime as rt
from ..base.ast_utils import parse_expr
from ..base.kinds import promote
from . import define
from .call_forms import arguments, literal, rewrite
from .common import StaticError

_MODES = ("full", "same", "valid")


def _mode(statics):
    mode = literal(statics["mode"], "mode")
    if mode not in _MODES:
        raise StaticError(f"mode={mode!r} is not one of NumPy's modes", hint="use 'full', 'same' or 'valid'")
    return mode


def _vectors(*names):
    def kind(k, s):
        _mode(s)
        if any(k[n].ndim != 1 for n in names):
            raise StaticError("convolution takes 1-D arrays", hint="for several axes, write the loops out")
        return promote(*(k[n] for n in names)).with_ndim(1)
    return kind


define("rt.convolve", [rt.convolve], "a, v, mode='full'", _vectors("a", "v"),
       {"a": "rt.convolution_cotangent(g, v, a.shape[0], mode)", "v": "rt.convolution_cotangent(g, a, v.shape[0], mode)"},
       diff=("a", "v"), jvp={"a": "rt.convolve(t, v, mode)", "v": "rt.convolve(a, t, mode)"})
# c = cotangent(h, other): linear in h (its transpose is the convolution) and in other (a correlation of the
# placed h with c's cotangent, which is the same function with the roles of other and that cotangent swapped)
define("rt.convolution_cotangent", [rt.convolution_cotangent], "h, other, n, mode", _vectors("h", "other"),
       {"h": "rt.convolve(g, other, mode)", "other": "rt.convolution_cotangent(h, g, other.shape[0], mode)"},
       diff=("h", "other"),
       jvp={"h": "rt.convolution_cotangent(t, other, n, mode)", "other": "rt.convolution_cotangent(h, t, n, mode)"})


def _call(name, default_mode, reversed_second):
    def build(call):
        bound = arguments(call, ("a", "v", "mode"), {"mode": default_mode}, name)
        _mode(bound)
        v = bound["v"]
        if reversed_second:
            v = gast.Subscript(value=v, slice=gast.Slice(lower=None, upper=None, step=gast.Constant(value=-1, kind=None)),
                               ctx=gast.Load())
        return gast.Call(func=parse_expr("rt.convolve"), args=[bound["a"], v, bound["mode"]], keywords=[])
    return build


rewrite([np.convolve], _call("np.convolve", "full", False))
rewrite([np.correlate], _call("np.correlate", "valid", True))
