"""The NumPy surface people use, as a table of tiny programs: one entry per function and variant (axes,
keepdims, ddof, int or pair axes, einsum subscripts with ellipses or implicit outputs, several shapes).

Each program returns ``np.sum(w * op(...))`` for a random weight ``w`` of the result's shape (its last
argument), so a cotangent routed to the wrong element fails the gradient check. ``tests/test_numpy_surface.py``
runs every entry in every mode (``MODES``) and writes the coverage table ``docs/numpy-coverage.md`` from this
same table (``python tests/surface_programs.py --update``).

An entry's ``refused`` maps a mode to what the message of its clear error says: the mode is checked to raise
that ``TranspileError``. ``fails`` holds known failures (a crash or a wrong value: an exception type and why),
run as strict xfails so that a fix fails the run until the entry goes. The coverage table shows both.
"""
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gradcheck import distinct, normal, separated, signed, uniform

#: the checks of each entry (mode_table.check_mode), in the coverage table's column order
MODES = ("jit", "grad", "jvp", "vmap_array", "vmap_loop")
COLUMNS = {"jit": "value", "grad": "grad", "jvp": "jvp", "vmap_array": "vmap (array)", "vmap_loop": "vmap (loop)"}
COVERAGE = Path(__file__).resolve().parents[1] / "docs" / "numpy-coverage.md"

if __name__ == "__main__":      # as a script: the table of the module (the family tables import that one)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import surface_programs
    if sys.argv[1:] == ["--update"]:
        COVERAGE.write_text(surface_programs.coverage_table())
        print(f"wrote {COVERAGE}")
    else:
        print(surface_programs.coverage_table())
    sys.exit(0)


# ---- input makers: rng -> value -------------------------------------------------------------------------
def N(*shape):
    return lambda rng: normal(rng, shape)


def U(*shape, lo=-1.0, hi=1.0, avoid=(0.0,)):
    return lambda rng: uniform(rng, shape, lo, hi, avoid)


def P(*shape):
    """Positive values away from zero (bases of powers, operands of logarithms)."""
    return lambda rng: uniform(rng, shape, 0.5, 2.0)


def S(*shape):
    """Values away from zero of either sign (divisors)."""
    return lambda rng: signed(rng, shape)


def D(*shape):
    """Values with no near-ties (sorting, extremes)."""
    return lambda rng: distinct(rng, shape)


def I(*shape, hi=3):
    """Integer positions in [0, hi)."""
    return lambda rng: rng.integers(0, hi, shape)


def M(*shape):
    """A boolean mask."""
    return lambda rng: rng.random(shape) < 0.5


def Z(*shape, twice=True):
    """Values with exact zeros (products): one per row at random, and with ``twice`` a second one in the
    first row (where every element's derivative is zero)."""
    def make(rng):
        x = normal(rng, shape)
        rows = x.reshape(-1, shape[-1])
        for r in rows:
            r[rng.integers(shape[-1])] = 0.0
        if twice:
            rows[0, :2] = 0.0
        return x
    return make


def apart(shape_a, shape_b):
    """Two operands never within 0.05 of each other (maximum, minimum and their NaN-ignoring forms)."""
    return Spliced(lambda rng: separated(rng, shape_a, shape_b))


class _Weight:
    """Stands for ``w`` in a dry run of a program: records the shape of what it multiplies."""
    __array_ufunc__ = None

    def __init__(self):
        self.shape = None

    def __mul__(self, other):
        self.shape = np.shape(other)
        return 0.0

    __rmul__ = __mul__


def weight_shape(fn, operands):
    """The shape of the result ``fn`` weighs, from a NumPy run with a stand-in weight."""
    w = _Weight()
    fn(*operands, w)
    assert w.shape is not None, f"{fn.__name__} never multiplies its weight"
    return w.shape


@dataclass
class Case:
    function: str                   # the row of the coverage table: 'np.einsum'
    variant: str                    # what this entry exercises: "'ij,jk->ik'"
    fn: object
    operands: tuple                 # makers (rng -> value) or constants, the weight excluded
    numba: tuple = ()               # the modes also checked on the numba backend
    weight: tuple = None            # the weight's shape, where the program indexes it (else from a dry run)
    refused: dict = field(default_factory=dict)   # mode -> what the TranspileError's message says
    fails: dict = field(default_factory=dict)     # mode -> (exception type, why): known failures, strict xfails

    @property
    def id(self):
        """A test id: the function, the variant's place among the function's, and the variant in characters
        a pytest -k expression takes."""
        place = [c.variant for c in CASES if c.function == self.function].index(self.variant)
        return f"{self.function[3:]}-{place}-" + re.sub(r"[^A-Za-z0-9]+", "_", self.variant).strip("_")

    def outcome(self, mode):
        """What the table says of ``mode``: 'ok', ('refused', message) or ('fails', exception name)."""
        if mode in self.refused:
            return "refused", self.refused[mode]
        if mode in self.fails:
            return "fails", self.fails[mode][0].__name__
        return "ok"

    def make(self, rng):
        """The operands, drawn afresh, and a weight of the result's shape."""
        operands = ()
        for m in self.operands:
            value = m(rng) if callable(m) else m
            operands += value if isinstance(m, Spliced) else (value,)
        shape = self.weight if self.weight is not None else weight_shape(self.fn, operands)
        return operands + (normal(rng, shape),)


class Spliced:
    """A maker of several operands at once (``apart``), spliced into the operand list."""

    def __init__(self, maker):
        self.maker = maker

    def __call__(self, rng):
        return self.maker(rng)


# ---- statistics ----------------------------------------------------------------------------------------
def var_all(x, w):
    return np.sum(w * np.var(x))


def var_axis0(x, w):
    return np.sum(w * np.var(x, axis=0))


def var_axis1_keepdims(x, w):
    return np.sum(w * np.var(x, axis=1, keepdims=True))


def var_ddof1(x, w):
    return np.sum(w * np.var(x, ddof=1))


def var_axes_ddof(x, w):
    return np.sum(w * np.var(x, axis=(0, 2), ddof=1))


def std_all(x, w):
    return np.sum(w * np.std(x))


def std_axis_ddof(x, w):
    return np.sum(w * np.std(x, axis=-1, ddof=1))


def std_keepdims(x, w):
    return np.sum(w * np.std(x, axis=0, keepdims=True, ddof=2))


# ---- the keywords of reductions: dtype=, initial=, where= ----------------------------------------------
def sum_where(x, w):
    return np.sum(w * np.sum(x, where=x > 0.0))


def sum_where_axis_keepdims(x, w):
    return np.sum(w * np.sum(x * x, axis=1, keepdims=True, where=x < 0.5))


def sum_initial_dtype(x, w):
    return np.sum(w * np.sum(x, axis=0, dtype=np.float64, initial=1.5))


def sum_positional_keepdims(x, w):
    return np.sum(w * np.sum(x, 1, None, None, True))


def prod_where_initial(x, w):
    return np.sum(w * np.prod(x, axis=-1, where=x > 0.8, initial=2.0))


def mean_where(x, w):
    # each column's largest element is selected: no column's mean is of nothing (NaN)
    return np.sum(w * np.mean(x, axis=0, where=(x > 0.2) | (x == np.max(x, axis=0))))


def max_initial(x, w):
    return np.sum(w * np.max(x, initial=0.5))


def max_where_initial_axis(x, w):
    return np.sum(w * np.max(x, axis=1, where=x < 0.5, initial=-10.0))


def amin_initial_axis(x, w):
    return np.sum(w * np.amin(x, axis=(0, 2), initial=0.0))


def method_sum_where(x, w):
    return np.sum(w * x.sum(axis=0, where=x > 0.0))


def sum_out(x, w):
    totals = np.zeros((2, x.shape[1]))
    np.sum(x, axis=0, out=totals[1])
    return np.sum(w * totals)


def average_plain(x, w):
    return np.sum(w * np.average(x))


