"""The pipeline: the list of passes a transform runs, in order, and the generated module.

``TRANSPYLE_DUMP=normalize,reverse`` (or ``all``) prints the function after those passes
to stderr; ``transpyle show --after PASS`` does the same for one function.
"""
import copy
import dataclasses
import os
import sys

import gast

from . import __version__
from .ast_utils import all_names, assign, comment, const, stored_names, to_source
from .context import Context, NeedKinds
from .errors import TranspileError
from .kinds import Kind, TupleKind, kind_of_value
from .passes import (activity, aliases, batch, custom_rules, forward, infer, inline, jacobian, jumps, lift, lower_calls,
                     lower_indexing, normalize, rename, resolve, reverse)
from .primitives import holds_tapes
from .source import FunctionSource, read_function

#: (name, what it does) in the order they run
PASSES = [
    ("resolve", "names -> numpy/math primitives, user functions, constants"),
    ("jumps", "early return/break/continue -> flags and guarded blocks"),
    ("normalize", "A-normal form: one primitive per statement, loops over range"),
    ("inline", "calls to user functions -> the callee's body"),
    ("rename", "a name assigned again in straight-line code -> a new name from there on"),
    ("infer", "the kind (dtype, rank) of every variable"),
    ("lower_indexing", "x[index arrays or masks] -> gathers of basic views; writes through them -> loops of writes"),
    ("in_place", "a op= b on arrays -> writes into their buffer (a[:] = a op b); on numbers it rebinds"),
    ("lower_calls", "NumPy calls Numba lacks -> run-time helpers; matrix functions of stacks -> loops"),
    ("activity", "which variables carry derivatives"),
    ("reverse", "primal sweep with tapes + adjoint sweep (grad, value_and_grad, vjp)"),
    ("forward", "primal and tangent statements side by side (jvp)"),
    ("custom_rules", "markers of custom derivative rules -> plain values; bwd rules inlined"),
    ("lift", "vmap by array lifting: batched values, rules per primitive, masks for control flow"),
]

MODES = ("primal", "grad", "value_and_grad", "vjp", "jvp", "jacfwd", "jacrev", "vmap")
#: how vmap is compiled: a parallel loop over the per-example function, or batched array code
STRATEGIES = ("loop", "array")


