"""Matrix functions: np.linalg.solve, inv, det, slogdet, matrix_power, norm; np.trace; triangular solves;
np.tril and np.triu; and what the rules of matrix functions share: the kind rules of matrix operands and
the conventions for complex matrices. The factorizations (cholesky, eigh, eig, qr, svd, pinv, lstsq) are
in ``factorizations``.

Each adjoint is the textbook one, with solves instead of explicit inverses where the result is not
itself an inverse (for C = solve(A, B): bB = solve(A.T, g), bA = -bB C^T). The rules of solve, inv,
det, slogdet, trace, cholesky, eigh and the singular values are written with primitives that have
rules of their own (the factorization recomputed where a rule needs it: ``rt.eigh_vectors(a)``), so
derivative code can be differentiated again (hessian). The others call a run-time helper
(``rt.qr_q_vjp``...) that has no rule: a second derivative through them is an error naming it.
Complex matrices follow the convention of every rule here: adjoints are the transposes of the
tangent maps with no conjugation of the cotangent (JAX's), which gives JAX's gradients of
real-valued functions; eigenvectors and singular vectors of complex matrices follow JAX's gauge.

NumPy's multi-output functions are resolved to a tuple of single-output parts (``MULTI_OUTPUT``
below): ``np.linalg.eigh(a)`` is ``(rt.eigh_values(a), rt.eigh_vectors(a))``. Unpacking and
indexing then see ordinary primitives, and the joint adjoint, linear in the output cotangents, is
the sum of the parts' adjoints. Library calls written with other primitives (norms along an axis,
scipy's cho_factor and cho_solve) are the ``COMPOSITES``.
"""
import gast
import numpy as np

from .. import runtime as rt
from ..base.ast_utils import template_expr
from ..base.kinds import promote
from . import LINEAR, define, imported
from .common import StaticError, const_value, float_of, real_of


# ---- kinds -----------------------------------------------------------------------------------------
def matrix_operand(k, name="a", real=False, what=None):
    """The float kind of the operand ``name``, which must be a matrix (real, with ``real``)."""
    kind = k[name]
    if kind.ndim != 2:
        hint = "; for a stack of matrices, map over it with transpyle.vmap" if kind.ndim > 2 else ""
        raise StaticError(f"{what or 'this function'} needs a matrix (rank 2), got rank {kind.ndim}{hint}")
    if real and kind.is_complex:
        raise StaticError(f"{what or 'this function'} of complex matrices has no derivative rule here; "
                          "pass a real matrix")
    return float_of(kind)


def matrix(name="a", ndim=2, real=False, dtype=None, stacks=True):
    """Kind rule: the operand must be a matrix; the result has ``ndim`` dimensions. With ``stacks``
    the primitive also takes a stack of matrices (leading dimensions, as NumPy's linalg functions
    do): the result keeps those dimensions and ``lower_calls`` writes the call as a loop."""
    def kind(k, s):
        base = matrix_operand(k, name, real)
        if dtype == "real":
            base = real_of(base)
        elif dtype is not None:
            base = base.with_dtype(dtype)
        return base.with_ndim(ndim)
    kind.stacks = name if stacks else None
    return kind


def rhs_kind(k, s):
    matrix_operand(k, "a")
    if k["b"].ndim not in (1, 2):
        raise StaticError(f"the right-hand side must be a vector or a matrix (or stacks of matrices beside a "
                          f"stack of a), got rank {k['b'].ndim}")
    return float_of(promote(k["a"], k["b"])).with_ndim(k["b"].ndim)


# a stack of a: b is one vector or matrix for every a (NumPy broadcasts it), or a stack of matrices
rhs_kind.stacks, rhs_kind.stacks_with = "a", {"b": 2}


def real_part(k, name, expr):
    """``expr``, or its real part when the operand ``name`` is real and the expression may be complex."""
    return expr if k[name].is_complex else f"np.real({expr})"


def real_tangent(k, name, expr):
    """The tangent of a real output of a complex operand is the real part."""
    return f"np.real({expr})" if k[name].is_complex else expr


def conjugated(k, name, expr):
    """conj(expr) when the operand ``name`` is complex, else expr itself (real rules stay as they were)."""
    return f"np.conj({expr})" if k[name].is_complex else expr


def conjugate_transposed(k, name, expr):
    """The conjugate transpose expr^H (the transpose for a real operand)."""
    return conjugated(k, name, f"{expr}.T")


def helper_kind(ndim, dtype=None):
    """The kind of a helper's result: the promoted kind of its array operands, with ``ndim``."""
    def kind(k, s):
        arrays = [v for v in k.values() if getattr(v, "ndim", 0) > 0]
        base = float_of(promote(*arrays))
        return (base.with_dtype(dtype) if dtype else base).with_ndim(ndim)
    return kind


