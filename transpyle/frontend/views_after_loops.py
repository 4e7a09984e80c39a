"""views_after_loops: a view taken afresh in each iteration of a loop and read after it (``for i in
range(n): r = B[i]; r *= s[i]`` then ``return np.sum(r)``) is read there as the view the last iteration
took, taken again after the loop under a new name. The aliasing model then sees two views, each used in
the block that makes it (``analysis/aliases``), and follows both exactly.

That is the same array only where the last iteration surely took it and nothing changed what it was
taken from since: the view is a statement of the loop's own body (not under a branch, and so not after a
``break`` or ``continue``, which ``jumps`` turned into guarded blocks), nothing after it in the body
rebinds its array or the names of its index, the name is bound nowhere else in the function (so a loop
that runs no iteration leaves it unbound, as Python does), and it is a basic part of an array (an
element read would be a copy, not a view). Anything else keeps the refusal the aliasing model gives.
"""
import copy

import gast

from ..base.ast_utils import loaded_names, name, stored_names
from ..base.kinds import Kind


def retake(fn, ctx):
    """Rewrite ``fn``'s views read after the loop that takes them (see the module docstring)."""
    bindings = {}
    for n in gast.walk(fn):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
            bindings[n.id] = bindings.get(n.id, 0) + 1
    params = {a.id for a in fn.args.args}
    _block(fn.body, ctx, bindings, params)


def _block(stmts, ctx, bindings, params):
    k = 0
    while k < len(stmts):
        s = stmts[k]
        for field in ("body", "orelse"):
            inner = getattr(s, field, None)
            if isinstance(inner, list) and not isinstance(s, gast.FunctionDef):
                _block(inner, ctx, bindings, params)
        if isinstance(s, gast.For) and not s.orelse:
            for view in _views(s, ctx, bindings, params):
                later = stmts[k + 1:]
                v = view.targets[0].id
                if not any(v in loaded_names(t) for t in later):
                    continue
                fresh = ctx.namer.fresh(v)
                ctx.kinds[fresh] = ctx.kinds[v]
                for t in later:
                    _rename_loads(t, v, fresh)
                again = gast.copy_location(gast.Assign(targets=[name(fresh, store=True)],
                                                       value=copy.deepcopy(view.value), type_comment=None), view)
                stmts.insert(k + 1, again)
        k += 1


def _views(loop, ctx, bindings, params):
    """The statements ``v = B[index]`` of the loop's own body that take a view the last iteration
    leaves in place (see the module docstring)."""
    body = loop.body
    for j, s in enumerate(body):
        if not (isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name) and
                isinstance(s.value, gast.Subscript) and isinstance(s.value.value, gast.Name)):
            continue
        v, base = s.targets[0].id, s.value.value.id
        kind, base_kind = ctx.kinds.get(v), ctx.kinds.get(base)
        if not (isinstance(kind, Kind) and kind.ndim and isinstance(base_kind, Kind) and base_kind.ndim):
            continue
        if bindings.get(v) != 1 or v in params or not _basic(s.value.slice, ctx):
            continue
        if stored_names(body[j + 1:]) & ({base} | loaded_names(s.value.slice)):
            continue
        yield s


def _basic(index, ctx):
    """Integers (numbers, integer names, index arithmetic), slices of them and new axes: no index arrays."""
    parts = index.elts if isinstance(index, gast.Tuple) else [index]
    for p in parts:
        for n in gast.walk(p):
            if isinstance(n, gast.Name):
                kind = ctx.kinds.get(n.id)
                if not (isinstance(kind, Kind) and kind.ndim == 0 and kind.dtype.startswith("int")):
                    return False
            elif isinstance(n, (gast.Call, gast.Subscript, gast.List)):
                return False
    return True


def _rename_loads(node, old, new):
    for n in gast.walk(node):
        if isinstance(n, gast.Name) and n.id == old and isinstance(n.ctx, gast.Load):
            n.id = new
