"""Branches decided by constants: a helper's flag bound to True, 1, None or a string at the call, a
module constant, a literal test. The branch taken is inlined and the others dropped, in every transform."""
import numpy as np
import pytest

import transpyle
from gradcheck import assert_matches_fd

DEBUG = False


def _activation(x, approximate=True):
    if approximate:
        return np.tanh(x)
    return np.sin(x)


def _scaled(x, mode, b=None):
    if mode:
        x = x * x
    if b is None:
        return x
    return x * b


def _repeat(x, times):
    while times:            # a flag bound to False at the call: the loop never runs
        x = x * 2.0
    return x


def flags_of_helpers(x):
    return np.sum(_activation(x) + _activation(x, False) + _scaled(x, 1) + _scaled(x, 0, x) + _repeat(x, False))


def literal_tests(x):
    if True:
        y = x * 2.0
    if DEBUG:
        y = y * 3.0
    while False:
        y = y + 1.0
    return np.sum(y * x)


def _expected_flags(x):
    return np.tanh(x) + np.sin(x) + x * x + x * x + x


@pytest.mark.parametrize("fun", [flags_of_helpers, literal_tests])
def test_grad_matches_finite_differences(fun, rng):
    x = rng.uniform(0.2, 1.0, size=4)
    assert_matches_fd(transpyle.grad(fun, backend="numpy")(x), fun, (x,), 0)


def test_values_in_jit_jvp_and_vmap(rng):
    x = rng.uniform(0.2, 1.0, size=4)
    want = np.sum(_expected_flags(x))
    assert transpyle.jit(flags_of_helpers, backend="numpy")(x) == pytest.approx(want, rel=1e-13)
    assert transpyle.jvp(flags_of_helpers, (x,), (np.ones(4),), backend="numpy")[0] == pytest.approx(want, rel=1e-13)
    batch = np.stack([x, 2.0 * x])
    for strategy in ("loop", "array"):
        got = transpyle.vmap(flags_of_helpers, backend="numpy", strategy=strategy)(batch)
        np.testing.assert_allclose(got, [want, np.sum(_expected_flags(2.0 * x))], rtol=1e-13)


def test_a_decided_branch_leaves_no_test_in_the_generated_code():
    text = transpyle.show(flags_of_helpers, mode="grad", kinds=("f8[:]",))
    assert "if True" not in text and "if 1" not in text and "while False" not in text
