"""Reductions over a tuple of axes, and dtypes taken from arrays (``x.dtype``), in every mode.

Reductions: each of np.sum, np.mean, np.prod, np.max and np.min (function and method forms) over
tuples of axes (negative ones, one axis, every axis, none) with and without keepdims, on arrays of
rank 2 to 4, is checked in jit (against NumPy), grad (against central finite differences), jvp (a
directional difference), vmap by loop and by array lifting (against a Python loop) and vmap(grad)
by array lifting (against grad per example). The programs are written out as a module, one function
per case, since the axes must be constants in the source. Axes NumPy refuses are refused at the
user's line with NumPy's meaning.

dtypes: constructors, ``astype``, ``np.asarray``/``np.array`` (of an array or of a list of values) and
``np.ndarray`` given ``x.dtype`` (or a name holding it, or a comparison of dtypes) in the same modes,
float32 and complex arrays too.

A few cases of each compile with Numba (marked ``numba``).
"""
import importlib.util
import tempfile
import textwrap
from pathlib import Path

import numpy as np
import pytest

import transpyle
from transpyle.base.errors import TranspileError
from gradcheck import check_grad, check_jvp

BATCH = 3
REDUCTIONS = ("sum", "mean", "prod", "max", "min")
# rank -> axis tuples: several axes, negative ones, one axis, every axis (a full reduction), none
AXES = {
    2: [(0, 1), (-1, 0), (1,), ()],
    3: [(1, 2), (0, 2), (-1, 0), (0, 1, 2), (-2,)],
    4: [(1, 2, 3), (0, 2), (-3, -1), (0, 1, 3)],
}
SHAPES = {2: (3, 4), 3: (2, 3, 4), 4: (2, 3, 2, 3)}


def _load(source, stem):
    """The module of ``source``, written to a file (transpyle reads a function's source from its file)."""
    path = Path(tempfile.mkdtemp(prefix="transpyle-dtype-axes-")) / f"{stem}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _reduction_cases():
    """(case id, function name, source, rank, reduction): the function form for keepdims=False and the
    method form (``x.sum(axis=...)``) for keepdims=True, so both spellings are covered."""
    cases = []
    for red in REDUCTIONS:
        for rank, tuples in AXES.items():
            for axis in tuples:
                for keep in (False, True):
                    fname = f"{red}_r{rank}_{'_'.join(str(a).replace('-', 'm') for a in axis) or 'none'}" \
                            f"{'_keep' if keep else ''}"
                    call = f"x.{red}(axis={axis!r}, keepdims=True)" if keep else f"np.{red}(x, axis={axis!r})"
                    # a nonlinear use of every element of the result, so each one's derivative is checked
                    source = f"def {fname}(x):\n    y = {call}\n    return np.sum(np.sin(y) * (y + 1.5))\n"
                    cases.append((fname, source, rank, red))
    return cases


CASES = _reduction_cases()
PROGRAMS = _load("import numpy as np\n\n\n" + "\n\n".join(source for _, source, _, _ in CASES), "reduce_axes")


def _input(rng, red, shape):
    """Values where the reduction is smooth: distinct (no ties) for max/min, near 1 with random signs for
    prod (products of many elements stay moderate), any for sum and mean."""
    if red in ("max", "min"):
        size = int(np.prod(shape))
        return ((rng.permutation(size) + rng.uniform(0.25, 0.75, size)) * (3.0 / size) - 1.5).reshape(shape)
    if red == "prod":
        return rng.uniform(0.8, 1.25, shape) * rng.choice([-1.0, 1.0], shape)
    return rng.uniform(-1.0, 1.0, shape)


def _batch(rng, red, shape):
    return np.stack([_input(rng, red, shape) for _ in range(BATCH)])


MODES = ("jit", "grad", "jvp", "vmap_loop", "vmap_array", "vmap_grad")


def check_mode(f, x_of, batch_of, mode, backend, rng):
    """``f`` (one array argument) in ``mode`` against NumPy, finite differences or a loop over the batch."""
    if mode == "jit":
        x = x_of(rng)
        np.testing.assert_allclose(transpyle.jit(f, backend=backend)(x), f(x.copy()), rtol=1e-12, atol=1e-12)
    elif mode == "grad":
        check_grad(f, (x_of(rng),), backend=backend)
    elif mode == "jvp":
        check_jvp(f, (x_of(rng),), 0, rng, backend=backend)
    elif mode in ("vmap_loop", "vmap_array"):
        xs = batch_of(rng)
        got = transpyle.vmap(f, backend=backend, strategy=mode[5:])(xs)
        np.testing.assert_allclose(got, [f(x.copy()) for x in xs], rtol=1e-12, atol=1e-12)
    else:
        xs = batch_of(rng)
        got = transpyle.vmap(transpyle.grad(f, backend=backend), backend=backend, strategy="array")(xs)
        one = transpyle.grad(f, backend="numpy")
        np.testing.assert_allclose(got, [one(x) for x in xs], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fname, rank, red", [pytest.param(fname, rank, red, id=fname)
                                              for fname, _, rank, red in CASES])
