"""Functions made by functions: a loss closed over its data, lambdas and nested functions given to
grad and vmap inside jitted code, closing over the enclosing function's arrays."""
import numpy as np

import transpyle as jax
import transpyle.numpy as jnp


def make_loss(inputs, targets):
    def loss(w):
        return jnp.mean((jnp.dot(inputs, w) - targets) ** 2)
    return loss


@jax.jit
def layer_sum(W, xs):
    return jnp.sum(jax.vmap(lambda x: jnp.tanh(jnp.dot(W, x)))(xs))


@jax.jit
def input_gradients(W, xs):
    def score(x):
        return jnp.sum(jnp.tanh(jnp.dot(W, x)) ** 2)
    return jax.vmap(jax.grad(score))(xs)


def scaled_norm(W, x, scale):
    return jax.grad(lambda v: scale * jnp.sum(jnp.dot(W, v) ** 2))(x)


rng = np.random.default_rng(4)
A = rng.normal(size=(30, 3))
b = rng.normal(size=30)
W = rng.normal(size=(2, 3))
xs = rng.normal(size=(5, 3))


def main():
    loss = make_loss(A, b)
    w = jnp.array([0.1, 0.2, -0.3])
    g = jax.grad(loss)(w)
    total = layer_sum(W, xs)
    per_input = input_gradients(W, xs)
    g_lambda = jax.jit(scaled_norm)(W, xs[0], 0.5)
    print("grad", g, "sum", total, "input gradients", per_input.shape, "scaled", g_lambda)
    return {"w": w, "g": g, "total": total, "per_input": per_input, "g_lambda": g_lambda}


if __name__ == "__main__":
    main()
