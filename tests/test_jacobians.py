"""jacfwd, jacrev, hessian and derivatives of any order by composition, against central finite
differences (of the function, or of transpyle's reverse gradient for second derivatives) on fresh
random inputs. Compositions transform generated code again: grad(grad(f)) runs forward mode over
the code of grad(f); hessian is jacfwd over the jacrev driver, its vjp inlined.
"""
import math

import numpy as np
import pytest

import transpyle
from gradcheck import ALL_BACKENDS


def fd_jacobian(f, x, h=1e-6):
    """d f(x) / d x by central differences, shaped f(x).shape + x.shape."""
    x = np.asarray(x, dtype=float)
    out = np.asarray(f(x))
    jac = np.zeros(out.shape + x.shape)
    for idx in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[idx] = h * max(1.0, abs(x[idx]))
        jac[(Ellipsis,) + idx] = (np.asarray(f(x + step)) - np.asarray(f(x - step))) / (2 * step[idx])
    return jac


def assert_close(got, want, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=atol)


# ---- functions ---------------------------------------------------------------------------------------------
def ode_states(y0, k):
    """Explicit Euler on a small nonlinear system; returns the final state (a vector output)."""
    y = y0.copy()
    for step in range(50):
        dy = np.empty_like(y)
        for i in range(y.shape[0]):
            dy[i] = -k * y[i] + 0.3 * math.sin(y[(i + 1) % y.shape[0]])
        for i in range(y.shape[0]):
            y[i] = y[i] + 0.05 * dy[i]
    return y


def matrix_map(a, v):
    return np.tanh(a @ v) * np.sum(a)


def two_outputs(x, c):
    return np.sin(x) * c, np.sum(x ** 3) * c


