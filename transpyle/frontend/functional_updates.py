"""At-updates: ``x.at[index].set(value)`` (and ``.add``, ``.multiply``, ``.min``, ``.max``), a copy of ``x``
with one part replaced, as JAX writes it. resolve keeps such a call as written (resolving its parts) and
normalize spells it out as a copy and an in-place write.

JAX's ``.add``, ``.multiply``, ``.min`` and ``.max`` are scatters: a position repeated in an index array
takes every value given for it (``zeros.at[[0, 0]].add([1, 2])`` is 3 at 0), where NumPy's ``x[idx] +=
v`` keeps one. ``.add`` with one index that is not a constant or a slice (a position or an array of
positions along the first axis) is the unbuffered update ``rt.add_at`` (``rules/ufunc_methods``, with
its derivatives). Otherwise the update is a copy and a write that carries ``SCATTER_ATTR``, refused
where an index turns out to be an array (``lower_indexing``), since its repeated positions would be
updated once; with positions that are numbers it keeps the derivatives of ``*``, ``np.minimum``, ...
"""
import gast

#: at-update operation -> how the part combines with the value: None (replaced), a gast operator's
#: name, or the np.* function that combines them
AT_UPDATES = {"set": None, "add": "Add", "multiply": "Mult", "mul": "Mult", "min": "np.minimum",
              "max": "np.maximum"}
#: at-update operation -> the unbuffered update of positions along the first axis, with derivatives
SCATTERS = {"add": "rt.add_at"}
#: on the write of a scatter with several indices: the operation (checked once the index kinds are known)
SCATTER_ATTR = "transpyle_scatter"


def _basic(index):
    """Whether ``index`` is written with constants, slices, ``None`` and ``...`` only (no repeats)."""
    if isinstance(index, gast.Tuple):
        return all(_basic(e) for e in index.elts)
    if isinstance(index, gast.UnaryOp):
        return _basic(index.operand)
    return isinstance(index, (gast.Slice, gast.Constant))


def scatter_form(op, index):
    """How an at-update combines repeated positions: ``"buffered"`` (a plain write: ``set``, or an index
    with no repeats), ``"unbuffered"`` (``SCATTERS[op]``), or ``"checked"`` (a write refused for index arrays)."""
    if op == "set" or _basic(index):
        return "buffered"
    return "unbuffered" if op in SCATTERS and not isinstance(index, gast.Tuple) else "checked"


def at_update(node):
    """(array, index, operation, value) for a call ``array.at[index].op(value)``, else None."""
    func = node.func if isinstance(node, gast.Call) else None
    if isinstance(func, gast.Attribute) and func.attr in AT_UPDATES and isinstance(func.value, gast.Subscript) \
            and isinstance(func.value.value, gast.Attribute) and func.value.value.attr == "at" \
            and len(node.args) == 1 and not node.keywords:
        return func.value.value.value, func.value.slice, func.attr, node.args[0]
    return None

