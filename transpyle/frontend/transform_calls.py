"""Functions known when the enclosing function is transformed: transforms built in the body
(``g = transpyle.grad(loss)``, ``grad(loss)(w, x)``, ``jvp(f, primals, tangents)``), whose calls become
deferred calls generated once kinds are known, and functions passed as values to helpers (registered for
the inliner). Their arguments must be known at transform time.

``TransformCalls`` is a part of resolve's resolver: it reads the resolver's ``ctx``, ``unit``, ``locals``
and ``static_values`` and its ``_lookup``.
"""
import copy
import dataclasses
import inspect

import gast
import numpy as np

from ..base.ast_utils import dotted, loaded_names, name, parse_expr, stored_names
from ..base.context import DeferredCall
from ..base.errors import TranspileError
from .source import read_function

#: attribute of a call that maps a function over arrays (``map(f, xs)``): its results are stacked
MAPPED_ATTR = "transpyle_mapped"


@dataclasses.dataclass
class Closure:
    """A def in the body or a lambda given to a transform (``vmap(lambda x: W @ x)``), made a function of
    its own: the enclosing variables it reads are parameters after its own, passed at each call."""
    params: int          # its own parameters
    defaults: list       # the default expressions of its last parameters (read in the enclosing scope)
    free: list           # the enclosing variables it reads


def _closure_options(maker, args, kwargs, closure):
    """The arguments of a transform of a closure: the enclosing variables are not batched (``in_axes``
    None for them, and for parameters left to their defaults) and ``argnums`` count from the front."""
    try:
        signature = inspect.signature(maker)
        bound = signature.bind(*args, **kwargs)
    except (TypeError, ValueError):
        return args, kwargs
    required = closure.params - len(closure.defaults)
    given = bound.arguments
    if "in_axes" in signature.parameters:
        axes = given.get("in_axes", signature.parameters["in_axes"].default)
        if axes is None or isinstance(axes, int):
            axes = (axes,) * required
        if isinstance(axes, (tuple, list)):
            given["in_axes"] = tuple(axes) + (None,) * (closure.params - len(axes) + len(closure.free))
    if "argnums" in signature.parameters and "argnums" in given:
        nums = given["argnums"]
        given["argnums"] = tuple(n % required for n in nums) if isinstance(nums, (tuple, list)) else nums % required
    return bound.args, bound.kwargs


class Vectorized:
    """``g = np.vectorize(f)`` in the body: the call, written again where ``g`` is called."""

    def __init__(self, call):
        self.call = call


