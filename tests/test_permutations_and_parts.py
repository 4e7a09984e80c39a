"""Axis permutations (np.transpose with axes, x.transpose(...), .mT), the parts of complex arrays (.real,
.imag, reads and writes), np.any / np.all, tuple axes of np.linalg.norm, and diagonals (np.trace with
offset and axes, np.diagonal, np.diag, np.tril / np.triu): every program in jit (value against NumPy),
grad and jvp (against central finite differences) and vmap by both strategies (against a loop of NumPy).

Permutations and complex parts are views in NumPy: the programs that write through them check that the
write reaches the base, in the value and the derivatives. What is refused is checked at the user's line.
"""
import itertools

import numpy as np
import pytest

import transpyle
from gradcheck import check_grad, check_jvp, distincts, draw, normals, uniforms
from program_modes import check_jit, check_vmap, float_argnums

_HERE = "test_permutations_and_parts.py"


# ---- axis permutations --------------------------------------------------------------------------------
def permuted(axes):
    """np.transpose(a, axes) read by a nonlinear function and weighted (so every element counts)."""
    def program(a, w):
        return np.sum(np.sin(np.transpose(a, axes)) * w)
    program.__name__ = f"transpose_{'_'.join(str(a) for a in axes).replace('-', 'm')}"
    return program


def _permutation_cases():
    cases = []
    for shape in [(4,), (3, 4), (2, 3, 4), (2, 3, 1, 2)]:
        ndim = len(shape)
        perms = list(itertools.permutations(range(ndim)))
        picked = perms if ndim <= 3 else perms[::5]
        for perm in picked:
            # every other case spells some axes negative
            axes = tuple(a - ndim if (i + len(cases)) % 2 and a else a for i, a in enumerate(perm))
            out = tuple(shape[p] for p in perm)
            cases.append(pytest.param(permuted(axes), draw(normals(shape), normals(out)),
                                      id=f"{shape}-{axes}"))
    return cases


def transpose_keyword(a, w):
    return np.sum(np.transpose(a, axes=(2, 0, 1)) ** 2 * w)


def transpose_method_varargs(a, w):
    return np.sum(np.cos(a.transpose(1, 2, 0)) * w)


def transpose_method_tuple(a, w):
    return np.sum(a.transpose((1, 0, 2)) * w * a.transpose((1, 0, 2)))


def transpose_attr_reverses(a, w):
    return np.sum(np.exp(a.T) * w)


def permute_dims(a, w):
    return np.sum(np.permute_dims(a, (0, 2, 1)) ** 3 * w)


def matrix_transpose_attr(a, w):
    return np.sum(np.tanh(a.mT) * w)


def transposed_product(a, w):
    return np.sum((a.transpose(0, 2, 1) @ a) * w)


# writes through a transposed view reach the base
def write_through_transpose(a, w):
    y = a.copy()
    v = np.transpose(y, (1, 0, 2))
    v[0] = v[0] * w
    return np.sum(y * np.sin(y))


def write_through_method_transpose(a, w):
    y = a * 1.0
    v = y.transpose(2, 0, -2)
    v[1, :, 0] = w[0] * v[1, :, 0] + 1.0
    v *= 2.0
    return np.sum(y ** 3)


def write_through_mt(a, w):
    y = a.copy()
    u = y.mT
    u[:, 0] = w * u[:, 1]
    return np.sum(np.cos(y) * y)


def base_write_seen_by_permutation(a, w):
    y = a.copy()
    v = y.transpose(2, 0, 1)
    y[0] = w * y[0]
    return np.sum(v * v * np.arange(v.size).reshape(v.shape))


# ---- parts of complex arrays --------------------------------------------------------------------
def read_parts(x, w):
    z = x + 1j * w
    return np.sum(z.real * z.imag ** 2 + np.real(z) * np.imag(z * z))


def parts_of_a_product(x, w):
    z = (x + 1j * w) * (w - 2j * x)
    return np.sum(z.real ** 2 - z.imag * x)


