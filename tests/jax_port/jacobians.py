"""Forward and reverse mode on a vector function: jvp, vjp, linearize, jacfwd, jacrev and hessian, as
in the JAX autodiff cookbook."""
import transpyle as jax
import transpyle.numpy as jnp


def f(x):
    return jnp.array([x[0] * x[1], jnp.sin(x[2]) + x[0] ** 2, jnp.exp(x[1]) * x[2]])


def scalar(x):
    return jnp.sum(jnp.tanh(x) ** 2) + x[0] * x[1] * x[2]


def main():
    x = jnp.array([0.5, -1.2, 2.0])
    v = jnp.array([1.0, 0.3, -0.7])
    y, jv = jax.jvp(f, (x,), (v,))
    _, f_vjp = jax.vjp(f, x)
    (vj,) = f_vjp(v)
    _, f_lin = jax.linearize(f, x)
    lin = f_lin(v)
    J_fwd = jax.jacfwd(f)(x)
    J_rev = jax.jacrev(f)(x)
    H = jax.hessian(scalar)(x)
    print("J", J_fwd, "H", H)
    return {"x": x, "v": v, "y": y, "jv": jv, "vj": vj, "lin": lin, "J_fwd": J_fwd, "J_rev": J_rev, "H": H}


if __name__ == "__main__":
    main()
