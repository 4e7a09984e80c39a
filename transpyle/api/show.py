"""What the generated code looks like: ``show`` (the module's text, or the tree after one pass) and
``generate`` (the tree), for example arguments, kind strings, or kinds guessed from the source."""
import contextlib
import io
import os

from . import pytrees as flat
from .. import pipeline
from ..base.errors import TranspileError
from ..base.memory_budget import parse_budget
from ..pipeline.modes import check_after
from ..base.kinds import equal_axes, parse_kind
from .aot_source import batched_kinds
from .argument_kinds import resolved_kinds
from .functional import _flat_function
from .transformed import Transformed, _kinds, _normalize_argnums


def _specialization(fun, mode, argnums, args, kinds, has_aux, holomorphic, in_axes=0, notes=None):
    """What show and compile_module give the pipeline: (function, mode, argnums, argument kinds,
    tuple_argnums, the arguments' TreeDefs when some are pytrees), from example ``args``, ``kinds``
    strings (or pytrees of them, for pytree arguments), or kinds read from the source
    (``argument_kinds``: those of one call, which vmap batches along ``in_axes``)."""
    nums, tuple_argnums = _normalize_argnums(fun, argnums)
    if args is None and kinds is None:
        kinds = resolved_kinds(fun, generate, notes)
        if mode == "vmap":
            kinds = batched_kinds(kinds, in_axes)
    if args is None and kinds is not None and flat.has_pytree(kinds):   # pytrees of kind strings:
        args, kinds = kinds, flat.flatten_args(kinds)[0]                # their structure, their leaves
    treedefs = None
    if args is not None and flat.has_pytree(args):      # the flat function, on the leaves
        args, treedefs = flat.flatten_args(args)
        positions = flat.leaf_positions(treedefs)
        nums = tuple(p for n in nums for p in positions[n % len(treedefs)])
        fun, tuple_argnums = _flat_function(fun, treedefs, has_aux)[0], True
    if kinds is not None:
        arg_kinds = tuple(parse_kind(k) if isinstance(k, str) else k for k in kinds)
    else:
        arg_kinds = _kinds(tuple(args))
    nums = tuple(n % len(arg_kinds) for n in nums)
    if mode == "hessian":         # jacfwd over the code jacrev generates
        fun, mode = Transformed(fun, "jacrev", argnums, has_aux, holomorphic=holomorphic), "jacfwd"
    if mode in ("vjp", "jvp"):    # as jvp() does: every float argument gets a tangent (a cotangent)
        nums = tuple(i for i, k in enumerate(arg_kinds) if getattr(k, "is_float", False))
    return fun, mode, nums, arg_kinds, tuple_argnums, treedefs


def generate(fun, mode="grad", argnums=0, args=None, kinds=None, has_aux=False, holomorphic=False, in_axes=0,
             out_axes=0, after=None, strategy="loop", notes=None, memory=None):
    """(name, gast FunctionDef, Context) of the generated function; see :func:`show`. ``notes``: a list
    that gets a line where the kinds read from the source were chosen among several; ``memory``: reverse
    mode's memory budget (bytes)."""
    label = "jit" if mode == "jit" else None
    mode = "primal" if mode == "jit" else mode            # jit compiles the function as it is
    fun, mode, nums, arg_kinds, tuple_argnums, treedefs = _specialization(fun, mode, argnums, args, kinds, has_aux,
                                                                           holomorphic, in_axes, notes)
    if treedefs is not None and mode == "vmap":
        in_axes = flat.leaf_in_axes(in_axes, treedefs)
    # example arrays give the code a call with them compiles: specialized on their equal axes
    lengths = equal_axes(args) if args is not None and kinds is None else None
    return pipeline.transform(fun, mode, nums, arg_kinds, has_aux, tuple_argnums, after=after,
                              holomorphic=holomorphic, in_axes=in_axes, out_axes=out_axes, strategy=strategy,
                              label=label, lengths=lengths, memory=memory)


