"""resolve: names -> objects. Library calls get one canonical spelling (``np.sin``, ``math.exp``),
methods become function calls (``x.sum(axis=0)`` -> ``np.sum(x, axis=0)``), user functions are
registered for inlining, module constants are bound, and anything that cannot be resolved or has
no rule is an error naming the user's line.
"""
import builtins
import cmath
import copy
import math
import types
import warnings

import gast
import numba
import numpy as np

from .. import rules, runtime
from ..base.ast_utils import const, dotted, name, parse_expr, stored_names
from ..base.context import DeferredCall
from ..rules.primitives import call_object
from .custom import CustomRule
from ..rules.common import StaticError
from ..rules.matrices import composite, multi_output
from ..rules.rewrites import call_rewrite, subscript_rewrite
from ..rules.writes import writer_of
from .source import FunctionSource, is_user_function, read_function

_UNSUPPORTED_STATEMENTS = {
    gast.Try: ("try/except", "remove the exception handling from the differentiated function"),
    gast.With: ("with", "move the 'with' block outside the differentiated function"),
    gast.Global: ("global", "pass the value as an argument instead"),
    gast.Nonlocal: ("nonlocal", "pass the value as an argument and return the new one"),
    gast.ClassDef: ("class definition", "define classes outside the function"),
    gast.Import: ("import", "import at module level"),
    gast.ImportFrom: ("import", "import at module level"),
    gast.Delete: ("del", "drop the 'del' statement"),
    gast.Raise: ("raise", "check inputs before calling the transformed function"),
    gast.AsyncFunctionDef: ("async def", "use a plain function"),
    gast.AsyncFor: ("async for", "use a plain for loop"),
    gast.AsyncWith: ("async with", "remove it"),
}

# methods of arrays that have a function form in the rule tables
_METHODS = {"copy": "np.copy", "sum": "np.sum", "mean": "np.mean", "prod": "np.prod", "max": "np.max",
            "min": "np.min", "ravel": "np.ravel", "flatten": "np.ravel", "dot": "np.dot",
            "transpose": "np.transpose", "reshape": "np.reshape", "fill": "np.copyto",
            "swapaxes": "np.swapaxes", "astype": "rt.astype", "any": "np.any", "all": "np.all",
            "trace": "np.trace", "diagonal": "np.diagonal"}

# array attributes that are calls: x.T is np.transpose(x), z.real is np.real(z) (views of x, z)
_ATTRIBUTE_CALLS = {"T": "np.transpose", "mT": "np.matrix_transpose", "real": "np.real", "imag": "np.imag"}

_SPELLING = None

#: attribute of a nested def/lambda: the enclosing function's local names it may read
ENCLOSING_ATTR = "transpyle_enclosing"


def _spellings():
    """Canonical spelling of every library object the rule tables know."""
    global _SPELLING
    if _SPELLING is None:
        table = {}
        for prefix, module in (("np.linalg.", np.linalg), ("np.", np), ("math.", math), ("rt.", runtime)):
            for attr in dir(module):
                obj = getattr(module, attr)
                prim = rules.by_object(obj)
                if prim is not None:    # a class (np.ndarray) is spelled as the function it is (np.empty)
                    table.setdefault(id(obj), (obj, prim.key if isinstance(obj, type) else prefix + attr))
        for attr in dir(cmath):       # cmath functions are written as the np.* primitive they are
            prim = rules.by_object(getattr(cmath, attr))
            if prim is not None:
                table.setdefault(id(getattr(cmath, attr)), (getattr(cmath, attr), prim.key))
        for attr in ("abs", "max", "min", "float", "int", "len", "round", "pow"):
            obj = getattr(builtins, attr)
            table[id(obj)] = (obj, attr)
        _SPELLING = table
    return _SPELLING


def spelling_of(obj):
    hit = _spellings().get(id(obj))
    if hit and hit[0] is obj:
        return hit[1]
    prim = rules.by_object(obj)       # another library's function that a run-time helper implements
    return prim.key if prim is not None and prim.key.startswith("rt.") else None


def _library_name(obj):
    mod = getattr(obj, "__module__", None) or ""
    nm = getattr(obj, "__name__", None) or repr(obj)
    if isinstance(obj, np.ufunc) or mod.startswith("numpy"):
        sub = mod.replace("numpy.", "np.").replace("numpy", "np")
        if sub.startswith("np.linalg"):
            return f"np.linalg.{nm}"
        return f"np.{nm}"
    return f"{mod}.{nm}" if mod else nm


