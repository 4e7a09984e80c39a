"""Pytrees: nested containers of arrays, as in JAX (``transpyle.tree``).

A pytree is a leaf (an array, a number, anything not registered as a container) or a container
of pytrees: ``tuple``, ``list``, ``dict`` (children in sorted key order), namedtuples, ``None``
(a container with no children), and classes registered with :func:`register_pytree_node` or
:func:`register_dataclass`. A :class:`TreeDef` is the structure without the leaves; the
transforms flatten pytree arguments into leaves at the call, specialise the code on the
structure (``params['W']`` becomes a leaf variable) and rebuild pytree results.
"""
import dataclasses

__all__ = ["TreeDef", "flatten", "unflatten", "leaves", "structure", "map", "register_pytree_node",
           "register_dataclass", "is_pytree"]

_REGISTRY = {}      # class -> (flatten: obj -> (children, aux), unflatten: (aux, children) -> obj)


def register_pytree_node(cls, flatten_func, unflatten_func):
    """Make ``cls`` a container: ``flatten_func(obj) -> (children, aux_data)`` and
    ``unflatten_func(aux_data, children) -> obj``. ``aux_data`` is static (part of the structure)
    and must be hashable."""
    _REGISTRY[cls] = (flatten_func, unflatten_func)
    return cls


def register_dataclass(cls, data_fields=None, meta_fields=()):
    """Register a dataclass: ``data_fields`` (default: every field not in ``meta_fields``) are
    children; ``meta_fields`` are static. Usable as a decorator."""
    names = [f.name for f in dataclasses.fields(cls)]
    meta = tuple(meta_fields)
    data = tuple(data_fields) if data_fields is not None else tuple(n for n in names if n not in meta)

    def flatten_obj(obj):
        return [getattr(obj, n) for n in data], tuple(getattr(obj, n) for n in meta)

    def unflatten_obj(aux, children):
        return cls(**dict(zip(data, children)), **dict(zip(meta, aux)))
    register_pytree_node(cls, flatten_obj, unflatten_obj)
    cls.__transpyle_fields__ = data
    return cls


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


@dataclasses.dataclass(frozen=True)
class TreeDef:
    """The structure of a pytree. ``kind`` is 'leaf', 'none', 'tuple', 'list', 'dict',
    'namedtuple' or 'custom'; ``keys`` the dict keys or field names (children in that order);
    ``node`` the namedtuple or registered class; ``aux`` a registered class's static data."""
    kind: str
    children: tuple = ()
    keys: tuple = ()
    node: object = None
    aux: object = None
    names: tuple = dataclasses.field(default=(), compare=False)   # a registered class's attributes

    @property
    def num_leaves(self):
        return 1 if self.kind == "leaf" else sum(c.num_leaves for c in self.children)

    @property
    def is_leaf(self):
        return self.kind == "leaf"

    def unflatten(self, leaves):
        """The pytree of this structure holding ``leaves`` (``jax.tree_util``'s ``treedef.unflatten``)."""
        return unflatten(self, leaves)

    def child_index(self, key):
        """The position of the child at ``key`` (a dict key, an index, or a field name), or None."""
        if self.kind == "custom":
            return self.names.index(key) if key in self.names else None
        if self.kind == "dict" or (self.kind == "namedtuple" and isinstance(key, str)):
            return self.keys.index(key) if key in self.keys else None
        if self.kind in ("tuple", "list", "namedtuple") and isinstance(key, int) and not isinstance(key, bool):
            n = len(self.children)
            return key % n if -n <= key < n else None
        return None

    def __str__(self):
        if self.kind == "leaf":
            return "*"
        if self.kind == "none":
            return "None"
        inner = [str(c) for c in self.children]
        if self.kind == "dict":
            return "{" + ", ".join(f"{k!r}: {c}" for k, c in zip(self.keys, inner)) + "}"
        if self.kind == "list":
            return "[" + ", ".join(inner) + "]"
        if self.kind == "tuple":
            return "(" + ", ".join(inner) + ("," if len(inner) == 1 else "") + ")"
        labels = self.keys or self.names or [""] * len(inner)
        return f"{self.node.__name__}(" + ", ".join(f"{k}={c}" if k else c for k, c in zip(labels, inner)) + ")"


