"""NumPy's ufunc methods (``f.outer``, ``f.reduce``, ``f.accumulate``, ``f.at``) and ``np.cumsum`` /
``np.cumprod``: a table of programs over ufuncs x shapes x axes, each checked in jit (against NumPy),
grad (finite differences), jvp (a directional finite difference) and vmap by loop and by array
lifting (against a Python loop); a few of them also compiled by Numba. Then the tie rule of the
running maximum, the forms that are refused, and the multiply/maximum/minimum ``.at`` values.
"""
import numpy as np
import pytest

import transpyle
from transpyle.base.errors import TranspileError
from gradcheck import check_grad, distinct, normal, separated, signed, uniform
from mode_table import check_mode, mode_params

def _shape_id(shape):
    return "x".join(map(str, shape)) or "scalar"


# ---- f.outer ----------------------------------------------------------------------------------------
def _outer_program(u):
    def outer(a, b):
        return np.sum(np.sin(u.outer(a, b)))
    return outer


def _outer_inputs(name, shape_a, shape_b):
    if name in ("maximum", "minimum"):          # no pair close to a tie
        def draw(rng):
            a, b = separated(rng, shape_a + (1,) * len(shape_b), shape_b)
            return (np.reshape(a, shape_a) if shape_a else float(np.reshape(a, ()))), b
        return draw
    if name == "power":
        return lambda rng: (uniform(rng, shape_a, 0.5, 1.5), uniform(rng, shape_b, -1.0, 1.0))
    if name == "divide":
        return lambda rng: (normal(rng, shape_a), signed(rng, shape_b))
    return lambda rng: (normal(rng, shape_a), normal(rng, shape_b))


_OUTER_UFUNCS = ("add", "subtract", "multiply", "divide", "power", "maximum", "minimum", "arctan2", "hypot")
_OUTER_SHAPES = [((3,), (4,)), ((2, 3), (4,)), ((3,), (2, 2)), ((), (4,))]
_OUTER_NUMBA = {("multiply", (2, 3), (4,)): ("grad",), ("maximum", (3,), (4,)): ("jit",)}
OUTER_CASES = [(f"{name}-{_shape_id(sa)}-{_shape_id(sb)}", _outer_program(getattr(np, name)),
                _outer_inputs(name, sa, sb), _OUTER_NUMBA.get((name, sa, sb), ()))
               for name in _OUTER_UFUNCS for sa, sb in _OUTER_SHAPES]


@pytest.mark.parametrize("mode, fn, make, backend", mode_params(OUTER_CASES))
def test_outer(mode, fn, make, backend, rng):
    check_mode(mode, fn, make, backend, rng)


def test_outer_comparison_is_a_constant(rng):
    """A boolean outer (np.greater.outer) has the value NumPy gives and no derivative."""
    def mask_weighted(a, b):
        return np.sum(np.greater.outer(a, b) * np.multiply.outer(a, b))
    a, b = normal(rng, (3,)), normal(rng, (4,))
    np.testing.assert_allclose(transpyle.jit(mask_weighted, backend="numpy")(a, b), mask_weighted(a, b))
    check_grad(mask_weighted, (a, b), (0, 1))


# ---- f.reduce -----------------------------------------------------------------------------------------
def _reduce_program(u, axis, keepdims):
    if axis == "default":
        def reduce_default(x):
            return np.sum(np.sin(u.reduce(x)))
        return reduce_default

    def reduce_along(x):
        return np.sum(np.sin(u.reduce(x, axis=axis, keepdims=keepdims)))
    return reduce_along


def _positive_or_distinct(name, shape):
    if name in ("maximum", "minimum"):
        return lambda rng: (distinct(rng, shape),)
    if name == "multiply":
        return lambda rng: (signed(rng, shape, 0.7, 1.3),)
    return lambda rng: (normal(rng, shape),)


_REDUCE_FORMS = [((5,), "default", False), ((3, 4), "default", False), ((3, 4), 1, False), ((3, 4), -1, True),
                 ((2, 3, 4), 1, False), ((3, 4), None, False)]