def average_weights_along_axis(x, v, w):
    return np.sum(w * np.average(x, axis=-1, weights=v))


def average_weights_of_its_shape(x, v, w):
    return np.sum(w * np.average(x, axis=0, weights=v * v, keepdims=True))


def average_returned(x, v, w):
    a, s = np.average(x, axis=1, weights=v, returned=True)
    return np.sum(w * a * s)


def average_returned_unweighted(x, w):
    a, s = np.average(x, axis=0, returned=True, keepdims=True)
    return np.sum(w * (a + s)) + np.average(x, returned=False)


# ---- np.unique, and a shape held in a name ---------------------------------------------------------------
def unique_values(x, w):
    return np.sum(w * np.unique(np.round(x * 2.0)) ** 2) + np.sum(np.unique(x) ** 2)


def unique_counts(x, w):
    values, counts = np.unique(np.floor(x * 2.0), return_counts=True)
    return np.sum(w * values * counts) + np.sum(x)


def unique_inverse(x, w):
    values, inverse = np.unique(np.floor(x * 3.0), return_inverse=True)
    return np.sum(w * x * values[inverse])


def unique_first_positions(x, w):
    values, first = np.unique(np.floor(x * 3.0), return_index=True)
    return np.sum(w * np.ravel(x)[first] ** 2)


# ---- other spellings: identity, diagonal and triangle positions, ndim/size, ufunc comparisons, ... ---------
def identity_weighted(x, w):
    return np.sum(w * (np.identity(x.shape[0]) @ x))


def diagonal_positions(x, w):
    i, j = np.diag_indices(x.shape[0])
    return np.sum(w * x[i, j] ** 2) + np.sum(x[np.diag_indices(3)] * 0.5)


def triangle_positions_from(x, w):
    r, c = np.triu_indices_from(x, 1)
    lr, lc = np.tril_indices_from(x)
    return np.sum(w * x[r, c] ** 2) + np.sum(x[lr, lc])


def rank_and_size(x, w):
    return np.sum(w * x) * np.ndim(x) + np.size(x) * np.sum(x) + np.size(x, 1)


def comparison_functions(x, y, w):
    picked = np.where(np.greater(x, y), x, 0.0) + np.where(np.less_equal(x, 0.0), y, 0.0)
    kept = np.where(np.logical_xor(np.greater_equal(x, 0.0), np.less(y, 0.0)), x * y, 0.0)
    return np.sum(w * (picked + kept + np.where(np.equal(x, x), y, 0.0) + np.not_equal(x, y)))


def at_least_ranks(x, w):
    return np.sum(w * np.atleast_3d(x)) + np.sum(np.atleast_1d(np.sum(x)) * 2.0) + np.sum(np.atleast_1d(x))


def rolled_axes(x, w):
    return np.sum(w * np.rollaxis(x, 2)) + np.sum(np.rollaxis(x, 0, 3) * np.arange(2.0))


def fixed_toward_zero(x, w):
    return np.sum(w * x * np.fix(x * 3.0))


def clipped_one_side(x, w):
    return np.sum(w * (np.clip(x, None, 0.3) + np.clip(x, -0.2, None) + np.clip(x, a_min=None, a_max=0.5)))


def reductions_of_lists(x, w):
    return np.sum(w * x) * np.mean([x[0, 0], x[1, 1] ** 2, 2.0]) + np.max([x[0, 1], x[1, 0]]) + \
        np.sum(np.exp([x[0, 0], 1.0]))


def _kinked(v):
    if v > 0.0:
        return v * v
    return 0.5 * v


def vectorized_helper(x, w):
    return np.sum(w * np.vectorize(_kinked)(x))


def vectorized_by_name(x, w):
    kink = np.vectorize(_kinked)
    return np.sum(w * kink(x) ** 2) + np.sum(kink(x[0]))


def vectorized_lambda_broadcast(x, y, w):
    return np.sum(w * np.vectorize(lambda u, v: u * v if u > v else u - v)(x, y))


def partition_smallest(x, w):
    return np.sum(w * np.partition(x, 2, axis=0)[:2] ** 2) + np.sum(np.partition(x, 1, axis=None)[1])


def argpartition_smallest(x, w):
    return np.sum(w * x[np.argpartition(x, 3)[:3]] ** 2)


def reshape_to_a_named_shape(x, y, w):
    s = np.shape(x)
    return np.sum(w * x * np.reshape(y, s))


def ix_block(x, w):
    return np.sum(w * x[np.ix_([0, 2], np.array([1, 3]))] ** 2)


def ix_mask_and_positions(x, w):
    rows = np.ix_(x[:, 0] > 0.0, np.array([0, 2, 3]))
    return np.sum(w * x[rows])


# ---- positions of nonzero elements ----------------------------------------------------------------------
def nonzero_gather(x, w):
    return np.sum(w * x[np.nonzero(x > 0.0)] ** 2)


def where_one_argument(x, w):
    i = np.where(x > 0.0)[0]
    return np.sum(w * x[i] * i)


def nonzero_pairs(x, w):
    r, c = np.nonzero(x > 0.0)
    return np.sum(w * x[r, c] * (r + 1) * (c + 2))


def nonzero_written(x, w):
    y = x * 2.0
    y[np.nonzero(x < 0.0)] = 0.5
    return np.sum(w * y)


def argwhere_rows(x, w):
    p = np.argwhere(x > 0.0)
    return np.sum(w * x[p[:, 0], p[:, 1], p[:, 2]] * p[:, 2])


# ---- least squares with rcond= --------------------------------------------------------------------------
def lstsq_rcond_none(a, b, w):
    return np.sum(w * np.linalg.lstsq(a, b, rcond=None)[0])


def lstsq_rcond_number(a, b, w):
    x, residuals, rank, s = np.linalg.lstsq(a, b, 1e-12)
    return np.sum(w * x) * rank


# ---- .item() --------------------------------------------------------------------------------------------
def item_of_sums(x, w):
    return np.sum(w * x * np.sum(x * x).item() * x[1:2, 0].item())


# ---- ufunc spellings -----------------------------------------------------------------------------------
def ufunc_add(x, y, w):
    return np.sum(w * np.add(x, y))


def ufunc_subtract(x, y, w):
    return np.sum(w * np.subtract(x, y))


def ufunc_multiply(x, y, w):
    return np.sum(w * np.multiply(x, y))


def ufunc_divide(x, y, w):
    return np.sum(w * np.divide(x, y))


def ufunc_true_divide(x, y, w):
    return np.sum(w * np.true_divide(x, y))


def ufunc_power(x, y, w):
    return np.sum(w * np.power(x, y))


def ufunc_negative(x, w):
    return np.sum(w * np.negative(x))


def ufunc_maximum(x, y, w):
    return np.sum(w * np.maximum(x, y))


def ufunc_minimum(x, y, w):
    return np.sum(w * np.minimum(x, y))


def ufunc_fmax(x, y, w):
    return np.sum(w * np.fmax(x, y))


def ufunc_fmin(x, y, w):
    return np.sum(w * np.fmin(x, y))


def ufunc_logaddexp(x, y, w):
    return np.sum(w * np.logaddexp(x, y))


def ufunc_logaddexp2(x, y, w):
    return np.sum(w * np.logaddexp2(x, y))


def ufunc_hypot(x, y, w):
    return np.sum(w * np.hypot(x, y))


def ufunc_arctan2(x, y, w):
    return np.sum(w * np.arctan2(x, y))


# ---- einsum --------------------------------------------------------------------------------------------
def einsum_matmul(a, b, w):
    return np.sum(w * np.einsum("ij,jk->ik", a, b))


def einsum_implicit_matmul(a, b, w):
    return np.sum(w * np.einsum("ij,jk", a, b))


def einsum_implicit_transpose(a, w):
    return np.sum(w * np.einsum("ji", a))


def einsum_diagonal(a, w):
    return np.sum(w * np.einsum("ii->i", a))


