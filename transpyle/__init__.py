"""transpyle: JAX-style transforms (grad, value_and_grad, vjp, jvp, ...) by rewriting source, compiled with Numba.

The public API. Each transform is a thin wrapper that runs the pass pipeline (``pipeline``) on
the function's source for the kinds of the arguments it is called with, and compiles the
generated module with the chosen backend (``numba`` by default, or ``numpy``).
"""
from .base.version import __version__  # noqa: E402,F401

from .base.errors import TranspileError  # noqa: E402
from .runtime import stop_gradient  # noqa: E402
from .frontend.custom import custom_jvp, custom_vjp  # noqa: E402
from .frontend.remat import checkpoint, checkpoint_policies, remat  # noqa: E402
from . import lax, random, tree  # noqa: E402,F401
from . import nn, scipy, tree_util, example_libraries  # noqa: E402,F401
from .api import grad, value_and_grad, vjp, jvp, linearize, jacfwd, jacrev, hessian, vmap, jit, show  # noqa: E402
from .api.aot import compile_module  # noqa: E402
from .api.parallel import pmap, local_device_count, local_devices  # noqa: E402
from .api.parallel import devices, device_put, device_get, block_until_ready  # noqa: E402
from .backends.tiers import wait_compiled  # noqa: E402

__all__ = ["grad", "value_and_grad", "vjp", "jvp", "linearize", "jacfwd", "jacrev", "hessian", "vmap", "jit",
           "stop_gradient", "custom_jvp", "custom_vjp", "checkpoint", "checkpoint_policies", "remat", "lax", "random", "tree", "nn", "scipy", "tree_util",
           "example_libraries", "show", "compile_module",
           "pmap", "local_device_count", "local_devices", "devices", "device_put", "device_get", "block_until_ready",
           "wait_compiled", "TranspileError", "__version__"]


def __getattr__(name):
    # transpyle.dask needs the optional dask extra: imported on first use only
    if name == "dask":
        import importlib
        return importlib.import_module(".dask", __name__)
    raise AttributeError(f"module 'transpyle' has no attribute {name!r}")
