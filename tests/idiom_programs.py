"""Small functions written the way NumPy users write them, one idiom each (builtins over arrays, NumPy
signatures with their documented keywords, assignment expressions, helpers defined in loops), for
tests/test_idioms.py. Each takes a float vector or matrix first and returns a number."""
from typing import NamedTuple

import numpy as np

import transpyle

WEIGHT = 0.5


def builtin_max_abs(x):
    return max(abs(x)) * np.sum(x * x)


def builtin_min_column(a):
    return min(a[:, 0]) * np.sum(a) + max(a[1])


def builtin_sum_vector(x):
    return sum(x * x) + sum(x, 1.0)


def builtin_sum_rows(a):
    return np.sum(sum(a) ** 2)                   # sum over the first axis: a row


def builtin_list_folds(x):
    a, b, c = np.sum(x), np.sum(x * x), np.max(x)
    return max(a, b, c) + min([a, b, c]) + sum([a, b, c], WEIGHT)


def builtin_abs_array(x):
    return np.sum(abs(x) * x) + np.max(abs(x))


def rounded(x):
    return np.sum(np.round(x, 3) * x + np.around(x, decimals=1) + round(np.sum(x), 2) * x)


def eye_with_dtype(a):
    e = np.eye(a.shape[0], dtype=a.dtype)
    shifted = np.eye(a.shape[0], a.shape[1], k=1)
    return np.sum((e @ a + a) ** 2) + np.sum(shifted * a)


def repeat_computed(x):
    n = x.shape[0] // 2
    return np.sum(np.repeat(x, n) ** 2) + np.sum(np.repeat(x * x, n + 1))


def repeat_rows_computed(a):
    k = a.shape[1] - 1
    return np.sum(np.repeat(a, k, axis=0) * np.repeat(a, k, axis=0))


def diff_orders(x):
    return np.sum(np.diff(x) ** 2) + np.sum(np.diff(x, n=2) ** 2) + np.sum(np.diff(x, 3) * x[3:])


def diff_axes(a):
    return np.sum(np.diff(a, axis=0) ** 2) + np.sum(np.sin(np.diff(a)))


def diff_ends(x):
    return np.sum(np.diff(x, prepend=0.0) ** 2) + np.sum(np.diff(x, append=x[:2]) * WEIGHT)


def ediff(x):
    return np.sum(np.ediff1d(x, to_begin=1.0) ** 2) + np.sum(np.ediff1d(x * x))


def gradient_1d(x):
    return np.sum(np.gradient(x) ** 2) + np.sum(np.gradient(x * x, 0.1))


def gradient_axis(a):
    return np.sum(np.gradient(a, 0.5, axis=1) ** 2) + np.sum(np.gradient(a, axis=0) * a)


def closeness(x):
    s = np.sum(x)
    if np.isclose(s, 1e6) or np.allclose(x, 1e6):
        return 0.0
    return np.sum(x * x) * (1.0 + np.count_nonzero(x > 0.0)) + np.sum(np.isclose(x, x[0]) * x)


def list_shapes(x):
    n = x.shape[0]
    y = np.empty([n, 2])
    y[:, 0] = x
    y[:, 1] = x * x
    z = np.zeros([2, n]) + y.T
    return np.sum(y) + np.sum(z * z) + np.sum(np.reshape(y, [2 * n]) ** 3)


def array_of_array(x):
    y = np.array(x)
    y *= 2.0
    return np.sum(y * x)


def walrus_branch(x):
    if (s := np.sum(x * x)) > 0.5:
        return s * s
    return -s


def walrus_while(x):
    t = 0.0
    i = 0
    while (v := x[i] * 2.0) < 100.0 and i < x.shape[0] - 1:
        t = t + v * v
        i += 1
    return t


def walrus_nested(x):
    y = np.exp(x) * (m := np.max(x))
    return np.sum(y) + m


def def_in_loop(x):
    s = 0.0
    for i in range(3):
        def scaled(z):
            return z * (i + 1.0)
        s = s + np.sum(scaled(x) ** 2)
    return s


def def_in_branch(x):
    if x.shape[0] > 2:
        def square(z):
            return z * z
        return np.sum(square(x))
    return np.sum(x)


# refused by name, with the line: what each raises is in test_idioms
def walrus_after_and(x):
    if np.sum(x) > -100.0 and (q := np.sum(x * x)) > 0:
        return q
    return np.sum(x)


def walrus_reads_first(x):
    n = 1.0
    return n + (n := np.sum(x))


def def_twice(x, c):
    if c > 0:
        def g(z):
            return z * z
    else:
        def g(z):
            return z * 3.0
    return np.sum(g(x))


def max_with_default(x):
    return max(x, default=0.0)


def diff_of_order_computed(x):
    n = x.shape[0] // 3
    return np.sum(np.diff(x, n))


def tuple_shapes(x):
    y = x.reshape((1,) * x.ndim + (-1,))
    z = np.full((2,) + x.shape, 1.0)
    return np.sum(y ** 2) + np.sum(z * x)


def printed_in_branch(x):
    s = np.sum(x * x)
    if s > 1e30:
        print("large sum {} at {:.3f}".format(s, x[0]))
        print(f"large: {s:.2e}, first {x[0]}")
    return s * s


