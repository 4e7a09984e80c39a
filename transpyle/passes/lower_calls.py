"""lower_calls: library calls whose full NumPy form Numba lacks become code it has. Reductions with
``axis`` or ``keepdims`` become calls to run-time helpers with the same NumPy semantics, as each
rule's ``lower`` says; a matrix function applied to a stack of matrices (leading dimensions, see
``matrix`` in ``rules/matrices.py``) becomes a loop over the stack applying it to each matrix, which
every transform then handles like any loop. Runs after ``infer``, since the choice depends on ranks."""
import copy

import gast

from ..ast_utils import assign, const, name
from ..kinds import INT
from ..primitives import lookup
from ..rules.common import StaticError
from .infer import operand_kinds


def _statement(s, ctx):
    """``s`` with its call lowered: a list of statements."""
    value = s.value
    if not isinstance(value, gast.Call) or not isinstance(s.targets[0], gast.Name):
        return [s]
    prim, bound = lookup(value)
    if prim is None:
        return [s]
    kinds = operand_kinds(ctx, prim, bound)
    if prim.stack_depth(kinds):
        return _unstack(s, prim, bound, ctx)
    if prim.lower is None:
        return [s]
    try:
        new = prim.lower(bound, kinds, bound)
    except StaticError as exc:
        raise ctx.error(s, f"{prim.key}: {exc}")
    if new is not None:
        s.value = new
    return [s]


def _unstack(s, prim, bound, ctx):
    """``y = f(a)`` for a stack ``a``: the first matrix's result sets the shape of ``y``, then a loop
    writes ``y[b] = f(a[b])``; a deeper stack is lowered again inside the loop."""
    stack = bound[prim.stacks]
    target = s.targets[0].id
    stack_kind, out_kind = ctx.expr_kind(stack), ctx.kinds[target]
    namer = ctx.namer
    count, b = namer.fresh("_count"), namer.fresh("_b")
    first_in, first_out = namer.fresh("_matrix"), namer.fresh("_result")
    item_in, item_out = namer.fresh("_matrix"), namer.fresh("_result")
    ctx.kinds.update({count: INT, b: INT, first_in: stack_kind.with_ndim(stack_kind.ndim - 1),
                      item_in: stack_kind.with_ndim(stack_kind.ndim - 1),
                      first_out: out_kind.with_ndim(out_kind.ndim - 1), item_out: out_kind.with_ndim(out_kind.ndim - 1)})

    def applied(matrix):            # the call, with the matrix in place of the stack
        call = copy.deepcopy(s.value)
        for i, arg in enumerate(s.value.args):
            if arg is stack:
                call.args[i] = name(matrix)
        for kw, original in zip(call.keywords, s.value.keywords):
            if original.value is stack:
                kw.value = name(matrix)
        return call

    def located(stmt):
        return gast.copy_location(stmt, s)

    def item(index):
        return gast.Subscript(value=copy.deepcopy(stack), slice=index, ctx=gast.Load())

    shape = gast.Subscript(value=gast.Attribute(value=copy.deepcopy(stack), attr="shape", ctx=gast.Load()),
                           slice=const(0), ctx=gast.Load())
    write = gast.Assign(targets=[gast.Subscript(value=name(target), slice=name(b), ctx=gast.Store())],
                        value=name(item_out), type_comment=None)
    body = [located(assign(item_in, item(name(b))))] + \
        _statement(located(assign(item_out, applied(item_in))), ctx) + [located(write)]
    loop = gast.For(target=name(b, store=True), iter=gast.Call(func=name("range"), args=[const(0), name(count), const(1)], keywords=[]),
                    body=body, orelse=[], type_comment=None)
    return [located(assign(count, shape)), located(assign(first_in, item(const(0))))] + \
        _statement(located(assign(first_out, applied(first_in))), ctx) + \
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
