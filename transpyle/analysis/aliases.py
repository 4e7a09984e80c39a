"""aliases: which names share an array buffer, as in NumPy, on the normalized tree.

A name bound to an array refers to a buffer. ``z = y`` shares it, and so do views: basic
indexing that leaves an array (``y[1:]``, ``A[i]``), and the primitives whose table entry names
the operand they return a view of (``.T``, reshape, ravel, ...). Everything else makes a new
buffer. A *move* (``y = _t`` where ``_t`` holds a new buffer and is read nowhere else) hands the
buffer over, so it shares nothing that could be seen.

``a op= b`` on an array writes into its buffer; on a number it rebinds. Normalize cannot tell
them apart (kinds are not known yet), so it marks the assignment, and the ``in_place`` pass (``frontend/in_place``)
turns the marked assignments of arrays into writes ``a[:] = a op b`` once kinds are inferred.
After that every in-place change of an array is a ``name[index] = value`` statement.

The analysis is flow-insensitive: names that may ever share a buffer form one class. The
transforms use it to stay exact:
- a write through any name of a class changes every name of it (activity, saving values before
  writes, loop invariance, recomputation in the adjoint sweep);
- a view whose class is written in place has an adjoint that is the same view of its base's
  adjoint (``Aliases.views``), so that adjoint contributions flow through the shared buffer as
  the values do. Where that cannot be exact (a view rebound to different bases, a base rebound
  while the view is in use), the transform refuses at the user's line, naming both names.
"""
import warnings

import gast

from ..base.ast_utils import expr_source, loaded_names, parse_expr
from ..base.context import place
from ..base.kinds import Kind
from ..rules.primitives import lookup
from .places import assignments, block_of, dead_after, mentioned, mentioned_in, position, rebound_by, used_outside

#: attribute normalize sets on the assignment that ends an augmented assignment ``a op= b``
IN_PLACE_ATTR = "transpyle_in_place"
#: attribute normalize sets on the store ``x[part] = _t`` that ends ``x[part] op= b`` (and ``x op= b`` of an
#: array): the value has the shape of the part written, as NumPy's in-place operations require
TARGET_SHAPED_ATTR = "transpyle_target_shaped"


class _Classes:
    """Union-find over names."""

    def __init__(self):
        self.parent = {}

    def find(self, v):
        self.parent.setdefault(v, v)
        while self.parent[v] != v:
            self.parent[v] = self.parent[self.parent[v]]
            v = self.parent[v]
        return v

    def union(self, a, b):
        self.parent[self.find(a)] = self.find(b)


