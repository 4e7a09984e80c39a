"""lift_masks: assignments and control flow of a function lifted over a batch, under masks.

``if c`` on a batched ``c`` runs both branches, each under the mask of the lanes that take it;
``while c`` runs until no lane wants another trip; a ``for`` loop whose bounds differ per example
becomes such a ``while``. Under a mask an assignment to a value that outlives the masked block keeps
the other lanes' values (``rt.select_lanes``); a value first assigned there starts from its flag
(see ``lift``).
"""
import copy

import gast

from ..base.ast_utils import assign, const, dotted, name, parse_expr, substitute
from .checkpoint_loops import SNAPSHOT_PREFIX
from .lift_expressions import call_expr


class MaskedControlFlow:
    """The statement part of ``lift.Lifter`` that masks: assignments (whole and in place), branches
    and loops; the blocks inside are rewritten by ``Lifter.block``."""

    def combined(self, mask, cond, out, negate=False):
        """A new mask name: the lanes of ``mask`` (all, for None) where ``cond`` holds (or not)."""
        m = self.namer.fresh("_mask")
        c = call_expr("np.logical_not", name(cond)) if negate else name(cond)
        out.append(assign(m, c if mask is None else call_expr("np.logical_and", name(mask), c)))
        return m

    def assignment(self, s, mask, local):
        target = s.targets[0]
        if isinstance(s.value, gast.Call) and dotted(s.value.func) == "rt.reshape_copy" and \
                self.reads_batched(s.value):
            # a reshape of a strided array written in place: a view or a copy by each example's strides,
            # which the batch's one reshape cannot follow
            raise self.error(s, "a reshape of a strided array that is written in place")
        if isinstance(target, gast.Name) and target.id.startswith(SNAPSHOT_PREFIX):
            # the snapshots of a checkpointed loop (memory=, checkpoint) are taken where each example's
            # segments start: the lanes of a batch do not share them
            raise self.error(s, "a checkpointed loop (memory= or checkpoint)")
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
            expr = call_expr("np.copy", expr)         # lane loops write into the buffer: never share one
        flag = self.flagged.get(var)
        if mask is None or not self.outlives(var, local) or var in self.tapes:
            stmts = pre + [gast.copy_location(assign(var, expr), s)]
            return stmts + ([assign(flag, const(True))] if flag else [])
        masked = assign(var, call_expr("rt.select_lanes", name(mask), expr, name(var)))
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
            loop = gast.For(target=name(b, store=True), iter=call_expr("range", name(self.size)), body=body, orelse=[],
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
                        value = call_expr("np.expand_dims", value, const(1))
                    value = gast.BinOp(left=call_expr("np.zeros_like", copy.deepcopy(old)), op=gast.Add(), right=value)
            value = call_expr("rt.select_lanes", name(mask), value, old)
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
                out.append(gast.If(test=call_expr("np.any", name(m)), body=self.block(body, m) or [gast.Pass()],
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
        body.append(assign(m, call_expr("np.logical_and", name(m), name(cond))))
        out.append(gast.While(test=call_expr("np.any", name(m)), body=body, orelse=[]))
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
        body.append(assign(i, call_expr("rt.select_lanes", name(m), gast.BinOp(left=name(i), op=gast.Add(),
                                                                            right=self.shapes(step)), name(i))))
        body.append(assign(m, call_expr("np.logical_and", name(m), in_range())))
        out.append(gast.While(test=call_expr("np.any", name(m)), body=body, orelse=[]))
        return [gast.copy_location(x, s) for x in out]
