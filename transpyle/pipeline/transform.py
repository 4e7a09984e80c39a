"""The pipeline's entry: ``transform`` checks a request, runs the frontend passes and then the passes
its mode declares (``modes``), and returns the generated function. ``specialize`` binds static
arguments; ``prepare`` is the frontend of a callee being inlined."""
import copy
import dataclasses
import inspect
import sys

import gast
import numpy as np

from ..analysis import activity
from ..base.ast_utils import all_names, assign, const, stored_names
from ..base.context import Context
from ..base.errors import TranspileError
from ..base.kinds import Kind
from ..backends.cache import load_module
from ..frontend import jumps, normalize, resolve
from ..frontend.source import FunctionSource, read_function
from ..rules.primitives import holds_tapes
from ..transforms import batch
from . import passes
from .drivers import cotangent_kind
from .modes import MODES, STRATEGIES, back_end, check_after
from .module import module_source


def prepare(tree, unit, ctx):
    """resolve, jumps and normalize one function (the user's or a callee being inlined)."""
    saved = ctx.source
    if unit is not None:
        ctx.source = unit
    # the callee's own names must not be handed out as fresh temporaries while it is normalized
    # (generated code, inlined into a transform of a transform, is full of `_t3`-style names)
    ctx.namer.reserve(all_names(tree))
    try:
        resolve.run(tree, ctx, unit)
        jumps.run(tree, ctx, callee=True)
        normalize.run(tree, ctx)
    finally:
        ctx.source = saved
    return tree


def transform(func, mode="grad", argnums=(0,), arg_kinds=(), has_aux=False, tuple_argnums=False, after=None,
              holomorphic=False, in_axes=0, out_axes=0, static=None, strategy="loop", lanes="loops",
              forward_mode=False, label=None, lengths=None, strong_zeros=None, memory=None):
    """Run the pipeline on ``func``; returns (function name, gast FunctionDef, Context). ``strategy``: how
    vmap is compiled (``STRATEGIES``); ``lanes``: how array-lifted code runs statements on batched numbers,
    ``"loops"`` (loops over the lanes, for Numba) or ``"arrays"`` (one NumPy operation each), ``"threads"``
    for the per-example code of CUDA kernels (one operation a statement: not fused), or None
    where the result is read by another transform (no array lifting: jacrev by rows); ``forward_mode``: grad and value_and_grad by forward mode, one jvp
    sweep per differentiated input (no tape); ``label``: the transform as the module's header names it
    (``hessian`` for jacfwd over jacrev; by default the modes of the transforms stacked); ``lengths``: which
    axes of the arguments have equal lengths in the calls the code serves (``base.kinds.equal_axes``), or
    None for code that serves any shapes; ``strong_zeros``: whether a zero cotangent or tangent contributes
    zero where a rule's derivative is infinite (``rules/strong_zeros``; None: the environment's setting);
    ``memory``: reverse mode's memory budget in bytes (``transforms/checkpoint_loops``; None: the
    environment's ``TRANSPYLE_MEMORY``, unset: no budget)."""
    if mode not in MODES:
        raise TranspileError(f"unknown mode '{mode}'", hint="one of: " + ", ".join(MODES))
    full_kinds = tuple(arg_kinds)
    if mode == "vmap":                  # the function is transformed for one example
        in_axes = batch.normalize_in_axes(in_axes, full_kinds, getattr(func, "__name__", "f"))
        arg_kinds = batch.example_kinds(full_kinds, in_axes)
    label, origin = _described(func, mode, label)
    generated = hasattr(func, "generated_function")
    if generated:
        # a transformed function: its generated code is the input (it is inside the subset)
        func = func.generated_function(arg_kinds)
    # a function of a generated module (a jvp lifted over directions) is generated code as well
    generated = generated or hasattr(sys.modules.get(getattr(func, "__module__", None)), "__transpyle_text__")
    unit = func if isinstance(func, FunctionSource) else read_function(func)
    static = _with_defaults(unit, dict(static or {}), len(arg_kinds))
    if static or unit.tree.args.defaults or unit.tree.args.kwonlyargs:
        unit = specialize(unit, static)
    ctx = Context(source=unit, mode=mode, options={"tuple_argnums": tuple_argnums, "holomorphic": holomorphic,
                                                   "generated": generated, "label": label, "origin": origin,
                                                   "strong_zeros": strong_zeros, "memory": memory})
    ctx.derivative = _derivative(mode, generated)
    ctx.transform_call = TransformCall
    tree = copy.deepcopy(unit.tree)
    ctx.namer.reserve(all_names(tree) | {"np", "math", "rt", "_value", "_ct", "_retval"})
    params = [a.id for a in tree.args.args]
    if len(arg_kinds) != len(params):
        raise TranspileError(f"'{unit.name}' takes {len(params)} arguments, {len(arg_kinds)} given",
                             filename=unit.filename, lineno=tree.lineno, construct=f"def {unit.name}")
    ctx.arg_kinds = dict(zip(params, arg_kinds))
    if lengths is not None and mode != "vmap":      # a vmap's kinds are those of one example
        ctx.arg_lengths = {p: tuple((params[i], k) for i, k in axes)
                           for p, axes in zip(params, lengths) if axes is not None}
    if mode != "primal" and jumps.returns_nothing(tree):
        raise jumps.returns_nothing_error(tree, ctx)
    ctx.wrt = tuple(params[i] for i in argnums) if mode not in ("primal", "vmap") else ()
    for w in ctx.wrt:
        k = ctx.arg_kinds[w]
        if holomorphic and mode != "primal" and not (isinstance(k, Kind) and k.is_complex):
            raise TranspileError(f"holomorphic=True needs complex arguments, but '{w}' is {k}",
                                 filename=unit.filename, lineno=tree.lineno, construct=f"def {unit.name}",
                                 hint="pass complex values (x + 0j), or drop holomorphic=True")
        if not (isinstance(k, Kind) and k.is_float):
            raise TranspileError(f"cannot differentiate with respect to '{w}' of type {k}",
                                 filename=unit.filename, lineno=tree.lineno, construct=f"def {unit.name}",
                                 hint="only float arguments (scalars or arrays) can be differentiated; "
                                      "pass e.g. 1.0 instead of 1, or change argnums")

    job = passes.Job(mode, has_aux=has_aux, tuple_argnums=tuple_argnums, after=after, lanes=lanes,
                     full_kinds=full_kinds, in_axes=in_axes, out_axes=out_axes, sweep=mode,
                     prepare=lambda tr, u: prepare(tr, u, ctx), transform=transform)
    check_after(after)
    tree = passes.run(tree, ctx, job, passes.FRONTEND)
    ret = tree.body[-1]
    if mode in ("grad", "value_and_grad"):
        _check_scalar_output(ctx, tree, ret, has_aux)
    if mode == "vmap" and strategy not in STRATEGIES:
        raise TranspileError(f"unknown vmap strategy '{strategy}'", hint="one of: " + ", ".join(STRATEGIES))
    outputs = activity.output_names(ret)
    job.outputs = outputs[:1] if has_aux else outputs
    # gradient code inlined from a call to grad(g) in the body holds tapes, which have no adjoint: as for
    # a transform of generated code, the derivative is taken in forward mode over it
    by_forward = (generated or forward_mode or holds_tapes(tree)) and mode in ("grad", "value_and_grad", "jacrev")
    if by_forward:
        # derivatives of generated reverse code are taken in forward mode over it (one sweep per input
        # direction): the same numbers, without differentiating tapes backwards
        job.jacobian, job.with_value, job.lanes = "jacfwd", mode == "value_and_grad", None
    elif mode in ("jacfwd", "jacrev"):
        job.jacobian, job.parallel = mode, lanes is not None
    elif mode in ("grad", "value_and_grad", "vjp", "jvp"):
        job.ct_kind = cotangent_kind(ret, ctx, has_aux)
    tree = passes.run(tree, ctx, job, back_end(mode, strategy, by_forward))
    passes.report_timings(ctx)
    return tree.name, tree, ctx


