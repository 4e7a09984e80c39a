"""lift: the vmap transform by array lifting.

The normalized function for one example is rewritten to run the whole batch at once: a value that
depends on a batched argument carries a leading batch axis (its *lanes*), every statement applying a
primitive to such values becomes the primitive's batching rule (``rules``: the same call with ranks
aligned for elementwise primitives, the axis shifted for reductions, a 2-D product for batched
``np.dot``, a loop over the lanes for the rest), and values that do not depend on the batch stay as
they are, computed once.

Data-dependent control flow becomes masks. ``if c`` on a batched ``c`` runs both branches, each
under the mask of the lanes that take it; ``while c`` runs until no lane wants another trip; a
``for`` loop whose bounds differ per example becomes such a ``while``. Early ``return``/``break`` are
flags after the ``jumps`` pass, so they become masks too. Under a mask an assignment to a value that
outlives the masked block keeps the other lanes' values (``rt.select_lanes``); a temporary used only
inside the block is computed for every lane. A value first assigned inside a masked block starts
as zeros in every lane (a number) or as an empty placeholder with a flag (``_has_v``, an array): the
array's first assignment takes every lane, later ones are masked.

Which values are batched is decided first, for the whole function (a value assigned under a batched
mask, or from a batched operand, anywhere, is batched everywhere); a value that is batched but
assigned from unbatched operands is copied into every lane.

For Numba (``lane_loops``) statements on batched numbers are instead written for one lane and run in
loops over the lanes (``for _b1 in range(_B1): s[_b1] = ...``), consecutive ones fused into one loop,
whole branches and loops taken per lane when all their parts are on lanes, and numbers used only
inside one loop kept as its locals: an array operation per statement allocates in compiled code.
Tapes of batched values (``rules.Tape``) have a row per lane and take no masked update.

This module holds the pass entry (``run``) and the statement walker with its lane loops; which values
are batched is ``lift_batched``, the batching rules of right-hand sides are ``lift_expressions``, and
assignments, branches and loops under masks are ``lift_masks``.
"""
import copy
from collections import Counter

import gast

from ..base.ast_utils import assign, const, name, parse_expr
from ..base.kinds import Kind
from . import layout
from .lift_batched import BatchedValues, names_in
from .lift_expressions import LiftedExpressions, call_expr, dtype_source
from .lift_masks import MaskedControlFlow
from .reverse import written_names


