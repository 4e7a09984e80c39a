"""fuse: chains of elementwise operations become one expression, so each chain is one loop.

The normal form gives every operation a temporary (``_t3 = 2.0 * _t4``, ``_t1 = _t2 - _t3``,
``lap = _t1 + _t5``), and so do the sweeps reverse mode writes (``b_t4 = b_t3 * 2.0``,
``bu[1:-1] += b_t4``). On arrays each temporary is an allocation and a pass over memory. This pass
substitutes a temporary that is assigned once and read once, later in the same block, into that
read. Numba compiles an expression tree of array operators and ufuncs as one loop over the elements
with one result (its array-expression rewrite), and NumPy runs the same text with fewer names.

What may be substituted, and past what:
- a *reference* (a name, or a basic part ``u[1:-1]`` that is a view): it names memory, so writes
  into that memory between the definition and the use change both alike; only rebinding one of
  the names it reads stops it;
- a *value* (operators, ``np`` ufuncs, ``np.outer`` and ``math`` functions of such operands, or a
  part that may be a number): only past assignments to other names of values that write nothing (no in-place
  write, no call that may change an array), so the operands hold the same contents at the use.
Loops, branches and other statements with effects are never crossed by a value, and a temporary
is never moved into a loop or branch. Source comments left with nothing under them go in ``tidy``.

A *cheap* value, read by several later statements of its block (the adjoint of ``hz -= 0.7 * (...)``,
``b_t20 = -bhz[:-1, :-1] * 0.7``, added into four parts of other adjoints), is computed in each of them
instead: it reads one array and does at most two additions or products with numbers (a division costs
more than reading a stored value), so each reader reads that array in place of the temporary, and the
temporary's allocation and pass go. Every reader must be an elementwise statement (it becomes an element
loop), and the statements up to the last read may write only into buffers other than the array it reads
(``element_forms.buffer_roots``) and rebind none of its names.
"""
import re

import gast
import numpy as np

from ..base.ast_utils import dotted, has_slice, is_basic_part, is_comment, substitute
from .element_forms import MATH_FUNCTIONS, buffer_roots
from .tidy import _pure, remove_dead

_SUMMED_FIRST = ("rt.sum_axis", "rt.mean_axis")


#: the most operations a value may do to be computed again by each of its readers (``_cheap_definition``)
CHEAP_OPERATIONS = 2


def run(tree, ctx, job):
    """Fuse the chains of ``tree`` and of the helpers it calls (``ctx.helpers``); not in the per-example
    code of CUDA kernels (``lanes == "threads"``), whose checks and rewrites read one operation a
    statement."""
    if job.lanes == "threads":
        return tree
    for fn in ctx.helpers + [tree]:
        remove_dead(fn, ctx)         # placeholders of names first set in loops, when nothing reads them later
        fuse_function(fn, ctx.kinds)
    return tree


def fuse_function(fn, kinds=None):
    params = {a.id for a in fn.args.args}
    _propagate_names(fn, params)
    stores, loads = _counts(fn)
    single = {v for v, n in loads.items() if n == 1 and stores.get(v, 0) == 1 and v not in params}
    once = {v for v, n in stores.items() if n == 1 and v not in params}
    roots = buffer_roots(fn, kinds) if kinds is not None else None
    written = _written_roots(fn, roots, kinds) if roots is not None else None

    def block(stmts):
        out = list(stmts)
        i = 0
        while i < len(out):
            s = out[i]
            for field in ("body", "orelse"):
                inner = getattr(s, field, None)
                if isinstance(inner, list) and inner and not isinstance(s, gast.FunctionDef):
                    setattr(s, field, block(inner))
            if _definition(s, single) and _substitute_forward(out, i):
                out.pop(i)
                continue
            source = _cheap_definition(s, once, kinds) if roots is not None else None
            if source is not None and _recompute_in_readers(out, i, source, loads[s.targets[0].id], roots, written):
                out.pop(i)
                continue
            if _self_assignment(s):         # x = _t; _t = x, after substituting: x = x
                out.pop(i)
                continue
            i += 1
        return out
    fn.body = block(fn.body)
    return fn