def einsum_trace(a, w):
    return np.sum(w * np.einsum("ii", a))


def einsum_column_sums(a, w):
    return np.sum(w * np.einsum("ij->j", a))


def einsum_total(a, w):
    return np.sum(w * np.einsum("ijk->", a))


def einsum_outer(a, b, w):
    return np.sum(w * np.einsum("i,j->ij", a, b))


def einsum_inner(a, b, w):
    return np.sum(w * np.einsum("i,i", a, b))


def einsum_hadamard(a, b, w):
    return np.sum(w * np.einsum("ij,ij->ij", a, b))


def einsum_batched(a, b, w):
    return np.sum(w * np.einsum("bij,bjk->bik", a, b))


def einsum_ellipsis(a, b, w):
    return np.sum(w * np.einsum("...ij,...jk->...ik", a, b))


def einsum_ellipsis_implicit(a, b, w):
    return np.sum(w * np.einsum("...ij,...jk", a, b))


def einsum_ellipsis_leading(a, b, w):
    return np.sum(w * np.einsum("i...,i->...", a, b))


def einsum_chain(a, b, c, w):
    return np.sum(w * np.einsum("ij,jk,kl->il", a, b, c))


def einsum_contract(a, b, w):
    return np.sum(w * np.einsum("ijk,kl->ijl", a, b))


def einsum_diagonal_product(a, b, w):
    return np.sum(w * np.einsum("iij,j->ij", a, b))


def einsum_spaces(a, b, w):
    return np.sum(w * np.einsum("ij, kj -> ki", a, b))


# ---- tensordot, matmul, dot -----------------------------------------------------------------------------
def tensordot_default(a, b, w):
    return np.sum(w * np.tensordot(a, b))


def tensordot_one(a, b, w):
    return np.sum(w * np.tensordot(a, b, axes=1))


def tensordot_zero(a, b, w):
    return np.sum(w * np.tensordot(a, b, axes=0))


def tensordot_pair(a, b, w):
    return np.sum(w * np.tensordot(a, b, axes=([1], [0])))


def tensordot_pairs(a, b, w):
    return np.sum(w * np.tensordot(a, b, axes=([0, 2], [2, 0])))


def tensordot_int_pair(a, b, w):
    return np.sum(w * np.tensordot(a, b, axes=(1, 0)))


def matmul_stack_matrix(a, b, w):
    return np.sum(w * (a @ b))


def matmul_broadcast(a, b, w):
    return np.sum(w * np.matmul(a, b))


def matmul_vector_stack(a, b, w):
    return np.sum(w * np.matmul(a, b))


def matmul_stack_vector(a, b, w):
    return np.sum(w * (a @ b))


def dot_nd(a, b, w):
    return np.sum(w * np.dot(a, b))


def dot_matrix_vector(a, b, w):
    return np.sum(w * np.dot(a, b))


def dot_vectors(a, b, w):
    return np.sum(w * np.dot(a, b))


def dot_vector_matrix(a, b, w):
    return np.sum(w * a.dot(b))


# ---- permutations of axes ------------------------------------------------------------------------------
def transpose_axes(x, w):
    return np.sum(w * np.transpose(x, (2, 0, 1)))


def transpose_method(x, w):
    return np.sum(w * x.transpose(1, 0, 2))


def transpose_reversed(x, w):
    return np.sum(w * np.transpose(x))


def swapaxes_outer(x, w):
    return np.sum(w * np.swapaxes(x, 0, 2))


def moveaxis_one(x, w):
    return np.sum(w * np.moveaxis(x, 0, -1))


def moveaxis_several(x, w):
    return np.sum(w * np.moveaxis(x, (0, 1), (-1, -2)))


# ---- diagonals -----------------------------------------------------------------------------------------
def trace_matrix(a, w):
    return np.sum(w * np.trace(a))


def trace_offset(a, w):
    return np.sum(w * np.trace(a, offset=1))


def trace_axes(a, w):
    return np.sum(w * np.trace(a, offset=-1, axis1=1, axis2=2))


def diag_vector(v, w):
    return np.sum(w * np.diag(v))


def diag_vector_offset(v, w):
    return np.sum(w * np.diag(v, k=1))


def diag_matrix(a, w):
    return np.sum(w * np.diag(a))


def diag_matrix_offset(a, w):
    return np.sum(w * np.diag(a, k=-1))


def diagonal_axes(a, w):
    return np.sum(w * np.diagonal(a, offset=1, axis1=0, axis2=2))


def diagonal_method(a, w):
    return np.sum(w * a.diagonal())


def diagflat_vector(v, w):
    return np.sum(w * np.diagflat(v))


def diagflat_matrix(a, w):
    return np.sum(w * np.diagflat(a, k=1))


# ---- flips, rotations, rolls ----------------------------------------------------------------------------
def flip_all(x, w):
    return np.sum(w * np.flip(x))


def flip_axis(x, w):
    return np.sum(w * np.flip(x, axis=0))


def flip_axes(x, w):
    return np.sum(w * np.flip(x, axis=(0, 2)))


def fliplr(x, w):
    return np.sum(w * np.fliplr(x))


def flipud(x, w):
    return np.sum(w * np.flipud(x))


def rot90_once(x, w):
    return np.sum(w * np.rot90(x))


def rot90_twice(x, w):
    return np.sum(w * np.rot90(x, 2))


def rot90_thrice(x, w):
    return np.sum(w * np.rot90(x, k=3))


def rot90_back(x, w):
    return np.sum(w * np.rot90(x, -1))


def rot90_axes(x, w):
    return np.sum(w * np.rot90(x, 1, axes=(1, 2)))


def roll_flat(x, w):
    return np.sum(w * np.roll(x, 2))


def roll_axis(x, w):
    return np.sum(w * np.roll(x, -1, axis=1))


def roll_axes(x, w):
    return np.sum(w * np.roll(x, (1, 2), axis=(0, 1)))


def roll_past(x, w):
    return np.sum(w * np.roll(x, 7, axis=0))


# ---- sorting and positions -----------------------------------------------------------------------------
def sort_vector(x, w):
    return np.sum(w * np.sort(x))


def sort_rows(x, w):
    return np.sum(w * np.sort(x))


def sort_columns(x, w):
    return np.sum(w * np.sort(x, axis=0))


def sort_flat(x, w):
    return np.sum(w * np.sort(x, axis=None))


def argsort_index(x, w):
    return np.sum(w * x[np.argsort(x)])


def lexsort_two_keys(x, v, w):
    order = np.lexsort((x, np.round(v * 2.0)))
    return np.sum(w * x[order] * v[order])


def lexsort_three_keys(x, w):
    order = np.lexsort([np.round(x * 3.0), np.round(x * 0.5), np.round(x)])
    return np.sum(w * x[order])


def argsort_along(x, w):
    return np.sum(w * np.take_along_axis(x, np.argsort(x, axis=1), axis=1))


def argmax_index(x, w):
    return np.sum(w * x[np.argmax(x)])


def argmin_index(x, w):
    return np.sum(w * x[np.argmin(x)])


def argmax_axis(x, w):
    return np.sum(w * np.take_along_axis(x, np.expand_dims(np.argmax(x, axis=1), 1), axis=1))


def argmin_axis(x, w):
    return np.sum(w * np.take_along_axis(x, np.expand_dims(np.argmin(x, axis=0), 0), axis=0))


# ---- scans ---------------------------------------------------------------------------------------------
def cumsum_flat(x, w):
    return np.sum(w * np.cumsum(x))


def cumsum_axis0(x, w):
    return np.sum(w * np.cumsum(x, axis=0))


def cumsum_axis1(x, w):
    return np.sum(w * np.cumsum(x, axis=1))


def cumprod_flat(x, w):
    return np.sum(w * np.cumprod(x))


def cumprod_axis0(x, w):
    return np.sum(w * np.cumprod(x, axis=0))


