"""lower_calls: library calls whose full NumPy form Numba lacks become code it has. Reductions with
``axis`` or ``keepdims`` become calls to run-time helpers with the same NumPy semantics, as each
rule's ``lower`` says; a matrix function applied to a stack of matrices (leading dimensions, see
``matrix`` in ``rules/matrices.py``) becomes a loop over the stack applying it to each matrix, which
every transform then handles like any loop. A rule may write its call as an expression of other primitives
whose form depends on ranks (``np.einsum`` with an ellipsis, ``np.pad`` of every axis): its nested calls
become statements of fresh temporaries, each with its kind from its rule and lowered in turn. Runs after
``infer``, since the choice depends on ranks."""
import copy

import gast

from ..base.ast_utils import assign, const, dotted, name, parse_expr
from ..base.kinds import INT
from ..rules.primitives import is_atom, lookup
from ..rules.common import StaticError
from .infer import operand_kinds


def _statement(s, ctx):
    """``s`` with its call lowered: a list of statements."""
    value = s.value
    # operators too: `a @ b` is lowered as np.matmul(a, b) is
    if not isinstance(value, (gast.Call, gast.BinOp)) or not isinstance(s.targets[0], gast.Name):
        return [s]
    prim, bound = lookup(value)
    if prim is None:
        return [s]
    kinds = operand_kinds(ctx, prim, bound)
    _respell_alias(value, prim, kinds)
    if prim.stack_depth(kinds):
        return _unstack(s, prim, bound, kinds, ctx)
    if prim.lower is None:
        return [s]
    try:
        new = prim.lower(bound, kinds, bound)
    except StaticError as exc:
        raise ctx.error(s, f"{prim.key}: {exc}", hint=exc.hint)
    if new is None:
        return [s]
    s.value = new
    before = []
    if _nested(new):
        flat = _Flattener(s, ctx)
        s.value, before = flat.operands(new), flat.before
    written = lookup(s.value)[0]
    # the call written may need lowering of its own (np.sum along an axis)
    return before + (_statement(s, ctx) if written is not None and written is not prim else [s])


#: spellings of a primitive that Numba takes only on numbers (builtins that are NumPy functions, ``np.array``
#: of an array: a copy), or only on contiguous arrays (``np.reshape``), and what compiled code calls instead
#: for arrays (None: the primitive's own NumPy name)
_ALIASES = {"abs": None, "max": None, "min": None, "round": None, "np.array": None, "np.reshape": "rt.reshape"}


def _respell_alias(value, prim, kinds):
    """``abs(x)``, ``max(a, b)``, ``round(x, 2)``, ``np.array(x)``, ``np.reshape(x, s)`` with an array
    operand: spelled as a function Numba compiles (``np.abs``, ``np.maximum``, ``np.round``, ``np.copy``,
    ``rt.reshape``)."""
    spelled = dotted(value.func) if isinstance(value, gast.Call) else None
    if spelled not in _ALIASES or not any(getattr(k, "ndim", 0) for k in kinds.values()):
        return
    target = _ALIASES[spelled] or (prim.key if prim.key.startswith("np.") else None)
    if target is not None and target != spelled:
        value.func = parse_expr(target)


def _unstack(s, prim, bound, kinds, ctx):
    """``y = f(a)`` for a stack ``a``: the first matrix's result sets the shape of ``y``, then a loop
    writes ``y[b] = f(a[b])``; a deeper stack is lowered again inside the loop."""
    stack = bound[prim.stacks]
    mapped = [bound[p] for p in prim.mapped_operands(kinds)]
    target = s.targets[0].id
    out_kind = ctx.kinds[target]
    namer = ctx.namer
    count, b = namer.fresh("_count"), namer.fresh("_b")
    first_out, item_out = namer.fresh("_result"), namer.fresh("_result")
    ctx.kinds.update({count: INT, b: INT, first_out: out_kind.with_ndim(out_kind.ndim - 1),
                      item_out: out_kind.with_ndim(out_kind.ndim - 1)})

    def located(stmt):
        return gast.copy_location(stmt, s)

    def items(index):
        """Statements taking item ``index`` of each mapped operand, and the call applied to them."""
        taken, replace = [], {}
        for operand in mapped:
            part = namer.fresh("_matrix")
            ctx.kinds[part] = ctx.expr_kind(operand).with_ndim(ctx.expr_kind(operand).ndim - 1)
            taken.append(located(assign(part, gast.Subscript(value=copy.deepcopy(operand), slice=copy.deepcopy(index),
                                                             ctx=gast.Load()))))
            replace[id(operand)] = part
        call = copy.deepcopy(s.value)
        for i, arg in enumerate(s.value.args):
            if id(arg) in replace:
                call.args[i] = name(replace[id(arg)])
        for kw, original in zip(call.keywords, s.value.keywords):
            if id(original.value) in replace:
                kw.value = name(replace[id(original.value)])
        return taken, call

    shape = gast.Subscript(value=gast.Attribute(value=copy.deepcopy(stack), attr="shape", ctx=gast.Load()),
                           slice=const(0), ctx=gast.Load())
    write = gast.Assign(targets=[gast.Subscript(value=name(target), slice=name(b), ctx=gast.Store())],
                        value=name(item_out), type_comment=None)
    taken, call = items(name(b))
    body = taken + _statement(located(assign(item_out, call)), ctx) + [located(write)]
    loop = gast.For(target=name(b, store=True), body=body, orelse=[], type_comment=None,
                    iter=gast.Call(func=name("range"), args=[const(0), name(count), const(1)], keywords=[]))
    taken, call = items(const(0))
    return [located(assign(count, shape))] + taken + _statement(located(assign(first_out, call)), ctx) + \
        [located(assign(target, gast.Call(func=gast.Attribute(value=name("rt"), attr="stack_like", ctx=gast.Load()),
                                          args=[name(count), name(first_out)], keywords=[]))), located(loop)]