def _described(func, mode, label):
    """(the transform's name for the header, the user's function's name): ``jacfwd`` of a jacrev
    ``Transformed`` is the ``hessian`` of the function inside it."""
    modes, origin = [mode], func
    while hasattr(origin, "generated_function") and hasattr(origin, "fun"):
        modes.append(origin.mode)
        origin = origin.fun
    if label is None:
        label = "hessian" if modes == ["jacfwd", "jacrev"] else " of ".join(modes)
    name = origin.name if isinstance(origin, FunctionSource) else getattr(origin, "__name__", None)
    return label, name


def _derivative(mode, generated):
    """The sweep calls to functions with custom rules are differentiated in (see ``Context``)."""
    if mode in ("jvp", "jacfwd") or generated and mode in ("grad", "value_and_grad", "jacrev"):
        return "forward"
    return "reverse" if mode in ("grad", "value_and_grad", "vjp", "jacrev") else ""


def specialize(unit, static):
    """``unit`` with its static parameters bound to their values: they leave the signature and are
    read like module constants (folded into the code), or, where the body reassigns them, set at
    the top of the body."""
    tree = copy.deepcopy(unit.tree)
    body_stores = stored_names(tree.body)
    # keyword-only parameters are passed by position like the others
    tree.args.args = [a for a in tree.args.args + tree.args.kwonlyargs if a.id not in static]
    tree.args.kwonlyargs, tree.args.kw_defaults = [], []
    tree.args.defaults = []           # every argument is passed explicitly
    overlay = {}
    for pname, value in static.items():
        if pname in body_stores:
            if isinstance(value, np.ndarray):        # a default array the body rebinds: read under a name of its own
                held = _unused_name(f"{pname}_default", tree, unit.namespace)
                overlay[held] = value
                tree.body.insert(0, gast.copy_location(assign(pname, gast.Name(id=held, ctx=gast.Load(),
                                                                            annotation=None, type_comment=None)), tree))
                continue
            if not isinstance(value, (bool, int, float, complex, str, type(None))):
                raise TranspileError(f"the static argument '{pname}' is reassigned in the body; only numbers "
                                     "can be", filename=unit.filename, lineno=tree.lineno,
                                     hint="use a new name for the new value")
            tree.body.insert(0, gast.copy_location(assign(pname, const(value)), tree))
        else:
            overlay[pname] = value
    return dataclasses.replace(unit.bind(overlay), tree=tree)


