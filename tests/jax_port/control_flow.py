"""Structured control flow with lax, as JAX code writes it under jit: fori_loop, while_loop, cond and
switch, and a gradient taken through a fori_loop."""
import transpyle as jax
import transpyle.numpy as jnp
from transpyle import lax


@jax.jit
def newton_sqrt(a):
    def cond_fun(state):
        x, i = state
        return jnp.logical_and(jnp.abs(x * x - a) > 1e-12, i < 50)

    def body_fun(state):
        x, i = state
        return 0.5 * (x + a / x), i + 1

    x, _ = lax.while_loop(cond_fun, body_fun, (a, 0))
    return x


@jax.jit
def piecewise(x):
    return lax.cond(x > 0.0, lambda v: v ** 2, lambda v: -jnp.sin(v), x)


@jax.jit
def pick(i, x):
    return lax.switch(i, (lambda v: v + 1.0, lambda v: 2.0 * v, lambda v: v ** 3), x)


def logistic_map(r, x0):
    def body(i, x):
        return r * x * (1.0 - x)
    return lax.fori_loop(0, 20, body, x0)


d_logistic = jax.jit(jax.grad(logistic_map))


def polynomial(coefficients, x):
    def body(i, acc):
        return acc * x + coefficients[i]
    return lax.fori_loop(0, coefficients.shape[0], body, 0.0)


def main():
    roots = [newton_sqrt(a) for a in (2.0, 9.0, 0.25)]
    branches = [piecewise(x) for x in (-1.0, 0.5)]
    picks = [pick(i, 3.0) for i in range(3)]
    slope = d_logistic(3.2, 0.3)
    coefficients = jnp.array([2.0, -1.0, 0.5, 3.0])
    value = jax.jit(polynomial)(coefficients, 1.5)
    dvalue = jax.grad(polynomial, argnums=1)(coefficients, 1.5)
    print("sqrt", roots, "branches", branches, "picks", picks, "slope", slope, "poly", value, dvalue)
    return {"roots": roots, "branches": branches, "picks": picks, "slope": slope, "value": value,
            "dvalue": dvalue, "coefficients": coefficients}


if __name__ == "__main__":
    main()
