"""kernel: the vmap transform as a CUDA kernel (one thread per example).

The per-example function (the same ``f_primal`` that loop lifting calls, rewritten by
``workspace`` and ``device``) becomes a device function; the kernel is a grid-stride loop in which
thread ``t`` runs examples ``t``, ``t + gridsize``, ... and writes each example's results into its
slot of the output arrays, which the host side allocated. The user's loops, ``while`` on data and
branches run unchanged inside the thread, each with its own trip counts.

Workspace arrays (see ``workspace``) are extra kernel parameters, handed to the per-example
function with the index of the thread that runs it. A per-example result that is an array (the
gradient of an array argument) lives in a workspace column; the device function returns only the
scalar results, and the kernel copies the column into the example's row of the result, so no array
is ever returned by a device function.
"""
from ..base.ast_utils import SourceWriter
from ..base import cuda_api


def _example(arg, ndim, axis, b):
    if axis == 0:
        return f"{arg}[{b}]"
    parts = [":"] * ndim
    parts[axis] = b
    return f"{arg}[{', '.join(parts)}]"


def kernel_function(namer, name, params, kinds, in_axes, outs, tuple_out, example_name, workspace=(), scale=None):
    """Source of the kernel ``name(*params, *outs, *workspace)``; ``outs`` are the output arrays'
    names with their batch axis and, for an array result, the workspace array holding it (else
    None) and whether it is summed over the examples (atomically added into one slot, else written
    to the example's slot); ``workspace`` the workspace arrays' names; ``scale`` the name of a
    parameter every result is multiplied by (a mean's 1/B), or None. ``tuple_out``: the device
    function returns a tuple of the scalar results."""
    w = SourceWriter(namer)
    out_names = [o for o, _, _, _ in outs]
    w.emit(0, f"def {name}({', '.join(list(params) + out_names + list(workspace) + ([scale] if scale else []))}):")
    batched = [(p, axis) for p, axis in zip(params, in_axes) if axis is not None]
    p0, a0 = batched[0]
    thread, stride, b, res = (namer.fresh(n) for n in ("_thread", "_stride", "_b", "_res"))
    w.emit(1, f"{thread} = {cuda_api.grid_start()}")
    w.emit(1, f"{stride} = {cuda_api.grid_stride()}")
    w.emit(1, f"for {b} in range({thread}, {p0}.shape[{a0}], {stride}):")
    args = [p if axis is None else _example(p, kinds[p].ndim, axis, b) for p, axis in zip(params, in_axes)]
    if workspace:
        args += list(workspace) + [thread]
    scalars = [(out, summed) for out, _, held, summed in outs if held is None]
    call = f"{example_name}({', '.join(args)})"
    w.emit(2, f"{res} = {call}" if scalars else call)
    times = f" * {scale}" if scale else ""
    for j, (out, summed) in enumerate(scalars):
        value = f"{res}[{j}]" if tuple_out else res
        w.emit(2, cuda_api.atomic_add(out, 0, value + times) if summed else f"{out}[{b}] = {value}{times}")
    for out, _, held, summed in outs:
        if held is not None:
            k = namer.fresh("_k")
            w.emit(2, f"for {k} in range({out}.shape[{0 if summed else 1}]):")
            value = f"{held}[{k}, {thread}]{times}"
            w.emit(3, cuda_api.atomic_add(out, k, value) if summed else f"{out}[{b}, {k}] = {value}")
    return w.function()


def reduce_rows_function(namer, name):
    """Source of the kernel ``name(a, out, scale)``: ``out[c] = scale * sum(a[:, c])``, each column
    summed by one thread over the rows in order, so the result does not depend on scheduling."""
    w = SourceWriter(namer)
    w.emit(0, f"def {name}(a, out, scale):")
    w.emit(1, f"for c in range({cuda_api.grid_start()}, a.shape[1], {cuda_api.grid_stride()}):")
    w.emit(2, "total = a[0, c]")
    w.emit(2, "for r in range(1, a.shape[0]):")
    w.emit(3, "total += a[r, c]")
    w.emit(2, "out[c] = total * scale")
    return w.function()
