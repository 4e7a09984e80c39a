"""Kinds: the static type of a value in transformed code (dtype class and rank).

Generated code is specialised on the kinds of the arguments, like Numba specialises on
types. A kind says whether a value is a bool, an integer, a real or complex float, its
precision, and its number of dimensions (0 for scalars); tuples have a tuple of kinds.
"""
import re
from dataclasses import dataclass

import numpy as np

from .errors import TranspileError


@dataclass(frozen=True)
class Kind:
    dtype: str          # a NumPy dtype name: 'bool', 'int64', 'float64', 'float32', 'complex128'
    ndim: int = 0

    @property
    def is_float(self):
        return self.dtype.startswith(("float", "complex"))

    @property
    def is_complex(self):
        return self.dtype.startswith("complex")

    @property
    def is_array(self):
        return self.ndim > 0

    def with_ndim(self, ndim):
        return Kind(self.dtype, ndim)

    def with_dtype(self, dtype):
        return Kind(dtype, self.ndim)

    def __str__(self):
        return self.dtype if self.ndim == 0 else f"{self.dtype}[{', '.join(':' * self.ndim)}]"


@dataclass(frozen=True)
class TupleKind:
    items: tuple

    is_float = False
    is_array = False
    ndim = 0
    dtype = "tuple"

    def __str__(self):
        return "(" + ", ".join(map(str, self.items)) + ")"


BOOL = Kind("bool")
INT = Kind("int64")
FLOAT = Kind("float64")


def kind_of_value(value):
    """The kind of a run-time value passed to a transformed function."""
    if isinstance(value, (bool, np.bool_)):
        return BOOL
    if isinstance(value, (int, np.integer)):
        return INT
    if isinstance(value, (float, np.floating)):
        return Kind(np.dtype(type(value)).name if isinstance(value, np.floating) else "float64")
    if isinstance(value, (complex, np.complexfloating)):
        return Kind("complex128")
    if isinstance(value, np.ndarray):
        dt = value.dtype
        if dt.kind == "b":
            name = "bool"
        elif dt.kind in "iu":
            name = "int64"
        else:
            name = dt.name
        return Kind(name, value.ndim)
    if hasattr(value, "__cuda_array_interface__") or type(value).__module__.startswith("numba.cuda"):
        return kind_of_value(np.empty((0,) * len(value.shape), value.dtype))     # a device array
    if isinstance(value, tuple):
        return TupleKind(tuple(kind_of_value(v) for v in value))
    raise TypeError(f"unsupported argument type {type(value).__name__}")


def equal_axes(values):
    """Which axes of the array ``values`` have equal lengths: for each value, None (not an array) or, for
    each of its axes, the position ``(value, axis)`` of the first axis of that length in argument order.
    Compiled code is specialized on it as on the kinds (``analysis/shapes`` proves more shapes equal with
    it), so it is part of the key that finds compiled code. An integer that equals an axis length gets
    that axis's position (after the arrays, which never name an integer's)."""
    first = {}
    out = [tuple(first.setdefault(n, (i, k)) for k, n in enumerate(v.shape)) if isinstance(v, np.ndarray) else None
           for i, v in enumerate(values)]
    # an integer argument of an axis's length (``n`` passed beside an array of n rows): ``(position,)``
    for i, v in enumerate(values):
        if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) and int(v) in first:
            out[i] = (first[int(v)],)
    return tuple(out)


def promote(*kinds):
    """The kind of an elementwise result: NumPy promotion on dtypes, max rank."""
    dtypes = [k.dtype for k in kinds]
    result = np.result_type(*[np.dtype(d) for d in dtypes]).name
    if result.startswith("uint") or result.startswith("int"):
        result = "int64"
    return Kind(result, max(k.ndim for k in kinds))


def float_of(kind):
    """The floating kind a value of ``kind`` becomes under true division or math functions."""
    if kind.is_float:
        return kind
    return Kind("float64", kind.ndim)


KIND_GRAMMAR = ("a kind is a number type with one ':' per axis in brackets: f8, f8[:], float64[:, :], i8, c16, b1 "
                "(also f4, float32, int64, complex128, bool)")
_KIND = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*(.*?)\s*")
_AXES = re.compile(r"\[\s*:\s*(?:,\s*:\s*)*\]")


def parse_kind(text):
    """Parse a kind written like Numba's type strings: 'f8', 'f8[:]', 'float64[:, :]', 'i8', 'b1'.
    Anything else is a TranspileError naming the part that is wrong and showing the grammar."""
    match = _KIND.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        raise TranspileError(f"{text!r} is not an argument kind: it does not start with a type name",
                             hint=KIND_GRAMMAR)
    base, dims = match.group(1), match.group(2)
    if dims and not _AXES.fullmatch(dims):
        raise TranspileError(f"{text.strip()!r} is not an argument kind: '{dims}' is not one ':' per axis "
                             "in brackets", hint=KIND_GRAMMAR)
    aliases = {"f8": "float64", "f4": "float32", "i8": "int64", "i4": "int64", "int": "int64",
               "float": "float64", "b1": "bool", "c16": "complex128", "complex": "complex128"}
    base = aliases.get(base, base)
    try:
        dtype = np.dtype(base)
    except (TypeError, ValueError):
        dtype = None
    if dtype is None or dtype.kind not in "biufc":
        raise TranspileError(f"{text.strip()!r} is not an argument kind: '{base}' is not a number type",
                             hint=KIND_GRAMMAR)
    ndim = dims.count(":") if dims else 0
    return Kind(dtype.name, ndim)
