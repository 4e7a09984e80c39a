"""Threads whose warnings are dropped, and whose ``warnings.catch_warnings`` leaves the process's
warning state alone: the threads that compile generated code in the background (``tiers``).

Numba's compiler enters ``warnings.catch_warnings`` many times per compile, and that context manager
swaps process-wide state (the filter list, ``showwarning``): a compile running beside the user's code
would undo the user's own filters, or a test's capture of warnings, whenever the two interleave. Its
warnings are about generated code the user did not write, and would land in whatever the user's
thread is recording at the time. So in a quiet thread ``catch_warnings`` touches nothing, and
``warnings.warn``/``warn_explicit`` and the filter changes (``simplefilter``, ``filterwarnings``,
``resetwarnings``) do nothing; every other thread gets the standard behaviour, with
the warning attributed to the same frame as before (the wrapper adds one to ``stacklevel``).
"""
import contextlib
import threading
import warnings

_QUIET = set()           # thread idents
_lock = threading.Lock()
_installed = False


class _ThreadAwareCatch(warnings.catch_warnings):
    """``warnings.catch_warnings``, inert in a quiet thread."""

    def __enter__(self):
        if threading.get_ident() in _QUIET:
            return [] if self._record else None
        return super().__enter__()

    def __exit__(self, *exc_info):
        if threading.get_ident() in _QUIET:
            return None
        return super().__exit__(*exc_info)


def _install():
    global _installed
    with _lock:
        if _installed:
            return
        _installed = True
        original_warn, original_explicit = warnings.warn, warnings.warn_explicit

        def warn(message, category=None, stacklevel=1, source=None, **more):
            if threading.get_ident() in _QUIET:
                return None
            return original_warn(message, category, stacklevel + 1, source, **more)

        def warn_explicit(*args, **kwargs):
            if threading.get_ident() in _QUIET:
                return None
            return original_explicit(*args, **kwargs)
        warnings.warn, warnings.warn_explicit = warn, warn_explicit
        warnings.catch_warnings = _ThreadAwareCatch
        for name in ("simplefilter", "filterwarnings", "resetwarnings"):
            setattr(warnings, name, _inert_in_quiet_threads(getattr(warnings, name)))


def _inert_in_quiet_threads(function):
    """``function`` (a change of the process's warning filters), doing nothing in a quiet thread."""
    def changed(*args, **kwargs):
        if threading.get_ident() in _QUIET:
            return None
        return function(*args, **kwargs)
    changed.__name__, changed.__doc__ = function.__name__, function.__doc__
    return changed


@contextlib.contextmanager
def quiet():
    """Inside the block, this thread's warnings are dropped and its ``catch_warnings`` is inert."""
    _install()
    ident = threading.get_ident()
    _QUIET.add(ident)
    try:
        yield
    finally:
        _QUIET.discard(ident)
