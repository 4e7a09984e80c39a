"""Writes in A-normal form: a library call that writes into an argument (``np.copyto``, ``np.put``;
``rules/writes``) becomes the statements it stands for, an at-update (``x.at[i].set(v)``) a copy written into,
and an augmented assignment its operation and store (``x += v`` marked as possibly in place, ``x[i] += v``
as a read, the operation and a write).

``WriteNormalization`` is a part of normalize's normalizer: it uses the normalizer's ``atom``, ``pure``,
``index``, ``stmt``, ``assign_to``, ``located``, ``fresh`` and ``current``.
"""
import copy

import gast

from ..analysis.aliases import IN_PLACE_ATTR, TARGET_SHAPED_ATTR
from ..base.ast_utils import all_names, assign, const, name, parse_expr, parse_stmts, substitute
from .functional_updates import AT_UPDATES, SCATTER_ATTR, SCATTERS, scatter_form


class WriteNormalization:
    """The normalizer's writes into arrays."""

    def write(self, node, writer, out):
        """A library call that writes into an argument: the statements it stands for (``rules/writes``).
        Its value is None, which nothing may read."""
        if len(node.args) > len(writer.params) or any(kw.arg not in writer.params for kw in node.keywords):
            raise self.ctx.error(node, f"{writer.spelling} is supported as {writer.spelling}"
                                       f"({', '.join(writer.params)})")
        bound = dict(zip(writer.params, node.args))
        bound.update({kw.arg: kw.value for kw in node.keywords})
        if set(bound) != set(writer.params):
            raise self.ctx.error(node, f"{writer.spelling} needs the arguments {', '.join(writer.params)}")
        # a list argument is an array to NumPy's writers (the positions of np.put)
        subs = {p: self.atom(gast.Call(func=parse_expr("np.array"), args=[v], keywords=[])
                             if isinstance(v, gast.List) else v, out) for p, v in bound.items()}
        stmts = parse_stmts(writer.template)
        subs.update({v: name(self.fresh(v)) for v in sorted(all_names(stmts)) if v.startswith("_")})
        stmts = [substitute(st, subs) for st in stmts]
        for st in stmts:
            for n in gast.walk(st):
                if "lineno" in getattr(n, "_attributes", ()):
                    gast.copy_location(n, node)
        saved, self.current = self.current, stmts[0]
        for st in stmts:
            self.stmt(st, out)
        self.current = saved
        return const(None)

    def functional_update(self, node, array, index, op, value, out):
        """``array.at[index].op(value)``: a copy of the array with that part updated."""
        arr = self.atom(array, out)
        form = scatter_form(op, index)
        if form == "unbuffered":       # repeated positions take every value (functional, like the copy below)
            if isinstance(index, gast.List):     # positions written out: an array of them, as NumPy reads them
                index = gast.Call(func=parse_expr("np.array"), args=[index], keywords=[])
            call = gast.Call(func=parse_expr(SCATTERS[op]), args=[arr, index, value], keywords=[])
            return self.atom(gast.copy_location(call, node), out)
        new = self.fresh()
        out.append(self.located(assign(new, gast.Call(func=parse_expr("np.copy"), args=[arr], keywords=[])), node))
        index = self.pure(index, out)
        part = gast.Subscript(value=name(new), slice=copy.deepcopy(index), ctx=gast.Load())
        combine = AT_UPDATES[op]
        if combine is None:
            result = value
        elif combine.startswith("np."):
            result = gast.Call(func=parse_expr(combine), args=[part, value], keywords=[])
        else:
            result = gast.BinOp(left=part, op=getattr(gast, combine)(), right=value)
        v = self.atom(result, out)
        out.append(self.located(assign(gast.Subscript(value=name(new), slice=index, ctx=gast.Store()), v), node))
        if form == "checked":
            setattr(out[-1], SCATTER_ATTR, op)
        return name(new)

    def augmented_assign(self, s, out):
        """``target op= value``: the operation, then the store."""
        t = s.target
        if isinstance(t, gast.Name):
            self.assign_to(t.id, gast.BinOp(left=name(t.id), op=s.op, right=s.value), out)
            # an array is updated in its buffer, a number rebound: decided once kinds are known
            setattr(out[-1], IN_PLACE_ATTR, True)
            setattr(out[-1], TARGET_SHAPED_ATTR, True)
        elif isinstance(t, gast.Subscript):
            arr = self.atom(t.value, out)
            index = self.index(t.slice, out)
            old = self.fresh()
            out.append(self.located(assign(old, gast.Subscript(value=arr, slice=copy.deepcopy(index),
                                                                ctx=gast.Load())), s))
            new = self.atom(gast.BinOp(left=name(old), op=s.op, right=s.value), out)
            out.append(self.located(assign(gast.Subscript(value=copy.deepcopy(arr), slice=index,
                                                          ctx=gast.Store()), new), s))
            setattr(out[-1], TARGET_SHAPED_ATTR, True)
        else:
            raise self.ctx.error(s, "unsupported target of an augmented assignment")
