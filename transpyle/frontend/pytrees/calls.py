"""calls: how the pytree flattening evaluates a call (a mixin of the Flattener).

``len`` of a pytree, ``enumerate`` and ``zip`` over pytrees, ``tree.map``, ``tree.leaves``,
leafwise functions (``stop_gradient(params)``) and the dict methods are evaluated at transform
time; a transform built in the body (``grad(loss)(params, x)``) is called as its flat version on
the leaves; a user helper called with pytrees, or returning them, is specialized on the structure
of its arguments as a flat helper.
"""
import copy
import dataclasses

import gast

from ... import tree as pytree
from ...base.ast_utils import const, name, substitute
from ...base.errors import TranspileError
from ...base.naming import Namer
from ..source import PYTREE_LIBRARY, is_user_function, read_function
from .structs import StaticSeq, Struct, describe, from_treedef, returns_container, static_key


class CallFlattening:
    """The call methods of :class:`~.flattener.Flattener` (it holds the state they use)."""

    def ev_Call(self, node, out):
        if isinstance(node.func, gast.Name) and isinstance(self.aliases.get(node.func.id), gast.Name):
            node.func = copy.deepcopy(self.aliases[node.func.id])    # a function bound by an unrolled loop
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
            if any(isinstance(a, (Struct, StaticSeq)) for a in args):
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
                return from_treedef(arg.treedef(), [gast.Call(func=copy.deepcopy(func),
                                                               args=[leaf] + copy.deepcopy(node.args[1:]),
                                                               keywords=copy.deepcopy(node.keywords))
                                                     for leaf in arg.leaves()])
        if isinstance(obj, type) and issubclass(obj, tuple) and hasattr(obj, "_fields"):
            return self.namedtuple(obj, node, out)
        transform = self.transform_of(func)
        if transform is not None:
            result = self.call_transform(node, transform, out)
            if result is not None:
                return result
        # lax's helpers are not specialized: they take functions, which this pass does not substitute
        if is_user_function(obj, library=PYTREE_LIBRARY) or (isinstance(func, gast.Name) and func.id in self.nested):
            result = self.call_helper(node, obj, out)
            if result is not None:
                return result
        return self.generic(node, out)

    def namedtuple(self, cls, node, out):
        """``State(pos, vel=v)``: a namedtuple made in the body is the pytree of its fields, positional
        arguments first, then keywords, then the class's defaults (as the class's own constructor does)."""
        fields = tuple(cls._fields)
        given = dict(zip(fields, node.args))
        for kw in node.keywords:
            if kw.arg not in fields or kw.arg in given:
                raise self.error(node, f"{cls.__name__}() got an unexpected or repeated field '{kw.arg}'",
                                 hint=f"its fields are {', '.join(fields)}")
            given[kw.arg] = kw.value
        if len(node.args) > len(fields):
            raise self.error(node, f"{cls.__name__}() takes {len(fields)} fields, {len(node.args)} given",
                             hint=f"its fields are {', '.join(fields)}")
        defaults = getattr(cls, "_field_defaults", {})
        items = []
        for f in fields:
            if f in given:
                items.append(self.item(given[f], out))
            elif f in defaults and isinstance(defaults[f], (int, float, bool)):
                items.append(const(defaults[f]))
            else:
                raise self.error(node, f"{cls.__name__}() needs its field '{f}'",
                                 hint="give every field that has no number as its default")
        return self.materialize(Struct(pytree.TreeDef("namedtuple", node=cls, keys=fields), items), "_leaf", out,
                                node)

    def transform_of(self, func):
        """The transform a callee is, when known at transform time: ``g`` after ``g = grad(loss)``,
        ``grad(loss)`` itself, or a transformed function of the module (``predict = vmap(apply)``)."""
        if isinstance(func, gast.Name) and func.id in self.transforms:
            return self.transforms[func.id]
        if isinstance(func, gast.Call):
            return self.build_transform(func)
        obj = self.static_object(func)
        return obj if hasattr(obj, "generated_function") and hasattr(obj, "_flatten") else None

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
            node.args = [self.value(a, out) if isinstance(a, StaticSeq) else a for a in args]
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
        return from_treedef(out_tree, [name(t) for t in targets])

    def method(self, base, attr, node, out):
        if base.shell.kind == "dict" and attr in ("items", "keys", "values") and not node.args:
            keys = [const(k) for k in base.shell.keys]
            rows = {"items": [(k, v) for k, v in zip(keys, base.items)], "keys": keys, "values": base.items}[attr]
            return StaticSeq(rows)
        if base.shell.kind == "dict" and attr == "get" and node.args:
            key = static_key(node.args[0], self.consts)
            if base.treedef().child_index(key) is None:      # d.get(key, default): the default, or None
                return self.ev(node.args[1], out) if len(node.args) > 1 else const(None)
            return self.child(base, key, node)
        if base.shell.kind == "custom" or base.shell.kind == "namedtuple":
            raise self.error(node, f"methods of {base.shell.node.__name__} cannot be called in transformed code",
                             hint="move the computation into a function taking the pytree")
        raise self.error(node, f"the method '.{attr}()' of a pytree is not supported",
                         hint="supported: .items() .keys() .values() .get(key)")

    def sequence(self, fn, args, node):
        def rows_of(a):
            if isinstance(a, Struct):
                return [const(k) for k in a.shell.keys] if a.shell.kind == "dict" else list(a.items)
            if isinstance(a, StaticSeq):
                return a.rows
            raise self.error(node, "zip of a pytree with a run-time sequence is not supported",
                             hint="zip pytrees with pytrees")
        if fn is enumerate:
            return StaticSeq([(const(i), r) for i, r in enumerate(rows_of(args[0]))])
        columns = [rows_of(a) for a in args]
        return StaticSeq(list(zip(*columns)))

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
                raise self.error(a, f"tree.map: the structures differ:\n  {td}\n  {describe(t)}",
                                 hint="map over pytrees of the same structure")
        columns = [t.leaves() for t in trees]
        leaves = []
        for row in zip(*columns):
            if isinstance(fn, gast.Lambda):
                params = [a.id for a in fn.args.args]
                expr = substitute(copy.deepcopy(fn.body), dict(zip(params, row)))
                leaves.append(self.value(expr, out))
            else:
                leaves.append(self.value(gast.Call(func=copy.deepcopy(fn), args=[copy.deepcopy(r) for r in row],
                                                   keywords=[]), out))
        return self.materialize(from_treedef(td, leaves), "_leaf", out, node)

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
        if not trees and not returns_container(unit.tree):
            return None
        key = fkey + (tuple(sorted(trees.items(), key=lambda kv: kv[0])),)
        nested = isinstance(node.func, gast.Name) and node.func.id in self.nested
        first = key not in self.specialized
        if first:
            helper = type(self)(unit, trees, Namer(), self.specialized)   # the Flattener (it imports this module)
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
                keywords.append(gast.keyword(arg=p, value=self.value(v, out) if isinstance(v, StaticSeq) else v))
        call = gast.copy_location(gast.Call(func=name(fname), args=[], keywords=keywords), node)
        if out_tree.is_leaf:
            return call
        targets = self.leaf_names("_r", out_tree)
        if not targets:
            out.append(gast.copy_location(gast.Expr(value=call), node))
        else:
            target = gast.Tuple(elts=[name(t, store=True) for t in targets], ctx=gast.Store())
            out.append(gast.copy_location(gast.Assign(targets=[target], value=call, type_comment=None), node))
        return from_treedef(out_tree, [name(t) for t in targets])
