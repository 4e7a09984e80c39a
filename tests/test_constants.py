"""Values written into generated source (module constants, static arguments) keep exactly their
value: negative numbers under a power, -0.0, nan, infinities, complex numbers, big integers and
floats that must round-trip. Each is checked in jit against Python, and in grad against finite
differences."""
import math

import numpy as np
import pytest

import transpyle
from gradcheck import ALL_BACKENDS, check_grad

C = -2.0
NEG_INT = -3
Z = -0.0
NAN = float("nan")
NEG_INF = float("-inf")
K = -1.5 + 2.25j
BIG = 2 ** 70
TENTH = 0.1 + 0.2          # 0.30000000000000004: must not print as 0.3


def power_of_negative(x):
    return C ** 2 * x + NEG_INT ** 3 * x + TENTH * x


def negative_zero(x):
    return np.arctan2(Z, -1.0) * x          # -pi for -0.0, +pi for +0.0


def special_floats(x):
    return x * (1.0 if NAN != NAN else 5.0) + np.exp(NEG_INF) + min(x, -NEG_INF)


def complex_constant(x):
    return np.real(K * x * x) + np.imag(K) * x


def big_integer(x):
    return x * (BIG / 2 ** 69)


CASES = [power_of_negative, negative_zero, special_floats, complex_constant]


@pytest.mark.parametrize("backend", ALL_BACKENDS)
@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_jit_and_grad_keep_the_value(fn, backend):
    for x in (0.7, -1.3):
        assert transpyle.jit(fn, backend=backend)(x) == pytest.approx(fn(x), rel=1e-15, abs=0)
        check_grad(fn, (x,), backend=backend)


def test_big_integer_and_round_trip_on_numpy():
    assert transpyle.jit(big_integer, backend="numpy")(1.5) == big_integer(1.5)
    check_grad(big_integer, (1.5,), backend="numpy")


@pytest.mark.parametrize("backend", ALL_BACKENDS)
@pytest.mark.parametrize("value", [-2.0, -0.0, -3, 2.5, float("inf"), 1e-300, 0.1 + 0.2])
def test_static_argument_keeps_the_value(value, backend):
    def f(s, x):
        return s ** 2.0 * x + s * x
    got = transpyle.jit(f, static_argnums=0, backend=backend)(value, 1.5)
    want = f(value, 1.5)
    assert got == want or (math.isnan(got) and math.isnan(want))