def _propagate_names(fn, params):
    """``a = b`` of two names each bound once (not arguments), one of them made up by the transforms: both
    name the same object wherever they are read, so one name stays (the user's, where one is) and the
    assignment goes; chains (``b_t3 = b_t2``, ``b_t4 = b_t3``) too."""
    stores, _ = _counts(fn)
    once = {v for v, n in stores.items() if n == 1 and v not in params}
    renamed = {}
    for n in gast.walk(fn):
        if isinstance(n, gast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], gast.Name) and \
                isinstance(n.value, gast.Name) and n.targets[0].id in once and n.value.id in once and \
                n.targets[0].id != n.value.id:
            a, b = n.targets[0].id, n.value.id
            if _made_up(a):
                renamed[a] = b
            elif _made_up(b) and b not in renamed:
                renamed[b] = a             # b's definition becomes a's
    if not renamed:
        return

    def final(v):
        seen = set()
        while v in renamed and v not in seen:
            seen.add(v)
            v = renamed[v]
        return v

    class Rename(gast.NodeTransformer):
        def visit_Name(self, node):
            if node.id in renamed:
                node.id = final(node.id)
            return node

        def visit_Assign(self, node):
            self.generic_visit(node)
            t = node.targets[0] if len(node.targets) == 1 else None
            if isinstance(t, gast.Name) and isinstance(node.value, gast.Name) and node.value.id == t.id:
                return None                # a = b, both now one name
            return node
    Rename().visit(fn)


def _made_up(name):
    """Whether ``name`` was made up by the transforms (``_t3``, ``b_t2``, ``_res1``), not the user's."""
    return re.fullmatch(r"_\w*|[bd]_t\d+", name) is not None


def _self_assignment(s):
    return isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name) and \
        isinstance(s.value, gast.Name) and s.value.id == s.targets[0].id


def _counts(fn):
    stores, loads = {}, {}
    for n in gast.walk(fn):
        if isinstance(n, gast.Name):
            table = loads if isinstance(n.ctx, gast.Load) else stores
            table[n.id] = table.get(n.id, 0) + 1
        elif isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name):
            loads[n.target.id] = loads.get(n.target.id, 0) + 1      # x += v reads x
    return stores, loads


def _definition(s, single):
    return isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name) and \
        s.targets[0].id in single and (_is_reference(s.value) or _is_value(s.value))


def _substitute_forward(stmts, i):
    """Put the value of ``stmts[i]`` into its one read, in a later statement of ``stmts``; False where
    the read is elsewhere or something in between stops it."""
    s = stmts[i]
    var, value = s.targets[0].id, s.value
    reads = {n.id for n in gast.walk(value) if isinstance(n, gast.Name)}
    reference = _is_reference(value)
    for later in stmts[i + 1:]:
        if is_comment(later):
            continue
        if _reads(later, var):
            if isinstance(later, (gast.For, gast.While, gast.If)) or not _put(later, var, value):
                return False
            return True
        if _rebinds(later) & reads:
            return False
        if not reference and not _harmless(later):
            return False
    return False


#: calls that read only the shape of their argument
_SHAPE_ONLY = ("np.zeros_like", "np.ones_like", "np.empty_like")


def _reads(stmt, var):
    return any(isinstance(n, gast.Name) and n.id == var and isinstance(n.ctx, gast.Load) for n in gast.walk(stmt))