def scalar_loop(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += math.exp(0.3 * x[i]) * x[(i + 1) % x.shape[0]] ** 2
    return s


def while_scalar(x):
    s = x[0]
    k = 0
    while k < 6:
        s = s * math.cos(s) + x[1] * x[2]
        k += 1
    return s * x[0]


def in_place_scalar(x):
    y = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        y[i] = x[i] ** 2 * x[(i + 2) % x.shape[0]]
    y[0] = y[0] * y[1]
    return np.sum(y * x)


def branches_scalar(x):
    r = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0.0:
            r += x[i] ** 3
        else:
            r -= math.sin(x[i]) * x[0]
    return r


# ---- jacobians --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", ALL_BACKENDS)
@pytest.mark.parametrize("transform", [transpyle.jacfwd, transpyle.jacrev])
def test_jacobian_of_a_loop(transform, backend, rng):
    y0, k = rng.normal(size=5), 0.8
    jac = transform(ode_states, backend=backend)(y0, k)
    assert jac.shape == (5, 5)
    assert_close(jac, fd_jacobian(lambda v: ode_states(v, k), y0))


@pytest.mark.parametrize("transform", [transpyle.jacfwd, transpyle.jacrev])
def test_jacobian_layout_with_tuple_argnums(transform, rng):
    a, v = rng.normal(size=(3, 4)), rng.normal(size=4)
    ja, jv = transform(matrix_map, argnums=(0, 1), backend="numpy")(a, v)
    assert ja.shape == (3, 3, 4) and jv.shape == (3, 4)
    assert_close(ja, fd_jacobian(lambda m: matrix_map(m, v), a))
    assert_close(jv, fd_jacobian(lambda u: matrix_map(a, u), v))


@pytest.mark.parametrize("transform", [transpyle.jacfwd, transpyle.jacrev])
def test_jacobian_of_tuple_outputs(transform, rng):
    x, c = rng.normal(size=4), 1.3
    j1, j2 = transform(two_outputs, backend="numpy")(x, c)
    assert j1.shape == (4, 4) and j2.shape == (4,)
    assert_close(j1, np.diag(np.cos(x) * c))
    assert_close(j2, 3 * x ** 2 * c)
    (d1, d2) = transform(two_outputs, argnums=1, backend="numpy")(x, c)
    assert_close(d1, np.sin(x))
    assert d2 == pytest.approx(float(np.sum(x ** 3)))


def test_jacobian_has_aux(rng):
    def f(x):
        return np.sin(x) * x, np.sum(x)
    x = rng.normal(size=3)
    for transform in (transpyle.jacfwd, transpyle.jacrev):
        jac, aux = transform(f, has_aux=True, backend="numpy")(x)
        assert_close(jac, np.diag(np.cos(x) * x + np.sin(x)))
        assert aux == pytest.approx(float(np.sum(x)))


def test_scalar_in_scalar_out():
    d = transpyle.jacfwd(lambda t: math.sin(t) * t, backend="numpy")(0.4)
    assert isinstance(d, float) and d == pytest.approx(math.cos(0.4) * 0.4 + math.sin(0.4))


# ---- second and higher derivatives -------------------------------------------------------------------------
SECOND_ORDER = [scalar_loop, while_scalar, in_place_scalar, branches_scalar]


@pytest.mark.parametrize("backend", ALL_BACKENDS)
@pytest.mark.parametrize("fn", SECOND_ORDER, ids=lambda f: f.__name__)
def test_hessian(fn, backend, rng):
    x = rng.uniform(0.3, 0.9, size=4) * rng.choice([-1.0, 1.0], 4)
    hess = transpyle.hessian(fn, backend=backend)(x)
    assert hess.shape == (4, 4)
    expected = fd_jacobian(transpyle.grad(fn, backend="numpy"), x)
    assert_close(hess, expected, rtol=1e-5, atol=1e-6)
    assert_close(hess, hess.T, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("outer, inner", [(transpyle.jacfwd, transpyle.jacfwd), (transpyle.jacrev, transpyle.jacrev),
                                          (transpyle.jacrev, transpyle.jacfwd)])
def test_jacobian_compositions_agree_with_hessian(outer, inner, rng):
    x = rng.uniform(0.3, 0.9, size=4)
    want = transpyle.hessian(scalar_loop, backend="numpy")(x)
    assert_close(outer(inner(scalar_loop, backend="numpy"), backend="numpy")(x), want, rtol=1e-10, atol=1e-10)


def test_grad_of_grad_and_third_derivative(rng):
    def f(t):
        return math.exp(math.sin(t)) * t
    t = float(rng.uniform(0.1, 1.0))
    d1 = transpyle.grad(f, backend="numpy")
    d2 = transpyle.grad(d1, backend="numpy")
    d3 = transpyle.grad(d2, backend="numpy")
    h = 1e-5
    assert d2(t) == pytest.approx((d1(t + h) - d1(t - h)) / (2 * h), rel=1e-6)
    assert d3(t) == pytest.approx((d2(t + h) - d2(t - h)) / (2 * h), rel=1e-6)


def test_grad_of_a_function_calling_grad_of_a_helper(rng):
    helper_grad = transpyle.grad(scalar_loop, backend="numpy")

    def energy(x):
        g = helper_grad(x)
        return np.sum(g * g)
    x = rng.uniform(0.3, 0.9, size=4)
    got = transpyle.grad(energy, backend="numpy")(x)
    assert_close(got, fd_jacobian(energy, x), rtol=1e-5, atol=1e-6)


def test_value_and_grad_of_grad(rng):
    d1 = transpyle.grad(lambda t: t ** 4 * math.cos(t), backend="numpy")
    t = 0.6
    value, second = transpyle.value_and_grad(d1, backend="numpy")(t)
    assert value == pytest.approx(d1(t))
    assert second == pytest.approx(12 * t ** 2 * math.cos(t) - 8 * t ** 3 * math.sin(t) - t ** 4 * math.cos(t))


def test_hessian_vector_product_by_jvp_of_grad(rng):
    x, v = rng.uniform(0.3, 0.9, size=4), rng.normal(size=4)
    _, hvp = transpyle.jvp(transpyle.grad(scalar_loop, backend="numpy"), (x,), (v,), backend="numpy")
    assert_close(hvp, transpyle.hessian(scalar_loop, backend="numpy")(x) @ v, rtol=1e-10, atol=1e-10)


def array_overwritten_in_a_loop(x):
    v = x.copy()
    for i in range(3):
        v = np.sin(v) * x         # the gradient code keeps each v on a tape of arrays
    return np.sum(v * v)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_hessian_through_a_tape_of_arrays(backend, rng):
    x = rng.uniform(0.3, 0.9, size=4)
    hess = transpyle.hessian(array_overwritten_in_a_loop, backend=backend)(x)
    assert_close(hess, fd_jacobian(transpyle.grad(array_overwritten_in_a_loop, backend="numpy"), x))


def test_vjp_of_a_transformed_function_is_refused():
    with pytest.raises(transpyle.TranspileError, match="vjp"):
        transpyle.vjp(transpyle.grad(scalar_loop), np.ones(3))


def roots_and_branches(a):
    """A vector output whose entries come from while loops (own trip counts) and branches."""
    out = np.empty(a.shape[0])
    for i in range(a.shape[0]):
        z = 1.0
        k = 0
        while abs(z * z - a[i]) > 1e-13 * a[i] and k < 60:
            z = 0.5 * (z + a[i] / z)
            k += 1
        if a[(i + 1) % a.shape[0]] > 1.0:
            out[i] = z * a[(i + 1) % a.shape[0]]
        else:
            out[i] = z - math.log(a[i])
    return out


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_jacrev_carries_all_output_directions_in_one_sweep(backend, rng):
    a = rng.uniform(0.5, 3.0, size=7)
    jac = transpyle.jacrev(roots_and_branches, backend=backend)(a)
    assert_close(jac, fd_jacobian(roots_and_branches, a))
    assert_close(jac, transpyle.jacfwd(roots_and_branches, backend=backend)(a), rtol=1e-10, atol=1e-12)
    text = transpyle.show(roots_and_branches, mode="jacrev", args=(a,))
    assert "all output directions at once" in text and "_vjp_vmap(" in text


def mixed_arguments(a, v, c):
    """Matrix, vector and scalar arguments, a vector output through a loop."""
    out = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            out[i] += math.sin(a[i, j] * v[j]) * c
    return out * np.sum(v)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
@pytest.mark.parametrize("mode", ["jacfwd", "jacrev"])
def test_vector_mode_with_several_arguments_of_every_rank(mode, backend, rng):
    transform = getattr(transpyle, mode)
    a, v, c = rng.normal(size=(3, 4)), rng.normal(size=4), float(rng.uniform(0.5, 2.0))
    ja, jv, jc = transform(mixed_arguments, argnums=(0, 1, 2), backend=backend)(a, v, c)
    assert ja.shape == (3, 3, 4) and jv.shape == (3, 4) and jc.shape == (3,)
    assert_close(ja, fd_jacobian(lambda m: mixed_arguments(m, v, c), a))
    assert_close(jv, fd_jacobian(lambda u: mixed_arguments(a, u, c), v))
    assert_close(jc, fd_jacobian(lambda t: mixed_arguments(a, v, t), c))
    text = transpyle.show(mixed_arguments, mode=mode, argnums=(0, 1, 2), args=(a, v, c))
    assert "at once" in text


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_jacfwd_of_a_scalar_output_and_of_a_scalar_input(backend, rng):
    x = rng.normal(size=6)
    assert_close(transpyle.jacfwd(scalar_loop, backend=backend)(x), fd_jacobian(scalar_loop, x))

    def curve(t, x):
        return np.sin(x * t) * t
    t = float(rng.uniform(0.5, 1.5))
    assert_close(transpyle.jacfwd(curve, backend=backend)(t, x), fd_jacobian(lambda s: curve(s, x), t))


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_jacrev_splits_many_output_directions_between_threads(backend, rng):
    y0, k = rng.normal(size=40), 0.8        # 40 directions: two chunks where two threads run
    jac = transpyle.jacrev(ode_states, backend=backend)(y0, k)
    assert_close(jac, transpyle.jacfwd(ode_states, backend=backend)(y0, k), rtol=1e-10, atol=1e-12)
    assert_close(jac[:, :3], fd_jacobian(lambda v: ode_states(v, k), y0)[:, :3])
