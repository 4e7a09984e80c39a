"""structure: pytree arguments and values become flat leaf variables (the specialize step for
pytrees).

The structure of a pytree is static, so everything about it is resolved here, before any other
pass: a parameter ``params`` holding ``[{'W': ., 'b': .}, ...]`` becomes the parameters
``params_0_W, params_0_b, ...``; ``params[0]['W']``, ``p.W`` (namedtuples, registered classes),
``len(params)``, ``params is None``, ``for layer in params:`` (also ``enumerate``, ``zip``,
``.items()``, ``.values()``, ``.keys()``, ``range(len(params))``), unpacking
``*hidden, last = params``, dict/list literals, ``tree.map`` and calls of helpers with pytree
arguments or results are evaluated symbolically; loops over pytrees are unrolled. A pytree
returned becomes a flat tuple of its leaves, whose structure the API uses to rebuild the result.

Symbolic pytrees are :class:`Struct` values: a TreeDef shell whose children are Structs or leaf
expressions (names of leaf variables, or constants).
"""
import copy
import dataclasses
import re

import gast

from .. import tree as pytree
from ..base.ast_utils import all_names, assign, const, name, stored_names, to_source
from ..base.errors import TranspileError
from ..base.naming import Namer
from .source import FunctionSource, is_user_function, read_function


@dataclasses.dataclass
class Struct:
    shell: pytree.TreeDef        # kind, keys, node, aux; no children
    items: list                  # Structs or leaf expressions

    def treedef(self):
        return dataclasses.replace(self.shell, children=tuple(
            i.treedef() if isinstance(i, Struct) else pytree.LEAF for i in self.items))

    def leaves(self):
        out = []
        for i in self.items:
            out.extend(i.leaves() if isinstance(i, Struct) else [i])
        return out


class _Seq:
    """What ``.items()``, ``enumerate(s)`` or ``zip(...)`` produce: static rows to iterate over."""

    def __init__(self, rows):
        self.rows = rows


def _from_treedef(td, leaves):
    it = iter(leaves)

    def build(t):
        if t.is_leaf:
            return next(it)
        return Struct(dataclasses.replace(t, children=()), [build(c) for c in t.children])
    return build(td)


def _describe(s):
    return str(s.treedef()) if isinstance(s, Struct) else "a single value"


def _ident(key):
    """A key as part of a variable name (``params_0_W``)."""
    return re.sub(r"\W", "_", str(key))


def _static_key(node, consts):
    """The value of an index known at transform time, or raise KeyError."""
    if isinstance(node, gast.Constant):
        return node.value
    if isinstance(node, gast.Name) and node.id in consts:
        return consts[node.id]
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        return -_static_key(node.operand, consts)
    if isinstance(node, gast.Slice):
        parts = [None if p is None else _static_key(p, consts) for p in (node.lower, node.upper, node.step)]
        return slice(*parts)
    raise KeyError


