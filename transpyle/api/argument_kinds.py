"""The argument kinds ``transpyle show`` and ``compile`` use when none are given.

In this order: type annotations (``frontend/annotations``); otherwise how the body uses each
argument (``frontend/argument_uses``): indexing depth, ``.shape``, ``.copy()``, ``range(n)``,
arithmetic with arrays, what it passes to helpers. Every choice the uses leave open is tried by
running the frontend on it; exactly one must fit. Where several fit, or an argument is used both as
a number and as an array, the error names the argument and the choices, and says how to give the
kinds (``--kinds``, annotations, or an example call with ``--example``). Also: the kinds of an
example call, and kinds spelled as ``--kinds`` takes them.
"""
import itertools
import os

import gast

from .. import tree as pytree
from ..base.ast_utils import dotted
from ..base.errors import TranspileError
from ..base.kinds import Kind, kind_of_value
from ..frontend.annotations import declared_kinds
from ..frontend.argument_uses import Conflict, Uses
from ..frontend.source import FunctionSource, read_function

_SHORT = {"float64": "f8", "float32": "f4", "int64": "i8", "bool": "b1", "complex128": "c16", "complex64": "c8"}

#: more combinations of open choices than this is ambiguous without trying them
_MOST_TRIED = 16


def spelled(kind):
    """A kind as ``--kinds`` takes it: ``f8[:, :]``; a dict of kinds as a literal of those."""
    if isinstance(kind, dict):
        return "{" + ", ".join(f"{k!r}: {spelled(v)!r}" for k, v in kind.items()) + "}"
    if isinstance(kind, (tuple, list)) and not isinstance(kind, Kind):
        inner = ", ".join(repr(spelled(v)) for v in kind)
        return f"({inner},)" if isinstance(kind, tuple) and len(kind) == 1 else \
            (f"({inner})" if isinstance(kind, tuple) else f"[{inner}]")
    if isinstance(kind, str):
        return kind
    dims = ", ".join(":" * kind.ndim)
    return _SHORT.get(kind.dtype, kind.dtype) + (f"[{dims}]" if kind.ndim else "")


def kind_strings(kinds):
    """Kinds as the strings ``kinds=`` takes (a dict argument: a dict of strings)."""
    return [pytree.map(spelled, k) if isinstance(k, (dict, list, tuple)) and not isinstance(k, Kind) else spelled(k)
            for k in kinds]


def spelled_kinds(kinds):
    """The ``--kinds`` text for a whole argument list."""
    return ",".join(spelled(k) for k in kinds)


def example_kinds(args):
    """The kinds of an example call's arguments (pytrees: the same structure of kinds)."""
    out = []
    for i, a in enumerate(args):
        try:
            out.append(pytree.map(kind_of_value, a))
        except TypeError as exc:
            raise TranspileError(f"example argument {i}: {exc}",
                                 hint="give arrays, numbers, or dicts, lists and tuples of them") from None
    return tuple(out)


