"""element_forms: the expressions element loops compute, and the buffers generated code writes.

An elementwise expression is built of operators, NumPy ufuncs, ``math`` functions and ``np.outer``
over *operands*: names and basic parts (``u[1:-1]``, ``x[i]``). ``rewrite`` reads each operand at the
loop indices; ``buffer_roots`` says which buffer each array name views (arguments count as one, a new
array is its own), so ``element_loops`` can tell when an operand may read what a loop writes.
"""
import copy

import gast
import numpy as np

from ..analysis.shape_terms import ONE
from ..base.ast_utils import attr_chain, dotted, is_basic_part, is_empty_declaration, is_new_axis, name, subscript_parts
from ..base.kinds import Kind
from ..runtime.elementary import VECTOR_FORMS

#: calls whose result is a new buffer
_FRESH = {"np.zeros", "np.ones", "np.empty", "np.full", "np.copy", "np.zeros_like", "np.ones_like",
          "np.empty_like", "np.full_like", "np.eye", "np.dot", "np.outer", "np.matmul", "rt.matmul",
          "rt.sum_axis", "rt.mean_axis", "rt.prod_axis", "rt.max_axis", "rt.min_axis"}
_ARITHMETIC = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow, gast.FloorDiv, gast.Mod)
_COMPARISONS = (gast.Eq, gast.NotEq, gast.Lt, gast.LtE, gast.Gt, gast.GtE)
#: calls whose result is a view of their first argument or a new array: its root, either way
_VIEW_OR_COPY = {"rt.reshape", "np.reshape", "np.ravel", "np.transpose", "np.swapaxes", "np.expand_dims",
                 "np.squeeze", "np.ascontiguousarray", "np.asarray"}
_VIEW_OR_COPY_METHODS = {"reshape", "ravel", "transpose", "swapaxes", "squeeze", "view"}
#: the root of every argument: a caller may pass the same array twice
_ARGUMENTS = "<arguments>"

#: the functions of ``math`` that are elementwise over numbers
MATH_FUNCTIONS = {"sqrt", "exp", "log", "log1p", "expm1", "sin", "cos", "tan", "tanh", "sinh", "cosh", "atan", "asin",
         "acos", "fabs", "floor", "ceil", "pow", "atan2", "hypot", "erf", "erfc", "log10", "log2"}


# ---- expressions ------------------------------------------------------------------------------------
def rewrite(node, leaves, ix):
    """A copy of ``node`` with each operand in ``leaves`` read at its axes of the loop indices ``ix``, an
    outer product the product of its operands' elements, and a function of numbers that the runtime has
    in a vectorizable form (``runtime.elementary``) called in that form."""
    if id(node) in leaves:
        _, local, axes = leaves[id(node)]
        return element_at(local, index_at(axes, ix), load=True) if axes else name(local)
    if _is_outer(node):
        return gast.BinOp(left=rewrite(node.args[0], leaves, ix), op=gast.Mult(),
                          right=rewrite(node.args[1], leaves, ix))
    if _is_select(node):         # np.where of numbers: one branch per element (a select, vectorized)
        c, a, b = (rewrite(arg, leaves, ix) for arg in node.args)
        return gast.IfExp(test=c, body=a, orelse=b)
    new = copy.copy(node)
    for field, old in gast.iter_fields(node):
        if isinstance(old, gast.AST):
            setattr(new, field, rewrite(old, leaves, ix))
        elif isinstance(old, list):
            setattr(new, field, [rewrite(v, leaves, ix) if isinstance(v, gast.AST) else v for v in old])
    if isinstance(node, gast.Call) and dotted(node.func) in VECTOR_FORMS:
        new.func = attr_chain(VECTOR_FORMS[dotted(node.func)])
    return new


