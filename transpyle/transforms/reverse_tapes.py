"""reverse_tapes: the primal sweep of reverse mode, and the values it saves for the adjoint sweep.

A statement that overwrites a value the adjoint sweep reads saves the old value first: on a tape in
loops (a typed array reserved to the trip count in ``for`` loops, grown by doubling in ``while`` loops,
a list for arrays), in a temporary outside them. The adjoint sweep restores it after the statement's
adjoint. Branch decisions that the branches overwrite, and the trip counts of ``while`` loops, are
made variables of their own first (``prepare``) so the adjoint sweep can replay them.
"""
import copy

import gast

from ..base.ast_utils import assign, const, expr_source, name, parse_expr, stored_names
from ..base.kinds import Kind, TupleKind
from ..analysis.to_be_recorded import names_read, values_read


class _Plan:
    """How one statement's overwritten value is saved and restored."""

    def __init__(self, value, target, kind, storage, in_loop):
        self.value = value          # expression to save (before the statement)
        self.target = target        # where to restore it (after the statement's adjoint)
        self.kind = kind
        self.storage = storage      # tape name (in loops) or temporary name
        self.in_loop = in_loop

    @property
    def counter(self):
        return "_n" + self.storage[len("_tape"):]


class PrimalSweep:
    """The saving part of ``reverse.Reverse``: the plans (``plans``: statement id -> its ``_Plan``),
    the primal sweep that carries them out, their restores and the declarations of their storage."""

    # ---- preparation: make what the adjoint sweep reads explicit -----------------------------------
    def prepare(self, stmts):
        out = []
        for s in stmts:
            if isinstance(s, gast.If):
                s.body, s.orelse = self.prepare(s.body), self.prepare(s.orelse)
                if s.test.id in stored_names(s.body + s.orelse):
                    # the branch taken must be remembered: the branches reassign the test
                    keep = self.ctx.namer.fresh("_branch")
                    if s.test.id in self.kinds:
                        self.kinds[keep] = self.kinds[s.test.id]
                    out.append(gast.copy_location(assign(keep, name(s.test.id)), s))
                    s.test = name(keep)
            elif isinstance(s, gast.While):
                s.body = self.prepare(s.body)
                count = self.ctx.namer.fresh("_trips")
                out.append(gast.copy_location(assign(count, const(0)), s))
                self.kinds[count] = Kind("int64")
                step = gast.copy_location(assign(count, parse_expr(f"{count} + 1")), s)
                self.counters.add(id(step))
                s.body.append(step)
                s.counter = count
            elif isinstance(s, gast.For):
                s.body = self.prepare(s.body)
            out.append(s)
        return out

    # ---- the plan: which statements save what ------------------------------------------------------
    def make_plans(self, stmts, depth, required):
        """Plan a save at each assignment that overwrites what ``required`` (statement id -> the reads
        of adjoints that may run before it, ``analysis/to_be_recorded``) says is read."""
        for s in stmts:
            if isinstance(s, gast.Assign) and id(s) not in self.counters:
                t = s.targets[0]
                plan = None
                reads = required.get(id(s), frozenset())
                needed = names_read(reads)
                if isinstance(t, gast.Name):
                    maybe_set = depth > 0 or t.id in self.seen      # an old value exists to save
                    cheap = id(s) in self.invariant or id(s) in self.recompute
                    if t.id in needed and maybe_set and not cheap and (depth > 0 or self.defs.get(t.id, 0) > 1):
                        plan = (name(t.id), name(t.id, store=True), self.kind(t.id), t.id)
                elif isinstance(t, gast.Subscript) and self.aliases.members(t.value.id) & values_read(reads):
                    part = gast.Subscript(value=name(t.value.id), slice=copy.deepcopy(t.slice), ctx=gast.Load())
                    pkind = self.ctx.expr_kind(part)
                    value = gast.Call(func=parse_expr("np.copy"), args=[part], keywords=[]) if pkind.is_array \
                        else part
                    target = gast.Subscript(value=name(t.value.id), slice=copy.deepcopy(t.slice), ctx=gast.Store())
                    plan = (value, target, pkind, t.value.id)
                if plan is not None:
                    old = self.plans.get(id(s))
                    if old is None:
                        value, target, kind, var = plan
                        if isinstance(kind, TupleKind):
                            raise self.ctx.error(s, "a tuple value overwritten in a loop cannot be saved",
                                                 hint="unpack the tuple into separate variables")
                        storage = self.storage_names.get(id(s))
                        if storage is None:
                            storage = self.ctx.namer.fresh(f"_tape_{var.lstrip('_')}") if depth > 0 else \
                                self.ctx.namer.fresh(f"_{var.lstrip('_')}_saved")
                            self.storage_names[id(s)] = storage
                        self.plans[id(s)] = _Plan(value, target, kind, storage, depth > 0)
            elif isinstance(s, (gast.For, gast.While)):
                self.make_plans(s.body, depth + 1, required)
            elif isinstance(s, gast.If):
                self.make_plans(s.body, depth, required)
                self.make_plans(s.orelse, depth, required)
            self.seen |= stored_names([s])

    # ---- primal sweep ----------------------------------------------------------------------------
    def primal(self, stmts):
        out = []
        for s in stmts:
            self.line_comment(s, out, "primal")
            if isinstance(s, gast.Assign):
                plan = self.plans.get(id(s))
                if plan is not None:
                    out.extend(self.save(plan))
                out.append(s)
            elif id(s) in self.checkpointed:
                out.extend(self.checkpoint_primal(s))
            elif isinstance(s, gast.For):
                # the trip count is known before the loop: its tapes get room for it up front
                self.loop_stack.append([])
                body = self.primal(s.body)
                for plan in self.loop_stack.pop():
                    trips = self.trip_count_source(s.iter)
                    out.append(assign(plan.storage, parse_expr(
                        f"rt.reserve({plan.storage}, {plan.counter} + {trips})")))
                out.append(gast.For(target=s.target, iter=s.iter, body=body or [gast.Pass()], orelse=[],
                                    type_comment=None))
            elif isinstance(s, gast.While):
                self.loop_stack.append(None)      # unknown trip count: growable tapes
                body = self.primal(s.body)
                self.loop_stack.pop()
                out.append(gast.While(test=s.test, body=body, orelse=[]))
            elif isinstance(s, gast.If):
                out.append(gast.If(test=s.test, body=self.primal(s.body) or [gast.Pass()],
                                   orelse=self.primal(s.orelse)))
            elif isinstance(s, gast.Raise):      # the function's own check: it ends the call, adjoint and all
                out.append(s)
        return out

    def save(self, plan):
        if not plan.in_loop:
            return [assign(plan.storage, copy.deepcopy(plan.value))]
        if plan.kind.is_array:
            return [assign(plan.storage, gast.Call(func=parse_expr("rt.tape_push"),
                                                   args=[name(plan.storage), copy.deepcopy(plan.value)],
                                                   keywords=[]))]
        step = assign(plan.counter, parse_expr(f"{plan.counter} + 1"))
        if self.loop_stack and self.loop_stack[-1] is not None:
            if plan not in self.loop_stack[-1]:
                self.loop_stack[-1].append(plan)
            slot = gast.Subscript(value=name(plan.storage), slice=name(plan.counter), ctx=gast.Store())
            return [assign(slot, copy.deepcopy(plan.value)), step]
        call = gast.Call(func=parse_expr("rt.push"), args=[name(plan.storage), name(plan.counter),
                                                             copy.deepcopy(plan.value)], keywords=[])
        return [assign(plan.storage, call), step]

    def trip_count_source(self, it):
        a, b, st = it.args
        if isinstance(a, gast.Constant) and a.value == 0 and isinstance(st, gast.Constant) and st.value == 1:
            return f"max({expr_source(b)}, 0)"
        return f"rt.trip_count({expr_source(a)}, {expr_source(b)}, {expr_source(st)})"

    def restore(self, plan):
        if not plan.in_loop:
            return [assign(copy.deepcopy(plan.target), name(plan.storage))]
        if plan.kind.is_array:
            return [assign(copy.deepcopy(plan.target), parse_expr(f"rt.tape_pop({plan.storage})"))]
        return [assign(plan.counter, parse_expr(f"{plan.counter} - 1")),
                assign(copy.deepcopy(plan.target), parse_expr(f"{plan.storage}[{plan.counter}]"))]

    # ---- declarations: the storage, made before the primal sweep -------------------------------------
    def declarations(self, needed):
        """Initial values for tapes, saved temporaries and variables first set inside loops."""
        out = []
        args = {a.id for a in self.tree.args.args}
        declared = set()
        for plan in self.plans.values():
            if plan.in_loop:
                if plan.kind.is_array:
                    # an empty list of arrays like the example (Numba needs the item type)
                    out.append(assign(plan.storage, parse_expr(f"rt.array_tape({dummy(plan.kind)})")))
                else:
                    out.append(assign(plan.storage, parse_expr(f"np.empty(16, np.{plan.kind.dtype})")))
                    out.append(assign(plan.counter, const(0)))
            else:
                out.append(assign(plan.storage, parse_expr(dummy(plan.kind))))
        loop_vars = set()
        first_top = set()
        for s in self.tree.body:
            if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name):
                first_top.add(s.targets[0].id)
            elif isinstance(s, (gast.For, gast.While, gast.If)):
                loop_vars |= stored_names([s]) - first_top
        wanted = {p.target.id for p in self.plans.values() if isinstance(p.target, gast.Name)}
        wanted |= {v for v in self.active if self.kind(v).is_array}
        for v in sorted(wanted & loop_vars - args):
            kind = self.kind(v)
            if isinstance(kind, Kind) and v not in declared:
                out.append(assign(v, parse_expr(dummy(kind))))
                declared.add(v)
        return out


def dummy(kind):
    """Source of a placeholder value of ``kind`` (for variables first assigned inside loops)."""
    if kind.ndim:
        return f"np.empty({(0,) * kind.ndim!r}, np.{kind.dtype})"
    return {"bool": "False", "int64": "0", "float64": "0.0", "float32": "np.float32(0.0)",
            "complex128": "0j"}.get(kind.dtype, "0.0")
