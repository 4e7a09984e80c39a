"""Small programs reading and writing through integer index arrays and boolean masks, for
test_advanced_indexing.py.

Each program is a module-level function of float arrays (and sometimes an integer index array,
which is not differentiated) returning a float scalar. The comment above it states the NumPy fact
it relies on. Masks are drawn from data at inputs kept away from the threshold, so the selection is
the same under the finite-difference steps. ``PROGRAMS`` lists (function, input maker, whether the
numba backend runs it too).
"""
import numpy as np

from gradcheck import distincts, draw, normals, uniforms

N, U = normals, uniforms
# thresholds of the masks below: the inputs stay at least 0.05 away from them
AWAY = (0.0, 0.3)


# ---- reads: a gather makes a new array; its adjoint adds up repeated positions -----------------
# x[idx] with repeats: the gradient at a repeated position is the sum over its uses
def take_repeated(x):
    idx = np.array([0, 2, 2, 1, 0, 2])
    return np.sum(x[idx] ** 2 * np.arange(6))


# an index array given as an argument, negative entries counting from the end
def take_argument(x, idx):
    return np.sum(np.sin(x[idx]) * x[idx])


# x[:, idx]: the arrays index an inner axis
def take_columns(x):
    idx = np.array([3, 0, 3])
    return np.sum(x[:, idx] * x[:, :3])


# x[idx, 1:]: index array and slice
def take_rows_sliced(x):
    idx = np.array([1, 1, 0])
    return np.sum(x[idx, 1:] ** 3)


# x[0, idx]: an integer next to the index array indexes first
def take_after_integer(x):
    idx = np.array([2, 0])
    return np.sum(x[1, idx] * x[0, idx])


# x[i, j] with two index arrays: pairs of positions
def take_pairs(x):
    i = np.array([0, 1, 2, 2])
    j = np.array([1, 1, 0, 3])
    return np.sum(x[i, j] ** 2 * np.array([1.0, 2.0, 3.0, 4.0]))


# x[i, j] with broadcasting index arrays: an outer product of positions
def take_broadcast_pairs(x):
    i = np.array([0, 2])[:, None]
    j = np.array([1, 3, 3])
    return np.sum(np.cos(x[i, j]) * x[0, 0])


# x[idx2d]: the result takes the shape of the index array
def take_matrix_index(x):
    idx = np.array([0, 1, 3, 3, 2, 0]).reshape(3, 2)
    return np.sum(x[idx] * np.arange(6.0).reshape(3, 2))


# x[mask] of the same shape: a 1-D array of the selected entries, in C order
def mask_select(x):
    return np.sum(x[x > 0.3] ** 2 * np.arange(np.sum(x > 0.3)))


# a 1-D mask on the rows of a matrix
def mask_rows(x):
    keep = x[:, 0] > 0.0
    return np.sum(x[keep] * x[keep])


# a mask on the columns
def mask_columns(x):
    keep = x[0] > 0.0
    return np.sum(np.exp(x[:, keep]))


# a mask over a 3-D array
def mask_cube(x):
    return np.sum(np.tanh(x[x < 0.0]))


# a gather inside a loop, the index changing each iteration
def take_in_loop(x):
    s = 0.0
    for t in range(3):
        idx = np.array([t, t + 1, 0])
        s = s + np.sum(x[idx] * (t + 1.0))
    return s


# the gathered copy is written: the source does not change
def gathered_is_a_copy(x):
    y = x[np.array([0, 1])]
    y[0] = 100.0
    return np.sum(x * x) + np.sum(y)


# a gather of a view: the view's base is what is read
def take_of_view(x):
    v = x[1:]
    return np.sum(v[np.array([0, 0, 2])] ** 2)


# nested gathers
def take_twice(x):
    a = x[np.array([3, 1, 2, 0])]
    return np.sum(a[np.array([0, 0, 1])] * a[:3])


# gather then reduce along an axis
def take_then_reduce(x):
    rows = x[np.array([2, 0, 2])]
    return np.sum(np.max(rows, axis=1) + np.mean(rows, axis=0).sum())


# a permutation from argsort: sorting by value
def sort_by_argsort(x):
    order = np.argsort(x)
    return np.sum(x[order] * np.arange(x.shape[0]))


# ---- writes: positions written in turn, a repeated position keeping the last value -------------
# y[idx] = v with repeats: the last write wins, and only it reaches the output
def put_repeated(x):
    y = np.zeros(5)
    y[np.array([0, 3, 0, 1])] = x[:4] * 2.0
    return np.sum(y * np.arange(1.0, 6.0))


# y[idx] = number
def put_number(x):
    y = x.copy()
    y[np.array([1, 3])] = 0.5
    return np.sum(y ** 2)


# y[idx] += v is y[idx] = y[idx] + v: a repeated position adds once
def add_buffered(x):
    y = x.copy()
    y[np.array([0, 0, 2])] += x[1:4]
    return np.sum(y * y)


