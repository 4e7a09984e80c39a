"""Derivative rules of the primitives: one spec table drives one parametrised finite-difference test.

Each entry names a tiny function (defined at module level, since transpyle reads its source), how
to draw its arguments, and which arguments are differentiated. Every entry runs on the numpy
backend; entries marked ``numba=True`` also run compiled by Numba (a representative subset, since
each compile costs a second or two).

Functions reduce to a scalar through a random weight ``w`` (``np.sum(w * op(...))``) rather than
a plain sum, so the cotangent reaching each primitive differs per element: a rule that ignores the
incoming cotangent, transposes it, or un-broadcasts it along the wrong axis fails.

Domains keep every input away from kinks and singularities by a wide margin (see gradcheck.py).
"""
import math
from dataclasses import dataclass

import numpy as np
import pytest

import transpyle
from gradcheck import (backend_cases, check_grad, distincts, draw, normals, separated, signed, signeds, uniform,
                       uniforms)


@dataclass(frozen=True)
class Spec:
    name: str
    fn: object
    make: object            # rng -> tuple of arguments
    argnums: object = 0
    numba: bool = False     # also run on the numba backend


# ---- arithmetic on scalars -------------------------------------------------------------------
def s_add(x, y):
    return 2.0 * (x + y) + x


def s_sub(x, y):
    return (x - y) * 3.0 - y


def s_mul(x, y):
    return x * y * x


def s_div(x, y):
    return x / y + 1.0 / x


def s_pow_active_exponent(x, y):
    return x ** y


def s_pow_int(x):
    return x ** 3 - 2.0 * x ** 2 + x ** -1


def s_pow_float(x):
    return x ** 2.5 + x ** 0.5 + x ** -1.5


def s_pow_const_base(x):
    return 2.0 ** x + 3 ** x


def s_pow_int_argument(x, n):
    return x ** n


def s_neg(x, y):
    return -x * y + -(x - y) ** 2


