"""Strong zeros (transpyle/rules/strong_zeros.py): where the output does not depend on a value at which a
rule's derivative is infinite (the zero diagonal of pairwise distances, a branch of np.where not taken,
a clipped input), grad and jvp are finite and match finite differences on both backends, as Enzyme's
strong zeros give; TRANSPYLE_STRONG_ZEROS=0 gives JAX's nan instead."""
import numpy as np
import pytest

import transpyle

from gradcheck import backend_cases, check_grad, check_jvp


def pairwise_energy(x):
    dx = x[:, None] - x[None, :]
    return np.sum(np.triu(np.sqrt(dx ** 2), 1))


def planar_distances(p):
    d = p[:, None, :] - p[None, :, :]
    r = np.sqrt(np.sum(d * d, axis=-1))
    return np.sum(np.triu(1.0 / (1.0 + r), 1))


def power_half(x):
    dx = x[:, None] - x[None, :]
    return np.sum(np.tril((dx * dx) ** 0.5, -1) * 0.5)


def hypot_pairs(p):
    dx = p[:, 0][:, None] - p[:, 0][None, :]
    dy = p[:, 1][:, None] - p[:, 1][None, :]
    return np.sum(np.triu(np.hypot(dx, dy), 1))


def sqrt_of_the_positive_part(x):
    # np.maximum gives the entries below 0.5 a zero cotangent, at which sqrt is infinitely steep
    return np.sum(np.sqrt(np.maximum(x - 0.5, 0.0)) * x)


def arcsin_clipped(x):
    return np.sum(np.arcsin(np.minimum(x, 1.0)) ** 2)


def sqrt_in_the_branch_not_taken(x):
    # the branch not taken is nan below 0.5; np.where passes it a zero cotangent
    return np.sum(np.where(x > 0.5, np.sqrt(x - 0.5), x * x))


def numbers_cut_off(x):
    # numbers, not arrays: the guard is a conditional expression (np.where of numbers is a 0-d array)
    s = x[0] - 0.5
    return np.sqrt(np.maximum(s, 0.0)) * x[1] + np.arcsin(min(x[2], 1.0)) + x[1]


def _away_from(values, rng, shape, lo, hi, gap=0.05):
    x = rng.uniform(lo, hi, size=shape)
    for v in values:
        x = np.where(np.abs(x - v) < gap, x + 2 * gap, x)
    return x


INPUTS = {
    pairwise_energy: lambda rng: rng.normal(size=5),
    planar_distances: lambda rng: rng.normal(size=(4, 2)),
    power_half: lambda rng: rng.normal(size=5),
    hypot_pairs: lambda rng: rng.normal(size=(4, 2)),
    sqrt_of_the_positive_part: lambda rng: _away_from([0.5], rng, 7, 0.0, 1.0),
    arcsin_clipped: lambda rng: _away_from([1.0], rng, 7, 0.3, 1.6),
    numbers_cut_off: lambda rng: np.array([rng.uniform(0.0, 0.4), rng.normal(), rng.uniform(1.2, 2.0)]),
    sqrt_in_the_branch_not_taken: lambda rng: _away_from([0.5], rng, 7, 0.0, 1.0),
}
PARAMS = backend_cases([(f.__name__, (f,), True) for f in INPUTS])


@pytest.mark.parametrize("f, backend", PARAMS)
def test_grad_is_finite_and_matches_finite_differences(f, backend, rng):
    x = INPUTS[f](rng)
    assert np.all(np.isfinite(transpyle.grad(f, backend=backend)(x)))
    check_grad(f, (x,), backend=backend, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f, backend", PARAMS)
def test_jvp_matches_finite_differences(f, backend, rng):
    check_jvp(f, (INPUTS[f](rng),), 0, rng, backend=backend, rtol=1e-5, atol=1e-6)


def test_a_nonzero_cotangent_at_an_infinite_slope_stays_infinite():
    """Only zero cotangents are strong: sqrt's slope at 0 still reaches the gradient where it is used."""
    g = transpyle.grad(lambda_free_sqrt)(np.array([0.0, 1.0, 4.0]))
    assert g[0] == np.inf and g[1] == 0.5 and g[2] == 0.25


def lambda_free_sqrt(x):
    return np.sum(np.sqrt(x))


def test_turned_off_it_gives_nan_as_jax_does(monkeypatch):
    monkeypatch.setenv("TRANSPYLE_STRONG_ZEROS", "0")
    assert np.all(np.isnan(transpyle.grad(pairwise_energy, backend="numpy")(np.arange(4.0))))
    monkeypatch.delenv("TRANSPYLE_STRONG_ZEROS")
    assert np.all(np.isfinite(transpyle.grad(pairwise_energy, backend="numpy")(np.arange(4.0))))


def test_generated_code_shows_the_guard():
    """The guard is a select per element, in the element loop where the statement has one."""
    text = transpyle.show(pairwise_energy, mode="grad", kinds=["f8[:]"])
    assert "== 0 else" in text or "np.where(b" in text


def test_the_option_on_each_transform_overrides_the_environment(monkeypatch):
    x = np.arange(4.0)
    assert np.all(np.isnan(transpyle.grad(pairwise_energy, backend="numpy", strong_zeros=False)(x)))
    assert np.all(np.isnan(transpyle.vjp(pairwise_energy, x, backend="numpy", strong_zeros=False)[1](1.0)[0]))
    y = np.array([0.2, 0.9])
    assert np.isnan(transpyle.jvp(sqrt_of_the_positive_part, (y,), (np.ones(2),), backend="numpy",
                                  strong_zeros=False)[1])
    assert np.all(np.isnan(transpyle.hessian(pairwise_energy, backend="numpy", strong_zeros=False)(x)))
    monkeypatch.setenv("TRANSPYLE_STRONG_ZEROS", "0")
    assert np.all(np.isfinite(transpyle.grad(pairwise_energy, backend="numpy", strong_zeros=True)(x)))
    assert np.isfinite(transpyle.jvp(sqrt_of_the_positive_part, (y,), (np.ones(2),), backend="numpy",
                                     strong_zeros=True)[1])
    assert np.all(np.isfinite(transpyle.jacrev(pairwise_energy, backend="numpy", strong_zeros=True)(x)))
