"""vmap on the GPU: a vmapped function (or a vmapped derivative) as a module of CUDA device
functions and one kernel, from the same pipeline output that loop lifting compiles.

``build`` runs the pipeline in ``vmap`` mode, takes the per-example function it produced, sizes its
arrays (``transforms/workspace``), rewrites it for a CUDA thread (``transforms/device``) and adds the kernel
(``transforms/kernel``). What the host side needs to launch it (output dtypes, workspace sizes) comes
back in a ``KernelSpec``; ``backends/cuda_backend`` compiles and launches.

Derivatives per example choose their mode here. ``vmap(grad(f))`` (and ``value_and_grad``) where
every differentiated argument of one example is a real scalar and there are at most
``FORWARD_MAX_SCALARS`` of them runs forward mode in each thread: one jvp sweep per scalar, no tape,
no memory beyond registers. Otherwise (array arguments, more scalars) the reverse-mode code runs in
each thread, its tapes and adjoint arrays sized before launch by ``transforms/workspace``. Array results
per example (the gradient of an array) stay in workspace columns, which the kernel copies out.
"""
import dataclasses
import os

import gast

from ..base import cuda_api
from ..base.arrays import library_object
from .. import pipeline
from ..base.ast_utils import comment, to_source
from ..base.errors import TranspileError
from ..base.kinds import Kind
from ..frontend.source import generated_origin
from ..pipeline.module import header
from ..transforms import batch, device, kernel, workspace

#: at most this many differentiated scalars per example take forward mode on the GPU. A forward
#: sweep costs about one primal evaluation (and twice its registers) per scalar; a reverse sweep
#: about three, plus a tape in global memory written and read once per step, which dominates on
#: a GPU. So forward wins up to several scalars; 8 keeps the register count of one thread sane.
FORWARD_MAX_SCALARS = 8


@dataclasses.dataclass
class KernelSpec:
    """What launching the kernel module needs."""
    name: str                # the kernel's name in the module
    device_functions: list   # names of the device functions, compiled before the kernel
    params: list             # the kernel's leading parameters (the vmapped function's, then captured arrays)
    in_axes: tuple           # one per parameter
    out_dtypes: list         # one per output (scalars per example: 1-D outputs)
    tuple_out: bool
    workspace: list          # workspace.Buffer per workspace array
    mode: str                # "primal", "forward" or "reverse": how derivatives are computed per thread
    out_buffers: list = None  # per output: None for a scalar per example, else the workspace.Buffer holding it
    reduce: tuple = None     # per output: summed over the examples; None: no reduction (and no scale parameter)
    deterministic: bool = False   # summed by the module's reduce_rows kernel rather than atomically


def _array_results(ctx, example, values, out_kinds, buffers):
    """Per result of the per-example function: None for a scalar, else the workspace Buffer holding
    the array (which must be one the per-example code created and never rebinds)."""
    by_array = {b.array: b for b in buffers}
    bound = {}
    for node in gast.walk(example):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
            bound[node.id] = bound.get(node.id, 0) + 1
    held = []
    for v, k in zip(values, out_kinds):
        if not k.ndim:
            held.append(None)
        elif v.id in by_array and bound.get(v.id) == 1:
            held.append(by_array[v.id])
        else:
            raise ctx.error(example.body[-1], f"the per-example result '{v.id}' is an array that the cuda backend "
                            "cannot place in the result",
                            hint="return an array created in the per-example code (np.zeros of a size known "
                                 "before launch) and filled element by element, or use the numba backend")
    return held


def _is_transform(fun):
    """Whether ``fun`` is a transform (``api.transformed.Transformed``): it generates code."""
    return hasattr(fun, "generated_function")


