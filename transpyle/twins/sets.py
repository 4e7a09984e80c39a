"""Twins of NumPy's set routines and selections: ``np.unique``, ``np.partition``, ``np.argpartition``.

``np.unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True,
sorted=True)``: the sorted values of the flattened array with each run of equal ones kept once (NaNs as one
value, NumPy's ``equal_nan=True``). The values are read from the sorted array, so a value's derivative goes to
one of the elements equal to it (the sorting permutation picks it), as JAX's does. At most one of
``return_index`` (the first position of each value), ``return_inverse`` (each element's place among the
values, shaped like ``ar``) and ``return_counts`` is taken; several at once, ``axis=`` and ``equal_nan=False``
are refused by name. The result's length depends on the values: ``vmap(strategy="array")`` refuses it, the
loop strategy runs it.

``np.partition(a, kth, axis=-1)`` and ``np.argpartition`` are the sort (argsort) along ``axis`` (of the flattened
array for None): a sorted array is a partition around every ``kth``, and NumPy leaves the order within each
side undefined, so the kth value and the set of values on each side are NumPy's (JAX's partition differs from
NumPy's output in the same way). ``order=`` is refused.
"""
import numpy as np

from . import TwinRefusal, twin


def _check_unique(args):
    wanted = [name for name in ("return_index", "return_inverse", "return_counts") if args[name]]
    if len(wanted) > 1:
        raise TwinRefusal("np.unique with more than one of return_index=, return_inverse=, return_counts= is not "
                          "supported", hint="call it once per result")
    if args["axis"] is not None:
        raise TwinRefusal("np.unique with axis= is not supported", hint="np.unique of the flattened array")
    if args["equal_nan"] is not True:
        raise TwinRefusal("np.unique with equal_nan=False is not supported")


@twin(np.unique, check=_check_unique)
def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, equal_nan=True,
           sorted=True):
    """The distinct values of ``ar``, sorted (with the first positions, the inverse or the counts)."""
    flat = np.ravel(ar)
    order = np.argsort(flat)
    values = flat[order]
    same = (values[1:] == values[:-1]) | (np.isnan(values[1:]) & np.isnan(values[:-1]))
    first = np.concatenate((np.ones(1, dtype=np.bool_), ~same)) if values.shape[0] else np.ones(0, dtype=np.bool_)
    if return_index:
        return values[first], order[first]
    if return_inverse:
        inverse = np.zeros(flat.shape[0], dtype=np.int64)
        inverse[order] = np.cumsum(np.where(first, 1, 0)) - 1
        return values[first], np.reshape(inverse, ar.shape)
    if return_counts:
        starts = np.flatnonzero(np.concatenate((first, np.ones(1, dtype=np.bool_))))
        return values[first], starts[1:] - starts[:-1]
    return values[first]


def _check_partition(args):
    if args["order"] is not None:
        raise TwinRefusal("order= (fields of a structured array) is not supported")
    if args["axis"] is not None and not isinstance(args["axis"], int):
        raise TwinRefusal("axis= must be a constant int or None")


@twin(np.partition, check=_check_partition)
def partition(a, kth, axis=-1, kind="introselect", order=None):
    """A partition of ``a`` around ``kth`` along ``axis``: the sorted array, which is one (NumPy leaves the order
    within each side undefined; the kth value and the values on each side are NumPy's)."""
    if axis is None:
        return np.sort(np.ravel(a))
    return np.sort(a, axis=axis)


@twin(np.argpartition, check=_check_partition)
def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """Positions that partition ``a`` around ``kth`` along ``axis``: those that sort it (a stable sort)."""
    if axis is None:
        return np.argsort(np.ravel(a))
    return np.argsort(a, axis=axis)