def _put(stmt, var, value):
    """Replace the one read of ``var`` in a simple statement by ``value``."""
    if not isinstance(stmt, (gast.Assign, gast.AugAssign, gast.Return, gast.Expr)):
        return False

    # an attribute or a part of an expression (``(a + b).shape``, ``(a + b)[i]``) is not in the subset
    # transforms of generated code read: only a name goes there
    for n in gast.walk(stmt):
        if isinstance(n, (gast.Attribute, gast.Subscript)) and isinstance(n.value, gast.Name) and \
                n.value.id == var and not isinstance(value, gast.Name):
            return False
        # arguments of calls other than NumPy's, math's and rt.unbroadcast stay names: run-time helpers
        # and collectives (which pmap splits the function at) are read by later passes as they are
        func = dotted(n.func) if isinstance(n, gast.Call) else None
        # an array made like another reads only its shape: the value is not computed for it
        if func in _SHAPE_ONLY and not isinstance(value, gast.Name) and \
                any(isinstance(a, gast.Name) and a.id == var for a in n.args):
            return False
        # an outer product reads each element of its arguments once per element of the other: a computed
        # argument keeps its name (one pass), and the product stays a value element_loops reads in place
        if func == "np.outer" and not _is_reference(value) and \
                any(isinstance(a, gast.Name) and a.id == var for a in n.args):
            return False
        # a sum or mean along an axis takes its summed expression (element_reductions sums it as the
        # elements are computed)
        summed = n.args[:1] if func in _SUMMED_FIRST else []
        if isinstance(n, gast.Call) and not isinstance(value, gast.Name) and \
                (func or "").split(".")[0] not in ("np", "math") and func != "rt.unbroadcast" and \
                any(isinstance(a, gast.Name) and a.id == var and a not in summed
                    for a in n.args + [k.value for k in n.keywords]):
            return False

    substitute(stmt, {var: value})      # var is set only by the definition that goes: every mention is a read
    return True


def _rebinds(stmt):
    out = {n.id for n in gast.walk(stmt) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
    if isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name):
        out.add(stmt.target.id)
    return out


def _harmless(stmt):
    """An assignment of a name that writes no memory (a value may be moved past it)."""
    return isinstance(stmt, gast.Assign) and all(isinstance(t, gast.Name) for t in stmt.targets) and _pure(stmt.value)


# ---- cheap values computed by each reader ------------------------------------------------------------
def _cheap_definition(s, once, kinds):
    """For ``t = E`` of an array ``t`` set once, where ``E`` reads one array (a name or a basic part) and
    does at most ``CHEAP_OPERATIONS`` operators with numbers: the name of the array ``E`` reads; else None."""
    if not (isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name) and
            s.targets[0].id in once and getattr(kinds.get(s.targets[0].id), "ndim", 0) >= 1):
        return None
    arrays, ops = [], 0

    def walk(node):
        nonlocal ops
        if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub, gast.Mult)):
            ops += 1
            return walk(node.left) and walk(node.right)
        if isinstance(node, gast.UnaryOp):
            ops += 1
            return walk(node.operand)
        if isinstance(node, gast.Constant):
            return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
        if isinstance(node, gast.Name):
            kind = kinds.get(node.id)
            if getattr(kind, "ndim", None) == 0:
                return True
            arrays.append(node)
            return kind is not None
        if isinstance(node, gast.Subscript) and is_basic_part(node) and has_slice(node):
            arrays.append(node)
            return True
        return False
    if not (walk(s.value) and len(arrays) == 1 and 1 <= ops <= CHEAP_OPERATIONS):
        return None
    return arrays[0].value.id if isinstance(arrays[0], gast.Subscript) else arrays[0].id


def _recompute_in_readers(stmts, i, source, reads, roots, written):
    """Put the cheap value of ``stmts[i]`` into each of its ``reads`` reads, all in later elementwise
    statements of ``stmts``; False (nothing changed) where a read is elsewhere or a statement up to the last
    read may change what the value reads."""
    s = stmts[i]
    var, value = s.targets[0].id, s.value
    names = {n.id for n in gast.walk(value) if isinstance(n, gast.Name)}
    root = roots.get(source)
    # the temporary's own memory must be written nowhere (through a name it is handed to, ``b = t``)
    if root is None or roots.get(var) is None or roots[var] in written or None in written:
        return False
    readers, found = [], 0
    for later in stmts[i + 1:]:
        if found == reads:
            break
        if is_comment(later):
            continue
        n = sum(1 for m in gast.walk(later) if isinstance(m, gast.Name) and m.id == var and
                isinstance(m.ctx, gast.Load))
        if n and not _elementwise_reader(later, var):
            return False
        if _rebinds(later) & names:
            return False
        if not _writes_elsewhere(later, root, roots):
            return False
        if n:
            readers.append(later)
            found += n
    if found != reads:
        return False
    for later in readers:
        substitute(later, {var: value})
    return True