def per_example_function(fun, example_kinds):
    """(the function each thread runs, how it differentiates) for ``vmap(fun)`` on the GPU."""
    if not _is_transform(fun) or fun.mode == "vmap":
        return fun, "primal"
    if fun.mode in ("grad", "value_and_grad") and not _is_transform(fun.fun):
        wrt = [example_kinds[n % len(example_kinds)] for n in fun.argnums]
        if len(wrt) <= FORWARD_MAX_SCALARS and all(isinstance(k, Kind) and k.ndim == 0 and k.is_float
                                                   and not k.is_complex for k in wrt):
            argnums = fun.argnums if fun.tuple_argnums else fun.argnums[0]
            forward = fun.derived(fun.fun, fun.mode, argnums, fun.has_aux, fun.backend, fun.holomorphic)
            forward.transform_options = {"forward_mode": True}
            return forward, "forward"
        # arrays or many scalars: one reverse sweep per example, its tapes sized before launch
        return fun, "reverse"
    generated = _is_transform(fun.fun)       # derivatives of generated code are forward sweeps
    return fun, "reverse" if fun.mode in ("vjp", "jacrev") and not generated else "forward"


def build(fun, kinds, in_axes, out_axes, static=None, reduce=None, deterministic=False):
    """(module name, module text, KernelSpec) for ``vmap(fun, in_axes, out_axes)`` at argument ``kinds``.
    ``reduce``: per result of ``fun``, whether it is summed over the examples (see ``Reduction``);
    ``deterministic``: sum them by a second kernel in a fixed order rather than atomically."""
    try:
        return _build(fun, kinds, in_axes, out_axes, static, reduce, deterministic)
    except TranspileError as exc:
        raise _at_user_line(exc) from None


def _at_user_line(exc):
    """``exc`` located in the user's file where it points into generated code (the derivative that
    ``vmap(grad(f))`` batches): generated statements follow ``# file.py:12: <line>`` comments, and
    the module docstring names the user's file."""
    import linecache
    import re
    if not exc.filename or not exc.lineno:
        return exc
    origin = generated_origin(exc.filename)
    if origin is None:
        return exc
    user_file = origin[0]
    pattern = re.compile(r"\s*# " + re.escape(os.path.basename(user_file)) + r":(\d+): (.*)")
    for lineno in range(exc.lineno, 1, -1):
        found = pattern.match(linecache.getline(exc.filename, lineno))
        if found:
            return TranspileError(exc.message, filename=user_file, lineno=int(found.group(1)),
                                  construct=found.group(2).strip(), hint=exc.hint, stage=exc.stage)
    return exc


