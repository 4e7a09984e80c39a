"""shapes: which arrays of a normalized function surely have the same shape, by symbolic shapes.

Each axis length is a term: ``("axis", arg, k, c)`` is ``max(0, n + c)`` where ``n`` is the length of
axis ``k`` of the argument ``arg`` (arguments never change shape). Slices with constant bounds shift
the offset (``u[1:-1]`` of an argument of length n has ``n - 2``, as have ``u[:-2]`` and ``u[2:]``), an
integer index drops the axis, and an elementwise operation has the shape of its array operands when
they agree (a number broadcasts without changing it). Anything else (a shape read from data, a
reshape, a slice with computed bounds) is unknown (``None``), and unknown never equals anything.

The reverse pass asks it whether an elementwise statement can broadcast an operand: when every array
operand has the operand's shape, the contribution needs no un-broadcasting, and so no buffer to take
the shape from.
"""
import gast

from ..base.ast_utils import dotted
from ..base.kinds import Kind
from ..rules.primitives import lookup
from .places import assignments

#: functions whose result has the shape of their first argument
_SHAPE_OF_FIRST = ("np.copy", "np.zeros_like", "np.ones_like", "np.empty_like", "np.full_like")


class Shapes:
    """Symbolic shapes of the names of ``tree`` (a normalized ``FunctionDef``) with ``kinds``."""

    def __init__(self, tree, kinds):
        self.kinds = kinds
        self.of = {}
        for a in tree.args.args:
            kind = kinds.get(a.id)
            if isinstance(kind, Kind):
                self.of[a.id] = tuple(("axis", a.id, k, 0) for k in range(kind.ndim))
        defs = {}
        for s in assignments(tree.body):
            t = s.targets[0]
            if isinstance(t, gast.Name) and t.id not in self.of:
                defs.setdefault(t.id, []).append(s.value)
        # optimistic fixed point: a name not yet known is left out; a name whose definitions disagree,
        # or one of which is unknown, becomes unknown for good
        unknown = set()
        changed = True
        while changed:
            changed = False
            for v, values in defs.items():
                if v in unknown:
                    continue
                shapes = [self.shape_of(value) for value in values]
                if any(s is _PENDING for s in shapes):
                    if v not in self.of:
                        continue
                    shapes = [s for s in shapes if s is not _PENDING]
                first = shapes[0] if shapes else None
                if first is None or any(s != first for s in shapes):
                    unknown.add(v)
                    self.of.pop(v, None)
                    changed = True
                elif self.of.get(v) != first:
                    self.of[v] = first
                    changed = True

    def same(self, a, b):
        """Whether names ``a`` and ``b`` surely have the same shape."""
        sa, sb = self.of.get(a), self.of.get(b)
        return sa is not None and sa == sb and None not in sa

    def same_as(self, value, name):
        """Whether the expression ``value`` (a name, a basic part ``x[1:-1]``, an elementwise operation)
        surely has the shape of the name ``name``."""
        sa, sb = self.shape_of(value), self.of.get(name)
        return sa is not _PENDING and sa is not None and sa == sb and None not in sa

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
        return _PENDING

    def shape_of(self, value):
        """The symbolic shape of an expression: a name, a basic part, an elementwise operation (nested
        ones too), a copy or an array made like another; ``None`` where unknown."""
        if isinstance(value, (gast.Name, gast.Constant)):
            return self.name_shape(value)
        if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name):
            return self.part_shape(self.name_shape(value.value), value.slice)
        if isinstance(value, gast.Call) and value.args:
            func = dotted(value.func)
            if func in _SHAPE_OF_FIRST:
                return self.shape_of(value.args[0])
            if func == "rt.unbroadcast" and len(value.args) == 2:
                return self.shape_of(value.args[1])
        if isinstance(value, gast.BinOp) and isinstance(value.op, gast.MatMult) or \
                isinstance(value, gast.Call) and dotted(value.func) == "np.dot" and len(value.args) == 2:
            a, b = (value.left, value.right) if isinstance(value, gast.BinOp) else value.args
            return _product_shape(self.shape_of(a), self.shape_of(b))
        if isinstance(value, (gast.BinOp, gast.Compare)):
            operands = [value.left, value.right] if isinstance(value, gast.BinOp) else \
                [value.left] + list(value.comparators)
        elif isinstance(value, gast.UnaryOp):
            operands = [value.operand]
        else:
            prim, bound = lookup(value) if isinstance(value, gast.Call) else (None, None)
            if prim is None or not prim.broadcasts or prim.key == "setitem":
                return None
            operands = list(bound.values())
        shapes = [self.shape_of(op) for op in operands]
        if any(s is _PENDING for s in shapes):
            return _PENDING
        return _broadcast(shapes)

    def part_shape(self, base, index):
        if base is None or base is _PENDING:
            return base
        parts = index.elts if isinstance(index, gast.Tuple) else [index]
        if len(parts) > len(base):
            return None
        out = []
        for term, part in zip(base, parts):
            if isinstance(part, gast.Slice):
                out.append(_sliced(term, part))
            elif isinstance(part, gast.Constant) and isinstance(part.value, int) or \
                    isinstance(part, gast.Name) and isinstance(self.kinds.get(part.id), Kind) and \
                    self.kinds[part.id].ndim == 0 and self.kinds[part.id].dtype.startswith("int"):
                continue            # an integer index drops the axis
            else:
                return None         # index arrays, masks, new axes: not followed
        return tuple(out) + tuple(base[len(parts):])


_PENDING = object()


def _broadcast(shapes):
    """The shape NumPy broadcasting gives: known when every operand's axes equal the trailing axes of
    the largest (axes of length one are not modelled, so other shapes are unknown)."""
    arrays = [s for s in shapes if s != ()]
    if not arrays:
        return ()
    if any(s is None for s in arrays):
        return None
    big = max(arrays, key=len)
    if any(None in s or s != big[len(big) - len(s):] for s in arrays):
        return None
    return big


def _product_shape(a, b):
    """The shape of a matrix product of 1-D and 2-D operands."""
    if a is _PENDING or b is _PENDING:
        return _PENDING
    if a is None or b is None or not a or not b or len(a) > 2 or len(b) > 2:
        return None
    out = a[:-1] + b[:-2] + b[-1:] if len(b) == 2 else a[:-1]
    return out if None not in out else None


def _sliced(term, part):
    """The length term of ``term[part]``: constant bounds ``lo >= 0`` and ``hi`` none or negative,
    step one; otherwise unknown."""
    if term is None or part.step is not None and not (isinstance(part.step, gast.Constant) and part.step.value == 1):
        return None
    lo = 0 if part.lower is None else _const_int(part.lower)
    hi = 0 if part.upper is None else _const_int(part.upper)
    if lo is None or hi is None or lo < 0 or hi > 0 or part.upper is not None and hi == 0:
        return None
    # offsets are never positive, and then max(0, max(0, n + a) + b) = max(0, n + a + b): slices compose
    kind, arg, axis, offset = term
    return (kind, arg, axis, offset + hi - lo)


def _const_int(node):
    if isinstance(node, gast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub) and isinstance(node.operand, gast.Constant) \
            and isinstance(node.operand.value, int):
        return -node.operand.value
    return None