# y[idx] *= s in a loop
def scale_in_loop(x):
    y = x.copy()
    for t in range(3):
        y[np.array([t, 4 - t])] *= 1.5
    return np.sum(y ** 2)


# y[mask] = 0: a mask write clears the selected entries
def mask_clear(x):
    y = x.copy()
    y[y > 0.3] = 0.0
    return np.sum(y * x)


# y[mask] = f(x[mask]): a ReLU-like update
def mask_update(x):
    y = x.copy()
    keep = x > 0.0
    y[keep] = x[keep] ** 2
    return np.sum(y * np.cos(x))


# y[mask] *= 2 on a matrix
def mask_scale(x):
    y = x.copy()
    y[x < 0.0] *= 2.0
    return np.sum(y ** 3)


# y[:, idx] = v: columns written
def put_columns(x):
    y = np.zeros((x.shape[0], 4))
    y[:, np.array([3, 1])] = x[:, :2] * x[:, 2:4]
    return np.sum(y * np.arange(4.0))


# y[i, j] = v: pairs written
def put_pairs(x):
    y = x.copy()
    y[np.array([0, 2]), np.array([1, 1])] = x[1, :2] ** 2
    return np.sum(y ** 2)


# a row broadcast into the rows an index picks
def put_row_broadcast(x):
    y = x.copy()
    y[np.array([2, 0])] = x[1]
    return np.sum(y * x)


# a write through an index array into a view reaches the base
def put_through_view(x):
    y = x.copy()
    v = y[1:]
    v[np.array([0, 2])] = 3.0 * x[:2]
    return np.sum(y * x)


# a helper writing through an index array into its argument
def _clip_top(a, idx):
    a[idx] = 0.5 * a[idx]


def put_in_helper(x):
    y = x.copy()
    _clip_top(y, np.array([0, 4]))
    return np.sum(y ** 2)


# the written array read again through the same index
def put_then_take(x):
    y = x.copy()
    idx = np.array([1, 2])
    y[idx] = y[idx] * y[idx]
    return np.sum(y[idx]) + np.sum(y)


PROGRAMS = [
    (take_repeated, draw(N(3)), True),
    (take_argument, lambda rng: (rng.normal(size=5), rng.integers(-5, 5, size=7)), True),
    (take_columns, draw(N((3, 4))), True),
    (take_rows_sliced, draw(N((2, 3))), False),
    (take_after_integer, draw(N((2, 3))), False),
    (take_pairs, draw(N((3, 4))), True),
    (take_broadcast_pairs, draw(N((3, 4))), False),
    (take_matrix_index, draw(N(4)), False),
    (mask_select, draw(U((3, 4), avoid=AWAY)), True),
    (mask_rows, draw(U((4, 3), avoid=AWAY)), False),
    (mask_columns, draw(U((3, 5), avoid=AWAY)), False),
    (mask_cube, draw(U((2, 3, 2), avoid=AWAY)), False),
    (take_in_loop, draw(N(4)), True),
    (gathered_is_a_copy, draw(N(3)), False),
    (take_of_view, draw(N((4, 2))), False),
    (take_twice, draw(N(4)), False),
    (take_then_reduce, draw(N((3, 4))), False),
    (sort_by_argsort, draw(distincts(5)), False),
    (put_repeated, draw(N(5)), True),
    (put_number, draw(N(4)), False),
    (add_buffered, draw(N(5)), False),
    (scale_in_loop, draw(N(5)), True),
    (mask_clear, draw(U((3, 3), avoid=AWAY)), True),
    (mask_update, draw(U(6, avoid=AWAY)), False),
    (mask_scale, draw(U((2, 3), avoid=AWAY)), False),
    (put_columns, draw(N((3, 4))), False),
    (put_pairs, draw(N((3, 2))), False),
    (put_row_broadcast, draw(N((3, 4))), True),
    (put_through_view, draw(N(4)), False),
    (put_in_helper, draw(N(5)), False),
    (put_then_take, draw(N(4)), False),
]


# ---- an ellipsis stands for the axes the rest of the index leaves -------------------------------
# x[..., idx]: the last axis gathered
def take_last_axis(x):
    return np.sum(x[..., np.array([2, 0, 2])] * x[..., :3])


# y[..., 0] = v, a view through an ellipsis written in place
def ellipsis_write(x):
    y = x.copy()
    y[..., 0] = x[..., 1] * 2.0
    v = y[0, ...]
    v += 1.0
    return np.sum(y ** 2) + np.sum(x[1, ..., 2] * x[..., None, 0])


# y[..., mask] = 0 over the last axis
def ellipsis_mask_write(x):
    y = x.copy()
    y[..., x[0, 0] > 0.0] = 0.5
    return np.sum(y * x)


PROGRAMS += [
    (take_last_axis, draw(N((2, 3, 4))), True),
    (ellipsis_write, draw(N((3, 4, 3))), True),
    (ellipsis_mask_write, draw(U((2, 2, 5), avoid=AWAY)), False),
]
