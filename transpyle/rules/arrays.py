"""Array plumbing: indexing, in-place writes, copies, reshapes, joins and constructors.

Indexing reads accumulate into part of the operand's adjoint (``bx[index] += g``); an in-place
write ``x[index] = v`` passes the written part's cotangent to ``v`` and clears it, because the
old contents no longer reach the output.
"""
import gast
import numpy as np

from .. import runtime as rt

from ..base.ast_utils import template_expr
from ..base.kinds import INT, Kind, TupleKind
from . import LANEWISE, LINEAR, SHAPE, define
from .advanced import indexed_ndim
from .common import StaticError, const_value, dtype_of, shape_rank
from .conversions import converted, lower_conversion
from .rewrites import define_call


# ---- indexing ---------------------------------------------------------------------------------
def _getitem_kind(k, s):
    x = k["x"]
    if isinstance(x, TupleKind):
        index = s["index"]
        if isinstance(index, gast.Slice):        # x.shape[1:]: the tuple of those items
            bounds = [None if b is None else const_value(b, "a tuple slice's bound")
                      for b in (index.lower, index.upper, index.step)]
            return TupleKind(x.items[slice(*bounds)])
        return x.items[const_value(index, "a tuple index")]
    return x.with_ndim(indexed_ndim(x.ndim, k["index"]))


define("getitem", [], "x, index", _getitem_kind, {"x": "bx[index] += g"}, diff=("x",), jvp=LINEAR)


def _setitem_vjp(k, s):
    part = "bx[index]" if k["out"].ndim == 0 else "np.copy(bx[index])"
    return {"v": part, "x": "bx[index] = 0.0"}


# the written part's kind is passed as k["out"]; the statement is ``x[index] = v``
define("setitem", [], "x, index, v", lambda k, s: k["x"], _setitem_vjp, diff=("v", "x"), broadcasts=True)

# ---- copies and reshapes ---------------------------------------------------------------------
define("np.copy", [np.copy, np.array], "x, dtype=None", converted, {"x": "g"}, diff=("x",), jvp=LINEAR,
       batch=LANEWISE, lower=lower_conversion("np.copy"))
# the array itself where it already is one (a view, in the aliasing model: writes reach the argument)
define("np.asarray", [np.asarray], "x, dtype=None", converted, {"x": "g"}, diff=("x",), jvp=LINEAR, batch=LANEWISE,
       view="x", lower=lower_conversion("np.asarray"))
define("np.ascontiguousarray", [np.ascontiguousarray], "x", lambda k, s: k["x"], {"x": "g"}, jvp=LINEAR,
       batch=LANEWISE, view="x")
define("float", [float], "x", lambda k, s: Kind("float64"), {"x": "g"}, jvp=LINEAR,
       batch=lambda b, k, s: "x.astype(np.float64)")
define("int", [int], "x", lambda k, s: INT, batch=lambda b, k, s: "x.astype(np.int64)")
define("len", [len], "x", lambda k, s: INT, batch=SHAPE)
define("np.shape", [np.shape], "x", lambda k, s: TupleKind((INT,) * k["x"].ndim), batch=SHAPE)


def _reshape_kind(k, s):
    rank = shape_rank(s["shape"], k["shape"])
    if rank is None:
        rank = k.env_rank(s["shape"].value)
    return k["x"].with_ndim(rank)


def _reshape_batch(batched, k, s):
    if batched["shape"]:
        return None
    dims = "(shape,)" if isinstance(k["shape"], Kind) else "shape"
    return f"np.reshape(np.ascontiguousarray(x), (_B,) + {dims})"


define("np.reshape", [np.reshape, rt.reshape, rt.reshape_copy], "x, shape", _reshape_kind, {"x": "np.ascontiguousarray(g).reshape(x.shape)"},
       diff=("x",), jvp=LINEAR, batch=_reshape_batch, view="x")
define("np.ravel", [np.ravel], "x", lambda k, s: k["x"].with_ndim(1),
       {"x": "np.ascontiguousarray(g).reshape(x.shape)"}, jvp=LINEAR,
       batch=lambda b, k, s: "np.reshape(np.ascontiguousarray(x), (_B,) + (-1,))", view="x")


# ---- axis permutations (views) ---------------------------------------------------------------------
def _axes(k, s, *params):
    """The constant int axes of an axis permutation, checked against the rank."""
    ndim = k["x"].ndim
    out = []
    for p in params:
        a = const_value(s[p], p)
        if not isinstance(a, int) or not -ndim <= a < ndim:
            raise StaticError(f"{p} must be one constant axis of an array of rank {ndim}")
        out.append(a)
    return out


