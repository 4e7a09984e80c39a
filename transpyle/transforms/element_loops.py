"""element_loops: elementwise array statements become explicit loops over the elements (Numba code).

After ``fuse`` an elementwise chain is one statement (``inner[:] = inner + k * (u[:-2] - 2.0 * u[1:-1]
+ u[2:])``, ``bu[1:-1] += -b_t1 * 2.0``). Numba compiles such a statement as a loop with a result
array and a generic broadcasting copy, several times slower than a plain loop; so, for the code Numba
compiles (``lanes == "loops"``), a statement whose array operands have the shape of its result
(trailing axes for operands of lower rank, as NumPy broadcasts them) becomes

    _a1 = u[:-2]                       # views hoisted out of the loop
    for _e0 in range(inner.shape[0]):
        inner[_e0] = inner[_e0] + k * (_a1[_e0] - ...)

with no temporary. Shapes that ``analysis/shapes`` proves equal (slices of one array with the same
length, ``u[:-2]`` and ``u[2:]``) need nothing more; others are compared when the statement runs
(``if rt.conform(b1, _t2):`` the loop, else the statement as written, which broadcasts axes
of length one). Forms: ``x = E`` (x is made with ``np.empty`` and filled), ``X[part] = E`` and
``X[part] op= E`` / ``x op= E`` (written in place), and ``s = np.sum(E)`` (summed as it is computed);
sums along one axis are ``element_reductions``'. Operands that broadcast against each other
(``x[None, :, :] - x[:, None, :]``) make ``x = E`` with the broadcast shape, and the loops run over it.

Writing in place is exact only when no operand reads memory the loop has already written at another
element: an operand whose buffer is the destination's (the same root, through views and names) and
that is not the destination itself, or whose buffer is unknown, makes the loop compute ``E`` into a
new array first and then write it (two loops, still no generic copy). Arguments count as one buffer
(a caller may pass the same array twice). Only float64 results and operands are lowered: the loop
computes in the operands' precision as NumPy does. ``TRANSPYLE_ELEMENT_LOOPS=0`` switches the lowering
off (the statements stay NumPy expressions, as the NumPy backend and transforms of generated code read
them).
"""
import copy

import gast

from ..analysis.shapes import Shapes
from ..base.ast_utils import is_comment, is_new_axis, name, parse_expr, subscript_parts
from ..base.kinds import Kind
from ..base.naming import ELEMENT_INDEX, ELEMENT_LOCALS
from ..base.settings import switched_off
from ..analysis.shapes import ONE
from . import adjoint_buffers, element_reductions, loop_fusion
from .element_forms import (assign_to, boolean, buffer_roots, element_at, elementwise, float_array, index_at, is_operand,
                            mask_array, masks_as_numbers, names_in, number_kind, operands, outer_operands, result_dims,
                            rewrite, same_memory, sum_of, unbroadcast_of)

OPERAND, OUT, ELEMENT, NEW = ELEMENT_LOCALS[:4]


def enabled():
    """``TRANSPYLE_ELEMENT_LOOPS=0`` keeps elementwise statements as NumPy expressions everywhere."""
    return not switched_off("TRANSPYLE_ELEMENT_LOOPS")


def run(tree, ctx, job):
    """Lower the elementwise statements of ``tree`` where Numba compiles it (see the module docstring)."""
    if enabled() and job.lanes == "loops" and job.mode in ("primal", "grad", "value_and_grad", "vjp", "jvp"):
        before = copy.deepcopy(tree)
        if ElementLoops(tree, ctx).lower():
            # Python runs the NumPy expressions far faster than loops over the elements: a run that
            # answers while Numba compiles (backends/tiers) executes this form
            ctx.array_form = before
            adjoint_buffers.settle(tree, ctx)
            loop_fusion.fuse_loops(tree, ctx.kinds, Shapes(tree, ctx.kinds, ctx.arg_lengths))
    return tree


