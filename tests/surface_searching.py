"""Entries of the NumPy surface table (tests/surface_programs.py) for NumPy's searching, binning and the
elementwise functions written in NumPy (transpyle/twins/interpolation.py, elementwise.py; np.searchsorted and
np.signbit are primitives, rules/searching.py): one program per function and variant, `np.sum(w * f(...))`
with a random weight. Points are drawn away from knots, bin edges and jumps, where finite differences mean
nothing; the values there are checked in tests/test_twins_searching.py."""
import numpy as np

from gradcheck import distinct, uniform
from surface_programs import MODES, C, D, I, M, N, P, S, Spliced, U, Z, apart, _G  # noqa: F401

CASES = []


# ---- makers ----------------------------------------------------------------------------------------------
def knots_points(n, shape, descending=False, lo=-2.0, hi=2.0):
    """Points of ``shape`` (some outside the knots), then ``n`` increasing knots in [-1.5, 1.5], the points at
    least 0.05 from every knot."""
    def make(rng):
        knots = distinct(rng, (n,))
        knots.sort()
        points = uniform(rng, shape, lo, hi, avoid=tuple(knots))
        return points, (knots[::-1].copy() if descending else knots)
    return Spliced(make)


def sorted_ints(n, hi=5):
    """A sorted vector of integers in [0, hi), with repeats."""
    return lambda rng: np.sort(rng.integers(0, hi, n))


def members(shape, pool, hi=6):
    """Integer test elements (``pool`` of them in [0, hi)), then integer elements of ``shape`` in [0, hi), many
    of them members. (Float members are checked in tests/test_twins_searching.py: any perturbation takes a
    float off its equal, so finite differences of them mean nothing.)"""
    def make(rng):
        return rng.integers(0, hi, shape), rng.integers(0, hi, pool)
    return Spliced(make)


def covering(n, hi):
    """``n`` integers in [0, hi), hi - 1 among them (np.bincount's length is then hi for every example)."""
    def make(rng):
        x = rng.integers(0, hi, n)
        x[rng.integers(n)] = hi - 1
        return x
    return make


def magnitudes(*shape, lo, hi):
    """Values with lo <= |v| <= hi, of random signs."""
    return lambda rng: rng.uniform(lo, hi, shape) * rng.choice([-1.0, 1.0], shape)


def off_integers(*shape):
    """Values in [-3, 3] at least 0.05 from every integer (jumps of trunc and floor)."""
    return U(*shape, lo=-3.0, hi=3.0, avoid=tuple(float(k) for k in range(-3, 4)))


# ---- np.searchsorted --------------------------------------------------------------------------------------
def searchsorted_left(v, a, w):
    return np.sum(w * np.searchsorted(a, v))


def searchsorted_right(v, a, w):
    return np.sum(w * np.searchsorted(a, v, side="right"))


def searchsorted_number(v, a, w):
    return np.sum(w * np.searchsorted(a, v[1], "left"))


def searchsorted_ints(a, v, w):
    return np.sum(w * np.searchsorted(a, v, side="right"))


def searchsorted_sorter(v, a, w):
    return np.sum(w * np.searchsorted(a, v, sorter=np.argsort(a)))


CASES += [
    C("np.searchsorted", "side='left', (3,) values", searchsorted_left, knots_points(6, (3,)), numba=_G),
    C("np.searchsorted", "side='right', (2, 3, 2) values", searchsorted_right, knots_points(5, (2, 3, 2))),
    C("np.searchsorted", "a number, side positional", searchsorted_number, knots_points(4, (3,)), weight=()),
    C("np.searchsorted", "integers with repeats, side='right'", searchsorted_ints, sorted_ints(8), I(2, 3, hi=6),
      numba=_G),
    C("np.searchsorted", "sorter= (refused)", searchsorted_sorter, knots_points(4, (3,)),
      refused={m: "sorter= is not supported" for m in MODES}),
]


# ---- np.interp --------------------------------------------------------------------------------------------
def interp_vector(x, xp, fp, w):
    return np.sum(w * np.interp(x, xp, fp))


def interp_number(x, xp, fp, w):
    return np.sum(w * np.interp(x[2], xp, fp))


def interp_left_right(x, xp, fp, w):
    return np.sum(w * np.interp(x, xp, fp, left=0.5, right=2.0))


def interp_computed_ends(x, xp, fp, w):
    return np.sum(w * np.interp(x, xp, fp, np.sum(fp), right=fp[1] * fp[2]))


def interp_negative_left(x, xp, fp, w):
    return np.sum(w * np.interp(x, xp, fp, left=-1.0))


def interp_period(x, xp, fp, w):
    return np.sum(w * np.interp(x, xp, fp, period=2.0))


