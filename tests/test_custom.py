"""custom_jvp and custom_vjp: a call in transformed code uses the function's own rule, in reverse
mode, forward mode, inside loops (residuals on tapes), helpers, vmap and jit; outside transforms
the function runs its body."""
import functools
import re

import numpy as np
import pytest

import transpyle
from gradcheck import ALL_BACKENDS, assert_matches_fd, check_grad, check_jvp, check_vjp


# ---- custom_vjp: f(x, y) = sin(x) y with its exact rule ------------------------------------------
@transpyle.custom_vjp
def sin_times(x, y):
    return np.sin(x) * y


def sin_times_fwd(x, y):
    return sin_times(x, y), (np.cos(x), np.sin(x), y)


def sin_times_bwd(res, g):
    cos_x, sin_x, y = res
    return (cos_x * g * y, sin_x * g)


sin_times.defvjp(sin_times_fwd, sin_times_bwd)


def sin_times_squared(x, y):
    return sin_times(x, y) ** 2


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_custom_vjp_with_exact_rule_matches_finite_differences(backend, rng):
    x, y = rng.normal(size=2)
    check_grad(sin_times_squared, (float(x), float(y)), argnums=(0, 1), backend=backend)


def test_custom_vjp_function_runs_its_body_outside_transforms(rng):
    x, y = rng.normal(size=2)
    assert sin_times(x, y) == np.sin(x) * y
    assert isinstance(sin_times, transpyle.custom_vjp) and sin_times.__name__ == "sin_times"


def test_grad_of_the_custom_function_itself(rng):
    x, y = rng.normal(size=2)
    gx, gy = transpyle.grad(sin_times, argnums=(0, 1), backend="numpy")(x, y)
    assert gx == pytest.approx(np.cos(x) * y, rel=1e-14)
    assert gy == pytest.approx(np.sin(x), rel=1e-14)


# ---- the rule, not the body, is differentiated ----------------------------------------------------
@transpyle.custom_vjp
def clip_gradient(x):
    return x


def clip_gradient_fwd(x):
    return x, ()


def clip_gradient_bwd(res, g):
    return (np.clip(g, -1.0, 1.0),)


clip_gradient.defvjp(clip_gradient_fwd, clip_gradient_bwd)


def clipped_loss(w):
    return np.sum(clip_gradient(w) ** 2)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_gradient_clipping_in_the_backward_pass(backend, rng):
    w = rng.normal(scale=2.0, size=7)
    got = transpyle.grad(clipped_loss, backend=backend)(w)
    np.testing.assert_allclose(got, np.clip(2 * w, -1.0, 1.0), rtol=1e-15)
    assert transpyle.jit(clipped_loss, backend=backend)(w) == pytest.approx(np.sum(w ** 2))


@transpyle.custom_vjp
def round_through(x):
    return np.round(x)


def round_through_fwd(x):
    return np.round(x), ()


def round_through_bwd(res, g):
    return (g,)


round_through.defvjp(round_through_fwd, round_through_bwd)


def quantized_loss(w, x, y):
    r = x @ round_through(w * 4.0) / 4.0 - y
    return np.sum(r * r)


def test_straight_through_estimator(rng):
    w, x, y = rng.normal(size=3), rng.normal(size=(5, 3)), rng.normal(size=5)
    q = np.round(w * 4.0) / 4.0
    value, got = transpyle.value_and_grad(quantized_loss, backend="numpy")(w, x, y)
    assert value == pytest.approx(float(np.sum((x @ q - y) ** 2)))
    np.testing.assert_allclose(got, 2 * x.T @ (x @ q - y), rtol=1e-12)    # d round / dw read as 1


# ---- custom_jvp: numerically stable rules -----------------------------------------------------------
@transpyle.custom_jvp
def log1pexp(x):
    return np.log(1.0 + np.exp(x))


@log1pexp.defjvp
def log1pexp_jvp(primals, tangents):
    x, = primals
    dx, = tangents
    return log1pexp(x), dx * (1.0 - 1.0 / (1.0 + np.exp(x)))


def softplus_sum(x):
    return np.sum(log1pexp(x))


