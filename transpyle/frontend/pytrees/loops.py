"""loops: how the pytree flattening rewrites loops (a mixin of the Flattener).

A loop over a pytree (or over ``.items()``, ``enumerate``, ``zip`` of pytrees, or a ``range``
whose index reads a pytree) is unrolled, its variables bound to each row in turn, and so is a list or
dict comprehension over one (into a list or dict of its elements); any other loop
stays, and a pytree it rebinds is carried in leaf variables of its own, assigned before the loop
and at the end of its body.
"""
import copy

import gast

from ... import tree as pytree
from ...base.ast_utils import assign, const, name, stored_names
from ...base.errors import TranspileError
from .structs import StaticSeq, Struct, from_treedef, static_key


class LoopFlattening:
    """The loop methods of :class:`~.flattener.Flattener` (it holds the state they use)."""

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
            self.env[k] = carries[k] = from_treedef(s_in.treedef(), [name(t) for t in targets])
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
        if isinstance(it, StaticSeq):
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

    def comprehension_rows(self, node, out):
        """The rows a comprehension over a pytree runs over (one generator, no conditions); None for any
        other comprehension, which is refused."""
        if len(node.generators) != 1 or node.generators[0].ifs:
            return None
        it = self.ev(copy.deepcopy(node.generators[0].iter), out)
        if isinstance(it, Struct):
            return [const(k) for k in it.shell.keys] if it.shell.kind == "dict" else list(it.items)
        return it.rows if isinstance(it, StaticSeq) else None

    def unrolled_comprehension(self, node, out, element):
        """``element(out)`` for each row of the comprehension ``node``, its variables bound to the row (their
        bindings end with it, as in Python); None where it is not over a pytree."""
        rows = self.comprehension_rows(node, out)
        if rows is None:
            return None
        saved = dict(self.env), dict(self.aliases), dict(self.consts)
        results = []
        for row in rows:
            self.bind_loop_target(node.generators[0].target, row, node, out)
            results.append(element(out))
        self.env, self.aliases, self.consts = saved
        return results

    def held(self, item, out, node):
        """A comprehension's element in variables that later rows do not rebind."""
        one = Struct(pytree.TreeDef("tuple"), [item])
        return self.materialize(one, "_elt", out, node).items[0]

    def ev_ListComp(self, node, out):
        # [(w - lr * dw, b - lr * db) for (w, b), (dw, db) in zip(params, grads)]: a list, unrolled
        items = self.unrolled_comprehension(
            node, out, lambda o: self.held(self.item(copy.deepcopy(node.elt), o), o, node))
        return self.generic(node, out) if items is None else Struct(pytree.TreeDef("list"), items)

    def ev_DictComp(self, node, out):
        # {k: v - lr * grads[k] for k, v in params.items()}: a dict with the keys known here
        pairs = self.unrolled_comprehension(
            node, out, lambda o: (static_key(node.key, self.consts),
                                  self.held(self.item(copy.deepcopy(node.value), o), o, node)))
        if pairs is None:
            return self.generic(node, out)
        pairs.sort(key=lambda kv: kv[0])
        return Struct(pytree.TreeDef("dict", keys=tuple(k for k, _ in pairs)), [v for _, v in pairs])

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
