"""Checking transpyle's derivatives against central finite differences, and drawing inputs.

`check_grad` is the one helper the derivative tests use: it computes the gradient with transpyle,
checks its type and shape (a float for a float argument, an array of the argument's shape for an
array), compares every element with a central difference in float64, and asserts that neither
transpyle nor the function changed its inputs. `check_vjp` does the same for `transpyle.vjp`
through the inner-product identity <ct, J dx> = <J^T ct, dx>: the cotangents it returns must be
the finite-difference gradients of x -> <ct, f(x)>.

The comparison is per element: |got - fd| <= atol + rtol * |fd| + roundoff, where roundoff is an
estimate of the cancellation error of the difference quotient (a few hundred ulps of |f| divided
by the step). A derivative that is wrong by a few percent anywhere fails.

The input helpers draw values where the functions under test are smooth: `uniform(..., avoid=)`
keeps values away from kinks, `distinct` draws values with no near-ties (for max/min),
`separated` draws two operands that never come close (for maximum/minimum).
"""
import copy

import numpy as np
import pytest

import transpyle

STEP = 1e-6                                   # relative finite-difference step
ROUNDOFF = 256 * np.finfo(np.float64).eps     # relative error assumed in each evaluation of f

# every backend, the numba one marked: for @pytest.mark.parametrize("backend", ALL_BACKENDS)
ALL_BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]


# ---- finite differences -------------------------------------------------------------------------
def _with_arg(args, argnum, value):
    changed = list(args)
    changed[argnum] = value
    return changed


def numerical_grad(f, args, argnum, kwargs=None):
    """Central differences of the scalar ``f(*args)`` in argument ``argnum``: (gradient, noise).

    ``noise`` is the estimated round-off error of each element of the gradient.
    """
    kwargs = kwargs or {}
    x = args[argnum]
    is_array = isinstance(x, np.ndarray)
    base = np.array(x, dtype=np.float64)
    grad = np.zeros(base.shape)
    noise = np.zeros(base.shape)
    for idx in np.ndindex(base.shape):
        h = STEP * max(1.0, abs(float(base[idx])))
        plus, minus = base.copy(), base.copy()
        plus[idx] += h
        minus[idx] -= h
        width = float(plus[idx] - minus[idx])          # the step as represented (before f may write into it)
        fp = float(f(*_with_arg(args, argnum, plus if is_array else float(plus)), **kwargs))
        fm = float(f(*_with_arg(args, argnum, minus if is_array else float(minus)), **kwargs))
        grad[idx] = (fp - fm) / width
        noise[idx] = ROUNDOFF * max(abs(fp), abs(fm)) / width
    return grad, noise


# ---- assertions -----------------------------------------------------------------------------------
def assert_unchanged(before, after, what="input"):
    """``after`` holds the same values as the deep copy ``before`` (nothing was written into it)."""
    if isinstance(before, np.ndarray):
        assert isinstance(after, np.ndarray) and after.shape == before.shape and after.dtype == before.dtype, \
            f"{what} changed type or shape"
        assert np.array_equal(before, after, equal_nan=True), f"{what} was modified in place:\n" \
            f"before {before!r}\nafter  {after!r}"
    elif isinstance(before, (tuple, list)):
        assert len(before) == len(after), f"{what} changed length"
        for k, (b, a) in enumerate(zip(before, after)):
            assert_unchanged(b, a, f"{what}[{k}]")
    else:
        assert before == after or (before != before and after != after), f"{what} changed: {before!r} -> {after!r}"


def assert_gradient_like(g, x, what="gradient"):
    """A float for a float argument, a float64 array of the same shape for an array argument."""
    if isinstance(x, np.ndarray):
        assert isinstance(g, np.ndarray), f"{what}: expected an array of shape {x.shape}, got {type(g).__name__}"
        assert g.shape == x.shape, f"{what}: shape {g.shape}, argument has shape {x.shape}"
        assert g.dtype == np.float64, f"{what}: dtype {g.dtype}, expected float64"
    else:
        assert isinstance(g, (float, np.floating)) and not isinstance(g, np.ndarray), \
            f"{what}: expected a float for a scalar argument, got {type(g).__name__} {g!r}"


