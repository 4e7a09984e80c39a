"""expressions: how the pytree flattening evaluates an expression (a mixin of the Flattener).

An expression evaluates to a :class:`Struct` (a pytree known at transform time), a
:class:`StaticSeq` (rows to unroll a loop over) or the rewritten expression. Indexing and
attribute access on a Struct pick its child; ``x is None`` on a part of a pytree is decided from
its structure; dict, list and tuple literals holding pytrees become Structs. Calls are in
``calls``.
"""
import copy

import gast

from ... import tree as pytree
from ...base.arrays import library_object
from ...base.ast_utils import const, name
from ...base.errors import TranspileError
from .structs import StaticSeq, Struct, static_key


class ExpressionFlattening:
    """The expression methods of :class:`~.flattener.Flattener` (it holds the state they use)."""

    def static_object(self, node):
        """The module-level object a dotted name refers to, or None."""
        parts = []
        while isinstance(node, gast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, gast.Name) or node.id in self.locals or node.id in self.env:
            return None
        found, obj = self.unit.lookup(node.id) if node.id not in self.namespace else (True, self.namespace[node.id])
        if not found:
            return None
        for p in reversed(parts):
            obj = getattr(obj, p, None)
        return library_object(obj)

    def value(self, node, out):
        """``node`` rewritten as an ordinary expression (a pytree of leaves only as a tuple)."""
        v = self.ev(node, out)
        if isinstance(v, Struct):
            if v.shell.kind in ("tuple", "list") and all(not isinstance(i, Struct) or i.shell.kind in ("tuple",)
                                                          for i in v.items):
                elts = [self.value_of_struct(i) for i in v.items]
                return gast.Tuple(elts=elts, ctx=gast.Load()) if v.shell.kind == "tuple" else \
                    gast.List(elts=elts, ctx=gast.Load())
            raise self.error(node, f"a pytree ({v.treedef()}) cannot be used as a value here",
                             hint="index it (params['W']) or loop over it; pytrees are flattened into their "
                                  "leaves at transform time")
        if isinstance(v, StaticSeq):
            raise self.error(node, "this sequence can only be iterated over", hint="use it in a for loop")
        return v

    def value_of_struct(self, s):
        """A pytree as a (nested) tuple expression of its leaves."""
        if isinstance(s, Struct):
            return gast.Tuple(elts=[self.value_of_struct(i) for i in s.items], ctx=gast.Load())
        return copy.deepcopy(s)

    def ev(self, node, out):
        """A Struct, a StaticSeq, or the rewritten expression."""
        method = getattr(self, "ev_" + type(node).__name__, None)
        if method is not None:
            return method(node, out)
        return self.generic(node, out)

    def generic(self, node, out):
        for field, old in gast.iter_fields(node):
            if isinstance(old, list):
                setattr(node, field, [self.value(v, out) if isinstance(v, gast.expr) else
                                      self.rewrite_fields(v, out) for v in old])
            elif isinstance(old, gast.expr):
                setattr(node, field, self.value(old, out))
            elif isinstance(old, gast.AST):
                self.rewrite_fields(old, out)
        return node

    def rewrite_fields(self, node, out):
        if isinstance(node, gast.keyword):
            node.value = self.value(node.value, out)
        elif isinstance(node, gast.comprehension):
            # not over a pytree: left for resolve (a reduction of it becomes a loop, anything else is refused)
            node.iter = self.value(node.iter, out)
            node.ifs = [self.value(c, out) for c in node.ifs]
        return node

    def ev_Name(self, node, out):
        if isinstance(node.ctx, gast.Load) and node.id in self.env:
            return self.env[node.id]
        if isinstance(node.ctx, gast.Load) and node.id in self.aliases:
            return copy.deepcopy(self.aliases[node.id])
        if isinstance(node.ctx, gast.Load) and isinstance(self.consts.get(node.id), str):
            return gast.copy_location(const(self.consts[node.id]), node)   # a key bound by an unrolled loop
        if isinstance(node.ctx, gast.Load) and node.id not in self.locals:
            functions = self.function_sequence(node.id)
            if functions is not None:
                return functions
        return node

    def function_sequence(self, label):
        """A global or captured tuple (or list) of functions, ``layers = (dense, relu, dense)``, as a
        static sequence of names bound to each: a loop over it (or a zip with it) is unrolled, each
        function inlined where it is called. None for any other value."""
        value = self.namespace.get(label)
        if not isinstance(value, (tuple, list)) or not value or \
                not all(callable(v) and not isinstance(v, type) for v in value):
            return None
        rows = []
        for i, fn in enumerate(value):
            key = self.namer.fresh(f"{label}_{i}")
            self.namespace[key] = fn
            rows.append(name(key))
        return StaticSeq(rows)

    def ev_Lambda(self, node, out):
        return node           # lambdas are expanded where they are applied (tree.map) or inlined later

    def child(self, s, key, node):
        if isinstance(key, slice) and s.shell.kind in ("tuple", "list"):
            return Struct(s.shell, s.items[key])
        idx = s.treedef().child_index(key)
        if idx is None:
            raise self.error(node, f"the pytree {s.treedef()} has no entry {key!r}",
                             hint="the structure is fixed by the arguments passed in")
        return s.items[idx]

    def ev_Subscript(self, node, out):
        base = self.ev(node.value, out)
        if isinstance(base, Struct):
            try:
                key = static_key(node.slice, self.consts)
            except KeyError:
                raise self.error(node, "a pytree is indexed with a value known only at run time",
                                 hint="index pytrees with constants, or loop over them (for layer in params)") \
                    from None
            return self.child(base, key, node)
        node.value = base if not isinstance(base, StaticSeq) else self.value(node.value, out)
        node.slice = self.value(node.slice, out)
        return node

    def ev_Attribute(self, node, out):
        base = self.ev(node.value, out)
        if isinstance(base, Struct):
            return self.child(base, node.attr, node)
        node.value = self.value(node.value, out) if isinstance(base, StaticSeq) else base
        return node

    def in_pytree(self, node):
        """Whether ``node`` is a part of a pytree (a container, or a leaf, which is never None)."""
        if isinstance(node, gast.Name):
            return node.id in self.env or node.id in self.aliases
        if isinstance(node, (gast.Subscript, gast.Attribute)):
            try:
                return isinstance(self.ev(copy.deepcopy(node.value), []), Struct)
            except TranspileError:
                return False
        return False

    def ev_Compare(self, node, out):
        if len(node.ops) == 1 and isinstance(node.ops[0], (gast.Is, gast.IsNot)):
            sides = (node.left, node.comparators[0])
            if any(self.in_pytree(n) for n in sides):   # `params['b'] is None`: known from the structure
                def is_none(n):
                    v = self.ev(copy.deepcopy(n), []) if self.in_pytree(n) else n
                    return isinstance(v, Struct) and v.shell.kind == "none" or \
                        isinstance(v, gast.Constant) and v.value is None
                if any(isinstance(n, gast.Constant) and n.value is None for n in sides):
                    same = is_none(sides[0]) and is_none(sides[1])
                    return const(same if isinstance(node.ops[0], gast.Is) else not same)
        if len(node.ops) == 1 and isinstance(node.ops[0], (gast.In, gast.NotIn)) and \
                self.in_pytree(node.comparators[0]):
            return self.membership(node, out)
        return self.generic(node, out)

    def membership(self, node, out):
        """``'key' in params``: known from the structure (a dict's keys, a namedtuple's fields, a
        tuple's or list's leaves are not keys: refused)."""
        container = self.ev(copy.deepcopy(node.comparators[0]), [])
        if not isinstance(container, Struct) or container.shell.kind not in ("dict", "namedtuple", "custom"):
            raise self.error(node, "'in' is decided from a pytree's structure only for dicts (their keys)",
                             hint="test keys of a dict argument: 'scale' in options")
        try:
            key = static_key(node.left, self.consts)
        except KeyError:
            raise self.error(node, "'in' on a pytree needs a constant key", hint="'scale' in options") from None
        found = container.treedef().child_index(key) is not None
        return const(found if isinstance(node.ops[0], gast.In) else not found)

    def ev_Dict(self, node, out):
        keys = []
        for k in node.keys:
            try:
                keys.append(static_key(k, self.consts))
            except KeyError:
                raise self.error(node, "dict keys in transformed code must be constants",
                                 hint="use string keys: {'W': W, 'b': b}") from None
        values = [self.item(v, out) for v in node.values]
        order = sorted(range(len(keys)), key=lambda i: keys[i])
        s = Struct(pytree.TreeDef("dict", keys=tuple(keys[i] for i in order)), [values[i] for i in order])
        return self.materialize(s, "_leaf", out, node) if s.items else s

    def item(self, node, out):
        """An element of a container literal: nested literals are containers too."""
        if isinstance(node, (gast.Tuple, gast.List)):
            items = [self.item(e, out) for e in node.elts]
            return Struct(pytree.TreeDef("tuple" if isinstance(node, gast.Tuple) else "list"), items)
        v = self.ev(node, out)
        return v if isinstance(v, Struct) else self.value(v, out) if isinstance(v, StaticSeq) else v

    def ev_List(self, node, out):
        return self.ev_Tuple(node, out)

    def ev_Tuple(self, node, out):
        if not isinstance(node.ctx, gast.Load):
            return node
        items = [self.ev(e, out) for e in node.elts]
        if any(isinstance(i, Struct) for i in items) or any(isinstance(e, gast.Dict) for e in node.elts):
            # a container of pytrees: nested literals are containers too
            items = [self.item(e, out) if not isinstance(i, Struct) and isinstance(e, (gast.Tuple, gast.List))
                     else i for i, e in zip(items, node.elts)]
            kind = "tuple" if isinstance(node, gast.Tuple) else "list"
            return self.materialize(Struct(pytree.TreeDef(kind), items), "_leaf", out, node)
        node.elts = [self.value(e, out) if isinstance(i, StaticSeq) else i for i, e in zip(items, node.elts)]
        return node
