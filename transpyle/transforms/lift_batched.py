"""lift_batched: which values of a function lifted over a batch carry the batch axis.

Decided once, for the whole function, before any statement is rewritten: a value assigned from a
batched operand, or under a mask that differs per example, anywhere, is batched everywhere; names
sharing a buffer written in place are batched together (``analysis/aliases``). Values first assigned
under such a mask that outlive the masked block get a flag (``find_flagged``, see ``lift``).
"""
from collections import Counter

import gast

from .. import rules
from ..rules.primitives import lookup, tape_names
from ..analysis.aliases import Aliases
from .reverse import written_names

SHAPE_ATTRS = ("shape", "size", "ndim")


def names_in(node):
    """Every name read or written in ``node``, once per occurrence."""
    return [n.id for n in gast.walk(node) if isinstance(n, gast.Name)]


class BatchedValues:
    """The analysis part of ``lift.Lifter``: fills ``batched``, ``flagged``, ``tapes`` and the alias
    facts (``shared``, ``alias_statements``, ``written_views``) the rewrite reads."""

    def reads_batched(self, node):
        """Whether the expression ``node`` reads a batched value (shape facts of batched arrays do not:
        every example of a batch has the same shape)."""
        if isinstance(node, gast.Attribute) and node.attr in SHAPE_ATTRS:
            return False
        if isinstance(node, gast.Call):
            prim, _ = lookup(node)
            if prim is not None and prim.batch is rules.SHAPE:
                return False
        if isinstance(node, gast.Name):
            return node.id in self.batched
        return any(self.reads_batched(c) for c in gast.iter_child_nodes(node))

    def analyse(self, body):
        # names sharing a buffer that is written in place are batched together, and stay one buffer
        shared = self.shared = Aliases(self.tree, self.ctx)
        self.alias_statements = set(shared.view_of)
        self.written_views = {id(s) for s in gast.walk(self.tree) if id(s) in shared.view_of and shared.written_after(s)}
        grown = True
        while grown:
            while self._scan(body, False):
                pass
            grown = False
            for v in sorted(self.batched):
                if shared.written_in_place(v):
                    for m in sorted(shared.members(v)):
                        grown |= self._mark(m)
        # tapes take no masked update: see rules.Tape
        self.tapes = tape_names(self.tree)

    def _mark(self, var):
        if var in self.batched:
            return False
        self.batched.add(var)
        return True

    def _scan(self, stmts, masked):
        changed = False
        for s in stmts:
            if isinstance(s, gast.Assign):
                t = s.targets[0]
                var = t.id if isinstance(t, gast.Name) else t.value.id
                if masked or self.reads_batched(s.value) or (isinstance(t, gast.Subscript) and self.reads_batched(t.slice)):
                    changed |= self._mark(var)
            elif isinstance(s, gast.For):
                bounds = self.reads_batched(s.iter)
                if bounds:
                    changed |= self._mark(s.target.id)
                changed |= self._scan(s.body, masked or bounds)
            elif isinstance(s, gast.While):
                changed |= self._scan(s.body, masked or self.reads_batched(s.test))
            elif isinstance(s, gast.If):
                inner = masked or self.reads_batched(s.test)
                changed |= self._scan(s.body, inner) | self._scan(s.orelse, inner)
        return changed

    # ---- values first assigned under a mask that outlive it --------------------------------------------
    def find_flagged(self, body):
        """The values that outlive a masked block first assigning them: they need a flag."""
        for s in body:
            for block, masked in self._blocks(s, False):
                self._flag_block(block, masked)
            self.defined.update(written_names([s]))

    def _flag_block(self, stmts, masked):
        local = Counter(n for s in stmts for n in names_in(s))
        for s in stmts:
            if isinstance(s, gast.Assign):
                t = s.targets[0]
                var = t.id if isinstance(t, gast.Name) else t.value.id
                if masked and var not in self.defined and var not in self.flagged and self.outlives(var, local):
                    # a number starts at zero in every lane; an array's shape comes with its first value
                    array = self.ctx.kinds[var].ndim > 0
                    self.flagged[var] = self.namer.exact_or_fresh(f"_has_{var.lstrip('_')}") if array else None
            for block, inner in self._blocks(s, masked):
                self._flag_block(block, inner)

    def _blocks(self, s, masked):
        """(block, whether it runs under a batched mask) for the blocks of a compound statement."""
        if isinstance(s, gast.For):
            return [(s.body, masked or self.reads_batched(s.iter))]
        if isinstance(s, gast.While):
            return [(s.body, masked or self.reads_batched(s.test))]
        if isinstance(s, gast.If):
            inner = masked or self.reads_batched(s.test)
            return [(s.body, inner), (s.orelse, inner)]
        return []

    def outlives(self, var, local):
        """Whether ``var`` is read or assigned outside the block whose name counts are ``local``."""
        return self.uses[var] > local[var]
