"""list_appends: a list built with ``.append`` in a loop (``traj = []``, ``traj.append(x)`` each step,
then ``np.array(traj)``) becomes an array filled in place, when the function is read: the array is made
at the first append, as long as the loop's trip count times the appends in its body
(``rt.stack_like``: items shaped like the first), filled at a counter, and cut to the counter after the
loop. Every transform then sees array writes, which it differentiates as any others.

It applies where the list is a name bound once before the loop (it may be rebound after it: ``traj =
np.array(traj)``), to ``[]`` or to a list of first items (``[x0.copy()]``: each an append before the loop),
and appended to only in one ``for`` loop over
``range(...)`` or over an array that follows in the same block (directly in its body or under ``if``s
there, not in a loop nested in it). Inside that loop the list may be read only as ``len(L)`` and
``L[-k]`` (the last items, a constant ``k``); after it, as any array. Anything else is left as written,
and refused at its line as lists are. A loop that runs no iteration leaves the name unbound (NumPy would
give an empty array). A list holds the objects appended: where one is an array written in place later,
Python's list would show its last values in every row, so ``in_place`` refuses it (``LIST_ITEM``).
"""
import ast
import copy
import re

import gast

from ..base.ast_utils import dotted, name, parse_expr, stored_names

#: the name ``_L_item`` of the value an append became: ``in_place`` checks that the value, if an array, is
#: not one written in place (a Python list would hold that same array, not its values then)
LIST_ITEM = re.compile(r"^_\w+_item\d*$")


def rewrite(fn):
    """Rewrite the lists of ``fn`` (a gast FunctionDef) built by appends in a loop, in place."""
    taken = {n.id for n in gast.walk(fn) if isinstance(n, gast.Name)} | {a.id for a in fn.args.args}
    _block(fn.body, fn, taken)


def _block(stmts, fn, taken):
    for k, s in enumerate(list(stmts)):
        for field in ("body", "orelse"):
            inner = getattr(s, field, None)
            if isinstance(inner, list) and not isinstance(s, gast.FunctionDef):
                _block(inner, fn, taken)
    k = 0
    while k < len(stmts):
        s = stmts[k]
        v = _list_made(s)
        loop = next((t for t in stmts[k + 1:] if v is not None and _appends(t, v)), None) if v else None
        if loop is not None and _fits(fn, stmts, k, loop, v):
            _apply(stmts, k, loop, v, taken)
        k += 1


def _list_made(s):
    """The name ``s`` binds to a list display (``L = []``, ``L = [x0]``), or None."""
    if isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name) and \
            isinstance(s.value, gast.List) and not any(isinstance(e, gast.Starred) for e in s.value.elts):
        return s.targets[0].id
    return None


def _is_append(s, v):
    return isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) and \
        isinstance(s.value.func, gast.Attribute) and s.value.func.attr == "append" and \
        isinstance(s.value.func.value, gast.Name) and s.value.func.value.id == v and \
        len(s.value.args) == 1 and not s.value.keywords


def _appends(node, v):
    return [n for n in gast.walk(node) if _is_append(n, v)]


def _direct_appends(stmts, v):
    """The appends of ``stmts`` and of the ``if`` blocks in them (not of nested loops); None where a
    nested loop or def appends too."""
    out = []
    for s in stmts:
        if _is_append(s, v):
            out.append(s)
        elif isinstance(s, gast.If):
            inner = _direct_appends(s.body, v), _direct_appends(s.orelse, v)
            if None in inner:
                return None
            out += inner[0] + inner[1]
        elif _appends(s, v):
            return None
    return out


def _fits(fn, stmts, k, loop, v):
    if not isinstance(loop, gast.For) or loop.orelse or not _trip_count(loop):
        return False
    position = stmts.index(loop)
    # bound once before the loop; after it the name is an array, which may be rebound (traj = np.array(traj))
    after = {id(n) for t in stmts[position + 1:] for n in gast.walk(t)}
    if sum(isinstance(n, gast.Name) and n.id == v and isinstance(n.ctx, gast.Store) and id(n) not in after
           for n in gast.walk(fn)) != 1:
        return False
    if v in {a.id for a in fn.args.args} or len(_appends(fn, v)) != len(_direct_appends(loop.body, v) or ()):
        return False
    if any(_mentions(t, v) for t in stmts[k + 1:position]) or v in stored_names(loop.body):
        return False
    # first items are stored where the list is made, in an array sized then: the trip count must mean there
    # what it means at the loop
    between = set().union(*(stored_names(t) for t in stmts[k + 1:position])) if position > k + 1 else set()
    if stmts[k].value.elts and any(isinstance(n, gast.Name) and n.id in between for n in gast.walk(loop.iter)):
        return False
    appended = {id(a.value.func.value) for a in _appends(loop, v)}
    for n in gast.walk(loop):
        if isinstance(n, gast.Name) and n.id == v and id(n) not in appended and not _counted_read(loop, n):
            return False
    return True


def _mentions(node, v):
    return any(isinstance(n, gast.Name) and n.id == v for n in gast.walk(node))


def _counted_read(loop, node):
    """Whether the read ``node`` of the list inside the loop is ``len(L)`` or ``L[-k]``."""
    for n in gast.walk(loop):
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and n.func.id == "len" and n.args == [node]:
            return True
        if isinstance(n, gast.Subscript) and n.value is node and _negative(n.slice) is not None:
            return True
    return False


def _negative(index):
    if isinstance(index, gast.UnaryOp) and isinstance(index.op, gast.USub) and \
            isinstance(index.operand, gast.Constant) and type(index.operand.value) is int and index.operand.value > 0:
        return index.operand.value
    return None


