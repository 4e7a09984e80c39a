"""lower_indexing: reads and writes through integer index arrays and boolean masks become basic
indexing and run-time helpers every transform knows (see ``rules/advanced``).

A read ``y = x[i, :, idx]`` becomes a basic view, the flat positions the index arrays pick in the
axes they index, and a gather of them (a new array, as in NumPy)::

    _picked = x[i, :, :]
    _positions = rt.axis_positions(idx, _picked.shape[1])
    y = rt.gather(_picked, _positions, 1, 1)

A write ``x[mask] = v`` becomes a loop writing each picked part in turn through the basic view,
so the aliasing model, the tapes of overwritten values and every derivative see ordinary writes;
a repeated position is written again, the last write winning as in NumPy. Runs after ``infer``
(the choice depends on the kinds of the index) and before ``in_place``, which must see a gathered
array as a new buffer rather than a view of ``x``.
"""
import copy

import gast

from ..base.ast_utils import assign, const, name
from ..base.kinds import INT, Kind
from ..rules.advanced import advanced
from ..rules.common import StaticError
from .functional_updates import SCATTER_ATTR


def _load(value, index):
    return gast.Subscript(value=value, slice=index, ctx=gast.Load())


def _call(helper, *args):
    return gast.Call(func=gast.Attribute(value=name("rt"), attr=helper, ctx=gast.Load()), args=list(args), keywords=[])


def _shape(array, axis):
    return _load(gast.Attribute(value=name(array), attr="shape", ctx=gast.Load()), const(axis))


def _index(elts):
    return elts[0] if len(elts) == 1 else gast.Tuple(elts=elts, ctx=gast.Load())


def _colon():
    return gast.Slice(lower=None, upper=None, step=None)


