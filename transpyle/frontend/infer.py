"""infer: the kind (dtype class and rank) of every variable, from the kinds of the arguments.

Each primitive's kind rule gives its result; a variable assigned several times takes the
promoted kind (``r = 0`` then ``r += x`` is a float), but may not change rank. Loops are
walked until nothing changes.
"""
import gast

from ..base.ast_utils import const, name
from ..base.context import DeferredCall, NeedKinds
from ..base.kinds import BOOL, FLOAT, INT, Kind, TupleKind, promote
from ..rules.primitives import is_shape_expr, lookup
from ..rules.advanced import indexed_ndim
from ..rules.common import StaticError
from ..rules import strong_zeros
from .dtypes import DtypeNames


class KindMap(dict):
    """Kinds of a primitive's operands; ``env_rank`` answers the rank of a named array."""

    def __init__(self, values, env):
        super().__init__(values)
        self.env = env

    def env_rank(self, var):
        if isinstance(var, gast.Name) and var.id in self.env:
            return self.env[var.id].ndim
        raise StaticError("the shape must be a tuple or another array's .shape")


def constant_kind(value):
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int):
        return INT
    if isinstance(value, float):
        return FLOAT
    if isinstance(value, complex):
        return Kind("complex128")
    return None


class _Infer:
    def __init__(self, ctx):
        self.ctx = ctx
        self.kinds = dict(ctx.arg_kinds)
        self.changed = False
        self.dtypes = DtypeNames(ctx, self.expr_kind)

    def _optional_kind(self, node):
        """The kind of an optional argument written as index arithmetic or a basic part (``n + 1``,
        ``x[-1]``), else None (a shape tuple, an axis list: read by the rule as written)."""
        if not isinstance(node, (gast.BinOp, gast.UnaryOp, gast.Subscript)):
            return None
        try:
            return self.expr_kind(node)
        except Exception:        # a form only the rule reads
            return None

    def expr_kind(self, node):
        """Kind of an atom, shape fact or index expression."""
        if isinstance(node, gast.Constant):
            return constant_kind(node.value)
        if isinstance(node, gast.Name):
            if node.id in self.dtypes.held:
                raise self.ctx.error(node, f"'{node.id}' holds a dtype, which is not a value here",
                                     hint="pass it as the dtype of a constructor, astype or asarray")
            if node.id not in self.kinds:
                raise self.ctx.error(node, f"'{node.id}' is used before it is assigned",
                                     hint="assign it before the first use (also before loops and branches)")
            return self.kinds[node.id]
        if isinstance(node, gast.Attribute) and node.attr == "shape":
            return TupleKind((INT,) * self.expr_kind(node.value).ndim)
        if isinstance(node, gast.Attribute) and node.attr == "T":     # in rule templates: np.dot(x.T, g)
            return self.expr_kind(node.value)
        if is_shape_expr(node):
            return INT
        if isinstance(node, gast.BinOp):
            left, right = self.expr_kind(node.left), self.expr_kind(node.right)
            if isinstance(left, TupleKind) or isinstance(right, TupleKind):
                raise self.ctx.error(node, "arithmetic on a tuple that is not written out is not supported",
                                     hint="build the shape from tuples written out, an argument's .shape and "
                                          ".ndim, and integer constants: (1,) * x.ndim + (-1,)")
            k = promote(left, right)
            return k.with_dtype("float64") if isinstance(node.op, gast.Div) else k
        if isinstance(node, gast.Compare):        # in rule templates: (b == 0)
            sides = [self.expr_kind(e) for e in [node.left] + node.comparators]
            return BOOL.with_ndim(max(k.ndim for k in sides))
        if isinstance(node, gast.UnaryOp):
            inner = self.expr_kind(node.operand)
            return BOOL if isinstance(node.op, gast.Not) else inner
        if isinstance(node, gast.Subscript):
            base = self.expr_kind(node.value)
            self.expand_ellipsis(node, base)
            if isinstance(base, TupleKind):
                return base.items[node.slice.value] if isinstance(node.slice, gast.Constant) else base.items[0]
            try:
                return base.with_ndim(indexed_ndim(base.ndim, self.index_parts(node.slice)))
            except StaticError as exc:
                raise self.ctx.error(node, f"indexing: {exc}", hint=exc.hint or "see docs/subset.md")
        if isinstance(node, gast.Call):
            fname = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            if fname in ("len", "int", "trip_count"):
                return INT
            if fname == "float":
                return FLOAT
            kinds = [self.expr_kind(a) for a in node.args]
            if None in kinds and lookup(node)[0] is not None:
                # a nested primitive call, as in generated declarations: rt.array_tape(np.empty(...))
                return self.rhs_kind(node, node)
            return promote(*kinds) if kinds else INT
        if isinstance(node, (gast.Tuple, gast.List)):
            return TupleKind(tuple(self.expr_kind(e) for e in node.elts))
        return None

    def expand_ellipsis(self, node, base):
        """``x[..., i]``: the ``...`` becomes as many ``:`` as the axes the rest of the index leaves
        (the rank is known here, and every later pass sees an index of slices and integers). An index held
        in a tuple variable (``x[t]``, ``t = np.nonzero(m)``) becomes the tuple of its items first."""
        held = self.expr_kind(node.slice) if isinstance(node.slice, gast.Name) else None
        if isinstance(held, TupleKind) and isinstance(base, Kind):
            node.slice = gast.Tuple(elts=[gast.Subscript(value=name(node.slice.id), slice=const(i), ctx=gast.Load())
                                          for i in range(len(held.items))], ctx=gast.Load())
        elts = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
        dots = [e for e in elts if isinstance(e, gast.Constant) and e.value is Ellipsis]
        if not dots or not isinstance(base, Kind):
            return
        if len(dots) > 1:
            raise self.ctx.error(node, "an index can only have a single ellipsis ('...')")
        used = 0
        for e in elts:
            if e is dots[0] or (isinstance(e, gast.Constant) and e.value is None):
                continue
            k = None if isinstance(e, gast.Slice) else self.expr_kind(e)
            used += k.ndim if isinstance(k, Kind) and k.dtype == "bool" and k.ndim else 1
        if used > base.ndim:
            raise self.ctx.error(node, f"too many indices for an array of rank {base.ndim}")
        at = elts.index(dots[0])
        filled = elts[:at] + [gast.Slice(lower=None, upper=None, step=None)
                              for _ in range(base.ndim - used)] + elts[at + 1:]
        node.slice = filled[0] if len(filled) == 1 else gast.Tuple(elts=filled, ctx=gast.Load())

    def index_parts(self, index):
        elts = index.elts if isinstance(index, gast.Tuple) else [index]
        parts = []
        for e in elts:
            if isinstance(e, gast.Slice):
                for b in (e.lower, e.upper, e.step):
                    if b is not None:
                        self.check_int(b)
                parts.append("slice")
            elif isinstance(e, gast.Constant) and e.value is None:
                parts.append("newaxis")
            else:
                k = self.check_int(e)
                parts.append(k)
        return parts

    def check_int(self, node):
        k = self.expr_kind(node)
        if k is None or isinstance(k, TupleKind) or k.is_float:
            raise self.ctx.error(node, f"an index must be an integer, not {k}",
                                 hint="convert with int(...) (indices are not differentiated)")
        return k

    def rhs_kind(self, rhs, stmt):
        if isinstance(rhs, gast.Constant) or isinstance(rhs, gast.Name) or is_shape_expr(rhs) or \
                isinstance(rhs, gast.Attribute):
            return self.expr_kind(rhs)
        if isinstance(rhs, gast.Tuple):
            return TupleKind(tuple(self.expr_kind(e) for e in rhs.elts))
        if isinstance(rhs, gast.UnaryOp) and isinstance(rhs.operand, gast.Constant):
            return self.expr_kind(rhs)
        if self.dtypes.compared(rhs, stmt) is not None:
            return BOOL
        if isinstance(rhs, gast.Subscript):
            self.expand_ellipsis(rhs, self.expr_kind(rhs.value))
        prim, bound = lookup(rhs)
        if prim is None:
            raise self.ctx.error(stmt, bound, hint="see docs/subset.md")
        bound = {p: self.dtypes.concrete(node) for p, node in bound.items()}     # x.dtype: its kind's dtype
        kinds = {}
        for p, node in bound.items():
            if p == "index":
                kinds[p] = self.index_parts(node)
            elif prim.varargs and p == prim.params[0]:
                if not isinstance(node, (gast.Tuple, gast.List)):
                    raise self.ctx.error(stmt, f"{prim.key} of one array (its rows as the arrays joined) is not "
                                               "supported", hint=f"list the arrays: {prim.key}((a, b, c)); a list "
                                                                 "built by appends is an array of its items: "
                                                                 "np.array(L) stacks them")
                kinds[p] = [self.expr_kind(e) for e in node.elts]
            elif p in prim.diff or p not in prim.defaults:
                k = self.expr_kind(node) if not isinstance(node, (gast.Tuple, gast.List)) or p != "shape" else None
                kinds[p] = k
            elif isinstance(node, (gast.Name, gast.Constant)):
                kinds[p] = self.expr_kind(node)
            else:
                kinds[p] = self._optional_kind(node)
        try:
            return prim.result_kind(KindMap(kinds, self.kinds), bound)
        except StaticError as exc:
            raise self.ctx.error(stmt, f"{prim.key}: {exc}", hint=exc.hint or "see docs/subset.md")
        except (KeyError, TypeError, AttributeError, IndexError) as exc:
            raise self.ctx.error(stmt, f"{prim.key} is not supported with these operands ({exc})",
                                 hint="see docs/subset.md")

    def set(self, var, kind, stmt):
        if kind is None:
            raise self.ctx.error(stmt, "cannot tell the type of this value")
        old = self.kinds.get(var)
        if old is None:
            self.kinds[var] = kind
            self.changed = True
            return
        if isinstance(old, TupleKind) or isinstance(kind, TupleKind):
            if old != kind:
                raise self.ctx.error(stmt, f"'{var}' changes type from {old} to {kind}")
            return
        if old.ndim != kind.ndim:
            raise self.ctx.error(stmt, f"'{var}' changes rank from {old} to {kind}",
                                 hint="use a new variable name for the value of the other rank")
        merged = promote(old, kind) if old.dtype != kind.dtype else old
        if merged != old:
            self.kinds[var] = merged
            self.changed = True

    def block(self, stmts):
        for s in stmts:
            if isinstance(s, gast.Assign) and isinstance(s.value, gast.Call) and \
                    isinstance(s.value.func, gast.Name) and \
                    isinstance(self.ctx.functions.get(s.value.func.id), DeferredCall):
                raise NeedKinds(s.value.func.id, tuple(self.expr_kind(a) for a in s.value.args))
            if isinstance(s, gast.Assign):
                t = s.targets[0]
                if isinstance(t, gast.Name) and self.dtypes.refers(s.value):
                    self.dtypes.record(t.id, s.value, s)
                elif isinstance(t, gast.Name):
                    self.set(t.id, self.rhs_kind(s.value, s), s)
                else:
                    base = self.expr_kind(t.value)
                    if not isinstance(base, Kind) or not base.is_array:
                        raise self.ctx.error(s, f"cannot write into '{t.value.id}' of type {base}")
                    self.expand_ellipsis(t, base)
                    self.index_parts(t.slice)
                    value = self.expr_kind(s.value)
                    if value.is_float and not base.is_float:
                        raise self.ctx.error(s, f"writing a float into the integer array '{t.value.id}'",
                                             hint="create the array with a float dtype (np.zeros(n))")
            elif isinstance(s, gast.For):
                for b in s.iter.args:
                    self.check_int(b)
                self.set(s.target.id, INT, s)
                self.loop(s.body)
            elif isinstance(s, gast.While):
                self.expr_kind(s.test)
                self.loop(s.body)
            elif isinstance(s, gast.If):
                self.expr_kind(s.test)
                self.block(s.body)
                self.block(s.orelse)
            elif isinstance(s, gast.Return):
                self.expr_kind(s.value)

    def loop(self, body):
        for _ in range(4):
            self.changed = False
            self.block(body)
            if not self.changed:
                return


