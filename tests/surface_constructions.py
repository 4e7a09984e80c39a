"""Entries of the NumPy surface table (tests/surface_programs.py) for NumPy's constructions written in NumPy
(transpyle/twins): one program per function and variant, `np.sum(w * f(...))` with a random weight."""
import numpy as np

from surface_programs import C, D, I, M, MODES, N, P, S, U, Z, apart, _G  # noqa: F401

CASES = []


# ---- sequences and constant arrays ----------------------------------------------------------------------
def logspace_numbers(a, b, w):
    return np.sum(w * np.logspace(a, b, 5))


def logspace_base_endpoint(a, b, c, w):
    return np.sum(w * np.logspace(a, b, num=4, endpoint=False, base=c))


def geomspace_numbers(a, b, w):
    return np.sum(w * np.geomspace(a, b, 5))


def geomspace_negative_no_endpoint(a, b, w):
    return np.sum(w * np.geomspace(-a, -b, 4, endpoint=False))


def tri_times(x, w):
    return np.sum(w * x * np.tri(3, 4, 1))


def tri_int_below(x, w):
    return np.sum(w * x * np.tri(3, k=-1, dtype=int))


def triu_indices_unpacked(x, w):
    r, c = np.triu_indices(3, 1)
    return np.sum(w * x[r, c])


def tril_indices_rect(x, w):
    r, c = np.tril_indices(3, 1, 4)
    return np.sum(w * x[r, c])


def vander_default(x, w):
    return np.sum(w * np.vander(x))


def vander_increasing(x, w):
    return np.sum(w * np.vander(x, 4, increasing=True))


def broadcast_to_rank3(x, w):
    return np.sum(w * np.broadcast_to(x, (2, 3, 4)))


def broadcast_to_column(x, w):
    return np.sum(w * np.broadcast_to(x, (3, 4)))


CASES += [
    C("np.logspace", "numbers", logspace_numbers, P(), P(), numba=_G),
    C("np.logspace", "num=4, endpoint=False, base", logspace_base_endpoint, U(), U(), P()),
    C("np.geomspace", "numbers", geomspace_numbers, P(), P(), numba=_G),
    C("np.geomspace", "negative, endpoint=False", geomspace_negative_no_endpoint, P(), P()),
    C("np.tri", "N, M, k", tri_times, N(3, 4), numba=_G),
    C("np.tri", "k=-1, dtype=int", tri_int_below, N(3, 3)),
    C("np.triu_indices", "k=1, unpacked", triu_indices_unpacked, N(3, 3), numba=_G),
    C("np.tril_indices", "k=1, m=4", tril_indices_rect, N(3, 4)),
    C("np.vander", "default", vander_default, N(4), numba=_G),
    C("np.vander", "N=4, increasing", vander_increasing, N(3)),
    C("np.broadcast_to", "(4,) to (2, 3, 4)", broadcast_to_rank3, N(4), numba=_G),
    C("np.broadcast_to", "(3, 1) to (3, 4)", broadcast_to_column, N(3, 1)),
]


# ---- joins and cuts -------------------------------------------------------------------------------------
def append_flat(x, y, w):
    return np.sum(w * np.append(x, y))


def append_axis0(x, y, w):
    return np.sum(w * np.append(x, y, axis=0))


def append_number(x, w):
    return np.sum(w * np.append(x, 2.5))


def insert_number(x, w):
    return np.sum(w * np.insert(x, 1, 2.5))


def insert_column(x, y, w):
    return np.sum(w * np.insert(x, -1, y, axis=1))


def insert_rows(x, y, w):
    return np.sum(w * np.insert(x, 2, y, axis=0))


def insert_flattened(x, y, w):
    return np.sum(w * np.insert(x, 3, y))


def insert_computed_position(x, i, w):
    return np.sum(w * np.insert(x, i, x[0]))


def delete_flat(x, w):
    return np.sum(w * np.delete(x, 1))


def delete_positions_axis1(x, i, w):
    return np.sum(w * np.delete(x, i, axis=1))


def delete_mask_axis0(x, m, w):
    return np.sum(w * np.delete(x, m, axis=0))


def delete_tuple(x, w):
    return np.sum(w * np.delete(x, (0, 2), axis=0))


def column_stack_mixed(x, y, w):
    return np.sum(w * np.column_stack((x, y)))


def column_stack_vectors(x, y, w):
    return np.sum(w * np.column_stack([x, y, x]))


def column_stack_rank3(x, y, w):
    return np.sum(w * np.column_stack((x, y)))


