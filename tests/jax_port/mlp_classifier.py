"""A multi-layer perceptron as in JAX's "training a simple neural network" tutorial: parameters are a
list of (W, b) tuples made with explicit PRNG keys, the per-example prediction is vmapped over a
batch, and a jitted update steps each layer by its gradient in a list comprehension."""
import numpy as np

import transpyle as jax
import transpyle.numpy as jnp
from transpyle import random


def random_layer_params(m, n, key, scale=1e-1):
    w_key, b_key = random.split(key)
    return scale * random.normal(w_key, (n, m)), scale * random.normal(b_key, (n,))


def init_network_params(sizes, key):
    keys = random.split(key, len(sizes))
    return [random_layer_params(m, n, k) for m, n, k in zip(sizes[:-1], sizes[1:], keys)]


def relu(x):
    return jnp.maximum(0, x)


def logsumexp(x):
    top = jnp.max(x)
    return top + jnp.log(jnp.sum(jnp.exp(x - top)))


def predict(params, image):
    activations = image
    for w, b in params[:-1]:
        outputs = jnp.dot(w, activations) + b
        activations = relu(outputs)
    final_w, final_b = params[-1]
    logits = jnp.dot(final_w, activations) + final_b
    return logits - logsumexp(logits)


batched_predict = jax.vmap(predict, in_axes=(None, 0))


def one_hot(x, k, dtype=jnp.float64):
    return jnp.array(x[:, None] == jnp.arange(k), dtype)


def accuracy(params, images, targets):
    target_class = jnp.argmax(targets, axis=1)
    predicted_class = jnp.argmax(batched_predict(params, images), axis=1)
    return jnp.mean(predicted_class == target_class)


def loss(params, images, targets):
    preds = batched_predict(params, images)
    return -jnp.mean(preds * targets)


step_size = 0.5


@jax.jit
def update(params, x, y):
    grads = jax.grad(loss)(params, x, y)
    return [(w - step_size * dw, b - step_size * db) for (w, b), (dw, db) in zip(params, grads)]


layer_sizes = [4, 8, 3]
data_rng = np.random.default_rng(1)
labels = data_rng.integers(0, 3, size=60)
centers = np.array([[2.0, 0.0, 0.0, 1.0], [0.0, 2.0, 1.0, 0.0], [-2.0, -2.0, 0.0, 0.0]])
images = centers[labels] + 0.5 * data_rng.normal(size=(60, 4))
targets = one_hot(labels, 3)


def main(epochs=30):
    params = init_network_params(layer_sizes, random.PRNGKey(0))
    start = loss(params, images, targets)
    for _ in range(epochs):
        params = update(params, images, targets)
    train_acc = accuracy(params, images, targets)
    final = loss(params, images, targets)
    print("loss", start, "->", final, "accuracy", train_acc)
    return {"params": params, "start": start, "loss": final, "accuracy": train_acc}


if __name__ == "__main__":
    main()
