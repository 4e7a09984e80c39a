"""rename: a name assigned again in straight-line code becomes a new name from there on.

``z = y; z[0] = ...; z = z * 2.0`` gives the second ``z`` its own name (``z_2``): each name then
refers to one array for the whole of its life, so aliasing (``analysis/aliases``) is decided by the
program's text and not by the run, and a name may change rank (``a = a.reshape(2, 3)``). A name is
renamed only where every mention of it lies in the block of the redefinition, and in a loop body only
where its first mention there assigns it without reading it: a value carried into the next
iteration, or out of a loop or branch, keeps its name. A loop variable that reuses an earlier name
is a new name inside its loop where nothing after the loop reads it. Augmented assignments (``a += b``)
are not redefinitions: on an array they write into its buffer.
"""
import gast

from ..base.ast_utils import loaded_names, substitute
from ..rules.primitives import tape_names
from ..analysis.aliases import IN_PLACE_ATTR


def _count(stmts, v):
    return sum(1 for s in stmts for n in gast.walk(s) if isinstance(n, gast.Name) and n.id == v)


def _carried(stmts, v):
    """Whether the loop body ``stmts`` reads ``v`` before assigning it (a value from the last iteration)."""
    for s in stmts:
        mentions = _count([s], v)
        if not mentions:
            continue
        assigns = isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and s.targets[0].id == v
        return not assigns or v in loaded_names(s.value)
    return False


def _rename_loop_variable(s, k, stmts, defined, counts, ctx):
    """``k = 3; ...; for k in range(n): ...``: the loop's variable is a new name inside the loop where
    nothing after the loop reads it (after a loop of no iterations it would still be the old value)."""
    v = s.target.id
    if v in defined and _count(stmts, v) == counts[v] and not _count(stmts[k + 1:], v):
        new = ctx.namer.fresh(f"{v}_2")
        substitute(s, {v: new})
        ctx.options.setdefault("renamed", {})[new] = ctx.options.get("renamed", {}).get(v, v)
        counts[new] = _count([s], new)
        counts[v] -= counts[new]
        v = new
    defined.add(v)


def _rename_block(stmts, defined, is_loop, counts, ctx, keep):
    for k, s in enumerate(stmts):
        if isinstance(s, gast.For) and isinstance(s.target, gast.Name) and s.target.id not in keep:
            _rename_loop_variable(s, k, stmts, defined, counts, ctx)
            continue
        if not (isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)) or getattr(s, IN_PLACE_ATTR, False) \
                or s.targets[0].id in keep:
            continue
        v = s.targets[0].id
        if v in defined and _count(stmts, v) == counts[v] and not (is_loop and _carried(stmts, v)):
            new = ctx.namer.fresh(f"{v}_2")
            s.targets[0].id = new               # the value is still the old name's (normal form: it never reads it)
            for t in stmts[k + 1:]:
                substitute(t, {v: new})
            ctx.options.setdefault("renamed", {})[new] = ctx.options.get("renamed", {}).get(v, v)
            counts[new] = _count(stmts[k:], new)
            counts[v] -= counts[new]
            v = new
        defined.add(v)


def _blocks(stmts):
    """Every statement list nested in ``stmts``, with whether it is a loop body."""
    for s in stmts:
        if isinstance(s, (gast.For, gast.While)):
            yield s.body, True
            yield from _blocks(s.body)
        elif isinstance(s, gast.If):
            for part in (s.body, s.orelse):
                if part:
                    yield part, False
                    yield from _blocks(part)


def run(tree, ctx):
    """Rename the redefinitions of ``tree`` (see the module docstring). Generated code is left as it is:
    its names are already what its transform needs."""
    if ctx.options.get("generated"):
        return tree
    keep = tape_names(tree)     # array lifting decides per name whether a tape has a row per lane
    counts = {}
    for n in gast.walk(gast.Module(body=tree.body, type_ignores=[])):
        if isinstance(n, gast.Name):
            counts[n.id] = counts.get(n.id, 0) + 1
    _rename_block(tree.body, {a.id for a in tree.args.args}, False, counts, ctx, keep)
    for block, is_loop in list(_blocks(tree.body)):
        _rename_block(block, set(), is_loop, counts, ctx, keep)
    return tree