def resolved_kinds(fun, generate, notes=None):
    """The kinds of ``fun``'s arguments: from annotations, else from its uses, each choice tried with
    ``generate`` (``show.generate``: the frontend and the primal). Where several fit, the one with the
    fewest axes in all, if one has fewest (``q = a @ p; s = r @ a`` reads a matrix and two vectors, not
    two matrices and a vector), with a line saying so appended to ``notes``; else the error names the
    choices. A dict argument read as ``params['W']`` gets a dict of kinds."""
    fun = _user_function(fun)
    unit = fun if isinstance(fun, FunctionSource) else read_function(fun)
    params = [a.id for a in unit.tree.args.args]
    declared = declared_kinds(unit.func, params)
    fixed = {p: d.ndim for p, d in declared.items() if d.ndim is not None}
    uses = _uses(unit, fixed)
    open_ones = [p for p in params if p not in fixed and uses.evidence[p].open]
    choices = [(uses.evidence[p].lower, uses.evidence[p].lower + 1) for p in open_ones]
    combos = list(itertools.product(*choices))
    if len(combos) > _MOST_TRIED:
        raise _ambiguous(unit, {p: [_kind(uses, declared, p, r) for r in c] for p, c in zip(open_ones, choices)},
                         _kinds(uses, declared, params))
    tried = []
    for combo in combos:
        ranks = {**fixed, **dict(zip(open_ones, combo))}
        kinds = _kinds(_uses(unit, ranks) if combo else uses, declared, params)
        if any(kinds == k for k, _ in tried):
            continue
        tried.append((kinds, _misfit(fun, kinds, generate)))
    fitting = [k for k, err in tried if err is None]
    if len(fitting) == 1:
        return fitting[0]
    if not fitting:
        kinds, err = tried[0]
        raise TranspileError(err.message, filename=err.filename, lineno=err.lineno, construct=err.construct,
                             hint=(err.hint + "\n  " if err.hint else "") +
                             f"(argument kinds read from the source: {_listing(params, kinds)}; if they are "
                             f"not what you meant, give them: --kinds '{spelled_kinds(kinds)}')",
                             stage=err.stage)
    differ = {p: list({spelled(k[i]): k[i] for k in fitting}.values()) for i, p in enumerate(params)
              if len({spelled(k[i]) for k in fitting}) > 1}
    products = _products(unit.tree, params)
    scores = [_reading_score(k, params, products) for k in fitting]
    best = [k for k, score in zip(fitting, scores) if score == max(scores)]
    if len(best) == 1:
        if notes is not None:
            others = [spelled_kinds(k) for k in fitting if k is not best[0]]
            notes.append(f"the kinds are read from the source, which fits several; taken: {_listing(params, best[0])} "
                         f"(a matrix in each product, then the fewest axes); give others with kinds='{others[0]}' "
                         f"(--kinds on the command line)")
        return best[0]
    raise _ambiguous(unit, differ, fitting[0])


def _products(tree, params):
    """The operand pairs of the matrix products (``a @ b``, ``np.dot(a, b)``) of arguments in ``tree``."""
    out = []
    for n in gast.walk(tree):
        pair = (n.left, n.right) if isinstance(n, gast.BinOp) and isinstance(n.op, gast.MatMult) else \
            tuple(n.args) if isinstance(n, gast.Call) and dotted(n.func) in ("np.dot", "numpy.dot") and \
            len(n.args) == 2 else None
        if pair:
            out.append(tuple(p.id if isinstance(p, gast.Name) and p.id in params else None for p in pair))
    return out


def _reading_score(kinds, params, products):
    """How common a reading of the arguments is, for choosing among several that fit: products with a
    matrix operand (``A @ x`` is a matrix times a vector more often than a dot of vectors), then fewer
    axes in all, then matrices named in capitals (``W``, ``A``)."""
    rank = {p: getattr(k, "ndim", 0) for p, k in zip(params, kinds)}
    with_matrix = sum(any(rank.get(p) == 2 for p in pair if p) for pair in products)
    axes = sum(getattr(leaf, "ndim", 0) or 0 for k in kinds for leaf in pytree.leaves(k))
    capitals = sum(1 for p in params if p[:1].isupper() and rank.get(p) == 2)
    return with_matrix, -axes, capitals


def _user_function(fun):
    """The user's function behind transforms of it whose arguments are its own (grad(f), jacrev(f))."""
    while hasattr(fun, "generated_function") and getattr(fun, "mode", None) not in ("jvp", "vjp", None) and \
            hasattr(fun, "fun"):
        fun = fun.fun
    return fun


def _uses(unit, fixed):
    try:
        return Uses(unit, fixed)
    except Conflict as c:
        ev = c.evidence
        raise TranspileError(
            f"'{c.argument}' is used as a number ({ev.upper_why}) and as an array of rank {ev.hard} "
            f"({ev.lower_why}), so its kind cannot be read from the source",
            filename=unit.filename, lineno=unit.tree.lineno, construct=f"def {unit.name}",
            hint="give the kinds: --kinds '...' (transpyle.show(f, kinds=...)), annotate the argument "
                 "(x: float, x: NDArray[np.float64]), or give an example call with --example") from None