CASES += [
    C("np.interp", "(5,) points, 6 knots", interp_vector, knots_points(6, (5,)), N(6), numba=_G),
    C("np.interp", "(2, 3, 2) points", interp_vector, knots_points(5, (2, 3, 2)), N(5)),
    C("np.interp", "a number", interp_number, knots_points(4, (3,)), N(4), weight=(), numba=_G),
    C("np.interp", "two knots, (3, 4) points", interp_vector, knots_points(2, (3, 4)), N(2)),
    C("np.interp", "left=, right= numbers", interp_left_right, knots_points(5, (4, 3)), N(5)),
    C("np.interp", "left, right= computed", interp_computed_ends, knots_points(5, (6,)), N(5), numba=_G),
    C("np.interp", "left=-1.0", interp_negative_left, knots_points(5, (6,)), N(5)),
    C("np.interp", "period= (refused)", interp_period, knots_points(5, (6,)), N(5),
      refused={m: "period= is not supported" for m in MODES}),
]


# ---- np.digitize ------------------------------------------------------------------------------------------
def digitize_default(x, bins, w):
    return np.sum(w * np.digitize(x, bins))


def digitize_number(x, bins, w):
    return np.sum(w * np.digitize(x[0], bins))


def digitize_right(x, bins, w):
    return np.sum(w * np.digitize(x, bins, right=True))


def digitize_ints(x, bins, w):
    return np.sum(w * np.digitize(x, bins, True))


def digitize_variable_right(x, bins, w):
    return np.sum(w * np.digitize(x, bins, right=bins[0] > 0.0))


CASES += [
    C("np.digitize", "increasing bins, (2, 3)", digitize_default, knots_points(5, (2, 3)), numba=_G),
    C("np.digitize", "decreasing bins, right=True, (4,)", digitize_right, knots_points(5, (4,), descending=True)),
    C("np.digitize", "decreasing bins, a number", digitize_number, knots_points(4, (2,), descending=True),
      weight=()),
    C("np.digitize", "increasing bins, right=True, rank 3", digitize_right, knots_points(4, (2, 2, 3)), numba=_G),
    C("np.digitize", "integers with repeats, right positional", digitize_ints, I(3, 4, hi=6), sorted_ints(6)),
    C("np.digitize", "right= computed (refused)", digitize_variable_right, knots_points(4, (3,)),
      refused={m: "right=a value computed at run time is not supported" for m in MODES}),
]


# ---- np.isin ----------------------------------------------------------------------------------------------
def isin_default(element, test, w):
    return np.sum(w * np.isin(element, test))


def isin_invert(element, test, w):
    return np.sum(w * np.isin(element, test, assume_unique=True, invert=True))


def isin_matrix_test(element, test, w):
    return np.sum(w * np.isin(element, np.reshape(test, (2, 3)), kind="sort"))


def isin_number(x, test, w):
    return np.sum(w * np.isin(2, test)) * x[0]


CASES += [
    C("np.isin", "(3, 4) in (5,)", isin_default, members((3, 4), 5), numba=_G),
    C("np.isin", "invert=True, assume_unique=True", isin_invert, members((6,), 4)),
    C("np.isin", "test elements a matrix, kind=", isin_matrix_test, members((2, 2, 2), 6)),
    C("np.isin", "floats (no member)", isin_default, N(3, 4), N(3)),
    C("np.isin", "a number in integers", isin_number, N(2), I(4, hi=4), weight=()),
]


# ---- np.bincount ------------------------------------------------------------------------------------------
def bincount_counts(x, w):
    return np.sum(w * np.bincount(x, minlength=8))


def bincount_weights(x, v, w):
    return np.sum(w * np.bincount(x, v))


def bincount_weights_minlength(x, v, w):
    return np.sum(w * np.bincount(x, weights=v * v, minlength=7))


CASES += [
    C("np.bincount", "minlength=8", bincount_counts, I(9, hi=5)),
    C("np.bincount", "weights", bincount_weights, covering(9, 4), N(9), numba=_G),
    C("np.bincount", "weights, minlength=7", bincount_weights_minlength, I(6, hi=5), N(6)),
]


# ---- elementwise --------------------------------------------------------------------------------------------
def sinc(x, w):
    return np.sum(w * np.sinc(x))


def sinc_number(x, w):
    return np.sum(w * np.sinc(x[1]))


def heaviside(x1, x2, w):
    return np.sum(w * np.heaviside(x1, x2))


def heaviside_number(x1, w):
    return np.sum(w * np.heaviside(x1, 0.5))


def copysign(x1, x2, w):
    return np.sum(w * np.copysign(x1, x2))


def copysign_number(x1, w):
    return np.sum(w * np.copysign(x1, -1.0))


def signbit(x, w):
    return np.sum(w * np.signbit(x))


