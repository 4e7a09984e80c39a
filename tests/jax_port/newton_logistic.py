"""Newton's method for L2-regularized logistic regression with jax.hessian and jax.grad of a loss that
reads its data from module level; and the Hessian of a function that itself calls grad."""
import numpy as np

import transpyle as jax
import transpyle.numpy as jnp

rng = np.random.default_rng(6)
X = rng.normal(size=(80, 3))
labels = (X @ np.array([1.5, -2.0, 0.5]) + 0.3 * rng.normal(size=80) > 0).astype(np.float64)
lam = 0.1


def loss(w):
    z = X @ w
    return jnp.mean(jnp.log1p(jnp.exp(z)) - labels * z) + 0.5 * lam * jnp.sum(w ** 2)


def gradient_energy(w):
    g = jax.grad(loss)(w)
    return 0.5 * jnp.sum(g ** 2)


@jax.jit
def gradient_and_hessian(w):
    return jax.grad(loss)(w), jax.hessian(loss)(w)


def main(steps=8):
    w = jnp.zeros(3)
    for _ in range(steps):
        g, H = gradient_and_hessian(w)
        w = w - np.linalg.solve(H, g)
    H = jax.hessian(loss)(w)
    energy_hessian = jax.hessian(gradient_energy)(jnp.array([0.1, -0.2, 0.3]))
    print("w", w, "gradient", jax.grad(loss)(w), "hessian diagonal", jnp.diag(H))
    return {"w": w, "H": H, "energy_hessian": energy_hessian}


if __name__ == "__main__":
    main()
