"""Tree utilities shared by the passes: templates, node builders, name queries, printing."""
import ast
import copy
import math
import re

import astor
import gast

COMMENT_MARK = "#: "


def name(id_, store=False):
    return gast.Name(id=id_, ctx=gast.Store() if store else gast.Load(), annotation=None, type_comment=None)


def const(value):
    return gast.Constant(value=value, kind=None)


def assign(target, value):
    if isinstance(target, str):
        target = name(target, store=True)
    return gast.Assign(targets=[target], value=value, type_comment=None)


def comment(text):
    """A statement that prints as a ``# text`` comment line in generated code."""
    return gast.Expr(value=const(COMMENT_MARK + text))


def is_comment(stmt):
    return (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Constant)
            and isinstance(stmt.value.value, str) and stmt.value.value.startswith(COMMENT_MARK))


def parse_expr(text):
    return gast.parse(text.strip(), mode="eval").body if hasattr(gast, "Expression") and False else \
        gast.parse(text.strip()).body[0].value


def parse_stmts(text):
    return gast.parse(text).body


class _Substitute(gast.NodeTransformer):
    def __init__(self, subs):
        self.subs = subs

    def visit_Name(self, node):
        if node.id in self.subs:
            new = self.subs[node.id]
            if isinstance(new, str):
                return gast.Name(id=new, ctx=node.ctx, annotation=None, type_comment=None)
            new = copy.deepcopy(new)
            if isinstance(new, gast.Name):
                new.ctx = node.ctx
            return new
        return node


def substitute(node, subs):
    """Replace names in ``node`` by strings (new names) or nodes (copied)."""
    return _Substitute(subs).visit(node)


def template_expr(text, **subs):
    return substitute(parse_expr(text), subs)


def template_stmts(text, **subs):
    return [substitute(s, subs) for s in parse_stmts(text)]


def loaded_names(node):
    """Names read anywhere in ``node`` (a node or a list of nodes)."""
    nodes = node if isinstance(node, list) else [node]
    out = set()
    for n in nodes:
        for sub in gast.walk(n):
            if isinstance(sub, gast.Name) and isinstance(sub.ctx, gast.Load):
                out.add(sub.id)
    return out


def stored_names(node):
    nodes = node if isinstance(node, list) else [node]
    out = set()
    for n in nodes:
        for sub in gast.walk(n):
            if isinstance(sub, gast.Name) and isinstance(sub.ctx, gast.Store):
                out.add(sub.id)
    return out


def all_names(node):
    nodes = node if isinstance(node, list) else [node]
    return {sub.id for n in nodes for sub in gast.walk(n) if isinstance(sub, gast.Name)}


def set_location(node, lineno, every=False):
    """Give ``node`` and every descendant without one (``every``: every descendant, as a call written out
    from a template, whose nodes say the template's line 1, is the user's call) the line number ``lineno``."""
    for sub in gast.walk(node):
        if (every or getattr(sub, "lineno", None) is None) and hasattr(sub, "_attributes") and \
                "lineno" in sub._attributes:
            sub.lineno = lineno
            sub.col_offset = 0
            sub.end_lineno = lineno
            sub.end_col_offset = 0
    return node


def subscript_parts(node):
    """The index parts of a subscript: ``x[i, 1:]`` -> [i, 1:]."""
    return node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]


def is_index_scalar(node):
    """A name, a number, or index arithmetic of them (``i + 1``, ``n - k``, ``-1``)."""
    if isinstance(node, (gast.Name, gast.Constant)):
        return True
    if isinstance(node, gast.BinOp):
        return isinstance(node.op, (gast.Add, gast.Sub, gast.Mult, gast.FloorDiv)) and \
            is_index_scalar(node.left) and is_index_scalar(node.right)
    return isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub) and is_index_scalar(node.operand)


