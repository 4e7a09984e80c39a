"""The transforms users call: grad, value_and_grad, vjp, jvp, linearize, jacfwd, jacrev, hessian,
vmap, jit, and show.

Each transform returns a callable (a ``Transformed``) that, per combination of argument kinds,
runs the pipeline once, loads the generated module through the cache and compiles it with the
backend; later calls with the same kinds go straight to the compiled function. A ``Transformed``
is also valid input to every transform: its generated code is read as source
(``generated_function``).
"""
import functools
import inspect
import weakref

import numpy as np

from . import flat, pipeline
from . import tree as pytree
from .backends import choose, compile_function, spelled_for
from .backends.compile_time import compile_guarded
from .cache import load_module
from .errors import TranspileError
from .source import FunctionSource, read_function
from .kinds import kind_of_value, parse_kind


def _normalize_argnums(fun, argnums):
    tuple_argnums = isinstance(argnums, (tuple, list))
    nums = tuple(argnums) if tuple_argnums else (argnums,)
    if not nums or not all(isinstance(n, int) and not isinstance(n, bool) for n in nums):
        raise TranspileError(f"argnums must be an int or a tuple of ints, got {argnums!r}",
                             hint="e.g. argnums=0 or argnums=(0, 2)")
    return nums, tuple_argnums


def _bind(fun, signature, args, kwargs):
    if signature is None or (not kwargs and len(args) == len(signature.parameters)):
        return args
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as exc:
        raise TranspileError(f"{getattr(fun, '__name__', fun)}: {exc}", hint="check the call's arguments") from None
    bound.apply_defaults()
    return tuple(bound.args)


def _signature(fun):
    try:
        return inspect.signature(fun)
    except (TypeError, ValueError):
        return None


_FAST_TYPES = (np.ndarray, float, int, bool, np.float64, np.float32, np.int64, np.complex128, complex)


def _fast_key(a):
    """A cheap stand-in for an argument's kind, used to find compiled code on later calls."""
    t = type(a)
    if t is np.ndarray:
        return (a.dtype, a.ndim)
    if t in _FAST_TYPES:
        return t
    raise TypeError


def _ct_key(ct):
    if isinstance(ct, tuple):
        return tuple(_ct_key(c) for c in ct)
    return (ct.dtype, ct.ndim) if isinstance(ct, np.ndarray) else type(ct)


def _kinds(args):
    try:
        return tuple(kind_of_value(a) for a in args)
    except TypeError as exc:
        raise TranspileError(f"{exc}", hint="pass floats, ints, bools or NumPy arrays") from None


def _with_captured(compiled, nargs, getters):
    """``compiled`` called with the current values of the captured arrays after the arguments."""
    def call(*args):
        return compiled(*args[:nargs], *[g() for g in getters], *args[nargs:])
    return call


def _lanes(backend):
    """How array-lifted code runs on ``backend`` (see ``pipeline.transform``)."""
    return "arrays" if backend == "numpy" else "loops"