class Aliases:
    """The buffer classes of one normalized function (see the module docstring)."""

    def __init__(self, tree, ctx):
        self.ctx = ctx
        self.kinds = ctx.kinds
        body = self.body = tree.body
        self.reads = {}
        for n in gast.walk(gast.Module(body=body, type_ignores=[])):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
                self.reads[n.id] = self.reads.get(n.id, 0) + 1
        assigns = list(assignments(body))
        self.defs = {}                      # name -> its assignments (to the name itself)
        for s in assigns:
            t = s.targets[0]
            if isinstance(t, gast.Name):
                self.defs.setdefault(t.id, []).append(s)
        self.written = {s.targets[0].value.id for s in assigns if isinstance(s.targets[0], gast.Subscript)}
        self.view_of = {}                   # id(view statement) -> base name
        self.strided = _strided(assigns, self.operand_kinds)
        self.targets = {}                   # id(view statement) -> the name it binds
        self.strided_reshapes = []          # (statement, operand): reshapes of strided arrays (base_of)
        for s in assigns:
            base = self.base_of(s)
            if base is not None:
                self.view_of[id(s)] = base
                self.targets[id(s)] = s.targets[0].id
        # A move (``v = b`` with ``b`` read nowhere after) hands a buffer from one name to the next: the two
        # never name it at the same time, so ``v`` is no view to follow. The buffer is still one (a write
        # through ``v`` changes what ``b`` held), so the names stay in one class. A source that is itself
        # a view of a live array shares more than it hands over: those copies are not moves.
        moves = {id(s): s for s in assigns if id(s) in self.view_of and isinstance(s.value, gast.Name)
                 and dead_after(body, s, s.value.id)}
        shrinking = True
        while shrinking:
            shrinking = False
            for key, s in list(moves.items()):
                if any(id(d) in self.view_of and id(d) not in moves for d in self.defs.get(s.value.id, ())):
                    del moves[key]
                    shrinking = True
        self.classes = _Classes()
        for s in assigns:
            base = self.view_of.get(id(s))
            if base is not None:
                self.classes.union(s.targets[0].id, base)
        for key in moves:
            del self.view_of[key]
        self.members_of = {}
        for v in list(self.classes.parent):
            self.members_of.setdefault(self.classes.find(v), set()).add(v)

    def base_of(self, s):
        """The name whose buffer ``s`` (``v = ...``) makes ``v`` share, or None for a new buffer."""
        t, value = s.targets[0], s.value
        if not isinstance(t, gast.Name):
            return None
        kind = self.kinds.get(t.id)
        if not (isinstance(kind, Kind) and kind.is_array):
            return None
        if isinstance(value, gast.Name):
            return value.id if isinstance(self.kinds.get(value.id), Kind) else None
        if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name):
            return value.value.id
        prim, bound = lookup(value)
        param = prim.viewed(self.operand_kinds(bound)) if prim is not None else None
        operand = bound.get(param) if param else None
        if not isinstance(operand, gast.Name):
            return None
        one_axis = getattr(self.kinds.get(operand.id), "ndim", None) == 1
        if prim.key == "np.reshape" and one_axis:
            return operand.id           # splitting one axis never needs its elements contiguous: a view
        if prim.key in ("np.ravel", "np.reshape") and operand.id in self.strided:
            # NumPy views or copies by the strides: followed as a copy, and refused where that differs
            self.strided_reshapes.append((s, operand.id))
            return None
        return operand.id

    def operand_kinds(self, bound):
        """param -> the kind of the operand, for the operands that are names."""
        return {p: self.kinds.get(n.id) for p, n in bound.items() if isinstance(n, gast.Name)}

    # ---- questions the transforms ask ------------------------------------------------------------
    def members(self, v):
        """The names that may share ``v``'s buffer (``v`` included)."""
        return self.members_of.get(self.classes.find(v), {v}) if v in self.classes.parent else {v}

    def closure(self, names):
        """``names`` with every name sharing a buffer with one of them."""
        out = set()
        for v in names:
            out |= self.members(v)
        return out

    def written_in_place(self, v):
        """Whether a write through some name of ``v``'s class changes ``v``'s buffer."""
        return bool(self.members(v) & self.written)

    def written_buffers(self):
        """Names whose buffer is written in place at some point: the written classes, and the names
        whose buffer is moved into one of them (``_t = x + 1.0; y = _t; y[:] = ...``)."""
        out = self.closure(self.written)
        grown = True
        while grown:
            grown = False
            for v, stmts in self.defs.items():
                for s in stmts:
                    if v in out and isinstance(s.value, gast.Name) and s.value.id not in out and \
                            id(s) not in self.view_of and isinstance(self.kinds.get(s.value.id), Kind):
                        out.add(s.value.id)
                        grown = True
        return out

    def written_in(self, stmts):
        """Names whose buffer ``stmts`` write into (through any alias)."""
        out = set()
        for n in gast.walk(gast.Module(body=list(stmts), type_ignores=[])):
            if isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store) and isinstance(n.value, gast.Name):
                out |= self.members(n.value.id)
        return out

    def written_after(self, s):
        """Whether the buffer that the view statement ``s`` shares may be written while the view is in use:
        through the view (or a view of it), or through another name before the last use of the view or of
        a view made from it. A write
        that comes before ``s`` (outside any loop around both), or after the view is dead, changes nothing
        the view shows, and the view is then an ordinary value."""
        target = s.targets[0].id
        here = position(self.body, s)
        through = self.derived(target)
        for w in assignments(self.body):
            t = w.targets[0]
            if not (isinstance(t, gast.Subscript) and isinstance(t.value, gast.Name) and
                    t.value.id in self.members(target)):
                continue
            # the view is in use while it, or a view made from it, is read again
            if self._may_follow(here, position(self.body, w)) and \
                    (t.value.id in through or not all(dead_after(self.body, w, d) for d in through)):
                return True
        return False

    def derived(self, v):
        """``v`` and the views made from it, and from those, in turn."""
        out = {v}
        grown = True
        while grown:
            grown = False
            for v_id, base in self.view_of.items():
                made = self.targets[v_id]
                if base in out and made not in out:
                    out.add(made)
                    grown = True
        return out

    @staticmethod
    def _may_follow(here, there):
        """Whether the statement at position ``there`` may run after the one at ``here`` (``places.position``)."""
        for d in range(min(len(here), len(there))):
            if here[d][0] != there[d][0]:
                return True                     # other branches of one `if`: no order known here
            if here[d][1] != there[d][1]:
                looped = any(isinstance(c, (gast.For, gast.While)) for _, _, c in here[:d])
                return looped or there[d][1] > here[d][1]
        return False

    def check_strided_reshapes(self):
        """A reshape of a strided array is a view where NumPy can lay the new shape over the strides
        (``y[::2].reshape(2, 2)``) and a copy otherwise (``B.T.reshape(-1)``): the run decides. It is
        followed as a copy; where a write through either name could reach the other while the reshaped
        one is in use, the call becomes ``rt.reshape_copy``, which raises where NumPy would make a view."""
        for s, operand in self.strided_reshapes:
            prim, _ = lookup(s.value)
            if prim is None or prim.key != "np.reshape":
                continue                # np.ravel copies whatever is not contiguous
            v, here = s.targets[0].id, position(self.body, s)
            for w in assignments(self.body):
                t = w.targets[0]
                if not (isinstance(t, gast.Subscript) and isinstance(t.value, gast.Name)):
                    continue
                if t.value.id in self.members(v) or t.value.id in self.members(operand) and \
                        self._may_follow(here, position(self.body, w)) and not dead_after(self.body, w, v):
                    s.value.func = parse_expr("rt.reshape_copy")
                    break

    def views(self):
        """Views followed as views by reverse mode: view name -> its statement. A view of a class
        that is written in place; it must have one definition, one base and index that stay bound
        while it is in use (checked by ``check_view``)."""
        self.check_strided_reshapes()
        out = {}
        for v, stmts in self.defs.items():
            viewing = [s for s in stmts if id(s) in self.view_of]
            if not viewing or not any(self.written_after(s) for s in viewing):
                continue
            for s in viewing:
                self.check_writable(v, s)
            same = len(viewing) == len(stmts) and len({expr_source(s.value) for s in stmts}) == 1 and \
                len({id(block_of(self.body, s)) for s in stmts}) == 1
            if same:                    # the same view taken again in one block (row = A[i] ... row = A[i])
                for s in stmts:
                    self.check_view(v, s)
                out[v] = viewing[0]
                continue
            if len(stmts) > 1:
                other = next((s for s in stmts if s is not viewing[0]), stmts[0])
                raise self.ctx.error(other, f"'{v}' refers to the buffer of '{self.view_of[id(viewing[0])]}' "
                                            f"in one place and is assigned again here, and that buffer is "
                                            f"written in place: which array '{v}' is depends on the run",
                                     hint=f"use a separate name for each array, or take "
                                          f"'{v} = ....copy()' where a new array is meant")
            self.check_view(v, viewing[0])
            out[v] = viewing[0]
        return out

    def check_writable(self, v, s):
        """Refuse a view whose primitive says it cannot follow writes into its buffer (``readonly``)."""
        prim, _ = lookup(s.value)
        if prim is not None and prim.readonly:
            base = self.view_of[id(s)]
            raise self.ctx.error(s, f"'{v}' is a view of '{base}' made by {prim.key}, and their buffer is written "
                                    f"in place while '{v}' is in use: {prim.readonly}",
                                 hint=f"take '{v} = ....copy()' where a separate array is meant, or build the new "
                                      f"array instead of writing into it")

    def check_view(self, v, s):
        """A view is followed through its base's adjoint at each use, so its base and the names in its
        index must keep their values from its definition to its last use, in the same block."""
        block = block_of(self.body, s)
        k = next(i for i, t in enumerate(block) if t is s)
        # the statements since the same view was last taken in this block (see ``views``)
        start = max([i + 1 for i, t in enumerate(block[:k]) if t in self.defs.get(v, ())], default=0)
        before, after = block[start:k], block[k + 1:]
        end = next((i for i, t in enumerate(after) if t in self.defs.get(v, ())), len(after))
        after = after[:end]
        uses = [i for i, t in enumerate(after) if v in mentioned(t)]
        base = self.view_of[id(s)]
        if v in mentioned_in(before) or used_outside(self.body, block, v):
            raise self.ctx.error(s, f"'{v}' is a view of '{base}' that is used outside the block that makes it "
                                    f"(in another loop iteration or after the loop), and '{base}' is written "
                                    f"in place", hint=f"make the view where it is used, or take '{v} = "
                                                      f"....copy()' if a separate array is meant")
        if not uses:
            return
        bound = {base} | (loaded_names(s.value) - {base})
        for t in after[:uses[-1] + 1]:
            rebound = rebound_by(t) & bound
            if rebound:
                raise self.ctx.error(t, f"'{sorted(rebound)[0]}' is assigned again while '{v}', a view of "
                                        f"'{base}' made from it, is still in use, and '{base}' is written in "
                                        f"place", hint=f"use a new name for the new value, or take '{v} = "
                                                       f"....copy()' if a separate array is meant")

    def warn_ported_aliases(self):
        """``x_old = x`` followed by ``x += ...`` is NumPy aliasing, not a saved copy (code written for
        immutable arrays): say so at the user's line."""
        own = {n.id for n in gast.walk(self.ctx.source.tree) if isinstance(n, gast.Name)}
        renamed = self.ctx.options.get("renamed", {})        # frontend/rename: new name -> the user's
        for new_v, stmts in self.defs.items():
            for s in stmts:
                base = self.view_of.get(id(s))
                v = renamed.get(new_v, new_v)
                base = renamed.get(base, base)
                if base is None or not isinstance(s.value, gast.Name) or not self.written_in_place(new_v):
                    continue
                if not {v, base} <= own or getattr(s, "transpyle_binding", False):
                    continue            # names made by the transforms (helper parameters, temporaries)
                filename, lineno = place(s, self.ctx.filename)
                lineno = lineno or 0
                # reported at the user's line, as Python reports its own warnings
                warnings.warn_explicit(f"'{v} = {base}' makes '{v}' the same array as "
                                       f"'{base}', and that array is written in place later, so '{v}' sees the "
                                       f"writes (NumPy's meaning). For an independent value write '{v} = "
                                       f"{base}.copy()', or update with '{base} = {base} + ...' instead of '+='.",
                                       UserWarning, filename, lineno)


