"""resolve: names -> objects. Library calls get one canonical spelling (``np.sin``, ``math.exp``),
methods become function calls (``x.sum(axis=0)`` -> ``np.sum(x, axis=0)``), user functions are
registered for inlining, module constants are bound, and anything that cannot be resolved or has
no rule is an error naming the user's line.

The spellings of library objects, methods and attributes are in ``spellings``, the calls of library functions,
helpers and methods in ``library_calls`` (NumPy's functions written in NumPy checked by ``twin_calls``), the
transforms called in the body in ``transform_calls``, the refused syntax in ``unsupported_syntax``; at-updates (``x.at[i].set(v)``,
``functional_updates``) are kept as written for normalize to spell out.
"""
import copy
import math
import types
import warnings

import gast
import numpy as np

from .. import runtime
from ..base.arrays import library_object
from ..base.errors import TranspileError
from ..base.ast_utils import const, dotted, name, parse_expr, set_location, stored_names, substitute
from .custom import CustomRule
from .remat import Recomputed
from ..rules.common import StaticError
from ..rules.rewrites import subscript_rewrite
from . import generator_reductions, printed, raises, static_tuples, wrapped_callables
from .source import imported_names, is_user_function
from .named_expressions import hoist as hoist_named_expressions
from .spellings import ATTRIBUTE_CALLS
from .library_calls import LibraryCalls
from .transform_calls import TransformCalls, Vectorized
from .unsupported_syntax import refuse_unsupported

#: the modules canonical spellings name (``np.sin``), which code resolved once may hold
_CANONICAL = {"np": np, "math": math, "rt": runtime}

#: attribute of a nested def/lambda: the enclosing function's local names it may read
ENCLOSING_ATTR = "transpyle_enclosing"


