"""Forward mode through broadcasting: every pair of operand shapes, with the left operand active, the
right one, or both, for every broadcasting binary primitive, reduced to a number or returned as an
array.

An operand is made inactive with ``stop_gradient`` (its tangent is then no operand of the rule, as
for a constant), so the rule's tangent is shaped by the active operand alone and must be broadcast to
the result's shape. Each jvp is compared with a directional central difference and with reverse mode
(``grad`` dotted with the tangents for a number, the inner-product identity with ``vjp`` for an
array); ``vmap`` of the same functions is compared with a loop over the examples.
"""
import numpy as np
import pytest

import transpyle
from gradcheck import directional_fd, inner, separated, signed, uniform

# (left shape, right shape): each pair broadcasts; together they give every way a dimension is
# added (a missing leading axis, a length-1 axis, both, on either side)
SHAPES = [((), ()), ((), (3,)), ((3,), ()), ((3,), (3,)), ((1, 3), (3, 1)), ((3, 1), (3, 3)),
          ((3, 3), (3, 1)), ((3,), (3, 3)), ((1, 3), (3, 3)), ((2, 3, 3), (3,)), ((2, 3, 3), (3, 1)),
          ((1, 1), (3, 3)), ((3,), (2, 1, 3)), ((1, 3), (3,)), ((3, 1), (3,)), ((1,), (3,)),
          ((2, 1, 3), (3, 1))]


def add(a, b):
    return a + b


def sub(a, b):
    return a - b


def mul(a, b):
    return a * b


def div(a, b):
    return a / b


def power(a, b):
    return a ** b


def maximum(a, b):
    return np.maximum(a, b)


def minimum(a, b):
    return np.minimum(a, b)


def arctan2(a, b):
    return np.arctan2(a, b)


def hypot(a, b):
    return np.hypot(a, b)


def _normal_pair(rng, sa, sb):
    return uniform(rng, sa, -1.5, 1.5), uniform(rng, sb, -1.5, 1.5)


def _separated_pair(rng, sa, sb):
    return separated(rng, sa, sb, -1.5, 1.5, margin=0.05)


# operator -> (function, operands where it is smooth)
OPS = {
    "add": (add, _normal_pair),
    "sub": (sub, _normal_pair),
    "mul": (mul, _normal_pair),
    "div": (div, lambda rng, sa, sb: (uniform(rng, sa, -1.5, 1.5), signed(rng, sb))),
    "pow": (power, lambda rng, sa, sb: (uniform(rng, sa, 0.5, 2.0), uniform(rng, sb, -1.5, 1.5))),
    "maximum": (maximum, _separated_pair),
    "minimum": (minimum, _separated_pair),
    "arctan2": (arctan2, lambda rng, sa, sb: (signed(rng, sa), signed(rng, sb))),
    "hypot": (hypot, lambda rng, sa, sb: (signed(rng, sa), signed(rng, sb))),
}
ACTIVE = ("left", "right", "both")
REDUCTIONS = ("sum", "array")


def make(op, active, reduction):
    """``f(a, b)``: ``op`` of the operands, those not ``active`` behind ``stop_gradient``, summed or not."""
    if active == "left":
        def f(a, b):
            return op(a, transpyle.stop_gradient(b))
    elif active == "right":
        def f(a, b):
            return op(transpyle.stop_gradient(a), b)
    else:
        def f(a, b):
            return op(a, b)
    if reduction == "array":
        return f

    def total(a, b):
        return np.sum(f(a, b))
    return total


def _tangents(rng, args, active):
    """A random tangent for each active operand, zeros (shaped like the operand) for the others."""
    out = []
    for side, a in zip(("left", "right"), args):
        moving = active in (side, "both")
        t = rng.standard_normal(np.shape(a)) if moving else np.zeros(np.shape(a))
        out.append(t if isinstance(a, np.ndarray) else float(t))
    return out


def _assert_close(got, want, noise, what, rtol=1e-6, atol=1e-8):
    got, want = np.asarray(got, float), np.asarray(want, float)
    assert got.shape == want.shape, f"{what}: shape {got.shape}, expected {want.shape}"
    bad = np.abs(got - want) > atol + rtol * np.abs(want) + noise
    assert not bad.any(), f"{what}:\ntranspyle {got!r}\nexpected  {want!r}"