def run(tree, ctx):
    inf = _Infer(ctx)
    inf.block(tree.body)
    tree.body = inf.dtypes.rewrite(tree.body)
    ctx.kinds = inf.kinds
    ctx.expr_kind = inf.expr_kind
    return tree


def rule_for(ctx, stmt, value, direction):
    """(primitive, bound operands, templates) for the right-hand side ``value`` of ``stmt``, with the
    ``"vjp"`` or ``"jvp"`` templates for these operand kinds; errors name the user's line."""
    prim, bound = lookup(value)
    if prim is None:
        raise ctx.error(stmt, bound)
    try:
        kinds = operand_kinds(ctx, prim, bound)
        templates = prim.vjp_templates(kinds, bound) if direction == "vjp" else prim.jvp_templates(kinds, bound)
        if isinstance(templates, dict) and strong_zeros.applies(prim, bound, ctx.options.get("strong_zeros")):
            numbers = all(isinstance(k, Kind) and k.ndim == 0 for k in kinds.values() if k is not None)
            templates = strong_zeros.guarded(templates, prim, bound, numbers)
    except StaticError as exc:
        raise ctx.error(stmt, f"{prim.key}: {exc}", hint=exc.hint)
    return prim, bound, templates


def active_templates(templates, bound, active):
    """(parameter, operand node, template) for each rule template whose operand is active. A template
    keyed by a parameter that takes a tuple of operands is one rule for all of them, active when any
    of them is (the cotangents of a custom_vjp call come from one call of its rule)."""
    for key, template in templates.items():
        param, index = key if isinstance(key, tuple) else (key, None)
        operand = bound[param] if index is None else bound[param].elts[index]
        if isinstance(operand, gast.Name) and operand.id in active or \
                isinstance(operand, gast.Tuple) and any(isinstance(e, gast.Name) and e.id in active
                                                        for e in operand.elts):
            yield param, operand, template


