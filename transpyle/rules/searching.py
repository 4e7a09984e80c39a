"""Searching sorted arrays: ``np.searchsorted``, a primitive of integer result (no derivative); and the
sign bit, ``np.signbit`` (a boolean primitive), which the twin of np.copysign reads.

``np.searchsorted(a, v, side)``: for each value of ``v`` (a number or an array of any rank) the position in
the sorted vector ``a`` where it would be inserted, before equal values (``side='left'``) or after them
(``'right'``); NaNs sort last, as in NumPy (Numba's np.searchsorted agrees). The result is an integer of
``v``'s shape, so it carries no derivative. Refused: ``a`` not a vector, ``side`` not a constant 'left' or
'right', ``sorter=`` (sort ``a`` first, or index it by the permutation). Batched over ``v`` it is the same
call; batched over ``a`` it runs per example. The twins np.interp, np.digitize and np.isin
(twins/interpolation.py) are written with it.

``np.signbit(x)``: whether the sign bit of ``x`` is set (True for -0.0 and for NaNs that carry it), a boolean
of ``x``'s shape, elementwise; complex ``x`` is refused, as NumPy does.
"""
import gast
import numpy as np

from ..base.kinds import INT
from . import LANEWISE, define
from .common import StaticError, boolean, const_value


def _searchsorted_kind(k, s):
    a, v = k["a"], k["v"]
    if a is None or a.ndim != 1:
        raise StaticError("a must be a sorted vector (1-D)",
                          hint="ravel it, or search each row in a loop")
    if a.is_complex or (v is not None and v.is_complex):
        raise StaticError("complex values are not supported")
    try:
        side = const_value(s["side"], "side")
    except StaticError:
        side = None
    if side not in ("left", "right"):
        raise StaticError("side must be 'left' or 'right', written as a constant")
    sorter = s["sorter"]
    if not (isinstance(sorter, gast.Constant) and sorter.value is None):
        raise StaticError("sorter= is not supported",
                          hint="search the sorted array: np.searchsorted(a[sorter], v)")
    return INT.with_ndim(v.ndim if v is not None else 0)


def _searchsorted_lanes(batched, kinds, statics):
    """Batched over ``v`` only: the same call (its result has ``v``'s shape, batch axis first)."""
    if batched["a"]:
        return None
    side = const_value(statics["side"], "side")
    return f"np.searchsorted(a, v, side={side!r})"


define("np.searchsorted", [np.searchsorted], "a, v, side='left', sorter=None", _searchsorted_kind,
       batch=_searchsorted_lanes)


# np.signbit reads the sign bit, which no composition of comparisons reads for -0.0 and NaNs: its own
# primitive (a boolean of x's shape, no derivative), NumPy's and Numba's own function on both backends
def _signbit_kind(k, s):
    if k["x"].is_complex:
        raise StaticError("complex values have no sign bit", hint="take np.real or np.imag first")
    return boolean("x")(k, s)


define("np.signbit", [np.signbit], "x", _signbit_kind, batch=LANEWISE)