class _Resolver(TransformCalls, LibraryCalls, gast.NodeTransformer):
    def __init__(self, ctx, unit, local_names):
        self.ctx = ctx
        self.unit = unit            # the FunctionSource whose namespace applies
        self.locals = set(local_names)
        self.static_values = {}     # local name -> transform built at transform time (g = grad(loss))
        self.nested_defs = {}       # def in the body -> its definition as written (transforms of closures)
        self.never_none = set()     # parameters the body never rebinds: `p is None` is False

    # -- statements ---------------------------------------------------------------------------
    def generic_visit(self, node):
        refuse_unsupported(self.ctx, node)
        return super().generic_visit(node)

    def visit_FunctionDef(self, node):
        # a nested helper: registered for inlining, resolved with the enclosing namespace
        if node.name in self.nested_defs:
            # calls are inlined by name: which of two defs a call means would depend on the path taken
            raise self.ctx.error(node, f"the function '{node.name}' is defined twice in the body",
                                 construct=f"def {node.name}", hint="give each definition a name of its own")
        self._remember_nested(node)
        inner_locals = local_names(node)
        # names of the enclosing function it reads (closures); kept for its resolution when inlined
        setattr(node, ENCLOSING_ATTR, set(self.locals))
        saved = self.locals
        self.locals = self.locals | inner_locals
        node.body = self.block(node.body)
        node.args.defaults = [self.visit(d) for d in node.args.defaults]
        self.locals = saved
        return node

    def visit_Lambda(self, node):
        setattr(node, ENCLOSING_ATTR, set(self.locals))
        saved = self.locals
        self.locals = self.locals | {a.id for a in node.args.args}
        node.body = self.visit(node.body)
        self.locals = saved
        return node

    def visit_Expr(self, node):
        # bare calls like print(...) have no effect on derivatives: jit runs them at each call, the other
        # transforms drop them; asserts are dropped too
        if isinstance(node.value, gast.Call) and isinstance(node.value.func, gast.Name) and \
                node.value.func.id == "print" and "print" not in self.locals:
            if self.ctx.mode != "primal":
                return None
            node.value.args = printed.pieces(node.value.args)
            return self.generic_visit(node)
        if isinstance(node.value, gast.Constant):      # docstrings
            return None
        return self.generic_visit(node)

    def visit_Assert(self, node):
        return None

    def visit_Raise(self, node):
        return raises.lowered(self.ctx, node, self.locals)

    def visit_Import(self, node):
        # an import in the body binds its names for the rest of the body, as at module level
        try:
            self.unit.namespace.update(imported_names(node, self.unit.namespace))
        except ImportError as exc:
            raise self.ctx.error(node, str(exc), hint="import a module that is installed") from None
        return None

    visit_ImportFrom = visit_Import

    # -- folding what is known at transform time (module constants, static arguments) -------------
    def visit_Compare(self, node):
        node = self.generic_visit(node)
        if len(node.ops) == 1 and isinstance(node.ops[0], (gast.Is, gast.IsNot)) and \
                isinstance(node.left, gast.Name) and node.left.id in self.never_none and \
                isinstance(node.comparators[0], gast.Constant) and node.comparators[0].value is None:
            # a parameter holds an array or a number (None is bound into the code, never passed in)
            return gast.copy_location(const(isinstance(node.ops[0], gast.IsNot)), node)
        return _fold(node, [node.left] + node.comparators)

    def visit_BinOp(self, node):
        node = self.generic_visit(node)
        top = self.unit is self.ctx.source       # argument kinds are those of the transformed function
        return static_tuples.fold(node, self.ctx.arg_kinds if top else {}, self.never_none)

    def visit_BoolOp(self, node):
        node = self.generic_visit(node)
        return _fold(node, node.values)

    def visit_UnaryOp(self, node):
        node = self.generic_visit(node)
        return _fold(node, [node.operand]) if isinstance(node.op, gast.Not) else node

    def visit_For(self, node):
        # a loop over strings written out (``for name in ("a", "b")``): unrolled with each string written in,
        # so tests on it (``name == "a"``) are decided like tests on constants
        it = node.iter
        if isinstance(node.target, gast.Name) and isinstance(it, (gast.Tuple, gast.List)) and it.elts and \
                all(isinstance(e, gast.Constant) and isinstance(e.value, str) for e in it.elts) and not node.orelse \
                and not any(isinstance(n, (gast.Break, gast.Continue)) for n in gast.walk(node)):
            out = []
            for e in it.elts:
                out.extend(self.block([substitute(copy.deepcopy(b), {node.target.id: e}) for b in node.body]))
            return out or [gast.Pass()]
        return self.generic_visit(node)

    def visit_If(self, node):
        node.test = self.visit(node.test)
        if isinstance(node.test, gast.Constant):        # a branch on a static value: keep the one taken
            return self.block(node.body if node.test.value else node.orelse) or [gast.Pass()]
        node.body = self.block(node.body) or [gast.Pass()]
        node.orelse = self.block(node.orelse)
        return node

    def block(self, stmts):
        """Visit statements; dropped ones (None) vanish and folded branches (lists) are spliced in."""
        out = []
        for s in stmts:
            new = self.visit(s)
            if isinstance(new, list):
                out.extend(new)
            elif new is not None:
                out.append(new)
            if out and isinstance(out[-1], (gast.Return, gast.Raise)):   # the rest is unreachable
                break
        return out

    def visit_AugAssign(self, node):
        split = self._write_through_attribute(node, node.target)
        return split if split is not None else self.generic_visit(node)

    def _write_through_attribute(self, node, target):
        """``z.real[i] = v`` (or ``a.T[i] += v``): the attribute is a view taken first, ``_z_real1 = z.real``,
        then written into, ``_z_real1[i] = v``, as NumPy writes into the viewed buffer."""
        if not (isinstance(target, gast.Subscript) and isinstance(target.value, gast.Attribute) and
                target.value.attr in ATTRIBUTE_CALLS):
            return None
        of = target.value.value.id if isinstance(target.value.value, gast.Name) else "view"
        view = self.ctx.namer.fresh(f"_{of}_{target.value.attr}")
        self.locals.add(view)
        taken = gast.copy_location(gast.Assign(targets=[name(view, store=True)], value=target.value,
                                               type_comment=None), node)
        target.value = gast.copy_location(name(view), target)
        return self.block([taken, node])

    def visit_Assign(self, node):
        split = self._write_through_attribute(node, node.targets[0]) if len(node.targets) == 1 else None
        if split is not None:
            return split
        # `g = transpyle.grad(loss)` with static arguments: built now, its calls are transformed code
        target = node.targets[0] if len(node.targets) == 1 else None
        if isinstance(target, gast.Name) and self._is_vectorize(node.value):
            self.static_values[target.id] = Vectorized(node.value)      # g = np.vectorize(f): read at g's calls
            return None
        if isinstance(target, gast.Name) and isinstance(node.value, gast.Call):
            built = self._transform_call(node.value)
            if built is not None:
                self.static_values[target.id] = built
                return None
        return self.generic_visit(node)

    # -- expressions --------------------------------------------------------------------------
    def _lookup(self, node):
        """The object an expression made of names and attributes refers to, or raise."""
        chain = dotted(node)
        if chain is None:
            return False, None
        head, *rest = chain.split(".")
        if head in self.locals:
            return False, None
        found, obj = self.unit.lookup(head)
        if not found and head in _CANONICAL:     # a body resolved before (a def in the body, inlined)
            found, obj = True, _CANONICAL[head]
        if not found:
            raise self.ctx.error(node, f"name '{head}' is not defined", construct=head,
                                 hint="define it at module level or pass it as an argument")
        for part in rest:
            if not hasattr(obj, part):
                raise self.ctx.error(node, f"'{chain}' does not exist", construct=chain,
                                     hint="check the spelling")
            obj = getattr(obj, part)
        return True, library_object(obj)       # jnp.sum is np.sum (base/arrays)

    def _constant(self, node, obj):
        if obj is None or isinstance(obj, (bool, int, float, complex, str, np.number, np.bool_)):
            value = obj.item() if isinstance(obj, (np.number, np.bool_)) else obj
            return gast.copy_location(const(value), node) if hasattr(gast, "copy_location") else const(value)
        if isinstance(obj, tuple) and all(isinstance(v, (bool, int, float)) for v in obj):
            return gast.Tuple(elts=[const(v) for v in obj], ctx=gast.Load())
        return None

    def visit_Name(self, node):
        if not isinstance(node.ctx, gast.Load) or node.id in self.locals or node.id in self.ctx.functions:
            return node
        if isinstance(self.static_values.get(node.id), Vectorized):
            raise self.ctx.error(node, f"'{node.id}', made by np.vectorize, can only be called here",
                                 hint="call it, or pass the function it vectorizes to transpyle.vmap")
        if node.id in self.static_values:          # a transform built in the body, passed along
            return self._function_value(node, self.static_values[node.id])
        found, obj = self._lookup(node)
        folded = self._constant(node, obj)
        if folded is not None:
            return folded
        if isinstance(obj, np.ndarray):
            return self._captured(node, node.id, obj)
        if isinstance(obj, type) and issubclass(obj, np.generic):     # a dtype under any name (dtype=np.float32)
            return gast.copy_location(parse_expr(f"np.{obj.__name__}"), node)
        if obj in (float, int, bool, complex):           # as a value, a Python type is NumPy's dtype of it
            return gast.copy_location(parse_expr(f"np.{np.dtype(obj).type.__name__}"), node)
        if isinstance(obj, types.ModuleType) or isinstance(obj, type):
            return node            # used as a prefix or a dtype; checked where it is used
        if is_user_function(getattr(obj, "py_func", obj)) or hasattr(obj, "generated_function") or \
                isinstance(obj, (CustomRule, Recomputed)):
            return self._function_value(node, obj)   # passed to a helper that calls it: inlined there
        if callable(obj) and wrapped_callables.wrapper_text(obj) is not None:
            return self._function_value(node, obj)   # a library function passed along: a function calling it
        raise self.ctx.error(node, f"'{node.id}' ({type(obj).__name__}) cannot be used as a value here",
                             hint="only numbers, arrays and calls are supported as values")

    def _captured(self, node, label, obj):
        """A module-level array (or one an attribute chain reads: ``self.W``), passed in at every call."""
        if obj.dtype.kind not in "fcib" or obj.ndim == 0:
            raise self.ctx.error(node, f"the global array '{label}' ({obj.dtype}, rank {obj.ndim}) "
                                 "cannot be captured", hint="pass it as an argument of the function")
        return gast.copy_location(name(self.ctx.capture(self.unit, label, obj)), node)

    def visit_Subscript(self, node):
        folded = self._constant_entry(node)
        if folded is not None:
            return folded
        # a library object indexed like an array (np.mgrid[0:3, 0:4]): written with primitives
        if self._is_global_chain(node.value) and isinstance(node.ctx, gast.Load):
            builder = subscript_rewrite(self._lookup(node.value)[1])
            if builder is not None:
                node.slice = self.visit(node.slice)
                try:
                    return gast.copy_location(set_location(builder(node), node.lineno, every=True), node)
                except StaticError as exc:
                    raise self.ctx.error(node, str(exc), hint=exc.hint or "see docs/subset.md") from None
        return self.generic_visit(node)

    def _constant_entry(self, node):
        """``CONSTANTS["R"]`` (or ``TABLE[2]``): an entry of a module-level dict, list or tuple at a constant key
        that is a number, a string or a tuple of numbers, folded like a module constant; else None."""
        if not (isinstance(node.ctx, gast.Load) and isinstance(node.slice, gast.Constant) and
                self._is_global_chain(node.value)):
            return None
        try:
            found, container = self._lookup(node.value)
            value = container[node.slice.value] if isinstance(container, (dict, list, tuple)) else None
        except (LookupError, TypeError, TranspileError):
            return None
        return self._constant(node, value) if value is not None else None

    def visit_Attribute(self, node):
        chain = dotted(node)
        if chain is not None and chain.split(".")[0] not in self.locals:
            found, obj = self._lookup(node)
            folded = self._constant(node, obj)
            if folded is not None:
                return folded
            if isinstance(obj, type) and issubclass(obj, np.generic):
                return parse_expr(f"np.{obj.__name__}")
            if isinstance(obj, np.ndarray) and isinstance(node.ctx, gast.Load):    # self.W, data.X
                return self._captured(node, chain, obj)
            if callable(obj) and wrapped_callables.wrapper_text(obj) is not None:
                return self._function_value(node, obj)      # act=np.tanh: a function calling it
            raise self.ctx.error(node, f"'{chain}' cannot be used as a value here",
                                 hint=f"call it; to pass it to a helper, wrap it: lambda v: {chain}(v)")
        node.value = self.visit(node.value)
        if node.attr in ATTRIBUTE_CALLS:
            if not isinstance(node.ctx, gast.Load):
                raise self.ctx.error(node, f"assigning to the attribute '.{node.attr}' is not supported",
                                     hint=f"write into its elements: x.{node.attr}[...] = value")
            return gast.copy_location(gast.Call(func=parse_expr(ATTRIBUTE_CALLS[node.attr]), args=[node.value],
                                                keywords=[]), node)
        if node.attr == "ndim" and self.unit is self.ctx.source:
            rank = static_tuples.ndim_of(node, self.ctx.arg_kinds, self.never_none)
            if rank is not None:
                return rank
        if node.attr in ("shape", "size", "ndim", "dtype"):
            return node
        raise self.ctx.error(node, f"the attribute '.{node.attr}' is not supported",
                             hint="supported array attributes: .shape .size .ndim .dtype .T .mT .real .imag")

    def visit_Call(self, node):
        if isinstance(node.func, gast.Name) and node.func.id in ("map", "list") and node.args:
            mapped = self._map_call(node)         # map(f, xs): vmap(f)(xs)
            if mapped is not None:
                return mapped
        node.args = [self.visit(a) for a in node.args]
        for kw in node.keywords:
            kw.value = self.visit(kw.value)
        func = node.func
        if isinstance(func, gast.Subscript) and isinstance(func.value, gast.Tuple) and \
                isinstance(func.slice, gast.Constant) and isinstance(func.slice.value, int):
            node.func = func = func.value.elts[func.slice.value]     # (f, g)[0](x): a static choice
        if isinstance(func, gast.Name) and func.id in self.ctx.functions:
            return node                  # a function passed in by the caller, already registered
        if isinstance(func, gast.Name) and func.id == "len" and "len" not in self.locals and node.args and \
                isinstance(node.args[0], gast.Tuple):
            return gast.copy_location(const(len(node.args[0].elts)), node)   # len of a static tuple
        if isinstance(func, gast.Call) or isinstance(func, gast.Name) and \
                isinstance(self.static_values.get(func.id), Vectorized):
            vectorized = self._vectorized_call(node)        # np.vectorize(f)(x): vmap(f) over the elements
            if vectorized is not None:
                return vectorized
        built = self.static_values.get(func.id) if isinstance(func, gast.Name) else \
            self._transform_call(func) if isinstance(func, gast.Call) else None
        if isinstance(built, Recomputed):        # checkpoint(step)(x): step inlined, marked
            return self._helper_call(node, built.transpyle_source())
        if built is not None:            # grad(loss)(w, x) or g(w, x) with g = grad(loss)
            return self._deferred(node, built)
        if isinstance(func, gast.Attribute) and not self._is_global_chain(func):
            return self._method(node)
        if isinstance(func, gast.Name) and func.id in self.locals:
            return node            # a nested function or lambda defined in the body
        if isinstance(func, gast.Lambda):
            raise self.ctx.error(node, "calling a lambda where it is defined is not supported",
                                 hint="assign the lambda to a name first")
        return self._library_call(node, func)

    def _helper_call(self, node, unit):
        """The call ``node`` of the helper read as ``unit``, registered for the inliner."""
        key = self.ctx.namer.fresh(unit.name)
        self.ctx.functions[key] = unit
        node.func = name(key)
        return node

    def _is_global_chain(self, node):
        chain = dotted(node)
        return chain is not None and chain.split(".")[0] not in self.locals


