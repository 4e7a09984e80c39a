"""shape_terms: the algebra of the symbolic shapes ``analysis/shapes`` computes (broadcasts, products,
outer products of shapes as tuples of axis terms) and where a term holds: the names a shape's terms
depend on (``bound_names``) and, by block, where each name is defined and read (``Positions``), so that a
term whose names are rebound between a definition and a read is not trusted there; and the readings of
source those terms are made of (axis lengths ``x.shape[k]``, span bounds, constant arguments)."""
import gast

from ..base.ast_utils import loaded_names, stored_names
from ..base.kinds import Kind

#: an axis of length one
ONE = ("one",)
#: a shape not known yet (the fixed point of ``Shapes`` leaves it out until its operands are known)
PENDING = object()


def bound_names(shape):
    """The names in the bounds of a shape's span terms."""
    out = set()
    for term in shape or ():
        while term and term[0] == "span":
            for key in term[2:]:
                out |= key[1] if key is not None else set()
            term = term[1]
        if term and term[0] == "of":
            out.add(term[1])            # the axes of a name hold while that name is not rebound
    return out


def broadcast(shapes):
    """The shape NumPy broadcasting gives, axes aligned from the last: an axis of length one takes the
    others' length; otherwise they must agree, or the result is unknown."""
    arrays = [s for s in shapes if s != ()]
    if not arrays:
        return ()
    if any(s is None for s in arrays):
        return None
    rank = max(len(s) for s in arrays)
    out = []
    for k in range(rank):
        terms = {s[len(s) - rank + k] for s in arrays if len(s) - rank + k >= 0} - {ONE}
        if len(terms) > 1 or None in terms:
            return None
        out.append(terms.pop() if terms else ONE)
    return tuple(out)


def outer_shape(a, b):
    """The shape of the outer product of two vectors."""
    if a is PENDING or b is PENDING:
        return PENDING
    if a is None or b is None or len(a) != 1 or len(b) != 1:
        return None
    return a + b


def product_shape(a, b):
    """The shape of a matrix product of 1-D and 2-D operands."""
    if a is PENDING or b is PENDING:
        return PENDING
    if a is None or b is None or not a or not b or len(a) > 2 or len(b) > 2:
        return None
    out = a[:-1] + b[:-2] + b[-1:] if len(b) == 2 else a[:-1]
    return out if None not in out else None


class Positions:
    """Where each name is defined and read, by block, for ``span_holds``."""

    def __init__(self, tree, kinds):
        self.kinds = kinds
        self.defs = {}      # name -> [(block id, index)]
        self.blocks = {}    # block id -> the statements
        self.reads = {}     # name -> [{block id: index of the statement of that block holding the read}]

        def visit(stmts, enclosing):
            self.blocks[id(stmts)] = stmts
            for k, s in enumerate(stmts):
                here = dict(enclosing)
                here[id(stmts)] = k
                if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name):
                    self.defs.setdefault(s.targets[0].id, []).append((id(stmts), k))
                elif isinstance(s, gast.For) and isinstance(s.target, gast.Name):
                    self.defs.setdefault(s.target.id, []).extend([None, None])
                for field in ("test", "iter", "value", "targets", "target"):
                    for n in _walk_field(s, field):
                        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
                            self.reads.setdefault(n.id, []).append(here)
                for block in (getattr(s, "body", None), getattr(s, "orelse", None)):
                    if block:
                        visit(block, here)
        visit(tree.body, {})
        for a in tree.args.args:
            self.defs.setdefault(a.id, []).append(None)

    def rebound(self, stmts):
        """The names ``stmts`` bind anew: stored names, less arrays added into in place (``bw += g``)."""
        out = stored_names(stmts)
        for n in gast.walk(gast.Module(body=list(stmts), type_ignores=[])):
            if isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name):
                kind = self.kinds.get(n.target.id)
                if isinstance(kind, Kind) and kind.ndim > 0:
                    out.discard(n.target.id)
        return out

    def span_holds(self, var, bound):
        """Whether every read of ``var`` comes after a definition of it in the block of that definition
        (or a block nested there), with no statement between rebinding ``var`` or a name of ``bound``.
        (Every definition has the same symbolic shape, or ``var`` has none.)"""
        defs = self.defs.get(var, [])
        if not defs or None in defs:
            return False
        for here in self.reads.get(var, []):
            if not any(here.get(block) is not None and k < here[block] and
                       not self.rebound(self.blocks[block][k + 1:here[block] + 1]) & (bound | {var})
                       for block, k in defs):
                return False
        return True


def _walk_field(s, field):
    value = getattr(s, field, None)
    if value is None:
        return []
    values = value if isinstance(value, list) else [value]
    return [n for v in values for n in gast.walk(v)]


# ---- terms read from source ---------------------------------------------------------------------------
def is_axis_length(value):
    """``x.shape[k]`` for a name ``x`` and a constant integer ``k``."""
    return isinstance(value, gast.Subscript) and isinstance(value.value, gast.Attribute) and \
        value.value.attr == "shape" and isinstance(value.value.value, gast.Name) and \
        isinstance(value.slice, gast.Constant) and type(value.slice.value) is int


def span_key(node):
    """A span bound: its source and the names it reads (``None``: the axis's own end)."""
    return None if node is None else (gast.dump(node), frozenset(loaded_names(node)))


def constant_argument(node):
    """The value of a constant argument (None when absent), or ``UNKNOWN``."""
    if node is None:
        return None
    if isinstance(node, gast.Constant):
        return node.value
    value = const_int(node)
    return UNKNOWN if value is None else value


UNKNOWN = object()


def const_int(node):
    if isinstance(node, gast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub) and isinstance(node.operand, gast.Constant) \
            and isinstance(node.operand.value, int):
        return -node.operand.value
    return None
