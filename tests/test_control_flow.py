"""Control flow and program structure in differentiated code, and the API around it.

Loops (ranges with steps and data-dependent bounds, iteration over arrays, enumerate, zip, nesting,
while with a data-dependent condition), branches on data, break/continue/early return, calls to
helpers, nested functions, lambdas and closures, keyword and default arguments, tuples; then
has_aux, value_and_grad, vjp and argnums tuples.

Where a loop's trip count or a branch depends on the data, the inputs are drawn so that the
finite-difference steps never change it (thresholds sit halfway between consecutive iterates).
"""
import functools
import math

import numpy as np
import pytest

import transpyle
from gradcheck import (ALL_BACKENDS, assert_matches_fd, assert_same_output, backend_cases, check_grad, check_vjp,
                       draw, normal, normals, uniform, uniforms)

N, U = normals, uniforms


# ---- loops over ranges ---------------------------------------------------------------------------------
def range_step(x):
    s = 0.0
    for i in range(1, x.shape[0], 2):
        s += x[i] * x[i - 1]
    return s


def range_negative_step(x):
    s = 0.0
    for i in range(x.shape[0] - 1, 0, -1):
        s = 0.5 * s + x[i] * math.cos(s)
    return s


def range_argument_bounds(x, lo, hi, step):
    s = 1.0
    for i in range(lo, hi, step):
        s = s * x[i] + x[i - lo]
    return s


def range_data_bounds(x, t):
    n = int(np.sum(x > 0.0))
    s = t
    for i in range(n):
        s = 0.5 * s + x[i] * t
    for k in range(int(t * 4.0)):
        s += 0.1 * math.sin(s + t)
    return s


# ---- loops over arrays ------------------------------------------------------------------------------------
def loop_over_rows(a, v):
    s = 0.0
    for row in a:
        s += np.sum(row * v) ** 2
    return s


def loop_over_elements(x):
    s = 0.0
    for v in x:
        s = s * 0.9 + v * v
    return s


def loop_enumerate(x):
    s = 0.0
    for i, v in enumerate(x):
        s += (i + 1) * v ** 2 - i * v
    return s


def loop_zip(x, y):
    s = 0.0
    for u, v in zip(x, y):
        s += u * v + u * u * v
    return s


def nested_loops(a, x):
    s = 0.0
    for i in range(a.shape[0]):
        t = 0.0
        for j in range(a.shape[1]):
            t += a[i, j] * x[j]
        s += math.tanh(t) * x[i]
    return s


# ---- while loops ------------------------------------------------------------------------------------------
def while_threshold(x, limit):
    s = 1.0
    k = 0
    while s < limit:
        s = s * x + 0.1
        k += 1
    return s / k


def _threshold_args(rng):
    """x, and a limit halfway between two consecutive iterates of while_threshold."""
    x = uniform(rng, (), 1.2, 2.0)
    s = [1.0]
    for _ in range(6):
        s.append(s[-1] * x + 0.1)
    j = int(rng.integers(2, 6))
    return x, 0.5 * (s[j] + s[j + 1])


def while_newton_sqrt(a):
    x = a
    while abs(x * x - a) > 1e-12 * a:
        x = 0.5 * (x + a / x)
    return x


def while_two_conditions(x, c):
    s = x
    n = 0
    while s < 3.0 and n < 4:
        s = s + c * math.exp(-s)
        n += 1
    return s


def while_true_break(x):
    s = x
    n = 0
    while True:
        s = math.sin(s) + x
        n += 1
        if n >= 5:
            break
    return s


# ---- branches -------------------------------------------------------------------------------------------
def piecewise(x):
    if x > 1.0:
        y = x ** 2
    elif x > -1.0:
        y = 2.0 * x + 0.5 * x ** 3
    else:
        y = -math.exp(x)
    return y * x


