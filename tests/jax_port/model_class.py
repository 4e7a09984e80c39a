"""A model written as a class, its loss and prediction as methods that read arrays from ``self``: grad
and jit of bound methods, an instance called like a function, and a jitted fitting method with the
number of steps static."""
import numpy as np

import transpyle as jax
import transpyle.numpy as jnp


class RidgeRegression:
    def __init__(self, inputs, targets, lam=0.1):
        self.inputs = inputs
        self.targets = targets
        self.lam = lam

    def predict(self, w, inputs):
        return jnp.dot(inputs, w)

    def loss(self, w):
        residual = self.predict(w, self.inputs) - self.targets
        return 0.5 * jnp.mean(residual ** 2) + 0.5 * self.lam * jnp.sum(w ** 2)

    def __call__(self, w):
        return self.loss(w)

    def fit(self, w, steps, learning_rate=0.2):
        g = jax.grad(self.loss)
        for _ in range(steps):
            w = w - learning_rate * g(w)
        return w


rng = np.random.default_rng(3)
X = rng.normal(size=(40, 4))
y = X @ np.array([1.0, 0.0, -2.0, 0.5]) + 0.1 * rng.normal(size=40)
model = RidgeRegression(X, y, lam=0.05)


def main():
    w0 = jnp.zeros(4)
    g = jax.grad(model.loss)(w0)
    value, g_call = jax.value_and_grad(model)(w0)
    w = jax.jit(model.fit, static_argnums=1)(w0, 500)
    predictions = jax.jit(model.predict)(w, X[:5])
    print("gradient at 0", g, "fitted", w, "loss", model.loss(w))
    return {"g": g, "value": value, "g_call": g_call, "w": w, "predictions": predictions}


if __name__ == "__main__":
    main()