def _kind(uses, declared, p, rank=None):
    ev = uses.evidence[p]
    rank = uses.fixed.get(p, ev.lower) if rank is None else rank
    d = declared.get(p)
    if d is not None and d.kind is not None:
        return d.kind
    if d is not None and d.dtype is not None:
        return Kind(d.dtype, rank if d.ndim is None else d.ndim)
    if rank == 1 and ev.key:
        return Kind("int64", 1)
    if rank == 0 and ev.integer:
        return Kind("int64")
    if rank == 0 and ev.boolean and not ev.arithmetic:
        return Kind("bool")
    return Kind("float64", rank)


def _kinds(uses, declared, params):
    out = []
    for p in params:
        keys = {name[len(p) + 2:-2]: name for name in uses.evidence if name.startswith(p + "[")}
        if keys and p not in declared:
            ev = uses.evidence[p]
            if ev.hard or ev.arithmetic:
                raise TranspileError(f"'{p}' is read both as a dict ({p}[{next(iter(keys))!r}]) and as an "
                                     f"array or number ({ev.lower_why or ev.arithmetic})",
                                     filename=uses.unit.filename, lineno=uses.unit.tree.lineno,
                                     construct=f"def {uses.unit.name}",
                                     hint="give its kinds as a literal: --kinds \"{'W': 'f8[:, :]', ...}\"")
            out.append({k: _kind(uses, {}, name) for k, name in sorted(keys.items())})
        else:
            out.append(_kind(uses, declared, p))
    return tuple(out)


def _misfit(fun, kinds, generate):
    """None when the frontend takes ``fun`` with these kinds, else its error."""
    # a try, not what `show --after` or TRANSPYLE_TIMINGS report
    saved = {name: os.environ.pop(name) for name in ("TRANSPYLE_DUMP", "TRANSPYLE_TIMINGS") if name in os.environ}
    try:
        _, tree, ctx = generate(fun, mode="primal", kinds=kinds)
    except TranspileError as exc:
        return exc
    finally:
        os.environ.update(saved)
    return _numbers_needed(tree, ctx)


def _numbers_needed(tree, ctx):
    """The error for an array where only a number works (a ``math`` function's argument, an ``if`` or
    ``while`` test): the frontend leaves these to the compiler, a choice of kinds must not."""
    def rank(node):
        kind = ctx.kinds.get(node.id) if isinstance(node, gast.Name) else None
        return getattr(kind, "ndim", 0)
    for node in gast.walk(tree):
        if isinstance(node, gast.Call) and (dotted(node.func) or "").startswith("math.") and \
                any(rank(a) for a in node.args):
            return ctx.error(node, f"{dotted(node.func)} of an array", hint="math functions take numbers")
        if isinstance(node, (gast.If, gast.While)) and rank(node.test):
            return ctx.error(node, "an array as a condition", hint="a condition is a number")
    return None


def _listing(params, kinds):
    return ", ".join(f"{p}: {spelled(k)}" for p, k in zip(params, kinds))


def _ambiguous(unit, differ, example):
    first = next(iter(differ))
    choices = " or ".join(spelled(k) for k in differ[first])
    others = "; ".join(f"'{p}': " + " or ".join(spelled(k) for k in ks) for p, ks in differ.items() if p != first)
    return TranspileError(
        f"the kind of '{first}' cannot be read from the source: {choices} both fit its uses"
        + (f" (so do several kinds of {others})" if others else ""),
        filename=unit.filename, lineno=unit.tree.lineno, construct=f"def {unit.name}",
        hint=f"give the kinds (one choice that fits: --kinds '{spelled_kinds(example)}'; from Python, "
             f"transpyle.show(f, kinds=...)), annotate "
             f"the arguments ({first}: NDArray[np.float64]), or give an example call: --example 'np.ones((3, 2)), ...'")
