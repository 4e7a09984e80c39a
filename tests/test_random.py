"""transpyle.random: Threefry keys and draws. Known answers of the generator, statistics of each
distribution, independence of split keys, identical bits eagerly and in transformed code on both
backends, and use inside grad and vmap.

The statistical checks use fixed keys: the generator is deterministic, so each check is a fact
about these numbers (a fresh key per run would make them fail now and then by design)."""
import numba
import numpy as np
import pytest
from scipy import stats

import transpyle
from gradcheck import ALL_BACKENDS
from transpyle import random
from transpyle import random as tr
from transpyle import runtime as rt
from transpyle.runtime import random_bits

N = 200_000


# ---- the generator ------------------------------------------------------------------------------
def test_threefry_known_answers():
    # Random123's known-answer vectors for threefry2x32_20: (key, counter) -> output
    cases = [((0, 0), (0, 0), (0x6B200159, 0x99BA4EFE)),
             ((0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF), (0x1CB996FC, 0xBB002BE7)),
             ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0))]
    for (k0, k1), (x0, x1), expected in cases:
        assert tuple(rt.threefry2x32(k0, k1, x0, x1)) == expected
        arrays = rt.threefry2x32(k0, k1, np.array([x0, x0], np.int64), np.array([x1, x1], np.int64))
        assert [int(a[1]) for a in arrays] == list(expected)


def test_key_layout():
    assert random.PRNGKey is random.key
    k = random.key(42)
    assert k.dtype == np.uint32 and k.shape == (2,) and k.tolist() == [0, 42]
    assert random.key(2 ** 40 + 5).tolist() == [256, 5]
    assert random.key(-1).tolist() == [2 ** 32 - 1, 2 ** 32 - 1]
    assert random.key(np.int64(7)).tolist() == [0, 7]


def test_public_functions_are_the_runtime_primitives():
    # one implementation: the eager functions are what transformed code calls
    assert random.normal is rt.random_normal and tr.split is rt.random_split


# ---- distributions ------------------------------------------------------------------------------
def test_uniform_moments_range_and_ks():
    u = random.uniform(random.key(0), (N,))
    assert u.dtype == np.float64 and u.shape == (N,)
    assert 0.0 <= u.min() and u.max() < 1.0
    assert abs(u.mean() - 0.5) < 5 * np.sqrt(1 / 12 / N)
    assert abs(u.var() - 1 / 12) < 5 * np.sqrt(1 / 180 / N)
    assert stats.kstest(u, "uniform").pvalue > 1e-3


def test_uniform_float32_and_bounds():
    u = random.uniform(random.key(1), (1000, 200), np.float32)
    assert u.dtype == np.float32 and u.shape == (1000, 200)
    assert 0.0 <= u.min() and u.max() < 1.0
    assert np.all(u * 2 ** 23 == np.floor(u * 2 ** 23))           # 23 random bits, exact
    v = random.uniform(random.key(2), (N,), minval=-3.0, maxval=5.0)
    assert -3.0 <= v.min() and v.max() < 5.0
    assert abs(v.mean() - 1.0) < 5 * 8 * np.sqrt(1 / 12 / N)
    scalar = random.uniform(random.key(3))
    assert np.shape(scalar) == () and 0.0 <= scalar < 1.0


@pytest.mark.parametrize("seed", [0, 12345])
def test_normal_moments_and_ks(seed):
    z = random.normal(random.key(seed), (N,))
    assert z.dtype == np.float64
    assert abs(z.mean()) < 5 / np.sqrt(N)
    assert abs(z.var() - 1.0) < 5 * np.sqrt(2 / N)
    assert abs(stats.skew(z)) < 5 * np.sqrt(6 / N)
    assert stats.kstest(z, "norm").pvalue > 1e-3
    assert np.all(np.isfinite(z)) and np.abs(z).max() < 8.3      # |z| <= 8.3 for 52-bit uniforms


