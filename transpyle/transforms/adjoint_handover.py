"""adjoint_handover: an adjoint handed to a temporary and started again at zero keeps its one buffer.

Where a statement overwrites a variable (``x = x + 0.1 * v`` in a loop, ``acc = f(pos)``), reverse mode
hands the variable's adjoint to a temporary and starts a new one at zero for the contributions of the
statements before it:

    b_t11 = bx
    bx = np.zeros_like(bx)
    bx += b_t11                # the contribution through the x read on the right
    bv += b_t11 * 0.1

which makes, zeroes and adds one array per iteration. Two rewrites keep the one buffer:

- passed through: where the first statement after the zeroing that mentions the adjoint adds the
  temporary to it (``bx += b_t11``), the zeroing and the addition go: the adjoint keeps its values in its
  buffer, which the temporary names too;
- zeroed in place: otherwise the zeroing becomes ``bx[...] = 0.0`` after the temporary's last read.

Both hold only where the temporary, and every name holding its memory (``b_t10 = b_t11``, a view of it),
is read after its hand-over only in that statement list and before the adjoint is written again, and
nothing writes through them; and where no other name holds the adjoint's memory across the hand-over
(every other name set to it is such a hand-over). The statement lists of every block are rewritten.

A third rewrite, in the function's own statements (run once), is the hand-over of a whole array: an adjoint
made zero whose first mention adds an array the function made with the same shape and kind, which nothing
mentions afterwards (``ba += b_t1`` with ``b_t1 = ba_2``: the adjoint of ``a = a + np.outer(u, v)`` or
``a = a.copy()``), becomes that array (``ba = b_t1``): no zeroed buffer, no pass copying one into the other.
"""
import gast

from ..base.ast_utils import all_names, dotted, expr_source, parse_stmts
from ..base.kinds import Kind
from .adjoint_buffers import Uses, made_shape, zeroed_array, zeroed_like_itself


def run(tree, ctx, job):
    """Keep the handed-over adjoints of ``tree`` in their buffers (see the module docstring)."""
    handover = Handover(tree, ctx.kinds)
    handover.block(tree.body)
    handover.take_over(tree.body)
    return tree


