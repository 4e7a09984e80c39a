"""inline: calls to user functions (module-level helpers, nested defs, lambdas) are replaced by
the callee's normalized body, so every later pass sees one function.

Callee variables get fresh names (``p`` of ``sigmoid`` becomes ``p_sigmoid``); parameters that
the callee never rebinds are replaced by the caller's atoms, so an array passed in and written
in place is the same array on both sides, as in Python. Defaults and keywords bind as in Python.
"""
import copy

import gast

from ..base.ast_utils import assign, const, loaded_names, name, stored_names, substitute
from ..base.context import FILE_ATTR, DeferredCall
from .custom import CustomRule
from ..twins import is_twin
from ..rules.primitives import is_atom
from .source import FunctionSource
from . import custom_calls

#: attribute of the assignment binding a callee's rebound parameter to the caller's argument
BINDING_ATTR = "transpyle_binding"


def _callee_key(stmt, ctx):
    if not isinstance(stmt, gast.Assign):
        return None
    value = stmt.value
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Name) and value.func.id in ctx.functions \
            and not isinstance(ctx.functions[value.func.id], DeferredCall):
        return value.func.id
    return None


class _Inliner:
    def __init__(self, ctx, prepare):
        self.ctx = ctx
        self.prepare = prepare      # (tree, unit) -> normalized tree, from the pipeline
        self.stack = []

    def block(self, stmts):
        out = []
        for s in stmts:
            key = _callee_key(s, self.ctx)
            if key is not None:
                out.extend(self.expand(s, key))
                continue
            if isinstance(s, (gast.For, gast.While)):
                s.body = self.block(s.body)
            elif isinstance(s, gast.If):
                s.body = self.block(s.body)
                s.orelse = self.block(s.orelse)
            out.append(s)
        return out

    def expand(self, stmt, key):
        target = self.ctx.functions[key]
        if isinstance(target, CustomRule):       # a function with its own derivative rule
            return custom_calls.expand(self, stmt, target)
        if isinstance(target, FunctionSource):
            unit, tree = target, copy.deepcopy(target.tree)
        else:
            unit, tree = None, copy.deepcopy(target)
        ident = unit.func if unit is not None else id(target)
        if ident in self.stack:
            raise self.ctx.error(stmt, f"'{tree.name}' calls itself; recursion is not supported",
                                 hint="write the recursion as a loop")
        self.stack.append(ident)
        twin = unit is not None and is_twin(unit.func)
        if twin:          # NumPy's function written in NumPy: its errors are the user's call's
            _relocate(tree, stmt, getattr(stmt, FILE_ATTR, None) or self.ctx.filename)
        tree = self._bind_functions(tree, stmt.value)
        tree = _bind_flags(tree, stmt.value, numbers=twin)
        tree = self.prepare(tree, unit)
        tree.body = self.block(tree.body)
        self.stack.pop()
        return self.splice(stmt, tree, unit)

    def _bind_functions(self, tree, call):
        """Parameters that receive functions (``body_fun`` of ``fori_loop``) are replaced in the
        callee's body by the functions' registry keys before it is normalized, so its calls to them
        are calls to known functions, inlined in turn."""
        params = [a.id for a in tree.args.args]
        bound = dict(zip(params, call.args))
        bound.update({kw.arg: kw.value for kw in call.keywords})

        def is_function(node):
            return isinstance(node, gast.Name) and node.id in self.ctx.functions or \
                isinstance(node, gast.Tuple) and node.elts and all(is_function(e) for e in node.elts)
        subs = {p: copy.deepcopy(v) for p, v in bound.items() if is_function(v)}
        if subs:
            tree.body = [substitute(s, subs) for s in tree.body]
        return tree

    def splice(self, stmt, tree, unit):
        call = stmt.value
        positional = [a.id for a in tree.args.args]
        params = positional + [a.id for a in tree.args.kwonlyargs]      # keyword-only ones by name only
        defaults = dict(zip(positional[len(positional) - len(tree.args.defaults):], tree.args.defaults))
        defaults.update({a.id: d for a, d in zip(tree.args.kwonlyargs, tree.args.kw_defaults) if d is not None})
        bound = {}
        if len(call.args) > len(positional):
            raise self.ctx.error(stmt, f"'{tree.name}' takes {len(positional)} arguments, {len(call.args)} given")
        for p, a in zip(params, call.args):
            bound[p] = a
        for kw in call.keywords:
            if kw.arg not in params or kw.arg in bound:
                raise self.ctx.error(stmt, f"'{tree.name}' got an unexpected or repeated argument '{kw.arg}'")
            bound[kw.arg] = kw.value
        for p in params:
            if p not in bound:
                if p not in defaults:
                    raise self.ctx.error(stmt, f"'{tree.name}' is missing the argument '{p}'")
                bound[p] = defaults[p]
        body, ret = tree.body[:-1], tree.body[-1]
        rebound = stored_names(body)
        local = (stored_names(body) | set(params)) - set()
        renames = {v: self.ctx.namer.fresh(f"{v.lstrip('_') or 't'}_{tree.name}") if not v.startswith("_")
                   else self.ctx.namer.fresh("_t") for v in sorted(local)}
        subs = dict(renames)
        pre = []
        for p in params:
            arg = bound[p]
            if p not in rebound and is_atom(arg):
                subs[p] = arg
            else:
                binding = gast.copy_location(assign(renames[p], arg), stmt)
                setattr(binding, BINDING_ATTR, True)    # the callee's parameter names the caller's array
                pre.append(binding)
        new_body = self._decided(pre + [substitute(s, subs) for s in body])
        ret_value = substitute(ret.value, subs)
        filename = unit.filename if unit is not None and not is_twin(unit.func) else None
        if filename and filename != self.ctx.filename:
            for s in new_body:
                for n in gast.walk(s):
                    setattr(n, FILE_ATTR, filename)
        targets = stmt.targets[0]
        if isinstance(targets, gast.Tuple):
            if isinstance(ret_value, gast.Name):      # a tuple variable (a loop carry): its elements
                ret_value = gast.Tuple(elts=[gast.Subscript(value=name(ret_value.id), slice=const(k), ctx=gast.Load())
                                             for k in range(len(targets.elts))], ctx=gast.Load())
            if not isinstance(ret_value, gast.Tuple) or len(ret_value.elts) != len(targets.elts):
                raise self.ctx.error(stmt, f"'{tree.name}' does not return {len(targets.elts)} values")
            for t, v in zip(targets.elts, ret_value.elts):
                new_body.append(gast.copy_location(assign(t.id, v), stmt))
        elif not (isinstance(ret_value, gast.Constant) and ret_value.value is None):
            new_body.append(gast.copy_location(assign(targets.id, ret_value), stmt))
        # a helper returning None is called for its writes into its arguments: its value is never read
        return new_body


    def _decided(self, stmts):
        """``stmts`` with the tests that substituting the arguments made constants decided: ``if mode:``
        with ``mode`` bound to 1 is its body, ``while flag:`` with False is nothing (branches test names
        in the normal form; a constant left there would reach the transforms)."""
        out = []
        for s in stmts:
            if isinstance(s, gast.If) and isinstance(s.test, gast.Constant):
                out += self._decided(s.body if s.test.value else s.orelse)
                continue
            if isinstance(s, gast.While) and isinstance(s.test, gast.Constant):
                if not s.test.value:
                    continue
                flag = self.ctx.namer.fresh("_c")
                out.append(gast.copy_location(assign(flag, const(True)), s))
                s.test = name(flag)
            for field in ("body", "orelse"):
                if isinstance(getattr(s, field, None), list):
                    setattr(s, field, self._decided(getattr(s, field)))
            out.append(s)
        return out


