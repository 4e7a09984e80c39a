"""Bugs found by the differential fuzzer (tests/fuzz_programs.py), each as the shortest program
that shows it, written by hand from the generated program that found it.

A bug still open is a strict xfail: it fails in the way its reason says, and turns into an
unexpected pass (a failure of the suite) once fixed, so whoever fixes it removes the mark and the
test stays as a regression test. ``raises`` pins the kind of failure: an AssertionError is a wrong
value, anything else the exception the transform raises. The bugs fixed since they were found are
plain tests here.
"""
import numpy as np
import pytest

import transpyle
from gradcheck import ALL_BACKENDS, check_grad, check_jvp, check_vjp, uniform


# ---- np.prod along an axis, at a zero element (fixed in fc62f92) -----------------------------------
# Found as seeds 55, 29, 5010 and 5053 (numpy and numba): np.prod(..., axis=k) over a slice holding
# a zero gave nan in grad, jvp and vjp: the rules divided the product by the element, 0 / 0. (np.prod
# without axis was right.) The generated programs met it through x[:, None] - x[None, :], whose
# diagonal is zero; here one element is zero where the derivative is not (d/dx1 = x0).
def prod_rows(x):
    return np.sum(np.prod(np.reshape(x, (2, 2)), axis=1))


def _with_a_zero(rng):
    x = uniform(rng, (4,), avoid=(0.0,))
    x[1] = 0.0
    return x


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_prod_axis_grad_at_a_zero(backend, rng):
    check_grad(prod_rows, (_with_a_zero(rng),), backend=backend)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_prod_axis_jvp_at_a_zero(backend, rng):
    check_jvp(prod_rows, (_with_a_zero(rng),), 0, rng, backend=backend)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_prod_axis_vjp_at_a_zero(backend, rng):
    check_vjp(prod_rows, (_with_a_zero(rng),), rng, backend=backend)


# ---- vmap(grad) by array lifting: a slice write under a per-example mask (fixed in fc62f92) ---------
# Found as seeds 35, 56, 5058 and 5140 (numpy, vmap_grad crash). In the adjoint of `a[0:2] = v`
# under a batched test, the cotangent of the written slice was cleared with select_lanes(mask,
# lanes(0.0), ba[:, 0:2]): the (B,) lanes of zeros broadcast against the (B, 2) slice along its
# last axis, so with a batch of 2 the mask picked columns instead of examples (an example that did
# not take the branch lost the slice's cotangent: a wrong value), and with other batch sizes NumPy
# could not broadcast. An early return masks the statements after it the same way.
def slice_write_in_a_branch(x):
    a = x[0:3] * 1.0
    if x[0] < 0.5:
        a[0:2] = x[1:3] * 2.0
    return np.sum(a * a)


def column_write_after_an_early_return(x):
    if x[0] > 0.5:
        return x[1]
    b = np.zeros((4, 2))
    b[:, 1] = x[0:4]
    return np.sum(b * b)


def _grad_loop(f, batch):
    g = transpyle.grad(f, backend="numpy")
    return np.stack([g(x) for x in batch])


def test_vmap_grad_slice_write_in_a_branch_two_examples():
    batch = np.array([[0.0, 1.0, 2.0], [0.9, 3.0, 4.0]])      # the first takes the branch, the second not
    got = transpyle.vmap(transpyle.grad(slice_write_in_a_branch), backend="numpy")(batch)
    np.testing.assert_allclose(got, _grad_loop(slice_write_in_a_branch, batch), rtol=1e-12)


def test_vmap_grad_slice_write_in_a_branch_three_examples():
    batch = np.array([[0.0, 1.0, 2.0], [0.9, 3.0, 4.0], [0.2, 5.0, 6.0]])
    got = transpyle.vmap(transpyle.grad(slice_write_in_a_branch), backend="numpy")(batch)
    np.testing.assert_allclose(got, _grad_loop(slice_write_in_a_branch, batch), rtol=1e-12)


def test_vmap_grad_column_write_after_an_early_return():
    batch = np.array([[0.0, 1.0, 2.0, 3.0], [0.9, 3.0, 4.0, 5.0], [0.2, 5.0, 6.0, 7.0]])
    got = transpyle.vmap(transpyle.grad(column_write_after_an_early_return), backend="numpy")(batch)
    np.testing.assert_allclose(got, _grad_loop(column_write_after_an_early_return, batch), rtol=1e-12)


def test_vmap_grad_slice_write_in_a_branch_by_loops():
    """The same function by loop lifting (right all along)."""
    batch = np.array([[0.0, 1.0, 2.0], [0.9, 3.0, 4.0], [0.2, 5.0, 6.0]])
    got = transpyle.vmap(transpyle.grad(slice_write_in_a_branch), backend="numpy", strategy="loop")(batch)
    np.testing.assert_allclose(got, _grad_loop(slice_write_in_a_branch, batch), rtol=1e-12)


