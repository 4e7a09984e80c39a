"""Gradients of code that writes through views: transpyle against a hand-written Numba adjoint.

The model is explicit diffusion written the NumPy way, in place: ``inner = u[1:-1]`` is a view of
the state and ``inner += k * lap`` writes through it, so every step updates ``u`` itself. The
gradient is taken with respect to the initial state and the coefficient. All rows come from one run:

    python benchmarks/in_place.py

Rows: the primal (transpyle jit and plain Numba), the gradient (transpyle, and a hand-written
adjoint that stores every state), the gradient over the primal, and the cold first call of the
gradient in a fresh process with an empty TRANSPYLE_CACHE_DIR. A row that fails prints its error;
the others still run. This is a script, not a test.
"""
import os
import subprocess
import sys
import tempfile
import textwrap
import time
import warnings

import numba
import numpy as np

from timing import best_time, rel_err

N, STEPS, K = 200, 400, 0.2


def diffuse(u0, k):
    u = u0.copy()
    for t in range(STEPS):
        inner = u[1:-1]                             # a view: the write below updates u
        lap = u[:-2] - 2.0 * u[1:-1] + u[2:]
        inner += k * lap
    return np.sum(u * u)


diffuse_nb = numba.njit(diffuse)


@numba.njit
def diffuse_adjoint(u0, k):
    """Hand-written reverse mode: (d/du0, d/dk), every state kept."""
    n = u0.shape[0]
    states = np.empty((STEPS + 1, n))
    states[0] = u0
    for t in range(STEPS):
        u = states[t]
        nxt = states[t + 1]
        nxt[0], nxt[n - 1] = u[0], u[n - 1]
        for i in range(1, n - 1):
            nxt[i] = u[i] + k * (u[i - 1] - 2.0 * u[i] + u[i + 1])
    bu = 2.0 * states[STEPS]
    bk = 0.0
    for t in range(STEPS - 1, -1, -1):
        u = states[t]
        prev = bu.copy()
        for i in range(1, n - 1):
            bk += bu[i] * (u[i - 1] - 2.0 * u[i] + u[i + 1])
            prev[i - 1] += k * bu[i]
            prev[i] += -2.0 * k * bu[i]
            prev[i + 1] += k * bu[i]
        bu = prev
    return bu, bk


def cold_grad_seconds():
    """First call of the gradient in a new process with an empty cache (compile included)."""
    code = f"""
        import sys, time, warnings
        import numpy as np
        sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r})
        import transpyle, in_place
        u0 = np.linspace(0.0, 1.0, {N})
        t0 = time.perf_counter()
        transpyle.grad(in_place.diffuse, argnums=(0, 1))(u0, {K})
        print(time.perf_counter() - t0)
    """
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, TRANSPYLE_CACHE_DIR=cache)
        out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True,
                             check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main():
    import transpyle
    rng = np.random.default_rng(0)
    u0 = rng.uniform(0.0, 1.0, N)
    rows = []
    jit = transpyle.jit(diffuse)
    grad = transpyle.grad(diffuse, argnums=(0, 1))
    want_u, want_k = diffuse_adjoint(u0, K)
    got_u, got_k = grad(u0, K)
    print(f"agreement with the hand adjoint: d/du0 {rel_err(got_u, want_u):.1e}, d/dk {rel_err(got_k, want_k):.1e}")
    t_primal_nb = best_time(lambda: diffuse_nb(u0, K))
    t_primal = best_time(lambda: jit(u0, K))
    t_grad = best_time(lambda: grad(u0, K))
    t_hand = best_time(lambda: diffuse_adjoint(u0, K))
    rows.append(("primal, transpyle jit", t_primal, t_primal / t_primal_nb, "x plain Numba"))
    rows.append(("gradient, transpyle", t_grad, t_grad / t_hand, "x hand-written adjoint"))
    rows.append(("gradient, hand-written adjoint", t_hand, 1.0, ""))
    rows.append(("gradient / primal, transpyle", t_grad, t_grad / t_primal, "x its primal"))
    for label, seconds, ratio, what in rows:
        print(f"{label:34s} {seconds * 1e3:9.3f} ms   {ratio:6.2f} {what}")
    try:
        print(f"{'cold first call of the gradient':34s} {cold_grad_seconds():9.2f} s")
    except Exception as exc:                  # noqa: BLE001 - a row that fails prints its error
        print(f"cold first call of the gradient: failed: {exc}")


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    main()
