"""The differentiating transforms as functions: grad, value_and_grad, jacfwd, jacrev, hessian
(decorators returning a ``Transformed``), and jvp, vjp, linearize (called with the primals)."""
import weakref

import numpy as np

from . import pytrees as flat
from .. import tree as pytree
from ..base.errors import TranspileError
from ..base.memory_budget import parse_budget
from . import call_errors
from .transformed import Transformed, _bind, _kinds, _numpy_scalars, _signature


def _decorator(mode):
    def transform(fun=None, argnums=0, has_aux=False, holomorphic=False, backend=None, deterministic=False,
                  boundscheck=None, strong_zeros=None, memory=None):
        if fun is None:       # used as @transpyle.grad(argnums=1)
            return lambda f: transform(f, argnums, has_aux, holomorphic, backend, deterministic, boundscheck,
                                       strong_zeros, memory)
        out = Transformed(fun, mode, argnums, has_aux, backend, holomorphic, strong_zeros)
        with_budget(out, memory)
        # cuda only (the other backends always are): sums over a batch in a fixed order, not atomically
        out.deterministic = deterministic
        out.boundscheck = boundscheck
        return out
    transform.__transpyle_transform__ = True     # may be called in transformed code (specialized)
    return transform


grad = _decorator("grad")


value_and_grad = _decorator("value_and_grad")


_TRANSFORMED = weakref.WeakKeyDictionary()


def with_budget(transformed, memory):
    """``transformed`` with reverse mode's memory budget ``memory`` (bytes, or a size such as ``"1GB"``):
    its outermost loops that save values are checkpointed to stay within it (``transforms/checkpoint_loops``)."""
    if memory is not None:
        transformed.transform_options["memory"] = parse_budget(memory)
    return transformed


def _transformed(fun, mode, argnums, has_aux, backend, strong_zeros=None, memory=None):
    """The Transformed for these settings, kept per function so repeated ``vjp``/``jvp`` calls
    reuse its compiled code instead of running the pipeline again."""
    try:
        per_fun = _TRANSFORMED.setdefault(fun, {})
    except TypeError:                    # not weak-referenceable: no reuse
        return with_budget(Transformed(fun, mode, argnums, has_aux, backend, strong_zeros=strong_zeros), memory)
    key = (mode, argnums, has_aux, backend, strong_zeros, memory)
    if key not in per_fun:
        per_fun[key] = with_budget(Transformed(fun, mode, argnums, has_aux, backend, strong_zeros=strong_zeros),
                                   memory)
    return per_fun[key]


def _tangent_like(primal, tangent, position):
    """``tangent`` as a value of the primal's type and shape: complex for a complex primal; a complex
    tangent of a real primal is refused, as JAX does (its imaginary part would be dropped)."""
    primal_complex = np.iscomplexobj(primal)
    if np.iscomplexobj(tangent) and not primal_complex:
        raise TranspileError(f"the tangent of argument {position} is complex, the argument is real",
                             hint="pass a real tangent for a real argument (or make the argument complex)")
    if isinstance(primal, np.ndarray):
        t = np.asarray(tangent, dtype=primal.dtype)
        if t.shape != primal.shape:
            raise TranspileError(f"the tangent of argument {position} has shape {t.shape}, "
                                 f"the argument has shape {primal.shape}", hint="pass tangents shaped like the primals")
        return t
    return complex(tangent) if primal_complex else float(tangent)


def jvp(fun, primals, tangents, has_aux=False, backend=None, strong_zeros=None):
    """Forward mode: ``(f(*primals), J @ tangents)`` from one compiled sweep, with no tape
    (``(out, tangent_out, aux)`` with ``has_aux``). ``primals`` and ``tangents`` are tuples of the
    same length; tangents of integer or boolean arguments are ignored (they have no derivative)."""
    tangents = tuple(tangents)
    if len(tangents) != len(primals):
        raise TranspileError(f"jvp got {len(primals)} primals but {len(tangents)} tangents",
                             hint="pass one tangent per primal: jvp(f, (x, y), (dx, dy))")
    if flat.needs_flattening(fun, primals):       # pytree arguments, or pytrees built in the body
        return _jvp_pytrees(fun, tuple(primals), tangents, has_aux, backend, strong_zeros)
    given = len(primals)
    primals = tuple(_bind(fun, _signature(fun), tuple(primals), {}))   # defaults
    wrt = tuple(i for i, p in enumerate(primals[:given]) if _kinds((p,))[0].is_float)
    if not wrt:
        raise TranspileError("jvp needs at least one float argument to differentiate",
                             hint="pass floats or float arrays as primals")
    ts = tuple(_tangent_like(primals[i], tangents[i], i) for i in wrt)
    forward = _transformed(fun, "jvp", wrt, has_aux, backend, strong_zeros)
    try:
        out, tangent_out = _numpy_scalars(forward._entry(primals, ts)(*primals, *ts))
    except ValueError as exc:            # shapes that do not fit: said at the user's line, as other calls say it
        twin = _transformed(fun, "jvp", wrt, has_aux, "numpy", strong_zeros)
        count = len(primals)
        error = call_errors.located(exc, fun, lambda *a: twin._entry(a[:count], a[count:])(*a), primals + ts) \
            if type(exc) is ValueError else None
        if error is None:
            raise
        raise error from None
    if has_aux:
        out, aux = out
        return out, tangent_out, aux
    return out, tangent_out


