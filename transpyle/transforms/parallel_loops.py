"""parallel_loops: element loop nests over many elements run on every core.

After ``element_loops`` (and ``loop_fusion``) an elementwise statement is a nest of loops over the
elements of its destination, and each element's statements read and write only that element of any
buffer the nest writes. The outer loop's iterations are then independent, and a nest over enough
elements runs its outer loop as a ``numba.prange`` loop, in a function of the module of its own:

    def softmax_grad_parallel1(e, x, m):
        for _e0 in numba.prange(x.shape[0]):
            for _e1 in range(x.shape[1]):
                e[_e0, _e1] = rt.exp(x[_e0, _e1] - m[_e0, 0])

    if rt.parallel_pays(x.shape[0] * x.shape[1], 16384):
        _this_module.softmax_grad_parallel1(e, x, m)
    else:
        for _e0 in range(x.shape[0]):
            ...

Only that function is compiled with Numba's parallel loops: Numba's parallel pipeline analyses the
shapes of every array expression of the function it compiles, and refuses broadcasts it cannot follow
(``x - m`` with ``m`` of shape (n, 1)); the function around the call is compiled as before.

Starting the threads costs about 2 us, more than a loop over a few thousand elements takes, so the
count is tested when the nest runs (``rt.parallel_pays``: at least ``fewest()`` elements, 16384 unless
``TRANSPYLE_PARALLEL_ELEMENTS`` says otherwise, written into the code) and the plain nest serves small
arrays. Both copies are compiled: a nest costs about 0.25 s more to compile.

Most element loops read and write memory faster than one core's share of it pays for threads: a nest
gets a parallel copy only where the work of one element (``work_per_element``: operations, and calls of
elementary functions counted as ``_CALL_WORK`` operations) is at least ``PARALLEL_WORK``: exp, tanh, log
or a long fused expression per element, not a stencil's few additions.

A nest is run in parallel only where that is provably the same computation (checked here again on the
nest itself, not taken from the passes that made it):
- its statements are assignments and element loops, calling only functions of numbers;
- every array it writes (``A[index] = ...`` or ``op=``) is indexed there by the outer loop's index, and
  the nest mentions that array only at that same index (or its ``.shape``): no two iterations touch
  one element (a sum along the outer axis, ``bm[0, _e1] += ...``, stays serial);
- every plain name it assigns is set before it is read in each iteration and is not mentioned outside
  the nest (a running sum over the elements stays serial).

A function that calls BLAS (a product, a factorization) keeps its element loops serial: BLAS runs on
every core already, and Numba's threads, which keep their cores busy a while after a parallel loop to
start the next one sooner, took the cores BLAS's threads waited for (a 200x200 matrix product's
gradient ran 35x slower with both).

Only the function the user calls gets parallel loops (grad, value_and_grad, vjp, jvp and jit, run
after ``outline_loops``): code that another transform calls inside its own parallel loop (a vmap or
Jacobian driver, a pmap shard) never starts threads of its own. ``TRANSPYLE_PARALLEL_LOOPS=0`` keeps
every nest serial. BLAS keeps its own threads (``backends/blas_threads`` limits BLAS only where a
driver's parallel loop calls it).
"""
import copy
import os
from collections import Counter

import gast

from ..base.ast_utils import is_comment, name, to_source
from ..base.naming import BLAS_CALL, ELEMENT_INDEX_NAME, PARALLEL_LOOPS
from ..base.settings import switched_off
from .element_forms import loaded_index
from .outline_loops import Outliner

#: the functions a parallel nest may call: functions of numbers, with no effect besides their value
_PURE_MODULES = ("math", "np", "rt")
_PURE_BUILTINS = {"abs", "min", "max", "float", "int", "bool", "range"}


#: the fewest elements a nest runs over for its parallel copy to pay for starting threads (about 2 us
#: here, where a loop over 16384 elements takes 5-20 us)
PARALLEL_ELEMENTS = 1 << 14


