"""The passes of the pipeline that assemble a driver around code the other passes generate: jacfwd
and jacrev (a loop or a vector-mode call over the jvp or the primal and vjp), vmap by a loop over the
per-example function or by array lifting, and the primal itself. Each is ``(tree, ctx, job) -> tree``
and leaves the functions the driver calls in ``ctx.helpers``."""
import copy

import gast

from ..base.ast_utils import comment
from ..base.errors import TranspileError
from ..base.kinds import Kind, TupleKind
from ..backends.cache import load_module
from ..transforms import batch, jacobian as jacobian_drivers, lift as lifting, tidy
from . import passes
from .module import module_source


def primal(tree, ctx, job):
    """The function itself, named ``f_primal``."""
    tree.name = f"{ctx.source.name}_primal"
    return tree


def cotangent_kind(ret, ctx, has_aux):
    """The kind of the cotangent ``_ct`` of a vjp function (the output's, a tuple for a tuple output)."""
    tuple_out, kinds = output_kinds(ret, ctx, has_aux)
    return TupleKind(tuple(kinds)) if tuple_out else kinds[0]


def output_kinds(ret, ctx, has_aux):
    """(whether the differentiated output is a tuple, the kind of each of its elements)."""
    value = ret.value.elts[0] if has_aux else ret.value
    tuple_out = isinstance(value, gast.Tuple)
    return tuple_out, [ctx.expr_kind(e) for e in (value.elts if tuple_out else [value])]


def jacobian(tree, ctx, job):
    """The jacfwd/jacrev driver (``job.jacobian``) for ``tree``, with the jvp (or primal and vjp)
    functions it calls as helpers in the same module; ``job.parallel=False`` for code another transform
    reads (one loop over the directions, not a parallel and a serial copy)."""
    mode, has_aux, tuple_argnums, with_value = job.jacobian, job.has_aux, job.tuple_argnums, job.with_value
    lanes, parallel = job.lanes, job.parallel
    ret = tree.body[-1]
    tuple_out, out_kinds = output_kinds(ret, ctx, has_aux)
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
        fwd = passes.run(copy.deepcopy(tree), ctx, job.derived(ct_kind=None),
                         (passes.ACTIVITY, passes.FORWARD, passes.CUSTOM_RULES))
        ctx.helpers = [fwd]
        scalars = all(ctx.arg_kinds[w].ndim == 0 for w in ctx.wrt) and all(k.ndim == 0 for k in out_kinds)
        lifted = _vector_jvp(fwd, ctx, lanes, job) if vector and not scalars else None
        driver_name = f"{name}_{'grad' if with_value else mode}"
        if lifted is not None:
            ctx.helpers = [lifted]
            driver = jacobian_drivers.vector_jacfwd_driver(ctx.namer, driver_name, params, ctx.wrt, ctx.arg_kinds,
                                                   out_kinds[0], tuple_argnums, lifted.name, with_value=with_value)
        else:
            driver = jacobian_drivers.jacfwd_driver(ctx.namer, driver_name, params, ctx.wrt, ctx.arg_kinds, out_kinds,
                                            tuple_out, has_aux, tuple_argnums, fwd.name, with_value=with_value,
                                            complex_result=complex_result, parallel=parallel)
    else:
        primal = copy.deepcopy(tree)
        primal.name = f"{name}_primal"
        rev_job = job.derived(sweep="vjp", ct_kind=cotangent_kind(ret, ctx, has_aux))
        rev = passes.run(copy.deepcopy(tree), ctx, rev_job, (passes.ACTIVITY, passes.REVERSE))
        primal = passes.run(primal, ctx, job.derived(ct_kind=None), (passes.CUSTOM_RULES,))
        rev = passes.run(rev, ctx, rev_job, (passes.CUSTOM_RULES,))
        ctx.helpers = [primal, rev]
        # a scalar output has one direction: the vjp itself, with no lanes to carry
        lifted = _vector_vjp(rev, ctx, out_kinds[0], lanes, job) if vector and out_kinds[0].ndim else None
        if lifted is not None:
            ctx.helpers = [primal, lifted]
            driver = jacobian_drivers.vector_jacrev_driver(ctx.namer, f"{name}_jacrev", params, ctx.wrt, ctx.arg_kinds,
                                                   out_kinds[0], tuple_argnums, primal.name, lifted.name,
                                                   threads=lanes == "loops")
        else:
            driver = jacobian_drivers.jacrev_driver(ctx.namer, f"{name}_jacrev", params, ctx.wrt, ctx.arg_kinds, out_kinds,
                                            tuple_out, has_aux, tuple_argnums, primal.name, rev.name,
                                            complex_result=complex_result, parallel=parallel)
    how = {("jacfwd", False): "one jvp per input element",
           ("jacfwd", True): "one jvp carrying all input directions at once",
           ("jacrev", False): "one vjp per output element",
           ("jacrev", True): "one vjp carrying all output directions at once"}[mode, lifted is not None]
    driver.body.insert(0, comment(f"transpyle: {mode} of {name} with respect to {', '.join(ctx.wrt)}: {how}"))
    setattr(driver, tidy.DRIVER_ATTR, True)
    return driver


