"""shapes: which arrays of a normalized function surely have the same shape, by symbolic shapes.

Each axis length is a term:
- ``("axis", arg, k, c)`` is ``max(0, n + c)`` where ``n`` is the length of axis ``k`` of the argument
  ``arg`` as the function receives it. Where the code is specialized on which argument axes have equal
  lengths (``base.kinds.equal_axes``), an axis is named by the first argument axis of its length; an
  argument rebound in a loop keeps its terms only where every value it is given has that shape. Slices with constant bounds shift the offset (``u[1:-1]`` of
  an argument of length n has ``n - 2``, as have ``u[:-2]`` and ``u[2:]``); a stop written with the axis's own
  length (``u[1:n - 1]``, ``u[2:n]`` with ``n = u.shape[0]``, or an integer argument the code is specialized
  to equal it) counts from the end as ``-1`` and the end do;
- ``("span", term, lower, upper)``: a slice with computed bounds (``a[:i + 1]``, ``x[k:k + m]``) of an
  axis of length ``term``, the bounds written as their source (index arithmetic of integer names);
- ``ONE``: an axis of length one, as reductions with ``keepdims=True`` and ``x[:, None]`` make;
- ``("of", v, k)``: axis k of a name ``v`` defined once by a value of unknown shape: the arrays made like
  it (``np.empty(v.shape)``, ``np.zeros_like(v)``, ``2.0 * v``) share it, as long as ``v`` is not rebound.

An integer index drops the axis, and an elementwise operation has the broadcast of its operands'
shapes (a number changes nothing, an axis of length one takes the other operands' length). An array
made with a shape of axis lengths (``np.zeros((ny, nx))`` with ``ny, nx = u.shape``, each length name
defined once) has those axes, as has a reshape to them. Anything else (a shape read from data) is
unknown (``None``), and unknown never equals anything.

A span term is only as good as the names in its bounds: it holds for a name defined once whose every
read comes later in the block of its definition (or blocks nested there) with nothing between that
rebinds a name of the bounds (``span_holds``), so the bounds mean at each read what they meant at the
definition. The adjoint of a statement runs with the names it reads as they were, so what holds at a
statement holds at its adjoint.

The reverse pass asks whether an elementwise statement can broadcast an operand (when every array
operand has the operand's shape its contribution needs no un-broadcasting) and what array has the
shape of an operand (``witness``); ``element_loops`` asks which operands have the loop's shape.
"""
import gast

from ..base.ast_utils import dotted, is_empty_declaration, is_index_scalar, is_new_axis
from ..base.kinds import Kind
from ..rules.primitives import lookup
from .aliases import TARGET_SHAPED_ATTR
from .axis_facts import AxisFacts
from .places import assignments
from .shape_terms import (ONE, PENDING, UNKNOWN, Positions, bound_names, broadcast, const_int, constant_argument,
                          is_axis_length, outer_shape, product_shape, span_key)

#: functions whose result has the shape of their first argument
_SHAPE_OF_FIRST = ("np.copy", "np.zeros_like", "np.ones_like", "np.empty_like", "np.full_like")
#: functions whose result has the shape given first
_MADE_WITH_SHAPE = ("np.zeros", "np.ones", "np.empty")
#: reshapes to a shape given second (whose result has that shape, or the call raises)
_RESHAPES = ("rt.reshape", "np.reshape", "rt.reshape_copy")
#: reductions with ``axis`` and ``keepdims`` (NumPy's and the run-time helpers they are emitted as)
_REDUCTIONS = ("np.sum", "np.mean", "np.max", "np.min", "np.prod")


