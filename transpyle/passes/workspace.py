"""workspace: arrays created in the per-example code of a GPU kernel, made of memory a thread may use.

A CUDA thread cannot allocate, so each ``a = np.zeros(n)`` (``np.empty``, ``np.ones``,
``np.full``, ``np.zeros_like``, ``np.empty_like``, ``np.ones_like``) of the per-example function is
sized before launch and given memory:

- a size that is a constant of the code (a literal, a module constant, a value folded by
  specialization) of at most ``LOCAL_MAX`` elements becomes ``cuda.local.array(n, dtype)``:
  registers or the thread's local memory;
- a larger constant size, or a size read from the shape of an argument (``x.shape[0]``,
  ``len(x)``, ``np.empty_like(x)``: the same for every example of the batch), becomes a column of a
  global workspace array ``_ws1`` of shape ``(size, threads)`` allocated by the host at launch: the
  thread ``t`` uses ``_ws1[:, t]``, so element ``i`` of neighbouring threads lies at neighbouring
  addresses and their loads coalesce.

A size known only when the code runs (computed from data) cannot be sized before launch and is an
error at its line, as is an allocation inside a loop (each iteration would need new memory while
the previous array may still be in use). Only 1-D arrays are sized here.
"""
import dataclasses

import gast

from .. import cuda_api
from ..ast_utils import const, dotted, parse_stmts
from ..kinds import Kind
from .device import WORKSPACE_MARK

#: a constant size up to this many elements becomes a thread-local array
LOCAL_MAX = 64

_SIZED = {"np.zeros": 0.0, "np.empty": None, "np.ones": 1.0, "np.full": "fill"}
_LIKE = {"np.zeros_like": 0.0, "np.empty_like": None, "np.ones_like": 1.0}


@dataclasses.dataclass
class Buffer:
    """A global workspace array: ``rows`` elements per thread (an int, or ``(parameter position,
    example axis)``: that dimension of one example of the argument), of ``dtype``."""
    name: str
    dtype: str
    rows: object

    def shape(self, args, in_axes, threads):
        if isinstance(self.rows, int):
            return (self.rows, threads)
        position, dim = self.rows
        axis = in_axes[position]
        full_dim = dim if axis is None or dim < axis else dim + 1
        return (args[position].shape[full_dim], threads)


def _single_assignments(tree):
    """name -> value for names assigned exactly once (by a plain assignment) in the function."""
    counts, values = {}, {}
    for node in gast.walk(tree):
        targets = []
        if isinstance(node, gast.Assign):
            targets = node.targets
        elif isinstance(node, (gast.For, gast.AugAssign)):
            targets = [node.target]
        for t in targets:
            for n in gast.walk(t):
                if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
                    counts[n.id] = counts.get(n.id, 0) + 1
                    if isinstance(node, gast.Assign):
                        values[n.id] = node.value
    return {n: v for n, v in values.items() if counts[n] == 1}


class _Sizes:
    """What a size expression is before launch: an int, ``(parameter position, axis)``, or None."""

    def __init__(self, tree):
        self.params = [a.id for a in tree.args.args]
        self.defs = _single_assignments(tree)
        self.arrays = {}              # workspace array name -> its size

    def size(self, node, depth=0):
        if depth > 20:
            return None
        if isinstance(node, gast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
            return node.value
        if isinstance(node, gast.Tuple) and len(node.elts) == 1:
            return self.size(node.elts[0], depth + 1)
        if isinstance(node, gast.Name):
            if node.id in self.defs:
                return self.size(self.defs[node.id], depth + 1)
            return None
        if isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Constant):
            base = node.value                  # x.shape[d]
            if isinstance(base, gast.Attribute) and base.attr == "shape":
                return self.dim(base.value, node.slice.value)
            if isinstance(base, gast.Name) and isinstance(self.defs.get(base.id), gast.Attribute):
                shape = self.defs[base.id]     # s = x.shape; s[d]
                if shape.attr == "shape":
                    return self.dim(shape.value, node.slice.value)
        if isinstance(node, gast.Attribute) and node.attr == "shape":     # np.zeros(x.shape) of a 1-D x
            return self.dim(node.value, 0)
        if isinstance(node, gast.Call) and dotted(node.func) == "len" and len(node.args) == 1:
            return self.dim(node.args[0], 0)
        if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Mult, gast.Sub)):
            left, right = self.size(node.left, depth + 1), self.size(node.right, depth + 1)
            if isinstance(left, int) and isinstance(right, int):
                return {gast.Add: left + right, gast.Mult: left * right, gast.Sub: left - right}[type(node.op)]
        return None

    def dim(self, array, d):
        if not isinstance(array, gast.Name):
            return None
        if array.id in self.params:
            return (self.params.index(array.id), d)
        if array.id in self.arrays and d == 0:
            return self.arrays[array.id]
        return None


