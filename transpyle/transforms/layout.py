"""layout: batched arrays of lane-loop code keep their lanes on the last axis.

Array lifting gives every batched value a leading batch axis. Under Numba, statements on batched
numbers run in loops over the lanes (``for _b1 in range(_B1): by[_b1, i] = ...``, see ``lift``);
with the lanes first, consecutive lanes of ``by[:, i]`` lie a whole example apart in memory, and the
loop neither streams nor vectorizes. Here the batched arrays whose every use allows it are stored
lanes-last instead (``by[i, _b1]``): the allocation puts the batch size last, element reads and
writes in lane loops move the lane index last, ``x.shape[1:]`` becomes ``x.shape[:-1]``, and
arguments and results change layout once, on the way in and out.

A use that would mean something else lanes-last (a NumPy-style read ``x[:, i]``, a call other than
an elementwise one, broadcasting against an unbatched array, a masked update) keeps the array
lanes-first; so do the arrays it is combined with (``x = y + z`` needs one layout for all three).
"""
import gast

from .. import rules
from ..base.ast_utils import dotted, parse_expr, template_expr
from ..base.kinds import Kind
from ..rules.primitives import lookup

ALLOCATIONS = ("np.zeros", "np.empty", "np.ones")


def _func(node):
    """The dotted name a call calls (``np.zeros``), or None."""
    return dotted(node.func) if isinstance(node, gast.Call) else None