def _bind_flags(tree, call, numbers=False):
    """Parameters that receive None, a bool or a string (passed, or left to such a default) and that the callee
    never rebinds are replaced in its body before it is normalized, so ``if q is None:`` and
    ``if mode == "relu":`` are decided when it is inlined, as for static arguments. With ``numbers`` (NumPy's
    functions written in NumPy: ``transpyle.twins``) constant numbers and tuples of them are replaced too, so
    ``axis=1`` and ``q=50.0`` are the constants NumPy's signatures need."""
    params = [a.id for a in tree.args.args]
    values = dict(zip(params[len(params) - len(tree.args.defaults):], tree.args.defaults))
    values.update({a.id: d for a, d in zip(tree.args.kwonlyargs, tree.args.kw_defaults) if d is not None})
    values.update(zip(params, call.args))
    values.update({kw.arg: kw.value for kw in call.keywords})
    rebound = stored_names(tree.body)
    if numbers:
        values = {p: _item_of_literal(v) for p, v in values.items()}
    subs = {p: v for p, v in values.items() if p not in rebound and (isinstance(v, gast.Constant) and
            (v.value is None or isinstance(v.value, (str, bool))) or numbers and _is_literal(v))}
    if subs:
        tree.body = [substitute(s, subs) for s in tree.body]
    return tree


