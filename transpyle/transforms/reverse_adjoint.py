"""reverse_adjoint: the adjoint sweep of reverse mode.

The statements in reverse order, each replaced by its adjoint rule from the rule tables (contributions
accumulated into the operands' adjoints ``bx``, unbroadcast to their shapes), followed by restoring what
the statement overwrote; loops run backwards (``for`` over the reversed range, ``while`` as many times as
counted), and cheap values are recomputed just before the first adjoint that reads them.
"""
import ast
import copy

import gast

from ..base.ast_utils import (all_names, assign, const, expr_source, loaded_names, name, parse_expr, parse_stmts,
                              substitute)
from .. import rules
from ..base.kinds import Kind
from ..rules.primitives import is_atom
from ..analysis.aliases import TARGET_SHAPED_ATTR
from ..analysis.to_be_recorded import VALUE, adjoint_reads
from ..frontend.infer import active_templates, operand_kinds, rule_for, template_names


class AdjointSweep:
    """The adjoint part of ``reverse.Reverse``: the sweep, given the plans (``reverse_tapes``) and the
    recording analyses (``analysis/recording``)."""

    # ---- statements, in reverse order; loops run backwards ------------------------------------------
    def adjoint(self, stmts, depth):
        out = []
        pending = {s.targets[0].id: s for s in stmts if id(s) in self.recompute}
        # a recomputed array whose shape changes from one iteration to the next starts each reversed
        # iteration with a zero adjoint of this iteration's shape: it is recomputed, and its adjoint
        # zeroed, before the first statement touching that adjoint (the value before its definition,
        # which a reset after the definition's adjoint would need, is not restored)
        zeroed = {var: self.adj(var) for var, s in pending.items() if self.zeroed_when_recomputed(s, depth)}
        order = {id(s): i for i, s in enumerate(stmts)}
        for s in reversed(stmts):
            block = self.adjoint_of(s, depth)
            uses = loaded_names(block)
            touched = all_names(block)
            again = []
            while pending:
                due = uses & set(pending) | {v for v in pending if zeroed.get(v) in touched}
                if not due:
                    break
                for var in sorted(due):
                    original = pending.pop(var)
                    again.append((order[id(original)], copy.deepcopy(original)))
                    if var in zeroed:
                        again.append((order[id(original)], assign(zeroed[var], self.zero(var))))
                    uses |= loaded_names(original.value)
            # recomputed values that read each other run in their original order
            block = [stmt for _, stmt in sorted(again, key=lambda pair: pair[0])] + block
            self.note_reads(s, block)
            if block:
                self.line_comment(s, out, "adjoint", force=True)
                out.extend(block)
        return out

    def note_reads(self, s, block):
        """Keep what the adjoint block of ``s`` reads, for the to-be-recorded analysis: an assignment's
        whole block; for a loop or branch, its header and what is recomputed before it (its body's
        statements are noted one by one)."""
        primal = self.kinds
        if isinstance(s, gast.Assign):
            self.block_reads[id(s)] = adjoint_reads(block, primal, self.fixed_shape)
            return
        if id(s) in self.checkpointed and block:     # its iterations run again in the adjoint sweep
            self.header_reads[id(s)] = self.checkpoint_reads(s)
            return
        if not block:               # a loop or branch with no adjoint (a check, a print): its header is not read
            self.header_reads[id(s)] = set()
            return
        if isinstance(s, gast.For):
            # the reversed range reads its bounds: ``range(x.shape[0])`` reads only x's shape
            header = adjoint_reads([gast.Expr(value=s.iter)], primal, self.fixed_shape)
        elif isinstance(s, (gast.While, gast.If)):
            decision = s.counter if isinstance(s, gast.While) else s.test.id
            header = {(VALUE, decision)} if decision in primal else set()
        else:                       # pass, and other statements with no adjoint
            return
        before = block[:-1] if block else []
        self.header_reads[id(s)] = adjoint_reads(before, primal, self.fixed_shape) | header

    def adjoint_of(self, s, depth):
        return self.assign_block(s, depth) if isinstance(s, gast.Assign) else self._adjoint_of(s, depth)

    def bind_views(self, block, s):
        """Before adjoint code that touches the adjoint of a view, that adjoint is bound as the same
        view of its base's adjoint, so contributions land in the shared buffer (analysis/aliases)."""
        touched = {n.id for n in gast.walk(gast.Module(body=block, type_ignores=[])) if isinstance(n, gast.Name)}
        binds, done = [], set()

        def bind(v):
            if v in done:
                return
            done.add(v)
            view = self.views[v]
            base = self.aliases.view_of[id(view)]
            if base in self.views:
                bind(base)
            value = substitute(copy.deepcopy(view.value), {base: name(self.adj(base))})
            binds.append(assign(self.adj(v), value))
        for v in sorted(self.views):
            if v in self.active and self.adj(v) in touched and not (isinstance(s.targets[0], gast.Name) and
                                                                    s.targets[0].id == v):
                bind(v)
        return binds + block if binds else block

    def view_bases(self, v):
        """The names ``v`` is a view of, nearest first (``_t2 = _t3[:, None]`` of ``_t3 = b[:, i]``)."""
        bases = []
        while v in self.views and len(bases) < 64:
            v = self.aliases.view_of[id(self.views[v])]
            bases.append(v)
        return bases

    def reads_view_of_target(self, block, s):
        """Whether the adjoint ``block`` of ``b = f(view of b)`` passes contributions into the adjoint of
        a view of ``b``'s earlier value: that adjoint is a view of the buffer the reset below starts."""
        touched = all_names(block)
        return any(self.adj(v) in touched and s.targets[0].id in self.view_bases(v) for v in self.views)

    def handed_over(self, block, s, reset):
        """``b = f(view of b)``: the new value's cotangent is held, the earlier value's adjoint started
        (restored, zeroed), and only then are the views bound and the contributions passed into them."""
        g = self.adj(s.targets[0].id)
        held = self.ctx.namer.fresh("_held")
        contributions = [substitute(st, {g: name(held)}) for st in block]
        return [assign(held, name(g))] + reset + self.bind_views(contributions, s)

    def assign_block(self, s, depth):
        """An assignment's adjoint: its contributions, the restore of what it overwrote, the reset of its
        target's adjoint; the adjoints of views it touches bound first."""
        if id(s) in self.counters:
            return []
        plan = self.plans.get(id(s))
        restore = self.restore(plan) if plan is not None else []
        if isinstance(s.targets[0], gast.Name) and s.targets[0].id in self.views and id(s) in self.aliases.view_of:
            # a view's adjoint is its base's: nothing to pass on, only the saved value to restore
            return self.bind_views(restore, s)
        block = self.assign_adjoint(s, depth)
        reset = self.reset(s, depth)
        if reset and self.reads_view_of_target(block, s):
            return self.handed_over(block, s, restore + reset)
        # an array adjoint is zeroed with the shape of the value restored above
        return self.bind_views(block + restore + reset, s)

    def _adjoint_of(self, s, depth):
        block = []
        if id(s) in self.checkpointed:
            body = self.adjoint(s.body, depth + 1)
            block = self.checkpoint_adjoint(s, body) if body else []
        elif isinstance(s, gast.For):
            body = self.adjoint(s.body, depth + 1)
            if body:
                block = [gast.For(target=name(s.target.id, store=True), iter=self.reversed_range(s.iter),
                                  body=body, orelse=[], type_comment=None)]
        elif isinstance(s, gast.While):
            body = self.adjoint(s.body, depth + 1)
            if body:
                k = self.ctx.namer.fresh("_k")
                block = [gast.For(target=name(k, store=True), iter=parse_expr(f"range({s.counter})"),
                                  body=body, orelse=[], type_comment=None)]
        elif isinstance(s, gast.If):
            body, orelse = self.adjoint(s.body, depth), self.adjoint(s.orelse, depth)
            if body:
                block = [gast.If(test=name(s.test.id), body=body, orelse=orelse)]
            elif orelse:
                block = [gast.If(test=parse_expr(f"not {s.test.id}"), body=orelse, orelse=[])]
        return block

    def reversed_range(self, it):
        a, b, st = it.args
        src = lambda n: expr_source(n)        # noqa: E731
        if isinstance(st, gast.Constant) and st.value == 1:
            start = f"{src(b)} - 1"
            stop = "-1" if isinstance(a, gast.Constant) and a.value == 0 else f"{src(a)} - 1"
            return parse_expr(f"range({start}, {stop}, -1)")
        if isinstance(st, gast.Constant) and st.value == -1:
            return parse_expr(f"range({src(b)} + 1, {src(a)} + 1)")
        last = f"{src(a)} + (rt.trip_count({src(a)}, {src(b)}, {src(st)}) - 1) * {src(st)}"
        return parse_expr(f"range({last}, {src(a)} - {src(st)}, -{src(st)})")

    def zero(self, var):
        kind = self.kind(var)
        if kind.is_array:
            # an argument of the same shape gives it: the value itself need not be kept (or computed)
            witness = self.shapes.witness(var) if kind.dtype == "float64" else None
            if isinstance(witness, gast.Name) and witness.id != var:
                return parse_expr(f"np.zeros({witness.id}.shape)")
            return parse_expr(f"np.zeros_like({var})")
        return const(0.0)

    def reset(self, s, depth):
        """After a definition's adjoint, the variable's earlier value starts with a zero adjoint. An array
        whose every value has one shape takes it from its adjoint: the value itself need not be restored."""
        t = s.targets[0]
        if not isinstance(t, gast.Name) or t.id not in self.active:
            return []
        if depth == 0 and self.defs.get(t.id, 0) <= 1 or t.id in self.single_use:
            return []
        if t.id in self.fixed_shape:
            return [assign(self.adj(t.id), parse_expr(f"np.zeros_like({self.adj(t.id)})"))]
        if self.zeroed_when_recomputed(s, depth):
            return []            # zeroed where the next reversed iteration recomputes it (see adjoint)
        return [assign(self.adj(t.id), self.zero(t.id))]

    def zeroed_when_recomputed(self, s, depth):
        """Whether ``s`` is recomputed in the sweep and defines an array whose shape may change between
        iterations, so its adjoint is zeroed after the recomputation instead of reset after ``s``."""
        t = s.targets[0]
        return id(s) in self.recompute and isinstance(t, gast.Name) and t.id in self.active and \
            self.kind(t.id).is_array and t.id not in self.fixed_shape and t.id not in self.single_use and \
            (depth > 0 or self.defs.get(t.id, 0) > 1)

    # ---- an assignment's adjoint: its rule's contributions to the operands' adjoints ------------------
    def assign_adjoint(self, s, depth):
        t = s.targets[0]
        if isinstance(t, gast.Subscript):
            return self.setitem_adjoint(s)
        var = t.id
        if var not in self.active or var in self.passed_parts:
            return []
        g = self.adj(var)
        value = s.value
        out = []
        if isinstance(value, gast.Name):
            if value.id in self.active:
                out.append(self.accumulate(value.id, name(g)))
        elif isinstance(value, gast.Tuple):
            raise self.ctx.error(s, "tuples of differentiated values are not supported here",
                                 hint="unpack the tuple into separate variables")
        elif not is_atom(value):
            out.extend(self.rule(s, value, g, var))
        return out

    def rule(self, s, value, g, var):
        prim, bound, templates = rule_for(self.ctx, s, value, "vjp")
        if not prim.diff:
            return []
        if not templates:
            raise self.ctx.error(s, f"{prim.key} has no reverse-mode rule",
                                 hint="use forward mode (jvp, jacfwd) for it, or see docs/subset.md")
        out_kind = self.kind(var)
        stmts = []
        passed_through = {old for store, (v, old) in self.increments.items() if v == var}
        for param, operand, template in active_templates(templates, bound, self.active):
            if isinstance(operand, gast.Name) and operand.id in passed_through and operand is bound.get("a"):
                continue        # the increment's store left the cotangent in place (setitem_adjoint)
            subs = template_names(prim, bound, name(g), name(var))
            if isinstance(operand, gast.Name):
                subs["b" + param] = self.adj(operand.id)
            if is_statement(template):
                stmts.extend(substitute(st, subs) for st in parse_stmts(template))
                continue
            contrib = substitute(parse_expr(template), subs)
            okind = self.kind(operand.id)
            if isinstance(okind, Kind) and not okind.is_complex and isinstance(out_kind, Kind) and out_kind.is_complex:
                # a real operand of a complex result: its cotangent is the real part (JAX's convention)
                contrib = gast.Call(func=parse_expr("np.real"), args=[contrib], keywords=[])
            if prim.broadcasts and (var in self.oversized or self.may_broadcast(operand.id, bound, prim, var)):
                contrib = self.unbroadcast(contrib, operand.id, out_kind)
            stmts.append(self.accumulate(operand.id, contrib))
        return stmts

    def may_broadcast(self, operand, bound, prim, out):
        """Whether the output ``out`` can be larger than ``operand``: not when it surely has the
        operand's shape, or every other operand is a scalar or surely has the operand's shape
        (``analysis/shapes``), since then the output has it."""
        okind = self.kind(operand)
        if okind is None or okind.ndim == 0:
            return True
        if self.shapes.same(out, operand):
            return False
        for p in prim.params:
            node = bound.get(p)
            if isinstance(node, gast.Name) and (node.id == operand or self.shapes.same(node.id, operand)):
                continue
            k = self.ctx.expr_kind(node) if node is not None else None
            if not isinstance(k, Kind) or k.ndim > 0:
                return True
        return False

    def unbroadcast(self, contrib, operand, out_kind):
        okind = self.kind(operand)
        if out_kind.ndim == 0:
            return contrib
        if okind.ndim == 0:
            return gast.Call(func=parse_expr("np.sum"), args=[contrib], keywords=[])
        # the operand's adjoint has its shape: the operand itself need not be kept for the sweep. An
        # adjoint set by this contribution does not exist yet: the operand gives the shape (a read of its
        # shape, free where all its values have one shape: analysis/to_be_recorded)
        # An operand that is a slice of an argument, or made elementwise from one, has the slice's shape,
        # which is taken again instead (``Shapes.witness``): the operand is then not kept at all.
        shape_of = name(self.adj(operand))
        if operand in self.single_use:
            witness = None if operand in self.fixed_shape else self.shapes.witness(operand)
            if witness is None and operand not in self.fixed_shape and self.defers_unbroadcast(operand):
                # its definition un-broadcasts every contribution to its own operands' shapes: summing
                # there covers the axes it was broadcast along here, and the operand is not kept
                self.oversized.add(operand)
                return contrib
            shape_of = copy.deepcopy(witness) if witness is not None else name(operand)
        return gast.Call(func=parse_expr("rt.unbroadcast"), args=[contrib, shape_of], keywords=[])

    def defers_unbroadcast(self, var, depth=0):
        """Whether ``var`` (read once) is defined by an elementwise operation whose rules are expressions
        of the cotangent, each of which can take a cotangent of a shape ``var`` broadcasts to, and
        whose array operands' shapes cost nothing to have in the sweep (``shape_is_free``)."""
        d = self.definitions.get(var)
        if depth > 8 or d is None or not isinstance(d.value, (gast.BinOp, gast.UnaryOp, gast.Call)):
            return False
        try:
            prim, bound, templates = rule_for(self.ctx, d, d.value, "vjp")
        except Exception:           # the sweep reports it at the statement
            return False
        if not prim.broadcasts or prim.key == "setitem" or not templates or \
                any(isinstance(key, tuple) or is_statement(t) for key, t in templates.items()):
            return False
        return all(self.shape_is_free(operand.id, depth + 1)
                   for _, operand, _ in active_templates(templates, bound, self.active) if isinstance(operand, gast.Name))

    def shape_is_free(self, var, depth):
        """Whether the sweep has the shape of ``var`` without keeping ``var``: a number, an array with an
        adjoint of its own, of one shape throughout, made from an argument's slice, or itself deferring."""
        kind = self.kind(var)
        return not isinstance(kind, Kind) or kind.ndim == 0 or var not in self.single_use or \
            var in self.fixed_shape or self.shapes.witness(var) is not None or self.defers_unbroadcast(var, depth)

    def accumulate(self, var, contrib):
        if var in self.single_use:
            return assign(self.adj(var), contrib)
        return gast.AugAssign(target=name(self.adj(var), store=True), op=gast.Add(), value=contrib)

    def passes_value(self, use, v):
        """How the adjoint of ``use`` gives the array ``v`` its contribution, when as one expression of
        v's dtype that can stand for ``b_v += contribution`` as ``b_v = contribution``: ``"exact"``
        (of v's shape), ``"shaped"`` (un-broadcast to the shape of ``v``, a read of its shape), or
        None (a rule that writes into the adjoint, ``bx[index] += g``, or whose contribution relies on
        ``+=`` to broadcast, as ``np.sum``'s ``g``)."""
        value, target = use.value, use.targets[0]
        if isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name):
            # x[index] = v: v's cotangent is a copy of the written part of bx, of v's shape when they agree
            ok = isinstance(value, gast.Name) and value.id == v and self.kind(target.value.id).dtype == "float64"
            return "shaped" if ok else None
        if not isinstance(target, gast.Name) or not isinstance(self.kind(target.id), Kind) or \
                self.kind(target.id).dtype != "float64":
            return None
        if isinstance(value, gast.Name):
            return "exact"
        if is_atom(value) or isinstance(value, gast.Tuple):
            return None
        try:
            prim, bound, templates = rule_for(self.ctx, use, value, "vjp")
        except Exception:          # the sweep reports it at the statement
            return None
        kinds = {p: self.ctx.expr_kind(node) for p, node in bound.items() if isinstance(node, gast.AST)}
        if not prim.broadcasts and not prim.exact_adjoints(kinds):
            return None
        for key, template in templates.items():
            param = key[0] if isinstance(key, tuple) else key
            operand = bound.get(param)
            if operand is not None and v in loaded_names(operand):
                if isinstance(key, tuple) or is_statement(template):
                    return None
        if prim.broadcasts and self.may_broadcast(v, bound, prim, target.id):
            return "shaped"
        return "exact"

    def setitem_adjoint(self, s):
        t = s.targets[0]
        arr = t.value.id
        if arr not in self.active:
            return []
        prim = rules.by_key("setitem")
        part = gast.Subscript(value=name(arr), slice=copy.deepcopy(t.slice), ctx=gast.Load())
        pkind = self.ctx.expr_kind(part)
        bound = {"x": name(arr), "index": t.slice, "v": s.value}
        kinds = operand_kinds(self.ctx, prim, bound)
        kinds["out"] = pkind
        templates = prim.vjp_templates(kinds, bound)
        subs = {"g": name(self.adj(arr)), "bx": self.adj(arr), "x": name(arr), "index": t.slice, "v": s.value}
        out = []
        v = s.value
        if id(s) in self.increments:
            # x[part] += f: the part's cotangent passes through; v's is a view of it (analysis/recording)
            view = gast.Subscript(value=name(self.adj(arr)), slice=copy.deepcopy(t.slice), ctx=gast.Load())
            return [assign(self.adj(v.id), view)]
        clear = [substitute(st, dict(subs)) for st in parse_stmts(templates["x"])]
        if isinstance(v, gast.Name) and v.id in self.active:
            contrib = substitute(parse_expr(templates["v"]), dict(subs))
            if not self.shapes.same_as(part, v.id) and not getattr(s, TARGET_SHAPED_ATTR, False):
                contrib = self.unbroadcast(contrib, v.id, pkind)
            if v.id == arr or v.id in self.views and arr in self.aliases.members(v.id):
                # y[1:] = y[:-1] (or B[:, ::-1] = B): the value's adjoint is (a view of) the same buffer,
                # which the write clears: take the written part's cotangent first, clear, then pass it on
                taken = self.ctx.namer.fresh("_written")
                return [assign(taken, contrib)] + clear + [self.accumulate(v.id, name(taken))]
            out.append(self.accumulate(v.id, contrib))
        return out + clear


def is_statement(template):
    """Whether a rule template is statements (``bx[index] += g``) rather than an expression
    (``np.sum(g, axis=1)``, whose keyword's ``=`` makes no statement)."""
    try:
        ast.parse(template, mode="eval")
    except SyntaxError:
        return True
    return False