def template_names(prim, bound, g, y):
    """What a template's names stand for: ``g`` (cotangent or tangent), ``y`` (the output), each
    parameter's operand, ``a0, a1, ...`` for the elements of a tuple of operands, and ``p0, p1, ...``
    for the elements of a tuple given to another parameter ``p``."""
    subs = {"g": g, "y": y}
    for p, node in bound.items():
        if prim.varargs and p == prim.params[0]:
            for i, e in enumerate(node.elts):
                subs[f"a{i}"] = e
        else:
            subs[p] = node
            if isinstance(node, gast.Tuple):
                subs.update({f"{p}{i}": e for i, e in enumerate(node.elts)})
    return subs


def operand_kinds(ctx, prim, bound):
    """The KindMap a rule sees for a primitive applied to ``bound`` operands (after ``run``)."""
    kinds = {}
    for p, node in bound.items():
        if p == "index":
            elts = node.elts if isinstance(node, gast.Tuple) else [node]
            kinds[p] = ["slice" if isinstance(e, gast.Slice) else
                        "newaxis" if isinstance(e, gast.Constant) and e.value is None else ctx.expr_kind(e)
                        for e in elts]
        elif prim.varargs and p == prim.params[0]:
            kinds[p] = [ctx.expr_kind(e) for e in node.elts]
        elif isinstance(node, (gast.Name, gast.Constant)) or \
                isinstance(node, gast.Attribute) and node.attr == "T" and isinstance(node.value, gast.Name):
            kinds[p] = ctx.expr_kind(node)        # x.T: in rule templates, read again by custom_rules
        elif isinstance(node, (gast.Subscript, gast.BinOp, gast.UnaryOp)):
            try:                                  # a basic part or index arithmetic left in place (x[:2], n + 1)
                kinds[p] = ctx.expr_kind(node)
            except Exception:       # a form the kind reading does not take: as any other operand
                kinds[p] = None
        else:
            kinds[p] = None
    return KindMap(kinds, ctx.kinds)
