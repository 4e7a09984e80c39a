"""The primitive tables: one entry per primitive with its signature, kind rule and adjoint rule.

A rule table lives in one module per primitive family (``elementwise``, ``reductions``,
``linalg``, ``arrays``, ``random``). Each entry is made by :func:`define` and reads like the math:
the adjoint of ``y = np.sin(x)`` is ``{"x": "g * np.cos(x)"}``: the cotangent ``g`` of the
output times the local derivative, accumulated into the adjoint of ``x``. Template names:
``g`` the output's cotangent, ``y`` the output, parameter names the operands.

An adjoint template is an expression (added to the operand's adjoint, un-broadcast to the
operand's shape by one shared helper when the primitive broadcasts) or a full statement
using ``bx`` for the adjoint of parameter ``x`` (for rules that write into part of it).
Rules whose form depends on ranks or static arguments are functions of ``(kinds, statics)``.

The batching rule (``batch``) says what array lifting (``transforms/lift``) emits when operands carry a
leading batch axis: ``LANEWISE`` (the same call on the batched operands, their ranks aligned: every
elementwise primitive), ``SHAPE`` (a fact about shapes, the same for every example), ``RAGGED`` (a shape per example), a
:class:`Tape` (the tape helpers), an :class:`AlongAxis` (a reduction: the run-time helper reducing along the shifted axis), or a function
``(batched, kinds, statics) -> template`` (``batched``: parameter -> whether it has the batch axis;
the template names the operands by parameter and the batch size ``_B``, ``None`` when no vectorized
form fits). Primitives without a rule run once per example in a loop over the batch.
"""
import copy
from dataclasses import dataclass

import gast

_BY_KEY = {}
_BY_OBJECT = {}
# functions of libraries imported only when the user's code has them (``"scipy.linalg.solve_triangular"``):
# (module, attribute) -> primitive; importing SciPy with transpyle would cost every first call 0.2 s
_BY_NAME = {}


