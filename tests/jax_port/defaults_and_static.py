"""Default arguments and static arguments as ported code uses them: a loss whose data are default
arguments, a regularization weight left to its default, an activation chosen by a string and a dtype
passed statically, an optional argument that defaults to None."""
import numpy as np

import transpyle as jax
import transpyle.numpy as jnp

rng = np.random.default_rng(5)
X_train = rng.normal(size=(50, 3))
y_train = X_train @ np.array([0.5, -1.0, 2.0]) + 0.1 * rng.normal(size=50)
X_test = rng.normal(size=(20, 3))
y_test = X_test @ np.array([0.5, -1.0, 2.0])


def loss(w, X=X_train, y=y_train, lam=0.01):
    return jnp.mean((X @ w - y) ** 2) + lam * jnp.sum(w ** 2)


def apply(w, x, activation="tanh"):
    z = jnp.dot(x, w)
    if activation == "tanh":
        return jnp.tanh(z)
    if activation == "relu":
        return jnp.maximum(z, 0.0)
    return z


def cast_sum(x, dtype=jnp.float32):
    return jnp.sum(x.astype(dtype))


def shifted(x, shift=None):
    if shift is None:
        return jnp.sum(x ** 2)
    return jnp.sum((x - shift) ** 2)


def main():
    w = jnp.array([0.2, -0.4, 1.0])
    values = {
        "train": jax.jit(loss)(w),
        "test": jax.jit(loss)(w, X_test, y_test),
        "no_reg": jax.jit(loss)(w, lam=0.0),
        "grad_train": jax.grad(loss)(w),
        "grad_test": jax.grad(loss)(w, X_test, y_test, 0.1),
        "tanh": jax.jit(apply, static_argnames="activation")(w, X_test[:3]),
        "relu": jax.jit(apply, static_argnames="activation")(w, X_test[:3], activation="relu"),
        "linear": jax.jit(apply, static_argnums=2)(w, X_test[:3], "linear"),
        "float32": jax.jit(cast_sum, static_argnums=1)(X_test[0], jnp.float32),
        "float": jax.jit(cast_sum, static_argnames="dtype")(X_test[0], dtype=float),
        "none": jax.jit(shifted)(w),
        "shift": jax.grad(shifted)(w, 1.0),
    }
    print({k: np.round(np.asarray(v), 4).tolist() for k, v in values.items()})
    return dict(values, w=w)


if __name__ == "__main__":
    main()
