"""What ported JAX code relies on, one construct at a time (numpy backend): defaults and static
arguments, methods and callable objects, closures given to transforms, imports and print in the body,
map, shapes, eager ``.at`` updates and the types of results."""
import numpy as np
import pytest

import transpyle as jax
import transpyle.numpy as jnp
from transpyle.base.arrays import Array

BACKEND = "numpy"


def scaled(x, scale=2.0):
    return jnp.sum(x * scale)


def keyword_only(x, *, shift=1.0):
    return jnp.sum(x + shift)


def maybe_shifted(x, shift=None):
    if shift is None:
        return jnp.sum(x)
    return jnp.sum(x - shift)


def test_defaults_apply_in_every_transform():
    x = np.arange(3.0)
    assert jax.jit(scaled, backend=BACKEND)(x) == 6.0
    np.testing.assert_array_equal(jax.grad(scaled, backend=BACKEND)(x), [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(jax.vmap(scaled, backend=BACKEND)(np.ones((2, 3))), [6.0, 6.0])  # not batched
    assert jax.jit(keyword_only, backend=BACKEND)(x) == 6.0
    assert jax.jit(keyword_only, backend=BACKEND)(x, shift=2.0) == 9.0
    assert jax.jit(maybe_shifted, backend=BACKEND)(x) == 3.0
    assert jax.jit(maybe_shifted, backend=BACKEND)(x, 1.0) == 0.0
    assert jax.jit(maybe_shifted, static_argnums=1, backend=BACKEND)(x, None) == 3.0


def test_a_transform_in_the_body_takes_the_defaults():
    def body(x):
        return jax.grad(scaled)(x) + jax.jit(maybe_shifted)(x)
    np.testing.assert_array_equal(jax.jit(body, backend=BACKEND)(np.arange(3.0)), [5.0, 5.0, 5.0])


def cast_sum(x, dtype):
    return jnp.sum(x.astype(dtype))


def test_static_types_and_functions():
    x = np.array([1.5, 2.5])
    assert jax.jit(cast_sum, static_argnums=1, backend=BACKEND)(x, int) == 3
    assert jax.jit(cast_sum, static_argnums=1, backend=BACKEND)(x, jnp.float32).dtype == np.float32
    apply = jax.jit(lambda v, f: jnp.sum(f(v)), static_argnums=1, backend=BACKEND)
    assert apply(x, jnp.tanh) == pytest.approx(np.tanh(x).sum())


class Scaler:
    def __init__(self, w):
        self.w = w

    def __call__(self, x):
        return jnp.sum(self.w * x ** 2)

    def energy(self, x):
        return self(x) + jnp.sum(self.w)


def test_methods_and_callable_objects():
    model = Scaler(np.array([1.0, 2.0]))
    x = np.array([3.0, 4.0])
    np.testing.assert_array_equal(jax.grad(model, backend=BACKEND)(x), [6.0, 16.0])
    energy = jax.jit(model.energy, backend=BACKEND)
    assert energy(x) == 9.0 + 32.0 + 3.0
    model.w = np.array([0.0, 1.0])          # arrays read from the instance are read at each call
    assert energy(x) == 16.0 + 1.0


def test_closures_given_to_transforms_in_the_body():
    def f(W, xs):
        offset = 1.0

        def one(x, k=2.0):
            return k * jnp.dot(W, x) + offset
        return jax.vmap(one)(xs), jax.vmap(lambda x: jnp.sum(W * x))(xs)
    W, xs = np.array([1.0, -1.0]), np.array([[1.0, 2.0], [3.0, 5.0]])
    a, b = jax.jit(f, backend=BACKEND)(W, xs)
    np.testing.assert_array_equal(a, 2.0 * xs @ W + 1.0)
    np.testing.assert_array_equal(b, xs @ W)


def imports_in_the_body(x):
    import numpy as onp
    from transpyle import numpy as tnp
    return tnp.sum(onp.sin(x))


def test_imports_in_the_body_bind_their_names():
    assert jax.jit(imports_in_the_body, backend=BACKEND)(np.zeros(3)) == 0.0
    np.testing.assert_allclose(jax.grad(imports_in_the_body, backend=BACKEND)(np.zeros(3)), np.ones(3))


def printing(x):
    print("x is", x, "sum", jnp.sum(x))
    return jnp.sum(x)


def test_print_runs_at_each_call_under_jit(capsys):
    f = jax.jit(printing, backend=BACKEND)
    f(np.ones(2))
    f(np.zeros(2))
    assert capsys.readouterr().out.splitlines() == ["x is [1. 1.] sum 2.0", "x is [0. 0.] sum 0.0"]
    jax.grad(printing, backend=BACKEND)(np.ones(2))         # other transforms drop it
    assert capsys.readouterr().out == ""


def square(v):
    return v * v


def test_map_and_shapes_under_jit():
    batch = np.arange(6.0).reshape(2, 3)
    f = jax.jit(lambda b: jnp.stack(list(map(square, b))), backend=BACKEND)
    np.testing.assert_array_equal(f(batch), batch ** 2)
    sizes = jax.jit(lambda b: jnp.sum(b) / np.prod(b.shape) + np.prod(b.shape[1:]), backend=BACKEND)
    assert sizes(batch) == batch.mean() + 3


def test_eager_at_updates_return_new_arrays():
    x = jnp.zeros(4)
    y = x.at[jnp.array([1, 1, 3])].add(1.0)
    assert type(y) is Array and type(x) is Array
    np.testing.assert_array_equal(x, 0.0)
    np.testing.assert_array_equal(y, [0.0, 2.0, 0.0, 1.0])
    np.testing.assert_array_equal(y.at[1:].set(5.0).at[0].max(-1.0), [0.0, 5.0, 5.0, 5.0])
    assert float(y.at[1].get()) == 2.0
    assert type(jnp.sin(np.ones(2))) is Array and type(np.ones(2) + y[:2]) is Array


def test_transforms_take_arrays_with_at_and_return_them():
    f = jax.jit(lambda v: v.at[0].set(1.0) * 2.0, backend=BACKEND)
    x = jnp.zeros(3)
    for _ in range(2):                        # the first call and the fast path
        out = f(x)
        assert type(out) is Array
        np.testing.assert_array_equal(out, [2.0, 0.0, 0.0])
    assert type(f(np.zeros(3))) is np.ndarray


def test_scalar_results_are_numpy_scalars():
    jitted = jax.jit(square, backend=BACKEND)(3.0)
    derivative = jax.grad(square, backend=BACKEND)(3.0)
    value = jax.value_and_grad(square, backend=BACKEND)(3.0)[0]
    tangent = jax.jvp(square, (3.0,), (1.0,), backend=BACKEND)[1]
    length = jax.jit(len_of_rows, backend=BACKEND)(np.ones(4))
    for r in (jitted, derivative, value, tangent, length):
        assert r.shape == () and r.dtype.kind in "fi" and isinstance(r.item(), (float, int)), type(r)
    assert float(derivative) == 6.0 and float(jitted) == 9.0 and int(length) == 4


def len_of_rows(x):
    return x.shape[0]


def sgd_dict(params, grads):
    return {k: v - 0.5 * grads[k] for k, v in params.items()}


def test_comprehensions_over_pytrees_are_unrolled():
    params, grads = {"b": np.zeros(2), "W": np.ones((2, 2))}, {"b": np.ones(2), "W": np.ones((2, 2))}
    out = jax.jit(sgd_dict, backend=BACKEND)(params, grads)
    assert sorted(out) == ["W", "b"]
    np.testing.assert_array_equal(out["W"], 0.5)
    np.testing.assert_array_equal(out["b"], -0.5)


def test_lambdas_inside_larger_expressions():
    transformed = [jax.jit(lambda v: v * 2.0, backend=BACKEND),
                   jax.grad(lambda v: v * v * v,
                            backend=BACKEND)]
    assert [float(f(3.0)) for f in transformed] == [6.0, 27.0]
