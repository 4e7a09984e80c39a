"""element_reductions: reductions along axes in the statements ``element_loops`` lowers. Sums and
means along one axis, or several, of elementwise expressions become element loops (``axis_sum``, asked first for each
statement), and a reduction inside an otherwise elementwise value is computed first, as a statement of
its own (``hoisted``).

``s = rt.sum_axis(e * w, 1, True)`` computes ``e * w`` into a temporary and sums it in a second pass. Where
the shapes know the summed expression's shape, the statement becomes an array of zeros of the reduced
shape and an addition into it,

    s = np.zeros((e.shape[0], 1), np.float64)
    s += rt.unbroadcast(e * w, s)

which ``element_loops`` lowers as it lowers every un-broadcast addition: one nest over the expression's
elements adding each into its row's sum (``s[_e0, 0] += e[_e0, _e1] * w[_e0, _e1]``), no temporary. The
nests of neighbouring statements over the same rows may then share their loop over rows
(``loop_fusion``). A mean divides the sums by the count afterwards. Without ``keepdims`` the sum along
leading axes is the un-broadcast itself (its axes align from the last); along others the sums are made
with the axes kept and the result is a view of them without them (``s = _r1[:, 0]``, ``_r1[:, 0, 0, :]``).

Only float64 results of expressions the shapes know are taken; anything else stays the call.
"""
import copy

import gast

from ..analysis.shapes import ONE
from ..base.ast_utils import dotted, name, parse_expr, to_source
from ..base.errors import TranspileError
from ..base.kinds import Kind
from ..base.naming import ELEMENT_LOCALS
from .element_forms import assign_to, elementwise, float_array, is_operand, operands, put, reductions_inside

REDUCED = ELEMENT_LOCALS[4]
_REDUCTIONS = ("rt.sum_axis", "rt.mean_axis")


def axis_sum(lowering, target, value):
    """The statements of ``target = rt.sum_axis(E, axis, keepdims)`` (or ``rt.mean_axis``) as an addition
    into zeros that ``lowering`` (an ``element_loops.ElementLoops``) lowers to loops; None where the
    statement is not of that form or the loops do not apply."""
    if not (isinstance(target, gast.Name) and isinstance(value, gast.Call) and dotted(value.func) in _REDUCTIONS
            and len(value.args) == 3 and not value.keywords):
        return None
    summed, axis, keep = value.args
    given = axis.elts if isinstance(axis, gast.Tuple) else [axis]
    if not (given and all(isinstance(a, gast.Constant) and type(a.value) is int for a in given) and
            isinstance(keep, gast.Constant) and isinstance(keep.value, bool)):
        return None
    if not float_array(lowering.kinds.get(target.id)) or not (elementwise(summed) and not isinstance(summed, gast.Constant)):
        return None
    shape = lowering.shapes.known(summed)
    if not shape:
        return None
    rank = len(shape)
    ks = sorted({a.value + rank if a.value < 0 else a.value for a in given})
    if len(ks) != len(given) or not all(0 <= k < rank and shape[k] != ONE for k in ks):
        return None
    like = next((leaf for leaf in operands(summed) if is_operand(leaf) and lowering.shapes.known(leaf) == shape), None)
    if like is None:
        return None
    length = f"{to_source(like).strip()}.shape"
    # without keepdims, sums along leading axes are the un-broadcast itself (its axes align from the last);
    # along others they are made with the axes kept, the result a view without them
    drop = not keep.value and ks == list(range(len(ks)))
    kept = not keep.value and not drop
    dest = lowering.ctx.namer.fresh(REDUCED) if kept else target.id
    dims = [f"{length}[{j}]" if j not in ks else "1" for j in range(rank) if not (drop and j in ks)]
    reduced = tuple(t if j not in ks else ONE for j, t in enumerate(shape) if not (drop and j in ks))
    facts = (lowering.kinds, lowering.roots, lowering.shapes.of)
    before = [table.get(dest) for table in facts]
    for table, fact in zip(facts, (Kind("float64", len(reduced)), dest, reduced)):
        table[dest] = fact
    add = gast.AugAssign(target=name(dest, store=True), op=gast.Add(),
                         value=gast.Call(func=parse_expr("rt.unbroadcast"), args=[copy.deepcopy(summed), name(dest)],
                                         keywords=[]))
    lowered = lowering.statement(add)
    if lowered is None or not any(isinstance(s, (gast.For, gast.If)) for s in lowered):
        for table, fact in zip(facts, before):       # as they were: the statement stays the call
            if fact is None:
                table.pop(dest, None)
            else:
                table[dest] = fact
        return None
    out = [assign_to(dest, parse_expr(f"np.zeros(({', '.join(dims)},), np.float64)"))] + lowered
    if dotted(value.func) == "rt.mean_axis":
        count = " * ".join(f"{length}[{k}]" for k in ks)
        out.append(gast.AugAssign(target=name(dest, store=True), op=gast.Div(), value=parse_expr(count)))
    if kept:
        index = ", ".join("0" if j in ks else ":" for j in range(rank))
        out.append(assign_to(target.id, parse_expr(f"{dest}[{index}]")))
    return out


def hoisted(lowering, s, value):
    """For ``lowering`` (an ``element_loops.ElementLoops``), an elementwise value but for reductions along
    axes of elementwise operands (``bm * (x == m) / rt.sum_axis(x == m, 1, True)``, as rules write them):
    each reduction becomes a statement of its own before ``s`` (a pure call: computing it first changes
    nothing), and ``s`` reads its result as an operand. Returns those statements (``s`` is changed) or []
    where there is none to take out."""
    if not isinstance(value, gast.AST) or elementwise(value):
        return []
    found = reductions_inside(value)
    taken = []
    for node, place in found:
        try:
            kind = lowering.ctx.expr_kind(node)
        except (TranspileError, TypeError, ValueError, KeyError):
            # names the kind inference never saw (a tangent made later), or a form it does not read
            # (axes given as a tuple): the statement is left as it is
            return []
        if not isinstance(kind, Kind):
            return []
        taken.append((lowering.ctx.namer.fresh(REDUCED), kind, node, place))
    for local, _, _, place in taken:
        put(place, name(local))
    if not taken or not elementwise(value):     # something else keeps it from being one loop: as it was
        for _, _, node, place in taken:
            put(place, node)
        return []
    for local, kind, node, _ in taken:
        lowering.kinds[local] = kind
        lowering.roots[local] = local           # a reduction's result is a new array
        shape = lowering.shapes.known(node)
        if shape is not None:
            lowering.shapes.of[local] = shape
    return [gast.Assign(targets=[name(local, store=True)], value=node, type_comment=None)
            for local, _, node, _ in taken]
