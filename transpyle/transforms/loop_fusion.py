"""loop_fusion: neighbouring element loop nests over the same elements become one nest
(``element_loops`` calls ``fuse_loops`` on the code it lowered).

The adjoint of ``y * y`` adds ``g * y`` into ``by`` twice, and a matrix-vector gradient adds two rank-one
updates into ``ba``: after element loops, two nests in a row run over the same elements, each a full
pass over memory. Where every array that either nest writes is read and written by both only at the
element the loops are at (``ba[_e0, _e1]`` in a nest over ``_e0, _e1``), running both bodies in one
nest computes the same values in one pass: each element's statements keep their order, and no element
reads what another element writes.

Nests fuse when they are adjacent statements, have the same loop headers (targets and ranges) down to
the same depth, are perfect (each loop's body is the next loop, the innermost holds the statements),
and:
- every buffer either nest writes (the roots of ``element_forms.buffer_roots``: views of one buffer,
  and arguments, count as one) is mentioned in both only through one name, indexed by all the loop
  indices in order (``bm[_e0, 0] += ...``, a sum along ``_e1``, never fuses with a read of ``bm``);
- no plain name that one nest assigns (a running sum, an element local) is mentioned by the other.
Statements between the nests that bind a view, or compute from buffers neither nest writes, move before
the first.

Nests that fail that test may still share their outer loop (row fusion): the softmax adjoint's nests
over rows and columns, some summing a row into ``b_t2[_e0, 0]`` and the next reading it. Where the outer
loops have the same header and every buffer either nest writes is mentioned, in both, only through one
name indexed by the outer loop's index at one position (``b_t2[_e0, 0]``, ``be[_e0, _e1]``), an iteration
of either touches only its own row of those buffers: running both bodies, one after the other, in each
iteration of one outer loop computes the same values, a row at a time, while the row is in cache. The
merged body is fused again (its inner nests may now be neighbours over the same elements).
"""
import gast

from ..base.ast_utils import dotted, has_slice, is_basic_part, is_comment, name
from ..base.naming import ELEMENT_INDEX_NAME
from .element_forms import buffer_roots, loaded_index, range_axis


def fuse_loops(fn, kinds, shapes):
    """Fuse the neighbouring element loop nests of ``fn``'s blocks (see the module docstring); the
    number of nests fused into one before them. ``shapes``: the function's ``analysis.shapes.Shapes``,
    which proves loop headers over different arrays equal (``range(x.shape[0])``, ``range(bx.shape[0])``)."""
    return _Fusion(buffer_roots(fn, kinds), shapes).block(fn.body)


class _Fusion:
    def __init__(self, roots, shapes):
        self.roots, self.shapes = roots, shapes

    def block(self, stmts):
        fused, k = 0, 0
        while k < len(stmts):
            s = stmts[k]
            if isinstance(s, (gast.For, gast.While, gast.If)) and not _nest(s):
                fused += self.block(s.body) + self.block(s.orelse)
            # source-line comments between two nests go with the second one's statements; for row
            # fusion, statements between them that the first nest does not touch (the zeroed sums of the
            # second) move before the first
            n, between = k + 1, []
            while n < len(stmts) and (is_comment(stmts[n]) or _element_loop(s) and self.movable(stmts[n], s)):
                if not is_comment(stmts[n]):
                    between.append(stmts[n])
                n += 1
            if n < len(stmts) and not between and _same_test(s, stmts[n]):
                # two statements under one shape test (the element loops of two contributions to one
                # adjoint): one test, both arms joined, so the loops inside become neighbours
                s.body.extend(stmts[k + 1:n] + stmts[n].body)
                s.orelse.extend(stmts[n].orelse)
                del stmts[k + 1:n + 1]
                fused += 1
                continue
            if n < len(stmts) and self.fusible(s, stmts[n]):
                _inner(s)[1].extend([t for t in stmts[k + 1:n] if is_comment(t)] + _inner(stmts[n])[1])
                del stmts[k + 1:n + 1]
                stmts[k:k] = between
                k += len(between)
                fused += 1
                continue                # the next nest may fuse with this one too
            if n < len(stmts) and self.rows_fusible(s, stmts[n]):
                s.body.extend([t for t in stmts[k + 1:n] if is_comment(t)] + stmts[n].body)
                del stmts[k + 1:n + 1]
                stmts[k:k] = between
                k += len(between)
                fused += 1 + self.block(s.body)
                continue
            k += 1
        return fused

    def movable(self, stmt, nest):
        return _movable(stmt, nest, self.roots)

    def rows_fusible(self, a, b):
        """Whether nests ``a`` and ``b`` may share their outer loop (row fusion, module docstring)."""
        if not (_element_loop(a) and _element_loop(b) and a.target.id == b.target.id and
                self.same_headers([(a.target.id, a.iter)], [(b.target.id, b.iter)])):
            return False
        index = a.target.id
        one = _accesses(a.body, lambda part: _position(part, index), nested=True)
        two = _accesses(b.body, lambda part: _position(part, index), nested=True)
        # each written buffer at one position holding the outer index: an iteration touches its own row
        return _may_share(one, two, self.roots, lambda keys: len(set(keys)) == 1 and None not in keys)

    def same_headers(self, a, b):
        """Whether nests with headers ``a`` and ``b`` run over the same indices: the same targets and
        ranges, or ranges over axes that the shapes prove equal."""
        return len(a) == len(b) and all(ta == tb and (gast.dump(ia) == gast.dump(ib) or self.equal_lengths(ia, ib))
                                        for (ta, ia), (tb, ib) in zip(a, b))

    def equal_lengths(self, a, b):
        la, lb = range_axis(a), range_axis(b)
        if la is None or lb is None:
            return False
        (x, i), (y, j) = la, lb
        sx, sy = self.shapes.known(name(x)), self.shapes.known(name(y))
        return sx is not None and sy is not None and i < len(sx) and j < len(sy) and sx[i] == sy[j]

    def fusible(self, a, b):
        headers = _nest(a)
        if not headers or not self.same_headers(headers, _nest(b)):
            return False
        return _independent(_inner(a), _inner(b)[1], self.roots)


