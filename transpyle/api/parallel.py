"""``pmap``: a function mapped over the leading axis of its arguments, one shard per local CPU
device, with JAX's semantics; and the collectives (``lax.psum``, ``pmean``, ``pmax``, ``pmin``)
that combine values across the shards.

A device is a thread. The per-shard function is the mapped function's generated code (any
transform of it: ``pmap(grad(loss))``, ``pmap(vmap(grad(loss)))``) compiled with ``nogil=True``
and with its ``prange`` loops sequential, so the shards run in parallel on their own cores and share
the arguments' memory; there is nothing to copy or pickle.

Collectives are not run inside compiled code: the generated function is split at each collective
(``split``). Part 0 runs on every shard up to the first collective and returns the values later
parts read; the host combines the operand over the shards (sum, mean, max or min, in shard order)
and gives every shard the result; the next part continues from there. So a collective must be a
statement of the function's body once helpers are inlined: inside a loop, a branch or a vmapped
function it would need the host in the middle of compiled code, and is refused at its line.
"""
import concurrent.futures
import copy
import dataclasses
import os

import gast
import numpy as np

from . import pytrees as flat
from .transformed import Transformed, _bind, _kinds
from ..base.ast_utils import comment, is_comment, loaded_names, stored_names
from ..backends import compile_function
from ..backends.cache import load_module
from ..base.errors import TranspileError
from ..pipeline import module_source
from ..rules.primitives import lookup
from ..rules.collectives import COLLECTIVES, binding


@dataclasses.dataclass(frozen=True)
class CpuDevice:
    """A local CPU device: one thread that runs one shard."""
    id: int

    def __repr__(self):
        return f"CpuDevice(id={self.id})"


def local_device_count():
    """The number of local devices pmap may use: the number of CPU cores."""
    return os.cpu_count() or 1


def local_devices():
    return [CpuDevice(i) for i in range(local_device_count())]


def devices(backend=None):
    """The devices pmap may use, as ``jax.devices()``: the local CPU devices."""
    return local_devices()


def device_put(x, device=None):
    """``x`` itself: transformed functions take NumPy arrays wherever they run (``jax.device_put``)."""
    return x


def device_get(x):
    """``x`` itself: results are NumPy arrays already (``jax.device_get``)."""
    return x


def block_until_ready(x):
    """``x`` itself: a transformed function has finished its work when it returns (``jax.block_until_ready``;
    NumPy arrays have no ``.block_until_ready()`` method, so ported code calls this function instead)."""
    return x


_REDUCE = {"sum": lambda v: np.sum(v, axis=0), "mean": lambda v: np.mean(v, axis=0),
           "max": lambda v: np.max(v, axis=0), "min": lambda v: np.min(v, axis=0)}


@dataclasses.dataclass
class Collective:
    target: str        # the variable that receives the combined value
    op: str            # sum, mean, max, min
    operand: object    # a gast Name or Constant


@dataclasses.dataclass
class Part:
    """One compiled piece of the per-shard function: reads ``inputs`` from the shard's variables,
    returns ``outputs`` (the last part returns the function's result). ``tree`` is None where the
    host does the part itself (nothing to compute, or the last part only returns variables)."""
    tree: object
    inputs: tuple
    outputs: tuple
    ret: object = None          # the last part done by the host: the returned expression
    fn: object = None           # the compiled function, on first use


def _collective_of(stmt):
    """(primitive key, operand) if ``stmt`` is ``t = <collective>(x, axis)``, else None."""
    if isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.Call) and \
            isinstance(stmt.targets[0], gast.Name):
        prim, bound = lookup(stmt.value)
        if prim is not None and prim.key in COLLECTIVES:
            return prim.key, bound["x"]
    return None


def _refuse_nested(stmts, ctx, where):
    for s in stmts:
        for sub in gast.walk(s):
            if isinstance(sub, gast.stmt) and _collective_of(sub):
                key = _collective_of(sub)[0]
                raise ctx.error(sub, f"{key} {where} is not supported: pmap combines the shards' values on "
                                     "the host between compiled parts of the function, so a collective must be a "
                                     "statement of the function's body",
                                hint="move it out of the loop (reduce once after it, or collect the values in an "
                                     "array and reduce that); under vmap the function runs in vmap's loop over "
                                     "examples: vmap the per-example part only and apply the collective after it")