class Layout:
    """The choice for one lifted function: ``candidates`` are its batched arrays (variable -> rank of
    one example), ``batched`` all its batched values, ``size`` names the batch size and ``lane`` the lane
    index of its lane loops; ``kinds`` are the kinds of one example."""

    def __init__(self, candidates, batched, size, lane, kinds):
        self.rank = dict(candidates)
        self.batched = batched
        self.numbers = {v for v in batched if isinstance(kinds.get(v), Kind) and not kinds[v].ndim}
        self.size, self.lane, self.kinds = size, lane, kinds

    # ---- which arrays may go lanes-last ------------------------------------------------------------
    def choose(self, body):
        """The set of arrays stored lanes-last: every candidate, less those with a use that needs the
        lanes first, and (repeatedly) those combined with an excluded one."""
        groups, excluded = [], set()
        for s in body:
            self._uses(s, groups, excluded)
        last = set(self.rank) - excluded
        changed = True
        while changed:
            changed = False
            for group in groups:
                if group - last and group & last:
                    last -= group
                    changed = True
        return last

    def _uses(self, node, groups, excluded):
        """Record, for every use under ``node``, the groups of arrays that must share a layout and the
        arrays that must keep their lanes first."""
        if isinstance(node, gast.Assign) and isinstance(node.targets[0], gast.Name) and \
                node.targets[0].id in self.rank:
            target = node.targets[0].id
            operands = self._same_layout(node.value, self.rank[target])
            if operands is not None:
                groups.append({target} | operands)
                return
            excluded.add(target)
            node = node.value
        elif isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) and node.value.id in self.rank:
            if not self._lane_element(node):
                excluded.add(node.value.id)
            node = node.slice
        elif self._shape_of(node) is not None or \
                isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name) and node.attr == "size":
            return
        elif isinstance(node, gast.Name) and node.id in self.rank:
            excluded.add(node.id)
            return
        for child in gast.iter_child_nodes(node):
            self._uses(child, groups, excluded)

    def _same_layout(self, value, rank):
        """The batched arrays that ``value`` combines into an array of ``rank`` (per example), where it
        is an allocation, a copy or an elementwise expression that can be written lanes-last; None
        otherwise. Lanes-first operands of lower rank were aligned by ``np.expand_dims(v, 1)``; lanes-last
        they broadcast as they are, and an unbatched array gets a trailing axis (``_aligned``)."""
        if self._batch_shape(value) is not None and _func(value) in ALLOCATIONS:
            return set()
        leaves = set()

        def visit(n, reshaped=False):
            if self._aligned(n) is not n:
                return visit(self._aligned(n))
            if self._batch_shape(n) is not None and _func(n) == "np.reshape":
                return visit(n.args[0], reshaped=True)      # any rank: lanes-last, each lane reshaped alike
            if isinstance(n, gast.Name):
                if n.id in self.rank:
                    leaves.add(n.id)
                    return reshaped or self.rank[n.id] <= rank
                return isinstance(self.kinds.get(n.id), Kind) and \
                    (n.id in self.numbers or n.id not in self.batched)
            if isinstance(n, gast.Constant):
                return True
            if isinstance(n, gast.BinOp):
                return visit(n.left) and visit(n.right)
            if isinstance(n, gast.UnaryOp):
                return visit(n.operand)
            if isinstance(n, gast.Call) and not n.keywords:
                prim, _ = lookup(n)
                if prim is not None and (prim.batch is rules.LANEWISE or prim.key == "np.copy"):
                    return all(visit(a, reshaped) for a in n.args)
            return False
        return leaves if visit(value) else None

    def _aligned(self, node):
        """The batched operand under ``np.expand_dims(v, 1)`` (the lanes-first alignment), else ``node``."""
        if _func(node) == "np.expand_dims" and len(node.args) == 2 and isinstance(node.args[1], gast.Constant) and \
                node.args[1].value == 1 and isinstance(node.args[0], (gast.Name, gast.Call)):
            inner = node.args[0]
            if isinstance(inner, gast.Call) or inner.id in self.rank or inner.id in self.numbers:
                return inner
        return node

    def _batch_shape(self, call):
        """``E`` of a shape ``(size,) + E`` given to an allocation (``np.zeros((size,) + E, dtype)``) or
        to ``np.reshape(x, (size,) + E)``, or None."""
        func = _func(call)
        position = 0 if func in ALLOCATIONS else 1 if func == "np.reshape" else None
        if position is None or len(call.args) <= position:
            return None
        shape = call.args[position]
        if isinstance(shape, gast.BinOp) and isinstance(shape.op, gast.Add) and \
                isinstance(shape.left, gast.Tuple) and len(shape.left.elts) == 1 and \
                isinstance(shape.left.elts[0], gast.Name) and shape.left.elts[0].id == self.size:
            return shape.right
        return None

    def _lane_element(self, node):
        """Whether ``node`` reads or writes one element of one lane: ``x[_b, i, ...]``, all indices given."""
        parts = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
        return isinstance(parts[0], gast.Name) and parts[0].id == self.lane and \
            len(parts) == self.rank[node.value.id] + 1 and \
            not any(isinstance(p, gast.Slice) for p in parts)

    def _shape_of(self, node):
        """The array of ``x.shape[1:]`` (the shape of one example), or None."""
        if isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Slice) and \
                isinstance(node.value, gast.Attribute) and node.value.attr == "shape" and \
                isinstance(node.value.value, gast.Name) and node.value.value.id in self.rank:
            s = node.slice
            if isinstance(s.lower, gast.Constant) and s.lower.value == 1 and s.upper is None and s.step is None:
                return node.value.value.id
        return None

    # ---- the rewrite -----------------------------------------------------------------------------------
    def rewrite(self, body, last):
        layout = self

        class Broadcast(gast.NodeTransformer):
            """An elementwise expression lanes-last: batched operands as they are, unbatched arrays
            given a trailing axis to broadcast against the lanes."""
            def visit_Call(self, n):
                inner = layout._aligned(n)
                if inner is not n:
                    return self.visit(inner)
                if layout._batch_shape(n) is not None:       # the batch size goes last in the shape
                    position = 0 if _func(n) in ALLOCATIONS else 1
                    shape = n.args[position]
                    n.args[position] = gast.BinOp(left=shape.right, op=gast.Add(), right=shape.left)
                    n.args[:position] = [self.visit(a) for a in n.args[:position]]
                    return n
                return self.generic_visit(n)

            def visit_Name(self, n):
                kind = layout.kinds.get(n.id)
                if n.id not in layout.batched and isinstance(kind, Kind) and kind.ndim:
                    return template_expr("np.expand_dims(v, -1)", v=n)
                return n

        class LanesLast(gast.NodeTransformer):
            def visit_Assign(self, n):
                t, value = n.targets[0], n.value
                if isinstance(t, gast.Name) and t.id in last:
                    n.value = Broadcast().visit(value)
                return self.generic_visit(n)

            def visit_Subscript(self, n):
                self.generic_visit(n)
                if isinstance(n.value, gast.Name) and n.value.id in last:
                    elts = n.slice.elts
                    n.slice = gast.Tuple(elts=elts[1:] + elts[:1], ctx=gast.Load())
                    return n
                x = layout._shape_of(n) if isinstance(n.value, gast.Attribute) else None
                if x in last:
                    n.slice = gast.Slice(lower=None, upper=gast.UnaryOp(op=gast.USub(), operand=gast.Constant(
                        value=1, kind=None)), step=None)
                return n
        return [LanesLast().visit(s) for s in body]


def to_last(var):
    """The value that stores argument ``var`` (lanes first) lanes-last."""
    return parse_expr(f"rt.lanes_last({var})")


def from_last(value, axis, rank):
    """A lanes-last result (``rank`` dimensions per example) with its lanes moved to ``axis``."""
    if axis == rank:
        return value
    if axis == 0:
        return template_expr("rt.lanes_first(v)", v=value)
    return template_expr(f"np.moveaxis(rt.lanes_first(v), 0, {axis})", v=value)


def run(body, candidates, batched, size, lane, kinds):
    """``body`` (the lifted statements) with the arrays that may go lanes-last stored so, and that set
    (see ``Layout`` for the arguments)."""
    layout = Layout(candidates, batched, size, lane, kinds)
    last = layout.choose(body)
    return (layout.rewrite(body, last) if last else body), last
