"""normalize: A-normal form. Every statement becomes ``name = primitive(atoms)``, an in-place write
``name[index] = atom``, a ``for`` over ``range``, a ``while`` on a name, an ``if`` on a name, or the
final ``return``.

Nested expressions get temporaries (``_t1``), augmented assignments and tuple targets are spelled
out, iteration over arrays/``enumerate``/``zip`` becomes a ``range`` loop, ``and``/``or`` and
conditional expressions keep their short-circuit order as ``if`` statements, nested ``def``s and
lambdas are registered for inlining. Index expressions and static arguments (axis, shapes) stay
as written: they are integer facts the adjoint sweep recomputes rather than stores.

Loops are normalized in ``normalize_loops``, ``and``/``or``/chained comparisons/conditional expressions in
``normalize_short_circuit``, writes into arrays (library writers, at-updates, augmented assignments) in
``normalize_writes``.
"""
import copy

import gast

from ..base.ast_utils import all_names, assign, const, dotted, name, parse_expr, stored_names
from ..rules import writes
from ..rules.common import is_dtype_expr
from .functional_updates import at_update
from .normalize_loops import LoopNormalization
from .normalize_short_circuit import ShortCircuitNormalization
from .normalize_writes import WriteNormalization
from .resolve import ENCLOSING_ATTR
from ..rules.primitives import is_atom, is_shape_expr, lookup

_PURE_CALLS = ("len", "int", "min", "max", "abs", "float", "rt.trip_count")


