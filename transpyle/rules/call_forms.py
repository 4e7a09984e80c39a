"""What the rules written with other primitives share: the constants written in a call (``literal``), a
call's arguments by parameter name; ``rewrite``, which registers the builder of a call written with other
primitives when it is resolved (``rules/rewrites``), its nodes placed at the call's line; and
``define_written``, a primitive written with others once infer knows its operands' kinds (its ``lower``)."""
import gast
import numpy as np

from ..base.ast_utils import parse_expr, template_expr
from . import define
from .common import StaticError
from .rewrites import define_call


def is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def literal(node, what):
    """The Python value of a constant written in the call: numbers, strings, None, tuples and lists of them."""
    if isinstance(node, gast.Constant):
        return node.value
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub) and isinstance(node.operand, gast.Constant):
        return -node.operand.value
    if isinstance(node, (gast.Tuple, gast.List)):
        return tuple(literal(e, what) for e in node.elts)
    raise StaticError(f"{what} must be a constant")


def _int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def arguments(call, params, defaults, what):
    """The call's arguments by parameter name, positional ones first, defaults (nodes) for the rest; a
    parameter not in ``params`` or a missing required one is a StaticError."""
    if len(call.args) > len(params):
        raise StaticError(f"{what} takes at most {len(params)} arguments")
    bound = dict(zip(params, call.args))
    for kw in call.keywords:
        if kw.arg not in params:
            raise StaticError(f"{what} with {kw.arg}= is not supported")
        bound[kw.arg] = kw.value
    for p in params:
        if p not in bound:
            if p not in defaults:
                raise StaticError(f"{what} needs its argument '{p}'")
            bound[p] = parse_expr(repr(defaults[p]))
    return bound


def rewrite(objects, builder):
    """``define_call`` of ``builder``, whose expression takes the call's place in the source: every node of it
    gets the call's line (an error in it names the user's line)."""
    def located(call):
        out = builder(call)
        if out is not None:
            for node in gast.walk(out):
                if getattr(node, "lineno", None) is None and hasattr(node, "lineno"):
                    gast.copy_location(node, call)
        return out
    define_call(objects, located)


def refuse_unless_default(bound, names, what):
    for p in names:
        if literal(bound[p], p) is not None:
            raise StaticError(f"{what} with {p}= is not supported")


def axis_index(axis, index):
    """The text of an index reading ``index`` along ``axis`` (an int, negative ones from the end) and every
    element of the other axes."""
    return f"[{':, ' * axis}{index}]" if axis >= 0 else f"[..., {index}{', :' * (-axis - 1)}]"


def define_written(key, signature, kind, text, objects=None):
    """The primitive ``key`` (a NumPy function, ``np.NAME``, or a run-time helper given as ``objects``) with
    no rules of its own: ``lower_calls`` writes each call as ``text(statics, kinds)``, an expression over the
    parameter names that may nest calls, whose primitives then give the derivatives and batching."""
    params = [p.split("=")[0].strip() for p in signature.split(",")]

    def write(statics, kinds, operands):
        written = template_expr(text(statics, kinds), **{p: operands[p] for p in params})
        if isinstance(written, gast.Tuple) and any(getattr(item, "is_float", False) or getattr(item, "is_complex", False)
                                                   for item in getattr(kind(kinds, statics), "items", ())):
            # the sweeps differentiate statements, not the items of a tuple written in one: refuse, never drop
            raise StaticError(f"{key} written as a tuple of differentiable values is not supported")
        return written
    define(key, objects or [getattr(np, key[len("np."):])], signature, kind, lower=write)
