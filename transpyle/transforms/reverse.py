"""reverse: reverse-mode differentiation of a normalized function (the vjp transform).

The generated function runs a *primal sweep* (the user's statements, saving the values that
later statements overwrite and that the adjoint sweep reads) and then an *adjoint sweep*
(the statements in reverse order, each replaced by its adjoint rule from the rule tables,
followed by restoring what the statement overwrote). So during the adjoint sweep every
variable holds the value it had at that point of the primal run, and rules may read any
operand.

Saving: a statement that overwrites a needed value inside a loop pushes the old value on a
tape (``_tape_v``, a growable array for scalars, a list for arrays); outside loops it keeps it
in a temporary. Loops replay backwards: ``for`` loops over the reversed range, ``while`` loops
as many times as counted (``_w1``). Only values that the adjoint sweep reads are saved, and only
active variables (see ``activity``) get adjoints ``bx``.

This module holds the pass entry (``run``) and the facts both sweeps read; the primal sweep and its
tapes are ``reverse_tapes``, the adjoint sweep is ``reverse_adjoint``, and what needs no tape is
decided by ``analysis/recording``.
"""
import copy
import linecache
import os

import gast

from ..base.ast_utils import assign, comment, const, name, parse_expr, stored_names
from ..base.context import place
from ..base.kinds import Kind
from ..analysis.activity import assignments, output_names
from ..analysis.aliases import Aliases
from ..analysis.recording import Recording
from ..analysis.shapes import Shapes
from ..analysis.to_be_recorded import names_read, required_before
from ..base.memory_budget import budget
from .checkpoint_loops import CheckpointedLoops
from .reverse_adjoint import AdjointSweep
from .reverse_tapes import PrimalSweep


class Reverse(PrimalSweep, AdjointSweep, CheckpointedLoops, Recording):
    """The reverse transform of one function: the facts both sweeps read, and ``build``, which plans
    the saves and makes both sweeps."""

    def __init__(self, ctx, tree, outputs, mode, has_aux):
        self.ctx = ctx
        self.tree = tree
        self.mode = mode
        self.has_aux = has_aux
        self.kinds = ctx.kinds
        self.active = ctx.active
        self.outputs = outputs
        self.counters = set()
        self.adjoint_names = {}
        self.plans = {}
        self.budget = budget(ctx.options.get("memory"))     # bytes, or None: loops are taped whole
        self.checkpoints = {}
        self.checkpointed = set()

    # ---- names ---------------------------------------------------------------------------------
    def adj(self, var):
        if var not in self.adjoint_names:
            base = "b" + var if not var.startswith("_") else "b" + var
            self.adjoint_names[var] = self.ctx.namer.exact_or_fresh(base)
        return self.adjoint_names[var]

    # ---- facts -----------------------------------------------------------------------------------
    def count_defs(self):
        defs = {a.id: 1 for a in self.tree.args.args}
        for s in assignments(self.tree.body):
            t = s.targets[0]
            if isinstance(t, gast.Name):
                defs[t.id] = defs.get(t.id, 0) + 1

        def loops(stmts, depth):
            for s in stmts:
                if isinstance(s, gast.For):
                    defs[s.target.id] = defs.get(s.target.id, 0) + 2
                    loops(s.body, depth + 1)
                elif isinstance(s, gast.While):
                    loops(s.body, depth + 1)
                elif isinstance(s, gast.If):
                    loops(s.body, depth)
                    loops(s.orelse, depth)
        loops(self.tree.body, 0)
        return defs

    def kind(self, var):
        return self.kinds.get(var)

    # ---- comments tying generated code to the source ------------------------------------------------
    def line_comment(self, s, out, sweep, force=False):
        out.extend(source_comment(self, s, sweep))

    # ---- the whole function ------------------------------------------------------------------------
    def build(self):
        tree = self.tree
        ret = tree.body[-1]
        body = self.prepare(tree.body[:-1])
        tree.body = body + [ret]
        self.aliases = Aliases(tree, self.ctx)
        self.views = {v: s for v, s in self.aliases.views().items() if v in self.active}
        self.decisions = {st.test.id for st in gast.walk(gast.Module(body=body, type_ignores=[]))
                          if isinstance(st, (gast.If, gast.While)) and isinstance(st.test, gast.Name)}
        self.defs = self.count_defs()
        self.shapes = Shapes(tree, self.kinds, self.ctx.arg_lengths)
        self.fixed_shape = self.find_fixed_shapes()
        self.single_use = self.find_single_uses(body, self.passes_value)
        self.increments = self.find_increments(body)
        self.passed_parts = self.find_passed_parts()
        self.definitions = {s.targets[0].id: s for s in assignments(body)
                            if isinstance(s.targets[0], gast.Name) and self.defs.get(s.targets[0].id) == 1}
        self.oversized = set()      # single-use values whose cotangent keeps the shape it was broadcast to
        self.storage_names = {}
        self.find_cheap_values()
        # under a memory budget the outermost loops that save something are checkpointed (checkpoint_loops):
        # plan with every candidate checkpointed, then again without those that save nothing
        self.checkpointed = self.checkpoint_candidates(body)
        sweep, required = self.plan_saves(body)
        saving = self.loops_with_saves(body, self.checkpointed)
        if saving != self.checkpointed:
            self.checkpointed = saving
            sweep, required = self.plan_saves(body)
        needed = set().union(*map(names_read, required.values())) if required else set()
        self._last_primal = None
        self.loop_stack = []
        primal = self.primal(body)
        return primal, sweep, needed

    def plan_saves(self, body):
        """Plan the saves and make the adjoint sweep; returns the sweep and what each statement must save
        (statement id -> reads). The adjoint sweep decides what must be saved (analysis/to_be_recorded),
        and saving adds restores that read more names: plan, sweep and analyse again until nothing more is
        required. The required sets only grow, and are bounded by the names and statements of the function."""
        required = {}
        for _ in range(len(self.kinds) + 8):
            self.plans, self.block_reads, self.header_reads = {}, {}, {}
            self.seen = {a.id for a in self.tree.args.args}
            self.make_plans(body, 0, required)
            self._last_adjoint = None
            sweep = self.adjoint(body, 0)
            now = required_before(body, self.block_reads, self.header_reads)
            if now == required:
                return sweep, required
            required = now
        raise self.ctx.error(self.tree, "the values to save before overwriting did not settle",
                             hint="please report this function: the to-be-recorded analysis should converge")


