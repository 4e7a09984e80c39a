"""recording: what the adjoint sweep reads, and how each value it reads is kept.

The reverse pass runs the adjoint sweep once to learn which names it reads (``needed``); this module
answers how each of them is had again without a tape where that is exact:
- *invariant*: the same value in every iteration of the loops around it (nothing it reads changes
  there, and nothing writes into its buffer there);
- *recomputed*: a cheap value taken again in the sweep from restored operands (scalar arithmetic,
  and views, whose buffer the sweep has restored by then); a recomputed operand counts with its own
  operands, and a branch decision is never recomputed: it is recorded;
- *set by its use*: a number read once, whose adjoint is assigned rather than accumulated;
- *fixed shape*: an array whose values all have one shape, whose adjoint is reset from the adjoint
  itself, so the array is not kept for its shape.
Everything else the sweep reads and a later statement overwrites is saved (``Reverse.make_plans``).
"""
from collections import Counter

import gast

from ..base.ast_utils import is_empty_declaration, loaded_names, name, stored_names
from ..base.kinds import Kind
from ..rules.primitives import lookup
from .activity import assignments
from .aliases import TARGET_SHAPED_ATTR


class Recording:
    """The analyses of ``Reverse`` that decide what needs no tape (see the module docstring)."""

    def find_single_uses(self, body, passes_value):
        """Values defined once and read once, by a later assignment of the same block: the adjoint
        sweep reaches that use first and the definition next, with nothing between, so their adjoint
        is set by the use (``b_t = contribution``) instead of zeroed, accumulated and zeroed again.
        An array qualifies when it is no view and the use's rule passes its contribution as a value of
        its shape, or un-broadcast to it (``passes_value(use, v)``; a rule that writes into the adjoint
        in place, ``bx[index] += g``, needs it zeroed)."""
        loads = Counter(n.id for n in gast.walk(self.tree) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load))
        outputs = set(self.outputs) | {a.id for a in self.tree.args.args}
        single = set()

        def qualifies(v, use):
            kind = self.kind(v)
            target = use.targets[0]
            written = target.id if isinstance(target, gast.Name) else \
                target.value.id if isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name) else None
            if not isinstance(kind, Kind) or written not in self.active:
                return False        # an inactive use has no adjoint: nothing would set v's
            if not kind.is_array:
                return True
            if v in self.views or kind.dtype != "float64":
                return False
            return passes_value(use, v) is not None

        def visit(stmts):
            for k, s in enumerate(stmts):
                if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name):
                    v = s.targets[0].id
                    if v in self.active and v not in outputs and self.defs.get(v) == 1 and loads[v] == 1:
                        use = next((later for later in stmts[k + 1:] if v in loaded_names([later])), None)
                        if isinstance(use, gast.Assign) and qualifies(v, use):
                            single.add(v)
                for block in (getattr(s, "body", None), getattr(s, "orelse", None)):
                    if block:
                        visit(block)
        visit(body)
        return single

    def find_increments(self, body):
        """Stores that end an increment ``x[part] += f`` or ``x[part] -= f`` (``old = x[part]; v = old + f;
        x[part] = v``, or ``v = x + f; x[:] = v`` for a whole array): {id(store): (v, old)}. The cotangent
        of the part passes through unchanged, so the store's adjoint binds ``b_v`` as a view of the part of
        ``bx`` (no copy, no clearing, no adding back) and ``v``'s adjoint passes nothing to ``old``: ``old``
        is a view followed as one, or a part read once (by ``v``) whose own adjoint then has nothing to
        add (``passed_parts``). Only where
        nothing could write into ``bx`` while that view is read: ``v`` is read once, by the store; ``f``,
        when its cotangent is set from the view (read once), is defined in the same block with no
        statement reading the buffer of ``x`` from the first value whose cotangent is a view of ``f``'s
        (``_first_view_def``) to the increment: the adjoint of such a statement would add into ``bx``
        while a view of it is still to be read."""
        found = {}
        whole = gast.dump(gast.Slice(lower=None, upper=None, step=None))

        def visit(stmts):
            index = {id(st): k for k, st in enumerate(stmts)}
            defs = {st.targets[0].id: st for st in stmts
                    if isinstance(st, gast.Assign) and isinstance(st.targets[0], gast.Name)}
            for k, st in enumerate(stmts):
                for block in (getattr(st, "body", None), getattr(st, "orelse", None)):
                    if block:
                        visit(block)
                t = st.targets[0] if isinstance(st, gast.Assign) else None
                if not (getattr(st, TARGET_SHAPED_ATTR, False) and isinstance(t, gast.Subscript) and
                        isinstance(t.value, gast.Name) and isinstance(st.value, gast.Name)):
                    continue
                x, v = t.value.id, st.value.id
                d = defs.get(v)
                if v not in self.single_use or d is None or self.defs.get(v) != 1 or \
                        not isinstance(d.value, gast.BinOp) or not isinstance(d.value.op, (gast.Add, gast.Sub)):
                    continue
                left, right = d.value.left, d.value.right
                if not isinstance(left, gast.Name):
                    continue
                old, f = left.id, right
                part = gast.dump(t.slice)
                if old == x:
                    ok = part == whole and x not in self.single_use     # bx exists before the increment
                else:
                    od = defs.get(old)
                    ok = od is not None and (old in self.views or old in self.single_use) and \
                        isinstance(od.value, gast.Subscript) and \
                        isinstance(od.value.value, gast.Name) and od.value.value.id == x and \
                        gast.dump(od.value.slice) == part and index[id(od)] < index[id(d)] and \
                        not stored_names(stmts[index[id(od)] + 1:k]) & loaded_names(t.slice)
                if not ok or index[id(d)] > k:
                    continue
                members = self.aliases.members(x)
                if isinstance(f, gast.Name) and f.id in members:
                    continue            # x[1:] += x[:-1]: f's cotangent is another part of bx
                if isinstance(f, gast.Name) and f.id in self.single_use:
                    fd = defs.get(f.id)
                    if fd is None or index[id(fd)] > index[id(d)]:
                        continue
                    first = _first_view_def(f.id, defs, index, self.single_use)
                    if any(stmts[j] is not defs.get(old) and loaded_names(
                            stmts[j].value if isinstance(stmts[j], gast.Assign) else stmts[j]) & members
                            for j in range(first, index[id(d)])):
                        continue
                elif not isinstance(f, (gast.Name, gast.Constant)):
                    continue
                found[id(st)] = (v, old)
        visit(body)
        return found

    def find_passed_parts(self):
        """The parts ``old = x[part]`` read once, by an increment (``find_increments``), that are not
        followed as views: their cotangent stays in ``bx``, so their own adjoint adds nothing."""
        return {old for _, old in self.increments.values() if old not in self.views and old in self.single_use}

    # ---- values that need no tape -------------------------------------------------------------------
    def find_cheap_values(self):
        """Loop-invariant values (same in every iteration: never saved) and scalar temporaries that the
        adjoint sweep can recompute from restored operands instead of reading from a tape."""
        self.invariant, self.recompute, self.recompute_reads = set(), {}, {}
        self.invariant_names = set()
        self.written_anywhere = self.changed_in(self.tree.body)
        reads = {}
        for n in gast.walk(gast.Module(body=self.tree.body, type_ignores=[])):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
                reads[n.id] = reads.get(n.id, 0) + 1

        def visit(stmts, outer_loop):
            for i, s in enumerate(stmts):
                if isinstance(s, (gast.For, gast.While)):
                    visit(s.body, outer_loop if outer_loop is not None else s)
                elif isinstance(s, gast.If):
                    visit(s.body, outer_loop)
                    visit(s.orelse, outer_loop)
                elif outer_loop is not None and isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) \
                        and id(s) not in self.counters and self.defs.get(s.targets[0].id, 0) == 1:
                    var, operands = s.targets[0].id, loaded_names(s.value)
                    # the same value in every iteration: nothing it reads changes in the loop, and
                    # nothing writes into its buffer there (an array made anew and then filled)
                    if not operands & self.changed_in([outer_loop]) and not isinstance(s.value, gast.Name) \
                            and var not in self.aliases.written_in([outer_loop]):
                        self.invariant.add(id(s))
                        self.invariant_names.add(var)
                    elif var in self.decisions:
                        continue        # a branch taken is recorded, never evaluated again
                    else:
                        # a recomputed operand is itself recomputed from its own operands, at the same place
                        reads_all = set(operands)
                        for op in operands:
                            reads_all |= self.recompute_reads.get(op, set())
                        if self.recomputable(s, var, reads_all, stmts[:i], stmts[i + 1:], reads):
                            self.recompute[id(s)] = s
                            self.recompute_reads[var] = reads_all
        visit(self.tree.body, None)

    def changed_in(self, stmts):
        """Names ``stmts`` rebind, and names whose buffer they write into (through any alias)."""
        return stored_names(stmts) | self.aliases.written_in(stmts)

    def recomputable(self, s, var, operands, before, after, reads):
        kind = self.kind(var)
        if not isinstance(kind, Kind) or isinstance(s.value, (gast.Name, gast.Constant)):
            return False
        # arrays: only views, which cost nothing to take again. A view of a buffer written in place sees,
        # when taken again in the sweep, the contents of its use: the writes after it are undone by then.
        # (Saving it would keep a reference or a copy, and a copy would miss the undoing.)
        # An elementwise expression of arrays that nothing writes, and of numbers, costs one pass to
        # compute again, as a tape costs one copy to push, and keeps no memory per iteration
        # (``b[:i + 1, k] * alpha`` in a loop over i and k).
        view = id(s) in self.aliases.view_of and not isinstance(s.value, gast.Name)
        if kind.is_array and not view and not (isinstance(s.value, gast.Subscript) and
                                               isinstance(s.value.value, gast.Name) and
                                               s.value.value.id not in self.written_anywhere) \
                and not self.elementwise_of_unwritten(s.value, operands):
            return False
        if var in loaded_names(before) or isinstance(s.value, gast.Tuple):
            return False
        if kind.is_array and not view and var in self.aliases.written_in(self.tree.body):
            return False        # a new array written in place (b[2, -1] += 1.0): computed again, it would miss the write
        # every read of var comes after s in this block, before any operand changes
        seen, changed = 0, set()
        for u in after:
            uses = sum(1 for n in gast.walk(u) if isinstance(n, gast.Name) and n.id == var
                       and isinstance(n.ctx, gast.Load))
            # u's adjoint runs before u's own writes are undone; for a view only rebinding matters (above)
            changed |= stored_names([u]) if view else self.changed_in([u])
            if uses and changed & operands:
                return False
            seen += uses
        return seen == reads.get(var, 0)

    def elementwise_of_unwritten(self, value, operands):
        """Whether ``value`` is arithmetic on numbers, on arrays that no statement writes or rebinds, and on
        values the same in every iteration (``operands``: the names it reads, with those of the
        recomputed values it reads)."""
        if not isinstance(value, (gast.BinOp, gast.UnaryOp)):
            return False
        for n in gast.walk(value):
            if not isinstance(n, (gast.BinOp, gast.UnaryOp, gast.Name, gast.Constant, gast.Load, gast.operator,
                                  gast.unaryop)):
                return False
        for v in operands:
            kind = self.kind(v)
            if not isinstance(kind, Kind):
                return False
            if kind.is_array and v in self.written_anywhere and v not in self.recompute_reads and \
                    v not in self.invariant_names:
                return False
        return True

    def find_fixed_shapes(self):
        """Arrays whose values all have one shape: the arguments, and names whose every definition
        computes that shape from such arrays and from numbers that no loop changes (a temporary
        ``_t = u[1:-1] + k * v`` in a loop). Names defined from themselves with a new shape
        (``y = np.concatenate((y, z))``) never get in: the set grows from the arguments only. A name
        defined by several statements, or an argument rebound in a loop, is in only where the symbolic
        shapes (``self.shapes``) prove all its values have one shape (``x = x[1:] * 2.0`` is not)."""
        varying = set()
        for loop in (n for n in gast.walk(gast.Module(body=self.tree.body, type_ignores=[]))
                     if isinstance(n, (gast.For, gast.While))):
            varying |= {v for v in stored_names([loop]) if not (isinstance(self.kind(v), Kind) and self.kind(v).is_array)}
        defs = {}
        for st in assignments(self.tree.body):
            if isinstance(st.targets[0], gast.Name):
                defs.setdefault(st.targets[0].id, []).append(st)
        arguments = {a.id for a in self.tree.args.args}
        fixed = {a for a in arguments if isinstance(self.kind(a), Kind) and self.kind(a).is_array and
                 (a not in defs or self.shapes.known(name(a)) is not None)}

        def is_array(v):
            return isinstance(self.kind(v), Kind) and self.kind(v).is_array

        def same_shape(value):
            if isinstance(value, gast.Subscript):
                parts = value.slice.elts if isinstance(value.slice, gast.Tuple) else [value.slice]
                bounds = set()
                for p in parts:
                    if isinstance(p, gast.Slice):
                        bounds |= loaded_names(p)
                return value.value.id in fixed and not bounds & varying
            prim, _ = lookup(value) if isinstance(value, gast.Call) else (None, None)
            if prim is not None and prim.ragged:
                return False          # positions a mask selects: as many as the values say
            elementwise = isinstance(value, (gast.BinOp, gast.UnaryOp, gast.Compare)) or \
                prim is not None and prim.broadcasts
            for v in loaded_names(value):
                if is_array(v) and v not in fixed or not is_array(v) and v in varying and not elementwise:
                    return False
            return True
        grown = True
        while grown:
            grown = False
            for v, stmts in defs.items():
                if v not in fixed and v not in arguments and is_array(v) and \
                        all(same_shape(st.value) for st in stmts) and \
                        (len([st for st in stmts if not is_empty_declaration(st.value)]) <= 1 or
                         self.shapes.known(name(v)) is not None):
                    fixed.add(v)
                    grown = True
        return fixed