_TUPLE = "written as a tuple is not supported"
CASES += [
    C("np.append", "flattened", append_flat, N(3, 4), N(3), numba=_G),
    C("np.append", "axis=0", append_axis0, N(3, 4), N(1, 4)),
    C("np.append", "a number", append_number, N(3)),
    C("np.insert", "a number at 1", insert_number, N(3), numba=_G),
    C("np.insert", "a column at -1, axis=1", insert_column, N(3, 4), N(3)),
    C("np.insert", "two rows at 2, axis=0", insert_rows, N(3, 4), N(2, 4)),
    C("np.insert", "a vector, flattened", insert_flattened, N(2, 3), N(2)),
    C("np.insert", "a computed position", insert_computed_position, N(4), 2),
    C("np.delete", "one, flattened", delete_flat, N(3, 4), numba=_G),
    C("np.delete", "positions, axis=1", delete_positions_axis1, N(3, 4), lambda rng: np.array([0, -1])),
    C("np.delete", "mask, axis=0", delete_mask_axis0, N(3, 4), lambda rng: np.array([True, False, True])),
    C("np.delete", "a tuple of positions", delete_tuple, N(3, 4), refused={m: _TUPLE for m in MODES}),
    C("np.column_stack", "vector and matrix", column_stack_mixed, N(3), N(3, 2), numba=_G),
    C("np.column_stack", "three vectors (a list)", column_stack_vectors, N(3), N(3)),
    C("np.column_stack", "rank 3", column_stack_rank3, N(2, 3, 2), N(2, 1, 2)),
]


# ---- small algorithms -----------------------------------------------------------------------------------
def vdot_matrices(a, b, w):
    return np.sum(w * np.vdot(a, b))


def trapezoid_default(y, w):
    return np.sum(w * np.trapezoid(y))


def trapezoid_x_axis0(y, x, w):
    return np.sum(w * np.trapezoid(y, x, axis=0))


def trapezoid_dx_axis1(y, w):
    return np.sum(w * np.trapezoid(y, dx=0.5, axis=1))


def trapezoid_x_same_shape(y, x, w):
    return np.sum(w * np.trapezoid(y, x=x, axis=1))


def polyval_array(p, x, w):
    return np.sum(w * np.polyval(p, x))


def polyval_number(p, x, w):
    return np.sum(w * np.polyval(p, x))


def polyval_tuple(x, w):
    return np.sum(w * np.polyval((1.0, -2.0, 0.5), x))


def unwrap_default(p, w):
    return np.sum(w * np.unwrap(p))


def unwrap_axis0_period(p, w):
    return np.sum(w * np.unwrap(p, axis=0, period=4.0))


def unwrap_discont(p, w):
    return np.sum(w * np.unwrap(p, discont=4.0))


def _phases(*shape):
    """Phases with jumps of a few units between neighbours (unwrap corrects some of them), never near
    the boundaries (half a period, discont) where the correction jumps."""
    def make(rng):
        steps = rng.uniform(0.2, 2.8, shape) * rng.choice([-1.0, 1.0], shape)
        return np.cumsum(steps, axis=-1)
    return make


def cumulative_sum_initial(x, w):
    return np.sum(w * np.cumulative_sum(x, include_initial=True))


def cumulative_sum_axis1(x, w):
    return np.sum(w * np.cumulative_sum(x, axis=1))


def cumulative_prod_last_initial(x, w):
    return np.sum(w * np.cumulative_prod(x, axis=-1, include_initial=True))


def cumulative_prod_vector(x, w):
    return np.sum(w * np.cumulative_prod(x))


def multi_dot_vectors_ends(a, b, c, d, w):
    return np.sum(w * np.linalg.multi_dot([a, b, c, d]))


def multi_dot_matrices(a, b, c, w):
    return np.sum(w * np.linalg.multi_dot((a, b, c)))


CASES += [
    C("np.vdot", "matrices", vdot_matrices, N(3, 4), N(3, 4), numba=_G),
    C("np.trapezoid", "default", trapezoid_default, N(3, 4), numba=_G),
    C("np.trapezoid", "x a vector, axis=0", trapezoid_x_axis0, N(3, 4), N(3)),
    C("np.trapezoid", "dx=0.5, axis=1", trapezoid_dx_axis1, N(2, 3, 4)),
    C("np.trapezoid", "x of y's shape, axis=1", trapezoid_x_same_shape, N(2, 3, 4), N(2, 3, 4)),
    C("np.polyval", "array p, array x", polyval_array, N(3), N(3, 4), numba=_G),
    C("np.polyval", "array p, number x", polyval_number, N(4), 0.7),
    C("np.polyval", "p written as a tuple", polyval_tuple, N(3), refused={m: "written in the call" for m in MODES}),
    C("np.unwrap", "default", unwrap_default, _phases(3, 6), numba=_G),
    C("np.unwrap", "axis=0, period=4.0", unwrap_axis0_period, lambda rng: _phases(3, 5)(rng).T.copy()),
    C("np.unwrap", "discont=4.0", unwrap_discont, _phases(2, 6)),
    C("np.cumulative_sum", "include_initial", cumulative_sum_initial, N(4), numba=_G),
    C("np.cumulative_sum", "axis=1", cumulative_sum_axis1, N(3, 4)),
    C("np.cumulative_prod", "axis=-1, include_initial", cumulative_prod_last_initial, Z(2, 3, 4), numba=_G),
    C("np.cumulative_prod", "vector", cumulative_prod_vector, N(4)),
    C("np.linalg.multi_dot", "vector, matrices, vector", multi_dot_vectors_ends, N(3), N(3, 4), N(4, 2), N(2),
      numba=_G),
    C("np.linalg.multi_dot", "matrices (a tuple)", multi_dot_matrices, N(2, 3), N(3, 4), N(4, 2)),
]
