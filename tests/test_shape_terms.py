"""Symbolic shapes beyond constant slices (``analysis/shapes``), and what they make cheap:

- slices with computed bounds (``a[:i + 1, k]``, ``x[j:j + m]``): equal where their bounds are the same
  index arithmetic and the names in them have not changed between the definition and the read (a value
  carried into the next iteration, or read after a bound is rebound, is unknown);
- ``x[part] op= b``: the value written has the part's shape, so its adjoint needs no un-broadcasting and
  the triangular loops of syrk-like kernels save nothing; an increment ``x[part] += f`` leaves the part's
  cotangent in place (no copy, clearing and adding back), also where ``f`` is a part of ``x``;
- axes of length one (``keepdims=True``, ``x[:, None]``): element loops read them at 0 instead of testing
  shapes when the statement runs, and un-broadcasting to them sums as the elements are computed.

Every gradient is compared with central finite differences at random inputs of several sizes (one
included, where a computed slice has length one), on both backends.
"""
import gast
import numpy as np
import pytest

import transpyle
from transpyle.analysis.shapes import ONE, Shapes
from transpyle.base.kinds import Kind
from gradcheck import ALL_BACKENDS, check_grad, check_grads_at_sizes, sized_cases


# ---- triangular loops ---------------------------------------------------------------------------------
def rank_k_lower(a, c):
    c = c.copy()
    n, m = a.shape
    for i in range(n):
        c[i, :i + 1] *= 0.9
        for k in range(m):
            c[i, :i + 1] += 1.5 * a[i, k] * a[:i + 1, k]
    return np.sum(np.tril(c) ** 2)


def rank_2k_lower(a, b, c):
    c = c.copy()
    n, m = a.shape
    for i in range(n):
        for k in range(m):
            c[i, :i + 1] += a[:i + 1, k] * 0.5 * b[i, k] + b[:i + 1, k] * 0.5 * a[i, k]
    return np.sum(np.sin(c))


def forward_substitution(l, b):
    n = b.shape[0]
    x = np.zeros(n)
    for i in range(n):
        x[i] = (b[i] - l[i, :i] @ x[:i]) / (l[i, i] + 3.0)
    return np.sum(x ** 2)


def windows(x, w):
    m = w.shape[0]
    out = np.zeros(x.shape[0] - m + 1)
    for j in range(out.shape[0]):
        seg = x[j:j + m] * w
        out[j] = np.sum(np.tanh(seg))
    return np.sum(out ** 2)


def carried_prefix(x):
    n = x.shape[0]
    s = 0.0
    prev = x[:1]
    for i in range(1, n):
        s = s + np.sum(prev * x[i - 1:i])
        prev = x[:i] * 2.0
    return s


def cholesky_like(a):
    a = a @ a.T + 4.0 * np.eye(a.shape[0])
    n = a.shape[0]
    for j in range(n):
        for i in range(j):
            a[j, i] = (a[j, i] - a[j, :i] @ a[i, :i]) / a[i, i]
        a[j, j] = np.sqrt(a[j, j] - a[j, :j] @ a[j, :j])
    return np.sum(np.tril(a) ** 2)


# ---- axes of length one -------------------------------------------------------------------------------
def softmax_rows(x, w):
    m = np.max(x, axis=-1, keepdims=True)
    e = np.exp(x - m)
    s = e / np.sum(e, axis=-1, keepdims=True)
    return np.sum(s * w)


def normalize_rows(x):
    mu = np.mean(x, axis=1, keepdims=True)
    d = x - mu
    return np.sum(np.tanh(d / np.sqrt(np.mean(d * d, axis=1, keepdims=True) + 1.0)))


def columns_scaled(x, v):
    y = x / (np.sum(x * x, axis=0, keepdims=True) + 1.0) + v[None, :] * x
    return np.sum(np.sin(y))


def column_bias(x, b):
    return np.sum(np.tanh(b[:, None] + x) ** 2)