def split(tree, ctx):
    """(parts, collectives): the per-shard function ``tree`` cut at each top-level collective;
    collective ``j`` runs between part ``j`` and part ``j + 1``."""
    for helper in ctx.helpers:
        _refuse_nested(helper.body, ctx, "inside a vmapped or called function")
    segments, collectives = [[]], []
    for s in tree.body:
        found = _collective_of(s)
        if found is None:
            _refuse_nested([s], ctx, "inside a loop or a branch")
            if not is_comment(s):
                segments[-1].append(s)
            continue
        key, operand = found
        collectives.append(Collective(s.targets[0].id, COLLECTIVES[key], operand))
        segments.append([])
    params = [a.id for a in tree.args.args]
    known = set(params)                  # variables the host holds for every shard
    parts = []
    for j, seg in enumerate(segments):
        later = loaded_names([s for after in segments[j + 1:] for s in after]) | \
            {c.operand.id for c in collectives[j:] if isinstance(c.operand, gast.Name)}
        last = j == len(segments) - 1
        outputs = () if last else tuple(sorted(stored_names(seg) & later))
        inputs = tuple(sorted(loaded_names(seg) & known, key=lambda v: (v not in params, v)))
        if last and len(seg) == 1 and isinstance(seg[0], gast.Return) and _host_value(seg[0].value):
            parts.append(Part(None, inputs, outputs, ret=seg[0].value))
        elif not last and not outputs:
            parts.append(Part(None, (), ()))           # nothing read later: nothing to run
        else:
            part = copy.deepcopy(tree)
            part.name = f"{tree.name}_part{j}" if collectives else f"{tree.name}_shard"
            part.args.args = [gast.Name(id=v, ctx=gast.Param(), annotation=None, type_comment=None) for v in inputs]
            note = f"transpyle: pmap part {j} of {len(segments) - 1}" if collectives else "transpyle: one pmap shard"
            part.body = [comment(note)] + copy.deepcopy(seg)
            if not last:
                part.body.append(gast.Return(value=gast.Tuple(elts=[gast.Name(id=v, ctx=gast.Load(), annotation=None,
                                                                              type_comment=None) for v in outputs],
                                                              ctx=gast.Load())))
            parts.append(Part(part, inputs, outputs))
        known |= set(outputs) | ({collectives[j].target} if not last else set())
    return parts, collectives


def _host_value(node):
    """Whether the host can evaluate a returned expression from the shard's variables."""
    if isinstance(node, gast.Tuple):
        return all(_host_value(e) for e in node.elts)
    return isinstance(node, (gast.Name, gast.Constant))


def _evaluate(node, env):
    if isinstance(node, gast.Tuple):
        return tuple(_evaluate(e, env) for e in node.elts)
    return env[node.id] if isinstance(node, gast.Name) else node.value


_POOLS = {}


def _pool(n):
    if n not in _POOLS:
        _POOLS[n] = concurrent.futures.ThreadPoolExecutor(max_workers=n, thread_name_prefix="transpyle-pmap")
    return _POOLS[n]


def _on_shards(fn, arg_lists):
    """``fn(*args)`` for each shard's arguments, one thread per shard; results in shard order. A
    shard that fails re-raises its exception here."""
    if len(arg_lists) == 1:
        return [fn(*arg_lists[0])]
    futures = [_pool(len(arg_lists)).submit(fn, *args) for args in arg_lists]
    return [f.result() for f in futures]


class Program:
    """The compiled parts of one per-shard function, and how the host runs them."""

    def __init__(self, fname, tree, ctx, backend):
        self.parts, self.collectives = split(tree, ctx)
        self.params = [a.id for a in tree.args.args]
        self.getters = [getter for _, getter, _ in ctx.captured.values()]
        self.ctx, self.backend = ctx, backend

    def _compiled(self, part, args):
        if part.fn is None:
            module = load_module(module_source(part.tree, self.ctx), part.tree.name)
            if self.backend == "numba":
                from ..backends.numba_backend import compile_function as njit_compile
                part.fn = njit_compile(module, part.tree.name, args, nogil=True, prange=False)
            else:
                part.fn = compile_function(self.backend, module, part.tree.name, args)
        return part.fn

    def run(self, shards):
        captured = tuple(g() for g in self.getters)
        envs = [dict(zip(self.params, shard + captured)) for shard in shards]
        results = None
        for j, part in enumerate(self.parts):
            last = j == len(self.parts) - 1
            if part.tree is not None:
                arg_lists = [[env[v] for v in part.inputs] for env in envs]
                outs = _on_shards(self._compiled(part, arg_lists[0]), arg_lists)
                if last:
                    results = outs
                else:
                    for env, out in zip(envs, outs):
                        env.update(zip(part.outputs, out))
            elif last:
                results = [_evaluate(part.ret, env) for env in envs]
            if not last:
                self._combine(self.collectives[j], envs)
        return results

    @staticmethod
    def _combine(c, envs):
        values = [env[c.operand.id] if isinstance(c.operand, gast.Name) else c.operand.value for env in envs]
        combined = _REDUCE[c.op](np.stack([np.asarray(v) for v in values]))
        for i, env in enumerate(envs):     # every shard its own copy: later parts may write into it
            env[c.target] = combined.item() if combined.ndim == 0 else combined if i == 0 else combined.copy()


