"""generator_reductions: ``sum``, ``max``, ``min``, ``any`` and ``all`` of a generator or a list
comprehension (``sum(x[i] * w[i] for i in range(n) if m[i])``) become the loop they run, before anything
else reads the function: an accumulator assigned before the statement, one loop per ``for`` clause, an
``if`` per condition, and the accumulator in the call's place.

``sum`` starts at 0 (or its ``start``) and adds; ``max``/``min`` take the first element, then the larger
(smaller) of each pair, as the builtins do (``np.maximum``'s tie rule); ``any``/``all`` join the truth of each (``v != 0``).
Loop variables get fresh names, since a generator's own do not leak into the function. As for
assignment expressions, the call must be evaluated wherever its statement runs (not after ``and``/``or``
or in a conditional expression), and ``key=``/``default=`` are refused (``builtins_on_arrays``).
"""
import builtins
import copy

import gast

from ..base.ast_utils import name

_REDUCED = ("sum", "max", "min", "any", "all")
_SOMETIMES = (gast.IfExp, gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


def lower(fn, ctx, namespace, local):
    """Rewrite the reductions of generators in ``fn``; ``namespace`` and ``local`` tell whether ``sum``
    and the others are the builtins there."""
    builtin = {f for f in _REDUCED if f not in local and namespace.get(f, getattr(builtins, f)) is getattr(builtins, f)}
    if builtin:
        fn.body = _block(fn.body, ctx, builtin)


def _block(stmts, ctx, builtin):
    out = []
    for s in stmts:
        for field in ("body", "orelse"):
            if isinstance(getattr(s, field, None), list):
                setattr(s, field, _block(getattr(s, field), ctx, builtin))
        found = []
        if not isinstance(s, gast.FunctionDef):
            _collect(s, found, builtin, sometimes=False)
        if found and isinstance(s, gast.While):
            raise ctx.error(found[0][0], f"{found[0][0].func.id}() of a generator in a while test is not supported",
                            construct=f"{found[0][0].func.id}(...)", hint="compute it before the loop and at the "
                                                                          "end of its body")
        for call, parent, field, k in found:
            acc = ctx.namer.fresh(f"_{call.func.id}")
            out.extend(_loops(call, acc, ctx, s))
            replacement = gast.copy_location(name(acc), call)
            if k is None:
                setattr(parent, field, replacement)
            else:
                getattr(parent, field)[k] = replacement
        out.append(s)
    return out


def _collect(node, found, builtin, sometimes):
    """(call, parent, field, index) of each reduction of a generator under ``node``, innermost first."""
    for field, value in gast.iter_fields(node):
        children = value if isinstance(value, list) else [value]
        for k, child in enumerate(children):
            if not isinstance(child, gast.AST) or isinstance(child, gast.stmt):
                continue            # the statements of a block are visited on their own
            later = sometimes or isinstance(node, (gast.IfExp, gast.Lambda)) or \
                isinstance(node, gast.BoolOp) and field == "values" and k > 0
            if isinstance(child, (gast.GeneratorExp, gast.ListComp)):
                continue            # one inside another generator is that generator's business
            _collect(child, found, builtin, later)
            if _is_reduction(child, builtin) and not later:
                found.append((child, node, field, k if isinstance(value, list) else None))


def _is_reduction(node, builtin):
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id in builtin and \
        len(node.args) >= 1 and isinstance(node.args[0], (gast.GeneratorExp, gast.ListComp)) and \
        not node.keywords and (len(node.args) == 1 or node.func.id == "sum" and len(node.args) == 2)


def _loops(call, acc, ctx, s):
    """The statements computing ``call`` into ``acc``."""
    what, gen = call.func.id, call.args[0]
    renamed = {}
    for comp in gen.generators:
        if comp.is_async or not isinstance(comp.target, (gast.Name, gast.Tuple)):
            raise ctx.error(gen, "this generator is not supported", hint="write the loop out")
        for n in gast.walk(comp.target):
            if isinstance(n, gast.Name):
                renamed.setdefault(n.id, ctx.namer.fresh(n.id))
    gen = _renamed(copy.deepcopy(gen), renamed)
    value = gen.elt
    if what == "sum":
        start = call.args[1] if len(call.args) == 2 else gast.Constant(value=0, kind=None)
        before = [_assign(acc, start)]
        inner = [_assign(acc, gast.BinOp(left=name(acc), op=gast.Add(), right=value))]
    elif what in ("any", "all"):
        before = [_assign(acc, gast.Constant(value=what == "all", kind=None))]
        op = gast.Or() if what == "any" else gast.And()
        truth = gast.Compare(left=value, ops=[gast.NotEq()], comparators=[gast.Constant(value=0, kind=None)])
        inner = [_assign(acc, gast.BoolOp(op=op, values=[name(acc), truth]))]
    else:
        seen = ctx.namer.fresh("_seen")
        before = [_assign(acc, gast.Constant(value=0, kind=None)), _assign(seen, gast.Constant(value=False, kind=None))]
        pair = gast.Call(func=name(what), args=[name(acc), copy.deepcopy(value)], keywords=[])
        inner = [gast.If(test=name(seen), body=[_assign(acc, pair)],
                         orelse=[_assign(acc, value), _assign(seen, gast.Constant(value=True, kind=None))])]
    body = inner
    for comp in reversed(gen.generators):
        for cond in reversed(comp.ifs):
            body = [gast.If(test=cond, body=body, orelse=[])]
        body = [gast.For(target=comp.target, iter=comp.iter, body=body, orelse=[], type_comment=None)]
    return [_located(t, s) for t in before + body]


def _assign(target, value):
    return gast.Assign(targets=[name(target, store=True)], value=value, type_comment=None)


def _located(stmt, s):
    for n in gast.walk(stmt):
        if hasattr(n, "lineno") or isinstance(n, (gast.stmt, gast.expr)):
            if getattr(n, "lineno", None) is None:
                gast.copy_location(n, s)
    return stmt


def _renamed(gen, renamed):
    for n in gast.walk(gen):
        if isinstance(n, gast.Name) and n.id in renamed:
            n.id = renamed[n.id]
    return gen