def outer_by_axes(u, v):
    return np.sum(np.cos(u[:, None] * v[None, :]))


def keepdims_bias(x, b):
    out = x * 2.0
    out += b
    return np.sum(out ** 3)


# ---- increments -----------------------------------------------------------------------------------
def self_increments(x):
    y = x.copy()
    for k in range(3):
        y[1:] += y[:-1] * 0.5
        y[:-1] -= np.sin(y[1:])
        y += y * 0.1
        y[::2] += 1.0
    return np.sum(y ** 2)


def broadcast_increment(w, x):
    h, v = x.shape[0] - 1, x.shape[1] - 1
    out = np.zeros((w.shape[0], h, v))
    for di in range(2):
        for dj in range(2):
            out += w[:, di, dj][:, None, None] * x[di:di + h, dj:dj + v]
    return np.sum(np.tanh(out))


def row_increments(a, b):
    c = np.zeros((a.shape[0], b.shape[1]))
    for i in range(a.shape[0]):
        for k in range(a.shape[1]):
            c[i, :] += a[i, k] * b[k, :]
        c[i, i % b.shape[1]] -= np.exp(a[i, 0]) * c[i, 0]
    return np.sum(c ** 2)


def bounded_by_lengths(u, w):
    # slices bounded by the axis length itself (n, n - 1, n - 2, n + 2), as array codes write them
    n = u.shape[0]
    q = np.zeros((n, n))
    for j in range(1, n - 1):
        q[1:n - 1, j] = (u[j, 0:n - 2] - 2.0 * u[j, 1:n - 1] + u[j, 2:n]) * w[1:n - 1] + 0.5 * q[1:n - 1, j - 1]
    return np.sum(q * q) + np.sum(u[1:n + 2, :] ** 2) + np.sum(w[0:w.shape[0] - 1] * w[1:])


def horizontal_diffusion(f, coeff):
    # sizes computed from the shape, as stencil codes write them: every part of f is the interior's size
    ni, nj = f.shape[0] - 4, f.shape[1] - 4
    lap = 4.0 * f[1:ni + 3, 1:nj + 3] - (f[2:ni + 4, 1:nj + 3] + f[0:ni + 2, 1:nj + 3] +
                                         f[1:ni + 3, 2:nj + 4] + f[1:ni + 3, 0:nj + 2])
    flx = lap[1:, 1:nj + 1] - lap[:-1, 1:nj + 1]
    fly = lap[1:ni + 1, 1:] - lap[1:ni + 1, :-1]
    out = f[2:ni + 2, 2:nj + 2] - coeff * (flx[1:] - flx[:-1] + fly[:, 1:] - fly[:, :-1])
    return np.sum(out * out)


def offset_sizes(x, w):
    m = x.shape[0] - 2
    k = m + 1
    y = np.zeros(m)
    y += x[1:k] * w[:m] - x[0:m]
    return np.sum(y * np.tanh(x[2:m + 2])) + np.sum(x[:k - 3] ** 2)


