"""Functions known when the enclosing function is transformed: transforms built in the body
(``g = transpyle.grad(loss)``, ``grad(loss)(w, x)``, ``jvp(f, primals, tangents)``), whose calls become
deferred calls generated once kinds are known, and functions passed as values to helpers (registered for
the inliner). Their arguments must be known at transform time.

``TransformCalls`` is a part of resolve's resolver: it reads the resolver's ``ctx``, ``unit``, ``locals``
and ``static_values`` and its ``_lookup``.
"""
import copy

import gast

from ..base.ast_utils import dotted, name
from ..base.context import DeferredCall
from .source import read_function


class TransformCalls:
    """The resolver's handling of transforms called in its body and of functions used as values."""

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
