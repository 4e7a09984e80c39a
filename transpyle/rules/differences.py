"""Differences of neighbours along an axis, written with slices and concatenation (``define_written``):
their derivatives and batching come from those.

- ``np.diff(a, n=1, axis=-1, prepend=, append=)``: ``a[1:] - a[:-1]`` along the axis, ``n`` times (a
  constant); ``prepend``/``append`` (a number, or an array of ``a``'s rank) are joined to ``a`` first,
  a number as one slice of that value, as NumPy does.
- ``np.ediff1d(ary, to_end=, to_begin=)``: the differences of the flattened array, with numbers or
  vectors joined at the ends.
- ``np.gradient(f, h, axis=k)`` of one axis (every axis of a vector, or ``axis=`` a constant for higher
  ranks): central differences inside, one-sided at the two ends (``edge_order=1``), over a constant or
  number spacing ``h``. Several axes at once give a list of arrays and coordinates arrays give uneven
  spacing: both are refused by name.
"""
from .call_forms import define_written, literal
from .common import StaticError
from .rearrangements import _axis, _rank, part, shape


def _given(node):
    """Whether an optional argument was given (its default is None)."""
    return not (getattr(node, "value", 0) is None and type(node).__name__ == "Constant")


def _joined(name, kind, ndim, axis, rows):
    """Text of the value joined to ``a`` along ``axis`` for prepend/append ``name``: a number becomes one
    slice of ``a``'s other axes holding it, an array of ``a``'s rank is used as it is."""
    if kind is None or kind.ndim == 0:
        sizes = [f"a.shape[{d}]" if d != axis else "1" for d in range(ndim)]
        return f"np.full({shape(sizes)}, {name})" if rows else f"np.full(1, {name})"
    if kind.ndim != ndim:
        raise StaticError(f"np.diff with {name}= of rank {kind.ndim} on an array of rank {ndim} is not supported",
                          hint=f"give {name}= as a number or as an array of the same rank")
    return name


def _diff_kind(k, s):
    ndim = _rank(k, "a")
    n = literal(s["n"], "n")
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise StaticError("np.diff takes a constant order n, 0 or more")
    _axis(literal(s["axis"], "axis"), ndim)
    return k["a"]


def _diff_lower(s, k):
    ndim = k["a"].ndim
    n, axis = literal(s["n"], "n"), _axis(literal(s["axis"], "axis"), ndim)
    pieces = [_joined("prepend", k["prepend"], ndim, axis, ndim > 1)] if _given(s["prepend"]) else []
    pieces += ["a"]
    pieces += [_joined("append", k["append"], ndim, axis, ndim > 1)] if _given(s["append"]) else []
    out = f"np.concatenate(({', '.join(pieces)}), axis={axis})" if len(pieces) > 1 else "a"
    for _ in range(n):
        out = f"{part(f'({out})', axis, ndim, '1:')} - {part(f'({out})', axis, ndim, ':-1')}"
    return out if n else f"np.copy({out})"


define_written("np.diff", "a, n=1, axis=-1, prepend=None, append=None", _diff_kind, _diff_lower)


def _ediff1d_lower(s, k):
    pieces = []
    for end in ("to_begin", "to_end"):
        if not _given(s[end]):
            continue
        kind = k[end]
        if kind is not None and kind.ndim > 1:
            raise StaticError(f"np.ediff1d with {end}= of rank {kind.ndim} is not supported")
        pieces.append((end, "np.full(1, %s)" % end if kind is None or kind.ndim == 0 else f"np.ravel({end})"))
    inner = "np.ravel(ary)[1:] - np.ravel(ary)[:-1]"
    if not pieces:
        return inner
    first = [p for e, p in pieces if e == "to_begin"]
    last = [p for e, p in pieces if e == "to_end"]
    return f"np.concatenate(({', '.join(first + [inner] + last)}, ))"


define_written("np.ediff1d", "ary, to_end=None, to_begin=None", lambda k, s: k["ary"].with_ndim(1), _ediff1d_lower)


def _gradient_axis(k, s):
    ndim = _rank(k, "f")
    axis = literal(s["axis"], "axis")
    if axis is None:
        if ndim != 1:
            raise StaticError("np.gradient of every axis of an array of rank 2 or more gives a list of arrays",
                              hint="give axis= one constant axis, once per axis you need")
        return 0
    if isinstance(axis, tuple):
        raise StaticError("np.gradient along several axes gives a list of arrays",
                          hint="give axis= one constant axis, once per axis you need")
    return _axis(axis, ndim)


def _gradient_kind(k, s):
    _gradient_axis(k, s)
    edge = literal(s["edge_order"], "edge_order")
    if edge != 1:
        raise StaticError("np.gradient with edge_order=2 is not supported", hint="use edge_order=1 (the default)")
    h = k["h"]
    if h is not None and h.ndim:
        raise StaticError("np.gradient with an array of coordinates (uneven spacing) is not supported",
                          hint="give the spacing as a number")
    return k["f"].with_dtype("float64") if not k["f"].is_float and not k["f"].is_complex else k["f"]


def _gradient_lower(s, k):
    ndim, axis = k["f"].ndim, _gradient_axis(k, s)
    h = "h" if _given(s["h"]) else "1.0"
    first = f"({part('f', axis, ndim, '1:2')} - {part('f', axis, ndim, '0:1')}) / {h}"
    inner = f"({part('f', axis, ndim, '2:')} - {part('f', axis, ndim, ':-2')}) / (2.0 * {h})"
    last = f"({part('f', axis, ndim, '-1:')} - {part('f', axis, ndim, '-2:-1')}) / {h}"
    return f"np.concatenate(({first}, {inner}, {last}), axis={axis})"


define_written("np.gradient", "f, h=None, axis=None, edge_order=1", _gradient_kind, _gradient_lower)
