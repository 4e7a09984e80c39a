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
from ..base.ast_utils import assign, comment, const, name, parse_expr, substitute
from ..base.kinds import Kind
from ..rules.primitives import is_atom
from ..frontend.infer import active_templates, rule_for, template_names
from ..analysis.aliases import Aliases
from .reverse import source_comment


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
            written = {var} | {n.id for n in gast.walk(value) if isinstance(n, gast.Name) and n.id in self.active}
            if isinstance(tangent, (gast.Name, gast.Subscript)) and written & self.written_buffers and \
                    id(s) not in self.views and getattr(self.kind(var), "ndim", 0):
                # a new array whose tangent is another's (y = x + 1.0 gives dx): the writes into either
                # buffer must not reach the other's tangent (u = z + 0.0, then z written in place)
                tangent = gast.Call(func=parse_expr("np.copy"), args=[tangent], keywords=[])
        return [assign(self.tan(var), tangent)]

    def rule(self, s, value, var):
        prim, bound, templates = rule_for(self.ctx, s, value, "jvp")
        if templates is rules.LINEAR:
            return self.linear(value, prim, bound)
        terms, shaped_by = [], set()
        for param, operand, template in active_templates(templates, bound, self.active):
            subs = template_names(prim, bound, name(self.tan(operand.id)), name(var))
            subs["t"] = subs["g"]
            rule = parse_expr(template)
            shaped_by |= {param} | {n.id for n in gast.walk(rule) if isinstance(n, gast.Name)}
            terms.append(substitute(rule, subs))
        ruled = {key[0] if isinstance(key, tuple) else key for key in templates}
        missing = [p for p in prim.diff if p not in ruled and self.is_active(bound.get(p))]
        if missing:
            # never a silent zero: an active operand without a rule would drop its share of the tangent
            what = f" in '{missing[0]}'" if len(prim.diff) > 1 else ""
            hint = "see docs/subset.md for the supported functions"
            if prim.key.startswith("rt."):
                hint = ("the derivative code that another transform generated for this line calls it: "
                        "this derivative of the line is of a higher order than transpyle has rules for")
            raise self.ctx.error(s, f"{prim.key} has no forward-mode rule{what}", hint=hint)
        if not terms:
            return self.zero(var)
        total = terms[0]
        for t in terms[1:]:
            total = gast.BinOp(left=total, op=gast.Add(), right=t)
        if prim.broadcasts and not self.has_output_shape(var, bound, shaped_by):
            # the tangent is shaped by fewer operands than the result (the tangent of x alone in
            # `y = ones((3, 3)) + x[:, None]`): broadcast it to the result's shape
            total = gast.BinOp(left=total, op=gast.Add(), right=parse_expr(f"np.zeros_like({var})"))
        return total

    def has_output_shape(self, var, bound, shaped_by):
        """Whether a tangent of the broadcasting result ``var`` built from the operands ``shaped_by``
        (parameter names: the active operands' tangents, the operands a rule reads; ``y`` is the result
        itself) has the result's shape: the result broadcasts all operands together, so the tangent has
        its shape when it broadcasts every operand that can contribute a dimension (any array operand;
        kinds give ranks, not sizes, so an operand of lower rank still can: (2, 1) with (3,))."""
        if not self.kind(var).ndim or "y" in shaped_by:
            return True
        return all(p in shaped_by or self.rank(node) == 0 for p, node in bound.items())

    def is_active(self, node):
        """Whether the operand ``node`` (an atom, or a tuple of them) carries a tangent."""
        elts = node.elts if isinstance(node, (gast.Tuple, gast.List)) else [node]
        return any(isinstance(e, gast.Name) and e.id in self.active for e in elts)

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
    # arrays written in place (through any alias) are copied first: the caller's arrays are never changed.
    # Tangents alias as values do: the tangent of a view is the same view of its base's tangent.
    shared = Aliases(tree, ctx)
    in_place = shared.written_in(tree.body)
    fwd.written_buffers, fwd.views = shared.written_buffers(), set(shared.view_of)
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
