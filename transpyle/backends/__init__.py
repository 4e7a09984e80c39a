"""Backends: turn a generated module into callables. ``numpy`` runs the source as plain Python
(the reference and the debugger's view); ``numba`` compiles each function with ``njit(cache=True)``; ``cuda`` (``cuda_backend``) compiles
vmapped functions as CUDA kernels.
"""
import os

from ..errors import TranspileError

BACKENDS = ("numba", "numpy", "cuda")


def choose(backend):
    backend = backend or os.environ.get("TRANSPYLE_BACKEND") or "numba"
    if backend not in BACKENDS:
        raise TranspileError(f"unknown backend '{backend}'", hint="use one of: " + ", ".join(BACKENDS))
    return backend


def compile_function(backend, module, fname, args):
    """The callable for ``module.fname`` on ``backend``, compiled for ``args``' types."""
    if backend == "numpy":
        return getattr(module, fname)
    if backend == "cuda":          # batched code becomes kernels (Vmapped); nothing else runs on the GPU
        raise TranspileError(f"the cuda backend compiles batched functions, and '{fname}' is not one",
                             hint="wrap it in transpyle.vmap(..., backend='cuda'), or use the numba backend")
    from .numba_backend import compile_function as njit_compile
    return njit_compile(module, fname, args)