def is_basic_part(node):
    """``x[...]`` of a name, indexed by index scalars and slices of them (no index arrays, masks or new
    axes); with a slice among the parts it is a view of x."""
    if not (isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name)):
        return False
    return all(all(b is None or is_index_scalar(b) for b in (p.lower, p.upper, p.step)) if isinstance(p, gast.Slice)
               else is_index_scalar(p) for p in subscript_parts(node))


def is_new_axis(part):
    """A ``None`` (``np.newaxis``) among a subscript's parts: a new axis of length one."""
    return isinstance(part, gast.Constant) and part.value is None


def has_slice(node):
    return any(isinstance(p, gast.Slice) for p in subscript_parts(node))


def dotted(node):
    """'np.linalg.norm' for an attribute chain of names, else None."""
    parts = []
    while isinstance(node, gast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, gast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def attr_chain(text):
    """The expression node for a dotted name like 'np.sin'."""
    return parse_expr(text)


_COMMENT_LINE = re.compile(r"^(\s*)(?:\"\"\"|'''|'|\")" + re.escape(COMMENT_MARK) + r"(.*?)(?:\"\"\"|'''|'|\")\s*$")


class _SpelledConstants(ast.NodeTransformer):
    """Numbers as expressions with exactly their value: a negative number (or -0.0) as a negation,
    which the printer parenthesizes where precedence needs it (``(-2.0) ** 2``, not ``-2.0 ** 2``);
    nan and infinities as ``np.nan`` and ``np.inf``; a complex number as ``complex(re, im)``."""

    def visit_Constant(self, node):
        v = node.value
        if isinstance(v, bool) or not isinstance(v, (int, float, complex)):
            return node
        if isinstance(v, complex):
            parts = [self.visit_Constant(ast.Constant(value=p)) for p in (v.real, v.imag)]
            return ast.Call(func=ast.Name(id="complex", ctx=ast.Load()), args=parts, keywords=[])
        if v != v:
            return ast.Attribute(value=ast.Name(id="np", ctx=ast.Load()), attr="nan", ctx=ast.Load())
        if v < 0 or (v == 0 and math.copysign(1.0, v) < 0):
            return ast.UnaryOp(op=ast.USub(), operand=self.visit_Constant(ast.Constant(value=-v)))
        if v == math.inf:
            return ast.Attribute(value=ast.Name(id="np", ctx=ast.Load()), attr="inf", ctx=ast.Load())
        return node


def to_source(tree):
    """Python source for a gast tree; comment markers become ``#`` lines."""
    pytree = _SpelledConstants().visit(gast.gast_to_ast(tree))
    ast.fix_missing_locations(pytree)
    text = astor.to_source(pytree)
    lines = []
    for line in text.splitlines():
        m = _COMMENT_LINE.match(line)
        lines.append(f"{m.group(1)}# {m.group(2)}" if m else line)
    return "\n".join(lines) + "\n"


def expr_source(node):
    """One-line source of an expression or statement (for comments and messages)."""
    return to_source(node if isinstance(node, gast.stmt) else gast.Expr(value=node)).strip().splitlines()[0]


class SourceWriter:
    """Builds the source of a generated function line by line (the drivers of jacfwd, jacrev and
    vmap), with fresh names from the transform's namer; ``function()`` parses the result."""

    def __init__(self, namer):
        self.lines = []
        self.namer = namer

    def fresh(self, base):
        return self.namer.fresh(base)

    def emit(self, depth, text):
        self.lines.append("    " * depth + text)

    def function(self):
        return parse_stmts("\n".join(self.lines))[0]


def is_empty_declaration(value):
    """``np.empty((0, ...), dtype)``: an array of no elements, which generated code binds a name to before
    the loop that defines it (its memory and shape matter nowhere)."""
    return isinstance(value, gast.Call) and dotted(value.func) == "np.empty" and bool(value.args) and \
        isinstance(value.args[0], gast.Tuple) and any(isinstance(e, gast.Constant) and e.value == 0
                                                      for e in value.args[0].elts)