def parts_of_a_real_array(x, w):
    return np.sum(x.real * w + x.imag)


def write_real_part_slice(x, w):
    z = x + 1j * w
    z.real[:] = w * x
    return np.sum(np.abs(z) ** 2 + z.real * z.imag)


def write_real_part_element(x, w):
    z = x * w + 1j * x
    z.real[1] = 3.0 * w[0]
    r = z.real
    r[2:] *= x[2:]
    return np.sum(z.real * np.abs(z))


def write_real_part_of_a_matrix(a, w):
    z = a - 1j * a * a
    z.real[0] = w
    return np.sum(np.abs(z * z))


# ---- np.any / np.all ------------------------------------------------------------------------------------
def any_selects(x, w):
    return np.sum(np.where(np.any(x > 0.5, axis=0), x[0] * w, np.sin(x[1])))


def all_selects_keepdims(x, w):
    return np.sum(np.where(np.all(x > -0.5, axis=1, keepdims=True), x * x, w[:, None] * x))


def any_all_tuple_axes(x, w):
    some = np.any(x > 0.8, axis=(0, 2))
    every = np.all(x < 0.9, axis=(-1, 0), keepdims=True)
    return np.sum(np.where(some, w, 2.0 * w)) + np.sum(np.where(every, x, -x))


def any_all_methods(x, w):
    s = np.sum(x * w)
    if x.any() and (x > -10.0).all():
        s = s * 2.0
    return s + np.sum(np.where(x.all(axis=0), x[0], x[1]))


def all_whole_as_number(x, w):
    return np.sum(x * w) * (1.0 + np.all(x > -5.0) + 2.0 * np.any(x > 5.0))


# ---- norms over a tuple of axes -----------------------------------------------------------------------
def norm_tuple_axis(x, w):
    return np.sum(np.linalg.norm(x, axis=(1, 2)) * w)


def norm_fro_tuple_axis_keepdims(x, w):
    return np.sum(x / np.linalg.norm(x, "fro", axis=(0, -1), keepdims=True) * w)


# ---- diagonals ------------------------------------------------------------------------------------------
def trace_offset(a, w):
    return np.trace(np.sin(a), 1) * w[0] + np.trace(a * a, offset=-1)


def trace_axes(x, w):
    return np.sum(np.trace(x, -1, axis1=2, axis2=0) * w) + np.sum(np.trace(x ** 2, axis1=1, axis2=-1))


def trace_methods(a, w):
    return a.trace() * w[0] + a.trace(offset=1) ** 2


def diagonal_axes(x, w):
    return np.sum(np.cos(np.diagonal(x, 1, 0, 2)) * w) + np.sum(x.diagonal() ** 2)


def diag_of_vector(v, w):
    return np.sum(np.diag(v * v, 1) * w) + np.sum(np.diag(np.sin(v)) * w[1:, 1:])


def diag_of_matrix(a, w):
    return np.sum(np.diag(a, -1) * w[:3]) + np.sum(np.diag(a) ** 3)


def triangles(a, w):
    return np.sum(np.tril(a * a, -1) * w) + np.sum(np.triu(np.sin(a), 1)) + np.sum(np.tril(a, 2) * a)


def triangles_of_a_stack(x, w):
    return np.sum(np.triu(x, 1) * w) + np.sum(np.tril(x * x) * w)


