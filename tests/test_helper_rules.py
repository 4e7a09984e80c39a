"""The run-time helpers that generated code calls (``rt.NAME``) under a second transform.

A first transform writes calls to run-time helpers into the code it generates (``rt.prod_others`` in
the gradient of ``np.prod``, ``rt.unbroadcast`` after broadcasting, tapes in loops, ...); a second
transform reads that code, so each helper needs its own rules: a derivative for ``grad(grad(f))``,
``jacfwd(grad(f))``, ``hessian`` and ``jvp(grad(f))``, a batching rule for ``vmap(grad(f))`` by array
lifting. Each case below is a small function whose gradient calls the helpers named in its id; the
composed transforms are compared with central differences of the gradient, and ``vmap`` with a loop
over the examples. Helpers whose derivative has no rule (second derivatives through a factorization)
must be refused with an error at the user's line, not at a line of the generated module.
"""
import inspect

import numpy as np
import pytest

import transpyle


def _data(shape, scale=0.25):
    """A fixed array built in the body (generated code a second transform reads takes no captured arrays)."""
    return np.reshape(np.arange(float(np.prod(shape))), shape) * scale - 0.5


# ---- functions whose gradients call the helpers ----------------------------------------------------------
def prod_all(x):                    # rt.prod_others
    return np.prod(x) * 2.0


def prod_of_squares(x):             # rt.prod_others of a value computed from x
    return np.prod(x * x + 0.5) + np.sum(x)


def broadcast_product(x):           # rt.unbroadcast: x (3,) broadcast against a (2, 3)
    a = np.reshape(np.arange(6.0), (2, 3)) * 0.25 - 0.5
    return np.sum(np.sin(a * x))


def row_reductions(x):              # np.expand_dims (sum with an axis), rt.sum_axis (max with an axis)
    a = np.reshape(np.arange(6.0), (2, 3)) * 0.25 - 0.5
    return np.sum(np.tanh(np.sum(a * x, axis=1)) ** 2) + np.sum(np.max(a * x + x * x, axis=0) ** 2)


def number_loop(x):                 # rt.reserve / rt.push: a tape of numbers, trip count known
    s = 0.5
    for i in range(x.shape[0]):
        s = np.sin(s * x[i]) + x[i]
    return s


def while_loop(x):                  # rt.push: a tape that grows, trip count counted
    s = 0.2
    i = 0
    while i < x.shape[0]:
        s = s * np.cos(x[i]) + x[i] * x[i]
        i += 1
    return s


def array_loop(x):                  # rt.array_tape / rt.tape_push / rt.tape_pop: arrays overwritten in a loop
    v = x
    for k in range(3):
        v = np.tanh(v * 1.5 + np.sum(v) * 0.1)
    return np.sum(v * v)


def early_exit(x):                  # rt.in_range: a for loop that can break
    s = 0.0
    for i in range(x.shape[0]):
        if s > 100.0:
            break
        s = s + x[i] * x[i] * np.cos(x[i])
    return s


def strided_range(x):               # rt.trip_count of bounds known only at run time
    s = 1.0
    for i in range(1, x.shape[0], 2):
        s = s * x[i] + np.sin(x[i - 1])
    return s


def trace_of(x):                    # rt.identity_like
    return np.trace(np.sin(np.reshape(x, (3, 3)))) * 2.0


def cholesky_sum(x):                # rt.solve_triangular, rt.hermitian_part, rt.lower_half
    m = np.reshape(x, (3, 3))
    a = m @ m.T + 3.0 * np.eye(3)
    return np.sum(np.sin(np.linalg.cholesky(a)))


def eigh_sum(x):                    # rt.eigh_vectors, rt.gap_inverse, rt.eigh_values
    m = np.reshape(x, (3, 3))
    w, v = np.linalg.eigh(m + m.T + np.eye(3) * np.array([0.0, 3.0, 6.0]))
    return np.sum(np.sin(v * w)) + np.sum(np.cos(w))


def nuclear(x):                     # rt.svd_u, rt.svd_vh
    return np.linalg.norm(np.reshape(x, (3, 3)) + np.eye(3) * np.array([1.0, 3.0, 5.0]), "nuc")


# name -> (function, size of its argument, helpers its gradient calls)
CASES = {
    "prod_others": (prod_all, 4),
    "prod_others-computed": (prod_of_squares, 4),
    "unbroadcast": (broadcast_product, 3),
    "expand_dims-sum_axis": (row_reductions, 3),
    "reserve-push": (number_loop, 4),
    "push-while": (while_loop, 4),
    "array_tape": (array_loop, 3),
    "in_range": (early_exit, 4),
    "trip_count": (strided_range, 5),
    "identity_like": (trace_of, 9),
    "solve_triangular-hermitian_part-lower_half": (cholesky_sum, 9),
    "eigh_vectors-gap_inverse": (eigh_sum, 9),
    "svd_u-svd_vh": (nuclear, 9),
}