_REDUCE_NUMBA = {("multiply", (3, 4), 1): ("grad",)}
REDUCE_CASES = [(f"{name}-{_shape_id(shape)}-axis{axis}{'-keep' if keep else ''}",
                 _reduce_program(getattr(np, name), axis, keep), _positive_or_distinct(name, shape),
                 _REDUCE_NUMBA.get((name, shape, axis), ()))
                for name in ("add", "multiply", "maximum", "minimum") for shape, axis, keep in _REDUCE_FORMS]


@pytest.mark.parametrize("mode, fn, make, backend", mode_params(REDUCE_CASES))
def test_reduce(mode, fn, make, backend, rng):
    check_mode(mode, fn, make, backend, rng)


def test_reduce_default_axis_is_zero(rng):
    def column_sums(x):
        return np.add.reduce(x)
    x = normal(rng, (3, 4))
    got = transpyle.jit(column_sums, backend="numpy")(x)
    assert got.shape == (4,)
    np.testing.assert_allclose(got, x.sum(axis=0))


# ---- f.accumulate, np.cumsum, np.cumprod ----------------------------------------------------------------
def _accumulate_program(u, axis):
    if axis == "default":
        def accumulate_default(x):
            return np.sum(np.sin(u.accumulate(x)))
        return accumulate_default

    def accumulate_along(x):
        return np.sum(np.sin(u.accumulate(x, axis=axis)))
    return accumulate_along


_ACCUMULATE_FORMS = [((6,), "default"), ((3, 4), "default"), ((3, 4), 1), ((3, 4), -1), ((2, 3, 4), 1),
                     ((2, 3, 4), 2)]
_ACCUMULATE_NUMBA = {("add", (3, 4), 1): ("grad",), ("multiply", (2, 3, 4), 1): ("grad",),
                     ("maximum", (3, 4), -1): ("grad",), ("minimum", (6,), "default"): ("jit",)}
ACCUMULATE_CASES = [(f"{name}-{_shape_id(shape)}-axis{axis}", _accumulate_program(getattr(np, name), axis),
                     _positive_or_distinct(name, shape), _ACCUMULATE_NUMBA.get((name, shape, axis), ()))
                    for name in ("add", "multiply", "maximum", "minimum") for shape, axis in _ACCUMULATE_FORMS]


def cumsum_flat(x):
    return np.sum(np.sin(np.cumsum(x))) + np.sum(np.cos(np.cumsum(x, axis=0)[0]))


def cumprod_columns(x):
    return np.sum(np.cumprod(x, axis=1) ** 2) + np.sum(np.cumprod(x))


def running_max_and_min(x):
    # a running maximum of a running minimum: the cotangent follows two sources
    return np.sum(np.maximum.accumulate(np.minimum.accumulate(x, axis=1), axis=0) * np.arange(1.0, 5.0))


def cumprod_through_zero(x):
    # a zero in the scan: the derivatives need no division by x
    z = x * np.array([1.0, 0.0, 1.0, 1.0])
    return np.sum(np.multiply.accumulate(z, axis=1))


ACCUMULATE_CASES += [
    ("cumsum-flat", cumsum_flat, lambda rng: (normal(rng, (3, 4)),), ()),
    ("cumprod-columns", cumprod_columns, lambda rng: (signed(rng, (3, 4), 0.7, 1.3),), ()),
    ("running-max-of-min", running_max_and_min, lambda rng: (distinct(rng, (3, 4)),), ("vmap_loop",)),
    ("cumprod-through-zero", cumprod_through_zero, lambda rng: (normal(rng, (3, 4)),), ()),
]


@pytest.mark.parametrize("mode, fn, make, backend", mode_params(ACCUMULATE_CASES))
def test_accumulate(mode, fn, make, backend, rng):
    check_mode(mode, fn, make, backend, rng)


