"""NumPy forms Numba lacks, written where the generated code can reach them: each compiles on the numba
backend and gives NumPy's value (jit) and the numpy backend's gradient (grad).

The table holds one small function per group of forms: np.dot, np.matmul and ``@`` of every pair of ranks
0-D to 3-D, with mixed real/complex and int/float operands; reductions (sum, mean, prod, max, min, argmax,
argmin, any, all, var, std) along axis 0, -1, None and tuples, with keepdims, on 1-D to 3-D arrays and on
scalars; np.array of lists of scalars, of arrays and of nested lists; joins (concatenate, stack, hstack,
vstack) of lists and tuples; complex max/min (NumPy orders complex numbers lexicographically) along an axis;
np.clip and np.where with mixed dtypes; integer arrays indexed by slices in float arithmetic. Each function
sums its forms with distinct weights, so one compile checks several forms and a failure still names the
line of the form (a Numba error names the user's line). Every case also runs on the numpy backend (against
NumPy and finite differences), which checks the table itself.

A Numba typing failure reaches the user as a TranspileError at the user's line, with a hint: a run-time
helper is made to fail typing to show it.
"""
import importlib.util
import re
import tempfile
import textwrap
import types
from pathlib import Path

import numpy as np
import pytest

import transpyle
from transpyle import rules
from transpyle.backends import compile_errors
from transpyle.base.errors import TranspileError
from gradcheck import check_grad


