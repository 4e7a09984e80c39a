"""checkpoint_loops: reverse mode of the outermost loops in bounded memory (``grad(f, memory="1GB")``).

Under a memory budget, each loop at the top of the function whose iterations save values for the adjoint
sweep is *checkpointed* (the two-level schedule of ``runtime/checkpoints``) instead of taped whole:

- the primal sweep runs it saving what the to-be-recorded analysis asks (the taped loop's saves), but keeps
  the saves of one segment of ``k`` iterations at a time: at each segment's start it drops the previous
  segment's saves and takes a snapshot of the loop's *state* (``k`` chosen at entry from the budget, the
  state's size and the size of an iteration's saves; for a ``while`` loop, whose trip count is known only
  at its end, snapshots are thinned, every other one dropped and the segments doubled, whenever they would
  pass half the budget);
- the adjoint sweep, segment by segment from the last, replays the last segment at once (its saves are
  there), and restores every other segment from its snapshot, runs it again with its saves and replays it
  backwards with the taped loop's adjoint body.

The state is what an iteration reads of what the loop writes and finds there from before: the names the
loop rebinds that it reads before rebinding them, and the arrays it writes in place (through any alias;
restored in place, so views of them stay views), among the names bound before the loop. Inner loops are
taped within their segment. Memory: ``ceil(n / k)`` snapshots and the saves of ``k`` iterations; time:
every iteration but those of the last segment runs twice forward.
"""
import copy
import os

import gast
import numpy as np

from ..base.ast_utils import assign, comment, dotted, expr_source, loaded_names, name, parse_expr, parse_stmts, \
    stored_names
from ..base.context import place
from ..base.kinds import Kind
from ..base.memory_budget import readable
from ..analysis.to_be_recorded import BINDING, VALUE
from ..rules.primitives import lookup
from .reverse_tapes import dummy


#: the names of the snapshot stacks (array lifting refuses them: each example's segments start elsewhere)
SNAPSHOT_PREFIX = "_snap_"

#: the markers calls of functions with their own derivative rules leave (frontend/custom_calls)
CUSTOM_MARKERS = {"rt.custom_primal", "rt.custom_tangent", "rt.custom_output", "custom_vjp"}

#: bytes an array kept on a tape or as a snapshot takes beyond its elements: its slot in the tape (a list of
#: array structures), Numba's header of its memory and the allocator's (a 3-vector saved takes ~150 bytes)
SAVED_ARRAY_OVERHEAD = 160


class _Checkpoint:
    """The names and state of one checkpointed loop."""

    def __init__(self, prefix, state, snapshots):
        self.prefix = prefix            # _ck1: its counters are _ck1_n, _ck1_k, _ck1_c, _ck1_j, ...
        self.state = state              # [(name, kind, restored in place)]
        self.snapshots = snapshots      # name -> its snapshot stack
        self.held = {}                  # array restored in place -> the name of its popped snapshot

    def __getattr__(self, part):
        if part in ("n", "k", "c", "j", "s", "lo", "hi", "again", "slots", "start", "short", "rerun", "full", "top",
                    "last", "before", "count", "q"):
            return f"{self.prefix}_{part}"
        raise AttributeError(part)


