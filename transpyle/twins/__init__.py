"""NumPy's functions that have no primitive of their own (``np.median``, ``np.interp``, ``np.ptp``, ...),
written in plain NumPy in the subset the transforms accept.

Transformed code calls the twin in place of NumPy's function (``frontend/wrapped_callables.transpyle_twin``)
and inlines it like a helper of the user's own: its derivatives, batching and both backends come from the
operations it is written with. Called eagerly a twin gives NumPy's value for the forms it accepts; a form
it does not accept raises ``TwinRefusal`` at transform time, reported at the user's line.

A twin is registered for one or more NumPy objects with :func:`twin`; each module here holds one family.
A twin takes NumPy's parameters by NumPy's names. Its ``check`` sees the call's arguments (constants as their
values, anything else as ``VARIABLE``) when the call is read, and raises :class:`TwinRefusal` for a form the twin
does not compute, which the user sees at the call's line; it may return ``{parameter: constant}`` to pass those
constants instead (one form of an argument NumPy takes in several: an axis or a tuple of axes).
"""

_TWINS = {}
#: an argument that is not a constant written in the call (what a check sees for it)
VARIABLE = type("Variable", (), {"__repr__": lambda self: "VARIABLE"})()


class TwinRefusal(Exception):
    """A form of a NumPy function its twin does not compute: the message names it, the hint says what does."""

    def __init__(self, message, hint=None):
        super().__init__(message)
        self.hint = hint


def twin(*objects, check=None):
    """Register the decorated function as the twin of each NumPy object in ``objects`` (None where the
    installed NumPy lacks one: ``np.trapezoid`` is ``np.trapz`` in older releases). ``check(args)``, with
    ``args`` the call's arguments by parameter name, raises TwinRefusal for forms refused."""
    def register(func):
        for obj in objects:
            if obj is not None:
                _TWINS[id(obj)] = (obj, func)
        func.__transpyle_twin_of__ = tuple(o for o in objects if o is not None)
        func.__transpyle_twin_check__ = check
        return func
    return register


def refuse_unless(args, name, allowed, what):
    """Refuse ``what`` called with ``name=`` other than one of ``allowed`` (constants)."""
    if args[name] not in allowed:
        shown = "a value computed at run time" if args[name] is VARIABLE else repr(args[name])
        raise TwinRefusal(f"{what} with {name}={shown} is not supported",
                          hint=f"{name}= may be " + " or ".join(repr(a) for a in allowed))


def twin_of(obj):
    """The twin of the NumPy object ``obj``, else None."""
    hit = _TWINS.get(id(obj))
    return hit[1] if hit is not None and hit[0] is obj else None


def is_twin(func):
    """Whether ``func`` is a twin or a function of a twin's module (its errors are reported at the call of
    NumPy's function, and constant arguments are written into its body)."""
    return callable(func) and (bool(getattr(func, "__transpyle_twin_of__", ())) or
                               getattr(func, "__module__", None) in MODULES)


def twinned():
    """Every NumPy object that has a twin."""
    return [obj for obj, _ in _TWINS.values()]


#: the modules holding twins (inlined like the user's helpers: frontend/source.INLINED_LIBRARY)
MODULES = tuple(f"transpyle.twins.{m}" for m in
                ("order_statistics", "nan_reductions", "elementwise", "interpolation", "constructions", "spectral", "sets", "spellings"))

from . import order_statistics, nan_reductions, elementwise, interpolation, constructions, spectral, sets, spellings  # noqa: E402,F401,E501