def written_names(stmts):
    """Names assigned, and arrays written in place, anywhere in ``stmts``."""
    out = stored_names(stmts)
    for s in stmts:
        for n in gast.walk(s):
            if isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store) and isinstance(n.value, gast.Name):
                out.add(n.value.id)
    return out


def source_comment(sweep_state, s, sweep):
    """``[# file.py:12: <the source line>]`` before the first statement generated from a line
    (``sweep_state`` remembers the last line commented per sweep)."""
    lineno = getattr(s, "lineno", None)
    if lineno is None or getattr(sweep_state, "_last_" + sweep, None) == lineno:
        return []
    setattr(sweep_state, "_last_" + sweep, lineno)
    filename, lineno = place(s, sweep_state.ctx.filename)
    text = linecache.getline(filename, lineno).strip()
    if text and isinstance(s, gast.Assign):
        return [comment(f"{os.path.basename(filename)}:{lineno}: {text}")]
    return []


def run(tree, ctx, mode="grad", has_aux=False):
    """Turn the normalized ``tree`` into its gradient function (see the module docstring)."""
    ret = tree.body[-1]
    outs = output_names(ret)
    value_index = 0
    rev = Reverse(ctx, tree, outs, mode, has_aux)
    primal, sweep, needed = rev.build()
    args = [a.id for a in tree.args.args]
    ret_elts = ret.value.elts if isinstance(ret.value, gast.Tuple) else [ret.value]

    # arrays written in place (through any alias) are copied first: the caller's arrays are never changed
    written = rev.aliases.written_in(tree.body)
    copies = [assign(a, parse_expr(f"np.copy({a})")) for a in args if a in written]

    header = [comment(f"transpyle: {mode} of {ctx.source.name} "
                      f"({os.path.basename(ctx.filename)}:{ctx.source.tree.lineno})"),
              comment("with respect to: " + ", ".join(ctx.wrt)),
              comment("active: " + (", ".join(sorted(ctx.active)) or "(none)"))]
    decls = rev.declarations(needed)

    inits = []
    for v in sorted(ctx.active | set(ctx.wrt)):
        if v not in rev.single_use and v not in rev.views:   # those are set (bound) before anything reads them
            inits.append(assign(rev.adj(v), rev.zero(v)))
    seeds = []
    if mode == "vjp":
        # with has_aux only the first output is differentiated and _ct is its cotangent
        outputs = ret_elts[:1] if has_aux else ret_elts
        single = has_aux or not isinstance(ret.value, gast.Tuple)
        for k, e in enumerate(outputs):
            if isinstance(e, gast.Name) and e.id in ctx.active:
                src = "_ct" if single else f"_ct[{k}]"
                seeds.append(gast.AugAssign(target=name(rev.adj(e.id), store=True), op=gast.Add(),
                                            value=parse_expr(src)))
    else:
        e = ret_elts[value_index]
        if isinstance(e, gast.Name) and e.id in ctx.active:
            seeds.append(gast.AugAssign(target=name(rev.adj(e.id), store=True), op=gast.Add(), value=const(1.0)))

    keep = []
    if mode == "value_and_grad" or (has_aux and mode != "vjp"):
        keep.append(assign("_value", copy.deepcopy(ret.value)))
    grads = [name(rev.adj(w)) for w in ctx.wrt]
    grad_value = grads[0] if not ctx.options.get("tuple_argnums") else gast.Tuple(elts=grads, ctx=gast.Load())
    if mode == "vjp":
        result = gast.Tuple(elts=grads, ctx=gast.Load())
    elif mode == "value_and_grad":
        value = parse_expr("_value") if has_aux else parse_expr("_value")
        if has_aux:
            value = parse_expr("(_value[0], _value[1])")
        result = gast.Tuple(elts=[value, grad_value], ctx=gast.Load())
    else:
        result = grad_value if not has_aux else gast.Tuple(elts=[grad_value, parse_expr("_value[1]")],
                                                            ctx=gast.Load())
    body = header + copies + decls + [comment("primal sweep")] + primal + keep + \
        [comment("adjoint sweep")] + inits + seeds + sweep + [gast.Return(value=result)]
    if mode == "vjp":
        tree.args.args.append(name("_ct", store=False))
        tree.args.args[-1].ctx = gast.Param()
    tree.body = body
    tree.name = f"{ctx.source.name}_{mode}"
    # an adjoint has its value's kind: later passes (element_loops) read it
    for var, adjoint in rev.adjoint_names.items():
        if isinstance(ctx.kinds.get(var), Kind):
            ctx.kinds.setdefault(adjoint, ctx.kinds[var])
    return tree
