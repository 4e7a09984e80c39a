"""Backends: turn a generated module into callables. ``numpy`` runs the source as plain Python
(the reference and the debugger's view); ``numba`` compiles each function with ``njit(cache=True)``.
"""
import os

from ..errors import TranspileError

BACKENDS = ("numba", "numpy")


def choose(backend):
    backend = backend or os.environ.get("TRANSPYLE_BACKEND") or "numba"
    if backend not in BACKENDS:
        raise TranspileError(f"unknown backend '{backend}'", hint="use one of: " + ", ".join(BACKENDS))
    return backend


def compile_function(backend, module, fname, args):
    """The callable for ``module.fname`` on ``backend``, compiled for ``args``' types."""
    if backend == "numpy":
        return getattr(module, fname)
    from .numba_backend import compile_function as njit_compile
    return njit_compile(module, fname, args)
