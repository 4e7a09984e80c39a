"""workspace: arrays created in the per-example code of a GPU kernel, made of memory a thread may use.

A CUDA thread cannot allocate, so each ``a = np.zeros(n)`` (``np.empty``, ``np.ones``,
``np.full``, ``np.zeros_like``, ``np.empty_like``, ``np.ones_like``) of the per-example function is
sized before launch and given memory:

- a size that is a constant of the code (a literal, a module constant, a value folded by
  specialization) of at most ``LOCAL_MAX`` elements becomes ``cuda.local.array(n, dtype)``:
  registers or the thread's local memory;
- a larger constant size, or a size computed from the shapes of arguments (``x.shape[0]``,
  ``len(x)``, ``np.empty_like(x)``, ``2 * x.shape[0] + 1``: the same for every example of the
  batch), becomes a column of a global workspace array ``_ws1`` of shape ``(size, threads)``
  allocated by the host at launch: the thread ``t`` uses ``_ws1[:, t]``, so element ``i`` of
  neighbouring threads lies at neighbouring addresses and their loads coalesce.

The tapes of reverse-mode code are arrays too. On the CPU they start small and grow
(``rt.reserve`` before a ``for`` loop, ``rt.push`` in a ``while`` loop); in a thread they are
sized here, before launch, to the number of values the per-example code pushes: each write
``_tape[_n] = v`` counts the trip counts of the loops around it, multiplied (a ``for`` over
``range(x.shape[0])`` pushes ``x.shape[0]`` values, nested loops multiply, sites add up), and
``rt.reserve`` becomes a no-op. A loop whose trip count is not known before launch (a ``while`` on
data, a ``range`` bound computed from data) cannot have its tape sized and is an error at its line.

Arrays the per-example function returns (the gradient ``bx`` of an array argument) always get a
global workspace column, which the kernel copies into the example's row of the result.

A size known only when the code runs (computed from data) cannot be sized before launch and is an
error at its line, as is an allocation inside a loop (each iteration would need new memory while
the previous array may still be in use). Only 1-D arrays are sized here.

Sizes before launch are ints or Python expressions over ``_d<p>_<k>``, dimension ``k`` of one
example of parameter ``p``; ``Buffer.rows_value`` evaluates them for the arguments of a launch.
"""
import dataclasses
import re

import gast

from ..base import cuda_api
from ..base.ast_utils import const, dotted, parse_stmts
from ..base.kinds import Kind
from .device import WORKSPACE_MARK

#: a constant size up to this many elements becomes a thread-local array
LOCAL_MAX = 64

_SIZED = {"np.zeros": 0.0, "np.empty": None, "np.ones": 1.0, "np.full": "fill"}
_LIKE = {"np.zeros_like": 0.0, "np.empty_like": None, "np.ones_like": 1.0}
_DIM = re.compile(r"_d(\d+)_(\d+)")


def dim_name(position, k):
    """The name standing for dimension ``k`` of one example of parameter ``position``."""
    return f"_d{position}_{k}"


def example_dims(rows):
    """The ``(parameter position, example dimension)`` pairs a size expression reads."""
    return sorted({(int(p), int(k)) for p, k in _DIM.findall(str(rows))})


def full_dim(k, axis):
    """The dimension of the whole (batched) argument that is dimension ``k`` of one example."""
    return k if axis is None or k < axis else k + 1


@dataclasses.dataclass
class Buffer:
    """A global workspace array: ``rows`` elements per thread (an int, or an expression over
    ``_d<p>_<k>``, see the module docstring), of ``dtype``."""
    name: str
    dtype: str
    rows: object
    array: str = None        # the per-example array it holds

    def rows_value(self, args, in_axes):
        if isinstance(self.rows, int):
            return self.rows
        dims = {dim_name(p, k): args[p].shape[full_dim(k, in_axes[p])] for p, k in example_dims(self.rows)}
        return max(0, int(eval(self.rows, {"max": max}, dims)))

    def shape(self, args, in_axes, threads):
        return (self.rows_value(args, in_axes), threads)


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


def _combine(op, left, right):
    """``left op right`` of two sizes: folded when both are ints, else an expression."""
    if left is None or right is None:
        return None
    if isinstance(left, int) and isinstance(right, int):
        return {"+": left + right, "*": left * right, "-": left - right}[op]
    if op == "*" and 0 in (left, right):
        return 0
    if op in "+-" and right == 0:
        return left
    if op == "+" and left == 0:
        return right
    if op == "*" and 1 in (left, right):
        return right if left == 1 else left
    return f"({left} {op} {right})"


def trip_count(start, stop, step):
    """How many times ``range(start, stop, step)`` runs, as a size (or None if not known)."""
    if start is None or stop is None or not isinstance(step, int) or step == 0:
        return None
    if all(isinstance(v, int) for v in (start, stop)):
        return len(range(start, stop, step))
    span = _combine("-", stop, start) if step > 0 else _combine("-", start, stop)
    step = abs(step)
    return f"max(0, {span})" if step == 1 else f"max(0, -(-{span} // {step}))"