# ---- expressions of primitives a rule writes a call as -----------------------------------------------
def _nested(value):
    """Whether a call, operation or tuple reads anything but atoms (and tuples or slices of them)."""
    return any(not _is_operand(node) for node in _direct_operands(value))


def _is_operand(node):
    if _is_name_attribute(node):
        return True
    if isinstance(node, (gast.Tuple, gast.List)):
        return all(_is_operand(e) for e in node.elts)
    if isinstance(node, gast.Slice):
        return all(b is None or is_atom(b) for b in (node.lower, node.upper, node.step))
    return is_atom(node)


def _is_name_attribute(node):
    """``np.float64``, ``x.dtype``: names of dtypes and facts that the rules read as written."""
    return isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name)


def _direct_operands(value):
    if isinstance(value, gast.Call):
        return list(value.args) + [kw.value for kw in value.keywords]
    if isinstance(value, gast.BinOp):
        return [value.left, value.right]
    if isinstance(value, gast.UnaryOp):
        return [value.operand]
    if isinstance(value, gast.Compare):
        return [value.left] + list(value.comparators)
    if isinstance(value, gast.Subscript):
        return [value.value] + (list(value.slice.elts) if isinstance(value.slice, gast.Tuple) else [value.slice])
    if isinstance(value, gast.Tuple):
        return list(value.elts)
    return []


class _Flattener:
    """Statements (``before``) computing the nested parts of a lowered expression into fresh temporaries,
    in the order they are read; a part written twice (the same primitive of the same operands: every
    primitive here is a pure function of its operands) is computed once."""

    def __init__(self, s, ctx):
        self.s, self.ctx = s, ctx
        self.before, self.known = [], {}

    def operands(self, value):
        """``value`` with every operand an atom."""
        atom = self.atom
        if isinstance(value, gast.Call):
            value.args = [atom(a) for a in value.args]
            for kw in value.keywords:
                kw.value = atom(kw.value)
        elif isinstance(value, gast.BinOp):
            value.left, value.right = atom(value.left), atom(value.right)
        elif isinstance(value, gast.UnaryOp):
            value.operand = atom(value.operand)
        elif isinstance(value, gast.Compare):
            value.left, value.comparators = atom(value.left), [atom(c) for c in value.comparators]
        elif isinstance(value, gast.Subscript):
            value.value, value.slice = atom(value.value), atom(value.slice)
        elif isinstance(value, gast.Tuple):
            value.elts = [atom(e) for e in value.elts]
        return value

    def atom(self, node):
        """An atom standing for ``node``: a nested expression is assigned to a temporary first."""
        if isinstance(node, (gast.Tuple, gast.List)):
            node.elts = [self.atom(e) for e in node.elts]
            return node
        if isinstance(node, gast.Slice):
            for part in ("lower", "upper", "step"):
                if getattr(node, part) is not None:
                    setattr(node, part, self.atom(getattr(node, part)))
            return node
        if is_atom(node) or _is_name_attribute(node):
            return node
        value = self.operands(node)
        key = gast.dump(value)
        if key not in self.known:
            temp = self.known[key] = self.ctx.namer.fresh("_t")
            self.ctx.kinds[temp] = self.kind(value)
            self.before.extend(_statement(gast.copy_location(assign(temp, value), self.s), self.ctx))
        return name(self.known[key])

    def kind(self, value):
        """The kind of a call of atoms, from its rule; of an operation on numbers or an index, as infer has it."""
        ctx = self.ctx
        if not isinstance(value, gast.Call):
            return ctx.expr_kind(value)
        prim, bound = lookup(value)
        if prim is None:
            raise ctx.error(self.s, bound)
        kinds = operand_kinds(ctx, prim, bound)
        for p, node in bound.items():
            if kinds.get(p) is None and is_atom(node):      # a shape fact: x.shape[0]
                kinds[p] = ctx.expr_kind(node)
        try:
            return prim.result_kind(kinds, bound)
        except StaticError as exc:
            raise ctx.error(self.s, f"{prim.key}: {exc}", hint=exc.hint)


def _block(stmts, ctx):
    out = []
    for s in stmts:
        if isinstance(s, (gast.For, gast.While, gast.If)):
            s.body = _block(s.body, ctx)
            s.orelse = _block(s.orelse, ctx)
        out.extend(_statement(s, ctx) if isinstance(s, gast.Assign) else [s])
    return out


def run(tree, ctx):
    tree.body = _block(tree.body, ctx)
    return tree
