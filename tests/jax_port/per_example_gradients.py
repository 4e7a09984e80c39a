"""Per-example gradients of logistic regression with vmap(grad(...)), jitted, as in the JAX
"autodiff cookbook"."""
import numpy as np

import transpyle as jax
import transpyle.numpy as jnp


def sigmoid(z):
    return 0.5 * (jnp.tanh(z / 2) + 1)


def example_loss(w, x, label):
    p = sigmoid(jnp.dot(w, x))
    return -(label * jnp.log(p) + (1 - label) * jnp.log(1 - p))


per_example_grads = jax.jit(jax.vmap(jax.grad(example_loss), in_axes=(None, 0, 0)))


def mean_loss(w, xs, ys):
    return jnp.mean(jax.vmap(example_loss, in_axes=(None, 0, 0))(w, xs, ys))


rng = np.random.default_rng(2)
inputs = rng.normal(size=(16, 3))
targets = (rng.uniform(size=16) < 0.5).astype(np.float64)


def main():
    w = jnp.array([0.3, -0.2, 0.8])
    grads = per_example_grads(w, inputs, targets)
    total = jax.grad(mean_loss)(w, inputs, targets)
    print("per-example", grads.shape, "mean of them", jnp.mean(grads, axis=0), "grad of mean", total)
    return {"w": w, "grads": grads, "total": total}


if __name__ == "__main__":
    main()
