"""Transformed functions on chunked dask arrays (the ``dask`` extra): ``map_blocks`` applies a
compiled transform to every block, ``grad_sum`` sums a gradient over the chunks of a data set with
a tree reduction.

What travels to a worker is the generated module's text (a few kilobytes) and the function's name,
not the user's function: the client runs the pipeline (it has the source), and each worker writes
the text to its ``TRANSPYLE_CACHE_DIR``, imports it and compiles it once per process; Numba's disk
cache in that directory makes later worker processes on the same machine start warm (a
``LocalCluster`` shares the client's cache directory through the environment). Workers need
transpyle installed, not the user's files. The block functions are compiled with ``nogil=True``
and with vmap's ``prange`` loops sequential: dask's workers and threads are the parallelism.
A task that fails raises the worker's exception, with its message, in the client.
"""
import copy
import hashlib

import numpy as np

try:
    import dask
    import dask.array as da
except ImportError:                # an optional extra
    raise ImportError("transpyle.dask needs dask: pip install 'transpyle[dask]' "
                      "(dask[array,distributed])") from None

from .api import pytrees as flat
from . import tree as pytree
from .api.jitting import jit
from .api.transformed import Transformed, _kinds
from .base.ast_utils import comment
from .backends import compile_function
from .backends.cache import load_module
from .base.errors import TranspileError
from .base.kinds import Kind, TupleKind
from .pipeline import module_source

_LOADED = {}        # in each process: (text digest, name) -> compiled function
_PROBED = {}        # (block function, shapes of the arguments but axis 0) -> the result's (dtype, shape but axis 0)


class BlockFunction:
    """A generated function that any process can run: its module text and name (picklable)."""

    def __init__(self, text, fname, backend):
        self.text, self.fname, self.backend = text, fname, backend
        self.key = (hashlib.sha256(text.encode()).hexdigest(), fname, backend)

    def __call__(self, *args):
        fn = _LOADED.get(self.key)
        if fn is None:
            module = load_module(self.text, self.fname)
            if self.backend == "numba":
                from .backends.numba_backend import compile_function as njit_compile
                fn = njit_compile(module, self.fname, args, nogil=True, prange=False)
            else:
                fn = compile_function(self.backend, module, self.fname, args)
            _LOADED[self.key] = fn
        return fn(*args)

    def probe(self, args):
        """The result for ``args`` computed by the generated code run as NumPy (no compilation): what
        the client uses to learn a result's dtype and shape from one example."""
        return np.asarray(getattr(load_module(self.text, self.fname), self.fname)(*args))

    def __repr__(self):
        return f"BlockFunction({self.fname})"


def _example(a):
    """A NumPy value with the kind of ``a``'s blocks (a dask array's ``_meta``: empty, same dtype and rank)."""
    return a._meta if isinstance(a, da.Array) else a


def block_function(fn, args):
    """(the BlockFunction of ``fn`` for arguments like ``args``, the TreeDef of its result or None
    when the result is not a pytree, the kind of what the block function returns or None). ``fn``
    is a transform (a plain function is jitted); pytree arguments are flattened as the transforms
    do, so the block function takes their leaves."""
    if not isinstance(fn, Transformed):
        fn = jit(fn)
    examples = tuple(_example(a) for a in args)
    out_tree = None
    if flat.needs_flattening(fn.fun, examples):
        leaves, treedefs = flat.flatten_args(examples)
        fn, out_tree, _ = fn._flatten(treedefs)
        examples = leaves
    fname, tree, ctx = fn._transform(_kinds(examples))
    if ctx.captured:
        raise TranspileError(f"'{ctx.source.name}' reads module-level arrays "
                             f"({', '.join(p for p, _, _ in ctx.captured.values())}); a dask task cannot read them",
                             filename=ctx.filename, lineno=ctx.source.tree.lineno, hint="pass the arrays as arguments")
    tree = copy.deepcopy(tree)
    # its own module (not the one the client compiles): compiled with other options, see numba_backend
    tree.body.insert(0, comment("transpyle: block function for dask workers"))
    kind = _result_kind(fn, tree, ctx)
    return BlockFunction(module_source(tree, ctx), fname, fn.backend_name), out_tree, kind


def _result_kind(fn, tree, ctx):
    """The kind of what the generated function returns, or None where the pipeline does not record it."""
    try:
        return ctx.expr_kind(tree.body[-1].value)
    except TranspileError:
        pass
    if fn.mode == "vmap" and ctx.helpers and isinstance(fn.out_axes, int):   # the per-example kind, batched
        one = ctx.expr_kind(ctx.helpers[0].body[-1].value)
        return one.with_ndim(one.ndim + 1) if isinstance(one, Kind) else one
    return None


