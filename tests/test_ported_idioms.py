"""Idioms of NumPy and JAX programs brought unchanged, each checked on both backends: a list built by
appends rebound to its array (``traj = np.array(traj)``), ``np.add``/``np.subtract`` with ``out=``, entries
of module-level dicts of constants, loops over enumerate/zip of tuples (unrolled) and enumerate(zip(...)),
scipy.special's expit, ``np.linspace(..., endpoint=False)``, dict keys and strings tested in unrolled
loops, keyword-only parameters of helpers,
``np.where`` of numbers rebound in a loop, shapes sliced from ``x.shape``, keyword arguments to a
transformed function called in transformed code, and tuples returned by a jitted function of pytrees."""
import numpy as np
import pytest

import transpyle

from gradcheck import ALL_BACKENDS, check_grad, check_jvp


def trajectory_rebound(y0, k):
    y = y0.copy()
    traj = []
    for step in range(6):
        y = y - k * y ** 3
        traj.append(y)
    traj = np.array(traj)
    return np.sum(traj[1:] * traj[:-1])


def added_into(a, b):
    c = np.zeros(a.shape[0])
    np.add(a * b, np.sin(a), out=c)
    d = np.empty_like(c)
    np.subtract(c, b ** 2, out=d)
    return np.sum(c * d)


def selected_numbers(x, y):
    s = x
    for i in range(5):
        s = np.where(s > 0, s * y - 1.0, s + y)
    return s * y


def sliced_shapes(x):
    y = x.reshape(x.shape[:-2] + (-1,))
    z = np.zeros(x.shape[:1])
    for i in range(x.shape[0]):
        z[i] = np.sum(np.tanh(y[i]) * np.arange(1.0, y.shape[1] + 1.0))
    return np.sum(z ** 2)


def _power_loss(w, x, scale=1.0, power=2.0):
    return scale * np.sum((x * w) ** power)


CONSTANTS = {"R": 8.314, "T0": 298.0, "scale": (2.0, 3.0)}
WEIGHTS = (1.0, 2.0, 0.5)


def constants_and_tuples(x):
    k = np.exp(-x / (CONSTANTS["R"] * CONSTANTS["T0"]) * 100.0)
    s = np.sum(k) * CONSTANTS["scale"][1]
    for i, w in enumerate(WEIGHTS):
        s = s + w * x[i] ** 2
    for a, b in zip((1.0, 2.0), (3.0, 4.0)):
        s = s + a * b * x[0]
    for i, (a, b) in enumerate(zip(x[:-1], x[1:])):
        s = s + (i + 1.0) * a * b
    return s


def scipy_special_and_grids(x):
    from scipy.special import expit
    t = np.linspace(0.0, x[0], 6, endpoint=False)
    return np.sum(expit(x) * x) + np.sum(np.sin(t))


def _scaled_sum(x, *, scale=2.0, shift=0.0):
    return np.sum(x * x) / scale + shift


def keys_strings_and_keyword_only(x):
    parts = {"a": x[0], "b": x[1]}
    total = _scaled_sum(x, scale=3.0) + _scaled_sum(x)
    for key, value in parts.items():
        total = total + (2.0 if key == "a" else 1.0) * value
    for label in ("sin", "cos"):
        total = total + (np.sin(x[2]) if label == "sin" else np.cos(x[2]))
    return total


def keywords_to_a_transform(w, x):
    return np.sum(transpyle.grad(_power_loss)(w, x, power=3.0) * transpyle.grad(_power_loss)(w, scale=2.0, x=x))


CASES = [
    (trajectory_rebound, lambda rng: (rng.uniform(0.2, 0.8, 3), 0.1), (0, 1)),
    (added_into, lambda rng: (rng.normal(size=4), rng.normal(size=4)), (0, 1)),
    (selected_numbers, lambda rng: (float(rng.uniform(0.5, 2.0)), float(rng.uniform(0.5, 0.9))), (0, 1)),
    (sliced_shapes, lambda rng: (rng.normal(size=(2, 3, 4)),), 0),
    (keywords_to_a_transform, lambda rng: (rng.uniform(0.5, 1.5, 3), rng.uniform(0.5, 1.5, 3)), (0, 1)),
    (constants_and_tuples, lambda rng: (rng.normal(size=5),), 0),
    (scipy_special_and_grids, lambda rng: (rng.normal(size=4),), 0),
    (keys_strings_and_keyword_only, lambda rng: (rng.normal(size=3),), 0),
]


@pytest.mark.parametrize("backend", ALL_BACKENDS)
@pytest.mark.parametrize("f, make, argnums", CASES, ids=[c[0].__name__ for c in CASES])
def test_idiom(f, make, argnums, backend, rng):
    args = make(rng)
    np.testing.assert_allclose(transpyle.jit(f, backend=backend)(*args), f(*args), rtol=1e-12)
    check_grad(f, args, argnums=argnums, backend=backend, atol=1e-8)
    check_jvp(f, args, argnums, rng, backend=backend, atol=1e-8)


def _pair(p, x):
    return x * p["w"], [p["b"] + 1.0, x]


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_jit_of_pytrees_returns_tuples_and_lists(backend, rng):
    p, x = {"w": rng.normal(size=3), "b": 0.5}, rng.normal(size=3)
    first, rest = transpyle.jit(_pair, backend=backend)(p, x)
    np.testing.assert_allclose(first, x * p["w"])
    assert isinstance(rest, list) and rest[0] == pytest.approx(1.5)
    np.testing.assert_allclose(rest[1], x)