def _unused_name(base, tree, namespace):
    taken = all_names(tree) | set(namespace)
    candidate, n = base, 1
    while candidate in taken:
        candidate, n = f"{base}{n}", n + 1
    return candidate


def _with_defaults(unit, static, given):
    """``static`` and the parameters after the ``given`` ones bound to their defaults (a call in
    transformed code that leaves them out: ``grad(loss)(w)`` of ``loss(w, lam=0.1)``)."""
    names = [a.id for a in unit.tree.args.args + unit.tree.args.kwonlyargs if a.id not in static]
    missing = names[given:]
    if not missing:
        return static
    try:
        parameters = inspect.signature(unit.func).parameters
    except (TypeError, ValueError):
        return static
    defaults = {p: parameters[p].default for p in missing if p in parameters}
    if len(defaults) < len(missing) or any(v is inspect.Parameter.empty for v in defaults.values()):
        return static               # the check of the number of arguments says what is missing
    return {**static, **defaults}


def _check_scalar_output(ctx, tree, ret, has_aux):
    value = ret.value
    if has_aux:
        if not (isinstance(value, gast.Tuple) and len(value.elts) == 2):
            raise ctx.error(ret, "with has_aux=True the function must return a pair (output, aux)",
                            hint="return value, aux")
        value = value.elts[0]
    kind = ctx.expr_kind(value)
    if isinstance(kind, Kind) and kind.is_complex and not ctx.options.get("holomorphic"):
        raise ctx.error(ret, f"grad of a complex output needs holomorphic=True ('{ctx.source.name}' returns {kind})",
                        hint="use grad(f, holomorphic=True) for holomorphic f, or return a real value "
                             "(np.real, abs) to get df/dx - i df/dy")
    if not (isinstance(kind, Kind) and kind.ndim == 0 and kind.is_float) and \
            not (isinstance(kind, Kind) and kind.ndim == 0 and isinstance(value, gast.Constant)):
        raise ctx.error(ret, f"grad requires a real scalar output, but '{ctx.source.name}' returns {kind}",
                        hint="reduce the output to a scalar (e.g. np.sum), or use vjp for non-scalar outputs")




def generated_function(fun, mode, argnums, kinds, **options):
    """The generated Python function of ``mode`` of ``fun`` for argument ``kinds``, as a plain NumPy
    module holds it: what a transform of this transform reads as its source (no array lifting: the
    generated code stays inside the accepted subset)."""
    if mode == "jvp":        # called as f_jvp(*primals, *tangents): the primals set the kinds
        kinds = kinds[:len(argnums)]
    argnums = tuple(n % len(kinds) for n in argnums) if kinds else ()
    return loaded(fun, *transform(fun, mode, argnums, kinds, lanes=None, **options))


def loaded(fun, fname, tree, ctx):
    """The generated function ``fname`` (``tree``, of a transform of ``fun``) from its NumPy module. The
    module-level arrays the code reads (``ctx.captured``) stay free names of the function, bound to those
    arrays: the transform that reads it captures them in turn (reads them afresh at each of its calls)."""
    if not ctx.captured:
        return getattr(load_module(module_source(tree, ctx), fname), fname)
    captured = {param: (key, getter, value) for key, (param, getter, value) in ctx.captured.items()}
    tree = copy.copy(tree)
    tree.args = copy.copy(tree.args)
    tree.args.args = [a for a in tree.args.args if a.id not in captured]
    unit = read_function(getattr(load_module(module_source(tree, ctx), fname), fname))
    return dataclasses.replace(unit, namespace={**unit.namespace, **{p: v for p, (_, _, v) in captured.items()}},
                               bound={**unit.bound, **{p: (k, g) for p, (k, g, _) in captured.items()}})


class TransformCall:
    """A transform named in transformed code (``jvp(f, primals, tangents)`` in the body): generated
    for the kinds at the call, once ``infer`` knows them, and inlined (``Context.transform_call``)."""

    def __init__(self, fun, mode, argnums, **options):
        self.fun, self.mode, self.argnums, self.options = fun, mode, tuple(argnums), options
        self.__name__ = getattr(fun, "__name__", "transformed")

    def generated_function(self, kinds):
        return generated_function(self.fun, self.mode, self.argnums, kinds, tuple_argnums=True, **self.options)
