"""Primitives that only generated code calls: tapes, loop tests, un-broadcasting, axis insertion.

They matter when generated code is transformed again (``hessian`` is ``jacfwd`` over the code
``jacrev`` generates; ``grad(grad(f))`` runs forward mode over ``grad(f)``'s code). Tapes are
linear in what they store, so their tangents are tapes of tangents.
"""
import numpy as np

from .. import runtime as rt
from ..kinds import BOOL, INT
from . import LINEAR, define

# the user's stop_gradient(x): x, with no derivative in either mode
define("stop_gradient", [rt.stop_gradient], "x", lambda k, s: k["x"])
# the loop test of a `for ... range` loop that can break (written by the jumps pass)
define("rt.in_range", [rt.in_range], "i, stop, step", lambda k, s: BOOL)
define("rt.stack_like", [rt.stack_like], "n, item", lambda k, s: k["item"].with_ndim(k["item"].ndim + 1))
define("rt.trip_count", [rt.trip_count], "start, stop, step", lambda k, s: INT)
# tapes of arrays (lists); to kinds a tape of rank-r arrays has rank r + 1, and its tangent is a tape too
define("rt.array_tape", [rt.array_tape], "like", lambda k, s: k["like"].with_ndim(k["like"].ndim + 1),
       diff=("like",), jvp=LINEAR)
define("rt.tape_push", [rt.tape_push], "tape, value", lambda k, s: k["tape"], diff=("tape", "value"), jvp=LINEAR)
define("rt.tape_pop", [rt.tape_pop], "tape", lambda k, s: k["tape"].with_ndim(k["tape"].ndim - 1), diff=("tape",),
       jvp=LINEAR)
define("rt.reserve", [rt.reserve], "tape, size", lambda k, s: k["tape"], diff=("tape",), jvp=LINEAR)
define("rt.push", [rt.push], "tape, top, value", lambda k, s: k["tape"], diff=("tape", "value"), jvp=LINEAR)
define("rt.unbroadcast", [rt.unbroadcast], "g, x", lambda k, s: k["g"].with_ndim(k["x"].ndim), diff=("g",),
       jvp=LINEAR)
define("np.expand_dims", [np.expand_dims], "x, axis", lambda k, s: k["x"].with_ndim(k["x"].ndim + 1),
       {"x": "np.reshape(g, x.shape)"}, diff=("x",), jvp=LINEAR)
