"""``vmap``: a function over a batch, by a parallel loop over the per-example code or by array
lifting (``Vmapped``); on the cuda backend, one GPU thread per example."""
import numpy as np

from . import pytrees as flat
from .. import pipeline
from ..base.arrays import plain
from ..base.errors import TranspileError
from .transformed import Transformed, _arguments, _kernel, _kinds, _lanes, _located_errors


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

    specializes_lengths = False        # the code of one example serves any shapes

    def _transform(self, kinds, static=None, lanes="backend", lengths=None):
        """Array lifting where asked, or by default on the numpy backend (whose loops are slow) when the
        function lifts; loop lifting otherwise (compiled loops: every construct, all cores), and always
        for code another transform reads (``lanes=None``): the loop-lifting driver is inside the subset.
        The code of one example serves any shapes (``lengths`` is not used)."""
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

    @_located_errors
    def __call__(self, *args, **kwargs):
        given, defaults = _arguments(self.fun, self.signature, args, kwargs)   # defaults are not batched
        args = tuple(given.values())
        if flat.needs_flattening(self.fun, args):
            return self._call_flat(args, defaults)
        self._check_batch(args)
        return self._run(self._entry(tuple(map(plain, args)), static=defaults), args)[1]

    def _entry(self, args, extra=(), static=None):
        if self.backend_name != "cuda":
            return super()._entry(args, extra, static)
        kinds = _kinds(args)
        key = (kinds, "cuda", flat.static_key(static))
        entry = self._compiled.get(key)
        if entry is None:          # a kernel module: see transpyle/api/gpu.py
            from . import gpu
            entry = self._compiled[key] = _kernel(gpu.build(self.fun, kinds, self.in_axes, self.out_axes, static),
                                                  len(args))
        return entry

    def _flat_transform(self, source, treedefs, fun_out, fun_layout):
        in_axes = flat.leaf_in_axes(self.in_axes, treedefs)
        out_axes = self.out_axes
        if not isinstance(out_axes, int) and fun_out is not None and not fun_out.is_leaf:
            out_axes = tuple(flat.axes_for_leaves(out_axes, fun_out, "out_axes"))
        return self._inheriting(Vmapped(source, in_axes, out_axes, self.backend, self.strategy)), fun_out, fun_layout

    def _check_batch(self, args):
        from ..transforms.batch import normalize_in_axes
        axes = normalize_in_axes(self.in_axes, _kinds(args, self.fun), getattr(self.fun, "__name__", "f"))
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


def vmap(fun=None, in_axes=0, out_axes=0, backend=None, strategy="auto", boundscheck=None):
    """``f`` over a batch: ``in_axes`` an int, None (broadcast) or a tuple per argument; ``out_axes`` an
    int or a tuple per output. ``strategy``: ``"loop"`` (loop lifting: the per-example code runs in a
    parallel loop; with ``backend="cuda"`` as a CUDA kernel, one thread per example, docs/cuda.md),
    ``"array"`` (array lifting: batched array operations, masks for data-dependent control flow) or
    ``"auto"`` (array on the numpy backend where the function lifts, loop otherwise)."""
    if fun is None:
        return lambda f: vmap(f, in_axes, out_axes, backend, strategy, boundscheck)
    out = Vmapped(fun, in_axes, out_axes, backend, strategy)
    out.boundscheck = boundscheck
    return out


vmap.__transpyle_transform__ = True     # may be called in transformed code (specialized)