def test_running_maximum_tie_rule():
    """At a tie the cotangent of the running maximum goes to the latest position attaining it (and a
    later, smaller element gets none): for x = [1, 3, 3, 2] the maximum [1, 3, 3, 3] comes from
    positions [0, 1, 2, 2]."""
    def weighted_running_max(x):
        return np.sum(np.maximum.accumulate(x) * np.array([1.0, 10.0, 100.0, 1000.0]))
    g = transpyle.grad(weighted_running_max, backend="numpy")(np.array([1.0, 3.0, 3.0, 2.0]))
    np.testing.assert_array_equal(g, [1.0, 10.0, 1100.0, 0.0])
    _, t = transpyle.jvp(weighted_running_max, (np.array([1.0, 3.0, 3.0, 2.0]),),
                         (np.array([1.0, 2.0, 4.0, 8.0]),), backend="numpy")
    assert t == 1.0 + 10.0 * 2.0 + 100.0 * 4.0 + 1000.0 * 4.0


# ---- f.at ------------------------------------------------------------------------------------------------
REPEATED = np.array([0, 2, 2, 4, 0, 1])
GRID = np.array([[3, 1], [1, 1]])


def add_at_repeated(y, v):
    z = y.copy()
    np.add.at(z, REPEATED, v)
    return np.sum(np.sin(z))


def subtract_at_rows(y, v):
    z = 2.0 * y
    np.subtract.at(z, np.array([1, 1, 3]), v)          # v: one row per index
    return np.sum(z ** 2)


def add_at_broadcast_row(y, v):
    z = y * 1.0
    np.add.at(z, REPEATED, v)                           # v: one row for every index
    return np.sum(np.sin(z))


def add_at_scalar(y, s):
    z = y + 0.0
    np.add.at(z, GRID, s)                               # a 2-D array of indices, one number
    return np.sum(np.cos(z))


def add_at_integer_index(y, v):
    z = y * 1.0
    np.add.at(z, 2, v)
    return np.sum(z ** 3)


def add_at_seen_through_alias(y, v):
    z = y.copy()
    w = z[1:]                                           # a view of the buffer np.add.at writes
    np.add.at(z, REPEATED, v)
    return np.sum(w * z[:-1])


def add_at_in_loop(y, v):
    z = y.copy()
    for k in range(3):
        np.add.at(z, REPEATED, v * z[k])
    return np.sum(z ** 2)


AT_CASES = [
    ("add-repeated", add_at_repeated, lambda rng: (normal(rng, (5,)), normal(rng, (6,))), ("grad",)),
    ("subtract-rows", subtract_at_rows, lambda rng: (normal(rng, (5, 3)), normal(rng, (3, 3))), ("jvp",)),
    ("add-broadcast-row", add_at_broadcast_row, lambda rng: (normal(rng, (5, 3)), normal(rng, (3,))), ()),
    ("add-scalar-2d-index", add_at_scalar, lambda rng: (normal(rng, (4, 2)), normal(rng)), ()),
    ("add-integer-index", add_at_integer_index, lambda rng: (normal(rng, (4, 3)), normal(rng, (3,))), ()),
    ("add-alias", add_at_seen_through_alias, lambda rng: (normal(rng, (5,)), normal(rng, (6,))), ()),
    ("add-in-loop", add_at_in_loop, lambda rng: (uniform(rng, (5,), 0.2, 0.5), uniform(rng, (6,), 0.2, 0.5)),
     ()),
]


@pytest.mark.parametrize("mode, fn, make, backend", mode_params(AT_CASES))
def test_at(mode, fn, make, backend, rng):
    check_mode(mode, fn, make, backend, rng)


def _at_value_program(u):
    def update_at(y, v):
        z = y.copy()
        u.at(z, REPEATED, v)
        return z
    return update_at


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=pytest.mark.numba)])
def test_value_only_at_methods(backend, rng):
    """np.multiply.at, np.maximum.at and np.minimum.at: NumPy's values, unbuffered at repeated indices."""
    y, v = normal(rng, (5,)), normal(rng, (6,))
    for u in (np.multiply, np.maximum, np.minimum) if backend == "numpy" else (np.multiply,):
        fn = _at_value_program(u)
        np.testing.assert_allclose(transpyle.jit(fn, backend=backend)(y, v), fn(y, v))


