"""Explicit PRNG keys as JAX has them: split, draw, and the same key giving the same numbers, eagerly
and under jit; a Monte-Carlo estimate of pi."""
import transpyle as jax
import transpyle.numpy as jnp
from transpyle import random


@jax.jit
def estimate_pi(xs, ys):
    inside = (xs ** 2 + ys ** 2) <= 1.0
    return 4.0 * jnp.mean(inside)


@jax.jit
def noisy(key, x):
    return x + 0.1 * random.normal(key, x.shape)


def main():
    key = random.PRNGKey(42)
    key, subkey = random.split(key)
    a = random.normal(subkey, (1000,))
    again = random.normal(subkey, (1000,))
    key, kx, ky = random.split(key, 3)
    xs = random.uniform(kx, (20000,))
    ys = random.uniform(ky, (20000,))
    pi = estimate_pi(xs, ys)
    coin = random.bernoulli(key, 0.3, (5000,))
    order = random.permutation(key, 10)
    eager = jnp.ones(4) + 0.1 * random.normal(key, (4,))
    jitted = noisy(key, jnp.ones(4))
    spread = jnp.sqrt(jnp.mean((a - jnp.mean(a)) ** 2))
    print("pi", pi, "mean", jnp.mean(a), "spread", spread, "coin", jnp.mean(coin))
    return {"a": a, "again": again, "xs": xs, "ys": ys, "pi": pi, "coin": coin, "order": order,
            "eager": eager, "jitted": jitted, "key": key}


if __name__ == "__main__":
    main()
