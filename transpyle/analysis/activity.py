"""activity: which variables carry derivatives.

A variable is *varied* when it depends, through differentiable operands, on an argument being
differentiated, and *useful* when the output depends on it the same way. Active variables are
both, and floating point; only statements that assign an active variable get adjoint code.
Integer counters and indices are never active.
"""
import gast

from ..base.kinds import Kind
from ..rules.primitives import lookup
from .aliases import Aliases
from .places import assignments


def dependencies(stmt):
    """(target, [names it depends on differentiably]) for an ANF assignment."""
    target = stmt.targets[0]
    value = stmt.value
    if isinstance(target, gast.Subscript):           # x[index] = v: x keeps the rest of itself
        deps = [target.value.id]
        if isinstance(value, gast.Name):
            deps.append(value.id)
        return target.value.id, deps
    if isinstance(target, gast.Tuple):
        return None, []
    if isinstance(value, gast.Name):
        return target.id, [value.id]
    if isinstance(value, gast.Tuple):
        return target.id, [e.id for e in value.elts if isinstance(e, gast.Name)]
    prim, bound = lookup(value)
    if prim is None:
        return target.id, []
    deps = []
    for p in prim.diff:
        node = bound.get(p)
        if isinstance(node, gast.Name):
            deps.append(node.id)
        elif isinstance(node, (gast.Tuple, gast.List)):
            deps.extend(e.id for e in node.elts if isinstance(e, gast.Name))
    return target.id, deps


def output_names(ret):
    value = ret.value
    elts = value.elts if isinstance(value, gast.Tuple) else [value]
    return [e.id if isinstance(e, gast.Name) else None for e in elts]


def run(tree, ctx, outputs):
    edges = [dependencies(s) for s in assignments(tree.body)]
    # names sharing a buffer that is written in place see each other's writes (analysis/aliases)
    shared = Aliases(tree, ctx)
    for v in sorted(shared.written):
        members = sorted(shared.members(v))
        edges.extend((m, members) for m in members)
    varied = set(ctx.wrt)
    changed = True
    while changed:
        changed = False
        for target, deps in edges:
            if target and target not in varied and any(d in varied for d in deps):
                varied.add(target)
                changed = True
    useful = {o for o in outputs if o}
    changed = True
    while changed:
        changed = False
        for target, deps in edges:
            if target in useful:
                for d in deps:
                    if d not in useful:
                        useful.add(d)
                        changed = True
    ctx.active = {v for v in varied & useful
                  if isinstance(ctx.kinds.get(v), Kind) and ctx.kinds[v].is_float}
    return tree