def _shifted(*params):
    """The batching rule of an axis permutation: its axes counted past the batch axis (from the end, unchanged)."""
    def rule(batched, k, s):
        if any(batched[p] for p in params):
            return None
        axes = [a + 1 if a >= 0 else a for a in _axes(k, s, *params)]
        return f"np.{rule.name}(x, {', '.join(map(str, axes))})"
    return rule


def _permutation(key, params, inverse):
    """An axis permutation: a view of ``x``, linear, its adjoint the inverse permutation of ``g``."""
    def kind(k, s):
        _axes(k, s, *params)
        return k["x"]
    batch = _shifted(*params)
    batch.name = key
    define(f"np.{key}", [getattr(np, key)], "x, " + ", ".join(params), kind,
           {"x": f"np.{key}(g, {', '.join(inverse)})"}, diff=("x",), jvp=LINEAR, batch=batch, view="x")


_permutation("swapaxes", ("axis1", "axis2"), ("axis1", "axis2"))
_permutation("moveaxis", ("source", "destination"), ("destination", "source"))


def transposition(k, s):
    """The permutation ``np.transpose(x, axes)`` makes, as a tuple of non-negative axes (the reversed axes for
    ``axes=None``), checked against the rank."""
    ndim = k["x"].ndim
    axes = const_value(s["axes"], "axes")
    if axes is None:
        return tuple(range(ndim - 1, -1, -1))
    if isinstance(axes, int) and ndim == 1:
        axes = (axes,)
    if not isinstance(axes, tuple) or len(axes) != ndim or \
            not all(isinstance(a, int) and not isinstance(a, bool) and -ndim <= a < ndim for a in axes) or \
            sorted(a % ndim for a in axes) != list(range(ndim)):
        raise StaticError(f"axes {axes!r} is not a permutation of the {ndim} axes of the array",
                          hint=f"name each of the axes 0 .. {ndim - 1} once (negative axes count from the end)")
    return tuple(a % ndim for a in axes)


def _transpose_kind(k, s):
    transposition(k, s)
    return k["x"]


def _transpose_vjp(k, s):
    axes = transposition(k, s)
    inverse = tuple(sorted(range(len(axes)), key=axes.__getitem__))
    return {"x": f"np.transpose(g, {inverse!r})" if axes else "g"}


def _transpose_batch(batched, k, s):
    """The batch axis stays first; the permuted axes are counted past it."""
    if batched["axes"]:
        return None
    return f"np.transpose(x, {(0,) + tuple(a + 1 for a in transposition(k, s))!r})"


def _transpose_lower(s, k, ops):
    """The permutation written out with non-negative axes (``x.T`` keeps its short form)."""
    if const_value(s["axes"], "axes") is None:
        return None
    return template_expr(f"np.transpose(x, {transposition(k, s)!r})", x=ops["x"])


define("np.transpose", [np.transpose] + [f for f in (getattr(np, "permute_dims", None),) if f is not None],
       "x, axes=None", _transpose_kind, _transpose_vjp, diff=("x",), jvp=LINEAR,
       batch=_transpose_batch, view="x", lower=_transpose_lower)


# ---- joins: the operands come as a tuple ``arrays``; templates name them a0, a1, ... -------------
def _join_kind(extra_dim):
    def kind(k, s):
        parts = k["arrays"]
        if len({p.ndim for p in parts}) > 1:
            raise StaticError("the arrays joined have different numbers of dimensions: "
                              + ", ".join(str(p.ndim) for p in parts), hint="give each array the same rank")
        out = parts[0]
        for p in parts[1:]:
            out = out.with_dtype(np.result_type(out.dtype, p.dtype).name)
        return out.with_ndim(out.ndim + extra_dim)
    return kind


def _axis(s, ndim):
    axis = const_value(s["axis"], "axis")
    if not -ndim <= axis < ndim:
        raise StaticError(f"axis {axis} is out of range")
    return axis % ndim


def _concatenate_vjp(k, s):
    axis = _axis(s, k["arrays"][0].ndim)
    lead = ":, " * axis
    rules, start = {}, "0"
    for i in range(len(k["arrays"])):
        stop = f"{start} + a{i}.shape[{axis}]" if start != "0" else f"a{i}.shape[{axis}]"
        rules[("arrays", i)] = f"g[{lead}{start}:{stop}]"
        start = stop
    return rules


