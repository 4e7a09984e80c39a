"""lower_calls: library calls whose full NumPy form Numba lacks (reductions with ``axis`` or
``keepdims``) become calls to run-time helpers with the same NumPy semantics, as each rule's
``lower`` says. Runs after ``infer``, since the choice depends on ranks."""
import gast

from ..primitives import lookup
from ..rules.common import StaticError
from .activity import assignments
from .infer import operand_kinds


def run(tree, ctx):
    for s in assignments(tree.body):
        value = s.value
        if not isinstance(value, gast.Call) or not isinstance(s.targets[0], gast.Name):
            continue
        prim, bound = lookup(value)
        if prim is None or prim.lower is None:
            continue
        try:
            new = prim.lower(bound, operand_kinds(ctx, prim, bound), bound)
        except StaticError as exc:
            raise ctx.error(s, f"{prim.key}: {exc}")
        if new is not None:
            s.value = new
    return tree