def _axis(arg, ax, position, names):
    if ax is None:
        return None
    if not isinstance(ax, int) or isinstance(ax, bool):
        raise TranspileError(f"pmap in_axes entries must be ints or None, got {ax!r}", hint="e.g. in_axes=(None, 0, 0)")
    ndim = np.ndim(arg)
    if not -ndim <= ax < ndim:
        raise TranspileError(f"pmap in_axes {ax} is out of range for {names[position]} of rank {ndim}",
                             hint="map an axis the argument has, or None to give every shard the whole value")
    return ax % ndim


class Pmapped(Transformed):
    """``pmap(f)``: f run on shards of its arguments, one per device (thread), with collectives."""

    def __init__(self, fun, in_axes=0, out_axes=0, axis_name=None, devices=None, backend=None):
        super().__init__(fun, "primal", 0, False, backend)
        self.in_axes, self.out_axes, self.axis_name = in_axes, out_axes, axis_name
        if devices is not None and not isinstance(devices, int):
            devices = list(devices)
        if devices is not None and (len(devices) if isinstance(devices, list) else devices) < 1:
            raise TranspileError(f"pmap needs at least one device, got devices={devices!r}",
                                 hint="pass a count or a list of devices, or leave devices=None")
        self.devices = devices
        self._programs = {}

    def __call__(self, *args, **kwargs):
        args = tuple(_bind(self.fun, self.signature, args, kwargs))
        if flat.needs_flattening(self.fun, args):
            return self._call_flat(args)
        return self._run(args)

    def _flat_transform(self, source, treedefs, fun_out, fun_layout):
        in_axes = flat.leaf_in_axes(self.in_axes, treedefs)
        out_axes = self.out_axes
        if not (out_axes is None or isinstance(out_axes, int)) and fun_out is not None and not fun_out.is_leaf:
            out_axes = tuple(flat.axes_for_leaves(out_axes, fun_out, "out_axes"))
        return (Pmapped(source, in_axes, out_axes, self.axis_name, self.devices, self.backend), fun_out,
                fun_layout)

    def generated_function(self, kinds):
        raise TranspileError("transforms of a pmapped function are not supported",
                             hint="pmap the transformed function instead: pmap(grad(loss)), not grad(pmap(loss))")

    def _names(self, nargs):
        names = list(self.signature.parameters) if self.signature is not None else []
        return [names[i] if i < len(names) else f"argument {i}" for i in range(nargs)]

    def _shards(self, args):
        names = self._names(len(args))
        spec = self.in_axes
        if isinstance(spec, list):
            spec = tuple(spec)
        axes = spec if isinstance(spec, tuple) else (spec,) * len(args)
        if len(axes) != len(args):
            raise TranspileError(f"pmap in_axes has {len(axes)} entries for {len(args)} arguments",
                                 hint="give one int or None per argument")
        axes = [_axis(a, ax, i, names) for i, (a, ax) in enumerate(zip(args, axes))]
        sizes = {i: np.shape(a)[ax] for i, (a, ax) in enumerate(zip(args, axes)) if ax is not None}
        desc = ", ".join(f"{names[i]} has size {n} along axis {axes[i]}" for i, n in sizes.items())
        if not sizes:
            raise TranspileError("pmap needs at least one argument with a mapped axis",
                                 hint="set in_axes to 0 (or another axis) for the arguments to split")
        if len(set(sizes.values())) > 1:
            raise TranspileError(f"pmap got inconsistent sizes for the mapped axis: {desc}",
                                 hint="all mapped arguments need the same size along their in_axes")
        n = next(iter(sizes.values()))
        self._check_devices(n, desc)
        return [tuple(a if ax is None else _take(a, i, ax) for a, ax in zip(args, axes)) for i in range(n)]

    def _check_devices(self, n, desc):
        if n == 0:
            raise TranspileError(f"pmap over an empty axis ({desc})", hint="pass at least one shard")
        if self.devices is None:
            count = local_device_count()
            if n > count:
                raise TranspileError(f"pmap: the mapped axis has size {n} ({desc}), which is more shards than the "
                                     f"{count} local devices", hint=f"reshape the data into at most {count} shards "
                                     f"(x.reshape({count}, -1, ...)) and map the inner axis with vmap, or pass "
                                     f"devices={n} to run {n} shards on threads")
            return
        count = self.devices if isinstance(self.devices, int) else len(self.devices)
        if n != count:
            raise TranspileError(f"pmap: the mapped axis has size {n} ({desc}), but {count} devices were given",
                                 hint=f"the size of the mapped axis must equal the number of devices ({count})")

    def _run(self, args):
        shards = self._shards(args)
        kinds = _kinds(shards[0])
        program = self._programs.get(kinds)
        if program is None:
            with binding(self.axis_name):
                fname, tree, ctx = self._transform(kinds)
            program = self._programs[kinds] = Program(fname, tree, ctx, self.backend_name)
        return _stack_outputs(program.run(shards), self.out_axes)


