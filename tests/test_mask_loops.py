"""Masks in element loops (``element_loops``, ``element_forms.masks_as_numbers``): an array of bools made by a
comparison (``m = r * d > 0``) is filled by a loop over its elements, and masks are read element by element
where NumPy's arrays of bools mean what each bool means as a number (selected by ``np.where``, compared,
negated logically, multiplied into numbers), so a stencil with a limiter (``np.where(r * d > 0, 0, r)``) is
loops in its primal and adjoint sweeps alike. Bools added to or multiplied by bools are NumPy's logical or and
and (``True + True`` is ``True`` there, 2 for numbers), written so. Gradients are checked against central differences on
both backends at several sizes, values of ``jit`` against NumPy.
"""
import numpy as np
import pytest

import transpyle
from gradcheck import ALL_BACKENDS, check_grads_at_sizes, sized_cases


def limited_flux(u, c):
    d = u[1:] - u[:-1]
    flux = np.where(d * u[1:] > 0, 0, d)
    return np.sum((u[1:-1] - c * (flux[1:] - flux[:-1])) ** 2)


def kept_mask(x, y):
    m = x * y > 0.1
    z = np.where(m, x * 2.0, y) + m * x
    return np.sum(z * z) + np.sum(np.logical_not(m) * y)


def masks_combined(x, y):
    a = x > 0
    b = y < 0.5
    both = np.logical_and(a, b)
    either = a + b                  # NumPy's or: stays an array operation
    return np.sum(np.where(both, x * y, 0.0)) + np.sum(either * x) + np.sum(np.where(a == b, y, x) ** 2)


def relu_layers(x, w):
    h = np.maximum(x @ w, 0)
    g = (h > 0) * h + 0.1 * (h <= 0) * (x @ w)
    return np.sum(g * g)


CASES = [
    (limited_flux, lambda r, n: (r.normal(size=n + 3), 0.3)),
    (kept_mask, lambda r, n: (r.normal(size=(n, 3)), r.normal(size=(n, 3)))),
    (masks_combined, lambda r, n: (r.normal(size=n + 1), r.normal(size=n + 1))),
    (relu_layers, lambda r, n: (r.normal(size=(n, 4)), r.normal(size=(4, 3)))),
]


@pytest.mark.parametrize("backend", ALL_BACKENDS)
@pytest.mark.parametrize("fn, make", sized_cases(CASES))
def test_gradients_match_finite_differences(fn, make, backend, rng):
    check_grads_at_sizes(fn, make, (1, 3, 6), rng, backend)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
@pytest.mark.parametrize("fn, make", sized_cases(CASES))
def test_jit_matches_numpy(fn, make, backend, rng):
    args = make(rng, 5)
    assert np.allclose(transpyle.jit(fn, backend=backend)(*args), fn(*args), rtol=1e-12, atol=1e-12)


def test_a_limiter_is_loops_in_both_sweeps():
    text = transpyle.show(transpyle.grad(limited_flux), args=(np.ones(9), 0.3))
    code = "\n".join(line for line in text.split("def limited_flux_grad")[1].splitlines()
                     if not line.strip().startswith("#"))
    assert "np.where" not in code and "np.empty(d.shape, np.bool_)" in code


def test_bools_added_are_numpys_or():
    text = transpyle.show(transpyle.jit(masks_combined), args=(np.ones(5), np.ones(5)))
    assert "np.logical_or(a" in text and "a + b" not in text