class Transformed:
    """A function transformed by one transform; compiled lazily per argument kinds."""

    def __init__(self, fun, mode, argnums=0, has_aux=False, backend=None, holomorphic=False):
        if not callable(fun) and not isinstance(fun, FunctionSource):
            raise TranspileError(f"expected a function, got {type(fun).__name__}")
        if not inspect.isfunction(fun) and not isinstance(fun, (Transformed, FunctionSource)):
            read_function(fun)         # raises the error that says why (a builtin, a ufunc, ...)
        if isinstance(fun, Transformed) and mode == "vjp":
            raise TranspileError("vjp of a transformed function is not supported",
                                 hint="use jvp or jacfwd of it (forward mode over the generated code)")
        self.fun = fun
        self.mode = mode
        self.has_aux = has_aux
        self.holomorphic = holomorphic
        self.transform_options = {}
        self.backend = backend
        self.argnums, self.tuple_argnums = _normalize_argnums(fun, argnums)
        try:
            self.signature = inspect.signature(fun)
        except (TypeError, ValueError):
            self.signature = None
        self._compiled = {}
        self._fast = {}
        self._flat = {}             # argument structures -> (flat transform, result builder)
        self.backend_name = choose(backend)
        functools.update_wrapper(self, fun, updated=())     # not fun.__dict__: a Transformed has state

    def _check_argnums(self, nargs):
        for n in self.argnums:
            if not -nargs <= n < nargs:
                raise TranspileError(
                    f"argnums {n} is out of range for '{getattr(self.fun, '__name__', self.fun)}', "
                    f"which takes {nargs} positional arguments", hint=f"use 0 to {nargs - 1}")

    def _entry(self, args, extra=(), static=None):
        """The compiled callable for ``args`` (the function's arguments); ``extra`` are trailing
        arguments the generated function adds (the cotangent of vjp), used for compiling only;
        ``static`` maps parameters specialized away (jit) to their values."""
        kinds = _kinds(args)
        backend = self.backend_name
        key = (kinds, backend, tuple(_ct_key(e) for e in extra), tuple((static or {}).items()))
        entry = self._compiled.get(key)
        if entry is None and backend == "cuda" and self.mode in ("grad", "value_and_grad"):
            self._check_argnums(len(args))
            entry = self._compiled[key] = _reduced_on_gpu(self, kinds, len(args))
        if entry is None:
            if self.mode != "primal":
                self._check_argnums(len(args))
            fname, tree, ctx = self._transform(kinds, static)
            module = load_module(spelled_for(backend, pipeline.module_source(tree, ctx)), fname)
            getters = [getter for _, getter, _ in ctx.captured.values()]
            captured = tuple(g() for g in getters)
            entry = self._compile(module, fname, args + captured + tuple(extra), ctx, kinds, static)
            if getters:
                entry = _with_captured(entry, len(args), getters)
            self._compiled[key] = entry
        return entry

    def _compile(self, module, fname, args, ctx, kinds, static):
        """The backend's callable for ``module.fname``. A Numba compile that runs past
        ``TRANSPYLE_COMPILE_WARN`` seconds warns at the user's function; with ``backend="auto"``
        the NumPy backend answers until it is done (``compile_time``)."""
        backend = self.backend_name
        if backend not in ("numba", "auto"):
            return compile_function(backend, module, fname, args)
        where = (getattr(self.fun, "__name__", fname), ctx.filename, ctx.source.tree.lineno)

        def numpy_stand_in():
            _, np_tree, np_ctx = self._transform(kinds, static, lanes=_lanes("numpy"))
            # its own module: the compile thread replaces the helpers of the numba one by dispatchers
            text = pipeline.module_source(np_tree, np_ctx) + "\n# run by the numpy backend while Numba compiles\n"
            return compile_function("numpy", load_module(text, fname), fname, args)
        return compile_guarded(lambda: compile_function("numba", module, fname, args), where,
                               fallback=numpy_stand_in if backend == "auto" else None)

    def _transform(self, kinds, static=None, lanes="backend"):
        """Run the pipeline for these argument kinds with this transform's settings; ``lanes`` (see
        ``pipeline.transform``) follows the backend unless given."""
        argnums = tuple(n % len(kinds) for n in self.argnums) if kinds else ()
        lanes = _lanes(self.backend_name) if lanes == "backend" else lanes
        return pipeline.transform(self.fun, self.mode, argnums, kinds, self.has_aux, self.tuple_argnums,
                                  holomorphic=self.holomorphic, static=static, lanes=lanes, **self.transform_options)

    def generated_function(self, kinds):
        """The generated Python function for argument ``kinds``: what a transform of this
        transform reads as its source (generated code stays inside the accepted subset)."""
        if self.mode == "jvp":        # called as f_jvp(*primals, *tangents): the primals set the kinds
            kinds = kinds[:len(self.argnums)]
        fname, tree, ctx = self._transform(kinds, lanes=None)     # no array lifting: inside the subset
        if ctx.captured:
            raise TranspileError(f"'{getattr(self.fun, '__name__', self.fun)}' reads module-level arrays "
                                 f"({', '.join(p for p, _, _ in ctx.captured.values())}); transforms of its "
                                 "transform cannot pass them", hint="pass the arrays as arguments")
        module = load_module(pipeline.module_source(tree, ctx), fname)
        return getattr(module, fname)

    def __call__(self, *args, **kwargs):
        # fast path: positional arrays and numbers whose types were seen before
        if not kwargs:
            try:
                entry = self._fast[tuple(map(_fast_key, args))]
            except (KeyError, TypeError):
                pass
            else:
                return entry(*args)
        args = tuple(_bind(self.fun, self.signature, args, kwargs))
        if flat.needs_flattening(self.fun, args):
            return self._call_flat(args)
        entry = self._entry(args)
        if not kwargs and all(type(a) in _FAST_TYPES for a in args):
            self._fast[tuple(map(_fast_key, args))] = entry
        return entry(*args)


    # -- pytree arguments ------------------------------------------------------------------------
    def _call_flat(self, args, static=None):
        """``self(*args)`` for pytree arguments: the flat transform on the leaves, results rebuilt."""
        leaves, treedefs = flat.flatten_args(args)
        key = (treedefs, tuple((static or {}).items()))
        if key not in self._flat:
            self._flat[key] = self._flatten(treedefs, static)[:2]
        flat_transform, out_tree = self._flat[key]
        return flat.rebuild(out_tree, flat_transform(*leaves))

    def _flatten(self, treedefs, static=None):
        """(this transform of the function with pytree arguments flattened into leaves, the structure
        of its result, and how the flat transform lays that result out: see ``flat.layout_of``)."""
        if isinstance(self.fun, Transformed):
            source, fun_out, fun_layout = self.fun._flatten(treedefs)
            if not flat.is_flat(fun_layout) and self.mode not in ("primal", "vmap"):
                raise TranspileError(f"{self.mode} of {self.fun.mode} of a function of pytrees is not supported",
                                     hint="apply the transforms to a function of arrays")
        else:
            source, fun_out = flat.flat_source(self.fun, treedefs, self.has_aux)
            fun_out, fun_layout = flat.function_result(fun_out, self.has_aux)
        return self._flat_transform(source, treedefs, fun_out, fun_layout)

    def _flat_transform(self, source, treedefs, fun_out, fun_layout):
        if self.mode == "primal":
            return Transformed(source, "primal", backend=self.backend), fun_out, fun_layout
        argnums = [n % len(treedefs) for n in self.argnums]
        positions = flat.leaf_positions(treedefs)
        flat_argnums = tuple(p for a in argnums for p in positions[a])
        if not flat_argnums:
            raise TranspileError(f"{self.mode}: the differentiated arguments hold no arrays or numbers",
                                 hint="check argnums")
        # a tuple of leaf positions: the flat transform returns one derivative per leaf, as a tuple
        transform = Transformed(source, self.mode, flat_argnums, self.has_aux, self.backend, self.holomorphic)
        grad_tree = flat.wrt_tree(treedefs, argnums, self.tuple_argnums)
        out_tree, layout = flat.derivative_result(self.mode, fun_out, grad_tree, self.has_aux)
        return transform, out_tree, layout