#: the work per element (``work_per_element``) of a nest given a parallel copy: a body of a few additions
#: and products reads and writes memory faster than one core's share of it is worth starting threads
#: for (a 2-D stencil's gradient ran 1.4x slower in parallel on 2 cores), one exp or tanh per element is
#: (the gradient of a sum of tanh and exp terms over 1000x1000 ran 1.4x faster)
PARALLEL_WORK = 16
#: the work of one call of a function of numbers other than those below (exp, log, tanh, sin, ...)
_CALL_WORK = 16
_CHEAP_CALLS = {"abs", "min", "max", "float", "int", "bool", "fabs", "sqrt", "copysign", "floor", "ceil", "trunc",
                "select", "clip", "astype", "logical_not", "logical_and", "logical_or", "logical_xor"}


def work_per_element(nest):
    """The work of one element of ``nest``, in arithmetic operations: each operation 1, each call of an
    elementary function ``_CALL_WORK`` (a square root, a min or a conversion 1), a power with a number
    exponent that is not a small integer ``_CALL_WORK``."""
    work = 0
    for node in gast.walk(nest):
        if isinstance(node, (gast.BinOp, gast.UnaryOp, gast.Compare, gast.BoolOp)):
            work += _CALL_WORK if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Pow) and \
                not _small_integer(node.right) else 1
        elif isinstance(node, gast.Call):
            func = node.func
            called = func.attr if isinstance(func, gast.Attribute) else getattr(func, "id", "")
            if called != "range":         # a loop's header, not an element's work
                work += 1 if called in _CHEAP_CALLS else _CALL_WORK
    return work


def _small_integer(node):
    return isinstance(node, gast.Constant) and isinstance(node.value, (int, float)) and \
        float(node.value).is_integer() and abs(node.value) <= 4


def enabled():
    """``TRANSPYLE_PARALLEL_LOOPS=0`` keeps every element loop serial."""
    return not switched_off("TRANSPYLE_PARALLEL_LOOPS")


def fewest():
    """The fewest elements a parallel nest runs on several threads: ``TRANSPYLE_PARALLEL_ELEMENTS``, else
    ``PARALLEL_ELEMENTS`` (tests set 1, so that small arrays take the parallel copies)."""
    text = os.environ.get("TRANSPYLE_PARALLEL_ELEMENTS", "").strip()
    return int(text) if text.isdigit() else PARALLEL_ELEMENTS


def run(tree, ctx, job):
    """Give the element loop nests of ``tree`` a parallel copy for large arrays (module docstring)."""
    if enabled() and job.lanes == "loops" and job.mode in ("primal", "grad", "value_and_grad", "vjp", "jvp") \
            and not BLAS_CALL.search(to_source(tree)):
        mentions = Counter(n.id for n in gast.walk(tree) if isinstance(n, gast.Name))
        _block(tree.body, mentions, Outliner(tree, ctx, PARALLEL_LOOPS))
    return tree


def _block(stmts, mentions, outliner):
    for k, s in enumerate(stmts):
        if _is_element_loop(s):
            count = _element_count(s)
            if count is not None and work_per_element(s) >= PARALLEL_WORK and _independent_iterations(s, mentions):
                stmts[k] = _guarded(s, count, outliner)
        elif isinstance(s, gast.For) and _is_prange(s.iter):
            continue                   # already on every core: a nest inside stays serial
        elif isinstance(s, (gast.For, gast.While, gast.If)):
            _block(s.body, mentions, outliner)
            _block(s.orelse, mentions, outliner)


def _is_element_loop(s):
    return isinstance(s, gast.For) and isinstance(s.target, gast.Name) and not s.orelse and \
        ELEMENT_INDEX_NAME.fullmatch(s.target.id) is not None and _range_stop(s.iter) is not None


def _range_stop(it):
    """``n`` of ``range(n)``, else None."""
    if isinstance(it, gast.Call) and isinstance(it.func, gast.Name) and it.func.id == "range" and \
            len(it.args) == 1 and not it.keywords:
        return it.args[0]
    return None


def _is_prange(it):
    return isinstance(it, gast.Call) and isinstance(it.func, gast.Attribute) and it.func.attr == "prange"


def _element_count(nest):
    """The product of the loop lengths down ``nest``, through the first element loop of each body where a
    body holds several (the nests row fusion made): a lower bound of the work."""
    count, s = None, nest
    while _is_element_loop(s):
        stop = _range_stop(s.iter)
        count = stop if count is None else gast.BinOp(left=count, op=gast.Mult(), right=stop)
        s = next((b for b in s.body if _is_element_loop(b)), None)
    return count


