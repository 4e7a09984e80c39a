"""The CUDA backend: compiles a generated kernel module (device functions, then the kernel) through
``cuda_api`` and returns the host-side callable that launches it.

Interop follows the arrays given: NumPy arrays are copied to the device and the results copied
back; Numba device arrays, CuPy arrays and anything with ``__cuda_array_interface__`` are used in
place, and then the results stay on the device (Numba device arrays).
"""
import numpy as np

from .. import cuda_api


def compile_kernel_module(module, spec):
    """The callable running ``spec``'s kernel from ``module`` over a batch."""
    cuda_api.load()                          # no GPU and no simulator: the clear error, now
    compiled = getattr(module, "__transpyle_cuda__", None)
    if compiled is None:
        for name in spec.device_functions:   # the kernel calls the compiled device functions
            setattr(module, name, cuda_api.device(getattr(module, name)))
        compiled = cuda_api.kernel(getattr(module, spec.name))
        module.__transpyle_cuda__ = compiled
    batched = [i for i, axis in enumerate(spec.in_axes) if axis is not None]

    def launch(*args):
        on_device = any(cuda_api.is_device_array(a) for a in args)
        size = args[batched[0]].shape[spec.in_axes[batched[0]]]
        dargs = [cuda_api.as_device(a) if _is_array(a) else a for a in args]
        outs = [cuda_api.empty((size,) if held is None else (size, held.rows_value(dargs, spec.in_axes)), np.dtype(dt))
                for dt, held in zip(spec.out_dtypes, spec.out_buffers or [None] * len(spec.out_dtypes))]
        config = cuda_api.configuration(size)
        threads = config[0] * config[1]          # one workspace column per thread, not per example
        buffers = [cuda_api.empty(buf.shape(dargs, spec.in_axes, threads), np.dtype(buf.dtype))
                   for buf in spec.workspace]
        cuda_api.launch(compiled, config, dargs + outs + buffers)
        results = outs if on_device else [cuda_api.to_host(o) for o in outs]
        return tuple(results) if spec.tuple_out else results[0]
    return launch


def _is_array(value):
    return isinstance(value, np.ndarray) or cuda_api.is_device_array(value)
