"""What makes gradients of array code cheap, checked on the generated code and on its numbers:

- the to-be-recorded analysis (``analysis/to_be_recorded``): statements whose adjoint reads nothing
  that is overwritten save nothing (a stencil updated in place, an accumulation ``y[i] += ...``, a
  covariance written into its own matrix); what is read and overwritten is still saved;
- adjoints set by their one use (``b_t = contribution``), with no zeroing inside loops;
- ``fuse``: elementwise chains become one expression;
- ``element_loops``: elementwise statements become loops over the elements in the code Numba
  compiles, with shape tests where shapes are not proven equal (an axis of length one still
  broadcasts), and a new array where an operand reads memory the loop writes;
- the symbolic shapes that decide it (``analysis/shapes``).

Every gradient is compared with central finite differences at random inputs of several sizes, on
both backends.
"""
import re

import gast
import numpy as np
import pytest

import transpyle
from transpyle.analysis.shapes import Shapes
from transpyle.analysis.to_be_recorded import BINDING, VALUE, adjoint_reads, required_before
from transpyle.base.kinds import Kind
from transpyle import runtime as rt
from gradcheck import ALL_BACKENDS, check_grad, check_grads_at_sizes, sized_cases


# ---- programs ---------------------------------------------------------------------------------------
def diffusion(u0, k):
    u = u0.copy()
    inner = u[1:-1]
    for _ in range(5):
        lap = u[:-2] - 2.0 * u[1:-1] + u[2:]
        inner += k * lap
    return np.sum(u * u)


def jacobi_2d(a0):
    a = a0.copy()
    b = np.zeros_like(a)
    for _ in range(3):
        b[1:-1, 1:-1] = 0.2 * (a[1:-1, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:] + a[2:, 1:-1] + a[:-2, 1:-1])
        a[1:-1, 1:-1] = 0.2 * (b[1:-1, 1:-1] + b[1:-1, :-2] + b[1:-1, 2:] + b[2:, 1:-1] + b[:-2, 1:-1])
    return np.sum(a * a) + np.sum(np.sin(b))


def covariance(data):
    n, m = data.shape
    mean = np.mean(data, axis=0)
    d = data - mean
    cov = np.zeros((m, m))
    for i in range(m):
        cov[i:m, i] = d[:, i] @ d[:, i:m] / (n - 1.0)
        cov[i, i:m] = cov[i:m, i]
    return np.sum(cov * cov)


def matvec(a, x):
    n, m = a.shape
    y = np.zeros(n)
    for i in range(n):
        for j in range(m):
            y[i] += a[i, j] * x[j]
    return np.sum(y * y)


def layer(w, b, x):
    h = np.tanh(x @ w + b)
    return np.sum(h * h)


def shift_in_place(a0):
    a = a0.copy()
    for _ in range(3):
        a[1:] = a[:-1] * 0.5 + a[1:]          # reads what the loop over elements would overwrite
    return np.sum(a * a)


def nonlinear_update(u0):
    u = u0.copy()
    for _ in range(4):
        u[1:-1] = u[1:-1] + 0.1 * np.sin(u[:-2]) * u[2:]
    return np.sum(u * u)


def rank_one_updates(x, y):
    a = np.zeros((x.shape[0], y.shape[0]))
    for k in range(3):
        a += np.outer(x * k, y) / (k + 1.0)
    return np.sum(np.tanh(a))


def rows_mixed_in_place(a0, c):
    a = a0.copy()
    for r in range(a.shape[0]):               # the bound reads only a's shape, which the writes keep
        for q in range(1, a.shape[1]):
            a[r, q, :] = a[r, q - 1, :] @ c
    return np.sum(a * a)


def gauss_seidel(u0):
    u = u0.copy()
    for _ in range(2):
        for i in range(1, u.shape[0] - 1):
            u[i] = 0.5 * (u[i - 1] + u[i + 1]) + 0.1 * u[i] * u[i]    # nonlinear: u[i] is still saved
    return np.sum(u * u)