def test_normal_float32_is_the_float64_draw_rounded():
    k = random.key(5)
    z32 = random.normal(k, (4, 5), dtype=np.float32)
    assert z32.dtype == np.float32
    np.testing.assert_array_equal(z32, random.normal(k, (4, 5)).astype(np.float32))
    assert np.shape(random.normal(k)) == ()


def test_normal_quantile_accuracy():
    p = np.concatenate([np.linspace(1e-12, 1 - 1e-12, 20001), 2.0 ** -np.arange(1, 53)])
    exact = stats.norm.ppf(p)
    assert np.max(np.abs(random_bits._normal_quantile(p) - exact) / np.maximum(1.0, np.abs(exact))) < 1e-14
    x = np.exp(-np.linspace(0.0, 43.0, 10001))
    np.testing.assert_allclose(random_bits._log(x), np.log(x), rtol=1e-15, atol=1e-15)


def test_bernoulli_frequency():
    b = random.bernoulli(random.key(6), 0.3, (N,))
    assert b.dtype == np.bool_ and b.shape == (N,)
    assert abs(b.mean() - 0.3) < 5 * np.sqrt(0.3 * 0.7 / N)
    p = np.array([0.1, 0.5, 0.9])
    many = random.bernoulli(random.key(7), p, (N // 10, 3))
    np.testing.assert_allclose(many.mean(axis=0), p, atol=5 * np.sqrt(0.25 / (N // 10)))
    assert random.bernoulli(random.key(8), p).shape == (3,)              # shape from p
    assert random.bernoulli(random.key(8), 1.0, (5,)).all()
    assert not random.bernoulli(random.key(8), 0.0, (5,)).any()


def test_randint_range_and_uniformity():
    r = random.randint(random.key(9), (N,), -3, 7)
    assert r.dtype == np.int64 and r.min() == -3 and r.max() == 6
    counts = np.bincount(r + 3, minlength=10)
    assert stats.chisquare(counts).pvalue > 1e-3
    assert random.randint(random.key(9), (2, 3), 0, 1).tolist() == [[0] * 3] * 2


def test_permutation():
    k = random.key(10)
    p = random.permutation(k, 1000)
    assert p.dtype == np.int64 and sorted(p.tolist()) == list(range(1000))
    assert not np.array_equal(p, np.arange(1000))
    x = np.arange(30.0).reshape(10, 3)
    shuffled = random.permutation(k, x)
    np.testing.assert_array_equal(shuffled, x[random.permutation(k, 10)])
    assert not np.shares_memory(shuffled, x)
    # every position is equally likely to hold 0: first positions of 0 over many keys
    firsts = [int(np.argmin(random.permutation(random.key(s), 4))) for s in range(2000)]
    assert stats.chisquare(np.bincount(firsts, minlength=4)).pvalue > 1e-3


# ---- keys ---------------------------------------------------------------------------------------
def test_split_and_fold_in_give_distinct_keys():
    k = random.key(11)
    ks = random.split(k, 5)
    assert ks.dtype == np.uint32 and ks.shape == (5, 2)
    rows = {tuple(r) for r in ks.tolist()}
    assert len(rows) == 5 and tuple(k.tolist()) not in rows
    assert random.split(k).shape == (2, 2)
    folded = [tuple(random.fold_in(k, i).tolist()) for i in range(50)]
    assert len(set(folded)) == 50 and tuple(k.tolist()) not in folded
    # fold_in(key, i) is split's counter i, as with JAX's partitionable Threefry
    np.testing.assert_array_equal(random.fold_in(k, 3), ks[3])


def test_streams_of_split_keys_are_uncorrelated():
    k = random.key(12)
    k1, k2 = random.split(k)
    a, b, parent = random.normal(k1, (N,)), random.normal(k2, (N,)), random.normal(k, (N,))
    for x, y in ((a, b), (a, parent), (b, parent)):
        assert abs(np.corrcoef(x, y)[0, 1]) < 5 / np.sqrt(N)
    c, d = random.normal(random.fold_in(k, 1), (N,)), random.normal(random.fold_in(k, 2), (N,))
    assert abs(np.corrcoef(c, d)[0, 1]) < 5 / np.sqrt(N)
    # neighbouring elements of one stream are uncorrelated too
    assert abs(np.corrcoef(a[:-1], a[1:])[0, 1]) < 5 / np.sqrt(N)


def test_same_key_same_numbers():
    k = random.key(13)
    np.testing.assert_array_equal(random.normal(k, (100,)), random.normal(k, (100,)))
    np.testing.assert_array_equal(random.uniform(k, (3, 4)), random.uniform(k.copy(), (3, 4)))
    # element i does not depend on the shape asked for
    np.testing.assert_array_equal(random.normal(k, (10,))[:4], random.normal(k, (4,)))
    assert not np.array_equal(random.normal(k, (10,)), random.normal(random.key(14), (10,)))


# ---- eager mistakes -----------------------------------------------------------------------------
@pytest.mark.parametrize("call, error, words", [
    (lambda: random.normal(np.zeros(2), (3,)), TypeError, "expected a key"),
    (lambda: random.normal(0, (3,)), TypeError, "expected a key"),
    (lambda: random.normal(np.zeros(3, np.uint32), (3,)), ValueError, "shape (2,)"),
    (lambda: random.normal(random.split(random.key(0)), (3,)), ValueError, "keys[0]"),
    (lambda: random.normal(random.key(0), (3.0,)), TypeError, "integer"),
    (lambda: random.normal(random.key(0), (-1,)), ValueError, "negative"),
    (lambda: random.uniform(random.key(0), (3,), np.int64), ValueError, "float64 or float32"),
    (lambda: random.randint(random.key(0), (3,), 5, 5), ValueError, "greater than minval"),
    (lambda: random.key(1.5), TypeError, "seed must be an integer"),
    (lambda: random.bernoulli(random.key(0), np.ones(3) * 0.5, (2,)), ValueError, "broadcast"),
    (lambda: random.permutation(random.key(0), 2.0), TypeError, "int or an array"),
])
def test_eager_errors(call, error, words):
    with pytest.raises(error, match=None) as info:
        call()
    assert words in str(info.value)


# ---- transformed code ---------------------------------------------------------------------------
def draw_everything(key, x):
    k1, k2 = random.split(key)
    ks = tr.split(k2, 3)
    u = tr.uniform(k1, (3,), minval=-1.0, maxval=2.0)
    u32 = transpyle.random.uniform(ks[0], x.shape, dtype=np.float32)
    z = tr.normal(k2, x.shape)
    z0 = tr.normal(ks[1])
    b = tr.bernoulli(k1, 0.3, [2, 2])
    r = tr.randint(ks[2], (2, len(x)), -2, 9)
    p = tr.permutation(k1, x.shape[0])
    q = tr.permutation(k2, x)
    f = tr.fold_in(key, 3)
    return u, u32, z, z0, b, r, p, q, f, random.PRNGKey(77)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_same_bits_eagerly_and_in_jit(backend):
    key, x = random.key(20), np.linspace(-1.0, 1.0, 6)
    got = transpyle.jit(draw_everything, backend=backend)(key, x)
    for g, e in zip(got, draw_everything(key, x)):
        assert np.asarray(g).dtype == np.asarray(e).dtype
        np.testing.assert_array_equal(g, e)


def long_draws(key, n):
    k1, k2 = random.split(key)
    return random.normal(k1, (n,)), random.uniform(k2, (n,)), random.uniform(k2, n, np.float32)


@pytest.mark.numba
def test_compiled_bits_equal_numpy_bits_at_scale():
    key, n = random.key(22), N
    eager = long_draws(key, n)
    for backend in ("numpy", "numba"):
        for g, e in zip(transpyle.jit(long_draws, backend=backend)(key, n), eager):
            assert g.dtype == e.dtype
            np.testing.assert_array_equal(g, e)


@pytest.mark.numba
def test_element_functions_agree_in_the_tails():
    # the extreme words give the extreme uniforms: the far tail of AS 241 and the log's scalings
    words = np.array([0, 1, 2, 3, 2 ** 12 - 1, 2 ** 12, 2 ** 20, 2 ** 31, 2 ** 32 - 2, 2 ** 32 - 1], np.int64)
    y0, y1 = np.meshgrid(words, words)
    y0, y1 = y0.ravel(), y1.ravel()
    compiled = numba.njit(lambda a, b: np.array([random_bits._normal_element(a[i], b[i]) for i in range(a.size)]))
    z = random_bits._normal_element(y0, y1)
    np.testing.assert_array_equal(compiled(y0, y1), z)
    assert np.abs(z).max() > 8.0 and np.all(np.isfinite(z))
    np.testing.assert_allclose(z, stats.norm.ppf(random_bits._open_unit52(y0, y1)), rtol=1e-14)


def noisy_square(x, key):
    noise = transpyle.random.normal(key, x.shape)
    return np.sum((x + noise) ** 2)


def noisy_steps(w, key):
    total = 0.0
    for i in range(3):
        key, sub = random.split(key)
        total = total + np.sum(w * random.normal(sub, w.shape))
    return total


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_grad_treats_noise_as_a_constant(backend, rng):
    x, key = rng.standard_normal(5), random.key(int(rng.integers(2 ** 32)))
    g = transpyle.grad(noisy_square, backend=backend)(x, key)
    np.testing.assert_allclose(g, 2 * (x + random.normal(key, x.shape)), rtol=1e-12)
    if backend == "numpy":         # forward mode sees the same constant noise
        np.testing.assert_allclose(transpyle.jacfwd(noisy_square, backend=backend)(x, key), g, rtol=1e-12)
    expected, k = np.zeros(4), key
    for _ in range(3):
        k, sub = random.split(k)
        expected += random.normal(sub, (4,))
    np.testing.assert_allclose(transpyle.grad(noisy_steps, backend=backend)(np.ones(4), key), expected,
                               rtol=1e-12)


def per_example(key, x):
    mask = random.bernoulli(key, 0.5, x.shape)
    return np.sum(np.where(mask, x, 0.0) * random.normal(random.fold_in(key, 1), x.shape))


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_vmap_over_split_keys_matches_a_loop(backend, rng):
    keys, x = random.split(random.key(21), 8), rng.standard_normal(7)
    got = transpyle.vmap(per_example, in_axes=(0, None), backend=backend)(keys, x)
    np.testing.assert_array_equal(got, [per_example(k, x) for k in keys])


def float_key(x):
    return np.sum(random.normal(x, (3,)))


def stacked_keys(key):
    ks = random.split(key, 4)
    return np.sum(random.normal(ks, (3,)))


def float_shape(key):
    return np.sum(random.uniform(key, (2.0, 3)))


def float_bounds(key):
    return np.sum(random.randint(key, (3,), 0.0, 4))


def array_bound(key, x):
    return np.sum(random.uniform(key, (3,), minval=-x[0]))


def wide_p(key, p):
    return np.sum(random.bernoulli(key, p, (3,)))


@pytest.mark.parametrize("fn, args, words", [
    (float_key, (np.zeros(2),), "expected a key"),
    (stacked_keys, (random.key(0),), "keys[0]"),
    (float_shape, (random.key(0),), "tuple of ints"),
    (float_bounds, (random.key(0),), "minval must be an integer"),
    (array_bound, (random.key(0), np.ones((2, 2))), "minval must be a number"),
    (wide_p, (random.key(0), np.ones((2, 3)) * 0.5), "does not broadcast"),
])
def test_mistakes_in_transformed_code_name_the_line(fn, args, words):
    with pytest.raises(transpyle.TranspileError) as info:
        transpyle.jit(fn, backend="numpy")(*args)
    text = str(info.value)
    assert words in text and "test_random.py:" in text
