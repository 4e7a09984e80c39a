"""outline_loops: the element loops of a function too long to optimize whole become functions of their
own, so that they are optimized while the long function is not.

LLVM's passes grow faster than a function's length: a gradient of several hundred statements took
minutes at -O2, so such a function is compiled without optimization (``backends/compile_time``), and
element loops inside an unoptimized function run many times slower than NumPy's array expressions
(each element read is a call). So where ``element_loops`` lowered a function that was longer than
``LONG_FUNCTION_STATEMENTS`` before lowering (a fluid solver's gradient), each element loop nest goes
into a function of the module, ``<function>_loops<k>``, called where the nest was:

    def cavity_flow_grad_loops3(b_t7, un, _t12):
        for _e0 in range(b_t7.shape[0]):
            ...

    _this_module.cavity_flow_grad_loops3(b_t7, un, _t12)

The helpers are compiled at the usual level, the long function unoptimized (``optnone``); each helper is
small, so the whole compiles in about the time the long function took alone, and runs at the speed of
optimized element loops. Nests that differ only in the names they read share one helper (a gradient
recomputes the primal's statements in its sweep). A nest that updates a number the function reads
elsewhere (a sum ``s += ...``) takes it and gives it back (``s = _this_module.f_loops4(s, x)``). The
calls go through the module (``pipeline/module`` names it): Numba caches code at -O0 that calls a
function of a module, not code that calls a global function.
"""
import copy
from collections import Counter

import gast

from ..base.ast_utils import assign, is_comment, name, to_source
from ..base.code_size import LONG_FUNCTION_STATEMENTS, statements
from ..base.naming import ELEMENT_INDEX_NAME, OUTLINED_LOOPS, OUTLINED_MODULE

_MODULES = {"np", "rt", "math", "numba", "range", "len", "min", "max", "abs", "float", "int", "bool"}


def run(tree, ctx, job):
    """Outline the element loops of ``tree`` where its form before element loops was long."""
    if ctx.array_form is None or statements(to_source(ctx.array_form)) <= LONG_FUNCTION_STATEMENTS:
        return tree
    Outliner(tree, ctx).block(tree.body)
    return tree


class Outliner:
    """Makes functions of loop nests; ``suffix`` names them (``<function><suffix><k>``)."""

    def __init__(self, fn, ctx, suffix=OUTLINED_LOOPS):
        self.fn, self.ctx, self.suffix = fn, ctx, suffix
        self.shared = {}            # canonical text of a nest -> its helper's name
        self.count = 0
        # how often the function mentions each name (a nest's names mentioned more often than in the
        # nest are mentioned elsewhere; counted once, before calls replace nests)
        self.mentions = Counter(n.id for n in gast.walk(fn) if isinstance(n, gast.Name))

    def block(self, stmts):
        for k, s in enumerate(stmts):
            if _is_nest(s):
                stmts[k] = self.outline(s) or s
            elif isinstance(s, (gast.For, gast.While, gast.If)):
                self.block(s.body)
                self.block(s.orelse)

    def outline(self, nest):
        """The call that replaces ``nest``, with its helper added to the module; None where it stays."""
        inside = Counter(n.id for n in gast.walk(nest) if isinstance(n, gast.Name))
        outside = {v for v, k in inside.items() if self.mentions[v] > k}
        stored = {n.id for n in gast.walk(nest) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        targets = {n.target.id for n in gast.walk(nest) if isinstance(n, gast.For)}
        # numbers the nest updates that the function reads elsewhere: passed in and returned
        results = sorted((stored - targets) & outside)
        if any(not _is_number(self.ctx.kinds.get(r)) for r in results):
            return None
        reads = [n.id for n in gast.walk(nest) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)]
        params = list(dict.fromkeys(r for r in results + reads if r not in _MODULES and r not in targets and
                                    (r not in stored or r in results)))
        body = [copy.deepcopy(nest)]
        if results:
            body.append(gast.Return(value=name(results[0]) if len(results) == 1 else
                                    gast.Tuple(elts=[name(r) for r in results], ctx=gast.Load())))
        key = _canonical(body, params)
        helper = self.shared.get(key)
        if helper is None:
            self.count += 1
            helper = f"{self.fn.name}{self.suffix}{self.count}"
            self.shared[key] = helper
            args = gast.arguments(args=[name(p, store=False) for p in params], posonlyargs=[], vararg=None,
                                  kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
            for a in args.args:
                a.ctx = gast.Param()
            self.ctx.helpers.append(gast.FunctionDef(name=helper, args=args, body=body, decorator_list=[],
                                                     returns=None, type_comment=None, type_params=[]))
        call = gast.Call(func=gast.Attribute(value=name(OUTLINED_MODULE), attr=helper, ctx=gast.Load()),
                         args=[name(p) for p in params], keywords=[])
        if not results:
            return gast.Expr(value=call)
        target = name(results[0], store=True) if len(results) == 1 else \
            gast.Tuple(elts=[name(r, store=True) for r in results], ctx=gast.Store())
        return assign(target, call)


def _is_nest(s):
    return isinstance(s, gast.For) and isinstance(s.target, gast.Name) and \
        ELEMENT_INDEX_NAME.fullmatch(s.target.id) is not None


def _is_number(kind):
    return kind is not None and getattr(kind, "ndim", None) == 0


def _canonical(body, params):
    """The text of a helper's body with its parameters named by position and without comments: nests
    that read different arrays in the same way share it."""
    renamed = {p: f"_p{i}" for i, p in enumerate(params)}
    copied = [copy.deepcopy(s) for s in body]
    for s in copied:
        for n in gast.walk(s):
            if isinstance(n, gast.Name) and n.id in renamed:
                n.id = renamed[n.id]
            for field in ("body", "orelse"):
                if isinstance(getattr(n, field, None), list):
                    setattr(n, field, [c for c in getattr(n, field) if not is_comment(c)])
    return "\n".join(to_source(s) for s in copied)
