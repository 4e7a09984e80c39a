"""What the generated code looks like: ``show`` (the module's text, or the tree after one pass) and
``generate`` (the tree), for example arguments, kind strings, or kinds guessed from the source."""
from . import pytrees as flat
from .. import pipeline
from ..base.kinds import parse_kind
from .functional import _flat_function
from .transformed import Transformed, _kinds, _normalize_argnums


def _specialization(fun, mode, argnums, args, kinds, has_aux, holomorphic):
    """What show and compile_module give the pipeline: (function, mode, argnums, argument kinds,
    tuple_argnums, the arguments' TreeDefs when some are pytrees), from example ``args``, ``kinds`` strings (or pytrees of them, for pytree arguments),
    or kinds guessed from the source."""
    nums, tuple_argnums = _normalize_argnums(fun, argnums)
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
    elif args is not None:
        arg_kinds = _kinds(tuple(args))
    else:
        from ..frontend.guess import guess_kinds
        arg_kinds = guess_kinds(fun)
    nums = tuple(n % len(arg_kinds) for n in nums)
    if mode == "hessian":         # jacfwd over the code jacrev generates
        fun, mode = Transformed(fun, "jacrev", argnums, has_aux, holomorphic=holomorphic), "jacfwd"
    if mode == "vjp":
        nums = tuple(range(len(arg_kinds)))
    elif mode == "jvp":           # as jvp() does: every float argument gets a tangent
        nums = tuple(i for i, k in enumerate(arg_kinds) if getattr(k, "is_float", False))
    return fun, mode, nums, arg_kinds, tuple_argnums, treedefs


def generate(fun, mode="grad", argnums=0, args=None, kinds=None, has_aux=False, holomorphic=False, in_axes=0,
             out_axes=0, after=None, strategy="loop"):
    """(name, gast FunctionDef, Context) of the generated function; see :func:`show`."""
    fun, mode, nums, arg_kinds, tuple_argnums, treedefs = _specialization(fun, mode, argnums, args, kinds, has_aux,
                                                                           holomorphic)
    if treedefs is not None and mode == "vmap":
        in_axes = flat.leaf_in_axes(in_axes, treedefs)
    return pipeline.transform(fun, mode, nums, arg_kinds, has_aux, tuple_argnums, after=after,
                              holomorphic=holomorphic, in_axes=in_axes, out_axes=out_axes, strategy=strategy)


def show(fun, mode="grad", argnums=0, args=None, kinds=None, has_aux=False, after=None, holomorphic=False,
         in_axes=0, out_axes=0, strategy="loop"):
    """The generated source for ``fun`` under ``mode`` (what is compiled).

    Specialisation needs the argument kinds: give example ``args``, or ``kinds`` as strings
    like ``("f8[:]", "f8[:, :]", "f8")``. Without either, they are guessed from how the function
    uses its parameters (see ``guess``) and named in the header. ``after`` names a pass to print the tree after instead (see ``pipeline.PASSES``).
    """
    options = dict(mode=mode, argnums=argnums, args=args, kinds=kinds, has_aux=has_aux, holomorphic=holomorphic,
                   in_axes=in_axes, out_axes=out_axes, strategy=strategy)
    if after is not None:
        import contextlib
        import io
        import os
        buf = io.StringIO()
        old = os.environ.get("TRANSPYLE_DUMP")
        os.environ["TRANSPYLE_DUMP"] = after
        try:
            with contextlib.redirect_stderr(buf):
                generate(fun, after=after, **options)
        finally:
            if old is None:
                os.environ.pop("TRANSPYLE_DUMP", None)
            else:
                os.environ["TRANSPYLE_DUMP"] = old
        return buf.getvalue()
    fname, tree, ctx = generate(fun, **options)
    return pipeline.module_source(tree, ctx)