def shrinking(x):
    total = 0.0
    for _ in range(3):
        for i in range(x.shape[0]):
            total += x[i] * x[i]
        x = x[1:] * 2.0                       # rebinds the argument to a shorter array, in the loop
    return total


# products of an array nothing writes, taken in a loop: computed again in the sweep, not taped
def rank_two_rows(a, b, alpha):
    c = np.zeros((a.shape[0], a.shape[0]))
    for i in range(a.shape[0]):
        for k in range(a.shape[1]):
            c[i, :i + 1] += a[:i + 1, k] * alpha * b[i, k] + b[:i + 1, k] * alpha * a[i, k]
    return np.sum(np.sin(c) * c)


def scaled_rows(x, w):
    out = np.zeros(x.shape[1])
    for i in range(x.shape[0]):
        t = -w * 2.0 + 1.0          # the same each time: loop-invariant, and of an unwritten array
        s = x[i] * w - t            # taken again in the sweep
        out += np.tanh(s) * s[0]
    return np.sum(out * out)


def regrown(x, w):
    y = x[1:]
    for _ in range(2):
        y = np.tanh(y * w[0])
        y = np.concatenate((y, x[:1])) * w[1]     # two definitions of two shapes
        y = y[1:]
    return np.sum(y * y)


def leapfrog_parts(ex0, hz0, w):
    ex, hz = ex0.copy(), hz0.copy()
    for _ in range(3):
        ex[:, 1:] -= 0.5 * (hz[:, 1:] - hz[:, :-1]) * w
        hz[:-1, :] += 0.3 * np.sin(ex[1:, :])
        hz[1:, :] -= hz[:-1, :] * 0.25        # reads another part of the array it decrements
    return np.sum(hz * hz) + np.sum(ex * ex)


def softmax_rows(z, w):
    m = np.max(z, axis=1, keepdims=True)
    e = np.exp(z - m)
    return np.sum(e / np.sum(e, axis=1, keepdims=True) * w)


def tanh_matvec(a, x):
    return np.sum(np.tanh(a @ x))


def broadcast_rows(x, row):
    return np.sum(np.exp(0.1 * (x - row)) * x)


def softmax_loss(z):
    e = np.exp(z - np.max(z))
    p = e / np.sum(e)
    return np.sum(p * np.log(p + 1.0))


def lower_triangle_of_products(d):
    m = d.shape[1]
    corr = np.eye(m)
    for i in range(m - 1):
        corr[i + 1:m, i] = d[:, i] @ d[:, i + 1:m]
        corr[i, i + 1:m] = corr[i + 1:m, i]
    return np.sum(corr * corr)


def stacks_times_one_matrix(a, c):
    nr, nq, k = a.shape
    b = np.reshape(np.reshape(a, (nr, nq, 1, k)) @ c, (nr, nq, k))
    return np.sum(b * b) + np.sum(np.tanh(np.swapaxes(a, 0, 1) @ c))


def yee_cells(ex0, ey0, hz0):
    ex, ey, hz = ex0.copy(), ey0.copy(), hz0.copy()
    for t in range(3):
        ey[1:, :] -= 0.5 * (hz[1:, :] - hz[:-1, :])
        ex[:, 1:] -= 0.5 * (hz[:, 1:] - hz[:, :-1])
        hz[:-1, :-1] -= 0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1])
    return np.sum(hz * hz) + np.sum(ex * ey)


def scaled_then_source_written(u, w):
    u = u.copy()
    t = 2.0 * u[1:]
    v = t * w[1:]
    u[1:] += 3.0 * w[:-1]          # the scaled value's source changes before its second read
    return np.sum(v * u[1:]) + np.sum(t * u[1:])


def reversed_updates(x, n):
    y = x.copy()
    for k in range(1, n):
        y[:k] += 0.5 * np.flip(y[:k])
    return np.sum(y * y) + np.sum(x[::-1] * x)