def assert_matches_fd(g, f, args, argnum, rtol=1e-5, atol=1e-7, kwargs=None, what=None):
    """``g`` is the gradient of the scalar ``f(*args)`` in argument ``argnum``, element by element."""
    what = what or f"d{getattr(f, '__name__', 'f')}/d(arg {argnum})"
    assert_gradient_like(g, args[argnum], what)
    fd, noise = numerical_grad(f, args, argnum, kwargs)
    got = np.asarray(g, dtype=np.float64)
    assert np.all(np.isfinite(got)), f"{what}: not finite:\n{got!r}"
    err = np.abs(got - fd)
    tol = atol + rtol * np.abs(fd) + noise
    if np.all(err <= tol):
        return
    worst = np.unravel_index(np.argmax(err - tol), err.shape) if err.shape else ()
    raise AssertionError(
        f"{what}: {int(np.sum(err > tol))} of {err.size} elements differ from finite differences; "
        f"worst at {worst}: transpyle {got[worst]!r}, finite difference {fd[worst]!r}\n"
        f"transpyle:\n{got!r}\nfinite differences:\n{fd!r}")


def check_grad(f, args, argnums=0, backend="numpy", rtol=1e-5, atol=1e-7, kwargs=None):
    """Compare ``transpyle.grad(f, argnums, backend=backend)(*args)`` with finite differences.

    Returns what transpyle returned (one gradient, or a tuple for a tuple ``argnums``) so a test
    can also compare it with a closed form.
    """
    args = tuple(args)
    kwargs = kwargs or {}
    before = copy.deepcopy(args)
    got = transpyle.grad(f, argnums=argnums, backend=backend)(*args, **kwargs)
    assert_unchanged(before, args, "argument")
    if isinstance(argnums, tuple):
        assert isinstance(got, tuple) and len(got) == len(argnums), \
            f"argnums={argnums}: expected a tuple of {len(argnums)} gradients, got {type(got).__name__}"
        pairs = zip(got, argnums)
    else:
        pairs = [(got, argnums)]
    for g, i in pairs:
        assert_matches_fd(g, f, args, i, rtol, atol, kwargs)
    assert_unchanged(before, args, "argument (modified by the function itself)")
    return got


def sized_cases(cases):
    """pytest parameters ``fn, make`` for pairs (a function, ``make(rng, n)`` giving its arguments at size n),
    each named by the function and its position."""
    return [pytest.param(f, m, id=f"{f.__name__}{k}") for k, (f, m) in enumerate(cases)]


def check_grads_at_sizes(fn, make, sizes, rng, backend):
    """``check_grad`` with respect to each array argument of ``make(rng, n)``, for each n in ``sizes``."""
    for n in sizes:
        args = make(rng, n)
        for argnum, a in enumerate(args):
            if isinstance(a, np.ndarray):
                check_grad(fn, args, argnums=argnum, backend=backend)


def _leaves(tree):
    return [leaf for item in tree for leaf in _leaves(item)] if isinstance(tree, tuple) else [tree]


def inner(ct, out):
    """<ct, out> summed over every leaf of a (possibly tuple) output."""
    return sum(float(np.sum(np.multiply(c, o))) for c, o in zip(_leaves(ct), _leaves(out)))


def random_like(rng, out):
    """A random cotangent with the structure, shapes and scalar-ness of ``out``."""
    if isinstance(out, tuple):
        return tuple(random_like(rng, o) for o in out)
    if isinstance(out, np.ndarray):
        return rng.standard_normal(out.shape)
    return float(rng.standard_normal())


