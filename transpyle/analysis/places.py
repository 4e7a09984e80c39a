"""places: where statements and names sit in a structured function body, for analyses that need
order (which statement runs after which, whether a name is read again before it is reassigned).

A body here is a list of statements whose compound statements (``for``, ``while``, ``if``) hold
lists of their own; a *block* is one such list.
"""
import gast

from ..base.ast_utils import loaded_names


def mentioned(node):
    """Every name ``node`` mentions (loads and stores)."""
    return {n.id for n in gast.walk(node) if isinstance(n, gast.Name)}


def mentioned_in(stmts):
    out = set()
    for t in stmts:
        out |= mentioned(t)
    return out


def rebound_by(stmt):
    """Names a statement (with its nested blocks) rebinds, loop targets included."""
    out = set()
    for n in gast.walk(stmt):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
            out.add(n.id)
    return out


def block_of(stmts, s):
    """The statement list that holds ``s``."""
    for t in stmts:
        if t is s:
            return stmts
        for part in ("body", "orelse"):
            inner = getattr(t, part, None) if isinstance(t, (gast.For, gast.While, gast.If)) else None
            if inner:
                found = block_of(inner, s)
                if found is not None:
                    return found
    return None


def used_outside(stmts, block, v):
    """Whether ``v`` is mentioned in ``stmts`` outside ``block`` (and outside what ``block`` holds)."""
    if stmts is block:
        return False
    for t in stmts:
        parts = [getattr(t, p) for p in ("body", "orelse")
                 if isinstance(t, (gast.For, gast.While, gast.If)) and getattr(t, p, None)]
        holder = next((p for p in parts if block_of(p, block[0]) is block), None)
        if holder is None:
            if v in mentioned(t):
                return True
            continue
        if any(used_outside(p, block, v) if p is holder else v in mentioned_in(p) for p in parts):
            return True
        head = [t.test] if isinstance(t, (gast.While, gast.If)) else [t.target, t.iter]
        if any(v in mentioned(h) for h in head):
            return True
    return False


def holders(stmts, out=None, parent=None):
    """id(block) -> (the compound statement holding it, the block holding that statement)."""
    out = {} if out is None else out
    for t in stmts:
        if isinstance(t, (gast.For, gast.While, gast.If)):
            for part in (t.body, t.orelse):
                if part:
                    out[id(part)] = (t, stmts)
                    holders(part, out)
    return out


def first_touch(t, v):
    """'kill' when ``t`` rebinds ``v`` without reading it first, 'use' when it reads or writes into it
    (or might: compound statements that mention it), None when it leaves it alone."""
    if isinstance(t, gast.Assign):
        target = t.targets[0]
        if v in loaded_names(t.value) or v in loaded_names(target) or \
                isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name) and target.value.id == v:
            return "use"
        return "kill" if isinstance(target, gast.Name) and target.id == v else None
    if isinstance(t, gast.If) and v not in mentioned(t.test) and v in mentioned(t):
        # ``if c: _t6 = np.copy(b4); b4 = _t6`` kills on one path and leaves v alone on the other: the
        # paths that leave it are followed on after the ``if``
        arms = [_block_touch(t.body, v), _block_touch(t.orelse, v)]
        return "use" if "use" in arms else "kill" if arms == ["kill", "kill"] else None
    if isinstance(t, (gast.For, gast.While)) and not t.orelse and v in mentioned(t) and \
            v not in mentioned(t.iter if isinstance(t, gast.For) else t.test) and \
            not (isinstance(t, gast.For) and v in mentioned(t.target)):
        # a loop whose body sets v before reading it (``_t5 = a3 ** 2`` each iteration) may also run no
        # iteration: the path goes on after it
        return "use" if _block_touch(t.body, v) == "use" else None
    return "use" if v in mentioned(t) else None


def _block_touch(stmts, v):
    """``first_touch`` of a statement list: its first statement that touches ``v`` decides."""
    return next((touch for touch in (first_touch(t, v) for t in stmts) if touch is not None), None)


def dead_after(body, s, v):
    """Whether ``v`` is rebound before any further use on every path after the statement ``s``:
    then its buffer is reachable through ``s``'s target alone (a move, not an alias)."""
    holder_of = holders(body)
    block = block_of(body, s)
    start = next(i for i, t in enumerate(block) if t is s) + 1
    wrapped = set()

    def scan(block, start):
        for t in block[start:]:
            touch = first_touch(t, v)
            if touch is not None:
                return touch == "kill"
        holder = holder_of.get(id(block))
        if holder is None:
            return True
        compound, outer = holder
        after = next(i for i, t in enumerate(outer) if t is compound) + 1
        if isinstance(compound, (gast.For, gast.While)) and block is compound.body:
            if isinstance(compound, gast.While) and v in mentioned(compound.test):
                return False
            if id(compound) not in wrapped:           # the next iteration, then the way out of the loop
                wrapped.add(id(compound))
                if not scan(compound.body, 0):
                    return False
        return scan(outer, after)
    return scan(block, start)


def position(stmts, s):
    """(id of the block, index in it, the compound statement there or None) from the function body down
    to ``s``."""
    for i, t in enumerate(stmts):
        if t is s:
            return [(id(stmts), i, None)]
        if isinstance(t, (gast.For, gast.While, gast.If)):
            for part in (t.body, t.orelse):
                inner = position(part, s) if part else None
                if inner is not None:
                    return [(id(stmts), i, t)] + inner
    return None


def assignments(stmts):
    """Every assignment in ``stmts``, nested blocks included, in order."""
    for s in stmts:
        if isinstance(s, gast.Assign):
            yield s
        elif isinstance(s, (gast.For, gast.While)):
            yield from assignments(s.body)
        elif isinstance(s, gast.If):
            yield from assignments(s.body)
            yield from assignments(s.orelse)