def _dump(stage, tree, after):
    wanted = os.environ.get("TRANSPYLE_DUMP", "")
    if stage == after or wanted == "all" or stage in wanted.split(","):
        sys.stderr.write(f"# ---- after {stage} ----\n{to_source(tree)}\n")


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
              forward_mode=False):
    """Run the pipeline on ``func``; returns (function name, gast FunctionDef, Context). ``strategy``: how
    vmap is compiled (``STRATEGIES``); ``lanes``: how array-lifted code runs statements on batched numbers,
    ``"loops"`` (loops over the lanes, for Numba) or ``"arrays"`` (one NumPy operation each), or None
    where the result is read by another transform (no array lifting: jacrev by rows); ``forward_mode``: grad and value_and_grad by forward mode, one jvp
    sweep per differentiated input (no tape)."""
    if mode not in MODES:
        raise TranspileError(f"unknown mode '{mode}'", hint="one of: " + ", ".join(MODES))
    full_kinds = tuple(arg_kinds)
    if mode == "vmap":                  # the function is transformed for one example
        in_axes = batch.normalize_in_axes(in_axes, full_kinds, getattr(func, "__name__", "f"))
        arg_kinds = batch.example_kinds(full_kinds, in_axes)
    generated = hasattr(func, "generated_function")
    if generated:
        # a transformed function: its generated code is the input (it is inside the subset)
        func = func.generated_function(arg_kinds)
    # a function of a generated module (a jvp lifted over directions) is generated code as well
    generated = generated or hasattr(sys.modules.get(getattr(func, "__module__", None)), "__transpyle_text__")
    unit = func if isinstance(func, FunctionSource) else read_function(func)
    static = static or {}
    if static:
        unit = specialize(unit, static)
    ctx = Context(source=unit, mode=mode, options={"tuple_argnums": tuple_argnums, "holomorphic": holomorphic,
                                                   "generated": generated})
    ctx.derivative = _derivative(mode, generated)
    tree = copy.deepcopy(unit.tree)
    ctx.namer.reserve(all_names(tree) | {"np", "math", "rt", "_value", "_ct", "_retval"})
    params = [a.id for a in tree.args.args]
    if len(arg_kinds) != len(params):
        raise TranspileError(f"'{unit.name}' takes {len(params)} arguments, {len(arg_kinds)} given",
                             filename=unit.filename, lineno=tree.lineno, construct=f"def {unit.name}")
    ctx.arg_kinds = dict(zip(params, arg_kinds))
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

    def stage(name, fn):
        nonlocal tree
        ctx.stage = name
        try:
            tree = fn(tree)
        except TranspileError as exc:
            exc.stage = exc.stage or name
            raise
        _dump(name, tree, after)

    stage("resolve", lambda t: resolve.run(t, ctx))
    stage("jumps", lambda t: jumps.run(t, ctx))
    stage("normalize", lambda t: normalize.run(t, ctx))
    stage("inline", lambda t: inline.run(t, ctx, lambda tr, u: prepare(tr, u, ctx)))
    stage("rename", lambda t: rename.run(t, ctx))
    _add_captured_parameters(tree, ctx)
    while True:
        try:
            stage("infer", lambda t: infer.run(t, ctx))
            break
        except NeedKinds as need:       # a call to a transformed function: generate it, inline, infer again
            deferred = ctx.functions[need.key]
            ctx.functions[need.key] = read_function(deferred.transformed.generated_function(need.kinds))
            stage("inline", lambda t: inline.run(t, ctx, lambda tr, u: prepare(tr, u, ctx)))
            stage("rename", lambda t: rename.run(t, ctx))
    stage("lower_indexing", lambda t: lower_indexing.run(t, ctx))
    stage("in_place", lambda t: aliases.lower_in_place(t, ctx))
    stage("lower_calls", lambda t: lower_calls.run(t, ctx))
    ret = tree.body[-1]
    outputs = activity.output_names(ret)
    if mode in ("grad", "value_and_grad"):
        _check_scalar_output(ctx, tree, ret, has_aux)
    if mode == "primal":
        tree.name = f"{unit.name}_primal"
        return tree.name, tree, ctx
    if mode == "vmap":
        if strategy not in STRATEGIES:
            raise TranspileError(f"unknown vmap strategy '{strategy}'", hint="one of: " + ", ".join(STRATEGIES))
        if strategy == "array":
            stage("lift", lambda t: _lift(t, ctx, full_kinds, in_axes, out_axes, lanes != "arrays"))
            return tree.name, tree, ctx
        return _vmap(tree, ctx, full_kinds, in_axes, out_axes)
    diff_outputs = outputs[:1] if has_aux else outputs
    # gradient code inlined from a call to grad(g) in the body holds tapes, which have no adjoint: as for
    # a transform of generated code, the derivative is taken in forward mode over it
    forward_mode = forward_mode or holds_tapes(tree)
    if (generated or forward_mode) and mode in ("grad", "value_and_grad", "jacrev"):
        # derivatives of generated reverse code are taken in forward mode over it (one sweep per input
        # direction): the same numbers, without differentiating tapes backwards
        return _jacobian(tree, ctx, "jacfwd", has_aux, tuple_argnums, diff_outputs,
                         with_value=mode == "value_and_grad")
    if mode in ("jacfwd", "jacrev"):
        return _jacobian(tree, ctx, mode, has_aux, tuple_argnums, diff_outputs, lanes=lanes, parallel=lanes is not None)
    stage("activity", lambda t: activity.run(t, ctx, diff_outputs))
    ct_kind = _cotangent_kind(ret, ctx, has_aux)
    if mode == "jvp":
        stage("forward", lambda t: forward.run(t, ctx, has_aux=has_aux))
    else:
        stage("reverse", lambda t: reverse.run(t, ctx, mode=mode, has_aux=has_aux))
    stage("custom_rules", lambda t: _settle_custom_rules(t, ctx, ct_kind))
    return tree.name, tree, ctx


def _derivative(mode, generated):
    """The sweep calls to functions with custom rules are differentiated in (see ``Context``)."""
    if mode in ("jvp", "jacfwd") or generated and mode in ("grad", "value_and_grad", "jacrev"):
        return "forward"
    return "reverse" if mode in ("grad", "value_and_grad", "vjp", "jacrev") else ""