CASES = [
    (yee_cells, lambda r, n: (r.normal(size=(n, n + 1)), r.normal(size=(n, n + 1)), r.normal(size=(n, n + 1)))),
    (scaled_then_source_written, lambda r, n: (r.normal(size=n + 1), r.normal(size=n + 1))),
    (reversed_updates, lambda r, n: (r.normal(size=n + 2), n + 2)),
    (diffusion, lambda r, n: (r.normal(size=n), 0.1)),
    (jacobi_2d, lambda r, n: (r.normal(size=(n, n + 1)),)),
    (covariance, lambda r, n: (r.normal(size=(n + 3, n)),)),
    (matvec, lambda r, n: (r.normal(size=(n, n + 2)), r.normal(size=n + 2))),
    (layer, lambda r, n: (r.normal(size=(n, 3)), r.normal(size=3), r.normal(size=(n + 1, n)))),
    (layer, lambda r, n: (r.normal(size=(n, 1)), r.normal(size=1), r.normal(size=(n + 1, n)))),
    (layer, lambda r, n: (r.normal(size=(n, 3)), r.normal(size=1), r.normal(size=(n + 1, n)))),
    (shift_in_place, lambda r, n: (r.normal(size=n),)),
    (nonlinear_update, lambda r, n: (r.normal(size=n),)),
    (rank_one_updates, lambda r, n: (r.normal(size=n), r.normal(size=n + 2))),
    (broadcast_rows, lambda r, n: (r.normal(size=(n, 4)), r.normal(size=4))),
    (broadcast_rows, lambda r, n: (r.normal(size=(n, 4)), r.normal(size=1))),
    (broadcast_rows, lambda r, n: (r.normal(size=(n, 1)), r.normal(size=4))),
    (softmax_loss, lambda r, n: (r.normal(size=n),)),
    (rows_mixed_in_place, lambda r, n: (r.normal(size=(2, n, 3)), r.normal(size=(3, 3)))),
    (gauss_seidel, lambda r, n: (r.normal(size=n),)),
    (shrinking, lambda r, n: (r.normal(size=n + 3),)),
    (softmax_rows, lambda r, n: (r.normal(size=(n, n + 2)), r.normal(size=(n, n + 2)))),
    (tanh_matvec, lambda r, n: (r.normal(size=(n, n + 1)), r.normal(size=n + 1))),
    (leapfrog_parts, lambda r, n: (r.normal(size=(n, n + 1)), r.normal(size=(n, n + 1)), 1.5)),
    (regrown, lambda r, n: (r.normal(size=n), r.normal(size=2))),
    (rank_two_rows, lambda r, n: (r.normal(size=(n, n - 1)), r.normal(size=(n, n - 1)), 1.5)),
    (scaled_rows, lambda r, n: (r.normal(size=(n, 4)), r.normal(size=4))),
    (lower_triangle_of_products, lambda r, n: (r.normal(size=(n + 2, n)),)),
    (stacks_times_one_matrix, lambda r, n: (r.normal(size=(2, n, n - 1)), r.normal(size=(n - 1, n - 1)))),
]


@pytest.mark.parametrize("backend", ALL_BACKENDS)
@pytest.mark.parametrize("fn, make", sized_cases(CASES))
def test_gradients_match_finite_differences(fn, make, backend, rng):
    check_grads_at_sizes(fn, make, (3, 6), rng, backend)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_jit_of_overlapping_updates_matches_numpy(backend, rng):
    for fn in (shift_in_place, nonlinear_update, diffusion):
        args = (rng.normal(size=7),) if fn is not diffusion else (rng.normal(size=7), 0.2)
        assert np.allclose(transpyle.jit(fn, backend=backend)(*args), fn(*args), rtol=1e-12, atol=0)