def plain_log1pexp(x):
    return np.log(1.0 + np.exp(x))


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_custom_jvp_gives_a_finite_gradient_where_the_body_overflows(backend):
    with np.errstate(over="ignore", invalid="ignore"):
        assert np.isnan(transpyle.grad(plain_log1pexp, backend=backend)(1000.0))
        assert transpyle.grad(log1pexp, backend=backend)(1000.0) == 1.0
        x = np.array([-1000.0, 0.0, 1000.0])
        np.testing.assert_allclose(transpyle.grad(softplus_sum, backend=backend)(x), [0.0, 0.5, 1.0])


def test_custom_jvp_in_both_modes_matches_finite_differences(rng):
    x = rng.normal(size=4)
    got = check_grad(softplus_sum, (x,))
    np.testing.assert_allclose(got, 1 / (1 + np.exp(-x)), rtol=1e-12)
    check_jvp(softplus_sum, (x,), 0, rng)
    check_vjp(log1pexp, (x,), rng)
    np.testing.assert_allclose(transpyle.jacfwd(log1pexp, backend="numpy")(x), np.diag(1 / (1 + np.exp(-x))),
                               rtol=1e-12)
    np.testing.assert_allclose(transpyle.jacrev(log1pexp, backend="numpy")(x), np.diag(1 / (1 + np.exp(-x))),
                               rtol=1e-12)


def test_second_derivatives_differentiate_the_rule(rng):
    t = float(rng.normal())
    sigmoid = 1 / (1 + np.exp(-t))
    second = transpyle.grad(transpyle.grad(log1pexp, backend="numpy"), backend="numpy")(t)
    assert second == pytest.approx(sigmoid * (1 - sigmoid), rel=1e-12)
    x = rng.normal(size=3)
    s = 1 / (1 + np.exp(-x))
    np.testing.assert_allclose(transpyle.hessian(softplus_sum, backend="numpy")(x), np.diag(s * (1 - s)), rtol=1e-12)


@transpyle.custom_jvp
def logsumexp(x):
    return np.log(np.sum(np.exp(x)))


@logsumexp.defjvp
def logsumexp_jvp(primals, tangents):
    x, = primals
    dx, = tangents
    m = np.max(x)
    e = np.exp(x - m)
    s = np.sum(e)
    return m + np.log(s), np.sum(e * dx) / s


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_stable_logsumexp(backend, rng):
    x = rng.normal(size=6) + 1000.0
    softmax = np.exp(x - x.max()) / np.sum(np.exp(x - x.max()))
    np.testing.assert_allclose(transpyle.grad(logsumexp, backend=backend)(x), softmax, rtol=1e-12)
    out, tangent = transpyle.jvp(logsumexp, (x,), (np.ones(6),), backend=backend)
    assert out == pytest.approx(x.max() + np.log(np.sum(np.exp(x - x.max()))), rel=1e-14)
    assert tangent == pytest.approx(1.0, rel=1e-12)


# ---- residuals in loops, helpers, several inputs -----------------------------------------------------
@transpyle.custom_vjp
def tanh_scaled(x, a):
    return np.tanh(a * x)


def tanh_scaled_fwd(x, a):
    t = np.tanh(a * x)
    return t, (t, x, a)


def tanh_scaled_bwd(res, g):
    t, x, a = res
    d = g * (1.0 - t * t)
    return (d * a, d * x)


tanh_scaled.defvjp(tanh_scaled_fwd, tanh_scaled_bwd)


def iterate_for(x, a, n):
    s = x
    for i in range(n):
        s = tanh_scaled(s, a) + 0.5 * s
    return s


def iterate_while(x, a):
    s = x
    k = 0
    while k < 4:
        s = tanh_scaled(s, a) * s + x
        k += 1
    return s


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_residuals_overwritten_in_loops_are_taped(backend, rng):
    x, a = rng.normal(size=2)
    check_grad(iterate_for, (float(x), float(a), 5), argnums=(0, 1), backend=backend)
    check_grad(iterate_while, (float(x), float(a)), argnums=(0, 1), backend=backend)
    assert "_tape" in transpyle.show(iterate_for, args=(0.1, 0.2, 3))


def helper(x, a):
    return tanh_scaled(x, a) * 2.0


def calls_a_helper(x, a):
    return helper(x, a) + helper(a, x)