def elementwise(node):
    """Operators, comparisons, NumPy ufuncs and ``math`` functions of names, numbers and basic parts."""
    if is_operand(node) or isinstance(node, gast.Constant):
        return True
    if isinstance(node, gast.BinOp):
        return isinstance(node.op, _ARITHMETIC) and elementwise(node.left) and elementwise(node.right)
    if isinstance(node, gast.UnaryOp):
        return isinstance(node.op, (gast.USub, gast.UAdd)) and elementwise(node.operand)
    if isinstance(node, gast.Compare):          # a mask in arithmetic (g * (x == m)): a bool per element
        return len(node.ops) == 1 and isinstance(node.ops[0], _COMPARISONS) and elementwise(node.left) and \
            elementwise(node.comparators[0])
    if _is_outer(node):
        return True
    if isinstance(node, gast.Call) and not node.keywords and isinstance(node.func, gast.Attribute) and \
            isinstance(node.func.value, gast.Name):
        module, attr = node.func.value.id, node.func.attr
        ok = module == "np" and isinstance(getattr(np, attr, None), np.ufunc) and \
            getattr(np, attr).nin == len(node.args) and getattr(np, attr).nout == 1 or \
            module == "math" and attr in MATH_FUNCTIONS or _is_select(node)
        return ok and all(elementwise(a) for a in node.args)
    return False


def _is_select(node):
    return isinstance(node, gast.Call) and dotted(node.func) == "np.where" and len(node.args) == 3 and \
        not node.keywords


#: reductions along an axis that an elementwise statement may read as an operand once computed first
_HOISTED = {"rt.sum_axis", "rt.mean_axis", "rt.max_axis", "rt.min_axis", "rt.prod_axis"}


def reductions_inside(value):
    """The reductions along an axis of elementwise operands inside ``value`` (not ``value`` itself), each
    as (node, its place: parent, field, index or None), outermost first; [] where ``value`` is one."""
    found = []

    def visit(node, place):
        if isinstance(node, gast.Call) and dotted(node.func) in _HOISTED and not node.keywords and \
                node.args and elementwise(node.args[0]):
            found.append((node, place))
            return
        for field, child in gast.iter_fields(node):
            if isinstance(child, gast.AST):
                visit(child, (node, field, None))
            elif isinstance(child, list):
                for k, c in enumerate(child):
                    if isinstance(c, gast.AST):
                        visit(c, (node, field, k))
    visit(value, None)
    return [] if any(place is None for _, place in found) else found


def put(place, node):
    """Put ``node`` at ``place`` (parent, field, index or None) of a tree."""
    parent, field, index = place
    if index is None:
        setattr(parent, field, node)
    else:
        getattr(parent, field)[index] = node


def _is_outer(node):
    """``np.outer(u, v)`` of elementwise expressions (``np.outer(y, g * beta)``) with no outer product
    inside."""
    return isinstance(node, gast.Call) and dotted(node.func) == "np.outer" and len(node.args) == 2 and \
        not node.keywords and all(elementwise(a) and not any(_is_outer(c) for c in gast.walk(a)) for a in node.args)


def outer_operands(node):
    """{id of an operand of an outer product in ``node``: 2 for those of the first factor, 1 for the
    second}: the axis, counted from the last, that it runs along."""
    return {id(leaf): 2 - k for c in gast.walk(node) if _is_outer(c) for k in (0, 1)
            for leaf in operands(c.args[k]) if not isinstance(leaf, gast.Constant)}


def operands(node):
    if is_operand(node) or isinstance(node, gast.Constant):
        return [node]
    out = []
    for child in gast.iter_child_nodes(node):
        if isinstance(child, gast.expr) and not isinstance(child, gast.Attribute):
            out += operands(child)
    return out


def is_operand(node):
    """A name, or a basic part of one (``u[1:-1]``, ``x[i, :k + 1]``), new axes allowed (``w[:, None]``)."""
    if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) and \
            any(is_new_axis(p) for p in subscript_parts(node)):
        parts = [p for p in subscript_parts(node) if not is_new_axis(p)]
        if not parts:
            return False
        node = gast.Subscript(value=node.value, slice=parts[0] if len(parts) == 1 else
                              gast.Tuple(elts=parts, ctx=gast.Load()), ctx=gast.Load())
    return isinstance(node, gast.Name) or is_basic_part(node)


def sum_of(value):
    if isinstance(value, gast.Call) and not value.keywords and len(value.args) == 1 and \
            isinstance(value.func, gast.Attribute) and value.func.attr == "sum" and \
            isinstance(value.func.value, gast.Name) and value.func.value.id == "np":
        return value.args[0]
    return None


