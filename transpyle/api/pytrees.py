"""Pytrees at the API boundary: transforms of functions that take or return pytrees run on a flat
version of the function (one parameter per leaf, see ``frontend/pytrees``) and rebuild the results.

This module holds what does not depend on the transform classes: flattening the arguments,
the flat function of a plain Python function, per-leaf ``argnums`` and ``in_axes``, and the
functions that turn a flat result back into pytrees for each transform.
"""
import dataclasses

from .. import tree as pytree
from ..base.errors import TranspileError
from ..frontend.pytrees import flatten_function, uses_pytrees
from ..pipeline import specialize
from ..frontend.source import read_function

_FLAT_SOURCES = {}       # (function, treedefs, has_aux, statics) -> (FunctionSource, output TreeDef)
_BUILDS_PYTREES = {}     # function -> whether it builds pytrees from arrays (see pytrees.uses_pytrees)


def has_pytree(args):
    return any(pytree.is_pytree(a) for a in args)


def needs_flattening(fun, args):
    """Whether a call of ``fun`` with ``args`` goes through the flat version of ``fun``."""
    if has_pytree(args):
        return True
    if not callable(fun) or hasattr(fun, "generated_function") or not hasattr(fun, "__code__"):
        return False
    if fun not in _BUILDS_PYTREES:
        try:
            _BUILDS_PYTREES[fun] = uses_pytrees(read_function(fun))
        except Exception:                     # unreadable or outside the subset: the pipeline says why
            _BUILDS_PYTREES[fun] = False
    return _BUILDS_PYTREES[fun]


def flatten_args(args):
    """(the leaves of all arguments in order, the TreeDef of each argument)."""
    leaves, treedefs = [], []
    for a in args:
        try:
            ls, td = pytree.flatten(a)
        except TypeError as exc:
            raise TranspileError(str(exc), hint="use string keys in parameter dicts") from None
        leaves += ls
        treedefs.append(td)
    return tuple(leaves), tuple(treedefs)


def leaf_positions(treedefs):
    """For each argument, the positions of its leaves among the flat arguments."""
    out, start = [], 0
    for td in treedefs:
        out.append(tuple(range(start, start + td.num_leaves)))
        start += td.num_leaves
    return out


def flat_source(fun, treedefs, has_aux, static=None):
    """(the function with pytree parameters flattened, as a FunctionSource; its result's TreeDef).
    ``static`` (jit) maps static parameters to their values: they are bound first, so the structure
    pass sees a function passed statically (``grad(fn)(params)``) as that function; ``treedefs``
    are then those of the other parameters."""
    key = (fun, treedefs, has_aux, static_key(static))
    if key not in _FLAT_SOURCES:
        unit = read_function(fun)
        if static:
            unit = specialize(unit, static)
        params = [a.id for a in unit.tree.args.args]
        trees = {p: td for p, td in zip(params, treedefs) if not td.is_leaf}
        _FLAT_SOURCES[key] = flatten_function(unit, trees, pair=has_aux)
    return _FLAT_SOURCES[key]


def static_key(static):
    """What identifies the values bound into a function (static arguments, defaults) in a cache key:
    the hashable values themselves, others (a default array) by identity, as the function holds them."""
    key = []
    for pname, value in (static or {}).items():
        try:
            hash(value)
        except TypeError:
            value = ("id", id(value))
        key.append((pname, value))
    return tuple(key)


def wrt_tree(treedefs, argnums, tuple_argnums):
    """The structure of a gradient: that of the argument (or a tuple over ``argnums``)."""
    if tuple_argnums:
        return pytree.TreeDef("tuple", children=tuple(treedefs[a] for a in argnums))
    return treedefs[argnums[0]]


def layout_of(td):
    """How a flat function returns a result of structure ``td``: the value itself for a leaf, else a
    tuple of the leaves (the layout is a TreeDef of tuples)."""
    return td if td.is_leaf else pytree.TreeDef("tuple", children=(pytree.LEAF,) * td.num_leaves)


def is_flat(layout):
    """Whether a result laid out as ``layout`` is one value or a tuple of values (what a transform of
    a transform can take as its function's output)."""
    return layout.is_leaf or layout.kind == "tuple" and all(c.is_leaf for c in layout.children)