def cumprod_axis_last(x, w):
    return np.sum(w * np.cumprod(x, axis=-1))


# ---- array literals and joins --------------------------------------------------------------------------
def literal_matrix(a, b, w):
    return np.sum(w * np.array([[a, b], [b * a, a - b]]))


def literal_of_vectors(x, y, w):
    return np.sum(w * np.array([x, y, x * y]))


def literal_nested_vectors(x, y, w):
    return np.sum(w * np.array([[x, y], [y, x * 2.0]]))


def literal_of_parts(x, w):
    return np.sum(w * np.array([[x[0], x[1]], [x[2], x[3]]]))


def stack_first(x, y, w):
    return np.sum(w * np.stack([x, y]))


def stack_axis1(x, y, w):
    return np.sum(w * np.stack((x, y, x), axis=1))


def stack_last(x, y, w):
    return np.sum(w * np.stack([x, y], axis=-1))


def vstack_vectors(x, y, w):
    return np.sum(w * np.vstack([x, y]))


def vstack_matrices(x, y, w):
    return np.sum(w * np.vstack((x, y)))


def hstack_vectors(x, y, w):
    return np.sum(w * np.hstack([x, y]))


def hstack_matrices(x, y, w):
    return np.sum(w * np.hstack((x, y)))


def concatenate_first(x, y, w):
    return np.sum(w * np.concatenate([x, y]))


def concatenate_axis1(x, y, w):
    return np.sum(w * np.concatenate((x, y), axis=1))


def concatenate_last(x, y, w):
    return np.sum(w * np.concatenate([x, y, x], axis=-1))


def split_sections(x, w):
    a, b, c = np.split(x, 3)
    return np.sum(w[0] * a) + np.sum(w[1] * b) * 2.0 + np.sum(w[2] * c) * 3.0


def split_indices(x, w):
    a, b, c = np.split(x, [1, 3], axis=1)
    return np.sum(w[:, :1] * a) + np.sum(w[:, 1:3] * b) * 2.0 + np.sum(w[:, 3:] * np.sin(c))


def split_parts(x, w):
    parts = np.split(x, 2, axis=-1)
    return np.sum(w[:, :2] * parts[0]) - np.sum(w[:, 2:] * parts[1])


def array_split_uneven(x, w):
    a, b, c = np.array_split(x, 3)
    return np.sum(w[:3] * a) + 2.0 * np.sum(w[3:5] * b) + 3.0 * np.sum(w[5:] * c)


def array_split_axis(x, w):
    a, b = np.array_split(x, 2, axis=1)
    return np.sum(w[:, :3] * a) + 2.0 * np.sum(w[:, 3:] * b)


# ---- repetitions ---------------------------------------------------------------------------------------
def tile_int(x, w):
    return np.sum(w * np.tile(x, 3))


def tile_pair(x, w):
    return np.sum(w * np.tile(x, (2, 3)))


def tile_promotes(x, w):
    return np.sum(w * np.tile(x, (2, 1, 2)))


def repeat_flat(x, w):
    return np.sum(w * np.repeat(x, 2))


def repeat_axis(x, w):
    return np.sum(w * np.repeat(x, 3, axis=1))


def repeat_counts(x, w):
    return np.sum(w * np.repeat(x, [1, 0, 2], axis=0))


def repeat_computed(x, w):
    n = x.shape[0] - 1
    return np.sum(w * np.repeat(x, n, axis=0))


def diff_once(x, w):
    return np.sum(w * np.diff(x))


def diff_twice_axis0(x, w):
    return np.sum(w * np.diff(x, n=2, axis=0))


def diff_prepend(x, w):
    return np.sum(w * np.diff(x, prepend=0.5))


def ediff1d_ends(x, w):
    return np.sum(w * np.ediff1d(x, to_begin=1.0, to_end=x[:2]))


def gradient_vector(x, w):
    return np.sum(w * np.gradient(x))


def gradient_axis_spacing(x, w):
    return np.sum(w * np.gradient(x, 0.5, axis=1))


def round_decimals(x, w):
    return np.sum(w * (np.round(x, 2) + x))


def isclose_mask(x, w):
    return np.sum(w * np.isclose(x, x[0]) * x)


def count_nonzero_axis(x, w):
    return np.sum(w * np.count_nonzero(x > 0.0, axis=1) * x[:, 0])


# ---- products ------------------------------------------------------------------------------------------
def outer_vectors(a, b, w):
    return np.sum(w * np.outer(a, b))


def outer_flattens(a, b, w):
    return np.sum(w * np.outer(a, b))


def inner_vectors(a, b, w):
    return np.sum(w * np.inner(a, b))


def inner_matrices(a, b, w):
    return np.sum(w * np.inner(a, b))


def inner_mixed(a, b, w):
    return np.sum(w * np.inner(a, b))


def kron_vectors(a, b, w):
    return np.sum(w * np.kron(a, b))


def kron_matrices(a, b, w):
    return np.sum(w * np.kron(a, b))


def kron_mixed(a, b, w):
    return np.sum(w * np.kron(a, b))


def cross_vectors(a, b, w):
    return np.sum(w * np.cross(a, b))


def cross_rows(a, b, w):
    return np.sum(w * np.cross(a, b))


def cross_broadcast(a, b, w):
    return np.sum(w * np.cross(a, b))


def prod_zeros(x, w):
    return np.sum(w * np.prod(x))


def prod_zeros_axis(x, w):
    return np.sum(w * np.prod(x, axis=1))


def prod_zeros_keepdims(x, w):
    return np.sum(w * np.prod(x, axis=0, keepdims=True))


# ---- triangles, selection ------------------------------------------------------------------------------
def tril_main(x, w):
    return np.sum(w * np.tril(x))


def tril_above(x, w):
    return np.sum(w * np.tril(x, k=1))


def triu_below(x, w):
    return np.sum(w * np.triu(x, -1))


def triu_stack(x, w):
    return np.sum(w * np.triu(x))


def where_mask(c, x, y, w):
    return np.sum(w * np.where(c, x, y))


def where_number(c, x, w):
    return np.sum(w * np.where(c, np.sin(x), 0.5))


def select_two(c1, c2, x, y, w):
    return np.sum(w * np.select([c1, c2], [x, y * 2.0]))


def select_default(c1, c2, x, y, w):
    return np.sum(w * np.select([c1, c2], [x, y], default=x * y))


def clip_numbers(x, w):
    return np.sum(w * np.clip(x, -0.5, 0.5))


def clip_arrays(x, lo, hi, w):
    return np.sum(w * np.clip(x, lo, hi))


# ---- shapes --------------------------------------------------------------------------------------------
def squeeze_axis(x, w):
    return np.sum(w * np.squeeze(x, axis=1))


def squeeze_axes(x, w):
    return np.sum(w * np.squeeze(x, axis=(0, 2)))


def squeeze_all(x, w):
    return np.sum(w * np.squeeze(x))


def expand_dims_first(x, w):
    return np.sum(w * np.expand_dims(x, 0))


def expand_dims_last(x, w):
    return np.sum(w * np.expand_dims(x, -1))


def expand_dims_axes(x, w):
    return np.sum(w * np.expand_dims(x, (0, 2)))


def reshape_flat(x, w):
    return np.sum(w * np.reshape(x, (-1,)))


def reshape_inferred(x, w):
    return np.sum(w * x.reshape(2, -1))


def ravel_matrix(x, w):
    return np.sum(w * np.ravel(x))


def ravel_transposed(x, w):
    return np.sum(w * np.ravel(x.T))


# ---- gathers -------------------------------------------------------------------------------------------
def take_flat(x, i, w):
    return np.sum(w * np.take(x, i))


def take_axis0(x, i, w):
    return np.sum(w * np.take(x, i, axis=0))


def take_axis1(x, i, w):
    return np.sum(w * np.take(x, i, axis=1))


def take_last(x, i, w):
    return np.sum(w * np.take(x, i, axis=-1))


