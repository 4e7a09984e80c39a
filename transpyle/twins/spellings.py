"""Twins of NumPy's other spellings of operations transformed code has: ``np.identity`` (``np.eye``),
``np.diag_indices`` (the positions of a diagonal, for ``ndim`` 2 or 3), ``np.triu_indices_from`` and
``np.tril_indices_from`` (of an array's shape), ``np.ndim`` and ``np.size`` (the attributes; ``np.size`` along an
axis too), ``np.fix`` (``np.trunc``: rounding toward zero) and ``np.rollaxis`` (``np.moveaxis`` with NumPy's
meaning of ``start``; axes counted from the front).
"""
import numpy as np

from . import TwinRefusal, VARIABLE, twin


@twin(np.identity)
def identity(n, dtype=None, like=None):
    """The n x n identity matrix."""
    return np.eye(n, dtype=dtype)


def _check_diagonal_rank(args):
    if args["ndim"] not in (2, 3):
        raise TwinRefusal("np.diag_indices with ndim= other than 2 or 3 is not supported")


@twin(np.diag_indices, check=_check_diagonal_rank)
def diag_indices(n, ndim=2):
    """The positions (i, i) (or (i, i, i)) of the main diagonal of an array of side n."""
    i = np.arange(n)
    if ndim == 2:
        return i, i
    return i, i, i


@twin(np.triu_indices_from)
def triu_indices_from(arr, k=0):
    """The positions of the upper triangle of the matrix ``arr`` (from the k-th diagonal)."""
    return np.triu_indices(arr.shape[0], k, arr.shape[1])


@twin(np.tril_indices_from)
def tril_indices_from(arr, k=0):
    """The positions of the lower triangle of the matrix ``arr`` (to the k-th diagonal)."""
    return np.tril_indices(arr.shape[0], k, arr.shape[1])


@twin(np.ndim)
def ndim(a):
    """The number of axes of ``a``."""
    return a.ndim


def _check_size_axis(args):
    if args["axis"] is VARIABLE or isinstance(args["axis"], tuple):
        raise TwinRefusal("np.size with an axis that is not one constant int is not supported")


@twin(np.size, check=_check_size_axis)
def size(a, axis=None):
    """The number of elements of ``a`` (along ``axis``)."""
    if axis is None:
        return a.size
    return a.shape[axis]


@twin(np.fix)
def fix(x, out=None):
    """Rounding toward zero."""
    return np.trunc(x)


def _check_rollaxis(args):
    for name in ("axis", "start"):
        if args[name] is VARIABLE or not isinstance(args[name], int) or args[name] < 0:
            raise TwinRefusal(f"np.rollaxis with {name}= other than a constant counted from the front is not "
                              "supported", hint="use np.moveaxis(a, source, destination)")
    # the place the axis takes among the others: before ``start``, which moves down by one past the axis
    return {"start": args["start"] - 1 if args["start"] > args["axis"] else args["start"]}


@twin(np.rollaxis, check=_check_rollaxis)
def rollaxis(a, axis, start=0):
    """``axis`` moved to lie before ``start`` (its destination, written by the check)."""
    return np.moveaxis(a, axis, start)
