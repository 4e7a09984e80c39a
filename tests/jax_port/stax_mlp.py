"""The stax/flax pattern: an ``apply(params, x)`` for one example, batched once at module level with
``predict = vmap(apply, in_axes=(None, 0))``, called with a dict of parameters inside a differentiated
loss; integer labels picked per example inside vmapped code."""
import numpy as np

import transpyle as jax
import transpyle.numpy as jnp


def apply(params, x):
    h = jnp.tanh(jnp.dot(params["W1"], x) + params["b1"])
    logits = jnp.dot(params["W2"], h) + params["b2"]
    return logits - jnp.log(jnp.sum(jnp.exp(logits)))


predict = jax.vmap(apply, in_axes=(None, 0))


def nll(params, x, label):
    return -apply(params, x)[label]


def loss(params, xs, ys):
    log_probs = predict(params, xs)
    return -jnp.mean(jnp.sum(log_probs * ys, axis=1))


def label_loss(params, xs, labels):
    return jnp.mean(jax.vmap(nll, in_axes=(None, 0, 0))(params, xs, labels))


rng = np.random.default_rng(8)
params = {"W1": 0.5 * rng.normal(size=(5, 3)), "b1": np.zeros(5),
          "W2": 0.5 * rng.normal(size=(2, 5)), "b2": np.zeros(2)}
xs = rng.normal(size=(12, 3))
labels = (xs[:, 0] > 0).astype(np.int64)
ys = np.eye(2)[labels]


def main():
    value, grads = jax.jit(jax.value_and_grad(loss))(params, xs, ys)
    by_label = jax.grad(label_loss)(params, xs, labels)
    print("loss", value, "grad of W1", grads["W1"].shape)
    return {"value": value, "grads": grads, "by_label": by_label}


if __name__ == "__main__":
    main()