def take_number(x, w):
    return np.sum(w * np.take(x, 2, axis=1))


def take_along_rows(x, i, w):
    return np.sum(w * np.take_along_axis(x, i, axis=1))


def take_along_columns(x, i, w):
    return np.sum(w * np.take_along_axis(x, i, axis=0))


# ---- padding -------------------------------------------------------------------------------------------
def pad_int(x, w):
    return np.sum(w * np.pad(x, 1))


def pad_pair(x, w):
    return np.sum(w * np.pad(x, (1, 2)))


def pad_per_axis(x, w):
    return np.sum(w * np.pad(x, ((1, 0), (2, 1))))


def pad_value(x, w):
    return np.sum(w * np.pad(x, 2, constant_values=0.5))


def pad_edge(x, w):
    return np.sum(w * np.pad(x, ((1, 2), (0, 1)), mode="edge"))


def pad_reflect(x, w):
    return np.sum(w * np.pad(x, 2, mode="reflect"))


def pad_symmetric(x, w):
    return np.sum(w * np.pad(x, ((1, 2),), mode="symmetric"))


def pad_wrap(x, w):
    return np.sum(w * np.pad(x, ((1, 2), (2, 0)), mode="wrap"))


# ---- grids ---------------------------------------------------------------------------------------------
def meshgrid_xy(x, y, w):
    gx, gy = np.meshgrid(x, y)
    return np.sum(w * (gx * np.cos(gy)))


def meshgrid_ij(x, y, w):
    gx, gy = np.meshgrid(x, y, indexing="ij")
    return np.sum(w * (gx - gy * gx))


def meshgrid_three(x, y, z, w):
    gx, gy, gz = np.meshgrid(x, y, z)
    return np.sum(w * (gx * gy + gz))


# ---- complex parts -------------------------------------------------------------------------------------
def complex_real(x, y, w):
    return np.sum(w * np.real((x + 1j * y) ** 2))


def complex_imag(x, y, w):
    return np.sum(w * np.imag((x + 1j * y) ** 2))


def complex_conj(x, y, w):
    z = x + 1j * y
    return np.sum(w * np.real(np.conj(z) * z * z))


def complex_abs(x, y, w):
    return np.sum(w * np.abs(x + 1j * y))


def complex_angle(x, y, w):
    return np.sum(w * np.angle(x + 1j * y))


def complex_angle_degrees(x, y, w):
    return np.sum(w * np.angle(y + 1j * x, deg=True))


# ---- the table -----------------------------------------------------------------------------------------
def C(function, variant, fn, *operands, **options):
    return Case(function, variant, fn, operands, **options)