def view_rows_read_after(x):
    b = np.outer(x, x) + 1.0
    for i in range(b.shape[0]):
        r = b[i]
        r *= x[i]
    return np.sum(r * r) + np.sum(b)


def view_columns_read_after(a):
    b = a * 2.0
    for j in range(b.shape[1]):
        c = b[:, j]
        c -= np.mean(c)
    return np.sum(c ** 3) + np.sum(b * a)


def view_read_after_base_written(x):
    b = np.outer(x, x)
    for i in range(b.shape[0]):
        r = b[i]
        r += 1.0
    b[-1] *= 3.0
    return np.sum(r * x)


def view_rebound_before_the_loop(x):
    b = np.outer(x, x)
    r = b[0]
    for i in range(b.shape[0]):
        r = b[i]
        r += 1.0
    return np.sum(r * x)


def reshape_of_transpose(a):
    flat = a.T.reshape(-1)
    return np.sum(flat * np.arange(flat.shape[0])) + np.sum(np.reshape(a[:, ::2], (-1,)) ** 2)


def strided_reshape_written(y):
    z = y * 1.0
    v = z[::2].reshape(2, 2)                # a view: splitting one axis keeps its stride
    v *= 3.0
    return np.sum(z * z)


def strided_matrix_reshape_written(y):
    z = np.outer(y[:4], y[4:]) * 1.0
    v = z[:, ::2].reshape(4, 1, 2)          # NumPy views: only axes split and added
    v *= 3.0
    return np.sum(z * z)


def strided_transpose_reshape_written(x):
    b = np.outer(x[:3], x[3:]) * 1.0
    flat = b.T.reshape(-1)                  # a copy: the transpose of a matrix has no flat view
    flat[:2] *= 5.0
    return np.sum(flat * flat) + np.sum(b)


# ---- programs ported from JAX ---------------------------------------------------------------------------
class State(NamedTuple):
    pos: np.ndarray
    vel: float
    damping: float = 0.9


def state_step(s, dt):
    return State(s.pos + dt * s.vel, s.vel * s.damping, damping=s.damping)


def state_run(x):
    s = State(x * 1.0, vel=np.sum(x))
    for i in range(3):
        s = state_step(s, 0.1)
    return np.sum(s.pos ** 2) + s.vel


@transpyle.custom_vjp
def doubled(x):
    return x * 2.0


def _doubled_fwd(x):
    return doubled(x), None


def _doubled_bwd(res, g):
    return (g * 2.0,)


doubled.defvjp(_doubled_fwd, _doubled_bwd)


def custom_vjp_without_residuals(x):
    return np.sum(doubled(x) * x)


def generator_sums(x):
    total = sum(x[i] * x[i] for i in range(x.shape[0]))
    return total + sum([v ** 3 for v in x], 0.5) + max(abs(v) for v in x) + min(v for v in x if v > -10.0)


def generator_pairs(a):
    return sum(a[i, j] * (i + 1) for i in range(a.shape[0]) for j in range(a.shape[1]) if i != j)


def generator_tests(x):
    if any(v > 100.0 for v in x):
        return 0.0
    if all(v < -100.0 for v in x):
        return 1.0
    return sum(((x[i] - x[i - 1]) ** 2 for i in range(1, x.shape[0])), 0.5)


# ---- lists built by appends ------------------------------------------------------------------------------
def appended_trajectory(x0):
    traj = []
    x = x0 * 1.0
    for k in range(12):
        x = x + 0.05 * (np.sin(1.3 * x) - 0.3 * x)
        traj.append(x)
    states = np.array(traj)
    velocities = np.diff(states, axis=0) / 0.05
    return np.sum(velocities ** 2) + np.sum(states[-1]) + len(traj)


def appended_energies(x):
    energies = []
    e = 0.0
    for v in x:
        e = e + v * v
        if v > -10.0:
            energies.append(e)
        if len(energies) > 1:
            e = e + 0.1 * energies[-2]
    return np.sum(np.array(energies) ** 0.5) + energies[-1]


def appended_then_written(x):
    rows = []
    y = x * 1.0
    for k in range(3):
        y *= 1.5
        rows.append(y)
    return np.sum(np.array(rows))


def cholesky_reads_lower(a):
    n = a.shape[0]
    m = a @ a.T + n * np.eye(n) + np.triu(np.outer(a[:, 0], a[:, -1]), 1)    # an upper triangle NumPy ignores
    return np.sum(np.linalg.cholesky(m) * np.arange(1.0, n * n + 1.0).reshape(n, n))


def reversed_self_assignment(x):
    b = np.outer(x, x[:3]) * 1.0
    b[:, ::-1] = b                          # NumPy copies the overlapping value first
    b[1:] = b[:-1] * 0.5
    return np.sum(b * np.arange(b.size).reshape(b.shape))


def snapshot_of_alias(x):
    y = x * 1.0
    z = y                                   # the same array: z sees the write below
    u = z + 0.0                             # a new array: it keeps the values before the write
    y *= 3.0
    return np.sum(u * u) + np.sum(z * y)


def join_of_one_array(x):
    m = np.reshape(x, (3, -1))
    return np.sum(np.concatenate(m))