def test_called_from_a_helper(rng):
    x, a = rng.normal(size=2)
    check_grad(calls_a_helper, (float(x), float(a)), argnums=(0, 1))


@transpyle.custom_vjp
def affine(w, x, b):
    return np.dot(w, x) + b


def affine_fwd(w, x, b):
    return affine(w, x, b), (w, x)


def affine_bwd(res, g):
    w, x = res
    return (np.outer(g, x), np.dot(np.transpose(w), g), g)


affine.defvjp(affine_fwd, affine_bwd)


def affine_loss(w, x, b):
    return np.sum(np.tanh(affine(w, x, b)))


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_array_inputs(backend, rng):
    w, x, b = rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=3)
    check_grad(affine_loss, (w, x, b), argnums=(0, 1, 2), backend=backend)
    check_vjp(affine, (w, x, b), rng, backend=backend)


def test_only_active_inputs_accumulate(rng):
    w, x, b = rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=3)
    check_grad(affine_loss, (w, x, b), argnums=1)
    code = transpyle.show(affine_loss, argnums=1, args=(w, x, b))
    # no adjoint of w at all; x's takes the rule's contribution (added, or assigned as its first write)
    assert "bw" not in code and re.search(r"bx(\[[^\]]*\])? \+?= ", code)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_vmap_of_grad(backend, rng):
    w, xs, b = rng.normal(size=(3, 4)), rng.normal(size=(5, 4)), rng.normal(size=3)
    per_example = transpyle.vmap(transpyle.grad(affine_loss, backend=backend), in_axes=(None, 0, None),
                                 backend=backend)(w, xs, b)
    for row, got in zip(xs, per_example):
        # atol: where tanh saturates an entry is ~1e-7, and Numba's rounding differs from NumPy's in the last bits
        np.testing.assert_allclose(got, transpyle.grad(affine_loss, backend="numpy")(w, row, b), rtol=1e-10,
                                   atol=1e-14)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_jit_runs_the_body(backend, rng):
    w, x, b = rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=3)
    assert transpyle.jit(affine_loss, backend=backend)(w, x, b) == pytest.approx(affine_loss(w, x, b), rel=1e-12,
                                                                                 abs=1e-14)
    np.testing.assert_allclose(transpyle.vmap(log1pexp, backend=backend)(x), np.log(1.0 + np.exp(x)), rtol=1e-13)


def two_outputs(x, y):
    return sin_times(x, y), sin_times(y, x) * 2.0


def test_vjp_of_a_tuple_output(rng):
    x, y = rng.normal(size=2)
    check_vjp(two_outputs, (float(x), float(y)), rng)


def test_jacrev_with_tuple_argnums(rng):
    w, x, b = rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=3)
    jw, jb = transpyle.jacrev(affine, argnums=(0, 2), backend="numpy")(w, x, b)
    np.testing.assert_allclose(jw, np.einsum("ij,k->ijk", np.eye(3), x), rtol=1e-15)
    np.testing.assert_allclose(jb, np.eye(3), rtol=1e-15)


def test_second_derivatives_differentiate_fwd_and_bwd(rng):
    x, y = rng.normal(size=2)
    second = transpyle.grad(transpyle.grad(sin_times, backend="numpy"), backend="numpy")(x, y)
    assert second == pytest.approx(-np.sin(x) * y, rel=1e-12)
    hess = transpyle.hessian(sin_times_squared, backend="numpy")(x, y)
    assert hess == pytest.approx(2 * y * y * np.cos(2 * x), rel=1e-12)


def doubled_gradient(x, y):
    g = transpyle.grad(sin_times_squared)
    return g(x, y) * 2.0


def test_a_gradient_taken_inside_transformed_code(rng):
    x, y = rng.normal(size=2)
    expected = 4 * np.sin(x) * np.cos(x) * y * y
    assert transpyle.jit(doubled_gradient, backend="numpy")(x, y) == pytest.approx(expected, rel=1e-12)
    assert transpyle.grad(doubled_gradient, backend="numpy")(x, y) == pytest.approx(4 * y * y * np.cos(2 * x),
                                                                                    rel=1e-12)


