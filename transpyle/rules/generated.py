"""Primitives that only generated code calls: tapes, loop tests, un-broadcasting, axis insertion.

They matter when generated code is transformed again (``hessian`` is ``jacfwd`` over the code
``jacrev`` generates; ``grad(grad(f))`` runs forward mode over ``grad(f)``'s code). Tapes are
linear in what they store, so their tangents are tapes of tangents.
"""
import numpy as np

from .. import runtime as rt
from ..kinds import BOOL, INT, Kind
from . import LANEWISE, LINEAR, Tape, define
from .common import StaticError

# the user's stop_gradient(x): x, with no derivative in either mode
define("stop_gradient", [rt.stop_gradient], "x", lambda k, s: k["x"], batch=LANEWISE)
# the loop test of a `for ... range` loop that can break (written by the jumps pass)
define("rt.in_range", [rt.in_range], "i, stop, step", lambda k, s: BOOL,
       batch=lambda b, k, s: None if b["step"] else "np.logical_and(i < stop, step > 0) | np.logical_and(i > stop, step < 0)")
define("rt.stack_like", [rt.stack_like], "n, item", lambda k, s: k["item"].with_ndim(k["item"].ndim + 1))
define("rt.trip_count", [rt.trip_count], "start, stop, step", lambda k, s: INT)
# tapes of arrays (lists); to kinds a tape of rank-r arrays has rank r + 1, and its tangent is a tape too
define("rt.array_tape", [rt.array_tape], "like", lambda k, s: k["like"].with_ndim(k["like"].ndim + 1),
       diff=("like",), jvp=LINEAR, batch=Tape("rt.array_tape(like)", lifted=("like",), masked=False))
define("rt.tape_push", [rt.tape_push], "tape, value", lambda k, s: k["tape"], diff=("tape", "value"), jvp=LINEAR,
       batch=Tape("rt.tape_push(tape, value)", lifted=("value",), masked=False))
define("rt.tape_pop", [rt.tape_pop], "tape", lambda k, s: k["tape"].with_ndim(k["tape"].ndim - 1), diff=("tape",),
       jvp=LINEAR, batch=Tape("rt.tape_pop(tape)", masked=False))
define("rt.reserve", [rt.reserve], "tape, size", lambda k, s: k["tape"], diff=("tape",), jvp=LINEAR,
       batch=Tape("rt.reserve_lanes(tape, size)"))
define("rt.push", [rt.push], "tape, top, value", lambda k, s: k["tape"], diff=("tape", "value"), jvp=LINEAR,
       batch=Tape("rt.push_lanes(tape, top, value)"))
define("rt.unbroadcast", [rt.unbroadcast], "g, x", lambda k, s: k["g"].with_ndim(k["x"].ndim), diff=("g",),
       jvp=LINEAR)
define("np.expand_dims", [np.expand_dims], "x, axis", lambda k, s: k["x"].with_ndim(k["x"].ndim + 1),
       {"x": "np.reshape(g, x.shape)"}, diff=("x",), jvp=LINEAR)


# ---- custom rules (transpyle.custom_jvp, custom_vjp) -------------------------------------------------
# Markers written where a call uses a custom rule; the transform that writes them gives them these
# derivatives, and passes/custom_rules replaces them by plain values afterwards.
def _one_output(k, s):
    value = k["value"]
    if not isinstance(value, Kind):
        raise StaticError("a function with a custom rule must return one number or array, not a tuple")
    tangent = k.get("tangent")
    if isinstance(tangent, Kind) and tangent.ndim != value.ndim:
        raise StaticError(f"the jvp rule's tangent output has rank {tangent.ndim}, its primal output rank "
                          f"{value.ndim}")
    return value


def _custom_vjp_adjoint(k, s):
    """``ct0, ct1 = bwd(residuals, g)`` once, then each active input's adjoint accumulates its cotangent."""
    cotangents = [e.value for e in s["cotangents"].elts]
    targets = ", ".join(cotangents) + ("," if len(cotangents) == 1 else "")
    # arguments without a derivative come first: values by position, functions by registry key
    nondiff = [e.value if isinstance(getattr(e, "value", None), str) else f"nondiff{i}"
               for i, e in enumerate(s["nondiff"].elts)]
    adjoint = {"inputs": f"{targets} = {s['bwd'].value}({', '.join(nondiff + ['residuals', 'g'])})"}
    adjoint.update({("inputs", i): ct for i, ct in enumerate(cotangents)})
    return adjoint


def _custom_vjp_forward(k, s):
    raise StaticError(f"'{s['bwd'].value}' has only a reverse-mode rule (defvjp), so forward mode (jvp, jacfwd, "
                      "linearize) cannot differentiate it; define the function with transpyle.custom_jvp instead")


# x with no derivative (the primals given to a jvp rule)
define("rt.custom_primal", [rt.custom_primal], "x", lambda k, s: k["x"])
# zero shaped like x whose derivative is x's (the tangents given to a jvp rule)
define("rt.custom_tangent", [rt.custom_tangent], "x", lambda k, s: k["x"], {"x": "g"}, jvp={"x": "g"})
# the value of a call to a custom_jvp function, with the derivative of the rule's tangent output
define("rt.custom_output", [rt.custom_output], "value, tangent", _one_output, {"tangent": "g"}, diff=("tangent",),
       jvp={"tangent": "g"})
# the value of a call to a custom_vjp function; its adjoint calls bwd (in `bwd` its registry key)
define("custom_vjp", [rt.custom_vjp_call], "inputs, residuals, value, bwd, cotangents, nondiff", _one_output,
       _custom_vjp_adjoint, diff=("inputs",), varargs=True, jvp=_custom_vjp_forward)
