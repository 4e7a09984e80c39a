"""Contractions: np.einsum (any subscripts: an index repeated in one operand, ellipses, implicit outputs),
np.tensordot (an int or a pair of axes), np.inner, np.kron and np.cross of 3-vectors.

Each is written with other primitives once infer knows the operands' ranks (``lower``; ``lower_calls``
turns the nested expression into statements): an index repeated in one operand takes that diagonal
(``np.diagonal``), an index of one operand only that the output lacks is summed first, then the operands
are contracted pair by pair, left to right: a matrix product (``np.matmul``) of the two transposed and
reshaped to (batch, kept, contracted) and (batch, contracted, kept), or a broadcast product where they
share no contracted index. Every derivative and batching rule is that of the primitives written, so an
einsum's adjoint is again a product of the cotangent with the other operands.
"""
import string

import gast
import numpy as np

from ..base.ast_utils import parse_expr, template_expr
from ..base.kinds import promote
from . import define
from .common import StaticError
from .call_forms import is_int, literal, rewrite

_ELLIPSIS = "..."


# ---- subscripts ---------------------------------------------------------------------------------------
def parse(subscripts, ranks):
    """(input terms, output term, ellipsis letters): terms as lists of letters, an ellipsis written as letters
    of its own (unused by the subscripts), aligned from the right as NumPy broadcasts it; an implicit output
    is the ellipsis and then the letters named once, in alphabetical order."""
    if not isinstance(subscripts, str):
        raise StaticError("np.einsum takes its subscripts as a constant string first",
                          hint="the interleaved form einsum(a, [0, 1], b, [1, 2]) is not supported")
    text = subscripts.replace(" ", "")
    inputs, arrow, output = text.partition("->")
    if "->" in output:
        raise StaticError(f"the subscripts {subscripts!r} have more than one '->'")
    terms = inputs.split(",")
    if len(terms) != len(ranks):
        raise StaticError(f"the subscripts {subscripts!r} name {len(terms)} operands, the call passes {len(ranks)}")
    for term in terms + [output]:
        rest = term.replace(_ELLIPSIS, "", 1)
        if not all(c in string.ascii_letters for c in rest):
            raise StaticError(f"the subscripts {subscripts!r} hold something other than letters, ',', '->' and '...'")
    free = [c for c in string.ascii_letters if c not in text]
    widths = []
    for i, (term, rank) in enumerate(zip(terms, ranks)):
        named = len(term.replace(_ELLIPSIS, ""))
        width = rank - named if _ELLIPSIS in term else 0
        if width < 0 or (_ELLIPSIS not in term and named != rank):
            raise StaticError(f"operand {i} has rank {rank}; its subscripts '{term}' name {named} axes")
        widths.append(width)
    ellipsis = free[:max(widths, default=0)]

    def letters(term, width):
        before, dots, after = term.partition(_ELLIPSIS)
        return list(before) + (ellipsis[len(ellipsis) - width:] if dots else []) + list(after)

    ins = [letters(t, w) for t, w in zip(terms, widths)]
    if arrow:
        if ellipsis and _ELLIPSIS not in output:
            raise StaticError(f"the output of {subscripts!r} needs '...' for the operands' broadcast axes")
        out = letters(output, len(ellipsis))
    else:
        named = "".join(t.replace(_ELLIPSIS, "") for t in terms)
        out = ellipsis + sorted(c for c in set(named) if named.count(c) == 1)
    if len(set(out)) != len(out):
        raise StaticError(f"the output of {subscripts!r} names an index twice")
    for c in out:
        if not any(c in term for term in ins):
            raise StaticError(f"the output of {subscripts!r} names '{c}', which no operand has")
    return ins, out, ellipsis