def _kernel(built, nargs, **options):
    """The launcher of a kernel module ``built`` by ``gpu.build`` for ``nargs`` arguments, passing the
    module-level arrays the code reads after them."""
    from .backends.cuda_backend import compile_kernel_module
    fname, text, spec, ctx = built
    launch = compile_kernel_module(load_module(text, fname), spec, **options)
    getters = [getter for _, getter, _ in ctx.captured.values()]
    return _with_captured(launch, nargs, getters) if getters else launch


def _reduced_on_gpu(transformed, kinds, nargs):
    """grad of a sum or mean over a vmapped function, as one CUDA kernel (transpyle/gpu.py, docs/cuda.md)."""
    from . import gpu
    red = gpu.reduction(transformed, kinds)
    example_kinds = red.example_args(kinds)
    built = gpu.build(red.per_example, example_kinds, red.in_axes, 0, reduce=red.reduce,
                      deterministic=getattr(transformed, "deterministic", False))
    launch = _kernel(built, len(example_kinds), mean=red.how == "mean")
    value_and_grad = transformed.mode == "value_and_grad"

    def call(*args):
        out = launch(*red.example_args(args))
        return (out[0], out[1]) if value_and_grad else out
    return call


def _decorator(mode):
    def transform(fun=None, argnums=0, has_aux=False, holomorphic=False, backend=None, deterministic=False):
        if fun is None:       # used as @transpyle.grad(argnums=1)
            return lambda f: transform(f, argnums, has_aux, holomorphic, backend, deterministic)
        out = Transformed(fun, mode, argnums, has_aux, backend, holomorphic)
        # cuda only (the other backends always are): sums over a batch in a fixed order, not atomically
        out.deterministic = deterministic
        return out
    transform.__transpyle_transform__ = True     # may be called in transformed code (specialized)
    return transform