def test_inside_lax_loop(rng):
    x, a = rng.normal(size=2)

    def fori(x, a):
        return transpyle.lax.fori_loop(0, 3, lambda i, s: tanh_scaled(s, a) + s, x)
    got = transpyle.grad(fori, argnums=(0, 1), backend="numpy")(x, a)
    for i, g in enumerate(got):
        assert_matches_fd(g, fori, (float(x), float(a)), i)


# ---- errors ----------------------------------------------------------------------------------------
@transpyle.custom_vjp
def bad_bwd(x, y):
    return x * y


def bad_bwd_fwd(x, y):
    return x * y, (x, y)


def bad_bwd_bwd(res, g):
    x, y = res
    return (g * y,)                              # one cotangent for two inputs


bad_bwd.defvjp(bad_bwd_fwd, bad_bwd_bwd)


def uses_bad_bwd(x, y):
    return bad_bwd(x, y)


def test_wrong_number_of_cotangents_names_the_rule():
    with pytest.raises(transpyle.TranspileError) as err:
        transpyle.grad(uses_bad_bwd, backend="numpy")(1.0, 2.0)
    text = str(err.value)
    assert "test_custom.py" in text and "bad_bwd_bwd" in text and "return (g * y,)" in text
    assert "2 values" in text


def test_custom_vjp_in_forward_mode_is_an_error():
    with pytest.raises(transpyle.TranspileError) as err:
        transpyle.jvp(sin_times_squared, (1.0, 2.0), (1.0, 0.0), backend="numpy")
    text = str(err.value)
    assert "test_custom.py" in text and "sin_times(x, y) ** 2" in text and "custom_jvp" in text


def test_rule_missing():
    @transpyle.custom_jvp
    def no_rule(x):
        return x

    def uses(x):
        return no_rule(x) * 2.0
    with pytest.raises(transpyle.TranspileError, match="defjvp"):
        transpyle.grad(uses, backend="numpy")(1.0)
    assert transpyle.jit(uses, backend="numpy")(1.5) == 3.0


# ---- rules given as lambdas, calls with keywords and defaults ----------------------------------------
@transpyle.custom_vjp
def clip_above(x, top=1.0):
    return np.minimum(x, top)


clip_above.defvjp(lambda x, top: (np.minimum(x, top), x < top),
                  lambda res, g: (np.where(res, g, 0.1 * g), 0.0))      # a leak above the top


def leaky(x):
    return np.sum(clip_above(x) + clip_above(x, top=0.5) * 2.0)


def test_lambda_rules_keywords_and_defaults(rng):
    x = rng.uniform(-2.0, 2.0, size=8)
    expected = np.where(x < 1.0, 1.0, 0.1) + 2.0 * np.where(x < 0.5, 1.0, 0.1)
    np.testing.assert_allclose(transpyle.grad(leaky, backend="numpy")(x), expected, rtol=1e-15)
    assert transpyle.jit(leaky, backend="numpy")(x) == pytest.approx(leaky(x))


# ---- nondiff_argnums -----------------------------------------------------------------------------------
@functools.partial(transpyle.custom_vjp, nondiff_argnums=(0, 1))
def clip_between(lo, hi, x):
    return x


def clip_between_fwd(lo, hi, x):
    return x, ()


def clip_between_bwd(lo, hi, res, g):
    return (np.clip(g, lo, hi),)


clip_between.defvjp(clip_between_fwd, clip_between_bwd)


def clipped_by_step(w, n):
    s = 0.0
    for i in range(n):
        limit = 0.5 * (i + 1)
        s = s + np.sum(clip_between(-limit, limit, w) ** 2)
    return s


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_nondiff_values_reach_bwd_first(backend, rng):
    w = rng.normal(scale=2.0, size=5)
    expected = sum(np.clip(2 * w, -0.5 * (i + 1), 0.5 * (i + 1)) for i in range(3))
    np.testing.assert_allclose(transpyle.grad(clipped_by_step, backend=backend)(w, 3), expected, rtol=1e-15)


@functools.partial(transpyle.custom_jvp, nondiff_argnums=(0,))
def apply_fn(fn, x):
    return fn(x)


@apply_fn.defjvp
def apply_fn_jvp(fn, primals, tangents):
    x, = primals
    dx, = tangents
    return fn(x), 2.0 * dx                    # deliberately not fn's derivative: the rule is used


