"""vmap, by loop lifting and by array lifting: against a Python loop over examples, for data-dependent
control flow, in-place writes, helpers, in_axes None/0/1/-1, out_axes, tuple outputs, nested vmap,
vmap of grad, grad of a loss calling vmap; and JAX-like errors. Each case runs both strategies.
"""
import math

import numpy as np
import pytest

import transpyle
from gradcheck import ALL_BACKENDS

# (backend, strategy): both strategies on the numpy backend, array lifting compiled by Numba too
# (loop lifting on Numba is what ALL_BACKENDS's numba case runs)
STRATEGIES = [("numpy", "loop"), ("numpy", "array"), pytest.param(("numba", "array"), marks=pytest.mark.numba)]
NUMPY_STRATEGIES = [("numpy", "loop"), ("numpy", "array")]


def vmapped(f, how, **options):
    backend, strategy = how
    return transpyle.vmap(f, backend=backend, strategy=strategy, **options)


def loop_over(f, in_axes, args, out_axes=0):
    """The reference: f called per example, results stacked along out_axes."""
    size = next(np.shape(a)[ax] for a, ax in zip(args, in_axes) if ax is not None)
    results = [f(*[a if ax is None else np.take(a, b, axis=ax) for a, ax in zip(args, in_axes)])
               for b in range(size)]
    if isinstance(results[0], tuple):
        axes = out_axes if isinstance(out_axes, tuple) else (out_axes,) * len(results[0])
        return tuple(np.stack([r[j] for r in results], axis=axes[j]) for j in range(len(results[0])))
    return np.stack(results, axis=out_axes)


