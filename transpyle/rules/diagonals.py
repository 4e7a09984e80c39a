"""Diagonals: np.diagonal (offset, axis1, axis2), np.diag (a vector to a matrix, a matrix to its diagonal),
and np.trace with offset and axes, written as the sum of a diagonal.

A diagonal is linear; its adjoint puts the cotangent on the same diagonal of zeros shaped like the operand
(``rt.diagonal_vjp``, itself linear, whose adjoint is the diagonal again). NumPy returns the diagonal of a
matrix as a read-only view: the aliasing model follows it as a view of its operand (the run-time helpers
copy), so a write into that buffer while the diagonal is in use is refused. The primitive ``np.trace`` of
one matrix, which the rules of ``matrices`` are written with, is in ``matrices``; a call of np.trace in user
code is written as a diagonal's sum, which takes every form NumPy's does.
"""
import gast
import numpy as np

from .. import runtime as rt
from ..base.ast_utils import template_expr
from . import LINEAR, define
from .common import StaticError, const_value
from .rewrites import define_call

_READ_ONLY = "NumPy's diagonal of an array is a read-only view of it"


def diagonal_axes(k, s, name="x"):
    """The two distinct non-negative axes a diagonal is taken along, checked against the rank."""
    ndim = k[name].ndim
    if ndim < 2:
        raise StaticError(f"a diagonal needs an array of rank 2 or more, got rank {ndim}")
    axes = []
    for p in ("axis1", "axis2"):
        a = const_value(s[p], p)
        if not isinstance(a, int) or isinstance(a, bool) or not -ndim <= a < ndim:
            raise StaticError(f"{p}={a!r} is not an axis of an array of rank {ndim}")
        axes.append(a % ndim)
    if axes[0] == axes[1]:
        raise StaticError(f"axis1 and axis2 name the same axis ({axes[0]})", hint="name two different axes")
    return tuple(axes)


def _diagonal_kind(k, s):
    diagonal_axes(k, s)
    return k["x"].with_ndim(k["x"].ndim - 1)


def _diagonal_vjp(k, s):
    a1, a2 = diagonal_axes(k, s)
    return {"x": f"rt.diagonal_vjp(g, x, offset, {a1}, {a2})"}


def _diagonal_batch(batched, k, s):
    if batched["offset"]:
        return None
    a1, a2 = diagonal_axes(k, s)
    return f"rt.diagonal(x, offset, {a1 + 1}, {a2 + 1})"


def _diagonal_lower(s, k, ops):
    a1, a2 = diagonal_axes(k, s)
    return template_expr(f"rt.diagonal(x, offset, {a1}, {a2})", x=ops["x"], offset=ops["offset"])


define("np.diagonal", [np.diagonal, rt.diagonal], "x, offset=0, axis1=0, axis2=1", _diagonal_kind, _diagonal_vjp,
       diff=("x",), jvp=LINEAR, batch=_diagonal_batch, lower=_diagonal_lower, view="x", readonly=_READ_ONLY)


# zeros shaped like ``like`` with d on the diagonal: the adjoint of np.diagonal, linear in d
def _fill_kind(k, s):
    diagonal_axes(k, s, "like")
    return k["like"].with_dtype(np.result_type(k["d"].dtype, k["like"].dtype).name)


def _fill_vjp(k, s):
    a1, a2 = diagonal_axes(k, s, "like")
    return {"d": f"rt.diagonal(g, offset, {a1}, {a2})"}


def _fill_batch(batched, k, s):
    if batched["offset"] or not (batched["d"] and batched["like"]):
        return None
    a1, a2 = diagonal_axes(k, s, "like")
    return f"rt.diagonal_vjp(d, like, offset, {a1 + 1}, {a2 + 1})"


define("rt.diagonal_vjp", [rt.diagonal_vjp], "d, like, offset, axis1, axis2", _fill_kind, _fill_vjp, diff=("d",),
       jvp=LINEAR, batch=_fill_batch)


# ---- np.diag: a vector on the diagonal of a square matrix, or the diagonal of a matrix ------------------
def _diag_kind(k, s):
    v = k["v"]
    if v.ndim not in (1, 2):
        raise StaticError(f"np.diag takes a vector or a matrix, got rank {v.ndim}",
                          hint="np.diagonal takes the diagonals of any array")
    return v.with_ndim(3 - v.ndim)


def _diag_vjp(k, s):
    if k["v"].ndim == 1:
        return {"v": "rt.diagonal(g, k, 0, 1)"}
    return {"v": "rt.diagonal_vjp(g, v, k, 0, 1)"}


def _diag_lower(s, k, ops):
    """A matrix's diagonal is np.diagonal's (Numba's np.diag builds the matrix of a vector)."""
    if k["v"].ndim == 2:
        return template_expr("rt.diagonal(v, k, 0, 1)", v=ops["v"], k=ops["k"])
    return None


define("np.diag", [np.diag], "v, k=0", _diag_kind, _diag_vjp, diff=("v",), jvp=LINEAR, lower=_diag_lower,
       view=lambda kinds: "v" if kinds.get("v") is not None and kinds["v"].ndim == 2 else None,
       readonly=_READ_ONLY)


# ---- np.trace(a, offset, axis1, axis2): the sum of the diagonal ---------------------------------------
def _trace(call):
    params = ("a", "offset", "axis1", "axis2", "dtype", "out")
    if len(call.args) > len(params) or any(kw.arg not in params for kw in call.keywords):
        raise StaticError("np.trace takes a, offset, axis1 and axis2")
    bound = dict(zip(params, call.args))
    bound.update({kw.arg: kw.value for kw in call.keywords})
    if "a" not in bound:
        raise StaticError("np.trace needs the array")
    for unsupported in ("dtype", "out"):
        if unsupported in bound and const_value(bound[unsupported], unsupported) is not None:
            raise StaticError(f"np.trace with {unsupported}= is not supported")
    defaults = {"offset": 0, "axis1": 0, "axis2": 1}
    subs = {p: bound.get(p, gast.Constant(value=defaults[p], kind=None)) for p in defaults}
    return template_expr("np.sum(np.diagonal(a, offset, axis1, axis2), axis=-1)", a=bound["a"], **subs)


define_call([np.trace], _trace)
