"""adjoint_buffers: arrays started at zero that need no zeroed buffer, once elementwise statements are
element loops (``element_loops`` calls ``settle`` on the code it lowered).

Reverse mode starts the adjoint of an array at zero (``b_t3 = np.zeros_like(_t3)``) and adds each
contribution into it (``b_t3 += g``, ``ba[_e0, _e1] += E`` in a loop). Two common cases need less, in
the function's straight-line statements (any array made by ``np.zeros`` qualifies, adjoint or not):

- uniform: an array whose only write adds one number to all of it (the adjoint of ``np.sum`` or
  ``np.mean`` of a temporary) holds that number at every element. It becomes the number
  (``b_t3 = b_t2``), read where its elements were read (``b_t3[_e0]`` -> ``b_t3``, ``b_t3.shape`` ->
  the shape it was made with): no array, no pass filling it, none reading it. The shape test of an element
  loop reading it (``rt.conform(b_t3, s)``) tests the array it was made like, and the NumPy form the loop
  falls back to (``b_t3 * w``) reads it as that number filling the shape (``np.full``).
- covered by its first write: where the first statement after the allocation that touches the array
  is a loop nest over all of its elements adding into each one (``ba[_e0, _e1] += E``), or adds into all
  of it at once (``b_t1 += E``), nothing needs the zeros: the array is made with ``np.empty`` and the
  write assigns (``ba[_e0, _e1] = E``, ``b_t1[...] = E``), one pass over it instead of two.

Anything else that reads the array (a view of it, a call it is passed to, a read before the write)
leaves it as it is.
"""
import copy

import gast

from ..base.ast_utils import assign, dotted, name, parse_expr
from ..base.kinds import Kind
from .element_forms import range_axis

_ZEROS = ("np.zeros", "np.zeros_like")


def settle(fn, ctx):
    """Rewrite ``fn``'s zeroed arrays of the two cases above; the number of arrays rewritten."""
    uses = Uses(fn)
    done, i = 0, 0
    while i < len(fn.body):
        s = fn.body[i]
        var = zeroed_array(s, ctx.kinds)
        shape = made_shape(s.value, uses) if var is not None else None
        if shape is not None and _make_uniform(fn, i, var, shape, uses, ctx):
            done += 1
            continue                 # the allocation is gone: statement i is the next one
        if var is not None and _assign_first_write(fn, i, var, uses, ctx.kinds):
            done += 1
        i += 1
    return done + _reused_in_loops(fn, uses, ctx.kinds)


class Uses:
    """How often each name of the function is stored to (assignments, augmented assignments, writes into
    it) and bound (assignments of the name, loop targets), and the names loops run over."""

    def __init__(self, fn):
        self.stores, self.rebinds, self.loop_indices = {}, {}, set()
        for node in gast.walk(fn):
            if isinstance(node, gast.For) and isinstance(node.target, gast.Name):
                self.loop_indices.add(node.target.id)
                self.rebinds[node.target.id] = self.rebinds.get(node.target.id, 0) + 1
            targets = node.targets if isinstance(node, gast.Assign) else \
                [node.target] if isinstance(node, gast.AugAssign) else []
            for t in targets:
                base = t.value if isinstance(t, gast.Subscript) else t
                if isinstance(base, gast.Name):
                    self.stores[base.id] = self.stores.get(base.id, 0) + 1
                    if isinstance(t, gast.Name) and isinstance(node, gast.Assign):
                        self.rebinds[t.id] = self.rebinds.get(t.id, 0) + 1


def zeroed_array(s, kinds):
    """The name ``s`` makes a float64 array of zeros for (``x = np.zeros(shape)``,
    ``np.zeros_like(a)``), else None."""
    if not (isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name) and
            isinstance(s.value, gast.Call) and dotted(s.value.func) in _ZEROS and s.value.args):
        return None
    kind = kinds.get(s.targets[0].id)
    if not isinstance(kind, Kind) or kind.dtype != "float64" or kind.ndim == 0:
        return None
    return s.targets[0].id


def made_shape(call, uses):
    """The shape expression an allocation was made with, where it means the same wherever it is read
    later (its names bound at most once), else None."""
    arg = call.args[0]
    shape = gast.Attribute(value=copy.deepcopy(arg), attr="shape", ctx=gast.Load()) \
        if dotted(call.func) == "np.zeros_like" else arg
    if dotted(call.func) == "np.zeros" and not isinstance(shape, (gast.Tuple, gast.Attribute)):
        shape = gast.Tuple(elts=[shape], ctx=gast.Load())
    names = {n.id for n in gast.walk(shape) if isinstance(n, gast.Name)}
    if any(uses.rebinds.get(n, 0) > 1 for n in names) or \
            any(isinstance(n, (gast.Call, gast.Subscript)) for n in gast.walk(arg)):
        return None
    return shape