class _Lower:
    def __init__(self, ctx):
        self.ctx = ctx

    def fresh(self, base, kind):
        var = self.ctx.namer.fresh(base)
        self.ctx.kinds[var] = kind
        return var

    def plan(self, s, array, index):
        """(statements, basic view name, Advanced, flat positions name) for ``array[index]``, or None
        for a basic index."""
        base = self.ctx.expr_kind(array)
        if not isinstance(base, Kind) or not base.is_array:
            return None
        elts = list(index.elts) if isinstance(index, gast.Tuple) else [index]
        parts = ["slice" if isinstance(e, gast.Slice) else
                 "newaxis" if isinstance(e, gast.Constant) and e.value is None else self.ctx.expr_kind(e) for e in elts]
        try:
            adv = advanced(parts)
        except StaticError as exc:
            raise self.ctx.error(s, f"indexing: {exc}", hint=exc.hint)
        if adv is None:
            return None
        out = []
        basic = [copy.deepcopy(e) for e in elts[:adv.first]] + \
            [_colon() for _ in range(adv.count)] + [copy.deepcopy(e) for e in elts[adv.last + 1:]]
        if all(isinstance(e, gast.Slice) and e.lower is None and e.upper is None and e.step is None for e in basic):
            picked = array.id
        else:
            scalars = sum(1 for p in parts if isinstance(p, Kind) and p.ndim == 0)
            picked = self.fresh("_picked", base.with_ndim(base.ndim - scalars + parts.count("newaxis")))
            out.append(assign(picked, _load(copy.deepcopy(array), _index(basic))))
        arrays = elts[adv.first:adv.last + 1]
        if adv.mask:
            flat = self.fresh("_positions", INT.with_ndim(1))
            shape = gast.Attribute(value=name(picked), attr="shape", ctx=gast.Load())
            out.append(assign(flat, _call("mask_positions", copy.deepcopy(arrays[0]), shape, const(adv.axis))))
            return out, picked, adv, flat
        flat = None
        for c, arr in enumerate(arrays):
            ndim = self.ctx.expr_kind(arr).ndim
            pos = self.fresh("_positions", INT.with_ndim(ndim))
            out.append(assign(pos, _call("axis_positions", copy.deepcopy(arr), _shape(picked, adv.axis + c))))
            if flat is None:
                flat = pos
                continue
            # positions in the merged axes, in C order: flat * n_c + pos
            width = self.fresh("_width", INT)
            scaled = self.fresh("_positions", INT.with_ndim(max(self.ctx.kinds[flat].ndim, ndim)))
            merged = self.fresh("_positions", INT.with_ndim(max(self.ctx.kinds[flat].ndim, ndim)))
            out += [assign(width, _shape(picked, adv.axis + c)),
                    assign(scaled, gast.BinOp(left=name(flat), op=gast.Mult(), right=name(width))),
                    assign(merged, gast.BinOp(left=name(scaled), op=gast.Add(), right=name(pos)))]
            flat = merged
        return out, picked, adv, flat

    def read(self, s):
        planned = self.plan(s, s.value.value, s.value.slice)
        if planned is None:
            return [s]
        out, picked, adv, flat = planned
        out.append(assign(s.targets[0].id, _call("gather", name(picked), name(flat), const(adv.axis),
                                                   const(adv.count))))
        return [gast.copy_location(st, s) for st in out]

    def write(self, s):
        target = s.targets[0]
        planned = self.plan(s, target.value, target.slice)
        if planned is None:
            return [s]
        op = getattr(s, SCATTER_ATTR, None)
        if op is not None:
            hint = ("add along the first axis of a flattened array: x.reshape(-1).at[i * x.shape[1] + j].add(v)"
                    ".reshape(x.shape)" if op == "add" else
                    f"write the loop over the positions: for k in range(i.shape[0]): x = x.at[i[k]].{op}(v[k])")
            raise self.ctx.error(s, f".at[...].{op}(...) with arrays of positions is not supported here (a repeated "
                                    "position must take every value)", hint=hint)
        out, picked, adv, flat = planned
        ctx = self.ctx
        flat_ndim = ctx.kinds[flat].ndim
        if flat_ndim != 1:
            ravelled = self.fresh("_positions", INT.with_ndim(1))
            out.append(assign(ravelled, gast.Call(func=gast.Attribute(value=name("np"), attr="ravel", ctx=gast.Load()),
                                                  args=[name(flat)], keywords=[])))
            flat = ravelled
        k, q = self.fresh("_k", INT), self.fresh("_position", INT)
        body = [assign(q, _load(name(flat), name(k)))]
        where = [None] * adv.count
        for c in reversed(range(adv.count)):
            if c == 0:
                where[c] = q
                break
            width, j, rest = self.fresh("_width", INT), self.fresh("_j", INT), self.fresh("_position", INT)
            body += [assign(width, _shape(picked, adv.axis + c)),
                     assign(j, gast.BinOp(left=name(q), op=gast.Mod(), right=name(width))),
                     assign(rest, gast.BinOp(left=name(q), op=gast.FloorDiv(), right=name(width)))]
            where[c], q = j, rest
        body += self.part_written(s, picked, adv, flat_ndim, k, where)
        loop = gast.For(target=name(k, store=True), body=body, orelse=[], type_comment=None,
                        iter=gast.Call(func=name("range"), args=[const(0), _shape(flat, 0), const(1)], keywords=[]))
        out.append(loop)
        return [gast.fix_missing_locations(gast.copy_location(st, s)) for st in out]

    def part_written(self, s, picked, adv, flat_ndim, k, where):
        """The statements writing the part of ``s``'s value that goes to position ``k``."""
        ctx = self.ctx
        value = s.value
        vkind = ctx.expr_kind(value)
        pkind = ctx.kinds[picked]
        lead = [_colon() for _ in range(adv.axis)]
        target = gast.Subscript(value=name(picked), slice=_index(lead + [name(w) for w in where]), ctx=gast.Store())
        # the value broadcasts against the gathered shape; its axis at the positions (if it has one)
        gathered_ndim = pkind.ndim - adv.count + flat_ndim
        axis = adv.axis - (gathered_ndim - vkind.ndim)
        if not isinstance(vkind, Kind) or vkind.ndim == 0 or axis < 0:
            return [gast.Assign(targets=[target], value=copy.deepcopy(value), type_comment=None)]
        if flat_ndim != 1 or not isinstance(value, gast.Name):
            raise ctx.error(s, "indexing: writing an array through a multi-dimensional index array is not supported",
                            hint="write through a one-dimensional index, or assign a number")
        # `_k % length` picks entry _k, or entry 0 where the value broadcasts along that axis
        length, at = self.fresh("_length", INT), self.fresh("_at", INT)
        part = self.fresh("_part", vkind.with_ndim(vkind.ndim - 1))
        return [assign(length, _shape(value.id, axis)),
                assign(at, gast.BinOp(left=name(k), op=gast.Mod(), right=name(length))),
                assign(part, _load(name(value.id), _index([_colon() for _ in range(axis)] + [name(at)]))),
                gast.Assign(targets=[target], value=name(part), type_comment=None)]


def _block(stmts, lower):
    out = []
    for s in stmts:
        if isinstance(s, (gast.For, gast.While, gast.If)):
            s.body = _block(s.body, lower)
            s.orelse = _block(s.orelse, lower)
            out.append(s)
        elif isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Subscript):
            out.extend(lower.write(s))
        elif isinstance(s, gast.Assign) and isinstance(s.value, gast.Subscript):
            out.extend(lower.read(s))
        else:
            out.append(s)
    return out


def run(tree, ctx):
    tree.body = _block(tree.body, _Lower(ctx))
    return tree
