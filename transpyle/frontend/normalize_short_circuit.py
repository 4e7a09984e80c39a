"""Short-circuit evaluation in A-normal form: ``and``/``or``, chained comparisons (``a < b < c``) and
conditional expressions (``x if c else y``) become ``if`` statements that assign one name, so that an
operand is computed only where Python would compute it, in Python's order.

``ShortCircuitNormalization`` is a part of normalize's normalizer: it uses the normalizer's ``rhs``, ``atom``,
``assign_to``, ``test_name``, ``located`` and ``fresh``.
"""
import gast

from ..base.ast_utils import assign, name


class ShortCircuitNormalization:
    """The normalizer's right-hand sides that evaluate their operands conditionally."""

    def chained_comparison(self, node, out, target):
        """``a < b < c``: each comparison in turn, stopping at the first false one."""
        parts = []
        left = node.left
        for op, right in zip(node.ops, node.comparators):
            parts.append(gast.Compare(left=left, ops=[op], comparators=[right]))
            left = right
        return self.rhs(gast.BoolOp(op=gast.And(), values=parts), out, target)

    def boolop(self, node, out, target):
        """``a and b`` (``a or b``): ``a`` assigned, then ``b`` assigned in an ``if`` on it (on its negation)."""
        tmp = target or self.fresh()
        self.assign_to(tmp, node.values[0], out)
        if len(node.values) == 1:
            return name(tmp), None
        rest = gast.BoolOp(op=node.op, values=node.values[1:]) if len(node.values) > 2 else node.values[1]
        branch = []
        self.assign_to(tmp, rest, branch)
        if isinstance(node.op, gast.And):
            out.append(self.located(gast.If(test=name(tmp), body=branch, orelse=[]), node))
        else:
            neg = self.fresh()
            out.append(self.located(assign(neg, gast.UnaryOp(op=gast.Not(), operand=name(tmp))), node))
            out.append(self.located(gast.If(test=name(neg), body=branch, orelse=[]), node))
        return name(tmp), None

    def conditional(self, node, out, target):
        """``body if test else orelse``: an ``if`` assigning either to one name."""
        tmp = target or self.fresh()
        test = self.atom(node.test, out)
        body, orelse = [], []
        self.assign_to(tmp, node.body, body)
        self.assign_to(tmp, node.orelse, orelse)
        out.append(self.located(gast.If(test=self.test_name(test, out), body=body, orelse=orelse), node))
        return name(tmp), None