def define_helpers(helpers):
    """Define the run-time helpers (function, signature, ndim, dtype) that generated derivative code calls:
    as primitives without derivative rules they can be transformed again (vmap of grad), and
    differentiating through them is a clear error."""
    for helper, signature, ndim, dtype in helpers:
        define(f"rt.{helper.__name__}", [helper], signature, helper_kind(ndim, dtype), diff=("a",) if
               "a" in signature.split(", ") else ("x",))


# ---- solve, inv, det, slogdet, trace, matrix_power ------------------------------------------------
def _solve_vjp(k, s):
    bb = "np.linalg.solve(a.T, g)"
    return {"a": f"-np.outer({bb}, y)" if k["b"].ndim == 1 else f"-np.dot({bb}, y.T)", "b": bb}


define("np.linalg.solve", [np.linalg.solve], "a, b", rhs_kind, _solve_vjp,
       jvp={"a": "-np.linalg.solve(a, np.dot(t, y))", "b": "np.linalg.solve(a, t)"})
define("np.linalg.inv", [np.linalg.inv], "a", matrix(), {"a": "-np.dot(y.T, np.dot(g, y.T))"},
       jvp={"a": "-np.dot(y, np.dot(t, y))"})
# the derivative of det is det(a) inv(a)^T itself: there is no solve to substitute for this inverse
define("np.linalg.det", [np.linalg.det], "a", matrix(ndim=0), {"a": "g * y * np.linalg.inv(a).T"},
       jvp={"a": "y * np.trace(np.linalg.solve(a, t))"})
define("rt.slogdet_sign", [rt.slogdet_sign], "a", matrix(ndim=0))          # piecewise constant: no derivative
define("rt.slogdet_logdet", [rt.slogdet_logdet], "a", matrix(ndim=0, dtype="real"),
       {"a": "g * np.linalg.inv(a).T"},
       jvp=lambda k, s: {"a": real_tangent(k, "a", "np.trace(np.linalg.solve(a, t))")})
# np.trace of a stack traces its first two axes: not a map over the matrices
define("np.trace", [np.trace], "a", matrix(ndim=0, stacks=False), {"a": "g * rt.identity_like(a)"}, jvp=LINEAR)
define("np.linalg.matrix_power", [np.linalg.matrix_power, rt.matrix_power], "a, n", matrix(),
       {"a": "rt.matrix_power_vjp(a, n, g)"}, diff=("a",), jvp={"a": "rt.matrix_power_jvp(a, n, t)"},
       lower=lambda s, k, ops: template_expr("rt.matrix_power(a, n)", a=ops["a"], n=ops["n"]))


# ---- norms --------------------------------------------------------------------------------------
def _norm_kind(k, s):
    if const_value(s["axis"], "axis") is not None:
        raise StaticError("norm with an axis is not supported; write it with np.sum and np.sqrt, or use vmap")
    x = k["x"]
    if x.ndim not in (1, 2):
        raise StaticError(f"norm of an array of rank {x.ndim} needs axis=, which is not supported")
    _norm_order(k, s)
    return real_of(x).with_ndim(0)


_VECTOR_ORDERS = "None, 1, 2, inf, -inf, 0 or any other number"
_MATRIX_ORDERS = "None, 'fro', 'nuc', 1, -1, 2, -2, inf, -inf"


def _norm_order(k, s):
    order = const_value(s["ord"], "ord")
    matrix_ok = (None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf)
    if k["x"].ndim == 2 and order not in matrix_ok:
        raise StaticError(f"ord={order!r} is not a matrix norm ({_MATRIX_ORDERS})")
    if k["x"].ndim == 1 and not (order is None or isinstance(order, (int, float))):
        raise StaticError(f"ord={order!r} is not a vector norm ({_VECTOR_ORDERS})")
    return order


def _norm_rules(k, s):
    """(adjoint, tangent) templates for y = norm(x, ord): d y = Re(sum(D * dx)) for a direction D."""
    order = _norm_order(k, s)
    cplx = k["x"].is_complex
    unit = "(np.conj(x) / np.abs(x))" if cplx else "np.sign(x)"
    if order in (None, "fro") or (order == 2 and k["x"].ndim == 1):
        direction = "np.conj(x) / y" if cplx else "x / y"
    elif k["x"].ndim == 2 and order in (2, -2):
        direction = f"rt.norm2_direction(x, {0 if order == 2 else -1})"
    elif k["x"].ndim == 2:                 # 1/-1: column sums, inf/-inf: row sums; ties share the cotangent
        axis = 0 if order in (1, -1) else 1
        hit = f"(rt.sum_axis(np.abs(x), {axis}, True) == y)"
        direction = f"{unit} * {hit} / np.sum({hit})"
    elif order in (np.inf, -np.inf):
        hit = "(np.abs(x) == y)"
        direction = f"{unit} * {hit} / np.sum({hit})"
    elif order == 0:                       # the number of nonzeros: piecewise constant
        direction = "0.0 * np.abs(x)"
    elif order == 1:
        direction = unit
    else:
        direction = f"{unit} * (np.abs(x) / y) ** {float(order) - 1.0!r}"
    return {"x": f"g * {direction}"}, {"x": real_tangent(k, "x", f"np.sum({direction} * t)")}


