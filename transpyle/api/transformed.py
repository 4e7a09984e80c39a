"""The transforms users call: grad, value_and_grad, vjp, jvp, linearize, jacfwd, jacrev, hessian,
vmap, jit, and show.

Each transform returns a callable (a ``Transformed``) that, per combination of argument kinds,
runs the pipeline once, loads the generated module through the cache and compiles it with the
backend; later calls with the same kinds go straight to the compiled function. A ``Transformed``
is also valid input to every transform: its generated code is read as source
(``generated_function``).
"""
import copy
import functools
import inspect

import numpy as np

from . import call_errors, pytrees as flat
from .. import pipeline
from ..backends import choose, compile_function, spelled_for
from ..backends import tiers
from ..backends.blas_threads import threads_blas, with_one_blas_thread
from ..backends.compile_time import compile_guarded
from ..backends.cache import load_module
from ..base.arrays import Array, as_array, plain
from ..base.errors import TranspileError
from ..frontend.source import FunctionSource, read_function
from ..base.kinds import equal_axes, kind_of_value


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


def _arguments(fun, signature, args, kwargs):
    """(the arguments passed, by parameter name in the order of the parameters; the parameters left to
    their defaults -> those defaults). Defaults are values of the function, as in Python: they are bound
    into its code like static arguments (``pipeline.specialize``), never passed in."""
    if signature is None:
        return dict(enumerate(args)), {}
    if not kwargs and len(args) == len(signature.parameters):
        return dict(zip(signature.parameters, args)), {}
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as exc:
        raise TranspileError(f"{getattr(fun, '__name__', fun)}: {exc}", hint="check the call's arguments") from None
    given, defaults = {}, {}
    for pname, param in signature.parameters.items():
        if pname in bound.arguments:
            given[pname] = bound.arguments[pname]
        elif param.default is not param.empty:
            defaults[pname] = param.default
    return given, defaults


def _signature(fun):
    try:
        return inspect.signature(fun)
    except (TypeError, ValueError):
        return None


_FAST_TYPES = (np.ndarray, Array, float, int, bool, np.float64, np.float32, np.int64, np.complex128, complex)


#: the most argument types and shapes a transform keeps a fast entry for (others take the slow path once)
FAST_ENTRIES = 256


def _fast_key(a):
    """A cheap stand-in for an argument's kind, used to find compiled code on later calls. An array's
    shape stands for which of its axes have the lengths of other arguments' axes, which compiled code is
    specialized on (``base.kinds.equal_axes``): the same shapes have the same equal axes; an integer
    stands for itself (whether it equals an axis length is specialized on too)."""
    t = type(a)
    if t is np.ndarray:
        return (a.dtype, a.shape)
    if t is Array:
        return (a.dtype, a.shape, Array)
    if t is int or t is np.int64:
        return (t, a)           # compiled code may be specialized on an integer equal to an axis length
    if t in _FAST_TYPES:
        return t
    raise TypeError


_NUMPY_SCALARS = {float: np.float64, int: np.int64, bool: np.bool_, complex: np.complex128}


def _numpy_scalars(out):
    """``out`` with Python numbers made NumPy scalars (as JAX returns arrays, every result has ``.shape``,
    ``.dtype`` and ``.item()``)."""
    to = _NUMPY_SCALARS.get(type(out))
    if to is not None:
        return to(out)
    return tuple(map(_numpy_scalars, out)) if type(out) is tuple else out


def _holds_scalars(out):
    """Whether ``out`` is a number or a tuple holding one (its kinds say so; whether the number is a
    Python or a NumPy one may depend on the values on the numpy backend)."""
    return np.isscalar(out) or type(out) is tuple and any(map(_holds_scalars, out))


def _returning(entry, args, out):
    """(``entry`` as later calls with arguments of these types use it, its result ``out`` as returned).
    ``Array`` arguments reach compiled code as plain arrays and array results come back as ``Array``; Python
    numbers come back as NumPy scalars. What to convert is decided once, from the first result: an entry
    that returns arrays for plain arrays is used as it is."""
    if any(type(a) is Array for a in args):
        compiled = entry

        def entry(*args):
            return as_array(compiled(*map(plain, args)))
        out = as_array(out)
    if _holds_scalars(out):
        returns_python = entry
        out = _numpy_scalars(out)
        if type(out) is tuple:
            def entry(*args):
                return _numpy_scalars(returns_python(*args))
        else:                # one number: its NumPy type, called directly (the cheapest conversion)
            scalar = type(out)

            def entry(*args):
                return scalar(returns_python(*args))
    return entry, out


def _ct_key(ct):
    if isinstance(ct, tuple):
        return tuple(_ct_key(c) for c in ct)
    return (ct.dtype, ct.ndim) if isinstance(ct, np.ndarray) else type(ct)


