"""statements: how the pytree flattening rewrites statements other than loops (a mixin of the
Flattener).

A name bound to a pytree is kept in the environment as a :class:`Struct` instead of being
assigned; unpacking a pytree binds each target to its part; assigning an entry rebinds it; a
returned pytree becomes a flat tuple of its leaves; an ``if`` decided by the structure keeps one
branch, and a pytree rebound in both branches gets leaf variables assigned in each. Loops are in
``loops``.
"""
import copy

import gast

from ... import tree as pytree
from ...base.ast_utils import assign, const, name, stored_names
from .structs import StaticSeq, Struct, describe, from_treedef, static_key


class StatementFlattening:
    """The statement methods of :class:`~.flattener.Flattener` (it holds the state they use)."""

    def block(self, stmts):
        out = []
        for s in stmts:
            self.stmt(s, out)
            if out and isinstance(out[-1], (gast.Return, gast.Raise)):
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
        self.def_depth = getattr(self, "def_depth", 0) + 1
        s.body = self.block(s.body)
        self.def_depth -= 1
        self.env = saved
        out.append(s)

    def stmt_Expr(self, s, out):
        v = self.ev(s.value, out)
        if not isinstance(v, (Struct, StaticSeq)):
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
                key = static_key(target.slice, self.consts)
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
        if isinstance(value, (Struct, StaticSeq)):
            return self.value_from(value, s)
        return value

    def value_from(self, value, s):
        if isinstance(value, Struct) and value.shell.kind in ("tuple", "list"):
            return self.value_of_struct(value)
        raise self.error(s, f"a pytree ({describe(value)}) cannot be stored here", hint="bind it to a name")

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
                key = static_key(target.slice, self.consts) if isinstance(target, gast.Subscript) else target.attr
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
        if isinstance(v, StaticSeq):
            raise self.error(s, "a sequence cannot be returned", hint="return a pytree or an array")
        if self.param_trees and not getattr(self, "def_depth", 0) and isinstance(v, (gast.Tuple, gast.List)) and \
                isinstance(v.ctx, gast.Load):
            # a function of pytrees returning (x, y): its result is a pytree too, rebuilt as such
            v = Struct(pytree.TreeDef("tuple" if isinstance(v, gast.Tuple) else "list"),
                       [self.item(e, out) for e in v.elts])
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
                merged[k] = from_treedef(a.treedef(), [name(t) for t in targets])
        self.env = merged
        if not s.body:
            s.body = [gast.Pass()]
        out.append(s)

    def settle_aliases(self, node, out):
        """Loop variables bound to leaves that ``node`` assigns become variables of their own first
        (a branch or a loop assigning them must see one variable on every path)."""
        for n in sorted(stored_names(node) & set(self.aliases)):
            out.append(gast.copy_location(assign(n, self.aliases.pop(n)), node))