def _cotangent_kind(ret, ctx, has_aux):
    """The kind of the cotangent ``_ct`` of a vjp function (the output's, a tuple for a tuple output)."""
    tuple_out, kinds = _output_kinds(ret, ctx, has_aux)
    return TupleKind(tuple(kinds)) if tuple_out else kinds[0]


def _settle_custom_rules(tree, ctx, ct_kind):
    """After a transform: the markers of custom rules become plain values, and the bwd rules the
    adjoint sweep calls are inlined (the generated code is inside the subset, so inline, infer
    and lower_calls accept it; ``ct_kind`` is the kind of the cotangent parameter ``_ct``)."""
    if custom_rules.run(tree, ctx):
        saved = ctx.arg_kinds
        ctx.arg_kinds = {**saved, "_ct": ct_kind}
        try:
            inline.run(tree, ctx, lambda tr, u: prepare(tr, u, ctx))
            infer.run(tree, ctx)
            lower_indexing.run(tree, ctx)
            aliases.lower_in_place(tree, ctx)
            lower_calls.run(tree, ctx)
        finally:
            ctx.arg_kinds = saved
    return tree


def specialize(unit, static):
    """``unit`` with its static parameters bound to their values: they leave the signature and are
    read like module constants (folded into the code), or, where the body reassigns them, set at
    the top of the body."""
    tree = copy.deepcopy(unit.tree)
    body_stores = stored_names(tree.body)
    tree.args.args = [a for a in tree.args.args if a.id not in static]
    tree.args.defaults = []           # every argument is passed explicitly
    overlay = {}
    for pname, value in static.items():
        if pname in body_stores:
            if not isinstance(value, (bool, int, float, complex, str, type(None))):
                raise TranspileError(f"the static argument '{pname}' is reassigned in the body; only numbers "
                                     "can be", filename=unit.filename, lineno=tree.lineno,
                                     hint="use a new name for the new value")
            tree.body.insert(0, gast.copy_location(assign(pname, const(value)), tree))
        else:
            overlay[pname] = value
    return dataclasses.replace(unit, tree=tree, namespace={**unit.namespace, **overlay})


def _output_kinds(ret, ctx, has_aux):
    """(whether the differentiated output is a tuple, the kind of each of its elements)."""
    value = ret.value.elts[0] if has_aux else ret.value
    tuple_out = isinstance(value, gast.Tuple)
    return tuple_out, [ctx.expr_kind(e) for e in (value.elts if tuple_out else [value])]