def _fold(node, operands):
    """``node`` evaluated to a constant when every operand is one."""
    if not all(isinstance(o, gast.Constant) for o in operands):
        return node
    try:
        with warnings.catch_warnings():          # `"a" is None` on folded constants is intended
            warnings.simplefilter("ignore", SyntaxWarning)
            value = eval(compile(gast.gast_to_ast(gast.Expression(body=node)), "<static>", "eval"), {})
    except Exception:          # leave it to the later passes to report
        return node
    return gast.copy_location(const(value), node) if hasattr(node, "lineno") else const(value)


def local_names(fdef):
    args = fdef.args
    params = {a.id for a in args.args + args.kwonlyargs}
    return params | stored_names(fdef.body) | _nested_defs(fdef.body)


def _nested_defs(stmts):
    """Names of the functions defined in ``stmts`` or in their blocks (a def inside a loop or a branch),
    not inside those functions."""
    out = set()
    for s in stmts:
        if isinstance(s, gast.FunctionDef):
            out.add(s.name)
        else:
            for field in ("body", "orelse"):
                out |= _nested_defs(getattr(s, field, None) or [])
    return out


def run(tree, ctx, unit=None):
    """Resolve ``tree`` (a FunctionDef) in the namespace of ``unit`` (default: ctx.source)."""
    unit = unit or ctx.source
    if tree.args.vararg is not None or tree.args.kwarg is not None:
        raise ctx.error(tree, "*args and **kwargs are not supported", construct=f"def {tree.name}",
                        hint="list the parameters explicitly")
    generator_reductions.lower(tree, ctx, unit.namespace, local_names(tree))
    hoist_named_expressions(tree, ctx)
    resolver = _Resolver(ctx, unit, local_names(tree) | getattr(tree, ENCLOSING_ATTR, set()))
    resolver.never_none = {a.id for a in tree.args.args} - stored_names(tree.body)
    tree.body = resolver.block(tree.body)
    tree.args.defaults = [resolver.visit(d) for d in tree.args.defaults]
    tree.args.kw_defaults = [None if d is None else resolver.visit(d) for d in tree.args.kw_defaults]
    return tree
