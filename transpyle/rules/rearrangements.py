"""Rearrangements of elements: np.roll, np.rot90, np.fliplr, np.flipud, np.tile, np.repeat, np.pad, np.squeeze
and np.diagflat, each written with other primitives once infer knows the operand's rank (``lower``):

- ``np.roll``: the two parts of the axis joined the other way round (np.concatenate of slices); without an
  axis, of the flattened array, reshaped back;
- ``np.rot90``, ``np.fliplr``, ``np.flipud``: flips (views read backwards) and a swap of the two axes, as NumPy;
- ``np.tile``: copies joined along each axis (length-1 axes first where the repetitions are more than the axes);
- ``np.repeat``: each element broadcast along a new axis after its own and merged into it (a count per element:
  the slices joined, each as often as its count);
- ``np.pad``: blocks joined before and after along each axis: a constant (``np.full``), the edge element, the
  reflection (``reflect``, ``symmetric``) or the other end (``wrap``);
- ``np.squeeze``: a reshape without the named length-1 axes (which axes have length 1 is known only at run
  time, so an axis must be named);
- ``np.diagflat``: ``np.diag`` of the flattened array.

The derivatives and batching rules are those of the primitives written, so each is exact wherever they are.
"""
from .call_forms import define_written, literal
from .common import StaticError

_DTYPES = {"bool": "bool"}


def _rank(k, name="x", least=1):
    x = k[name]
    if getattr(x, "ndim", None) is None or x.ndim < least:
        raise StaticError(f"needs an array of rank {least} or more")
    return x.ndim


def _axis(value, ndim, what="axis"):
    if not isinstance(value, int) or isinstance(value, bool) or not -ndim <= value < ndim:
        raise StaticError(f"{what} {value!r} is not an axis of an array of rank {ndim}")
    return value % ndim


def _axes(value, ndim, what="axis"):
    axes = [_axis(a, ndim, what) for a in (value if isinstance(value, tuple) else (value,))]
    if len(set(axes)) != len(axes):
        raise StaticError(f"{what} {value!r} names an axis twice")
    return axes


def part(x, axis, ndim, index):
    """Text of ``x`` indexed by ``index`` along ``axis`` (every element of the others)."""
    return f"{x}[{':, ' * axis}{index}{', :' * (ndim - axis - 1)}]"


def shape(sizes):
    return "(" + "".join(f"{s}, " for s in sizes) + ")"


def dtype_text(kind):
    return "np." + _DTYPES.get(kind.dtype, kind.dtype)


# ---- np.roll ------------------------------------------------------------------------------------------
def _roll_pairs(s, ndim):
    shift, axis = literal(s["shift"], "shift"), literal(s["axis"], "axis")
    if axis is None:
        if not isinstance(shift, int):
            raise StaticError("np.roll without an axis takes one int shift")
        return [(shift, None)]
    axes = axis if isinstance(axis, tuple) else (axis,)
    shifts = shift if isinstance(shift, tuple) else (shift,) * len(axes)
    if len(shifts) != len(axes) or not all(isinstance(n, int) for n in shifts):
        raise StaticError(f"np.roll takes as many int shifts as axes, not shift={shift!r}, axis={axis!r}")
    return [(n, _axis(a, ndim)) for n, a in zip(shifts, axes)]


def _roll_kind(k, s):
    _roll_pairs(s, _rank(k))
    return k["x"]


def _rolled(x, n, axis, ndim, length):
    start = f"{-n} % {length}"
    return f"np.concatenate(({part(x, axis, ndim, start + ':')}, {part(x, axis, ndim, ':' + start)}), axis={axis})"


def _roll_lower(s, k):
    ndim = k["x"].ndim
    out = "x"
    for n, axis in _roll_pairs(s, ndim):
        if axis is None:
            return f"np.reshape({_rolled('np.ravel(x)', n, 0, 1, 'x.size')}, x.shape)"
        out = _rolled(out, n, axis, ndim, f"x.shape[{axis}]")
    return out


define_written("np.roll", "x, shift=0, axis=None", _roll_kind, _roll_lower)


# ---- np.rot90, np.fliplr, np.flipud --------------------------------------------------------------------------
def _rot90_axes(k, s):
    ndim = _rank(k, "m", 2)
    turns = literal(s["k"], "k")
    if not isinstance(turns, int):
        raise StaticError("np.rot90 takes a constant int k")
    axes = literal(s["axes"], "axes")
    axes = (0, 1) if axes is None else axes          # NumPy's default (a signature default is one constant)
    if not isinstance(axes, tuple) or len(axes) != 2:
        raise StaticError("np.rot90 takes axes as a pair of axes")
    a0, a1 = _axes(axes, ndim, "axes")
    return turns % 4, a0, a1


