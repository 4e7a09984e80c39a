"""The one interface generated CUDA code is written against: jit a kernel, jit a device function,
the grid index and stride, atomics and thread-local arrays, plus moving arrays to and from the
device and launching.

Generated kernels spell these operations as ``cuda.grid(1)``, ``cuda.gridsize(1)``,
``cuda.local.array(n, dtype)`` and ``cuda.atomic.add(a, i, v)`` on a module-level name ``cuda``;
the spellings come from the functions below, and the implementation binds ``cuda``:

- ``numba-cuda`` (default): ``from numba import cuda``; with ``NUMBA_ENABLE_CUDASIM=1`` this is
  Numba's CUDA simulator, which keeps tests honest on machines without a GPU;
- ``numba-cuda-mlir``: ``from numba_cuda_mlir import cuda`` (same API, no simulator);
- ``cpu``: a stand-in module whose operations Numba's CPU target compiles (one thread, local arrays
  from ``np.empty``), so the same generated kernel and device functions are type-checked by
  ``njit`` and run on the CPU.

``TRANSPYLE_CUDA_IMPL`` picks the implementation.
"""
import os
import types

import numpy as np

from .errors import TranspileError

IMPLEMENTATIONS = ("numba-cuda", "numba-cuda-mlir", "cpu")

#: threads per block on a GPU; under the simulator each thread is a Python thread, so fewer
THREADS_PER_BLOCK = 128
SIMULATOR_THREADS_PER_BLOCK = 16
SIMULATOR_MAX_BLOCKS = 2            # more examples than this many threads exercise the grid-stride loop


# -- spellings used by the code generators -------------------------------------------------------
def grid_start():
    return "cuda.grid(1)"


def grid_stride():
    return "cuda.gridsize(1)"


def local_array(size, dtype):
    return f"cuda.local.array({size}, {dtype})"


def atomic_add(array, index, value):
    return f"cuda.atomic.add({array}, {index}, {value})"


def import_line():
    """The line that binds ``cuda`` at the top of a generated kernel module."""
    return {"numba-cuda": "from numba import cuda", "numba-cuda-mlir": "from numba_cuda_mlir import cuda",
            "cpu": "from transpyle.base.cuda_api import CPU as cuda"}[implementation()]


# -- implementations -------------------------------------------------------------------------------
def implementation():
    impl = os.environ.get("TRANSPYLE_CUDA_IMPL") or "numba-cuda"
    if impl not in IMPLEMENTATIONS:
        raise TranspileError(f"unknown TRANSPYLE_CUDA_IMPL '{impl}'", hint="one of: " + ", ".join(IMPLEMENTATIONS))
    return impl


def _cpu_module():
    """The ``cuda`` stand-in for the cpu implementation: attributes Numba's CPU target can type."""
    import numba

    @numba.njit
    def grid(ndim):
        return 0

    @numba.njit
    def gridsize(ndim):
        return 1

    @numba.njit
    def add(array, index, value):
        old = array[index]
        array[index] += value
        return old

    cpu = types.ModuleType("transpyle_cuda_cpu")
    cpu.grid, cpu.gridsize = grid, gridsize
    cpu.local = types.ModuleType("transpyle_cuda_cpu.local")
    cpu.local.array = np.empty
    cpu.atomic = types.ModuleType("transpyle_cuda_cpu.atomic")
    cpu.atomic.add = add
    return cpu


_MODULES = {}


def __getattr__(name):
    if name == "CPU":            # built on first use: it compiles small njit functions
        if "cpu" not in _MODULES:
            _MODULES["cpu"] = _cpu_module()
        return _MODULES["cpu"]
    raise AttributeError(name)


def load():
    """The ``cuda`` module of the chosen implementation; a clear error where there is no GPU."""
    impl = implementation()
    if impl in _MODULES:
        return _MODULES[impl]
    if impl == "cpu":
        module = __getattr__("CPU")
    elif impl == "numba-cuda-mlir":
        try:
            from numba_cuda_mlir import cuda as module
        except ImportError:
            raise TranspileError("backend 'cuda' with TRANSPYLE_CUDA_IMPL=numba-cuda-mlir needs numba-cuda-mlir",
                                 hint="pip install numba-cuda-mlir, or unset TRANSPYLE_CUDA_IMPL") from None
    else:
        try:
            from numba import cuda as module
        except ImportError:
            raise TranspileError("backend 'cuda' needs numba-cuda",
                                 hint="pip install 'transpyle[cuda]' (numba-cuda)") from None
    if impl != "cpu" and not simulating(module):
        try:
            available = module.is_available()
        except Exception:            # a driver that fails to initialise is no GPU
            available = False
        if not available:
            raise TranspileError("backend 'cuda' found no usable GPU (no CUDA driver or device)",
                                 hint="run on a machine with an NVIDIA GPU, or set NUMBA_ENABLE_CUDASIM=1 before "
                                      "importing numba.cuda to run kernels in Numba's CUDA simulator")
    _MODULES[impl] = module
    return module


def simulating(module=None):
    module = module or load()
    """Whether kernels run in Numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``)."""
    return implementation() == "numba-cuda" and module.jit.__module__.startswith("numba.cuda.simulator")


def kernel(fn):
    if implementation() == "cpu":
        import numba
        return numba.njit(fn)
    return load().jit(fn)


def device(fn):
    if implementation() == "cpu":
        import numba
        return numba.njit(fn)
    return load().jit(device=True)(fn)


def configuration(size):
    """(blocks, threads per block) for ``size`` examples: enough blocks to cover them on a GPU
    (capped: the kernel's grid-stride loop covers the rest), few small blocks under the simulator,
    one thread for the cpu implementation."""
    if implementation() == "cpu":
        return 1, 1
    if simulating():
        threads = SIMULATOR_THREADS_PER_BLOCK
        return max(1, min(SIMULATOR_MAX_BLOCKS, -(-size // threads))), threads
    threads = THREADS_PER_BLOCK
    return max(1, min(-(-size // threads), 32 * _multiprocessors())), threads


def launch(compiled, config, args):
    if implementation() == "cpu":
        compiled(*args)
    else:
        compiled[config](*args)


def _multiprocessors():
    try:
        return load().get_current_device().MULTIPROCESSOR_COUNT
    except Exception:
        return 80


# -- arrays ----------------------------------------------------------------------------------------
def is_device_array(value):
    """Whether ``value`` lives on the device: a Numba device array, a CuPy array, anything with
    ``__cuda_array_interface__`` (or a simulator array)."""
    if isinstance(value, np.ndarray):
        return False
    if hasattr(value, "__cuda_array_interface__"):
        return True
    return type(value).__module__.startswith("numba.cuda") and hasattr(value, "copy_to_host")


def as_device(value):
    """A device array for ``value``: used in place when it is on the device, else copied there."""
    if implementation() == "cpu":
        return np.asarray(value.copy_to_host() if hasattr(value, "copy_to_host") else value)
    cuda = load()
    if is_device_array(value):
        return value if hasattr(value, "copy_to_host") else cuda.as_cuda_array(value)
    return cuda.to_device(np.ascontiguousarray(value))


def empty(shape, dtype):
    if implementation() == "cpu":
        return np.empty(shape, dtype)
    return load().device_array(shape, dtype)


def to_host(value):
    return value if isinstance(value, np.ndarray) else value.copy_to_host()


__all__ = ["grid_start", "grid_stride", "local_array", "atomic_add", "load", "kernel", "device", "configuration", "launch",
           "is_device_array", "as_device", "empty", "to_host", "simulating"]
