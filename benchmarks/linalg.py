"""Linear algebra gradients: transpyle against JAX.

    python benchmarks/linalg.py

One table from one run. Rows:
- gradient of a Gaussian log-likelihood with respect to its covariance, through np.linalg.cholesky
  and a triangular solve, and through np.linalg.slogdet and np.linalg.solve (n = 200);
- its Hessian through the Cholesky factorization (hessian: forward mode over the gradient's code,
  n = 12, a 144 x 144 matrix);
- per-matrix gradients of the spectral radius max |eig(A)| for a (1000, 8, 8) stack, by vmap(grad);
- the gradient in w of sum(tanh(x @ w)) for a (256, 16, 32) stack x and one (32, 32) matrix w (a batched
  product, its batch broadcast against w; the adjoint sums over it).
Each row times transpyle (numba backend, compiled, warm) and JAX (jit(grad), jit(vmap(grad)) on the
CPU, when JAX is installed), checks that they agree, and reports compile times separately. This is
a script, not a test.
"""
import os
import sys

import numba
import numpy as np
import scipy.linalg

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import transpyle  # noqa: E402
from timing import against_jax, best_time, fmt, optional_jax, timed_first_call  # noqa: E402

N, STACK, SIZE, HESSIAN_N = 200, 1000, 8, 12
LAYER = (256, 16, 32)


# ---- the programs, as a user writes them ------------------------------------------------------------
def loglik_cholesky(cov, x):
    low = np.linalg.cholesky(cov)
    z = scipy.linalg.solve_triangular(low, x, lower=True)
    half_logdet = 0.0
    for i in range(x.shape[0]):
        half_logdet += np.log(low[i, i])
    return -0.5 * np.sum(z * z) - half_logdet


def loglik_slogdet(cov, x):
    sign, logdet = np.linalg.slogdet(cov)
    return -0.5 * np.dot(x, np.linalg.solve(cov, x)) - 0.5 * logdet


def spectral_radius(a):
    return np.max(np.abs(np.linalg.eigvals(a)))


def stacked_layer(x, w):
    return np.sum(np.tanh(x @ w))


def jax_programs():
    import jax
    import jax.numpy as jnp
    import jax.scipy.linalg as jsl
    jax.config.update("jax_enable_x64", True)
    jax.config.update("jax_platforms", "cpu")

    def chol(cov, x):
        low = jnp.linalg.cholesky(cov)
        z = jsl.solve_triangular(low, x, lower=True)
        return -0.5 * jnp.sum(z * z) - jnp.sum(jnp.log(jnp.diag(low)))

    def slog(cov, x):
        return -0.5 * jnp.dot(x, jnp.linalg.solve(cov, x)) - 0.5 * jnp.linalg.slogdet(cov)[1]

    def radius(a):
        return jnp.max(jnp.abs(jnp.linalg.eigvals(a)))

    def layer(x, w):
        return jnp.sum(jnp.tanh(x @ w))

    return {"cholesky": jax.jit(jax.grad(chol)), "slogdet": jax.jit(jax.grad(slog)),
            "hessian": jax.jit(jax.hessian(chol)),
            "radius": jax.jit(jax.vmap(jax.grad(radius))), "layer": jax.jit(jax.grad(layer, argnums=1)),
            "version": jax.__version__}


def main():
    rng = np.random.default_rng(0)
    q, _ = np.linalg.qr(rng.normal(size=(N, N)))
    cov = (q * rng.uniform(0.5, 2.0, N)) @ q.T
    x = rng.normal(size=N)
    stack = rng.normal(size=(STACK, SIZE, SIZE))
    q_small, _ = np.linalg.qr(rng.normal(size=(HESSIAN_N, HESSIAN_N)))
    cov_small = (q_small * rng.uniform(0.5, 2.0, HESSIAN_N)) @ q_small.T
    rows = [
        (f"grad loglik via cholesky, n={N}", transpyle.grad(loglik_cholesky), (cov, x), "cholesky"),
        (f"grad loglik via slogdet/solve, n={N}", transpyle.grad(loglik_slogdet), (cov, x), "slogdet"),
        (f"hessian loglik via cholesky, n={HESSIAN_N}", transpyle.hessian(loglik_cholesky),
         (cov_small, x[:HESSIAN_N]), "hessian"),
        (f"vmap(grad) spectral radius, {STACK}x{SIZE}x{SIZE}", transpyle.vmap(transpyle.grad(spectral_radius)),
         (stack,), "radius"),
        (f"grad tanh(x @ w), x {'x'.join(map(str, LAYER))}", transpyle.grad(stacked_layer, argnums=1),
         (rng.normal(size=LAYER), rng.normal(size=LAYER[-1:] * 2) / np.sqrt(LAYER[-1])), "layer"),
    ]
    jx = optional_jax(jax_programs)
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, numba {numba.__version__}, "
          f"jax {jx['version'] if jx else 'absent'}, {os.cpu_count()} cores; best of 7\n")
    head = f"{'case':42} | {'transpyle':12} | {'JAX jit':12} | {'ratio':7} | {'compile tp / jax':17} | agreement"
    print(head)
    print("-" * len(head))
    for label, fn, args, key in rows:
        got, compile_tp = timed_first_call(lambda: fn(*args))
        t_tp = best_time(lambda: fn(*args))
        jax_col, ratio, compiles, agree = against_jax(got, t_tp, compile_tp, jx[key] if jx else None, args)
        print(f"{label:42} | {fmt(t_tp)} | {jax_col} | {ratio} | {compiles:17} | {agree}")
    print("\nratio = transpyle time / JAX time (below 1: transpyle faster). Times exclude compilation.")


if __name__ == "__main__":
    main()