def _is_literal(node):
    """Whether ``node`` is a constant written in the call: a number (signed), None, a string, a tuple of those."""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        node = node.operand
    if isinstance(node, gast.Tuple):
        return all(_is_literal(e) for e in node.elts)
    return isinstance(node, gast.Constant)


def _item_of_literal(node):
    """``(0, 1)[1]`` (an item of a constant tuple, as a twin passes an axis on) as that item, ``-1`` as one
    constant (so ``axis is None`` folds); else ``node``."""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub) and isinstance(node.operand, gast.Constant) \
            and isinstance(node.operand.value, (int, float)) and not isinstance(node.operand.value, bool):
        return gast.copy_location(const(-node.operand.value), node)
    if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Tuple) and _is_literal(node.value) and \
            isinstance(node.slice, gast.Constant) and isinstance(node.slice.value, int) and \
            -len(node.value.elts) <= node.slice.value < len(node.value.elts):
        return node.value.elts[node.slice.value]
    return node


def _relocate(tree, stmt, path):
    """Every node of ``tree`` at ``stmt``'s place, in the file ``path``."""
    for node in gast.walk(tree):
        if isinstance(node, (gast.expr, gast.stmt)):
            gast.copy_location(node, stmt)
            setattr(node, FILE_ATTR, path)


def _forward_tuples(stmts):
    """``t = (a, b)`` followed by ``c = t[0]`` becomes ``c = a`` while ``a`` is unchanged, so each
    element keeps its own derivative (a helper returning a pair, nested unpacking)."""
    known = {}                 # tuple variable -> its element atoms
    for s in stmts:
        if isinstance(s, (gast.For, gast.While, gast.If)):
            for part in ("body", "orelse"):
                _forward_tuples(getattr(s, part))
            known.clear()
            continue
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name):
            v = s.value
            if isinstance(v, gast.Subscript) and isinstance(v.value, gast.Name) and v.value.id in known \
                    and isinstance(v.slice, gast.Constant) and isinstance(v.slice.value, int):
                elts = known[v.value.id]
                if -len(elts) <= v.slice.value < len(elts):
                    s.value = copy.deepcopy(elts[v.slice.value])
        changed = stored_names([s])
        known = {t: elts for t, elts in known.items()
                 if t not in changed and not (loaded_names(gast.Tuple(elts=elts, ctx=gast.Load())) & changed)}
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and \
                isinstance(s.value, gast.Tuple) and all(is_atom(e) for e in s.value.elts):
            known[s.targets[0].id] = s.value.elts


