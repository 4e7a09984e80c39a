"""Zeroed arrays that need no buffer (transforms/adjoint_buffers) and neighbouring element loops run as
one (transforms/loop_fusion): the generated code has the forms, and every function here gives the
same gradient (and value, under jit) on Numba as on the NumPy backend, which runs neither pass, and
as finite differences, over several shapes."""
import re

import numpy as np
import pytest

import transpyle
from gradcheck import numerical_grad


# ---- the forms ----------------------------------------------------------------------------------------
def bicg(a, p, r):
    q = a @ p
    s = r @ a
    return np.sum(q * q) + np.sum(s * s)


def softmax(x, w):
    m = np.max(x, axis=-1, keepdims=True)
    e = np.exp(x - m)
    s = e / np.sum(e, axis=-1, keepdims=True)
    return np.sum(s * w)


def test_the_adjoint_of_a_sum_is_a_number_and_rank_one_updates_share_one_pass():
    text = transpyle.show(bicg, args=(np.ones((4, 3)), np.ones(3), np.ones(4)))
    sweep = text.split("# adjoint sweep")[1]
    assert "np.zeros" not in sweep                      # no zeroed buffer at all
    assert "ba = np.empty_like(a)" in sweep
    # both rank-one updates in one nest over ba, the first assigning
    assert re.search(r"ba\[_e0, _e1\] = r\[_e0\] \* bs\[_e1\]\n.*\n\s+ba\[_e0, _e1\] \+= bq\[_e0\] \* p\[_e1\]", sweep)
    assert re.search(r"b_t\d+ = b_t\d+\n", sweep)       # the sum's adjoint: a number


def test_a_sum_along_an_axis_is_not_fused_with_its_readers():
    text = transpyle.show(softmax, args=(np.ones((3, 4)), np.ones((3, 4))))
    sweep = text.split("# adjoint sweep")[1]
    # the row sums b_t2[_e0, 0] are complete before be reads them: the loops over a row's elements stay
    # apart (the loops over rows share one, a row at a time: row fusion)
    rows = re.split(r"\n    (?:for _e0|if rt\.parallel_pays)", sweep)
    assert sum(1 for nest in rows if "b_t2[_e0, 0] +=" in nest) == 1
    inner = re.split(r"\n        for _e1", sweep)
    assert any("b_t2[_e0, 0] +=" in loop for loop in inner)
    for loop in inner:
        if "b_t2[_e0, 0] +=" in loop:
            assert "+= b_t2[_e0, 0]" not in loop
    assert any("+= b_t2[_e0, 0]" in loop for loop in inner)


# ---- values: many patterns, both backends, finite differences --------------------------------------
def sum_of_product(x, y):
    return np.sum(x * y) + np.mean(x * x)


def two_rank_one(a, u, v):
    return np.sum((a @ u) ** 2) + np.sum((v @ a) * u)


def row_softmax(x, w):
    return softmax(x, w)


def mean_of_tanh_layer(w, x):
    h = np.tanh(x @ w)
    return np.mean(h * h)


def uniform_then_reused(x):
    acc = np.zeros_like(x)
    acc += 2.0
    y = acc * x + acc * x * x
    return np.sum(y * acc)


def zeros_written_in_a_loop(x):
    out = np.zeros_like(x)
    for i in range(3):
        out += x * (i + 1.0)
    return np.sum(out * x)


def zeros_written_in_part(x):
    out = np.zeros(x.shape)
    out[1:] += x[:-1] * 2.0
    out[:-1] += x[1:]
    return np.sum(out * out)


def zeros_read_first(x):
    out = np.zeros(x.shape)
    first = out * x
    out += x * x
    return np.sum(out * x) + np.sum(first)


def sums_of_one_temporary(x, y):
    t = x * y
    return np.sum(t) * np.sum(t * t)


def stencil_steps(u0, k):
    u = u0.copy()
    for _ in range(4):
        lap = u[2:] - 2.0 * u[1:-1] + u[:-2]
        u[1:-1] += k * lap
    return np.sum(u * u)