class ElementLoops:
    """The lowering of one function: its shapes, its buffers' roots, and the loop index names."""

    def __init__(self, fn, ctx):
        self.fn, self.ctx, self.kinds = fn, ctx, ctx.kinds
        self.shapes = Shapes(fn, self.kinds, self.ctx.arg_lengths)
        self.roots = buffer_roots(fn, self.kinds)
        self.index_names = []

    def lower(self):
        """Lower the function's statements; whether any was."""
        self.lowered = False
        self.fn.body = self.block(self.fn.body, top=True)
        return self.lowered

    def block(self, stmts, top=False):
        """The statements lowered; after each statement of the function's own body (which runs whenever
        the ones after it do) the shapes take in the axis lengths it shows equal."""
        out = []
        for s in stmts:
            if isinstance(s, (gast.For, gast.While, gast.If)):
                s.body = self.block(s.body)
                s.orelse = self.block(s.orelse)
            lowered = None if is_comment(s) else self.statement(s)
            self.lowered = self.lowered or lowered is not None
            out.extend(lowered if lowered is not None else [s])
            if top:
                self.shapes.learn(s)
        return out

    # ---- one statement ----------------------------------------------------------------------------
    def statement(self, s):
        if isinstance(s, gast.Assign) and len(s.targets) == 1:
            target, value, op = s.targets[0], s.value, None
        elif isinstance(s, gast.AugAssign):
            target, value, op = s.target, s.value, s.op
        else:
            return None
        summed = element_reductions.axis_sum(self, target, value) if op is None else None
        if summed is not None:
            return summed
        reductions = element_reductions.hoisted(self, s, value)
        if reductions:
            lowered = self.statement(s)
            return reductions + (lowered if lowered is not None else [s])
        shape_of = None
        if unbroadcast_of(value) is not None:
            # rt.unbroadcast(E, T) is E where E has T's shape: the loops run over T, and an operand of T's
            # rank is tested to have T's shape (all are: those of lower rank its trailing axes)
            value, shape_of = unbroadcast_of(value)
        reduced = self.reduction(target, value, shape_of, op) if shape_of is not None else None
        if reduced is not None:
            lowered = reduced
        elif isinstance(target, gast.Name) and op is None:
            summed = sum_of(value) if shape_of is None else None
            lowered = self.summed(target.id, summed) if summed is not None else \
                self.made(target.id, value, shape_of)
        else:
            if shape_of is not None and not same_memory(shape_of, target):
                return None
            lowered = self.written(target, value, op, full=shape_of is not None)
        if lowered is None:
            return None
        hoisted, checks, loops = lowered
        if not checks:
            return hoisted + loops
        # shapes the analysis cannot prove equal are compared when the statement runs: where they
        # differ (an axis of length one broadcast), the statement runs as written
        test = parse_expr(" and ".join(checks))
        return hoisted + [gast.If(test=test, body=loops, orelse=[s])]

    def reduction(self, target, value, shape_of, op):
        """``v = rt.unbroadcast(E, T)`` and ``x += rt.unbroadcast(E, x)`` where E's shape is known to be
        T's with axes stretched (``keepdims`` axes of length one, leading axes): the loops run over E's
        elements and add each into T's element (read at 0 along a stretched axis), without E."""
        into, result = self.shapes.shape_of(shape_of), self.shapes.known(value)
        if not isinstance(into, tuple) or into == result:
            return None
        if result is not None:
            rank = len(result)
        else:
            ranks = [self.rank(leaf) for leaf in operands(value) if is_operand(leaf)]
            rank = max((r for r in ranks if r is not None), default=None)
        if not rank or rank < len(into) or ONE not in into and len(into) == rank:
            return None             # not known to be smaller than the value: un-broadcasting sums nothing
        if isinstance(target, gast.Name) and op is None:
            kind = self.kinds.get(target.id)
            if not float_array(kind) or kind.ndim != len(into) or target.id in names_in(value):
                return None
            hoisted = []
            if isinstance(shape_of, gast.Subscript) and is_operand(shape_of) and self.rank(shape_of) == len(into):
                # the shape of a part (``rt.unbroadcast(E, x[:, i:i + k, None])``): the part, taken once
                local = self.ctx.namer.fresh(OPERAND)
                hoisted = [assign_to(local, copy.deepcopy(shape_of))]
                self.kinds[local] = kind
                self.shapes.of[local] = into
                shape_of = name(local)
            if not isinstance(shape_of, gast.Name):
                return None
            dest, start = target.id, [assign_to(target.id, parse_expr(f"np.zeros({shape_of.id}.shape, np.float64)"))]
        elif isinstance(op, gast.Add) and same_memory(shape_of, target) and \
                float_array(self.kinds.get(array_of(target))):
            if isinstance(target, gast.Name):
                dest, hoisted = target.id, []
            else:
                dest = self.ctx.namer.fresh(OUT)
                hoisted = [assign_to(dest, gast.Subscript(value=name(target.value.id), slice=copy.deepcopy(target.slice),
                                                          ctx=gast.Load()))]
            start = []
            if dest in names_in(value):
                return None
        else:
            return None
        plan = self.plan(value, rank, None)
        if plan is None:
            return None
        more, leaves, like, checks = plan
        # the axes of the cotangent's array: those of length one are read at 0, the others are the
        # loop's (proven, or compared when the statement runs)
        axes = stretched_axes(into, result, rank) if result is not None else None
        if axes is None:
            if not isinstance(shape_of, gast.Name):
                return None
            axes, compared = self.partly_known(shape_of, shape_of.id, like, rank, len(into))
            if axes is None:
                return None
            checks = checks + compared
        roots = {self.roots.get(array_of(leaf))
                 for leaf, _, r in leaves.values() if r}
        mine = self.roots.get(array_of(target))
        if not start and (mine is None or None in roots or mine in roots):
            return None         # an operand may read what the loop adds into
        return hoisted + more, checks, start + self.loops(like, rank, lambda ix: [
            gast.AugAssign(target=element_at(dest, index_at(axes, ix)), op=gast.Add(), value=rewrite(value, leaves, ix))])

    def made(self, var, value, shape_of=None):
        """``var = E``: a new array, filled by the loop (of the shape of the array ``shape_of``, where given)."""
        kind = self.kinds.get(var)
        mask = mask_array(kind) and boolean(value, self.leaf_kind)      # m = x * y > 0: a bool per element
        if not (float_array(kind) or mask) or is_operand(value) or var in names_in(value):
            return None
        if shape_of is not None and (self.rank(shape_of) != kind.ndim or not isinstance(shape_of, gast.Name)):
            return None
        dest = (shape_of.id, shape_of) if shape_of is not None else None
        # operands broadcast against each other: the array is made with the result's shape and the loops
        # run over it
        dims = result_dims(self.shapes, value) if dest is None and self.shapes.same_as(value, var) else None
        if dims is not None:
            dest = (var, name(var))
        plan = self.plan(value, kind.ndim, dest, full=shape_of is not None)
        if plan is None:
            return None
        hoisted, leaves, like, checks = plan
        shape = f"({', '.join(f'{leaves[id(leaf)][1]}.shape[{j}]' for leaf, j in dims)},)" if dims else f"{like}.shape"
        alloc = assign_to(var, parse_expr(f"np.empty({shape}, {'np.bool_' if mask else 'np.float64'})"))
        return hoisted, checks, [alloc] + self.loops(like, kind.ndim, lambda ix: [
            assign_to(element_at(var, ix), rewrite(value, leaves, ix))])

    def written(self, target, value, op, full=False):
        """``X[part] = E``, ``X[part] op= E``, ``x op= E``: written in place, or through a new array when
        an operand may read what the loop has written."""
        if isinstance(target, gast.Name):
            base, read = target.id, name(target.id)
        elif isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name):
            base = target.value.id
            read = gast.Subscript(value=name(base), slice=copy.deepcopy(target.slice), ctx=gast.Load())
        else:
            return None
        rank = self.rank(read)
        if not float_array(self.kinds.get(base)) or not rank:
            return None
        if isinstance(read, gast.Name):
            dest, hoisted = base, []
        else:
            dest = self.ctx.namer.fresh(OUT)
            hoisted = [assign_to(dest, read)]
        plan = self.plan(value, rank, (dest, read), full)
        if plan is None:
            return None
        more, leaves, _, checks = plan
        hoisted += more
        loops = []
        element = lambda ix: rewrite(value, leaves, ix)      # noqa: E731
        if self.overlaps(read, base, leaves):
            scratch = self.ctx.namer.fresh(NEW)
            loops.append(assign_to(scratch, parse_expr(f"np.empty({dest}.shape, np.float64)")))
            loops += self.loops(dest, rank, lambda ix: [assign_to(element_at(scratch, ix), rewrite(value, leaves, ix))])
            element = lambda ix: element_at(scratch, ix, load=True)  # noqa: E731

        def body(ix):
            if op is None:
                return [assign_to(element_at(dest, ix), element(ix))]
            return [gast.AugAssign(target=element_at(dest, ix), op=copy.deepcopy(op), value=element(ix))]
        return hoisted, checks, loops + self.loops(dest, rank, body)

    def summed(self, var, value):
        """``s = np.sum(E)``: summed as the elements are computed, without the array."""
        kind = self.kinds.get(var)
        if not isinstance(kind, Kind) or kind.dtype != "float64" or kind.ndim:
            return None
        plan = self.plan(value, None, None)
        if plan is None:
            return None
        hoisted, leaves, like, checks = plan
        rank = self.rank_of_local(like, leaves)
        return hoisted, checks, [assign_to(var, gast.Constant(value=0.0, kind=None))] + self.loops(like, rank, lambda ix: [
            gast.AugAssign(target=name(var, store=True), op=gast.Add(), value=rewrite(value, leaves, ix))])

    # ---- the operands -----------------------------------------------------------------------------
    def plan(self, value, rank, dest, full=False):
        """For an elementwise ``value`` with array operands of rank at most ``rank`` (None: the largest
        operand's): (hoisted statements, {id of an operand: (operand, name read in the loop, rank)}, the
        name of an array of the loop's shape, the shape comparisons to make when the statement runs).
        ``dest``: (its name, its expression) where the loop writes into an array, which gives the
        shape; ``full``: an operand must have all of that shape (the value is un-broadcast to it). None
        where ``value`` is not such an expression."""
        if not elementwise(value) or not masks_as_numbers(value, self.leaf_kind):
            return None
        hoisted, leaves = [], {}
        outer_axis = outer_operands(value)
        for leaf in operands(value):
            if isinstance(leaf, gast.Constant):
                if not isinstance(leaf.value, (int, float)):
                    return None
                continue
            kind = self.leaf_kind(leaf)
            # array operands of floats, or of integers (counts: rt.sum_axis(x == m, 1, True)); the target,
            # checked by the caller, holds floats
            if kind is None or kind.ndim == 0 and not number_kind(kind) or \
                    kind.ndim and kind.dtype not in ("float64", "int64", "bool"):
                return None
            if kind.ndim == 0:
                if isinstance(leaf, gast.Subscript):      # an element, read once before the loop
                    local = self.ctx.namer.fresh(ELEMENT)
                    hoisted.append(assign_to(local, copy.deepcopy(leaf)))
                    leaves[id(leaf)] = (leaf, local, ())
                continue
            if id(leaf) in outer_axis and kind.ndim != 1:
                return None
            local = leaf.id if isinstance(leaf, gast.Name) else self.ctx.namer.fresh(OPERAND)
            if isinstance(leaf, gast.Subscript):          # a view, taken once before the loop
                hoisted.append(assign_to(local, copy.deepcopy(leaf)))
            leaves[id(leaf)] = (leaf, local, kind.ndim)
        arrays = [(leaf, local, r) for leaf, local, r in leaves.values() if r]
        if not arrays:
            return None
        top = max(2 if id(leaf) in outer_axis else r for leaf, _, r in arrays)
        rank = top if rank is None else rank
        if top > rank or full and top < rank:
            return None                  # NumPy broadcasts no operand into a smaller result
        # where each operand is read: trailing axes, or one axis of the two an outer product spans
        for leaf, local, r in arrays:
            axes = (rank - outer_axis[id(leaf)],) if id(leaf) in outer_axis else tuple(range(rank - r, rank))
            leaves[id(leaf)] = (leaf, local, axes)
        if dest is not None:
            ref, ref_node = dest
        else:
            full = [(leaf, local) for leaf, local, r in arrays if r == rank and id(leaf) not in outer_axis]
            if not full:
                return None
            # the loops run over an operand of the result's shape where the shapes say which
            result = self.shapes.known(value)
            ref_node, ref = next((f for f in full if result is not None and self.shapes.known(f[0]) == result), full[0])
        ref_shape = self.shapes.known(ref_node)
        checks = []
        for leaf, local, r in arrays:
            if id(leaf) in outer_axis:
                axis = rank - outer_axis[id(leaf)]
                known = self.shapes.known(leaf)
                if not (known and ref_shape and len(known) == 1 and len(ref_shape) == rank and
                        known[0] == ref_shape[axis]):
                    checks.append(f"{local}.shape[0] == {ref}.shape[{axis}]")
                continue
            if local == ref or dest is not None and same_memory(leaf, dest[1]):
                continue
            # proven shapes: each axis the loop's, or of length one (read at 0: NumPy stretches it); axes
            # of length one known, the others compared when the statement runs
            axes = stretched_axes(self.shapes.known(leaf), ref_shape, rank)
            if axes is None:
                axes, compared = self.partly_known(leaf, local, ref, rank, r)
                checks += compared
            if axes is not None:
                leaves[id(leaf)] = (leaf, local, axes)
            else:
                checks.append(f"rt.conform({local}, {ref})")
        return hoisted, leaves, ref, list(dict.fromkeys(checks))

    def partly_known(self, node, local, ref, rank, r):
        """(axes, shape comparisons) for an operand of rank ``r`` with axes known to be of length one
        (read at 0) and others compared with the loop's array ``ref``; (None, []) where it has none."""
        shape = self.shapes.shape_of(node)
        if not isinstance(shape, tuple) or len(shape) != r or ONE not in shape:
            return None, []
        off, axes, checks = rank - r, [], []
        for j, term in enumerate(shape):
            if term == ONE:
                axes.append(None)
            else:
                axes.append(off + j)
                checks.append(f"{local}.shape[{j}] == {ref}.shape[{off + j}]")
        return tuple(axes), checks

    def rank(self, node):
        """The rank of a name or a basic part of an array, from the kinds."""
        if isinstance(node, gast.Name):
            kind = self.kinds.get(node.id)
            return kind.ndim if isinstance(kind, Kind) else None
        base = self.kinds.get(node.value.id)
        if not isinstance(base, Kind) or not is_operand(node):
            return None
        parts = subscript_parts(node)
        new_axes = sum(1 for p in parts if is_new_axis(p))
        indices = sum(1 for p in parts if not isinstance(p, gast.Slice) and not is_new_axis(p))
        if len(parts) - new_axes > base.ndim:
            return None
        if not all(isinstance(p, gast.Slice) or is_new_axis(p) or self.shapes.integer(p) for p in parts):
            return None
        return base.ndim + new_axes - indices

    def leaf_kind(self, leaf):
        if isinstance(leaf, gast.Name):
            kind = self.kinds.get(leaf.id)
            return kind if isinstance(kind, Kind) else None
        base, rank = self.kinds.get(leaf.value.id), self.rank(leaf)
        return base.with_ndim(rank) if isinstance(base, Kind) and rank is not None else None

    @staticmethod
    def rank_of_local(local, leaves):
        return next(len(axes) for _, name_, axes in leaves.values() if name_ == local)

    def overlaps(self, dest, base, leaves):
        """Whether an operand may read memory of the destination other than the element being written."""
        root = self.roots.get(base)
        for leaf, _, axes in leaves.values():
            if not axes or same_memory(leaf, dest):
                continue
            other = self.roots.get(array_of(leaf))
            if root is None or other is None or other == root:
                return True
        return False

    def loops(self, extent_of, rank, body):
        """``for _e0 in range(X.shape[0]): for _e1 ...: body`` over the axes of the array named ``extent_of``."""
        while len(self.index_names) < rank:
            self.index_names.append(self.ctx.namer.exact_or_fresh(f"{ELEMENT_INDEX}{len(self.index_names)}"))
        ix = [name(i) for i in self.index_names[:rank]]
        stmts = body(ix)
        for k in reversed(range(rank)):
            stmts = [gast.For(target=name(self.index_names[k], store=True),
                              iter=parse_expr(f"range({extent_of}.shape[{k}])"), body=stmts, orelse=[],
                              type_comment=None)]
        return stmts


def array_of(node):
    """The name of the array an operand or a target reads: ``x`` of ``x`` and of ``x[part]``."""
    return node.id if isinstance(node, gast.Name) else node.value.id


def stretched_axes(shape, loop_shape, rank):
    """The loop axes an operand of symbolic ``shape`` runs along in loops over ``loop_shape`` (of ``rank``
    axes), aligned from the last: an equal axis is the loop's, an axis of length one is read at 0
    (None); None where the shapes do not prove that NumPy broadcasts the operand so."""
    if shape is None or loop_shape is None or len(loop_shape) != rank or len(shape) > rank:
        return None
    off, axes = rank - len(shape), []
    for j, term in enumerate(shape):
        if term == loop_shape[off + j]:
            axes.append(off + j)
        elif term == ONE:
            axes.append(None)
        else:
            return None
    return tuple(axes)
