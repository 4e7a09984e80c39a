"""reverse: reverse-mode differentiation of a normalized function (the vjp transform).

The generated function runs a *primal sweep* (the user's statements, saving the values that
later statements overwrite and that the adjoint sweep reads) and then an *adjoint sweep*
(the statements in reverse order, each replaced by its adjoint rule from the rule tables,
followed by restoring what the statement overwrote). So during the adjoint sweep every
variable holds the value it had at that point of the primal run, and rules may read any
operand.

Saving: a statement that overwrites a needed value inside a loop pushes the old value on a
tape (``_tape_v``, a growable array for scalars, a list for arrays); outside loops it keeps it
in a temporary. Loops replay backwards: ``for`` loops over the reversed range, ``while`` loops
as many times as counted (``_w1``). Only values that the adjoint sweep reads are saved, and only
active variables (see ``activity``) get adjoints ``bx``.
"""
import ast
import copy
import linecache
import os

import gast

from ..base.ast_utils import (all_names, assign, comment, const, expr_source, loaded_names, name, parse_expr, parse_stmts, stored_names, substitute)
from .. import rules
from ..base.kinds import Kind, TupleKind
from ..rules.primitives import is_atom
from ..analysis.activity import assignments, output_names
from ..analysis.aliases import Aliases
from ..analysis.recording import Recording
from ..frontend.infer import active_templates, operand_kinds, rule_for, template_names


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


