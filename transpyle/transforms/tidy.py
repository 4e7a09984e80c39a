"""The last pass of every transform: the generated functions as a reader should see them.

- constants folded: a temporary assigned once from numbers (``_t6 = 2 - 1``) is replaced by its
  value where it is read, and operations on numbers alone are computed (``x ** (2 - 1 + False)``
  becomes ``x ** 1``);
- statements whose results nothing reads are removed (assignments of pure expressions, loops and
  branches left empty), until none is left;
- every function is tied to the user's source (``source_comments``).

Drivers (the jacfwd/jacrev and vmap loops around the functions they call) are generated code with
no source lines of their own: ``DRIVER_ATTR`` marks them.
"""
import math
import operator
import re

import gast

from ..base.ast_utils import is_comment
from . import source_comments

DRIVER_ATTR = "transpyle_driver"

_TEMPORARY = re.compile(r"_t\d+$")
_COMPARE = {gast.Eq: operator.eq, gast.NotEq: operator.ne, gast.Lt: operator.lt, gast.LtE: operator.le,
            gast.Gt: operator.gt, gast.GtE: operator.ge}
_BINARY = {gast.Add: operator.add, gast.Sub: operator.sub, gast.Mult: operator.mul, gast.Div: operator.truediv,
           gast.FloorDiv: operator.floordiv, gast.Mod: operator.mod, gast.Pow: operator.pow}
_UNARY = {gast.USub: operator.neg, gast.UAdd: operator.pos, gast.Not: operator.not_}
# library calls that write into their arguments or draw random numbers: never dropped
_WRITERS = {"copyto", "put", "place", "putmask", "fill_diagonal", "at", "random", "seed", "shuffle"}
_ALLOCATIONS = {"zeros", "ones", "empty", "full", "copy", "array", "zeros_like", "ones_like", "empty_like",
                "full_like", "eye"}
_PURE_BUILTINS = {"abs", "min", "max", "len", "float", "int", "bool", "complex", "round", "range"}
_PURE_METHODS = {"copy", "reshape", "ravel", "flatten", "transpose", "astype", "conj", "conjugate", "sum", "mean",
                 "max", "min", "prod", "dot", "item"}
# run-time helpers that only compute: the marker of a checkpointed function's body (frontend/remat)
_PURE_RUNTIME = {"recompute_here"}


def run(tree, ctx):
    """Tidy ``tree`` and the helpers it calls (``ctx.helpers``)."""
    for fn in ctx.helpers + [tree]:
        tidy_function(fn, ctx)
    if ctx.array_form is not None:
        tidy_function(ctx.array_form, ctx)
    return tree


def tidy_function(fn, ctx):
    """Fold constants, remove what nothing needs and comment the source lines of one function."""
    groups = source_comments.comment_groups(fn.body, {}, ctx)
    fold_constants(fn)
    remove_dead(fn, ctx)
    alive = {id(n) for n in gast.walk(fn)}
    emptied = {c for c, members in groups.items() if members and not members & alive}
    if not getattr(fn, DRIVER_ATTR, False) and not source_comments.has_source_comments(fn):
        fn.body = source_comments.commented(fn.body, ctx, [None])
    fn.body = source_comments.without_dangling_comments(fn.body, emptied)
    return fn


# ---- constants ----------------------------------------------------------------------------------
def fold_constants(fn):
    """Temporaries assigned once from numbers replaced by their values; operations on numbers computed."""
    while True:
        _Folder().visit(fn)
        counts = _assignment_counts(fn)
        values = {}
        for s in gast.walk(fn):
            if isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name) and \
                    _TEMPORARY.match(s.targets[0].id) and counts.get(s.targets[0].id) == 1 and \
                    _number(s.value) is not None:
                values[s.targets[0].id] = s.value.value
        if not values:
            return fn
        _Substituted(values).visit(fn)
        _drop(fn, lambda s: isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and
              s.targets[0].id in values)


def _number(node):
    if isinstance(node, gast.Constant) and isinstance(node.value, (bool, int, float)):
        return node.value
    return None


class _Folder(gast.NodeTransformer):
    """Operations whose operands are all numbers, computed (as Python computes them)."""

    def visit_BinOp(self, node):
        self.generic_visit(node)
        a, b = _number(node.left), _number(node.right)
        op = _BINARY.get(type(node.op))
        if isinstance(node.op, gast.Pow) and b == 1 and not isinstance(b, bool) and a is None:
            return node.left            # x ** 1 (a power rule's exponent, folded): x itself
        if a is None or b is None or op is None or op is operator.pow and abs(b) > 64:
            return node
        return _constant_like(node, op, a, b)

    def visit_Compare(self, node):
        self.generic_visit(node)
        op = _COMPARE.get(type(node.ops[0])) if len(node.ops) == 1 else None
        a, b = _number(node.left), _number(node.comparators[0])
        if a is None or b is None or op is None:
            return node
        return _constant_like(node, op, a, b)

    def visit_Call(self, node):
        self.generic_visit(node)
        values = [_number(a) for a in node.args]
        if isinstance(node.func, gast.Name) and node.func.id in ("max", "min") and len(values) > 1 and \
                not node.keywords and None not in values:
            return _constant_like(node, max if node.func.id == "max" else min, *values)
        return node

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        a, op = _number(node.operand), _UNARY.get(type(node.op))
        if a is None or op is None or op is operator.neg and isinstance(a, bool):
            return node
        return _constant_like(node, op, a)


