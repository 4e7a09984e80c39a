"""At-updates: ``x.at[index].set(value)`` (and ``.add``, ``.multiply``, ``.min``, ``.max``), a copy of ``x``
with one part replaced, as JAX writes it. resolve keeps such a call as written (resolving its parts) and
normalize spells it out as a copy and an in-place write.
"""
import gast

#: at-update operation -> how the part combines with the value: None (replaced), a gast operator's
#: name, or the np.* function that combines them
AT_UPDATES = {"set": None, "add": "Add", "multiply": "Mult", "mul": "Mult", "min": "np.minimum",
              "max": "np.maximum"}


def at_update(node):
    """(array, index, operation, value) for a call ``array.at[index].op(value)``, else None."""
    func = node.func if isinstance(node, gast.Call) else None
    if isinstance(func, gast.Attribute) and func.attr in AT_UPDATES and isinstance(func.value, gast.Subscript) \
            and isinstance(func.value.value, gast.Attribute) and func.value.value.attr == "at" \
            and len(node.args) == 1 and not node.keywords:
        return func.value.value.value, func.value.slice, func.attr, node.args[0]
    return None