_G = ("grad",)
_SQUEEZE = "np.squeeze without an axis: which axes have length 1 is known only at run time"
_R = "has a shape of its own in each example"   # array lifting of a result whose length varies
CASES = [
    C("np.sum", "where=", sum_where, U(3, 4)),
    C("np.sum", "axis=1, keepdims, where=", sum_where_axis_keepdims, U(3, 4), numba=_G),
    C("np.sum", "axis=0, dtype=np.float64, initial=", sum_initial_dtype, N(3, 4)),
    C("np.sum", "positional (a, 1, None, None, True)", sum_positional_keepdims, N(3, 4)),
    C("np.sum", "axis=0, out= a row", sum_out, N(3, 4), weight=(2, 4)),
    C("np.prod", "axis=-1, where=, initial=", prod_where_initial, P(3, 4), numba=_G),
    C("np.mean", "axis=0, where=", mean_where, U(5, 3)),
    C("np.max", "initial=", max_initial, D(3, 4)),
    C("np.max", "axis=1, where=, initial=", max_where_initial_axis, D(3, 4), numba=_G),
    C("np.amin", "axis=(0, 2), initial=", amin_initial_axis, D(2, 3, 4)),
    C("np.sum", "method, axis=0, where=", method_sum_where, U(3, 4)),
    C("np.average", "all", average_plain, N(3, 4)),
    C("np.average", "axis=-1, 1-D weights", average_weights_along_axis, N(3, 4), P(4), numba=_G),
    C("np.average", "axis=0, weights of its shape, keepdims", average_weights_of_its_shape, N(3, 4), P(3, 4)),
    C("np.average", "returned=True, axis=1, 1-D weights", average_returned, N(3, 4), P(4), weight=(3,)),
    C("np.average", "returned=True, axis=0, keepdims", average_returned_unweighted, N(3, 4), weight=(1, 4)),
    C("np.unique", "values", unique_values, U(3, 4), weight=(), refused={"vmap_array": _R}),
    C("np.unique", "return_counts", unique_counts, U(9), weight=(), numba=_G, refused={"vmap_array": _R}),
    C("np.unique", "return_inverse", unique_inverse, U(3, 4), numba=_G, refused={"vmap_array": _R}),
    C("np.unique", "return_index", unique_first_positions, U(7), weight=(), refused={"vmap_array": _R}),
    C("np.identity", "times a matrix", identity_weighted, N(3, 3), numba=_G),
    C("np.diag_indices", "unpacked and as an index", diagonal_positions, N(3, 3), weight=(3,)),
    C("np.triu_indices_from", "and np.tril_indices_from", triangle_positions_from, N(4, 4), weight=(6,), numba=_G),
    C("np.ndim", "and np.size (axis=1)", rank_and_size, N(3, 4)),
    C("np.greater", "np.less, np.equal, np.logical_xor, ...", comparison_functions, U(3, 4), U(3, 4), numba=_G),
    C("np.atleast_3d", "and np.atleast_1d", at_least_ranks, N(3, 4), weight=(3, 4, 1)),
    C("np.rollaxis", "to the front and to the end", rolled_axes, N(2, 3, 4), weight=(4, 2, 3)),
    C("np.fix", "rounding toward zero", fixed_toward_zero, U(3, 4)),
    C("np.clip", "one bound None", clipped_one_side, U(3, 4), numba=_G),
    C("np.mean", "np.max, np.exp of lists written in the call", reductions_of_lists, N(3, 3), weight=(3, 3)),
    C("np.vectorize", "a helper with a branch", vectorized_helper, U(3, 4), numba=_G),
    C("np.vectorize", "bound to a name, called twice", vectorized_by_name, U(3, 4)),
    C("np.vectorize", "a lambda of two arguments, broadcast", vectorized_lambda_broadcast, apart((3, 4), (4,))),
    C("np.partition", "the smallest rows, axis=0; axis=None", partition_smallest, D(5, 3), weight=(2, 3), numba=_G),
    C("np.argpartition", "the smallest three", argpartition_smallest, D(7), weight=(3,)),
    C("np.reshape", "to a shape held in a name (np.shape)", reshape_to_a_named_shape, N(3, 4), N(12), numba=_G),
    C("np.ix_", "a block of a matrix", ix_block, N(3, 4), numba=_G),
    C("np.ix_", "a mask and positions", ix_mask_and_positions, N(4, 4), weight=(), refused={"vmap_array": _R}),
    C("np.nonzero", "as an index", nonzero_gather, U(7), weight=(), refused={"vmap_array": _R}, numba=_G),
    C("np.nonzero", "two axes unpacked", nonzero_pairs, U(3, 4), weight=(), refused={"vmap_array": _R}),
    C("np.nonzero", "written through", nonzero_written, U(3, 4), refused={"vmap_array": _R}, numba=_G),
    C("np.where", "one argument", where_one_argument, U(6), weight=(), refused={"vmap_array": _R}),
    C("np.argwhere", "rank 3", argwhere_rows, U(2, 3, 4), weight=(), refused={"vmap_array": _R}),
    C("np.linalg.lstsq", "rcond=None", lstsq_rcond_none, N(5, 3), N(5), numba=_G),
    C("np.linalg.lstsq", "rcond positional, every part", lstsq_rcond_number, N(5, 3), N(5, 2)),
    C("np.ndarray.item", "of a sum and of a one-element slice", item_of_sums, N(3, 4), numba=_G),
    C("np.var", "all", var_all, N(3, 4)),
    C("np.var", "axis=0", var_axis0, N(3, 4)),
    C("np.var", "axis=1, keepdims", var_axis1_keepdims, N(3, 4)),
    C("np.var", "ddof=1", var_ddof1, N(5)),
    C("np.var", "axis=(0, 2), ddof=1", var_axes_ddof, N(2, 3, 4)),
    C("np.std", "all", std_all, N(3, 4)),
    C("np.std", "axis=-1, ddof=1", std_axis_ddof, N(3, 4), numba=("grad",)),
    C("np.std", "axis=0, keepdims, ddof=2", std_keepdims, N(4, 3)),
    C("np.add", "(3, 4) + (4,)", ufunc_add, N(3, 4), N(4)),
    C("np.subtract", "(3, 4) - (3, 1)", ufunc_subtract, N(3, 4), N(3, 1)),
    C("np.multiply", "(3, 4)", ufunc_multiply, N(3, 4), N(3, 4)),
    C("np.divide", "(3, 4) / (4,)", ufunc_divide, N(3, 4), S(4)),
    C("np.true_divide", "(2, 3) / (2, 1)", ufunc_true_divide, N(2, 3), S(2, 1)),
    C("np.power", "(3, 4) ** (4,)", ufunc_power, P(3, 4), N(4)),
    C("np.negative", "(3, 4)", ufunc_negative, N(3, 4)),
    C("np.maximum", "(3, 4), (4,)", ufunc_maximum, apart((3, 4), (4,))),
    C("np.minimum", "(3, 4)", ufunc_minimum, apart((3, 4), (3, 4))),
    C("np.fmax", "(3, 4), (4,)", ufunc_fmax, apart((3, 4), (4,)), numba=_G),
    C("np.fmin", "(2, 3)", ufunc_fmin, apart((2, 3), (2, 3))),
    C("np.logaddexp", "(3, 4), (4,)", ufunc_logaddexp, N(3, 4), N(4), numba=_G),
    C("np.logaddexp2", "(3, 4)", ufunc_logaddexp2, N(3, 4), N(3, 4)),
    C("np.hypot", "(3, 4), (4,)", ufunc_hypot, S(3, 4), S(4)),
    C("np.arctan2", "(3, 4)", ufunc_arctan2, S(3, 4), S(3, 4)),
    C("np.einsum", "'ij,jk->ik'", einsum_matmul, N(3, 4), N(4, 5), numba=("jit", "grad", "jvp", "vmap_loop")),
    C("np.einsum", "'ij,jk' (implicit)", einsum_implicit_matmul, N(2, 3), N(3, 4)),
    C("np.einsum", "'ji' (implicit: a transpose)", einsum_implicit_transpose, N(3, 4)),
    C("np.einsum", "'ii->i'", einsum_diagonal, N(4, 4), numba=_G),
    C("np.einsum", "'ii' (trace)", einsum_trace, N(3, 3)),
    C("np.einsum", "'ij->j'", einsum_column_sums, N(3, 4)),
    C("np.einsum", "'ijk->'", einsum_total, N(2, 3, 4)),
    C("np.einsum", "'i,j->ij'", einsum_outer, N(3), N(4)),
    C("np.einsum", "'i,i' (implicit: a number)", einsum_inner, N(5), N(5)),
    C("np.einsum", "'ij,ij->ij'", einsum_hadamard, N(3, 4), N(3, 4)),
    C("np.einsum", "'bij,bjk->bik'", einsum_batched, N(2, 3, 4), N(2, 4, 5)),
    C("np.einsum", "'...ij,...jk->...ik', (2, 3, 4), (4, 5)", einsum_ellipsis, N(2, 3, 4), N(4, 5), numba=_G),
    C("np.einsum", "'...ij,...jk->...ik', broadcast (2, 1, 3, 4), (5, 4, 2)", einsum_ellipsis, N(2, 1, 3, 4),
      N(5, 4, 2)),
    C("np.einsum", "'...ij,...jk' (implicit)", einsum_ellipsis_implicit, N(2, 3, 4), N(2, 4, 5)),
    C("np.einsum", "'i...,i->...'", einsum_ellipsis_leading, N(3, 2, 4), N(3)),
    C("np.einsum", "'ij,jk,kl->il'", einsum_chain, N(2, 3), N(3, 4), N(4, 2), numba=("jit",)),
    C("np.einsum", "'ijk,kl->ijl'", einsum_contract, N(2, 3, 4), N(4, 2)),
    C("np.einsum", "'iij,j->ij'", einsum_diagonal_product, N(3, 3, 4), N(4)),
    C("np.einsum", "'ij, kj -> ki' (spaces)", einsum_spaces, N(3, 4), N(2, 4)),
    C("np.tensordot", "axes=2 (default)", tensordot_default, N(3, 4, 5), N(4, 5, 2), numba=_G),
    C("np.tensordot", "axes=1", tensordot_one, N(3, 4), N(4, 5)),
    C("np.tensordot", "axes=0", tensordot_zero, N(2, 3), N(4)),
    C("np.tensordot", "axes=([1], [0])", tensordot_pair, N(3, 4), N(4, 5)),
    C("np.tensordot", "axes=([0, 2], [2, 0])", tensordot_pairs, N(2, 3, 4), N(4, 5, 2)),
    C("np.tensordot", "axes=(1, 0)", tensordot_int_pair, N(3, 4), N(4, 5)),
    C("np.matmul", "(2, 3, 4) @ (4, 5)", matmul_stack_matrix, N(2, 3, 4), N(4, 5)),
    C("np.matmul", "(2, 1, 3, 4), (5, 4, 2)", matmul_broadcast, N(2, 1, 3, 4), N(5, 4, 2)),
    C("np.matmul", "(4,), (2, 4, 3)", matmul_vector_stack, N(4), N(2, 4, 3)),
    C("np.matmul", "(2, 3, 4) @ (4,)", matmul_stack_vector, N(2, 3, 4), N(4)),
    C("np.dot", "(2, 3, 4), (2, 4, 3)", dot_nd, N(2, 3, 4), N(2, 4, 3)),
    C("np.dot", "(3, 4), (4,)", dot_matrix_vector, N(3, 4), N(4)),
    C("np.dot", "(5,), (5,)", dot_vectors, N(5), N(5)),
    C("np.dot", "(3,).dot((3, 4))", dot_vector_matrix, N(3), N(3, 4)),
    C("np.transpose", "axes=(2, 0, 1)", transpose_axes, N(2, 3, 4)),
    C("np.transpose", "x.transpose(1, 0, 2)", transpose_method, N(2, 3, 4)),
    C("np.transpose", "reversed, rank 3", transpose_reversed, N(2, 3, 4)),
    C("np.swapaxes", "0, 2", swapaxes_outer, N(2, 3, 4)),
    C("np.moveaxis", "0, -1", moveaxis_one, N(2, 3, 4)),
    C("np.moveaxis", "(0, 1), (-1, -2)", moveaxis_several, N(2, 3, 4)),
    C("np.trace", "matrix", trace_matrix, N(3, 3)),
    C("np.trace", "offset=1", trace_offset, N(3, 4)),
    C("np.trace", "offset=-1, axis1=1, axis2=2", trace_axes, N(2, 3, 4)),
    C("np.diag", "vector", diag_vector, N(3)),
    C("np.diag", "vector, k=1", diag_vector_offset, N(3)),
    C("np.diag", "matrix (3, 4)", diag_matrix, N(3, 4)),
    C("np.diag", "matrix (4, 3), k=-1", diag_matrix_offset, N(4, 3)),
    C("np.diagonal", "offset=1, axis1=0, axis2=2", diagonal_axes, N(3, 2, 4)),
    C("np.diagonal", "a.diagonal()", diagonal_method, N(3, 3)),
    C("np.diagflat", "vector", diagflat_vector, N(3), numba=_G),
    C("np.diagflat", "matrix, k=1", diagflat_matrix, N(2, 2)),
    C("np.flip", "all axes", flip_all, N(2, 3, 4)),
    C("np.flip", "axis=0", flip_axis, N(3, 4)),
    C("np.flip", "axis=(0, 2)", flip_axes, N(2, 3, 4)),
    C("np.fliplr", "(3, 4)", fliplr, N(3, 4)),
    C("np.flipud", "(3, 4)", flipud, N(3, 4)),
    C("np.rot90", "k=1", rot90_once, N(3, 4), numba=_G),
    C("np.rot90", "k=2", rot90_twice, N(3, 4)),
    C("np.rot90", "k=3", rot90_thrice, N(2, 3)),
    C("np.rot90", "k=-1", rot90_back, N(3, 4)),
    C("np.rot90", "axes=(1, 2)", rot90_axes, N(2, 3, 4)),
    C("np.roll", "shift=2, flattened", roll_flat, N(3, 4), numba=_G),
    C("np.roll", "shift=-1, axis=1", roll_axis, N(3, 4)),
    C("np.roll", "shift=(1, 2), axis=(0, 1)", roll_axes, N(3, 4)),
    C("np.roll", "shift=7 past the length, axis=0", roll_past, N(3, 2)),
    C("np.sort", "vector", sort_vector, D(6), numba=_G),
    C("np.sort", "rows", sort_rows, D(3, 4)),
    C("np.sort", "axis=0", sort_columns, D(3, 4)),
    C("np.sort", "axis=None", sort_flat, D(3, 4)),
    C("np.argsort", "x[np.argsort(x)]", argsort_index, D(5)),
    C("np.lexsort", "two keys, the last decides first", lexsort_two_keys, D(7), N(7), weight=(7,)),
    C("np.lexsort", "three keys with ties", lexsort_three_keys, D(8), weight=(8,)),
    C("np.argsort", "axis=1, with np.take_along_axis", argsort_along, D(3, 4)),
    C("np.argmax", "x[np.argmax(x)]", argmax_index, D(5)),
    C("np.argmax", "axis=1, with np.take_along_axis", argmax_axis, D(3, 4)),
    C("np.argmin", "x[np.argmin(x)]", argmin_index, D(6)),
    C("np.argmin", "axis=0, with np.take_along_axis", argmin_axis, D(3, 4)),
    C("np.cumsum", "flattened", cumsum_flat, N(3, 4)),
    C("np.cumsum", "axis=0", cumsum_axis0, N(3, 4)),
    C("np.cumsum", "axis=1", cumsum_axis1, N(3, 4)),
    C("np.cumprod", "flattened", cumprod_flat, N(2, 3)),
    C("np.cumprod", "axis=0, zeros", cumprod_axis0, Z(3, 4), numba=_G),
    C("np.cumprod", "axis=-1, zeros", cumprod_axis_last, Z(3, 4)),
    C("np.array", "[[a, b], [c, d]] of numbers", literal_matrix, U(), U(), numba=_G),
    C("np.array", "[x, y, x * y] of vectors", literal_of_vectors, N(3), N(3)),
    C("np.array", "[[x, y], [y, 2 x]] of vectors", literal_nested_vectors, N(3), N(3)),
    C("np.array", "[[x[0], x[1]], [x[2], x[3]]]", literal_of_parts, N(4)),
    C("np.stack", "axis=0", stack_first, N(3), N(3)),
    C("np.stack", "axis=1", stack_axis1, N(2, 3), N(2, 3)),
    C("np.stack", "axis=-1", stack_last, N(2, 3), N(2, 3)),
    C("np.vstack", "vectors", vstack_vectors, N(3), N(3)),
    C("np.vstack", "matrices", vstack_matrices, N(2, 3), N(1, 3)),
    C("np.hstack", "vectors", hstack_vectors, N(2), N(3)),
    C("np.hstack", "matrices", hstack_matrices, N(2, 3), N(2, 1)),
    C("np.concatenate", "axis=0", concatenate_first, N(2, 3), N(1, 3)),
    C("np.concatenate", "axis=1", concatenate_axis1, N(2, 3), N(2, 2)),
    C("np.concatenate", "axis=-1", concatenate_last, N(2, 3), N(2, 3)),
    C("np.split", "3 sections", split_sections, N(6, 2), weight=(3, 2, 2), numba=_G),
    C("np.split", "at [1, 3], axis=1", split_indices, N(3, 5), weight=(3, 5)),
    C("np.split", "2 sections, axis=-1, indexed", split_parts, N(3, 4), weight=(3, 4)),
    C("np.array_split", "3 uneven sections", array_split_uneven, N(7, 2), weight=(7, 2)),
    C("np.array_split", "2 sections, axis=1", array_split_axis, N(2, 5), weight=(2, 5)),
    C("np.tile", "3", tile_int, N(3), numba=_G),
    C("np.tile", "(2, 3)", tile_pair, N(2, 3)),
    C("np.tile", "(2, 1, 2) of a matrix", tile_promotes, N(3, 2)),
    C("np.repeat", "2, flattened", repeat_flat, N(2, 3), numba=_G),
    C("np.repeat", "3, axis=1", repeat_axis, N(2, 3)),
    C("np.repeat", "[1, 0, 2], axis=0", repeat_counts, N(3, 2)),
    C("np.repeat", "a computed count, axis=0", repeat_computed, N(3, 2), numba=_G),
    C("np.diff", "n=1", diff_once, N(5), numba=_G),
    C("np.diff", "n=2, axis=0", diff_twice_axis0, N(5, 3)),
    C("np.diff", "prepend=0.5", diff_prepend, N(4)),
    C("np.ediff1d", "to_begin, to_end", ediff1d_ends, N(5)),
    C("np.gradient", "a vector", gradient_vector, N(5), numba=_G),
    C("np.gradient", "spacing 0.5, axis=1", gradient_axis_spacing, N(3, 4)),
    C("np.round", "decimals=2", round_decimals, N(3, 4)),
    C("np.isclose", "against one element", isclose_mask, N(5)),
    C("np.count_nonzero", "axis=1", count_nonzero_axis, N(3, 4)),
    C("np.outer", "vectors", outer_vectors, N(3), N(4)),
    C("np.outer", "a matrix and a vector (flattened)", outer_flattens, N(2, 2), N(3)),
    C("np.outer", "a vector and a matrix (flattened)", outer_flattens, N(3), N(2, 2)),
    C("np.inner", "vectors", inner_vectors, N(4), N(4), numba=_G),
    C("np.inner", "matrices", inner_matrices, N(2, 4), N(3, 4)),
    C("np.inner", "(2, 3, 4), (4,)", inner_mixed, N(2, 3, 4), N(4)),
    C("np.kron", "vectors", kron_vectors, N(2), N(3), numba=_G),
    C("np.kron", "matrices", kron_matrices, N(2, 3), N(2, 2)),
    C("np.kron", "a vector and a matrix", kron_mixed, N(3), N(2, 2)),
    C("np.cross", "3-vectors", cross_vectors, N(3), N(3), numba=_G),
    C("np.cross", "rows of 3-vectors", cross_rows, N(4, 3), N(4, 3)),
    C("np.cross", "rows and one vector", cross_broadcast, N(4, 3), N(3)),
    C("np.prod", "one zero", prod_zeros, Z(5, twice=False), numba=_G),
    C("np.prod", "axis=1, one or two zeros a row", prod_zeros_axis, Z(3, 4)),
    C("np.prod", "axis=0, keepdims, zeros", prod_zeros_keepdims, Z(3, 4)),
    C("np.tril", "k=0", tril_main, N(3, 3)),
    C("np.tril", "k=1, (3, 4)", tril_above, N(3, 4)),
    C("np.triu", "k=-1, (4, 3)", triu_below, N(4, 3)),
    C("np.triu", "a stack", triu_stack, N(2, 3, 3)),
    C("np.where", "mask, arrays", where_mask, M(3, 4), N(3, 4), N(4)),
    C("np.where", "mask, array, number", where_number, M(3, 4), N(3, 4)),
    C("np.select", "two conditions", select_two, M(3, 4), M(3, 4), N(3, 4), N(3, 4), numba=_G),
    C("np.select", "default=array", select_default, M(3, 4), M(4), N(3, 4), N(3, 4)),
    C("np.clip", "number bounds", clip_numbers, U(3, 4, avoid=(-0.5, 0.5))),
    C("np.clip", "array bounds", clip_arrays, U(3, 4, avoid=(-0.5, 0.5)), U(4, lo=-0.52, hi=-0.48, avoid=()),
      U(3, 1, lo=0.48, hi=0.52, avoid=())),
    C("np.squeeze", "axis=1", squeeze_axis, N(3, 1, 4)),
    C("np.squeeze", "axis=(0, 2)", squeeze_axes, N(1, 3, 1)),
    C("np.squeeze", "every length-1 axis", squeeze_all, N(1, 3, 1), refused=dict.fromkeys(MODES, _SQUEEZE)),
    C("np.expand_dims", "axis=0", expand_dims_first, N(3, 4)),
    C("np.expand_dims", "axis=-1", expand_dims_last, N(3, 4)),
    C("np.expand_dims", "axis=(0, 2)", expand_dims_axes, N(3, 4)),
    C("np.reshape", "(-1,)", reshape_flat, N(2, 3, 2)),
    C("np.reshape", "x.reshape(2, -1)", reshape_inferred, N(2, 3, 2)),
    C("np.ravel", "matrix", ravel_matrix, N(3, 4)),
    C("np.ravel", "of a transpose", ravel_transposed, N(3, 4)),
    C("np.take", "flattened", take_flat, N(3, 4), I(5, hi=12), numba=_G),
    C("np.take", "axis=0, (2, 2) positions", take_axis0, N(3, 4), I(2, 2)),
    C("np.take", "axis=1", take_axis1, N(3, 4), I(5, hi=4)),
    C("np.take", "axis=-1, rank 3", take_last, N(2, 3, 4), I(3, hi=4)),
    C("np.take", "one position, axis=1", take_number, N(3, 4)),
    C("np.take_along_axis", "axis=1, longer", take_along_rows, N(3, 4), I(3, 5, hi=4), numba=_G),
    C("np.take_along_axis", "axis=0, shorter", take_along_columns, N(3, 4), I(2, 4, hi=3)),
    C("np.pad", "1", pad_int, N(3, 4), numba=_G),
    C("np.pad", "(1, 2)", pad_pair, N(3, 4)),
    C("np.pad", "((1, 0), (2, 1))", pad_per_axis, N(3, 4)),
    C("np.pad", "2, constant_values=0.5", pad_value, N(2, 3)),
    C("np.pad", "mode='edge'", pad_edge, N(3, 4)),
    C("np.pad", "mode='reflect'", pad_reflect, N(4, 5)),
    C("np.pad", "mode='symmetric'", pad_symmetric, N(5)),
    C("np.pad", "mode='wrap'", pad_wrap, N(3, 4)),
    C("np.meshgrid", "xy", meshgrid_xy, N(3), N(4), numba=_G),
    C("np.meshgrid", "ij", meshgrid_ij, N(3), N(2)),
    C("np.meshgrid", "three vectors", meshgrid_three, N(2), N(3), N(2)),
    C("np.real", "of a complex array", complex_real, N(3, 4), N(3, 4)),
    C("np.imag", "of a complex array", complex_imag, N(3, 4), N(3, 4)),
    C("np.conj", "of a complex array", complex_conj, N(3, 4), N(3, 4)),
    C("np.abs", "of a complex array", complex_abs, N(3, 4), N(3, 4)),
    C("np.angle", "of a complex array", complex_angle, N(3, 4), S(3, 4), numba=_G),
    C("np.angle", "deg=True", complex_angle_degrees, N(3, 4), S(3, 4)),
]

