"""structs: the symbolic values of the pytree flattening and the helpers on them.

A :class:`Struct` is a pytree known at transform time: a TreeDef shell whose children are Structs
or leaf expressions (names of leaf variables, or constants). A :class:`StaticSeq` is what
``.items()``, ``enumerate`` or ``zip`` of pytrees produce: rows that a loop is unrolled over.
The helpers here rebuild Structs from TreeDefs, name leaves after their keys and read indices
known at transform time.
"""
import dataclasses
import re

import gast

from ... import tree as pytree


@dataclasses.dataclass
class Struct:
    shell: pytree.TreeDef        # kind, keys, node, aux; no children
    items: list                  # Structs or leaf expressions

    def treedef(self):
        return dataclasses.replace(self.shell, children=tuple(
            i.treedef() if isinstance(i, Struct) else pytree.LEAF for i in self.items))

    def leaves(self):
        out = []
        for i in self.items:
            out.extend(i.leaves() if isinstance(i, Struct) else [i])
        return out


class StaticSeq:
    """What ``.items()``, ``enumerate(s)`` or ``zip(...)`` produce: static rows to iterate over."""

    def __init__(self, rows):
        self.rows = rows


def from_treedef(td, leaves):
    """The Struct of shape ``td`` holding ``leaves`` (in flatten's order)."""
    it = iter(leaves)

    def build(t):
        if t.is_leaf:
            return next(it)
        return Struct(dataclasses.replace(t, children=()), [build(c) for c in t.children])
    return build(td)


def describe(s):
    return str(s.treedef()) if isinstance(s, Struct) else "a single value"


def ident(key):
    """A key as part of a variable name (``params_0_W``)."""
    return re.sub(r"\W", "_", str(key))


def static_key(node, consts):
    """The value of an index known at transform time, or raise KeyError."""
    if isinstance(node, gast.Constant):
        return node.value
    if isinstance(node, gast.Name) and node.id in consts:
        return consts[node.id]
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        return -static_key(node.operand, consts)
    if isinstance(node, gast.Slice):
        parts = [None if p is None else static_key(p, consts) for p in (node.lower, node.upper, node.step)]
        return slice(*parts)
    raise KeyError


def returns_container(fdef):
    """Whether ``fdef`` returns a container literal (a dict, a list, a tuple holding containers):
    then a call of it is flattened even with no pytree arguments."""
    for n in gast.walk(fdef):
        if isinstance(n, gast.Return) and isinstance(n.value, (gast.Dict, gast.List)):
            return True
        if isinstance(n, gast.Return) and isinstance(n.value, gast.Tuple) and \
                any(isinstance(e, (gast.Dict, gast.List, gast.Tuple)) for e in n.value.elts):
            return True
    return False
