"""Jacobians, Hessians and second derivatives: transpyle against JAX and finite differences.

    python benchmarks/jacobians.py

One table from one run. Rows:
- Jacobian of a 50-state ODE integrator (explicit Euler, n = 1000 steps) with respect to its initial
  state, by jacfwd and by jacrev;
- Hessian of a 100-dimensional scalar function written as a loop;
- grad(grad(f)) of a scalar loop (n = 10 000).
Each row times transpyle (numba backend, compiled, warm), JAX (jit of jax.jacfwd / jax.jacrev /
jax.hessian / grad(grad), with lax.fori_loop; when JAX is installed: the `bench` extra), and
central finite differences of the compiled primal, and checks that all agree. Compile times are
reported separately. This is a script, not a test.
"""
import math
import os
import sys

import numba
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import transpyle  # noqa: E402
from timing import against_jax, best_time, fmt, optional_jax, rel_err, timed_first_call  # noqa: E402

STATES, STEPS, DT = 50, 1000, 0.01
DIM = 100
SCALAR_STEPS = 10_000


# ---- the programs, as a user writes them ------------------------------------------------------------
def ode_final_state(y0, coupling):
    """Explicit Euler for a ring of damped nonlinear oscillators; returns the final state."""
    y = y0.copy()
    n = y.shape[0]
    for step in range(STEPS):
        dy = np.empty(n)
        for i in range(n):
            dy[i] = -0.5 * y[i] + coupling * math.sin(y[(i + 1) % n] - y[i])
        for i in range(n):
            y[i] = y[i] + DT * dy[i]
    return y


def chain_energy(x):
    """A 100-dimensional scalar with neighbour interactions, written as a loop."""
    e = 0.0
    for i in range(x.shape[0] - 1):
        d = x[i + 1] - x[i]
        e += math.log(1.0 + d * d) + 0.1 * x[i] ** 4
    return e


def scalar_iteration(t):
    s = t
    for i in range(SCALAR_STEPS):
        s = s + 1e-4 * math.sin(s * t)
    return s


# ---- JAX versions (same math, lax.fori_loop) ----------------------------------------------------------
def jax_programs():
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)

    def ode(y0, coupling):
        def step(_, y):
            dy = -0.5 * y + coupling * jnp.sin(jnp.roll(y, -1) - y)
            return y + DT * dy
        return jax.lax.fori_loop(0, STEPS, step, y0)

    def energy(x):
        d = x[1:] - x[:-1]
        return jnp.sum(jnp.log(1.0 + d * d)) + 0.1 * jnp.sum(x[:-1] ** 4)

    def scalar(t):
        return jax.lax.fori_loop(0, SCALAR_STEPS, lambda i, s: s + 1e-4 * jnp.sin(s * t), t)

    return {
        "jacfwd": jax.jit(jax.jacfwd(ode)),
        "jacrev": jax.jit(jax.jacrev(ode)),
        "hessian": jax.jit(jax.hessian(energy)),
        "gradgrad": jax.jit(jax.grad(jax.grad(scalar))),
        "version": jax.__version__,
    }


# ---- helpers ---------------------------------------------------------------------------------------------
def fd_jacobian(f, x, h=1e-6):
    cols = []
    for k in range(x.size):
        e = np.zeros_like(x)
        e[k] = h
        cols.append((np.asarray(f(x + e)) - np.asarray(f(x - e))) / (2 * h))
    return np.stack(cols, axis=-1)


def main():
    rng = np.random.default_rng(0)
    y0, coupling = rng.normal(size=STATES), 0.7
    x = rng.uniform(-1.0, 1.0, size=DIM)
    t0 = 0.3

    primal_ode = numba.njit(ode_final_state)
    primal_scalar = numba.njit(scalar_iteration)
    grad_energy = transpyle.grad(chain_energy)

    cases = [
        ("jacobian, jacfwd: 50-state ODE, 1000 steps", "jacfwd", transpyle.jacfwd(ode_final_state), (y0, coupling),
         lambda: fd_jacobian(lambda v: primal_ode(v, coupling), y0)),
        ("jacobian, jacrev: 50-state ODE, 1000 steps", "jacrev", transpyle.jacrev(ode_final_state), (y0, coupling),
         lambda: fd_jacobian(lambda v: primal_ode(v, coupling), y0)),
        ("hessian: 100-dim loop", "hessian", transpyle.hessian(chain_energy), (x,),
         lambda: fd_jacobian(grad_energy, x)),
        ("grad(grad): scalar loop, 10000 steps", "gradgrad", transpyle.grad(transpyle.grad(scalar_iteration)), (t0,),
         lambda: (primal_scalar(t0 + 1e-4) - 2 * primal_scalar(t0) + primal_scalar(t0 - 1e-4)) / 1e-8),
    ]
    jx = optional_jax(jax_programs)

    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, numba {numba.__version__}, "
          f"jax {jx['version'] if jx else 'absent'}, {os.cpu_count()} cores; best of 5\n")
    head = f"{'case':44} | {'transpyle':12} | {'JAX jit':12} | {'ratio':7} | {'fin. diff.':12} | " \
           f"{'compile tp / jax':17} | agreement"
    print(head)
    print("-" * len(head))
    for label, key, fn, args, fd in cases:
        got, compile_tp = timed_first_call(lambda: fn(*args))
        t_tp = best_time(lambda: fn(*args))
        reference = fd()
        t_fd = best_time(fd, repeat=3)
        jax_col, ratio, compiles, jax_agree = against_jax(got, t_tp, compile_tp, jx[key] if jx else None, args)
        agree = f"fd {rel_err(got, reference):.0e}" + (f", {jax_agree}" if jx else "")
        print(f"{label:44} | {fmt(t_tp)} | {jax_col} | {ratio} | {fmt(t_fd)} | {compiles:17} | {agree}")
    print("\nratio = transpyle time / JAX time (below 1: transpyle faster). Times exclude compilation.")


if __name__ == "__main__":
    main()