class Reverse(Recording):
    def __init__(self, ctx, tree, outputs, mode, has_aux):
        self.ctx = ctx
        self.tree = tree
        self.mode = mode
        self.has_aux = has_aux
        self.kinds = ctx.kinds
        self.active = ctx.active
        self.outputs = outputs
        self.counters = set()
        self.adjoint_names = {}
        self.plans = {}

    # ---- names ---------------------------------------------------------------------------------
    def adj(self, var):
        if var not in self.adjoint_names:
            base = "b" + var if not var.startswith("_") else "b" + var
            self.adjoint_names[var] = self.ctx.namer.exact_or_fresh(base)
        return self.adjoint_names[var]

    # ---- preparation: make what the adjoint sweep reads explicit -----------------------------------
    def prepare(self, stmts):
        out = []
        for s in stmts:
            if isinstance(s, gast.If):
                s.body, s.orelse = self.prepare(s.body), self.prepare(s.orelse)
                if s.test.id in stored_names(s.body + s.orelse):
                    # the branch taken must be remembered: the branches reassign the test
                    keep = self.ctx.namer.fresh("_branch")
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

    # ---- facts -----------------------------------------------------------------------------------
    def count_defs(self):
        defs = {a.id: 1 for a in self.tree.args.args}
        for s in assignments(self.tree.body):
            t = s.targets[0]
            if isinstance(t, gast.Name):
                defs[t.id] = defs.get(t.id, 0) + 1

        def loops(stmts, depth):
            for s in stmts:
                if isinstance(s, gast.For):
                    defs[s.target.id] = defs.get(s.target.id, 0) + 2
                    loops(s.body, depth + 1)
                elif isinstance(s, gast.While):
                    loops(s.body, depth + 1)
                elif isinstance(s, gast.If):
                    loops(s.body, depth)
                    loops(s.orelse, depth)
        loops(self.tree.body, 0)
        return defs

    def kind(self, var):
        return self.kinds.get(var)

    # ---- the plan: which statements save what ------------------------------------------------------
    def make_plans(self, stmts, depth, needed):
        for s in stmts:
            if isinstance(s, gast.Assign) and id(s) not in self.counters:
                t = s.targets[0]
                plan = None
                if isinstance(t, gast.Name):
                    maybe_set = depth > 0 or t.id in self.seen      # an old value exists to save
                    cheap = id(s) in self.invariant or id(s) in self.recompute
                    if t.id in needed and maybe_set and not cheap and (depth > 0 or self.defs.get(t.id, 0) > 1):
                        plan = (name(t.id), name(t.id, store=True), self.kind(t.id), t.id)
                elif isinstance(t, gast.Subscript) and self.aliases.members(t.value.id) & needed:
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
                self.make_plans(s.body, depth + 1, needed)
            elif isinstance(s, gast.If):
                self.make_plans(s.body, depth, needed)
                self.make_plans(s.orelse, depth, needed)
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

    # ---- adjoint sweep ----------------------------------------------------------------------------
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
            if block:
                self.line_comment(s, out, "adjoint", force=True)
                out.extend(block)
        return out

    def adjoint_of(self, s, depth):
        block = self._adjoint_of(s, depth)
        return self.bind_views(block, s) if isinstance(s, gast.Assign) else block

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

    def _adjoint_of(self, s, depth):
        block = []
        if isinstance(s, gast.Assign):
            if id(s) in self.counters:
                return []
            if isinstance(s.targets[0], gast.Name) and s.targets[0].id in self.views and id(s) in self.aliases.view_of:
                # a view's adjoint is its base's: nothing to pass on, only the saved value to restore
                plan = self.plans.get(id(s))
                return self.restore(plan) if plan is not None else []
            block = self.assign_adjoint(s, depth)
            reset = self.reset(s, depth)
            plan = self.plans.get(id(s))
            if plan is not None:
                block = block + self.restore(plan)
            # an array adjoint is zeroed with the shape of the value restored above
            block += reset
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

    def assign_adjoint(self, s, depth):
        t = s.targets[0]
        if isinstance(t, gast.Subscript):
            return self.setitem_adjoint(s)
        var = t.id
        if var not in self.active:
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
        for param, operand, template in active_templates(templates, bound, self.active):
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
            if prim.broadcasts and self.may_broadcast(operand.id, bound, prim):
                contrib = self.unbroadcast(contrib, operand.id, out_kind)
            stmts.append(self.accumulate(operand.id, contrib))
        return stmts

    def may_broadcast(self, operand, bound, prim):
        """Whether the output can be larger than ``operand``: not when every other operand is a
        scalar, since then the output has the operand's shape."""
        okind = self.kind(operand)
        if okind is None or okind.ndim == 0:
            return True
        for p in prim.params:
            node = bound.get(p)
            if isinstance(node, gast.Name) and node.id == operand:
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
        # the operand's adjoint has its shape: the operand itself need not be kept for the sweep
        return gast.Call(func=parse_expr("rt.unbroadcast"), args=[contrib, name(self.adj(operand))], keywords=[])

    def accumulate(self, var, contrib):
        if var in self.single_use:
            return assign(self.adj(var), contrib)
        return gast.AugAssign(target=name(self.adj(var), store=True), op=gast.Add(), value=contrib)

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
        clear = [substitute(st, dict(subs)) for st in parse_stmts(templates["x"])]
        if isinstance(v, gast.Name) and v.id in self.active:
            contrib = substitute(parse_expr(templates["v"]), dict(subs))
            contrib = self.unbroadcast(contrib, v.id, pkind)
            if v.id in self.views and arr in self.aliases.members(v.id):
                # y[1:] = y[:-1]: the value's adjoint is a view of the same buffer, which the write
                # clears: take the written part's cotangent first, clear, then pass it on
                taken = self.ctx.namer.fresh("_written")
                return [assign(taken, contrib)] + clear + [self.accumulate(v.id, name(taken))]
            out.append(self.accumulate(v.id, contrib))
        return out + clear

    # ---- comments tying generated code to the source ------------------------------------------------
    def line_comment(self, s, out, sweep, force=False):
        out.extend(source_comment(self, s, sweep))

    # ---- the whole function ------------------------------------------------------------------------
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

    def build(self):
        tree = self.tree
        ret = tree.body[-1]
        body = self.prepare(tree.body[:-1])
        tree.body = body + [ret]
        self.aliases = Aliases(tree, self.ctx)
        self.views = {v: s for v, s in self.aliases.views().items() if v in self.active}
        self.decisions = {st.test.id for st in gast.walk(gast.Module(body=body, type_ignores=[]))
                          if isinstance(st, (gast.If, gast.While)) and isinstance(st.test, gast.Name)}
        self.defs = self.count_defs()
        self.single_use = self.find_single_uses(body)
        self.fixed_shape = self.find_fixed_shapes()
        self.storage_names = {}
        self.find_cheap_values()
        # the adjoint sweep decides what must be saved; saving adds restores that read more names
        needed = set()
        for _ in range(6):
            self.plans = {}
            self.seen = {a.id for a in self.tree.args.args}
            self.make_plans(body, 0, needed)
            self._last_adjoint = None
            sweep = self.adjoint(body, 0)
            now = loaded_names(sweep) | needed
            now = {n for n in now if n in self.kinds}
            if now == needed:
                break
            needed = now
        self._last_primal = None
        self.loop_stack = []
        primal = self.primal(body)
        return primal, sweep, needed


def is_statement(template):
    """Whether a rule template is statements (``bx[index] += g``) rather than an expression
    (``np.sum(g, axis=1)``, whose keyword's ``=`` makes no statement)."""
    try:
        ast.parse(template, mode="eval")
    except SyntaxError:
        return True
    return False


