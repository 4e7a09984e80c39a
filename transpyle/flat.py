"""Pytrees at the API boundary: transforms of functions that take or return pytrees run on a flat
version of the function (one parameter per leaf, see ``passes/structure``) and rebuild the results.

This module holds what does not depend on the transform classes: flattening the arguments,
the flat function of a plain Python function, per-leaf ``argnums`` and ``in_axes``, and the
functions that turn a flat result back into pytrees for each transform.
"""
import dataclasses

from . import tree as pytree
from .errors import TranspileError
from .passes import structure
from .source import read_function

_FLAT_SOURCES = {}       # (function, treedefs, has_aux) -> (FunctionSource, output TreeDef)


_BUILDS_PYTREES = {}     # function -> whether it builds pytrees from arrays (see structure.uses_pytrees)


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
            _BUILDS_PYTREES[fun] = structure.uses_pytrees(read_function(fun))
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


def unflat(td, out):
    """A flat result (a leaf, or a tuple of leaves) as the pytree ``td``."""
    return out if td.is_leaf else pytree.unflatten(td, out)


def leaf_positions(treedefs):
    """For each argument, the positions of its leaves among the flat arguments."""
    out, start = [], 0
    for td in treedefs:
        out.append(tuple(range(start, start + td.num_leaves)))
        start += td.num_leaves
    return out


def flat_source(fun, treedefs, has_aux):
    """(the function with pytree parameters flattened, as a FunctionSource; its result's TreeDef)."""
    key = (fun, treedefs, has_aux)
    if key not in _FLAT_SOURCES:
        unit = read_function(fun)
        params = [a.id for a in unit.tree.args.args]
        trees = {p: td for p, td in zip(params, treedefs) if not td.is_leaf}
        _FLAT_SOURCES[key] = structure.flatten_function(unit, trees, pair=has_aux)
    return _FLAT_SOURCES[key]


def wrt_tree(treedefs, argnums, tuple_argnums):
    """The structure of a gradient: that of the argument (or a tuple over ``argnums``)."""
    if tuple_argnums:
        return pytree.TreeDef("tuple", children=tuple(treedefs[a] for a in argnums))
    return treedefs[argnums[0]]


def derivative_result(mode, fun_out, grad_tree, has_aux):
    """(a function from the flat result of ``mode`` to pytrees, the TreeDef of the result when it is a
    flat tuple of leaves, else None)."""
    aux_tree = fun_out.children[1] if has_aux and fun_out.kind == "tuple" else pytree.LEAF
    value_tree = pytree.LEAF if has_aux else fun_out

    def grads(g):
        return pytree.unflatten(grad_tree, g)

    def jac(j):
        return grads(j) if value_tree.is_leaf else pytree.unflatten(value_tree, [grads(row) for row in j])

    if mode == "grad":
        if has_aux:
            return (lambda out: (grads(out[0]), unflat(aux_tree, out[1]))), None
        return grads, grad_tree
    if mode == "value_and_grad":
        if has_aux:
            return (lambda out: ((out[0][0], unflat(aux_tree, out[0][1])), grads(out[1]))), None
        return (lambda out: (unflat(value_tree, out[0]), grads(out[1]))), None
    if mode in ("jacfwd", "jacrev"):
        if has_aux:
            return (lambda out: (jac(out[0]), unflat(aux_tree, out[1]))), None
        return jac, (grad_tree if value_tree.is_leaf else None)
    raise TranspileError(f"{mode} of a function of pytrees is not supported", hint="flatten the arguments")


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


def check_same(a, b, what):
    if a != b:
        raise TranspileError(f"{what}: the structures differ:\n  {a}\n  {b}",
                             hint="pass values with the same pytree structure")
