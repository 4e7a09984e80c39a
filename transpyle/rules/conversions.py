"""dtype conversions: ``x.astype(dtype)`` (``rt.astype``) and the ``dtype=`` of ``np.asarray`` and ``np.array``;
``x.item()`` (``rt.item``), the number an array of one element holds.

A conversion between inexact dtypes is the identity to the derivative (its tangent converted with it,
its cotangent the real part when a real array became complex); a conversion to an integer or bool
dtype is piecewise constant, so its result carries no derivative. Complex to real is refused: NumPy
drops the imaginary part with a warning, which is rarely what the code means.

``np.asarray(x, dtype=d)`` is ``x`` itself (a view of it) when ``x`` already has dtype ``d``, else a
converted copy; ``np.array(x, dtype=d)`` is always a copy. Both are lowered once kinds are known, to
``np.asarray(x)``/``np.copy(x)`` or ``rt.astype(x, d)``, as Numba takes neither with a dtype.
"""
from .. import runtime as rt
from ..base.ast_utils import template_expr
from . import LANEWISE, define
from .common import StaticError, dtype_of


def _target(k, s):
    """The dtype ``x`` is converted to (a name such as ``'float32'``), checked."""
    dtype = dtype_of(s["dtype"])
    if k["x"].is_complex and not dtype.startswith("complex"):
        raise StaticError(f"converting a complex array to {dtype} drops its imaginary part",
                          hint="take np.real(x) or np.abs(x) first")
    return dtype


def converted(k, s):
    """The kind of ``x`` converted to ``dtype`` (``x``'s own kind without a dtype)."""
    if s.get("dtype") is None or getattr(s["dtype"], "value", 0) is None:
        return k["x"]
    return k["x"].with_dtype(_target(k, s))


def _inexact(dtype):
    return dtype.startswith(("float", "complex"))


def _astype_vjp(k, s):
    target = _target(k, s)
    if not _inexact(target):
        return {}
    return {"x": "np.real(g)" if target.startswith("complex") and not k["x"].is_complex else "g"}


def _astype_jvp(k, s):
    return {"x": "rt.astype(t, dtype)"} if _inexact(_target(k, s)) else {}


define("astype", [rt.astype], "x, dtype", converted, _astype_vjp, diff=("x",), jvp=_astype_jvp, batch=LANEWISE)


def _item(statics, kinds, operands):
    """``x.item()``: the number itself, or the array's only element (NumPy raises for a larger array; here
    the first element is read)."""
    x = operands["x"]
    return x if kinds["x"].ndim == 0 else template_expr("np.ravel(x)[0]", x=x)


define("rt.item", [rt.item], "x", lambda k, s: k["x"].with_ndim(0), lower=_item)


def lower_conversion(function):
    """The ``lower`` rule of ``function`` (``np.asarray``, ``np.copy``) given a ``dtype=``: ``function(x)``
    when x has that dtype already, else ``rt.astype(x, dtype)``."""
    def lower(statics, kinds, operands):
        dtype = statics.get("dtype")
        if dtype is None or getattr(dtype, "value", 0) is None:
            return None
        same = _target(kinds, statics) == kinds["x"].dtype
        text = f"{function}(x)" if same else "rt.astype(x, dtype)"
        return template_expr(text, x=operands["x"], dtype=dtype)
    return lower


__all__ = ["converted", "lower_conversion"]