# ---- the generated code -----------------------------------------------------------------------------
def _shown(fn, kinds, mode="grad"):
    return transpyle.show(fn, mode=mode, kinds=tuple(k.strip() for k in kinds.split(";")))


def test_linear_in_place_stencil_saves_nothing():
    text = _shown(diffusion, "f8[:]; f8")
    assert "tape" not in text
    assert "np.zeros_like(b_" not in text.split("for _ in range(4, -1, -1)")[-1]


def test_accumulation_and_covariance_save_nothing_of_their_outputs():
    assert "tape" not in _shown(matvec, "f8[:, :]; f8[:]")
    text = _shown(covariance, "f8[:, :]")
    assert "_tape_cov" not in text and "np.copy(cov" not in text


def test_values_read_and_overwritten_are_still_saved():
    # the adjoint of sin reads u[:-2], which the next iteration overwrites
    assert "tape_push" in _shown(nonlinear_update, "f8[:]")
    assert "_tape_u" in _shown(gauss_seidel, "f8[:]")


def test_arithmetic_on_arrays_nothing_writes_is_computed_again_not_saved():
    text = _shown(rank_two_rows, "f8[:, :]; f8[:, :]; f8")
    assert "tape" not in text
    sweep = text.split("# adjoint sweep")[1]
    assert re.search(r"_t\d+ = b\[:i \+ 1, k\]", sweep)      # taken again where the adjoint reads it
    text = _shown(scaled_rows, "f8[:, :]; f8[:]")
    assert "_tape_s" not in text
    assert text.count("rt.tape_push(") == 1     # tanh(s) only: an elementary function costs more than a copy


def test_a_value_written_into_a_part_of_its_shape_is_not_saved():
    # the product has the part's shape (np.eye(m) is m x m, the slices' spans agree): its adjoint needs no
    # un-broadcasting, so neither the product nor the copy of the part is kept per iteration
    assert "tape" not in _shown(lower_triangle_of_products, "f8[:, :]")


def test_a_stack_times_one_matrix_is_one_product():
    text = transpyle.show(stacks_times_one_matrix, mode="grad", argnums=(0, 1), kinds=("f8[:, :, :]", "f8[:, :]"))
    # the matrix's adjoint sums the stack's products: one product of all rows, no product per matrix
    assert "rt.matmul(rt.reshape(" in text and "rt.unbroadcast(rt.matmul" not in text


def test_a_loop_bound_by_an_arrays_shape_does_not_save_its_writes():
    # the reversed range(a.shape[0]) reads a's shape, not its values
    assert "tape" not in _shown(rows_mixed_in_place, "f8[:, :, :]; f8[:, :]")


def test_elementwise_chain_is_one_loop_with_no_temporaries():
    text = _shown(diffusion, "f8[:]; f8", mode="jit")
    body = text.split("def diffusion")[1]
    assert "lap" not in body.replace("# test_adjoint_cost", "").split("\n#")[0] or "_t1 =" not in body
    assert "_t1 =" not in body and "_t2 =" not in body
    assert "for _e0 in range(" in text
    assert "rt.conform" not in text          # slices of one array: shapes proven equal


def test_a_cheap_adjoint_read_several_times_is_computed_by_each_reader():
    text = transpyle.show(transpyle.grad(yee_cells), args=(np.ones((4, 5)),) * 3)
    loop = text.split("# adjoint sweep")[1].split("\n    for t in ")[1]
    # -bhz[:-1, :-1] * 0.7 and the others are not stored: no array is made in the loop
    assert "np.empty(" not in loop and "np.zeros" not in loop


def test_an_element_read_between_nests_stays_after_the_nest_writing_it(rng):
    # s[0] between the nest recomputing s and the next one: read after s is written, not moved before
    args = (rng.normal(size=(2, 4)), rng.normal(size=4))
    np.testing.assert_allclose(transpyle.grad(scaled_rows, backend="numba")(*args),
                               transpyle.grad(scaled_rows, backend="numpy")(*args), rtol=1e-12)


