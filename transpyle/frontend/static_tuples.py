"""static_tuples: tuples built by arithmetic at transform time, as shapes often are (``(1,) * x.ndim +
(-1,)``, ``(n,) + (3, 3)``), folded into the tuple they make; resolve calls ``fold`` on each operator.

``t1 + t2`` of two tuples written out is their concatenation and ``t * k`` (or ``k * t``) with ``k`` a
constant integer repeats the items. ``x.ndim`` is the constant rank where ``x`` is an argument of the
transformed function that the body never rebinds (``ndim_of``): the code is specialized on its kind; so
``x.shape`` of such an argument, joined to a tuple, is the tuple of its axis lengths, and ``x.shape[:k]``
(constant bounds) the tuple of those lengths.
"""
import copy

import gast

from ..base.ast_utils import const
from ..base.kinds import Kind


def _count(node):
    if isinstance(node, gast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    return None


def fold(node, arg_kinds, unrebound):
    """The tuple a ``BinOp`` of tuples makes, else ``node``; ``x.shape`` of an argument ``x`` never
    rebound stands for the tuple of its axis lengths (``(x.shape[0], x.shape[1])``) there."""
    left, right = _items(node.left, arg_kinds, unrebound), _items(node.right, arg_kinds, unrebound)
    if isinstance(node.op, gast.Add) and isinstance(left, gast.Tuple) and isinstance(right, gast.Tuple):
        return gast.copy_location(gast.Tuple(elts=left.elts + right.elts, ctx=gast.Load()), node)
    if isinstance(node.op, gast.Mult):
        tup, count = (left, _count(right)) if isinstance(left, gast.Tuple) else (right, _count(left))
        if isinstance(tup, gast.Tuple) and count is not None:
            elts = [copy.deepcopy(e) for _ in range(max(count, 0)) for e in tup.elts]
            return gast.copy_location(gast.Tuple(elts=elts, ctx=gast.Load()), node)
    return node


def shape_part(node, arg_kinds, unrebound):
    """``x.shape[a:b]`` (constant bounds and step) of an argument of known rank: the tuple of those axis
    lengths; else None."""
    if not (isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Slice) and
            isinstance(node.value, gast.Attribute) and node.value.attr == "shape"):
        return None
    bounds = [getattr(node.slice, f) for f in ("lower", "upper", "step")]
    values = []
    for b in bounds:
        if b is None:
            values.append(None)
        elif isinstance(b, gast.Constant) and isinstance(b.value, int):
            values.append(b.value)
        elif isinstance(b, gast.UnaryOp) and isinstance(b.op, gast.USub) and isinstance(b.operand, gast.Constant):
            values.append(-b.operand.value)
        else:
            return None
    whole = _items(node.value, arg_kinds, unrebound)
    if not isinstance(whole, gast.Tuple):
        return None
    return gast.copy_location(gast.Tuple(elts=whole.elts[slice(*values)], ctx=gast.Load()), node)


def _items(node, arg_kinds, unrebound):
    """``node``, or the tuple of axis lengths of ``x.shape`` (or a part of it) for an argument of known rank."""
    part = shape_part(node, arg_kinds, unrebound)
    if part is not None:
        return part
    if isinstance(node, gast.Attribute) and node.attr == "shape":
        rank = ndim_of(node, arg_kinds, unrebound)
        if rank is not None:
            return gast.Tuple(elts=[gast.Subscript(value=copy.deepcopy(node), slice=const(k), ctx=gast.Load())
                                    for k in range(rank.value)], ctx=gast.Load())
    return node


def ndim_of(node, arg_kinds, unrebound):
    """``x.ndim`` of an argument ``x`` never rebound (``unrebound``) with an array kind: its rank as a
    constant, else None."""
    if isinstance(node.value, gast.Name) and node.value.id in unrebound:
        kind = arg_kinds.get(node.value.id)
        if isinstance(kind, Kind):
            return gast.copy_location(const(kind.ndim), node)
    return None