def _norm_lower(statics, kinds, operands):
    """'fro' is the default matrix norm; 'nuc' becomes rt.nuclear_norm (Numba takes no string ord)."""
    order = const_value(statics["ord"], "ord")
    if order == "fro":
        return template_expr("np.linalg.norm(x)", x=operands["x"])
    if order == "nuc":
        return template_expr("rt.nuclear_norm(x)", x=operands["x"])
    return None


define("np.linalg.norm", [np.linalg.norm], "x, ord=None, axis=None", _norm_kind,
       lambda k, s: _norm_rules(k, s)[0], diff=("x",), lower=_norm_lower, jvp=lambda k, s: _norm_rules(k, s)[1])
# d||x||_* = Re(sum(conj(U Vh) * t)) (reduced SVD)
_NUCLEAR = "np.dot(rt.svd_u(x, False), rt.svd_vh(x, False))"
define("rt.nuclear_norm", [rt.nuclear_norm], "x", matrix("x", ndim=0, dtype="real"),
       lambda k, s: {"x": f"g * {conjugated(k, 'x', _NUCLEAR)}"},
       jvp=lambda k, s: {"x": real_tangent(k, "x", f"np.sum({conjugated(k, 'x', _NUCLEAR)} * t)")})


# ---- triangular solves -----------------------------------------------------------------------------
def _lower_flag(s):
    flag = const_value(s["lower"], "lower")
    if not isinstance(flag, bool):
        raise StaticError("lower must be True or False")
    return flag


def _triangle(s):
    return "np.tril" if _lower_flag(s) else "np.triu"


def _solve_triangular_vjp(k, s):
    bb = f"rt.solve_triangular(a.T, g, {not _lower_flag(s)})"
    ba = f"-np.outer({bb}, y)" if k["b"].ndim == 1 else f"-np.dot({bb}, y.T)"
    return {"a": f"{_triangle(s)}({ba})", "b": bb}


def _solve_triangular_jvp(k, s):
    low = _lower_flag(s)
    return {"a": f"-rt.solve_triangular(a, np.dot({_triangle(s)}(t), y), {low})",
            "b": f"rt.solve_triangular(a, t, {low})"}


# scipy's runs as rt.solve_triangular (Numba lacks scipy); named, so that SciPy is imported only by its users
_TRIANGULAR = [rt.solve_triangular, "scipy.linalg.solve_triangular"]
define("rt.solve_triangular", _TRIANGULAR, "a, b, lower=False", rhs_kind, _solve_triangular_vjp,
       diff=("a", "b"), jvp=_solve_triangular_jvp)


# ---- triangles (linear), and the run-time helpers the rules above call ------------------------------
define("np.tril", [np.tril], "x, k=0", matrix("x"), {"x": "np.tril(g, k)"}, diff=("x",), jvp=LINEAR)
define("np.triu", [np.triu], "x, k=0", matrix("x"), {"x": "np.triu(g, k)"}, diff=("x",), jvp=LINEAR)
define_helpers(((rt.matrix_power_vjp, "a, n, g", 2, None), (rt.matrix_power_jvp, "a, n, t", 2, None),
                (rt.norm2_direction, "x, which", 2, None)))
# the identity shaped like a: a constant, whatever a holds
define("rt.identity_like", [rt.identity_like], "a", helper_kind(2))


#: library function -> the parts it is resolved to (a tuple of calls with the same arguments), and
#: optionally (keyword, value, part[, absent]): the call with that keyword constant (or without the keyword,
#: where ``absent``) returns only that part
MULTI_OUTPUT = {
    id(np.average): (np.average, ("np.average", "rt.average_weights_sum"), ("returned", False, 0, True)),
    id(np.linalg.slogdet): (np.linalg.slogdet, ("rt.slogdet_sign", "rt.slogdet_logdet"), None),
    id(np.linalg.eigh): (np.linalg.eigh, ("rt.eigh_values", "rt.eigh_vectors"), None),
    id(np.linalg.eig): (np.linalg.eig, ("rt.eig_values", "rt.eig_vectors"), None),
    id(np.linalg.qr): (np.linalg.qr, ("rt.qr_q", "rt.qr_r"), None),
    id(np.linalg.svd): (np.linalg.svd, ("rt.svd_u", "rt.svd_s", "rt.svd_vh"), ("compute_uv", False, 1)),
    id(np.linalg.lstsq): (np.linalg.lstsq, ("rt.lstsq_solution", "rt.lstsq_residuals", "rt.lstsq_rank",
                                            "rt.lstsq_singular_values"), None),
}


