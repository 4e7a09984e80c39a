"""Small scientific programs as people write them in NumPy (tests/science_programs.py: PDE stencils, ODE
integrators, molecular dynamics, iterative solvers, filters, fits and losses) run unchanged, on both
backends: jit gives the plain function's value, grad (in every float argument at once) matches central
finite differences, and jvp along random tangents of every float argument matches a directional
finite difference. Inputs are drawn per test where each program is smooth."""
import numpy as np
import pytest

import transpyle

import science_programs as S
from gradcheck import backend_cases, check_grad, check_jvp

#: program name -> why transpyle refuses it (in its front end: every backend and mode)
REFUSED = {}
#: (program name, backend, mode) -> reason, for the cases transpyle is known to refuse or get wrong
XFAIL = {(name, backend, mode): reason for name, reason in REFUSED.items()
         for backend in ("numpy", "numba") for mode in ("jit", "grad", "jvp")}


def _params(mode):
    params = []
    for param in backend_cases([(f.__name__, (f, make), True) for f, make in S.PROGRAMS]):
        f, _, backend = param.values
        reason = XFAIL.get((f.__name__, backend, mode))
        marks = list(param.marks)
        if reason:
            marks.append(pytest.mark.xfail(reason=reason, strict=True))
        params.append(pytest.param(*param.values, id=param.id, marks=marks))
    return params


def _float_argnums(args):
    """The positions of the float arguments (arrays and numbers): every one is differentiated."""
    return tuple(i for i, a in enumerate(args)
                 if isinstance(a, float) or (isinstance(a, np.ndarray) and a.dtype.kind == "f"))


def _copies(args):
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def test_the_table_has_the_programs():
    assert len(S.PROGRAMS) >= 25
    assert len({f.__name__ for f, _ in S.PROGRAMS}) == len(S.PROGRAMS)


@pytest.mark.parametrize("f, make, backend", _params("jit"))
def test_jit_gives_the_value(f, make, backend, rng):
    args = make(rng)
    expected = f(*_copies(args))
    got = transpyle.jit(f, backend=backend)(*_copies(args))
    assert np.ndim(got) == 0
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("f, make, backend", _params("grad"))
def test_grad_matches_finite_differences(f, make, backend, rng):
    args = make(rng)
    check_grad(f, args, argnums=_float_argnums(args), backend=backend, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f, make, backend", _params("jvp"))
def test_jvp_matches_finite_differences(f, make, backend, rng):
    args = make(rng)
    check_jvp(f, args, _float_argnums(args), rng, backend=backend, rtol=1e-5, atol=1e-6)