def column_means(data):
    mean = np.mean(data, axis=0)
    d = data - mean
    return np.sum(d * d * d)


def outer_updates(a, x, y):
    b = a + np.outer(x, y)
    c = b * a
    return np.sum(c * c) + np.sum(b)


def layer_norm(x, w):
    mu = np.mean(x, axis=1, keepdims=True)
    d = x - mu
    v = np.mean(d * d, axis=1, keepdims=True)
    return np.sum(d / np.sqrt(v + 1e-3) * w)


def logsumexp_rows(x):
    m = np.max(x, axis=1, keepdims=True)
    return np.sum(np.log(np.sum(np.exp(x - m), axis=1)) + m[:, 0])


def columns_normalized(x, w):
    s = np.sum(x * x, axis=0, keepdims=True)
    return np.sum(x / np.sqrt(s + 1.0) * w)


def differences_of_rows(x):
    d = x[1:] - x[:-1]
    r = np.sum(d * d, axis=1, keepdims=True)
    return np.sum(d / (1.0 + r)) + np.sum(x[:-1] * d)


def sums_along_the_last_of_three(x):
    s = np.sum(x * x, axis=2, keepdims=True)
    t = x / (1.0 + s)
    return np.sum(t * np.sum(t, axis=1, keepdims=True))


def pair_forces_in_steps(x, v):
    for _ in range(3):
        d = x[None, :, :] - x[:, None, :]
        f = np.sum(d / (np.sum(d * d, axis=2) + 1.0)[:, :, None], axis=1)
        v = v + 0.1 * f
        x = x + 0.1 * v
    return np.sum(x * x) + np.sum(v)


def broadcast_rows_in_steps(x, w):
    acc = np.zeros(x.shape[1])
    for k in range(4):
        t = np.tanh(x * w[k] + acc)
        acc = acc + np.sum(t, axis=0)
    return np.sum(acc * acc)


def rebound_in_steps(q, p):
    for _ in range(3):
        q = q + 0.1 * p
        p = p - 0.1 * np.sin(q)
    return np.sum(q * q + p * p)


CASES = [
    (sum_of_product, lambda r, n, m: (r.normal(size=n), r.normal(size=n)), (0, 1)),
    (two_rank_one, lambda r, n, m: (r.normal(size=(n, m)), r.normal(size=m), r.normal(size=n)), (0, 1, 2)),
    (row_softmax, lambda r, n, m: (r.normal(size=(n, m)), r.normal(size=(n, m))), (0, 1)),
    (mean_of_tanh_layer, lambda r, n, m: (r.normal(size=(m, n)) * 0.3, r.normal(size=(n, m))), (0, 1)),
    (uniform_then_reused, lambda r, n, m: (r.normal(size=n),), (0,)),
    (zeros_written_in_a_loop, lambda r, n, m: (r.normal(size=(n, m)),), (0,)),
    (zeros_written_in_part, lambda r, n, m: (r.normal(size=n + 2),), (0,)),
    (zeros_read_first, lambda r, n, m: (r.normal(size=n),), (0,)),
    (sums_of_one_temporary, lambda r, n, m: (r.normal(size=(n, m)), r.normal(size=(n, m))), (0, 1)),
    (stencil_steps, lambda r, n, m: (r.normal(size=n + 3), 0.2), (0, 1)),
    (column_means, lambda r, n, m: (r.normal(size=(n, m)),), (0,)),
    (outer_updates, lambda r, n, m: (r.normal(size=(n, m)), r.normal(size=n), r.normal(size=m)), (0, 1, 2)),
    # row fusion: nests over rows that sum a row and read the sum share their loop over rows
    (layer_norm, lambda r, n, m: (r.normal(size=(n, m)), r.normal(size=(n, m))), (0, 1)),
    (logsumexp_rows, lambda r, n, m: (r.normal(size=(n, m)),), (0,)),
    (columns_normalized, lambda r, n, m: (r.normal(size=(n, m)), r.normal(size=(n, m))), (0, 1)),
    (differences_of_rows, lambda r, n, m: (r.normal(size=(n + 1, m)),), (0,)),
    (sums_along_the_last_of_three, lambda r, n, m: (r.normal(size=(n, m, 3)),), (0,)),
    # adjoints of a loop's temporaries, made once and assigned by each iteration's first write
    (pair_forces_in_steps, lambda r, n, m: (r.normal(size=(n + 1, 2)), r.normal(size=(n + 1, 2))), (0, 1)),
    (broadcast_rows_in_steps, lambda r, n, m: (r.normal(size=(n, m)), r.normal(size=(4, m))), (0, 1)),
    (rebound_in_steps, lambda r, n, m: (r.normal(size=n), r.normal(size=n)), (0, 1)),
]