def _flat_function(fun, treedefs, has_aux):
    """(``fun`` with its pytree parameters flattened, its result's TreeDef)."""
    if isinstance(fun, Transformed):
        source, out_tree, layout = fun._flatten(treedefs)
        if not flat.is_flat(layout):
            raise TranspileError(f"this transform of {fun.mode} of a function of pytrees is not supported",
                                 hint="apply the transforms to a function of arrays")
        return source, out_tree
    return flat.flat_source(fun, treedefs, has_aux)


def _value_and_aux_trees(out_tree, has_aux):
    if not has_aux:
        return out_tree, None
    return pytree.LEAF, (out_tree.children[1] if out_tree.kind == "tuple" else pytree.LEAF)


def _jvp_pytrees(fun, primals, tangents, has_aux, backend, strong_zeros):
    leaves, treedefs = flat.flatten_args(primals)
    t_leaves, t_treedefs = flat.flatten_args(tangents)
    for i, (a, b) in enumerate(zip(treedefs, t_treedefs)):
        flat.check_same(a, b, f"jvp: primal {i} and its tangent")
    source, out_tree = _flat_function(fun, treedefs, has_aux)
    value_tree, aux_tree = _value_and_aux_trees(out_tree, has_aux)
    result = jvp(source, leaves, t_leaves, has_aux=has_aux, backend=backend, strong_zeros=strong_zeros)
    rebuilt = (flat.rebuild(value_tree, result[0]), flat.rebuild(value_tree, result[1]))
    return rebuilt + (flat.rebuild(aux_tree, result[2]),) if has_aux else rebuilt


def _vjp_pytrees(fun, primals, has_aux, backend, strong_zeros, memory=None):
    leaves, treedefs = flat.flatten_args(primals)
    source, out_tree = _flat_function(fun, treedefs, has_aux)
    value_tree, aux_tree = _value_and_aux_trees(out_tree, has_aux)
    out, flat_vjp, *aux = vjp(source, *leaves, has_aux=has_aux, backend=backend, strong_zeros=strong_zeros,
                              memory=memory)
    positions = flat.leaf_positions(treedefs)

    def vjp_fn(ct):
        ct_leaves, ct_tree = flat.flatten_args((ct,))
        flat.check_same(value_tree, ct_tree[0], "vjp: the output and its cotangent")
        cts = flat_vjp(ct if value_tree.is_leaf else ct_leaves)
        return tuple(pytree.unflatten(td, [cts[p] for p in pos]) for td, pos in zip(treedefs, positions))
    result = (flat.rebuild(value_tree, out), vjp_fn)
    return result + (flat.rebuild(aux_tree, aux[0]),) if has_aux else result


def linearize(fun, *primals, backend=None, strong_zeros=None):
    """``(f(*primals), f_jvp)`` where ``f_jvp(*tangents)`` is the jvp at ``primals``. Each call of
    ``f_jvp`` runs the compiled forward sweep again (the primal is recomputed, nothing is stored)."""
    primals = tuple(primals)
    out = _transformed(fun, "primal", 0, False, backend)(*primals)

    def f_jvp(*tangents):
        return jvp(fun, primals, tangents, backend=backend, strong_zeros=strong_zeros)[1]
    return out, f_jvp


def _copies(values):
    """``values`` with each array copied."""
    return tuple(v.copy() if isinstance(v, np.ndarray) else v for v in values)


