"""How a function's body uses each argument, read from its source: the evidence behind the kinds that
``transpyle show`` and ``compile`` use when none are given (``api/argument_kinds`` decides them).

The body is run over ranks instead of values. A value has a rank (None where unknown) and, where its
rank follows an argument's, a link ``(argument, offset)``: ``u = u0.copy()`` links ``u`` to ``u0``,
``row = x[i]`` links ``row`` to ``x`` one rank down, and helpers are run on the values passed to
them, so what a helper does with its parameters is evidence about the caller's arguments. The
evidence gathered per argument (``Evidence``):

- the least rank: indexing depth (``x[i, j]``: 2), ``x.shape[k]`` (k + 1), ``.copy()``, ``len``,
  ``for v in x``, reductions and linear algebra (1), and ``+``/``-`` with an array of rank r (r: a
  residual or a bias has its shape);
- the most rank: a number is needed (``math.sin(x)``, an ``if`` or ``while`` test, ``a, b = x.shape``
  says exactly 2, a value written into one element);
- whether a higher rank fits as well (an operand of ``@`` or ``np.dot``): ``open``;
- integer uses (``range(n)``, an index, a shape), conditions (a bool), and dict arguments read as
  ``params['W']`` (each key an argument of its own, named ``params['W']``).

An argument used as a number in one place and as an array in another is a ``Conflict``.
"""
import gast

from ..base.ast_utils import dotted
from .argument_calls import CallUses
from .argument_values import (NUMBER, UNKNOWN, Conflict, Evidence, Frame, Val, constant, index_elts, joined, shifted,
                              where, widest)

__all__ = ["Uses", "Conflict", "Evidence"]

_ARRAY_ATTRS = {"T", "real", "imag", "flat"}          # attributes of an array that are arrays


