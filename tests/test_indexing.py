"""Reading and writing arrays by index: element, negative, slice (with steps), row, column.

Writes (``a[i] = v``, ``a[i] += v``, ``a[i:j] = expr``) are the hard case for reverse mode: the
adjoint of an overwritten element must be dropped, and where a later statement reads the old
value the write must save it first. The functions below overwrite values that are read again,
inside loops and over several sweeps, so a transform that forgets either fails.
"""
import math

import numpy as np
import pytest

import transpyle
from gradcheck import backend_cases, check_grad, draw, normals, uniforms


# ---- reads ------------------------------------------------------------------------------------------
def read_items(x):
    return x[0] * x[2] + x[3] ** 2


def read_negative(x):
    return x[-1] * x[-2] - x[-5] ** 3


def read_slice(x, w):
    return np.sum(w * x[1:4])


def read_slice_steps(x):
    return np.sum(x[::2] * x[1::2]) + np.sum(x[1:6:3] ** 2)


def read_slice_reversed(x, w):
    return np.sum(w * x[::-1] * x) + np.sum(x[4:0:-2])


def read_open_slices(x, w):
    return np.sum(w[:3] * x[:3]) * np.sum(x[3:] ** 2)


def read_interior(x, w):
    return np.sum(w * (x[:-2] - 2.0 * x[1:-1] + x[2:]) ** 2)


def read_item_2d(a):
    return a[0, 1] * a[2, 3] - a[-1, 0] ** 2 + a[1][2]


def read_row(a, w):
    return np.sum(w * a[1, :] * a[2])


def read_column(a, v):
    return np.sum(v * a[:, 2] ** 2) + np.sum(a[:, -1])


def read_block(a, w):
    return np.sum(w * a[1:3, ::2])


def read_index_argument(x, i):
    return x[i] * x[i + 1] + x[-i] ** 2


def read_index_computed(x):
    n = x.shape[0]
    return x[n // 2] * x[n - 1] + x[(n + 1) % 3]


# ---- writes -----------------------------------------------------------------------------------------
def write_item(x):
    y = x.copy()
    y[1] = x[0] * x[2]
    y[-1] = 3.0
    return np.sum(y * y)


def write_item_reads_old(x):
    y = x.copy()
    y[2] = y[2] * y[2] + y[1]
    y[1] = y[2] * y[1]
    return np.sum(y * y * y)


def write_item_augmented(x):
    y = x.copy()
    y[0] += x[1] * x[2]
    y[2] *= y[0]
    y[-1] -= x[0]
    y[3] /= 2.0 + y[1] * y[1]
    return np.sum(y * y)


def write_scalars_into_zeros(s, x):
    a = np.zeros(3)
    a[0] = s
    a[1] = s * s
    a[2] = math.sin(s) * x[0]
    return np.sum(a * x[:3])


def write_slice(x):
    y = np.zeros(x.shape[0])
    y[1:4] = x[:3] * x[2:5]
    y[::2] += x[::2]
    y[-2:] -= 0.5 * x[:2]
    return np.sum(y ** 3)


def write_slice_overwrite(x, w):
    y = x * 2.0
    y[1:-1] = y[:-2] * y[2:]
    return np.sum(w * y)


def write_row_column(a):
    b = a.copy()
    b[0, :] = a[1, :] * 2.0
    b[:, 1] += a[:, 0]
    b[2, 3] = b[0, 3] * b[1, 1]
    b[1] = b[1] * b[2]
    return np.sum(b * b)


def write_swap(x):
    y = x.copy()
    y[0], y[1] = y[1], y[0] * 2.0
    return np.sum(y * x)


def write_index_argument(x, i):
    y = x.copy()
    y[i] = y[i] ** 2 + y[i + 1]
    y[i + 1] += y[i]
    return np.sum(y * y)


def write_in_loop(x):
    y = x.copy()
    for i in range(1, x.shape[0]):
        y[i] = 0.5 * y[i - 1] + y[i] * y[i]
    return np.sum(y)


def write_repeated_in_loop(x):
    y = x.copy()
    for k in range(3):
        for i in range(x.shape[0]):
            y[i] = 0.5 * y[i] * y[i] + x[i]
    return np.sum(y * y)


def write_running_sum(x):
    out = np.empty(x.shape[0])
    acc = 0.0
    for i in range(x.shape[0]):
        acc += x[i]
        out[i] = acc * x[i]
    return np.sum(out ** 2)


def write_accumulate_indices(x, w):
    h = np.zeros(3)
    for i in range(x.shape[0]):
        h[i % 3] += w[i] * x[i] ** 2
    return h[0] * h[1] + h[2]


def write_matrix_loops(a):
    m, n = a.shape
    b = np.zeros((n, m))
    for i in range(m):
        for j in range(n):
            b[j, i] = a[i, j] * (i + 1) - a[i, (j + 1) % n]
    return np.sum(b * b)


def stencil_gauss_seidel(u0, w):
    u = u0.copy()
    for sweep in range(4):
        for i in range(1, u.shape[0] - 1):
            u[i] = u[i] + w * (u[i - 1] - 2.0 * u[i] + u[i + 1]) - 0.1 * u[i] ** 3
    return np.sum(u * u)


def stencil_jacobi_slices(u0, w):
    u = u0.copy()
    for sweep in range(5):
        old = u.copy()
        u[1:-1] = old[1:-1] + w * (old[:-2] - 2.0 * old[1:-1] + old[2:])
        u[0] = u[1]
        u[-1] = 0.5 * u[-2]
    return np.sum(u ** 2 * np.arange(u.shape[0]))


def stencil_2d(u0, k):
    u = u0.copy()
    n, m = u.shape
    for sweep in range(3):
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                u[i, j] += k * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j])
    return np.sum(u * u)