PROGRAMS = [
    (transpose_keyword, draw(normals((2, 3, 4)), normals((4, 2, 3)))),
    (transpose_method_varargs, draw(normals((2, 3, 4)), normals((3, 4, 2)))),
    (transpose_method_tuple, draw(normals((2, 3, 4)), normals((3, 2, 4)))),
    (transpose_attr_reverses, draw(normals((2, 3, 4)), normals((4, 3, 2)))),
    (permute_dims, draw(normals((2, 3, 4)), normals((2, 4, 3)))),
    (matrix_transpose_attr, draw(normals((2, 3, 4)), normals((2, 4, 3)))),
    (transposed_product, draw(normals((2, 3, 4)), normals((2, 4, 4)))),
    (write_through_transpose, draw(normals((2, 3, 4)), normals((2, 4)))),
    (write_through_method_transpose, draw(normals((2, 3, 4)), normals((4,)))),
    (write_through_mt, draw(normals((3, 4)), normals((4,)))),
    (base_write_seen_by_permutation, draw(normals((2, 3, 4)), normals((3, 4)))),
    (read_parts, draw(normals((5,)), normals((5,)))),
    (parts_of_a_product, draw(normals((2, 3)), normals((2, 3)))),
    (parts_of_a_real_array, draw(normals((4,)), normals((4,)))),
    (write_real_part_slice, draw(normals((5,)), normals((5,)))),
    (write_real_part_element, draw(normals((5,)), normals((5,)))),
    (write_real_part_of_a_matrix, draw(normals((3, 4)), normals((4,)))),
    (any_selects, draw(uniforms((3, 4), avoid=(0.5,)), normals((4,)))),
    (all_selects_keepdims, draw(uniforms((3, 4), lo=-1.0, hi=0.3, avoid=(-0.5,)), normals((3,)))),
    (any_all_tuple_axes, draw(uniforms((2, 3, 4), avoid=(0.8, 0.9)), normals((3,)))),
    (any_all_methods, draw(uniforms((2, 3)), normals((2, 3)))),
    (all_whole_as_number, draw(normals((2, 3)), normals((2, 3)))),
    (norm_tuple_axis, draw(normals((3, 2, 4)), normals((3,)))),
    (norm_fro_tuple_axis_keepdims, draw(normals((3, 2, 4)), normals((1, 2, 1)))),
    (trace_offset, draw(normals((3, 4)), normals((2,)))),
    (trace_axes, draw(normals((3, 2, 4)), normals((2,)))),
    (trace_methods, draw(normals((3, 3)), normals((2,)))),
    (diagonal_axes, draw(normals((3, 2, 4)), normals((2, 3)))),
    (diag_of_vector, draw(normals((3,)), normals((4, 4)))),
    (diag_of_matrix, draw(normals((4, 3)), normals((3,)))),
    (triangles, draw(normals((3, 4)), normals((3, 4)))),
    (triangles_of_a_stack, draw(distincts((2, 3, 3)), normals((2, 3, 3)))),
]

# programs that write through a view: array lifting refuses a view written in place (the default
# strategy then lifts the loop over the batch)
_WRITTEN_VIEWS = {"write_through_transpose", "write_through_method_transpose", "write_through_mt",
                  "base_write_seen_by_permutation", "write_real_part_slice", "write_real_part_element",
                  "write_real_part_of_a_matrix"}

# a compiled subset: one program per family
_ON_NUMBA = {"transpose_method_varargs", "write_through_method_transpose", "matrix_transpose_attr",
             "write_real_part_element", "any_all_tuple_axes", "trace_axes", "diag_of_vector", "norm_tuple_axis"}

_ALL_CASES = _permutation_cases() + [pytest.param(fn, make, id=fn.__name__) for fn, make in PROGRAMS]


def test_programs_are_pure_scalar_functions(rng):
    for case in _ALL_CASES:
        fn, make = case.values
        value = fn(*make(rng))
        assert np.ndim(value) == 0 and np.isrealobj(value) and np.isfinite(value), fn.__name__


@pytest.mark.parametrize("fn, make", _ALL_CASES)
def test_jit(fn, make, rng):
    check_jit(fn, make(rng), "numpy")


@pytest.mark.parametrize("fn, make", _ALL_CASES)
def test_grad(fn, make, rng):
    args = make(rng)
    check_grad(fn, args, float_argnums(args))


@pytest.mark.parametrize("fn, make", _ALL_CASES)
def test_jvp(fn, make, rng):
    args = make(rng)
    nums = float_argnums(args)
    check_jvp(fn, args, nums if isinstance(nums, tuple) else (nums,), rng)