class Uses(CallUses):
    """The evidence about every argument of ``unit`` (a FunctionSource); ``fixed`` maps arguments to
    ranks decided elsewhere (annotations, or a choice being tried)."""

    def __init__(self, unit, fixed=None, depth_limit=6):
        self.unit = unit
        self.params = [a.id for a in unit.tree.args.args]
        self.fixed = dict(fixed or {})
        self.evidence = {p: Evidence() for p in self.params}
        self.depth_limit = depth_limit
        self.changed = False
        for _ in range(8):               # to a fixed point: ranks found feed the rules that read them
            self.changed = False
            frame = Frame(unit, {p: self.argument(p) for p in self.params})
            self.run_function(frame, 0)
            if not self.changed:
                break

    # -- the evidence -------------------------------------------------------------------------------
    def rank(self, arg):
        return self.fixed.get(arg, self.evidence[arg].lower)

    def argument(self, arg):
        return Val(self.rank(arg), ((arg, 0),))

    def entry(self, arg):
        if arg not in self.evidence:
            self.evidence[arg] = Evidence()
        return self.evidence[arg]

    def at_least(self, val, r, why, soft=False, open_=False):
        for arg, off in val.links:
            ev, want = self.entry(arg), r - off
            if soft:
                if not (ev.integer or arg in self.fixed) and want > ev.soft:
                    ev.soft, self.changed = want, True
                    ev.lower_why = ev.lower_why if ev.hard >= want else why
                continue
            if want > ev.hard:
                ev.hard, ev.lower_why, self.changed = want, why, True
            if open_ and (ev.open_at is None or want > ev.open_at):
                ev.open_at, ev.open_why = want, why
            self.check(arg, ev)

    def at_most(self, val, r, why):
        for arg, off in val.links:
            ev, want = self.entry(arg), r - off
            if ev.upper is None or want < ev.upper:
                ev.upper, ev.upper_why, self.changed = want, why, True
            self.check(arg, ev)

    def check(self, arg, ev):
        if ev.upper is not None and ev.hard > ev.upper and arg not in self.fixed:
            raise Conflict(arg, ev)

    def mark(self, val, flag, why):
        for arg, off in val.links:
            if off == 0 and not getattr(self.entry(arg), flag):
                setattr(self.entry(arg), flag, why)

    # -- statements ---------------------------------------------------------------------------------
    def run_function(self, frame, depth):
        self.block(frame.tree.body, frame, depth)
        return frame.returned or UNKNOWN

    def block(self, body, frame, depth):
        for s in body:
            self.stmt(s, frame, depth)

    def stmt(self, s, frame, depth):
        ev = lambda e: self.expr(e, frame, depth)         # noqa: E731
        if isinstance(s, gast.Assign):
            value = ev(s.value)
            for t in s.targets:
                self.bind(t, value, s.value, frame, depth)
        elif isinstance(s, gast.AnnAssign) and s.value is not None:
            self.bind(s.target, ev(s.value), s.value, frame, depth)
        elif isinstance(s, gast.AugAssign):
            value = self.binop(s.op, ev(s.target), ev(s.value), s, frame)
            self.bind(s.target, value, s.value, frame, depth)
        elif isinstance(s, gast.For):
            self.loop_target(s, frame, depth)
            for _ in range(2):                            # twice: values carried around the loop
                self.block(s.body, frame, depth)
            self.block(s.orelse, frame, depth)
        elif isinstance(s, gast.While):
            for _ in range(2):
                self.condition(s.test, frame, depth)
                self.block(s.body, frame, depth)
            self.block(s.orelse, frame, depth)
        elif isinstance(s, gast.If):
            self.condition(s.test, frame, depth)
            self.block(s.body, frame, depth)
            self.block(s.orelse, frame, depth)
        elif isinstance(s, gast.Return) and s.value is not None:
            value = ev(s.value)
            if frame.returned is None:
                frame.returned = value
        elif isinstance(s, gast.Expr):
            ev(s.value)
        elif isinstance(s, gast.FunctionDef):
            frame.env[s.name] = Val(func=s)
        elif isinstance(s, (gast.With,)):
            self.block(s.body, frame, depth)
        elif isinstance(s, gast.Try):
            self.block(s.body, frame, depth)

    def condition(self, test, frame, depth):
        val = self.expr(test, frame, depth)
        self.at_most(val, 0, where(test, frame.filename))
        if isinstance(test, gast.Name):
            self.mark(val, "boolean", where(test, frame.filename))

    def loop_target(self, s, frame, depth):
        it = s.iter
        name = dotted(it.func) if isinstance(it, gast.Call) else None
        if name in ("range", "prange", "numba.prange"):
            for a in it.args:
                self.integer(self.expr(a, frame, depth), a, frame)
            self.bind(s.target, Val(0, number=True), it, frame, depth)
        elif name == "enumerate" and it.args and isinstance(s.target, gast.Tuple) and len(s.target.elts) == 2:
            seq = self.iterated(it.args[0], frame, depth)
            self.bind(s.target.elts[0], NUMBER, it, frame, depth)
            self.bind(s.target.elts[1], seq, it, frame, depth)
        elif name == "zip" and isinstance(s.target, gast.Tuple) and len(s.target.elts) == len(it.args):
            for t, a in zip(s.target.elts, it.args):
                self.bind(t, self.iterated(a, frame, depth), it, frame, depth)
        else:
            self.bind(s.target, self.iterated(it, frame, depth), it, frame, depth)

    def iterated(self, node, frame, depth):
        """The value of one item of iterating over ``node``."""
        val = self.expr(node, frame, depth)
        if val.items is not None:
            return joined(val.items)
        self.at_least(val, 1, where(node, frame.filename))
        return shifted(val, -1)

    def bind(self, target, val, value_node, frame, depth):
        if isinstance(target, gast.Name):
            frame.env[target.id] = val
        elif isinstance(target, (gast.Tuple, gast.List)):
            n = len(target.elts)
            if val.shape_of is not None:          # a, b = x.shape: x has exactly that rank
                why = where(value_node, frame.filename)
                self.at_least(val.shape_of, n, why)
                self.at_most(val.shape_of, n, why)
                items = [NUMBER] * n
            elif val.items is not None and len(val.items) == n:
                items = list(val.items)
            else:                                  # unpacking an array: its rows
                self.at_least(val, 1, where(value_node, frame.filename))
                items = [shifted(val, -1)] * n
            for t, v in zip(target.elts, items):
                if not isinstance(t, gast.Starred):
                    self.bind(t, v, value_node, frame, depth)
        elif isinstance(target, gast.Subscript):
            base = self.expr(target.value, frame, depth)
            if base.items is None and base.shape_of is None and base.func is None:
                ints, slices = self.index(target, base, frame, depth)
                if ints is not None:
                    self.at_least(base, ints + slices, where(target, frame.filename))

    # -- expressions --------------------------------------------------------------------------------
    def expr(self, node, frame, depth):
        ev = lambda e: self.expr(e, frame, depth)         # noqa: E731
        here = lambda: where(node, frame.filename)       # noqa: E731
        if isinstance(node, gast.Constant):
            return NUMBER if isinstance(node.value, (int, float, complex, bool)) else UNKNOWN
        if isinstance(node, gast.Name):
            return self.name(node.id, frame)
        if isinstance(node, (gast.Tuple, gast.List)):
            return Val(items=tuple(ev(e) for e in node.elts))
        if isinstance(node, gast.Attribute):
            return self.attribute(node, frame, depth)
        if isinstance(node, gast.Subscript):
            return self.subscript(node, frame, depth)
        if isinstance(node, gast.BinOp):
            return self.binop(node.op, ev(node.left), ev(node.right), node, frame)
        if isinstance(node, gast.UnaryOp):
            val = ev(node.operand)
            if isinstance(node.op, gast.Not):
                self.at_most(val, 0, here())
                self.mark(val, "boolean", here())
                return NUMBER
            self.mark(val, "arithmetic", here())
            return val
        if isinstance(node, gast.BoolOp):
            for v in node.values:
                val = ev(v)
                self.at_most(val, 0, here())
                if isinstance(v, gast.Name):
                    self.mark(val, "boolean", here())
            return NUMBER
        if isinstance(node, gast.Compare):
            vals = [ev(node.left)] + [ev(c) for c in node.comparators]
            for v in vals:
                self.mark(v, "arithmetic", here())
            return widest(vals)
        if isinstance(node, gast.IfExp):
            self.condition(node.test, frame, depth)
            return widest([ev(node.body), ev(node.orelse)], links=False)
        if isinstance(node, gast.Call):
            return self.call(node, frame, depth)
        return UNKNOWN

    def name(self, name, frame):
        if name in frame.env:
            return frame.env[name]
        found, value = frame.lookup(name)
        return constant(value) if found else UNKNOWN

    def attribute(self, node, frame, depth):
        if dotted(node) and dotted(node).split(".")[0] not in frame.env:
            return constant(frame.resolve(node))
        base = self.expr(node.value, frame, depth)
        why = where(node, frame.filename)
        if node.attr == "shape":
            self.at_least(base, 1, why)
            return Val(shape_of=base)
        if node.attr in ("size", "ndim"):
            self.at_least(base, 1, why)
            return NUMBER
        if node.attr in _ARRAY_ATTRS:
            return base if node.attr != "flat" else Val(1)
        return UNKNOWN

    def subscript(self, node, frame, depth):
        base = self.expr(node.value, frame, depth)
        why = where(node, frame.filename)
        key = node.slice
        if isinstance(key, gast.Constant) and isinstance(key.value, str):
            entries = [(f"{arg}[{key.value!r}]", 0) for arg, off in base.links if off == 0 and arg in self.params]
            if entries:                          # a dict argument: each key is an argument of its own
                return Val(self.fixed.get(entries[0][0], self.entry(entries[0][0]).lower), tuple(entries))
            return UNKNOWN
        if base.shape_of is not None:            # x.shape[k]
            if isinstance(key, gast.Constant) and isinstance(key.value, int):
                self.at_least(base.shape_of, key.value + 1 if key.value >= 0 else -key.value, why)
            return NUMBER
        if base.items is not None:
            if isinstance(key, gast.Constant) and isinstance(key.value, int) and -len(base.items) <= key.value \
                    < len(base.items):
                return base.items[key.value]
            return joined(base.items) if base.items else UNKNOWN
        if base.func is not None:
            return UNKNOWN
        ints, slices = self.index(node, base, frame, depth)
        if ints is None:
            return UNKNOWN
        self.at_least(base, ints + slices, why)
        self.mark(base, "arithmetic", why)
        nones = sum(1 for e in index_elts(key) if isinstance(e, gast.Constant) and e.value is None)
        return shifted(base, nones - ints)

    def index(self, node, base, frame, depth):
        """(integer indices, slices) of the subscript ``node``; (None, None) for fancy indexing."""
        ints = slices = 0
        for e in index_elts(node.slice):
            if isinstance(e, gast.Slice):
                slices += 1
                for bound in (e.lower, e.upper, e.step):
                    if bound is not None:
                        self.integer(self.expr(bound, frame, depth), bound, frame)
            elif isinstance(e, gast.Constant) and e.value is None:
                continue
            elif isinstance(e, gast.Constant) and e.value is Ellipsis:
                return None, None
            else:
                val = self.expr(e, frame, depth)
                if val.rank is None or val.rank > 0:      # an index array or mask
                    return None, None
                self.at_most(val, 0, where(e, frame.filename))
                self.integer(val, e, frame)
                ints += 1
        return ints, slices

    def integer(self, val, node, frame):
        self.mark(val, "integer", where(node, frame.filename))
        self.at_most(val, 0, where(node, frame.filename))

    def binop(self, op, left, right, node, frame):
        why = where(node, frame.filename)
        if isinstance(op, gast.MatMult):
            return self.product(left, right, why)
        for v in (left, right):
            self.mark(v, "arithmetic", why)
        if isinstance(op, (gast.Add, gast.Sub)):     # a residual or a bias has the shape of the array
            for a, b in ((left, right), (right, left)):
                if a.links and not a.number and a.rank == 0 and b.rank:
                    self.at_least(a, b.rank, why, soft=True)
        return widest([left, right])

    def product(self, left, right, why):
        for v in (left, right):
            self.at_least(v, 1, why, open_=True)
        if left.rank is None or right.rank is None:
            return UNKNOWN
        if left.rank == 1 and right.rank == 1:
            return NUMBER
        return Val(max(left.rank + right.rank - 2, 0))

    # -- calls --------------------------------------------------------------------------------------
