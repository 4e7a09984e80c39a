"""Advanced indexing: what an index with integer arrays or a boolean mask selects, and the
primitives it is compiled to.

NumPy's rules, for the forms transpyle compiles: the index arrays (integer arrays, or one boolean
mask) stand next to each other; integers among them count as basic indices; slices and
``np.newaxis`` elsewhere are basic. The result takes the basic part, with the axes the arrays
index replaced by the broadcast shape of the integer arrays (one axis, the selected entries, for
a mask). Where NumPy moves those axes to the front instead (index arrays separated by a slice or
an integer) the index is refused with a hint, since the transposed result is rarely what is meant.

``frontend/lower_indexing`` compiles a read to ``rt.gather`` of a basic-indexed view, and a write to
a loop of basic writes; the rules of ``rt.gather`` (a copy: reading it back never sees later
writes) make every transform handle the reads, the scatter-add adjoint included.
"""
from dataclasses import dataclass

import numpy as np

from .. import runtime as rt
from ..base.kinds import INT, Kind
from . import LINEAR, RAGGED, define
from .common import StaticError, const_value


@dataclass(frozen=True)
class Advanced:
    """The index arrays of an index: ``first``..``last`` their positions in the index, ``axis`` the
    first axis they index in the basic-indexed array, ``count`` how many axes they index, ``mask``
    whether it is one boolean mask, ``ndim`` the rank of the part of the result they make."""
    first: int
    last: int
    axis: int
    count: int
    mask: bool
    ndim: int


def _is_array(part):
    return isinstance(part, Kind) and part.ndim > 0


def advanced(parts):
    """The :class:`Advanced` index arrays among ``parts`` (the kinds of an index: "slice",
    "newaxis" or a Kind), or None when the index is basic. Raises ``StaticError`` for forms
    transpyle does not compile."""
    arrays = [i for i, p in enumerate(parts) if _is_array(p)]
    if not arrays:
        return None
    for i in arrays:
        if parts[i].is_float:
            raise StaticError("an index array must hold integers or booleans, not floats",
                              hint="convert it with .astype(np.int64)")
    first, last = arrays[0], arrays[-1]
    if arrays != list(range(first, last + 1)):
        raise StaticError("index arrays separated by a slice are not supported (NumPy moves their axes first)",
                          hint="index in two steps, e.g. x[i][:, j]")
    axis = sum(1 for p in parts[:first] if p in ("slice", "newaxis"))
    for i, p in enumerate(parts):
        between = parts[i + 1:first] if i < first else parts[last + 1:i]
        if isinstance(p, Kind) and p.ndim == 0 and axis and any(b in ("slice", "newaxis") for b in between):
            # NumPy then puts the indexed axes first, where a basic index before the arrays keeps others
            raise StaticError("an integer index separated from the index arrays by a slice moves their axes "
                              "first in NumPy", hint="take the integer index first: x[0][:, idx] instead of x[0, :, idx]")
    masks = [i for i in arrays if parts[i].dtype == "bool"]
    if masks and len(arrays) > 1:
        raise StaticError("a boolean mask can only be the one index array of an index",
                          hint="index with the mask and with the other arrays in two steps")
    if masks:
        return Advanced(first, last, axis, parts[first].ndim, True, 1)
    return Advanced(first, last, axis, len(arrays), False, max(parts[i].ndim for i in arrays))


def indexed_ndim(ndim, parts):
    """The rank of ``x[index]`` for ``x`` of rank ``ndim`` and ``parts`` the index's kinds."""
    adv = advanced(parts)
    out = ndim
    for p in parts:
        if p == "newaxis":
            out += 1
        elif isinstance(p, Kind) and p.ndim == 0:
            out -= 1
    if adv is not None:
        used = sum(1 for p in parts if p == "slice" or (isinstance(p, Kind) and p.ndim == 0)) + adv.count
        if used > ndim:
            raise StaticError(f"too many indices for an array of rank {ndim}")
        out += adv.ndim - adv.count
    if out < 0:
        raise StaticError(f"too many indices for an array of rank {ndim}")
    return out


# ---- the primitives an advanced index is compiled to -------------------------------------------
def _statics(s):
    return const_value(s["axis"], "axis"), const_value(s["count"], "count")


def _gather_kind(k, s):
    axis, count = _statics(s)
    return k["x"].with_ndim(k["x"].ndim - count + k["flat"].ndim)


def _gather_batch(batched, k, s):
    if batched["flat"]:
        return None                  # positions differing per example: one gather per example
    axis, count = _statics(s)
    return f"rt.gather(x, flat, {axis + 1}, {count})"


define("rt.gather", [rt.gather], "x, flat, axis, count", _gather_kind,
       lambda k, s: {"x": "rt.scatter_sum(g, flat, bx, {}, {})".format(*_statics(s))}, diff=("x",), jvp=LINEAR,
       batch=_gather_batch)
define("rt.scatter_sum", [rt.scatter_sum], "v, flat, like, axis, count", lambda k, s: k["like"],
       lambda k, s: {"v": "rt.gather(g, flat, {}, {})".format(*_statics(s))}, diff=("v",), jvp=LINEAR)
define("rt.axis_positions", [rt.axis_positions], "i, n", lambda k, s: INT.with_ndim(k["i"].ndim),
       batch=lambda b, k, s: None if b["n"] else "rt.axis_positions(i, n)")
# the shape is a shape fact (the same for every example): only a batched mask differs per example
define("rt.mask_positions", [rt.mask_positions], "mask, shape, axis", lambda k, s: INT.with_ndim(1),
       batch=lambda b, k, s: RAGGED if b["mask"] else None, ragged=True)


# ---- functions returning positions (not differentiable: their results are integers) ------------
def _argsort_kind(k, s):
    if k["x"].ndim != 1:
        raise StaticError("np.argsort of an array of rank above 1 is not supported",
                          hint="sort each row in a loop: np.argsort(x[i])")
    return INT.with_ndim(1)


def _arg_extreme_kind(k, s):
    axis = const_value(s["axis"], "axis")
    if axis is None:
        return INT
    if not isinstance(axis, int) or not -k["x"].ndim <= axis < k["x"].ndim:
        raise StaticError(f"axis {axis} is out of range for an array of rank {k['x'].ndim}")
    return INT.with_ndim(k["x"].ndim - 1)


define("np.argsort", [np.argsort], "x", _argsort_kind)
define("np.argmax", [np.argmax], "x, axis=None", _arg_extreme_kind)
define("np.argmin", [np.argmin], "x, axis=None", _arg_extreme_kind)
define("np.flatnonzero", [np.flatnonzero], "x", lambda k, s: INT.with_ndim(1), batch=RAGGED, ragged=True)