def branch_per_element(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0.0:
            s += x[i] ** 2
        elif x[i] > -0.5:
            s += 3.0 * x[i]
        else:
            s -= x[i] ** 3
    return s


def branch_without_else(x, y):
    z = x * y
    if z > 0.0:
        z = math.sqrt(z) + x
    return z * y


def branch_expression(x):
    y = x * x if x > 0.0 else -x
    return y * (3.0 if x < 0.5 else 2.0)


def branch_nested(x, y):
    if x > 0.0:
        if y > 0.0:
            r = x * y
        else:
            r = x - y
    else:
        r = x + y * y
    return r


# ---- break, continue, early return ---------------------------------------------------------------------
def loop_break(x, limit):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * x[i]
        if s > limit:
            break
    return s * x[0]


def loop_continue(x):
    s = 0.0
    for v in x:
        if v < 0.0:
            continue
        s += v ** 2 * s + v
    return s


def early_return(x):
    if x > 0.0:
        return x * x
    return -3.0 * x


def early_return_in_loop(x, limit):
    acc = 0.0
    for i in range(x.shape[0]):
        acc += x[i] ** 2
        if acc > limit:
            return acc * x[i]
    return -acc


def _cumulative_limit(rng, stop_inside):
    """x, and a limit halfway between two partial sums of x**2 (or above their total)."""
    x = uniform(rng, (6,), 0.3, 1.5) * rng.choice([-1.0, 1.0], 6)
    partial = np.cumsum(x * x)
    if not stop_inside:
        return x, partial[-1] + 1.0
    j = int(rng.integers(1, 5))
    return x, 0.5 * (partial[j] + partial[j + 1])


# ---- calls -------------------------------------------------------------------------------------------------
def _square(t):
    return t * t


def _poly(t, a, b=1.0):
    return a * t * t + b * t


def _both(u):
    return u * u, 2.0 * u


def _inner_helper(t):
    return math.sin(t) * t


def _outer_helper(t):
    return _inner_helper(t) + _inner_helper(2.0 * t)


def _sign_split(t):
    if t > 0.0:
        return t * t
    return -t


def _array_helper(v, c):
    w = v.copy()
    w[0] = w[0] * c
    return np.sum(w * w)


def call_helpers(x, y):
    a, b = _both(x)
    return _poly(x, a, b=y) + _outer_helper(y) + _sign_split(x) + _square(a - b)


def call_array_helper(v, c):
    return _array_helper(v, c) + _array_helper(v * v, 2.0)


def call_with_keywords(x, y):
    return _poly(t=x, a=y) + _poly(y, b=x, a=2.0)


def nested_function(x, y):
    def g(t):
        return t * y + np.sin(t)
    return g(x) * g(y)


def local_lambda(x, y):
    sq = lambda t: t * t * y  # noqa: E731
    return sq(x) + sq(y)


cube = lambda t: t ** 3 + 2.0 * t  # noqa: E731


def call_module_lambda(x):
    return cube(x) * x


SCALE = 2.5
COEFFS = (1.0, -0.5, 0.25)
WEIGHTS = np.array([0.5, -1.0, 2.0, 0.25])


def module_constants(x):
    s = 0.0
    for c in COEFFS:
        s = s * x + c
    return SCALE * s


def module_array_constant(x):
    return np.sum(WEIGHTS * np.sin(x))


def make_scaled_power(c, p):
    def scaled(x):
        return c * x ** p
    return scaled


def with_defaults(x, scale=2.0, power=3):
    return scale * x ** power


# ---- tuples and counters ----------------------------------------------------------------------------------
def tuple_unpacking(x, y):
    a, b = x * y, x - y
    a, b = b, a
    (c, d), e = _both(a), b
    return c * e + d


def integer_counter(x):
    k = 0
    s = 0.0
    for v in x:
        if v > 0.0:
            k += 1
            s += v * k
    return s * k


CASES = [
    # name, function, arguments, argnums, also on numba
    ("range(start, stop, step)", range_step, draw(N(7)), 0, False),
    ("range negative step", range_negative_step, draw(N(6)), 0, False),
    ("range argument bounds", range_argument_bounds, draw(N(8), 1, 7, 2), 0, False),
    ("range data bounds", range_data_bounds,
     draw(U((6,), avoid=(0.0,)), U((), 0.55, 1.95, tuple(k / 4 for k in range(9)), 0.02)), (0, 1), False),
    ("for row in a", loop_over_rows, draw(N((3, 4)), N(4)), (0, 1), False),
    ("for v in x", loop_over_elements, draw(N(5)), 0, False),
    ("enumerate", loop_enumerate, draw(N(5)), 0, False),
    ("zip", loop_zip, draw(N(5), N(5)), (0, 1), True),
    ("nested loops", nested_loops, draw(N((4, 4)), N(4)), (0, 1), False),
    ("while threshold", while_threshold, _threshold_args, 0, True),
    ("while newton", while_newton_sqrt, draw(U((), 0.5, 4.0)), 0, False),
    ("while and", while_two_conditions, draw(U((), -1.0, 0.5), U((), 0.1, 0.5)), (0, 1), False),
    ("while True break", while_true_break, draw(U((), -1.0, 1.0)), 0, False),
    ("if x > 1", piecewise, draw(U((), 1.1, 2.0)), 0, False),
    ("elif -1 < x <= 1", piecewise, draw(U((), -0.9, 0.9)), 0, False),
    ("else x <= -1", piecewise, draw(U((), -2.0, -1.1)), 0, False),
    ("branch per element", branch_per_element, draw(U((8,), -1.5, 1.5, (0.0, -0.5))), 0, True),
    ("if without else", branch_without_else, draw(U((), avoid=(0.0,)), U((), avoid=(0.0,))), (0, 1), False),
    ("conditional expression", branch_expression, draw(U((), -1.0, 1.0, (0.0, 0.5))), 0, False),
    ("nested if", branch_nested, draw(U((), avoid=(0.0,)), U((), avoid=(0.0,))), (0, 1), False),
    ("break", loop_break, lambda rng: _cumulative_limit(rng, True), 0, False),
    ("continue", loop_continue, draw(U((6,), avoid=(0.0,))), 0, False),
    ("early return", early_return, draw(U((), avoid=(0.0,))), 0, False),
    ("early return in loop (taken)", early_return_in_loop, lambda rng: _cumulative_limit(rng, True), 0, True),
    ("early return in loop (not taken)", early_return_in_loop, lambda rng: _cumulative_limit(rng, False), 0, False),
    ("helpers", call_helpers, draw(U((), avoid=(0.0,)), N()), (0, 1), True),
    ("array helper", call_array_helper, draw(N(4), N()), (0, 1), False),
    ("keyword arguments", call_with_keywords, draw(N(), N()), (0, 1), False),
    ("nested function", nested_function, draw(N(), N()), (0, 1), False),
    ("local lambda", local_lambda, draw(N(), N()), (0, 1), False),
    ("module lambda", call_module_lambda, draw(N()), 0, False),
    ("module constants", module_constants, draw(N()), 0, False),
    ("module array constant", module_array_constant, draw(N(4)), 0, False),
    ("default arguments", with_defaults, draw(N()), 0, False),
    ("default overridden", with_defaults, draw(N(), N(), 2), (0, 1), False),
    ("tuple unpacking", tuple_unpacking, draw(N(), N()), (0, 1), False),
    ("integer counter", integer_counter, draw(U((6,), avoid=(0.0,))), 0, False),
]


@pytest.mark.parametrize("fn, make, argnums, backend",
                         backend_cases((name, (fn, make, argnums), on_numba)
                                       for name, fn, make, argnums, on_numba in CASES))
def test_control_flow(fn, make, argnums, backend, rng):
    check_grad(fn, make(rng), argnums, backend=backend)


# ---- closed forms and call forms --------------------------------------------------------------------------
def test_newton_iteration_converges_to_the_derivative_of_sqrt():
    a = 2.0
    assert transpyle.grad(while_newton_sqrt, backend="numpy")(a) == pytest.approx(0.5 / math.sqrt(a), rel=1e-8)


def test_grad_of_module_lambda():
    assert transpyle.grad(cube, backend="numpy")(2.0) == pytest.approx(3 * 4.0 + 2.0)


def test_grad_of_closure_over_constants():
    g = transpyle.grad(make_scaled_power(3.0, 2), backend="numpy")
    assert g(1.5) == pytest.approx(9.0)
    assert transpyle.grad(make_scaled_power(0.5, 3), backend="numpy")(2.0) == pytest.approx(6.0)


def test_used_as_decorator():
    @transpyle.grad
    def decorated(x):
        return x ** 3 - x

    @functools.partial(transpyle.grad, argnums=1)
    def decorated_partial(x, y):
        return x * y * y

    assert decorated(2.0) == pytest.approx(11.0)
    assert decorated_partial(3.0, 2.0) == pytest.approx(12.0)


def test_keyword_arguments_at_call_are_not_differentiated(rng):
    check_grad(with_defaults, (normal(rng),), kwargs={"scale": 1.5})
    check_grad(with_defaults, (normal(rng),), kwargs={"power": 2, "scale": -0.5})


def sum_of_squares(x):
    return np.sum(x * x)


def test_grad_function_is_reused_across_shapes_and_ranks(rng):
    g = transpyle.grad(sum_of_squares, backend="numpy")
    for shape in [(3,), (5,), (2, 3), ()]:
        x = normal(rng, shape)
        np.testing.assert_allclose(g(x), 2.0 * x, rtol=1e-12)


# ---- argnums ----------------------------------------------------------------------------------------------
def three_args(x, n, y):
    return np.sum(x ** n * y) + np.sum(y) * x[0]


@pytest.mark.parametrize("argnums", [0, 2, (0, 2), (2, 0), (2,)])
def test_argnums(argnums, rng):
    args = (normal(rng, 4), 3, normal(rng, 4))
    got = check_grad(three_args, args, argnums)
    if isinstance(argnums, tuple):
        assert isinstance(got, tuple) and len(got) == len(argnums)


def test_argnums_order_is_kept(rng):
    x, y = normal(rng, 4), normal(rng, 4)
    gx, gy = transpyle.grad(three_args, argnums=(0, 2), backend="numpy")(x, 2, y)
    gy2, gx2 = transpyle.grad(three_args, argnums=(2, 0), backend="numpy")(x, 2, y)
    np.testing.assert_array_equal(gx, gx2)
    np.testing.assert_array_equal(gy, gy2)


# ---- has_aux, value_and_grad, vjp -----------------------------------------------------------------------------
def loss_with_aux(x):
    y = np.sin(x)
    return np.sum(y * y), np.mean(y)


def loss_with_tuple_aux(x, w):
    r = x * w
    return np.sum(r * r), (r, np.max(r))


def _loss_only(x):
    return loss_with_aux(x)[0]


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_has_aux(backend, rng):
    x = normal(rng, 5)
    g, aux = transpyle.grad(loss_with_aux, has_aux=True, backend=backend)(x)
    assert_same_output(aux, loss_with_aux(x)[1], "aux")
    assert_matches_fd(g, _loss_only, (x,), 0)


def test_has_aux_tuple(rng):
    x, w = normal(rng, 5), normal(rng, 5)
    g, aux = transpyle.grad(loss_with_tuple_aux, has_aux=True, backend="numpy")(x, w)
    assert_same_output(aux, loss_with_tuple_aux(x, w)[1], "aux")
    np.testing.assert_allclose(g, 2.0 * x * w * w, rtol=1e-12)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_value_and_grad(backend, rng):
    a, x = normal(rng, (4, 4)), normal(rng, 4)
    value, (ga, gx) = transpyle.value_and_grad(nested_loops, argnums=(0, 1), backend=backend)(a, x)
    assert value == pytest.approx(nested_loops(a, x), rel=1e-12)
    assert_matches_fd(ga, nested_loops, (a, x), 0)
    assert_matches_fd(gx, nested_loops, (a, x), 1)


def test_value_and_grad_scalar_argument(rng):
    x = uniform(rng, (), avoid=(0.0,))
    value, g = transpyle.value_and_grad(early_return, backend="numpy")(x)
    assert isinstance(value, (float, np.floating)) and value == pytest.approx(early_return(x), rel=1e-12)
    assert_matches_fd(g, early_return, (x,), 0)


def test_value_and_grad_has_aux(rng):
    x = normal(rng, 5)
    (value, aux), g = transpyle.value_and_grad(loss_with_aux, has_aux=True, backend="numpy")(x)
    expected_value, expected_aux = loss_with_aux(x)
    assert value == pytest.approx(expected_value, rel=1e-12)
    assert_same_output(aux, expected_aux, "aux")
    assert_matches_fd(g, _loss_only, (x,), 0)


def vjp_array(x):
    return np.sin(x) * x


def vjp_matrix(a, v):
    return np.tanh(a @ v), a * 2.0


def vjp_tuple(x, y):
    return x * y, np.sum(x ** 2) + y[0]


def vjp_scalar(x, y):
    return x * math.exp(y)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_vjp_array_output(backend, rng):
    check_vjp(vjp_array, (normal(rng, 5),), rng, backend=backend)


def test_vjp_tuple_output(rng):
    check_vjp(vjp_tuple, (normal(rng, 4), normal(rng, 4)), rng)
    check_vjp(vjp_matrix, (normal(rng, (3, 4)), normal(rng, 4)), rng)


def test_vjp_scalar_output(rng):
    check_vjp(vjp_scalar, (normal(rng), normal(rng)), rng)


def test_vjp_function_is_reusable(rng):
    x = normal(rng, 5)
    out, vjp_fn = transpyle.vjp(vjp_array, x, backend="numpy")
    ct1, ct2 = normal(rng, 5), normal(rng, 5)
    (b1,), (b2,), (b12,) = vjp_fn(ct1), vjp_fn(ct2), vjp_fn(ct1 + ct2)
    np.testing.assert_allclose(b1 + b2, b12, rtol=1e-10, atol=1e-12)


def vjp_with_aux(x):
    return x * x, np.sum(x)


def test_vjp_has_aux(rng):
    x = normal(rng, 4)
    out, vjp_fn, aux = transpyle.vjp(vjp_with_aux, x, has_aux=True, backend="numpy")
    np.testing.assert_allclose(out, x * x, rtol=1e-12)
    assert aux == pytest.approx(np.sum(x), rel=1e-12)
    ct = normal(rng, 4)
    (bx,) = vjp_fn(ct)
    np.testing.assert_allclose(bx, 2.0 * x * ct, rtol=1e-12)
