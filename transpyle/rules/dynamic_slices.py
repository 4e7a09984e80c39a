"""``lax.dynamic_slice`` and ``lax.dynamic_update_slice``: slices whose start indices are values known at
run time (clamped to fit, as in JAX) and whose sizes are constants, computed by the run-time helpers of
``runtime/dynamic_slices.py``. Both are linear in their array operands: the adjoint of a slice writes the
cotangent into zeros at the slice, the adjoint of an update passes the slice of the cotangent to the
update and the rest to the array."""
import gast

from .. import runtime as rt
from ..base.kinds import Kind, TupleKind, promote
from . import LINEAR, define
from .common import StaticError


def _count(k, node, what):
    """How many entries the tuple ``node`` has (a tuple written out, a tuple variable, an array's shape or a
    1-D integer array), checked to be integers where its kind says."""
    if isinstance(node, (gast.Tuple, gast.List)):
        return len(node.elts)
    if isinstance(node, gast.Attribute) and node.attr == "shape":       # update.shape, in adjoints
        return k.env_rank(node.value)
    kind = k.env.get(node.id) if isinstance(node, gast.Name) else None
    if isinstance(kind, TupleKind) and all(isinstance(i, Kind) and i.ndim == 0 and i.dtype == "int64"
                                           for i in kind.items):
        return len(kind.items)
    if isinstance(kind, Kind) and kind.ndim == 1 and kind.dtype == "int64":
        return None                        # an index array: its length is checked when it runs
    raise StaticError(f"{what} must be a tuple of integers, got {kind or gast.dump(node)}")


def _check_count(k, node, what, ndim):
    count = _count(k, node, what)
    if count is not None and count != ndim:
        raise StaticError(f"an array of rank {ndim} needs {ndim} {what}, got {count}")


def _slice_kind(k, s):
    x = k["operand"]
    _check_count(k, s["start_indices"], "start indices", x.ndim)
    _check_count(k, s["slice_sizes"], "slice sizes", x.ndim)
    return x


def _update_kind(k, s):
    x, update = k["operand"], k["update"]
    if update.ndim != x.ndim:
        raise StaticError(f"the update has rank {update.ndim}, the array rank {x.ndim}")
    _check_count(k, s["start_indices"], "start indices", x.ndim)
    return promote(x, update)


define("lax.dynamic_slice", [rt.dynamic_slice], "operand, start_indices, slice_sizes", _slice_kind,
       {"operand": "rt.dynamic_update_slice(np.zeros_like(operand), g, start_indices)"}, diff=("operand",),
       jvp=LINEAR)
define("lax.dynamic_update_slice", [rt.dynamic_update_slice], "operand, update, start_indices", _update_kind,
       {"operand": "rt.dynamic_update_slice(g, np.zeros_like(update), start_indices)",
        "update": "rt.dynamic_slice(g, start_indices, update.shape)"}, diff=("operand", "update"), jvp=LINEAR)