LEAF = TreeDef("leaf")


def is_pytree(x):
    """Whether ``x`` is a container (not a leaf)."""
    return x is None or type(x) in _REGISTRY or isinstance(x, (tuple, list, dict))


def _node(x):
    """(TreeDef without children, children) for a container ``x``; None for a leaf."""
    if x is None:
        return TreeDef("none"), []
    cls = type(x)
    if cls in _REGISTRY:
        children, aux = _REGISTRY[cls][0](x)
        children = list(children)
        names = getattr(cls, "__transpyle_fields__", None) or _attribute_names(x, children)
        return TreeDef("custom", node=cls, aux=aux, names=tuple(names)), children
    if _is_namedtuple(x):
        return TreeDef("namedtuple", node=cls, keys=tuple(cls._fields)), list(x)
    if isinstance(x, tuple):
        return TreeDef("tuple"), list(x)
    if isinstance(x, list):
        return TreeDef("list"), list(x)
    if isinstance(x, dict):
        try:
            keys = tuple(sorted(x))
        except TypeError:
            raise TypeError("pytree dict keys must be sortable (all strings or all numbers)") from None
        return TreeDef("dict", keys=keys), [x[k] for k in keys]
    return None


def _attribute_names(obj, children):
    """The attributes of ``obj`` holding ``children`` (so transformed code can read ``obj.W``), or
    () when they cannot all be told apart."""
    attrs = getattr(obj, "__dict__", {})
    names = []
    for c in children:
        hits = [k for k, v in attrs.items() if v is c and k not in names]
        if len(hits) != 1:
            return ()
        names.append(hits[0])
    return names


def children_of(x):
    """The children of the container ``x``, in flatten's order."""
    return _node(x)[1]


def flatten(tree, is_leaf=None):
    """``(leaves, treedef)``: the leaves in order (dicts by sorted key) and the structure."""
    out = []

    def walk(x):
        node = None if (is_leaf is not None and is_leaf(x)) else _node(x)
        if node is None:
            out.append(x)
            return LEAF
        shell, children = node
        return dataclasses.replace(shell, children=tuple(walk(c) for c in children))
    return out, walk(tree)


def unflatten(treedef, leaves):
    """The pytree of structure ``treedef`` holding ``leaves`` (in flatten's order)."""
    it = iter(leaves)

    def build(td):
        if td.kind == "leaf":
            return next(it)
        children = [build(c) for c in td.children]
        if td.kind == "none":
            return None
        if td.kind == "tuple":
            return tuple(children)
        if td.kind == "list":
            return children
        if td.kind == "dict":
            return dict(zip(td.keys, children))
        if td.kind == "namedtuple":
            return td.node(*children)
        return _REGISTRY[td.node][1](td.aux, children)
    leaves = list(leaves)
    if len(leaves) != treedef.num_leaves:
        raise ValueError(f"the structure {treedef} has {treedef.num_leaves} leaves, {len(leaves)} given")
    return build(treedef)


def leaves(tree, is_leaf=None):
    """The leaves of ``tree``, in flatten's order."""
    return flatten(tree, is_leaf)[0]


def structure(tree, is_leaf=None):
    """The TreeDef of ``tree``."""
    return flatten(tree, is_leaf)[1]


def map(f, tree, *rest, is_leaf=None):
    """The pytree of ``f(leaf, *leaves of rest at the same place)``; ``rest`` must have the
    structure of ``tree``."""
    flat, td = flatten(tree, is_leaf)
    others = []
    for r in rest:
        r_flat, r_td = flatten(r, is_leaf)
        if r_td != td:
            raise ValueError(f"tree.map: structures differ:\n  {td}\n  {r_td}")
        others.append(r_flat)
    return unflatten(td, [f(*xs) for xs in zip(flat, *others)])