def _jacobian(tree, ctx, mode, has_aux, tuple_argnums, diff_outputs, with_value=False, lanes=None, parallel=True):
    """The jacfwd/jacrev driver for ``tree``, with the jvp (or primal and vjp) functions it calls
    as helpers in the same module; ``parallel=False`` for code another transform reads (one loop over
    the directions, not a parallel and a serial copy)."""
    ret = tree.body[-1]
    tuple_out, out_kinds = _output_kinds(ret, ctx, has_aux)
    for k in out_kinds:
        if not (isinstance(k, Kind) and k.is_float):
            raise ctx.error(ret, f"{mode} needs float outputs (scalars or arrays), but one is {k}",
                            hint="return float values, or use has_aux=True for the others")
        if k.is_complex and not ctx.options.get("holomorphic"):
            raise ctx.error(ret, f"{mode} of a complex output needs holomorphic=True", hint="pass holomorphic=True")
    if mode == "jacfwd" and not ctx.options.get("holomorphic") and \
            any(ctx.arg_kinds[w].is_complex for w in ctx.wrt):
        raise ctx.error(ret, "jacfwd of complex arguments needs holomorphic=True",
                        hint="pass holomorphic=True, or use jacrev for a real function of complex arguments")
    complex_result = any(k.is_complex for k in out_kinds) or any(ctx.arg_kinds[w].is_complex for w in ctx.wrt)
    params = [a.id for a in tree.args.args]
    name = ctx.source.name
    # vector mode (one lifted call carrying every direction) where it applies, else one call per direction
    vector = not (tuple_out or has_aux or complex_result or ctx.captured or lanes is None)
    lifted = None
    if mode == "jacfwd":
        fwd = copy.deepcopy(tree)
        activity.run(fwd, ctx, diff_outputs)
        forward.run(fwd, ctx, has_aux=has_aux)
        _settle_custom_rules(fwd, ctx, None)
        ctx.helpers = [fwd]
        scalars = all(ctx.arg_kinds[w].ndim == 0 for w in ctx.wrt) and all(k.ndim == 0 for k in out_kinds)
        lifted = _vector_jvp(fwd, ctx, lanes) if vector and not scalars else None
        driver_name = f"{name}_{'grad' if with_value else mode}"
        if lifted is not None:
            ctx.helpers = [lifted]
            driver = jacobian.vector_jacfwd_driver(ctx.namer, driver_name, params, ctx.wrt, ctx.arg_kinds,
                                                   out_kinds[0], tuple_argnums, lifted.name, with_value=with_value)
        else:
            driver = jacobian.jacfwd_driver(ctx.namer, driver_name, params, ctx.wrt, ctx.arg_kinds, out_kinds,
                                            tuple_out, has_aux, tuple_argnums, fwd.name, with_value=with_value,
                                            complex_result=complex_result, parallel=parallel)
    else:
        primal = copy.deepcopy(tree)
        primal.name = f"{name}_primal"
        rev = copy.deepcopy(tree)
        activity.run(rev, ctx, diff_outputs)
        reverse.run(rev, ctx, mode="vjp", has_aux=has_aux)
        _settle_custom_rules(primal, ctx, None)
        _settle_custom_rules(rev, ctx, _cotangent_kind(ret, ctx, has_aux))
        ctx.helpers = [primal, rev]
        # a scalar output has one direction: the vjp itself, with no lanes to carry
        lifted = _vector_vjp(rev, ctx, out_kinds[0], lanes) if vector and out_kinds[0].ndim else None
        if lifted is not None:
            ctx.helpers = [primal, lifted]
            driver = jacobian.vector_jacrev_driver(ctx.namer, f"{name}_jacrev", params, ctx.wrt, ctx.arg_kinds,
                                                   out_kinds[0], tuple_argnums, primal.name, lifted.name,
                                                   threads=lanes == "loops")
        else:
            driver = jacobian.jacrev_driver(ctx.namer, f"{name}_jacrev", params, ctx.wrt, ctx.arg_kinds, out_kinds,
                                            tuple_out, has_aux, tuple_argnums, primal.name, rev.name,
                                            complex_result=complex_result, parallel=parallel)
    how = {("jacfwd", False): "one jvp per input element",
           ("jacfwd", True): "one jvp carrying all input directions at once",
           ("jacrev", False): "one vjp per output element",
           ("jacrev", True): "one vjp carrying all output directions at once"}[mode, lifted is not None]
    driver.body.insert(0, comment(f"transpyle: {mode} of {name} with respect to {', '.join(ctx.wrt)}: {how}"))
    return driver.name, driver, ctx


def _vmap(tree, ctx, full_kinds, in_axes, out_axes):
    """The per-example function as a helper, and the loop-lifting driver (see ``passes/batch``)."""
    params, kinds, all_axes, out_kinds, tuple_out, out_axes = _vmap_signature(tree, ctx, full_kinds, in_axes,
                                                                              out_axes)
    name = ctx.source.name
    primal = tree
    primal.name = f"{name}_primal"
    ctx.helpers = [primal]
    driver = batch.vmap_driver(ctx.namer, f"{name}_vmap", params, kinds, all_axes, out_kinds, tuple_out, out_axes,
                               primal.name)
    axes = ", ".join(f"axis {a} of {p}" for p, a in zip(params, in_axes) if a is not None)
    driver.body.insert(0, comment(f"transpyle: vmap of {name} over {axes}: one call per example, in parallel"))
    return driver.name, driver, ctx


def _vector_vjp(rev, ctx, out_kind, lanes):
    """The vjp ``rev`` array-lifted over a batch of cotangents, the primals unbatched: its primal sweep
    runs once and its adjoint sweep carries every output direction at once (vector-mode cotangents).
    None where the adjoint code does not lift (then the Jacobian is taken row by row)."""
    params = [a.id for a in rev.args.args]
    kinds = tuple(ctx.arg_kinds[p] for p in params[:-1]) + (out_kind.with_ndim(out_kind.ndim + 1),)
    return _lifted(rev, ctx, kinds, (None,) * (len(params) - 1) + (0,), 0, lanes)