grad = _decorator("grad")
grad.__doc__ = """Gradient of a scalar function with respect to argument(s) ``argnums``.

``grad(f)(x, ...)`` has the shape of ``x``; with a tuple ``argnums`` a tuple of gradients.
With ``has_aux=True`` ``f`` returns ``(value, aux)`` and the result is ``(gradient, aux)``.
``backend`` is ``"numba"`` (default, or ``$TRANSPYLE_BACKEND``) or ``"numpy"``; ``"auto"`` is numba,
answered by numpy while a compile runs past ``$TRANSPYLE_COMPILE_WARN`` seconds; ``"cuda"`` takes
``f`` of the form ``return np.sum(vmap(loss, in_axes=...)(w, x, y))`` (or ``np.mean``) and runs it as
one kernel whose threads add up per-example gradients, atomically or, with ``deterministic=True``,
in a fixed order by a second kernel (docs/cuda.md).
A complex output needs ``holomorphic=True`` (then the result is f'(z)); a real output of complex
arguments gives JAX's convention, df/dx - i df/dy."""

value_and_grad = _decorator("value_and_grad")
value_and_grad.__doc__ = """Like :func:`grad` but returns ``(value, gradient)`` (``((value, aux), gradient)``
with ``has_aux``), both from one compiled call."""


_TRANSFORMED = weakref.WeakKeyDictionary()


def _transformed(fun, mode, argnums, has_aux, backend):
    """The Transformed for these settings, kept per function so repeated ``vjp``/``jvp`` calls
    reuse its compiled code instead of running the pipeline again."""
    try:
        per_fun = _TRANSFORMED.setdefault(fun, {})
    except TypeError:                    # not weak-referenceable: no reuse
        return Transformed(fun, mode, argnums, has_aux, backend)
    key = (mode, argnums, has_aux, backend)
    if key not in per_fun:
        per_fun[key] = Transformed(fun, mode, argnums, has_aux, backend)
    return per_fun[key]


def _tangent_like(primal, tangent, position):
    """``tangent`` as a value of the primal's type and shape (float arrays/scalars)."""
    if isinstance(primal, np.ndarray):
        t = np.asarray(tangent, dtype=primal.dtype)
        if t.shape != primal.shape:
            raise TranspileError(f"the tangent of argument {position} has shape {t.shape}, "
                                 f"the argument has shape {primal.shape}", hint="pass tangents shaped like the primals")
        return t
    return float(tangent)


def jvp(fun, primals, tangents, has_aux=False, backend=None):
    """Forward mode: ``(f(*primals), J @ tangents)`` from one compiled sweep, with no tape
    (``(out, tangent_out, aux)`` with ``has_aux``). ``primals`` and ``tangents`` are tuples of the
    same length; tangents of integer or boolean arguments are ignored (they have no derivative)."""
    tangents = tuple(tangents)
    if len(tangents) != len(primals):
        raise TranspileError(f"jvp got {len(primals)} primals but {len(tangents)} tangents",
                             hint="pass one tangent per primal: jvp(f, (x, y), (dx, dy))")
    if flat.has_pytree(primals):
        return _jvp_pytrees(fun, tuple(primals), tangents, has_aux, backend)
    given = len(primals)
    primals = tuple(_bind(fun, _signature(fun), tuple(primals), {}))   # defaults
    wrt = tuple(i for i, p in enumerate(primals[:given]) if _kinds((p,))[0].is_float)
    if not wrt:
        raise TranspileError("jvp needs at least one float argument to differentiate",
                             hint="pass floats or float arrays as primals")
    ts = tuple(_tangent_like(primals[i], tangents[i], i) for i in wrt)
    forward = _transformed(fun, "jvp", wrt, has_aux, backend)
    out, tangent_out = forward._entry(primals, ts)(*primals, *ts)
    if has_aux:
        out, aux = out
        return out, tangent_out, aux
    return out, tangent_out


