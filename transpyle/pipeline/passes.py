"""The passes, as objects, and the declared list of them each mode runs.

A :class:`Pass` has a name, a one-line description, the facts about the tree it requires and the
facts it produces. :func:`run` executes a list of passes over a tree: it checks that every pass
finds the facts it requires, times each pass, and prints the tree after the passes asked for.

- ``TRANSPYLE_DUMP=normalize,reverse`` (or ``all``) prints the function after those passes to
  stderr; ``transpyle show --after PASS`` prints it after one pass.
- ``TRANSPYLE_TIMINGS=1`` prints the time each pass took to stderr; the times are kept in
  ``ctx.timings`` either way.
"""
import dataclasses
import os
import sys
import time

import gast

from ..analysis import activity
from ..base.ast_utils import to_source
from ..base.context import NeedKinds
from ..base.errors import TranspileError
from ..base.kinds import kind_of_value
from ..frontend import in_place, infer, inline, jumps, lower_calls, lower_indexing, normalize, rename, resolve
from ..frontend.source import read_function
from ..transforms import adjoint_handover, custom_rules, element_loops, forward, fuse, outline_loops, parallel_loops, reverse, tidy


@dataclasses.dataclass(frozen=True)
class Pass:
    """One step of the pipeline: ``run(tree, ctx, job) -> tree``."""
    name: str
    description: str
    requires: tuple
    produces: tuple
    run: object


@dataclasses.dataclass
class Job:
    """What one run of the pipeline is asked for, as the passes read it (the Context holds the rest)."""
    mode: str
    has_aux: bool = False
    tuple_argnums: bool = False
    outputs: tuple = ()          # names of the differentiated outputs
    sweep: str = "grad"          # reverse mode's output: grad, value_and_grad or vjp
    ct_kind: object = None       # kind of the cotangent parameter _ct of a vjp
    jacobian: str = ""           # jacfwd or jacrev, for the jacobian driver
    with_value: bool = False     # value_and_grad by the jacfwd driver
    lanes: object = "loops"      # see ``transform``
    parallel: bool = True
    full_kinds: tuple = ()       # vmap: the batched argument kinds, in_axes and out_axes
    in_axes: object = 0
    out_axes: object = 0
    after: str = None            # dump the tree after this pass
    prepare: object = None       # (tree, unit) -> tree: the frontend of a callee being inlined
    transform: object = None     # the pipeline's entry, for drivers that transform a helper they generated
    facts: set = dataclasses.field(default_factory=set)

    def derived(self, **changes):
        """This job for a helper sweep: its own copy of the facts."""
        return dataclasses.replace(self, facts=set(self.facts), **changes)


def _infer_with_deferred_calls(tree, ctx, job):
    """infer; a call to a transformed function (``grad(g)`` in the body) stops it until that
    function is generated for the kinds at the call and inlined, then infer runs again."""
    while True:
        try:
            return infer.run(tree, ctx)
        except NeedKinds as need:
            deferred = ctx.functions[need.key]
            ctx.functions[need.key] = read_function(deferred.transformed.generated_function(need.kinds))
            inline.run(tree, ctx, job.prepare)
            rename.run(tree, ctx)
            _add_captured_parameters(tree, ctx)     # the arrays the inlined code reads


def _add_captured_parameters(tree, ctx):
    """Module-level arrays the code reads become trailing parameters (read afresh at each call)."""
    present = {a.id for a in tree.args.args}
    for param, _, value in ctx.captured.values():
        if param in present:
            continue
        tree.args.args.append(gast.Name(id=param, ctx=gast.Param(), annotation=None, type_comment=None))
        ctx.arg_kinds[param] = kind_of_value(value)
    return tree


FRONTEND = (
    Pass("resolve", "names -> numpy/math primitives, user functions, constants",
         (), ("resolved",), lambda t, ctx, job: resolve.run(t, ctx)),
    Pass("jumps", "early return/break/continue -> flags and guarded blocks",
         ("resolved",), ("structured",), lambda t, ctx, job: jumps.run(t, ctx)),
    Pass("normalize", "A-normal form: one primitive per statement, loops over range",
         ("structured",), ("normal",), lambda t, ctx, job: normalize.run(t, ctx)),
    Pass("inline", "calls to user functions -> the callee's body",
         ("normal",), ("inlined",), lambda t, ctx, job: inline.run(t, ctx, job.prepare)),
    Pass("rename", "a name assigned again in straight-line code -> a new name from there on",
         ("inlined",), ("renamed",), lambda t, ctx, job: rename.run(t, ctx)),
    Pass("captured", "module-level arrays the code reads -> trailing parameters",
         ("resolved",), ("closed",), lambda t, ctx, job: _add_captured_parameters(t, ctx)),
    Pass("infer", "the kind (dtype, rank) of every variable",
         ("renamed", "closed"), ("kinds",), _infer_with_deferred_calls),
    Pass("lower_indexing", "x[index arrays or masks] -> gathers of basic views; writes through them -> loops "
         "of writes", ("kinds",), ("basic indexing",), lambda t, ctx, job: lower_indexing.run(t, ctx)),
    Pass("in_place", "a op= b on arrays -> writes into their buffer (a[:] = a op b); on numbers it rebinds",
         ("basic indexing",), ("writes",), lambda t, ctx, job: in_place.run(t, ctx)),
    Pass("lower_calls", "NumPy calls Numba lacks -> run-time helpers; matrix functions of stacks -> loops",
         ("writes",), ("compilable",), lambda t, ctx, job: lower_calls.run(t, ctx)),
)

