"""Errors: anything outside the supported subset raises transpyle.TranspileError, never a Numba typing
error or an internal assertion, and the message names the user's file, the line and the construct,
with a hint.

The error may be raised when the transform is made or when it is first called; each check covers
both by doing both inside ``pytest.raises``.
"""
import inspect
import math
import re

import numpy as np
import pytest

import transpyle
from gradcheck import ALL_BACKENDS

THIS_FILE = "test_errors.py"


def line_of(func, needle):
    """The line number, in this file, of the first line of ``func``'s source containing ``needle``."""
    lines, first = inspect.getsourcelines(func)
    for k, text in enumerate(lines):
        if needle in text:
            return first + k
    raise AssertionError(f"{needle!r} not in the source of {func.__name__}")


def error_message(call):
    with pytest.raises(transpyle.TranspileError) as info:
        call()
    message = str(info.value)
    assert "hint" in message.lower(), f"the message has no hint:\n{message}"
    assert "TypingError" not in message and "Traceback" not in message, message
    return message


def assert_points_at(message, func, needle):
    line = line_of(func, needle)
    assert f"{THIS_FILE}:{line}" in message, f"expected {THIS_FILE}:{line} in:\n{message}"


# ---- unsupported constructs --------------------------------------------------------------------------
def uses_cond(a):
    b = a * 2.0
    w = np.linalg.cond(b)
    return np.sum(w)


def _helper_with_cond(a):
    s = np.sum(a)
    return s * np.linalg.cond(a)


def calls_helper_with_cond(a):
    return _helper_with_cond(a) * 2.0


def handles_exception(x):
    y = x * 2.0
    try:
        y = y * x
    except ValueError:
        y = x
    return y


def opens_context(x):
    y = x * 2.0
    with np.errstate(all="ignore"):
        y = np.log(y)
    return np.sum(y)


def generates_values(x):
    y = x * 2.0
    yield y * x


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_unsupported_call_names_function_file_and_line(backend):
    a = np.array([[2.0, 1.0], [1.0, 3.0]])
    message = error_message(lambda: transpyle.grad(uses_cond, backend=backend)(a))
    assert "cond" in message
    assert_points_at(message, uses_cond, "np.linalg.cond")


def test_unsupported_call_in_helper_points_into_the_helper():
    a = np.array([[2.0, 1.0], [1.0, 3.0]])
    message = error_message(lambda: transpyle.grad(calls_helper_with_cond, backend="numpy")(a))
    assert "cond" in message
    assert_points_at(message, _helper_with_cond, "np.linalg.cond")


@pytest.mark.parametrize("transform", ["value_and_grad", "vjp", "show"])
def test_every_transform_reports_unsupported_calls(transform):
    a = np.array([[2.0, 1.0], [1.0, 3.0]])
    calls = {
        "value_and_grad": lambda: transpyle.value_and_grad(uses_cond, backend="numpy")(a),
        "vjp": lambda: transpyle.vjp(uses_cond, a, backend="numpy"),
        "show": lambda: transpyle.show(uses_cond, mode="grad", args=(a,)),
    }
    message = error_message(calls[transform])
    assert "cond" in message
    assert_points_at(message, uses_cond, "np.linalg.cond")


@pytest.mark.parametrize("func, construct, needle", [
    (handles_exception, "try", "try:"),
    (opens_context, "with", "with np.errstate"),
    (generates_values, "yield", "yield y"),
])
def test_unsupported_statement_is_named(func, construct, needle):
    message = error_message(lambda: transpyle.grad(func, backend="numpy")(1.5))
    assert re.search(rf"\b{construct}\b", message), f"{construct!r} is not named in:\n{message}"
    assert_points_at(message, func, needle)


# ---- what grad can and cannot differentiate -------------------------------------------------------------
def returns_array(x):
    y = x * 2.0
    return y


def returns_tuple(x):
    return np.sum(x), x


def square(x):
    return x * x


def product(x, y):
    return x * y


def test_non_scalar_output():
    message = error_message(lambda: transpyle.grad(returns_array, backend="numpy")(np.ones(3)))
    assert "scalar" in message
    assert THIS_FILE in message


def test_tuple_output_without_has_aux():
    message = error_message(lambda: transpyle.grad(returns_tuple, backend="numpy")(np.ones(3)))
    assert "scalar" in message or "has_aux" in message
    assert THIS_FILE in message


def test_has_aux_needs_a_pair():
    message = error_message(lambda: transpyle.grad(square, has_aux=True, backend="numpy")(2.0))
    assert "has_aux" in message
    assert THIS_FILE in message