jvp.__transpyle_jvp__ = True           # in transformed code: a call to the forward-mode code of fun


def _flat_function(fun, treedefs, has_aux):
    """(``fun`` with its pytree parameters flattened, its result's TreeDef)."""
    if isinstance(fun, Transformed):
        source, out_tree, layout = fun._flatten(treedefs)
        if not flat.is_flat(layout):
            raise TranspileError(f"this transform of {fun.mode} of a function of pytrees is not supported",
                                 hint="apply the transforms to a function of arrays")
        return source, out_tree
    return flat.flat_source(fun, treedefs, has_aux)


def _value_and_aux_trees(out_tree, has_aux):
    if not has_aux:
        return out_tree, None
    return pytree.LEAF, (out_tree.children[1] if out_tree.kind == "tuple" else pytree.LEAF)


def _jvp_pytrees(fun, primals, tangents, has_aux, backend):
    leaves, treedefs = flat.flatten_args(primals)
    t_leaves, t_treedefs = flat.flatten_args(tangents)
    for i, (a, b) in enumerate(zip(treedefs, t_treedefs)):
        flat.check_same(a, b, f"jvp: primal {i} and its tangent")
    source, out_tree = _flat_function(fun, treedefs, has_aux)
    value_tree, aux_tree = _value_and_aux_trees(out_tree, has_aux)
    result = jvp(source, leaves, t_leaves, has_aux=has_aux, backend=backend)
    rebuilt = (flat.rebuild(value_tree, result[0]), flat.rebuild(value_tree, result[1]))
    return rebuilt + (flat.rebuild(aux_tree, result[2]),) if has_aux else rebuilt


def _vjp_pytrees(fun, primals, has_aux, backend):
    leaves, treedefs = flat.flatten_args(primals)
    source, out_tree = _flat_function(fun, treedefs, has_aux)
    value_tree, aux_tree = _value_and_aux_trees(out_tree, has_aux)
    out, flat_vjp, *aux = vjp(source, *leaves, has_aux=has_aux, backend=backend)
    positions = flat.leaf_positions(treedefs)

    def vjp_fn(ct):
        ct_leaves, ct_tree = flat.flatten_args((ct,))
        flat.check_same(value_tree, ct_tree[0], "vjp: the output and its cotangent")
        cts = flat_vjp(ct if value_tree.is_leaf else ct_leaves)
        return tuple(pytree.unflatten(td, [cts[p] for p in pos]) for td, pos in zip(treedefs, positions))
    result = (flat.rebuild(value_tree, out), vjp_fn)
    return result + (flat.rebuild(aux_tree, aux[0]),) if has_aux else result


def linearize(fun, *primals, backend=None):
    """``(f(*primals), f_jvp)`` where ``f_jvp(*tangents)`` is the jvp at ``primals``. Each call of
    ``f_jvp`` runs the compiled forward sweep again (the primal is recomputed, nothing is stored)."""
    primals = tuple(primals)
    out = _transformed(fun, "primal", 0, False, backend)(*primals)

    def f_jvp(*tangents):
        return jvp(fun, primals, tangents, backend=backend)[1]
    return out, f_jvp


def vjp(fun, *primals, has_aux=False, backend=None):
    """``(out, vjp_fn)`` where ``vjp_fn(ct)`` returns one cotangent per primal (``(out, vjp_fn, aux)``
    with ``has_aux``). The primal is recomputed inside each ``vjp_fn`` call."""
    if flat.has_pytree(primals):
        return _vjp_pytrees(fun, primals, has_aux, backend)
    primals = tuple(primals)
    primal = _transformed(fun, "primal", 0, False, backend)
    out = primal(*primals)
    aux = None
    if has_aux:
        out, aux = out
    pullback = _transformed(fun, "vjp", tuple(range(len(primals))), has_aux, backend)

    def vjp_fn(ct):
        if isinstance(out, tuple):
            ct = tuple(np.asarray(c, dtype=float) if not np.isscalar(c) else float(c) for c in ct)
        elif isinstance(out, np.ndarray):
            ct = np.asarray(ct, dtype=out.dtype)
            if ct.shape != out.shape:
                raise TranspileError(f"the cotangent has shape {ct.shape}, the output has shape {out.shape}",
                                     hint="pass a cotangent shaped like the output")
        else:
            ct = float(ct)
        return pullback._entry(primals, (ct,))(*primals, ct)

    return (out, vjp_fn, aux) if has_aux else (out, vjp_fn)