def _load(source, stem):
    """The module of ``source``, written to a file (transpyle reads a function's source from its file)."""
    path = Path(tempfile.mkdtemp(prefix="transpyle-numba-forms-")) / f"{stem}.py"
    path.write_text(textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


FORMS = _load("""
    import numpy as np


    def dot_ranks(s, v, m):
        r = np.dot(s, s) + 2.0 * np.dot(v, v)
        r = r + np.sum(np.dot(s, v)) + 3.0 * np.sum(np.dot(v, s))
        r = r + np.sum(np.dot(m, v) * v) + np.sum(np.dot(v, m) * np.cos(v))
        r = r + np.sum(np.dot(m, m) * m) + np.sum(np.dot(s, m)) + np.sum(np.dot(m, 0.5))
        return r


    def dot_mixed(v, m):
        z = v * (1.0 + 2.0j)
        k = np.arange(3)
        r = np.real(np.dot(v, z)) + np.imag(np.sum(np.dot(m, z)))
        r = r + np.dot(k, v) + np.sum(np.dot(m, k) * v) + np.sum(np.dot(k, m) * v)
        r = r + np.dot(k[1:3], v[:2]) + np.dot(k, k) * v[0] + np.dot(2, v[1])
        return r


    def dot_3d(v, m, t):
        r = np.sum(np.dot(t, v) * t[:, :, 0]) + np.sum(np.dot(t, m) * t)
        r = r + np.sum(np.dot(v, t) * np.sin(t[:, 0, :]))
        return r


    def matmul_ranks(v, m, t):
        r = v @ v + np.sum(m @ v * v) + np.sum(v @ m * np.cos(v)) + np.sum(m @ m * m)
        r = r + np.sum(t @ m * t) + np.sum(m @ t * t) + np.sum((t @ v) * t[:, 0, :]) + np.sum(v @ t)
        r = r + np.sum(t @ t) + np.sum(np.matmul(m, v) * v) + np.sum(np.matmul(t, t) * t)
        return r


    def matmul_mixed(v, m):
        k = np.arange(3)
        z = m * (1.0 - 1.0j)
        r = np.sum(k @ m) + np.sum(m @ k * v) + np.real(np.sum(z @ v)) + np.imag(np.sum(v @ z))
        r = r + np.sum(np.matmul(k, m) * v) + k @ v + np.sum(np.reshape(k, (3, 1)) @ np.reshape(v, (1, 3)))
        return r


    def reduce_1d(x):
        r = np.sum(x, axis=0) + np.mean(x, axis=-1) + np.prod(x, axis=0) + np.max(x, axis=0)
        r = r + np.min(x, axis=-1) + np.var(x, axis=0) + np.std(x, axis=-1)
        r = r + np.sum(np.sum(x, axis=0, keepdims=True)) + np.sum(np.max(x, axis=(0,), keepdims=True))
        r = r + np.sum(np.mean(x, axis=None, keepdims=True)) + x.sum(axis=0) + x.prod(axis=-1)
        return r


    def reduce_scalar(a):
        r = np.sum(a) + np.mean(a) + np.prod(a) + np.max(a) + np.min(a) + np.var(a) + np.var(a * a, keepdims=True)
        return r + np.sum(a, axis=None) + np.mean(a, axis=None) + np.max(a, keepdims=True) + np.prod(a, axis=())


    def reduce_2d(m):
        r = np.sum(np.sum(m, axis=0) * np.mean(m, axis=-1)) + np.sum(np.prod(m, axis=0, keepdims=True) * m)
        r = r + np.sum(np.max(m, axis=-1) * np.min(m, axis=0)) + np.sum(np.var(m, axis=0) + np.std(m, axis=-1))
        r = r + np.sum(np.mean(m, axis=(0, 1), keepdims=True) * m) + np.max(m, axis=None) + np.min(m)
        return r


    def reduce_3d(t):
        r = np.sum(np.sum(t, axis=(0, 2)) * np.mean(t, axis=-1)[0]) + np.sum(np.prod(t, axis=1) ** 2)
        r = r + np.sum(np.max(t, axis=(1, 2), keepdims=True) * t) + np.sum(np.min(t, axis=-1) * t[:, :, 0])
        r = r + np.sum(np.var(t, axis=(0, 1)) + np.std(t, axis=0, keepdims=True))
        return r


    def arg_and_logic(t):
        m = t[0]
        v = m[0]
        r = np.argmax(v) + 2 * np.argmin(v, axis=0) + np.sum(np.argmax(m, axis=0)) + np.sum(np.argmin(m, axis=-1))
        r = r + np.sum(np.argmax(t, axis=1)) + np.argmax(t)
        r = r + np.sum(np.any(t > 0, axis=0)) + np.sum(np.all(m > -1, axis=-1)) + np.all(v > 0, axis=0)
        r = r + np.any(v > 1, axis=-1) + np.sum(np.any(t > 0.5, axis=(0, 2), keepdims=True))
        r = r + np.any(t[0, 0, 0]) + np.all(v[0] > 0) + np.sum(True)
        # reductions of bools along axes: ints (sum, prod), bools (max, min), floats (mean), as in NumPy
        return (r, np.std(v[1]), np.mean(r), np.sum(t > 0, axis=1), np.sum(v > 0, axis=0), np.prod(m > -0.5, axis=-1),
                np.max(t > 0, axis=(0, 2)), np.min(m > 0, axis=0, keepdims=True), np.mean(t > 0, axis=-1),
                np.mean(m * (1.0 - 2.0j), axis=0))


    def array_of(a, v, m):
        r = np.sum(np.array([a, 2.0 * a, 3.0]) * v) + np.sum(np.array([v, 2.0 * v]) * np.array([[a], [a]]))
        r = r + np.sum(np.array([[a, 1.0], [2.0, a * a]]) @ m[:2, :2]) + np.sum(np.array([m, m * a]) ** 2)
        r = r + np.sum(np.array((v, v * v)) * np.array([1, 2, 3])) + np.sum(np.array([v[0], 2]))
        r = r + np.sum(np.expand_dims(a, 0) * v) + np.sum(np.expand_dims(v, -1) * m)
        r = r + np.real(np.sum(np.array([v, 2.0 * v], dtype=np.complex128) * (1.0 + 1.0j)))
        return r


    def joins(v, m):
        r = np.sum(np.concatenate([v, 2.0 * v]) ** 2) + np.sum(np.concatenate((m, m * v), axis=1) ** 2)
        r = r + np.sum(np.stack([v, v * v], axis=1) * np.sin(m[:, :2])) + np.sum(np.stack((m, m)) ** 2)
        r = r + np.sum(np.hstack([v, v ** 3]) ** 2) + np.sum(np.vstack([v, 2.0 * v]) * m[:2])
        r = r + np.sum(np.vstack((m, v)) ** 2) + np.sum(np.hstack((m, m)) ** 2)
        r = r + np.sum(np.concatenate([v, np.arange(2)]) ** 2)
        return r


    def complex_extremes(m):
        z = m + 1j * np.flip(m, axis=0)
        w = np.round(m) + 1j * m
        return (np.max(z, axis=0), np.min(z, axis=-1), np.max(w, axis=1), np.min(w, axis=0),
                np.max(z), np.min(w), np.max(w, axis=(0, 1), keepdims=True))


    def clip_where(v, m):
        k = np.arange(3)
        r = np.sum(np.clip(v, 0, 1)) + np.sum(np.clip(k, 0.5, 1.5) * v) + np.sum(np.clip(m, -1, v))
        r = r + np.sum(np.where(v > 0, v, 0)) + np.sum(np.where(m > 0, k, m)) + np.sum(np.where(k > 1, 1, v))
        r = r + np.sum(np.where(v > 0.5, k, 2.5) * v)
        return r


    def int_slices(v, m):
        k = np.arange(6)
        j = np.arange(9).reshape((3, 3))
        r = np.sum(k[1:4] * v) + np.sum(v / (k[::2] + 1)) + np.sum(j[1:, :] * m[:2])
        r = r + np.sum(k[3:] ** 2 * v ** 2) + np.sum(m[:, 0] - j[:, 1]) + np.sum(j[::2, ::2] @ m[:2, :2])
        return r
""", "numba_forms")


def _inputs(rng):
    s = float(rng.uniform(0.5, 1.5))
    v = rng.uniform(0.5, 1.5, 3) * rng.choice([-1.0, 1.0], 3)
    m = rng.uniform(-1.0, 1.0, (3, 3))
    t = rng.uniform(-1.0, 1.0, (2, 3, 3))
    return {"s": s, "a": s, "v": v, "x": v, "m": m, "t": t}


# (function, its parameters, whether it is differentiable)
CASES = [("dot_ranks", "s v m", True), ("dot_mixed", "v m", True), ("dot_3d", "v m t", True),
         ("matmul_ranks", "v m t", True), ("matmul_mixed", "v m", True), ("reduce_1d", "x", True),
         ("reduce_scalar", "a", True), ("reduce_2d", "m", True), ("reduce_3d", "t", True),
         ("arg_and_logic", "t", False), ("array_of", "a v m", True), ("joins", "v m", True),
         ("complex_extremes", "m", False), ("clip_where", "v m", True), ("int_slices", "v m", True)]
IDS = [c[0] for c in CASES]


def _args(rng, params):
    values = _inputs(rng)
    return tuple(values[p] for p in params.split())


def _same(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
        return
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    assert np.asarray(got).dtype == np.asarray(want).dtype


def _argnums(params):
    return tuple(range(len(params.split())))


@pytest.mark.parametrize("fname, params, differentiable", CASES, ids=IDS)
def test_the_numpy_backend_agrees_with_numpy(fname, params, differentiable, rng):
    f = getattr(FORMS, fname)
    args = _args(rng, params)
    _same(transpyle.jit(f, backend="numpy")(*args), f(*args))
    if differentiable:
        check_grad(f, args, argnums=_argnums(params), backend="numpy")


@pytest.mark.numba
@pytest.mark.parametrize("fname, params, differentiable", CASES, ids=IDS)
def test_jit_compiles(fname, params, differentiable, rng):
    f = getattr(FORMS, fname)
    args = _args(rng, params)
    _same(transpyle.jit(f, backend="numba")(*args), f(*args))


@pytest.mark.numba
@pytest.mark.parametrize("fname, params", [(f, p) for f, p, d in CASES if d], ids=[c[0] for c in CASES if c[2]])
def test_grad_compiles(fname, params, rng):
    f = getattr(FORMS, fname)
    args = _args(rng, params)
    argnums = _argnums(params)
    got = transpyle.grad(f, argnums=argnums, backend="numba")(*args)
    want = transpyle.grad(f, argnums=argnums, backend="numpy")(*args)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


# ---- a construct Numba rejects: a TranspileError at the user's line ---------------------------------
REFUSED = _load("""
    import numpy as np


    def clipped(a):
        y = np.clip(a, 0.0, 1.0) * a
        return y + 1.0
""", "numba_refused")
CLIP_LINE = next(i for i, line in enumerate(Path(REFUSED.__file__).read_text().splitlines(), 1) if "np.clip" in line)


@pytest.fixture
def clip_numba_cannot_type(monkeypatch):
    """rt.clip (what np.clip of a number is lowered to) replaced by a Python function with no Numba
    implementation, which transpyle still knows as np.clip: Numba's typing fails on it."""
    def clip(x, lo, hi):
        return np.clip(x, lo, hi)
    monkeypatch.setattr(transpyle.runtime, "clip", clip)
    monkeypatch.setitem(rules._BY_OBJECT, id(clip), (clip, rules.by_key("np.clip")))


def _told_without_numba(exc):
    text = str(exc)
    assert "numba backend cannot compile" in text and "(Numba: " in text
    assert "hint: run it with backend='numpy'" in text and "write the construct with other NumPy calls" in text
    assert "tp_" not in text and "Traceback" not in text       # neither the generated module nor Numba's trace
    assert exc.__suppress_context__
    return text


@pytest.mark.numba
@pytest.mark.parametrize("transform, value", [(transpyle.jit, 1.25), (transpyle.grad, 1.0)], ids=["jit", "grad"])
def test_a_numba_failure_names_the_users_line(transform, value, clip_numba_cannot_type):
    assert transform(REFUSED.clipped, backend="numpy")(0.5) == value       # transpyle accepts it
    with pytest.raises(TranspileError) as info:
        transform(REFUSED.clipped, backend="numba")(0.5)
    text = _told_without_numba(info.value)
    # at the user's line where Numba reports the generated line, else at the user's function (Numba does
    # not always report a location, depending on what the process compiled before)
    at_line = f"numba_refused.py:{CLIP_LINE}: y = np.clip(a, 0.0, 1.0) * a: the numba backend cannot compile this " \
        "construct (Numba: "
    at_function = re.compile(rf"\S*numba_refused.py:{CLIP_LINE - 1}: def clipped\(a\): the numba backend cannot")
    assert text.startswith(at_line) or at_function.match(text), text


class _Module:
    """A generated module as the backend sees it: its file and its text."""
    __file__ = "/cache/tp_f_grad_0123.py"
    __transpyle_text__ = textwrap.dedent('''\
        """Generated by transpyle 0.1.0: grad of f from user.py:3 for x: float64[:]. Edits are overwritten."""
        def f_grad(x):
            # primal sweep
            # user.py:4: y = np.clip(x, 0, 1)
            _t1 = rt.clip(x, 0, 1)
            # adjoint sweep
            b_t1 = np.zeros_like(_t1)
        ''')


class _NumbaError(Exception):
    """What Numba raises: a message, and the location in the compiled file."""
    def __init__(self, line):
        super().__init__("Failed in nopython mode pipeline (step: nopython frontend)\n"
                         "No implementation of function Function(<function clip>) found for signature:\n \n"
                         " >>> clip(array(float64, 1d, C), int64, int64)\n \nThere are 2 candidate implementations:")
        self.loc = types.SimpleNamespace(filename=_Module.__file__, line=line)


def test_the_failing_line_is_told_by_its_source_comment():
    text = str(compile_errors.numba_failure(_Module, "f_grad", _NumbaError(5)))
    assert text.startswith("user.py:4: y = np.clip(x, 0, 1): the numba backend cannot compile this construct "
                           "(Numba: No implementation of function Function(<function clip>) found for signature: "
                           "clip(array(float64, 1d, C), int64, int64))\n  hint: run it with backend='numpy'")


def test_a_line_without_a_source_comment_is_told_by_its_function():
    # the adjoint sweep's declarations come from no one line: the function's, and the generated statement
    text = str(compile_errors.numba_failure(_Module, "f_grad", _NumbaError(7)))
    assert text.startswith("user.py:3: f_grad: the numba backend cannot compile the generated statement "
                           "`b_t1 = np.zeros_like(_t1)` (Numba: No implementation")
