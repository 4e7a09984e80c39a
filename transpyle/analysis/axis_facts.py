"""axis_facts: argument axes that a statement already run shows to have equal lengths.

A matrix product ``a @ b`` (or ``np.dot(a, b)``) of 1-D and 2-D operands runs only where the contracted
axes agree: once ``s = r @ a`` has run, axis 0 of ``r`` and axis 0 of ``a`` have one length for the rest
of the call (an argument's axes never change). ``Shapes`` names axes by argument axes, so such a fact
merges two names; every shape it gives afterwards names each class of equal axes by one of them.

A fact holds only after its statement: ``element_loops`` tells the facts each top-level statement of
the function shows once it has lowered that statement (one inside a loop or a branch may not run), so
the statements before it keep their run-time shape checks.
"""
import gast

from ..base.ast_utils import dotted


class AxisFacts:
    """Classes of argument axes ``(arg, k)`` known to be of equal length (a union-find)."""

    def __init__(self):
        self.parent = {}

    def root(self, axis):
        while self.parent.get(axis, axis) != axis:
            axis = self.parent[axis]
        return axis

    def merge(self, a, b):
        ra, rb = self.root(a), self.root(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)      # the smaller name stands for both: a stable choice

    def term(self, term):
        """The length term with its argument axis named by its class."""
        if not self.parent or not isinstance(term, tuple) or not term:
            return term
        if term[0] == "axis":
            arg, k = self.root((term[1], term[2]))
            return ("axis", arg, k, term[3])
        if term[0] == "span":
            return ("span", self.term(term[1])) + term[2:]
        return term

    def shape(self, shape):
        if not self.parent or not isinstance(shape, tuple):
            return shape
        return tuple(self.term(t) for t in shape)

    def learn(self, stmt, shapes):
        """The facts ``stmt`` shows once it has run: ``v = a @ b`` or ``v = np.dot(a, b)`` (the shapes of
        ``a`` and ``b`` read from ``shapes``) with whole argument axes contracted."""
        if not isinstance(stmt, gast.Assign):
            return
        value = stmt.value
        if isinstance(value, gast.BinOp) and isinstance(value.op, gast.MatMult):
            a, b = value.left, value.right
        elif isinstance(value, gast.Call) and dotted(value.func) == "np.dot" and len(value.args) == 2 \
                and not value.keywords:
            a, b = value.args
        else:
            return
        sa, sb = shapes.known(a), shapes.known(b)
        if not sa or not sb or len(sa) > 2 or len(sb) > 2:
            return
        left, right = sa[-1], sb[-2] if len(sb) == 2 else sb[0]
        # max(0, n + c) = max(0, m + c) says n = m only for c = 0 (lengths are never negative)
        if left[0] == right[0] == "axis" and left[3] == right[3] == 0:
            self.merge((left[1], left[2]), (right[1], right[2]))
