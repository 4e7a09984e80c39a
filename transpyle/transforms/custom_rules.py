"""custom_rules: after a transform, the markers that calls to functions with custom derivative rules
left (``frontend/custom_calls``) become plain values, so later transforms (``grad(grad(f))`` runs
forward mode over generated code) differentiate the rules' own code. ``run`` reports whether the
adjoint sweep calls a bwd rule, which the pipeline then inlines."""
import gast

from ..base.ast_utils import const, parse_expr
from ..base.kinds import Kind
from ..rules.primitives import lookup


# markers -> their values once the transform that wrote them is done
def _zero(bound, ctx):
    x = bound["x"]
    kind = ctx.expr_kind(x)
    if isinstance(kind, Kind) and kind.ndim:
        return parse_expr(f"np.zeros_like({x.id})")
    return const({"complex128": 0j, "int64": 0, "bool": False}.get(getattr(kind, "dtype", None), 0.0))


_VALUES = {
    "rt.custom_primal": lambda bound, ctx: bound["x"],
    "rt.custom_tangent": _zero,
    "rt.custom_output": lambda bound, ctx: bound["value"],
    "custom_vjp": lambda bound, ctx: bound["value"],
}


def run(tree, ctx):
    """Markers -> plain values; returns whether rule functions are left to inline (bwd calls)."""
    calls = False
    for s in gast.walk(tree):
        if not isinstance(s, gast.Assign) or not isinstance(s.value, gast.Call):
            continue
        if isinstance(s.value.func, gast.Name) and s.value.func.id in ctx.functions:
            calls = True
            continue
        prim, bound = lookup(s.value)
        if prim is not None and prim.key in _VALUES:
            s.value = _VALUES[prim.key](bound, ctx)
    return calls
