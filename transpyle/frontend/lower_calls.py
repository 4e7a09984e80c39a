"""lower_calls: library calls whose full NumPy form Numba lacks become code it has. Reductions with
``axis`` or ``keepdims`` become calls to run-time helpers with the same NumPy semantics, as each
rule's ``lower`` says; a matrix function applied to a stack of matrices (leading dimensions, see
``matrix`` in ``rules/matrices.py``) becomes a loop over the stack applying it to each matrix, which
every transform then handles like any loop. Runs after ``infer``, since the choice depends on ranks."""
import copy

import gast

from ..base.ast_utils import assign, const, name
from ..base.kinds import INT
from ..rules.primitives import lookup
from ..rules.common import StaticError
from .infer import operand_kinds


def _statement(s, ctx):
    """``s`` with its call lowered: a list of statements."""
    value = s.value
    # operators too: `a @ b` is lowered as np.matmul(a, b) is
    if not isinstance(value, (gast.Call, gast.BinOp)) or not isinstance(s.targets[0], gast.Name):
        return [s]
    prim, bound = lookup(value)
    if prim is None:
        return [s]
    kinds = operand_kinds(ctx, prim, bound)
    if prim.stack_depth(kinds):
        return _unstack(s, prim, bound, kinds, ctx)
    if prim.lower is None:
        return [s]
    try:
        new = prim.lower(bound, kinds, bound)
    except StaticError as exc:
        raise ctx.error(s, f"{prim.key}: {exc}", hint=exc.hint)
    if new is not None:
        s.value = new
    return [s]


def _unstack(s, prim, bound, kinds, ctx):
    """``y = f(a)`` for a stack ``a``: the first matrix's result sets the shape of ``y``, then a loop
    writes ``y[b] = f(a[b])``; a deeper stack is lowered again inside the loop."""
    stack = bound[prim.stacks]
    mapped = [bound[p] for p in prim.mapped_operands(kinds)]
    target = s.targets[0].id
    out_kind = ctx.kinds[target]
    namer = ctx.namer
    count, b = namer.fresh("_count"), namer.fresh("_b")
    first_out, item_out = namer.fresh("_result"), namer.fresh("_result")
    ctx.kinds.update({count: INT, b: INT, first_out: out_kind.with_ndim(out_kind.ndim - 1),
                      item_out: out_kind.with_ndim(out_kind.ndim - 1)})

    def located(stmt):
        return gast.copy_location(stmt, s)

    def items(index):
        """Statements taking item ``index`` of each mapped operand, and the call applied to them."""
        taken, replace = [], {}
        for operand in mapped:
            part = namer.fresh("_matrix")
            ctx.kinds[part] = ctx.expr_kind(operand).with_ndim(ctx.expr_kind(operand).ndim - 1)
            taken.append(located(assign(part, gast.Subscript(value=copy.deepcopy(operand), slice=copy.deepcopy(index),
                                                             ctx=gast.Load()))))
            replace[id(operand)] = part
        call = copy.deepcopy(s.value)
        for i, arg in enumerate(s.value.args):
            if id(arg) in replace:
                call.args[i] = name(replace[id(arg)])
        for kw, original in zip(call.keywords, s.value.keywords):
            if id(original.value) in replace:
                kw.value = name(replace[id(original.value)])
        return taken, call

    shape = gast.Subscript(value=gast.Attribute(value=copy.deepcopy(stack), attr="shape", ctx=gast.Load()),
                           slice=const(0), ctx=gast.Load())
    write = gast.Assign(targets=[gast.Subscript(value=name(target), slice=name(b), ctx=gast.Store())],
                        value=name(item_out), type_comment=None)
    taken, call = items(name(b))
    body = taken + _statement(located(assign(item_out, call)), ctx) + [located(write)]
    loop = gast.For(target=name(b, store=True), body=body, orelse=[], type_comment=None,
                    iter=gast.Call(func=name("range"), args=[const(0), name(count), const(1)], keywords=[]))
    taken, call = items(const(0))
    return [located(assign(count, shape))] + taken + _statement(located(assign(first_out, call)), ctx) + \
        [located(assign(target, gast.Call(func=gast.Attribute(value=name("rt"), attr="stack_like", ctx=gast.Load()),
                                          args=[name(count), name(first_out)], keywords=[]))), located(loop)]


def _block(stmts, ctx):
    out = []
    for s in stmts:
        if isinstance(s, (gast.For, gast.While, gast.If)):
            s.body = _block(s.body, ctx)
            s.orelse = _block(s.orelse, ctx)
        out.extend(_statement(s, ctx) if isinstance(s, gast.Assign) else [s])
    return out


def run(tree, ctx):
    tree.body = _block(tree.body, ctx)
    return tree
