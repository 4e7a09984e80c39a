"""The CUDA backend: compiles a generated kernel module (device functions, then the kernel) through
``cuda_api`` and returns the host-side callable that launches it.

Interop follows the arrays given: NumPy arrays are copied to the device and the results copied
back; Numba device arrays, CuPy arrays and anything with ``__cuda_array_interface__`` are used in
place, and then the results stay on the device (Numba device arrays).
"""
import numpy as np

from ..base import cuda_api


def compile_kernel_module(module, spec, mean=False):
    """The callable running ``spec``'s kernel from ``module`` over a batch. With ``spec.reduce``,
    the results marked there are summed over the examples (divided by their number with ``mean``,
    as are the others), and come back without the batch axis."""
    cuda_api.load()                          # no GPU and no simulator: the clear error, now
    compiled = getattr(module, "__transpyle_cuda__", None)
    if compiled is None:
        for name in spec.device_functions:   # the kernel calls the compiled device functions
            setattr(module, name, cuda_api.device(getattr(module, name)))
        compiled = cuda_api.kernel(getattr(module, spec.name))
        if spec.deterministic:
            module.reduce_rows = cuda_api.kernel(module.reduce_rows)
        module.__transpyle_cuda__ = compiled
    batched = [i for i, axis in enumerate(spec.in_axes) if axis is not None]

    def launch(*args):
        on_device = any(cuda_api.is_device_array(a) for a in args)
        size = args[batched[0]].shape[spec.in_axes[batched[0]]]
        dargs = [cuda_api.as_device(a) if _is_array(a) else a for a in args]
        rows = [None if held is None else held.rows_value(dargs, spec.in_axes)
                 for held in spec.out_buffers or [None] * len(spec.out_dtypes)]
        summed = spec.reduce or (False,) * len(rows)
        atomic = [s and not spec.deterministic for s in summed]
        outs = [_zeros((1,) if n is None else (n,), dt) if a else
                cuda_api.empty((size,) if n is None else (size, n), np.dtype(dt))
                for dt, n, a in zip(spec.out_dtypes, rows, atomic)]
        config = cuda_api.configuration(size)
        threads = config[0] * config[1]          # one workspace column per thread, not per example
        buffers = [cuda_api.empty(buf.shape(dargs, spec.in_axes, threads), np.dtype(buf.dtype))
                   for buf in spec.workspace]
        scale = [] if spec.reduce is None else [1.0 / size if mean else 1.0]
        cuda_api.launch(compiled, config, dargs + outs + buffers + scale)
        if spec.deterministic:                   # per-example results, then each summed in a fixed order
            for j, s in enumerate(summed):
                if s:
                    per_example = outs[j] if rows[j] is not None else outs[j].reshape((size, 1))
                    outs[j] = cuda_api.empty((per_example.shape[1],), per_example.dtype)
                    cuda_api.launch(module.reduce_rows, cuda_api.configuration(per_example.shape[1]),
                                    [per_example, outs[j], 1.0])
        results = [o if on_device else cuda_api.to_host(o) for o in outs]
        results = [r.reshape(()) if s and n is None else r for r, s, n in zip(results, summed, rows)]
        return tuple(results) if spec.tuple_out else results[0]
    return launch


def _zeros(shape, dtype):
    return cuda_api.as_device(np.zeros(shape, np.dtype(dtype)))


def _is_array(value):
    return isinstance(value, np.ndarray) or cuda_api.is_device_array(value)