def vmap_loop(tree, ctx, job):
    """The per-example function as a helper, and the loop-lifting driver (see ``transforms/batch``)."""
    in_axes = job.in_axes
    params, kinds, all_axes, out_kinds, tuple_out, out_axes = _vmap_signature(tree, ctx, job.full_kinds, in_axes,
                                                                              job.out_axes)
    name = ctx.source.name
    primal = tree
    primal.name = f"{name}_primal"
    ctx.helpers = [primal]
    raises = any(isinstance(n, gast.Raise) for n in gast.walk(primal))
    driver = batch.vmap_driver(ctx.namer, f"{name}_vmap", params, kinds, all_axes, out_kinds, tuple_out, out_axes,
                               primal.name, parallel=not raises)
    axes = ", ".join(f"axis {a} of {p}" for p, a in zip(params, in_axes) if a is not None)
    how = "in parallel" if not raises else "one after another (it raises: a parallel loop would drop the exception)"
    driver.body.insert(0, comment(f"transpyle: vmap of {name} over {axes}: one call per example, {how}"))
    setattr(driver, tidy.DRIVER_ATTR, True)
    return driver


def _vector_vjp(rev, ctx, out_kind, lanes, job):
    """The vjp ``rev`` array-lifted over a batch of cotangents, the primals unbatched: its primal sweep
    runs once and its adjoint sweep carries every output direction at once (vector-mode cotangents).
    None where the adjoint code does not lift (then the Jacobian is taken row by row)."""
    params = [a.id for a in rev.args.args]
    kinds = tuple(ctx.arg_kinds[p] for p in params[:-1]) + (out_kind.with_ndim(out_kind.ndim + 1),)
    return _lifted(rev, ctx, kinds, (None,) * (len(params) - 1) + (0,), 0, lanes, job)


def _vector_jvp(fwd, ctx, lanes, job):
    """The jvp ``fwd`` array-lifted over a batch of tangents (one per input direction), the primals
    unbatched: the primal runs once and the tangents of every direction flow together (vector mode).
    The tangent output has its directions last. None where the jvp does not lift."""
    params = [a.id for a in fwd.args.args][:-len(ctx.wrt)]
    kinds = tuple(ctx.arg_kinds[p] for p in params) + \
        tuple(ctx.arg_kinds[w].with_ndim(ctx.arg_kinds[w].ndim + 1) for w in ctx.wrt)
    return _lifted(fwd, ctx, kinds, (None,) * len(params) + (0,) * len(ctx.wrt), (0, -1), lanes, job)


def _lifted(helper, ctx, kinds, in_axes, out_axes, lanes, job):
    """The generated ``helper`` function, compiled, then vmapped by array lifting; None where it does
    not lift."""
    helpers, ctx.helpers = ctx.helpers, []
    try:
        module = load_module(module_source(helper, ctx), helper.name)
    finally:
        ctx.helpers = helpers
    try:
        _, lifted, _ = job.transform(getattr(module, helper.name), "vmap", (), kinds, in_axes=in_axes,
                                     out_axes=out_axes, strategy="array", lanes=lanes)
    except TranspileError:
        return None
    return lifted


def _vmap_signature(tree, ctx, full_kinds, in_axes, out_axes):
    """(parameters, their batched kinds, in_axes, output kinds, tuple output, out_axes) of a vmap."""
    ret = tree.body[-1]
    tuple_out, out_kinds = output_kinds(ret, ctx, has_aux=False)
    for k in out_kinds:
        if not isinstance(k, Kind):
            raise ctx.error(ret, f"vmap outputs must be numbers or arrays, not {k}", hint="return arrays or a tuple")
    out_axes = batch.normalize_out_axes(out_axes, out_kinds, ctx, ret)
    params = [a.id for a in tree.args.args]
    captured = len(params) - len(full_kinds)
    kinds = dict(zip(params, full_kinds + tuple(ctx.arg_kinds[p] for p in params[len(full_kinds):])))
    return params, kinds, tuple(in_axes) + (None,) * captured, out_kinds, tuple_out, out_axes


def lift(tree, ctx, job):
    """The batched function by array lifting (see ``transforms/lift``)."""
    params, kinds, in_axes, out_kinds, _, out_axes = _vmap_signature(tree, ctx, job.full_kinds, job.in_axes,
                                                                     job.out_axes)
    name = ctx.source.name
    lifting.run(tree, ctx, in_axes, out_axes, out_kinds, kinds, job.lanes != "arrays")
    tree.name = f"{name}_vmap"
    axes = ", ".join(f"axis {a} of {p}" for p, a in zip(params, in_axes) if a is not None)
    tree.body.insert(0, comment(f"transpyle: vmap of {name} over {axes}: array lifting (batched array code)"))
    return tree


LIFT = passes.Pass("lift", "vmap by array lifting: batched values, rules per primitive, masks for control flow",
                   ("compilable",), ("batched",), lift)
VMAP_LOOP = passes.Pass("vmap_loop", "vmap by a parallel loop calling the per-example function",
                        ("compilable",), ("batched",), vmap_loop)
JACOBIAN = passes.Pass("jacobian", "jacfwd/jacrev driver over the jvp (or primal and vjp) that the passes build",
                       ("compilable",), ("derivative", "settled"), jacobian)
PRIMAL = passes.Pass("primal", "the function itself, named f_primal", ("compilable",), ("settled",), primal)
