"""``@`` and ``np.matmul`` on operands of any rank (rules/linalg.py, runtime/products.py), with NumPy's
semantics: stacks of matrices whose leading (batch) dimensions broadcast against each other, a 1-D operand
read as a row (on the left) or a column (on the right) whose dimension the result drops.

Every pair of shapes in SHAPES runs in each mode on the numpy backend, against references that never
involve transpyle: jit (the value, shape and dtype against NumPy's matmul), grad in both operands and vjp
(against central finite differences), jvp (against a directional finite difference), and vmap over a leading
batch axis of a, of b and of both, by array lifting and by loop lifting (against a Python loop of NumPy).
A few cases of each mode compile with Numba (``numba`` marker), whose own ``@`` takes neither ranks above 2
nor mixed dtypes: those run through ``rt.matmul``.
"""
import numpy as np
import pytest

import transpyle
from transpyle.base.errors import TranspileError
from gradcheck import check_grad, check_jvp, check_vjp

BATCH = 3

# (id, shape of a, shape of b): batch dimensions equal, broadcast (missing or length 1, on either side),
# 1-D operands on either side of a stack, and the 1-D and 2-D products Numba runs itself
SHAPES = [
    ("stack_at_matrix", (2, 3, 4), (4, 5)),
    ("matrix_at_stack", (3, 4), (2, 4, 5)),
    ("equal_batches", (2, 3, 4), (2, 4, 5)),
    ("length1_batch_left", (1, 3, 4), (2, 4, 5)),
    ("length1_batch_right", (2, 3, 4), (1, 4, 5)),
    ("broadcast_both", (2, 1, 3, 4), (5, 4, 6)),
    ("broadcast_crossed", (2, 1, 3, 4), (1, 5, 4, 2)),
    ("broadcast_rank4_rank3", (3, 1, 2, 3), (4, 3, 2)),
    ("rank4_equal", (2, 2, 3, 4), (2, 2, 4, 3)),
    ("ones_batch_at_matrix", (1, 1, 3, 4), (4, 2)),
    ("vector_at_stack", (4,), (2, 4, 5)),
    ("stack_at_vector", (2, 3, 4), (4,)),
    ("vector_at_rank4", (4,), (3, 2, 4, 5)),
    ("rank4_at_vector", (3, 2, 3, 4), (4,)),
    ("outer_products", (2, 3, 1), (2, 1, 4)),
    ("matrix_at_matrix", (3, 4), (4, 5)),
    ("vector_at_matrix", (4,), (4, 5)),
    ("matrix_at_vector", (3, 4), (4,)),
    ("vector_at_vector", (4,), (4,)),
]
SHAPE_PARAMS = [pytest.param(sa, sb, id=name) for name, sa, sb in SHAPES]


def product(a, b):
    return a @ b


def product_called(a, b):
    return np.matmul(a, b)


def loss(a, b):
    return np.sum(np.sin(a @ b))


def _operands(rng, sa, sb):
    return rng.normal(size=sa), rng.normal(size=sb)


def test_shape_table_is_wide():
    """The table covers what it claims: broadcast batch dimensions and 1-D operands on either side."""
    assert len(SHAPES) >= 15 and len({name for name, _, _ in SHAPES}) == len(SHAPES)
    broadcast = [(sa, sb) for _, sa, sb in SHAPES if len(sa) > 2 and len(sb) > 2 and sa[:-2] != sb[:-2]]
    assert len(broadcast) >= 5
    assert any(len(sa) == 1 and len(sb) > 2 for _, sa, sb in SHAPES)
    assert any(len(sb) == 1 and len(sa) > 2 for _, sa, sb in SHAPES)