@pytest.mark.parametrize("strategy", ["auto", "array"])
@pytest.mark.parametrize("fn, make", _ALL_CASES)
def test_vmap(fn, make, strategy, rng):
    if strategy == "array" and fn.__name__ in _WRITTEN_VIEWS:
        with pytest.raises(transpyle.TranspileError, match="array lifting does not support a view"):
            check_vmap(fn, make, "numpy", strategy, rng)
        return
    check_vmap(fn, make, "numpy", strategy, rng)


@pytest.mark.numba
@pytest.mark.parametrize("fn, make", [pytest.param(fn, make, id=fn.__name__) for fn, make in PROGRAMS
                                      if fn.__name__ in _ON_NUMBA])
def test_compiled(fn, make, rng):
    args = make(rng)
    check_jit(fn, args, "numba")
    check_grad(fn, args, float_argnums(args), backend="numba")


@pytest.mark.numba
def test_compiled_jvp_and_vmap_of_permutations(rng):
    fn, make = write_through_method_transpose, dict(PROGRAMS)[write_through_method_transpose]
    args = make(rng)
    check_jvp(fn, args, (0, 1), rng, backend="numba")
    check_vmap(transpose_method_varargs, dict(PROGRAMS)[transpose_method_varargs], "numba", "auto", rng)


# ---- refusals at the user's line ----------------------------------------------------------------------
def write_imag_part(x, w):
    z = x + 1j * w
    z.imag[1] = 3.0
    return np.sum(np.abs(z))


def write_through_imag_name(x, w):
    z = x + 1j * w
    i = z.imag
    i *= w
    return np.sum(z.real * z.imag)


def assign_real_attribute(x, w):
    z = x + 1j * w
    z.real = w
    return np.sum(np.abs(z))


def write_into_diagonal_base(a, w):
    y = a.copy()
    d = np.diagonal(y)
    y[0, 0] = w[0]
    return np.sum(d * d)


def write_into_diag(a, w):
    y = a.copy()
    d = np.diag(y)
    d[0] = 1.0
    return np.sum(d * w)


def transpose_not_a_permutation(a, w):
    return np.sum(np.transpose(a, (0, 0, 1)) * w)


def transpose_wrong_length(a, w):
    return np.sum(a.transpose(1, 0) * w)


def diagonal_same_axes(a, w):
    return np.sum(np.diagonal(a, 0, 1, -2) * w)


@pytest.mark.parametrize("fn, shapes, message", [
    (write_imag_part, ((4,), (4,)), "writes through the imaginary parts"),
    (write_through_imag_name, ((4,), (4,)), "writes through the imaginary parts"),
    (assign_real_attribute, ((4,), (4,)), "assigning to the attribute '.real'"),
    (write_into_diagonal_base, ((3, 3), (3,)), "read-only view"),
    (write_into_diag, ((3, 3), (3,)), "read-only view"),
    (transpose_not_a_permutation, ((2, 3, 4), (2, 2, 3)), r"not a permutation of the 3 axes"),
    (transpose_wrong_length, ((2, 3, 4), (3, 2, 4)), r"not a permutation of the 3 axes"),
    (diagonal_same_axes, ((2, 3, 3), (3,)), "name the same axis"),
])
@pytest.mark.parametrize("mode", ["jit", "grad", "jvp", "vmap"])
def test_refusals_name_the_users_line(fn, shapes, message, mode, rng):
    args = tuple(rng.normal(size=s) for s in shapes)
    transform = {"jit": lambda f: transpyle.jit(f, backend="numpy"),
                 "grad": lambda f: transpyle.grad(f, argnums=(0, 1), backend="numpy"),
                 "jvp": lambda f: (lambda *a: transpyle.jvp(f, a, a, backend="numpy")),
                 "vmap": lambda f: transpyle.vmap(f, backend="numpy")}[mode]
    if mode == "vmap":
        args = tuple(np.stack([a, a]) for a in args)
    with pytest.raises(transpyle.TranspileError, match=message) as info:
        transform(fn)(*args)
    assert f"{_HERE}:" in str(info.value)