# ---- the expression: operands as text, their letters and the sizes of their axes -----------------------
class Operand:
    """An array in the making: its expression (text over a0, a1, ...), the letter of each axis, and each
    axis's length as an expression of the operands' shapes."""

    def __init__(self, expr, letters, sizes):
        self.expr, self.letters, self.sizes = expr, list(letters), list(sizes)

    def size(self, c):
        return self.sizes[self.letters.index(c)]

    def diagonals(self):
        """Each letter named twice: that diagonal, as np.diagonal has it (the axis last)."""
        for c in list(self.letters):
            while self.letters.count(c) > 1:
                p = self.letters.index(c)
                q = self.letters.index(c, p + 1)
                size = self.sizes[p]
                self.expr = f"np.diagonal({self.expr}, 0, {p}, {q})"
                keep = [i for i in range(len(self.letters)) if i not in (p, q)]
                self.letters = [self.letters[i] for i in keep] + [c]
                self.sizes = [self.sizes[i] for i in keep] + [size]
        return self

    def sum_out(self, letters):
        axes = [i for i, c in enumerate(self.letters) if c in letters]
        if not axes:
            return self
        if len(axes) == len(self.letters):
            self.expr = f"np.sum({self.expr})"
        else:
            axis = axes[0] if len(axes) == 1 else tuple(axes)
            self.expr = f"np.sum({self.expr}, axis={axis})"
        self.letters = [c for c in self.letters if c not in letters]
        self.sizes = [s for i, s in enumerate(self.sizes) if i not in axes]
        return self

    def ordered(self, letters):
        """Transposed to ``letters`` (a permutation of its own)."""
        perm = tuple(self.letters.index(c) for c in letters)
        if perm != tuple(range(len(perm))):
            self.expr = f"np.transpose({self.expr}, {perm})"
            self.sizes = [self.sizes[i] for i in perm]
            self.letters = list(letters)
        return self

    def grouped(self, lead, groups):
        """Reshaped: the first ``lead`` axes kept, then one axis per group of consecutive axes (the product of
        their lengths: 1 for an empty group). Returns the expression."""
        sizes, at = list(self.sizes[:lead]), lead
        for n in groups:
            part = self.sizes[at:at + n]
            sizes.append(" * ".join(part) if part else "1")
            at += n
        if all(n == 1 for n in groups):
            return self.expr
        return f"np.reshape({self.expr}, {_shape(sizes)})"


def _shape(sizes):
    return "(" + "".join(f"{s}, " for s in sizes) + ")"


def _broadcast(a, b, c, ellipsis):
    """The length of ``c`` in the product of ``a`` and ``b``: either's, or the larger for an ellipsis axis
    (one of them may have length 1 there)."""
    if c not in b.letters:
        return a.size(c)
    if c not in a.letters:
        return b.size(c)
    return f"max({a.size(c)}, {b.size(c)})" if c in ellipsis else a.size(c)


def pair(a, b, keep, ellipsis):
    """The product of ``a`` and ``b`` summed over the letters they share that ``keep`` lacks."""
    a.sum_out([c for c in a.letters if c not in b.letters and c not in keep])
    b.sum_out([c for c in b.letters if c not in a.letters and c not in keep])
    batch = [c for c in a.letters if c in b.letters and c in keep]
    summed = [c for c in a.letters if c in b.letters and c not in keep]
    left = [c for c in a.letters if c not in b.letters]
    right = [c for c in b.letters if c not in a.letters]
    out = batch + left + right
    sizes = [_broadcast(a, b, c, ellipsis) for c in out]
    if not summed:
        # nothing contracted: each operand transposed to the result's order, with length-1 axes where it has none
        terms = []
        for x in (a, b):
            x.ordered([c for c in out if c in x.letters])
            index = ", ".join(":" if c in x.letters else "None" for c in out)
            terms.append(f"{x.expr}[{index}]" if len(x.letters) < len(out) else x.expr)
        return Operand(f"({terms[0]} * {terms[1]})", out, sizes)
    a.ordered(batch + left + summed)
    b.ordered(batch + summed + right)
    product = f"np.matmul({a.grouped(len(batch), (len(left), len(summed)))}, " \
              f"{b.grouped(len(batch), (len(summed), len(right)))})"
    if not out:
        return Operand(f"{product}[0, 0]", out, sizes)
    if len(left) != 1 or len(right) != 1:
        product = f"np.reshape({product}, {_shape(sizes)})"
    return Operand(product, out, sizes)