def fmod(x1, x2, w):
    return np.sum(w * np.fmod(x1, x2))


def fmod_number(x1, w):
    return np.sum(w * np.fmod(x1, 0.7))


def divmod_pair(x1, x2, w):
    q, r = np.divmod(x1, x2)
    return np.sum(w * (q + 3.0 * r))


def modf_pair(x, w):
    part, whole = np.modf(x)
    return np.sum(w * (2.0 * part + whole))


def modf_number(x, w):
    part, whole = np.modf(x[0])
    return np.sum(w * (2.0 * part + whole))


def float_power(x1, x2, w):
    return np.sum(w * np.float_power(x1, x2))


def float_power_number(x1, w):
    return np.sum(w * np.float_power(x1, 2.5))


def deg2rad(x, w):
    return np.sum(w * np.deg2rad(x))


def radians(x, w):
    return np.sum(w * np.radians(x[0]))


def rad2deg(x, w):
    return np.sum(w * np.rad2deg(x))


def degrees(x, w):
    return np.sum(w * np.degrees(x))


def nan_to_num(x, w):
    return np.sum(w * np.nan_to_num(x))


def nan_to_num_values(x, w):
    return np.sum(w * np.nan_to_num(x, copy=False, nan=-2.0, posinf=3.0, neginf=-4.0))


def nan_to_num_computed(x, w):
    return np.sum(w * np.nan_to_num(x, nan=x[0], posinf=np.sum(x)))


_NO_SLOPE = (-2.0, -1.0, 0.0, 1.0, 2.0)
CASES += [
    C("np.sinc", "(2, 3), across 0", sinc, U(2, 3, lo=-2.5, hi=2.5, avoid=()), numba=_G),
    C("np.sinc", "near 0 (the series)", sinc, U(5, lo=-0.01, hi=0.01, avoid=())),
    C("np.sinc", "a number", sinc_number, U(2, lo=0.1, hi=3.0), weight=()),
    C("np.sinc", "integers", sinc, I(2, 2, hi=4)),
    C("np.heaviside", "(3, 4), (4,)", heaviside, S(3, 4), N(4)),
    C("np.heaviside", "a number at the step", heaviside_number, S(2, 2), numba=_G),
    C("np.copysign", "(3, 4), (3, 4)", copysign, S(3, 4), N(3, 4), numba=_G),
    C("np.copysign", "(2, 3), a number", copysign_number, S(2, 3)),
    C("np.signbit", "(2, 3, 2)", signbit, N(2, 3, 2), numba=_G),
    C("np.signbit", "integers", signbit, lambda rng: rng.integers(-3, 3, (4,))),
    C("np.fmod", "|x1| / |x2| in (1, 2), (2, 3)", fmod, magnitudes(2, 3, lo=2.1, hi=2.9),
      magnitudes(2, 3, lo=1.5, hi=2.0), numba=_G),
    C("np.fmod", "by a number", fmod_number, U(3, 2, lo=-3.0, hi=3.0, avoid=tuple(0.7 * k for k in range(-4, 5)))),
    C("np.fmod", "integers", fmod, lambda rng: rng.integers(-9, 9, (5,)), lambda rng: rng.integers(1, 4, (5,))),
    C("np.divmod", "(2, 3) by (3,)", divmod_pair, magnitudes(2, 3, lo=2.1, hi=2.9), magnitudes(3, lo=1.5, hi=2.0),
      numba=_G),
    C("np.divmod", "integers", divmod_pair, lambda rng: rng.integers(-9, 9, (5,)), lambda rng: rng.integers(1, 4, (5,))),
    C("np.modf", "(3, 4)", modf_pair, off_integers(3, 4), numba=_G),
    C("np.modf", "a number", modf_number, off_integers(2), weight=()),
    C("np.float_power", "(2, 3) ** (3,)", float_power, P(2, 3), N(3), numba=_G),
    C("np.float_power", "** 2.5", float_power_number, P(4)),
    C("np.float_power", "integers, negative exponents", float_power, lambda rng: rng.integers(1, 4, (3,)),
      lambda rng: rng.integers(-3, 0, (3,))),
    C("np.deg2rad", "(2, 3)", deg2rad, N(2, 3)),
    C("np.radians", "a number", radians, N(2), weight=()),
    C("np.rad2deg", "(3,)", rad2deg, N(3), numba=_G),
    C("np.degrees", "(2, 2, 2)", degrees, N(2, 2, 2)),
    C("np.nan_to_num", "finite values", nan_to_num, N(3, 2)),
    C("np.nan_to_num", "nan=-2.0, posinf=, neginf=-4.0, copy=", nan_to_num_values, N(2, 3),
      numba=_G),
    C("np.nan_to_num", "nan=, posinf= computed", nan_to_num_computed, N(4)),
]