# ---- vmap(grad) by array lifting: slice reads before an element write, in a loop (fixed in d23d2fb) -
# Found as seeds 5035, 5126 and 5144 (numpy, vmap_grad wrong). The element written after the slice
# read lost the cotangent of every iteration but one; grad alone, the loop unrolled, and loop
# lifting were right. Also with the array made afresh in each iteration.
def slice_read_then_element_write_in_a_loop(x):
    a = x * 1.0
    s = 0.0
    for i in range(2):
        s = s + np.sum(a[1:] * a[1:])
        a[1] = 0.0
    return s


def fresh_array_slice_read_then_element_write_in_a_loop(x):
    s = 0.0
    for i in range(2):
        a = x * 1.0
        s = s + np.sum(a[1:] * a[1:])
        a[1] = 0.0
    return s


@pytest.mark.parametrize("f", [slice_read_then_element_write_in_a_loop,
                               fresh_array_slice_read_then_element_write_in_a_loop])
def test_vmap_grad_slice_read_then_element_write_in_a_loop(f):
    batch = np.array([[0.1, 0.2, 0.3, 0.4], [0.5, -0.6, 0.7, 0.8], [-0.9, 1.0, 1.1, 1.2]])
    got = transpyle.vmap(transpyle.grad(f), backend="numpy")(batch)
    np.testing.assert_allclose(got, _grad_loop(f, batch), rtol=1e-12)


@pytest.mark.parametrize("f", [slice_read_then_element_write_in_a_loop,
                               fresh_array_slice_read_then_element_write_in_a_loop])
def test_vmap_grad_slice_read_then_element_write_in_a_loop_by_loops(f):
    batch = np.array([[0.1, 0.2, 0.3, 0.4], [0.5, -0.6, 0.7, 0.8], [-0.9, 1.0, 1.1, 1.2]])
    got = transpyle.vmap(transpyle.grad(f), backend="numpy", strategy="loop")(batch)
    np.testing.assert_allclose(got, _grad_loop(f, batch), rtol=1e-12)
    check_grad(f, (batch[1],))


# ---- a helper that calls another helper is refused as recursion -----------------------------------
# Found as seed 48 (every mode refused): "'h2' calls itself; recursion is not supported" where h2
# called h1. It depended on the names: resolve registers a helper under namer.fresh(its name); the
# name step2 was taken (f reads it), so fresh stripped the digits and counted from 1, and step2 was
# registered as 'step1'; the call to step1 in its body then found step2 again. A user's name now
# keeps its digits when made fresh ('step2_1').
def step1(c):
    return c * 2.0


def step2(c):
    return step1(c)


def helper_calling_a_helper(x):
    return step2(x[0]) * x[1]


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_helper_calling_a_helper(backend, rng):
    check_grad(helper_calling_a_helper, (uniform(rng, (3,)),), backend=backend)


# ---- an increment whose value reads the incremented buffer, through + and - ------------------------
# Found as seeds 459857 and 459865 (numpy and numba; grad, value_and_grad, vjp): for x[part] += f the
# cotangent of f is a view of x's cotangent, passed on as a view through + and the left side of -.
# Where a statement of f reads x (a3[0:3] in np.tanh(a3[0:3]), or a2[1:3] beside the view's chain), its
# adjoint added into x's cotangent while such a view was still to be read: d/dx came out -0.426 for
# -0.3. The increment now stands only where no statement from the first value whose cotangent is a
# view to the increment reads x's buffer (analysis/recording.find_increments).
def increment_reading_its_buffer(x):
    a3 = np.ones(4)
    a3[:3] += (a3[:3] - x[0:3]) + np.tanh(a3[0:3])
    return 0.3 * np.sum(a3)


def increment_beside_a_read_of_its_buffer(x, y):
    a2 = np.copy(x[0:3])
    a2[0:2] += (y * x[0:2]) - np.log(1.0 + a2[1:3] ** 2)
    return np.sum(np.sin(a2))


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_increment_reading_its_buffer(backend, rng):
    check_grad(increment_reading_its_buffer, (uniform(rng, (4,)),), backend=backend)
    check_grad(increment_beside_a_read_of_its_buffer, (uniform(rng, (4,)), 0.7), argnums=(0, 1),
               backend=backend)
    check_vjp(increment_beside_a_read_of_its_buffer, (uniform(rng, (4,)), 0.7), rng, backend=backend)


# ---- a name set from a view of its own earlier value, and written in place ---------------------------
# Found as seed 740796 (numpy and numba; grad, vjp): in the adjoint of b = b[:, i][:, None] + x, the
# cotangent of the view b[:, i] was bound as a view of b's cotangent before that cotangent was started
# again for b's earlier value, so what the statement passed to the earlier b was lost once b was also
# written in place elsewhere (b[1, 0] -= ...). The new value's cotangent is now held, the earlier value's
# adjoint started, and only then is the view bound (reverse_adjoint.handed_over).
def column_of_itself_in_a_loop(x):
    b = np.ones((3, 3)) * 0.5
    for k in range(2):
        for i in range(1, 3):
            b = b[:, i][:, None] + x[None, :]
        b[1, 0] -= 0.3 * b[0, 1]
    return np.sum(b * b)