def test_reduction_over_axes(fname, rank, red, mode, rng):
    shape = SHAPES[rank]
    check_mode(getattr(PROGRAMS, fname), lambda r: _input(r, red, shape), lambda r: _batch(r, red, shape),
               mode, "numpy", rng)


NUMBA_REDUCTIONS = [("sum_r3_1_2", "grad"), ("mean_r4_m3_m1_keep", "jvp"), ("prod_r3_0_2", "grad"),
                    ("max_r3_m1_0_keep", "vmap_array"), ("min_r2_m1_0", "jit")]


@pytest.mark.numba
@pytest.mark.parametrize("fname, mode", NUMBA_REDUCTIONS, ids=[f"{f}-{m}" for f, m in NUMBA_REDUCTIONS])
def test_reduction_over_axes_compiles(fname, mode, rng):
    _, _, rank, red = next(c for c in CASES if c[0] == fname)
    shape = SHAPES[rank]
    check_mode(getattr(PROGRAMS, fname), lambda r: _input(r, red, shape), lambda r: _batch(r, red, shape),
               mode, "numba", rng)


def test_the_table_covers_what_it_claims():
    assert len(CASES) == len(REDUCTIONS) * sum(len(t) for t in AXES.values()) * 2
    assert all(hasattr(PROGRAMS, fname) for fname, _, _, _ in CASES)


# ---- np.var and np.std (written with means) over axes, with ddof ----------------------------------
SPREAD_CASES = [(f"{red}_{'_'.join(str(a).replace('-', 'm') for a in axis)}_ddof{ddof}{'_keep' if keep else ''}",
                 red, axis, ddof, keep)
                for red in ("var", "std") for axis in [(1, 2), (0, -1), (2,)] for ddof in (0, 1)
                for keep in (False, True)]
SPREADS = _load("import numpy as np\n\n\n" + "\n\n".join(
    f"def {fname}(x):\n    y = np.{red}(x, axis={axis!r}, ddof={ddof}, keepdims={keep})\n"
    f"    return np.sum(np.sin(y) * (y + 1.5))\n" for fname, red, axis, ddof, keep in SPREAD_CASES), "spreads")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fname", [case[0] for case in SPREAD_CASES])
def test_var_and_std_over_axes(fname, mode, rng):
    check_mode(getattr(SPREADS, fname), lambda r: r.normal(size=(2, 3, 4)), lambda r: r.normal(size=(BATCH, 2, 3, 4)),
               mode, "numpy", rng)


@pytest.mark.numba
def test_std_over_axes_compiles(rng):
    check_mode(SPREADS.std_0_m1_ddof1_keep, lambda r: r.normal(size=(2, 3, 4)), None, "grad", "numba", rng)


# ---- prod over axes is exact at zeros; second derivatives ------------------------------------------
EXTRA = _load(textwrap.dedent("""
    import numpy as np

    def prod_planes(x):
        return np.sum(np.prod(x, axis=(0, 2)) * np.array([1.0, -2.0, 3.0]))

    def sum_planes_squared(x):
        return np.sum(np.sum(x * x, axis=(1, 2), keepdims=True) * x)
"""), "reduce_axes_extra")


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=pytest.mark.numba)])
def test_prod_over_axes_is_exact_at_a_zero(backend, rng):
    x = rng.uniform(0.5, 1.5, (2, 3, 2))
    x[1, 2, 0] = 0.0                 # one zero in slice 2: the others' gradients are 0, its own is not
    g = transpyle.grad(EXTRA.prod_planes, backend=backend)(x)
    others = np.array([[[np.prod(np.delete(x[:, j, :].ravel(), i * 2 + k)) for k in range(2)]
                        for j in range(3)] for i in range(2)])
    np.testing.assert_allclose(g, np.array([1.0, -2.0, 3.0])[None, :, None] * others, rtol=1e-12)
    assert g[1, 2, 0] != 0.0 and np.all(np.isfinite(g))


def test_second_derivatives_over_axes(rng):
    x = rng.uniform(-1.0, 1.0, (2, 3, 2))
    for f in (EXTRA.prod_planes, EXTRA.sum_planes_squared):
        h = transpyle.hessian(f, backend="numpy")(x)
        g = transpyle.grad(f, backend="numpy")
        step = 1e-6
        fd = np.zeros(x.shape + x.shape)
        for idx in np.ndindex(x.shape):
            e = np.zeros(x.shape)
            e[idx] = step
            fd[(...,) + idx] = (g(x + e) - g(x - e)) / (2 * step)
        np.testing.assert_allclose(h, fd, rtol=1e-5, atol=1e-6)


