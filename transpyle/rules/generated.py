"""Primitives that only generated code calls: tapes, loop tests, un-broadcasting, axis insertion, the
gradient of ``np.prod``, the markers of custom rules.

They matter when generated code is transformed again (``hessian`` is ``jacfwd`` over the code
``jacrev`` generates; ``grad(grad(f))`` runs forward mode over ``grad(f)``'s code, ``vmap(grad(f))``
batches it): each needs the derivative and batching rules those transforms apply. Tapes are
linear in what they store, so their tangents are tapes of tangents.
"""
import numpy as np

from .. import runtime as rt
from ..base.ast_utils import template_expr
from ..base.kinds import BOOL, INT, Kind
from . import LANEWISE, LINEAR, Tape, define
from .common import StaticError, const_value, elementwise, same


def _on_lanes(helper, *params):
    """The batching rule of a run-time helper whose form ``helper`` takes every operand with the batch axis:
    an unbatched operand is copied into every lane first."""
    def rule(batched, kinds, statics):
        return f"{helper}({', '.join(p if batched[p] else f'rt.lanes({p}, _B)' for p in params)})"
    return rule


# the user's stop_gradient(x): x, with no derivative in either mode
define("stop_gradient", [rt.stop_gradient], "x", lambda k, s: k["x"], batch=LANEWISE)
# the marker of a checkpointed function's body (frontend/remat): a number, read by reverse mode
define("rt.recompute_here", [rt.recompute_here], "x", lambda k, s: INT)
# the loop test of a `for ... range` loop that can break (written by the jumps pass)
define("rt.in_range", [rt.in_range], "i, stop, step", lambda k, s: BOOL,
       batch=lambda b, k, s: None if b["step"] else "np.logical_and(i < stop, step > 0) | np.logical_and(i > stop, step < 0)")
define("rt.stack_like", [rt.stack_like], "n, item", lambda k, s: k["item"].with_ndim(k["item"].ndim + 1))
define("rt.trip_count", [rt.trip_count], "start, stop, step", lambda k, s: INT)


def _no_adjoint(k, s):
    raise StaticError("reverse mode through the tapes of gradient code called in the body (vjp of a function "
                      "calling grad) is not supported: a tape read backwards would need a tape of its own",
                      hint="grad, value_and_grad and jacrev of such a function run forward mode over the gradient "
                           "code; for a Hessian-vector product use jvp(grad(f), (x,), (v,))")


# Tapes: to kinds a tape of rank-r values has rank r + 1; tapes are linear in what they store, so the tangent
# of a tape is a tape of tangents. They have no adjoint (_no_adjoint): the pipeline takes derivatives of code
# holding tapes (the gradient of g inlined where grad(g) is called) in forward mode.
define("rt.array_tape", [rt.array_tape], "like", lambda k, s: k["like"].with_ndim(k["like"].ndim + 1),
       _no_adjoint, diff=("like",), jvp=LINEAR, batch=Tape("rt.array_tape(like)", lifted=("like",), masked=False))
define("rt.tape_push", [rt.tape_push], "tape, value", lambda k, s: k["tape"], _no_adjoint, diff=("tape", "value"),
       jvp=LINEAR, batch=Tape("rt.tape_push(tape, value)", lifted=("value",), masked=False))
define("rt.tape_pop", [rt.tape_pop], "tape", lambda k, s: k["tape"].with_ndim(k["tape"].ndim - 1), _no_adjoint,
       diff=("tape",), jvp=LINEAR, batch=Tape("rt.tape_pop(tape)", masked=False))
define("rt.reserve", [rt.reserve], "tape, size", lambda k, s: k["tape"], _no_adjoint, diff=("tape",), jvp=LINEAR,
       batch=Tape("rt.reserve_lanes(tape, size)"))
define("rt.push", [rt.push], "tape, top, value", lambda k, s: k["tape"], _no_adjoint, diff=("tape", "value"),
       jvp=LINEAR, batch=Tape("rt.push_lanes(tape, top, value)"))
# checkpointed loops (runtime/checkpoints): the schedule is integers; snapshots are copies and tapes, linear
define("rt.segment_length", [rt.segment_length], "trips, state_bytes, step_bytes, budget", lambda k, s: INT)
define("rt.snapshot_slots", [rt.snapshot_slots], "state_bytes, budget", lambda k, s: INT)
define("rt.snapshot", [rt.snapshot], "x", lambda k, s: k["x"], _no_adjoint, diff=("x",), jvp=LINEAR,
       batch=LANEWISE)
define("rt.thin_snapshots", [rt.thin_snapshots], "tape", lambda k, s: k["tape"], _no_adjoint, diff=("tape",),
       jvp=LINEAR)
define("rt.thin_values", [rt.thin_values], "tape, count", lambda k, s: k["tape"], _no_adjoint, diff=("tape",),
       jvp=LINEAR)


def _unbroadcast_lanes(batched, kinds, statics):
    """Each lane's v summed down to x's shape: one un-broadcast to x's shape with the batch axis first and
    length-1 axes standing for the dimensions x lacks (only its shape is read), reshaped to x's own."""
    if not batched["v"]:
        return None                 # the same sum in every lane: the per-example loop
    if batched["x"]:
        lead, own = "x.shape[:1]", "x.shape[1:]"
    else:
        lead, own = "v.shape[:1]", "x.shape" if kinds["x"].ndim else "()"
    ones = "(" + "1, " * (kinds["v"].ndim - kinds["x"].ndim) + ")"
    return f"np.reshape(rt.unbroadcast(v, np.empty({lead} + {ones} + {own})), {lead} + {own})"