CASES = [
    (horizontal_diffusion, lambda r, n: (r.normal(size=(n + 4, n + 5)), 0.3)),
    (offset_sizes, lambda r, n: (r.normal(size=n + 3), r.normal(size=n + 1))),
    (bounded_by_lengths, lambda r, n: (r.normal(size=(n, n)), r.normal(size=n))),
    (bounded_by_lengths, lambda r, n: (r.normal(size=(n, n + 1)), r.normal(size=n))),
    (bounded_by_lengths, lambda r, n: (r.normal(size=(n + 1, n + 2)), r.normal(size=n + 1))),
    (rank_k_lower, lambda r, n: (r.normal(size=(n, 3)), r.normal(size=(n, n)))),
    (rank_2k_lower, lambda r, n: (r.normal(size=(n, 2)), r.normal(size=(n, 2)), r.normal(size=(n, n)))),
    (forward_substitution, lambda r, n: (r.normal(size=(n, n)), r.normal(size=n))),
    (windows, lambda r, n: (r.normal(size=n + 3), r.normal(size=min(n, 3)))),
    (carried_prefix, lambda r, n: (r.normal(size=n + 1),)),
    (cholesky_like, lambda r, n: (r.normal(size=(n, n)),)),
    (softmax_rows, lambda r, n: (r.normal(size=(n, 5)), r.normal(size=(n, 5)))),
    (softmax_rows, lambda r, n: (r.normal(size=(n, 1)), r.normal(size=(n, 1)))),
    (normalize_rows, lambda r, n: (r.normal(size=(n, 4)),)),
    (columns_scaled, lambda r, n: (r.normal(size=(n, 3)), r.normal(size=3))),
    (columns_scaled, lambda r, n: (r.normal(size=(1, n)), r.normal(size=n))),
    (column_bias, lambda r, n: (r.normal(size=(n, 4)), r.normal(size=n))),
    (column_bias, lambda r, n: (r.normal(size=(n, 1)), r.normal(size=n))),
    (outer_by_axes, lambda r, n: (r.normal(size=n), r.normal(size=n + 2))),
    (keepdims_bias, lambda r, n: (r.normal(size=(n, 4)), r.normal(size=(n, 1)))),
    (keepdims_bias, lambda r, n: (r.normal(size=(n, 4)), r.normal(size=(1, 4)))),
    (keepdims_bias, lambda r, n: (r.normal(size=(n, 4)), r.normal(size=4))),
    (self_increments, lambda r, n: (r.normal(size=n + 1),)),
    (broadcast_increment, lambda r, n: (r.normal(size=(3, 2, 2)), r.normal(size=(n + 2, n + 3)))),
    (row_increments, lambda r, n: (r.normal(size=(n, 3)), r.normal(size=(3, n + 1)))),
]


@pytest.mark.parametrize("backend", ALL_BACKENDS)
@pytest.mark.parametrize("fn, make", sized_cases(CASES))
def test_gradients_match_finite_differences(fn, make, backend, rng):
    check_grads_at_sizes(fn, make, (1, 2, 5), rng, backend)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
@pytest.mark.parametrize("fn, make", sized_cases(CASES))
def test_jit_matches_numpy(fn, make, backend, rng):
    args = make(rng, 4)
    assert np.allclose(transpyle.jit(fn, backend=backend)(*args), fn(*args), rtol=1e-12, atol=1e-12)


# ---- the generated code -----------------------------------------------------------------------------
def _shown(fn, kinds, mode="grad"):
    return transpyle.show(fn, mode=mode, kinds=tuple(k.strip() for k in kinds.split(";")))


def test_triangular_updates_save_nothing():
    text = _shown(rank_k_lower, "f8[:, :]; f8[:, :]")
    assert "tape" not in text
    # the written part's cotangent has its shape: no un-broadcasting of the value written
    assert "rt.unbroadcast(np.copy(" not in text


def test_increments_leave_the_cotangent_in_place():
    text = _shown(rank_k_lower, "f8[:, :]; f8[:, :]")
    adjoint = text.split("# adjoint sweep")[1]
    increment = adjoint.split("c[i, :i + 1] += 1.5")[1].split("# test_shape_terms")[0]
    assert "np.copy(" not in increment and "] = 0.0" not in increment
    # a value broadcast into the increment keeps nothing per iteration
    assert "tape" not in _shown(broadcast_increment, "f8[:, :, :]; f8[:, :]")


def test_length_one_axes_are_read_at_zero():
    text = _shown(softmax_rows, "f8[:, :]; f8[:, :]", mode="jit")
    assert "m[_e0, 0]" in text and "rt.conform(m" not in text
    grad = _shown(softmax_rows, "f8[:, :]; f8[:, :]")
    # the cotangent of the row maximum sums along the row as it is computed, without the broadcast array
    assert "bm[_e0, 0] +=" in grad