def _stack_vjp(k, s):
    axis = _axis(s, k["arrays"][0].ndim + 1)
    lead = ":, " * axis
    return {("arrays", i): f"g[{lead}{i}]" for i in range(len(k["arrays"]))}


def _tuple_of(arrays):
    """The operands of a join as a tuple: Numba joins tuples of arrays, not lists."""
    return gast.Tuple(elts=arrays.elts, ctx=gast.Load()) if isinstance(arrays, gast.List) else arrays


def _join_lower(function):
    """``function(arrays, axis)`` with the arrays written as a list: the same call of a tuple."""
    def lower(statics, kinds, operands):
        if not isinstance(operands["arrays"], gast.List):
            return None
        return template_expr(f"{function}(arrays, axis=axis)", arrays=_tuple_of(operands["arrays"]),
                             axis=operands["axis"])
    return lower


define("np.concatenate", [np.concatenate], "arrays, axis=0", _join_kind(0), _concatenate_vjp, diff=("arrays",),
       varargs=True, jvp=LINEAR, lower=_join_lower("np.concatenate"))
define("np.stack", [np.stack], "arrays, axis=0", _join_kind(1), _stack_vjp, diff=("arrays",), varargs=True,
       jvp=LINEAR, lower=_join_lower("np.stack"))


# np.hstack / np.vstack: np.concatenate along the axis NumPy picks from the operands' rank (hstack joins
# 1-D arrays end to end and the columns of anything else; vstack stacks 1-D arrays as rows)
def _hstack_axis(k):
    return 0 if k["arrays"][0].ndim == 1 else 1


def _vstack_kind(k, s):
    ranks = {p.ndim for p in k["arrays"]}
    if not ranks <= {1, 2} and len(ranks) > 1:
        raise StaticError("np.vstack of arrays of different ranks above 2", hint="give each array the same rank")
    out = k["arrays"][0]
    for p in k["arrays"][1:]:
        out = out.with_dtype(np.result_type(out.dtype, p.dtype).name)
    return out.with_ndim(max(max(ranks), 2))


def _vstack_lower(s, k, ops):
    """1-D arrays are stacked as rows; with 2-D ones, each 1-D array is one row of the concatenation."""
    parts = ops["arrays"].elts
    if all(p.ndim == 1 for p in k["arrays"]):
        return template_expr("np.stack(arrays, axis=0)", arrays=gast.Tuple(elts=parts, ctx=gast.Load()))
    rows = [template_expr("np.expand_dims(a, 0)", a=e) if p.ndim == 1 else e for e, p in zip(parts, k["arrays"])]
    return template_expr("np.concatenate(arrays, axis=0)", arrays=gast.Tuple(elts=rows, ctx=gast.Load()))


def _hstack_vjp(k, s):
    return _concatenate_vjp(k, {"axis": gast.Constant(value=_hstack_axis(k), kind=None)})


def _vstack_vjp(k, s):
    if k["arrays"][0].ndim == 1:
        return {("arrays", i): f"g[{i}]" for i in range(len(k["arrays"]))}
    return _concatenate_vjp(k, {"axis": gast.Constant(value=0, kind=None)})


define("np.hstack", [np.hstack], "arrays", _join_kind(0), _hstack_vjp, diff=("arrays",), varargs=True, jvp=LINEAR,
       lower=lambda s, k, ops: template_expr(f"np.concatenate(arrays, axis={_hstack_axis(k)})",
                                             arrays=_tuple_of(ops["arrays"])))
define("np.vstack", [np.vstack], "arrays", _vstack_kind, _vstack_vjp, diff=("arrays",), varargs=True, jvp=LINEAR,
       lower=_vstack_lower)


# np.flip: a view with the flipped axes read backwards, written as that basic index (Numba's np.flip
# takes no axis); its own adjoint
def _flipped(k, s):
    ndim = k["x"].ndim
    axis = const_value(s["axis"], "axis")
    axes = range(ndim) if axis is None else (axis,) if isinstance(axis, int) else axis
    if not all(isinstance(a, int) and -ndim <= a < ndim for a in axes):
        raise StaticError(f"axis {axis!r} is out of range for an array of {ndim} axes")
    axes = {a % ndim for a in axes}
    return "[" + ", ".join("::-1" if a in axes else ":" for a in range(ndim)) + "]"


