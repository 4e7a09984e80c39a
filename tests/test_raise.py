"""A function's own ``raise`` of a built-in exception (transpyle/frontend/raises.py): where the inputs pass
its checks, every transform gives the derivative it gives without them (against finite differences, on
both backends); where they fail, every transform raises the function's exception, as the function does;
a CUDA kernel and a re-raise are refused by name."""
import numpy as np
import pytest

import transpyle
from transpyle.base.errors import TranspileError

from gradcheck import backend_cases, check_grad, check_jvp

TOL = 1e-8


def _checked_norm(x):
    if x.shape[0] < 1:
        raise ValueError("an empty vector has no norm")
    return np.sqrt(np.sum(x * x))


def input_check(x):
    if np.any(x < -100.0):
        raise ValueError(f"inputs below -100, first {x[0]}")
    return np.sum(np.sin(x) * x)


def check_in_a_loop(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 1e6:
            raise OverflowError("x is too large at", i)
        s += np.exp(-x[i] * x[i]) * (i + 1)
    return s


def helper_checks(x):
    return _checked_norm(x) * np.sum(x ** 3)


def else_raises(x):
    if x[0] > -100.0:
        y = np.tanh(x) * x[0]
    else:
        raise ValueError("x[0] is too small")
    return np.sum(y ** 2)


def while_with_a_budget(x):
    v = x.copy()
    k = 0
    while np.max(np.abs(v)) > 0.1:
        v = 0.5 * v
        k += 1
        if k > 1000:
            raise RuntimeError("did not converge")
    return np.sum(v * x)


def check_after_work(x):
    y = np.cumsum(x) * 2.0
    if y[-1] > 1e8:
        raise ArithmeticError("sum too large: " + "check the units")
    return np.sum(y * y)


CASES = {
    input_check: (lambda rng: rng.normal(size=5), lambda x: np.concatenate(([-500.0], x))),
    check_in_a_loop: (lambda rng: rng.normal(size=6), lambda x: np.concatenate((x, [1e7]))),
    helper_checks: (lambda rng: rng.normal(size=4), None),
    else_raises: (lambda rng: rng.normal(size=4), lambda x: np.concatenate(([-500.0], x))),
    while_with_a_budget: (lambda rng: rng.uniform(0.5, 2.0, size=4), lambda x: x * np.inf),
    check_after_work: (lambda rng: rng.normal(size=5), lambda x: x + 1e9),
}
PARAMS = backend_cases([(f.__name__, (f,), True) for f in CASES])
FAILING = backend_cases([(f.__name__, (f,), True) for f, (_, bad) in CASES.items() if bad is not None])


@pytest.mark.parametrize("f, backend", PARAMS)
def test_checks_passed_give_the_derivatives(f, backend, rng):
    x = CASES[f][0](rng)
    assert transpyle.jit(f, backend=backend)(x) == pytest.approx(f(x), rel=1e-12)
    check_grad(f, (x,), backend=backend, rtol=1e-5, atol=TOL)
    check_jvp(f, (x,), 0, rng, backend=backend, rtol=1e-5, atol=TOL)
    batch = np.stack([x, CASES[f][0](rng)])
    np.testing.assert_allclose(transpyle.vmap(f, backend=backend)(batch), [f(b) for b in batch], rtol=1e-12)


def _expected_error(f, x):
    with pytest.raises(Exception) as info:
        f(x)
    return info.type


@pytest.mark.parametrize("f, backend", FAILING)
def test_checks_failed_raise_the_functions_exception(f, backend, rng):
    good = CASES[f][0](rng)
    bad = CASES[f][1](good)
    error = _expected_error(f, bad)
    batch = np.stack([bad[:good.shape[0]] if bad.shape == good.shape else good, good])
    transforms = {
        "jit": lambda: transpyle.jit(f, backend=backend)(bad),
        "grad": lambda: transpyle.grad(f, backend=backend)(bad),
        "jvp": lambda: transpyle.jvp(f, (bad,), (np.ones_like(bad),), backend=backend),
        "jacfwd": lambda: transpyle.jacfwd(f, backend=backend)(bad),
        "hessian": lambda: transpyle.hessian(f, backend=backend)(bad),
    }
    if bad.shape == good.shape:             # a batch with one failing example raises too
        transforms["vmap"] = lambda: transpyle.vmap(f, backend=backend)(batch)
        transforms["vmap of grad"] = lambda: transpyle.vmap(transpyle.grad(f), backend=backend)(batch)
        transforms["vmap by arrays"] = lambda: transpyle.vmap(f, strategy="array", backend=backend)(batch)
    for what, run in transforms.items():
        with pytest.raises(error):
            run()
            pytest.fail(f"{what} did not raise")


def test_the_message_keeps_the_text_and_names_the_values():
    with pytest.raises(ValueError, match=r"inputs below -100, first \{x\[0\]\}"):
        transpyle.grad(input_check, backend="numpy")(np.array([-500.0, 1.0]))


def test_generated_code_raises_in_the_primal_sweep():
    text = transpyle.show(check_in_a_loop, mode="grad", kinds=["f8[:]"])
    primal, adjoint = text.split("# adjoint sweep")
    assert "raise OverflowError('x is too large at {i}')" in primal and "raise " not in adjoint


def reraise(x):
    if x[0] > 0:
        raise
    return np.sum(x)


class _OwnError(Exception):
    pass


def own_class(x):
    if x[0] > 0:
        raise _OwnError("mine")
    return np.sum(x)


@pytest.mark.parametrize("f", [reraise, own_class])
def test_other_raises_are_refused_by_name(f):
    with pytest.raises(TranspileError, match="built-in exception") as info:
        transpyle.grad(f, backend="numpy")(np.ones(3))
    assert info.value.lineno is not None


def test_a_cuda_kernel_refuses_raise(monkeypatch):
    pytest.importorskip("numba.cuda")
    with pytest.raises(TranspileError, match="'raise' is not available in a CUDA kernel"):
        transpyle.vmap(check_in_a_loop, backend="cuda")(np.ones((2, 3)))