def _mentions(node, var):
    return any(isinstance(n, gast.Name) and n.id == var for n in gast.walk(node))


def _element_index(index, ndim, uses, kinds):
    """Whether ``index`` picks one element of an array of ``ndim`` axes: integers, no slices."""
    elts = index.elts if isinstance(index, gast.Tuple) else [index]
    if len(elts) != ndim:
        return False
    for e in elts:
        for n in gast.walk(e):
            if isinstance(n, (gast.Slice, gast.Subscript, gast.Call, gast.Attribute)):
                return False
            if isinstance(n, gast.Constant) and not isinstance(n.value, int):
                return False
            if isinstance(n, gast.Name) and n.id not in uses.loop_indices:
                kind = kinds.get(n.id)
                if not isinstance(kind, Kind) or kind.ndim or not kind.dtype.startswith("int"):
                    return False
    return True


def _number(node, kinds):
    """Whether ``node`` is surely one number: arithmetic of numbers, constants and axis lengths
    (``b_t4 / _t5.size``), no calls (``rt.expand_dims`` of a number is an array)."""
    if isinstance(node, gast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if isinstance(node, gast.Name):
        kind = kinds.get(node.id)
        return isinstance(kind, Kind) and kind.ndim == 0 and kind.dtype in ("float64", "int64")
    if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub, gast.Mult, gast.Div)):
        return _number(node.left, kinds) and _number(node.right, kinds)
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        return _number(node.operand, kinds)
    if isinstance(node, gast.Attribute) and node.attr == "size":
        return isinstance(node.value, gast.Name)
    return isinstance(node, gast.Subscript) and isinstance(node.value, gast.Attribute) and \
        node.value.attr == "shape" and isinstance(node.value.value, gast.Name) and \
        isinstance(node.slice, gast.Constant) and isinstance(node.slice.value, int)


def _make_uniform(fn, i, var, shape, uses, ctx):
    """The uniform case: ``var``'s only write after its allocation (statement ``i``) is ``var += G``
    with G a number, and every later mention is an element read or its shape."""
    if uses.stores.get(var) != 2:
        return False
    later = fn.body[i + 1:]
    j = next((k for k, s in enumerate(later) if _mentions(s, var)), None)
    s = later[j] if j is not None else None
    if not (isinstance(s, gast.AugAssign) and isinstance(s.op, gast.Add) and isinstance(s.target, gast.Name)
            and s.target.id == var and not _mentions(s.value, var)):
        return False
    if not _number(s.value, ctx.kinds):
        return False
    ndim = ctx.kinds[var].ndim
    like = fn.body[i].value
    like = like.args[0] if dotted(like.func) == "np.zeros_like" and isinstance(like.args[0], gast.Name) else None
    reads, shapes, tests, whole = [], [], [], []
    for stmt in later[j + 1:]:
        for node in gast.walk(stmt):
            for field, value in gast.iter_fields(node):
                for child in (value if isinstance(value, list) else [value]):
                    if not (isinstance(child, gast.Name) and child.id == var):
                        continue
                    if isinstance(node, gast.Subscript) and field == "value" and \
                            _element_index(node.slice, ndim, uses, ctx.kinds):
                        reads.append(node)
                    elif isinstance(node, gast.Attribute) and node.attr == "shape":
                        shapes.append(node)
                    elif like is not None and isinstance(node, gast.Call) and dotted(node.func) == "rt.conform":
                        tests.append(child)          # the shape test of an element loop: its model's shape
                    elif isinstance(node, (gast.BinOp, gast.UnaryOp)):
                        whole.append(child)          # an operand of arithmetic (the loop's fallback): the array
                    else:
                        return False
    parents = _parents(fn)
    for node in reads:
        _replace(parents, node, name(var))
    for node in shapes:
        _replace(parents, node, copy.deepcopy(shape))
    for node in tests:
        _replace(parents, node, name(like.id))
    for node in whole:
        _replace(parents, node, gast.Call(func=parse_expr("np.full"), args=[copy.deepcopy(shape), name(var)],
                                          keywords=[]))
    fn.body[i + 1 + j] = assign(var, s.value)
    del fn.body[i]
    ctx.kinds[var] = Kind("float64", 0)
    return True