def _tuple(*children):
    return pytree.TreeDef("tuple", children=tuple(children))


def _graft(td, sub):
    """``td`` with every leaf replaced by the structure ``sub`` (a Jacobian of a pytree output)."""
    if td.is_leaf:
        return sub
    return dataclasses.replace(td, children=tuple(_graft(c, sub) for c in td.children))


def function_result(fun_out, has_aux):
    """(the structure, the layout) of what the flat function returns; with has_aux, a pair."""
    if not has_aux:
        return fun_out, layout_of(fun_out)
    aux = fun_out.children[1] if fun_out.kind == "tuple" and len(fun_out.children) == 2 else pytree.LEAF
    return _tuple(pytree.LEAF, aux), _tuple(pytree.LEAF, layout_of(aux))


def derivative_result(mode, fun_out, grad_tree, has_aux):
    """(the structure, the layout) of the flat result of ``mode`` (grad, value_and_grad, jacfwd,
    jacrev), for a function whose result has structure ``fun_out`` and a gradient of structure
    ``grad_tree`` (with respect to every differentiated leaf, so its layout is a tuple)."""
    structure, _ = function_result(fun_out, has_aux)
    value_tree, aux_tree = structure.children if has_aux else (fun_out, None)
    grads = layout_of(grad_tree) if not grad_tree.is_leaf else _tuple(pytree.LEAF)
    if mode == "grad":
        out, layout = grad_tree, grads
    elif mode == "value_and_grad":
        if has_aux:
            return _tuple(structure, grad_tree), _tuple(_tuple(pytree.LEAF, layout_of(aux_tree)), grads)
        return _tuple(value_tree, grad_tree), _tuple(layout_of(value_tree), grads)
    elif mode in ("jacfwd", "jacrev"):
        if value_tree.is_leaf:
            out, layout = grad_tree, grads
        else:
            out = _graft(value_tree, grad_tree)
            layout = _tuple(*[grads] * value_tree.num_leaves)
    else:
        raise TranspileError(f"{mode} of a function of pytrees is not supported", hint="flatten the arguments")
    if has_aux:
        return _tuple(out, aux_tree), _tuple(layout, layout_of(aux_tree))
    return out, layout


def rebuild(out_tree, flat_result):
    """The pytree of structure ``out_tree`` from a flat result (its leaves in the same order)."""
    return pytree.unflatten(out_tree, pytree.leaves(flat_result))


def axes_for_leaves(spec, td, what="in_axes"):
    """The per-leaf axes of an ``in_axes``/``out_axes`` entry (an int or None for the whole
    pytree, or a pytree of those with the argument's structure)."""
    if spec is None or isinstance(spec, int):
        return [spec] * td.num_leaves
    if td.is_leaf:
        raise TranspileError(f"{what} {spec!r} has more structure than the value it applies to",
                             hint="give one int or None per array")
    s_leaves, s_td = pytree.flatten(spec, is_leaf=lambda x: x is None)
    shell = dataclasses.replace(td, children=())
    if dataclasses.replace(s_td, children=()) != shell or len(s_td.children) != len(td.children):
        raise TranspileError(f"{what} {spec!r} does not match the argument's structure {td}",
                             hint="use an int or None for the whole pytree, or the same structure")
    children = [spec[k] for k in td.keys] if isinstance(spec, dict) else pytree.children_of(spec)
    out = []
    for c_spec, c_td in zip(children, td.children):
        out += axes_for_leaves(c_spec, c_td, what)
    return out


def leaf_in_axes(in_axes, treedefs):
    """vmap's ``in_axes`` (one entry, or one per argument) as one axis per leaf of the arguments."""
    specs = in_axes if isinstance(in_axes, (tuple, list)) else (in_axes,) * len(treedefs)
    if len(specs) != len(treedefs):
        raise TranspileError(f"vmap in_axes has {len(specs)} entries for {len(treedefs)} arguments",
                             hint="give one entry per argument")
    return tuple(ax for spec, td in zip(specs, treedefs) for ax in axes_for_leaves(spec, td))


def check_same(a, b, what):
    if a != b:
        raise TranspileError(f"{what}: the structures differ:\n  {a}\n  {b}",
                             hint="pass values with the same pytree structure")
