"""Ahead-of-time CUDA modules (``transpyle compile --backend cuda``): vmapped functions as Numba-CUDA
kernels with host wrappers, in one module that imports only numpy and numba (``numba.cuda``).

For each function ``f`` the module holds the device function and kernel that ``vmap(f,
backend="cuda")`` compiles (``transpyle/api/gpu.py``), decorated with ``cuda.jit``, and ``f_vmap``, a host
wrapper that does what ``backends/cuda_backend.py`` does at run time: copy NumPy arguments to the
device, allocate the results and the workspace (sized from the arguments' shapes), launch, and copy
the results back (device arrays in: results stay on the device). Numba's CUDA simulator
(``NUMBA_ENABLE_CUDASIM=1``) runs the module too, with few small blocks.
"""
import re

from ..base import cuda_api
from . import gpu
from ..base.errors import TranspileError
from ..base.kinds import parse_kind
from .aot_source import batched_kinds, module_docstring, user_function
from ..transforms import batch, workspace


_HELPERS = '''\
def _configuration(size):
    """(blocks, threads per block) for size examples; the kernels' grid-stride loops cover the rest."""
    if _SIMULATOR:
        return max(1, min(2, -(-size // 16))), 16
    blocks = -(-size // THREADS_PER_BLOCK)
    return max(1, min(blocks, 32 * cuda.get_current_device().MULTIPROCESSOR_COUNT)), THREADS_PER_BLOCK


def _on_device(value):
    return not isinstance(value, np.ndarray) and cuda.is_cuda_array(value)


def _to_device(value):
    if _on_device(value):
        return value if hasattr(value, "copy_to_host") else cuda.as_cuda_array(value)
    return cuda.to_device(np.ascontiguousarray(value))
'''


def compile_cuda_module(path, module, functions, kinds, in_axes, source_digest, command):
    """The text of the module for ``vmap`` of each of ``functions`` (objects from the user's
    ``module``), at the kinds of one call (``kinds``: a list, or a dict by function name) and
    ``in_axes`` (one value, or a dict by function name)."""
    parts, publics = [], []
    for fname in functions:
        func = user_function(module, path, fname)
        fkinds = kinds.get(fname) if isinstance(kinds, dict) else kinds
        if fkinds is None:
            raise TranspileError(f"the cuda backend needs the argument kinds of '{fname}'",
                                 hint="pass --kinds, e.g. --kinds 'f8[:],f8[:,:],f8'")
        faxes = in_axes.get(fname, 0) if isinstance(in_axes, dict) else in_axes
        batched = [parse_kind(k) if isinstance(k, str) else k for k in batched_kinds(fkinds, faxes)]
        _, text, spec, ctx = gpu.build(func, tuple(batched), faxes, 0)
        if ctx.captured:
            raise TranspileError(f"'{fname}' reads module-level arrays "
                                 f"({', '.join(p for p, _, _ in ctx.captured.values())}); a compiled module "
                                 "cannot read them", filename=ctx.filename, lineno=ctx.source.tree.lineno,
                                 construct=f"def {fname}", hint="pass the arrays as arguments")
        body = text.split(cuda_api.import_line() + "\n", 1)[1].strip("\n")     # the functions, no header
        for name in spec.device_functions:
            body = re.sub(rf"^def {name}\(", f"@cuda.jit(device=True)\ndef {name}(", body, count=1, flags=re.M)
        body = re.sub(rf"^def {spec.name}\(", f"@cuda.jit\ndef {spec.name}(", body, count=1, flags=re.M)
        public = f"{fname}_vmap"
        axes = batch.normalize_in_axes(faxes, tuple(batched), fname)
        parts += [body.rstrip() + "\n", _host_wrapper(public, fname, spec, tuple(axes), batched)]
        publics.append(public)
    listing = "\n".join(f"    {p:28} vmap of {p[:-5]} (one CUDA thread per example)" for p in publics)
    header = module_docstring(path, source_digest, command,
                              "numpy and numba with numba-cuda (a GPU, or NUMBA_ENABLE_CUDASIM=1)", listing) + [
        "import math",
        "",
        "import numpy as np",
        "from numba import config as _numba_config",
        "from numba import cuda",
        "",
        "THREADS_PER_BLOCK = 128",
        "_SIMULATOR = bool(_numba_config.ENABLE_CUDASIM)",
        "",
        "",
        _HELPERS,
    ]
    return "\n".join(header) + "\n\n" + "\n\n".join(parts) + "\n\n__all__ = [" + \
        ", ".join(repr(p) for p in publics) + "]\n"


def _host_wrapper(public, fname, spec, axes, kinds):
    """Source of ``public(*args)``: launch ``spec``'s kernel over the batch, as cuda_backend does."""
    params = list(spec.params)
    lines = [f"def {public}({', '.join(params)}):",
             f'    """vmap of {fname}: one result per example along axis 0."""',
             f"    _device_in = any(_on_device(a) for a in ({', '.join(params)},))"]
    for p, k in zip(params, kinds):
        if k.ndim:
            lines.append(f"    {p} = _to_device({p})")
    first = next(i for i, a in enumerate(axes) if a is not None)
    lines.append(f"    _size = {params[first]}.shape[{axes[first]}]")
    rows = [b.rows for b in spec.workspace] + [h.rows for h in spec.out_buffers or [] if h is not None]
    dims = sorted({d for r in rows for d in workspace.example_dims(r)})
    for p, k in dims:
        lines.append(f"    {workspace.dim_name(p, k)} = {params[p]}.shape[{workspace.full_dim(k, axes[p])}]")
    lines.append("    _blocks, _threads = _configuration(_size)")
    outs = []
    for j, (dtype, held) in enumerate(zip(spec.out_dtypes, spec.out_buffers or [None] * len(spec.out_dtypes))):
        shape = "(_size,)" if held is None else f"(_size, max(0, {held.rows}))"
        outs.append(f"_out{j}")
        lines.append(f"    _out{j} = cuda.device_array({shape}, np.{dtype})")
    for b in spec.workspace:
        lines.append(f"    {b.name} = cuda.device_array((max(0, {b.rows}), _blocks * _threads), np.{b.dtype})"
                     "   # one column per thread")
    args = params + outs + [b.name for b in spec.workspace]
    lines.append(f"    {spec.name}[_blocks, _threads]({', '.join(args)})")
    results = [f"{o} if _device_in else {o}.copy_to_host()" for o in outs]
    lines.append(f"    return ({', '.join(results)},)" if spec.tuple_out and len(results) == 1 else
                 f"    return {', '.join(results)}" if spec.tuple_out else f"    return {results[0]}")
    return "\n".join(lines) + "\n"


__all__ = ["compile_cuda_module"]
