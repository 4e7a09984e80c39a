"""Argument kinds declared by type annotations (``transpyle show`` and ``compile`` without kinds).

Read, in this order of trust, before any guess from the body: ``float``, ``int``, ``bool``,
``complex`` and NumPy's scalar types are numbers; ``np.ndarray`` is an array whose rank the body
tells; ``numpy.typing.NDArray[np.float64]`` (``np.ndarray[shape, np.dtype[...]]``) fixes the dtype,
and a shape written as ``tuple[int, int]`` the rank; a string in transpyle's own spelling
(``x: "f8[:, :]"``) is the whole kind. Other annotations say nothing.
"""
import inspect
import typing
from dataclasses import dataclass

import numpy as np

from ..base.kinds import Kind, parse_kind

_SCALARS = {float: "float64", int: "int64", bool: "bool", complex: "complex128"}


@dataclass(frozen=True)
class Declared:
    """What an annotation says of an argument: its dtype (None: not said) and rank (None: an
    array of a rank the body tells)."""
    dtype: typing.Optional[str]
    ndim: typing.Optional[int]

    @property
    def kind(self):
        """The whole kind, when the annotation says all of it."""
        return Kind(self.dtype, self.ndim) if self.dtype is not None and self.ndim is not None else None


def declared_kinds(func, params):
    """{parameter: Declared} for the annotated parameters of ``func`` that say something."""
    raw = getattr(func, "__annotations__", None) or {}
    out = {}
    for p in params:
        if p not in raw:
            continue
        declared = _declared(_evaluated(func, raw[p]))
        if declared is not None:
            out[p] = declared
    return out


def _evaluated(func, annotation):
    """The annotation as an object (``from __future__ import annotations`` leaves strings)."""
    if not isinstance(annotation, str):
        return annotation
    try:
        value = eval(annotation, dict(getattr(func, "__globals__", {})))    # noqa: S307 (the user's own code)
    except Exception:
        return annotation          # transpyle's spelling, "f8[:]", is not a Python expression
    return value


def _declared(ann):
    if isinstance(ann, Kind):
        return Declared(ann.dtype, ann.ndim)
    if isinstance(ann, str):
        try:
            kind = parse_kind(ann)
        except (TypeError, ValueError):
            return None
        return Declared(kind.dtype, kind.ndim)
    if ann in _SCALARS:
        return Declared(_SCALARS[ann], 0)
    if inspect.isclass(ann) and issubclass(ann, np.generic) and ann is not np.generic:
        return Declared(_dtype_name(ann), 0)
    if ann is np.ndarray:
        return Declared(None, None)
    if typing.get_origin(ann) is np.ndarray:
        shape, dtype = (typing.get_args(ann) + (None, None))[:2]
        return Declared(_dtype_of(dtype), _rank_of(shape))
    return None


def _dtype_name(scalar_type):
    name = np.dtype(scalar_type).name
    return "int64" if name.startswith(("int", "uint")) else name


def _dtype_of(dtype_annotation):
    """float64 for ``np.dtype[np.float64]``; None where it says nothing (``np.dtype[Any]``)."""
    args = typing.get_args(dtype_annotation)
    scalar = args[0] if args else None
    if inspect.isclass(scalar) and issubclass(scalar, np.generic) and scalar not in (np.generic, np.floating,
                                                                                     np.number, np.inexact):
        return _dtype_name(scalar)
    return None


def _rank_of(shape_annotation):
    """2 for ``tuple[int, int]``; None for ``tuple[int, ...]`` or ``Any``."""
    if typing.get_origin(shape_annotation) is not tuple:
        return None
    args = typing.get_args(shape_annotation)
    if not args or Ellipsis in args:
        return None
    return len(args)