# ---- refusals ------------------------------------------------------------------------------------------------
def multiply_at_differentiated(y, v):
    z = y.copy()
    np.multiply.at(z, REPEATED, v)
    return np.sum(z)


def reduceat_used(x):
    return np.sum(np.add.reduceat(x, np.array([0, 2])))


def logical_outer_unknown(x):
    return np.sum(np.logaddexp.outer(x, x))


def at_with_tuple_index(y, v):
    z = y.copy()
    np.add.at(z, (np.array([0, 1]), np.array([1, 0])), v)
    return np.sum(z)


def accumulate_with_dtype(x):
    return np.sum(np.add.accumulate(x, dtype=np.float32))


def cumsum_of_mask(x):
    return np.sum(x * np.cumsum(x > 0))


@pytest.mark.parametrize("fn, args, message", [
    (multiply_at_differentiated, ((5,), (6,)), "rt.multiply_at has no reverse-mode rule"),
    (reduceat_used, ((5,),), "np.add.reduceat is not supported"),
    (logical_outer_unknown, ((3,),), "np.logaddexp.outer is not supported"),
    (at_with_tuple_index, ((3, 3), (2,)), "integer array of positions along the first axis"),
    (accumulate_with_dtype, ((4,),), "with a dtype is not supported"),
    (cumsum_of_mask, ((4,),), "a scan of a boolean array is not supported"),
])
def test_refused_at_the_users_line(fn, args, message, rng):
    values = tuple(normal(rng, shape) for shape in args)
    with pytest.raises(TranspileError) as err:
        transpyle.grad(fn, backend="numpy")(*values)
    assert message in str(err.value)
    assert "test_ufunc_methods.py" in str(err.value)


# ---- second derivatives: the rules are written with primitives that have rules of their own -----------------
def hessian_fd(fn, x, args, eps=1e-5):
    """Central differences of transpyle's gradient (checked above against finite differences of fn)."""
    grad = transpyle.grad(fn, backend="numpy")
    columns = []
    for i in range(x.size):
        step = np.zeros(x.size)
        step[i] = eps
        plus, minus = grad(x + step.reshape(x.shape), *args), grad(x - step.reshape(x.shape), *args)
        columns.append(((plus - minus) / (2 * eps)).ravel())
    return np.array(columns).T


def cumsum_second(x):
    return np.sum(np.sin(np.cumsum(x, axis=1)))


def running_max_second(x):
    return np.sum(np.sin(np.maximum.accumulate(x, axis=1)) * x)


def outer_second(x):
    return np.sum(np.sin(np.multiply.outer(x[0], x[1])))


def add_at_second(x, idx):
    z = x[0] * 1.0
    np.add.at(z, idx, x[1] ** 2)
    return np.sum(np.sin(z))


@pytest.mark.parametrize("fn, args", [(cumsum_second, ()), (running_max_second, ()), (outer_second, ()),
                                      (add_at_second, (np.array([0, 2, 2, 1]),))])
def test_second_derivatives(fn, args, rng):
    x = distinct(rng, (2, 4))
    got = transpyle.hessian(fn, backend="numpy")(x, *args).reshape(x.size, x.size)
    np.testing.assert_allclose(got, hessian_fd(fn, x, args), rtol=1e-6, atol=1e-8)


def test_second_derivative_of_cumprod_is_refused(rng):
    def cumprod_sum(x):
        return np.sum(np.cumprod(x, axis=1))
    with pytest.raises(TranspileError, match="rt.cumprod_vjp has no forward-mode rule"):
        transpyle.hessian(cumprod_sum, backend="numpy")(normal(rng, (2, 3)))