jacfwd = _decorator("jacfwd")
jacfwd.__doc__ = """Jacobian by forward mode: one compiled call that runs the jvp once per input element.

Shape ``out.shape + in.shape`` (a float for scalar in and out); a tuple over arguments for a tuple
``argnums``, a tuple over outputs for a tuple output; ``(jacobian, aux)`` with ``has_aux``."""

jacrev = _decorator("jacrev")
jacrev.__doc__ = """Jacobian by reverse mode: one compiled call that runs the vjp once per output element.
Same layout as :func:`jacfwd`; cheaper when outputs are fewer than inputs."""


class Vmapped(Transformed):
    """``vmap(f)``: f run over a batch; the batch sizes are checked on every call, as in JAX."""

    def __init__(self, fun, in_axes=0, out_axes=0, backend=None, strategy="auto"):
        super().__init__(fun, "vmap", 0, False, backend)
        if strategy not in ("auto",) + pipeline.STRATEGIES:
            raise TranspileError(f"unknown vmap strategy '{strategy}'",
                                 hint="one of: auto, " + ", ".join(pipeline.STRATEGIES))
        if strategy == "array" and self.backend_name == "cuda":
            raise TranspileError("the cuda backend runs one thread per example (loop lifting)",
                                 hint="drop strategy='array', or use backend='numpy' for array lifting")
        self.in_axes, self.out_axes, self.strategy = in_axes, out_axes, strategy
        self.transform_options = {"in_axes": in_axes, "out_axes": out_axes}

    def _transform(self, kinds, static=None, lanes="backend"):
        """Array lifting where asked, or by default on the numpy backend (whose loops are slow) when the
        function lifts; loop lifting otherwise (compiled loops: every construct, all cores), and always
        for code another transform reads (``lanes=None``): the loop-lifting driver is inside the subset."""
        lanes = _lanes(self.backend_name) if lanes == "backend" else lanes
        strategy = self.strategy
        if strategy == "auto" or lanes is None:
            strategy = "array" if lanes == "arrays" else "loop"
        options = dict(self.transform_options, strategy=strategy, lanes=lanes)
        try:
            return pipeline.transform(self.fun, "vmap", (), kinds, static=static, **options)
        except TranspileError as exc:
            if self.strategy != "auto" or strategy != "array" or exc.stage != "lift":
                raise
        return pipeline.transform(self.fun, "vmap", (), kinds, static=static, **dict(options, strategy="loop"))

    def __call__(self, *args, **kwargs):
        args = tuple(_bind(self.fun, self.signature, args, kwargs))
        if flat.needs_flattening(self.fun, args):
            return self._call_flat(args)
        self._check_batch(args)
        return self._entry(args)(*args)

    def _entry(self, args, extra=(), static=None):
        if self.backend_name != "cuda":
            return super()._entry(args, extra, static)
        kinds = _kinds(args)
        key = (kinds, "cuda", tuple((static or {}).items()))
        entry = self._compiled.get(key)
        if entry is None:          # a kernel module: see transpyle/gpu.py
            from . import gpu
            entry = self._compiled[key] = _kernel(gpu.build(self.fun, kinds, self.in_axes, self.out_axes, static),
                                                  len(args))
        return entry

    def _flat_transform(self, source, treedefs, fun_out, fun_layout):
        in_axes = flat.leaf_in_axes(self.in_axes, treedefs)
        out_axes = self.out_axes
        if not isinstance(out_axes, int) and fun_out is not None and not fun_out.is_leaf:
            out_axes = tuple(flat.axes_for_leaves(out_axes, fun_out, "out_axes"))
        return Vmapped(source, in_axes, out_axes, self.backend, self.strategy), fun_out, fun_layout

    def _check_batch(self, args):
        from .passes.batch import normalize_in_axes
        axes = normalize_in_axes(self.in_axes, _kinds(args), getattr(self.fun, "__name__", "f"))
        sizes = {i: (a.shape if hasattr(a, "shape") else np.shape(a))[ax]     # device arrays too
                 for i, (a, ax) in enumerate(zip(args, axes)) if ax is not None}
        if len(set(sizes.values())) > 1:
            names = list(self.signature.parameters) if self.signature is not None else []
            desc = ", ".join(f"{names[i] if i < len(names) else 'argument ' + str(i)} has size {n} along axis "
                             f"{axes[i]}" for i, n in sizes.items())
            raise TranspileError(f"vmap got inconsistent batch sizes: {desc}",
                                 hint="all batched arguments need the same size along their in_axes")
        if 0 in sizes.values():
            raise TranspileError("vmap over an empty batch", hint="pass at least one example")


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

    def __call__(self, *args, **kwargs):
        args = _bind(self.fun, self.signature, args, kwargs)
        if not self.static:
            return super().__call__(*args)
        static = {}
        for i in self.static:
            value = args[i]
            try:
                hash(value)
            except TypeError:
                raise TranspileError(f"static argument '{self.params[i]}' of '{self.fun.__name__}' has the "
                                     f"unhashable type {type(value).__name__}",
                                     hint="static arguments must be hashable (use a tuple instead of a list "
                                          "or array), or make the argument non-static") from None
            static[self.params[i]] = value
        dynamic = tuple(a for i, a in enumerate(args) if i not in self.static)
        if flat.needs_flattening(self.fun, dynamic):
            return self._call_flat(dynamic, static)
        return self._entry(dynamic, static=static)(*dynamic)

    def _flatten(self, treedefs, static=None):
        if not static:
            return super()._flatten(treedefs)
        source, fun_out = flat.flat_source(self.fun, treedefs, False, static)    # statics bound, then flattened
        return Transformed(source, "primal", backend=self.backend), fun_out, flat.layout_of(fun_out)

    def generated_function(self, kinds):
        if self.static:
            raise TranspileError("transforming a jitted function with static arguments is not supported",
                                 hint="transform the function itself and jit the result")
        return super().generated_function(kinds)