def _same_test(a, b):
    """Whether ``a`` and ``b`` are branches on the same shape test (``rt.conform`` calls and comparisons of
    axis lengths) whose names ``a`` does not rebind, so the test gives ``b`` what it gave ``a``."""
    if not (isinstance(a, gast.If) and isinstance(b, gast.If) and gast.dump(a.test) == gast.dump(b.test)):
        return False
    funcs = {id(n.func) for n in gast.walk(a.test) if isinstance(n, gast.Call)}
    for n in gast.walk(a.test):
        if isinstance(n, gast.Call) and dotted(n.func) != "rt.conform" or \
                isinstance(n, gast.Attribute) and n.attr != "shape" and id(n) not in funcs:
            return False
    names = {n.id for n in gast.walk(a.test) if isinstance(n, gast.Name)} - {"rt"}
    rebound = {n.id for arm in (a.body, a.orelse) for st in arm for n in gast.walk(st)
               if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store) and
               not (isinstance(st, gast.AugAssign) and n is st.target)}
    return not names & rebound


def _element_loop(s):
    return isinstance(s, gast.For) and isinstance(s.target, gast.Name) and \
        ELEMENT_INDEX_NAME.fullmatch(s.target.id) is not None and not s.orelse


def _movable(stmt, nest, roots):
    """Whether ``stmt``, after ``nest``, may run before it: it binds a name the nest does not mention, to a
    view (a basic part with a slice: no element is read), or from NumPy and runtime functions (no tapes) of
    names the nest does not write, through any name of their buffers (their shapes aside)."""
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)):
        return False
    target = stmt.targets[0].id
    if any(isinstance(n, gast.Name) and n.id == target for n in gast.walk(nest)):
        return False
    if is_basic_part(stmt.value) and has_slice(stmt.value):
        # a view reads no element: only the names it is taken of and with must not be bound by the nest
        bound = {n.id for n in gast.walk(nest) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        return not {n.id for n in gast.walk(stmt.value) if isinstance(n, gast.Name)} & bound
    if any(isinstance(n, gast.Call) and (not (dotted(n.func) or "").startswith(("np.", "rt.")) or
                                         "tape" in dotted(n.func)) for n in gast.walk(stmt.value)):
        return False
    written = set()
    for n in gast.walk(nest):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
            written.add(n.id)
        elif isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name) and isinstance(n.ctx, gast.Store):
            written.add(n.value.id)
        elif isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Subscript) and \
                isinstance(n.target.value, gast.Name):
            written.add(n.target.value.id)
    shape_reads = {id(n.value) for n in gast.walk(stmt.value) if isinstance(n, gast.Attribute) and n.attr == "shape"}
    read = {n.id for n in gast.walk(stmt.value) if isinstance(n, gast.Name) and id(n) not in shape_reads}
    written_roots = {roots.get(v) for v in written}
    return not read & written and not any(v in roots and roots[v] in written_roots for v in read)


def _position(index, var):
    """Where the plain name ``var`` stands among the parts of ``index``, if it stands there once and no
    other part mentions it; else None."""
    parts = index.elts if isinstance(index, gast.Tuple) else [index]
    at = [k for k, p in enumerate(parts) if isinstance(p, gast.Name) and p.id == var]
    mentions = sum(1 for p in parts for n in gast.walk(p) if isinstance(n, gast.Name) and n.id == var)
    return at[0] if len(at) == 1 and mentions == 1 else None


