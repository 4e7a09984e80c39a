"""Run-time helpers of every generated function: loop bounds, tapes, the markers of custom rules,
un-broadcasting and reductions along an axis.

Each helper is a plain Python function with NumPy semantics (what the numpy backend runs) and,
where Numba needs one, an implementation registered with ``numba.extending.overload`` (what
compiled code runs).
"""
import numpy as np

from numba import types
from numba.extending import overload, register_jitable


# ---- loops -----------------------------------------------------------------------------------
def trip_count(start, stop, step):
    """How many times ``for i in range(start, stop, step)`` runs."""
    if step > 0:
        return max(0, (stop - start + step - 1) // step)
    return max(0, (start - stop - step - 1) // (-step))


def in_range(i, stop, step):
    """Whether ``i`` is still inside ``range(..., stop, step)``."""
    return i < stop if step > 0 else i > stop


# ---- tapes -----------------------------------------------------------------------------------
def push(tape, top, value):
    """Store ``value`` at ``tape[top]``, doubling the tape when full; returns the tape."""
    if top == tape.shape[0]:
        bigger = np.empty(2 * tape.shape[0] + 16, tape.dtype)
        _copy_rows(tape, bigger, top)
        tape = bigger
    tape[top] = value
    return tape


def reserve(tape, size):
    """A tape with room for ``size`` entries (the trip count, when known before a loop). It grows
    at least twofold, so reserving before an inner loop on every outer iteration stays linear."""
    if size <= tape.shape[0]:
        return tape
    bigger = np.empty(max(size, 2 * tape.shape[0]), tape.dtype)
    _copy_rows(tape, bigger, tape.shape[0])
    return bigger


def array_tape(like):
    """An empty tape (a list) for arrays like ``like``; ``tape_push``/``tape_pop`` use it as a stack."""
    tape = [like]
    tape.pop()
    return tape


def tape_push(tape, value):
    # contiguous, so that the tape has one item type whatever views are saved (Numba types lists strictly)
    tape.append(np.ascontiguousarray(value))
    return tape


def tape_pop(tape):
    return tape.pop()


def _copy_rows(src, dst, count):
    # an explicit loop: Numba compiles a slice assignment ~10x slower (seconds on first use)
    for k in range(count):
        dst[k] = src[k]


def stack_like(n, item):
    """An uninitialized array of ``n`` items shaped like ``item`` (a number or an array)."""
    return np.empty((n,) + np.shape(item), np.asarray(item).dtype)


@overload(stack_like, jit_options={"cache": True})
def _stack_like_numba(n, item):
    if isinstance(item, types.Array):
        return lambda n, item: np.empty((n,) + item.shape, item.dtype)
    dtype = np.complex128 if isinstance(item, types.Complex) else np.int64 if isinstance(item, types.Integer) \
        else np.bool_ if isinstance(item, types.Boolean) else np.float64
    return lambda n, item: np.empty(n, dtype)


def stop_gradient(x):
    """``x`` itself; to the transforms, a value whose derivative is zero (as ``jax.lax.stop_gradient``).
    Applied to a pytree in transformed code, it applies to every leaf."""
    return x


stop_gradient.__transpyle_leafwise__ = True


for _helper in (trip_count, in_range, _copy_rows, push, reserve, array_tape, tape_push, tape_pop, stop_gradient):
    register_jitable(_helper)


# ---- dtype conversion ---------------------------------------------------------------------------
def astype(x, dtype):
    """``x.astype(dtype)``: a converted copy of an array; a number converted for a number."""
    return x.astype(dtype) if isinstance(x, np.ndarray) else dtype(x)


@overload(astype, jit_options={"cache": True})
def _astype_numba(x, dtype):
    if isinstance(x, types.Array):
        return lambda x, dtype: x.astype(dtype)
    return lambda x, dtype: dtype(x)


# ---- custom derivative rules ---------------------------------------------------------------------
# Markers the inline pass writes where a call uses a custom rule (``transpyle.custom_jvp``,
# ``custom_vjp``); the transform gives them their derivatives, then they are replaced by plain values
# (transforms/custom_rules), so generated modules never call them.
def custom_primal(x):
    """``x``, with no derivative: the primal operand of a custom jvp rule."""
    return x


def custom_tangent(x):
    """Zero shaped like ``x``, whose derivative is that of ``x``: a tangent operand of a jvp rule."""
    return np.zeros_like(x) if isinstance(x, np.ndarray) else type(x)(0)


def custom_output(value, tangent):
    """``value``, whose derivative is that of ``tangent`` (the tangent output of a jvp rule)."""
    return value


def custom_vjp_call(inputs, residuals, value, bwd, cotangents, nondiff):
    """``value``, whose adjoint sweep calls ``bwd(*nondiff, residuals, g)`` for the cotangents of ``inputs``."""
    return value


# ---- adjoints of broadcasting -------------------------------------------------------------------
def unbroadcast(g, x):
    """Sum ``g`` down to the shape of ``x`` (undoing NumPy broadcasting of ``x`` into ``g``)."""
    xs = np.shape(x)
    gs = np.shape(g)
    if gs == xs:
        return g
    if not xs:
        return np.sum(g)
    lead = len(gs) - len(xs)
    g = np.sum(g, axis=tuple(range(lead))) if lead > 0 else g
    axes = tuple(k for k, n in enumerate(xs) if n == 1 and g.shape[k] != 1)
    return np.sum(g, axis=axes, keepdims=True) if axes else g


@overload(unbroadcast, jit_options={"cache": True})
def _unbroadcast_numba(g, x):
    if not isinstance(g, types.Array):
        return lambda g, x: g
    if not isinstance(x, types.Array):
        return lambda g, x: np.sum(g)
    gnd, xnd = g.ndim, x.ndim
    lead = gnd - xnd

    def impl(g, x):
        if gnd == xnd:
            same = True
            for k in range(gnd):
                if g.shape[k] != x.shape[k]:
                    same = False
            if same:
                return np.ascontiguousarray(g)
        flat = np.ascontiguousarray(g).ravel()
        out = np.zeros(x.size, g.dtype)
        for f in range(flat.size):
            rem = f
            xi = 0
            mult = 1
            for k in range(gnd - 1, -1, -1):
                ik = rem % g.shape[k]
                rem //= g.shape[k]
                kx = k - lead
                if kx >= 0:
                    n = x.shape[kx]
                    if n != 1:
                        xi += ik * mult
                    mult *= n
            out[xi] += flat[f]
        return out.reshape(x.shape)
    return impl


def prod_others(x):
    """For each element, the product of all the other elements (exact with zeros)."""
    flat = np.ravel(x)
    n = flat.size
    out = np.empty(n, flat.dtype)
    acc = 1.0
    for i in range(n):
        out[i] = acc
        acc *= flat[i]
    acc = 1.0
    for i in range(n - 1, -1, -1):
        out[i] *= acc
        acc *= flat[i]
    return out.reshape(np.shape(x))


def prod_others_jvp(x, v):
    """The derivative of ``prod_others(x)`` along ``v``: for each element ``i``, the sum over ``j != i`` of
    ``v[j]`` times the product of the elements other than ``i`` and ``j`` (the Hessian of ``np.prod``,
    symmetric, applied to ``v``). Exact with zeros: the prefix and suffix products of ``prod_others``
    carried with their tangents, so it costs O(size), not the Hessian's O(size**2)."""
    flat, dflat = np.ravel(x), np.ravel(v)
    n = flat.size
    out = np.ravel(np.zeros_like(x * v))
    left, dleft = np.empty(n, out.dtype), np.empty(n, out.dtype)
    acc, dacc = 1.0, 0.0
    for i in range(n):
        left[i] = acc
        dleft[i] = dacc
        dacc = dacc * flat[i] + acc * dflat[i]
        acc *= flat[i]
    acc, dacc = 1.0, 0.0
    for i in range(n - 1, -1, -1):
        out[i] = dleft[i] * acc + left[i] * dacc
        dacc = dacc * flat[i] + acc * dflat[i]
        acc *= flat[i]
    return out.reshape(np.shape(x))


def prod_others_lanes(x):
    """``prod_others`` of each example of a batch ``x`` (examples along the leading axis)."""
    out = np.empty_like(x)
    for b in range(x.shape[0]):
        out[b] = prod_others(x[b])
    return out


def prod_others_jvp_lanes(x, v):
    """``prod_others_jvp`` of each example of the batches ``x`` and ``v`` (examples along the leading axis)."""
    out = np.empty_like(x * v)
    for b in range(x.shape[0]):
        out[b] = prod_others_jvp(x[b], v[b])
    return out


def _around(x, axis):
    """(elements before ``axis``, along it, after it): ``x`` seen as a (pre, n, post) block."""
    pre, post = 1, 1
    for d in range(axis):
        pre *= x.shape[d]
    for d in range(axis + 1, x.ndim):
        post *= x.shape[d]
    return pre, x.shape[axis], post


def prod_others_axis(x, axis):
    """For each element, the product of the other elements along ``axis`` (exact with zeros)."""
    pre, n, post = _around(x, axis)
    flat = np.ascontiguousarray(x).reshape((pre, n, post))
    out = np.empty((pre, n, post), flat.dtype)
    for a in range(pre):
        for c in range(post):
            acc = 1.0
            for i in range(n):
                out[a, i, c] = acc
                acc *= flat[a, i, c]
            acc = 1.0
            for i in range(n - 1, -1, -1):
                out[a, i, c] *= acc
                acc *= flat[a, i, c]
    return out.reshape(x.shape)


def prod_others_axis_jvp(x, v, axis):
    """The derivative of ``prod_others_axis(x, axis)`` along ``v`` (``prod_others_jvp`` per slice along
    ``axis``: symmetric, so it is also the adjoint rule)."""
    pre, n, post = _around(x * v, axis)
    flat = np.ascontiguousarray(x * np.ones_like(v)).reshape((pre, n, post))
    dflat = np.ascontiguousarray(v * np.ones_like(x)).reshape((pre, n, post))
    out = np.zeros((pre, n, post), dflat.dtype)
    left, dleft = np.empty(n, dflat.dtype), np.empty(n, dflat.dtype)
    for a in range(pre):
        for c in range(post):
            acc, dacc = 1.0, 0.0
            for i in range(n):
                left[i] = acc
                dleft[i] = dacc
                dacc = dacc * flat[a, i, c] + acc * dflat[a, i, c]
                acc *= flat[a, i, c]
            acc, dacc = 1.0, 0.0
            for i in range(n - 1, -1, -1):
                out[a, i, c] = dleft[i] * acc + left[i] * dacc
                dacc = dacc * flat[a, i, c] + acc * dflat[a, i, c]
                acc *= flat[a, i, c]
    return out.reshape((x * v).shape)


def _slices_along(shape, axes):
    """(order, count, n): the flat positions of a C-ordered array of ``shape`` listed slice by slice, where a
    slice holds the ``n`` elements that differ only along ``axes`` (a tuple of distinct axes): row ``r`` of
    ``x.ravel()[order].reshape((count, n))`` is one slice, in C order over the other axes."""
    ndim = len(shape)
    along = np.zeros(ndim, np.bool_)
    for a in axes:
        along[a] = True
    count, n = 1, 1
    for d in range(ndim):
        if along[d]:
            n *= shape[d]
        else:
            count *= shape[d]
    order = np.empty(count * n, np.int64)
    for flat in range(count * n):
        rest, row, col, row_step, col_step = flat, 0, 0, 1, 1
        for d in range(ndim - 1, -1, -1):
            i = rest % shape[d]
            rest //= shape[d]
            if along[d]:
                col += i * col_step
                col_step *= shape[d]
            else:
                row += i * row_step
                row_step *= shape[d]
        order[row * n + col] = flat
    return order, count, n


def prod_others_axes(x, axes):
    """For each element, the product of the other elements of its slice along the tuple ``axes``
    (``prod_others_axis`` on the slices laid out as rows: exact with zeros)."""
    order, count, n = _slices_along(x.shape, axes)
    rows = np.ascontiguousarray(x).ravel()[order].reshape((count, n))
    out = np.empty(x.size, rows.dtype)
    out[order] = prod_others_axis(rows, 1).ravel()
    return out.reshape(x.shape)


def prod_others_axes_jvp(x, v, axes):
    """The derivative of ``prod_others_axes(x, axes)`` along ``v`` (symmetric: also its adjoint rule)."""
    xs, vs = x * np.ones_like(v), v * np.ones_like(x)
    order, count, n = _slices_along(xs.shape, axes)
    rows = np.ascontiguousarray(xs).ravel()[order].reshape((count, n))
    drows = np.ascontiguousarray(vs).ravel()[order].reshape((count, n))
    dout = prod_others_axis_jvp(rows, drows, 1)
    out = np.empty(xs.size, dout.dtype)
    out[order] = dout.ravel()
    return out.reshape(xs.shape)


for _helper in (prod_others, prod_others_jvp, prod_others_lanes, prod_others_jvp_lanes, _around, prod_others_axis,
                prod_others_axis_jvp, _slices_along,
                prod_others_axes, prod_others_axes_jvp):
    register_jitable(_helper)


# ---- reductions along axes (NumPy semantics; Numba lacks axis/keepdims for most) ----------------
# ``axis``: None, an int, or a sorted tuple of non-negative ints (``rules.common.axis_of``), a constant
def sum_axis(x, axis, keepdims):
    return np.sum(x, axis=axis, keepdims=keepdims)


def mean_axis(x, axis, keepdims):
    return np.mean(x, axis=axis, keepdims=keepdims)


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


def _reduce_impl(op, ndim, axis, keepdims, out_dtype):
    """Source of a Numba implementation for one (op, rank, axis, keepdims): plain nested loops,
    outer ones over the kept dimensions, inner ones over the reduced ones (Numba compiles
    transpose/reshape pipelines for seconds; these loops compile in a fraction of that)."""
    axes = list(range(ndim)) if axis is None else list(axis) if isinstance(axis, tuple) else [axis]
    keep = [k for k in range(ndim) if k not in axes]
    idx = [f"i{k}" for k in range(ndim)]
    start, step = _COMBINE[op]
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


def _register_reduction(func, op):
    def typer(x, axis, keepdims):
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
        dt = x.dtype
        if op in ("any", "all"):
            out_dtype = np.bool_
        elif op == "mean" or isinstance(dt, types.Boolean):
            out_dtype = np.float64
        else:
            out_dtype = np.dtype(str(dt))
        return _reduce_impl(op, x.ndim, ax, keep, out_dtype)
    overload(func, prefer_literal=True)(typer)


for _f, _op in ((sum_axis, "sum"), (mean_axis, "mean"), (prod_axis, "prod"), (max_axis, "max"),
                (min_axis, "min"), (any_axis, "any"), (all_axis, "all")):
    _register_reduction(_f, _op)

