"""library_calls: the calls ``resolve`` finds in a library or in the user's modules, and array methods.

A call of a function found by name (``np.sin``, ``np.median``, a helper of the user's, a transformed function,
a custom rule) is written in its canonical form: NumPy's function written in NumPy (``transpyle.twins``) is
checked against NumPy's parameters and called in its place; writers, composites and rewrites are spelled out;
multi-output functions become the tuple of their parts; a primitive gets its canonical spelling; the user's
helpers are read and registered for the inliner. A method call ``x.sum(axis=0)`` is its function form.
"""
import gast
import numba
import numpy as np

from .. import rules
from ..base.ast_utils import dotted, name, parse_expr, set_location
from ..rules.common import StaticError
from ..rules.matrices import composite, multi_output
from ..rules.primitives import call_object
from ..rules.rewrites import call_rewrite
from ..rules.writes import writer_of
from ..twins import is_twin
from . import twin_calls, wrapped_callables
from .custom import CustomRule
from .functional_updates import at_update
from .remat import Recomputed
from .source import FunctionSource, is_user_function, read_function
from .spellings import library_name, method_call, multi_output_call, spelling_of


def _lists_as_arrays(node, prim):
    """A list written as the data operand of an elementwise function or a reduction (``np.mean([a, b])``) is
    the array NumPy makes of it: ``np.array`` of the list."""
    if prim is None or not (prim.broadcasts or isinstance(prim.batch, rules.AlongAxis)):
        return
    node.args = [gast.Call(func=parse_expr("np.array"), args=[a], keywords=[])
                 if isinstance(a, gast.List) and i < len(prim.params) and prim.params[i] in prim.diff else a
                 for i, a in enumerate(node.args)]


class LibraryCalls:
    """The part of the resolver that writes calls of library functions, helpers and methods."""

    def _library_call(self, node, func):
        """``node`` (a call of ``func``, a name or a dotted chain found in the namespace) in canonical form."""
        found, obj = self._lookup(func)
        if not found:
            raise self.ctx.error(node, "this call cannot be resolved", hint="call a function by its name")
        written = wrapped_callables.transpyle_twin(obj)
        if is_twin(written):             # NumPy's function written in NumPy (transpyle.twins)
            twin_calls.check(self.ctx, node, library_name(obj), written)
        obj = written
        if obj in (range, enumerate, zip):
            return node
        stacked = self._stacked_map(node, obj)
        if stacked is not None:
            return stacked
        if obj is numba.prange:          # a parallel loop is a loop to every transform
            node.func = name("range")
            return node
        if obj is print:
            return node
        writer = writer_of(obj)
        if writer is not None:           # a write into an argument: spelled out by normalize
            node.func = parse_expr(writer.spelling)
            return node
        builder = composite(obj) or call_rewrite(obj)
        if builder is not None:
            try:
                written = builder(node)
            except StaticError as exc:
                raise self.ctx.error(node, str(exc), hint=exc.hint or "see docs/subset.md") from None
            if written is not None:      # already in canonical spellings, over resolved arguments
                return gast.copy_location(set_location(written, node.lineno, every=True), node)
        parts = multi_output(obj)
        if parts is not None:
            return multi_output_call(node, *parts)
        spelled = spelling_of(obj)
        if spelled is None and isinstance(obj, type) and issubclass(obj, np.floating):
            spelled = "float"
        if spelled is not None:
            node.func = parse_expr(spelled)
            _lists_as_arrays(node, rules.by_object(obj))
            return node
        obj = getattr(obj, "py_func", obj)          # a Numba dispatcher: its Python function
        if isinstance(obj, Recomputed):             # checkpoint(f): f's body with the recompute marker
            obj = obj.transpyle_source()
        if isinstance(obj, FunctionSource):         # a helper specialized on pytree structure
            return self._helper_call(node, obj)
        if hasattr(obj, "generated_function"):      # a transformed function: generated once kinds are known
            return self._deferred(node, obj)
        if getattr(obj, "__transpyle_jvp__", False):
            return self._jvp_call(node)
        if isinstance(obj, CustomRule):             # inlined with its derivative rule (transforms/custom_rules)
            key = self.ctx.namer.fresh(obj.__name__)
            self.ctx.functions[key] = obj
            node.func = name(key)
            return node
        if is_user_function(obj):
            try:
                unit = read_function(obj)
            except Exception as exc:
                raise self.ctx.error(node, f"cannot read the source of '{dotted(func)}': {exc}",
                                     hint="define helpers in a .py file")
            key = self.ctx.namer.fresh(unit.name if not unit.name.startswith("lambda") else "lambda_fn")
            self.ctx.functions[key] = unit
            node.func = name(key)
            return node
        label = library_name(obj)
        raise self.ctx.error(node, f"{label} has no derivative rule", construct=label,
                             hint="supported functions are listed in docs/subset.md; "
                                  "rewrite it with supported operations or pass its result as an argument")

    def _method(self, node):
        func = node.func
        if at_update(node) is not None:        # x.at[idx].set(v): kept for normalize to spell out
            target = func.value.value
            target.value = self.visit(target.value)
            func.value.slice = self.visit(func.value.slice)
            return node
        func.value = self.visit(func.value)       # the receiver may itself be x.T or a call
        call = method_call(node)
        if call is None:
            raise self.ctx.error(node, f"the method '.{func.attr}()' is not supported",
                                 hint="use the np.* function form of supported operations")
        builder = call_rewrite(call_object(call))
        if builder is not None:           # x.trace(1): written as np.trace(x, 1) is
            try:
                written = builder(call)
            except StaticError as exc:
                raise self.ctx.error(node, str(exc), hint=exc.hint or "see docs/subset.md") from None
            if written is not None:
                return gast.copy_location(set_location(written, node.lineno, every=True), node)
        return gast.copy_location(call, node)