def assert_same_output(got, expected, what="output"):
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected), f"{what}: expected a tuple of {len(expected)}"
        for k, (g, e) in enumerate(zip(got, expected)):
            assert_same_output(g, e, f"{what}[{k}]")
    else:
        assert np.shape(got) == np.shape(expected), f"{what}: shape {np.shape(got)} != {np.shape(expected)}"
        assert np.allclose(got, expected, rtol=1e-10, atol=1e-12), f"{what}: {got!r} != {expected!r}"


def check_vjp(f, args, rng, backend="numpy", rtol=1e-5, atol=1e-7):
    """Check ``transpyle.vjp(f, *args)``: the primal output, then each cotangent by finite differences."""
    args = tuple(args)
    before = copy.deepcopy(args)
    out, vjp_fn = transpyle.vjp(f, *args, backend=backend)
    assert_unchanged(before, args, "primal")
    assert_same_output(out, f(*args))
    ct = random_like(rng, out)
    ct_before = copy.deepcopy(ct)
    cts = vjp_fn(ct)
    assert_unchanged(ct_before, ct, "cotangent")
    assert isinstance(cts, tuple) and len(cts) == len(args), \
        f"vjp_fn must return a tuple with one cotangent per primal ({len(args)}), got {cts!r}"

    def projected(*xs):
        return inner(ct, f(*xs))

    for i, c in enumerate(cts):
        assert_matches_fd(c, projected, args, i, rtol, atol, what=f"vjp cotangent of primal {i}")
    return out, cts


# ---- inputs -----------------------------------------------------------------------------------------
def _scalar_or_array(x, shape):
    return float(x) if shape == () else np.asarray(x, dtype=np.float64)


def uniform(rng, shape=(), lo=-1.0, hi=1.0, avoid=(), margin=0.05):
    """Uniform floats in [lo, hi], each at least ``margin`` from every point in ``avoid``.

    A Python float for ``shape=()``, else a float64 array.
    """
    x = rng.uniform(lo, hi, shape)
    for _ in range(1000):
        bad = np.zeros(np.shape(x), dtype=bool)
        for p in avoid:
            bad |= np.abs(x - p) < margin
        if not bad.any():
            return _scalar_or_array(x, shape)
        x = np.where(bad, rng.uniform(lo, hi, shape), x)
    raise ValueError(f"no values in [{lo}, {hi}] keep {margin} away from {avoid}")


def normal(rng, shape=()):
    """Standard normal values: a Python float for ``shape=()``, else a float64 array."""
    return _scalar_or_array(rng.standard_normal(shape), shape)


def signed(rng, shape=(), lo=0.5, hi=2.0):
    """Magnitudes in [lo, hi] with random signs: safely away from zero (divisors, products)."""
    x = rng.uniform(lo, hi, shape) * rng.choice([-1.0, 1.0], shape)
    return _scalar_or_array(x, shape)


def distinct(rng, shape, lo=-1.5, hi=1.5):
    """Values in [lo, hi] whose pairwise gaps are all at least (hi - lo) / (2 * size): no near-ties."""
    n = int(np.prod(shape))
    slots = rng.permutation(n) + rng.uniform(0.25, 0.75, n)
    return (lo + slots * (hi - lo) / n).reshape(shape)


def separated(rng, shape_a, shape_b, lo=-1.0, hi=1.0, margin=0.05):
    """Two operands whose broadcast pairs are never closer than ``margin`` (no ties in max/min)."""
    for _ in range(10000):
        a = rng.uniform(lo, hi, shape_a)
        b = rng.uniform(lo, hi, shape_b)
        if np.min(np.abs(a - b)) >= margin:
            return _scalar_or_array(a, shape_a), _scalar_or_array(b, shape_b)
    raise ValueError("could not draw separated operands")


# ---- makers (rng -> value) for the case tables ------------------------------------------------------
def normals(shape=()):
    return lambda rng: normal(rng, shape)