def _assign_first_write(fn, i, var, uses, kinds):
    """The covered case: the first statement after the allocation (statement ``i``) that mentions
    ``var`` adds into all of it (``_cover``)."""
    alloc = fn.body[i]
    s = next((s for s in fn.body[i + 1:] if _mentions(s, var)), None)
    if s is None or not _cover(fn.body, s, var, alloc, uses, kinds):
        return False
    _make_empty(alloc)
    return True


def _cover(block, s, var, alloc, uses, kinds):
    """Make ``s``, a statement of ``block``, assign where it adds into ``var``, where it adds into all of it:
    ``var += E`` (as ``var[...] = E``: broadcasting stays NumPy's), or a nest of ``range`` loops over all
    its axes whose body adds into ``var[index]`` once, at the loops' indices in order, from values that do
    not read ``var``. Whether it did."""
    if isinstance(s, gast.AugAssign) and isinstance(s.op, gast.Add) and isinstance(s.target, gast.Name) and \
            s.target.id == var and not _mentions(s.value, var):
        block[block.index(s)] = gast.Assign(
            targets=[gast.Subscript(value=name(var), slice=gast.Constant(value=Ellipsis, kind=None),
                                    ctx=gast.Store())], value=s.value, type_comment=None)
        return True
    if isinstance(s, gast.If) and len(s.body) == 1 and len(s.orelse) == 1 and _shape_test_only(s.test, var):
        # an element loop's shape test: the loops, or the statement as written, cover it either way
        body, orelse = copy.deepcopy(s.body), copy.deepcopy(s.orelse)
        if not (_cover(body, body[0], var, alloc, uses, kinds) and _cover(orelse, orelse[0], var, alloc, uses, kinds)):
            return False
        s.body, s.orelse = body, orelse
        return True
    indices, body = [], [s]
    while len(body) == 1 and isinstance(body[0], gast.For):
        loop = body[0]
        if loop.orelse or not isinstance(loop.target, gast.Name) or \
                not _covers(loop.iter, var, len(indices), alloc, uses):
            return False
        indices.append(loop.target.id)
        body = loop.body
    if len(indices) != kinds[var].ndim:
        return False
    writes = [t for t in body if _mentions(t, var)]
    if len(writes) != 1:
        return False
    w = writes[0]
    if not (isinstance(w, gast.AugAssign) and isinstance(w.op, gast.Add) and isinstance(w.target, gast.Subscript)
            and isinstance(w.target.value, gast.Name) and w.target.value.id == var and not _mentions(w.value, var)):
        return False
    index = w.target.slice
    elts = index.elts if isinstance(index, gast.Tuple) else [index]
    if [e.id if isinstance(e, gast.Name) else None for e in elts] != indices:
        return False
    body[body.index(w)] = gast.Assign(targets=[w.target], value=w.value, type_comment=None)
    return True


def _shape_test_only(test, var):
    """Whether ``test`` reads ``var`` only for its shape: as an argument of ``rt.conform``, or ``var.shape``."""
    shapes = {id(a) for n in gast.walk(test) if isinstance(n, gast.Call) and dotted(n.func) == "rt.conform"
              for a in n.args}
    shapes |= {id(n.value) for n in gast.walk(test) if isinstance(n, gast.Attribute) and n.attr == "shape"}
    return all(id(n) in shapes for n in gast.walk(test) if isinstance(n, gast.Name) and n.id == var)


def _reused_in_loops(fn, uses, kinds):
    """The loop case: in the body of a loop of the function's own statements, an adjoint zeroed again at
    the end of each iteration (``b_t5 = np.zeros_like(b_t5)``, after its last read) whose first mention in
    the body adds into all of it, zeroed before the loop and not mentioned after it. Each iteration's first
    write then assigns into the same array and nothing zeroes it again: no array and no pass per
    iteration. The number of arrays rewritten."""
    done = 0
    for j, loop in enumerate(fn.body):
        if not isinstance(loop, gast.For) or loop.orelse:
            continue
        for var, reset in [(_reset_of(s, kinds), s) for s in loop.body]:
            if var is None or any(_mentions(s, var) for s in fn.body[j + 1:]) or \
                    any(_mentions(s, var) for s in loop.body[loop.body.index(reset) + 1:]):
                continue
            alloc = next((s for s in reversed(fn.body[:j]) if _mentions(s, var)), None)
            if alloc is None or zeroed_array(alloc, kinds) != var:
                continue
            first = next(s for s in loop.body if _mentions(s, var))
            start, end = loop.body.index(first), loop.body.index(reset)
            holders = [_holders(s, var) for s in loop.body[start + 1:end]]
            if first is reset or None in holders or \
                    not all(_iteration_local(loop.body, y) for found in holders for y in found) or \
                    not _cover(loop.body, first, var, alloc, uses, kinds):
                continue
            loop.body.remove(reset)
            _make_empty(alloc)
            done += 1
    return done