def check_broadcast_jvp(op_name, shapes, active, reduction, backend, rng):
    op, draw = OPS[op_name]
    f = make(op, active, reduction)
    args = draw(rng, *shapes)
    ts = _tangents(rng, args, active)
    out, tout = transpyle.jvp(f, args, ts, backend=backend)
    expected = f(*args)
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)
    assert np.shape(tout) == np.shape(expected), f"tangent shape {np.shape(tout)}, output {np.shape(expected)}"
    # against finite differences along the active tangents (the others held still)
    moving = [t if active in (side, "both") else None for side, t in zip(("left", "right"), ts)]
    fd, noise = directional_fd(f, args, moving)
    _assert_close(tout, fd, noise, f"jvp of {op_name} {shapes} ({active} active) vs finite differences",
                  rtol=1e-5, atol=1e-7)
    # against reverse mode: <ct, J t> = <J^T ct, t>
    if reduction == "sum":
        grads = transpyle.grad(f, argnums=(0, 1), backend=backend)(*args)
        want = sum(float(np.sum(g * t)) for g, t in zip(grads, ts))
        ct = 1.0
    else:
        ct = rng.standard_normal(np.shape(expected))
        ct = ct if np.ndim(expected) else float(ct)
        _, vjp_fn = transpyle.vjp(f, *args, backend=backend)
        want = sum(float(np.sum(c * t)) for c, t in zip(vjp_fn(ct), ts))
    got = inner(ct, tout)
    assert abs(got - want) <= 1e-10 * (abs(got) + abs(want) + 1.0), \
        f"jvp of {op_name} {shapes} ({active} active) disagrees with reverse mode: {got!r} vs {want!r}"


def _id(shapes):
    return "x".join(str(s).replace(" ", "") for s in shapes)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("op_name", list(OPS))
@pytest.mark.parametrize("active", ACTIVE)
@pytest.mark.parametrize("shapes", SHAPES, ids=_id)
def test_broadcasting_jvp(shapes, active, op_name, reduction, rng):
    check_broadcast_jvp(op_name, shapes, active, reduction, "numpy", rng)


# one pattern per way a dimension is added, each operator at least once, on Numba
NUMBA_CASES = [("add", ((3,), (3, 3)), "left", "sum"), ("add", ((3, 3), (3, 1)), "right", "sum"),
               ("sub", ((3, 1), (3, 3)), "left", "array"), ("mul", ((1, 3), (3, 1)), "both", "array"),
               ("div", ((1, 1), (3, 3)), "left", "sum"), ("div", ((3, 3), (3,)), "right", "array"),
               ("pow", ((2, 3, 3), (3, 1)), "right", "sum"), ("pow", ((), (3,)), "left", "array"),
               ("maximum", ((3,), (2, 1, 3)), "left", "sum"), ("minimum", ((3, 1), (3,)), "right", "array"),
               ("arctan2", ((3,), ()), "right", "sum"), ("hypot", ((1,), (3,)), "left", "array")]


@pytest.mark.numba
@pytest.mark.parametrize("op_name, shapes, active, reduction", NUMBA_CASES,
                         ids=[f"{o}-{_id(s)}-{a}-{r}" for o, s, a, r in NUMBA_CASES])
def test_broadcasting_jvp_numba(op_name, shapes, active, reduction, rng):
    check_broadcast_jvp(op_name, shapes, active, reduction, "numba", rng)


# the functions of the report: a constant array broadcast against an argument
def ones_plus_column(x):
    return np.sum(np.ones((3, 3)) + x[:, None])


def column_minus_ones(x):
    return np.sum(x.reshape(3, 1) - np.ones((3, 3)))


def ones_times_column(x):
    return np.sum(np.ones((3, 3)) * x.reshape(3, 1))


def row_over_twos(x):
    return np.sum(x[None, :] / np.full((3, 3), 2.0))


def twos_over_column(x):
    return np.ones((2, 3, 3)) / x[:, None]


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=pytest.mark.numba)])
@pytest.mark.parametrize("f", [ones_plus_column, column_minus_ones, ones_times_column, row_over_twos,
                               twos_over_column], ids=lambda f: f.__name__)
