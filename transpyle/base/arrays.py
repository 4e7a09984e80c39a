"""The arrays ``transpyle.numpy`` returns: NumPy arrays with JAX's functional updates.

``Array`` is an ``np.ndarray`` subclass that adds ``x.at[idx].set(v)`` (also ``.add``, ``.subtract``,
``.multiply``, ``.divide``, ``.power``, ``.min``, ``.max``, ``.apply`` and ``.get``): each returns a new
array, ``x`` is unchanged, as in JAX. Everything else is NumPy's: operations on an ``Array`` return
``Array`` (NumPy keeps the subclass of the operands), reductions to one number return NumPy scalars or
0-d arrays, both with ``.item()``, ``.shape`` and ``.dtype``.

The functions of ``transpyle.numpy`` are NumPy's own, wrapped by :func:`eager` so that their array
results are ``Array``; transformed code never calls the wrapper: the frontend reads the NumPy function
behind it (:func:`library_object`). The transforms accept ``Array`` arguments, pass them to the
compiled code as plain arrays and return ``Array`` results for them.
"""
import functools

import numpy as np


class Array(np.ndarray):
    """A NumPy array with ``.at[idx]`` functional updates (see the module)."""

    @property
    def at(self):
        return _Updates(self)


class _Updates:
    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __getitem__(self, index):
        return _Update(self.array, index)


class _Update:
    """``x.at[index]``: the updates of that part of ``x``, each a new array. Repeated indices accumulate
    for ``add``, ``multiply``, ``min`` and ``max`` (NumPy's ``ufunc.at``), as JAX's scatters do."""
    __slots__ = ("array", "index")

    def __init__(self, array, index):
        self.array, self.index = array, index

    def get(self, **_options):
        return as_array(np.asarray(self.array)[self.index])

    def set(self, values, **_options):
        out = np.array(self.array, copy=True)
        out[self.index] = values
        return out.view(Array)

    def _scattered(self, ufunc, values):
        out = np.array(self.array, copy=True)
        ufunc.at(out, self.index, values)
        return out.view(Array)

    def add(self, values, **_options):
        return self._scattered(np.add, values)

    def subtract(self, values, **_options):
        return self._scattered(np.subtract, values)

    def multiply(self, values, **_options):
        return self._scattered(np.multiply, values)

    mul = multiply

    def divide(self, values, **_options):
        return self._scattered(np.divide, values)

    def power(self, values, **_options):
        return self._scattered(np.power, values)

    def min(self, values, **_options):
        return self._scattered(np.minimum, values)

    def max(self, values, **_options):
        return self._scattered(np.maximum, values)

    def apply(self, func, **_options):
        out = np.array(self.array, copy=True)
        out[self.index] = func(out[self.index])
        return out.view(Array)


def as_array(value):
    """``value`` with its NumPy arrays (also inside tuples and lists) viewed as ``Array``."""
    kind = type(value)
    if kind is np.ndarray:
        return value.view(Array)
    if kind is tuple or kind is list:
        return kind(as_array(v) for v in value)
    return value


def plain(value):
    """``value`` as the plain ``np.ndarray`` compiled code takes (a view, no copy)."""
    return value.view(np.ndarray) if type(value) is Array else value


class EagerFunction:
    """A NumPy function (or ufunc) whose array results are ``Array``; its attributes are the function's
    (``jnp.add.outer``). ``__transpyle_library__`` is the function itself, what transformed code calls."""

    def __init__(self, function):
        self.__transpyle_library__ = function
        functools.update_wrapper(self, function, updated=())

    def __call__(self, *args, **kwargs):
        return as_array(self.__transpyle_library__(*args, **kwargs))

    def __getattr__(self, name):
        return getattr(self.__transpyle_library__, name)

    def __repr__(self):
        return repr(self.__transpyle_library__)


def eager(function):
    """``function`` returning ``Array`` for its array results (see ``EagerFunction``)."""
    return EagerFunction(function)


def library_object(obj):
    """The library function behind an ``EagerFunction`` (``jnp.sum`` is ``np.sum`` to the transforms);
    any other object as it is."""
    return obj.__transpyle_library__ if type(obj) is EagerFunction else obj