def reversed_rows_of_itself(x):
    b = np.outer(x, x)
    for k in range(3):
        b = b[::-1] * 0.5 + x[:, None]
        b[0, :] *= x
    return np.sum(np.sin(b))


def differences_of_itself(x):
    b = np.outer(x, x)
    for k in range(2):
        b = b[1:, :] - b[:-1, :] * x[k + 1:, None]
        b[0, 1] += np.tanh(b[-1, 0])
    return np.sum(b * b)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
@pytest.mark.parametrize("f, n", [(column_of_itself_in_a_loop, 3), (reversed_rows_of_itself, 4),
                                  (differences_of_itself, 4)])
def test_name_set_from_a_view_of_itself(f, n, backend, rng):
    check_grad(f, (uniform(rng, (n,)),), backend=backend)
    check_vjp(f, (uniform(rng, (n,)),), rng, backend=backend)


# ---- a new array computed again in the adjoint sweep, though written in place ------------------------
# Found as seed 973920 (numpy and numba; every reverse mode): a helper called in a loop made
# b5 = v0[:, None] - v0[None, :] and wrote b5[2, -1] += 1.0; the sweep computed b5 again from its
# definition (elementwise of arrays nothing writes) instead of keeping it, and so read it without the
# write: the derivative through np.sin(b5) came out 0. An array written in place is not computed again
# (analysis/recording.recomputable).
def _pairwise_then_written(v):
    b = v[:, None] - v[None, :]
    b[2, -1] += 1.0
    b[0, :] *= v[1]
    return np.sum(np.sin(b))


def written_new_array_in_a_loop(x):
    s = 0.0
    for k in range(2):
        s -= _pairwise_then_written(x) * (k + 1.0)
    return s


def written_view_of_new_array_in_a_loop(x):
    s = 0.0
    for k in range(3):
        c = x * 2.0 - x[0]
        inner = c[1:3]
        inner += x[2] * k
        s += np.sum(np.tanh(c) * x)
    return s


@pytest.mark.parametrize("backend", ALL_BACKENDS)
@pytest.mark.parametrize("f", [written_new_array_in_a_loop, written_view_of_new_array_in_a_loop])
def test_new_array_written_in_place_in_a_loop(f, backend, rng):
    check_grad(f, (uniform(rng, (5,)),), backend=backend)
    check_vjp(f, (uniform(rng, (5,)),), rng, backend=backend)


# ---- programs the aliasing check refused, which are followed now ---------------------------------------
# The fuzzer's most common refusal ("'_t46' refers to the buffer of 'x' in one place and is assigned again
# here ..."), found as seeds 973965, 974017, 974119, 973929 and 980536: a conditional expression of arrays
# (its temporary is one array or the other), and a name moved into another where a later branch or loop
# sets it again before reading it (``b4 = np.copy(b4)`` in one arm, ``a3 = a3 ** 2`` in a while loop),
# while one of the buffers is written in place. The conditional's value is copied in each arm
# (frontend/in_place), and a branch or loop that sets a name before reading it ends its use on that path
# (analysis/places.first_touch).
def conditional_of_written_arrays(x, y):
    a = x * 1.0
    s = 0.0
    for k in range(3):
        a[-1] = (x if y > 0.2 * k else a).sum()
        a[:-1] = (a[1:] if np.sum(a) > 0.1 else x[:-1] * y)
        s += np.dot(a, (a if k == 1 else x))
    return s + np.sum(np.sin(a))


def copied_in_one_arm(x, y):
    s = 0.0
    for i in range(3):
        b = x[:3][:, None] - x
        b[i, 2] *= 1.0 + 0.2 * np.sin(x[i])
        if i == 1:
            b = np.copy(b)
            s += np.sum(b * b) * y
        else:
            s += np.sum(b[:, 2] * y)
    return s


def squared_in_nested_while(x, y):
    a = np.zeros(3)
    a[2] -= y
    k = 0
    while k < 3:
        k = k + 1
        j = 0
        while j < 2:
            j = j + 1
            a = (a * 0.5) ** 2
            a[1] += x[k]
    return np.sum(np.cos(a))


@pytest.mark.parametrize("backend", ALL_BACKENDS)
@pytest.mark.parametrize("f", [conditional_of_written_arrays, copied_in_one_arm, squared_in_nested_while])
def test_shared_buffers_followed(f, backend, rng):
    args = (uniform(rng, (5,)), 0.7)
    check_grad(f, args, argnums=(0, 1), backend=backend)
    check_vjp(f, args, rng, backend=backend)
    np.testing.assert_allclose(transpyle.jit(f, backend=backend)(*args), f(*args), rtol=1e-12)
