"""``transpyle.tree_util``, for code ported from ``jax.tree_util``: JAX's names for the pytree functions of
``transpyle.tree`` (``tree_map`` is ``tree.map``, so transformed code accepts it too), registration of
classes as pytree nodes, and ``Partial``, a ``functools.partial`` that is a pytree (its arguments are
leaves, the function is part of the structure)."""
import functools

from . import tree as _tree

tree_map = _tree.map
tree_leaves = _tree.leaves
tree_flatten = _tree.flatten
tree_unflatten = _tree.unflatten
tree_structure = _tree.structure
register_pytree_node = _tree.register_pytree_node
register_dataclass = _tree.register_dataclass
PyTreeDef = _tree.TreeDef

__all__ = ["tree_map", "tree_leaves", "tree_flatten", "tree_unflatten", "tree_structure", "tree_reduce", "tree_all",
           "register_pytree_node", "register_pytree_node_class", "register_dataclass", "Partial", "PyTreeDef"]

_NO_INITIALIZER = object()


def tree_reduce(function, tree, initializer=_NO_INITIALIZER, is_leaf=None):
    """``functools.reduce(function, leaves)`` over the leaves of ``tree``."""
    leaves = _tree.leaves(tree, is_leaf)
    if initializer is _NO_INITIALIZER:
        return functools.reduce(function, leaves)
    return functools.reduce(function, leaves, initializer)


def tree_all(tree, is_leaf=None):
    """Whether every leaf is true."""
    return all(_tree.leaves(tree, is_leaf))


def register_pytree_node_class(cls):
    """Register ``cls`` by its own ``tree_flatten(self) -> (children, aux_data)`` and classmethod
    ``tree_unflatten(aux_data, children)``. Usable as a decorator."""
    return _tree.register_pytree_node(cls, lambda obj: obj.tree_flatten(), cls.tree_unflatten)


class Partial(functools.partial):
    """``functools.partial`` as a pytree: the bound arguments are its children, the function its static
    part, so a Partial can be passed to and returned from transformed functions' callers like any pytree."""

    def __new__(cls, func, *args, **kwargs):
        if isinstance(func, functools.partial):     # Partial(Partial(f, a), b): one level, as functools does
            return super().__new__(cls, func.func, *func.args, *args, **{**func.keywords, **kwargs})
        return super().__new__(cls, func, *args, **kwargs)


_tree.register_pytree_node(Partial, lambda p: ((p.args, p.keywords), p.func),
                           lambda func, children: Partial(func, *children[0], **children[1]))