def _flip_kind(k, s):
    _flipped(k, s)
    return k["x"]


define("np.flip", [np.flip], "x, axis=None", _flip_kind,
       lambda k, s: {"x": "g" + _flipped(k, s)}, diff=("x",), jvp=LINEAR, view="x",
       lower=lambda s, k, ops: template_expr("x" + _flipped(k, s), x=ops["x"]))


def _array_literal_kind(k, s):
    parts = k["arrays"]
    if any(isinstance(p, TupleKind) for p in parts):
        raise StaticError("np.array of a list holding a tuple by name", hint="write the tuple's items in the list")
    if len({p.ndim for p in parts}) > 1:
        raise StaticError("np.array of a list mixing numbers and arrays (or arrays of different ranks)",
                          hint="give each element the same shape")
    dtype = np.result_type(*[p.dtype for p in parts]).name if parts else "float64"
    if dtype.startswith("int"):
        dtype = "int64"
    if getattr(s.get("dtype"), "value", 0) is not None:
        dtype = dtype_of(s["dtype"])
    return Kind(dtype, 1 + parts[0].ndim if parts else 1)


def _rows_first(call):
    """np.array of a nested list (written when resolved): np.array of each row first, so that the list holds
    arrays. Any other np.array call is left as it is (None)."""
    if not call.args or not isinstance(call.args[0], (gast.List, gast.Tuple)) or \
            not any(isinstance(e, (gast.List, gast.Tuple)) for e in call.args[0].elts):
        return None

    def row(element):
        if not isinstance(element, (gast.List, gast.Tuple)):
            return element
        return template_expr("np.array(r)", r=gast.List(elts=[row(e) for e in element.elts], ctx=gast.Load()))
    rows = gast.List(elts=[row(e) for e in call.args[0].elts], ctx=gast.Load())
    return gast.Call(func=template_expr("np.array"), args=[rows] + call.args[1:], keywords=call.keywords)


def _array_literal_lower(statics, kinds, operands):
    """np.array of a list of arrays is np.stack of their tuple (Numba's np.array takes numbers only), the
    stack converted where a dtype= is given."""
    if not any(p.ndim for p in kinds["arrays"]):
        return None
    stacked = template_expr("np.stack(rows)", rows=_tuple_of(operands["arrays"]))
    dtype = statics.get("dtype")
    if dtype is None or getattr(dtype, "value", 0) is None:
        return stacked
    return template_expr("rt.astype(x, dtype)", x=stacked, dtype=dtype)


# np.array([a, b, c]) of scalars, of equally shaped arrays or of nested lists, with dtype= if given
define("array_literal", [], "arrays, dtype=None", _array_literal_kind,
       lambda k, s: {("arrays", i): f"g[{i}]" for i in range(len(k["arrays"]))}, diff=("arrays",), varargs=True,
       jvp=LINEAR, lower=_array_literal_lower)
define_call([np.array], _rows_first)


def _display_as_array(call):
    """np.asarray of a list or tuple written in the call is a new array of its items: np.array of it."""
    if not call.args or not isinstance(call.args[0], (gast.List, gast.Tuple)):
        return None
    written = gast.Call(func=template_expr("np.array"), args=call.args, keywords=call.keywords)
    return _rows_first(written) or written


define_call([np.asarray, np.asanyarray], _display_as_array)


# ---- constructors (their results do not depend on differentiable inputs) ------------------------
def _made(shape_param):
    def kind(k, s):
        rank = shape_rank(s[shape_param], k[shape_param])
        if rank is None:
            rank = k.env_rank(s[shape_param].value)
        return Kind(dtype_of(s.get("dtype")), rank)
    return kind


def _like(k, s):
    dt = s.get("dtype")
    if dt is None or (getattr(dt, "value", 0) is None):
        return k["x"]
    return k["x"].with_dtype(dtype_of(dt))


def _shape_as_tuple(position, keyword):
    """A shape written as a list (``np.empty([n, m])``, ``np.reshape(x, [n, -1])``) is the tuple of its
    items, which Numba takes; the call is then spelled as any other (the builder returns None)."""
    def build(call):
        given = call.args[position] if len(call.args) > position else \
            next((kw.value for kw in call.keywords if kw.arg == keyword), None)
        if isinstance(given, gast.List):
            given.__class__ = gast.Tuple
        return None
    return build


