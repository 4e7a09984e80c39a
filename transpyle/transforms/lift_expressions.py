"""lift_expressions: the right-hand sides of a function lifted over a batch.

Each value is rewritten by its primitive's batching rule (``rules``): the same call with ranks aligned
for elementwise primitives, the axis shifted for reductions, a template of the rule tables, leading
``:`` for indexing, a copy into every lane for an unbatched value, a loop over the lanes for the rest
(``per_lane``). Shape facts of batched arrays are read past the batch axis (``shapes``).
"""
import copy

import gast

from .. import rules
from ..base.ast_utils import assign, const, name, parse_expr, substitute
from ..base.kinds import Kind
from ..rules.primitives import lookup
from ..frontend.infer import operand_kinds, template_names
from .lift_batched import names_in

INTEGER_RESULTS = ("np.floor", "np.ceil", "np.trunc", "np.rint", "np.round")


def dtype_source(kind):
    """The NumPy spelling of ``kind``'s dtype (``np.float64``)."""
    return {"bool": "np.bool_"}.get(kind.dtype, f"np.{kind.dtype}")


def call_expr(func, *args):
    """A call of the function spelled ``func`` on the nodes ``args``."""
    return gast.Call(func=parse_expr(func), args=list(args), keywords=[])


class LiftedExpressions:
    """The expression part of ``lift.Lifter``: batched right-hand sides, given which values are
    batched (``lift_batched.BatchedValues``)."""

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
            node = call_expr("np.expand_dims", node, const(1))
        return node

    def lift(self, node, kind):
        """An unbatched value copied into every lane (an array of zeros or ones made batched at once)."""
        if kind.ndim and isinstance(node, gast.Call) and len(node.args) == 1 and not node.keywords and \
                isinstance(node.args[0], gast.Name):
            prim, _ = lookup(node)
            fill = {"np.zeros_like": "np.zeros", "np.ones_like": "np.ones", "np.empty_like": "np.empty"}.get(
                getattr(prim, "key", None))
            if fill is not None:
                return parse_expr(f"{fill}(({self.size},) + {node.args[0].id}.shape, {dtype_source(kind)})")
        if kind.ndim:
            return call_expr("rt.lanes", node, name(self.size))
        return call_expr("np.full", name(self.size), node, parse_expr(dtype_source(kind)))

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
                return call_expr("np.logical_not", value.operand)
        elif isinstance(value, gast.Call):
            value.args = [fit(a) for a in value.args]
            for kw in value.keywords:
                kw.value = fit(kw.value)
            if prim.key.startswith("np."):
                value.func = parse_expr(prim.key)
            if prim.key in INTEGER_RESULTS and not target_kind.is_float:
                value = gast.Call(func=gast.Attribute(value=value, attr="astype", ctx=gast.Load()),
                                  args=[parse_expr(dtype_source(target_kind))], keywords=[])
        return value

    def reduction(self, prim, bound, rule):
        x, axis, keep = bound["x"], bound["axis"], bound["keepdims"]
        if isinstance(axis, gast.Tuple) and isinstance(keep, gast.Constant) and \
                all(isinstance(a, gast.Constant) and isinstance(a.value, int) for a in axis.elts):
            # a tuple of axes shifts past the batch axis
            shifted = gast.Tuple(elts=[const(a.value + 1 if a.value >= 0 else a.value) for a in axis.elts],
                                 ctx=gast.Load())
            return call_expr(f"rt.{rule.helper}", x, shifted, const(bool(keep.value)))
        if not (isinstance(axis, gast.Constant) and isinstance(keep, gast.Constant)) or self.is_batched(axis):
            return None
        helper = f"rt.{rule.helper}"
        if axis.value is None:
            if keep.value:
                return None
            rank = self.rank(x)
            flat = x if rank == 1 else \
                parse_expr(f"np.reshape(np.ascontiguousarray({x.id}), ({x.id}.shape[0], -1))")
            return call_expr(helper, flat, const(1), const(False))
        if not isinstance(axis.value, int):
            return None
        shifted = axis.value + 1 if axis.value >= 0 else axis.value
        return call_expr(helper, x, const(shifted), const(bool(keep.value)))

    def getitem(self, s, value, target_kind, mask):
        x, index = value.value, value.slice
        parts = index.elts if isinstance(index, gast.Tuple) else [index]
        if self.is_batched(x) and not any(self.reads_batched(p) for p in parts):
            whole = gast.Slice(lower=None, upper=None, step=None)
            lanes = gast.Subscript(value=x, slice=gast.Tuple(elts=[whole] + [self.shapes(p) for p in parts],
                                                             ctx=gast.Load()), ctx=gast.Load())
            # an example reads a number by value; the lanes of it are a view of x: copy them
            return [], lanes if target_kind.ndim else call_expr("np.copy", lanes)
        if not self.is_batched(x) and all(not isinstance(p, gast.Slice) and not (isinstance(p, gast.Constant) and
                                                                                p.value is None) for p in parts):
            parts = [self.lift(p, self.ctx.expr_kind(p)) if not self.reads_batched(p) else p for p in parts] \
                if len(parts) > 1 else parts
            sub = gast.Tuple(elts=parts, ctx=gast.Load()) if len(parts) > 1 else parts[0]
            return [], gast.Subscript(value=x, slice=self.shapes(sub), ctx=gast.Load())
        if mask is None and self.is_batched(x) and len(parts) == 1 and self.is_batched(parts[0]):
            return [], call_expr("rt.gather_lanes", x, parts[0])    # x[b, i[b]] for every lane b
        return self.per_lane(s, value, target_kind, mask)

    def lane(self, node, index):
        """``node`` with every batched name replaced by its lane ``index``."""
        subs = {v: gast.Subscript(value=name(v), slice=copy.deepcopy(index), ctx=gast.Load())
                for v in set(names_in(node)) if v in self.batched}
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
        stmts.append(assign(out, parse_expr(f"np.empty({shape}, {dtype_source(target_kind)})")))
        body = [assign(gast.Subscript(value=name(out), slice=name(b), ctx=gast.Store()), self.lane(value, name(b)))]
        if mask is not None:
            body = [gast.If(test=gast.Subscript(value=name(mask), slice=name(b), ctx=gast.Load()), body=body,
                            orelse=[])]
        stmts.append(gast.For(target=name(b, store=True), iter=call_expr("range", name(self.size)), body=body,
                              orelse=[], type_comment=None))
        return [gast.copy_location(x, s) for x in stmts], name(out)

    def error(self, s, what):
        return self.ctx.error(s, f"vmap by array lifting does not support {what}",
                              hint="use vmap(..., strategy='loop')")