def _nest(s):
    """The loop nest ``s`` heads, as its headers [(target, iter)], where it is a perfect nest of element
    loops (index names ``_e0``, ``_e1``, ...), else []."""
    headers = []
    while isinstance(s, gast.For) and isinstance(s.target, gast.Name) and ELEMENT_INDEX_NAME.fullmatch(s.target.id) \
            and not s.orelse:
        headers.append((s.target.id, s.iter))
        if len(s.body) != 1 or not isinstance(s.body[0], gast.For):
            return headers
        s = s.body[0]
    return []


def _inner(s):
    """(the loop indices, the innermost body) of a perfect nest."""
    indices = []
    while True:
        indices.append(s.target.id)
        if len(s.body) != 1 or not isinstance(s.body[0], gast.For):
            return indices, s.body
        s = s.body[0]


def _independent(first, body_b, roots):
    """Whether the innermost bodies of two nests with the same headers (``first``: the loop indices
    and the first body) may run as one: see the module docstring."""
    indices, body_a = first
    elements = [gast.Name(id=i, ctx=gast.Load(), annotation=None, type_comment=None) for i in indices]
    identity = gast.dump(elements[0] if len(elements) == 1 else gast.Tuple(elts=elements, ctx=gast.Load()))
    dump = lambda part: gast.dump(loaded_index(part))      # noqa: E731
    # each written buffer read and written by both only at the element the loops are at
    return _may_share(_accesses(body_a, dump), _accesses(body_b, dump), roots,
                      lambda keys: all(k == identity for k in keys))


def _may_share(one, two, roots, fits):
    """Whether two bodies, with the accesses ``one`` and ``two`` (``_accesses``), may run interleaved: no plain
    name one assigns is mentioned by the other, every array has a known buffer, and each buffer either
    writes is mentioned in both through one name only, indexed, the keys of its indices passing ``fits``."""
    if one is None or two is None:
        return False
    (stored_a, bare_a, arrays_a), (stored_b, bare_b, arrays_b) = one, two
    if stored_a & (bare_b | set(arrays_b)) or stored_b & (bare_a | set(arrays_a)):
        return False
    if any(v not in roots for v in list(arrays_a) + list(arrays_b)):
        return False                   # a buffer that may be any other: no proof
    written = {roots[v] for side in (arrays_a, arrays_b) for v, (_, writes) in side.items() if writes}
    for root in written:
        users = {v for v in list(arrays_a) + list(arrays_b) + list(bare_a | bare_b) if roots.get(v) == root}
        if users & (bare_a | bare_b):
            return False
        # one name only: two views of one buffer (the adjoint of a stencil adding into bu[2:] and bu[:-2])
        # overlap, and a nest writing both cannot be vectorized (each element's store waits for the last),
        # where separate passes are (a 2-D stencil's gradient ran 1.4x slower with its passes fused)
        if len(users) != 1:
            return False
        var = users.pop()
        if not fits([k for side in (arrays_a, arrays_b) for k in side.get(var, ([], False))[0]]):
            return False
    return True


def _accesses(body, key, nested=False):
    """(plain names assigned, names mentioned other than as an indexed array, {array: ([``key`` of each of
    its indices], whether it is written)}) of the statements ``body``; None where a statement is not an
    assignment or augmented assignment. ``nested``: element loops over such statements are taken too
    (their indices, rebound by their loops before any use, are no plain names assigned), and reading an
    array's ``.shape`` reads none of its elements."""
    stored, arrays, indexed, targets = set(), {}, set(), set()

    def visit(stmts):
        for s in stmts:
            if is_comment(s):
                continue
            if nested and _element_loop(s):
                targets.add(s.target.id)
                indexed.update(id(n.value) for n in gast.walk(s.iter) if isinstance(n, gast.Attribute) and n.attr == "shape")
                if not visit(s.body):
                    return False
                continue
            if not isinstance(s, (gast.Assign, gast.AugAssign)):
                return False
            for t in s.targets if isinstance(s, gast.Assign) else [s.target]:
                if isinstance(t, gast.Name):
                    stored.add(t.id)
                elif not (isinstance(t, gast.Subscript) and isinstance(t.value, gast.Name)):
                    return False
            for node in gast.walk(s):
                if nested and isinstance(node, gast.Attribute) and node.attr == "shape":
                    indexed.add(id(node.value))
                if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name):
                    keys, writes = arrays.get(node.value.id, ([], False))
                    written = isinstance(node.ctx, gast.Store) or isinstance(s, gast.AugAssign) and node is s.target
                    arrays[node.value.id] = (keys + [key(node.slice)], writes or written)
                    indexed.add(id(node.value))
        return True
    if not visit(body):
        return None
    bare = {n.id for s in body for n in gast.walk(s) if isinstance(n, gast.Name) and id(n) not in indexed}
    return stored, bare - targets, arrays