def unbroadcast_of(value):
    """(E, T) for ``rt.unbroadcast(E, T)`` with T a name or a basic part of one, else None."""
    if isinstance(value, gast.Call) and dotted(value.func) == "rt.unbroadcast" and len(value.args) == 2 and \
            not value.keywords and (isinstance(value.args[1], gast.Name) or is_operand(value.args[1])):
        return value.args[0], value.args[1]
    return None


def same_memory(leaf, dest):
    """Whether operand ``leaf`` reads exactly the destination ``dest`` (``x`` and ``x[:]`` alike)."""
    return _canonical(leaf) is not None and _canonical(leaf) == _canonical(dest)


def _canonical(node):
    if isinstance(node, gast.Name):
        return (node.id, ())
    if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name):
        text = [gast.dump(p) for p in subscript_parts(node)]
        while text and text[-1] == gast.dump(gast.Slice(lower=None, upper=None, step=None)):
            text.pop()           # x[:] and x[:, :] are x
        return (node.value.id, tuple(text))
    return None


def range_axis(it):
    """(array name, axis) of a loop header ``range(x.shape[k])`` (or ``range(0, x.shape[k][, 1])``): the
    loop runs over axis ``k`` of ``x``; None for any other header."""
    if not (isinstance(it, gast.Call) and dotted(it.func) == "range" and not it.keywords):
        return None
    args = it.args
    if len(args) in (2, 3):
        if not all(isinstance(a, gast.Constant) and a.value == v for a, v in zip(args[::2], (0, 1))):
            return None
        args = args[1:2]
    n = args[0] if len(args) == 1 else None
    if isinstance(n, gast.Subscript) and isinstance(n.value, gast.Attribute) and n.value.attr == "shape" and \
            isinstance(n.value.value, gast.Name) and isinstance(n.slice, gast.Constant) and \
            isinstance(n.slice.value, int):
        return n.value.value.id, n.slice.value
    return None


def names_in(node):
    return {n.id for n in gast.walk(node) if isinstance(n, gast.Name)}


def float_array(kind):
    return isinstance(kind, Kind) and kind.ndim > 0 and kind.dtype == "float64"


def mask_array(kind):
    return isinstance(kind, Kind) and kind.ndim > 0 and kind.dtype == "bool"


_LOGICAL = {"np.logical_not", "np.logical_and", "np.logical_or", "np.logical_xor"}


def boolean(node, kind_of):
    """Whether the elementwise ``node`` has bool elements: a comparison, a logical ufunc, a mask operand
    (``kind_of``: an operand's kind)."""
    if isinstance(node, gast.Compare) or isinstance(node, gast.Call) and dotted(node.func) in _LOGICAL:
        return True
    if is_operand(node):
        kind = kind_of(node)
        return isinstance(kind, Kind) and kind.dtype == "bool"
    return False


def masks_as_numbers(value, kind_of):
    """Whether the bool elements in ``value`` mean what NumPy's arrays of bools mean when each is read as a
    number: a mask compared, selected by, negated logically or multiplied into numbers, never added to,
    multiplied by or negated as another bool (NumPy's True + True is True, a number's is 2)."""
    for node in gast.walk(value):
        if isinstance(node, gast.BinOp) and boolean(node.left, kind_of) and boolean(node.right, kind_of):
            return False
        if isinstance(node, gast.UnaryOp) and boolean(node.operand, kind_of):
            return False
    return True


def number_kind(kind):
    return kind.dtype in ("float64", "int64", "bool")


def assign_to(target, value):
    target = name(target, store=True) if isinstance(target, str) else target
    return gast.Assign(targets=[target], value=value, type_comment=None)


def index_at(axes, ix):
    """The element read at loop indices ``ix`` of an operand whose axes run along ``axes`` (None: an axis
    of length one, read at 0)."""
    return [ix[k] if k is not None else gast.Constant(value=0, kind=None) for k in axes]


def element_at(var, ix, load=False):
    index = ix[0] if len(ix) == 1 else gast.Tuple(elts=list(ix), ctx=gast.Load())
    return gast.Subscript(value=name(var), slice=copy.deepcopy(index), ctx=gast.Load() if load else gast.Store())