def jit(fun=None, static_argnums=(), static_argnames=(), backend=None):
    """``f`` compiled as it is. Static arguments (ints, floats, strings, tuples, None, functions) are
    specialized at transform time: loops and branches over them are folded, and functions passed
    statically are inlined (and may be transformed inside: ``g = grad(loss)`` in the body). Non-static
    arguments may drive Python control flow too (unlike JAX): the code is compiled, not traced."""
    if fun is None:
        return lambda f: jit(f, static_argnums, static_argnames, backend)
    if backend == "cuda":
        if static_argnums not in ((), []) or static_argnames not in ((), []):
            raise TranspileError("jit with static arguments is not supported on the cuda backend",
                                 hint="make the static values module constants or closure variables (docs/cuda.md)")
        if isinstance(fun, Vmapped):     # a vmapped function is compiled already: jit is the same kernel
            return Vmapped(fun.fun, fun.in_axes, fun.out_axes, backend)
    return Jitted(fun, static_argnums, static_argnames, backend)


def vmap(fun=None, in_axes=0, out_axes=0, backend=None, strategy="auto"):
    """``f`` over a batch: ``in_axes`` an int, None (broadcast) or a tuple per argument; ``out_axes`` an
    int or a tuple per output. ``strategy``: ``"loop"`` (loop lifting: the per-example code runs in a
    parallel loop; with ``backend="cuda"`` as a CUDA kernel, one thread per example, docs/cuda.md),
    ``"array"`` (array lifting: batched array operations, masks for data-dependent control flow) or
    ``"auto"`` (array on the numpy backend where the function lifts, loop otherwise)."""
    if fun is None:
        return lambda f: Vmapped(f, in_axes, out_axes, backend, strategy)
    return Vmapped(fun, in_axes, out_axes, backend, strategy)


for _transform in (jit, vmap):
    _transform.__transpyle_transform__ = True


def hessian(fun, argnums=0, has_aux=False, holomorphic=False, backend=None):
    """Second derivatives of a scalar function: ``jacfwd(jacrev(f))`` (forward over reverse), shape
    ``in.shape + in.shape``."""
    inner = Transformed(fun, "jacrev", argnums, has_aux, backend, holomorphic)
    return Transformed(inner, "jacfwd", argnums, has_aux, backend, holomorphic)