def _point(rng, size):
    return rng.uniform(0.3, 1.2, size) * rng.choice([-1.0, 1.0], size)


def grad_fd(fn, x, h=1e-6):
    """d grad(fn) / dx by central differences of the (numpy) gradient: the Hessian, one column per element."""
    g = transpyle.grad(fn, backend="numpy")
    out = np.zeros((x.size, x.size))
    for j in range(x.size):
        step = np.zeros_like(x)
        step[j] = h
        out[:, j] = (g(x + step) - g(x - step)) / (2 * h)
    return out


def _check(got, want, what):
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=what)


@pytest.mark.parametrize("case", list(CASES))
def test_second_derivatives(case, rng):
    fn, size = CASES[case]
    x = _point(rng, size)
    want = grad_fd(fn, x)
    _check(transpyle.hessian(fn, backend="numpy")(x), want, "hessian")
    _check(transpyle.jacfwd(transpyle.grad(fn), backend="numpy")(x), want, "jacfwd(grad)")
    _check(transpyle.jacrev(transpyle.grad(fn), backend="numpy")(x), want, "jacrev(grad)")
    t = rng.standard_normal(size)
    _, tangent = transpyle.jvp(transpyle.grad(fn), (x,), (t,), backend="numpy")
    _check(tangent, want @ t, "jvp(grad)")


def _weighted_gradient(fn):
    """x -> <grad(fn)(x), w>: a function calling a transform in its body (the gradient code inlined into it)."""
    gradient = transpyle.grad(fn)

    def weighted(x, w):
        return np.sum(gradient(x) * w)
    return weighted


@pytest.mark.parametrize("case", list(CASES))
def test_grad_of_a_function_calling_grad(case, rng):
    fn, size = CASES[case]
    x, w = _point(rng, size), rng.standard_normal(size)
    _check(transpyle.grad(_weighted_gradient(fn), backend="numpy")(x, w), grad_fd(fn, x).T @ w,
           "grad of <grad(f), w>")


@pytest.mark.parametrize("strategy", ["loop", "array"])
@pytest.mark.parametrize("case", list(CASES))
def test_vmap_of_grad(case, strategy, rng):
    fn, size = CASES[case]
    xs = np.stack([_point(rng, size) for _ in range(3)])
    got = transpyle.vmap(transpyle.grad(fn), strategy=strategy, backend="numpy")(xs)
    want = np.stack([transpyle.grad(fn, backend="numpy")(x) for x in xs])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def _line(fn, size):
    """t -> fn(base + t * direction): a function of a number, so that grad(grad(.)) applies."""
    def line(t):
        x = np.cos(np.arange(size) * 1.3 + 0.4) + t * np.sin(np.arange(size) * 0.7 + 0.2)
        return fn(x)
    return line


@pytest.mark.parametrize("case", list(CASES))
def test_grad_of_grad(case):
    fn, size = CASES[case]
    line, t, h = _line(fn, size), 0.3, 1e-6
    g = transpyle.grad(line, backend="numpy")
    assert transpyle.grad(transpyle.grad(line), backend="numpy")(t) == \
        pytest.approx((g(t + h) - g(t - h)) / (2 * h), rel=1e-5, abs=1e-7)


def test_prod_is_exact_at_zeros():
    # H[i, j] = 2 * (product of the elements other than i and j): finite differences cannot see zeros exactly
    x = np.array([0.0, 2.0, -3.0, 0.0])
    want = np.array([[0.0 if i == j else 2.0 * np.prod(np.delete(x, [i, j])) for j in range(4)] for i in range(4)])
    np.testing.assert_array_equal(transpyle.hessian(prod_all, backend="numpy")(x), want)
    t = np.array([1.0, -1.0, 0.5, 2.0])
    np.testing.assert_array_equal(transpyle.jvp(transpyle.grad(prod_all), (x,), (t,), backend="numpy")[1], want @ t)


# ---- on Numba -------------------------------------------------------------------------------------------------
NUMBA_CASES = ["prod_others", "unbroadcast", "reserve-push"]


@pytest.mark.numba
@pytest.mark.parametrize("case", NUMBA_CASES)
def test_second_derivatives_numba(case, rng):
    fn, size = CASES[case]
    x = _point(rng, size)
    want = grad_fd(fn, x)
    _check(transpyle.hessian(fn, backend="numba")(x), want, "hessian")
    t = rng.standard_normal(size)
    _check(transpyle.jvp(transpyle.grad(fn), (x,), (t,), backend="numba")[1], want @ t, "jvp(grad)")
    xs = np.stack([_point(rng, size) for _ in range(3)])
    grads = np.stack([transpyle.grad(fn, backend="numpy")(row) for row in xs])
    for strategy in ("loop", "array"):
        got = transpyle.vmap(transpyle.grad(fn), strategy=strategy, backend="numba")(xs)
        np.testing.assert_allclose(got, grads, rtol=1e-12, atol=1e-12, err_msg=strategy)


