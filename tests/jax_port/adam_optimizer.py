"""An optimizer loop written by hand, as JAX users write one before reaching for a library: Adam on
the Rosenbrock function, with the parameters and the moment estimates as pytrees (a dict) and a jitted
step that takes the step number as an argument."""
import transpyle as jax
import transpyle.numpy as jnp


def rosenbrock(params):
    x, y = params["x"], params["y"]
    return (1.0 - x) ** 2 + 100.0 * (y - x ** 2) ** 2


def adam_init(params):
    zeros = jax.tree.map(lambda p: jnp.zeros_like(p), params)
    return zeros, zeros


@jax.jit
def adam_step(params, m, v, t, lr=0.02, b1=0.9, b2=0.999, eps=1e-8):
    grads = jax.grad(rosenbrock)(params)
    m = jax.tree.map(lambda mi, g: b1 * mi + (1 - b1) * g, m, grads)
    v = jax.tree.map(lambda vi, g: b2 * vi + (1 - b2) * g ** 2, v, grads)
    mhat = jax.tree.map(lambda mi: mi / (1 - b1 ** t), m)
    vhat = jax.tree.map(lambda vi: vi / (1 - b2 ** t), v)
    params = jax.tree.map(lambda p, mh, vh: p - lr * mh / (jnp.sqrt(vh) + eps), params, mhat, vhat)
    return params, m, v


def main(steps=2000):
    params = {"x": jnp.array(-1.5), "y": jnp.array(2.0)}
    m, v = adam_init(params)
    history = []
    for t in range(1, steps + 1):
        params, m, v = adam_step(params, m, v, float(t))
        if t % 500 == 0:
            history.append(float(rosenbrock(params)))
    print("x", params["x"], "y", params["y"], "f", rosenbrock(params))
    return {"params": params, "history": history}


if __name__ == "__main__":
    main()