def assert_same(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            assert_same(g, w)
        return
    assert np.shape(got) == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


# ---- per-example functions ----------------------------------------------------------------------------------
def branchy(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] * w[i] > 0.0:
            s += x[i] * w[i]
        else:
            s -= math.sin(x[i])
    return s


def newton_sqrt(a):
    x = a
    k = 0
    while abs(x * x - a) > 1e-12 * a and k < 100:    # per-example trip counts
        x = 0.5 * (x + a / x)
        k += 1
    return x


def _smooth(v):
    return np.tanh(v) * 2.0


def stencil(u, k):
    v = u.copy()
    for i in range(1, u.shape[0] - 1):
        v[i] = u[i] + k * (u[i - 1] - 2.0 * u[i] + u[i + 1])
    return _smooth(v)


def early_exit(x):
    acc = 0.0
    for i in range(x.shape[0]):
        acc += x[i] ** 2
        if acc > 2.0:
            return acc * x[i]
    return -acc


def pair(x, c):
    return np.sum(x) * c, x * c


def matrix_rowsum(m):
    return np.sum(m, axis=1)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_branches_and_broadcast_argument(backend, rng):
    x, w = rng.normal(size=(7, 5)), rng.normal(size=5)
    assert_same(transpyle.vmap(branchy, in_axes=(0, None), backend=backend)(x, w), loop_over(branchy, (0, None), (x, w)))


@pytest.mark.parametrize("how", STRATEGIES)
def test_branches_per_strategy(how, rng):
    x, w = rng.normal(size=(7, 5)), rng.normal(size=(7, 5))
    assert_same(vmapped(branchy, how)(x, w), loop_over(branchy, (0, 0), (x, w)))


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_while_with_per_example_trip_counts(backend, rng):
    a = rng.uniform(0.1, 100.0, size=9)
    assert_same(transpyle.vmap(newton_sqrt, backend=backend)(a), np.sqrt(a))


@pytest.mark.parametrize("how", STRATEGIES)
def test_while_per_strategy(how, rng):
    a = rng.uniform(0.1, 100.0, size=9)
    assert_same(vmapped(newton_sqrt, how)(a), np.sqrt(a))


@pytest.mark.parametrize("how", STRATEGIES)
def test_in_place_writes_and_helpers(how, rng):
    u, k = rng.normal(size=(4, 8)), rng.uniform(0.1, 0.3, size=4)
    assert_same(vmapped(stencil, how)(u, k), loop_over(stencil, (0, 0), (u, k)))


@pytest.mark.parametrize("how", STRATEGIES)
def test_early_return(how, rng):
    x = rng.normal(size=(6, 5))
    assert_same(vmapped(early_exit, how)(x), loop_over(early_exit, (0,), (x,)))


@pytest.mark.parametrize("how", NUMPY_STRATEGIES)
@pytest.mark.parametrize("in_axes", [1, -1])
def test_in_axes_other_than_zero(in_axes, how, rng):
    x, w = rng.normal(size=(5, 7)), rng.normal(size=5)
    got = vmapped(branchy, how, in_axes=(in_axes, None))(x, w)
    assert_same(got, loop_over(branchy, (1, None), (x, w)))


@pytest.mark.parametrize("how", NUMPY_STRATEGIES)
@pytest.mark.parametrize("out_axes", [0, 1, -1])
def test_out_axes(out_axes, how, rng):
    m = rng.normal(size=(3, 4, 5))
    got = vmapped(matrix_rowsum, how, out_axes=out_axes)(m)
    assert_same(got, loop_over(matrix_rowsum, (0,), (m,), out_axes=out_axes % 2))


@pytest.mark.parametrize("how", STRATEGIES)
def test_tuple_outputs(how, rng):
    x, c = rng.normal(size=(4, 3)), rng.normal(size=4)
    got = vmapped(pair, how, out_axes=(0, 1))(x, c)
    assert_same(got, loop_over(pair, (0, 0), (x, c), out_axes=(0, 1)))


@pytest.mark.parametrize("how", NUMPY_STRATEGIES)
def test_nested_vmap(how, rng):
    x, w = rng.normal(size=(3, 4, 5)), rng.normal(size=5)
    inner = vmapped(branchy, how, in_axes=(0, None))
    got = vmapped(inner, how, in_axes=(0, None))(x, w)
    want = np.array([[branchy(x[i, j], w) for j in range(4)] for i in range(3)])
    assert_same(got, want)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_per_example_gradients(backend, rng):
    def loss(w, x, y):
        p = 1.0 / (1.0 + math.exp(-np.dot(x, w)))
        return -(y * math.log(p) + (1.0 - y) * math.log(1.0 - p))
    w, x, y = rng.normal(size=3), rng.normal(size=(6, 3)), (rng.random(6) < 0.5).astype(float)
    got = transpyle.vmap(transpyle.grad(loss, backend=backend), in_axes=(None, 0, 0), backend=backend)(w, x, y)
    want = np.stack([transpyle.grad(loss, backend="numpy")(w, x[i], y[i]) for i in range(6)])
    assert_same(got, want)


def test_grad_of_a_loss_that_calls_vmap(rng):
    per_example = transpyle.vmap(branchy, in_axes=(0, None), backend="numpy")

    def total(w, x):
        return np.sum(per_example(x, w) ** 2)
    w, x = rng.normal(size=5), rng.normal(size=(6, 5))
    got = transpyle.grad(total, backend="numpy")(w, x)
    h = 1e-6
    fd = np.array([(total(w + h * e, x) - total(w - h * e, x)) / (2 * h) for e in np.eye(5)])
    np.testing.assert_allclose(got, fd, rtol=1e-5, atol=1e-7)


def test_decorator_and_show(rng):
    @transpyle.vmap
    def square_sum(v):
        return np.sum(v * v)
    x = rng.normal(size=(3, 4))
    assert_same(square_sum(x), np.sum(x * x, axis=1))
    text = transpyle.show(branchy, mode="vmap", args=(x, np.ones(4)), in_axes=(0, None))
    assert "numba.prange" in text and "def branchy_primal" in text


def test_inconsistent_batch_sizes_name_the_arguments(rng):
    with pytest.raises(transpyle.TranspileError, match=r"x has size 3.*w has size 4"):
        transpyle.vmap(branchy, backend="numpy")(rng.normal(size=(3, 5)), rng.normal(size=(4, 5)))


@pytest.mark.parametrize("in_axes, match", [((0,), "1 entries"), ((None, None), "None for every"),
                                            ((2, None), "out of range")])
def test_bad_in_axes(in_axes, match, rng):
    with pytest.raises(transpyle.TranspileError, match=match):
        transpyle.vmap(branchy, in_axes=in_axes, backend="numpy")(rng.normal(size=(3, 5)), rng.normal(size=5))


# ---- array lifting: batching rules, masks and derivatives ---------------------------------------------------
def newton_from(a, x0):
    x = x0
    k = 0
    while abs(x * x - a) > 1e-10 * a and k < 100:
        x = 0.5 * (x + a / x)
        k += 1
    return x


def branchy_loss(w, x, y):
    r = 0.0
    for i in range(x.shape[0]):
        p = np.dot(x[i], w)
        if p > 0:
            r += (p - y[i]) ** 2
        else:
            r += abs(p - y[i])
    return r / x.shape[0]


def prefix_sum(x, n):
    s = 0.0
    for i in range(n):                  # a trip count per example
        s += x[i] * (i + 1)
    return s


def scatter_double(x, idx):
    y = np.zeros(x.shape[0])
    y[idx] = x[idx] * 2.0               # a position per example
    y[0] += float(idx)
    return y


def mixed_ops(W, x, b):
    h = np.tanh(np.dot(W, x) + b)       # matrix (unbatched) times vector (batched)
    m = np.outer(h, x)                  # no batching rule: one call per example
    s = np.sum(m, axis=0) + np.max(h) * math.floor(np.sum(x))
    return np.where(s > 0, s, 0.1 * s), np.mean(m)


def strided_sum(x, step):
    s = 0.0
    for i in range(0, x.shape[0], step):
        s += x[i]
    return s


@pytest.mark.parametrize("how", STRATEGIES)
def test_grad_with_per_example_while_trip_counts(how, rng):
    a, x0 = rng.uniform(0.5, 50.0, size=6), np.full(6, 3.0)
    g = transpyle.grad(newton_from, backend=how[0])
    got = vmapped(g, how)(a, x0)
    assert_same(got, loop_over(g, (0, 0), (a, x0)))
    # d sqrt(a) / da; Newton's iterate meets it to the stopping rule's accuracy, not to rounding
    np.testing.assert_allclose(got, 0.5 / np.sqrt(a), rtol=1e-6)


@pytest.mark.parametrize("how", NUMPY_STRATEGIES)
def test_per_example_gradients_of_a_loop_with_branches(how, rng):
    w, x, y = rng.normal(size=3), rng.normal(size=(5, 4, 3)), rng.normal(size=(5, 4))
    g = transpyle.grad(branchy_loss, backend="numpy")
    assert_same(vmapped(g, how, in_axes=(None, 0, 0))(w, x, y), loop_over(g, (None, 0, 0), (w, x, y)))
    jac = transpyle.jacfwd(branchy_loss, backend="numpy")
    assert_same(vmapped(jac, how, in_axes=(None, 0, 0))(w, x, y), loop_over(jac, (None, 0, 0), (w, x, y)))


@pytest.mark.parametrize("how", STRATEGIES)
def test_loop_bounds_and_write_positions_per_example(how, rng):
    x, n = rng.normal(size=(6, 5)), np.array([0, 1, 5, 3, 2, 4])
    assert_same(vmapped(prefix_sum, how)(x, n), loop_over(prefix_sum, (0, 0), (x, n)))
    assert_same(vmapped(scatter_double, how)(x, n % 5), loop_over(scatter_double, (0, 0), (x, n % 5)))


@pytest.mark.parametrize("how", STRATEGIES)
def test_batching_rules_of_products_reductions_and_selection(how, rng):
    W, x, b = rng.normal(size=(4, 3)), rng.normal(size=(6, 3)), rng.normal(size=(6, 4))
    assert_same(vmapped(mixed_ops, how, in_axes=(None, 0, 0))(W, x, b), loop_over(mixed_ops, (None, 0, 0), (W, x, b)))
    Ws = rng.normal(size=(6, 4, 3))
    assert_same(vmapped(mixed_ops, how, in_axes=(0, 0, None))(Ws, x, b[0]),
                loop_over(mixed_ops, (0, 0, None), (Ws, x, b[0])))


def test_array_lifting_refuses_what_it_cannot_batch_and_auto_falls_back(rng):
    x, step = rng.normal(size=(4, 7)), np.array([1, 2, 3, 1])
    with pytest.raises(transpyle.TranspileError, match=r"(?s)test_vmap.py:\d+.*step differs per example.*strategy='loop'"):
        transpyle.vmap(strided_sum, backend="numpy", strategy="array")(x, step)
    assert_same(transpyle.vmap(strided_sum, backend="numpy")(x, step), loop_over(strided_sum, (0, 0), (x, step)))
    with pytest.raises(transpyle.TranspileError, match="unknown vmap strategy"):
        transpyle.vmap(strided_sum, strategy="fused")


def test_show_array_lifting(rng):
    text = transpyle.show(branchy, mode="vmap", args=(rng.normal(size=(3, 4)), np.ones(4)), in_axes=(0, None),
                          strategy="array")
    # as Numba compiles it: the branch runs per lane inside one loop over the lanes, no parallel driver
    assert "array lifting" in text and "numba.prange" not in text and "for _b1 in range(_B1):" in text


def contract(x):
    y = x
    while y > 1.0:                      # from 0 to ~70 trips: tapes grow differently per lane
        y = 0.9 * y + 0.01 * math.sin(y)
    return y * x


@pytest.mark.parametrize("how", STRATEGIES)
def test_tapes_of_lanes_with_very_different_trip_counts(how, rng):
    x = np.concatenate([[0.5], rng.uniform(1.0, 1000.0, size=6), [0.9]])
    g = transpyle.grad(contract, backend=how[0])
    assert_same(vmapped(g, how)(x), loop_over(g, (0,), (x,)))


def relax(u, k):
    for step in range(3):               # an array rebound in a loop: its values go on a tape of arrays
        v = np.tanh(u) * k + u
        u = v * 0.5
    return np.sum(u * u)


def relax_until(u, k):
    while np.sum(u * u) > 1.0:          # ... a number of times that differs per example
        u = np.tanh(u) * k
    return np.sum(u)


@pytest.mark.parametrize("how", STRATEGIES)
def test_grad_through_tapes_of_arrays(how, rng):
    u, k = rng.normal(size=(4, 6)), rng.uniform(0.5, 1.5, size=4)
    g = transpyle.grad(relax, backend=how[0])
    assert_same(vmapped(g, how)(u, k), loop_over(g, (0, 0), (u, k)))
    text = transpyle.show(g, mode="vmap", args=(u, k), strategy="array")
    assert "rt.tape_push(" in text and "rt.lanes(" in text


def test_tapes_of_arrays_under_per_example_trip_counts_use_loop_lifting(rng):
    u, k = rng.normal(size=(4, 6)) * 2.0, rng.uniform(0.3, 0.9, size=4)
    g = transpyle.grad(relax_until, backend="numpy")
    with pytest.raises(transpyle.TranspileError, match="arrays saved for the adjoint under a condition"):
        transpyle.vmap(g, backend="numpy", strategy="array")(u, k)
    assert_same(transpyle.vmap(g, backend="numpy")(u, k), loop_over(g, (0, 0), (u, k)))


# ---- lanes-last layout of lane-loop code (numba, array lifting) ---------------------------------------------
def smoothed_profile(u, w, c):
    """Per-example arrays written in loops, combined with an unbatched array, a batched number and a
    reshape: every use that the lanes-last layout rewrites."""
    v = np.zeros_like(u)
    total = 0.0
    for i in range(u.shape[0]):
        v[i] = math.tanh(u[i] * c) + u[(i + 1) % u.shape[0]] * w[i]
        total += v[i]
    grid = np.reshape(v * 2.0 - w, (2, u.shape[0] // 2))
    flat = np.ravel(grid * total)
    return flat + v * c


@pytest.mark.parametrize("how", STRATEGIES)
@pytest.mark.parametrize("axes", [((0, None, 0), 0), ((1, None, 0), 1), ((0, None, 0), -1)])
def test_lanes_last_layout_agrees_with_the_per_example_loop(how, axes, rng):
    in_axes, out_axes = axes
    u = rng.normal(size=(5, 6)) if in_axes[0] == 0 else rng.normal(size=(6, 5))
    w, c = rng.normal(size=6), rng.normal(size=5)
    got = vmapped(smoothed_profile, how, in_axes=in_axes, out_axes=out_axes)(u, w, c)
    assert_same(got, loop_over(smoothed_profile, in_axes, (u, w, c), out_axes=out_axes % 2))


def test_lane_loop_code_keeps_lanes_last_where_every_use_allows(rng):
    u, w, c = rng.normal(size=(5, 6)), rng.normal(size=6), rng.normal(size=5)
    text = transpyle.show(smoothed_profile, mode="vmap", in_axes=(0, None, 0), args=(u, w, c), strategy="array")
    assert "u = rt.lanes_last(u)" in text and "v[i, _b1] = " in text and "(-1,) + (_B1,)" in text
    assert "np.expand_dims(w, -1)" in text and "return rt.lanes_first(" in text