def _vector_jvp(fwd, ctx, lanes):
    """The jvp ``fwd`` array-lifted over a batch of tangents (one per input direction), the primals
    unbatched: the primal runs once and the tangents of every direction flow together (vector mode).
    The tangent output has its directions last. None where the jvp does not lift."""
    params = [a.id for a in fwd.args.args][:-len(ctx.wrt)]
    kinds = tuple(ctx.arg_kinds[p] for p in params) + \
        tuple(ctx.arg_kinds[w].with_ndim(ctx.arg_kinds[w].ndim + 1) for w in ctx.wrt)
    return _lifted(fwd, ctx, kinds, (None,) * len(params) + (0,) * len(ctx.wrt), (0, -1), lanes)


def _lifted(helper, ctx, kinds, in_axes, out_axes, lanes):
    """The generated ``helper`` function, compiled, then vmapped by array lifting; None where it does
    not lift."""
    from .cache import load_module
    helpers, ctx.helpers = ctx.helpers, []
    try:
        module = load_module(module_source(helper, ctx), helper.name)
    finally:
        ctx.helpers = helpers
    try:
        _, lifted, _ = transform(getattr(module, helper.name), "vmap", (), kinds, in_axes=in_axes,
                                 out_axes=out_axes, strategy="array", lanes=lanes)
    except TranspileError:
        return None
    return lifted


def _vmap_signature(tree, ctx, full_kinds, in_axes, out_axes):
    """(parameters, their batched kinds, in_axes, output kinds, tuple output, out_axes) of a vmap."""
    ret = tree.body[-1]
    tuple_out, out_kinds = _output_kinds(ret, ctx, has_aux=False)
    for k in out_kinds:
        if not isinstance(k, Kind):
            raise ctx.error(ret, f"vmap outputs must be numbers or arrays, not {k}", hint="return arrays or a tuple")
    out_axes = batch.normalize_out_axes(out_axes, out_kinds, ctx, ret)
    params = [a.id for a in tree.args.args]
    captured = len(params) - len(full_kinds)
    kinds = dict(zip(params, full_kinds + tuple(ctx.arg_kinds[p] for p in params[len(full_kinds):])))
    return params, kinds, tuple(in_axes) + (None,) * captured, out_kinds, tuple_out, out_axes


def _lift(tree, ctx, full_kinds, in_axes, out_axes, lane_loops):
    """The batched function by array lifting (see ``passes/lift``)."""
    params, kinds, in_axes, out_kinds, _, out_axes = _vmap_signature(tree, ctx, full_kinds, in_axes, out_axes)
    name = ctx.source.name
    lift.run(tree, ctx, in_axes, out_axes, out_kinds, kinds, lane_loops)
    tree.name = f"{name}_vmap"
    axes = ", ".join(f"axis {a} of {p}" for p, a in zip(params, in_axes) if a is not None)
    tree.body.insert(0, comment(f"transpyle: vmap of {name} over {axes}: array lifting (batched array code)"))
    return tree


def _add_captured_parameters(tree, ctx):
    """Module-level arrays the code reads become trailing parameters (read afresh at each call)."""
    for param, _, value in ctx.captured.values():
        tree.args.args.append(gast.Name(id=param, ctx=gast.Param(), annotation=None, type_comment=None))
        ctx.arg_kinds[param] = kind_of_value(value)


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


def module_source(tree, ctx):
    """The text of the generated module holding ``tree``, the transformed function."""
    params = [a.id for a in ctx.source.tree.args.args]
    origin = f"{ctx.filename}:{ctx.source.tree.lineno} for " + \
        ", ".join(f"{p}: {ctx.arg_kinds[p]}" for p in params)
    bodies = "\n\n".join(to_source(f) for f in ctx.helpers + [tree])
    lines = [f'"""Generated by transpyle {__version__} from {origin}. Edits are overwritten."""',
             "import math", "", "import numpy as np", "", "from transpyle import runtime as rt", "", ""]
    if "numba.prange" in bodies:
        lines.insert(3, "import numba")
        lines.insert(4, "")
    return "\n".join(lines) + bodies