def square(v):
    return v * v


def applies_a_function(x):
    return apply_fn(square, x) + apply_fn(lambda v: np.sin(v), x)


def test_nondiff_function_argument(rng):
    x = float(rng.normal())
    assert transpyle.grad(applies_a_function, backend="numpy")(x) == 4.0
    assert transpyle.jvp(applies_a_function, (x,), (1.0,), backend="numpy") == (pytest.approx(x * x + np.sin(x)), 4.0)
    assert transpyle.jit(applies_a_function, backend="numpy")(x) == pytest.approx(x * x + np.sin(x))
    assert apply_fn(square, x) == x * x


@functools.partial(transpyle.custom_vjp, nondiff_argnums=(0,))
def apply_fn_vjp(fn, x):
    return fn(x)


def apply_fn_vjp_fwd(fn, x):
    return fn(x), (x,)


def apply_fn_vjp_bwd(fn, res, g):
    x, = res
    return (fn(x) * g,)                       # a made-up rule: the cotangent is fn(x) g


apply_fn_vjp.defvjp(apply_fn_vjp_fwd, apply_fn_vjp_bwd)


def applies_a_function_vjp(x):
    return apply_fn_vjp(square, x) * 3.0


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_nondiff_function_argument_of_custom_vjp(backend, rng):
    x = float(rng.normal())
    assert transpyle.grad(applies_a_function_vjp, backend=backend)(x) == pytest.approx(3 * x * x, rel=1e-15)


def test_forward_mode_past_a_nondiff_function_argument_of_custom_vjp():
    with pytest.raises(transpyle.TranspileError, match="apply_fn_vjp.*custom_jvp"):
        transpyle.jvp(applies_a_function_vjp, (0.5,), (1.0,), backend="numpy")


def applies_without_nondiff(x):
    return sin_times(square, x)


def test_a_function_argument_must_be_nondiff():
    with pytest.raises(transpyle.TranspileError, match="nondiff_argnums"):
        transpyle.grad(applies_without_nondiff, backend="numpy")(0.5)


def test_nondiff_argnums_out_of_range():
    with pytest.raises(transpyle.TranspileError, match="nondiff_argnums"):
        transpyle.custom_vjp(square, nondiff_argnums=(1,))


@transpyle.custom_jvp
def _sin_times(x, y):
    return np.sin(x) * y


_sin_times.defjvps(lambda tx, ans, x, y: np.cos(x) * tx * y, lambda ty, ans, x, y: np.sin(x) * ty)


@transpyle.custom_jvp
def _scaled_exp(x, c):
    return np.exp(x) * c


_scaled_exp.defjvps(lambda t, ans, x, c: ans * t, None)


def _with_per_argument_rules(x, y):
    return np.sum(_sin_times(x, y) + _scaled_exp(x, 2.0))


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_defjvps_rules_per_argument(backend, rng):
    x, y = rng.normal(size=3), rng.normal(size=3)
    gx, gy = transpyle.grad(_with_per_argument_rules, argnums=(0, 1), backend=backend)(x, y)
    np.testing.assert_allclose(gx, np.cos(x) * y + 2 * np.exp(x), rtol=1e-12)
    np.testing.assert_allclose(gy, np.sin(x), rtol=1e-12)
    _, t = transpyle.jvp(_with_per_argument_rules, (x, y), (np.zeros(3), np.ones(3)), backend=backend)
    assert t == pytest.approx(np.sum(np.sin(x)))


@transpyle.custom_vjp
def _clipped(lo, x):
    return x


def _clipped_fwd(lo, x):
    return x, lo


def bwd(lo, g):                         # named as JAX's examples name it; its cotangent for lo is None
    return None, np.clip(g, -lo, lo)


_clipped.defvjp(_clipped_fwd, bwd)


def _clipped_loss(x):
    return np.sum(_clipped(0.5, 3.0 * x) * x)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_a_bwd_rule_named_bwd_returning_none(backend, rng):
    x = rng.normal(size=4)
    np.testing.assert_allclose(transpyle.grad(_clipped_loss, backend=backend)(x), 3.0 * np.clip(x, -0.5, 0.5) + 3 * x,
                               rtol=1e-12)