# ---- helpers without a derivative rule: batched, and refused at the user's line when differentiated ---------
def qr_sum(x):
    q, r = np.linalg.qr(np.reshape(x, (3, 3)) + 3.0 * np.eye(3))
    return np.sum(np.sin(q)) + np.sum(r * r)


def svd_vectors(x):
    u, s, vh = np.linalg.svd(np.reshape(x, (3, 3)) + np.eye(3) * np.array([1.0, 3.0, 5.0]))
    return np.sum(u * u * np.arange(9.0).reshape(3, 3)) + np.sum(np.abs(vh[0]))


def pinv_sum(x):
    return np.sum(np.sin(np.linalg.pinv(np.reshape(x, (3, 2)) + np.eye(3)[:, :2] * 2.0)))


def power_sum(x):
    return np.sum(np.sin(np.linalg.matrix_power(np.reshape(x, (3, 3)), 3) / 10.0))


def spectral_norm(x):
    return np.linalg.norm(np.reshape(x, (3, 3)) + np.eye(3) * np.array([1.0, 3.0, 5.0]), 2)


def eigenvalue_sum(x):
    w = np.linalg.eigvals(np.reshape(x, (3, 3)) * 0.1 + np.eye(3) * np.array([1.0, 2.0, 3.0]))
    return np.sum(np.real(w) * np.array([1.0, -1.0, 0.5]))


# name -> (function, size, the helper its gradient calls that has no derivative rule)
WITHOUT_RULES = {
    "qr": (qr_sum, 9, "rt.qr_"),
    "svd-vectors": (svd_vectors, 9, "rt.svd_vjp"),
    "pinv": (pinv_sum, 6, "rt.pinv_vjp"),
    "matrix_power": (power_sum, 9, "rt.matrix_power_vjp"),
    "norm-2": (spectral_norm, 9, "rt.norm2_direction"),
    "eigvals": (eigenvalue_sum, 9, "rt.eig_values_vjp"),
}


def _line_of(fn, text):
    """The line number of the first line of ``fn``'s source holding ``text``."""
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


def _assert_at_user_line(exc, fn, text):
    err = exc.value
    assert err.filename == __file__, f"the error names {err.filename}, not the user's file:\n{err}"
    assert err.lineno == _line_of(fn, text), f"the error names line {err.lineno}:\n{err}"


@pytest.mark.parametrize("strategy", ["loop", "array"])
@pytest.mark.parametrize("case", list(WITHOUT_RULES))
def test_vmap_of_grad_without_derivative_rules(case, strategy, rng):
    fn, size, _ = WITHOUT_RULES[case]
    xs = np.stack([_point(rng, size) * 0.3 for _ in range(3)])
    got = transpyle.vmap(transpyle.grad(fn), strategy=strategy, backend="numpy")(xs)
    want = np.stack([transpyle.grad(fn, backend="numpy")(x) for x in xs])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("case", list(WITHOUT_RULES))
def test_second_derivatives_without_rules_name_the_users_line(case, rng):
    fn, size, helper = WITHOUT_RULES[case]
    x = _point(rng, size) * 0.3
    statement = inspect.getsource(fn).splitlines()[1].strip()
    for second in (lambda: transpyle.hessian(fn, backend="numpy")(x),
                   lambda: transpyle.jvp(transpyle.grad(fn), (x,), (np.ones(size),), backend="numpy")):
        with pytest.raises(transpyle.TranspileError, match=f"{helper}.* has no forward-mode rule") as exc:
            second()
        _assert_at_user_line(exc, fn, statement)
        assert "tp_" not in str(exc.value) and "Generated" not in str(exc.value)


def test_third_derivative_of_prod_names_the_users_line():
    with pytest.raises(transpyle.TranspileError, match="rt.prod_others_jvp has no forward-mode rule") as exc:
        transpyle.jacfwd(transpyle.hessian(prod_all), backend="numpy")(np.array([0.5, 2.0, -1.0]))
    _assert_at_user_line(exc, prod_all, "np.prod(x)")


def test_reverse_mode_through_inlined_tapes_names_the_users_line(rng):
    # vjp of a function calling grad(f) runs reverse mode over the gradient's tapes: refused at f's line
    x, w = _point(rng, 4), rng.standard_normal(4)
    with pytest.raises(transpyle.TranspileError, match="tapes of gradient code") as exc:
        _, vjp_fn = transpyle.vjp(_weighted_gradient(number_loop), x, w, backend="numpy")
        vjp_fn(1.0)
    assert exc.value.filename == __file__ and _line_of(number_loop, "s = 0.5") <= exc.value.lineno <= \
        _line_of(number_loop, "return s"), str(exc.value)