class Handover:
    def __init__(self, fn, kinds):
        self.fn, self.kinds = fn, kinds
        self.stores = {}                 # name -> how often it is bound or written
        for node in gast.walk(fn):
            for t in node.targets if isinstance(node, gast.Assign) else \
                    [node.target] if isinstance(node, (gast.AugAssign, gast.For)) else []:
                base = t.value if isinstance(t, gast.Subscript) else t
                if isinstance(base, gast.Name):
                    self.stores[base.id] = self.stores.get(base.id, 0) + 1

    def block(self, stmts):
        for s in stmts:
            for field in ("body", "orelse"):
                inner = getattr(s, field, None)
                if isinstance(inner, list) and not isinstance(s, gast.FunctionDef):
                    self.block(inner)
        i = 0
        while i < len(stmts):
            handed = self.hand_over(stmts[i])
            if handed is not None:
                self.keep_buffer(stmts, i, *handed)
            i += 1

    def hand_over(self, s):
        """(temporary, adjoint) for ``t = x`` of an array ``x``, else None."""
        if not (isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name) and
                isinstance(s.value, gast.Name)):
            return None
        kind = self.kinds.get(s.value.id)
        if not isinstance(kind, Kind) or kind.ndim == 0:
            return None
        return s.targets[0].id, s.value.id

    def handed_to(self, s, x):
        """Whether ``s`` hands the adjoint ``x`` to a temporary."""
        handed = self.hand_over(s)
        return handed is not None and handed[1] == x

    def keep_buffer(self, stmts, i, t, x):
        later = stmts[i + 1:]
        z = _first(later, x)
        if z is None or zeroed_like_itself(later[z]) != x:
            return
        if not self.only_handed_over(x, stmts):
            return
        # every name handed the adjoint before (b_t17 = bx; b_t18 = bx; bx = np.zeros_like(bx)) holds it
        holders = set()
        for k in range(i + 1):
            if self.handed_to(stmts[k], x):
                found = self.holders(stmts, k, stmts[k].targets[0].id)
                if found is None:
                    return
                holders |= found
        nxt = _first(later, x, z + 1)
        nxt = len(later) if nxt is None else nxt
        reads = [k for k, s in enumerate(later) if holders & all_names(s)]
        last = reads[-1] if reads else -1
        if nxt < len(later) and _adds(later[nxt], x, t):
            after = _first(later, x, nxt + 1)
            if after is not None and last >= after:
                return
            for k in sorted((nxt, z), reverse=True):
                del stmts[i + 1 + k]
            return
        if last >= nxt:
            return
        zero = parse_stmts(f"{x}[...] = 0.0")[0]
        at = max(last + 1, z + 1)            # after the zeroing's place and the temporary's last read
        stmts.insert(i + 1 + at, zero)
        del stmts[i + 1 + z]

    def take_over(self, stmts):
        """In the function's own statements (run once): an array made zero whose first mention adds a whole
        array of its shape and dtype that nothing mentions afterwards (``ba += b_t1`` after ``b_t1 =
        ba_2``, the adjoint of ``a_2 = a + ...``) becomes that array, instead of a copy of it."""
        uses = Uses(self.fn)            # as the hand-overs above left the function
        i = 0
        while i < len(stmts):
            y = zeroed_array(stmts[i], self.kinds)
            k = _first(stmts, y, i + 1) if y is not None else None
            if k is not None and uses.rebinds.get(y) == 1 and _adds_name(stmts[k], y) and \
                    self.can_take(stmts, k, stmts[i], stmts[k].value.id, uses):
                stmts[k] = gast.Assign(targets=[gast.Name(id=y, ctx=gast.Store(), annotation=None,
                                                          type_comment=None)],
                                       value=stmts[k].value, type_comment=None)
                del stmts[i]
                continue
            i += 1

    def can_take(self, stmts, k, alloc, t, uses):
        """Whether ``y``, made zero by ``alloc``, can be the array ``t`` from statement ``k`` on: ``t`` names (through
        names set once to names) an array the function's own statements make zero with the same shape
        (``adjoint_buffers.made_shape``: its names bound once) and ``y``'s kind, and no name holding its
        memory is mentioned after statement ``k``."""
        root, seen = t, 0
        while seen < 64:
            made = [s for s in stmts if isinstance(s, gast.Assign) and len(s.targets) == 1 and
                    isinstance(s.targets[0], gast.Name) and s.targets[0].id == root]
            if len(made) != 1 or uses.rebinds.get(root) != 1:
                return False
            if not isinstance(made[0].value, gast.Name):
                break
            root, seen = made[0].value.id, seen + 1
        y = alloc.targets[0].id
        if zeroed_array(made[0], self.kinds) != root or self.kinds.get(root) != self.kinds.get(y):
            return False
        shape, root_shape = made_shape(alloc.value, uses), made_shape(made[0].value, uses)
        if shape is None or root_shape is None or expr_source(shape) != expr_source(root_shape):
            return False
        held, grown = {root}, True
        while grown:
            grown = False
            for node in gast.walk(self.fn):
                if isinstance(node, gast.Assign) and not _arithmetic(node.value) and held & all_names(node.value):
                    new = {n for target in node.targets for n in all_names(target)} - held
                    held |= new
                    grown = grown or bool(new)
        return not any(held & all_names(s) for s in stmts[k + 1:]) and y not in held

    def holders(self, stmts, i, t):
        """The names holding the memory of ``t`` after statement ``i`` sets it: ``t`` and names set to it,
        to a part of it or to a call of it, each set once, mentioned only in ``stmts`` after ``i``, never
        written through; None where one is not so."""
        held, grown = {t}, True
        later = stmts[i + 1:]
        while grown:
            grown = False
            for node in (n for s in later for n in gast.walk(s)):
                if isinstance(node, gast.Assign) and len(node.targets) == 1 and \
                        isinstance(node.targets[0], gast.Name) and node.targets[0].id not in held and \
                        not _arithmetic(node.value) and held & all_names(node.value):
                    held.add(node.targets[0].id)
                    grown = True
        inside = sum(1 for s in stmts[i:] for n in gast.walk(s) if isinstance(n, gast.Name) and n.id in held)
        everywhere = sum(1 for n in gast.walk(self.fn) if isinstance(n, gast.Name) and n.id in held)
        if inside != everywhere or any(self.stores.get(h, 0) != 1 for h in held):
            return None
        return held

    def only_handed_over(self, x, stmts):
        """Whether ``x`` is only ever set to new arrays, and every name set to its memory is a hand-over
        ``t = x`` of the statement list ``stmts``."""
        here = sum(1 for s in stmts if self.handed_to(s, x))
        everywhere = sum(1 for n in gast.walk(self.fn) if self.handed_to(n, x))
        if here != everywhere:
            return False
        for node in gast.walk(self.fn):
            if isinstance(node, gast.Assign) and any(isinstance(t, gast.Name) and t.id == x for t in node.targets) \
                    and not (_arithmetic(node.value) or isinstance(node.value, gast.Call) and
                             dotted(node.value.func) in _NEW_ARRAYS):
                return False
            if isinstance(node, gast.Assign) and not _arithmetic(node.value) and x in all_names(node.value) and \
                    not (len(node.targets) == 1 and isinstance(node.targets[0], gast.Subscript)) and \
                    zeroed_like_itself(node) != x:
                if not (isinstance(node.value, gast.Name) and len(node.targets) == 1 and
                        isinstance(node.targets[0], gast.Name)):
                    return False
                if self.stores.get(node.targets[0].id, 0) != 1:
                    return False
        return True


#: calls that make a new array
_NEW_ARRAYS = ("np.zeros_like", "np.zeros", "np.empty_like", "np.empty", "np.copy", "np.ones_like", "np.full")


def _adds_name(s, y):
    """``y += t`` of a name ``t``."""
    return isinstance(s, gast.AugAssign) and isinstance(s.op, gast.Add) and isinstance(s.target, gast.Name) and \
        s.target.id == y and isinstance(s.value, gast.Name) and s.value.id != y


def _first(stmts, var, start=0):
    return next((k for k in range(start, len(stmts)) if var in all_names(stmts[k])), None)


def _adds(s, x, t):
    """``x += t``."""
    return isinstance(s, gast.AugAssign) and isinstance(s.op, gast.Add) and isinstance(s.target, gast.Name) and \
        s.target.id == x and isinstance(s.value, gast.Name) and s.value.id == t


def _arithmetic(value):
    """A value that is a new array or a number (an operator's result), never memory of its operands."""
    return isinstance(value, (gast.BinOp, gast.UnaryOp, gast.Compare, gast.Constant))