class _Sizes:
    """What a size expression is before launch: an int, an expression over example dimensions, or None."""

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
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
            inner = self.size(node.operand, depth + 1)
            return -inner if isinstance(inner, int) else None
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
        if isinstance(node, gast.Call) and dotted(node.func) == "max" and len(node.args) == 2 and \
                isinstance(node.args[1], gast.Constant) and node.args[1].value == 0:
            inner = self.size(node.args[0], depth + 1)         # max(n, 0), as trip counts are written
            return max(inner, 0) if isinstance(inner, int) else inner
        if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Mult, gast.Sub)):
            op = {gast.Add: "+", gast.Mult: "*", gast.Sub: "-"}[type(node.op)]
            return _combine(op, self.size(node.left, depth + 1), self.size(node.right, depth + 1))
        return None

    def dim(self, array, d):
        if not isinstance(array, gast.Name):
            return None
        if array.id in self.params:
            return dim_name(self.params.index(array.id), d)
        if array.id in self.arrays and d == 0:
            return self.arrays[array.id]
        return None

    def trips(self, loop):
        """The trip count of a ``for`` loop over ``range``, as a size, or None."""
        it = loop.iter
        if not (isinstance(it, gast.Call) and dotted(it.func) == "range" and 1 <= len(it.args) <= 3):
            return None
        args = [self.size(a) for a in it.args]
        if len(args) == 1:
            return trip_count(0, args[0], 1)
        return trip_count(args[0], args[1], args[2] if len(args) == 3 else 1)


def _call_name(node):
    return dotted(node.func) if isinstance(node, gast.Call) else None


def _tape_sizes(tree, ctx, sizes):
    """tape name -> how many values the per-example code pushes on it, for the tapes of reverse-mode
    code (the arrays that ``rt.reserve``/``rt.push`` grow on the CPU)."""
    tapes = {}
    for node in gast.walk(tree):
        if isinstance(node, gast.Assign) and _call_name(node.value) in ("rt.reserve", "rt.push") and \
                isinstance(node.value.args[0], gast.Name):
            tapes[node.value.args[0].id] = 0

    def visit(stmts, loops):
        for s in stmts:
            if isinstance(s, (gast.For, gast.While)):
                visit(s.body, loops + [s])
            elif isinstance(s, gast.If):
                visit(s.body, loops)
                visit(s.orelse, loops)
            elif isinstance(s, gast.Assign):
                target, call = s.targets[0], _call_name(s.value)
                if call == "rt.tape_push":
                    raise ctx.error(s, "the reverse sweep saves an array on every iteration of a loop here, "
                                    "which a CUDA thread has no memory for",
                                    hint="write the loop over array elements (scalars are saved in the "
                                         "workspace), or use the numba backend")
                pushed = call == "rt.push" or isinstance(target, gast.Subscript) and \
                    isinstance(target.value, gast.Name) and target.value.id in tapes
                if not pushed:
                    continue
                tape = s.value.args[0].id if call == "rt.push" else target.value.id
                count = 1
                for loop in loops:
                    trips = sizes.trips(loop) if isinstance(loop, gast.For) else None
                    if trips is None:
                        what = "this while loop's trip count depends on the data" if isinstance(loop, gast.While) \
                            else "this loop's trip count is not known before the kernel is launched"
                        raise ctx.error(_located(loop), f"reverse mode records values on every iteration, and {what}, "
                                        "so its tape cannot be sized before launch",
                                        hint="write it as a for loop over a range bounded by a constant or an "
                                             "argument's shape (with an if inside), or differentiate in forward "
                                             "mode (jvp/jacfwd, or at most 8 scalar arguments with grad)")
                    count = _combine("*", count, trips)
                tapes[tape] = _combine("+", tapes[tape], count)
    visit(tree.body, [])
    return tapes


def _located(node):
    """``node``, or the first statement inside it that carries a line number."""
    if getattr(node, "lineno", None) is not None:
        return node
    for n in gast.walk(node):
        if isinstance(n, gast.stmt) and getattr(n, "lineno", None) is not None:
            return n
    return node


def _returned_names(tree):
    ret = tree.body[-1]
    if not isinstance(ret, gast.Return) or ret.value is None:
        return set()
    values = ret.value.elts if isinstance(ret.value, gast.Tuple) else [ret.value]
    return {v.id for v in values if isinstance(v, gast.Name)}


def run(tree, ctx):
    """Rewrite the allocations of ``tree`` (a per-example function); returns its ``Buffer`` list.
    With buffers, the function takes them and the thread index as trailing parameters."""
    sizes = _Sizes(tree)
    tapes = _tape_sizes(tree, ctx, sizes)
    returned = _returned_names(tree)
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
            out.extend(_reserve(stmt) or _allocation(stmt, depth) or [stmt])
        return out

    def _reserve(stmt):
        # the tape was sized for all its pushes before launch: growing it is a no-op
        if isinstance(stmt, gast.Assign) and _call_name(stmt.value) == "rt.reserve":
            stmt.value = stmt.value.args[0]
            setattr(stmt, WORKSPACE_MARK, True)
            return [stmt]
        return None

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
        if target in tapes:
            size, fill = tapes[target], None
        else:
            size = sizes.dim(call.args[0], 0) if fname in _LIKE else sizes.size(call.args[0])
            fill = _SIZED[fname] if fname in _SIZED else _LIKE[fname]
        if size is None:
            raise ctx.error(stmt, f"the size of '{target}' is not known before the kernel is launched",
                            hint="use a size that is a constant (a module constant, a closure variable, a "
                                 "static_argnums value) or an argument's shape, or use the numba backend")
        sizes.arrays[target] = size
        if fill == "fill":
            fill = call.args[1] if len(call.args) > 1 else None
        dtype = f"np.{kind.dtype}"
        if isinstance(size, int) and size <= LOCAL_MAX and target not in returned:
            new = parse_stmts(f"{target} = {cuda_api.local_array(max(size, 1), dtype)}")
            extent = str(size)
        else:
            buf = Buffer(ctx.namer.fresh("_ws"), kind.dtype, size, target)
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