def _expand_dims_lanes(batched, kinds, statics):
    """The new axis of each example, one further along past the batch axis (a constant axis, as written by the
    adjoints of reductions)."""
    axis = const_value(statics["axis"], "axis")
    if batched["axis"] or not isinstance(axis, int):
        return None
    return f"np.expand_dims(x, {axis % (kinds['x'].ndim + 1) + 1})"


# un-broadcasting v (a sum down to x's shape) is linear; its transpose broadcasts back to v's shape
define("rt.unbroadcast", [rt.unbroadcast], "v, x", lambda k, s: k["v"].with_ndim(k["x"].ndim),
       {"v": "g + np.zeros_like(v)"}, diff=("v",), jvp=LINEAR, batch=_unbroadcast_lanes)
# rt.expand_dims: the same, of a number too (Numba's takes arrays only), as the adjoints of reductions to a
# number write it and a number's np.expand_dims is lowered to
define("np.expand_dims", [np.expand_dims, rt.expand_dims], "x, axis", lambda k, s: k["x"].with_ndim(k["x"].ndim + 1),
       lambda k, s: {"x": "np.reshape(g, x.shape)" if k["x"].ndim else "g[0]"}, diff=("x",), jvp=LINEAR,
       batch=_expand_dims_lanes, lower=lambda s, k, ops: None if k["x"].ndim else
       template_expr("rt.expand_dims(x, axis)", x=ops["x"], axis=ops["axis"]),
       view=lambda kinds: "x" if kinds.get("x") is not None and kinds["x"].ndim else None)   # NumPy's is a view
# the gradient of np.prod: each element's product of the others. Its Jacobian is the Hessian of np.prod,
# symmetric, so the adjoint rule is the tangent rule; prod_others_jvp is linear in v, and its derivative in x
# (a third derivative of np.prod) has no rule: forward mode names the user's line where one is needed
define("rt.prod_others", [rt.prod_others], "x", same("x"), {"x": "rt.prod_others_jvp(x, g)"},
       jvp={"x": "rt.prod_others_jvp(x, t)"}, batch=_on_lanes("rt.prod_others_lanes", "x"))
# along one axis: the same per slice; a batch axis in front shifts the axis by one
define("rt.prod_others_axis", [rt.prod_others_axis], "x, axis", same("x"), {"x": "rt.prod_others_axis_jvp(x, g, axis)"},
       diff=("x",), jvp={"x": "rt.prod_others_axis_jvp(x, t, axis)"},
       batch=lambda b, k, s: None if b["axis"] else "rt.prod_others_axis(x, axis + 1)" if b["x"] else None)
define("rt.prod_others_axis_jvp", [rt.prod_others_axis_jvp], "x, v, axis", elementwise("x", "v"),
       {"v": "rt.prod_others_axis_jvp(x, g, axis)"}, diff=("x", "v"), jvp={"v": "rt.prod_others_axis_jvp(x, t, axis)"},
       batch=lambda b, k, s: None if b["axis"] or not (b["x"] and b["v"]) else
       "rt.prod_others_axis_jvp(x, v, axis + 1)")
def _shifted_axes(helper, *lanes):
    """The batching rule of a helper along a tuple of axes (sorted, non-negative) when ``lanes`` are
    batched: a batch axis in front shifts each axis by one."""
    def rule(batched, kinds, statics):
        if not all(batched[p] for p in lanes):
            return None
        shifted = tuple(a + 1 for a in const_value(statics["axes"], "axes"))
        return f"{helper}({', '.join(lanes)}, {shifted!r})"
    return rule


# along a tuple of axes: the same per slice (a default, so that normalize keeps the tuple as written)
define("rt.prod_others_axes", [rt.prod_others_axes], "x, axes=()", same("x"),
       {"x": "rt.prod_others_axes_jvp(x, g, axes)"}, diff=("x",), jvp={"x": "rt.prod_others_axes_jvp(x, t, axes)"},
       batch=_shifted_axes("rt.prod_others_axes", "x"))
define("rt.prod_others_axes_jvp", [rt.prod_others_axes_jvp], "x, v, axes=()", elementwise("x", "v"),
       {"v": "rt.prod_others_axes_jvp(x, g, axes)"}, diff=("x", "v"), jvp={"v": "rt.prod_others_axes_jvp(x, t, axes)"},
       batch=_shifted_axes("rt.prod_others_axes_jvp", "x", "v"))
define("rt.prod_others_jvp", [rt.prod_others_jvp], "x, v", elementwise("x", "v"), {"v": "rt.prod_others_jvp(x, g)"},
       diff=("x", "v"), jvp={"v": "rt.prod_others_jvp(x, t)"}, batch=_on_lanes("rt.prod_others_jvp_lanes", "x", "v"))


# ---- custom rules (transpyle.custom_jvp, custom_vjp) -------------------------------------------------
# Markers written where a call uses a custom rule; the transform that writes them gives them these
# derivatives, and transforms/custom_rules replaces them by plain values afterwards.
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
