"""Forward mode (``transpyle.jvp``, ``transpyle.linearize``): every rule of the subset and every
control-flow form, against directional central differences on fresh random inputs. The functions
are the ones the reverse-mode tests use, so both modes are checked on the same programs.
"""
import math

import numpy as np
import pytest

import transpyle
from gradcheck import ALL_BACKENDS, backend_cases, check_jvp
from test_control_flow import CASES as CONTROL_FLOW_CASES
from test_rules import SPECS


@pytest.mark.parametrize("spec, backend", backend_cases((s.name, (s,), s.numba) for s in SPECS))
def test_rule_forward(spec, backend, rng):
    check_jvp(spec.fn, spec.make(rng), spec.argnums, rng, backend=backend)


@pytest.mark.parametrize("case, backend", backend_cases((c[0], (c,), c[4]) for c in CONTROL_FLOW_CASES))
def test_control_flow_forward(case, backend, rng):
    _, fn, make, argnums = case[:4]
    check_jvp(fn, make(rng), argnums, rng, backend=backend)


def vector_field(x, k):
    y = np.empty_like(x)
    for i in range(x.shape[0]):
        y[i] = k * math.sin(x[i]) + x[(i + 1) % x.shape[0]] ** 2
    return y, np.sum(y)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_tuple_output_and_in_place_writes(backend, rng):
    check_jvp(vector_field, (rng.normal(size=5), 0.7), (0, 1), rng, backend=backend)


def test_closed_form():
    x = np.array([0.3, -1.2, 2.0])
    out, tangent = transpyle.jvp(lambda v: np.sin(v) * v, (x,), (np.ones(3),), backend="numpy")
    np.testing.assert_allclose(out, np.sin(x) * x, rtol=1e-15)
    np.testing.assert_allclose(tangent, np.cos(x) * x + np.sin(x), rtol=1e-14)


def test_has_aux_and_integer_arguments(rng):
    def f(x, n):
        s = 0.0
        for i in range(n):
            s += x[i] ** 3
        return s, n * 2

    x = rng.normal(size=4)
    out, tangent, aux = transpyle.jvp(f, (x, 3), (np.ones(4), None), has_aux=True, backend="numpy")
    assert aux == 6
    assert tangent == pytest.approx(float(np.sum(3 * x[:3] ** 2)), rel=1e-12)


def test_linearize_reuses_the_point(rng):
    x = rng.normal(size=3)
    out, f_jvp = transpyle.linearize(lambda v: np.sum(np.exp(v)), x, backend="numpy")
    assert out == pytest.approx(float(np.sum(np.exp(x))))
    t1, t2 = rng.normal(size=3), rng.normal(size=3)
    assert f_jvp(t1) + f_jvp(t2) == pytest.approx(f_jvp(t1 + t2), rel=1e-12)
    assert f_jvp(t1) == pytest.approx(float(np.dot(np.exp(x), t1)), rel=1e-12)


def test_forward_mode_needs_no_tape():
    def long_loop(x, n):
        s = x
        for i in range(n):
            s = math.sin(s) + 0.5 * s
        return s
    text = transpyle.show(long_loop, mode="jvp", args=(0.3, 10))
    assert "_tape" not in text and "rt.push" not in text and "rt.reserve" not in text


def test_wrong_tangent_shape():
    with pytest.raises(transpyle.TranspileError, match="shape"):
        transpyle.jvp(lambda v: np.sum(v), (np.ones(3),), (np.ones(2),), backend="numpy")
