"""Reductions along axes with NumPy semantics (``np.sum(x, axis, keepdims)``... as ``rt.sum_axis``):
Numba lacks axis/keepdims for most, so each (reduction, rank, axis, keepdims) compiles to plain
nested loops generated for it; of a number, the number. ``expand_dims`` puts a reduced axis back (the
adjoint of a reduction), of a number too."""
import numpy as np

from numba import types
from numba.extending import overload


# ---- reductions along axes (NumPy semantics; Numba lacks axis/keepdims for most) ----------------
# ``axis``: None, an int, or a sorted tuple of non-negative ints (``rules.common.axis_of``), a constant
def sum_axis(x, axis, keepdims):
    return np.sum(x, axis=axis, keepdims=keepdims)


def mean_axis(x, axis, keepdims):
    return np.mean(x, axis=axis, keepdims=keepdims)


def average_weights_sum(a, axis=None, weights=None, returned=False, keepdims=False):
    """The second value of ``np.average(..., returned=True)``: the sum of the weights, of the average's shape."""
    return np.average(a, axis=axis, weights=weights, returned=True, keepdims=keepdims)[1]


def prod_axis(x, axis, keepdims):
    return np.prod(x, axis=axis, keepdims=keepdims)


def max_axis(x, axis, keepdims):
    return np.max(x, axis=axis, keepdims=keepdims)


def min_axis(x, axis, keepdims):
    return np.min(x, axis=axis, keepdims=keepdims)


def any_axis(x, axis, keepdims):
    return np.any(x, axis=axis, keepdims=keepdims)


def all_axis(x, axis, keepdims):
    return np.all(x, axis=axis, keepdims=keepdims)


_COMBINE = {"sum": ("0", "acc + v"), "mean": ("0", "acc + v"), "prod": ("1", "acc * v"),
            "max": ("FIRST", "max(acc, v)"), "min": ("FIRST", "min(acc, v)"),
            "any": ("False", "acc or v != 0"), "all": ("True", "acc and v != 0")}
# NumPy orders complex numbers lexicographically (real parts, then imaginary parts); Numba has no order on them
_COMPLEX_COMBINE = {"max": "acc if acc.real > v.real or (acc.real == v.real and acc.imag >= v.imag) else v",
                    "min": "acc if acc.real < v.real or (acc.real == v.real and acc.imag <= v.imag) else v"}


def _reduce_impl(op, ndim, axis, keepdims, out_dtype):
    """Source of a Numba implementation for one (op, rank, axis, keepdims): plain nested loops,
    outer ones over the kept dimensions, inner ones over the reduced ones (Numba compiles
    transpose/reshape pipelines for seconds; these loops compile in a fraction of that)."""
    axes = list(range(ndim)) if axis is None else list(axis) if isinstance(axis, tuple) else [axis]
    keep = [k for k in range(ndim) if k not in axes]
    idx = [f"i{k}" for k in range(ndim)]
    start, step = _COMBINE[op]
    if np.dtype(out_dtype).kind == "c":
        step = _COMPLEX_COMBINE.get(op, step)
    first = "x[" + ", ".join("0" if k in axes else idx[k] for k in range(ndim)) + "]"
    start = first if start == "FIRST" else start
    count = " * ".join(f"x.shape[{k}]" for k in axes) or "1"
    kept_shape = ", ".join(f"x.shape[{k}]" for k in keep)
    lines = ["def impl(x, axis, keepdims):"]
    if keep:
        lines.append(f"    out = np.empty(({kept_shape},), out_dtype)")
    depth = 1
    for k in keep:
        lines.append("    " * depth + f"for {idx[k]} in range(x.shape[{k}]):")
        depth += 1
    lines.append("    " * depth + f"acc = {start}")
    inner = depth
    for k in axes:
        lines.append("    " * depth + f"for {idx[k]} in range(x.shape[{k}]):")
        depth += 1
    lines.append("    " * depth + f"v = x[{', '.join(idx)}]")
    lines.append("    " * depth + f"acc = {step}")
    if op == "mean":
        lines.append("    " * inner + f"acc = acc / ({count})")
    if keep:
        lines.append("    " * inner + f"out[{', '.join(idx[k] for k in keep)}] = acc")
        result = "out"
    else:
        result = "acc"
    if keepdims:
        shape = ", ".join(f"x.shape[{k}]" if k in keep else "1" for k in range(ndim))
        if keep:
            result = f"out.reshape(({shape},))"
        else:
            lines.append(f"    out = np.empty(({shape},), out_dtype)")
            lines.append(f"    out[{', '.join('0' for _ in range(ndim))}] = acc")
            result = "out"
    lines.append(f"    return {result}" if keep or keepdims else "    return out_type(acc)")
    out_dtype = np.dtype(out_dtype)
    scope = {"np": np, "out_dtype": out_dtype, "out_type": out_dtype.type}
    exec("\n".join(lines), scope)
    return scope["impl"]


def _out_dtype(op, dtype):
    """NumPy's dtype of reduction ``op`` of ``dtype`` values: bool for any and all, a float for the mean of
    integers or bools, an int for the sum and product of bools, else the values' own."""
    dtype = np.dtype(str(dtype))
    if op in ("any", "all"):
        return np.dtype(np.bool_)
    if op == "mean" and dtype.kind in "biu":
        return np.dtype(np.float64)
    if op in ("sum", "prod") and dtype.kind == "b":
        return np.dtype(np.int64)
    return dtype


def _number_impl(op, x):
    """A reduction of a number (a 0-D array to NumPy): the number itself, in the reduction's dtype (any and
    all: whether it is nonzero)."""
    if op in ("any", "all"):
        return lambda x, axis, keepdims: x != 0
    out_type = _out_dtype(op, x).type
    return lambda x, axis, keepdims: out_type(x)


def _register_reduction(func, op):
    def typer(x, axis, keepdims):
        if isinstance(x, (types.Number, types.Boolean)):
            return _number_impl(op, x)
        if not isinstance(x, types.Array):
            return None
        ax = getattr(axis, "literal_value", None)
        keep = bool(getattr(keepdims, "literal_value", False))
        if isinstance(axis, types.Integer) and ax is None:
            return None       # the axis must be a constant
        if isinstance(axis, types.BaseTuple):
            ax = tuple(getattr(t, "literal_value", None) for t in axis.types)
            if None in ax:
                return None   # so must every axis of a tuple
        return _reduce_impl(op, x.ndim, ax, keep, _out_dtype(op, x.dtype))
    overload(func, prefer_literal=True)(typer)


for _f, _op in ((sum_axis, "sum"), (mean_axis, "mean"), (prod_axis, "prod"), (max_axis, "max"),
                (min_axis, "min"), (any_axis, "any"), (all_axis, "all")):
    _register_reduction(_f, _op)



# ---- the adjoint of a reduction: its axes put back -------------------------------------------------
def expand_dims(x, axis):
    """``np.expand_dims(x, axis)``, of a number too (a 1-D array of it): a reduction of a 1-D array along
    its axis is a number, and its adjoint puts the axis back. Numba's np.expand_dims takes arrays only."""
    return np.expand_dims(x, axis)


@overload(expand_dims, jit_options={"cache": True})
def _expand_dims_numba(x, axis):
    if isinstance(x, types.Array):
        return lambda x, axis: np.expand_dims(x, axis)
    if isinstance(x, (types.Number, types.Boolean)):
        return lambda x, axis: np.full(1, x)
    return None