# ---- values ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [product, product_called], ids=["operator", "np_matmul"])
@pytest.mark.parametrize("sa, sb", SHAPE_PARAMS)
def test_jit_value(fn, sa, sb, rng):
    a, b = _operands(rng, sa, sb)
    want = np.matmul(a, b)
    got = transpyle.jit(fn, backend="numpy")(a, b)
    assert np.shape(got) == want.shape and np.asarray(got).dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("da, db", [(np.int64, np.int64), (np.int64, np.float64), (np.float64, np.complex128),
                                    (np.complex128, np.complex128), (np.bool_, np.bool_)],
                         ids=["int_int", "int_float", "float_complex", "complex", "bool"])
@pytest.mark.parametrize("sa, sb", [((2, 1, 3, 4), (5, 4, 2)), ((4,), (2, 4, 3)), ((2, 3, 4), (4,))],
                         ids=["broadcast", "vector_left", "vector_right"])
def test_jit_value_of_other_dtypes(da, db, sa, sb, rng):
    def draw(shape, dtype):
        if dtype is np.bool_:
            return rng.random(shape) < 0.4
        x = rng.integers(-4, 5, shape).astype(dtype)
        return x + 1j * rng.integers(-4, 5, shape) if dtype is np.complex128 else x

    a, b = draw(sa, da), draw(sb, db)
    want = np.matmul(a, b)
    got = transpyle.jit(product, backend="numpy")(a, b)
    assert np.asarray(got).dtype == want.dtype and np.array_equal(got, want)


# ---- reverse and forward mode ----------------------------------------------------------------------
@pytest.mark.parametrize("sa, sb", SHAPE_PARAMS)
def test_grad(sa, sb, rng):
    check_grad(loss, _operands(rng, sa, sb), argnums=(0, 1))


@pytest.mark.parametrize("sa, sb", SHAPE_PARAMS)
def test_vjp(sa, sb, rng):
    check_vjp(product, _operands(rng, sa, sb), rng)


@pytest.mark.parametrize("sa, sb", SHAPE_PARAMS)
def test_jvp(sa, sb, rng):
    check_jvp(product, _operands(rng, sa, sb), (0, 1), rng)


def _weighted_by_integers(b, a):
    return np.sum(np.cos(a @ b))


@pytest.mark.parametrize("sa, sb", [((2, 1, 3, 4), (5, 4, 2)), ((4,), (2, 4, 3)), ((2, 3, 4), (4,))],
                         ids=["broadcast", "vector_left", "vector_right"])
def test_grad_beside_an_integer_operand(sa, sb, rng):
    """Only b is differentiated; the integer a meets float cotangents in b's adjoint (a mixed-dtype product)."""
    check_grad(_weighted_by_integers, (rng.normal(size=sb), rng.integers(-3, 4, sa)), argnums=0)


def _abs_squared(b, a):
    return np.sum(np.abs(a @ b) ** 2)


def test_grad_of_a_real_function_through_a_complex_product(rng):
    a = rng.normal(size=(2, 1, 3, 4)) + 1j * rng.normal(size=(2, 1, 3, 4))
    check_grad(_abs_squared, (rng.normal(size=(5, 4, 2)), a), argnums=0)


@pytest.mark.parametrize("sa, sb", [((2, 3, 4), (4, 5)), ((4,), (2, 4, 3)), ((2, 3, 4), (4,)),
                                    ((2, 1, 2, 3), (3, 3, 2))],
                         ids=["stack_at_matrix", "vector_left", "vector_right", "broadcast"])
def test_hessian(sa, sb, rng):
    """The adjoints are written with rt.matmul, swapaxes and un-broadcasting, which have rules of their own:
    the Hessian in a is the finite-difference Jacobian of the gradient."""
    a, b = _operands(rng, sa, sb)
    hess = transpyle.hessian(loss, backend="numpy")(a, b).reshape(a.size, a.size)
    grad = transpyle.grad(loss, backend="numpy")
    step = 1e-5
    for j in rng.choice(a.size, size=min(a.size, 4), replace=False):
        e = np.zeros(a.size)
        e[j] = step
        column = (grad(a + e.reshape(a.shape), b) - grad(a - e.reshape(a.shape), b)) / (2 * step)
        np.testing.assert_allclose(hess[:, j], column.ravel(), rtol=1e-5, atol=1e-7)