def _rot90_lower(s, k):
    turns, a0, a1 = _rot90_axes(k, s)
    return ("m[:]", f"np.swapaxes(np.flip(m, {a1}), {a0}, {a1})", f"np.flip(m, ({a0}, {a1}))",
            f"np.flip(np.swapaxes(m, {a0}, {a1}), {a1})")[turns]


def _checked(check):
    """The kind rule of a rearrangement of ``m``: ``check`` refuses the operands it cannot take."""
    def kind(k, s):
        check(k, s)
        return k["m"]
    return kind


define_written("np.rot90", "m, k=1, axes=None", _checked(_rot90_axes), _rot90_lower)
define_written("np.fliplr", "m", _checked(lambda k, s: _rank(k, "m", 2)), lambda s, k: "np.flip(m, 1)")
define_written("np.flipud", "m", _checked(lambda k, s: _rank(k, "m", 1)), lambda s, k: "np.flip(m, 0)")


# ---- np.tile --------------------------------------------------------------------------------------------
def _reps(k, s):
    reps = literal(s["reps"], "reps")
    reps = reps if isinstance(reps, tuple) else (reps,)
    if not all(isinstance(r, int) and not isinstance(r, bool) and r >= 0 for r in reps):
        raise StaticError(f"np.tile takes constant repetitions (ints, 0 or more), not {reps!r}")
    ndim = max(k["A"].ndim, len(reps))
    return (1,) * (ndim - len(reps)) + reps, ndim


def _tile_lower(s, k):
    reps, ndim = _reps(k, s)
    extra = ndim - k["A"].ndim
    out = f"A[{'None, ' * extra}{':, ' * k['A'].ndim}]" if extra else "A"
    for axis, r in enumerate(reps):
        if r == 0:
            out = part(out, axis, ndim, "0:0")
        elif r > 1:
            out = f"np.concatenate(({(out + ', ') * r}), axis={axis})"
    return out if out != "A" else "np.copy(A)"


define_written("np.tile", "A, reps=1", lambda k, s: k["A"].with_ndim(_reps(k, s)[1]), _tile_lower)


# ---- np.repeat --------------------------------------------------------------------------------------------
def _repeats(k, s):
    """The constant count (or tuple of counts) of np.repeat, or the name ``repeats`` where the count is an
    integer computed when the code runs (one count for every element)."""
    count = k["repeats"]
    try:
        repeats = literal(s["repeats"], "repeats")
    except StaticError:
        if count is not None and count.ndim == 0 and count.dtype.startswith("int"):
            return "repeats"
        raise StaticError("np.repeat takes one integer count, or a constant list of them, 0 or more",
                          hint="a count per element computed at run time gives a shape read from data") from None
    if not (isinstance(repeats, int) and repeats >= 0 or isinstance(repeats, tuple) and
            all(isinstance(r, int) and r >= 0 for r in repeats)):
        raise StaticError("np.repeat takes one integer count, or a constant list of them, 0 or more")
    return repeats


def _repeat_kind(k, s):
    x = k["a"]
    _repeats(k, s)
    axis = literal(s["axis"], "axis")
    if axis is None:
        return x.with_ndim(1)
    _axis(axis, _rank(k, "a"))
    return x


def _repeat_lower(s, k):
    repeats, axis = _repeats(k, s), literal(s["axis"], "axis")
    x, ndim = ("np.ravel(a)", 1) if axis is None else ("a", k["a"].ndim)
    axis = 0 if axis is None else axis % ndim
    sizes = ["a.size"] if ndim == 1 and axis == 0 and x != "a" else [f"a.shape[{d}]" for d in range(ndim)]
    if isinstance(repeats, (int, str)):     # one count for all: a constant, or the name of a computed one
        if repeats == 0:
            return part(x, axis, ndim, "0:0")
        ones = ["1"] * (ndim + 1)
        ones[axis + 1] = str(repeats)
        spread = f"{x}[{':, ' * (axis + 1)}None, {':, ' * (ndim - axis - 1)}] + " \
                 f"np.zeros({shape(ones)}, {dtype_text(k['a'])})"
        merged = sizes[:axis] + [f"{sizes[axis]} * {repeats}"] + sizes[axis + 1:]
        return f"np.reshape({spread}, {shape(merged)})"
    # a count per element: the axis's length must be that of the counts (the reshape checks it)
    checked = f"np.reshape({x}, {shape(sizes[:axis] + [len(repeats)] + sizes[axis + 1:])})"
    pieces = [part(checked, axis, ndim, f"{i}:{i + 1}") for i, r in enumerate(repeats) for _ in range(r)]
    if not pieces:
        return part(checked, axis, ndim, "0:0")
    return f"np.concatenate(({', '.join(pieces)}, ), axis={axis})"


