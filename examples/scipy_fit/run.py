"""SciPy with derivatives from a compiled module: L-BFGS on `loss` with `jac=loss_grad`, and a stiff
ODE solved by Radau with `jac=robertson_jacfwd`, each against SciPy's finite differences.

The modules are written by `transpyle compile` (the commands are below, and in each module's
header); the code that uses them imports numpy, numba and scipy, not transpyle.

    python examples/scipy_fit/run.py
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
    from transpyle.compile import write_module
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


def fit(fit_ad):
    rng = np.random.default_rng(0)
    t = np.linspace(0.0, 10.0, 2000)
    truth = np.array([1.5, 0.3, 2.0, 0.4])
    y = truth[0] * np.exp(-truth[1] * t) * np.cos(truth[2] * t + truth[3]) + 0.05 * rng.normal(size=t.size)
    theta0 = np.array([1.0, 0.1, 1.9, 0.0])
    args = (t, y)
    fit_ad.loss_grad(theta0, t, y)                 # compile before timing
    runs = {
        "jac=loss_grad (transpyle)": lambda: minimize(fit_ad.loss, theta0, args, method="L-BFGS-B", jac=fit_ad.loss_grad),
        "finite differences": lambda: minimize(fit_ad.loss, theta0, args, method="L-BFGS-B"),
    }
    print(f"{'L-BFGS-B on loss':28} {'iterations':>10} {'f evals':>8} {'time':>9} {'iters/s':>9}  fitted")
    results = {}
    for label, run in runs.items():
        seconds, res = timed(run)
        results[label] = res
        print(f"{label:28} {res.nit:10d} {res.nfev:8d} {seconds * 1e3:7.1f}ms {res.nit / seconds:9.0f}  "
              f"{np.round(res.x, 3)}")
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
