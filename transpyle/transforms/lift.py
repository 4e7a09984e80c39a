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
"""
import copy
from collections import Counter

import gast

from .. import rules
from ..base.ast_utils import assign, const, name, parse_expr, substitute
from ..base.kinds import Kind
from ..rules.primitives import lookup, tape_names
from . import layout
from ..analysis.aliases import Aliases
from ..frontend.infer import operand_kinds, template_names
from .reverse import written_names

SHAPE_ATTRS = ("shape", "size", "ndim")
INTEGER_RESULTS = ("np.floor", "np.ceil", "np.trunc", "np.rint", "np.round")


def _dtype(kind):
    return {"bool": "np.bool_"}.get(kind.dtype, f"np.{kind.dtype}")


def _call(func, *args):
    return gast.Call(func=parse_expr(func), args=list(args), keywords=[])


def _names_in(node):
    return [n.id for n in gast.walk(node) if isinstance(n, gast.Name)]


class Lifter:
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
        self.uses = Counter(_names_in(tree))
        self.flagged = {}           # variable -> its flag, for values first assigned under a mask
        self.defined = set(self.params)
        self.localized = set()      # batched numbers that live in one lane loop: no buffer
        self.tapes = set()

    # ---- which values carry the batch axis ------------------------------------------------------------
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

    def find_flagged(self, body):
        """The values that outlive a masked block first assigning them: they need a flag."""
        for s in body:
            for block, masked in self._blocks(s, False):
                self._flag_block(block, masked)
            self.defined.update(written_names([s]))

    def _flag_block(self, stmts, masked):
        local = Counter(n for s in stmts for n in _names_in(s))
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

    # ---- expressions -------------------------------------------------------------------------------
    def shapes(self, node):
        """``node`` with the shape facts of batched arrays read per example (past the batch axis)."""
        class Rewrite(gast.NodeTransformer):
            def visit_Attribute(inner, n):
                if isinstance(n.value, gast.Name) and n.value.id in self.batched:
                    if n.attr == "shape":
                        return gast.Subscript(value=n, slice=gast.Slice(lower=const(1), upper=None, step=None),
                                              ctx=gast.Load())
                    if n.attr == "ndim":
                        return const(self.ctx.kinds[n.value.id].ndim)
                    if n.attr == "size":
                        return parse_expr(f"({n.value.id}.size // max({self.size}, 1))")
                return inner.generic_visit(n)

            def visit_Call(inner, n):
                prim, bound = lookup(n)
                if prim is not None and prim.batch is rules.SHAPE:
                    x = bound["x"]
                    if isinstance(x, gast.Name) and x.id in self.batched:
                        shape = f"{x.id}.shape[1:]"
                        return parse_expr(f"{shape}[0]" if prim.key == "len" else shape)
                return inner.generic_visit(n)
        return Rewrite().visit(copy.deepcopy(node))

    def is_batched(self, node):
        return isinstance(node, gast.Name) and node.id in self.batched

    def rank(self, node):
        kind = self.ctx.expr_kind(node)
        return kind.ndim if isinstance(kind, Kind) else 0

    def align(self, node, rank):
        """A batched operand given ``rank`` per-example dimensions by new axes after the batch axis."""
        for _ in range(rank - self.rank(node)):
            node = _call("np.expand_dims", node, const(1))
        return node

    def lift(self, node, kind):
        """An unbatched value copied into every lane (an array of zeros or ones made batched at once)."""
        if kind.ndim and isinstance(node, gast.Call) and len(node.args) == 1 and not node.keywords and \
                isinstance(node.args[0], gast.Name):
            prim, _ = lookup(node)
            fill = {"np.zeros_like": "np.zeros", "np.ones_like": "np.ones", "np.empty_like": "np.empty"}.get(
                getattr(prim, "key", None))
            if fill is not None:
                return parse_expr(f"{fill}(({self.size},) + {node.args[0].id}.shape, {_dtype(kind)})")
        if kind.ndim:
            return _call("rt.lanes", node, name(self.size))
        return _call("np.full", name(self.size), node, parse_expr(_dtype(kind)))

    def value(self, s, target_kind, mask):
        """(statements before, the batched expression) for the right-hand side of ``s``, run for the
        lanes of ``mask`` (all lanes for None; the others may get any value)."""
        value = s.value
        prim, bound = lookup(value) if isinstance(value, gast.Call) else (None, None)
        if prim is not None and isinstance(prim.batch, rules.Tape):
            return [], self.tape(s, prim, bound, mask)
        if not self.reads_batched(value):
            return [], self.lift(self.shapes(value), target_kind)
        if isinstance(value, gast.Name):
            return [], name(value.id)
        if isinstance(value, gast.Subscript):
            return self.getitem(s, value, target_kind, mask)
        prim, bound = lookup(value)
        if prim is None:
            raise self.error(s, f"'{type(value).__name__}' expressions")
        if id(s) in self.written_views:
            # batched forms of transpose and reshape may copy: a view written in place must stay a view
            raise self.error(s, f"a view made by {prim.key} and written in place")
        rule = prim.batch
        if rule is rules.RAGGED:
            raise self.error(s, f"{prim.key}, whose result has a shape of its own in each example")
        kinds = operand_kinds(self.ctx, prim, bound)
        if rule is rules.LANEWISE:
            return [], self.lanewise(value, prim, target_kind)
        if isinstance(rule, rules.AlongAxis):
            expr = self.reduction(prim, bound, rule)
            if expr is not None:
                return [], expr
        elif callable(rule):
            batched = {p: self.reads_batched(node) for p, node in bound.items()}
            template = rule(batched, kinds, bound)
            if template is rules.RAGGED:
                raise self.error(s, f"{prim.key}, whose result has a shape of its own in each example")
            if template is not None:
                subs = {k: self.shapes(v) for k, v in template_names(prim, bound, const(0), const(0)).items()}
                return [], substitute(parse_expr(template), dict(subs, _B=name(self.size)))
        return self.per_lane(s, value, target_kind, mask)

    def tape(self, s, prim, bound, mask):
        """A tape operation on tapes of lanes (see ``rules.Tape``)."""
        rule = prim.batch
        if mask is not None and not rule.masked:
            raise self.error(s, "arrays saved for the adjoint under a condition that differs per example")
        subs = {}
        for p, node in bound.items():
            if p in rule.lifted and not self.reads_batched(node):
                node = self.lift(node, self.ctx.expr_kind(node))
            subs[p] = self.shapes(node)
        return substitute(parse_expr(rule.template), subs)

    def lanewise(self, value, prim, target_kind):
        """An elementwise primitive on lanes: batched operands aligned to the result's rank; called
        through its NumPy spelling (``math.sin`` and ``abs`` do not take arrays)."""
        value = self.shapes(value)
        rank = target_kind.ndim
        if isinstance(value, gast.Call) and prim.key == "np.where":
            rank = max(self.rank(a) for a in value.args)

        def fit(node):
            return self.align(node, rank) if self.is_batched(node) else node
        if isinstance(value, gast.BinOp):
            value.left, value.right = fit(value.left), fit(value.right)
        elif isinstance(value, gast.Compare):
            value.left, value.comparators = fit(value.left), [fit(c) for c in value.comparators]
        elif isinstance(value, gast.UnaryOp):
            if isinstance(value.op, gast.Not):
                return _call("np.logical_not", value.operand)
        elif isinstance(value, gast.Call):
            value.args = [fit(a) for a in value.args]
            for kw in value.keywords:
                kw.value = fit(kw.value)
            if prim.key.startswith("np."):
                value.func = parse_expr(prim.key)
            if prim.key in INTEGER_RESULTS and not target_kind.is_float:
                value = gast.Call(func=gast.Attribute(value=value, attr="astype", ctx=gast.Load()),
                                  args=[parse_expr(_dtype(target_kind))], keywords=[])
        return value

    def reduction(self, prim, bound, rule):
        x, axis, keep = bound["x"], bound["axis"], bound["keepdims"]
        if isinstance(axis, gast.Tuple) and isinstance(keep, gast.Constant) and \
                all(isinstance(a, gast.Constant) and isinstance(a.value, int) for a in axis.elts):
            # a tuple of axes shifts past the batch axis
            shifted = gast.Tuple(elts=[const(a.value + 1 if a.value >= 0 else a.value) for a in axis.elts],
                                 ctx=gast.Load())
            return _call(f"rt.{rule.helper}", x, shifted, const(bool(keep.value)))
        if not (isinstance(axis, gast.Constant) and isinstance(keep, gast.Constant)) or self.is_batched(axis):
            return None
        helper = f"rt.{rule.helper}"
        if axis.value is None:
            if keep.value:
                return None
            rank = self.rank(x)
            flat = x if rank == 1 else \
                parse_expr(f"np.reshape(np.ascontiguousarray({x.id}), ({x.id}.shape[0], -1))")
            return _call(helper, flat, const(1), const(False))
        if not isinstance(axis.value, int):
            return None
        shifted = axis.value + 1 if axis.value >= 0 else axis.value
        return _call(helper, x, const(shifted), const(bool(keep.value)))

    def getitem(self, s, value, target_kind, mask):
        x, index = value.value, value.slice
        parts = index.elts if isinstance(index, gast.Tuple) else [index]
        if self.is_batched(x) and not any(self.reads_batched(p) for p in parts):
            whole = gast.Slice(lower=None, upper=None, step=None)
            lanes = gast.Subscript(value=x, slice=gast.Tuple(elts=[whole] + [self.shapes(p) for p in parts],
                                                             ctx=gast.Load()), ctx=gast.Load())
            # an example reads a number by value; the lanes of it are a view of x: copy them
            return [], lanes if target_kind.ndim else _call("np.copy", lanes)
        if not self.is_batched(x) and all(not isinstance(p, gast.Slice) and not (isinstance(p, gast.Constant) and
                                                                                p.value is None) for p in parts):
            parts = [self.lift(p, self.ctx.expr_kind(p)) if not self.reads_batched(p) else p for p in parts] \
                if len(parts) > 1 else parts
            sub = gast.Tuple(elts=parts, ctx=gast.Load()) if len(parts) > 1 else parts[0]
            return [], gast.Subscript(value=x, slice=self.shapes(sub), ctx=gast.Load())
        if mask is None and self.is_batched(x) and len(parts) == 1 and self.is_batched(parts[0]):
            return [], _call("rt.gather_lanes", x, parts[0])    # x[b, i[b]] for every lane b
        return self.per_lane(s, value, target_kind, mask)

    def lane(self, node, index):
        """``node`` with every batched name replaced by its lane ``index``."""
        subs = {v: gast.Subscript(value=name(v), slice=copy.deepcopy(index), ctx=gast.Load())
                for v in set(_names_in(node)) if v in self.batched}
        return self.shapes(substitute(copy.deepcopy(node), subs))    # shapes of x[b] are an example's already

    def per_lane(self, s, value, target_kind, mask):
        """The fallback rule: a loop over the lanes of ``mask``, calling the primitive once per example
        (lanes outside the mask are skipped: their indices may be out of range, their matrices singular)."""
        out, b = self.namer.fresh("_lanes"), self.namer.fresh("_b")
        stmts = []
        if target_kind.ndim:
            first = self.namer.fresh("_lane")
            stmts.append(assign(first, self.lane(value, const(0))))
            shape = f"({self.size},) + {first}.shape"
        else:
            shape = self.size
        stmts.append(assign(out, parse_expr(f"np.empty({shape}, {_dtype(target_kind)})")))
        body = [assign(gast.Subscript(value=name(out), slice=name(b), ctx=gast.Store()), self.lane(value, name(b)))]
        if mask is not None:
            body = [gast.If(test=gast.Subscript(value=name(mask), slice=name(b), ctx=gast.Load()), body=body,
                            orelse=[])]
        stmts.append(gast.For(target=name(b, store=True), iter=_call("range", name(self.size)), body=body,
                              orelse=[], type_comment=None))
        return [gast.copy_location(x, s) for x in stmts], name(out)

    def error(self, s, what):
        return self.ctx.error(s, f"vmap by array lifting does not support {what}",
                              hint="use vmap(..., strategy='loop')")

    # ---- statements ----------------------------------------------------------------------------------
    def block(self, stmts, mask):
        local = Counter(n for s in stmts for n in _names_in(s))      # before the statements change
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
            elif isinstance(s, (gast.Expr, gast.Pass)):
                out.append(s)
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
        used = {n for lane in lanes for n in _names_in(lane)}
        # a write into a buffer is a write into every name sharing it (analysis/aliases)
        writes = self.shared.closure({written} if isinstance(target, gast.Subscript) else set()) | {written}
        return bool(writes & used) or bool(set(_names_in(s)) & self.shared.closure(written_names(lanes)))

    def flush(self, lanes):
        """The pending lane statements as one loop over the lanes (and none pending after). A number used
        only in this loop, and first written by it, is a local of the loop instead of a buffer."""
        if not lanes:
            return []
        b = self.lane_index
        local = set()

        def find_locals(block):
            """Numbers first written at the top of ``block`` (a loop body or a branch) and used nowhere else."""
            inside = Counter(n for stmt in block for n in _names_in(stmt))
            seen = set()
            for stmt in block:
                if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Subscript):
                    seen.update(_names_in(stmt.value))
                    var = stmt.targets[0].value.id
                    if var not in seen and var in self.batched and not self.ctx.kinds[var].ndim and \
                            var not in self.params and self.uses[var] == inside[var]:
                        local.add(var)
                elif isinstance(stmt, (gast.If, gast.While, gast.For)):
                    find_locals(stmt.body)
                    find_locals(stmt.orelse)
                seen.update(_names_in(stmt))
        find_locals(lanes)

        class Localize(gast.NodeTransformer):
            def visit_Subscript(self, n):
                if isinstance(n.value, gast.Name) and n.value.id in local and \
                        isinstance(n.slice, gast.Name) and n.slice.id == b:
                    return gast.Name(id=n.value.id, ctx=n.ctx, annotation=None, type_comment=None)
                return self.generic_visit(n)
        self.localized |= local
        body = [Localize().visit(lane) for lane in lanes]
        loop = gast.For(target=name(b, store=True), iter=_call("range", name(self.size)),
                        body=body, orelse=[], type_comment=None)
        lanes.clear()
        return [gast.copy_location(loop, loop.body[0])]

    def combined(self, mask, cond, out, negate=False):
        """A new mask name: the lanes of ``mask`` (all, for None) where ``cond`` holds (or not)."""
        m = self.namer.fresh("_mask")
        c = _call("np.logical_not", name(cond)) if negate else name(cond)
        out.append(assign(m, c if mask is None else _call("np.logical_and", name(mask), c)))
        return m

    def assignment(self, s, mask, local):
        target = s.targets[0]
        if isinstance(target, gast.Subscript):
            return self.setitem(s, mask)
        var = target.id
        if var not in self.batched:
            s.value = self.shapes(s.value)
            return [s]
        kind = self.ctx.kinds[var]
        pre, expr = self.value(s, kind, mask)
        if self.lane_loops and isinstance(expr, gast.Name) and var not in self.tapes and \
                id(s) not in self.alias_statements:
            expr = _call("np.copy", expr)         # lane loops write into the buffer: never share one
        flag = self.flagged.get(var)
        if mask is None or not self.outlives(var, local) or var in self.tapes:
            stmts = pre + [gast.copy_location(assign(var, expr), s)]
            return stmts + ([assign(flag, const(True))] if flag else [])
        masked = assign(var, _call("rt.select_lanes", name(mask), expr, name(var)))
        if flag is None:
            return pre + [gast.copy_location(masked, s)]
        first = [assign(var, copy.deepcopy(expr)), assign(flag, const(True))]
        return pre + [gast.copy_location(gast.If(test=name(flag), body=[masked], orelse=first), s)]

    def setitem(self, s, mask):
        target = s.targets[0]
        x, index = target.value.id, target.slice
        if x not in self.batched:
            target.slice, s.value = self.shapes(index), self.shapes(s.value)
            return [s]
        parts = index.elts if isinstance(index, gast.Tuple) else [index]
        v = s.value
        if any(self.reads_batched(p) for p in parts):
            b = self.namer.fresh("_b")
            lane_target = gast.Subscript(value=gast.Subscript(value=name(x), slice=name(b), ctx=gast.Load()),
                                         slice=self.lane(index, name(b)), ctx=gast.Store())
            body = [assign(lane_target, self.lane(v, name(b)))]
            if mask is not None:
                body = [gast.If(test=gast.Subscript(value=name(mask), slice=name(b), ctx=gast.Load()), body=body,
                                orelse=[])]
            loop = gast.For(target=name(b, store=True), iter=_call("range", name(self.size)), body=body, orelse=[],
                            type_comment=None)
            return [gast.copy_location(loop, s)]
        whole = gast.Slice(lower=None, upper=None, step=None)
        index = gast.Tuple(elts=[whole] + [self.shapes(p) for p in parts], ctx=gast.Load())
        part_kind = self.ctx.expr_kind(gast.Subscript(value=name(x), slice=target.slice, ctx=gast.Load()))
        value = self.align(v, part_kind.ndim) if self.is_batched(v) else self.shapes(v)
        if mask is not None:
            old = gast.Subscript(value=name(x), slice=copy.deepcopy(index), ctx=gast.Load())
            if not self.is_batched(v):
                vkind = self.ctx.expr_kind(v)
                value = self.lift(value, vkind)
                if vkind.ndim < part_kind.ndim:
                    # a value broadcast over the written part (a[0:2] = 0.0): the lanes get the part's
                    # shape, so the mask selects examples, never the part's own elements
                    for _ in range(part_kind.ndim - vkind.ndim):
                        value = _call("np.expand_dims", value, const(1))
                    value = gast.BinOp(left=_call("np.zeros_like", copy.deepcopy(old)), op=gast.Add(), right=value)
            value = _call("rt.select_lanes", name(mask), value, old)
        write = assign(gast.Subscript(value=name(x), slice=index, ctx=gast.Store()), value)
        return [gast.copy_location(write, s)]

    def branch(self, s, mask):
        if not self.reads_batched(s.test):
            s.test = self.shapes(s.test)
            s.body = self.block(s.body, mask) or [gast.Pass()]
            s.orelse = self.block(s.orelse, mask)
            return [s]
        out = []
        cond = s.test.id
        then_mask = self.combined(mask, cond, out)
        else_mask = self.combined(mask, cond, out, negate=True) if s.orelse else None
        # both masks are taken before the branches run: a branch may reassign the condition
        for body, m in ((s.body, then_mask), (s.orelse, else_mask)):
            if body:
                out.append(gast.If(test=_call("np.any", name(m)), body=self.block(body, m) or [gast.Pass()],
                                   orelse=[]))
        return [gast.copy_location(x, s) for x in out]

    def loop(self, s, mask):
        if not self.reads_batched(s.test):
            s.test = self.shapes(s.test)
            s.body = self.block(s.body, mask)
            return [s]
        out = []
        cond = s.test.id
        m = self.combined(mask, cond, out)
        body = self.block(s.body, m)
        body.append(assign(m, _call("np.logical_and", name(m), name(cond))))
        out.append(gast.While(test=_call("np.any", name(m)), body=body, orelse=[]))
        return [gast.copy_location(x, s) for x in out]

    def for_loop(self, s, mask):
        if not self.reads_batched(s.iter):
            s.iter = self.shapes(s.iter)
            s.body = self.block(s.body, mask)
            return [s]
        # bounds that differ per example: a masked while over a batched counter
        start, stop, step = s.iter.args
        if self.reads_batched(step):
            raise self.error(s, "a loop whose step differs per example")
        i = s.target.id
        out = [assign(i, self.lift(self.shapes(start), self.ctx.kinds[i]) if not self.reads_batched(start)
                      else name(start.id))]
        live = self.namer.fresh("_live")
        test = f"np.logical_and({i} < {{stop}}, {{step}} > 0) | np.logical_and({i} > {{stop}}, {{step}} < 0)"

        def in_range():
            return substitute(parse_expr(test.format(stop="_stop", step="_step")),
                              {"_stop": self.shapes(stop), "_step": self.shapes(step)})
        out.append(assign(live, in_range()))
        m = self.combined(mask, live, out)
        body = self.block(s.body, m)
        body.append(assign(i, _call("rt.select_lanes", name(m), gast.BinOp(left=name(i), op=gast.Add(),
                                                                            right=self.shapes(step)), name(i))))
        body.append(assign(m, _call("np.logical_and", name(m), in_range())))
        out.append(gast.While(test=_call("np.any", name(m)), body=body, orelse=[]))
        return [gast.copy_location(x, s) for x in out]


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
            head.append(assign(var, parse_expr(f"np.zeros({size}, {_dtype(kind)})")))
        else:
            placeholder = ", ".join([size] + ["0"] * kind.ndim)
            head += [assign(var, parse_expr(f"np.empty(({placeholder}), {_dtype(kind)})")), assign(flag, const(False))]
    new_body = lifter.block(body, None)
    last = set()
    if lane_loops:      # lane loops write into one buffer per batched number, made here
        arrays = {v: ctx.kinds[v].ndim for v in lifter.batched if isinstance(ctx.kinds.get(v), Kind) and
                  ctx.kinds[v].ndim and v not in lifter.tapes and not lifter.flagged.get(v)}
        new_body, last = layout.run(new_body, arrays, lifter.batched, size, lifter.lane_index, ctx.kinds)
        head += [assign(p, layout.to_last(p)) for p in params if p in last]
        head += [assign(v, parse_expr(f"np.empty({size}, {_dtype(ctx.kinds[v])})")) for v in sorted(lifter.batched)
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
                v = _call("rt.lanes_last", v)
            elif axis:
                v = _call("np.moveaxis", v, const(0), const(axis))
        outs.append(v)
    result = gast.Tuple(elts=outs, ctx=gast.Load()) if isinstance(ret.value, gast.Tuple) else outs[0]
    tree.body = head + new_body + [gast.copy_location(gast.Return(value=result), ret)]
    return tree

