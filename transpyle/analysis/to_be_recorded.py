"""to_be_recorded: which values a statement must save before it overwrites them (the TBR analysis).

A value is saved only when the adjoint sweep reads it *and* the primal sweep overwrites it before that
read is replayed. The adjoint of a statement runs in the state just after the statement (everything
later has been undone by then), so a statement ``s`` must save what it overwrites only if the adjoint
of some statement that *may run before* ``s`` reads it: a read after ``s`` in straight-line code never
needs a save, and a loop body's reads reach the statements of the next iteration around the back
edge. This is the forward data-flow problem of Hascoet, Naumann and Pascual: the set of values
required so far grows at each statement by what its adjoint reads, and a name leaves it when it is
rebound (its old value has been saved by then if it was required).

Two kinds of read are told apart, because they are saved differently:
- a *value* read (``("value", x)``) needs the contents: a write into any alias of ``x``'s buffer must
  save the part it overwrites;
- a *binding* read (``("binding", x)``) needs only which buffer ``x`` names: the adjoint sweep writes
  into it (a restore ``x[i] = saved``), so only rebinding ``x`` must save the old reference.

The reverse pass (``transforms/reverse.py``) gives the reads of each statement's adjoint block; the
analysis returns, for every assignment, the reads it must honour, and knows nothing of the transform.
"""
import gast

from ..base.ast_utils import dotted, has_slice, is_basic_part
VALUE, BINDING = "value", "binding"


def adjoint_reads(block, primal_names, fixed_shape=()):
    """The reads (``(VALUE, x)`` or ``(BINDING, x)``) of the primal names in an adjoint ``block``. Binding
    reads: the base of a subscript assignment (``x[i] = saved``), the base of a view taken again
    (``v = x[1:, i]``: the view's own reads are counted where it is read), and an array read for its
    shape only (``np.zeros_like(x)``, ``x.shape``, the shape ``rt.unbroadcast(g, x)`` sums to); such a
    read of an array whose values all have one shape (``fixed_shape``) is no read at all. Every other
    load reads the value."""
    shape_only = set()
    binding = set()
    for node in gast.walk(gast.Module(body=list(block), type_ignores=[])):
        if isinstance(node, gast.Assign):
            for t in node.targets:
                if isinstance(t, gast.Subscript) and isinstance(t.value, gast.Name):
                    binding.add(id(t.value))
            value = node.value
            if isinstance(node.targets[0], gast.Name) and is_basic_part(value) and has_slice(value):
                binding.add(id(value.value))
        if isinstance(node, gast.Call) and dotted(node.func) in _SHAPE_ONLY and node.args and \
                isinstance(node.args[0], gast.Name) and not node.keywords and len(node.args) == 1:
            shape_only.add(id(node.args[0]))
        if isinstance(node, gast.Call) and dotted(node.func) == "rt.unbroadcast" and len(node.args) == 2:
            shape = node.args[1]
            if isinstance(shape, gast.Name):
                shape_only.add(id(shape))
            elif is_basic_part(shape):
                shape_only.add(id(shape.value))     # a part taken for its shape: its indices are values
        if isinstance(node, gast.Attribute) and node.attr in ("shape", "ndim") and isinstance(node.value, gast.Name):
            shape_only.add(id(node.value))
    reads = set()
    for node in gast.walk(gast.Module(body=list(block), type_ignores=[])):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and node.id in primal_names:
            if id(node) in shape_only and node.id in fixed_shape:
                continue
            reads.add((BINDING if id(node) in binding | shape_only else VALUE, node.id))
    return frozenset(reads)


#: calls that read only the shape (and dtype) of their one argument
_SHAPE_ONLY = {"np.zeros_like", "np.empty_like", "np.ones_like"}


def required_before(body, reads, header_reads):
    """For each assignment of ``body`` (by ``id``), the reads that adjoints of statements that may run
    before it (and of itself) make of values it may overwrite.

    ``reads``: statement id -> the reads of its adjoint block (``adjoint_reads``); ``header_reads``:
    loop or branch id -> the reads of its reversed header (a reversed range, a trip count, a branch
    decision), which the sweep makes in the state just after the loop or branch."""
    at = {}

    def flow(stmts, required):
        for s in stmts:
            if isinstance(s, gast.Assign):
                mine = reads.get(id(s), frozenset())
                # the statement's own adjoint counts: its reset reads what its restore brought back
                at[id(s)] = at.get(id(s), frozenset()) | required | mine
                t = s.targets[0]
                if isinstance(t, gast.Name):
                    required = frozenset(r for r in required if r[1] != t.id)
                required = required | mine
            elif isinstance(s, (gast.For, gast.While)):
                # the body's reads reach its first statements through the back edge: iterate to a fixed point
                start = required
                while True:
                    end = flow(s.body, start)
                    grown = start | end
                    if grown == start:
                        break
                    start = grown
                required = start | header_reads.get(id(s), frozenset())
            elif isinstance(s, gast.If):
                required = flow(s.body, required) | flow(s.orelse, required) | \
                    header_reads.get(id(s), frozenset())
        return required

    flow(body, frozenset())
    return at


def values_read(required):
    """The names whose contents are read, of a set of reads."""
    return {n for kind, n in required if kind == VALUE}


def names_read(required):
    """The names read in either way, of a set of reads."""
    return {n for _, n in required}