define_call([np.zeros, np.ones, np.empty, np.full], _shape_as_tuple(0, "shape"))
define_call([np.reshape], _shape_as_tuple(1, "shape"))
define("np.zeros", [np.zeros], "shape, dtype=None", _made("shape"))
define("np.ones", [np.ones], "shape, dtype=None", _made("shape"))
define("np.empty", [np.empty, np.ndarray], "shape, dtype=None", _made("shape"))
define("np.full", [np.full], "shape, fill_value, dtype=None",
       lambda k, s: _made("shape")(k, s) if s["dtype"].value is not None
       else k["fill_value"].with_ndim(_made("shape")(k, s).ndim),
       {"fill_value": "np.sum(g)"}, diff=("fill_value",), jvp=LINEAR)
define("np.zeros_like", [np.zeros_like], "x, dtype=None", _like, batch=LANEWISE)
define("np.ones_like", [np.ones_like], "x, dtype=None", _like, batch=LANEWISE)
define("np.empty_like", [np.empty_like], "x, dtype=None", _like, batch=LANEWISE)
define("np.full_like", [np.full_like], "x, fill_value", lambda k, s: k["x"], {"fill_value": "np.sum(g)"},
       diff=("fill_value",), jvp=LINEAR)
def _arange_vjp(k, s):
    if getattr(s["stop"], "value", 0) is None:
        return {}                                 # np.arange(n): 0, 1, ..., whatever n is
    # start + i * step; the stop only sets how many there are (a step function of it)
    return {"start": "np.sum(g)", "step": "np.sum(g * np.arange(g.shape[0]))"}


def _arange_jvp(k, s):
    if getattr(s["stop"], "value", 0) is None:
        return {}
    return {"start": "t + 0.0 * y", "step": "t * np.arange(y.shape[0])"}


define("np.arange", [np.arange], "start, stop=None, step=None",
       lambda k, s: Kind("float64" if any(k[p] is not None and k[p].is_float for p in ("start", "stop", "step"))
                         else "int64", 1), _arange_vjp, diff=("start", "step"), jvp=_arange_jvp)
# start + (stop - start) * i / (num - 1): the weights of start and stop are linspaces themselves
def _ends_rank(k):
    return max(getattr(k["start"], "ndim", 0), getattr(k["stop"], "ndim", 0))


def _linspace_of_arrays(statics, kinds, operands):
    """np.linspace between arrays (NumPy's points along a new first axis): the ends weighed by a column of
    points from 0 to 1, written with the operations that carry their derivatives; numbers are the primitive."""
    rank = _ends_rank(kinds)
    if rank == 0:
        return None
    return template_expr(f"start + (stop - start) * np.reshape(np.linspace(0.0, 1.0, num), (num{', 1' * rank}))",
                         **operands)


define("np.linspace", [np.linspace], "start, stop, num=50", lambda k, s: Kind("float64", 1 + _ends_rank(k)),
       {"start": "np.sum(g * np.linspace(1.0, 0.0, num))", "stop": "np.sum(g * np.linspace(0.0, 1.0, num))"},
       diff=("start", "stop"), lower=_linspace_of_arrays,
       jvp={"start": "t * np.linspace(1.0, 0.0, num)", "stop": "t * np.linspace(0.0, 1.0, num)"})


def _linspace_endpoint(call):
    """``np.linspace(start, stop, num, endpoint=False)``: the ``num`` points of ``num + 1`` that leave out stop,
    ``np.linspace(start, start + (stop - start) * (num - 1) / num, num)``; ``endpoint=True`` is the default."""
    endpoint = next((kw for kw in call.keywords if kw.arg == "endpoint"), None)
    if endpoint is None:
        return None
    call.keywords = [kw for kw in call.keywords if kw is not endpoint]
    flag = const_value(endpoint.value, "endpoint")
    if flag:
        return call
    args = list(call.args) + [kw.value for kw in call.keywords if kw.arg in ("start", "stop", "num")]
    if len(args) < 3 or len(call.args) + len(call.keywords) != len(args):
        raise StaticError("np.linspace with endpoint=False needs start, stop and num", hint="np.linspace(a, b, n, endpoint=False)")
    return template_expr("np.linspace(a, a + (b - a) * (n - 1) / n, n)", a=args[0], b=args[1], n=args[2])


define_call([np.linspace], _linspace_endpoint)
define("np.eye", [np.eye], "N, M=None, k=0, dtype=None", lambda k, s: Kind(dtype_of(s.get("dtype")), 2))