def vjp(fun, *primals, has_aux=False, backend=None, strong_zeros=None, memory=None):
    """``(out, vjp_fn)`` where ``vjp_fn(ct)`` returns one cotangent per primal (``(out, vjp_fn, aux)``
    with ``has_aux``). The primal is recomputed inside each ``vjp_fn`` call."""
    if flat.has_pytree(primals):
        return _vjp_pytrees(fun, primals, has_aux, backend, strong_zeros, memory)
    primals = tuple(primals)
    primal = _transformed(fun, "primal", 0, False, backend)
    pullback = _transformed(fun, "vjp", tuple(range(len(primals))), has_aux, backend, strong_zeros,
                            parse_budget(memory))
    # the primal and each pullback run on copies of the arrays: a function that writes into its
    # arguments is differentiated at the point it was given, every time (JAX's arrays never change)
    out = primal(*_copies(primals))
    if out is None:              # a procedure: the error that says it returns nothing
        pullback._transform(_kinds(primals))
    aux = None
    if has_aux:
        out, aux = out

    def vjp_fn(ct):
        if isinstance(out, tuple):
            ct = tuple(np.asarray(c, dtype=float) if not np.isscalar(c) else float(c) for c in ct)
        elif isinstance(out, np.ndarray):
            ct = np.asarray(ct, dtype=out.dtype)
            if ct.shape != out.shape:
                raise TranspileError(f"the cotangent has shape {ct.shape}, the output has shape {out.shape}",
                                     hint="pass a cotangent shaped like the output")
        else:
            ct = float(ct)
        return _numpy_scalars(pullback._entry(primals, (ct,))(*_copies(primals), ct))

    return (out, vjp_fn, aux) if has_aux else (out, vjp_fn)


jacfwd = _decorator("jacfwd")


jacrev = _decorator("jacrev")


def hessian(fun, argnums=0, has_aux=False, holomorphic=False, backend=None, boundscheck=None, strong_zeros=None,
            memory=None):
    """Second derivatives of a scalar function: ``jacfwd(jacrev(f))`` (forward over reverse), shape
    ``in.shape + in.shape``."""
    inner = with_budget(Transformed(fun, "jacrev", argnums, has_aux, backend, holomorphic, strong_zeros), memory)
    outer = Transformed(inner, "jacfwd", argnums, has_aux, backend, holomorphic, strong_zeros)
    outer.boundscheck = boundscheck
    return outer


grad.__doc__ = """Gradient of a scalar function with respect to argument(s) ``argnums``.

``grad(f)(x, ...)`` has the shape of ``x``; with a tuple ``argnums`` a tuple of gradients.
With ``has_aux=True`` ``f`` returns ``(value, aux)`` and the result is ``(gradient, aux)``.
``backend`` is ``"numba"`` (default, or ``$TRANSPYLE_BACKEND``) or ``"numpy"``; ``"auto"`` is numba,
answered by numpy while a compile runs past ``$TRANSPYLE_COMPILE_WARN`` seconds; ``"cuda"`` takes
``f`` of the form ``return np.sum(vmap(loss, in_axes=...)(w, x, y))`` (or ``np.mean``) and runs it as
one kernel whose threads add up per-example gradients, atomically or, with ``deterministic=True``,
in a fixed order by a second kernel (docs/cuda.md).
``boundscheck``: an index out of range raises NumPy's IndexError naming the user's line. The numpy
backend always checks; numba checks with ``boundscheck=True`` or ``$TRANSPYLE_BOUNDSCHECK=1`` (off by
default: the checks cost speed), and every transform takes the argument.
A complex output needs ``holomorphic=True`` (then the result is f'(z)); a real output of complex
arguments gives JAX's convention, df/dx - i df/dy."""

value_and_grad.__doc__ = """Like :func:`grad` but returns ``(value, gradient)`` (``((value, aux), gradient)``
with ``has_aux``), both from one compiled call."""


jvp.__transpyle_jvp__ = True           # in transformed code: a call to the forward-mode code of fun


jacfwd.__doc__ = """Jacobian by forward mode: one compiled call that runs the jvp once per input element.

Shape ``out.shape + in.shape`` (a float for scalar in and out); a tuple over arguments for a tuple
``argnums``, a tuple over outputs for a tuple output; ``(jacobian, aux)`` with ``has_aux``."""

jacrev.__doc__ = """Jacobian by reverse mode: one compiled call that runs the vjp once per output element.
Same layout as :func:`jacfwd`; cheaper when outputs are fewer than inputs."""


hessian.__transpyle_transform__ = True