# NumPy's functions written in NumPy (transpyle/twins), one table per family; their modules read this one's makers
from surface_order_statistics import CASES as _ORDER_STATISTICS  # noqa: E402
from surface_searching import CASES as _SEARCHING  # noqa: E402
from surface_constructions import CASES as _CONSTRUCTIONS  # noqa: E402
from surface_spectral import CASES as _SPECTRAL  # noqa: E402

CASES += _ORDER_STATISTICS + _SEARCHING + _CONSTRUCTIONS + _SPECTRAL


# ---- the coverage table --------------------------------------------------------------------------------
def _cell(cases, mode):
    """'ok' where every variant passes; else the counts of each outcome, with the error classes."""
    outcomes = [c.outcome(mode) for c in cases]
    if all(o == "ok" for o in outcomes):
        return "ok"
    parts = []
    ok = sum(o == "ok" for o in outcomes)
    if ok:
        parts.append(f"ok {ok}")
    for kind, label in (("refused", "refused: TranspileError"), ("fails", "fails: {}")):
        hits = [o[1] for o in outcomes if o != "ok" and o[0] == kind]
        names = sorted({label.format(h) for h in hits})
        parts += [f"{sum(label.format(h) == n for h in hits)} {n}" for n in names]
    return ", ".join(parts)


