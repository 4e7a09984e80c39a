"""Loops in A-normal form: a ``for`` becomes a loop over ``range`` (iteration over arrays, ``enumerate``
and ``zip`` counts an index and reads the items from it; a loop over a tuple written out is unrolled) whose
bounds are evaluated once, before the loop, as Python's are; a ``while`` tests a name recomputed at the end
of its body.

``LoopNormalization`` is a part of normalize's normalizer: it uses the normalizer's ``atom``, ``pure``,
``store``, ``block``, ``assign_to``, ``located`` and ``fresh``.
"""
import copy

import gast

from ..base.ast_utils import assign, const, dotted, loaded_names, name, parse_expr, stored_names, substitute, \
    template_expr


class LoopNormalization:
    """The normalizer's ``for`` and ``while`` loops."""

    def while_loop(self, s, out):
        cond = self.fresh("_c")
        retest = copy.deepcopy(s.test)         # atomizing the first test rewrites it in place
        self.assign_to(cond, s.test, out)
        body = self.block(s.body)
        self.current = s
        self.assign_to(cond, retest, body)
        out.append(self.located(gast.While(test=name(cond), body=body, orelse=[]), s))

    def for_loop(self, s, out):
        rows = _static_rows(s.iter)
        if rows is not None:
            # a loop over a tuple written out (or a module constant), or enumerate/zip of such, is unrolled
            for elt in rows:
                body = copy.deepcopy(s.body)
                if isinstance(s.target, gast.Name) and (isinstance(elt, gast.Name) and elt.id in self.ctx.functions or
                                                        isinstance(elt, gast.Constant) and isinstance(elt.value, str)):
                    body = [substitute(b, {s.target.id: elt}) for b in body]     # functions, strings: written in
                else:
                    self.store(copy.deepcopy(s.target), elt, out, s)
                out.extend(self.block(body))
            return
        length, element = self.iterable(s.iter, out, s)
        target = s.target
        if isinstance(target, gast.Name) and element is None:
            index = target.id
            prelude = []
        else:
            index = self.fresh("_i")
            prelude = []
            self.store(target, element(name(index)), prelude, s)
        start, stop, step = length
        assigned = stored_names(s.body) | {index}
        bounds = []
        for b in (start, stop, step):
            b = self.pure(b, out)
            if loaded_names(b) & assigned:          # Python evaluates range() once, before the loop
                tmp = self.fresh("_stop")
                out.append(self.located(assign(tmp, b), s))
                b = name(tmp)
            bounds.append(b)
        call = gast.Call(func=name("range"), args=bounds, keywords=[])
        body = prelude + self.block(s.body)
        out.append(self.located(gast.For(target=name(index, store=True), iter=call, body=body, orelse=[],
                                         type_comment=None), s))

    def iterable(self, it, out, s):
        """((start, stop, step), element) for a loop's iterable; element(i) builds the item."""
        fname = dotted(it.func) if isinstance(it, gast.Call) else None
        if fname == "range":
            args = it.args
            if len(args) == 1:
                bounds = (const(0), args[0], const(1))
            else:
                bounds = (args[0], args[1], args[2] if len(args) > 2 else const(1))
            return bounds, None
        if fname == "enumerate":
            (lo, n, st), elem = self.iterable(it.args[0], out, s)
            inner = self._sequence(it.args[0], out, s)
            return (const(0), inner[0], const(1)), lambda i: gast.Tuple(elts=[i, inner[1](i)], ctx=gast.Load())
        if fname == "zip":
            seqs = [self._sequence(a, out, s) for a in it.args]
            length = seqs[0][0]
            for other, _ in seqs[1:]:
                length = gast.Call(func=name("min"), args=[length, other], keywords=[])
            return (const(0), length, const(1)), \
                lambda i: gast.Tuple(elts=[el(copy.deepcopy(i)) for _, el in seqs], ctx=gast.Load())
        n, elem = self._sequence(it, out, s)
        return (const(0), n, const(1)), elem

    def _sequence(self, it, out, s):
        """(length, element(i)) with i counting from 0, for arrays and ranges."""
        fname = dotted(it.func) if isinstance(it, gast.Call) else None
        if fname == "range":
            (lo, hi, st), _ = self.iterable(it, out, s)
            lo, hi, st = (self.pure(x, out) for x in (lo, hi, st))
            length = gast.Call(func=parse_expr("rt.trip_count"), args=[lo, hi, st], keywords=[])
            return length, lambda i: template_expr("lo + i * st", lo=lo, i=i, st=st)
        if fname in ("enumerate", "zip"):       # enumerate(zip(a, b)), zip(zip(a, b), c): items of items
            (_, n, _), elem = self.iterable(it, out, s)
            return n, elem
        arr = self.atom(it, out)
        if not isinstance(arr, gast.Name):
            raise self.ctx.error(s, "loops run over range(...), arrays, enumerate(...) or zip(...)")
        return template_expr("a.shape[0]", a=arr), \
            lambda i: gast.Subscript(value=name(arr.id), slice=i, ctx=gast.Load())


def _static_rows(it):
    """The items of a loop over a tuple or list written out (a module constant is one once resolved), or
    over ``enumerate``/``zip`` of such: a list of expressions; None for any other iterable."""
    if isinstance(it, (gast.Tuple, gast.List)):
        return list(it.elts)
    fname = dotted(it.func) if isinstance(it, gast.Call) and not it.keywords else None
    if fname not in ("enumerate", "zip") or not it.args:
        return None
    columns = [_static_rows(a) for a in it.args]
    if any(c is None for c in columns) or (fname == "enumerate" and len(columns) != 1):
        return None
    if fname == "enumerate":
        return [gast.Tuple(elts=[const(i), e], ctx=gast.Load()) for i, e in enumerate(columns[0])]
    return [gast.Tuple(elts=list(row), ctx=gast.Load()) for row in zip(*columns)]