def _trip_count(loop):
    """The number of iterations, as an expression, of ``for _ in range(...)`` or ``for _ in x``."""
    it = loop.iter
    if isinstance(it, gast.Call) and isinstance(it.func, gast.Name) and it.func.id == "range" and \
            1 <= len(it.args) <= 3 and not it.keywords:
        args = [copy.deepcopy(a) for a in it.args]
        if len(args) == 1:
            args = [gast.Constant(value=0, kind=None)] + args
        if len(args) == 2:
            args.append(gast.Constant(value=1, kind=None))
        return gast.Call(func=parse_expr("rt.trip_count"), args=args, keywords=[])
    if isinstance(it, gast.Name):
        return gast.Call(func=name("len"), args=[name(it.id)], keywords=[])
    return None


def _fresh(base, taken):
    out, n = base, 1
    while out in taken:
        n += 1
        out = f"{base}{n}"
    taken.add(out)
    return out


def _apply(stmts, k, loop, v, taken):
    count, most, item = _fresh(f"_{v}_count", taken), _fresh(f"_{v}_size", taken), _fresh(f"_{v}_item", taken)
    appends = _direct_appends(loop.body, v)

    start = stmts[k]
    first = start.value.elts
    size = _trip_count(loop) if len(appends) == 1 else \
        gast.BinOp(left=gast.Constant(value=len(appends), kind=None), op=gast.Mult(), right=_trip_count(loop))
    if first:
        size = gast.BinOp(left=gast.Constant(value=len(first), kind=None), op=gast.Add(), right=size)
    made = [_located(gast.Assign(targets=[name(count, store=True)], value=gast.Constant(value=0, kind=None),
                                type_comment=None), start)]
    sized = _located(gast.Assign(targets=[name(most, store=True)], value=size, type_comment=None),
                    start if first else loop)
    for e in first:
        made += _stored(v, e, count, most, item, start)
    stmts[k:k + 1] = made
    stmts.insert(stmts.index(made[0]) + 1 if first else stmts.index(loop), sized)
    for parent in list(gast.walk(loop)):       # len(L) inside the loop: the counter
        for field, value in gast.iter_fields(parent):
            children = value if isinstance(value, list) else [value]
            for j, n in enumerate(children):
                if isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and n.func.id == "len" and \
                        len(n.args) == 1 and isinstance(n.args[0], gast.Name) and n.args[0].id == v:
                    if isinstance(value, list):
                        value[j] = _located(name(count), n)
                    else:
                        setattr(parent, field, _located(name(count), n))
    for n in list(gast.walk(loop)):            # L[-k] inside the loop: counted from the counter
        if isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name) and n.value.id == v and \
                _negative(n.slice) is not None:
            n.slice = gast.BinOp(left=name(count), op=gast.Sub(), right=gast.Constant(value=_negative(n.slice),
                                                                                     kind=None))
    for a in appends:
        _replace(loop, a, _stored(v, a.value.args[0], count, most, item, a))
    after = stmts.index(loop) + 1
    for later in stmts[after:]:
        _stacks_as_moves(later, v)
    stmts.insert(after, _located(gast.Assign(targets=[name(v, store=True)],
                                            value=gast.Subscript(value=name(v), slice=gast.Slice(
                                                lower=None, upper=name(count), step=None), ctx=gast.Load()),
                                            type_comment=None), loop))


def _stacks_as_moves(node, v):
    """``np.stack(L, axis=k)`` of the list, now an array of its items along axis 0: its items moved to
    axis ``k``, copied (``np.stack`` makes a new array)."""
    for n in gast.walk(node):
        if not (isinstance(n, gast.Call) and dotted(n.func) in ("np.stack", "numpy.stack") and n.args and
                isinstance(n.args[0], gast.Name) and n.args[0].id == v):
            continue
        axis = n.args[1] if len(n.args) > 1 else next((k.value for k in n.keywords if k.arg == "axis"),
                                                      gast.Constant(value=0, kind=None))
        if len(n.args) > 2 or any(k.arg != "axis" for k in n.keywords):
            continue
        module = n.func.value
        moved = gast.Call(func=gast.Attribute(value=copy.deepcopy(module), attr="moveaxis", ctx=gast.Load()),
                          args=[n.args[0], gast.Constant(value=0, kind=None), axis], keywords=[])
        n.func = gast.Attribute(value=copy.deepcopy(module), attr="copy", ctx=gast.Load())
        n.args, n.keywords = [moved], []


def _stored(v, value, count, most, item, at):
    """The statements that append ``value`` to the list ``v`` as an array (made at the first item)."""
    text = (f"{item} = _VALUE\nif {count} == 0:\n    {v} = rt.stack_like({most}, {item})\n"
            f"{v}[{count}] = {item}\n{count} = {count} + 1")
    new = [_located(t, at) for t in gast.ast_to_gast(ast.parse(text)).body]
    new[0].value = value
    return new


def _located(t, at):
    """``t`` with every node placed at ``at``'s source position."""
    for n in gast.walk(t):
        if isinstance(n, (gast.stmt, gast.expr)):
            gast.copy_location(n, at)
    return t


def _replace(node, old, new):
    """Put the statements ``new`` where the statement ``old`` is, in the blocks under ``node``."""
    for field in ("body", "orelse"):
        block = getattr(node, field, None)
        if not isinstance(block, list):
            continue
        if any(t is old for t in block):
            i = next(i for i, t in enumerate(block) if t is old)
            block[i:i + 1] = new
            return True
        if any(_replace(t, old, new) for t in block):
            return True
    return False
