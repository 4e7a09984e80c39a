"""What a first call pays before any compile: ``import transpyle`` leaves SciPy's linalg and special
modules unimported (their rules name the functions, and find them once the user's code imports them),
and those rules still apply to code that uses SciPy."""
import subprocess
import sys

import numpy as np
import pytest

import transpyle


@pytest.mark.subprocess
def test_importing_transpyle_does_not_import_scipys_big_modules():
    code = "import sys, transpyle; print(sorted(m for m in ('scipy.linalg', 'scipy.special') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def _solved(a, b):
    import scipy.linalg
    return np.sum(scipy.linalg.solve_triangular(a, b, lower=True) ** 2)


def _erf_sum(x):
    import scipy.special
    return np.sum(scipy.special.erf(x))


def test_scipy_functions_imported_after_transpyle_keep_their_rules(rng):
    import scipy.linalg
    import scipy.special
    a = np.tril(rng.uniform(1.0, 2.0, (3, 3)))
    b = rng.uniform(-1.0, 1.0, 3)
    g = transpyle.grad(_solved, argnums=1, backend="numpy")(a, b)
    x = scipy.linalg.solve_triangular(a, b, lower=True)
    np.testing.assert_allclose(g, 2 * scipy.linalg.solve_triangular(a.T, x, lower=False), rtol=1e-10)
    v = rng.uniform(-1.0, 1.0, 4)
    np.testing.assert_allclose(transpyle.grad(_erf_sum, backend="numpy")(v), 2 / np.sqrt(np.pi) * np.exp(-v * v),
                               rtol=1e-12)
    assert scipy.special.erf is not None