class _Flattener:
    def __init__(self, unit, param_trees, namer, specialized, pair=False):
        self.pair = pair                       # has_aux: the result stays a pair (output, aux leaves)
        self.unit = unit
        self.tree = copy.deepcopy(unit.tree)
        self.namer = namer
        self.specialized = specialized        # (function, treedefs) -> (FunctionSource, out treedef)
        self.namespace = dict(unit.namespace)
        self.locals = stored_names(self.tree) | {a.id for a in self.tree.args.args}
        self.env = {}                          # name -> Struct
        self.aliases = {}                      # loop variable -> the leaf it is bound to (unrolled loops)
        self.consts = {}                       # name -> a constant bound by an unrolled loop
        self.nested = {}                       # nested def name -> FunctionDef
        self.transforms = {}                   # local name -> transform built in the body (g = grad(f))
        self.out_tree = None
        self.param_trees = param_trees
        self.leaf_params = {}                  # pytree parameter -> the names of its leaf parameters
        self.assigned = stored_names(self.tree.body)    # the user's variables that are (re)bound
        self.single = set()                    # generated variables assigned exactly once
        self.rebound = set()                   # generated variables assigned more than once (carries)

    # -- errors -------------------------------------------------------------------------------
    def error(self, node, message, hint=None):
        from ..base.context import Context
        return Context(source=self.unit).error(node, message, hint=hint)

    # -- names --------------------------------------------------------------------------------
    def leaf_names(self, base, td):
        """Fresh variable names for the leaves of ``td``, derived from their paths under ``base``."""
        out = []

        def walk(prefix, t):
            if t.is_leaf:
                out.append(self.namer.fresh(prefix))
                return
            keys = t.keys or t.names or range(len(t.children))
            for k, c in zip(keys, t.children):
                walk(f"{prefix}_{_ident(k)}", c)
        walk(base, td)
        return out

    def materialize(self, s, base, out, node):
        """``s`` with every leaf held in a variable of its own (assigned here), so later rebinding
        of the names it was built from does not change it."""
        def stable(v):             # a constant, or a variable assigned once
            return isinstance(v, gast.Constant) or isinstance(v, gast.Name) and (
                v.id in self.single or v.id not in self.assigned and v.id not in self.rebound)
        leaves = s.leaves()
        targets = self.leaf_names(base, s.treedef())
        kept = []
        for t, v in zip(targets, leaves):
            if stable(v):
                kept.append(copy.deepcopy(v))
                continue
            out.append(gast.copy_location(assign(t, copy.deepcopy(v)), node))
            self.single.add(t)
            kept.append(name(t))
        return _from_treedef(s.treedef(), kept)

    # -- expressions --------------------------------------------------------------------------
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
        return obj

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
        if isinstance(v, _Seq):
            raise self.error(node, "this sequence can only be iterated over", hint="use it in a for loop")
        return v

    def value_of_struct(self, s):
        """A pytree as a (nested) tuple expression of its leaves."""
        if isinstance(s, Struct):
            return gast.Tuple(elts=[self.value_of_struct(i) for i in s.items], ctx=gast.Load())
        return copy.deepcopy(s)

    def ev(self, node, out):
        """A Struct, a _Seq, or the rewritten expression."""
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
            raise self.error(node.iter, "comprehensions are not supported", hint="write the loop out")
        return node

    def ev_Name(self, node, out):
        if isinstance(node.ctx, gast.Load) and node.id in self.env:
            return self.env[node.id]
        if isinstance(node.ctx, gast.Load) and node.id in self.aliases:
            return copy.deepcopy(self.aliases[node.id])
        return node

    def settle_aliases(self, node, out):
        """Loop variables bound to leaves that ``node`` assigns become variables of their own first
        (a branch or a loop assigning them must see one variable on every path)."""
        for n in sorted(stored_names(node) & set(self.aliases)):
            out.append(gast.copy_location(assign(n, self.aliases.pop(n)), node))

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
                key = _static_key(node.slice, self.consts)
            except KeyError:
                raise self.error(node, "a pytree is indexed with a value known only at run time",
                                 hint="index pytrees with constants, or loop over them (for layer in params)") \
                    from None
            return self.child(base, key, node)
        node.value = base if not isinstance(base, _Seq) else self.value(node.value, out)
        node.slice = self.value(node.slice, out)
        return node

    def ev_Attribute(self, node, out):
        base = self.ev(node.value, out)
        if isinstance(base, Struct):
            return self.child(base, node.attr, node)
        node.value = self.value(node.value, out) if isinstance(base, _Seq) else base
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
        return self.generic(node, out)

    def ev_Dict(self, node, out):
        keys = []
        for k in node.keys:
            try:
                keys.append(_static_key(k, self.consts))
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
        return v if isinstance(v, Struct) else self.value(v, out) if isinstance(v, _Seq) else v

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
        node.elts = [self.value(e, out) if isinstance(i, _Seq) else i for i, e in zip(items, node.elts)]
        return node

    def ev_Call(self, node, out):
        func = node.func
        if isinstance(func, gast.Attribute):
            base = self.ev(func.value, out)
            if isinstance(base, Struct):
                return self.method(base, func.attr, node, out)
        obj = self.static_object(func)
        if obj is len and node.args:
            arg = self.ev(node.args[0], out)
            if isinstance(arg, Struct):
                return const(len(arg.items))
        if obj is enumerate or obj is zip:
            args = [self.ev(a, out) for a in node.args]
            if any(isinstance(a, (Struct, _Seq)) for a in args):
                return self.sequence(obj, args, node)
        if obj is pytree.map:
            return self.tree_map(node, out)
        if obj is pytree.leaves and node.args:
            arg = self.ev(node.args[0], out)
            if isinstance(arg, Struct):
                return Struct(pytree.TreeDef("list"), arg.leaves())
        if getattr(obj, "__transpyle_leafwise__", False) and node.args:
            arg = self.ev(node.args[0], out)
            if isinstance(arg, Struct):      # stop_gradient(params), psum(grads, 'i'): applied to every leaf
                return _from_treedef(arg.treedef(), [gast.Call(func=copy.deepcopy(func),
                                                               args=[leaf] + copy.deepcopy(node.args[1:]),
                                                               keywords=copy.deepcopy(node.keywords))
                                                     for leaf in arg.leaves()])
        transform = self.transform_of(func)
        if transform is not None:
            result = self.call_transform(node, transform, out)
            if result is not None:
                return result
        # lax's helpers are not specialized: they take functions, which this pass does not substitute
        if is_user_function(obj, library=()) or (isinstance(func, gast.Name) and func.id in self.nested):
            result = self.call_helper(node, obj, out)
            if result is not None:
                return result
        return self.generic(node, out)

    def transform_of(self, func):
        """The transform a callee is, when known at transform time: ``g`` after ``g = grad(loss)``,
        or ``grad(loss)`` itself."""
        if isinstance(func, gast.Name) and func.id in self.transforms:
            return self.transforms[func.id]
        if isinstance(func, gast.Call):
            return self.build_transform(func)
        return None

    def build_transform(self, call):
        maker = self.static_object(call.func)
        if not getattr(maker, "__transpyle_transform__", False):
            return None
        try:
            args = [self.static_arg(a) for a in call.args]
            kwargs = {kw.arg: self.static_arg(kw.value) for kw in call.keywords}
        except KeyError:
            return None
        return maker(*args, **kwargs)

    def static_arg(self, node):
        if isinstance(node, gast.Constant):
            return node.value
        if isinstance(node, gast.Tuple):
            return tuple(self.static_arg(e) for e in node.elts)
        if isinstance(node, gast.Name) and node.id in self.transforms:
            return self.transforms[node.id]
        obj = self.static_object(node)
        if obj is None:
            raise KeyError
        return obj

    def call_transform(self, node, transform, out):
        """``grad(loss)(params, x)`` with pytree arguments: the flat transform on the leaves."""
        if node.keywords or not hasattr(transform, "_flatten"):
            return None
        args = [self.ev(a, out) for a in node.args]
        if not any(isinstance(a, Struct) for a in args):
            node.args = [self.value(a, out) if isinstance(a, _Seq) else a for a in args]
            return None
        treedefs = tuple(a.treedef() if isinstance(a, Struct) else pytree.LEAF for a in args)
        flat_transform, out_tree, layout = transform._flatten(treedefs)
        fname = self.namer.fresh(f"{getattr(transform, '__name__', 'transformed')}_{transform.mode}")
        self.namespace[fname] = flat_transform
        leaves = [copy.deepcopy(leaf) for a in args for leaf in (a.leaves() if isinstance(a, Struct) else [a])]
        call = gast.copy_location(gast.Call(func=name(fname), args=leaves, keywords=[]), node)
        if layout.is_leaf:
            return call
        targets = self.leaf_names("_r", out_tree)

        def pattern(lay, names):      # the nested tuple target the flat result unpacks into
            if lay.is_leaf:
                return name(next(names), store=True)
            return gast.Tuple(elts=[pattern(c, names) for c in lay.children], ctx=gast.Store())
        out.append(gast.copy_location(gast.Assign(targets=[pattern(layout, iter(targets))], value=call,
                                                  type_comment=None), node))
        self.single.update(targets)
        return _from_treedef(out_tree, [name(t) for t in targets])

    def method(self, base, attr, node, out):
        if base.shell.kind == "dict" and attr in ("items", "keys", "values") and not node.args:
            keys = [const(k) for k in base.shell.keys]
            rows = {"items": [(k, v) for k, v in zip(keys, base.items)], "keys": keys, "values": base.items}[attr]
            return _Seq(rows)
        if base.shell.kind == "dict" and attr == "get" and node.args:
            return self.child(base, _static_key(node.args[0], self.consts), node)
        if base.shell.kind == "custom" or base.shell.kind == "namedtuple":
            raise self.error(node, f"methods of {base.shell.node.__name__} cannot be called in transformed code",
                             hint="move the computation into a function taking the pytree")
        raise self.error(node, f"the method '.{attr}()' of a pytree is not supported",
                         hint="supported: .items() .keys() .values() .get(key)")

    def sequence(self, fn, args, node):
        def rows_of(a):
            if isinstance(a, Struct):
                return [const(k) for k in a.shell.keys] if a.shell.kind == "dict" else list(a.items)
            if isinstance(a, _Seq):
                return a.rows
            raise self.error(node, "zip of a pytree with a run-time sequence is not supported",
                             hint="zip pytrees with pytrees")
        if fn is enumerate:
            return _Seq([(const(i), r) for i, r in enumerate(rows_of(args[0]))])
        columns = [rows_of(a) for a in args]
        return _Seq(list(zip(*columns)))

    def tree_map(self, node, out):
        if len(node.args) < 2:
            raise self.error(node, "tree.map needs a function and at least one pytree", hint="tree.map(f, tree)")
        fn = node.args[0]
        trees = [self.ev(a, out) for a in node.args[1:]]
        first = trees[0]
        if not isinstance(first, Struct):
            return gast.Call(func=fn, args=[self.value(a, out) for a in node.args[1:]], keywords=[])
        td = first.treedef()
        for t, a in zip(trees[1:], node.args[2:]):
            if not isinstance(t, Struct) or t.treedef() != td:
                raise self.error(a, f"tree.map: the structures differ:\n  {td}\n  {_describe(t)}",
                                 hint="map over pytrees of the same structure")
        columns = [t.leaves() for t in trees]
        leaves = []
        for row in zip(*columns):
            if isinstance(fn, gast.Lambda):
                from ..base.ast_utils import substitute
                params = [a.id for a in fn.args.args]
                expr = substitute(copy.deepcopy(fn.body), dict(zip(params, row)))
                leaves.append(self.value(expr, out))
            else:
                leaves.append(self.value(gast.Call(func=copy.deepcopy(fn), args=[copy.deepcopy(r) for r in row],
                                                   keywords=[]), out))
        return self.materialize(_from_treedef(td, leaves), "_leaf", out, node)

    def call_helper(self, node, obj, out):
        """A call of a user function: specialized on the structure of its pytree arguments (and
        flattened when it returns a pytree); None when no pytree is involved."""
        args = [self.ev(a, out) for a in node.args]
        kwargs = {kw.arg: self.ev(kw.value, out) for kw in node.keywords}
        if isinstance(node.func, gast.Name) and node.func.id in self.nested:
            fdef = self.nested[node.func.id]
            unit = dataclasses.replace(self.unit, tree=copy.deepcopy(fdef))
            env = dict(self.env)
            fkey = (id(fdef),)
        else:
            try:
                unit = read_function(obj)
            except TranspileError:
                return None
            env = {}
            fkey = (obj,)
        params = [a.id for a in unit.tree.args.args]
        if len(args) > len(params):
            return None
        bound = dict(zip(params, args))
        bound.update(kwargs)
        defaults = dict(zip(params[len(params) - len(unit.tree.args.defaults):], unit.tree.args.defaults))
        trees = {}
        for p in params:
            v = bound.get(p)
            if isinstance(v, Struct):
                trees[p] = v.treedef()
            elif v is None and isinstance(defaults.get(p), gast.Constant) and defaults[p].value is None:
                trees[p] = pytree.TreeDef("none")
        if not trees and not _returns_container(unit.tree):
            return None
        key = fkey + (tuple(sorted(trees.items(), key=lambda kv: kv[0])),)
        nested = isinstance(node.func, gast.Name) and node.func.id in self.nested
        first = key not in self.specialized
        if first:
            helper = _Flattener(unit, trees, Namer(), self.specialized)
            helper.env.update({k: v for k, v in env.items() if k not in params})
            flat_unit, out_tree = helper.run()
            fname = self.namer.fresh(f"{unit.name}_flat")
            if nested:         # a def in the body: a name of its own; a module-level helper keeps its name
                flat_unit.tree.name = fname
            self.specialized[key] = (flat_unit, out_tree, fname, helper.leaf_params)
        flat_unit, out_tree, fname, leaf_params = self.specialized[key]
        if nested:
            if first:          # a nested def (it may read the enclosing variables), specialized in place
                out.append(gast.copy_location(flat_unit.tree, node))
                self.locals.add(fname)
        else:
            self.namespace[fname] = flat_unit
        keywords = []
        for p in params:
            if p in trees:
                if p not in bound:
                    continue
                leaves = bound[p].leaves()
                flat_params = leaf_params[p]
                keywords += [gast.keyword(arg=fp, value=copy.deepcopy(v)) for fp, v in zip(flat_params, leaves)]
            elif p in bound:
                v = bound[p]
                keywords.append(gast.keyword(arg=p, value=self.value(v, out) if isinstance(v, _Seq) else v))
        call = gast.copy_location(gast.Call(func=name(fname), args=[], keywords=keywords), node)
        if out_tree.is_leaf:
            return call
        targets = self.leaf_names("_r", out_tree)
        if not targets:
            out.append(gast.copy_location(gast.Expr(value=call), node))
        else:
            target = gast.Tuple(elts=[name(t, store=True) for t in targets], ctx=gast.Store())
            out.append(gast.copy_location(gast.Assign(targets=[target], value=call, type_comment=None), node))
        return _from_treedef(out_tree, [name(t) for t in targets])

    # -- statements ---------------------------------------------------------------------------
    def block(self, stmts):
        out = []
        for s in stmts:
            self.stmt(s, out)
            if out and isinstance(out[-1], gast.Return):
                break          # the rest is dead (after an `if` decided by the structure, say)
        return out

    def stmt(self, s, out):
        method = getattr(self, "stmt_" + type(s).__name__, None)
        if method is not None:
            return method(s, out)
        pre = []
        self.generic(s, pre)
        out.extend(pre)
        out.append(s)

    def stmt_FunctionDef(self, s, out):
        self.nested[s.name] = copy.deepcopy(s)
        saved = dict(self.env)
        params = {a.id for a in s.args.args}
        self.env = {k: v for k, v in self.env.items() if k not in params}
        s.body = self.block(s.body)
        self.env = saved
        out.append(s)

    def stmt_Expr(self, s, out):
        v = self.ev(s.value, out)
        if not isinstance(v, (Struct, _Seq)):
            s.value = v
            out.append(s)

    def stmt_Assign(self, s, out):
        if len(s.targets) == 1 and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Call):
            built = self.build_transform(s.value)      # g = grad(loss): known when it is called
            if built is not None:
                self.transforms[s.targets[0].id] = built
                out.append(s)
                return
        value = self.ev(s.value, out)
        for target in s.targets:
            self.bind(target, value, s, out)

    def bind(self, target, value, s, out):
        if isinstance(target, gast.Name):
            if isinstance(value, Struct):
                self.env[target.id] = value
                self.aliases.pop(target.id, None)
                return
            self.env.pop(target.id, None)
            self.consts.pop(target.id, None)
            self.aliases.pop(target.id, None)
            out.append(gast.copy_location(gast.Assign(targets=[target], value=self.plain(value, s, out),
                                                      type_comment=None), s))
            return
        if isinstance(target, (gast.Tuple, gast.List)):
            if isinstance(value, Struct):
                self.unpack(target, value, s, out)
                return
            for n in stored_names(target):
                self.env.pop(n, None)
                self.aliases.pop(n, None)
            out.append(gast.copy_location(gast.Assign(targets=[target], value=self.plain(value, s, out),
                                                      type_comment=None), s))
            return
        if isinstance(target, gast.Subscript):
            base = self.ev(target.value, out)
            if isinstance(base, Struct):          # params['W'] = new: the entry is rebound
                key = _static_key(target.slice, self.consts)
                idx = base.treedef().child_index(key)
                if idx is None and base.shell.kind == "dict":
                    raise self.error(target, f"the key {key!r} is not in the pytree {base.treedef()}",
                                     hint="the structure of a pytree is fixed; build a new dict instead")
                if isinstance(value, Struct):
                    base.items[idx] = self.materialize(value, "_leaf", out, s)
                else:
                    fresh = self.namer.fresh("_leaf")
                    out.append(gast.copy_location(assign(fresh, self.plain(value, s, out)), s))
                    base.items[idx] = name(fresh)
                return
            target.value = base
            target.slice = self.value(target.slice, out)
        out.append(gast.copy_location(gast.Assign(targets=[target], value=self.plain(value, s, out),
                                                  type_comment=None), s))

    def plain(self, value, s, out):
        if isinstance(value, (Struct, _Seq)):
            return self.value_from(value, s)
        return value

    def value_from(self, value, s):
        if isinstance(value, Struct) and value.shell.kind in ("tuple", "list"):
            return self.value_of_struct(value)
        raise self.error(s, f"a pytree ({_describe(value)}) cannot be stored here", hint="bind it to a name")

    def unpack(self, target, value, s, out):
        elts = target.elts
        items = value.items if value.shell.kind != "dict" else [const(k) for k in value.shell.keys]
        starred = [i for i, e in enumerate(elts) if isinstance(e, gast.Starred)]
        if starred:
            i = starred[0]
            n_after = len(elts) - i - 1
            if len(items) < len(elts) - 1:
                raise self.error(s, f"cannot unpack {len(items)} values into {len(elts)} targets",
                                 hint=f"the pytree is {value.treedef()}")
            parts = items[:i] + [Struct(pytree.TreeDef("list"), items[i:len(items) - n_after])] + \
                items[len(items) - n_after:]
            elts = elts[:i] + [elts[i].value] + elts[i + 1:]
        else:
            if len(items) != len(elts):
                raise self.error(s, f"cannot unpack {len(items)} values into {len(elts)} targets",
                                 hint=f"the pytree is {value.treedef()}")
            parts = items
        for t, v in zip(elts, parts):
            self.bind(t, v, s, out)

    def stmt_AugAssign(self, s, out):
        self.settle_aliases(s, out)
        target = s.target
        if isinstance(target, gast.Name) and target.id in self.env:
            raise self.error(s, "augmented assignment to a whole pytree is not supported",
                             hint="use tree.map(lambda p, g: p - lr * g, params, grads)")
        if isinstance(target, (gast.Subscript, gast.Attribute)):
            base = self.ev(target.value, out)
            if isinstance(base, Struct):
                key = _static_key(target.slice, self.consts) if isinstance(target, gast.Subscript) else target.attr
                leaf = self.child(base, key, target)
                if isinstance(leaf, Struct):
                    raise self.error(s, "augmented assignment to a pytree is not supported",
                                     hint="use tree.map")
                if not isinstance(leaf, gast.Name):
                    raise self.error(s, "this entry cannot be updated in place", hint="rebind it instead")
                s.target = name(leaf.id, store=True)
                self.rebound.add(leaf.id)
                self.single.discard(leaf.id)
            else:
                target.value = base
                if isinstance(target, gast.Subscript):
                    target.slice = self.value(target.slice, out)
        s.value = self.value(s.value, out)
        out.append(s)

    def stmt_Return(self, s, out):
        if s.value is None:
            out.append(s)
            return
        v = self.ev(s.value, out)
        if isinstance(v, _Seq):
            raise self.error(s, "a sequence cannot be returned", hint="return a pytree or an array")
        td = v.treedef() if isinstance(v, Struct) else pytree.LEAF
        if self.out_tree is None:
            self.out_tree = td
        elif self.out_tree != td:
            raise self.error(s, f"the function returns pytrees of different structures:\n  {self.out_tree}\n  {td}",
                             hint="return the same structure on every path")
        if isinstance(v, Struct) and self.pair:         # (output, aux): the aux leaves as one tuple
            if not (v.shell.kind == "tuple" and len(v.items) == 2 and not isinstance(v.items[0], Struct)):
                raise self.error(s, f"with has_aux=True the function must return a pair (output, aux), not {td}",
                                 hint="return value, aux")
            aux = v.items[1]
            s.value = gast.Tuple(elts=[copy.deepcopy(v.items[0]), gast.Tuple(elts=[
                copy.deepcopy(x) for x in aux.leaves()], ctx=gast.Load()) if isinstance(aux, Struct)
                else copy.deepcopy(aux)], ctx=gast.Load())
        elif isinstance(v, Struct):
            leaves = [copy.deepcopy(x) for x in v.leaves()]
            s.value = gast.Tuple(elts=leaves, ctx=gast.Load())
        else:
            s.value = v
        out.append(s)

    def stmt_If(self, s, out):
        s.test = self.value(s.test, out)
        if not isinstance(s.test, gast.Constant):
            self.settle_aliases(s, out)
        if isinstance(s.test, gast.Constant):       # decided by the structure (params is None)
            out.extend(self.block(s.body if s.test.value else s.orelse))
            return
        before = dict(self.env)
        s.body = self.block(s.body)
        after_body = self.env
        self.env = dict(before)
        s.orelse = self.block(s.orelse)
        after_else = self.env
        merged = {}
        for k in set(after_body) | set(after_else):
            a, b = after_body.get(k), after_else.get(k)
            if a is b:
                merged[k] = a
            elif a is not None and b is not None:
                if a.treedef() != b.treedef():
                    raise self.error(s, f"'{k}' has different pytree structures after the branches:\n  "
                                        f"{a.treedef()}\n  {b.treedef()}", hint="keep the structure the same")
                targets = self.leaf_names(k, a.treedef())
                self.rebound.update(targets)
                s.body += [gast.copy_location(assign(t, copy.deepcopy(v)), s) for t, v in zip(targets, a.leaves())]
                s.orelse += [gast.copy_location(assign(t, copy.deepcopy(v)), s) for t, v in zip(targets, b.leaves())]
                merged[k] = _from_treedef(a.treedef(), [name(t) for t in targets])
        self.env = merged
        if not s.body:
            s.body = [gast.Pass()]
        out.append(s)

    def carried(self, s, out):
        """Pytree variables the loop rebinds get leaf variables of their own, assigned before the
        loop and at the end of its body (the loop carry)."""
        self.settle_aliases(s, out)
        rebound = {k for k in stored_names(s.body) if k in self.env}
        carries = {}
        for k in sorted(rebound):
            s_in = self.env[k]
            targets = self.leaf_names(k, s_in.treedef())
            self.rebound.update(targets)
            out += [gast.copy_location(assign(t, copy.deepcopy(v)), s) for t, v in zip(targets, s_in.leaves())]
            self.env[k] = carries[k] = _from_treedef(s_in.treedef(), [name(t) for t in targets])
        if carries and any(isinstance(n, (gast.Break, gast.Continue)) for n in gast.walk(s)):
            raise self.error(s, "a loop that rebinds a pytree cannot break or continue",
                             hint="use a flag and an if instead")
        return carries

    def close_carries(self, s, carries):
        for k, c in carries.items():
            new = self.env.get(k)
            if new is None or new.treedef() != c.treedef():
                raise self.error(s, f"the loop changes the structure of '{k}'",
                                 hint="a pytree rebound in a loop must keep its structure")
            s.body += [gast.copy_location(assign(t.id, copy.deepcopy(v)), s)
                       for t, v in zip(c.leaves(), new.leaves()) if not (isinstance(v, gast.Name) and v.id == t.id)]
            self.env[k] = c

    def stmt_While(self, s, out):
        carries = self.carried(s, out)
        s.test = self.value(s.test, out)
        s.body = self.block(s.body)
        self.close_carries(s, carries)
        s.orelse = self.block(s.orelse)
        out.append(s)

    def stmt_For(self, s, out):
        it = self.ev(s.iter, out) if not isinstance(s.iter, gast.Call) or not self._is_range(s.iter) else None
        if it is None and self._is_range(s.iter) and self._indexes_struct(s):
            bounds = []
            for a in s.iter.args:
                v = self.value(a, out)
                if not isinstance(v, gast.Constant):
                    raise self.error(s.iter, "a loop that indexes a pytree needs bounds known at transform time",
                                     hint="loop over the pytree itself: for layer in params")
                bounds.append(v.value)
            self.unroll(s, [const(i) for i in range(*bounds)], out)
            return
        if isinstance(it, Struct):
            rows = [const(k) for k in it.shell.keys] if it.shell.kind == "dict" else list(it.items)
            self.unroll(s, rows, out)
            return
        if isinstance(it, _Seq):
            self.unroll(s, it.rows, out)
            return
        carries = self.carried(s, out)
        s.iter = self.value(s.iter, out) if it is None else it
        s.body = self.block(s.body)
        self.close_carries(s, carries)
        s.orelse = self.block(s.orelse)
        out.append(s)

    def _is_range(self, node):
        return isinstance(node, gast.Call) and self.static_object(node.func) is range

    def _indexes_struct(self, s):
        var = s.target.id if isinstance(s.target, gast.Name) else None
        if var is None:
            return False
        for n in gast.walk(s):
            if isinstance(n, gast.Subscript) and isinstance(n.slice, gast.Name) and n.slice.id == var:
                try:
                    base = self.ev(copy.deepcopy(n.value), [])
                except TranspileError:
                    continue
                if isinstance(base, Struct):
                    return True
        return False

    def unroll(self, s, rows, out):
        if any(isinstance(n, (gast.Break, gast.Continue)) for n in gast.walk(gast.Module(body=s.body,
                                                                                         type_ignores=[]))):
            raise self.error(s, "a loop over a pytree is unrolled and cannot break or continue",
                             hint="use a flag and an if instead")
        for row in rows:
            self.bind_loop_target(s.target, row, s, out)
            for stmt in copy.deepcopy(s.body):
                self.stmt(stmt, out)
        for stmt in s.orelse:
            self.stmt(stmt, out)

    def bind_loop_target(self, target, row, s, out):
        if isinstance(target, (gast.Tuple, gast.List)):
            values = row if isinstance(row, tuple) else row.items if isinstance(row, Struct) else None
            if values is None or len(values) != len(target.elts):
                raise self.error(s, "cannot unpack the loop item", hint="match the targets to the items")
            for t, v in zip(target.elts, values):
                self.bind_loop_target(t, v, s, out)
            return
        if isinstance(row, tuple):
            row = Struct(pytree.TreeDef("tuple"), list(row))
        if isinstance(row, gast.Constant) and isinstance(target, gast.Name):
            self.env.pop(target.id, None)
            self.consts[target.id] = row.value
            if not isinstance(row.value, str):
                out.append(gast.copy_location(assign(target.id, copy.deepcopy(row)), s))
            return
        if isinstance(target, gast.Name) and isinstance(row, gast.Name):
            self.env.pop(target.id, None)      # the loop variable reads the leaf itself
            self.aliases[target.id] = row
            return
        self.bind(target, row, s, out)

    # -- the function -------------------------------------------------------------------------
    def run(self):
        tree = self.tree
        new_args = []
        taken = all_names(tree) | set(self.namespace)
        self.namer.reserve(taken)
        for a in tree.args.args:
            td = self.param_trees.get(a.id)
            if td is None:
                new_args.append(a)
                continue
            leaves = self.leaf_names(a.id, td)
            self.leaf_params[a.id] = leaves
            new_args += [gast.Name(id=n, ctx=gast.Param(), annotation=None, type_comment=None) for n in leaves]
            self.env[a.id] = _from_treedef(td, [name(n) for n in leaves])
        n_default = len(tree.args.defaults)
        kept_defaults = [d for a, d in zip(tree.args.args[len(tree.args.args) - n_default:], tree.args.defaults)
                         if a.id not in self.param_trees]
        tree.args.args = new_args
        tree.args.defaults = kept_defaults
        tree.body = self.block(tree.body)
        if self.out_tree is None:
            self.out_tree = pytree.LEAF
        unit = FunctionSource(func=self.unit.func, tree=tree, filename=self.unit.filename,
                              namespace=self.namespace,
                              text=self.unit.text + "\n# structure: " + repr(sorted(
                                  (k, str(v)) for k, v in self.param_trees.items())))
        return unit, self.out_tree


def _returns_container(fdef):
    for n in gast.walk(fdef):
        if isinstance(n, gast.Return) and isinstance(n.value, (gast.Dict, gast.List)):
            return True
        if isinstance(n, gast.Return) and isinstance(n.value, gast.Tuple) and \
                any(isinstance(e, (gast.Dict, gast.List, gast.Tuple)) for e in n.value.elts):
            return True
    return False


def flatten_function(unit, param_trees, pair=False):
    """(the FunctionSource of ``unit`` with its pytree parameters flattened into leaves, the
    TreeDef of its result). ``param_trees`` maps parameter names to TreeDefs. The flat function
    returns the leaves of a pytree result as a tuple; with ``pair`` (has_aux) it returns
    ``(output, aux)`` with the aux leaves as a tuple."""
    flattener = _Flattener(unit, param_trees, Namer(), {}, pair)
    flat, out_tree = flattener.run()
    return flat, out_tree


def uses_pytrees(unit):
    """Whether ``unit`` builds or returns pytrees (dict literals, helpers returning them) even with
    no pytree arguments: then it is transformed through its flat version too."""
    flat, out_tree = flatten_function(unit, {})
    return not out_tree.is_leaf or to_source(flat.tree) != to_source(unit.tree)