# ---- composites: library calls written with other primitives before anything else sees them ----------
def _norm_along_axis(call):
    """np.linalg.norm(x, ord, axis=k, keepdims=...) with one int axis: the vector norm of each slice, and with
    a tuple of axes the Frobenius norm, as reductions (their rules give the derivative); None when there is no
    axis."""
    names = ("x", "ord", "axis", "keepdims")
    bound = dict(zip(names, call.args))
    bound.update({kw.arg: kw.value for kw in call.keywords})
    axis = bound.get("axis")
    if axis is None or isinstance(axis, gast.Constant) and axis.value is None:
        return None
    axis_value, keep = const_value(axis, "axis"), const_value(bound.get("keepdims", gast.Constant(False, None)),
                                                              "keepdims")
    order = const_value(bound.get("ord", gast.Constant(None, None)), "ord")
    reduce = f"axis={axis_value}, keepdims={keep}"
    if isinstance(axis_value, tuple) and order in (None, "fro"):     # Frobenius norms of the matrices of a stack
        return template_expr(f"np.sqrt(np.sum(np.abs(x) ** 2, {reduce}))", x=bound["x"])
    if not isinstance(axis_value, int):
        raise StaticError(f"norm with a tuple axis and ord={order!r} (matrix norms of a stack) is not supported; "
                          "use vmap", hint="ord=None and ord='fro' take a tuple axis")
    if order is None or order == 2:
        text = f"np.sqrt(np.sum(np.abs(x) ** 2, {reduce}))"
    elif order == 1:
        text = f"np.sum(np.abs(x), {reduce})"
    elif order in (np.inf, -np.inf):
        text = f"np.{'max' if order > 0 else 'min'}(np.abs(x), {reduce})"
    elif isinstance(order, (int, float)) and order != 0:
        text = f"np.sum(np.abs(x) ** {order!r}, {reduce}) ** {1.0 / order!r}"
    else:
        raise StaticError(f"ord={order!r} with axis= is not supported ({_VECTOR_ORDERS}, except 0)")
    return template_expr(text, x=bound["x"])


def _cho_factor(call):
    """scipy.linalg.cho_factor(a, lower=False) -> (the Cholesky factor in that triangle, lower)."""
    lower = const_value(call.args[1] if len(call.args) > 1 else next(
        (kw.value for kw in call.keywords if kw.arg == "lower"), gast.Constant(False, None)), "lower")
    text = "(np.linalg.cholesky(a), True)" if lower else "(np.transpose(np.linalg.cholesky(a)), False)"
    return template_expr(text, a=call.args[0])


def _cho_solve(call):
    """scipy.linalg.cho_solve((c, lower), b): two triangular solves."""
    pair = call.args[0]
    if not (isinstance(pair, gast.Tuple) and len(pair.elts) == 2 and isinstance(pair.elts[1], gast.Constant)):
        raise StaticError("cho_solve needs (c, lower) written out, with lower a constant, or cho_factor(a) itself "
                          "as its first argument")
    first, second = ("c", "np.transpose(c)") if pair.elts[1].value else ("np.transpose(c)", "c")
    return template_expr(f"rt.solve_triangular({second}, rt.solve_triangular({first}, b, True), False)",
                         c=pair.elts[0], b=call.args[1])


#: library function -> a builder from its (resolved) call to the expression it is written as
COMPOSITES = {id(np.linalg.norm): (np.linalg.norm, _norm_along_axis)}
#: the same for SciPy's, by name: SciPy is imported only where the user's code does
SCIPY_COMPOSITES = {"cho_factor": _cho_factor, "cho_solve": _cho_solve}


def composite(obj):
    """The builder of a library function written with other primitives, else None."""
    hit = COMPOSITES.get(id(obj))
    if hit is None:
        for name, builder in SCIPY_COMPOSITES.items():
            if imported("scipy.linalg", name) is obj:
                hit = COMPOSITES[id(obj)] = (obj, builder)
    return hit[1] if hit is not None and hit[0] is obj else None


def multi_output(obj):
    """(parts, single) for a multi-output library function, else None."""
    hit = MULTI_OUTPUT.get(id(obj))
    return hit[1:] if hit is not None and hit[0] is obj else None