def overlapping_accumulations(x, w):
    y = np.zeros(x.shape[0] + 2)
    for _ in range(2):
        y[2:] += w * x
        y[:-2] += x * x
        y[1:-1] -= y[:-2] * 0.5          # reads what is added into: not one pass with the additions
    return np.sum(y * y)


def test_additions_and_reads_of_one_buffer_keep_their_passes(rng):
    for backend in ("numpy", "numba"):
        for n in (1, 3, 6):
            args = (rng.normal(size=n), rng.normal(size=n))
            np.testing.assert_allclose(transpyle.jit(overlapping_accumulations, backend=backend)(*args),
                                       overlapping_accumulations(*args), rtol=1e-12)
            check_grad(overlapping_accumulations, args, argnums=0, backend=backend)


def test_a_reversed_part_has_the_parts_shape():
    text = transpyle.show(transpyle.grad(reversed_updates), args=(np.ones(6), 6))
    assert "tape" not in text and "rt.conform" not in text and "rt.unbroadcast" not in text


def test_unproven_shapes_are_tested_when_the_statement_runs():
    text = _shown(layer, "f8[:, :]; f8[:]; f8[:, :]", mode="jit")
    assert "if rt.conform(b, " in text and "else:" in text


def test_outer_product_accumulates_in_place():
    text = _shown(covariance, "f8[:, :]")
    # the rank-one update runs in the adjoint's own buffer: no zero array, no np.outer array added
    assert re.search(r"_out\d+\[_e0, _e1\] \+= \w+\[_e0\] \* \w+\[_e1\]", text)


def test_decrements_of_parts_leave_the_cotangent_in_place():
    # ex[:, 1:] -= f: the part's cotangent is neither copied nor cleared nor added back
    text = _shown(leapfrog_parts, "f8[:, :]; f8[:, :]; f8")
    assert "np.copy(bex" not in text and "bex[:, 1:] = 0.0" not in text


def test_reductions_in_an_elementwise_adjoint_are_computed_first():
    # np.max's adjoint g * (x == m) / rt.sum_axis(x == m, ...): the count first, then one loop
    text = _shown(softmax_rows, "f8[:, :]; f8[:, :]")
    assert re.search(r"_r\d+ = rt\.sum_axis\(z == m, 1, True\)", text)
    assert re.search(r"bz\[_e0, _e1\] \+= bm\[_e0, 0\] \* \(z\[_e0, _e1\] == m\[_e0, 0\]\)", text)


def test_a_computed_vector_of_an_outer_product_keeps_its_name():
    # b_t1 = g * (1 - t * t) is computed once, and the rank-one update reads it in place
    a, x = np.ones((4, 3)), np.ones(3)
    text = transpyle.show(tanh_matvec, args=(a, x))
    assert re.search(r"ba\[_e0, _e1\] \+?= \w+\[_e0\] \* x\[_e1\]", text) and "np.outer" not in text.split("else")[0]


def test_element_loops_can_be_switched_off(monkeypatch):
    monkeypatch.setenv("TRANSPYLE_ELEMENT_LOOPS", "0")
    assert "for _e0" not in _shown(diffusion, "f8[:]; f8", mode="jit")


# ---- the analyses -----------------------------------------------------------------------------------
def _function(src):
    return gast.parse(src).body[0]


def test_required_before_follows_order_and_back_edges():
    fn = _function("def f(a, n):\n    x = a\n    for i in range(n):\n        y = x\n        x = y\n    z = x\n")
    first, loop, last = fn.body
    inner_y, inner_x = loop.body
    reads = {id(inner_y): frozenset({(VALUE, "x")}), id(last): frozenset({(VALUE, "z")})}
    at = required_before(fn.body, reads, {})
    # x is read in the loop body: the rebinding of x in the next iteration must save it
    assert (VALUE, "x") in at[id(inner_x)]
    # z is read after everything: nothing before it must save it
    assert all((VALUE, "z") not in at[id(s)] for s in (first, inner_y, inner_x))