# ---- what NumPy refuses: the same meaning, at the user's line -------------------------------------
REFUSED = _load(textwrap.dedent("""
    import numpy as np

    def repeated(x):
        return np.sum(np.sum(x, axis=(0, 0)))

    def repeated_negative(x):
        return np.sum(np.max(x, axis=(2, -1)))

    def out_of_range(x):
        return np.sum(np.mean(x, axis=(1, 3)))

    def out_of_range_negative(x):
        return np.sum(x.prod(axis=(-4, 1)))

    def not_an_int(x):
        return np.sum(np.min(x, axis=(0, 1.0)))
"""), "reduce_axes_refused")


@pytest.mark.parametrize("fname, message", [
    ("repeated", "duplicate value in axis (0, 0)"),
    ("repeated_negative", "duplicate value in axis (2, -1)"),
    ("out_of_range", "axis 3 in (1, 3) is out of bounds for an array of rank 3"),
    ("out_of_range_negative", "axis -4 in (-4, 1) is out of bounds for an array of rank 3"),
    ("not_an_int", "axis must be None, an int or a tuple of ints"),
])
def test_axes_numpy_refuses_are_refused_at_the_line(fname, message):
    f = getattr(REFUSED, fname)
    x = np.ones((2, 3, 4))
    with pytest.raises(Exception):
        f(x)                                    # NumPy refuses it too
    with pytest.raises(TranspileError) as info:
        transpyle.grad(f, backend="numpy")(x)
    assert message in str(info.value)
    line = f.__code__.co_firstlineno + 1
    assert f"reduce_axes_refused.py:{line}" in str(info.value)


# ---- dtypes taken from arrays -------------------------------------------------------------------
DTYPES = _load(textwrap.dedent("""
    import numpy as np

    def empty_like_dtype(x):
        y = np.empty(x.shape, dtype=x.dtype)
        y[:] = x * 2.0
        return np.sum(y * x)

    def zeros_positional_dtype(x):
        return np.sum((np.zeros(x.shape, x.dtype) + x) ** 2)

    def zeros_like_dtype(x):
        return np.sum(np.zeros_like(x, dtype=x.dtype) + x * x)

    def full_dtype(x):
        return np.sum(np.full(x.shape, 1.5, dtype=x.dtype) * np.sin(x))

    def astype_dtype(x):
        y = x * 3.0
        return np.sum(y.astype(x.dtype) * x)

    def asarray_dtype(x):
        return np.sum(np.asarray(x * 2.0, dtype=x.dtype) * x)

    def array_dtype(x):
        return np.sum(np.array(x, dtype=x.dtype) * np.cos(x))

    def ndarray_dtype(x):
        y = np.ndarray(x.shape, dtype=x.dtype)
        y[:] = x
        return np.sum(y * x)

    def ndarray_default(x):
        y = np.ndarray(x.shape)
        y[:] = np.sin(x)
        return np.sum(y * x)

    def dtype_name(x):
        dt = x.dtype
        z = np.zeros(3, dt)
        for i in range(3):
            z[i] = x[i] * x[i]
        return np.sum(z)

    def dtype_compared(x):
        if x.dtype == np.float64:
            return np.sum(x * x)
        return np.sum(x)

    def dtype_not_equal(x):
        if x.dtype != np.float32:
            return np.sum(x * x * x)
        return np.sum(x)

    def dtype_through_helper(x):
        return np.sum(_filled(x, x.dtype) * x)

    def _filled(x, dt):
        return np.full(x.shape, 2.0, dt)

    def astype_int(x):
        n = (x * 4.0).astype(np.int64)
        return np.sum(n * x)

    def asarray_other_dtype(x):
        return np.sum(np.asarray(x, np.float64) * x)

    def astype_complex(x):
        y = x.astype(np.complex128) * (1.0 + 2.0j)
        return np.sum(np.abs(y) ** 2)

    def literal_dtype(x):
        a = np.array([1, 2, 3], dtype=x.dtype)
        a[0] = x[0] * x[1]
        return np.sum(a * x[:3])

    def round_trip_float32(x):
        return np.sum(x.astype(np.float32).astype(np.float64) * x)
"""), "dtype_programs")

DTYPE_PROGRAMS = ["empty_like_dtype", "zeros_positional_dtype", "zeros_like_dtype", "full_dtype", "astype_dtype",
                  "asarray_dtype", "array_dtype", "ndarray_dtype", "ndarray_default", "dtype_name", "dtype_compared",
                  "dtype_not_equal", "dtype_through_helper", "astype_int", "asarray_other_dtype", "astype_complex",
                  "literal_dtype"]