def map_blocks(fn, *args, dtype=None, shape=None):
    """``fn`` applied to the blocks of the dask arrays among ``args``: one dask array of the results.

    The blocks are taken along axis 0, the examples (other axes are one chunk), so
    ``fn = vmap(grad(loss), in_axes=(None, 0, 0))`` gives the per-example gradients of ``(w, X, y)``
    with ``X`` and ``y`` chunked by rows. Arguments that are not dask arrays (parameters ``w``) go
    whole to every block. ``fn`` is a transform, or a plain function (jitted); it returns one array
    whose axis 0 follows the blocks. Its dtype and trailing shape come from running the generated
    code as NumPy on the first example of each array (``dtype`` and ``shape``, the shape of one
    example's result, skip that)."""
    arrays = [a for a in args if isinstance(a, da.Array)]
    if not arrays:
        raise TranspileError("map_blocks needs at least one dask array argument",
                             hint="wrap the data with dask.array.from_array(x, chunks=(rows, -1))")
    if any(pytree.is_pytree(a) for a in args):
        raise TranspileError("map_blocks takes arrays and numbers, not pytrees",
                             hint="pass the leaves, or use grad_sum for gradients with respect to a pytree")
    block, _, kind = block_function(fn, args)
    if isinstance(kind, TupleKind):
        raise TranspileError(f"map_blocks: '{block.fname}' returns a tuple, not one array",
                             hint="return one array per block (map_blocks builds one dask array)")
    if dtype is None or shape is None:
        key = (block.key,) + tuple((a.shape[1:], a.dtype) if isinstance(a, da.Array) else np.shape(a) for a in args)
        if key not in _PROBED:
            probe = block.probe([a[:1].compute() if isinstance(a, da.Array) else a for a in args])
            _PROBED[key] = (probe.dtype, probe.shape[1:])
        dtype = _PROBED[key][0] if dtype is None else dtype
        shape = _PROBED[key][1] if shape is None else tuple(shape)
    pairs, letters = [], iter("abcdefghjklmnopqrstuvwxyz")
    for a in args:
        if isinstance(a, da.Array):
            a = a.rechunk({ax: -1 for ax in range(1, a.ndim)})
            pairs += [a, "i" + "".join(next(letters) for _ in range(1, a.ndim))]
        else:
            pairs += [a, None]
    out = "i" + "".join(next(letters) for _ in shape)
    return da.blockwise(block, out, *pairs, new_axes=dict(zip(out[1:], shape)), concatenate=True,
                        meta=np.empty((0,) * (1 + len(shape)), dtype=dtype))


def grad_sum(loss, params, *data, argnums=0, split_every=8, compute=True, backend=None):
    """The sum over the chunks of ``data`` (dask arrays chunked along axis 0, the examples) of
    ``grad(loss)(params, *chunk)``: the gradient of the total loss over a data set larger than one
    chunk, when ``loss`` sums over the examples it is given (divide by the number of examples for a
    mean). Each chunk's gradient is one task; they are added ``split_every`` at a time in a tree.
    ``params`` may be a pytree (the result has its structure); with ``compute=False`` the result is
    a ``dask.delayed`` value."""
    if not data or not all(isinstance(d, da.Array) for d in data):
        raise TranspileError("grad_sum needs the data as dask arrays", hint="dask.array.from_array(X, chunks=(n, -1))")
    first = data[0]
    for i, d in enumerate(data):
        if d.shape[0] != first.shape[0]:
            raise TranspileError(f"grad_sum: data argument {i} has {d.shape[0]} examples (axis 0), the first has "
                                 f"{first.shape[0]}", hint="pass arrays with the same number of examples")
    # the same chunks along the examples, one chunk along every other axis
    data = [d.rechunk({0: first.chunks[0], **{ax: -1 for ax in range(1, d.ndim)}}) for d in data]
    g = Transformed(loss, "grad", argnums, False, backend) if not isinstance(loss, Transformed) else loss
    block, out_tree, kind = block_function(g, (params,) + tuple(data))
    leaves = flat.flatten_args((params,))[0] if out_tree is not None else (params,)
    chunks = [d.to_delayed().ravel() for d in data]
    parts = [dask.delayed(_as_tuple)(dask.delayed(block, pure=True)(*leaves, *blocks))
             for blocks in zip(*chunks)]
    while len(parts) > 1:
        parts = [dask.delayed(_add)(*parts[i:i + split_every]) for i in range(0, len(parts), split_every)]
    total = dask.delayed(_rebuild)(parts[0], out_tree, isinstance(kind, TupleKind))
    return total.compute() if compute else total


def _as_tuple(g):
    return g if isinstance(g, tuple) else (g,)


def _add(*gradients):
    return tuple(sum(parts[1:], parts[0].copy() if isinstance(parts[0], np.ndarray) else parts[0])
                 for parts in zip(*gradients))


def _rebuild(leaves, out_tree, is_tuple):
    if out_tree is not None:
        return flat.rebuild(out_tree, leaves)
    return leaves if is_tuple else leaves[0]


__all__ = ["map_blocks", "grad_sum", "block_function", "BlockFunction"]