hessian.__transpyle_transform__ = True


def _specialization(fun, mode, argnums, args, kinds, has_aux, holomorphic):
    """What show and compile_module give the pipeline: (function, mode, argnums, argument kinds,
    tuple_argnums, the arguments' TreeDefs when some are pytrees), from example ``args``, ``kinds`` strings (or pytrees of them, for pytree arguments),
    or kinds guessed from the source."""
    nums, tuple_argnums = _normalize_argnums(fun, argnums)
    if args is None and kinds is not None and flat.has_pytree(kinds):   # pytrees of kind strings:
        args, kinds = kinds, flat.flatten_args(kinds)[0]                # their structure, their leaves
    treedefs = None
    if args is not None and flat.has_pytree(args):      # the flat function, on the leaves
        args, treedefs = flat.flatten_args(args)
        positions = flat.leaf_positions(treedefs)
        nums = tuple(p for n in nums for p in positions[n % len(treedefs)])
        fun, tuple_argnums = _flat_function(fun, treedefs, has_aux)[0], True
    if kinds is not None:
        arg_kinds = tuple(parse_kind(k) if isinstance(k, str) else k for k in kinds)
    elif args is not None:
        arg_kinds = _kinds(tuple(args))
    else:
        from .guess import guess_kinds
        arg_kinds = guess_kinds(fun)
    nums = tuple(n % len(arg_kinds) for n in nums)
    if mode == "hessian":         # jacfwd over the code jacrev generates
        fun, mode = Transformed(fun, "jacrev", argnums, has_aux, holomorphic=holomorphic), "jacfwd"
    if mode == "vjp":
        nums = tuple(range(len(arg_kinds)))
    elif mode == "jvp":           # as jvp() does: every float argument gets a tangent
        nums = tuple(i for i, k in enumerate(arg_kinds) if getattr(k, "is_float", False))
    return fun, mode, nums, arg_kinds, tuple_argnums, treedefs


def generate(fun, mode="grad", argnums=0, args=None, kinds=None, has_aux=False, holomorphic=False, in_axes=0,
             out_axes=0, after=None, strategy="loop"):
    """(name, gast FunctionDef, Context) of the generated function; see :func:`show`."""
    fun, mode, nums, arg_kinds, tuple_argnums, treedefs = _specialization(fun, mode, argnums, args, kinds, has_aux,
                                                                           holomorphic)
    if treedefs is not None and mode == "vmap":
        in_axes = flat.leaf_in_axes(in_axes, treedefs)
    return pipeline.transform(fun, mode, nums, arg_kinds, has_aux, tuple_argnums, after=after,
                              holomorphic=holomorphic, in_axes=in_axes, out_axes=out_axes, strategy=strategy)


def show(fun, mode="grad", argnums=0, args=None, kinds=None, has_aux=False, after=None, holomorphic=False,
         in_axes=0, out_axes=0, strategy="loop"):
    """The generated source for ``fun`` under ``mode`` (what is compiled).

    Specialisation needs the argument kinds: give example ``args``, or ``kinds`` as strings
    like ``("f8[:]", "f8[:, :]", "f8")``. Without either, they are guessed from how the function
    uses its parameters (see ``guess``) and named in the header. ``after`` names a pass to print the tree after instead (see ``pipeline.PASSES``).
    """
    options = dict(mode=mode, argnums=argnums, args=args, kinds=kinds, has_aux=has_aux, holomorphic=holomorphic,
                   in_axes=in_axes, out_axes=out_axes, strategy=strategy)
    if after is not None:
        import contextlib
        import io
        import os
        buf = io.StringIO()
        old = os.environ.get("TRANSPYLE_DUMP")
        os.environ["TRANSPYLE_DUMP"] = after
        try:
            with contextlib.redirect_stderr(buf):
                generate(fun, after=after, **options)
        finally:
            if old is None:
                os.environ.pop("TRANSPYLE_DUMP", None)
            else:
                os.environ["TRANSPYLE_DUMP"] = old
        return buf.getvalue()
    fname, tree, ctx = generate(fun, **options)
    return pipeline.module_source(tree, ctx)