def _kinds(args, fun=None):
    """The kinds of ``args``; with ``fun``, an argument no transform takes is named by its parameter."""
    if fun is not None:
        return call_errors.kinds_of(fun, args)
    try:
        return tuple(kind_of_value(a) for a in args)
    except TypeError as exc:
        raise TranspileError(f"{exc}", hint="pass floats, ints, bools or NumPy arrays") from None


def _located_errors(call):
    """``call`` (a transform's ``__call__``) whose plain ValueError from compiled code (shapes that do
    not fit) is explained at the user's line, with the arguments' shapes (``call_errors``)."""
    @functools.wraps(call)
    def located(self, *args, **kwargs):
        try:
            return call(self, *args, **kwargs)
        except ValueError as exc:
            error = self._explained(exc, args, kwargs)
            if error is None:
                raise
            raise error from None
    return located


def _with_captured(compiled, nargs, getters):
    """``compiled`` called with the current values of the captured arrays after the arguments."""
    def call(*args):
        return compiled(*args[:nargs], *[g() for g in getters], *args[nargs:])
    return call


#: appended to a Numba module's text for its tiered run by Python: a module of its own (the compile
#: thread replaces the functions of the Numba one by dispatchers)
NUMPY_RUN = "\n# run by Python while Numba compiles it (tiers)\n"


def _lanes(backend):
    """How array-lifted code runs on ``backend`` (see ``pipeline.transform``)."""
    return "arrays" if backend == "numpy" else "loops"


