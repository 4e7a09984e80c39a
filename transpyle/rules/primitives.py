"""Which primitive an ANF right-hand side applies, and to which operands.

One lookup shared by every pass after ``resolve``: calls are found through the canonical
spellings (``np.sin``, ``math.exp``, ``rt.sum_axis``), operators by their gast class.
"""
import builtins
import math

import gast
import numpy as np

from .. import rules, runtime
from ..base.ast_utils import dotted

CANONICAL_NAMESPACE = {"np": np, "math": math, "rt": runtime}
SHAPE_ATTRS = ("shape", "size", "ndim")


def call_object(call):
    chain = dotted(call.func)
    if chain is None:
        return None
    head, *rest = chain.split(".")
    obj = CANONICAL_NAMESPACE.get(head, getattr(builtins, head, None))
    for part in rest:
        obj = getattr(obj, part, None)
    return obj


def lookup(rhs):
    """(primitive, {param: node}) for an ANF right-hand side, or (None, problem message)."""
    if isinstance(rhs, (gast.BinOp, gast.UnaryOp)):
        prim = rules.by_key(type(rhs.op).__name__)
        if prim is None:
            return None, f"the operator '{type(rhs.op).__name__}' is not supported"
        if isinstance(rhs, gast.BinOp):
            return prim, {"a": rhs.left, "b": rhs.right}
        return prim, {"x": rhs.operand}
    if isinstance(rhs, gast.Compare):
        prim = rules.by_key(type(rhs.ops[0]).__name__)
        if prim is None:         # `x is None` left undecided when the code was read (x a value of the run)
            return None, f"the comparison '{type(rhs.ops[0]).__name__}' of values known only at run time is not " \
                         "supported ('is None' is decided only where the value is a constant or None)"
        return prim, {"a": rhs.left, "b": rhs.comparators[0]}
    if isinstance(rhs, gast.Subscript):
        return rules.by_key("getitem"), {"x": rhs.value, "index": rhs.slice}
    if isinstance(rhs, gast.Call):
        obj = call_object(rhs)
        literal = obj is np.array and rhs.args and isinstance(rhs.args[0], (gast.List, gast.Tuple))
        prim = rules.by_key("array_literal") if literal else rules.by_object(obj) if obj is not None else None
        if prim is None:
            return None, f"'{dotted(rhs.func)}' has no rule"
        bound, problem = rules.bind(prim, rhs.args, rhs.keywords)
        if problem:
            return None, f"{prim.key}: {problem}"
        return prim, bound
    return None, "not a primitive"


def is_shape_expr(node):
    """``x.shape``, ``x.shape[k]``, ``x.size``, ``x.ndim``, ``len(x)``: integer facts about arrays."""
    if isinstance(node, gast.Attribute) and node.attr in SHAPE_ATTRS and isinstance(node.value, gast.Name):
        return True
    if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Attribute) and \
            node.value.attr == "shape" and is_shape_expr(node.value) and isinstance(node.slice, gast.Constant):
        return True
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id == "len" and \
            len(node.args) == 1 and isinstance(node.args[0], gast.Name):
        return True
    return False


def is_atom(node):
    return isinstance(node, (gast.Name, gast.Constant)) or is_shape_expr(node) or (
        isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub) and isinstance(node.operand, gast.Constant))


def holds_tapes(tree):
    """Whether ``tree`` calls the tape primitives (those batched by a ``rules.Tape`` rule): reverse-mode code."""
    return any(isinstance(n, gast.Call) and isinstance(getattr(lookup(n)[0], "batch", None), rules.Tape)
               for n in gast.walk(tree))


def tape_names(tree):
    """Names that hold tapes: results of the tape primitives, and names they are handed to. Array lifting
    decides per name whether a tape has a row per lane, and a tape takes no masked update."""
    assigned = [s for s in gast.walk(tree) if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)]
    out = set()
    grown = True
    while grown:
        grown = False
        for s in assigned:
            prim = lookup(s.value)[0] if isinstance(s.value, gast.Call) else None
            if s.targets[0].id not in out and (isinstance(getattr(prim, "batch", None), rules.Tape) or
                                               isinstance(s.value, gast.Name) and s.value.id in out):
                out.add(s.targets[0].id)
                grown = True
    return out