def _written_roots(fn, roots, kinds):
    """The roots of the arrays ``fn`` writes into (None for an array of unknown root)."""
    out = set()
    for n in gast.walk(fn):
        targets = n.targets if isinstance(n, gast.Assign) else [n.target] if isinstance(n, gast.AugAssign) else []
        for t in targets:
            base = t.value if isinstance(t, gast.Subscript) else t
            if isinstance(base, gast.Name) and (isinstance(t, gast.Subscript) or isinstance(n, gast.AugAssign)) \
                    and getattr(kinds.get(base.id), "ndim", 1) != 0:
                out.add(roots.get(base.id))
    return out


def _elementwise_reader(stmt, var):
    """``x = E``, ``x op= E`` or ``x[part] (op)= E`` whose ``E`` is elementwise (``_is_value``) and reads
    ``var`` only as an operand."""
    if not isinstance(stmt, (gast.Assign, gast.AugAssign)):
        return False
    targets = stmt.targets if isinstance(stmt, gast.Assign) else [stmt.target]
    if len(targets) != 1 or not (isinstance(targets[0], gast.Name) or is_basic_part(targets[0])) or \
            _reads(targets[0], var):
        return False
    return _is_value(stmt.value)


def _writes_elsewhere(stmt, root, roots):
    """Whether ``stmt`` writes no memory but that of buffers known not to be ``root`` (it assigns names of
    values, or writes into parts of other buffers)."""
    if _harmless(stmt):
        return True
    if not isinstance(stmt, (gast.Assign, gast.AugAssign)) or not _pure(stmt.value):
        return False
    targets = stmt.targets if isinstance(stmt, gast.Assign) else [stmt.target]
    for t in targets:
        base = t.value if isinstance(t, gast.Subscript) else t
        if not isinstance(base, gast.Name):
            return False
        if isinstance(t, gast.Subscript) or isinstance(stmt, gast.AugAssign):
            other = roots.get(base.id)
            if other is None or other == root:
                return False
    return True


# ---- what may move ----------------------------------------------------------------------------------
def _is_reference(node):
    """A name, or a basic part with at least one slice (a view of the same memory)."""
    if isinstance(node, gast.Name):
        return True
    return is_basic_part(node) and has_slice(node)


def _is_value(node):
    """Operators, NumPy ufuncs and ``math`` functions of names, numbers, parts and such values."""
    if isinstance(node, (gast.Name, gast.Constant)):
        return True
    if isinstance(node, gast.Subscript):
        return is_basic_part(node)
    if isinstance(node, gast.BinOp):
        # a matrix product keeps its name: it is one BLAS call, and element_loops reads it as an operand
        return not isinstance(node.op, gast.MatMult) and _is_value(node.left) and _is_value(node.right)
    if isinstance(node, gast.UnaryOp):
        return _is_value(node.operand)
    if isinstance(node, gast.Compare):
        return len(node.ops) == 1 and _is_value(node.left) and _is_value(node.comparators[0])
    if isinstance(node, gast.Call) and not node.keywords and isinstance(node.func, gast.Attribute) and \
            isinstance(node.func.value, gast.Name):
        module, attr = node.func.value.id, node.func.attr
        if module == "np" and attr == "outer":          # elementwise over two axes: a[i] * b[j]
            return len(node.args) == 2 and all(_is_reference(a) or isinstance(a, gast.Name) for a in node.args)
        elementwise = module == "np" and isinstance(getattr(np, attr, None), np.ufunc) or \
            module == "math" and attr in MATH_FUNCTIONS or module == "np" and attr == "where" and len(node.args) == 3
        return elementwise and all(_is_value(a) for a in node.args)
    return False