class TransformCalls:
    """The resolver's handling of transforms called in its body and of functions used as values."""

    def _transform_call(self, call):
        """The transform a call like ``transpyle.grad(loss, argnums=1)`` builds, if ``call`` is one
        (its arguments must be known at transform time); None otherwise."""
        obj = self._called_object(call)
        if not getattr(obj, "__transpyle_transform__", False):
            return None
        args = [self._static_value(a) for a in call.args]
        kwargs = {kw.arg: self._static_value(kw.value) for kw in call.keywords}
        closure = getattr(args[0], "transpyle_closure", None) if args else None
        if closure is None:
            return obj(*args, **kwargs)
        args, kwargs = _closure_options(obj, args, kwargs, closure)
        built = obj(*args, **kwargs)
        built.transpyle_closure = closure
        return built

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
        if isinstance(node, gast.Lambda) or isinstance(node, gast.Name) and node.id in self.nested_defs:
            return self._closure_function(node)
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

    def _remember_nested(self, fdef):
        """A def in the body as written (before it is resolved): what a transform of it reads."""
        self.nested_defs[fdef.name] = copy.deepcopy(fdef)

    def _closure_function(self, node):
        """A lambda or a def of the body given to a transform, as a function of its own (``Closure``): the
        defs of the body it calls are copied into it, the enclosing variables it reads become parameters."""
        if isinstance(node, gast.Lambda):
            ret = gast.copy_location(gast.Return(value=copy.deepcopy(node.body)), node)
            fdef = gast.FunctionDef(name=self.ctx.namer.fresh("lambda_fn"), args=copy.deepcopy(node.args),
                                    body=[ret], decorator_list=[], returns=None, type_comment=None,
                                    type_params=[])
            gast.copy_location(fdef, node)
        else:
            fdef = copy.deepcopy(self.nested_defs[node.id])
        copied = set()
        while True:
            own = {a.id for a in fdef.args.args} | stored_names(fdef.body) | \
                {s.name for s in fdef.body if isinstance(s, gast.FunctionDef)}
            helpers = sorted((loaded_names(fdef) - own) & set(self.nested_defs) - copied - {fdef.name})
            if not helpers:
                break
            copied.update(helpers)
            fdef.body = [copy.deepcopy(self.nested_defs[h]) for h in helpers] + fdef.body
        reads = (loaded_names(fdef) - own) & self.locals
        static = {v: self.static_values[v] for v in reads if v in self.static_values}
        free = sorted(reads - set(static))
        closure = Closure(len(fdef.args.args), list(fdef.args.defaults), free)
        fdef.args.defaults = []
        fdef.args.args += [gast.Name(id=v, ctx=gast.Param(), annotation=None, type_comment=None) for v in free]
        unit = dataclasses.replace(self.unit, tree=fdef, namespace={**self.unit.namespace, **static})
        unit.transpyle_closure = closure
        return unit

    def _map_call(self, node):
        """``map(f, xs, ...)``, also inside ``list(...)``: f over the first axis of the arrays, as
        ``vmap(f)(xs, ...)`` (the results stacked into an array, where Python makes a list); None for
        any other call."""
        inner = node.args[0] if node.func.id == "list" and len(node.args) == 1 else node
        if not (isinstance(inner, gast.Call) and isinstance(inner.func, gast.Name) and
                inner.func.id not in self.locals and self.unit.lookup(inner.func.id)[1] is map) or \
                node is not inner and self.unit.lookup("list")[1] is not list:
            return None
        if len(inner.args) < 2 or inner.keywords:
            raise self.ctx.error(inner, "map needs a function and at least one array",
                                 hint="map(f, xs) runs f on each row of xs")
        fun = self._static_value(inner.args[0])
        arrays = [self.visit(a) for a in inner.args[1:]]
        closure = getattr(fun, "transpyle_closure", None)
        axes = (0,) * len(arrays) + ((None,) * (closure.params - len(arrays) + len(closure.free)) if closure else ())
        mapped = self.ctx.transform_call(fun, "vmap", (), in_axes=axes)
        mapped.transpyle_closure = closure
        call = gast.copy_location(gast.Call(func=name("_"), args=arrays, keywords=[]), node)
        setattr(call, MAPPED_ATTR, True)
        return self._deferred(call, mapped)

    def _called_object(self, call):
        """The object a call names by a module-level chain (``transpyle.grad``, ``np.vectorize``), else None:
        names of the body, registered functions and names the module lacks name none."""
        chain = dotted(call.func) if isinstance(call, gast.Call) else None
        if chain is None or chain.split(".")[0] in self.locals or chain in self.ctx.functions or \
                not self.unit.lookup(chain.split(".")[0])[0]:
            return None
        return self._lookup(call.func)[1]

    def _is_vectorize(self, call):
        """Whether ``call`` is ``np.vectorize(...)``."""
        return self._called_object(call) is np.vectorize

    def _vectorized_call(self, node):
        """``np.vectorize(f)(x, y, ...)`` (also through ``g = np.vectorize(f)``, kept as a ``Vectorized``): f on
        every element of the arguments broadcast together, as ``vmap(f)`` over their flattened elements,
        reshaped to the broadcast shape (NumPy's result where f gives numbers); None for any other call."""
        if isinstance(node.func, gast.Name) and isinstance(self.static_values.get(node.func.id), Vectorized):
            node.func = copy.deepcopy(self.static_values[node.func.id].call)
        inner = node.func
        if not self._is_vectorize(inner):
            return None
        if len(inner.args) != 1 or inner.keywords or not node.args or node.keywords:
            raise self.ctx.error(node, "np.vectorize is supported as np.vectorize(f)(x, ...), without otypes=, "
                                       "signature= or keyword arguments",
                                 hint="write f with NumPy's elementwise operations, or use transpyle.vmap")
        fun = self._static_value(inner.args[0])
        args = [self.visit(a) for a in node.args]

        def joint(i):          # argument i broadcast against the others: plus zeros shaped like each of them
            out = copy.deepcopy(args[i])
            for j, other in enumerate(args):
                if j != i:
                    zeros = gast.Call(func=parse_expr("np.zeros_like"), args=[copy.deepcopy(other)], keywords=[])
                    out = gast.BinOp(left=out, op=gast.Add(), right=zeros)
            return out
        flat = [gast.Call(func=parse_expr("np.ravel"), args=[joint(i)], keywords=[]) for i in range(len(args))]
        closure = getattr(fun, "transpyle_closure", None)
        axes = (0,) * len(args) + ((None,) * (closure.params - len(args) + len(closure.free)) if closure else ())
        mapped = self.ctx.transform_call(fun, "vmap", (), in_axes=axes)
        mapped.transpyle_closure = closure
        call = gast.copy_location(gast.Call(func=name("_"), args=flat, keywords=[]), node)
        shape = gast.Call(func=parse_expr("np.shape"), args=[joint(0)], keywords=[])
        reshaped = gast.Call(func=parse_expr("np.reshape"), args=[self._deferred(call, mapped), shape], keywords=[])
        return gast.copy_location(reshaped, node)

    def _stacked_map(self, node, obj):
        """``np.stack(list(map(f, xs)))`` (or ``np.array``, ``np.asarray`` of it): the mapped results are
        stacked already; None for any other call."""
        if len(node.args) == 1 and not node.keywords and getattr(node.args[0], MAPPED_ATTR, False) and \
                obj in (np.stack, np.array, np.asarray, np.vstack):
            return node.args[0]
        return None

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

    def _by_position(self, node, transformed):
        """The arguments of ``grad(loss)(w, scale=0.5)`` by position (the transformed code takes them so):
        keywords in their parameters' places, the defaults of the parameters between."""
        try:
            fdef = read_function(transformed.fun).tree
        except (TranspileError, AttributeError):
            raise self.ctx.error(node, "keyword arguments to this transformed function are not supported",
                                 hint="pass the arguments by position") from None
        params = [a.id for a in fdef.args.args]
        given = {kw.arg: kw.value for kw in node.keywords}
        unknown = sorted(set(given) - set(params[len(node.args):]))
        if unknown or any(kw.arg is None for kw in node.keywords):
            raise self.ctx.error(node, f"'{fdef.name}' takes no keyword argument {', '.join(map(repr, unknown))} here",
                                 hint=f"its parameters are {', '.join(params)}")
        defaults = dict(zip(params[len(params) - len(fdef.args.defaults):], fdef.args.defaults))
        last = max(params.index(k) for k in given)
        args = list(node.args)
        for p in params[len(node.args):last + 1]:
            if p in given:
                args.append(given[p])
            elif p in defaults:
                args.append(self.visit(copy.deepcopy(defaults[p])))
            else:
                raise self.ctx.error(node, f"'{fdef.name}' needs its argument '{p}'",
                                     hint="pass it by position or by name")
        return args

    def _deferred(self, node, transformed):
        if not hasattr(transformed, "generated_function"):
            raise self.ctx.error(node, f"{type(transformed).__name__} cannot be called in transformed code",
                                 hint="call a function or a transformed function")
        closure = getattr(transformed, "transpyle_closure", None)
        if closure is not None:         # the closure's defaults not passed, then the enclosing variables it reads
            if node.keywords:
                raise self.ctx.error(node, "keyword arguments to a transform of a closure are not supported",
                                     hint="pass the arguments by position")
            missing = closure.params - len(node.args)
            defaults = closure.defaults[len(closure.defaults) - missing:] if missing > 0 else []
            node.args = list(node.args) + [self.visit(copy.deepcopy(d)) for d in defaults] + \
                [gast.copy_location(name(v), node) for v in closure.free]
        elif node.keywords:
            node.args, node.keywords = self._by_position(node, transformed), []
        key = self.ctx.namer.fresh(getattr(transformed, "__name__", "transformed") + "_" + transformed.mode)
        self.ctx.functions[key] = DeferredCall(transformed)
        node.func = name(key)
        return node
