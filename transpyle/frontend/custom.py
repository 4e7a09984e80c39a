"""Functions with their own derivative rules: ``custom_jvp`` and ``custom_vjp``, as in JAX.

Called outside any transform, a decorated function runs its own body. In transformed code, a call
to it uses the rule instead of differentiating the body (see ``transforms/custom_rules``):

- ``custom_jvp``: the rule ``(primals, tangents) -> (primal_out, tangent_out)`` gives the tangent
  in forward mode; reverse mode transposes it (the tangent output is linear in the tangents);
- ``custom_vjp``: ``fwd(*args) -> (out, residuals)`` runs in the primal sweep, and
  ``bwd(residuals, g) -> (one cotangent per argument)`` in the adjoint sweep; forward mode is
  refused, as in JAX.

``jit`` and ``vmap`` run the body. Higher derivatives differentiate the code of the rules.
"""
import copy
import functools
import inspect

import gast

from ..base.errors import TranspileError
from .source import FunctionSource, read_function
from .wrapped_callables import located_tree


class CustomRule:
    """A function and the rule that replaces its derivative in transformed code."""

    def __init__(self, fun, nondiff_argnums=()):
        if not callable(fun):
            raise TranspileError(f"{type(self).__name__} expects a function, got {type(fun).__name__}")
        self.fun = fun
        functools.update_wrapper(self, fun)
        count = len(inspect.signature(fun).parameters)
        nums = (nondiff_argnums,) if isinstance(nondiff_argnums, int) else tuple(nondiff_argnums)
        if not all(isinstance(n, int) and -count <= n < count for n in nums):
            raise TranspileError(f"nondiff_argnums {nondiff_argnums!r} does not fit '{fun.__name__}', which takes "
                                 f"{count} arguments", hint=f"use indices from 0 to {count - 1}")
        #: arguments without a derivative (numbers or functions), passed to the rule ahead of the others
        self.nondiff_argnums = tuple(sorted({n % count for n in nums}))

    def __call__(self, *args, **kwargs):
        return self.fun(*args, **kwargs)

    def transpyle_source(self):
        """What transforms read for the decorated function itself (``grad(f)``): a function with
        ``f``'s signature whose body is the call ``return f(x, ...)``, so the rule applies to it."""
        unit = read_function(self.fun)
        tree = copy.deepcopy(unit.tree)
        params = [a.id for a in tree.args.args]
        if tree.args.vararg is not None or tree.args.kwarg is not None or tree.args.kwonlyargs:
            raise TranspileError(f"'{unit.name}': *args, **kwargs and keyword-only parameters are not supported",
                                 filename=unit.filename, lineno=tree.lineno, construct=f"def {unit.name}",
                                 hint="list the parameters explicitly")
        callee = unit.name if unit.name not in params else f"{unit.name}_custom"
        call = gast.Call(func=gast.Name(id=callee, ctx=gast.Load(), annotation=None, type_comment=None),
                         args=[gast.Name(id=p, ctx=gast.Load(), annotation=None, type_comment=None) for p in params],
                         keywords=[])
        tree.body = [gast.copy_location(gast.Return(value=call), tree)]
        for node in gast.walk(tree):
            if not hasattr(node, "lineno") and isinstance(node, (gast.expr, gast.stmt)):
                gast.copy_location(node, tree)
        return FunctionSource(func=self, tree=tree, filename=unit.filename,
                              namespace={**unit.namespace, callee: self}, text=unit.text)

    def __repr__(self):
        return f"<{type(self).__name__} {getattr(self.fun, '__qualname__', self.fun)}>"


class custom_jvp(CustomRule):  # noqa: N801 (JAX's name)
    """``f`` with a forward-mode rule, set with ``@f.defjvp``::

        @transpyle.custom_jvp
        def log1pexp(x):
            return np.log1p(np.exp(x))

        @log1pexp.defjvp
        def log1pexp_jvp(primals, tangents):
            x, = primals
            dx, = tangents
            return log1pexp(x), dx / (1.0 + np.exp(-x))

    The rule's tangent output must be linear in the tangents: reverse mode (``grad``, ``vjp``,
    ``jacrev``) uses it as the function's linearization and transposes it. Arguments listed in
    ``nondiff_argnums`` (numbers, or functions) come first in the rule's arguments and are left
    out of the primals and tangents: ``jvp(n, primals, tangents)``.
    """

    def __init__(self, fun, nondiff_argnums=()):
        super().__init__(fun, nondiff_argnums)
        self.jvp = None

    def defjvp(self, jvp):
        """Set the rule ``jvp(primals, tangents) -> (primal_out, tangent_out)``; returns it (a decorator)."""
        self.jvp = jvp
        return jvp

    def defjvps(self, *jvps):
        """Set the rule one argument at a time, as JAX's ``defjvps``: ``jvps[i](t, ans, *primals)`` is the
        tangent output's part from argument ``i``'s tangent ``t`` (None: that argument contributes
        nothing). The rule is their sum, written as a function the transforms read like ``defjvp``'s."""
        unit = read_function(self.fun)
        count = len(unit.tree.args.args)
        if self.nondiff_argnums or len(jvps) != count:
            raise TranspileError(f"defjvps needs one rule (or None) per argument of '{unit.name}' ({count}), "
                                 f"got {len(jvps)}" + (" and no nondiff_argnums" if self.nondiff_argnums else ""),
                                 filename=unit.filename, lineno=unit.tree.lineno, construct=f"def {unit.name}",
                                 hint="or write the whole rule with defjvp(jvp(primals, tangents))")
        xs = ", ".join(f"x{i}" for i in range(count))
        ts = ", ".join(f"t{i}" for i in range(count))
        parts = [f"_jvp{i}(t{i}, ans, {xs})" for i, j in enumerate(jvps) if j is not None]
        text = (f"def {unit.name}_jvps(primals, tangents):\n    {xs}, = primals\n    {ts}, = tangents\n"
                f"    ans = _fun({xs})\n    return ans, {' + '.join(parts) or '0.0 * ans'}\n")
        namespace = {"_fun": self.fun, **{f"_jvp{i}": j for i, j in enumerate(jvps) if j is not None}}
        self.jvp = FunctionSource(func=jvps, tree=located_tree(text, unit.tree), filename=unit.filename,
                                  text=text + unit.text).bind(namespace)


class custom_vjp(CustomRule):  # noqa: N801 (JAX's name)
    """``f`` with a reverse-mode rule, set with ``f.defvjp(fwd, bwd)``::

        @transpyle.custom_vjp
        def clip_gradient(x):
            return x

        def clip_fwd(x):
            return x, ()

        def clip_bwd(res, g):
            return (np.clip(g, -1.0, 1.0),)

        clip_gradient.defvjp(clip_fwd, clip_bwd)

    ``fwd`` returns ``(output, residuals)``; ``bwd`` receives the residuals and the output's
    cotangent and returns a tuple with one cotangent per argument of ``f``. Forward mode (``jvp``,
    ``jacfwd``, ``linearize``) of a call to ``f`` is an error, as in JAX. Arguments listed in
    ``nondiff_argnums`` come first in bwd's arguments and get no cotangent:
    ``bwd(n, residuals, g)``; fwd takes all arguments, like ``f``.
    """

    def __init__(self, fun, nondiff_argnums=()):
        super().__init__(fun, nondiff_argnums)
        self.fwd = self.bwd = None

    def defvjp(self, fwd, bwd):
        """Set the rule: ``fwd(*args) -> (out, residuals)`` and ``bwd(residuals, g) -> cotangents``."""
        self.fwd, self.bwd = fwd, bwd
