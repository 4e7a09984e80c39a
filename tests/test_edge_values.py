"""Derivatives at the edges: powers at zero follow JAX's conventions, derivatives at a domain edge
are inf or nan as NumPy's are (not ZeroDivisionError on numba), and an index out of range raises
NumPy's IndexError naming the user's line (always on the numpy backend; on numba with
TRANSPYLE_BOUNDSCHECK=1)."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import transpyle
from gradcheck import ALL_BACKENDS


def power_zero_exponent(x):
    return x ** 0.0 + x ** 0


def zero_base(y):
    return 0.0 ** y


def square(x):
    return x ** 2.0


def cube_root_like(x):
    return x ** 1.5


def sqrt_at_zero(x):
    return np.sqrt(x)


def arcsin_at_one(x):
    return np.arcsin(x) + np.arccos(x)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
@pytest.mark.parametrize("fn, x, want", [
    (power_zero_exponent, 0.0, 0.0),      # JAX: d/dx x**0 is 0 everywhere, also at 0
    (power_zero_exponent, 2.0, 0.0),
    (zero_base, 1.5, 0.0),                # log(0) taken as 0: d/dy 0**y is 0
    (square, 0.0, 0.0),
    (cube_root_like, 0.0, 0.0),
    (sqrt_at_zero, 0.0, np.inf),          # NumPy's value of 0.5 / sqrt(0)
])
def test_derivative_at_the_edge(fn, x, want, backend):
    with np.errstate(divide="ignore", invalid="ignore"):
        got = transpyle.grad(fn, backend=backend)(x)
    assert got == want


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_domain_edge_gives_nan_or_inf(backend):
    with np.errstate(divide="ignore", invalid="ignore"):
        got = transpyle.grad(arcsin_at_one, backend=backend)(1.0)
    assert np.isnan(got) or np.isinf(got)


def element(x, i):
    y = x[i] * 2.0
    return y


def test_index_out_of_range_names_the_line_on_numpy():
    with pytest.raises(IndexError, match=r"test_edge_values.py:\d+: y = x\[i\] \* 2.0"):
        transpyle.grad(element, backend="numpy")(np.ones(3), 5)
    with pytest.raises(IndexError, match="out of bounds"):
        transpyle.jit(element, backend="numpy")(np.ones(3), -4)


@pytest.mark.numba
@pytest.mark.subprocess
def test_index_out_of_range_checked_on_numba_when_asked(tmp_path):
    script = tmp_path / "bounds.py"
    script.write_text(textwrap.dedent("""
        import numpy as np, transpyle
        def element(x, i):
            return x[i] * 2.0
        try:
            transpyle.jit(element, backend="numba")(np.ones(3), 5)
        except IndexError as exc:
            print("IndexError", exc)
    """))
    env = dict(__import__("os").environ, TRANSPYLE_BOUNDSCHECK="1")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=600)
    assert "IndexError" in out.stdout and "bounds.py" in out.stdout, out.stdout + out.stderr


@pytest.mark.numba
def test_boundscheck_argument_on_numba():
    x = np.ones(3)
    # compiled code knows the function, not the line, of the index
    with pytest.raises(IndexError, match=r"out of bounds \(at the function at .*test_edge_values.py:\d+\)"):
        transpyle.grad(element, backend="numba", boundscheck=True)(x, 5)
    with pytest.raises(IndexError, match="out of bounds"):
        transpyle.jit(element, backend="numba", boundscheck=True)(x, 3)
    # the same function without the argument is another module: compiled without checks
    assert transpyle.jit(element, backend="numba", boundscheck=True)(x, 2) == 2.0
    assert transpyle.jit(element, backend="numba")(x, 2) == 2.0
