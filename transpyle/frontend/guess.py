"""Guessing argument kinds from how a function uses its parameters (for ``show`` without examples).

Evidence read from the source: ``x[i, j]`` (rank at least 2), ``x.shape[k]`` (at least k+1),
``a, b = x.shape``, ``for v in x``, ``len(x)``, ``x`` or ``x[i]`` passed to an array function
such as ``np.dot`` or ``np.sum`` (the argument is an array). Everything is float64. The guess is
printed in the header of the generated code; pass explicit kinds when it is wrong.
"""
import gast

from ..base.ast_utils import dotted
from ..base.kinds import Kind
from .source import read_function

_ARRAY_FUNCS = {"dot", "outer", "sum", "mean", "prod", "max", "min", "norm", "matmul", "transpose", "ravel",
                "reshape", "copy", "concatenate", "stack", "zeros_like", "ones_like", "empty_like", "len"}


def guess_kinds(fun):
    tree = read_function(fun).tree
    params = [a.id for a in tree.args.args]
    rank = {p: 0 for p in params}

    def at_least(node, r):
        if isinstance(node, gast.Name) and node.id in rank:
            rank[node.id] = max(rank[node.id], r)
        elif isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name):
            elts = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
            ints = sum(1 for e in elts if not isinstance(e, gast.Slice))
            at_least(node.value, ints + r)

    for node in gast.walk(tree):
        if isinstance(node, gast.Subscript):
            if isinstance(node.value, gast.Attribute) and node.value.attr == "shape" and \
                    isinstance(node.slice, gast.Constant) and isinstance(node.slice.value, int):
                at_least(node.value.value, node.slice.value + 1)
            else:
                at_least(node, 0 if not isinstance(node.slice, gast.Tuple) else 0)
                elts = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
                at_least(node.value, len(elts))
        elif isinstance(node, gast.Assign) and isinstance(node.targets[0], gast.Tuple) and \
                isinstance(node.value, gast.Attribute) and node.value.attr == "shape":
            at_least(node.value.value, len(node.targets[0].elts))
        elif isinstance(node, gast.For):
            at_least(node.iter, 1)
        elif isinstance(node, gast.Call):
            fname = (dotted(node.func) or "").split(".")[-1]
            if fname in _ARRAY_FUNCS:
                for a in node.args:
                    at_least(a, 1)
        elif isinstance(node, gast.BinOp) and isinstance(node.op, gast.MatMult):
            at_least(node.left, 1)
            at_least(node.right, 1)
    return tuple(Kind("float64", rank[p]) for p in params)