def uniforms(shape=(), lo=-1.0, hi=1.0, avoid=(), margin=0.05):
    return lambda rng: uniform(rng, shape, lo, hi, avoid, margin)


def signeds(shape=(), lo=0.5, hi=2.0):
    return lambda rng: signed(rng, shape, lo, hi)


def distincts(shape, lo=-1.5, hi=1.5):
    return lambda rng: distinct(rng, shape, lo, hi)


def draw(*makers):
    """A maker of an argument tuple: per argument a maker (rng -> value) or a constant (an int, say)."""
    return lambda rng: tuple(m(rng) if callable(m) else m for m in makers)


def backend_cases(cases):
    """pytest parameters: each case ``(id, values, on_numba)`` with backend "numpy" appended to its
    values, and again with "numba" (marked ``numba``) where ``on_numba`` is true."""
    params = []
    for case_id, values, on_numba in cases:
        params.append(pytest.param(*values, "numpy", id=f"{case_id}-numpy"))
        if on_numba:
            params.append(pytest.param(*values, "numba", id=f"{case_id}-numba", marks=pytest.mark.numba))
    return params


# ---- forward mode ---------------------------------------------------------------------------------
def directional_fd(f, args, tangents, kwargs=None):
    """Central difference of ``f`` along ``tangents`` (None for arguments held fixed), with its noise."""
    kwargs = kwargs or {}
    h = STEP * max(1.0, max(float(np.max(np.abs(a))) for a, t in zip(args, tangents) if t is not None))

    def at(sign):
        moved = [a if t is None else (a + sign * h * t if isinstance(a, np.ndarray) else float(a + sign * h * t))
                 for a, t in zip(args, tangents)]
        return f(*moved, **kwargs)
    plus, minus = at(1.0), at(-1.0)
    fd = jax_like_map(lambda p, m: (np.asarray(p, float) - np.asarray(m, float)) / (2 * h), plus, minus)
    noise = jax_like_map(lambda p, m: ROUNDOFF * np.maximum(np.abs(np.asarray(p, float)),
                                                            np.abs(np.asarray(m, float))) / (2 * h), plus, minus)
    return fd, noise


def jax_like_map(fn, *trees):
    if isinstance(trees[0], tuple):
        return tuple(jax_like_map(fn, *parts) for parts in zip(*trees))
    return fn(*trees)


def check_jvp(f, args, argnums, rng, backend="numpy", rtol=1e-5, atol=1e-7):
    """``transpyle.jvp`` along random tangents of the ``argnums`` arguments against a directional
    central difference; the primal output must equal ``f(*args)``."""
    nums = argnums if isinstance(argnums, tuple) else (argnums,)
    args = tuple(args)
    before = copy.deepcopy(args)
    tangents = [None] * len(args)
    for i in nums:
        a = args[i]
        tangents[i] = rng.normal(size=a.shape) if isinstance(a, np.ndarray) else float(rng.normal())
    passed = [t if t is not None else (np.zeros_like(a) if isinstance(a, np.ndarray) and a.dtype.kind == "f"
                                       else (0.0 if isinstance(a, float) else None))
              for a, t in zip(args, tangents)]
    out, tout = transpyle.jvp(f, args, passed, backend=backend)
    assert_unchanged(before, args, "argument")
    fd, noise = directional_fd(f, args, tangents)
    expected = f(*args)
    for got, want, n, primal in zip(_leaves(tout), _leaves(fd), _leaves(noise), _leaves(expected)):
        got = np.asarray(got, dtype=np.float64)
        assert got.shape == np.shape(primal), f"tangent shape {got.shape}, output shape {np.shape(primal)}"
        assert np.all(np.abs(got - want) <= atol + rtol * np.abs(want) + n), \
            f"jvp of {f.__name__} differs from finite differences:\ntranspyle {got!r}\nfd        {want!r}"
    for got, want in zip(_leaves(out), _leaves(expected)):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    return out, tout