def _unwrapped(fun, mode, argnums, has_aux, in_axes, out_axes):
    """``show(grad(f))``: the function a transform was made of, with that transform's mode and options
    (where no mode is given); a plain function is shown under ``grad``."""
    if mode is not None or not isinstance(fun, Transformed):
        return fun, mode or "grad", argnums, has_aux, in_axes, out_axes
    options = fun.transform_options
    return (fun.fun, "jit" if fun.mode == "primal" else fun.mode, fun.argnums if fun.tuple_argnums else
            fun.argnums[0], fun.has_aux, options.get("in_axes", in_axes), options.get("out_axes", out_axes))


def _kind_list(kinds):
    """Kinds given as one string (``"f8[:, :], f8[:]"``, as the command line takes them) as a list."""
    if not isinstance(kinds, str):
        return kinds
    out, depth, start = [], 0, 0
    for i, c in enumerate(kinds):
        depth += c == "["
        depth -= c == "]"
        if c == "," and depth == 0:
            out.append(kinds[start:i].strip())
            start = i + 1
    return out + [kinds[start:].strip()]


def show(fun, mode=None, argnums=0, args=None, kinds=None, has_aux=False, after=None, holomorphic=False,
         in_axes=0, out_axes=0, strategy="loop", memory=None):
    """The generated source for ``fun`` under ``mode`` (what is compiled): one of ``pipeline.MODES``,
    ``hessian`` or ``jit``. Without a mode, a transformed function (``show(grad(f))``, ``show(jit(f))``)
    is shown as its transform generates it, and a plain function under ``grad``.

    Specialisation needs the argument kinds: give example ``args``, or ``kinds`` as strings
    like ``("f8[:]", "f8[:, :]", "f8")`` (or one string, ``"f8[:], f8[:, :], f8"``). Without either, they are read from annotations or from how
    the function uses its arguments (``argument_kinds``) and named in the header. ``after`` names a
    pass (``pipeline.PASSES``): the text is then the function after that pass instead, each time it
    ran (a Jacobian runs the sweeps it calls; a Hessian runs jacrev, then jacfwd over its code). ``memory``:
    reverse mode's memory budget (as ``grad(f, memory=...)``, whose budget a transform shown carries).
    """
    if memory is None and isinstance(fun, Transformed):
        memory = fun.transform_options.get("memory")
    fun, mode, argnums, has_aux, in_axes, out_axes = _unwrapped(fun, mode, argnums, has_aux, in_axes, out_axes)
    options = dict(mode=mode, argnums=argnums, args=args, kinds=_kind_list(kinds), has_aux=has_aux,
                   holomorphic=holomorphic, in_axes=in_axes, out_axes=out_axes, strategy=strategy,
                   memory=parse_budget(memory))
    if after is not None:
        return _after(fun, after, options)
    notes = []
    fname, tree, ctx = generate(fun, notes=notes, **options)
    text = pipeline.module_source(tree, ctx)
    if not notes:
        return text
    first, rest = text.split("\n", 1)
    return first + "\n" + "".join(f"# {n}\n" for n in notes) + rest


def _after(fun, after, options):
    """The dumps of the tree after the pass ``after`` (``TRANSPYLE_DUMP`` for this call, read by the
    transforms this one runs inside it too)."""
    check_after(after)
    buf = io.StringIO()
    old = os.environ.get("TRANSPYLE_DUMP")
    os.environ["TRANSPYLE_DUMP"] = after
    try:
        with contextlib.redirect_stderr(buf):
            _, _, ctx = generate(fun, after=after, **options)
    finally:
        if old is None:
            os.environ.pop("TRANSPYLE_DUMP", None)
        else:
            os.environ["TRANSPYLE_DUMP"] = old
    text = "".join(line for line in buf.getvalue().splitlines(True) if not line.startswith("# transpyle pass timings")
                   and not line.startswith("#   "))
    if not text:
        ran = list(dict.fromkeys(name for name, _ in ctx.timings))
        raise TranspileError(f"the pass '{after}' does not run in mode {options['mode']}",
                             hint="the passes this mode runs: " + ", ".join(ran))
    return text
