"""The products of the other elements, exact with zeros: the derivative of ``np.prod`` (whole, along
an axis, along a tuple of axes, per example of a batch) and their own derivatives (the Hessian of
``np.prod`` applied to a direction), from prefix and suffix products in O(size)."""
import numpy as np

from numba.extending import register_jitable


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
