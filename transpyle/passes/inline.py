"""inline: calls to user functions (module-level helpers, nested defs, lambdas) are replaced by
the callee's normalized body, so every later pass sees one function.

Callee variables get fresh names (``p`` of ``sigmoid`` becomes ``p_sigmoid``); parameters that
the callee never rebinds are replaced by the caller's atoms, so an array passed in and written
in place is the same array on both sides, as in Python. Defaults and keywords bind as in Python.
"""
import copy

import gast

from ..ast_utils import assign, loaded_names, stored_names, substitute
from ..context import FILE_ATTR, DeferredCall
from ..primitives import is_atom
from ..source import FunctionSource


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
        if isinstance(target, FunctionSource):
            unit, tree = target, copy.deepcopy(target.tree)
        else:
            unit, tree = None, copy.deepcopy(target)
        ident = unit.func if unit is not None else id(target)
        if ident in self.stack:
            raise self.ctx.error(stmt, f"'{tree.name}' calls itself; recursion is not supported",
                                 hint="write the recursion as a loop")
        self.stack.append(ident)
        tree = self.prepare(tree, unit)
        tree.body = self.block(tree.body)
        self.stack.pop()
        return self.splice(stmt, tree, unit)

    def splice(self, stmt, tree, unit):
        call = stmt.value
        params = [a.id for a in tree.args.args]
        defaults = dict(zip(params[len(params) - len(tree.args.defaults):], tree.args.defaults))
        bound = {}
        if len(call.args) > len(params):
            raise self.ctx.error(stmt, f"'{tree.name}' takes {len(params)} arguments, {len(call.args)} given")
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
                pre.append(gast.copy_location(assign(renames[p], arg), stmt))
        new_body = pre + [substitute(s, subs) for s in body]
        ret_value = substitute(ret.value, subs)
        filename = unit.filename if unit is not None else None
        if filename and filename != self.ctx.filename:
            for s in new_body:
                for n in gast.walk(s):
                    setattr(n, FILE_ATTR, filename)
        targets = stmt.targets[0]
        if isinstance(targets, gast.Tuple):
            if not isinstance(ret_value, gast.Tuple) or len(ret_value.elts) != len(targets.elts):
                raise self.ctx.error(stmt, f"'{tree.name}' does not return {len(targets.elts)} values")
            for t, v in zip(targets.elts, ret_value.elts):
                new_body.append(gast.copy_location(assign(t.id, v), stmt))
        else:
            new_body.append(gast.copy_location(assign(targets.id, ret_value), stmt))
        return new_body


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


def run(tree, ctx, prepare):
    tree.body = _Inliner(ctx, prepare).block(tree.body)
    _forward_tuples(tree.body)
    tree.body = _drop_unused_tuples(tree.body, loaded_names(tree))
    return tree
