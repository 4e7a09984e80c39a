"""in_place: ``a op= b`` on an array becomes a write into its buffer, ``a[:] = a op b``; on a number
it stays a rebinding. Normalize marks the augmented assignments (kinds are not known then); this
pass lowers the marked ones of arrays once ``infer`` has run, and checks the names sharing a buffer
(``analysis/aliases``) for what no transform could follow exactly."""
import gast

from ..analysis.aliases import IN_PLACE_ATTR, Aliases
from ..base.ast_utils import name
from ..base.naming import TEMPORARY
from ..base.kinds import Kind
from . import views_after_loops
from .list_appends import LIST_ITEM


def run(tree, ctx):
    """Marked augmented assignments of arrays become writes into the whole array (``a[:] = _t``);
    names made the same array as one so written are pointed out (``warn_ported_aliases``)."""
    for s in gast.walk(tree):
        if isinstance(s, gast.Assign) and getattr(s, IN_PLACE_ATTR, False):
            t = s.targets[0]
            kind = ctx.kinds.get(t.id) if isinstance(t, gast.Name) else None
            if isinstance(kind, Kind) and kind.is_array:
                whole = gast.Slice(lower=None, upper=None, step=None)
                s.targets[0] = gast.copy_location(gast.Subscript(value=name(t.id), slice=whole, ctx=gast.Store()), t)
            setattr(s, IN_PLACE_ATTR, False)
    if not ctx.options.get("generated"):
        views_after_loops.retake(tree, ctx)
    shared = Aliases(tree, ctx)
    # (generated code binds its views by construction: only the user's conditionals need copies)
    branches = not ctx.options.get("generated") and _copy_branch_temporaries(tree, shared)
    if _copy_overlapping_sources(tree, ctx, shared) | branches:
        shared = Aliases(tree, ctx)           # the copies are buffers of their own
    _check_list_items(tree, ctx, shared)
    if not ctx.options.get("generated"):
        # every transform accepts and refuses the same programs: what reverse mode cannot follow
        # exactly is refused here, for jit and jvp too (generated code binds its views by construction)
        shared.views()
        shared.warn_ported_aliases()
    return tree


def _copy_overlapping_sources(tree, ctx, shared):
    """``x[index] = v`` where ``v`` may share ``x``'s buffer (``A.T[...] = A``, ``a[1:] = a[:-1]``): ``v`` is
    copied first, as NumPy copies an overlapping source before it writes; the write then reads a buffer of
    its own, which every transform follows (reverse mode would otherwise clear the part's cotangent in the
    buffer its source's cotangent is in). Returns whether any was copied."""
    copied = False

    def block(stmts):
        nonlocal copied
        out = []
        for s in stmts:
            for field in ("body", "orelse"):
                inner = getattr(s, field, None)
                if isinstance(inner, list) and not isinstance(s, gast.FunctionDef):
                    setattr(s, field, block(inner))
            t = s.targets[0] if isinstance(s, gast.Assign) else None
            if isinstance(t, gast.Subscript) and isinstance(t.value, gast.Name) and isinstance(s.value, gast.Name) \
                    and isinstance(ctx.kinds.get(s.value.id), Kind) and ctx.kinds[s.value.id].is_array \
                    and s.value.id in shared.members(t.value.id):
                fresh = ctx.namer.fresh(f"_{s.value.id}_before")
                ctx.kinds[fresh] = ctx.kinds[s.value.id]
                out.append(gast.copy_location(gast.Assign(targets=[name(fresh, store=True)], value=gast.Call(
                    func=gast.Attribute(value=name("np"), attr="copy", ctx=gast.Load()), args=[name(s.value.id)],
                    keywords=[]), type_comment=None), s))
                s.value = gast.copy_location(name(fresh), s.value)
                copied = True
            out.append(s)
        return out
    tree.body = block(tree.body)
    return copied


def _copy_branch_temporaries(tree, shared):
    """A temporary of a conditional expression of arrays (``(a[1:] if s > 0.1 else x[:-1])``, lowered to
    an ``if`` setting ``_t12`` in each arm) shares one buffer or another depending on the run; where one of
    them is written in place while it is in use, no transform could follow which. The value is what the
    program reads, never written through (the user has no name for it): each arm copies it instead.
    Returns whether any was copied."""
    copied = False
    for v, stmts in shared.defs.items():
        viewing = [s for s in stmts if id(s) in shared.view_of]
        if len(stmts) < 2 or not TEMPORARY.fullmatch(v) or not any(shared.written_after(s) for s in viewing) or \
                _written_through(tree, v):
            continue
        for s in viewing:
            s.value = gast.copy_location(gast.Call(func=gast.Attribute(value=name("np"), attr="copy", ctx=gast.Load()),
                                                   args=[s.value], keywords=[]), s.value)
            copied = True
    return copied


def _written_through(tree, v):
    """Whether ``v`` is written into, or made a view of (``w = v[1:]``, ``w = v``)."""
    for n in gast.walk(tree):
        if isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store) and isinstance(n.value, gast.Name) and \
                n.value.id == v:
            return True
        if isinstance(n, gast.Assign) and (isinstance(n.value, gast.Name) and n.value.id == v or
                                           isinstance(n.value, gast.Subscript) and isinstance(n.value.value, gast.Name)
                                           and n.value.value.id == v):
            return True
    return False


def _check_list_items(tree, ctx, shared):
    """An array appended to a list (``list_appends``) must not be written in place: the list would hold
    that array itself, which shows the last values in every row."""
    for s in gast.walk(tree):
        if not (isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and
                LIST_ITEM.match(s.targets[0].id)):
            continue
        item = s.targets[0].id
        base = s.value.value if isinstance(s.value, gast.Subscript) else s.value     # a view: B[i]
        kind = ctx.kinds.get(item)
        if isinstance(base, gast.Name) and isinstance(kind, Kind) and kind.is_array and \
                shared.members(base.id) & shared.written:
            raise ctx.error(s, f"'{base.id}' is appended to a list (or a view of it is) and written in place: the "
                               f"list holds that same array, so its rows would show the last values",
                            construct=".append", hint=f"append a copy (.copy()), or update '{base.id}' with "
                                                      f"'{base.id} = {base.id} + ...'")