# ---- vmap --------------------------------------------------------------------------------------------
def _batched(rng, shape, axis):
    return rng.normal(size=(BATCH,) + shape) if axis == 0 else rng.normal(size=shape)


def check_vmap(fn, sa, sb, in_axes, strategy, rng, backend="numpy"):
    a, b = _batched(rng, sa, in_axes[0]), _batched(rng, sb, in_axes[1])
    want = np.stack([fn(a[i] if in_axes[0] == 0 else a, b[i] if in_axes[1] == 0 else b) for i in range(BATCH)])
    got = transpyle.vmap(fn, in_axes=in_axes, backend=backend, strategy=strategy)(a, b)
    assert np.shape(got) == want.shape, f"vmap returned shape {np.shape(got)}, expected {want.shape}"
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg="vmap differs from a loop of NumPy")


@pytest.mark.parametrize("strategy", ["array", "loop"])
@pytest.mark.parametrize("in_axes", [(0, None), (None, 0), (0, 0)], ids=["a", "b", "both"])
@pytest.mark.parametrize("sa, sb", SHAPE_PARAMS)
def test_vmap(sa, sb, in_axes, strategy, rng):
    check_vmap(product, sa, sb, in_axes, strategy, rng)


@pytest.mark.parametrize("in_axes", [(0, None), (None, 0), (0, 0)], ids=["a", "b", "both"])
@pytest.mark.parametrize("sa, sb", [((2, 1, 3, 4), (5, 4, 2)), ((4,), (2, 4, 3)), ((2, 3, 4), (4,)), ((3, 4), (4, 5))],
                         ids=["broadcast", "vector_left", "vector_right", "matrices"])
def test_vmap_lifts_to_one_batched_product(sa, sb, in_axes):
    """Array lifting writes the batched product as one rt.matmul (no loop over the examples)."""
    kinds = tuple("f8[" + ", ".join([":"] * (len(s) + (ax == 0))) + "]" for s, ax in zip((sa, sb), in_axes))
    text = transpyle.show(product, mode="vmap", kinds=kinds, in_axes=in_axes, strategy="array")
    body = text.split("def product_vmap", 1)[1]
    assert "rt.matmul(" in body and "for " not in body, body


@pytest.mark.parametrize("sa, sb", [((2, 3, 4), (4, 5)), ((4,), (2, 4, 3)), ((2, 1, 3, 4), (5, 4, 2))],
                         ids=["stack_at_matrix", "vector_left", "broadcast"])
