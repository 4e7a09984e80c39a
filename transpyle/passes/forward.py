"""forward: forward-mode differentiation of a normalized function (the jvp transform).

Each statement that assigns an active variable is followed by the statement computing its
tangent ``dy`` from the tangents of its operands, so the generated function runs the primal and
the tangent side by side, in one sweep, with no tape: memory does not grow with trip counts.
Tangents read like the source: ``dx`` is the tangent of ``x``, ``d_t3`` of ``_t3``.

The tangent of ``y = prim(a, b)`` is the sum over active operands of the primitive's forward
rule (see ``rules``): for elementwise primitives the adjoint template with the cotangent ``g``
replaced by the operand's tangent (their local Jacobian is diagonal), for linear primitives the
primitive applied to the tangents, otherwise an explicit ``jvp`` template.
"""
import copy

import gast

from .. import rules
from ..ast_utils import assign, comment, const, name, parse_expr, substitute
from ..kinds import Kind
from ..primitives import is_atom
from .activity import assignments
from .infer import active_templates, rule_for, template_names
from .reverse import check_aliasing, source_comment


class Forward:
    def __init__(self, ctx, tree):
        self.ctx = ctx
        self.tree = tree
        self.active = ctx.active
        self.tangent_names = {}
        self.last_line = None

    def tan(self, var):
        if var not in self.tangent_names:
            self.tangent_names[var] = self.ctx.namer.exact_or_fresh("d" + var)
        return self.tangent_names[var]

    def kind(self, var):
        return self.ctx.kinds.get(var)

    def zero(self, var):
        """Source of a zero tangent shaped like ``var`` (evaluated after ``var`` is assigned)."""
        kind = self.kind(var)
        if isinstance(kind, Kind) and kind.is_array:
            return parse_expr(f"np.zeros_like({var})")
        return const(0.0)

    def operand_tangent(self, node):
        """The tangent of an operand atom: its tangent variable, or a zero for constants."""
        if isinstance(node, gast.Name) and node.id in self.active:
            return name(self.tan(node.id))
        kind = self.ctx.expr_kind(node)
        if isinstance(kind, Kind) and kind.is_array and isinstance(node, gast.Name):
            return parse_expr(f"np.zeros_like({node.id})")
        return const(0.0)

    # ---- statements -----------------------------------------------------------------------------
    def block(self, stmts):
        out = []
        for s in stmts:
            if isinstance(s, gast.Assign):
                out.extend(source_comment(self, s, "primal"))
                out.append(s)
                out.extend(self.assign_tangent(s))
            elif isinstance(s, (gast.For, gast.While)):
                out.extend(source_comment(self, s, "primal"))
                s.body = self.block(s.body)
                out.append(s)
            elif isinstance(s, gast.If):
                s.body = self.block(s.body) or [gast.Pass()]
                s.orelse = self.block(s.orelse)
                out.append(s)
            else:
                out.append(s)
        return out

    def assign_tangent(self, s):
        target = s.targets[0]
        if isinstance(target, gast.Subscript):
            arr = target.value.id
            if arr not in self.active:
                return []
            part = gast.Subscript(value=name(self.tan(arr)), slice=copy.deepcopy(target.slice), ctx=gast.Store())
            return [assign(part, self.operand_tangent(s.value))]
        if not isinstance(target, gast.Name) or target.id not in self.active:
            return []
        var = target.id
        value = s.value
        if isinstance(value, gast.Name):
            tangent = name(self.tan(value.id)) if value.id in self.active else self.zero(var)
        elif is_atom(value):
            tangent = self.zero(var)
        elif isinstance(value, gast.Tuple):
            raise self.ctx.error(s, "tuples of differentiated values are not supported here",
                                 hint="unpack the tuple into separate variables")
        else:
            tangent = self.rule(s, value, var)
        return [assign(self.tan(var), tangent)]

    def rule(self, s, value, var):
        prim, bound, templates = rule_for(self.ctx, s, value, "jvp")
        if templates is rules.LINEAR:
            return self.linear(value, prim, bound)
        terms = []
        for param, operand, template in active_templates(templates, bound, self.active):
            subs = template_names(prim, bound, name(self.tan(operand.id)), name(var))
            subs["t"] = subs["g"]
            terms.append(substitute(parse_expr(template), subs))
        if not terms:
            if any(isinstance(bound.get(p), gast.Name) and bound[p].id in self.active for p in prim.diff):
                raise self.ctx.error(s, f"{prim.key} has no forward-mode rule",
                                     hint="see docs/subset.md for the supported functions")
            return self.zero(var)
        total = terms[0]
        for t in terms[1:]:
            total = gast.BinOp(left=total, op=gast.Add(), right=t)
        out_rank = self.kind(var).ndim
        if out_rank and all(self.rank(node) < out_rank for node in self.active_operands(bound)) and \
                not prim.jvp:
            # tangents of lower rank than an (elementwise) result: spread over its shape
            total = gast.BinOp(left=total, op=gast.Add(), right=parse_expr(f"np.zeros_like({var})"))
        return total

    def active_operands(self, bound):
        for node in bound.values():
            elts = node.elts if isinstance(node, (gast.Tuple, gast.List)) else [node]
            for e in elts:
                if isinstance(e, gast.Name) and e.id in self.active:
                    yield e

    def rank(self, node):
        kind = self.ctx.expr_kind(node)
        return kind.ndim if isinstance(kind, Kind) else 0

    def linear(self, value, prim, bound):
        """A linear primitive: the same call with each differentiable operand replaced by its tangent."""
        call = copy.deepcopy(value)
        diff = set(prim.diff)

        def swap(node, param):
            if param not in diff:
                return node
            if isinstance(node, (gast.Tuple, gast.List)) and prim.varargs and param == prim.params[0]:
                node.elts = [self.operand_tangent(e) for e in node.elts]
                return node
            return self.operand_tangent(node)

        if isinstance(call, gast.Subscript):
            call.value = self.operand_tangent(call.value)
            return call
        for i, a in enumerate(call.args):
            call.args[i] = swap(a, prim.params[i] if i < len(prim.params) else None)
        for kw in call.keywords:
            kw.value = swap(kw.value, kw.arg)
        return call