def _first_view_def(var, defs, index, single_use):
    """The block position of the first statement whose result's cotangent is a view of ``var``'s: a
    single-use value of ``+``, of ``-``'s left side or of a copy gets its cotangent as a view of the
    result's, and the adjoints of every statement from there on run while such a view is still to be read
    (``a[:3] += (a[:3] - x) + np.tanh(a[:3])``)."""
    first, seen, stack = index[id(defs[var])], set(), [var]
    while stack:
        d = defs.get(stack.pop())
        if d is None or id(d) in seen:
            continue
        seen.add(id(d))
        first = min(first, index[id(d)])
        stack.extend(n for n in _passed_operands(d.value)
                     if n in single_use and n in defs and index[id(defs[n])] < index[id(d)])
    return first


def _passed_operands(value):
    """The names whose cotangent is the cotangent of ``value`` itself (a view of it where shapes agree)."""
    if isinstance(value, gast.Name):
        return [value.id]
    if isinstance(value, gast.UnaryOp) and isinstance(value.op, gast.UAdd):
        return _passed_operands(value.operand)
    if isinstance(value, gast.BinOp) and isinstance(value.op, (gast.Add, gast.Sub)):
        sides = (value.left, value.right) if isinstance(value.op, gast.Add) else (value.left,)
        return [side.id for side in sides if isinstance(side, gast.Name)]
    return []