def coverage_table():
    """The text of docs/numpy-coverage.md, from ``CASES``."""
    functions = list(dict.fromkeys(c.function for c in CASES))
    rows = []
    for f in functions:
        cases = [c for c in CASES if c.function == f]
        numba = sorted({COLUMNS[m] for c in cases for m in c.numba}, key=list(COLUMNS.values()).index)
        variants = "; ".join(c.variant.replace("|", "\\|") for c in cases)
        rows.append(f"| `{f}` | {variants} | " + " | ".join(_cell(cases, m) for m in MODES) +
                    f" | {', '.join(numba) or '-'} |")
    totals = []
    for m in MODES:
        outcomes = [c.outcome(m) for c in CASES]
        ok = sum(o == "ok" for o in outcomes)
        refused = sum(o != "ok" and o[0] == "refused" for o in outcomes)
        fails = sum(o != "ok" and o[0] == "fails" for o in outcomes)
        totals.append(f"{COLUMNS[m]}: {ok} ok, {refused} refused, {fails} failing")
    notes = [f"- `{c.function}` ({c.variant}), {COLUMNS[m]}: " +
             (f"refused: {c.refused[m]}" if m in c.refused else f"fails ({c.fails[m][0].__name__}): {c.fails[m][1]}")
             for c in CASES for m in MODES if m in c.refused or m in c.fails]
    numba_checks = sum(len(c.numba) for c in CASES)
    return "\n".join([
        "# NumPy coverage",
        "",
        "Generated by `python tests/surface_programs.py --update` from the table that `tests/test_numpy_surface.py`",
        "runs (`tests/test_numpy_surface.py::test_coverage_table_is_current` fails when this file is stale). Each",
        "variant is a program `np.sum(w * f(...))` with a random weight `w`, checked at fresh random inputs on",
        "the numpy backend: value against NumPy, grad and jvp against finite differences, vmap by array lifting",
        "and by a loop against a loop of NumPy. \"ok\": every variant passes; \"refused\": the transform raises a",
        "clear `TranspileError` at the user's line (listed below); \"fails\": a known failure, run as a strict",
        "xfail. The last column lists the checks also run on the numba backend.",
        "",
        f"{len(functions)} functions, {len(CASES)} variants, {numba_checks} numba checks. " + "; ".join(totals) + ".",
        "",
        "| function | variants | " + " | ".join(COLUMNS[m] for m in MODES) + " | numba |",
        "|---|---|" + "---|" * len(MODES) + "---|",
        *rows,
        "",
        "## Refused and failing",
        "",
        *(notes or ["None."]),
        "",
    ])