def _drop_unused_tuples(stmts, used):
    out = []
    for s in stmts:
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and \
                isinstance(s.value, gast.Tuple) and s.targets[0].id not in used:
            continue
        for part in ("body", "orelse"):
            if isinstance(s, (gast.For, gast.While, gast.If)):
                setattr(s, part, _drop_unused_tuples(getattr(s, part), used) or
                        ([gast.Pass()] if part == "body" else []))
        out.append(s)
    return out


def _split_tuples(tree, ctx):
    """Tuple variables of fixed length (a loop carry ``val = (a, b)``) become one variable per
    element (``val_0``, ``val_1``), so each element keeps its own kind and derivative. A tuple is
    split when every use is an assignment of a tuple literal or of another split tuple, a constant
    index, or the final return."""
    arity = {}
    assigns = [s for s in gast.walk(tree) if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)]
    grown = True
    while grown:                     # lengths flow from tuple literals through copies (val = _t2)
        grown = False
        for s in assigns:
            v = s.value
            n = len(v.elts) if isinstance(v, gast.Tuple) else arity.get(v.id) if isinstance(v, gast.Name) else None
            t = s.targets[0].id
            if n is not None and arity.get(t) != n and arity.get(t) != -1:
                arity[t] = n if t not in arity else -1
                grown = True
    candidates = {v for v, n in arity.items() if n > 0}
    changed = True
    while changed:                   # drop tuples with any other use (and tuples copied from them)
        changed = False
        allowed = set()
        for s in gast.walk(tree):
            if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and s.targets[0].id in candidates:
                v = s.value
                if isinstance(v, gast.Tuple) and len(v.elts) == arity[s.targets[0].id]:
                    allowed.add(id(s.targets[0]))
                elif isinstance(v, gast.Name) and v.id in candidates and arity[v.id] == arity[s.targets[0].id]:
                    allowed.update((id(s.targets[0]), id(v)))
            elif isinstance(s, gast.Subscript) and isinstance(s.value, gast.Name) and s.value.id in candidates and \
                    isinstance(s.ctx, gast.Load) and isinstance(s.slice, gast.Constant) and \
                    isinstance(s.slice.value, int) and 0 <= s.slice.value < arity[s.value.id]:
                allowed.add(id(s.value))
        ret = tree.body[-1]
        if isinstance(ret, gast.Return) and isinstance(ret.value, gast.Name):
            allowed.add(id(ret.value))
        for n in gast.walk(tree):
            if isinstance(n, gast.Name) and n.id in candidates and id(n) not in allowed:
                candidates.discard(n.id)
                changed = True
    if not candidates:
        return
    parts = {v: [ctx.namer.exact_or_fresh(f"{v.lstrip('_') or 't'}_{k}") for k in range(arity[v])]
             for v in sorted(candidates)}

    class Split(gast.NodeTransformer):
        def visit_Assign(self, s):
            t = s.targets[0]
            if isinstance(t, gast.Name) and t.id in parts:
                values = s.value.elts if isinstance(s.value, gast.Tuple) else \
                    [name(p) for p in parts[s.value.id]]
                return [gast.copy_location(assign(p, self.visit(v)), s) for p, v in zip(parts[t.id], values)]
            return self.generic_visit(s)

        def visit_Subscript(self, node):
            if isinstance(node.value, gast.Name) and node.value.id in parts and isinstance(node.ctx, gast.Load):
                return name(parts[node.value.id][node.slice.value])
            return self.generic_visit(node)

        def visit_Return(self, node):
            if isinstance(node.value, gast.Name) and node.value.id in parts:
                node.value = gast.Tuple(elts=[name(p) for p in parts[node.value.id]], ctx=gast.Load())
            return node
    Split().visit(tree)


def run(tree, ctx, prepare):
    tree.body = _Inliner(ctx, prepare).block(tree.body)
    _forward_tuples(tree.body)
    tree.body = _drop_unused_tuples(tree.body, loaded_names(tree))
    _split_tuples(tree, ctx)
    return tree
