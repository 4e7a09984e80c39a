"""named_expressions: assignment expressions (``if (n := len(x)) > 3:``) become the assignment before
their statement, and the name in their place, before anything else reads the function.

Python evaluates ``(v := e)`` where it stands and binds ``v``; moved before the statement, ``e`` is
evaluated first, which is the same wherever nothing in the statement before it reads ``v`` or runs only
on some paths. So these are refused by name: a ``:=`` inside ``and``/``or`` after the first operand, in a
conditional expression, a lambda or a comprehension (evaluated only sometimes), and one whose name the
statement reads before it (``v + (v := 2)``). A ``while`` test is evaluated again at the end of each
iteration: its assignments are repeated at the end of the body, and refused where the body has a
``continue``, which would skip them.
"""
import copy

import gast

from ..base.ast_utils import name

_OWN_FIELDS = {gast.If: ("test",), gast.While: ("test",), gast.For: ("iter",)}
_SOMETIMES = (gast.IfExp, gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


def hoist(fn, ctx):
    """Rewrite every assignment expression of ``fn`` (a FunctionDef, nested ones too)."""
    fn.body = _block(fn.body, ctx)
    return fn


def _block(stmts, ctx):
    out = []
    for s in stmts:
        for field in ("body", "orelse"):
            if isinstance(getattr(s, field, None), list):
                setattr(s, field, _block(getattr(s, field), ctx))
        before = _take(s, ctx)
        if before and isinstance(s, gast.While):
            if any(isinstance(n, gast.Continue) for n in _same_loop(s.body)):
                raise ctx.error(s, "an assignment expression (:=) in a while test of a loop with 'continue' is not "
                                   "supported", construct=":=", hint="assign before the loop and again before "
                                                                     "each 'continue' and at the end of the body")
            s.body = s.body + copy.deepcopy(before)
        out.extend(before)
        out.append(s)
    return out


def _same_loop(stmts):
    """The statements of a loop body, not those of loops nested in it."""
    for s in stmts:
        yield s
        if not isinstance(s, (gast.For, gast.While, gast.FunctionDef)):
            for field in ("body", "orelse"):
                yield from _same_loop(getattr(s, field, None) or [])


def _own_expressions(s):
    """The expressions of statement ``s`` itself (not of the statements in its blocks)."""
    if isinstance(s, gast.FunctionDef):
        return []
    fields = _OWN_FIELDS.get(type(s))
    if fields is None:
        fields = [f for f in s._fields if f not in ("body", "orelse")]
    out = []
    for f in fields:
        value = getattr(s, f, None)
        out.extend(v for v in (value if isinstance(value, list) else [value]) if isinstance(v, gast.AST))
    return out


def _take(s, ctx):
    """The assignments the assignment expressions of ``s`` stand for, in evaluation order; each one in
    ``s`` is replaced by its name."""
    found = []
    if not isinstance(s, gast.FunctionDef):
        _collect(s, found, ctx, sometimes=False)
    if not found:
        return []
    reads = [n for expr in _own_expressions(s) for n in gast.walk(expr) if isinstance(n, gast.Name)
             and isinstance(n.ctx, gast.Load)]
    out = []
    for node, parent, field, k in found:
        target = node.target.id
        at = (node.lineno, node.col_offset)
        if any(r.id == target and (getattr(r, "lineno", 0), getattr(r, "col_offset", 0)) < at for r in reads):
            raise ctx.error(node, f"'{target}' is read in this statement before the assignment expression that "
                                  "binds it", construct=":=", hint=f"assign '{target}' in a statement of its own")
        assign = gast.Assign(targets=[name(target, store=True)], value=node.value, type_comment=None)
        out.append(gast.copy_location(assign, s))
        replacement = gast.copy_location(name(target), node)
        if k is None:
            setattr(parent, field, replacement)
        else:
            getattr(parent, field)[k] = replacement
    return out


def _collect(node, found, ctx, sometimes):
    """Append (assignment expression, parent, field, index) under ``node``, innermost first (an inner
    one is evaluated before the one holding it), left to right."""
    for field, value in gast.iter_fields(node):
        children = value if isinstance(value, list) else [value]
        for k, child in enumerate(children):
            if not isinstance(child, gast.AST) or isinstance(child, gast.stmt):
                continue            # the statements of a block are rewritten on their own
            later = sometimes or isinstance(node, _SOMETIMES) or \
                isinstance(node, gast.BoolOp) and field == "values" and k > 0
            _collect(child, found, ctx, later)
            if isinstance(child, gast.NamedExpr):
                if later:
                    raise ctx.error(child, "an assignment expression (:=) that only some evaluations reach (after "
                                           "'and'/'or', in a conditional expression, a lambda or a comprehension) "
                                           "is not supported", construct=":=",
                                    hint="assign the value in a statement of its own before")
                found.append((child, node, field, k if isinstance(value, list) else None))
