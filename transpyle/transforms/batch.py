"""batch: the vmap transform by loop lifting.

The function, normalized for one example, goes into the generated module as ``f_primal``; a driver
``f_vmap`` runs it for every example in a ``numba.prange`` loop (all cores; the numpy backend runs
the same loop sequentially), writing each result into its own slot of the batched outputs. Any
control flow works unchanged, since each example runs the original code. Where outputs are arrays,
example 0 runs first to give their shapes.

The driver is inside the accepted subset (explicit index loops, no slice assignment; ``prange``
reads as ``range`` to the other transforms), so ``grad`` of a loss that calls a vmapped function
inlines it and differentiates the loop sequentially, which keeps accumulations into unbatched
parameters race-free.
"""
from ..base.ast_utils import SourceWriter
from ..base.errors import TranspileError


def normalize_in_axes(in_axes, kinds, fname):
    """One axis (or None) per argument, made non-negative; errors as JAX words them."""
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    if not isinstance(in_axes, tuple):
        in_axes = (in_axes,) * len(kinds)
    if len(in_axes) != len(kinds):
        raise TranspileError(f"vmap in_axes has {len(in_axes)} entries but '{fname}' is called with "
                             f"{len(kinds)} positional arguments", hint="give one axis (or None) per argument")
    out = []
    for i, (axis, kind) in enumerate(zip(in_axes, kinds)):
        if axis is None:
            out.append(None)
            continue
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise TranspileError(f"vmap in_axes entries are ints or None, got {axis!r} for argument {i}")
        ndim = getattr(kind, "ndim", 0)
        if not -ndim <= axis < ndim:
            raise TranspileError(f"vmap in_axes {axis} is out of range for argument {i} of rank {ndim}",
                                 hint="a scalar argument cannot be batched: use None" if ndim == 0 else
                                 f"use an axis from {-ndim} to {ndim - 1}")
        out.append(axis % ndim)
    if all(a is None for a in out):
        raise TranspileError("vmap needs at least one batched argument, but in_axes is None for every argument",
                             hint="set in_axes=0 (or an axis) for the arguments that carry the batch")
    return tuple(out)


def normalize_out_axes(out_axes, out_kinds, ctx, ret):
    axes = out_axes if isinstance(out_axes, (tuple, list)) else (out_axes,) * len(out_kinds)
    if len(axes) != len(out_kinds):
        raise ctx.error(ret, f"vmap out_axes has {len(axes)} entries for {len(out_kinds)} outputs")
    out = []
    for axis, kind in zip(axes, out_kinds):
        ndim = kind.ndim + 1
        if not isinstance(axis, int) or not -ndim <= axis < ndim:
            raise ctx.error(ret, f"vmap out_axes {axis!r} is out of range for an output of rank {ndim}")
        out.append(axis % ndim)
    return tuple(out)


def example_kinds(kinds, in_axes):
    """The kinds of one example: batched arguments lose their batch axis."""
    return tuple(k if axis is None else k.with_ndim(k.ndim - 1) for k, axis in zip(kinds, in_axes))


def _index(arg, ndim, axis, b):
    if axis == 0:           # x[b]: Numba keeps a C-contiguous example C-contiguous (x[b, :] it types as 'A',
        return f"{arg}[{b}]"  # which compiles the per-example code a second time, for that layout)
    parts = [":"] * ndim
    parts[axis] = b
    return f"{arg}[{', '.join(parts)}]"


def _dtype(kind):
    return {"bool": "np.bool_"}.get(kind.dtype, f"np.{kind.dtype}")


def vmap_driver(namer, name, params, kinds, in_axes, out_kinds, tuple_out, out_axes, primal_name, parallel=True):
    """Source of ``name(*params)`` running ``primal_name`` once per example, in a parallel loop unless
    ``parallel`` is False (a function that raises: Numba's parallel loop drops exceptions)."""
    w = SourceWriter(namer)
    emit = w.emit
    emit(0, f"def {name}({', '.join(params)}):")
    batched = [(p, axis) for p, axis in zip(params, in_axes) if axis is not None]
    size = namer.fresh("_batch")
    p0, a0 = batched[0]
    emit(1, f"{size} = {p0}.shape[{a0}]")
    b = namer.fresh("_b")

    def example_args(index):
        return [p if axis is None else _index(p, kinds[p].ndim, axis, index)
                for p, axis in zip(params, in_axes)]

    named = [None] * len(out_kinds)
    if parallel and not any(ok.ndim for ok in out_kinds):
        # example 0 runs first, on its own: an error every example raises (shapes that do not fit) is raised
        # there, where Numba's parallel loop would drop it
        emit(1, f"if {size} > 0:")
        emit(2, f"{primal_name}({', '.join(example_args('0'))})")
    if any(ok.ndim for ok in out_kinds):       # example 0 runs first to give the output shapes (and its errors)
        first = namer.fresh("_first")
        emit(1, f"{first} = {primal_name}({', '.join(example_args('0'))})")
        results = [f"{first}[{j}]" for j in range(len(out_kinds))] if tuple_out else [first]
        for j, r in enumerate(results):
            if r != first:
                n = namer.fresh("_part")
                emit(1, f"{n} = {r}")
                r = n
            named[j] = r
    outs = []
    for j, (r, ok) in enumerate(zip(named, out_kinds)):
        axis = out_axes[j]
        dims = [f"{r}.shape[{d}]" for d in range(ok.ndim)]
        dims.insert(axis, size)
        out = namer.fresh("_out")
        outs.append(out)
        emit(1, f"{out} = np.empty(({', '.join(dims)},), {_dtype(ok)})")
    emit(1, f"for {b} in {'numba.prange' if parallel else 'range'}({size}):")
    res = namer.fresh("_res")
    emit(2, f"{res} = {primal_name}({', '.join(example_args(b))})")
    for j, (ok, out) in enumerate(zip(out_kinds, outs)):
        r = f"{res}[{j}]" if tuple_out else res
        if tuple_out and ok.ndim:
            part = namer.fresh("_part")
            emit(2, f"{part} = {r}")
            r = part
        idx = [namer.fresh("_i") for _ in range(ok.ndim)]
        depth = 2
        for d, i in enumerate(idx):
            emit(depth, f"for {i} in range({r}.shape[{d}]):")
            depth += 1
        target = list(idx)
        target.insert(out_axes[j], b)
        emit(depth, f"{out}[{', '.join(target)}] = {r}" + (f"[{', '.join(idx)}]" if idx else ""))
    result = f"({', '.join(outs)},)" if tuple_out else outs[0]
    emit(1, f"return {result}")
    return w.function()