# ---- buffers ----------------------------------------------------------------------------------------
def buffer_roots(fn, kinds):
    """{array name: the name of the buffer it is a view of}: arguments share one root, a new array is
    its own; a name whose definitions disagree, or that comes from a call that may return a view, has
    none (it may be anything)."""
    defs, pushed = {}, {}
    for n in gast.walk(fn):
        if isinstance(n, gast.Call) and dotted(n.func) == "rt.tape_push" and isinstance(n.args[0], gast.Name):
            pushed.setdefault(n.args[0].id, []).append(n.args[1])
        if isinstance(n, gast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], gast.Name):
            defs.setdefault(n.targets[0].id, []).append(n.value)
        elif isinstance(n, gast.For) and isinstance(n.target, gast.Name):
            defs.setdefault(n.target.id, []).append(None)
    roots = {a.id: _ARGUMENTS for a in fn.args.args}
    unknown = set()

    def root_of(value, var):
        if isinstance(value, gast.Name):
            return roots.get(value.id, _PENDING if value.id not in unknown else None)
        if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name):
            return root_of(value.value, var)
        if isinstance(value, gast.Attribute) and value.attr == "T":
            return root_of(value.value, var)
        if isinstance(value, (gast.BinOp, gast.UnaryOp, gast.Compare)):
            return var
        if isinstance(value, gast.Call):
            func = dotted(value.func)
            if func == "rt.tape_pop" and isinstance(value.args[0], gast.Name):
                # what was pushed on that tape: a copy is new, a name keeps its root
                found = {root_of(v, var) for v in pushed.get(value.args[0].id, [None]) if v is not None}
                return found.pop() if len(found) == 1 else None
            if func == "rt.unbroadcast":
                return root_of(value.args[0], var)         # g itself where no axis is summed
            if func in _VIEW_OR_COPY and value.args:
                return root_of(value.args[0], var)
            if isinstance(value.func, gast.Attribute) and value.func.attr in _VIEW_OR_COPY_METHODS \
                    and func not in _FRESH:
                return root_of(value.func.value, var)
            if func in _FRESH or elementwise(value) and not is_operand(value):
                return var
        return None
    changed = True
    while changed:
        changed = False
        for var, values in defs.items():
            if var in roots and roots[var] == _ARGUMENTS or var in unknown:
                continue
            # an empty declaration (np.empty((0,), ...), before a loop defines the name) holds no memory
            found = {root_of(v, var) if v is not None else None for v in values if not is_empty_declaration(v)}
            found.discard(_PENDING)
            if not found:
                continue
            if len(found) > 1 or None in found:
                unknown.add(var)
                roots.pop(var, None)
                changed = True
            elif roots.get(var) != next(iter(found)):
                roots[var] = next(iter(found))
                changed = True
    return roots


_PENDING = object()


def loaded_index(index):
    """``index`` with a Load context: a store's index picks the same element as a load's (their dumps compare
    equal)."""
    return gast.Tuple(elts=index.elts, ctx=gast.Load()) if isinstance(index, gast.Tuple) else index


def result_dims(shapes, value):
    """The shape of an elementwise ``value`` whose operands broadcast against each other (an outer
    difference ``pos[None, :, :] - pos[:, None, :]``): for each axis of the result, of symbolic shape known
    to ``shapes`` (an ``analysis.shapes.Shapes``), (an operand, its axis of that length); None where an
    operand of the result's whole shape exists, or an axis is not some operand's."""
    result = shapes.known(value)
    if not result or ONE in result:
        return None
    leaves = [(leaf, shapes.known(leaf)) for leaf in operands(value) if is_operand(leaf)]
    if any(shape == result for _, shape in leaves):
        return None
    dims = []
    for j, term in enumerate(result):
        found = None
        for leaf, shape in leaves:
            jj = j - (len(result) - len(shape)) if shape else -1
            if shape and 0 <= jj < len(shape) and shape[jj] == term:
                found = (leaf, jj)
                break
        if found is None:
            return None
        dims.append(found)
    return dims