ACTIVITY = Pass("activity", "which variables carry derivatives", ("compilable",), ("activity",),
                lambda t, ctx, job: activity.run(t, ctx, job.outputs))
REVERSE = Pass("reverse", "primal sweep with tapes + adjoint sweep (grad, value_and_grad, vjp)",
               ("activity",), ("derivative",),
               lambda t, ctx, job: reverse.run(t, ctx, mode=job.sweep, has_aux=job.has_aux))
FORWARD = Pass("forward", "primal and tangent statements side by side (jvp)", ("activity",), ("derivative",),
               lambda t, ctx, job: forward.run(t, ctx, has_aux=job.has_aux))


def _settle(tree, ctx, job):
    """Markers of custom rules -> plain values; the bwd rules the adjoint sweep calls are inlined,
    and the frontend's late passes run over them (the kind of ``_ct`` is ``job.ct_kind``)."""
    if custom_rules.run(tree, ctx):
        saved = ctx.arg_kinds
        ctx.arg_kinds = {**saved, "_ct": job.ct_kind}
        try:
            run(tree, ctx, job, (FRONTEND_BY_NAME["inline"], FRONTEND_BY_NAME["infer"],
                                 *FRONTEND[FRONTEND.index(FRONTEND_BY_NAME["lower_indexing"]):]), quiet=True)
        finally:
            ctx.arg_kinds = saved
    return tree


FRONTEND_BY_NAME = {p.name: p for p in FRONTEND}
CUSTOM_RULES = Pass("custom_rules", "markers of custom derivative rules -> plain values; bwd rules inlined",
                    ("compilable",), ("settled",), _settle)
ADJOINT_HANDOVER = Pass("adjoint_handover", "an adjoint handed to a temporary and zeroed -> kept in its buffer",
                        ("derivative",), ("handed over",), adjoint_handover.run)
FUSE = Pass("fuse", "temporaries read once -> substituted into their read: elementwise chains are one expression",
            ("compilable",), ("fused",), fuse.run)
ELEMENT_LOOPS = Pass("element_loops", "elementwise array statements -> loops over the elements (code Numba compiles)",
                     ("fused",), ("element loops",), element_loops.run)
TIDY = Pass("tidy", "temporaries of numbers folded, statements nothing reads removed, source-line comments",
            ("compilable",), ("tidy",), lambda t, ctx, job: tidy.run(t, ctx))
OUTLINE_LOOPS = Pass("outline_loops", "element loops of a function too long to optimize whole -> helper functions",
                     ("tidy",), ("outlined",), outline_loops.run)
PARALLEL_LOOPS = Pass("parallel_loops", "element loop nests over many elements -> a numba.prange copy run when they pay",
                      ("outlined",), ("parallel",), parallel_loops.run)


def _dump(name, tree, ctx, after):
    wanted = os.environ.get("TRANSPYLE_DUMP", "")
    if name == after or wanted == "all" or name in wanted.split(","):
        # a driver's pass also made (or tidied) the functions it calls: they are shown first
        helpers = ctx.helpers if name in _WITH_HELPERS else []
        sys.stderr.write(f"# ---- after {name} ----\n" + "\n".join(to_source(f) for f in helpers + [tree]) + "\n")


_WITH_HELPERS = {"jacobian", "vmap_loop", "tidy"}


def run(tree, ctx, job, passes, quiet=False):
    """Run ``passes`` in order over ``tree``; ``quiet``: a rerun of passes inside another (no dumps).
    The facts each pass produces accumulate in ``job.facts``; a pass whose requirements are not
    among them is an error in the pipeline's declaration, raised before it runs."""
    for p in passes:
        missing = [f for f in p.requires if f not in job.facts]
        if missing:
            raise AssertionError(f"pass '{p.name}' needs {', '.join(missing)}, which no earlier pass produced")
        ctx.stage = p.name
        start = time.perf_counter()
        try:
            tree = p.run(tree, ctx, job)
        except TranspileError as exc:
            exc.stage = exc.stage or p.name
            raise
        ctx.timings.append((p.name, time.perf_counter() - start))
        job.facts.update(p.produces)
        if not quiet:
            _dump(p.name, tree, ctx, job.after)
    return tree


def report_timings(ctx):
    """With ``TRANSPYLE_TIMINGS`` set: the time of each pass of this transform, to stderr."""
    if os.environ.get("TRANSPYLE_TIMINGS"):
        total = sum(t for _, t in ctx.timings)
        sys.stderr.write(f"# transpyle pass timings for {ctx.source.name} ({ctx.mode}): {1e3 * total:.1f} ms\n" +
                         "".join(f"#   {n:15} {1e3 * t:8.1f} ms\n" for n, t in ctx.timings))
