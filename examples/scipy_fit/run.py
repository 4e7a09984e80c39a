"""SciPy with derivatives from a compiled module: L-BFGS on `loss` with `jac=loss_grad`, and a stiff
ODE solved by Radau with `jac=robertson_jacfwd`, each against SciPy's finite differences.

The modules are written by `transpyle compile` (the commands are below, and in each module's
header); the code that uses them imports numpy, numba and scipy, not transpyle.

    python examples/scipy_fit/run.py

L-BFGS-B's own bookkeeping calls BLAS on tiny vectors; on a busy machine OpenBLAS threads make that
dominate the timings (OPENBLAS_NUM_THREADS=1 removes it).
"""
import importlib
import sys
import time
from pathlib import Path

import numpy as np
from scipy.integrate import solve_ivp
from scipy.optimize import minimize

HERE = Path(__file__).resolve().parent
COMMANDS = {
    "fit_ad.py": dict(functions=["loss"], modes=["primal", "grad"], kinds=["f8[:]", "f8[:]", "f8[:]"]),
    "ode_ad.py": dict(functions=["robertson"], modes=["primal", "jacfwd"], kinds=["f8[:]", "f8[:]"]),
}


def build():
    """Regenerate the compiled modules when stale (what `transpyle compile ... --check` tells), e.g.
    transpyle compile model.py --function loss --mode primal --mode grad --kinds 'f8[:],f8[:],f8[:]' -o fit_ad.py"""
    import transpyle
    from transpyle.api.aot import write_module
    for out, options in COMMANDS.items():
        text = transpyle.compile_module(HERE / "model.py", command=f"examples/scipy_fit/run.py (build {out})",
                                        **options)
        write_module(text, HERE / out)
    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))
    return importlib.import_module("fit_ad"), importlib.import_module("ode_ad")


def timed(fn, repeat=3):
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def fit(fit_ad, units=10):
    rng = np.random.default_rng(0)
    t = np.linspace(-3.0, 3.0, 1000)
    y = np.sin(2.0 * t) + 0.5 * np.cos(5.0 * t) + 0.05 * rng.normal(size=t.size)
    theta0 = rng.normal(size=3 * units)
    args = (t, y)
    fit_ad.loss(theta0, t, y), fit_ad.loss_grad(theta0, t, y)         # compile before timing
    options = dict(method="L-BFGS-B", options={"maxiter": 300})
    runs = {
        "jac=loss_grad (transpyle)": lambda: minimize(fit_ad.loss, theta0, args, jac=fit_ad.loss_grad, **options),
        "finite differences": lambda: minimize(fit_ad.loss, theta0, args, **options),
    }
    print(f"L-BFGS-B, {theta0.size} parameters   iterations  f evals      time   iters/s   loss")
    results = {}
    for label, run in runs.items():
        seconds, res = timed(run)
        results[label] = res
        print(f"{label:28} {res.nit:10d} {res.nfev:8d} {seconds * 1e3:7.1f}ms {res.nit / seconds:9.0f}   "
              f"{res.fun:.5f}")
    per_sec = {k: r.nit / timed(runs[k], 1)[0] for k, r in results.items()}
    print(f"iterations/s with transpyle's gradient: {per_sec['jac=loss_grad (transpyle)'] / per_sec['finite differences']:.1f}x"
          " those with finite differences")
    return results


def ode(ode_ad):
    k = np.array([0.04, 3e7, 1e4])
    y0 = np.array([1.0, 0.0, 0.0])

    def rhs(t, y):
        return ode_ad.robertson(y, k)

    def jac(t, y):
        return ode_ad.robertson_jacfwd(y, k)

    jac(0.0, y0)
    runs = {"jac=robertson_jacfwd": jac, "finite differences": None}
    print(f"\n{'Radau on Robertson':28} {'steps':>10} {'f evals':>8} {'jac evals':>9} {'time':>9}  y(1e5)")
    results = {}
    for label, j in runs.items():
        seconds, res = timed(lambda: solve_ivp(rhs, (0.0, 1e5), y0, method="Radau", jac=j, rtol=1e-8,
                                               atol=1e-10))
        results[label] = res
        print(f"{label:28} {res.t.size - 1:10d} {res.nfev:8d} {res.njev:9d} {seconds * 1e3:7.1f}ms  "
              f"{np.array2string(res.y[:, -1], precision=6)}")
    return results


def main():
    fit_ad, ode_ad = build()
    return fit(fit_ad), ode(ode_ad)


if __name__ == "__main__":
    main()