class _Normalizer(LoopNormalization, ShortCircuitNormalization, WriteNormalization):
    def __init__(self, ctx, local_functions):
        self.ctx = ctx
        self.local_functions = local_functions      # local def/lambda name -> registry key

    def fresh(self, base="_t"):
        return self.ctx.namer.fresh(base)

    # ---- expressions ---------------------------------------------------------------------------
    def atom(self, node, out):
        """An atom for ``node``, emitting statements that compute it into ``out``."""
        if is_atom(node):
            return node
        tmp = self.fresh()
        self.assign_to(tmp, node, out)
        return name(tmp)

    def pure(self, node, out):
        """An index/static expression: kept as written when made of names, constants, arithmetic,
        shape facts and subscripts; impure parts (calls to functions) are computed first."""
        if node is None or isinstance(node, (gast.Constant, gast.Name)) or is_shape_expr(node):
            return node
        if isinstance(node, gast.Slice):
            node.lower = self.pure(node.lower, out)
            node.upper = self.pure(node.upper, out)
            node.step = self.pure(node.step, out)
            return node
        if isinstance(node, (gast.Tuple, gast.List)):
            node.elts = [self.pure(e, out) for e in node.elts]
            return node
        if isinstance(node, gast.BinOp):
            node.left, node.right = self.pure(node.left, out), self.pure(node.right, out)
            return node
        if isinstance(node, gast.UnaryOp):
            node.operand = self.pure(node.operand, out)
            return node
        if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name):
            node.slice = self.index(node.slice, out)
            return node
        if isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name):
            return node           # np.float64 and similar dtype references
        if isinstance(node, gast.Call) and _call_name(node) in _PURE_CALLS:
            node.args = [self.pure(a, out) for a in node.args]
            return node
        return self.atom(node, out)

    def index(self, node, out):
        """An index: as ``pure``, with a list in it (``x[[0, 3]]``, ``x[:, [1, 2]]``) an integer array,
        as NumPy reads it."""
        def listed(e):
            if isinstance(e, gast.List):
                return self.atom(gast.Call(func=parse_expr("np.array"), args=[e], keywords=[]), out)
            return e
        if isinstance(node, gast.Tuple):
            node.elts = [listed(e) for e in node.elts]
        else:
            node = listed(node)
        return self.pure(node, out)

    def assign_to(self, target, node, out):
        """Emit statements computing ``node`` into the variable ``target``."""
        rhs, pre = self.rhs(node, out, target)
        if isinstance(rhs, gast.Name) and rhs.id == target:
            return
        if target in _operand_names(rhs):
            tmp = self.fresh()
            out.append(self.located(assign(tmp, rhs), node))
            rhs = name(tmp)
        out.append(self.located(assign(target, rhs), node))

    def located(self, stmt, node):
        if hasattr(node, "lineno"):
            gast.copy_location(stmt, node)
        elif self.current is not None:
            gast.copy_location(stmt, self.current)
        return stmt

    def rhs(self, node, out, target=None):
        """A right-hand side made of one operation on atoms (statements for operands go to out)."""
        if is_atom(node):
            return node, None
        if isinstance(node, gast.BinOp):
            node.left, node.right = self.atom(node.left, out), self.atom(node.right, out)
            return node, None
        if isinstance(node, gast.UnaryOp):
            node.operand = self.atom(node.operand, out)
            return node, None
        if isinstance(node, gast.Compare):
            if len(node.ops) == 1:
                node.left, node.comparators = self.atom(node.left, out), [self.atom(node.comparators[0], out)]
                return node, None
            return self.chained_comparison(node, out, target)
        if isinstance(node, gast.BoolOp):
            return self.boolop(node, out, target)
        if isinstance(node, gast.IfExp):
            return self.conditional(node, out, target)
        if isinstance(node, gast.Subscript):
            if _number_tuple(node.value) and not isinstance(node.slice, (gast.Constant, gast.Slice)):
                # a tuple of numbers indexed by a loop variable: indexed as an array
                node.value = gast.Call(func=parse_expr("np.array"), args=[node.value], keywords=[])
            node.value = self.atom(node.value, out)
            node.slice = self.index(node.slice, out)
            return node, None
        if isinstance(node, (gast.Tuple, gast.List)):
            node.elts = [self.atom(e, out) for e in node.elts]
            return gast.Tuple(elts=node.elts, ctx=gast.Load()), None
        if isinstance(node, gast.Call):
            return self.call(node, out), None
        if is_dtype_expr(node):
            return node, None     # x.dtype, np.float32: written out once kinds are known (frontend/dtypes)
        if isinstance(node, gast.Attribute):
            raise self.ctx.error(node, f"the attribute '.{node.attr}' is not supported here")
        if isinstance(node, gast.Lambda):
            raise self.ctx.error(node, "a lambda can only be assigned to a name", hint="sq = lambda z: z * z")
        raise self.ctx.error(node, f"{type(node).__name__} expressions are not supported",
                             hint="see docs/subset.md for the supported subset")

    def call(self, node, out):
        update = at_update(node)
        if update is not None:
            return self.functional_update(node, *update, out)
        fname = _call_name(node)
        if fname in ("range", "enumerate", "zip"):
            raise self.ctx.error(node, f"'{fname}' is supported only as the iterable of a for loop",
                                 hint="write 'for i in range(...)'")
        if fname in self.local_functions:
            node.func = name(self.local_functions[fname])
            fname = node.func.id
        writer = writes.by_spelling(fname)
        if writer is not None:
            return self.write(node, writer, out)
        into = next((kw for kw in node.keywords if kw.arg == "out"), None)
        if into is not None:                     # f(..., out=c): f's value written into c, which it returns
            node.keywords.remove(into)
            dst = self.atom(into.value, out)
            value = self.atom(node, out)
            whole = gast.Slice(lower=None, upper=None, step=None)
            out.append(self.located(assign(gast.Subscript(value=copy.deepcopy(dst), slice=whole, ctx=gast.Store()),
                                           value), node))
            return dst
        if fname in self.ctx.functions:          # a user function: inlined later
            node.args = [self.argument(a, out) for a in node.args]
            for kw in node.keywords:
                kw.value = self.argument(kw.value, out)
            return node
        prim, bound = lookup(node)
        if prim is None:
            raise self.ctx.error(node, bound, hint="see docs/subset.md for the supported functions")
        diff = set(prim.diff) | {p for p in prim.params if p not in prim.defaults and p not in prim.diff}
        # operands in differentiable (or required data) positions become atoms; statics stay
        new_args = []
        for i, a in enumerate(node.args):
            param = prim.params[i] if i < len(prim.params) else None
            new_args.append(self.operand(a, param, prim, diff, out))
        node.args = new_args
        for kw in node.keywords:
            kw.value = self.operand(kw.value, kw.arg, prim, diff, out)
        return node

    def argument(self, value, out):
        """An argument of a user function: an atom, or a function (a local def or lambda, by its
        registry key; a tuple of them) that the inliner substitutes into the callee."""
        if isinstance(value, gast.Name) and value.id in self.local_functions:
            return name(self.local_functions[value.id])
        if isinstance(value, gast.Name) and value.id in self.ctx.functions:
            return value
        if isinstance(value, gast.Lambda):
            key = self.fresh("lambda_fn")
            self.register_lambda(key, value, self.current)
            return name(self.local_functions[key])
        if isinstance(value, (gast.Tuple, gast.List)) and any(
                isinstance(e, gast.Lambda) or (isinstance(e, gast.Name) and
                                               (e.id in self.local_functions or e.id in self.ctx.functions))
                for e in value.elts):
            return gast.Tuple(elts=[self.argument(e, out) for e in value.elts], ctx=gast.Load())
        if isinstance(value, gast.Tuple) and value.elts and all(is_atom(e) and not isinstance(e, gast.Name)
                                                                 for e in value.elts):
            return value         # a tuple of constants (axes) stays one: a NumPy function's twin reads it
        return self.atom(value, out)

    def operand(self, value, param, prim, diff, out):
        if prim.varargs and param == prim.params[0] and isinstance(value, (gast.Tuple, gast.List)):
            # a list of numbers joined with arrays (np.concatenate(([0.0], x))) is an array of them
            value.elts = [self.atom(_as_array(e), out) for e in value.elts]
            return value
        if param in prim.diff or (param in diff and param not in ("shape", "index")):
            if isinstance(value, (gast.Tuple, gast.List)) and param in ("shape",):
                return self.pure(value, out)
            return self.atom(value, out) if param != "shape" else self.pure(value, out)
        return self.pure(value, out)

    def test_name(self, atom, out):
        if isinstance(atom, gast.Name):
            return atom
        tmp = self.fresh("_c")
        out.append(assign(tmp, atom))
        return name(tmp)

    # ---- statements ----------------------------------------------------------------------------
    current = None

    def block(self, stmts):
        out = []
        for s in stmts:
            saved, self.current = self.current, s
            self.stmt(s, out)
            self.current = saved
        return out

    def stmt(self, s, out):
        if isinstance(s, gast.Assign):
            value = s.value
            if len(s.targets) > 1:
                first = self.atom(value, out)
                for t in s.targets:
                    self.store(t, first, out, s)
                return
            if isinstance(value, gast.Lambda) and isinstance(s.targets[0], gast.Name):
                self.register_lambda(s.targets[0].id, value, s)
                return
            self.store(s.targets[0], value, out, s)
        elif isinstance(s, gast.AugAssign):
            self.augmented_assign(s, out)
        elif isinstance(s, gast.AnnAssign):
            if s.value is not None:
                self.store(s.target, s.value, out, s)
        elif isinstance(s, gast.Expr):
            if isinstance(s.value, gast.Call) and (writes.by_spelling(_call_name(s.value)) is not None or
                                                   any(kw.arg == "out" for kw in s.value.keywords)):
                self.call(s.value, out)       # a library call for its writes: they are all that is left
            elif isinstance(s.value, gast.Call) and (_call_name(s.value) in self.ctx.functions or
                                                     _call_name(s.value) in self.local_functions):
                self.atom(s.value, out)       # a helper called for its in-place writes
            elif isinstance(s.value, gast.Call) and _call_name(s.value) == "print" and not s.value.keywords:
                # jit keeps print (resolve drops it elsewhere): it prints the values at each call
                args = [a if isinstance(a, gast.Constant) else self.atom(a, out) for a in s.value.args]
                out.append(self.located(gast.Expr(value=gast.Call(func=name("print"), args=args, keywords=[])), s))
            elif not isinstance(s.value, gast.Constant):
                raise self.ctx.error(s, "an expression whose value is discarded has no effect here",
                                     hint="assign its value or remove it")
        elif isinstance(s, gast.Pass):
            return
        elif isinstance(s, gast.If):
            test = self.test_name(self.atom(s.test, out), out)
            node = gast.If(test=test, body=self.block(s.body), orelse=self.block(s.orelse))
            out.append(self.located(node, s))
        elif isinstance(s, gast.While):
            self.while_loop(s, out)
        elif isinstance(s, gast.For):
            self.for_loop(s, out)
        elif isinstance(s, gast.Return):
            value = s.value
            if isinstance(value, gast.Tuple):
                ret = gast.Tuple(elts=[self.atom(e, out) for e in value.elts], ctx=gast.Load())
            else:
                ret = self.atom(value, out)
            out.append(self.located(gast.Return(value=ret), s))
        elif isinstance(s, gast.Raise):       # resolve made it raise Name("message"): nothing to evaluate
            out.append(s)
        elif isinstance(s, gast.FunctionDef):
            key = self.fresh(s.name)
            self.local_functions[s.name] = key
            self.ctx.functions[key] = s
        else:
            raise self.ctx.error(s, f"'{type(s).__name__}' statements are not supported",
                                 hint="see docs/subset.md")

    def register_lambda(self, fname, lam, s):
        fdef = gast.FunctionDef(name=fname, args=lam.args, body=[gast.Return(value=lam.body)], decorator_list=[],
                                returns=None, type_comment=None, type_params=[])
        gast.copy_location(fdef, s)
        setattr(fdef, ENCLOSING_ATTR, getattr(lam, ENCLOSING_ATTR, set()))
        for n in gast.walk(fdef):
            if getattr(n, "lineno", None) is None and "lineno" in getattr(n, "_attributes", ()):
                gast.copy_location(n, s)
        key = self.fresh(fname)
        self.local_functions[fname] = key
        self.ctx.functions[key] = fdef

    def store(self, target, value, out, s):
        if isinstance(target, gast.Name):
            self.assign_to(target.id, value, out)
        elif isinstance(target, gast.Subscript):
            v = self.atom(value, out)
            arr = target.value
            if not isinstance(arr, gast.Name):
                raise self.ctx.error(s, "in-place writes are supported into a named array: name[index] = value")
            target.slice = self.index(target.slice, out)
            out.append(self.located(assign(target, v), s))
        elif isinstance(target, (gast.Tuple, gast.List)):
            self.unpack(target, value, out, s)
        else:
            raise self.ctx.error(s, f"assignment to {type(target).__name__} is not supported")

    def unpack(self, target, value, out, s):
        elts = target.elts
        if any(isinstance(e, gast.Starred) for e in elts):
            raise self.ctx.error(s, "starred assignment is not supported", hint="index the tuple")
        if isinstance(value, (gast.Tuple, gast.List)):
            if len(value.elts) != len(elts):
                raise self.ctx.error(s, f"cannot unpack {len(value.elts)} values into {len(elts)} names")
            parts = [self.atom(v, out) for v in value.elts]
            # evaluate every value before assigning any name (a, b = b, a)
            temps = []
            for p in parts:
                if isinstance(p, gast.Name) and p.id in stored_names(elts):
                    tmp = self.fresh()
                    out.append(self.located(assign(tmp, p), s))
                    p = name(tmp)
                temps.append(p)
            for t, p in zip(elts, temps):
                self.store(t, p, out, s)
            return
        if isinstance(value, gast.Call) and (_call_name(value) in self.ctx.functions or
                                              _call_name(value) in self.local_functions):
            if all(isinstance(e, gast.Name) for e in elts):
                call = self.call(value, out)
                out.append(self.located(gast.Assign(targets=[gast.Tuple(elts=elts, ctx=gast.Store())],
                                                    value=call, type_comment=None), s))
                return
        whole = self.atom(value, out)
        for k, t in enumerate(elts):
            part = gast.Subscript(value=copy.deepcopy(whole), slice=const(k), ctx=gast.Load())
            self.store(t, part, out, s)


def _call_name(node):
    return dotted(node.func) if isinstance(node, gast.Call) else None


def _number_tuple(node):
    return isinstance(node, (gast.Tuple, gast.List)) and node.elts and all(
        isinstance(e, gast.Constant) and isinstance(e.value, (int, float)) and not isinstance(e.value, bool)
        for e in node.elts)


def _operand_names(rhs):
    return all_names(rhs)


def run(tree, ctx):
    normalizer = _Normalizer(ctx, {})
    tree.body = normalizer.block(tree.body)
    if not tree.body or not isinstance(tree.body[-1], gast.Return):
        raise ctx.error(tree, "the function must end with a return")
    return tree


def _as_array(e):
    """A list or tuple display given as one of the arrays a join takes, as ``np.array`` of it."""
    if isinstance(e, (gast.List, gast.Tuple)):
        return gast.Call(func=gast.Attribute(value=name("np"), attr="array", ctx=gast.Load()),
                         args=[gast.List(elts=e.elts, ctx=gast.Load())], keywords=[])
    return e