class CheckpointedLoops:
    """The checkpointing part of ``reverse.Reverse``: which loops are checkpointed, their state, and their
    code in both sweeps. ``budget`` (bytes, or None) is the transform's memory budget."""

    def checkpoint_candidates(self, body):
        """The outermost loops (ids) that may be checkpointed: those around a call of a checkpointed function
        (``frontend/remat``), and under a budget every one."""
        # a loop calling a function with its own rules keeps its tape: the rules' calls are inlined once each
        loops = [s for s in body if isinstance(s, (gast.For, gast.While)) and not any(
            isinstance(n, gast.Call) and (isinstance(n.func, gast.Name) and n.func.id in self.ctx.functions or
                                          getattr(lookup(n)[0], "key", None) in CUSTOM_MARKERS)
            for n in gast.walk(s))]
        if self.budget is not None:
            return {id(s) for s in loops}
        return {id(s) for s in loops if any(isinstance(n, gast.Call) and dotted(n.func) == "rt.recompute_here"
                                            for n in gast.walk(s))}

    def loops_with_saves(self, body, candidates):
        """Of ``candidates``, the loops whose iterations save something (the others need no checkpoints)."""
        out = set()
        for s in body:
            if id(s) in candidates and any(id(n) in self.plans and self.plans[id(n)].in_loop
                                           for n in gast.walk(s)):
                out.add(id(s))
        return out

    # ---- the state -------------------------------------------------------------------------------------
    def checkpoint_of(self, loop):
        ck = self.checkpoints.get(id(loop))
        if ck is None:
            state = self.loop_state(loop)
            prefix = self.ctx.namer.fresh("_ck")
            snapshots = {v: self.ctx.namer.fresh(SNAPSHOT_PREFIX + v.lstrip('_')) for v, _, _ in state}
            ck = self.checkpoints[id(loop)] = _Checkpoint(prefix, state, snapshots)
        return ck

    def bound_before(self, loop):
        """The names bound before ``loop`` (a statement of the function's body) runs."""
        before = {a.id for a in self.tree.args.args}
        for s in self.tree.body:
            if s is loop:
                break
            before |= stored_names([s])
        return before

    def loop_state(self, loop):
        before = self.bound_before(loop)
        own = {loop.target.id} if isinstance(loop, gast.For) else {loop.counter}
        rebound = stored_names(loop.body) - own
        in_place = self.aliases.written_in(loop.body) - rebound
        carried = (rebound & upward_exposed(loop.body)) | in_place
        # a name first bound in some iteration and read in later ones (``if t == 0: acc = ...``) is state too:
        # it is declared before the loop (checkpoint_primal) so that every snapshot has a value to copy
        carried &= before | rebound
        names = {v for v in carried if isinstance(self.kind(v), Kind)}
        others = sorted(carried - names)
        if others:
            raise self.ctx.error(loop, f"the loop cannot be checkpointed: it carries '{others[0]}' of type "
                                       f"{self.kind(others[0])} from one iteration to the next",
                                 hint="carry arrays and numbers only, or differentiate without memory=")
        # a view written in place is restored with the array it views, when that array is restored in place
        views = self.aliases.views()
        kept = set()
        for v in names:
            base, chain = v, []
            while base in views:
                base = self.aliases.view_of.get(id(views[base]))
                if base is None or base == v or base in chain:
                    break
                chain.append(base)
            if not (v in in_place and any(b != v and b in names and b in in_place for b in chain)):
                kept.add(v)
        return [(v, self.kind(v), v in in_place and self.kind(v).is_array) for v in sorted(kept)]

    def state_bytes(self, ck):
        terms = [_bytes(v, kind) + (f" + {SAVED_ARRAY_OVERHEAD}" if kind.is_array else "") for v, kind, _ in ck.state]
        return " + ".join(terms) or "0"

    def step_bytes(self, loop, ck):
        """Source of an estimate, at the loop's entry, of the bytes one iteration saves: each save's
        array as large as at entry (or as the largest array of the state, if it is first made in the loop),
        times the trip counts of the inner loops around it (bounds the loop changes: as many as the largest
        array of the state has elements)."""
        arrays = [(v, kind) for v, kind, _ in ck.state if kind.is_array]
        largest = f"max({', '.join(_bytes(a, kind) for a, kind in arrays)})" if len(arrays) > 1 else \
            (_bytes(*arrays[0]) if arrays else "8")
        elements = f"max({', '.join(a + '.size' for a, _ in arrays)})" if len(arrays) > 1 else \
            (f"{arrays[0][0]}.size" if arrays else "1")
        before = self.bound_before(loop)
        own = {loop.target.id} if isinstance(loop, gast.For) else set()
        written = stored_names(loop.body) | self.aliases.written_in(loop.body) | own
        terms = []

        def walk(stmts, times):
            for s in stmts:
                plan = self.plans.get(id(s))
                if isinstance(s, gast.Assign) and plan is not None and plan.in_loop:
                    base = plan.target.id if isinstance(plan.target, gast.Name) else plan.target.value.id
                    kind = self.kind(base)
                    if plan.kind.is_array:
                        size = _bytes(base, kind) if base in before and kind.is_array else largest
                        size = f"({size} + {SAVED_ARRAY_OVERHEAD})"
                    else:       # a tape of numbers grows by doubling: up to twice what it holds
                        size = str(2 * np.dtype(plan.kind.dtype).itemsize)
                    terms.append("*".join(times + [size]))
                elif isinstance(s, gast.For):
                    invariant = not (loaded_names(s.iter) & written)
                    walk(s.body, times + [f"({self.trip_count_source(s.iter)})" if invariant else elements])
                elif isinstance(s, gast.While):
                    walk(s.body, times + [elements])
                elif isinstance(s, gast.If):
                    walk(s.body, times)
                    walk(s.orelse, times)
        walk(loop.body, [])
        return " + ".join(terms) or "0"

    # ---- the primal sweep: the saves of the current segment only, snapshots at segment starts --------
    def checkpoint_primal(self, loop):
        """The loop's primal sweep; what it adds has the loop's line (errors about it point there)."""
        out = self._checkpoint_primal(loop)
        for stmt in out:
            for node in gast.walk(stmt):
                if isinstance(node, (gast.stmt, gast.expr)) and getattr(node, "lineno", None) is None:
                    gast.copy_location(node, loop)
        return out

    def _checkpoint_primal(self, loop):
        ck = self.checkpoint_of(loop)
        filename, lineno = place(loop, self.ctx.filename)
        where = f"{os.path.basename(filename)}:{lineno}"
        names = ", ".join(v for v, _, _ in ck.state) or "nothing"
        why = f"memory budget {readable(self.budget)}" if self.budget is not None else \
            "a checkpointed function is called in it: every iteration is recomputed"
        out = [comment(f"checkpointed loop ({why}): the saves of one segment of {ck.k} iterations at a time, "
                       f"snapshots of {names} at segment starts")]
        before = self.bound_before(loop)
        decls = [f"{v} = {dummy(kind)}" for v, kind, _ in ck.state if v not in before]
        for v, kind, _ in ck.state:
            if kind.is_array:
                decls.append(f"{ck.snapshots[v]} = rt.array_tape(np.empty({(0,) * kind.ndim!r}, np.{kind.dtype}))")
            else:
                decls.append(f"{ck.snapshots[v]} = np.empty(16, np.{kind.dtype})")
        take = []
        for v, kind, _ in ck.state:
            take.append(f"{ck.snapshots[v]} = rt.tape_push({ck.snapshots[v]}, rt.snapshot({v}))" if kind.is_array
                        else f"{ck.snapshots[v]} = rt.push({ck.snapshots[v]}, {ck.c}, {v})")
        take.append(f"{ck.c} = {ck.c} + 1")
        # the loop saves as the taped loop does, but a segment's saves are dropped when the next segment
        # starts (the adjoint sweep makes them again from its snapshot); the last segment's stay for it
        saved_stack = self.loop_stack
        self.loop_stack = saved_stack + [[] if isinstance(loop, gast.For) else None]
        body = self.primal(loop.body)
        outermost = self.loop_stack.pop()
        self.loop_stack = saved_stack
        take = self.dropped_saves(loop) + take
        if isinstance(loop, gast.For):
            take += [f"{p.storage} = rt.reserve({p.storage}, min({ck.k}, {ck.n} - {ck.j}))" for p in outermost]
            lines = [f"{ck.n} = {self.trip_count_source(loop.iter)}"]
            if self.budget is None:
                lines.append(f"{ck.k} = 1")
            else:
                lines += [f"{ck.k} = rt.segment_length({ck.n}, {self.state_bytes(ck)}, {self.step_bytes(loop, ck)}, "
                          f"{self.budget})",
                          f"{ck.short} = {ck.k} < 0",
                          f"if {ck.short}:",
                          f"    raise MemoryError('memory={self.budget} bytes is too small to checkpoint the loop at "
                          f"{where}: raise the budget')"]
            lines += decls + [f"{ck.c} = 0"]
            out += parse_stmts("\n".join(lines))
            head = parse_stmts(f"{ck.start} = {ck.j} % {ck.k} == 0\nif {ck.start}:\n" +
                               "".join(f"    {t}\n" for t in take)) + \
                [assign(loop.target.id, self.iteration_value(loop, ck))]
            out.append(gast.For(target=name(ck.j, store=True), iter=parse_expr(f"range({ck.n})"),
                                body=head + body, orelse=[], type_comment=None))
            return out
        lines = [f"{ck.n} = 0", f"{ck.k} = 1"]
        if self.budget is not None:
            lines.append(f"{ck.slots} = rt.snapshot_slots({self.state_bytes(ck)}, {self.budget})")
        out += parse_stmts("\n".join(lines + decls + [f"{ck.c} = 0"]))
        thin = [f"{ck.snapshots[v]} = rt.thin_snapshots({ck.snapshots[v]})" if kind.is_array else
                f"{ck.snapshots[v]} = rt.thin_values({ck.snapshots[v]}, {ck.c})" for v, kind, _ in ck.state]
        thin += [f"{ck.c} = {ck.c} // 2", f"{ck.k} = 2 * {ck.k}"]
        full = f"    {ck.full} = {ck.c} == {ck.slots}\n    if {ck.full}:\n" + \
            "".join(f"        {t}\n" for t in thin) if self.budget is not None else ""   # else: a snapshot each
        head = parse_stmts(f"{ck.start} = {ck.n} % {ck.k} == 0\nif {ck.start}:\n" + full +
                           "".join(f"    {t}\n" for t in take))
        tail = parse_stmts(f"{ck.n} = {ck.n} + 1")
        out.append(gast.While(test=loop.test, body=head + body + tail, orelse=[]))
        return out

    def dropped_saves(self, loop):
        """Statements that empty the tapes of the saves inside ``loop``."""
        out, seen = [], set()
        for node in gast.walk(loop):
            plan = self.plans.get(id(node))
            if plan is None or not plan.in_loop or plan.storage in seen:
                continue
            seen.add(plan.storage)
            out.append(f"{plan.storage} = rt.array_tape({dummy(plan.kind)})" if plan.kind.is_array
                       else f"{plan.counter} = 0")
        return out

    def iteration_value(self, loop, ck):
        """The loop variable at iteration ``_ck_j`` of ``range(a, b, step)``."""
        a, _, st = loop.iter.args
        j = ck.j
        if isinstance(st, gast.Constant) and st.value == 1:
            return parse_expr(j if isinstance(a, gast.Constant) and a.value == 0 else f"{expr_source(a)} + {j}")
        return parse_expr(f"{expr_source(a)} + {j} * {expr_source(st)}")

    # ---- the adjoint sweep: per segment, restore, run again with saves, replay backwards --------------
    def checkpoint_adjoint(self, loop, body):
        """The adjoint block of the checkpointed ``loop`` whose reversed body is ``body``."""
        ck = self.checkpoint_of(loop)
        # the last segment's saves are there from the primal sweep: it is not run again, its snapshot dropped
        lines = [f"{ck.lo} = {ck.s} * {ck.k}", f"{ck.hi} = min({ck.lo} + {ck.k}, {ck.n})",
                 f"{ck.rerun} = {ck.s} < {ck.c} - 1", f"{ck.again} = {ck.lo}", f"{ck.last} = {ck.hi} - 1",
                 f"{ck.before} = {ck.lo} - 1", f"{ck.count} = {ck.hi} - {ck.lo}"]
        restores = []
        for v, kind, in_place in ck.state:
            if not kind.is_array:
                restores.append(assign(v, parse_expr(f"{ck.snapshots[v]}[{ck.s}]")))
            elif in_place:
                held = self.popped_snapshot(ck, v)
                restores += [assign(held, parse_expr(f"rt.tape_pop({ck.snapshots[v]})")),
                             parse_stmts(f"{v}[:] = {held}")[0]]
            else:
                restores.append(assign(v, parse_expr(f"rt.tape_pop({ck.snapshots[v]})")))
        # the segment again, saving as the taped loop does (its tapes get room for the segment up front)
        saved_comment, saved_stack = getattr(self, "_last_primal", None), getattr(self, "loop_stack", None)
        self.loop_stack = [[]]
        again = copy.deepcopy(self.primal(loop.body))     # its own nodes: the primal sweep holds the originals
        reserves = [assign(plan.storage, parse_expr(f"rt.reserve({plan.storage}, {plan.counter} + {ck.again} - {ck.lo})"))
                    for plan in self.loop_stack.pop()]
        self._last_primal, self.loop_stack = saved_comment, saved_stack
        if isinstance(loop, gast.For):
            index = [assign(loop.target.id, self.iteration_value(loop, ck))]
            forward = gast.For(target=name(ck.j, store=True), iter=parse_expr(f"range({ck.lo}, {ck.again})"),
                               body=index + (again or [gast.Pass()]), orelse=[], type_comment=None)
            backward = gast.For(target=name(ck.j, store=True), iter=parse_expr(f"range({ck.last}, {ck.before}, -1)"),
                                body=copy.deepcopy(index) + body, orelse=[], type_comment=None)
        else:
            forward = gast.For(target=name(ck.j, store=True), iter=parse_expr(f"range({ck.lo}, {ck.again})"),
                               body=again or [gast.Pass()], orelse=[], type_comment=None)
            backward = gast.For(target=name(ck.j, store=True), iter=parse_expr(f"range({ck.count})"),
                                body=body, orelse=[], type_comment=None)
        dropped = []
        for v, kind, _ in ck.state:
            if kind.is_array:
                dropped.append(assign(self.popped_snapshot(ck, v), parse_expr(f"rt.tape_pop({ck.snapshots[v]})")))
        restored = gast.If(test=name(ck.rerun), body=restores + [assign(ck.again, name(ck.hi))], orelse=dropped)
        segment = parse_stmts("\n".join(lines)) + [restored] + reserves + [forward]
        # what an iteration makes for itself has a zero adjoint between iterations; the one its first statement
        # restored at the segment's start is a value the run again replaced, so the zero gets its shape anew
        rezero = [assign(self.adj(v), self.zero(v)) for v in self.iteration_arrays(loop, ck)]
        if rezero:
            segment.append(gast.If(test=name(ck.rerun), body=rezero, orelse=[]))
        segment.append(backward)
        return [comment("checkpointed loop: segments from the last, each but the last restored from its snapshot "
                        "and run again with its saves, and replayed backwards"),
                assign(ck.top, parse_expr(f"{ck.c} - 1")),
                gast.For(target=name(ck.s, store=True), iter=parse_expr(f"range({ck.top}, -1, -1)"),
                         body=segment, orelse=[], type_comment=None)]

    def popped_snapshot(self, ck, v):
        """The name that holds the array snapshot of ``v`` popped in the adjoint sweep (one per array)."""
        if v not in ck.held:
            ck.held[v] = self.ctx.namer.fresh(f"{ck.prefix}_{v.lstrip('_')}")
        return ck.held[v]

    def iteration_arrays(self, loop, ck):
        """The arrays with adjoints that ``loop`` binds anew in each iteration (not its state)."""
        own = {loop.target.id} if isinstance(loop, gast.For) else {loop.counter}
        state = {v for v, _, _ in ck.state}
        return [v for v in sorted(stored_names(loop.body) - own - state)
                if isinstance(self.kind(v), Kind) and self.kind(v).is_array and v in self.adjoint_names
                and v in self.active and v not in self.views]

    def checkpoint_reads(self, loop):
        """What the checkpointed loop's adjoint reads of the state just after the loop: the values the loop
        reads and does not write (its iterations run again), and the buffers restored in place."""
        ck = self.checkpoint_of(loop)
        written = stored_names(loop.body) | self.aliases.written_in(loop.body)
        header = loop.iter if isinstance(loop, gast.For) else loop.test
        loads = loaded_names(loop.body) | loaded_names(header)
        reads = {(VALUE, n) for n in loads - written if n in self.kinds}
        reads |= {(BINDING, v) for v, kind, in_place in ck.state if in_place}
        return frozenset(reads)