class Shapes:
    """Symbolic shapes of the names of ``tree`` (a normalized ``FunctionDef``) with ``kinds``."""

    def __init__(self, tree, kinds, lengths=None):
        """``lengths``: the equal argument axes the code is specialized for (``Context.arg_lengths``)."""
        self.kinds = kinds
        self.unknown = set()            # names whose shape is unknown for good
        self.facts = AxisFacts()        # learned by the caller, statement by statement (``learn``)
        lengths = lengths or {}
        self.of = {}
        self.witnesses = {}
        initial = {}
        self.length_args = {}           # integer arguments equal to an argument's axis length: its term
        for a in tree.args.args:
            kind = kinds.get(a.id)
            if isinstance(kind, Kind) and kind.ndim == 0:
                if lengths.get(a.id) and kind.dtype.startswith("int"):
                    (arg, k), = lengths[a.id]
                    self.length_args[a.id] = ("axis", arg, k, 0)
            elif isinstance(kind, Kind):
                # an axis is named by the first argument axis of its length where the code is specialized
                axes = lengths.get(a.id) or tuple((a.id, k) for k in range(kind.ndim))
                initial[a.id] = self.of[a.id] = tuple(("axis", arg, k, 0) for arg, k in axes)
        self.positions = Positions(tree, kinds)
        defs, restored = {}, set()
        for s in assignments(tree.body):
            t = s.targets[0]
            if not isinstance(t, gast.Name) or is_empty_declaration(s.value):
                continue
            # a value taken back from a tape is one the name had (pushed just before the name was set
            # again, or its empty declaration, which is never read): it adds no shape of its own
            if isinstance(s.value, gast.Call) and dotted(s.value.func) == "rt.tape_pop":
                restored.add(t.id)
                continue
            defs.setdefault(t.id, []).append(s.value)
        # an argument rebound in a loop (normalize renames the others) keeps its shape only where every
        # value it is given has the argument's shape; only one never rebound stands for its values
        self.arguments = {a.id for a in tree.args.args} - set(defs)
        # integers defined once as an axis length (``ny, nx = u.shape``): np.zeros((ny, nx)) has u's shape
        self.length_reads = {v: values[0] for v, values in defs.items()
                             if len(values) == 1 and is_axis_length(values[0])}
        # integers defined once, read as sums of an axis length and a number (``I = x.shape[0] - 4``)
        self.integer_defs = {v: values[0] for v, values in defs.items() if len(values) == 1 and
                             isinstance(kinds.get(v), Kind) and kinds[v].ndim == 0 and kinds[v].dtype.startswith("int")}
        # optimistic fixed point: a name none of whose values is known yet is left out; a name whose
        # definitions disagree, or one of which is unknown, becomes unknown for good
        unknown = self.unknown
        changed, rounds = True, 0
        while changed:
            changed, rounds = False, rounds + 1
            for v, values in defs.items():
                if v in unknown:
                    continue
                shapes = [initial[v]] if v in initial else []
                shapes += [self.shape_of(value) for value in values]
                if any(s is PENDING for s in shapes):
                    # the shape the known values give is taken while the others wait (a loop's
                    # ``bx = np.zeros_like(bx)`` waits on itself); a later round undoes a wrong guess
                    shapes = [s for s in shapes if s is not PENDING]
                    if not shapes:
                        continue
                first = shapes[0] if shapes else None
                if first is None and shapes == [None] and len(values) == 1:
                    first = self.opaque(v)
                    shapes = [first]
                if first is not None and bound_names(first) and not self.positions.span_holds(v, bound_names(first)):
                    first = None
                # guesses that keep changing (past a bound no chain of names reaches) are given up
                if first is None or any(s != first for s in shapes) or \
                        rounds > 2 * len(defs) + 8 and self.of.get(v) != first:
                    unknown.add(v)
                    self.of.pop(v, None)
                    changed = True
                elif self.of.get(v) != first:
                    self.of[v] = first
                    changed = True
        # ... but a span's bounds may have changed since the value was pushed
        for v in restored:
            if v in self.of and bound_names(self.of[v]) or v not in defs:
                self.of.pop(v, None)
                unknown.add(v)
        # x[part] op= b: the value stored has the part's shape, whatever b's (NumPy broadcasts b into it)
        for s in assignments(tree.body):
            t, v = s.targets[0], s.value
            if getattr(s, TARGET_SHAPED_ATTR, False) and isinstance(t, gast.Subscript) and \
                    isinstance(v, gast.Name) and v.id not in self.of and len(defs.get(v.id, ())) == 1:
                part = self.known(gast.Subscript(value=t.value, slice=t.slice, ctx=gast.Load()))
                if part is not None and (not bound_names(part) or self.positions.span_holds(v.id, bound_names(part))):
                    self.of[v.id] = part
        for v, values in defs.items():
            if v in self.of and len(values) == 1:
                self.witnesses[v] = values[0]

    def opaque(self, v):
        """The shape of an array defined once by a value of unknown shape (a reshape of data, a product of
        stacks): its own axes, ``("of", v, k)``, which the arrays made like it share; None for a non-array."""
        kind = self.kinds.get(v)
        if not isinstance(kind, Kind) or kind.ndim == 0:
            return None
        return tuple(("of", v, k) for k in range(kind.ndim))

    def learn(self, stmt):
        """Take in the axis lengths ``stmt`` shows equal once it has run (``axis_facts``)."""
        self.facts.learn(stmt, self)

    def same(self, a, b):
        """Whether names ``a`` and ``b`` surely have the same shape."""
        sa, sb = self.facts.shape(self.of.get(a)), self.facts.shape(self.of.get(b))
        return sa is not None and sa == sb and None not in sa

    def same_as(self, value, name):
        """Whether the expression ``value`` (a name, a basic part ``x[1:-1]``, an elementwise operation)
        surely has the shape of the name ``name``."""
        sa, sb = self.shape_of(value), self.facts.shape(self.of.get(name))
        return sa is not PENDING and sa is not None and sa == sb and None not in sa

    def known(self, node):
        """The symbolic shape of an expression where it is known, else None."""
        shape = self.shape_of(node)
        return None if shape is PENDING or shape is None or None in shape else shape

    def witness(self, var):
        """A basic part of an argument (``a[:i + 1, k]``) that has the shape of ``var`` where ``var`` is
        read, followed through the elementwise operations that define it; else None. Taking it again
        costs nothing and keeps nothing: ``arguments`` holds only those never rebound."""
        target = self.of.get(var)
        seen = set()
        while target is not None and None not in target and var not in seen:
            seen.add(var)
            if var in self.arguments:
                return gast.Name(id=var, ctx=gast.Load(), annotation=None, type_comment=None)
            value = self.witnesses.get(var)
            if value is None:
                return None
            if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name) and \
                    value.value.id in self.arguments and self.shape_of(value) == target:
                return value
            nxt = [n for n in _operand_names(value) if self.of.get(n) == target]
            if not nxt:
                return None
            var = nxt[0]
        return None

    # ---- one right-hand side ---------------------------------------------------------------------
    def name_shape(self, node):
        if isinstance(node, gast.Constant):
            return () if isinstance(node.value, (int, float, complex)) else None
        if not isinstance(node, gast.Name):
            return None
        kind = self.kinds.get(node.id)
        if isinstance(kind, Kind) and kind.ndim == 0:
            return ()
        if node.id in self.of:
            return self.of[node.id]
        return None if node.id in self.unknown else PENDING

    def shape_of(self, value):
        """The symbolic shape of an expression: a name, a basic part, an elementwise operation (nested
        ones too), a copy or an array made like another, a reduction along an axis; ``None`` where
        unknown. Axes the facts learned so far show equal are named alike."""
        shape = self._shape_of(value)
        return shape if shape is PENDING else self.facts.shape(shape)

    def _shape_of(self, value):
        if isinstance(value, (gast.Name, gast.Constant)):
            return self.name_shape(value)
        if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name):
            return self.part_shape(self.name_shape(value.value), value.slice)
        if isinstance(value, gast.Call) and value.args:
            func = dotted(value.func)
            if func in _SHAPE_OF_FIRST:
                return self.shape_of(value.args[0])
            shape = value.args[0]
            if func in _MADE_WITH_SHAPE:
                return self.written_shape(shape)    # np.empty(x.shape, np.float64), np.zeros((ny, nx))
            if func == "rt.unbroadcast" and len(value.args) == 2:
                return self.shape_of(value.args[1])
            if func in ("np.eye", "np.identity") and len(value.args) <= 2 and \
                    all(k.arg == "dtype" for k in value.keywords):
                rows = value.args[0]                 # np.eye(n), np.eye(n, m): n x n, n x m
                cols = value.args[1] if len(value.args) == 2 and func == "np.eye" else rows
                return self.given_shape(gast.Tuple(elts=[rows, cols], ctx=gast.Load()))
            if func == "np.outer" and len(value.args) == 2:
                return outer_shape(self.shape_of(value.args[0]), self.shape_of(value.args[1]))
            if func in _RESHAPES and len(value.args) == 2:
                return self.written_shape(value.args[1])
            if isinstance(value.func, gast.Attribute) and value.func.attr == "reshape" and len(value.args) == 1:
                return self.written_shape(value.args[0])            # x.reshape(shape)
        if isinstance(value, gast.BinOp) and isinstance(value.op, gast.MatMult) or \
                isinstance(value, gast.Call) and dotted(value.func) == "np.dot" and len(value.args) == 2:
            a, b = (value.left, value.right) if isinstance(value, gast.BinOp) else value.args
            return product_shape(self.shape_of(a), self.shape_of(b))
        if isinstance(value, (gast.BinOp, gast.Compare)):
            operands = [value.left, value.right] if isinstance(value, gast.BinOp) else \
                [value.left] + list(value.comparators)
        elif isinstance(value, gast.UnaryOp):
            operands = [value.operand]
        else:
            prim, bound = lookup(value) if isinstance(value, gast.Call) else (None, None)
            if prim is not None and prim.key in _REDUCTIONS:
                return self.reduced_shape(bound)
            if prim is None or not prim.broadcasts or prim.key == "setitem":
                return None
            operands = list(bound.values())
        shapes = [self.shape_of(op) for op in operands]
        if any(s is PENDING for s in shapes):
            return PENDING
        return broadcast(shapes)

    def written_shape(self, shape):
        """A shape as an allocation or a reshape is given it: ``x.shape`` (that name's shape) or axis lengths
        (``given_shape``: ``ny, nx = u.shape`` before)."""
        if isinstance(shape, gast.Attribute) and shape.attr == "shape" and isinstance(shape.value, gast.Name):
            return self.name_shape(shape.value)
        return self.given_shape(shape)

    def given_shape(self, shape):
        """The shape written as a tuple of (or one) integer names each defined once as an axis length
        (``n = x.shape[0]``), else None."""
        terms = []
        for n in shape.elts if isinstance(shape, gast.Tuple) else [shape]:
            if isinstance(n, gast.Constant) and type(n.value) is int and n.value == 1:
                terms.append(ONE)
                continue
            term = self.length_term(n)
            if term is None or term is PENDING:
                return term
            terms.append(term)
        return tuple(terms)

    def length_term(self, node):
        """The term of an axis length: ``x.shape[k]`` written out, an integer name defined once as one
        (``n = x.shape[0]``), or an integer argument never rebound that the code is specialized to equal
        one; None (or PENDING) where it is not one."""
        if isinstance(node, gast.Name) and node.id in self.length_args and node.id in self.arguments:
            return self.length_args[node.id]
        read = node if is_axis_length(node) else \
            self.length_reads.get(node.id) if isinstance(node, gast.Name) and self.integer(node) else None
        if read is None:
            found = self.affine(node) if isinstance(node, gast.Name) and node.id in self.integer_defs else None
            if found is None or found is PENDING:
                return found
            (kind, *axis), c = found
            # I = x.shape[0] - 4 is the length of x[4:] (a negative length is no shape: the program raises)
            return (kind, axis[0], axis[1], axis[2] + c) if kind == "axis" and c <= 0 else None
        whole = self.name_shape(read.value.value)
        if whole is PENDING or whole is None:
            return whole
        k = read.slice.value
        return whole[k] if -len(whole) <= k < len(whole) else None

    def reduced_shape(self, bound):
        """``np.sum(x, axis=k, keepdims=...)``: x's shape with axis k dropped, or of length one."""
        x = self.shape_of(bound.get("x"))
        axis, keep = constant_argument(bound.get("axis")), constant_argument(bound.get("keepdims"))
        if x is PENDING or x is None:
            return x
        if keep not in (True, False, None) or axis is UNKNOWN:
            return None
        if axis is None:
            return None if keep else ()
        if not isinstance(axis, int) or isinstance(axis, bool) or not x:
            return None
        axis = axis + len(x) if axis < 0 else axis
        if not 0 <= axis < len(x):
            return None
        return x[:axis] + ((ONE,) if keep else ()) + x[axis + 1:]

    def part_shape(self, base, index):
        if base is None or base is PENDING:
            return base
        parts = index.elts if isinstance(index, gast.Tuple) else [index]
        out, axis = [], 0
        for part in parts:
            if is_new_axis(part):
                out.append(ONE)            # a new axis
                continue
            if axis >= len(base):
                return None
            term = base[axis]
            axis += 1
            if isinstance(part, gast.Slice):
                term = self.sliced(term, part)
                if term is PENDING:
                    return PENDING
                out.append(term)
            elif isinstance(part, gast.Constant) and isinstance(part.value, int) or self.integer(part):
                continue            # an integer index drops the axis
            else:
                return None         # index arrays, masks: not followed
        return tuple(out) + tuple(base[axis:])

    def integer(self, node):
        """Index arithmetic of integer names and numbers."""
        if not is_index_scalar(node):
            return False
        for n in gast.walk(node):
            if isinstance(n, gast.Name):
                kind = self.kinds.get(n.id)
                if not (isinstance(kind, Kind) and kind.ndim == 0 and kind.dtype.startswith("int")):
                    return False
            elif isinstance(n, gast.Constant) and not (isinstance(n.value, int) and not isinstance(n.value, bool)):
                return False
        return True

    def sliced(self, term, part):
        """The length term of ``term[part]``: constant bounds ``lo >= 0`` and ``hi`` none or negative
        shift an argument's axis; computed bounds of step one make a span; the whole axis reversed
        (``[::-1]``) keeps its term; otherwise unknown."""
        if term is not None and part.lower is None and part.upper is None and const_int(part.step) == -1:
            return term                  # x[::-1]: reversed, as np.flip is written
        if term is None or part.step is not None and not (isinstance(part.step, gast.Constant) and part.step.value == 1):
            return None
        upper = self.end_relative(term, part.upper)
        if upper is PENDING:
            return PENDING
        if part.lower is None and upper is None:
            return term
        lo = 0 if part.lower is None else const_int(part.lower)
        hi = 0 if upper is None else upper if isinstance(upper, int) else const_int(upper)
        if lo is not None and hi is not None:
            if term[0] != "axis" or lo < 0 or hi > 0 or upper is not None and hi == 0:
                return None
            # offsets are never positive, and then max(0, max(0, n + a) + b) = max(0, n + a + b): slices compose
            kind, arg, axis, offset = term
            return (kind, arg, axis, offset + hi - lo)
        if term == ONE or not all(b is None or self.integer(b) for b in (part.lower, part.upper)):
            return None
        return ("span", term, span_key(part.lower), span_key(part.upper))




    def affine(self, node, depth=0):
        """(axis length term, c) for an integer expression that is an axis length plus the number c
        (``I + 3`` with ``I = x.shape[0] - 4``, ``n - 1``), through integers defined once; else None (or
        PENDING while the length's array is)."""
        if depth > 16:
            return None
        if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub)):
            sign = 1 if isinstance(node.op, gast.Add) else -1
            c, other = const_int(node.right), node.left
            if c is None and sign == 1:
                c, other = const_int(node.left), node.right
            if c is None:
                return None
            found = self.affine(other, depth + 1)
            return found if found is None or found is PENDING else (found[0], found[1] + sign * c)
        if isinstance(node, gast.Name) and node.id in self.integer_defs and node.id not in self.length_reads and \
                node.id not in self.length_args:
            return self.affine(self.integer_defs[node.id], depth + 1)
        term = self.length_term(node)
        return term if term is None or term is PENDING else (term, 0)

    def end_relative(self, term, upper):
        """A slice's upper bound over an axis of length ``term`` counted from the axis's end where it is the
        axis's own length ``n`` plus a constant: ``n`` and more is None (the end), ``n - 1`` and ``n - 2``
        are -1 and -2 (the same stop for every n: where n - c is negative, Python's n + (n - c) is not
        above 0 for c <= 2); else ``upper`` as written. PENDING while the length's array is."""
        if upper is None:
            return None
        found = self.affine(upper)
        if found is PENDING:
            return PENDING
        if found is None:
            return upper
        length, c = found
        if length != term:
            # the full axis n of which the term is n + off (off <= 0): n + c is the term's length plus c - off
            # (where n + off is below zero the axis is empty, whatever the stop)
            if not (length[0] == term[0] == "axis" and length[1:3] == term[1:3] and length[3] == 0):
                return upper
            c -= term[3]
        return None if c >= 0 else c if c >= -2 else upper


def _operand_names(value):
    if isinstance(value, gast.Name):
        return [value.id]
    if isinstance(value, (gast.BinOp, gast.UnaryOp, gast.Compare, gast.Call)):
        return [n.id for n in gast.walk(value) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)]
    return []