def run(tree, ctx):
    """Rewrite the allocations of ``tree`` (a per-example function); returns its ``Buffer`` list.
    With buffers, the function takes them and the thread index as trailing parameters."""
    sizes = _Sizes(tree)
    buffers = []
    thread = ctx.namer.fresh("_thread")

    def rewrite(body, depth):
        out = []
        for stmt in body:
            for field in ("body", "orelse"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list) and not isinstance(stmt, gast.FunctionDef):
                    loop = isinstance(stmt, (gast.For, gast.While))
                    setattr(stmt, field, rewrite(inner, depth + loop))
            out.extend(_allocation(stmt, depth) or [stmt])
        return out

    def _allocation(stmt, depth):
        if not (isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.Call)
                and isinstance(stmt.targets[0], gast.Name)):
            return None
        fname = dotted(stmt.value.func)
        if fname not in _SIZED and fname not in _LIKE:
            return None
        target = stmt.targets[0].id
        kind = ctx.kinds.get(target)
        call = stmt.value
        if depth:
            raise ctx.error(stmt, "creates an array inside a loop of the per-example code, which a CUDA "
                            "thread cannot do", hint="create it once before the loop and overwrite its elements")
        if not (isinstance(kind, Kind) and kind.ndim == 1) or not call.args:
            raise ctx.error(stmt, f"the cuda backend sizes 1-D arrays only ('{target}' is {kind})",
                            hint="use 1-D arrays in the per-example code, or the numba backend")
        size = sizes.dim(call.args[0], 0) if fname in _LIKE else sizes.size(call.args[0])
        if size is None:
            raise ctx.error(stmt, f"the size of '{target}' is not known before the kernel is launched",
                            hint="use a size that is a constant (a module constant, a closure variable, a "
                                 "static_argnums value) or an argument's shape, or use the numba backend")
        sizes.arrays[target] = size
        fill = _SIZED[fname] if fname in _SIZED else _LIKE[fname]
        if fill == "fill":
            fill = call.args[1] if len(call.args) > 1 else None
        dtype = f"np.{kind.dtype}"
        if isinstance(size, int) and size <= LOCAL_MAX:
            new = parse_stmts(f"{target} = {cuda_api.local_array(size, dtype)}")
            extent = str(size)
        else:
            buf = Buffer(ctx.namer.fresh("_ws"), kind.dtype, size)
            buffers.append(buf)
            new = parse_stmts(f"{target} = {buf.name}[:, {thread}]")
            extent = f"{target}.shape[0]"
        if fill is not None:
            i = ctx.namer.fresh("_i")
            ctx.kinds[i] = Kind("int64")
            loop = parse_stmts(f"for {i} in range({extent}):\n    {target}[{i}] = 0")
            value = fill if isinstance(fill, gast.AST) else const(fill)
            loop[0].body[0].value = value
            new += loop
        for s in new:
            gast.copy_location(s, stmt)
            setattr(s, WORKSPACE_MARK, True)
        return new

    tree.body = rewrite(tree.body, 0)
    if buffers:
        for name in [b.name for b in buffers] + [thread]:
            tree.args.args.append(gast.Name(id=name, ctx=gast.Param(), annotation=None, type_comment=None))
    return buffers