N, U = normals, uniforms

CASES = [
    # name, function, arguments, argnums, also on numba
    ("items", read_items, draw(N(5)), 0, False),
    ("negative", read_negative, draw(N(5)), 0, False),
    ("slice", read_slice, draw(N(6), N(3)), 0, False),
    ("slice steps", read_slice_steps, draw(N(8)), 0, False),
    ("slice reversed", read_slice_reversed, draw(N(6), N(6)), 0, False),
    ("open slices", read_open_slices, draw(N(6), N(6)), 0, False),
    ("interior", read_interior, draw(N(7), N(5)), 0, True),
    ("a[i, j]", read_item_2d, draw(N((3, 4))), 0, False),
    ("a[i, :]", read_row, draw(N((3, 4)), N(4)), 0, False),
    ("a[:, j]", read_column, draw(N((3, 4)), N(3)), 0, False),
    ("block", read_block, draw(N((4, 5)), N((2, 3))), 0, False),
    ("index argument", read_index_argument, draw(N(6), 2), 0, False),
    ("computed index", read_index_computed, draw(N(7)), 0, False),
    ("a[i] = v", write_item, draw(N(5)), 0, False),
    ("a[i] = f(a[i])", write_item_reads_old, draw(N(5)), 0, True),
    ("a[i] op= v", write_item_augmented, draw(N(5)), 0, False),
    ("scalars into zeros", write_scalars_into_zeros, draw(U(), N(4)), (0, 1), False),
    ("a[i:j] = expr", write_slice, draw(N(6)), 0, False),
    ("slice overwrite", write_slice_overwrite, draw(N(6), N(6)), 0, False),
    ("rows and columns", write_row_column, draw(N((3, 4))), 0, False),
    ("swap", write_swap, draw(N(4)), 0, False),
    ("write at index argument", write_index_argument, draw(N(6), 3), 0, False),
    ("loop", write_in_loop, draw(U((6,), -0.7, 0.7)), 0, False),
    ("repeated loop", write_repeated_in_loop, draw(U((5,), -0.7, 0.7)), 0, True),
    ("running sum", write_running_sum, draw(N(6)), 0, False),
    ("accumulate by index", write_accumulate_indices, draw(N(7), N(7)), 0, False),
    ("matrix loops", write_matrix_loops, draw(N((3, 4))), 0, False),
    ("gauss-seidel stencil", stencil_gauss_seidel, draw(N(8), U((), 0.1, 0.4)), (0, 1), True),
    ("jacobi stencil", stencil_jacobi_slices, draw(N(8), U((), 0.1, 0.4)), (0, 1), False),
    ("2d stencil", stencil_2d, draw(N((5, 6)), U((), 0.05, 0.2)), (0, 1), True),
]


@pytest.mark.parametrize("fn, make, argnums, backend",
                         backend_cases((name, (fn, make, argnums), on_numba)
                                       for name, fn, make, argnums, on_numba in CASES))
def test_indexing(fn, make, argnums, backend, rng):
    check_grad(fn, make(rng), argnums, backend=backend)


def overwrite_with_constant(x):
    y = x.copy()
    y[0] = 2.0 * y[1]
    y[1] = 5.0
    return np.sum(y * y)


def test_overwritten_value_has_no_adjoint():
    """Closed form: y[1] is overwritten by a constant, so x[1] reaches the output only through y[0]."""
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(transpyle.grad(overwrite_with_constant, backend="numpy")(x),
                               [0.0, 8.0 * x[1], 2.0 * x[2]], rtol=1e-12)
