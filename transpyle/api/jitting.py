"""``jit``: a function compiled as it is, specialized on its static arguments (``Jitted``)."""
from . import pytrees as flat
from ..base.arrays import plain
from ..base.errors import TranspileError
from .transformed import Transformed, _arguments, _located_errors
from .vmapping import Vmapped


class Jitted(Transformed):
    """``jit(f)``: f compiled as it is (no derivative), specialized on its static arguments."""

    def __init__(self, fun, static_argnums=(), static_argnames=(), backend=None):
        super().__init__(fun, "primal", 0, False, backend)
        nums = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)
        names = (static_argnames,) if isinstance(static_argnames, str) else tuple(static_argnames)
        params = list(self.signature.parameters) if self.signature is not None else []
        for n in names:
            if n not in params:
                raise TranspileError(f"static_argnames '{n}' is not a parameter of '{fun.__name__}'",
                                     hint=f"parameters: {', '.join(params)}")
        self.static = sorted({n % len(params) for n in nums} | {params.index(n) for n in names})
        self.params = params

    @_located_errors
    def __call__(self, *args, **kwargs):
        if not self.static:
            return super().__call__(*args, **kwargs)
        given, static = _arguments(self.fun, self.signature, args, kwargs)     # defaults are static
        for i in self.static:
            pname = self.params[i]
            if pname not in given:
                continue
            value = given.pop(pname)
            try:
                hash(value)
            except TypeError:
                raise TranspileError(f"static argument '{pname}' of '{self.fun.__name__}' has the "
                                     f"unhashable type {type(value).__name__}",
                                     hint="static arguments must be hashable (use a tuple instead of a list "
                                          "or array), or make the argument non-static") from None
            static[pname] = value
        dynamic = tuple(given.values())
        if flat.needs_flattening(self.fun, dynamic):
            return self._call_flat(dynamic, static)
        return self._run(self._entry(tuple(map(plain, dynamic)), static=static), dynamic)[1]

    def _flatten(self, treedefs, static=None):
        if not static:
            return super()._flatten(treedefs)
        source, fun_out = flat.flat_source(self.fun, treedefs, False, static)    # statics bound, then flattened
        return self._inheriting(Transformed(source, "primal", backend=self.backend)), fun_out, flat.layout_of(fun_out)

    def generated_function(self, kinds):
        if self.static:
            raise TranspileError("transforming a jitted function with static arguments is not supported",
                                 hint="transform the function itself and jit the result")
        return super().generated_function(kinds)


def jit(fun=None, static_argnums=(), static_argnames=(), backend=None, boundscheck=None):
    """``f`` compiled as it is. Static arguments (ints, floats, strings, tuples, None, functions) are
    specialized at transform time: loops and branches over them are folded, and functions passed
    statically are inlined (and may be transformed inside: ``g = grad(loss)`` in the body). Non-static
    arguments may drive Python control flow too (unlike JAX): the code is compiled, not traced.
    ``boundscheck=True``: an index out of range raises NumPy's IndexError naming the line (see grad)."""
    if fun is None:
        return lambda f: jit(f, static_argnums, static_argnames, backend, boundscheck)
    if backend == "cuda":
        if static_argnums not in ((), []) or static_argnames not in ((), []):
            raise TranspileError("jit with static arguments is not supported on the cuda backend",
                                 hint="make the static values module constants or closure variables (docs/cuda.md)")
        if isinstance(fun, Vmapped):     # a vmapped function is compiled already: jit is the same kernel
            return Vmapped(fun.fun, fun.in_axes, fun.out_axes, backend)
    out = Jitted(fun, static_argnums, static_argnames, backend)
    out.boundscheck = boundscheck
    return out


jit.__transpyle_transform__ = True     # may be called in transformed code (specialized)