def test_vmap_of_grad(sa, sb, rng):
    a, b = rng.normal(size=(BATCH,) + sa), rng.normal(size=sb)
    got = transpyle.vmap(transpyle.grad(loss, argnums=(0, 1)), in_axes=(0, None), backend="numpy",
                         strategy="array")(a, b)
    for i in range(BATCH):
        want = transpyle.grad(loss, argnums=(0, 1), backend="numpy")(a[i], b)
        np.testing.assert_allclose(got[0][i], want[0], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(got[1][i], want[1], rtol=1e-12, atol=1e-12)


def recurrent(h, w):
    for _ in range(3):
        h = np.tanh(h @ w)
    return np.sum(h * h)


@pytest.mark.parametrize("sh", [(2, 3, 4), (2, 1, 3, 4), (4,)], ids=["stack", "rank4", "vector"])
def test_in_a_loop(sh, rng):
    """Products of stacks recorded on the tape of a loop: grad, jvp and vmap of a three-step recurrence."""
    h, w = rng.normal(size=sh), rng.normal(size=(4, 4)) / 2
    check_grad(recurrent, (h, w), argnums=(0, 1))
    check_jvp(recurrent, (h, w), (0, 1), rng)
    hs = rng.normal(size=(BATCH,) + sh)
    for strategy in ("array", "loop"):
        got = transpyle.vmap(recurrent, in_axes=(0, None), backend="numpy", strategy=strategy)(hs, w)
        np.testing.assert_allclose(got, [recurrent(x, w) for x in hs], rtol=1e-12)


# ---- the transposes the adjoints are written with, as a user writes them ----------------------------
def gram_swapaxes(a, b):
    return np.sum(np.sin(np.swapaxes(a, -1, -2) @ b))


def gram_matrix_transpose(a, b):
    return np.sum(np.sin(np.matrix_transpose(a) @ b))


def product_linalg(a, b):
    return np.sum(np.sin(np.linalg.matmul(a, b)))


@pytest.mark.parametrize("fn", [gram_swapaxes, gram_matrix_transpose, product_linalg])
@pytest.mark.parametrize("sa, sb", [((2, 4, 3), (2, 4, 5)), ((2, 1, 4, 3), (3, 4, 4))], ids=["equal", "broadcast"])
def test_transposed_stacks(fn, sa, sb, rng):
    if fn is product_linalg:
        sa = sa[:-2] + sa[-2:][::-1]
    a, b = _operands(rng, sa, sb)
    np.testing.assert_allclose(transpyle.jit(fn, backend="numpy")(a, b), fn(a, b), rtol=1e-12)
    check_grad(fn, (a, b), argnums=(0, 1))
    check_jvp(fn, (a, b), (0, 1), rng)
    batched = rng.normal(size=(BATCH,) + sa)
    got = transpyle.vmap(fn, in_axes=(0, None), backend="numpy", strategy="array")(batched, b)
    np.testing.assert_allclose(got, [fn(x, b) for x in batched], rtol=1e-12)


# ---- what is refused ---------------------------------------------------------------------------------
def _scalar_product(a, s):
    return a @ s


def _dot_of_stacks(a, b):
    return np.dot(a, b)


def _matrix_transpose_of_a_vector(x):
    return np.matrix_transpose(x)


def test_matrix_transpose_of_a_vector_is_refused():
    with pytest.raises(TranspileError, match=r"rank 2 or more"):
        transpyle.jit(_matrix_transpose_of_a_vector, backend="numpy")(np.ones(3))


def test_a_scalar_operand_is_refused_at_the_users_line():
    with pytest.raises(TranspileError, match=r"matmul of a scalar") as info:
        transpyle.jit(_scalar_product, backend="numpy")(np.ones((2, 3)), 2.0)
    assert "test_batched_matmul.py" in str(info.value) and "a @ s" in str(info.value)


@pytest.mark.parametrize("sa, sb", [((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)), ((2, 3, 4), (2, 4, 5))])
def test_np_dot_of_stacks_is_numpys_dot(sa, sb, rng):
    """np.dot of stacks is not a batched product: it contracts with the second-to-last axis of b, and the
    result has a's other axes, then b's."""
    a, b = rng.normal(size=sa), rng.normal(size=sb)
    np.testing.assert_allclose(transpyle.jit(_dot_of_stacks, backend="numpy")(a, b), np.dot(a, b), rtol=1e-12)


@pytest.mark.parametrize("sa, sb", [((2, 3, 4), (3, 5)), ((2, 3, 4), (3, 4, 5))], ids=["inner", "batch"])
def test_shapes_that_do_not_fit_raise_as_numpy_does(sa, sb):
    with pytest.raises(ValueError):
        transpyle.jit(product, backend="numpy")(np.ones(sa), np.ones(sb))


# ---- compiled by Numba (a few cases: compiles take seconds each) ---------------------------------
@pytest.mark.numba
@pytest.mark.parametrize("fn, a, b", [
    (product, np.arange(24.0).reshape(2, 1, 3, 4), np.linspace(-1.0, 1.0, 120).reshape(5, 4, 6)),
    (product_called, np.arange(12).reshape(3, 4), np.linspace(-1.0, 1.0, 20).reshape(4, 5)),
    (product, np.arange(-12, 12).reshape(2, 3, 4), np.linspace(-1.0, 1.0, 4) + 0.5j),
], ids=["broadcast", "np_matmul_int_float", "int_complex_vector"])
def test_numba_value(fn, a, b):
    want = np.matmul(a, b)
    got = transpyle.jit(fn, backend="numba")(a, b)
    assert np.shape(got) == want.shape and np.asarray(got).dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.numba
@pytest.mark.parametrize("sa, sb", [((2, 1, 3, 4), (5, 4, 2)), ((4,), (2, 4, 3))], ids=["broadcast", "vector_left"])
def test_numba_grad(sa, sb, rng):
    check_grad(loss, _operands(rng, sa, sb), argnums=(0, 1), backend="numba")


@pytest.mark.numba
def test_numba_jvp(rng):
    check_jvp(product, _operands(rng, (2, 3, 4), (4,)), (0, 1), rng, backend="numba")


@pytest.mark.numba
@pytest.mark.parametrize("sa, sb, in_axes, strategy", [((3, 4), (2, 4, 5), (0, 0), "loop"),
                                                       ((4,), (2, 4, 3), (0, None), "array")],
                         ids=["both-loop", "vector_left-array"])
def test_numba_vmap(sa, sb, in_axes, strategy, rng):
    check_vmap(product, sa, sb, in_axes, strategy, rng, backend="numba")


@pytest.mark.numba
def test_numba_batches_that_do_not_broadcast_raise():
    with pytest.raises(ValueError, match="broadcast"):
        transpyle.jit(product, backend="numba")(np.ones((2, 3, 4)), np.ones((3, 4, 5)))


@pytest.mark.numba
def test_numba_helper_on_empty_dimensions_and_other_dtypes(rng):
    """rt.matmul compiled by itself: an empty batch (broadcast against length 1), empty inner and outer
    dimensions, booleans, float32 against float64."""
    import numba
    from transpyle import runtime as rt

    compiled = numba.njit(lambda a, b: rt.matmul(a, b))
    cases = [(rng.normal(size=(0, 3, 3)), rng.normal(size=(1, 3, 2))),
             (rng.normal(size=(2, 3, 0)), rng.normal(size=(0, 4))),
             (rng.normal(size=(2, 0, 3)), rng.normal(size=(3,))),
             (rng.random((2, 1, 3, 2)) < 0.5, rng.random((4, 2, 3)) < 0.5),
             (rng.normal(size=(2, 3, 4)).astype(np.float32), rng.normal(size=(4, 2)))]
    for a, b in cases:
        want = np.matmul(a, b)
        got = compiled(a, b)
        assert got.shape == want.shape and got.dtype == want.dtype, (a.shape, b.shape, got.shape, got.dtype)
        np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.numba
def test_numba_matrix_transpose_and_linalg_matmul(rng):
    a, b = _operands(rng, (2, 1, 4, 3), (3, 4, 4))
    for fn in (gram_matrix_transpose, product_linalg):
        x = a if fn is gram_matrix_transpose else np.swapaxes(a, -1, -2).copy()
        np.testing.assert_allclose(transpyle.jit(fn, backend="numba")(x, b), fn(x, b), rtol=1e-12)


def _integer_stack_times_matrix(c, a):
    return np.sum(np.sin(a @ c)) + np.sum(np.cos(np.swapaxes(a, 0, 1) @ c) * 0.5)


def _stack_times_integer_matrix(a, c):
    return np.sum(np.sin(a @ c))


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_a_stack_times_one_matrix_of_mixed_dtypes(backend, rng):
    """One product for the stack (and one for the matrix's adjoint), integer operands promoted as NumPy does."""
    a_int = rng.integers(-3, 4, size=(2, 4, 3))
    check_grad(_integer_stack_times_matrix, (rng.normal(size=(3, 5)), a_int), argnums=0, backend=backend)
    check_grad(_stack_times_integer_matrix, (rng.normal(size=(2, 4, 3)), rng.integers(-3, 4, size=(3, 5))),
               argnums=0, backend=backend)