def _build(fun, kinds, in_axes, out_axes, static, reduce, deterministic):
    name = getattr(fun, "__name__", "f")
    axes = batch.normalize_in_axes(in_axes, kinds, name)
    per_example, mode = per_example_function(fun, batch.example_kinds(kinds, axes))
    fname, driver, ctx = pipeline.transform(per_example, "vmap", (), kinds, in_axes=in_axes, out_axes=out_axes,
                                            static=static, lanes="threads")
    example = ctx.helpers[0]
    ret = example.body[-1]
    tuple_out = isinstance(ret.value, gast.Tuple)
    values = ret.value.elts if tuple_out else [ret.value]
    out_kinds = [ctx.expr_kind(v) for v in values]
    for v, k in zip(values, out_kinds):
        if not isinstance(k, Kind) or k.ndim > 1 or k.ndim and not isinstance(v, gast.Name):
            raise ctx.error(ret, f"the cuda backend needs scalars or 1-D arrays as results per example, but one is {k}",
                            hint="return scalars or 1-D arrays (a tuple of them for several), or use the numba backend")
    out_axes_n = batch.normalize_out_axes(out_axes, out_kinds, ctx, ret)
    if any(out_axes_n):
        raise ctx.error(ret, "the cuda backend writes results per example along axis 0", hint="use out_axes=0")
    params = [a.id for a in driver.args.args]
    full_axes = tuple(axes) + (None,) * (len(params) - len(kinds))
    param_kinds = dict(zip(params, tuple(kinds) + tuple(ctx.arg_kinds[p] for p in params[len(kinds):])))
    buffers = workspace.run(example, ctx)
    device.run(example, ctx)
    held = _array_results(ctx, example, values, out_kinds, buffers)
    # the device function returns its scalar results only; array results are read from the workspace
    scalars = [v for v, h in zip(values, held) if h is None]
    ret.value = gast.Tuple(elts=scalars, ctx=gast.Load()) if len(scalars) > 1 else scalars[0] if scalars else None
    reduce = tuple(reduce) if reduce is not None else None
    atomic = reduce if reduce is not None and not deterministic else (False,) * len(held)
    outs = [(ctx.namer.fresh("_out"), 0, h and h.name, summed) for h, summed in zip(held, atomic)]
    scale = ctx.namer.fresh("_scale") if reduce is not None else None
    kern = kernel.kernel_function(ctx.namer, f"{name}_kernel", params, param_kinds, full_axes, outs,
                                  len(scalars) > 1, example.name, [b.name for b in buffers], scale)
    summed_outs = ", ".join(o for o, _, _, _ in (o for o, r in zip(outs, reduce or ()) if r))
    how = "" if not summed_outs else f"; {summed_outs} summed over the examples " + \
        ("afterwards by reduce_rows, in a fixed order" if deterministic else "by atomic adds")
    kern.body.insert(0, comment(f"transpyle: vmap of {name} on the GPU: one thread per example "
                                     f"(grid-stride loop){'; derivatives by ' + mode + ' mode' if mode != 'primal' else ''}"
                                     + how))
    kernels = [kern]
    if reduce is not None and deterministic:
        rows = kernel.reduce_rows_function(ctx.namer, "reduce_rows")
        rows.body.insert(0, comment("transpyle: one thread per column, adding the rows in order (deterministic)"))
        kernels.append(rows)
    text = module_text(ctx, [example], *kernels)
    spec = KernelSpec(kern.name, [example.name], params, full_axes, [k.dtype for k in out_kinds], tuple_out,
                      buffers, mode, held, reduce, deterministic)
    return f"{fname}_cuda", text, spec, ctx


def module_text(ctx, device_functions, *kernels):
    lines = [f'"""{header(ctx)}: CUDA device functions and kernel. Edits are overwritten."""', "import math", "",
             "import numpy as np", cuda_api.import_line(), "", ""]
    bodies = "\n\n".join(to_source(f) for f in device_functions + list(kernels))
    return "\n".join(lines) + bodies



# -- gradients of sums over a batch -----------------------------------------------------------------
@dataclasses.dataclass
class Reduction:
    """``grad`` (or ``value_and_grad``) of ``def total(w, x, y): return np.sum(vmap(loss, in_axes)(w, x, y))``
    (or ``np.mean``) as one kernel: each thread differentiates ``loss`` for its examples, and the
    gradients of unbatched arguments (and the value) are summed over the examples, those of batched
    arguments stay per example (the gradient of a sum with respect to ``x[b]`` is example ``b``'s)."""
    per_example: object      # Transformed: grad/value_and_grad of the vmapped function
    in_axes: object          # the vmap's in_axes
    order: list              # for each argument of the vmapped call, the position of the outer argument
    how: str                 # "sum" or "mean"
    reduce: tuple            # per result of per_example: summed over the examples

    def example_args(self, args):
        return tuple(args[i] for i in self.order)


def _reduced_error(src, node, what):
    return TranspileError(f"grad on the cuda backend differentiates a sum or mean over a batch, and {what}",
                          filename=src.filename, lineno=getattr(node, "lineno", None),
                          construct="return" if node is None else None,
                          hint="write the function as 'return np.sum(transpyle.vmap(loss, in_axes=...)(w, x, y))' "
                               "(or np.mean) with its own arguments passed in, or use the numba backend (docs/cuda.md)")


