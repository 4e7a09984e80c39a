"""Helpers shared by the rule tables: result kinds of the common shapes of primitives."""
import gast

from ..base.kinds import BOOL, INT, Kind, TupleKind, float_of, promote


class StaticError(Exception):
    """A static argument (axis, keepdims, shape) is not a compile-time constant, or a rule refuses
    its operands; ``hint`` is the one-line hint of the error the user sees."""

    def __init__(self, message, hint=None):
        super().__init__(message)
        self.hint = hint


def _number(node):
    """The value of a constant or a negated constant, or None."""
    if isinstance(node, gast.Constant):
        return node
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub) and isinstance(node.operand, gast.Constant):
        return gast.Constant(value=-node.operand.value, kind=None)
    return None


def const_value(node, what="argument"):
    if _number(node) is not None:
        return _number(node).value
    if isinstance(node, gast.Tuple) and all(_number(e) is not None for e in node.elts):
        return tuple(_number(e).value for e in node.elts)
    raise StaticError(f"{what} must be a constant")


def axis_of(statics, kinds, name="x"):
    """The normalised axis of a reduction: None (every axis), a non-negative int, or a sorted tuple of
    two or more non-negative ints that leaves some axis out (a tuple of one axis is that axis, a tuple
    of every axis is None; ``()`` reduces nothing). Out-of-range and repeated axes are NumPy's errors."""
    axis = const_value(statics["axis"], "axis")
    if axis is None:
        return None
    ndim = kinds[name].ndim
    if isinstance(axis, int) and not isinstance(axis, bool):
        if not -ndim <= axis < ndim:
            raise StaticError(f"axis {axis} is out of bounds for an array of rank {ndim}")
        return axis % ndim
    if not isinstance(axis, tuple) or not all(isinstance(a, int) and not isinstance(a, bool) for a in axis):
        raise StaticError(f"axis must be None, an int or a tuple of ints, not {axis!r}")
    for a in axis:
        if not -ndim <= a < ndim:
            raise StaticError(f"axis {a} in {axis} is out of bounds for an array of rank {ndim}")
    axes = sorted(a % ndim for a in axis)
    if len(set(axes)) != len(axes):
        raise StaticError(f"duplicate value in axis {axis}", hint="name each axis once")
    if len(axes) == 1:
        return axes[0]
    if len(axes) == ndim and ndim:
        return None
    return tuple(axes)


def reduced_count(axis):
    """How many axes a normalised ``axis`` (``axis_of``) removes; None: all of them."""
    return None if axis is None else len(axis) if isinstance(axis, tuple) else 1


def same(name):
    return lambda k, s: k[name]


def elementwise(*names):
    return lambda k, s: promote(*[k[n] for n in names])


def floating(*names):
    return lambda k, s: float_of(promote(*[k[n] for n in names]))


def boolean(*names):
    return lambda k, s: BOOL.with_ndim(max(k[n].ndim for n in names))


def real_of(kind):
    """The real kind of the same precision (complex128 -> float64); real kinds unchanged."""
    if kind.is_complex:
        return kind.with_dtype("float64")
    return float_of(kind)


def integer(k, s):
    return INT


def reduced(k, s, name="x"):
    axis = axis_of(s, k, name)
    keep = const_value(s["keepdims"], "keepdims")
    x = k[name]
    if axis is None:
        return x.with_ndim(x.ndim if keep else 0)
    return x.with_ndim(x.ndim if keep else x.ndim - reduced_count(axis))


def shape_rank(node, kind=None):
    """Rank of an array made with shape ``node`` (an int expression or a tuple of them; ``kind``, the kind of
    the shape operand, tells a name holding a tuple, ``s = np.shape(a)``, from one holding an int)."""
    if isinstance(node, (gast.Tuple, gast.List)):
        return len(node.elts)
    if isinstance(node, gast.Attribute) and node.attr == "shape":
        return None      # the rank of another array: resolved by the caller
    if isinstance(kind, TupleKind):
        return len(kind.items)
    return 1


def dtype_of(node, default="float64"):
    """The dtype named by a ``dtype=`` argument node (np.float32, float, 'f4', None)."""
    if node is None or (isinstance(node, gast.Constant) and node.value is None):
        return default
    text = None
    if isinstance(node, gast.Constant) and isinstance(node.value, str):
        text = node.value
    elif isinstance(node, gast.Attribute):
        text = node.attr
    elif isinstance(node, gast.Name):
        text = node.id
    if text in _DTYPE_ALIASES:
        return _DTYPE_ALIASES[text]
    raise StaticError("dtype must be written as np.float64, np.float32, float, int, bool or x.dtype")


_DTYPE_ALIASES = {"float": "float64", "int": "int64", "bool": "bool", "complex": "complex128", "bool_": "bool",
                  "float64": "float64", "float32": "float32", "int64": "int64", "int32": "int64",
                  "f8": "float64", "f4": "float32", "complex128": "complex128", "complex64": "complex64"}


def is_dtype_expr(node):
    """Whether ``node`` names a dtype by an attribute: ``x.dtype`` of a name, or ``np.float64`` and the like."""
    return isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name) and (
        node.attr == "dtype" or node.value.id == "np" and node.attr in _DTYPE_ALIASES)


__all__ = ["Kind", "BOOL", "INT", "promote", "float_of", "real_of", "const_value", "axis_of", "reduced_count", "same",
           "elementwise", "floating", "boolean", "integer", "reduced", "shape_rank", "dtype_of", "is_dtype_expr",
           "StaticError"]