@dataclass
class Primitive:
    key: str                      # canonical name, used in messages: 'np.sin', 'add', 'getitem'
    params: tuple                 # parameter names, in call order
    defaults: dict                # parameter -> default Python value
    diff: tuple                   # differentiable parameters
    kind: object                  # (kinds, statics) -> Kind of the result
    vjp: object = None            # dict param -> template, or (kinds, statics) -> dict
    broadcasts: bool = False      # elementwise: contributions are un-broadcast to operand shapes
    lower: object = None          # (call node, statics, kinds) -> expression emitted instead
    varargs: bool = False         # the first parameter takes a tuple/list of operands
    jvp: object = None            # LINEAR, dict param -> tangent template, or (kinds, statics) -> dict
    batch: object = None          # LANEWISE, SHAPE, Tape, AlongAxis, (batched, kinds, statics) -> template, or None
    view: object = None           # the parameter whose buffer the result shares (NumPy returns a view of it),
    #                               or (kinds) -> that parameter or None, where it depends on the operands' ranks
    readonly: str = None          # why the view is read-only here: a write into its buffer while it is in use
    #                               is refused with this reason (NumPy's read-only views, views whose adjoint
    #                               is no view of the base's adjoint)
    ragged: bool = False          # the result's shape depends on the operands' values (mask positions)
    exact: object = False         # its adjoint contributions have the operands' shapes (an adjoint used
    #                               once may be set by one, ``b_a = np.dot(g, b.T)``): a bool, or
    #                               (kinds) -> bool where it depends on the operands' ranks
    infinite_slope: object = False  # its derivative is infinite where its value is finite (sqrt at 0): a zero
    #                               cotangent or tangent must contribute zero there, not 0 * inf (``strong_zeros``);
    #                               a bool, or (statics) -> bool where it depends on an operand (an exponent)
    zero_slope: bool = False      # its derivative is zero where it selects another operand (np.maximum): there
    #                               even an infinite cotangent contributes zero (``strong_zeros``)

    def exact_adjoints(self, kinds):
        """Whether the adjoint contributions for operands of ``kinds`` have the operands' shapes."""
        return self.exact(kinds) if callable(self.exact) else self.exact

    def steep(self, statics):
        """Whether the derivative may be infinite where the value is finite, for the operands ``statics``."""
        return self.infinite_slope(statics) if callable(self.infinite_slope) else self.infinite_slope

    def viewed(self, kinds):
        """The parameter whose buffer the result shares, for operands of ``kinds`` (param -> Kind), or None."""
        return self.view(kinds) if callable(self.view) else self.view

    @property
    def stacks(self):
        """The operand whose leading dimensions (a stack of matrices) the primitive maps over, or None."""
        return getattr(self.kind, "stacks", None)

    def stack_depth(self, kinds):
        """How many leading dimensions of a stack this application maps over (0: one matrix)."""
        k = kinds.get(self.stacks) if self.stacks is not None else None
        return k.ndim - 2 if k is not None and k.ndim > 2 else 0

    def mapped_operands(self, kinds):
        """The operands indexed by the stack's loop: the stack, and the others (``kind.stacks_with``:
        operand -> rank of one item) that have the stack's leading dimensions too."""
        lead = self.stack_depth(kinds)
        others = getattr(self.kind, "stacks_with", {})
        return [self.stacks] + [p for p, rank in others.items() if kinds.get(p) is not None and
                                kinds[p].ndim == rank + lead]

    def result_kind(self, kinds, statics):
        """The kind of the result: ``kind`` of one matrix, with the leading dimensions of a stack."""
        lead = self.stack_depth(kinds)
        if not lead:
            return self.kind(kinds, statics)
        one = copy.copy(kinds)
        for p in self.mapped_operands(kinds):
            one[p] = kinds[p].with_ndim(kinds[p].ndim - lead)
        kind = self.kind(one, statics)
        return kind.with_ndim(kind.ndim + lead)

    def vjp_templates(self, kinds, statics):
        if self.vjp is None:
            return {}
        return self.vjp(kinds, statics) if callable(self.vjp) else self.vjp

    def jvp_templates(self, kinds, statics):
        """Forward rules: LINEAR, or param -> template of the tangent contribution, where ``t``
        (or ``g``) is that operand's tangent. Elementwise primitives reuse their adjoint templates:
        their local Jacobian is diagonal, so the adjoint rule applied to a tangent is the tangent rule."""
        if self.jvp is LINEAR:
            return LINEAR
        if self.jvp is not None:
            return self.jvp(kinds, statics) if callable(self.jvp) else self.jvp
        if self.broadcasts:
            return self.vjp_templates(kinds, statics)
        return {}


def _parse_signature(sig):
    params, defaults = [], {}
    for part in [p.strip() for p in sig.split(",") if p.strip()]:
        if "=" in part:
            pname, default = part.split("=", 1)
            defaults[pname.strip()] = eval(default, {})  # literal defaults only
            params.append(pname.strip())
        else:
            params.append(part)
    return tuple(params), defaults


#: the forward rule of a linear primitive: the primitive itself, applied to the tangents
LINEAR = "linear"
#: batching rules (see the module docstring)
LANEWISE = "lanewise"
SHAPE = "shape"
#: the result's shape depends on each example's values (the positions a mask selects): array lifting
#: refuses it, and vmap's default strategy then runs the examples one by one
RAGGED = "ragged"


@dataclass(frozen=True)
class Tape:
    """The batching rule of a tape operation: ``template`` (on tapes of lanes: a row per lane for numbers,
    batched arrays for arrays), with the operands ``lifted`` copied into every lane when unbatched.
    Tapes take no masked update: under a mask, numbers' tapes (``masked``) give the other lanes entries
    beyond what they push and pop; a tape of arrays is one list for all lanes, so it is refused there."""
    template: str
    lifted: tuple = ()
    masked: bool = True


