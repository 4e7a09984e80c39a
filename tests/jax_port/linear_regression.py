"""Linear regression by gradient descent, as the JAX tutorials start: a jitted update step takes the
gradient of a mean-squared loss that reads the data from module level."""
import numpy as np

import transpyle as jax
import transpyle.numpy as jnp

rng = np.random.default_rng(0)
X = rng.normal(size=(100, 3))
true_w = np.array([2.0, -3.4, 1.5])
y = X @ true_w + 4.2 + 0.01 * rng.normal(size=100)


def predict(w, b, inputs):
    return jnp.dot(inputs, w) + b


def loss(w, b):
    return jnp.mean((predict(w, b, X) - y) ** 2)


@jax.jit
def update(w, b, learning_rate):
    dw, db = jax.grad(loss, argnums=(0, 1))(w, b)
    return w - learning_rate * dw, b - learning_rate * db


def main(steps=300):
    w = jnp.zeros(3)
    b = 0.0
    for _ in range(steps):
        w, b = update(w, b, 0.1)
    final = loss(w, b)
    print("w:", w, "b:", b, "loss:", final)
    return {"w": w, "b": b, "loss": final}


if __name__ == "__main__":
    main()