def contraction(terms, out, ellipsis, ranks):
    """The expression (over a0, a1, ...) of the einsum of operands with letters ``terms`` into ``out``."""
    ops = [Operand(f"a{i}", t, [f"a{i}.shape[{k}]" for k in range(r)]).diagonals()
           for i, (t, r) in enumerate(zip(terms, ranks))]
    for i, x in enumerate(ops):       # an index of this operand alone, not in the output: summed at once
        others = {c for j, y in enumerate(ops) if j != i for c in y.letters}
        x.sum_out([c for c in x.letters if c not in out and c not in others])
    result = ops[0]
    for j in range(1, len(ops)):
        keep = set(out) | {c for y in ops[j + 1:] for c in y.letters}
        result = pair(result, ops[j], keep, ellipsis)
    result.sum_out([c for c in result.letters if c not in out])
    result.ordered(out)
    if len(ops) == 1 and (result.expr == "a0" or result.expr.startswith("np.transpose(a0,")):
        return f"np.copy({result.expr})"      # a new array, not a view of the operand
    return result.expr


def _operand_kind(kinds, what):
    for k in kinds:
        if k is None or getattr(k, "ndim", None) is None:
            raise StaticError(f"the operands of {what} must be numbers or arrays")
    return promote(*kinds)


# ---- np.einsum: written as np.einsum((operands), subscripts) by its builder ------------------------------
def _einsum_kind(k, s):
    ranks = [x.ndim for x in k["operands"]]
    _, out, _ = parse(literal(s["subscripts"], "the subscripts"), ranks)
    return _operand_kind(k["operands"], "np.einsum").with_ndim(len(out))


def _einsum_lower(s, k, ops):
    ranks = [x.ndim for x in k["operands"]]
    terms, out, ellipsis = parse(literal(s["subscripts"], "the subscripts"), ranks)
    text = contraction(terms, out, ellipsis, ranks)
    return template_expr(text, **{f"a{i}": e for i, e in enumerate(ops["operands"].elts)})


define("np.einsum", [np.einsum], "operands, subscripts", _einsum_kind, varargs=True, lower=_einsum_lower)


def _einsum_call(call):
    """``np.einsum(subscripts, *operands)`` as ``np.einsum(operands, subscripts)``: the operands a tuple."""
    for kw in call.keywords:
        if kw.arg != "optimize":
            raise StaticError(f"np.einsum with {kw.arg}= is not supported",
                              hint="np.einsum takes the subscripts and the operands (optimize= is ignored)")
    if len(call.args) < 2:
        raise StaticError("np.einsum needs its subscripts and at least one operand")
    literal(call.args[0], "the subscripts of np.einsum")
    return gast.Call(func=parse_expr("np.einsum"), args=[gast.Tuple(elts=call.args[1:], ctx=gast.Load()),
                                                          call.args[0]], keywords=[])


rewrite([np.einsum], _einsum_call)


# ---- np.tensordot, np.inner, np.kron: einsums once the ranks are known ---------------------------------
def _letters():
    return iter(string.ascii_letters)


def _axes_list(value, rank, what):
    axes = list(value) if isinstance(value, tuple) else [value]
    if not all(is_int(a) and -rank <= a < rank for a in axes):
        raise StaticError(f"{what} {value!r} names an axis an operand of rank {rank} lacks")
    axes = [a % rank for a in axes]
    if len(set(axes)) != len(axes):
        raise StaticError(f"{what} {value!r} names an axis twice")
    return axes


def _tensordot_terms(k, s):
    ra, rb = k["a"].ndim, k["b"].ndim
    axes = literal(s["axes"], "axes")
    if is_int(axes):
        if not 0 <= axes <= min(ra, rb):
            raise StaticError(f"axes={axes} contracts more axes than the operands have (ranks {ra} and {rb})")
        ia, ib = list(range(ra - axes, ra)), list(range(axes))
    elif isinstance(axes, tuple) and len(axes) == 2:
        ia, ib = _axes_list(axes[0], ra, "axes"), _axes_list(axes[1], rb, "axes")
        if len(ia) != len(ib):
            raise StaticError(f"axes={axes!r} pairs {len(ia)} axes of a with {len(ib)} of b")
    else:
        raise StaticError(f"axes must be an int or a pair of axes or of tuples of axes, not {axes!r}")
    letters = _letters()
    ta = [next(letters) for _ in range(ra)]
    tb = [ta[ia[ib.index(q)]] if q in ib else next(letters) for q in range(rb)]
    out = [c for i, c in enumerate(ta) if i not in ia] + [c for i, c in enumerate(tb) if i not in ib]
    return [ta, tb], out