def _constant_like(node, op, *args):
    try:
        value = op(*args)
    except (ArithmeticError, ValueError, OverflowError):
        return node
    if isinstance(value, float) and not math.isfinite(value):
        return node
    return gast.copy_location(gast.Constant(value=value, kind=None), node)


class _Substituted(gast.NodeTransformer):
    def __init__(self, values):
        self.values = values

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load) and node.id in self.values:
            return gast.copy_location(gast.Constant(value=self.values[node.id], kind=None), node)
        return node


def _assignment_counts(fn):
    counts = {a.id: 1 for a in fn.args.args}
    for n in gast.walk(fn):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
            counts[n.id] = counts.get(n.id, 0) + 1
        elif isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name):
            counts[n.target.id] = counts.get(n.target.id, 0) + 1
    return counts


# ---- dead statements ----------------------------------------------------------------------------
def remove_dead(fn, ctx=None):
    """Statements whose results nothing needs, removed (mark and sweep): a statement is needed when it
    changes something outside the names it assigns (a return, a call that writes, a write into an
    argument or a view), or assigns a name a needed statement reads; so is every loop or branch
    holding a needed statement. A write into an array the function made (not a view of another)
    assigns that array."""
    fresh = _fresh_arrays(fn)
    scalars = {v for v, k in ctx.kinds.items() if getattr(k, "ndim", None) == 0} if ctx is not None else set()
    simple = []                                       # (statement, the loops and branches around it)

    def collect(stmts, around):
        for s in stmts:
            if isinstance(s, (gast.For, gast.While, gast.If)):
                collect(s.body, around + (s,))
                collect(s.orelse, around + (s,))
            else:
                simple.append((s, around))
    collect(fn.body, ())
    defines = {id(s): _defined(s, fresh, scalars) for s, _ in simple}
    needed_names, needed = set(), set()
    changed = True
    while changed:
        changed = False
        for s, around in simple:
            if id(s) in needed:
                continue
            d = defines[id(s)]
            if d is None or d & needed_names:
                needed.add(id(s))
                changed = True
                needed_names |= _loaded(s)
                for c in around:
                    if id(c) not in needed:
                        needed.add(id(c))
                        needed_names |= _loaded(c.test if not isinstance(c, gast.For) else c.iter)
                        if isinstance(c, gast.For) and not _pure(c.iter):
                            needed_names |= _names(c.target)
    # loops and branches whose header does something are kept, with what their body needs
    for s, around in simple:
        for c in around:
            header = c.iter if isinstance(c, gast.For) else c.test
            if not _pure(header) and id(c) not in needed:
                needed.add(id(c))
    fn.body = _swept(fn.body, needed)
    before = sum(1 for _ in gast.walk(fn))
    fn.body = _live_before(fn.body, set(), scalars, remove=True)[1]
    if sum(1 for _ in gast.walk(fn)) != before:         # what the overwritten values read may be dead now
        return remove_dead(fn, ctx)
    return fn


def _live_before(stmts, after, scalars, remove):
    """(the names live before ``stmts`` when ``after`` are live after them, the statements without the
    assignments of a name assigned again before it is read: a value overwritten on every path).
    Loops are taken to a fixed point; only assignments of names to pure values are removed."""
    live, kept = set(after), []
    for s in reversed(stmts):
        if isinstance(s, (gast.For, gast.While)) and not s.orelse:
            header = s.iter if isinstance(s, gast.For) else s.test
            loop_live = set(live) | _loaded(header)
            while True:                  # the names live at the top of the body, around the loop
                inner = _live_before(s.body, loop_live, scalars, False)[0]
                if isinstance(s, gast.For):
                    inner -= _names(s.target)
                if inner <= loop_live:
                    break
                loop_live |= inner
            if remove:
                s.body = _live_before(s.body, loop_live, scalars, True)[1] or [gast.Pass()]
            live = loop_live
        elif isinstance(s, gast.If):
            body_live, body = _live_before(s.body, live, scalars, remove)
            else_live, orelse = _live_before(s.orelse, live, scalars, remove)
            if remove:
                s.body, s.orelse = body or [gast.Pass()], orelse
            live = body_live | else_live | _loaded(s.test)
        elif isinstance(s, (gast.For, gast.While, gast.Try, gast.With)):
            live |= {n.id for n in gast.walk(s) if isinstance(n, gast.Name)}     # left as it is
        else:
            assigned = _assigned_value(s, scalars)
            if assigned is not None and remove and not assigned & live:
                continue
            if assigned is not None and not isinstance(s, gast.AugAssign):
                live -= assigned
            live |= _loaded(s)
        kept.append(s)
    return live, kept[::-1]