def test_adjoint_reads_tell_values_from_bindings_and_shapes():
    block = _function("def f():\n    x[i] = t\n    v = y[1:]\n    b = np.zeros_like(z)\n"
                      "    c = rt.unbroadcast(g, w)\n    d = q * 2.0\n").body
    reads = adjoint_reads(block, {"x", "i", "y", "z", "w", "q"}, fixed_shape={"w"})
    assert reads == {(BINDING, "x"), (VALUE, "i"), (BINDING, "y"), (BINDING, "z"), (VALUE, "q")}


def test_symbolic_shapes_of_slices_and_broadcasts():
    fn = _function("def f(u, w, b):\n    p = u[:-2]\n    q = u[2:]\n    r = u[1:-1]\n    s = p + 2.0 * q\n"
                   "    h = w + b\n    m = w @ w\n    k = np.zeros_like(h)\n    j = 2.0 * h\n")
    kinds = {"u": Kind("float64", 1), "w": Kind("float64", 2), "b": Kind("float64", 1)}
    for v in "pqrshkj":
        kinds[v] = Kind("float64", 2 if v in "hkj" else 1)
    kinds["m"] = Kind("float64", 2)
    shapes = Shapes(fn, kinds)
    assert shapes.same("p", "q") and shapes.same("q", "r") and shapes.same("s", "r")
    assert not shapes.same("p", "u")
    # b's length is not known to be w's: h has axes of its own, which the arrays made like it share
    assert shapes.of["h"] == (("of", "h", 0), ("of", "h", 1)) and not shapes.same("h", "w")
    assert shapes.same("h", "k") and shapes.same("j", "k")
    assert shapes.of["m"] == (("axis", "w", 0, 0), ("axis", "w", 1, 0))


def test_conform_compares_trailing_axes():
    a = np.zeros((3, 4))
    assert rt.conform(np.zeros(4), a) and rt.conform(a, a)
    assert not rt.conform(np.zeros(1), a) and not rt.conform(np.zeros(3), a)
    assert not rt.conform(np.zeros((2, 3, 4)), a)


def skips_with_continue(x):
    t = x
    for i in range(3):
        if np.cos(t) > 0.3:
            if x >= -0.7:
                continue
            t = t
        else:
            t = t * 1.1
    return t * t + x


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_statements_with_no_adjoint_in_the_analysis(backend):
    # a branch left holding only `pass` (the jumps pass) is a statement the to-be-recorded analysis skips
    for x in (0.2, -0.9, 2.0):
        check_grad(skips_with_continue, (x,), backend=backend)


def test_axes_of_a_name_hold_only_while_it_is_not_rebound():
    # t has one definition, but it is made again each iteration: v, made like t once, is read after t changed
    fn = _function("def f(x, n):\n    for i in range(n):\n        t = x[:i] * 2.0\n"
                   "        if i == 1:\n            v = np.zeros_like(t)\n            y = v + t\n        z = v + t\n")
    kinds = {"x": Kind("float64", 1), "n": Kind("int64", 0), "i": Kind("int64", 0)}
    for v in "vtyz":
        kinds[v] = Kind("float64", 1)
    shapes = Shapes(fn, kinds)
    # v is read in later iterations too, where t has changed: neither v nor z has t's axes
    assert not shapes.same("v", "t") and not shapes.same("z", "t") and not shapes.same("z", "v")
    # written into in place, an array keeps its axes
    fn = _function("def f(w, b):\n    h = w + b\n    k = np.zeros_like(h)\n    k += h\n    m = k * 2.0\n")
    kinds = {"w": Kind("float64", 2), "b": Kind("float64", 1)}
    for v in "hkm":
        kinds[v] = Kind("float64", 2)
    shapes = Shapes(fn, kinds)
    assert shapes.same("m", "h") and shapes.same("k", "h")