def _guarded(nest, count, outliner):
    """``if rt.parallel_pays(count, fewest):`` a call of the nest's parallel copy, ``else:`` the nest itself."""
    parallel = copy.deepcopy(nest)
    parallel.iter = gast.Call(func=gast.Attribute(value=name("numba"), attr="prange", ctx=gast.Load()),
                              args=parallel.iter.args, keywords=[])
    call = outliner.outline(parallel)
    test = gast.Call(func=gast.Attribute(value=name("rt"), attr="parallel_pays", ctx=gast.Load()),
                     args=[copy.deepcopy(count), gast.Constant(value=fewest(), kind=None)], keywords=[])
    return gast.copy_location(gast.If(test=test, body=[call], orelse=[nest]), nest)


# ---- the proof that the outer loop's iterations are independent -------------------------------------
def _independent_iterations(nest, mentions):
    outer = nest.target.id
    inside = Counter(n.id for n in gast.walk(nest) if isinstance(n, gast.Name))
    indices = {n.target.id for n in gast.walk(nest) if isinstance(n, gast.For)}
    written, stored = {}, set()
    for node in gast.walk(nest):
        if isinstance(node, (gast.While, gast.If, gast.Break, gast.Continue, gast.Return, gast.Raise, gast.With,
                             gast.Try, gast.Yield, gast.Lambda, gast.FunctionDef)):
            return False
        if isinstance(node, gast.Call) and not _pure(node.func):
            return False
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store) and node.id not in indices:
            stored.add(node.id)
    for s in _statements(nest):
        targets = s.targets if isinstance(s, gast.Assign) else [s.target]
        for t in targets:
            if isinstance(t, gast.Subscript):
                if not isinstance(t.value, gast.Name):
                    return False
                index = gast.dump(loaded_index(t.slice))
                if written.setdefault(t.value.id, index) != index or not _indexes_by(t.slice, outer):
                    return False
            elif not isinstance(t, gast.Name):
                return False
    if any(mentions[v] > inside[v] for v in stored):
        return False                   # a value the function reads after the nest, or a running total
    return _arrays_touched_at(nest, written) and _set_before_read(nest.body, stored, set())


def _pure(func):
    if isinstance(func, gast.Name):
        return func.id in _PURE_BUILTINS
    return isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and \
        func.value.id in _PURE_MODULES and not func.attr.startswith(("tape", "push", "reserve"))


def _statements(nest):
    """The assignments inside ``nest`` (its loops' bodies, in order)."""
    out = []
    for s in nest.body:
        if isinstance(s, gast.For):
            out.extend(_statements(s))
        elif isinstance(s, (gast.Assign, gast.AugAssign)):
            out.append(s)
    return out


def _indexes_by(index, outer):
    parts = index.elts if isinstance(index, gast.Tuple) else [index]
    return any(isinstance(p, gast.Name) and p.id == outer for p in parts)


def _arrays_touched_at(nest, written):
    """Whether every mention of a written array in ``nest`` is at its written index or its ``.shape``."""
    seen = set()
    for node in gast.walk(nest):
        if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) and node.value.id in written:
            if gast.dump(loaded_index(node.slice)) != written[node.value.id]:
                return False
            seen.add(id(node.value))
        elif isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name) and node.attr == "shape":
            seen.add(id(node.value))
    return all(id(n) in seen for n in gast.walk(nest) if isinstance(n, gast.Name) and n.id in written)


def _set_before_read(body, stored, defined):
    """Whether each name of ``stored`` is assigned in ``body`` before any read of it (in order)."""
    for s in body:
        if is_comment(s):
            continue
        if isinstance(s, gast.For):
            if _reads(s.iter) & (stored - defined) or not _set_before_read(s.body, stored, defined):
                return False
            continue
        targets = s.targets if isinstance(s, gast.Assign) else [s.target]
        value_reads = _reads(s.value)
        for t in targets:
            # an update reads its target; an element written reads the names of its index
            value_reads |= {t.id} if isinstance(t, gast.Name) and isinstance(s, gast.AugAssign) else _reads(t)
        if value_reads & (stored - defined):
            return False
        defined |= {t.id for t in targets if isinstance(t, gast.Name)}
    return True


def _reads(node):
    return {n.id for n in gast.walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}