class Lifter(BatchedValues, LiftedExpressions, MaskedControlFlow):
    """The rewrite of one function: which values are batched (``analyse``), then each block under a
    mask (``block``); ``size`` names the batch size, ``lane_loops`` picks the form for Numba."""

    def __init__(self, ctx, tree, batched_params, size, lane_loops=False):
        self.ctx = ctx
        self.lane_loops = lane_loops
        self.lane_index = ctx.namer.fresh("_b") if lane_loops else None
        self.namer = ctx.namer
        self.tree = tree
        self.params = [a.id for a in tree.args.args]
        self.batched = set(batched_params)
        self.size = size
        self.uses = Counter(names_in(tree))
        self.flagged = {}           # variable -> its flag, for values first assigned under a mask
        self.defined = set(self.params)
        self.localized = set()      # batched numbers that live in one lane loop: no buffer
        self.tapes = set()

    # ---- statements ----------------------------------------------------------------------------------
    def block(self, stmts, mask):
        local = Counter(n for s in stmts for n in names_in(s))      # before the statements change
        out = []
        lanes = []              # lane-loop statements not emitted yet (see ``lane_form``)
        for s in stmts:
            if self.lane_loops and mask is None:
                lane = self.lane_form(s)
                if lane is not None:
                    lanes.append(gast.copy_location(lane, s))
                    continue
                if lanes and not self.conflicts(s, lanes):
                    out.extend(self.block([s], mask))     # independent of the pending lanes: before them
                    continue
                out.extend(self.flush(lanes))
            if isinstance(s, gast.Assign):
                out.extend(self.assignment(s, mask, local))
            elif isinstance(s, gast.If):
                out.extend(self.branch(s, mask))
            elif isinstance(s, gast.While):
                out.extend(self.loop(s, mask))
            elif isinstance(s, gast.For):
                out.extend(self.for_loop(s, mask))
            elif isinstance(s, (gast.Expr, gast.Pass, gast.Raise)):
                out.append(s)       # a masked block runs only where some lane takes it: so does its raise
            else:
                raise self.error(s, f"'{type(s).__name__}' statements")
        return out + self.flush(lanes)

    # ---- lane loops: statements on numbers of each lane, run in one loop over the lanes ---------------------
    # Under Numba an array operation per statement allocates a temporary each time; a loop over the lanes
    # running a run of statements on each lane's numbers allocates nothing (and Numba vectorizes it).
    def lane_form(self, s):
        """``s`` for lane ``_b`` (batched numbers read and written at ``[_b]``), or None when it is not a
        statement on numbers of the batch (unbatched, array-valued, or a compound statement holding such)."""
        if isinstance(s, gast.Expr):
            return s if isinstance(s.value, gast.Constant) else None     # comments stay in place
        if isinstance(s, (gast.If, gast.While, gast.For)):
            # a compound statement whose parts are all on lanes runs whole for each lane: a branch, or
            # a loop with each lane's own trip count (a loop over shared bounds, made the lane's own)
            if isinstance(s, gast.For) and self.reads_batched(s.iter):
                return None
            test = self.lane_expr(s.test) if not isinstance(s, gast.For) else self.shapes(s.iter)
            body = [self.lane_form(c) for c in s.body]
            orelse = [self.lane_form(c) for c in s.orelse]
            if test is None or not body or any(c is None for c in body + orelse):
                return None
            if isinstance(s, gast.If):
                return gast.If(test=test, body=body, orelse=orelse)
            if isinstance(s, gast.While):
                return gast.While(test=test, body=body, orelse=[])
            return gast.For(target=copy.deepcopy(s.target), iter=test, body=body, orelse=[], type_comment=None)
        if not isinstance(s, gast.Assign):
            return None
        target = s.targets[0]
        b = name(self.lane_index)
        if isinstance(target, gast.Name):
            if target.id not in self.batched or self.ctx.kinds[target.id].ndim:
                return None
            value = self.lane_expr(s.value)
            return None if value is None else \
                assign(gast.Subscript(value=name(target.id), slice=b, ctx=gast.Store()), value)
        x = target.value.id
        part = gast.Subscript(value=name(x), slice=target.slice, ctx=gast.Load())
        if x not in self.batched or self.ctx.expr_kind(part).ndim:
            return None
        index, value = self.lane_expr(part), self.lane_expr(s.value)
        if index is None or value is None:
            return None
        index.ctx = gast.Store()
        return assign(index, value)

    def lane_expr(self, node):
        """``node`` read in lane ``_b``, or None when it reads a batched array other than one element."""
        lifter, b = self, self.lane_index
        failed = []

        class Lane(gast.NodeTransformer):
            def visit_Attribute(self, n):
                return n                                   # shape facts: the same in every lane

            def visit_Subscript(self, n):
                if isinstance(n.value, gast.Name) and n.value.id in lifter.batched:
                    parts = n.slice.elts if isinstance(n.slice, gast.Tuple) else [n.slice]
                    parts = [self.visit(p) for p in parts]
                    return gast.Subscript(value=n.value, slice=gast.Tuple(elts=[name(b)] + parts, ctx=gast.Load()),
                                          ctx=n.ctx)
                return self.generic_visit(n)

            def visit_Name(self, n):
                if n.id in lifter.batched:
                    if lifter.ctx.kinds[n.id].ndim:
                        failed.append(n.id)
                    return gast.Subscript(value=name(n.id), slice=name(b), ctx=gast.Load())
                return n
        out = Lane().visit(self.shapes(node))
        return None if failed else out

    def conflicts(self, s, lanes):
        """Whether the statement ``s`` (not on lanes) must wait for the pending lane statements: it is
        compound, it reads a value they write, or it writes a value they use."""
        if not isinstance(s, gast.Assign):
            return True
        target = s.targets[0]
        written = target.id if isinstance(target, gast.Name) else target.value.id
        used = {n for lane in lanes for n in names_in(lane)}
        # a write into a buffer is a write into every name sharing it (analysis/aliases)
        writes = self.shared.closure({written} if isinstance(target, gast.Subscript) else set()) | {written}
        return bool(writes & used) or bool(set(names_in(s)) & self.shared.closure(written_names(lanes)))

    def flush(self, lanes):
        """The pending lane statements as one loop over the lanes (and none pending after). A number used
        only in this loop, and first written by it, is a local of the loop instead of a buffer."""
        if not lanes:
            return []
        b = self.lane_index
        local = set()

        def find_locals(block):
            """Numbers first written at the top of ``block`` (a loop body or a branch) and used nowhere else."""
            inside = Counter(n for stmt in block for n in names_in(stmt))
            seen = set()
            for stmt in block:
                if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Subscript):
                    seen.update(names_in(stmt.value))
                    var = stmt.targets[0].value.id
                    if var not in seen and var in self.batched and not self.ctx.kinds[var].ndim and \
                            var not in self.params and self.uses[var] == inside[var]:
                        local.add(var)
                elif isinstance(stmt, (gast.If, gast.While, gast.For)):
                    find_locals(stmt.body)
                    find_locals(stmt.orelse)
                seen.update(names_in(stmt))
        find_locals(lanes)

        class Localize(gast.NodeTransformer):
            def visit_Subscript(self, n):
                if isinstance(n.value, gast.Name) and n.value.id in local and \
                        isinstance(n.slice, gast.Name) and n.slice.id == b:
                    return gast.Name(id=n.value.id, ctx=n.ctx, annotation=None, type_comment=None)
                return self.generic_visit(n)
        self.localized |= local
        body = [Localize().visit(lane) for lane in lanes]
        loop = gast.For(target=name(b, store=True), iter=call_expr("range", name(self.size)),
                        body=body, orelse=[], type_comment=None)
        lanes.clear()
        return [gast.copy_location(loop, loop.body[0])]