def reduction(fun, kinds):
    """The ``Reduction`` that ``fun`` (grad or value_and_grad with backend="cuda") computes, read from
    the source of the function it differentiates, or a TranspileError saying what that must look like."""
    import numpy as np
    from ..base.ast_utils import dotted, expr_source
    from ..frontend.source import read_function
    if _is_transform(fun.fun):
        raise TranspileError(f"{fun.mode} of a transformed function is not supported on the cuda backend",
                             hint="differentiate a function that sums a vmapped per-example function (docs/cuda.md)")
    src = read_function(fun.fun)
    body = [s for s in src.tree.body if not (isinstance(s, gast.Expr) and isinstance(s.value, gast.Constant))]
    ret = body[0] if len(body) == 1 and isinstance(body[0], gast.Return) else None
    if ret is None:
        raise _reduced_error(src, src.tree, f"'{src.name}' is not one return statement")
    total = ret.value
    fname, how = dotted(total.func) if isinstance(total, gast.Call) else None, None
    if fname:
        known, obj = src.lookup(fname.split(".")[0])
        for part in fname.split(".")[1:]:
            obj = getattr(obj, part, None)
        obj = library_object(obj)
        how = {id(np.sum): "sum", id(np.mean): "mean"}.get(id(obj)) if known else None
    if how is None or len(total.args) != 1 or total.keywords:
        raise _reduced_error(src, ret, "this return value is not np.sum(...) or np.mean(...) of one array")
    call = total.args[0]
    params = [a.id for a in src.tree.args.args]
    if not (isinstance(call, gast.Call) and not call.keywords and
            all(isinstance(a, gast.Name) and a.id in params for a in call.args) and
            len({a.id for a in call.args}) == len(call.args)):
        raise _reduced_error(src, ret, "what it sums is not a vmapped function called on the function's own arguments")
    callee = call.func
    head = callee.func if isinstance(callee, gast.Call) else callee
    root = dotted(head)
    if root is None or not src.lookup(root.split(".")[0])[0]:
        raise _reduced_error(src, ret, f"'{expr_source(callee)}' is not a vmapped function")
    try:       # names of the module or closure only: vmap(loss, in_axes=...) or a vmapped function
        vmapped = eval(expr_source(callee), {"__builtins__": {}}, dict(src.namespace))
    except Exception as exc:
        raise _reduced_error(src, ret, f"'{expr_source(callee)}' could not be evaluated ({exc})") from None
    if not _is_transform(vmapped) or vmapped.mode != "vmap":
        raise _reduced_error(src, ret, f"'{expr_source(callee)}' is not a transpyle.vmap of a function")
    order = [params.index(a.id) for a in call.args]
    wrt = []
    for n in fun.argnums:
        p = params[n % len(params)]
        if p not in [a.id for a in call.args]:
            raise _reduced_error(src, ret, f"the differentiated argument '{p}' is not passed to the vmapped function")
        wrt.append([a.id for a in call.args].index(p))
    example_kinds = tuple(kinds[i] for i in order)
    axes = batch.normalize_in_axes(vmapped.in_axes, example_kinds, getattr(vmapped.fun, "__name__", "f"))
    per_example = fun.derived(vmapped.fun, fun.mode, tuple(wrt) if fun.tuple_argnums else wrt[0], fun.has_aux,
                              "cuda")
    if fun.has_aux or fun.mode == "value_and_grad" and fun.tuple_argnums:
        raise TranspileError(f"{fun.mode} with {'has_aux' if fun.has_aux else 'several argnums'} of a sum over a "
                             "batch is not supported on the cuda backend",
                             hint="use grad with a tuple of argnums, or value_and_grad of one argument")
    reduce = [axes[i] is None for i in wrt]
    if fun.mode == "value_and_grad":
        reduce = [True] + reduce
    return Reduction(per_example, vmapped.in_axes, order, how, tuple(reduce))