def _inner_terms(k, s):
    ra, rb = k["a"].ndim, k["b"].ndim
    letters = _letters()
    ta = [next(letters) for _ in range(ra)]
    tb = [next(letters) for _ in range(rb - 1)] + ta[-1:]
    return [ta, tb], ta[:-1] + tb[:-1]


def _kron_terms(k, s):
    """Letters of a and b aligned to the right, the output interleaving each axis of a with b's."""
    ra, rb = k["a"].ndim, k["b"].ndim
    rank = max(ra, rb)
    letters = _letters()
    ta = [next(letters) for _ in range(ra)]
    tb = [next(letters) for _ in range(rb)]
    out = []
    for d in range(rank):
        out += ta[d - (rank - ra):d - (rank - ra) + 1] if d >= rank - ra else []
        out += tb[d - (rank - rb):d - (rank - rb) + 1] if d >= rank - rb else []
    return [ta, tb], out


def _ranks(k):
    return [k["a"].ndim, k["b"].ndim]


def _tensordot(k, s):
    """(the expression over a0 and a1, the result's rank)."""
    terms, out = _tensordot_terms(k, s)
    return contraction(terms, out, [], _ranks(k)), len(out)


def _inner(k, s):
    if min(_ranks(k)) == 0:
        return "a0 * a1", max(_ranks(k))
    terms, out = _inner_terms(k, s)
    return contraction(terms, out, [], _ranks(k)), len(out)


def _kron(k, s):
    """The product of every pair of elements, each axis of a interleaved with b's, then merged pairwise."""
    terms, out = _kron_terms(k, s)
    text = contraction(terms, out, [], _ranks(k))
    ra, rb = _ranks(k)
    rank = max(ra, rb)
    if min(ra, rb) > 0:
        sizes = [" * ".join(([f"a0.shape[{d - (rank - ra)}]"] if d >= rank - ra else []) +
                            ([f"a1.shape[{d - (rank - rb)}]"] if d >= rank - rb else [])) for d in range(rank)]
        text = f"np.reshape({text}, {_shape(sizes)})"
    return text, rank


def _product(key, written, signature):
    def kind(k, s):
        _operand_kind([k["a"], k["b"]], key)
        return promote(k["a"], k["b"]).with_ndim(written(k, s)[1])

    def lower(s, k, ops):
        return template_expr(written(k, s)[0], a0=ops["a"], a1=ops["b"])
    define(key, [getattr(np, key[3:])], signature, kind, lower=lower)


_product("np.tensordot", _tensordot, "a, b, axes=2")
_product("np.inner", _inner, "a, b")
_product("np.kron", _kron, "a, b")


# ---- np.cross of 3-vectors along the last axis: the three 2x2 determinants ------------------------------
def _cross_kind(k, s):
    a, b = k["a"], k["b"]
    _operand_kind([a, b], "np.cross")
    if a.ndim == 0 or b.ndim == 0:
        raise StaticError("np.cross takes vectors (along the last axis), not numbers")
    return promote(a, b).with_ndim(max(a.ndim, b.ndim))


def _cross_lower(s, k, ops):
    def part(x, rank, i):
        return f"{x}[{':, ' * (rank - 1)}{i}]"
    a = [part("a", k["a"].ndim, i) for i in range(3)]
    b = [part("b", k["b"].ndim, i) for i in range(3)]
    parts = [f"{a[1]} * {b[2]} - {a[2]} * {b[1]}", f"{a[2]} * {b[0]} - {a[0]} * {b[2]}",
             f"{a[0]} * {b[1]} - {a[1]} * {b[0]}"]
    if max(k["a"].ndim, k["b"].ndim) == 1:
        text = f"np.array([{', '.join(parts)}])"
    else:
        text = f"np.stack(({', '.join(parts)}), axis=-1)"
    return template_expr(text, a=ops["a"], b=ops["b"])


define("np.cross", [np.cross], "a, b", _cross_kind, lower=_cross_lower)