@dataclass(frozen=True)
class AlongAxis:
    """The batching rule of a reduction: ``rt.<helper>(x, axis, keepdims)`` with the axis shifted past
    the batch axis (all the per-example axes, flattened into one, for a full reduction)."""
    helper: str


def define(key, objects, signature, kind, vjp=None, diff=None, broadcasts=False, lower=None, varargs=False,
           jvp=None, batch=None, view=None, readonly=None, ragged=False, exact=False, infinite_slope=False,
           zero_slope=False):
    """Register a primitive. ``objects`` are the Python callables that resolve to it. Primitives that
    broadcast are elementwise, so their batching rule defaults to ``LANEWISE``. ``view``: the parameter
    whose buffer the result shares, for primitives that return a view (see ``analysis/aliases``); ``readonly``:
    why writes into that buffer are refused while the view is in use; ``ragged``: the result's shape depends
    on the operands' values, not only on their shapes; ``exact``: the adjoint contributions have the operands'
    shapes (see ``Primitive.exact``); ``infinite_slope``, ``zero_slope``: see ``Primitive``."""
    params, defaults = _parse_signature(signature)
    if diff is None:
        diff = tuple(p for p in params if p not in defaults) if (vjp is not None or jvp is not None) else ()
    if batch is None and broadcasts and key != "setitem":
        batch = LANEWISE
    prim = Primitive(key, params, defaults, tuple(diff), kind, vjp, broadcasts, lower, varargs, jvp, batch, view,
                     readonly, ragged, exact, infinite_slope, zero_slope)
    _BY_KEY[key] = prim
    for obj in objects:
        if isinstance(obj, str):
            module, _, attr = obj.rpartition(".")
            _BY_NAME[(module, attr)] = prim
        else:
            _BY_OBJECT[id(obj)] = (obj, prim)
    return prim


def by_key(key):
    return _BY_KEY.get(key)


def by_object(obj):
    hit = _BY_OBJECT.get(id(obj))
    if hit is None and _BY_NAME:
        hit = _named(obj)
    return hit[1] if hit is not None and hit[0] is obj else None


def imported(module, attr):
    """``module.attr`` where the process has imported ``module`` (a library named by its path, never
    imported here), else None."""
    import sys
    return getattr(sys.modules[module], attr, None) if module in sys.modules else None


def _named(obj):
    """The entry of ``obj`` among the functions registered by name whose module the user imported."""
    for (module, attr), prim in _BY_NAME.items():
        if imported(module, attr) is obj:
            _BY_OBJECT[id(obj)] = (obj, prim)
            return obj, prim
    return None


def all_primitives():
    return dict(_BY_KEY)


def bind(prim, args, keywords):
    """Map call arguments (nodes) to parameter names; defaults become constants.

    Returns (bound, problem) where problem is a message when the call does not fit.
    """
    bound = {}
    if len(args) > len(prim.params):
        return None, f"takes at most {len(prim.params)} positional arguments"
    for p, a in zip(prim.params, args):
        bound[p] = a
    for kw in keywords:
        if kw.arg not in prim.params:
            return None, f"keyword '{kw.arg}' is not supported"
        bound[kw.arg] = kw.value
    for p in prim.params:
        if p not in bound:
            if p not in prim.defaults:
                return None, f"missing argument '{p}'"
            bound[p] = gast.Constant(value=prim.defaults[p], kind=None)
    return bound, None


# the families register themselves on import
from . import (elementwise, reductions, linalg, arrays, advanced, generated, random, matrices, factorizations, collectives, ufunc_methods, statistics, grids, diagonals, contractions, gathers, rearrangements, ufunc_composites, shape_forms, special_functions, dynamic_slices, builtins_on_arrays, differences, convolutions, searching, reduction_keywords, positions, constructions, spectral)  # noqa: E402,F401,E501