class Transformed:
    """A function transformed by one transform; compiled lazily per argument kinds, and per which axes of
    the arguments have equal lengths (``base.kinds.equal_axes``) where ``specializes_lengths``."""

    specializes_lengths = True

    def __init__(self, fun, mode, argnums=0, has_aux=False, backend=None, holomorphic=False, strong_zeros=None):
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
        self.strong_zeros = strong_zeros     # None: TRANSPYLE_STRONG_ZEROS decides (rules/strong_zeros)
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
        self.boundscheck = None     # bounds checks on numba; None follows TRANSPYLE_BOUNDSCHECK
        self._locating = False      # a run on the numpy backend that explains an error (``_located``)
        functools.update_wrapper(self, fun, updated=())     # not fun.__dict__: a Transformed has state

    @staticmethod
    def derived(fun, mode, argnums=0, has_aux=False, backend=None, holomorphic=False):
        """Another transform (of ``fun``, or of this one): what code that holds a transform builds
        without naming the class."""
        return Transformed(fun, mode, argnums, has_aux, backend, holomorphic)

    def _inheriting(self, other):
        """``other`` (this transform of the flat function) with this one's compile options."""
        other.boundscheck = self.boundscheck
        other.strong_zeros = self.strong_zeros
        if "memory" in self.transform_options:
            other.transform_options["memory"] = self.transform_options["memory"]
        return other

    def _check_argnums(self, nargs):
        for n in self.argnums:
            if not -nargs <= n < nargs:
                raise TranspileError(
                    f"argnums {n} is out of range for '{getattr(self.fun, '__name__', self.fun)}', "
                    f"which takes {nargs} positional arguments", hint=f"use 0 to {nargs - 1}")

    def _entry(self, args, extra=(), static=None):
        """The compiled callable for ``args`` (the function's arguments); ``extra`` are trailing
        arguments the generated function adds (the cotangent of vjp), used for compiling only;
        ``static`` maps parameters specialized away (jit) to their values. float32 and float64 arguments
        mixed are promoted to float64, as NumPy computes them (not for jit, whose writes into its
        arguments must reach the caller's arrays)."""
        kinds = _kinds(args, self.fun)
        backend = self.backend_name
        lengths = equal_axes(args) if self.specializes_lengths else None
        key = (kinds, backend, tuple(_ct_key(e) for e in extra), flat.static_key(static), lengths)
        entry = self._compiled.get(key)
        given = tuple(args) + tuple(extra)
        wider = call_errors.promoted(given) if entry is None and self.mode != "primal" else given
        if any(a is not b for a, b in zip(wider, given)):
            compiled = self._entry(wider[:len(args)], wider[len(args):], static)

            def entry(*args):
                return compiled(*call_errors.promoted(args))
            self._compiled[key] = entry
        if entry is None and backend == "cuda" and self.mode in ("grad", "value_and_grad"):
            self._check_argnums(len(args))
            entry = self._compiled[key] = _reduced_on_gpu(self, kinds, len(args))
        if entry is None:
            if self.mode != "primal":
                self._check_argnums(len(args))
            fname, tree, ctx = self._transform(kinds, static, lengths=lengths)
            text = spelled_for(backend, pipeline.module_source(tree, ctx), self.boundscheck)
            # a run that explains an error has modules of its own (a numba module's helpers are dispatchers)
            module = load_module(text + ("\n# run by the numpy backend to explain an error\n" if self._locating
                                         else ""), fname)
            getters = [getter for _, getter, _ in ctx.captured.values()]
            captured = tuple(g() for g in getters)
            try:
                entry = self._compile(module, fname, args + captured + tuple(extra), ctx, kinds, static, lengths)
            except TranspileError as exc:
                raise call_errors.with_precisions(exc, self.fun, args) from None
            if getters:
                entry = _with_captured(entry, len(args), getters)
            self._compiled[key] = entry
        return entry

    def _compile(self, module, fname, args, ctx, kinds, static, lengths=None):
        """The backend's callable for ``module.fname``. On the numba backend the NumPy backend answers
        while Numba compiles (or loads from the disk cache) in a thread (``tiers``).
        A Numba compile in this thread that runs past ``TRANSPYLE_COMPILE_WARN`` seconds warns at the
        user's function; with ``backend="auto"`` the NumPy backend answers until it is done
        (``compile_time``)."""
        backend = self.backend_name
        if backend not in ("numba", "auto"):
            return compile_function(backend, module, fname, args, self.boundscheck)
        where = (getattr(self.fun, "__name__", fname), ctx.filename, ctx.source.tree.lineno)

        def numpy_stand_in():
            _, np_tree, np_ctx = self._transform(kinds, static, lanes=_lanes("numpy"), lengths=lengths)
            # its own module: the compile thread replaces the helpers of the numba one by dispatchers
            text = pipeline.module_source(np_tree, np_ctx) + "\n# run by the numpy backend while Numba compiles\n"
            return compile_function("numpy", load_module(text, fname), fname, args)

        def numba_compile():
            compiled = compile_function("numba", module, fname, args, self.boundscheck)
            return with_one_blas_thread(compiled) if threads_blas(module.__transpyle_text__) else compiled
        if backend == "numba" and tiers.tiered():
            def first_call():
                # the text Numba compiles, run by Python: no second pipeline run (half a first call's time);
                # with its elementwise statements as NumPy expressions, as they were before element_loops
                text = module.__transpyle_text__ if ctx.array_form is None else \
                    spelled_for(backend, pipeline.module_source(ctx.array_form, ctx), self.boundscheck)
                text, stoppable = tiers.with_loop_checks(text + NUMPY_RUN)
                return load_module(text, fname), fname, stoppable
            what = f"{'jit' if self.mode == 'primal' else self.mode} of '{where[0]}' ({where[1]}:{where[2]})"
            return tiers.Tiered(numba_compile, first_call, what, where[1:], writes_arguments=self.mode == "primal")
        return compile_guarded(numba_compile, where, fallback=numpy_stand_in if backend == "auto" else None)

    def _transform(self, kinds, static=None, lanes="backend", lengths=None):
        """Run the pipeline for these argument kinds with this transform's settings; ``lanes`` (see
        ``pipeline.transform``) follows the backend unless given; ``lengths``: the equal axes of the
        arguments (``base.kinds.equal_axes``) the code may be specialized for."""
        argnums = tuple(n % len(kinds) for n in self.argnums) if kinds else ()
        lanes = _lanes(self.backend_name) if lanes == "backend" else lanes
        return pipeline.transform(self.fun, self.mode, argnums, kinds, self.has_aux, self.tuple_argnums,
                                  holomorphic=self.holomorphic, static=static, lanes=lanes, lengths=lengths,
                                  strong_zeros=self.strong_zeros, **self.transform_options)

    def generated_function(self, kinds):
        """The generated Python function for argument ``kinds``: what a transform of this
        transform reads as its source (generated code stays inside the accepted subset)."""
        if self.mode == "jvp":        # called as f_jvp(*primals, *tangents): the primals set the kinds
            kinds = kinds[:len(self.argnums)]
        return pipeline.loaded(self.fun, *self._transform(kinds, lanes=None))  # no array lifting: inside the subset

    def _explained(self, exc, args, kwargs):
        """The CallError explaining ``exc`` (raised by this call), or None to raise ``exc`` as it is:
        only a plain ValueError of compiled code is explained (LinAlgError and the others stay)."""
        if type(exc) is not ValueError or self._locating:
            return None
        return self._located(exc, args, kwargs)

    def _located(self, exc, args, kwargs):
        """The error ``exc`` of compiled code explained: the same call run on the numpy backend, on
        copies of the arguments, names the shapes and, through the generated line, the user's line."""
        twin = copy.copy(self)
        twin.backend = twin.backend_name = "numpy"
        twin._locating = True
        twin._compiled, twin._fast, twin._flat = {}, {}, {}
        return call_errors.located(exc, self.fun, lambda *a: twin(*a, **kwargs), args)

    def __call__(self, *args, **kwargs):
        # fast path: positional arrays and numbers whose types were seen before (a try costs nothing
        # until an error is raised: a shape that does not fit is explained then, see ``_explained``)
        if not kwargs:
            try:
                entry = self._fast[tuple(map(_fast_key, args))]
            except (KeyError, TypeError):
                pass
            else:
                try:
                    return entry(*args)
                except ValueError as exc:
                    error = self._explained(exc, args, kwargs)
                    if error is None:
                        raise
                    raise error from None
        return self._called(*args, **kwargs)

    @_located_errors
    def _called(self, *args, **kwargs):
        """A call not on the fast path: arguments bound, compiled for their kinds where new."""
        given, defaults = _arguments(self.fun, self.signature, args, kwargs)
        args = tuple(given.values())
        if flat.needs_flattening(self.fun, args):
            return self._call_flat(args, defaults)
        entry, out = self._run(self._entry(tuple(map(plain, args)), static=defaults), args)
        # without keywords, the number of arguments says which parameters keep their defaults
        if not kwargs and all(type(a) in _FAST_TYPES for a in args):
            if len(self._fast) >= FAST_ENTRIES:
                self._fast.clear()
            self._fast[tuple(map(_fast_key, args))] = entry
        return out

    @staticmethod
    def _run(entry, args):
        """(the entry for later calls with arguments of these types, the result of this call: see
        ``_returning``)."""
        return _returning(entry, args, entry(*map(plain, args)))


    # -- pytree arguments ------------------------------------------------------------------------
    def _call_flat(self, args, static=None):
        """``self(*args)`` for pytree arguments: the flat transform on the leaves, results rebuilt."""
        leaves, treedefs = flat.flatten_args(args)
        key = (treedefs, flat.static_key(static))
        if key not in self._flat:
            self._flat[key] = self._flatten(treedefs, static)[:2]
        flat_transform, out_tree = self._flat[key]
        return flat.rebuild(out_tree, flat_transform(*leaves))

    def _flatten(self, treedefs, static=None):
        """(this transform of the function with pytree arguments flattened into leaves, the structure
        of its result, and how the flat transform lays that result out: see ``flat.layout_of``)."""
        if isinstance(self.fun, Transformed):
            source, fun_out, fun_layout = self.fun._flatten(treedefs, static)
            if not flat.is_flat(fun_layout) and self.mode not in ("primal", "vmap"):
                raise TranspileError(f"{self.mode} of {self.fun.mode} of a function of pytrees is not supported",
                                     hint="apply the transforms to a function of arrays")
        else:
            source, fun_out = flat.flat_source(self.fun, treedefs, self.has_aux, static)
            fun_out, fun_layout = flat.function_result(fun_out, self.has_aux)
        return self._flat_transform(source, treedefs, fun_out, fun_layout)

    def _flat_transform(self, source, treedefs, fun_out, fun_layout):
        if self.mode == "primal":
            return self._inheriting(Transformed(source, "primal", backend=self.backend)), fun_out, fun_layout
        argnums = [n % len(treedefs) for n in self.argnums]
        positions = flat.leaf_positions(treedefs)
        flat_argnums = tuple(p for a in argnums for p in positions[a])
        if not flat_argnums:
            raise TranspileError(f"{self.mode}: the differentiated arguments hold no arrays or numbers",
                                 hint="check argnums")
        # a tuple of leaf positions: the flat transform returns one derivative per leaf, as a tuple
        transform = self._inheriting(Transformed(source, self.mode, flat_argnums, self.has_aux, self.backend,
                                                 self.holomorphic))
        grad_tree = flat.wrt_tree(treedefs, argnums, self.tuple_argnums)
        out_tree, layout = flat.derivative_result(self.mode, fun_out, grad_tree, self.has_aux)
        return transform, out_tree, layout


def _kernel(built, nargs, **options):
    """The launcher of a kernel module ``built`` by ``gpu.build`` for ``nargs`` arguments, passing the
    module-level arrays the code reads after them."""
    from ..backends.cuda_backend import compile_kernel_module
    fname, text, spec, ctx = built
    launch = compile_kernel_module(load_module(text, fname), spec, **options)
    getters = [getter for _, getter, _ in ctx.captured.values()]
    return _with_captured(launch, nargs, getters) if getters else launch


def _reduced_on_gpu(transformed, kinds, nargs):
    """grad of a sum or mean over a vmapped function, as one CUDA kernel (transpyle/api/gpu.py, docs/cuda.md)."""
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