@pytest.mark.parametrize("mode", ("jit", "grad", "jvp", "vmap_loop", "vmap_array"))
@pytest.mark.parametrize("fname", DTYPE_PROGRAMS)
def test_dtype_of_an_array(fname, mode, rng):
    shape = (5,)
    check_mode(getattr(DTYPES, fname), lambda r: r.uniform(0.3, 1.7, shape),
               lambda r: r.uniform(0.3, 1.7, (BATCH,) + shape), mode, "numpy", rng)


NUMBA_DTYPES = [("empty_like_dtype", "grad"), ("astype_dtype", "jvp"), ("dtype_name", "grad"),
                ("ndarray_dtype", "jit"), ("astype_complex", "grad"), ("literal_dtype", "grad")]


@pytest.mark.numba
@pytest.mark.parametrize("fname, mode", NUMBA_DTYPES, ids=[f"{f}-{m}" for f, m in NUMBA_DTYPES])
def test_dtype_of_an_array_compiles(fname, mode, rng):
    check_mode(getattr(DTYPES, fname), lambda r: r.uniform(0.3, 1.7, (5,)),
               lambda r: r.uniform(0.3, 1.7, (BATCH, 5)), mode, "numba", rng)


def test_float32_conversion_has_the_identity_derivative(rng):
    # finite differences cannot see through float32 rounding: the gradient of sum(x32 * x) is x32 + x
    x = rng.uniform(0.3, 1.7, 5)
    g = transpyle.grad(DTYPES.round_trip_float32, backend="numpy")(x)
    # (the cotangent of the float32 value is a float32, as in JAX: float32 accuracy)
    np.testing.assert_allclose(g, x.astype(np.float32).astype(np.float64) + x, rtol=1e-6)


def test_dtype_follows_the_argument(rng):
    """The same program keeps float32 and complex arrays in their dtype, as NumPy does."""
    f = transpyle.jit(DTYPES.empty_like_dtype, backend="numpy")
    x32 = rng.uniform(0.3, 1.7, 5).astype(np.float32)
    assert np.asarray(f(x32)).dtype == np.float32
    np.testing.assert_allclose(f(x32), DTYPES.empty_like_dtype(x32), rtol=1e-6)
    z = rng.normal(size=4) + 1j * rng.normal(size=4)
    np.testing.assert_allclose(f(z), DTYPES.empty_like_dtype(z), rtol=1e-12)
    assert transpyle.jit(DTYPES.dtype_compared, backend="numpy")(x32) == pytest.approx(float(np.sum(x32)))


def test_complex_array_dtype_derivative(rng):
    """grad of a real function of a complex argument (df/dx - i df/dy) through np.empty(z.shape, z.dtype)."""
    f = _load("import numpy as np\n\n\n" + textwrap.dedent('''
        def f(z):
            y = np.empty(z.shape, dtype=z.dtype)
            y[:] = z * z
            return np.sum(np.abs(y) ** 2)
    '''), "complex_dtype").f
    z = rng.normal(size=4) + 1j * rng.normal(size=4)
    got = transpyle.grad(f, backend="numpy")(z)
    # |z^2|^2 = |z|^4: d/dx - i d/dy = 4 |z|^2 conj(z)
    np.testing.assert_allclose(got, 4 * np.abs(z) ** 2 * np.conj(z), rtol=1e-10)


DTYPE_REFUSED = _load(textwrap.dedent("""
    import numpy as np

    def complex_to_real(x):
        y = x.astype(np.complex128)
        return np.sum(y.astype(np.float64))

    def dtype_as_a_value(x):
        dt = x.dtype
        return dt

    def two_dtypes_one_name(x):
        dt = x.dtype
        n = x.astype(np.int64)
        if x[0] > 0:
            dt = n.dtype
        return np.sum(np.zeros(3, dt))

    def dtypes_ordered(x):
        if x.dtype < np.float64:
            return 1.0
        return np.sum(x)
"""), "dtype_refused")


@pytest.mark.parametrize("fname, message", [
    ("complex_to_real", "converting a complex array to float64 drops its imaginary part"),
    ("dtype_as_a_value", "'dt' holds a dtype, which is not a value here"),
    ("two_dtypes_one_name", "'dt' holds the dtype float64 and then int64"),
    ("dtypes_ordered", "dtypes can only be compared with == and !="),
])
def test_dtype_misuse_is_refused_at_the_line(fname, message):
    f = getattr(DTYPE_REFUSED, fname)
    with pytest.raises(TranspileError) as info:
        transpyle.grad(f, backend="numpy")(np.linspace(0.5, 1.5, 4))
    assert message in str(info.value)
    assert "dtype_refused.py:" in str(info.value)