@pytest.mark.parametrize("call", [
    lambda: transpyle.grad(square, backend="numpy")(3),
    lambda: transpyle.grad(product, argnums=1, backend="numpy")(2.0, 3),
    lambda: transpyle.grad(square, backend="numpy")(np.arange(3)),
    lambda: transpyle.value_and_grad(product, argnums=(0, 1), backend="numpy")(2.0, 3),
], ids=["int", "int-argnums-1", "int-array", "value_and_grad"])
def test_integer_argument_cannot_be_differentiated(call):
    message = error_message(call)
    assert "int" in message.lower()
    assert THIS_FILE in message


@pytest.mark.parametrize("argnums", [2, (0, 2), -3, 1.5])
def test_bad_argnums(argnums):
    message = error_message(lambda: transpyle.grad(product, argnums=argnums, backend="numpy")(1.0, 2.0))
    assert "argnums" in message


# ---- functions transpyle cannot read -----------------------------------------------------------------------
def test_builtin_without_source():
    message = error_message(lambda: transpyle.grad(len, backend="numpy")(1.0))
    assert "len" in message


@pytest.mark.parametrize("func", [math.sin, np.sin])
def test_library_functions_are_functions_calling_them(func):
    assert transpyle.grad(func, backend="numpy")(1.0) == pytest.approx(math.cos(1.0))


def test_function_without_source_file():
    namespace = {}
    exec("def made_by_exec(x):\n    return x * x\n", namespace)
    message = error_message(lambda: transpyle.grad(namespace["made_by_exec"], backend="numpy")(1.0))
    assert "made_by_exec" in message and "source" in message


def test_unknown_backend():
    with pytest.raises((ValueError, transpyle.TranspileError)) as info:
        transpyle.grad(square, backend="fortran")(1.0)
    assert "fortran" in str(info.value)


# ---- the failing pass, and errors at call time naming the argument or the user's line ------------
def _index_by_float(x, t):
    return x[t]


def test_every_pipeline_error_names_the_pass_that_failed():
    message = error_message(lambda: transpyle.show(_index_by_float, kinds=("f8[:]", "f8")))
    assert "(in transpyle pass 'infer')" in message
    message = error_message(lambda: transpyle.show(_index_by_float, mode="jvp", kinds=("f8[:]", "f8"),
                                                   after="forward"))
    assert "(in transpyle pass 'infer')" in message


def _residual(a, b):
    r = a - b
    return np.sum(r * r)


def _window(u, v):
    w = u.copy()
    w[1:] = v
    return np.sum(w * w)


def _accumulate(x, y):
    u = x.copy()
    for _ in range(3):
        u = u * y
    return np.sum(u)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
@pytest.mark.parametrize("transform", ["grad", "jit", "value_and_grad", "jacrev"])
def test_a_shape_mismatch_names_the_users_line_and_expected_vs_got(backend, transform):
    fn = getattr(transpyle, transform)(_residual, backend=backend)
    with pytest.raises(ValueError) as info:
        fn(np.ones(3), np.ones(4))
    message = str(info.value)
    assert isinstance(info.value, transpyle.TranspileError)
    assert f"{THIS_FILE}:{line_of(_residual, 'r = a - b')}: r = a - b" in message
    assert "expected shapes that broadcast together, got (3,) and (4,)" in message
    assert "a: (3,), b: (4,)" in message


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_a_write_of_the_wrong_shape_says_what_was_expected(backend):
    with pytest.raises(ValueError) as info:
        transpyle.grad(_window, backend=backend)(np.ones(3), np.ones(4))
    message = str(info.value)
    assert f"{THIS_FILE}:{line_of(_window, 'w[1:] = v')}" in message
    assert "expected shape (2,), got (4,)" in message and "v has that shape" in message


def test_an_unsupported_argument_names_the_argument():
    with pytest.raises(transpyle.TranspileError) as info:
        transpyle.grad(_residual, backend="numpy")(np.ones(3), "ones")
    assert "argument 'b' (position 1) of '_residual': unsupported argument type str" in str(info.value)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_float32_and_float64_mixed_follow_numpy_promotion(backend):
    x32, y = np.linspace(0.1, 0.5, 3).astype(np.float32), np.linspace(1.0, 2.0, 3)
    got = transpyle.grad(_accumulate, argnums=(0, 1), backend=backend)(x32, y)
    want = transpyle.grad(_accumulate, argnums=(0, 1), backend="numpy")(x32.astype(np.float64), y)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12)
    value, tangent = transpyle.jvp(_accumulate, (x32, y), (np.ones(3, np.float32), np.zeros(3)), backend=backend)
    np.testing.assert_allclose(tangent, np.sum(want[0]), rtol=1e-10)


def _accumulate_jit(x, y):
    u = x.copy()
    for _ in range(3):
        u = u * y
    return np.sum(u)


@pytest.mark.numba
def test_jit_of_mixed_precisions_names_the_arguments():
    with pytest.raises(transpyle.TranspileError) as info:
        transpyle.jit(_accumulate_jit)(np.ones(3, np.float32), np.ones(3))
    assert "x is float32 and y float64" in str(info.value) and "x.astype(np.float64)" in str(info.value)
