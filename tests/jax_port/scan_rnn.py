"""A recurrent network written with lax.scan, its parameters a tuple, trained by the gradient of a
loss over a sequence; and a running sum by scan."""
import numpy as np

import transpyle as jax
import transpyle.numpy as jnp
from transpyle import lax


def rnn_loss(params, xs, targets):
    Wh, Wx, Wo = params

    def step(h, x):
        h = jnp.tanh(jnp.dot(Wh, h) + jnp.dot(Wx, x))
        return h, jnp.dot(Wo, h)

    _, outputs = lax.scan(step, jnp.zeros(Wh.shape[0]), xs)
    return jnp.mean((outputs - targets) ** 2)


def running_sum(xs):
    def step(total, x):
        total = total + x
        return total, total
    return lax.scan(step, 0.0, xs)


rng = np.random.default_rng(7)
params = (0.5 * rng.normal(size=(3, 3)), 0.5 * rng.normal(size=(3, 2)), 0.5 * rng.normal(size=3))
xs = rng.normal(size=(6, 2))
targets = rng.normal(size=6)


def main():
    value, grads = jax.jit(jax.value_and_grad(rnn_loss))(params, xs, targets)
    total, partial = jax.jit(running_sum)(jnp.arange(1.0, 6.0))
    print("loss", value, "grad norms", [float(jnp.linalg.norm(g)) for g in grads], "sums", partial)
    return {"value": value, "grads": grads, "total": total, "partial": partial}


if __name__ == "__main__":
    main()
