"""Strong zeros: a zero cotangent (or tangent) contributes zero, also where the local derivative is infinite,
and a zero local derivative passes on zero, also from an infinite cotangent.

A primitive marked ``infinite_slope`` (``np.sqrt`` at 0, ``x ** 0.5`` at 0, ``np.arcsin`` at 1) has a
finite value where its derivative is not. Its rule multiplies the incoming cotangent by that derivative,
so a part of the function the output does not depend on (the diagonal that ``np.triu(D, 1)`` drops from
a matrix of pairwise distances) gives ``0 * inf = nan``, and the nan spreads to the whole gradient though
finite differences are finite. JAX gives nan there. With strong zeros (Enzyme's name), each contribution
of such a rule is ``np.where(g == 0, 0.0 * g, contribution)``: a compare and a select per element, fused
into the element loop like the rest of the statement (``benchmarks/strong_zeros.py`` measures it).

The other side: a primitive marked ``zero_slope`` (``np.maximum``, ``np.where``, ``np.clip``) has a zero
derivative where it selects another operand, and its rule multiplies the cotangent by that zero, so an
infinite cotangent (``np.sqrt(np.maximum(x, 0.0))`` at the clipped entries) gives nan where the function
is constant. Each contribution ``g * P`` of such a rule is ``np.where(P == 0, 0.0 * P, g * P)``, the
partial ``P`` read off the template with ``g`` set to 1 (its rules are linear in ``g``).

On by default; ``TRANSPYLE_STRONG_ZEROS=0`` gives JAX's nan instead.
"""
import ast

from ..base.settings import switched_off

#: the environment variable that turns strong zeros off (0, off, false, no)
ENV = "TRANSPYLE_STRONG_ZEROS"


def enabled():
    """Whether zero cotangents and tangents are strong (the environment's setting; on unless turned off)."""
    return not switched_off(ENV)


def _reads_g(template):
    try:
        tree = ast.parse(template, mode="eval")
    except SyntaxError:         # statements (``bx[index] += g``) write the cotangent where it goes
        return False
    return any(isinstance(n, ast.Name) and n.id == "g" for n in ast.walk(tree))


class _GOne(ast.NodeTransformer):
    """The template with ``g`` set to 1, and the products by it dropped (``g * c`` is ``c``)."""

    def visit_Name(self, node):
        return ast.Constant(1.0) if node.id == "g" else node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Mult):
            for one, other in ((node.left, node.right), (node.right, node.left)):
                if isinstance(one, ast.Constant) and one.value == 1.0:
                    return other
        return node


def _with_g_one(template):
    return ast.unparse(_GOne().visit(ast.parse(template, mode="eval")))


def applies(prim, statics, on=None):
    """Whether ``prim``'s rules take strong zeros, for the operands ``statics``; ``on``: the transform's
    ``strong_zeros`` option (None: the environment's setting)."""
    return (prim.zero_slope or prim.steep(statics)) and (enabled() if on is None else bool(on))


def guarded(templates, prim, statics, numbers=False):
    """The rule ``templates`` of ``prim`` (parameter -> expression of the cotangent or tangent ``g``) with
    strong zeros: each contribution zero where ``g`` is zero (``infinite_slope``; ``0.0 * g`` keeps ``g``'s
    dtype and shape), or where the partial is zero (``zero_slope``). ``numbers``: every operand is a number,
    and the select is a conditional expression (``np.where`` of numbers is a 0-d array)."""
    out, steep = {}, prim.steep(statics)
    for key, t in templates.items():
        if isinstance(t, str) and _reads_g(t):
            if steep:
                t = _select("g == 0", "0.0 * g", t, numbers)
            elif prim.zero_slope:
                partial = _with_g_one(t)
                t = _select(f"{partial} == 0", f"0.0 * {partial}", t, numbers)
        out[key] = t
    return out


def _select(test, zero, value, numbers):
    return f"({zero} if {test} else {value})" if numbers else f"np.where({test}, {zero}, {value})"