def _bytes(v, kind):
    """Source of the bytes the number or array ``v`` of ``kind`` takes (``x.size * 8``: generated code is
    read again by other transforms, which take ``size``)."""
    itemsize = np.dtype(kind.dtype).itemsize
    return f"{v}.size * {itemsize}" if kind.is_array else str(itemsize)


def upward_exposed(stmts, bound=frozenset()):
    """Names that ``stmts`` may read before binding them, when ``bound`` are bound before them: an
    assignment binds from there on; a branch binds what both its sides bind; a loop binds nothing after it
    (it may not run), and its body's reads count with what the body binds before them."""
    return _exposed(stmts, set(bound))[0]


def _exposed(stmts, bound):
    exposed = set()
    for s in stmts:
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name):
            exposed |= loaded_names(s.value) - bound
            bound = bound | {s.targets[0].id}
        elif isinstance(s, gast.If):
            exposed |= loaded_names(s.test) - bound
            body, body_bound = _exposed(s.body, bound)
            orelse, else_bound = _exposed(s.orelse, bound)
            exposed |= body | orelse
            bound = body_bound & else_bound
        elif isinstance(s, gast.For):
            exposed |= loaded_names(s.iter) - bound
            exposed |= _exposed(s.body, bound | {s.target.id})[0]
        elif isinstance(s, gast.While):
            exposed |= loaded_names(s.test) - bound
            exposed |= _exposed(s.body, bound)[0]
        else:       # a write into an array reads the rest of it; other statements read what they load
            exposed |= {n.id for n in gast.walk(s) if isinstance(n, gast.Name)} - bound
    return exposed, bound
