"""device: the per-example function of a vmap made fit to run as a CUDA device function.

A kernel thread can call CUDA's math functions and scalar built-ins, index and write arrays it was
given, and use the thread-local or workspace arrays that the ``workspace`` pass makes of the
allocations in the body; nothing else. This pass

- maps NumPy functions of scalars to ``math`` (``np.cos(x)`` -> ``math.cos(x)``), which Numba-CUDA
  compiles to CUDA's own (``cos`` or ``cosf`` by the operand's precision);
- rejects, at the user's line, every call a kernel cannot make and every statement that would
  create an array (an array expression such as ``a * b`` of arrays, a call returning a new array),
  naming the construct and what to write instead.

Allocations themselves (``np.zeros(n)``, tapes) are left to ``workspace``, which runs first.
"""
import gast

from ..base.ast_utils import attr_chain, dotted
from ..base.kinds import Kind

#: NumPy functions of scalars and the ``math`` function with the same meaning
MATH = {f"np.{n}": f"math.{n}" for n in ("sin", "cos", "tan", "sinh", "cosh", "tanh", "exp", "expm1", "log",
                                         "log1p", "log2", "log10", "sqrt", "floor", "ceil", "hypot", "fabs")}
MATH.update({"np.arcsin": "math.asin", "np.arccos": "math.acos", "np.arctan": "math.atan",
             "np.arctan2": "math.atan2", "np.arcsinh": "math.asinh", "np.arccosh": "math.acosh",
             "np.arctanh": "math.atanh", "np.power": "math.pow", "np.abs": "abs", "np.absolute": "abs",
             "np.maximum": "max", "np.minimum": "min", "np.fmax": "max", "np.fmin": "min",
             "math.fabs": "abs"})

#: calls a device function may make as written
SCALAR_CALLS = {"abs", "min", "max", "float", "int", "bool", "range", "len", "np.float64", "np.float32",
                "np.int64", "np.int32", "np.bool_"}

#: set on statements the workspace pass wrote (thread-local arrays, workspace views)
WORKSPACE_MARK = "transpyle_workspace"

#: what a view of an array is (no new memory): the statement forms that may bind an array
_VIEW_NODES = (gast.Name, gast.Subscript, gast.Attribute)


def _is_device_call(name):
    if name is None:
        return False
    return name in SCALAR_CALLS or name.startswith("math.") or name.startswith("cuda.")


class _Calls(gast.NodeTransformer):
    """Rewrites the calls of one statement (``stmt``, where errors are located)."""

    def __init__(self, ctx, allowed_names):
        self.ctx = ctx
        self.allowed = allowed_names       # the module's other device functions
        self.stmt = None

    def visit_Call(self, node):
        self.generic_visit(node)
        name = dotted(node.func)
        kinds = [self.ctx.expr_kind(a) for a in node.args]
        scalar = all(isinstance(k, Kind) and k.ndim == 0 for k in kinds)
        if name in MATH and scalar and not node.keywords:
            node.func = attr_chain(MATH[name])
            return node
        if name in self.allowed or name in ("len", "range") or _is_device_call(name) and scalar:
            return node
        raise self.ctx.error(self.stmt, f"{name or 'this call'}(...) is not available in a CUDA kernel",
                             hint="use math functions of scalars and explicit loops over array elements "
                                  "in the per-example code, or use the numba backend")


def run(tree, ctx, allowed_names=()):
    """``tree`` (a per-example function) rewritten for a CUDA thread, or a TranspileError."""
    calls = _Calls(ctx, set(allowed_names))
    tree.body = [_visit(calls, s) for s in tree.body]
    return tree


def _visit(calls, stmt):
    if getattr(stmt, WORKSPACE_MARK, False):      # made by the workspace pass for the device
        return stmt
    for field in ("body", "orelse"):
        inner = getattr(stmt, field, None)
        if isinstance(inner, list):
            setattr(stmt, field, [_visit(calls, s) for s in inner])
    calls.stmt = stmt
    for field in ("test", "iter", "value", "targets"):
        value = getattr(stmt, field, None)
        if isinstance(value, gast.AST):
            setattr(stmt, field, calls.visit(value))
        elif isinstance(value, list):
            setattr(stmt, field, [calls.visit(v) for v in value])
    if isinstance(stmt, gast.Assign):
        _check_assign(calls.ctx, stmt)
    if isinstance(stmt, gast.Raise):     # a kernel has no way to raise: the check would be lost
        raise calls.ctx.error(stmt, "'raise' is not available in a CUDA kernel (a thread cannot raise)",
                              hint="check the inputs before the call, or use the numba backend", construct="raise")
    return stmt


def _check_assign(ctx, node):
    target = node.targets[0]
    if isinstance(target, gast.Name):
        kind = ctx.kinds.get(target.id)
        if isinstance(kind, Kind) and kind.ndim and not isinstance(node.value, _VIEW_NODES) and \
                not _is_device_call(dotted(getattr(node.value, "func", None))):
            raise ctx.error(node, f"creates a new array ('{target.id}', {kind}) in the per-example code, "
                            "which a CUDA thread cannot do",
                            hint="loop over elements explicitly, writing into an array made with np.zeros/np.empty "
                                 "of a size known before launch (docs/cuda.md), or use the numba backend")