def test_constant_operand(f, backend, rng):
    x = signed(rng, (3,))
    t = rng.standard_normal(3)
    _, tout = transpyle.jvp(f, (x,), (t,), backend=backend)
    fd, noise = directional_fd(f, (x,), (t,))
    _assert_close(tout, fd, noise, f"jvp of {f.__name__}", rtol=1e-5, atol=1e-7)
    if np.ndim(tout) == 0:
        np.testing.assert_allclose(tout, np.dot(transpyle.grad(f, backend=backend)(x), t), rtol=1e-12)


def test_ones_plus_column_closed_form():
    # each x[i] appears in three entries of the sum
    _, tout = transpyle.jvp(ones_plus_column, (np.arange(3.0),), (np.ones(3),), backend="numpy")
    assert tout == pytest.approx(9.0, rel=1e-15)


# ---- vmap of the same functions, against a loop over the examples ---------------------------------------
VMAP_CASES = [("add", ((3,), (3, 3)), "left"), ("sub", ((3, 1), (3,)), "right"), ("mul", ((1, 3), (3, 1)), "both"),
              ("div", ((), (3,)), "left"), ("pow", ((3,), (2, 1, 3)), "right"), ("maximum", ((1, 1), (3, 3)), "both"),
              ("arctan2", ((2, 3, 3), (3, 1)), "left"), ("hypot", ((3,), ()), "right")]


@pytest.mark.parametrize("strategy", ["loop", "array"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("op_name, shapes, active", VMAP_CASES, ids=[f"{o}-{_id(s)}-{a}" for o, s, a in VMAP_CASES])
def test_broadcasting_vmap(op_name, shapes, active, reduction, strategy, rng):
    op, draw = OPS[op_name]
    f = make(op, active, reduction)
    examples = [draw(rng, *shapes) for _ in range(4)]
    batched = [np.stack([np.asarray(e[k]) for e in examples]) for k in range(2)]
    # the active operands vary per example, the others are shared
    in_axes = tuple(0 if active in (side, "both") else None for side in ("left", "right"))
    args = [batched[k] if in_axes[k] == 0 else examples[0][k] for k in range(2)]
    got = transpyle.vmap(f, in_axes=in_axes, strategy=strategy, backend="numpy")(*args)
    want = np.stack([np.asarray(f(*[a[i] if ax == 0 else a for a, ax in zip(args, in_axes)]))
                     for i in range(4)])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    if reduction == "sum":
        g = transpyle.vmap(transpyle.grad(f, argnums=(0, 1)), in_axes=in_axes, strategy=strategy,
                           backend="numpy")(*args)
        for i in range(4):
            example = [a[i] if ax == 0 else a for a, ax in zip(args, in_axes)]
            want_g = transpyle.grad(f, argnums=(0, 1), backend="numpy")(*example)
            for k in range(2):
                np.testing.assert_allclose(g[k][i], want_g[k], rtol=1e-12, atol=1e-12)


@pytest.mark.numba
@pytest.mark.parametrize("strategy", ["loop", "array"])
def test_broadcasting_vmap_numba(strategy, rng):
    f = make(add, "left", "sum")
    a, b = rng.standard_normal((5, 3)), rng.standard_normal((3, 3))
    got = transpyle.vmap(f, in_axes=(0, None), strategy=strategy, backend="numba")(a, b)
    np.testing.assert_allclose(got, [f(a[i], b) for i in range(5)], rtol=1e-12)
    tangents = transpyle.vmap(_tangent_of_column_sum, in_axes=(0, None), strategy=strategy, backend="numba")(a, b)
    np.testing.assert_allclose(tangents, np.full(5, 9.0), rtol=1e-12)


def _tangent_of_column_sum(x, y):
    # the tangent of sum(x + y) along dx = ones, y held: each x[j] is in three entries of the (3, 3) sum
    dx = np.ones_like(x)
    dy = np.zeros_like(y)
    out, tangent = transpyle.jvp(_add_sum, (x, y), (dx, dy))
    return tangent


def _add_sum(x, y):
    return np.sum(x + transpyle.stop_gradient(y))