def written_names(stmts):
    """Names assigned, and arrays written in place, anywhere in ``stmts``."""
    out = stored_names(stmts)
    for s in stmts:
        for n in gast.walk(s):
            if isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store) and isinstance(n.value, gast.Name):
                out.add(n.value.id)
    return out


def source_comment(sweep_state, s, sweep):
    """``[# file.py:12: <the source line>]`` before the first statement generated from a line
    (``sweep_state`` remembers the last line commented per sweep)."""
    lineno = getattr(s, "lineno", None)
    if lineno is None or getattr(sweep_state, "_last_" + sweep, None) == lineno:
        return []
    setattr(sweep_state, "_last_" + sweep, lineno)
    filename = getattr(s, "transpyle_file", None) or sweep_state.ctx.filename
    text = linecache.getline(filename, lineno).strip()
    if text and isinstance(s, gast.Assign):
        return [comment(f"{os.path.basename(filename)}:{lineno}: {text}")]
    return []


def dummy(kind):
    """Source of a placeholder value of ``kind`` (for variables first assigned inside loops)."""
    if kind.ndim:
        return f"np.empty({(0,) * kind.ndim!r}, np.{kind.dtype})"
    return {"bool": "False", "int64": "0", "float64": "0.0", "float32": "np.float32(0.0)",
            "complex128": "0j"}.get(kind.dtype, "0.0")


def run(tree, ctx, mode="grad", has_aux=False):
    """Turn the normalized ``tree`` into its gradient function (see the module docstring)."""
    ret = tree.body[-1]
    outs = output_names(ret)
    value_index = 0
    rev = Reverse(ctx, tree, outs, mode, has_aux)
    primal, sweep, needed = rev.build()
    args = [a.id for a in tree.args.args]
    ret_elts = ret.value.elts if isinstance(ret.value, gast.Tuple) else [ret.value]

    # arrays written in place (through any alias) are copied first: the caller's arrays are never changed
    written = rev.aliases.written_in(tree.body)
    copies = [assign(a, parse_expr(f"np.copy({a})")) for a in args if a in written]

    header = [comment(f"transpyle: {mode} of {ctx.source.name} "
                      f"({os.path.basename(ctx.filename)}:{ctx.source.tree.lineno})"),
              comment("with respect to: " + ", ".join(ctx.wrt)),
              comment("active: " + (", ".join(sorted(ctx.active)) or "(none)"))]
    decls = rev.declarations(needed)

    inits = []
    for v in sorted(ctx.active | set(ctx.wrt)):
        if v not in rev.single_use and v not in rev.views:   # those are set (bound) before anything reads them
            inits.append(assign(rev.adj(v), rev.zero(v)))
    seeds = []
    if mode == "vjp":
        # with has_aux only the first output is differentiated and _ct is its cotangent
        outputs = ret_elts[:1] if has_aux else ret_elts
        single = has_aux or not isinstance(ret.value, gast.Tuple)
        for k, e in enumerate(outputs):
            if isinstance(e, gast.Name) and e.id in ctx.active:
                src = "_ct" if single else f"_ct[{k}]"
                seeds.append(gast.AugAssign(target=name(rev.adj(e.id), store=True), op=gast.Add(),
                                            value=parse_expr(src)))
    else:
        e = ret_elts[value_index]
        if isinstance(e, gast.Name) and e.id in ctx.active:
            seeds.append(gast.AugAssign(target=name(rev.adj(e.id), store=True), op=gast.Add(), value=const(1.0)))

    keep = []
    if mode == "value_and_grad" or (has_aux and mode != "vjp"):
        keep.append(assign("_value", copy.deepcopy(ret.value)))
    grads = [name(rev.adj(w)) for w in ctx.wrt]
    grad_value = grads[0] if not ctx.options.get("tuple_argnums") else gast.Tuple(elts=grads, ctx=gast.Load())
    if mode == "vjp":
        result = gast.Tuple(elts=grads, ctx=gast.Load())
    elif mode == "value_and_grad":
        value = parse_expr("_value") if has_aux else parse_expr("_value")
        if has_aux:
            value = parse_expr("(_value[0], _value[1])")
        result = gast.Tuple(elts=[value, grad_value], ctx=gast.Load())
    else:
        result = grad_value if not has_aux else gast.Tuple(elts=[grad_value, parse_expr("_value[1]")],
                                                            ctx=gast.Load())
    body = header + copies + decls + [comment("primal sweep")] + primal + keep + \
        [comment("adjoint sweep")] + inits + seeds + sweep + [gast.Return(value=result)]
    if mode == "vjp":
        tree.args.args.append(name("_ct", store=False))
        tree.args.args[-1].ctx = gast.Param()
    tree.body = body
    tree.name = f"{ctx.source.name}_{mode}"
    return tree