def _reset_of(s, kinds):
    """``x`` for ``x = np.zeros_like(x)`` of a float64 array (``zeroed_array`` made like itself), else None."""
    var = zeroed_array(s, kinds)
    return var if var is not None and zeroed_like_itself(s) == var else None


def zeroed_like_itself(s):
    """``x`` for ``x = np.zeros_like(x)`` (an adjoint started again at zero), else None."""
    if not (isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name) and
            isinstance(s.value, gast.Call) and dotted(s.value.func) == "np.zeros_like" and
            not s.value.keywords and len(s.value.args) == 1):
        return None
    arg = s.value.args[0]
    return arg.id if isinstance(arg, gast.Name) and arg.id == s.targets[0].id else None


def _holders(stmt, var):
    """The names ``stmt`` gives ``var``'s memory (assigned ``var``, a part of it, or a call of it: a view, or
    ``var`` itself, that would see the next iteration's writes); reads in arithmetic and elements are
    values. None where ``stmt`` rebinds ``var``."""
    out = set()
    for node in gast.walk(stmt):
        if not isinstance(node, gast.Assign):
            continue
        if any(isinstance(t, gast.Name) and t.id == var for t in node.targets):
            return None
        value = node.value
        direct = [value] + (list(value.elts) if isinstance(value, gast.Tuple) else []) + \
            (list(value.args) if isinstance(value, gast.Call) else [])
        for v in direct:
            if isinstance(v, gast.Name) and v.id == var or \
                    isinstance(v, gast.Subscript) and isinstance(v.value, gast.Name) and v.value.id == var and \
                    not isinstance(node.targets[0], gast.Subscript):
                if len(node.targets) != 1 or not isinstance(node.targets[0], gast.Name):
                    return None
                out.add(node.targets[0].id)
    return out


def _iteration_local(body, y):
    """Whether the name ``y`` holds nothing from one iteration of the loop ``body`` to the next: its first
    mention there sets it before reading it. (Read after the array's last read in an iteration, it still
    sees that iteration's values: the array is written again only in the next iteration.)"""
    return _sets_first(next(s for s in body if _mentions(s, y)), y)


def _sets_first(stmt, y):
    """Whether ``stmt`` assigns ``y`` before reading it: an assignment of ``y`` from other names, or a
    branch whose test does not read ``y`` and each of whose arms does so first."""
    if isinstance(stmt, gast.Assign):
        return len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id == y and \
            not _mentions(stmt.value, y)
    if isinstance(stmt, gast.If) and not _mentions(stmt.test, y):
        arms = [next((s for s in arm if _mentions(s, y)), None) for arm in (stmt.body, stmt.orelse)]
        return all(a is not None and _sets_first(a, y) for a in arms)
    return False


def _make_empty(alloc):
    """The allocation ``x = np.zeros...(...)`` made with ``np.empty...``: its first write covers it."""
    alloc.value.func = gast.Attribute(value=name("np"), attr="empty_like" if dotted(alloc.value.func) ==
                                      "np.zeros_like" else "empty", ctx=gast.Load())


def _covers(it, var, axis, alloc, uses):
    """Whether loop header ``it`` runs over axis ``axis`` of ``var``, or of the array it was made like
    (bound once)."""
    over = range_axis(it)
    if over is None or over[1] != axis:
        return False
    owner = over[0]
    like = alloc.value.args[0] if dotted(alloc.value.func) == "np.zeros_like" else None
    return owner == var or isinstance(like, gast.Name) and owner == like.id and uses.rebinds.get(owner, 0) <= 1


def _parents(fn):
    """{id of a node: (its parent, field, position in a list field or None)} for every node of ``fn``."""
    out = {}
    for node in gast.walk(fn):
        for field, value in gast.iter_fields(node):
            if isinstance(value, list):
                for k, child in enumerate(value):
                    if isinstance(child, gast.AST):
                        out[id(child)] = (node, field, k)
            elif isinstance(value, gast.AST):
                out[id(value)] = (node, field, None)
    return out


def _replace(parents, node, new):
    """Put ``new`` where ``node`` is in its parent."""
    parent, field, k = parents[id(node)]
    if k is None:
        setattr(parent, field, new)
    else:
        getattr(parent, field)[k] = new