def test_bounds_at_the_axis_length_need_no_shape_tests():
    # a square argument: the bounds read the one length both axes have, which w's has too
    square = transpyle.show(transpyle.grad(bounded_by_lengths), args=(np.ones((4, 4)), np.ones(4)))
    assert "rt.conform" not in square and "rt.unbroadcast" not in square
    assert ".shape[0] ==" not in square.split('"""', 2)[2]


# ---- the analysis -----------------------------------------------------------------------------------
def _shapes(src, kinds):
    fn = gast.parse(src).body[0]
    return Shapes(fn, {k: Kind(*v) for k, v in kinds.items()})


def test_computed_bounds_are_equal_when_written_alike():
    shapes = _shapes("def f(a, c, n):\n    for i in range(n):\n        p = a[:i + 1, 0]\n        q = a[:i + 1, 1] * 2.0\n"
                     "        r = a[1:i + 1, 0]\n        s = p + q\n        t = c[:i + 1]\n",
                     {"a": ("float64", 2), "c": ("float64", 1), "n": ("int64", 0), "i": ("int64", 0),
                      "p": ("float64", 1), "q": ("float64", 1), "r": ("float64", 1), "s": ("float64", 1),
                      "t": ("float64", 1)})
    assert shapes.same("p", "q") and shapes.same("s", "p")
    assert not shapes.same("p", "r") and not shapes.same("p", "t")


def test_computed_bounds_do_not_cross_iterations_or_rebinding():
    kinds = {"x": ("float64", 1), "n": ("int64", 0), "i": ("int64", 0), "j": ("int64", 0),
             "prev": ("float64", 1), "y": ("float64", 1), "z": ("float64", 1), "s": ("float64", 0)}
    # prev is read in the iteration after the one that defined it: its bound meant i - 1 then
    carried = _shapes("def f(x, n):\n    s = 0.0\n    for i in range(1, n):\n        if i > 1:\n"
                      "            s = s + np.sum(prev * x[:i])\n        prev = x[:i]\n", kinds)
    assert "prev" not in carried.of
    # j changes between y's definition and its read
    rebound = _shapes("def f(x, n):\n    for i in range(n):\n        j = i\n        y = x[:j]\n        j = j + 1\n"
                      "        z = y * 2.0\n", kinds)
    assert "y" not in rebound.of and rebound.of["z"] == (("of", "z", 0),)       # z: axes of its own only


def test_axes_of_length_one_broadcast():
    shapes = _shapes("def f(x, v):\n    m = np.max(x, axis=-1, keepdims=True)\n    d = x - m\n    r = np.sum(x, axis=0)\n"
                     "    c = v[:, None]\n    e = c * r\n",
                     {"x": ("float64", 2), "v": ("float64", 1), "m": ("float64", 2), "d": ("float64", 2),
                      "r": ("float64", 1), "c": ("float64", 2), "e": ("float64", 2)})
    x0, x1 = ("axis", "x", 0, 0), ("axis", "x", 1, 0)
    assert shapes.of["m"] == (x0, ONE) and shapes.same("d", "x")
    assert shapes.of["r"] == (x1,) and shapes.of["c"] == (("axis", "v", 0, 0), ONE)
    assert shapes.of["e"] == (("axis", "v", 0, 0), x1)


# ---- axes a matrix product shows equal ---------------------------------------------------------------
def outer_before_and_after(a, p, r):
    early = np.sum(np.outer(r, p) * a)        # before the products: r, p and a's axes may differ here
    q = a @ p
    s = r @ a
    return early + np.sum(q * q) + np.sum(s * s)