define_written("np.repeat", "a, repeats=1, axis=None", _repeat_kind, _repeat_lower)


# ---- np.pad -------------------------------------------------------------------------------------------------
_PAD_MODES = ("constant", "edge", "reflect", "symmetric", "wrap")


def _widths(k, s):
    ndim = _rank(k, "array")
    width = literal(s["pad_width"], "pad_width")
    mode = literal(s["mode"], "mode")
    if mode not in _PAD_MODES:
        raise StaticError(f"np.pad with mode={mode!r} is not supported",
                          hint="the supported modes are " + ", ".join(map(repr, _PAD_MODES)))
    if isinstance(width, int):
        width = ((width, width),)
    elif isinstance(width, tuple) and all(isinstance(w, int) for w in width):
        width = (width * 2 if len(width) == 1 else width,)
    if not (isinstance(width, tuple) and all(isinstance(w, tuple) and len(w) == 2 and
                                             all(isinstance(n, int) and n >= 0 for n in w) for w in width)):
        raise StaticError(f"pad_width must be constant widths, 0 or more: n, (before, after) or one pair per "
                          f"axis, not {width!r}")
    if len(width) == 1:
        width = width * ndim
    if len(width) != ndim:
        raise StaticError(f"pad_width has {len(width)} pairs for an array of rank {ndim}")
    return width, mode


def _pad_lower(s, k):
    width, mode = _widths(k, s)
    ndim = k["array"].ndim
    sizes = [f"array.shape[{d}]" for d in range(ndim)]
    out = "array"
    try:
        zero = literal(s["constant_values"], "constant_values") == 0
    except StaticError:           # a value computed in the function
        zero = False
    for axis, (before, after) in enumerate(width):
        parts = []
        for n, at_start in ((before, True), (after, False)):
            if n == 0:
                parts.append(None)
                continue
            block = sizes[:axis] + [str(n)] + sizes[axis + 1:]
            if mode == "constant":
                piece = f"np.zeros({shape(block)}, {dtype_text(k['array'])})" if zero else \
                    f"np.full({shape(block)}, constant_values)"
            elif mode == "edge":
                one = part(out, axis, ndim, "0:1" if at_start else "-1:")
                piece = f"np.concatenate(({(one + ', ') * n}), axis={axis})" if n > 1 else one
            else:
                index = {("reflect", True): f"{n}:0:-1", ("reflect", False): f"-2:{-n - 2}:-1",
                         ("symmetric", True): f"{n - 1}::-1", ("symmetric", False): f"-1:{-n - 1}:-1",
                         ("wrap", True): f"{-n}:", ("wrap", False): f":{n}"}[mode, at_start]
                # a width the axis cannot give (reflect: n or more, wrap: more than n) fails in the reshape
                piece = f"np.reshape({part(out, axis, ndim, index)}, {shape(block)})"
            parts.append(piece)
        joined = [p for p in (parts[0], out, parts[1]) if p is not None]
        if len(joined) > 1:
            out = f"np.concatenate(({', '.join(joined)}), axis={axis})"
        sizes[axis] = f"{sizes[axis]} + {before + after}"
    return out if out != "array" else "np.copy(array)"


define_written("np.pad", "array, pad_width=0, mode='constant', constant_values=0",
               lambda k, s: _widths(k, s) and k["array"], _pad_lower)


# ---- np.squeeze, np.diagflat ------------------------------------------------------------------------------------
def _squeezed(k, s):
    ndim = _rank(k, "a", 0)
    axis = literal(s["axis"], "axis")
    if axis is None:
        raise StaticError("np.squeeze without an axis: which axes have length 1 is known only at run time",
                          hint="name the axes: np.squeeze(x, axis=1)")
    return _axes(axis, ndim)


def _squeeze_lower(s, k):
    gone = _squeezed(k, s)
    kept = [f"a.shape[{d}]" for d in range(k["a"].ndim) if d not in gone]
    return f"np.reshape(a, {shape(kept)})"


define_written("np.squeeze", "a, axis=None",
               lambda k, s: k["a"].with_ndim(k["a"].ndim - len(_squeezed(k, s))), _squeeze_lower)
define_written("np.diagflat", "v, k=0", lambda k, s: k["v"].with_ndim(2), lambda s, k: "np.diag(np.ravel(v), k)")