@pytest.mark.numba
@pytest.mark.parametrize("f, make, argnums", CASES, ids=[c[0].__name__ for c in CASES])
def test_gradients_agree_with_the_numpy_backend_and_finite_differences(f, make, argnums, rng):
    compiled = transpyle.grad(f, argnums=argnums, backend="numba")
    reference = transpyle.grad(f, argnums=argnums, backend="numpy")
    jitted = transpyle.jit(f, backend="numba")
    for n, m in ((4, 3), (1, 5), (6, 6)):
        args = make(rng, n, m)
        got, want = compiled(*args), reference(*args)
        for k, (g, w) in enumerate(zip(got, want)):
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)
            fd, noise = numerical_grad(f, args, argnums[k])
            np.testing.assert_allclose(g, fd, rtol=1e-5, atol=1e-7 + 10 * np.max(noise))
        np.testing.assert_allclose(jitted(*args), f(*args), rtol=1e-12)


def test_nests_over_rows_share_one_loop_over_rows():
    text = transpyle.show(transpyle.grad(layer_norm), args=(np.ones((3, 4)), np.ones((3, 4))))
    sweep = text.split("# adjoint sweep")[1]
    # the nests over a row (the product's adjoint, then the sum of the row that reads it) run in one
    # loop over the rows, and so do those after the variance's adjoint (a sum into a row's one element
    # only added into, they may even run as one nest)
    rows = re.split(r"\n    for _e0 in", sweep)[1:]
    assert len(rows) == 2 and all(1 <= len(re.findall(r"\n        for _e1 in", r)) <= 2 for r in rows)


def test_a_sum_over_rows_keeps_the_loops_over_rows_apart():
    text = transpyle.show(transpyle.grad(columns_normalized), args=(np.ones((3, 4)), np.ones((3, 4))))
    sweep = text.split("# adjoint sweep")[1]
    # the column sums (bs[0, _e1] += ..., over every row) are complete before any row reads them
    for nest in re.split(r"\n    for _e0 in", sweep):
        if re.search(r"\w+\[0, _e1\] \+=", nest):
            assert not re.search(r"\+= \w+\[0, _e1\]", nest)


def test_a_loops_temporary_adjoint_is_made_once():
    text = transpyle.show(transpyle.grad(pair_forces_in_steps), args=(np.ones((4, 2)), np.ones((4, 2))))
    loop = text.split("# adjoint sweep")[1].split("\n    for _ in ")[1]
    # no adjoint of the pairwise differences is zeroed again each iteration: each iteration's first
    # contribution assigns into the one array made before the loop
    assert not re.search(r"bd\w* = np\.zeros_like\(bd", loop)
    assert re.search(r"bd\w*(\[_e0, _e1, _e2\]|\[\.\.\.\]) = ", loop)


def test_contributions_under_one_shape_test_share_it_and_their_loop():
    text = transpyle.show(transpyle.grad(rebound_in_steps, argnums=(0, 1)), args=(np.ones(5), np.ones(5)))
    sweep = text.split("# adjoint sweep")[1].split("\n    for _ in")[0]
    # the shapes of rebound arrays are tested when the code runs: both halves of p * p's adjoint are
    # under one test, in one loop
    assert re.search(r"(bp\w*)\[_e0\] \+?= b_t\d+\[_e0\] \* p\w*\[_e0\]\n\s+\1\[_e0\] \+= ", sweep), sweep