def test_matrix_products_show_axes_equal_after_they_run():
    """Once ``q = a @ p`` and ``s = r @ a`` have run, a's axes are r's and p's: the outer products of the
    adjoint need no shape test when the code is compiled for kinds only; the statement before keeps it."""
    text = transpyle.show(outer_before_and_after, kinds=("f8[:, :]", "f8[:]", "f8[:]"))
    code = "\n".join(line for line in text.splitlines() if not line.strip().startswith("#"))
    sweep = code[code.index("bq = "):]
    assert "r.shape[0] ==" not in sweep and "p.shape[0] ==" not in sweep and "np.outer(" not in sweep
    assert ".shape[0] ==" in code[:code.index("q = a @ p")] or "rt.conform" in code[:code.index("q = a @ p")]


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_matrix_product_facts_keep_gradients_right(backend):
    rng = np.random.default_rng(5)
    for n, m in ((3, 4), (1, 5), (6, 1)):
        check_grad(outer_before_and_after, (rng.normal(size=(n, m)), rng.normal(size=m), rng.normal(size=n)),
                   backend=backend)


def test_bounds_written_with_the_axis_length():
    kinds = {v: ("float64", 1) for v in "abcdefgh"}
    kinds.update(x=("float64", 1), n=("int64", 0))
    shapes = _shapes("def f(x):\n    n = x.shape[0]\n    a = x[1:n - 1]\n    b = x[0:n - 2]\n    c = x[2:n]\n"
                     "    d = x[1:-1]\n    e = x[:n + 1]\n    g = x[0:n - 3]\n    h = x[:x.shape[0] - 1]\n", kinds)
    assert shapes.same("a", "b") and shapes.same("b", "c") and shapes.same("a", "d")
    assert shapes.of["e"] == shapes.of["x"] and shapes.of["h"] == (("axis", "x", 0, -1),)
    # n - 3 stops elsewhere than -3 where n < 3 (x[0:-1] of two elements, x[0:-3] of none)
    assert not shapes.same("g", "h") and shapes.of.get("g") != (("axis", "x", 0, -3),)


def test_values_taken_back_from_tapes_and_reset_in_loops_keep_shapes():
    kinds = {"x": ("float64", 2), "t": ("float64", 2), "bt": ("float64", 2), "n": ("int64", 0), "i": ("int64", 0),
             "tp": ("float64", 2), "y": ("float64", 2)}
    shapes = _shapes("def f(x, n, tp):\n    bt = np.zeros_like(x)\n    for i in range(n):\n        t = x * 2.0\n"
                     "        y = bt + t\n        t = rt.tape_pop(tp)\n        bt = np.zeros_like(bt)\n", kinds)
    assert shapes.same("t", "x") and shapes.same("bt", "x") and shapes.same("y", "x")
    # a reset that really changes the shape is not guessed away
    changed = _shapes("def f(x, n, tp):\n    bt = np.zeros_like(x)\n    for i in range(n):\n"
                      "        bt = np.zeros_like(bt[1:])\n", kinds)
    assert "bt" not in changed.of



def test_sizes_computed_from_a_shape():
    kinds = {v: ("float64", 1) for v in "abcdegh"}
    kinds.update(x=("float64", 1), m=("int64", 0), k=("int64", 0))
    shapes = _shapes("def f(x):\n    m = x.shape[0] - 4\n    k = 1 + m\n    a = x[1:m + 3]\n    b = x[2:m + 4]\n"
                     "    c = x[0:k + 1]\n    d = np.zeros(m)\n    e = a[1:m + 1]\n    g = x[0:m]\n    h = x[4:]\n", kinds)
    assert shapes.same("a", "b") and shapes.same("a", "c") and shapes.of["a"] == (("axis", "x", 0, -2),)
    # m itself is the length of x[4:]; a[1:m + 1] stops one before a's end
    assert shapes.same("d", "h") and shapes.same("e", "h")
    # m is n - 4: x[0:m] stops at -4, not the same stop for every n
    assert shapes.of.get("g") != (("axis", "x", 0, -4),)


def test_sizes_computed_from_a_shape_need_no_shape_tests():
    text = transpyle.show(transpyle.grad(horizontal_diffusion), args=(np.ones((8, 9)), 0.3))
    assert "rt.conform" not in text and "rt.unbroadcast" not in text