def s_floordiv(x):
    return x * (x // 0.5) + (3.0 * x) // 1.0


def s_int_true_div(x, n):
    return x * (n / 4) + x / n


def aug_scalar(x, y):
    s = x
    s += y * x
    s -= 0.5 * y
    s *= x
    s /= y
    s **= 2
    return s


def aug_array(x, w):
    y = x * 1.0
    y += 1.0
    y *= x
    y -= w
    y /= 2.0
    y **= 2
    return np.sum(w * y)


def neg_array(x, w):
    return np.sum(w * -x) + np.sum(-(x * x))


def floordiv_array(x, w):
    return np.sum(w * x * (x // 0.5))


FLOOR_JUMPS = tuple(k / 6 for k in range(-20, 20))   # where x // 0.5 and (3 x) // 1 jump

# ---- comparisons and boolean operators ------------------------------------------------------------


def cond_logic(x, y):
    if x > 0.0 and y > 0.0:
        r = x * y
    elif x < 0.0 or y >= 1.5:
        r = x - y * y
    elif not x == y:
        r = x ** 2 + y
    else:
        r = 0.0 * x
    return r


def cond_chained(x):
    y = x
    if -0.5 < x <= 0.5:
        y = math.sin(x) * 2.0
    if x != 0.75 and not (x > 1.5):
        y = y * x
    return y


def mask_multiply(x, w):
    return np.sum(w * (x > 0.0) * x) + np.sum(w * (x <= 0.0) * x * x)


def mask_count(x):
    return (1.0 + np.sum(x > 0.0)) * np.sum(x * x)


# ---- binary operators and functions with broadcasting ---------------------------------------------
def op_add(a, b, w):
    return np.sum(w * (a + b))


def op_sub(a, b, w):
    return np.sum(w * (a - b))


def op_mul(a, b, w):
    return np.sum(w * (a * b))


def op_div(a, b, w):
    return np.sum(w * (a / b))


def op_pow(a, b, w):
    return np.sum(w * a ** b)


def op_power(a, b, w):
    return np.sum(w * np.power(a, b))


def op_floordiv(a, b, w):
    return np.sum(w * (a // b) * a * b)


def op_maximum(a, b, w):
    return np.sum(w * np.maximum(a, b))


def op_minimum(a, b, w):
    return np.sum(w * np.minimum(a, b))


def op_where(a, b, w):
    return np.sum(w * np.where(w > 0.0, a, b))


def _plain(rng, sa, sb):
    return uniform(rng, sa), uniform(rng, sb)


def _divisor(rng, sa, sb):
    return uniform(rng, sa), signed(rng, sb)


def _power(rng, sa, sb):
    return uniform(rng, sa, 0.5, 2.0), uniform(rng, sb, -1.5, 1.5)


def _floor_operands(rng, sa, sb):
    """Operands whose quotients all stay 0.05 away from an integer: a // b is locally constant."""
    for _ in range(10000):
        a, b = uniform(rng, sa, 0.5, 3.0), uniform(rng, sb, 0.7, 1.3)
        frac = np.asarray(a) / np.asarray(b) % 1.0
        if np.all((frac > 0.05) & (frac < 0.95)):
            return a, b
    raise ValueError("could not draw operands for floor division")


BINARY = {
    "add": (op_add, _plain),
    "sub": (op_sub, _plain),
    "mul": (op_mul, _plain),
    "div": (op_div, _divisor),
    "floordiv": (op_floordiv, _floor_operands),
    "pow": (op_pow, _power),
    "power": (op_power, _power),
    "maximum": (op_maximum, separated),
    "minimum": (op_minimum, separated),
    "where": (op_where, _plain),
}

BROADCAST_SHAPES = [((), (4,)), ((4,), ()), ((4,), (4,)), ((3, 1), (4,)), ((4,), (3, 4)), ((3, 1), (1, 4))]

BINARY_ON_NUMBA = {("add", (3, 1), (4,)), ("mul", (), (4,)), ("div", (4,), (3, 4)), ("pow", (3, 1), (1, 4)),
                   ("maximum", (4,), ()), ("where", (3, 1), (4,))}


def _shape_id(shape):
    return "x".join(map(str, shape)) if shape else "scalar"


def _binary_specs():
    for op, (fn, operands) in BINARY.items():
        for sa, sb in BROADCAST_SHAPES:
            def make(rng, operands=operands, sa=sa, sb=sb):
                a, b = operands(rng, sa, sb)
                return a, b, rng.standard_normal(np.broadcast_shapes(sa, sb))
            yield Spec(f"{op}[{_shape_id(sa)},{_shape_id(sb)}]", fn, make, (0, 1), (op, sa, sb) in BINARY_ON_NUMBA)


# ---- elementwise functions on arrays -----------------------------------------------------------------
def np_sin(x, w):
    return np.sum(w * np.sin(x))


def np_cos(x, w):
    return np.sum(w * np.cos(x))


def np_tan(x, w):
    return np.sum(w * np.tan(x))


def np_exp(x, w):
    return np.sum(w * np.exp(x))


def np_log(x, w):
    return np.sum(w * np.log(x))


def np_log1p(x, w):
    return np.sum(w * np.log1p(x))


def np_expm1(x, w):
    return np.sum(w * np.expm1(x))


def np_sqrt(x, w):
    return np.sum(w * np.sqrt(x))


def np_cbrt(x, w):
    return np.sum(w * np.cbrt(x))


def np_tanh(x, w):
    return np.sum(w * np.tanh(x))


def np_sinh(x, w):
    return np.sum(w * np.sinh(x))


def np_cosh(x, w):
    return np.sum(w * np.cosh(x))


def np_arctan(x, w):
    return np.sum(w * np.arctan(x))


def np_arcsin(x, w):
    return np.sum(w * np.arcsin(x))


def np_arccos(x, w):
    return np.sum(w * np.arccos(x))


def np_abs(x, w):
    return np.sum(w * np.abs(x))


def builtin_abs_array(x, w):
    return np.sum(w * abs(x))


def np_sign(x, w):
    return np.sum(w * np.sign(x) * x * x)


def np_relu(x, w):
    return np.sum(w * np.maximum(x, 0.0))


def np_minimum_const(x, w):
    return np.sum(w * np.minimum(0.25, x))


def np_where_branches(x, w):
    return np.sum(w * np.where(x > 0.0, x * x, -2.0 * x))


def np_where_scalar_branch(x, w):
    return np.sum(w * np.where(x < 0.5, np.exp(x), 1.0))


def np_clip(x, w):
    return np.sum(w * np.clip(x, -0.5, 0.5))


def np_clip_bounds(x, lo, hi, w):
    return np.sum(w * np.clip(x, lo, hi))


def np_power_int(x, w):
    return np.sum(w * np.power(x, 3))


def pow_negative_base(x, w):
    return np.sum(w * x ** 3) + np.sum(w * x ** 2)


def pow_float_array(x, w):
    return np.sum(w * (x ** 0.5 + x ** -2.0))


def pow_scalar_base_array_exponent(s, x, w):
    return np.sum(w * s ** x)


# ---- elementwise functions on scalars (math and np) ----------------------------------------------------
def m_sin(x):
    return 2.0 * math.sin(x)


def m_cos(x):
    return 2.0 * math.cos(x)


def m_tan(x):
    return 2.0 * math.tan(x)


def m_exp(x):
    return 2.0 * math.exp(x)


def m_log(x):
    return 2.0 * math.log(x)


def m_log1p(x):
    return 2.0 * math.log1p(x)


def m_expm1(x):
    return 2.0 * math.expm1(x)


def m_sqrt(x):
    return 2.0 * math.sqrt(x)


def m_tanh(x):
    return 2.0 * math.tanh(x)


def m_sinh(x):
    return 2.0 * math.sinh(x)


def m_cosh(x):
    return 2.0 * math.cosh(x)


def m_atan(x):
    return 2.0 * math.atan(x)


def m_asin(x):
    return 2.0 * math.asin(x)


def m_acos(x):
    return 2.0 * math.acos(x)


def m_fabs(x):
    return 2.0 * math.fabs(x)


def builtin_abs_scalar(x):
    return 2.0 * abs(x)


def np_on_scalars(x, y):
    return np.exp(x) * np.sqrt(y) + np.maximum(x, y) - np.minimum(x, y) * y + np.sign(x) * x


def np_where_scalars(x, y):
    return np.where(x > y, x * y, x + y) * 2.0


def np_clip_scalar(x):
    return np.clip(x, -0.5, 0.5) * x


# ---- reductions ------------------------------------------------------------------------------------------
def sum_all(x):
    return 3.0 * np.sum(x)


def sum_axis0(x, w):
    return np.sum(w * np.sum(x, axis=0))


def sum_axis1_keepdims(x, w):
    return np.sum(w * (x - np.sum(x, axis=1, keepdims=True)) ** 2)


def sum_axis_negative(x, w):
    return np.sum(w * np.sum(x * x, axis=-1))


def sum_keepdims_none(x, w):
    return np.sum(w * x / np.sum(x * x, keepdims=True))


def sum_method(x, w):
    return np.sum(w * x.sum(axis=0)) + x.sum() ** 2


def mean_all(x):
    return 3.0 * np.mean(x * x)


def mean_axis1(x, w):
    return np.sum(w * np.mean(x, axis=1))


def mean_axis0_keepdims(x, w):
    return np.sum(w * (x - np.mean(x, axis=0, keepdims=True)) ** 2)


def mean_method(x):
    return x.mean() * x.mean(axis=1)[0]


def prod_all(x):
    return 3.0 * np.prod(x)


def prod_axis0(x, w):
    return np.sum(w * np.prod(x, axis=0))


def prod_axis1_keepdims(x, w):
    return np.sum(w * x * np.prod(x, axis=1, keepdims=True))


def max_all(x):
    return 3.0 * np.max(x)


def max_axis0(x, w):
    return np.sum(w * np.max(x, axis=0))


def max_axis1_keepdims(x, w):
    return np.sum(w * np.exp(x - np.max(x, axis=1, keepdims=True)))


def max_method(x, w):
    return x.max() * np.sum(w * x.max(axis=1))


def min_all(x):
    return 3.0 * np.min(x) * np.min(x)


def min_axis1(x, w):
    return np.sum(w * np.min(x, axis=1))


def min_axis0_keepdims(x, w):
    return np.sum(w * (x - np.min(x, axis=0, keepdims=True)) ** 2)


def norm_vector(x):
    return np.linalg.norm(x) ** 3


def norm_matrix(x, w):
    return np.sum(w * x) * np.linalg.norm(x)


# ---- products --------------------------------------------------------------------------------------------
def dot_vv(a, b):
    return np.dot(a, b) * 2.0


def matmul_vv(a, b):
    return (a @ b) ** 2


def dot_mv(m, v, w):
    return np.sum(w * np.dot(m, v))


def matmul_mv(m, v, w):
    return np.sum(w * (m @ v))


def matmul_vm(v, m, w):
    return np.sum(w * (v @ m))


def dot_mm(a, b, w):
    return np.sum(w * np.dot(a, b))


def matmul_mm(a, b, w):
    return np.sum(w * (a @ b))


def dot_method(a, b, w):
    return np.sum(w * a.dot(b))


def quadratic_form(x, m):
    return x @ m @ x


def outer(a, b, w):
    return np.sum(w * np.outer(a, b))


# ---- shapes and layout ---------------------------------------------------------------------------------
def transpose_attr(x, w):
    return np.sum(w * x.T)


def transpose_fn(x, w):
    return np.sum(w * np.transpose(x) ** 2)


def transpose_matmul(a, b, w):
    return np.sum(w * (a.T @ b))


def reshape_args(x, w):
    return np.sum(w * x.reshape(2, 6))


def reshape_tuple(x, w):
    return np.sum(w * x.reshape((4, 3)) ** 2)


def reshape_fn_flat(x, w):
    return np.sum(w * np.reshape(x, (12,)))


def reshape_minus_one(x, w):
    return np.sum(w * np.sin(x.reshape(-1)))


def reshape_then_matmul(x, v):
    return np.sum((x.reshape(3, 4) @ v) ** 2)


def ravel_method(x, w):
    return np.sum(w * x.ravel())


def ravel_fn(x, w):
    return np.sum(w * np.ravel(x) ** 2)


def ravel_transposed(x, w):
    return np.sum(w * x.T.ravel())


def concat_1d(a, b, w):
    return np.sum(w * np.concatenate((a, b)))


def concat_list_repeated(a, b, w):
    return np.sum(w * np.concatenate([a, b, a * a]))


def concat_axis1(a, b, w):
    return np.sum(w * np.concatenate((a, b), axis=1))


def stack_0(a, b, w):
    return np.sum(w * np.stack((a, b)))


def stack_axis1(a, b, w):
    return np.sum(w * np.stack((a, b * b), axis=1))


# ---- constructors, shapes, copies ---------------------------------------------------------------------
def ctor_zeros(x, w):
    y = np.zeros(x.shape[0])
    y += x * x
    return np.sum(w * y)


def ctor_zeros_2d(x, w):
    y = np.zeros((x.shape[0], 2))
    y[:, 0] = x
    y[:, 1] = x * x
    return np.sum(w * y)


def ctor_ones(x, w):
    return np.sum(w * np.ones(x.shape) / (1.0 + x * x))


def ctor_empty(x, w):
    y = np.empty(x.shape[0])
    y[:] = np.sin(x)
    return np.sum(w * y)


def ctor_full_active(s, w):
    y = np.full(w.shape[0], s)
    return np.sum(w * y * y)


def ctor_full_const(x, w):
    return np.sum(w * (np.full(x.shape, 2.0) - x) ** 2)


def ctor_zeros_like(x, w):
    y = np.zeros_like(x)
    y = y + x ** 3
    return np.sum(w * y)


def ctor_ones_like(x, w):
    return np.sum(w * np.ones_like(x) / x)


def ctor_arange(x):
    return np.sum(np.arange(x.shape[0]) * x * x)


def ctor_arange_float(x, w):
    t = np.arange(0.0, 1.0, 0.25)
    return np.sum(w * np.exp(t * x))


def ctor_linspace(x, w):
    t = np.linspace(0.0, 1.0, x.shape[0])
    return np.sum(w * np.exp(t * x))


def len_range_loop(x):
    n = len(x)
    s = 0.0
    for i in range(n):
        s += x[i] * (i + 1)
    return s * s


def shape_unpack_loop(a):
    m, n = a.shape
    s = 0.0
    for i in range(m):
        for j in range(n):
            s += a[i, j] ** 2 * (i - j)
    return s


def shape_index(a, w):
    return np.sum(w * a) * a.shape[0] / a.shape[1]


def copy_method(x, w):
    y = x.copy()
    y *= 2.0
    y += x
    return np.sum(w * y * y)


def copy_fn(x, w):
    y = np.copy(x)
    y[0] = 1.0
    return np.sum(w * y * x)


# ---- the table ---------------------------------------------------------------------------------------------
N, U, S, D = normals, uniforms, signeds, distincts     # short names keep the table one line per entry

M = (3, 4)      # the matrix shape used by the reductions and layout rules
E = (2, 3)      # the shape used by the elementwise rules

SPECS = [
    # arithmetic on scalars
    Spec("s_add", s_add, draw(N(), N()), (0, 1)),
    Spec("s_sub", s_sub, draw(N(), N()), (0, 1)),
    Spec("s_mul", s_mul, draw(N(), N()), (0, 1)),
    Spec("s_div", s_div, draw(S(), S()), (0, 1)),
    Spec("s_pow_active_exponent", s_pow_active_exponent, draw(U((), 0.5, 2.0), U((), -1.5, 1.5)), (0, 1), True),
    Spec("s_pow_int", s_pow_int, draw(S())),
    Spec("s_pow_float", s_pow_float, draw(U((), 0.5, 2.0))),
    Spec("s_pow_const_base", s_pow_const_base, draw(U((), -1.5, 1.5))),
    Spec("s_pow_int_argument", s_pow_int_argument, draw(S(), 3)),
    Spec("s_neg", s_neg, draw(N(), N()), (0, 1)),
    Spec("s_floordiv", s_floordiv, draw(U((), -2.9, 2.9, FLOOR_JUMPS, 0.01))),
    Spec("s_int_true_div", s_int_true_div, draw(N(), 3)),
    Spec("aug_scalar", aug_scalar, draw(N(), S()), (0, 1), True),
    Spec("aug_array", aug_array, draw(N(E), N(E))),
    Spec("neg_array", neg_array, draw(N(E), N(E))),
    Spec("floordiv_array", floordiv_array, draw(U(E, -2.9, 2.9, FLOOR_JUMPS, 0.01), N(E))),
    # comparisons and boolean operators in conditions
    Spec("cond_logic[x>0,y>0]", cond_logic, draw(U((), 0.2, 2.0), U((), 0.2, 2.0)), (0, 1), True),
    Spec("cond_logic[x<0]", cond_logic, draw(U((), -2.0, -0.2), N()), (0, 1)),
    Spec("cond_logic[x>0,y<0]", cond_logic, draw(U((), 0.2, 2.0), U((), -2.0, -0.2)), (0, 1)),
    Spec("cond_chained[inner]", cond_chained, draw(U((), -0.45, 0.45))),
    Spec("cond_chained[middle]", cond_chained, draw(U((), 0.6, 1.4, (0.75,)))),
    Spec("cond_chained[outer]", cond_chained, draw(U((), 1.6, 2.5))),
    Spec("mask_multiply", mask_multiply, draw(U(E, avoid=(0.0,)), N(E))),
    Spec("mask_count", mask_count, draw(U(E, avoid=(0.0,)))),
    # elementwise functions on arrays
    Spec("np.sin", np_sin, draw(U(E, -3.0, 3.0), N(E))),
    Spec("np.cos", np_cos, draw(U(E, -3.0, 3.0), N(E))),
    Spec("np.tan", np_tan, draw(U(E, -1.2, 1.2), N(E))),
    Spec("np.exp", np_exp, draw(U(E, -2.0, 2.0), N(E))),
    Spec("np.log", np_log, draw(U(E, 0.3, 3.0), N(E))),
    Spec("np.log1p", np_log1p, draw(U(E, -0.5, 2.0), N(E))),
    Spec("np.cbrt", np_cbrt, draw(U(E, -3.0, 3.0, (0.0,), 0.3), N(E)), 0, True),
    Spec("np.expm1", np_expm1, draw(U(E, -2.0, 2.0), N(E))),
    Spec("np.sqrt", np_sqrt, draw(U(E, 0.2, 3.0), N(E))),
    Spec("np.tanh", np_tanh, draw(U(E, -2.0, 2.0), N(E)), 0, True),
    Spec("np.sinh", np_sinh, draw(U(E, -2.0, 2.0), N(E))),
    Spec("np.cosh", np_cosh, draw(U(E, -2.0, 2.0), N(E))),
    Spec("np.arctan", np_arctan, draw(U(E, -3.0, 3.0), N(E))),
    Spec("np.arcsin", np_arcsin, draw(U(E, -0.9, 0.9), N(E)), 0, True),
    Spec("np.arccos", np_arccos, draw(U(E, -0.9, 0.9), N(E))),
    Spec("np.abs", np_abs, draw(U(E, avoid=(0.0,)), N(E)), 0, True),
    Spec("abs(array)", builtin_abs_array, draw(U(E, avoid=(0.0,)), N(E))),
    Spec("np.sign", np_sign, draw(U(E, avoid=(0.0,)), N(E))),
    Spec("np.maximum(x,0)", np_relu, draw(U(E, avoid=(0.0,)), N(E))),
    Spec("np.minimum(c,x)", np_minimum_const, draw(U(E, avoid=(0.25,)), N(E))),
    Spec("np.where(x>0,..)", np_where_branches, draw(U(E, avoid=(0.0,)), N(E))),
    Spec("np.where(..,scalar)", np_where_scalar_branch, draw(U(E, avoid=(0.5,)), N(E))),
    Spec("np.clip", np_clip, draw(U(E, avoid=(-0.5, 0.5)), N(E)), 0, True),
    Spec("np.clip[active bounds]", np_clip_bounds,
         draw(U((4,), -1.0, 1.0, (-0.4, 0.4)), -0.4, 0.4, N((4,))), (0, 1, 2)),
    Spec("np.power(x,3)", np_power_int, draw(N(E), N(E))),
    Spec("x**3 negative base", pow_negative_base, draw(S(E), N(E))),
    Spec("x**float", pow_float_array, draw(U(E, 0.5, 2.0), N(E))),
    Spec("scalar**array", pow_scalar_base_array_exponent, draw(U((), 0.5, 2.0), N(E), N(E)), (0, 1)),
    # elementwise functions on scalars
    Spec("math.sin", m_sin, draw(U((), -3.0, 3.0))),
    Spec("math.cos", m_cos, draw(U((), -3.0, 3.0))),
    Spec("math.tan", m_tan, draw(U((), -1.2, 1.2))),
    Spec("math.exp", m_exp, draw(U((), -2.0, 2.0)), 0, True),
    Spec("math.log", m_log, draw(U((), 0.3, 3.0))),
    Spec("math.log1p", m_log1p, draw(U((), -0.5, 2.0))),
    Spec("math.expm1", m_expm1, draw(U((), -2.0, 2.0))),
    Spec("math.sqrt", m_sqrt, draw(U((), 0.2, 3.0))),
    Spec("math.tanh", m_tanh, draw(U((), -2.0, 2.0))),
    Spec("math.sinh", m_sinh, draw(U((), -2.0, 2.0))),
    Spec("math.cosh", m_cosh, draw(U((), -2.0, 2.0))),
    Spec("math.atan", m_atan, draw(U((), -3.0, 3.0))),
    Spec("math.asin", m_asin, draw(U((), -0.9, 0.9))),
    Spec("math.acos", m_acos, draw(U((), -0.9, 0.9))),
    Spec("math.fabs", m_fabs, draw(U((), avoid=(0.0,)))),
    Spec("abs(scalar)", builtin_abs_scalar, draw(U((), avoid=(0.0,)))),
    Spec("np.*(scalars)", np_on_scalars, lambda rng: separated(rng, (), (), 0.2, 2.0, 0.1), (0, 1)),
    Spec("np.where(scalars)", np_where_scalars, lambda rng: separated(rng, (), (), -1.0, 1.0, 0.05), (0, 1)),
    Spec("np.clip(scalar)", np_clip_scalar, draw(U((), avoid=(-0.5, 0.5)))),
    # reductions
    Spec("sum", sum_all, draw(N(M))),
    Spec("sum[axis=0]", sum_axis0, draw(N(M), N((4,)))),
    Spec("sum[axis=1,keepdims]", sum_axis1_keepdims, draw(N(M), N(M)), 0, True),
    Spec("sum[axis=-1]", sum_axis_negative, draw(N(M), N((3,)))),
    Spec("sum[keepdims]", sum_keepdims_none, draw(N(M), N(M))),
    Spec("x.sum", sum_method, draw(N(M), N((4,)))),
    Spec("mean", mean_all, draw(N(M))),
    Spec("mean[axis=1]", mean_axis1, draw(N(M), N((3,)))),
    Spec("mean[axis=0,keepdims]", mean_axis0_keepdims, draw(N(M), N(M))),
    Spec("x.mean", mean_method, draw(N(M))),
    Spec("prod", prod_all, draw(S(M, 0.5, 1.5))),
    Spec("prod[axis=0]", prod_axis0, draw(S(M, 0.5, 1.5), N((4,)))),
    Spec("prod[axis=1,keepdims]", prod_axis1_keepdims, draw(S(M, 0.5, 1.5), N(M)), 0, True),
    Spec("max", max_all, draw(D(M))),
    Spec("max[axis=0]", max_axis0, draw(D(M), N((4,))), 0, True),
    Spec("max[axis=1,keepdims]", max_axis1_keepdims, draw(D(M), N(M))),
    Spec("x.max", max_method, draw(D(M), N((3,)))),
    Spec("min", min_all, draw(D(M))),
    Spec("min[axis=1]", min_axis1, draw(D(M), N((3,)))),
    Spec("min[axis=0,keepdims]", min_axis0_keepdims, draw(D(M), N(M))),
    Spec("np.linalg.norm(vector)", norm_vector, draw(N((5,))), 0, True),
    Spec("np.linalg.norm(matrix)", norm_matrix, draw(N(M), N(M))),
    # products
    Spec("np.dot(v,v)", dot_vv, draw(N((5,)), N((5,))), (0, 1)),
    Spec("v@v", matmul_vv, draw(N((5,)), N((5,))), (0, 1)),
    Spec("np.dot(m,v)", dot_mv, draw(N(M), N((4,)), N((3,))), (0, 1)),
    Spec("m@v", matmul_mv, draw(N(M), N((4,)), N((3,))), (0, 1), True),
    Spec("v@m", matmul_vm, draw(N((3,)), N(M), N((4,))), (0, 1)),
    Spec("np.dot(m,m)", dot_mm, draw(N(M), N((4, 2)), N((3, 2))), (0, 1), True),
    Spec("m@m", matmul_mm, draw(N(M), N((4, 2)), N((3, 2))), (0, 1)),
    Spec("a.dot(b)", dot_method, draw(N(M), N((4,)), N((3,))), (0, 1)),
    Spec("x@m@x", quadratic_form, draw(N((4,)), N((4, 4))), (0, 1)),
    Spec("np.outer", outer, draw(N((3,)), N((4,)), N(M)), (0, 1), True),
    # shapes and layout
    Spec("x.T", transpose_attr, draw(N(M), N((4, 3)))),
    Spec("np.transpose", transpose_fn, draw(N(M), N((4, 3)))),
    Spec("a.T@b", transpose_matmul, draw(N(M), N((3, 2)), N((4, 2))), (0, 1)),
    Spec("x.reshape(2,6)", reshape_args, draw(N(M), N((2, 6))), 0, True),
    Spec("x.reshape((4,3))", reshape_tuple, draw(N(M), N((4, 3)))),
    Spec("np.reshape", reshape_fn_flat, draw(N(M), N((12,)))),
    Spec("x.reshape(-1)", reshape_minus_one, draw(N(M), N((12,)))),
    Spec("reshape@", reshape_then_matmul, draw(N((12,)), N((4,))), (0, 1)),
    Spec("x.ravel", ravel_method, draw(N(M), N((12,)))),
    Spec("np.ravel", ravel_fn, draw(N(M), N((12,)))),
    Spec("x.T.ravel", ravel_transposed, draw(N(M), N((12,)))),
    Spec("np.concatenate", concat_1d, draw(N((3,)), N((4,)), N((7,))), (0, 1)),
    Spec("np.concatenate[list]", concat_list_repeated, draw(N((3,)), N((4,)), N((10,))), (0, 1)),
    Spec("np.concatenate[axis=1]", concat_axis1, draw(N((3, 2)), N(M), N((3, 6))), (0, 1), True),
    Spec("np.stack", stack_0, draw(N((4,)), N((4,)), N((2, 4))), (0, 1)),
    Spec("np.stack[axis=1]", stack_axis1, draw(N((4,)), N((4,)), N((4, 2))), (0, 1)),
    # constructors, shapes, copies
    Spec("np.zeros", ctor_zeros, draw(N((5,)), N((5,))), 0, True),
    Spec("np.zeros(2d)", ctor_zeros_2d, draw(N((5,)), N((5, 2)))),
    Spec("np.ones", ctor_ones, draw(N((5,)), N((5,)))),
    Spec("np.empty", ctor_empty, draw(N((5,)), N((5,)))),
    Spec("np.full[active]", ctor_full_active, draw(N(), N((5,)))),
    Spec("np.full", ctor_full_const, draw(N((5,)), N((5,)))),
    Spec("np.zeros_like", ctor_zeros_like, draw(N((5,)), N((5,)))),
    Spec("np.ones_like", ctor_ones_like, draw(S((5,)), N((5,)))),
    Spec("np.arange", ctor_arange, draw(N((5,)))),
    Spec("np.arange(float)", ctor_arange_float, draw(N((4,)), N((4,)))),
    Spec("np.linspace", ctor_linspace, draw(N((5,)), N((5,)))),
    Spec("len+range", len_range_loop, draw(N((5,))), 0, True),
    Spec("shape unpack", shape_unpack_loop, draw(N(M))),
    Spec("x.shape[i]", shape_index, draw(N(M), N(M))),
    Spec("x.copy", copy_method, draw(N((5,)), N((5,)))),
    Spec("np.copy", copy_fn, draw(N((5,)), N((5,)))),
    *_binary_specs(),
]


def test_spec_names_are_unique():
    names = [s.name for s in SPECS]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("spec, backend", backend_cases((s.name, (s,), s.numba) for s in SPECS))
def test_rule(spec, backend, rng):
    check_grad(spec.fn, spec.make(rng), spec.argnums, backend=backend)


# ---- closed forms: a few gradients known exactly, independent of finite differences --------------------
def test_closed_forms():
    assert transpyle.grad(s_mul, backend="numpy")(3.0, 2.0) == pytest.approx(12.0)
    assert transpyle.grad(s_pow_int, backend="numpy")(2.0) == pytest.approx(3 * 4.0 - 4.0 * 2.0 - 0.25)
    x = np.array([1.0, -2.0, 3.0])
    np.testing.assert_allclose(transpyle.grad(norm_vector, backend="numpy")(x),
                               3.0 * np.linalg.norm(x) * x, rtol=1e-12)
    m = np.arange(12.0).reshape(3, 4) - 5.5
    np.testing.assert_allclose(transpyle.grad(max_all, backend="numpy")(m), 3.0 * (m == m.max()), rtol=1e-12)