def _take(a, i, axis):
    """Shard ``i`` of ``a`` along ``axis``: a view (contiguous for axis 0 of a C array)."""
    return a[i] if axis == 0 else np.moveaxis(a, axis, 0)[i]


def _stack_outputs(results, out_axes):
    """The shards' results as one: each output stacked along its out_axes (None: shard 0's value,
    for values that are the same on every shard, such as a collective's result)."""
    if isinstance(results[0], tuple):
        axes = out_axes if isinstance(out_axes, (tuple, list)) else (out_axes,) * len(results[0])
        if len(axes) != len(results[0]):
            raise TranspileError(f"pmap out_axes has {len(axes)} entries for {len(results[0])} outputs",
                                 hint="give one int or None per output")
        return tuple(_stack_one([r[k] for r in results], ax) for k, ax in enumerate(axes))
    if isinstance(out_axes, (tuple, list)):
        raise TranspileError(f"pmap out_axes {out_axes!r} is a tuple but the function returns one value",
                             hint="use an int or None")
    return _stack_one(results, out_axes)


def _stack_one(values, axis):
    if axis is None:
        return values[0]
    values = [np.asarray(v) for v in values]
    first = values[0]
    if any(v.shape != first.shape or v.dtype != first.dtype for v in values):
        return np.moveaxis(np.stack(values), 0, axis) if axis else np.stack(values)
    stacked = np.empty((len(values),) + first.shape, first.dtype)
    # each shard's thread copies its own result (the copies and the page faults run in parallel)
    _on_shards(stacked.__setitem__, [(i, v) for i, v in enumerate(values)])
    return np.moveaxis(stacked, 0, axis) if axis else stacked


def pmap(fun=None, axis_name=None, *, in_axes=0, out_axes=0, devices=None, backend=None):
    """``f`` mapped over axis ``in_axes`` of its arguments, one shard per device, as ``jax.pmap`` (with its
    signature: ``axis_name`` second, the other options by keyword).

    The size of the mapped axis is the number of shards: at most ``local_device_count()`` (the CPU
    cores) when ``devices`` is None, else exactly the number of devices given (a list, or a count:
    ``devices=4`` runs 4 shards on 4 threads whatever the cores). Each shard runs the compiled code
    of ``f`` (any transform of a function: ``pmap(grad(loss), in_axes=(None, 0, 0))``) on a thread
    of its own, in parallel. ``in_axes``/``out_axes`` are as for vmap; an ``out_axes`` of None
    returns shard 0's value (one that is the same on every shard). Inside ``f``,
    ``lax.psum(x, axis_name)``, ``pmean``, ``pmax`` and ``pmin`` combine ``x`` over the shards
    (see the module docstring for where they may appear)."""
    if fun is None:
        return lambda f: Pmapped(f, in_axes, out_axes, axis_name, devices, backend)
    return Pmapped(fun, in_axes, out_axes, axis_name, devices, backend)


__all__ = ["pmap", "Pmapped", "local_device_count", "local_devices", "devices", "device_put", "device_get",
           "block_until_ready", "CpuDevice"]