def _assigned_value(s, scalars):
    """The names a statement assigns a pure value to (``x = e``, ``a, b = e``, ``n += 1`` on a number),
    or None."""
    if isinstance(s, gast.Assign) and _pure(s.value) and all(
            isinstance(t, gast.Name) or isinstance(t, gast.Tuple) and all(isinstance(e, gast.Name) for e in t.elts)
            for t in s.targets):
        return set().union(*(_names(t) for t in s.targets))
    if isinstance(s, gast.AugAssign) and isinstance(s.target, gast.Name) and s.target.id in scalars and \
            _pure(s.value):
        return {s.target.id}
    return None


def _swept(stmts, needed):
    out = []
    for s in stmts:
        if isinstance(s, (gast.For, gast.While, gast.If)):
            if id(s) not in needed:
                continue
            s.body = _swept(s.body, needed) or [gast.Pass()]
            s.orelse = _swept(s.orelse, needed)
        elif not (is_comment(s) or isinstance(s, gast.Pass)) and id(s) not in needed:
            continue
        out.append(s)
    return out


def _fresh_arrays(fn):
    """Names only ever assigned a new array (``np.zeros(...)``, ``np.copy(u0)``): writes into them
    change nothing else."""
    fresh = {a.id: False for a in fn.args.args}
    for s in gast.walk(fn):
        if isinstance(s, gast.Assign):
            for t in s.targets:
                if isinstance(t, gast.Name):
                    fresh[t.id] = fresh.get(t.id, True) and _allocation(s.value)
                elif not isinstance(t, gast.Subscript):
                    for name in _names(t):
                        fresh[name] = False
        elif isinstance(s, (gast.For, gast.AugAssign, gast.AnnAssign)) and not isinstance(getattr(s, "target"),
                                                                                       gast.Subscript):
            for name in _names(s.target):
                fresh[name] = False
    return {name for name, ok in fresh.items() if ok}


def _allocation(node):
    """A call that makes a new array (so writes into it change nothing else)."""
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
        isinstance(node.func.value, gast.Name) and node.func.value.id == "np" and \
        node.func.attr in _ALLOCATIONS and _pure(node)


def _defined(s, fresh, scalars):
    """The names a removable statement assigns (a set), or None for a statement that must stay
    (``x += v`` writes into the array ``x`` refers to, unless ``x`` is a number or a new array)."""
    if is_comment(s) or isinstance(s, gast.Pass):
        return set()
    if isinstance(s, gast.Expr):
        return set() if _pure(s.value) else None
    if isinstance(s, gast.Assign):
        targets, value = s.targets, s.value
    elif isinstance(s, gast.AugAssign) and isinstance(s.target, gast.Name) and s.target.id not in fresh | scalars:
        return None
    elif isinstance(s, (gast.AugAssign, gast.AnnAssign)) and s.value is not None:
        targets, value = [s.target], s.value
    else:
        return None
    if not _pure(value):
        return None
    out = set()
    for t in targets:
        if isinstance(t, gast.Subscript) and isinstance(t.value, gast.Name) and t.value.id in fresh and _pure(t):
            out.add(t.value.id)
        elif isinstance(t, gast.Name) or isinstance(t, gast.Tuple) and all(isinstance(e, gast.Name) for e in t.elts):
            out |= _names(t)
        else:
            return None
    return out


def _loaded(node):
    """The names ``node`` reads (``x += v`` reads ``x``)."""
    read = {n.id for n in gast.walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}
    return read | _names(node.target) if isinstance(node, gast.AugAssign) else read


def _names(target):
    return {n.id for n in gast.walk(target) if isinstance(n, gast.Name)}


def _pure(node):
    """Whether evaluating ``node`` changes nothing (it reads, computes, or allocates)."""
    for n in gast.walk(node):
        if isinstance(n, gast.Call):
            if not _pure_call(n.func):
                return False
        elif isinstance(n, (gast.Lambda, gast.NamedExpr, gast.Yield, gast.YieldFrom, gast.Await)):
            return False
    return True


def _pure_call(func):
    if isinstance(func, gast.Name):
        return func.id in _PURE_BUILTINS
    parts = []
    while isinstance(func, gast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, gast.Name) and func.id in ("np", "math"):
        return not _WRITERS & set(parts)
    if isinstance(func, gast.Name) and func.id == "rt":
        return len(parts) == 1 and parts[0] in _PURE_RUNTIME
    return len(parts) == 1 and parts[0] in _PURE_METHODS


def _drop(fn, dropped):
    def keep(stmts):
        out = []
        for s in stmts:
            if dropped(s):
                continue
            for field in ("body", "orelse"):
                if isinstance(getattr(s, field, None), list) and not isinstance(s, gast.FunctionDef):
                    setattr(s, field, keep(getattr(s, field)))
            if isinstance(s, (gast.For, gast.While, gast.If)) and not s.body:
                s.body = [gast.Pass()]
            out.append(s)
        return out
    fn.body = keep(fn.body)