def run(tree, ctx, has_aux=False):
    """Turn the normalized ``tree`` into ``f_jvp(*args, *tangents) -> (out, tangent_out)``."""
    ret = tree.body[-1]
    fwd = Forward(ctx, tree)
    args = [a.id for a in tree.args.args]
    in_place = {s.targets[0].value.id for s in assignments(tree.body) if isinstance(s.targets[0], gast.Subscript)}
    check_aliasing(ctx, tree, in_place)
    tangent_params = [fwd.tan(w) for w in ctx.wrt]
    copies = [assign(a, parse_expr(f"np.copy({a})")) for a in args if a in in_place]
    copies += [assign(fwd.tan(a), parse_expr(f"np.copy({fwd.tan(a)})")) for a in ctx.wrt if a in in_place]
    body = fwd.block(tree.body[:-1])

    outputs = ret.value.elts if isinstance(ret.value, gast.Tuple) else [ret.value]
    differentiated = outputs[:1] if has_aux else outputs
    tangents = [fwd.operand_tangent(o) if not (isinstance(o, gast.Name) and o.id in ctx.active)
                else name(fwd.tan(o.id)) for o in differentiated]
    tangent_out = tangents[0] if (has_aux or not isinstance(ret.value, gast.Tuple)) else \
        gast.Tuple(elts=tangents, ctx=gast.Load())
    primal_out = ret.value
    header = [comment(f"transpyle: jvp of {ctx.source.name}"),
              comment("tangents: " + ", ".join(f"{fwd.tan(w)} of {w}" for w in ctx.wrt)),
              comment("active: " + (", ".join(sorted(ctx.active)) or "(none)"))]
    tree.body = header + copies + body + [gast.Return(value=gast.Tuple(elts=[primal_out, tangent_out],
                                                                         ctx=gast.Load()))]
    for t in tangent_params:
        tree.args.args.append(gast.Name(id=t, ctx=gast.Param(), annotation=None, type_comment=None))
    tree.name = f"{ctx.source.name}_jvp"
    return tree