class _Resolver(gast.NodeTransformer):
    def __init__(self, ctx, unit, local_names):
        self.ctx = ctx
        self.unit = unit            # the FunctionSource whose namespace applies
        self.locals = set(local_names)
        self.static_values = {}     # local name -> transform built at transform time (g = grad(loss))

    # -- statements ---------------------------------------------------------------------------
    def generic_visit(self, node):
        bad = _UNSUPPORTED_STATEMENTS.get(type(node))
        if bad:
            raise self.ctx.error(node, f"'{bad[0]}' is not supported in transformed functions", hint=bad[1],
                                 construct=bad[0])
        if isinstance(node, (gast.Yield, gast.YieldFrom, gast.Await)):
            raise self.ctx.error(node, "generators are not supported", hint="return an array instead",
                                 construct="yield")
        if isinstance(node, (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)):
            raise self.ctx.error(node, "comprehensions are not supported",
                                 hint="write the loop out, filling a preallocated array")
        if isinstance(node, (gast.Dict, gast.Set)):
            raise self.ctx.error(node, "dicts and sets are not supported in transformed code",
                                 hint="use arrays or tuples")
        return super().generic_visit(node)

    def visit_FunctionDef(self, node):
        # a nested helper: registered for inlining, resolved with the enclosing namespace
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
        # bare calls like print(...) have no effect on derivatives; asserts are dropped too
        if isinstance(node.value, gast.Call) and isinstance(node.value.func, gast.Name) and \
                node.value.func.id == "print" and "print" not in self.locals:
            return None
        if isinstance(node.value, gast.Constant):      # docstrings
            return None
        return self.generic_visit(node)

    def visit_Assert(self, node):
        return None

    # -- folding what is known at transform time (module constants, static arguments) -------------
    def visit_Compare(self, node):
        node = self.generic_visit(node)
        return _fold(node, [node.left] + node.comparators)

    def visit_BoolOp(self, node):
        node = self.generic_visit(node)
        return _fold(node, node.values)

    def visit_UnaryOp(self, node):
        node = self.generic_visit(node)
        return _fold(node, [node.operand]) if isinstance(node.op, gast.Not) else node

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
        return out

    def visit_AugAssign(self, node):
        split = self._write_through_attribute(node, node.target)
        return split if split is not None else self.generic_visit(node)

    def _write_through_attribute(self, node, target):
        """``z.real[i] = v`` (or ``a.T[i] += v``): the attribute is a view taken first, ``_z_real1 = z.real``,
        then written into, ``_z_real1[i] = v``, as NumPy writes into the viewed buffer."""
        if not (isinstance(target, gast.Subscript) and isinstance(target.value, gast.Attribute) and
                target.value.attr in _ATTRIBUTE_CALLS):
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
        if isinstance(target, gast.Name) and isinstance(node.value, gast.Call):
            built = self._transform_call(node.value)
            if built is not None:
                self.static_values[target.id] = built
                return None
        return self.generic_visit(node)

    def _transform_call(self, call):
        """The transform a call like ``transpyle.grad(loss, argnums=1)`` builds, if ``call`` is one
        (its arguments must be known at transform time); None otherwise."""
        chain = dotted(call.func)
        if chain is None or chain.split(".")[0] in self.locals or chain in self.ctx.functions or \
                not self.unit.lookup(chain.split(".")[0])[0]:
            return None
        found, obj = self._lookup(call.func)
        if not getattr(obj, "__transpyle_transform__", False):
            return None
        args = [self._static_value(a) for a in call.args]
        kwargs = {kw.arg: self._static_value(kw.value) for kw in call.keywords}
        return obj(*args, **kwargs)

    def _static_value(self, node):
        if isinstance(node, gast.Constant):
            return node.value
        if isinstance(node, gast.Name) and node.id in self.ctx.functions:     # a function registered above
            registered = self.ctx.functions[node.id]
            if isinstance(registered, DeferredCall):
                return registered.transformed
            if hasattr(registered, "func"):
                return registered.func
        if isinstance(node, gast.Tuple):
            return tuple(self._static_value(e) for e in node.elts)
        if isinstance(node, gast.Name) and node.id in self.static_values:
            return self.static_values[node.id]
        if isinstance(node, gast.Call):
            built = self._transform_call(node)
            if built is not None:
                return built
        chain = dotted(node)
        if chain is not None and chain.split(".")[0] not in self.locals:
            return self._lookup(node)[1]
        raise self.ctx.error(node, "the arguments of a transform inside transformed code must be known when it "
                             "is transformed", hint="pass the function as a static argument (jit static_argnums) "
                                                    "or use a module-level function")

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
        if not found:
            raise self.ctx.error(node, f"name '{head}' is not defined", construct=head,
                                 hint="define it at module level or pass it as an argument")
        for part in rest:
            if not hasattr(obj, part):
                raise self.ctx.error(node, f"'{chain}' does not exist", construct=chain,
                                     hint="check the spelling")
            obj = getattr(obj, part)
        return True, obj

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
        if node.id in self.static_values:          # a transform built in the body, passed along
            return self._function_value(node, self.static_values[node.id])
        found, obj = self._lookup(node)
        folded = self._constant(node, obj)
        if folded is not None:
            return folded
        if isinstance(obj, np.ndarray):
            if obj.dtype.kind not in "fcib" or obj.ndim == 0:
                raise self.ctx.error(node, f"the global array '{node.id}' ({obj.dtype}, rank {obj.ndim}) "
                                     "cannot be captured", hint="pass it as an argument of the function")
            return gast.copy_location(name(self.ctx.capture(self.unit, node.id, obj)), node)
        if isinstance(obj, types.ModuleType) or isinstance(obj, type):
            return node            # used as a prefix or a dtype; checked where it is used
        if is_user_function(getattr(obj, "py_func", obj)) or hasattr(obj, "generated_function") or \
                isinstance(obj, CustomRule):
            return self._function_value(node, obj)   # passed to a helper that calls it: inlined there
        raise self.ctx.error(node, f"'{node.id}' ({type(obj).__name__}) cannot be used as a value here",
                             hint="only numbers, arrays and calls are supported as values")

    def visit_Subscript(self, node):
        # a library object indexed like an array (np.mgrid[0:3, 0:4]): written with primitives
        if self._is_global_chain(node.value) and isinstance(node.ctx, gast.Load):
            builder = subscript_rewrite(self._lookup(node.value)[1])
            if builder is not None:
                node.slice = self.visit(node.slice)
                try:
                    return gast.copy_location(builder(node), node)
                except StaticError as exc:
                    raise self.ctx.error(node, str(exc), hint=exc.hint or "see docs/subset.md") from None
        return self.generic_visit(node)

    def visit_Attribute(self, node):
        chain = dotted(node)
        if chain is not None and chain.split(".")[0] not in self.locals:
            found, obj = self._lookup(node)
            folded = self._constant(node, obj)
            if folded is not None:
                return folded
            if isinstance(obj, type) and issubclass(obj, np.generic):
                return parse_expr(f"np.{obj.__name__}")
            raise self.ctx.error(node, f"'{chain}' cannot be used as a value here",
                                 hint=f"call it; to pass it to a helper, wrap it: lambda v: {chain}(v)")
        node.value = self.visit(node.value)
        if node.attr in _ATTRIBUTE_CALLS:
            if not isinstance(node.ctx, gast.Load):
                raise self.ctx.error(node, f"assigning to the attribute '.{node.attr}' is not supported",
                                     hint=f"write into its elements: x.{node.attr}[...] = value")
            return gast.copy_location(gast.Call(func=parse_expr(_ATTRIBUTE_CALLS[node.attr]), args=[node.value],
                                                keywords=[]), node)
        if node.attr in ("shape", "size", "ndim", "dtype"):
            return node
        raise self.ctx.error(node, f"the attribute '.{node.attr}' is not supported",
                             hint="supported array attributes: .shape .size .ndim .dtype .T .mT .real .imag")

    def visit_Call(self, node):
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
        built = self.static_values.get(func.id) if isinstance(func, gast.Name) else \
            self._transform_call(func) if isinstance(func, gast.Call) else None
        if built is not None:            # grad(loss)(w, x) or g(w, x) with g = grad(loss)
            return self._deferred(node, built)
        if isinstance(func, gast.Attribute) and not self._is_global_chain(func):
            return self._method(node)
        if isinstance(func, gast.Name) and func.id in self.locals:
            return node            # a nested function or lambda defined in the body
        if isinstance(func, gast.Lambda):
            raise self.ctx.error(node, "calling a lambda where it is defined is not supported",
                                 hint="assign the lambda to a name first")
        found, obj = self._lookup(func)
        if not found:
            raise self.ctx.error(node, "this call cannot be resolved", hint="call a function by its name")
        if obj in (range, enumerate, zip):
            return node
        if obj is numba.prange:          # a parallel loop is a loop to every transform
            node.func = name("range")
            return node
        if obj is print:
            return node
        writer = writer_of(obj)
        if writer is not None:           # a write into an argument: spelled out by normalize
            node.func = parse_expr(writer.spelling)
            return node
        builder = composite(obj) or call_rewrite(obj)
        if builder is not None:
            try:
                written = builder(node)
            except StaticError as exc:
                raise self.ctx.error(node, str(exc), hint=exc.hint or "see docs/subset.md") from None
            if written is not None:      # already in canonical spellings, over resolved arguments
                return gast.copy_location(written, node)
        parts = multi_output(obj)
        if parts is not None:
            return _multi_output_call(node, *parts)
        spelled = spelling_of(obj)
        if spelled is None and isinstance(obj, type) and issubclass(obj, np.floating):
            spelled = "float"
        if spelled is not None:
            node.func = parse_expr(spelled)
            return node
        obj = getattr(obj, "py_func", obj)          # a Numba dispatcher: its Python function
        if isinstance(obj, FunctionSource):         # a helper specialized on pytree structure
            key = self.ctx.namer.fresh(obj.name)
            self.ctx.functions[key] = obj
            node.func = name(key)
            return node
        if hasattr(obj, "generated_function"):      # a transformed function: generated once kinds are known
            return self._deferred(node, obj)
        if getattr(obj, "__transpyle_jvp__", False):
            return self._jvp_call(node)
        if isinstance(obj, CustomRule):             # inlined with its derivative rule (transforms/custom_rules)
            key = self.ctx.namer.fresh(obj.__name__)
            self.ctx.functions[key] = obj
            node.func = name(key)
            return node
        if is_user_function(obj):
            try:
                unit = read_function(obj)
            except Exception as exc:
                raise self.ctx.error(node, f"cannot read the source of '{dotted(func)}': {exc}",
                                     hint="define helpers in a .py file")
            key = self.ctx.namer.fresh(unit.name if not unit.name.startswith("lambda") else "lambda_fn")
            self.ctx.functions[key] = unit
            node.func = name(key)
            return node
        label = _library_name(obj)
        raise self.ctx.error(node, f"{label} has no derivative rule", construct=label,
                             hint="supported functions are listed in docs/subset.md; "
                                  "rewrite it with supported operations or pass its result as an argument")

    def _function_value(self, node, obj):
        """A function used as a value (an argument of a helper such as ``lax.fori_loop``): registered
        under a key, which the inliner substitutes into the helper's body."""
        call = gast.Call(func=copy.deepcopy(node), args=[], keywords=[])
        gast.copy_location(call, node)
        if hasattr(obj, "generated_function"):
            registered = self._deferred(call, obj)
        else:
            obj = getattr(obj, "py_func", obj)
            unit = read_function(obj)
            key = self.ctx.namer.fresh(unit.name if not unit.name.startswith("lambda") else "lambda_fn")
            self.ctx.functions[key] = unit
            registered = call
            registered.func = name(key)
        return gast.copy_location(name(registered.func.id), node)

    def _jvp_call(self, node):
        """``transpyle.jvp(f, (x, y), (dx, dy))`` in transformed code: a call to f's forward-mode code
        with the primals and the tangents; it returns (output, tangent) like jvp."""
        if len(node.args) != 3 or node.keywords or not all(isinstance(a, gast.Tuple) for a in node.args[1:]) \
                or len(node.args[1].elts) != len(node.args[2].elts):
            raise self.ctx.error(node, "jvp in transformed code needs the form jvp(f, (x, ...), (dx, ...))",
                                 hint="write the primals and tangents as tuples, one tangent per primal")
        fun = self._static_value(node.args[0])
        primals, tangents = node.args[1].elts, node.args[2].elts
        forward = self.ctx.transform_call(fun, "jvp", range(len(primals)))
        call = gast.Call(func=name("_"), args=list(primals) + list(tangents), keywords=[])
        gast.copy_location(call, node)
        return self._deferred(call, forward)

    def _deferred(self, node, transformed):
        if not hasattr(transformed, "generated_function"):
            raise self.ctx.error(node, f"{type(transformed).__name__} cannot be called in transformed code",
                                 hint="call a function or a transformed function")
        key = self.ctx.namer.fresh(getattr(transformed, "__name__", "transformed") + "_" + transformed.mode)
        self.ctx.functions[key] = DeferredCall(transformed)
        node.func = name(key)
        return node

    def _is_global_chain(self, node):
        chain = dotted(node)
        return chain is not None and chain.split(".")[0] not in self.locals

    def _method(self, node):
        func = node.func
        if at_update(node) is not None:        # x.at[idx].set(v): kept for normalize to spell out
            target = func.value.value
            target.value = self.visit(target.value)
            func.value.slice = self.visit(func.value.slice)
            return node
        func.value = self.visit(func.value)       # the receiver may itself be x.T or a call
        target = _METHODS.get(func.attr)
        if target is None:
            raise self.ctx.error(node, f"the method '.{func.attr}()' is not supported",
                                 hint="use the np.* function form of supported operations")
        args = list(node.args)
        if func.attr in ("reshape", "transpose") and len(args) > 1:      # x.transpose(1, 0, 2)
            args = [gast.Tuple(elts=args, ctx=gast.Load())]
        call = gast.Call(func=parse_expr(target), args=[func.value] + args, keywords=node.keywords)
        if func.attr == "flatten":        # a new array, where ravel may return a view
            call = gast.Call(func=parse_expr("np.copy"), args=[call], keywords=[])
        builder = call_rewrite(call_object(call))
        if builder is not None:           # x.trace(1): written as np.trace(x, 1) is
            try:
                written = builder(call)
            except StaticError as exc:
                raise self.ctx.error(node, str(exc), hint=exc.hint or "see docs/subset.md") from None
            if written is not None:
                return gast.copy_location(written, node)
        return call


