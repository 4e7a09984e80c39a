"""Functional updates ``x.at[idx]`` on arrays outside and inside jitted code: a tridiagonal matrix
built eagerly, a histogram by scatter-add with repeated indices, clipping by ``.min``/``.max``, and
the same updates in a jitted function."""
import transpyle as jax
import transpyle.numpy as jnp


def tridiagonal(n):
    A = jnp.zeros((n, n))
    for i in range(n):
        A = A.at[i, i].set(2.0)
        if i + 1 < n:
            A = A.at[i, i + 1].set(-1.0)
            A = A.at[i + 1, i].set(-1.0)
    return A


@jax.jit
def smooth(x):
    y = x.at[0].set(0.0)
    y = y.at[-1].set(0.0)
    y = y.at[1:-1].add(0.5 * (x[:-2] + x[2:]))
    return y


@jax.jit
def bump(x, i):
    return x.at[i].multiply(3.0)


def main():
    A = tridiagonal(5)
    bins = jnp.array([0, 2, 2, 1, 4, 2, 0])
    counts = jnp.zeros(5).at[bins].add(1.0)
    x = jnp.array([3.0, -1.0, 7.0, 0.5])
    capped = x.at[2].min(4.0)
    floored = x.at[1].max(0.0)
    scaled = x.at[0].multiply(2.0)
    second = x.at[1].get()
    smoothed = smooth(jnp.linspace(0.0, 1.0, 6))
    bumped = bump(x, 2)
    print("A", A, "counts", counts, "capped", capped, "smoothed", smoothed)
    return {"A": A, "counts": counts, "x": x, "capped": capped, "floored": floored, "scaled": scaled,
            "second": second, "smoothed": smoothed, "bumped": bumped}


if __name__ == "__main__":
    main()