#: views that keep the memory layout of their operand
_CONTIGUOUS_VIEWS = ("np.ravel", "np.reshape", "np.asarray", "np.ascontiguousarray", "np.atleast_2d")


def _strided(assigns, operand_kinds):
    """Names that may hold an array not contiguous in memory: transposes, and slices other than
    ``A[i, j:k, :, :]`` (integers, then one slice of unit step, then whole axes), and what they name."""
    def strided_index(index):
        parts = index.elts if isinstance(index, gast.Tuple) else [index]
        sliced = False
        for p in parts:
            if isinstance(p, gast.Slice):
                step_ok = p.step is None or isinstance(p.step, gast.Constant) and p.step.value in (1, None)
                whole = p.lower is None and p.upper is None
                if not step_ok or sliced and not whole:
                    return True
                sliced = True
            elif sliced and not (isinstance(p, gast.Constant) and p.value is None):
                return True             # an integer after a slice: a column
        return False
    out = set()
    grown = True
    while grown:
        grown = False
        for s in assigns:
            t, value = s.targets[0], s.value
            if not isinstance(t, gast.Name) or t.id in out:
                continue
            prim, bound = lookup(value) if isinstance(value, gast.Call) else (None, None)
            # a view other than a reshape (a transpose, a part of complex numbers) is strided
            param = prim.viewed(operand_kinds(bound)) if prim is not None else None
            if isinstance(value, gast.Name) and value.id in out or \
                    isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name) and \
                    (value.value.id in out or strided_index(value.slice)) or \
                    param and prim.key not in _CONTIGUOUS_VIEWS or \
                    param and isinstance(bound.get(param), gast.Name) and \
                    bound[param].id in out and prim.key not in ("np.ravel", "np.reshape"):
                out.add(t.id)
                grown = True
    return out