def run(tree, ctx, in_axes, out_axes, out_kinds, kinds, lane_loops=False):
    """Rewrite the normalized per-example ``tree`` into the batched function (same parameters, the
    batched ones with their batch axis at ``in_axes``), returning outputs batched along ``out_axes``.
    ``lane_loops``: statements on batched numbers run in loops over the lanes (for Numba) instead of
    as one array operation each (for NumPy)."""
    params = [a.id for a in tree.args.args]
    batched = [p for p, a in zip(params, in_axes) if a is not None]
    size = ctx.namer.fresh("_B")
    lifter = Lifter(ctx, tree, batched, size, lane_loops)
    ret = tree.body[-1]
    body = tree.body[:-1]
    lifter.analyse(body)
    lifter.find_flagged(body)
    first, axis = next((p, a) for p, a in zip(params, in_axes) if a is not None)
    head = [assign(size, parse_expr(f"{first}.shape[{axis}]"))]
    written = {t.targets[0].value.id for t in gast.walk(tree) if isinstance(t, gast.Assign) and
               isinstance(t.targets[0], gast.Subscript)}
    rebound = {t.targets[0].id for t in gast.walk(tree) if isinstance(t, gast.Assign) and
               isinstance(t.targets[0], gast.Name)}
    for p, a in zip(params, in_axes):
        if a is not None and a != 0:
            head.append(assign(p, parse_expr(f"np.ascontiguousarray(np.moveaxis({p}, {a}, 0))")))
        elif a is not None and (p in written or lane_loops and p in rebound):   # the caller's arrays stay
            head.append(assign(p, parse_expr(f"np.copy({p})")))
        elif a is None and p in lifter.batched:     # an unbatched argument that the batch writes into
            head.append(assign(p, lifter.lift(name(p), kinds[p])))
    for var, flag in lifter.flagged.items():       # Numba needs every variable typed before the branches
        kind = ctx.kinds[var]
        if flag is None:
            head.append(assign(var, parse_expr(f"np.zeros({size}, {dtype_source(kind)})")))
        else:
            placeholder = ", ".join([size] + ["0"] * kind.ndim)
            head += [assign(var, parse_expr(f"np.empty(({placeholder}), {dtype_source(kind)})")), assign(flag, const(False))]
    new_body = lifter.block(body, None)
    last = set()
    if lane_loops:      # lane loops write into one buffer per batched number, made here
        arrays = {v: ctx.kinds[v].ndim for v in lifter.batched if isinstance(ctx.kinds.get(v), Kind) and
                  ctx.kinds[v].ndim and v not in lifter.tapes and not lifter.flagged.get(v)}
        new_body, last = layout.run(new_body, arrays, lifter.batched, size, lifter.lane_index, ctx.kinds)
        head += [assign(p, layout.to_last(p)) for p in params if p in last]
        head += [assign(v, parse_expr(f"np.empty({size}, {dtype_source(ctx.kinds[v])})")) for v in sorted(lifter.batched)
                 if v not in params and v not in lifter.flagged and v not in lifter.localized and
                 not ctx.kinds[v].ndim]
    values = ret.value.elts if isinstance(ret.value, gast.Tuple) else [ret.value]
    outs = []
    for v, kind, axis in zip(values, out_kinds, out_axes):
        if isinstance(v, gast.Name) and v.id in last:
            v = layout.from_last(name(v.id), axis, kind.ndim)
        else:
            v = name(v.id) if lifter.is_batched(v) else lifter.lift(lifter.shapes(v), kind)
            if axis and axis == kind.ndim:
                v = call_expr("rt.lanes_last", v)
            elif axis:
                v = call_expr("np.moveaxis", v, const(0), const(axis))
        outs.append(v)
    result = gast.Tuple(elts=outs, ctx=gast.Load()) if isinstance(ret.value, gast.Tuple) else outs[0]
    tree.body = head + new_body + [gast.copy_location(gast.Return(value=result), ret)]
    return tree