def _multi_output_call(node, parts, single):
    """A call of a multi-output function (np.linalg.eigh) as the tuple of its parts' calls
    (rules/matrices.py, MULTI_OUTPUT), or one part where a keyword selects it (svd, compute_uv=False)."""
    keywords = node.keywords
    if single is not None:
        flag, value, part = single
        chosen = [kw for kw in keywords if kw.arg == flag]
        keywords = [kw for kw in keywords if kw.arg != flag]
        if chosen and isinstance(chosen[0].value, gast.Constant) and chosen[0].value.value == value:
            parts = parts[part:part + 1]
    calls = [gast.copy_location(gast.Call(func=parse_expr(part), args=copy.deepcopy(node.args),
                                          keywords=copy.deepcopy(keywords)), node) for part in parts]
    if len(calls) == 1:
        return calls[0]
    return gast.copy_location(gast.Tuple(elts=calls, ctx=gast.Load()), node)


AT_UPDATES = {"set": None, "add": "Add", "multiply": "Mult", "mul": "Mult", "min": "np.minimum",
              "max": "np.maximum"}


def at_update(node):
    """(array, index, operation, value) for a call ``array.at[index].op(value)``, else None."""
    func = node.func if isinstance(node, gast.Call) else None
    if isinstance(func, gast.Attribute) and func.attr in AT_UPDATES and isinstance(func.value, gast.Subscript) \
            and isinstance(func.value.value, gast.Attribute) and func.value.value.attr == "at" \
            and len(node.args) == 1 and not node.keywords:
        return func.value.value.value, func.value.slice, func.attr, node.args[0]
    return None


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
    nested = {n.name for n in fdef.body if isinstance(n, gast.FunctionDef)}
    return params | stored_names(fdef.body) | nested


def run(tree, ctx, unit=None):
    """Resolve ``tree`` (a FunctionDef) in the namespace of ``unit`` (default: ctx.source)."""
    unit = unit or ctx.source
    if tree.args.vararg is not None or tree.args.kwarg is not None:
        raise ctx.error(tree, "*args and **kwargs are not supported", construct=f"def {tree.name}",
                        hint="list the parameters explicitly")
    resolver = _Resolver(ctx, unit, local_names(tree) | getattr(tree, ENCLOSING_ATTR, set()))
    tree.body = resolver.block(tree.body)
    tree.args.defaults = [resolver.visit(d) for d in tree.args.defaults]
    return tree
