"""Linear algebra rules (rules/matrices.py, rules/factorizations.py): every function against central
finite differences in reverse mode (grad) and forward mode (jvp), on random well-conditioned matrices
of a few sizes.

Functions reduce through ``np.sin`` or a random weight so every output element matters. Complex
matrices are checked against df/dx - i df/dy (JAX's gradient of a real function), hessians against
differences of the gradient. Functions of
eigenvectors and singular vectors are gauge-invariant (``(v * w) @ v.T``, ``v * v``, ``np.abs(u)``),
since their signs are arbitrary. eigh and cholesky read one triangle of their input (NumPy), and
their rules are symmetrized (JAX), so those tests differentiate functions of ``(a + a.T) / 2``.
Each spec runs on the numpy backend at every size and, where marked, once on numba.
"""
import numpy as np
import pytest
import scipy.linalg

import transpyle
from gradcheck import ALL_BACKENDS, backend_cases, check_grad, check_jvp


# ---- inputs ------------------------------------------------------------------------------------------
def orthogonal(rng, n):
    q, r = np.linalg.qr(rng.normal(size=(n, n)))
    return q * np.sign(np.diag(r))


def spread(rng, n, lo=1.0, hi=3.0):
    """n values in [lo, hi] at least (hi - lo) / (2 n) apart."""
    return lo + (rng.permutation(n) + rng.uniform(0.25, 0.75, n)) * (hi - lo) / n


def general(n):
    """U diag(s) V^T with distinct singular values in [1, 3]: condition number at most 3."""
    return tall(n, n)


def diagonalizable(n):
    """P diag(d) P^-1 with distinct real d in [1, 3] and P near the identity (well-conditioned eigenvectors)."""
    def make(rng):
        p = np.eye(n) + 0.2 * rng.normal(size=(n, n)) / np.sqrt(n)
        return np.linalg.solve(p.T, (p * spread(rng, n)).T).T
    return make


def rotations(n):
    """Complex eigenvalue pairs r (cos t +- i sin t), distinct, in well-conditioned coordinates."""
    def make(rng):
        a = np.zeros((n, n))
        radii = spread(rng, n, 1.0, 3.0)
        for k in range(0, n - 1, 2):
            t = rng.uniform(0.4, 1.2)
            a[k:k + 2, k:k + 2] = radii[k] * np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
        if n % 2:
            a[n - 1, n - 1] = radii[n - 1]
        p = np.eye(n) + 0.2 * rng.normal(size=(n, n)) / np.sqrt(n)
        return np.linalg.solve(p.T, (p @ a).T).T
    return make


def spd(n):
    """Q diag(d) Q^T with distinct d in [1, 3]: symmetric, positive definite, well separated eigenvalues."""
    def make(rng):
        q = orthogonal(rng, n)
        return (q * spread(rng, n)) @ q.T
    return make


def tall(m, n):
    """Full column rank, singular values in [1, 3] and distinct."""
    def make(rng):
        u = orthogonal(rng, m)[:, :n]
        return (u * spread(rng, n)) @ orthogonal(rng, n).T
    return make


def vector(n):
    return lambda rng: rng.normal(size=n)


def signed_vector(n):
    """Entries with distinct magnitudes in [0.5, 2] and random signs (no ties for the max-norm)."""
    return lambda rng: spread(rng, n, 0.5, 2.0) * rng.choice([-1.0, 1.0], n)


def sym(a):
    return 0.5 * (a + a.T)


# ---- functions -------------------------------------------------------------------------------------
def solve_vector(a, b):
    return np.sum(np.sin(np.linalg.solve(a, b)))


def solve_matrix(a, b):
    return np.sum(np.sin(np.linalg.solve(a, b @ a)))


def solve_quadratic_form(a, b):
    return np.dot(b, np.linalg.solve(a, b))


def inv(a):
    return np.sum(np.sin(np.linalg.inv(a)))


def det(a):
    return np.sin(np.linalg.det(a))


def slogdet(a):
    sign, logdet = np.linalg.slogdet(a)
    return sign * np.sin(logdet)


def slogdet_indexed(a):
    return np.linalg.slogdet(a)[1] * 2.0


def trace(a):
    return np.sin(np.trace(a @ a))


def matrix_power(a):
    return np.sum(np.sin(np.linalg.matrix_power(a, 3) / 10.0))


def matrix_power_negative(a):
    return np.sum(np.sin(np.linalg.matrix_power(a, -2)))


def matrix_power_zero(a):
    return np.sum(np.linalg.matrix_power(a, 0) * a)


def norm_vector(x):
    return np.linalg.norm(x) + np.linalg.norm(x, 2) * 0.5


def norm_vector_1(x):
    return np.linalg.norm(x, 1)


def norm_vector_inf(x):
    return np.linalg.norm(x, np.inf) + 2.0 * np.linalg.norm(x, -np.inf)


def norm_vector_p(x):
    return np.linalg.norm(x, 3) + np.linalg.norm(x, 1.5)


def norm_fro(a):
    return np.linalg.norm(a) + 0.5 * np.linalg.norm(a, "fro")


def norm_matrix_1(a):
    return np.linalg.norm(a, 1) + 0.5 * np.linalg.norm(a, -1)


def norm_matrix_inf(a):
    return np.linalg.norm(a, np.inf) + 0.5 * np.linalg.norm(a, -np.inf)


def norm_matrix_2(a):
    return np.linalg.norm(a, 2) + 0.5 * np.linalg.norm(a, -2)


def norm_nuclear(a):
    return np.linalg.norm(a, "nuc")


def cholesky(a):
    return np.sum(np.sin(np.linalg.cholesky(sym(a))))


def triangular(a, b):
    low = np.linalg.cholesky(sym(a))
    return np.sum(np.sin(scipy.linalg.solve_triangular(low, b, lower=True)))


def triangular_upper(a, b):
    up = np.linalg.cholesky(sym(a)).T
    return np.sum(np.sin(scipy.linalg.solve_triangular(up, np.outer(b, b), lower=False)))


def norm_rows(x):
    return np.sum(np.linalg.norm(x, axis=1) * np.arange(1.0, x.shape[0] + 1))


def norm_columns_inf(x):
    return np.sum(np.linalg.norm(x, ord=np.inf, axis=0, keepdims=True) ** 2)


def norm_rows_p(x):
    return np.sum(np.linalg.norm(x, 3, 1))


def cho_solve_factor(m, b):
    a = m @ m.T + m.shape[0] * np.eye(m.shape[0])      # SciPy reads one triangle: keep the input symmetric
    return np.sum(scipy.linalg.cho_solve(scipy.linalg.cho_factor(a), b) ** 2)


def cho_solve_lower(m, b):
    a = m @ m.T + m.shape[0] * np.eye(m.shape[0])
    return np.sum(np.sin(scipy.linalg.cho_solve((np.linalg.cholesky(a), True), b)))


def eigh(a):
    w, v = np.linalg.eigh(sym(a))
    return np.sum(np.sin((v * np.sin(w)) @ v.T)) + np.sum(np.cos(w))


def eigh_values_indexed(a):
    return np.sin(np.linalg.eigh(sym(a))[0][0]) * 3.0


def eigh_vectors_squared(a):
    v = np.linalg.eigh(sym(a))[1]
    return np.sum(v * v * np.arange(v.size).reshape(v.shape))


def eigvalsh(a):
    return np.sum(np.sin(np.linalg.eigvalsh(sym(a))))


def spectral_radius(a):
    return np.max(np.abs(np.linalg.eigvals(a)))


def eigvals_sum(a):
    lam = np.linalg.eigvals(a)
    return np.sum(np.real(np.sin(lam)) + np.imag(lam * lam))


def eig_values(a):
    w, v = np.linalg.eig(a)
    return np.sum(np.abs(w * w))


def qr(a):
    q, r = np.linalg.qr(a)
    return np.sum(np.sin(q)) + np.sum(np.sin(r))


def svd_values(a):
    return np.sum(np.sin(np.linalg.svd(a, compute_uv=False)))


def svd(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return np.sum(np.sin((u * s) @ vh)) + np.sum(np.abs(u) * np.sin(s)) + np.sum(vh * vh * np.cos(vh))


def pinv(a):
    return np.sum(np.sin(np.linalg.pinv(a)))


def lstsq(a, b):
    return np.sum(np.sin(np.linalg.lstsq(a, b)[0]))


# name, function, argument makers per size, on numba
SPECS = [
    ("solve_vector", solve_vector, lambda n: (general(n), vector(n)), True),
    ("solve_quadratic_form", solve_quadratic_form, lambda n: (general(n), vector(n)), False),
    ("solve_matrix", solve_matrix, lambda n: (general(n), general(n)), False),
    ("inv", inv, lambda n: (general(n),), False),
    ("det", det, lambda n: (general(n),), False),
    ("slogdet", slogdet, lambda n: (general(n),), True),
    ("slogdet_indexed", slogdet_indexed, lambda n: (general(n),), False),
    ("trace", trace, lambda n: (general(n),), False),
    ("matrix_power", matrix_power, lambda n: (general(n),), False),
    ("matrix_power_negative", matrix_power_negative, lambda n: (general(n),), False),
    ("matrix_power_zero", matrix_power_zero, lambda n: (general(n),), False),
    ("norm_vector", norm_vector, lambda n: (vector(n),), False),
    ("norm_vector_1", norm_vector_1, lambda n: (signed_vector(n),), False),
    ("norm_vector_inf", norm_vector_inf, lambda n: (signed_vector(n),), False),
    ("norm_vector_p", norm_vector_p, lambda n: (signed_vector(n),), False),
    ("norm_fro", norm_fro, lambda n: (general(n),), False),
    ("norm_matrix_1", norm_matrix_1, lambda n: (general(n),), False),
    ("norm_matrix_inf", norm_matrix_inf, lambda n: (general(n),), False),
    ("norm_matrix_2", norm_matrix_2, lambda n: (tall(n + 1, n),), True),
    ("norm_nuclear", norm_nuclear, lambda n: (tall(n + 1, n),), False),
    ("cholesky", cholesky, lambda n: (spd(n),), True),
    ("triangular", triangular, lambda n: (spd(n), vector(n)), False),
    ("triangular_upper", triangular_upper, lambda n: (spd(n), vector(n)), False),
    ("norm_rows", norm_rows, lambda n: (general(n),), False),
    ("norm_columns_inf", norm_columns_inf, lambda n: (general(n),), False),
    ("norm_rows_p", norm_rows_p, lambda n: (general(n),), False),
    ("cho_solve_factor", cho_solve_factor, lambda n: (general(n), vector(n)), True),
    ("cho_solve_lower", cho_solve_lower, lambda n: (general(n), vector(n)), False),
    ("eigh", eigh, lambda n: (spd(n),), True),
    ("eigh_values_indexed", eigh_values_indexed, lambda n: (spd(n),), False),
    ("eigh_vectors_squared", eigh_vectors_squared, lambda n: (spd(n),), False),
    ("eigvalsh", eigvalsh, lambda n: (spd(n),), False),
    ("spectral_radius", spectral_radius, lambda n: (diagonalizable(n),), False),
    ("spectral_radius_complex", spectral_radius, lambda n: (rotations(n),), True),
    ("eigvals_sum", eigvals_sum, lambda n: (diagonalizable(n),), False),
    ("eigvals_sum_complex", eigvals_sum, lambda n: (rotations(n),), False),
    ("eig_values", eig_values, lambda n: (rotations(n),), False),
    ("qr", qr, lambda n: (tall(n + 2, n),), False),
    ("qr_square", qr, lambda n: (general(n),), False),
    ("svd_values", svd_values, lambda n: (tall(n + 1, n),), False),
    ("svd_tall", svd, lambda n: (tall(n + 2, n),), True),
    ("svd_wide", svd, lambda n: (lambda rng: tall(n + 2, n)(rng).T,), False),
    ("pinv", pinv, lambda n: (tall(n + 2, n),), False),
    ("lstsq", lstsq, lambda n: (tall(n + 2, n), vector(n + 2)), False),
]

SIZES = (2, 3, 4)


def _cases():
    for name, fn, makers, on_numba in SPECS:
        for n in SIZES:
            yield f"{name}-{n}", (fn, makers(n)), on_numba and n == 3


def _args(makers, rng):
    return tuple(m(rng) for m in makers)


@pytest.mark.parametrize("fn, makers, backend", backend_cases(_cases()))
def test_reverse(fn, makers, backend, rng):
    args = _args(makers, rng)
    check_grad(fn, args, tuple(range(len(args))) if len(args) > 1 else 0, backend=backend, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn, makers, backend", backend_cases(_cases()))
def test_forward(fn, makers, backend, rng):
    args = _args(makers, rng)
    check_jvp(fn, args, tuple(range(len(args))), rng, backend=backend, rtol=1e-5, atol=1e-6)


# ---- closed forms, complex inputs, batches, singular points, errors -----------------------------------
def test_spectral_radius_of_a_rotation_scaling(rng):
    # eigenvalues 1 +- i: rho = |lambda| = sqrt(det a), so grad rho = sqrt(det) / 2 * inv(a)^T = a / (2 sqrt 2)
    a = np.array([[1.0, -1.0], [1.0, 1.0]])
    got = check_grad(spectral_radius, (a,), backend="numpy")
    np.testing.assert_allclose(got, a / (2 * np.sqrt(2.0)), rtol=1e-12)
    _, tangent = transpyle.jvp(spectral_radius, (a,), (np.eye(2),), backend="numpy")
    assert tangent == pytest.approx(np.sum(a / (2 * np.sqrt(2.0)) * np.eye(2)), rel=1e-12)


def complex_matrix_function(z):
    lam = np.linalg.eigvals(z)
    return np.sum(np.abs(lam) ** 2) + np.abs(np.linalg.det(z)) + np.linalg.slogdet(z)[1] \
        + np.sum(np.abs(np.linalg.solve(z, z[:, 0]))) + np.linalg.norm(z[0])


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_complex_matrices_follow_the_jax_convention(backend, rng):
    from test_complex import wirtinger_fd
    z = diagonalizable(3)(rng) + 1j * 0.3 * rng.normal(size=(3, 3))
    got = transpyle.grad(complex_matrix_function, backend=backend)(z)
    np.testing.assert_allclose(got, wirtinger_fd(complex_matrix_function, z), rtol=1e-6, atol=1e-7)


def spectral_radius_3(a):
    return np.max(np.abs(np.linalg.eigvals(a)))


@pytest.mark.parametrize("backend", [pytest.param("numpy"), pytest.param("numba", marks=pytest.mark.numba)])
def test_vmap_of_grad_over_a_stack(backend, rng):
    stack = np.stack([rotations(3)(rng) for _ in range(4)])
    got = transpyle.vmap(transpyle.grad(spectral_radius_3), backend=backend)(stack)
    expected = np.stack([transpyle.grad(spectral_radius_3, backend="numpy")(m) for m in stack])
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    check_grad(spectral_radius_3, (stack[0],), backend="numpy")


def inv_of_stack(a):
    return np.sum(np.linalg.inv(a))


def lambda_free_trace(a):
    return np.sum(np.trace(a))


def det_of_stack(a):
    return np.sum(np.linalg.det(a) ** 2)


def slogdet_of_deep_stack(a):
    sign, logdet = np.linalg.slogdet(a)
    return np.sum(logdet * np.arange(1.0, a.shape[1] + 1))


def eigh_of_stack(m):
    a = np.empty_like(m)             # symmetric matrices: NumPy reads one triangle, the rule both
    for i in range(m.shape[0]):
        a[i] = m[i] + m[i].T
    w, v = np.linalg.eigh(a)
    return np.sum(w[:, -1]) + np.sum(np.linalg.eigvalsh(a) ** 2)


def det_in_a_loop(a):
    s = 0.0
    for i in range(a.shape[0]):
        m = a[i]
        s += np.linalg.det(m) ** 2
    return s


def stacks(rng, shape):
    # well conditioned at every draw: a nearly singular matrix makes the solution (and the finite
    # differences of sin of it) vary faster than the comparison's tolerance allows
    return 0.5 * rng.normal(size=shape) + 3.0 * np.eye(shape[-1])


def symmetric_stack(rng, count):
    return rng.normal(size=(count, 3, 3)) + np.diag([0.0, 1.5, 3.0])


def solve_of_stacks(a, b):
    return np.sum(np.sin(np.linalg.solve(a, b)))


def solve_of_a_stack_and_one_vector(a, v):
    return np.sum(np.linalg.solve(a, v) ** 2)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
@pytest.mark.parametrize("fn, make", [
    (solve_of_stacks, lambda rng: (stacks(rng, (4, 3, 3)), rng.normal(size=(4, 3, 2)))),
    (solve_of_a_stack_and_one_vector, lambda rng: (stacks(rng, (2, 2, 3, 3)), rng.normal(size=3))),
], ids=["stack-of-matrices", "one-vector"])
def test_solve_maps_over_stacks(fn, make, backend, rng):
    args = make(rng)
    check_grad(fn, args, (0, 1), backend=backend, rtol=1e-5, atol=1e-7)
    check_jvp(fn, args, (0, 1), rng, backend=backend)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
@pytest.mark.parametrize("fn, make", [
    (inv_of_stack, lambda rng: stacks(rng, (4, 3, 3))),
    (det_of_stack, lambda rng: stacks(rng, (4, 3, 3))),
    (slogdet_of_deep_stack, lambda rng: stacks(rng, (2, 3, 3, 3))),
    (eigh_of_stack, lambda rng: symmetric_stack(rng, 3)),
    (det_in_a_loop, lambda rng: stacks(rng, (4, 3, 3))),
], ids=["inv", "det", "slogdet-deep", "eigh", "det-in-a-loop"])
def test_stacks_of_matrices_map_over_the_leading_dimensions(fn, make, backend, rng):
    a = make(rng)
    check_grad(fn, (a,), 0, backend=backend, rtol=1e-5, atol=1e-7)
    check_jvp(fn, (a,), (0,), rng, backend=backend)


def test_trace_of_a_stack_keeps_numpys_meaning(rng):
    a = rng.normal(size=(3, 3, 2))        # traced along its first two axes, as NumPy does
    np.testing.assert_allclose(transpyle.jit(lambda_free_trace, backend="numpy")(a), lambda_free_trace(a))
    check_grad(lambda_free_trace, (a,), 0)


def uses_cond(a):
    return np.linalg.cond(a)


def eig_vectors(a):
    w, v = np.linalg.eig(a)
    return np.sum(np.abs(v))


def test_unsupported_functions_are_errors():
    with pytest.raises(transpyle.TranspileError, match="np.linalg.cond") as info:
        transpyle.grad(uses_cond, backend="numpy")(np.eye(2))
    assert "test_linalg.py" in str(info.value)
    with pytest.raises(transpyle.TranspileError, match="rt.eig_vectors has no reverse-mode rule"):
        transpyle.grad(eig_vectors, backend="numpy")(np.eye(2) + 0.1)


def cho_solve_of_a_name(a, b):
    factor = scipy.linalg.cho_factor(a)
    return np.sum(scipy.linalg.cho_solve(factor, b))


def norm_of_a_stack(x):
    return np.sum(np.linalg.norm(x, "nuc", axis=(1, 2)))


def test_composites_outside_their_forms_are_errors():
    with pytest.raises(transpyle.TranspileError, match=r"test_linalg.py:\d+.*cho_solve needs \(c, lower\)"):
        transpyle.grad(cho_solve_of_a_name, backend="numpy")(np.eye(2) * 2.0, np.ones(2))
    with pytest.raises(transpyle.TranspileError, match="tuple axis"):
        transpyle.grad(norm_of_a_stack, backend="numpy")(np.ones((2, 2, 2)))


def test_repeated_eigenvalues_give_inf_or_nan_for_vectors_only():
    a = np.diag([1.0, 1.0, 2.0])
    with np.errstate(divide="ignore", invalid="ignore"):
        g_vectors = transpyle.grad(eigh, backend="numpy")(a)
    assert not np.all(np.isfinite(g_vectors))
    g_values = transpyle.grad(eigvalsh, backend="numpy")(a)
    np.testing.assert_allclose(g_values, np.diag(np.cos([1.0, 1.0, 2.0])), atol=1e-12)


def test_singular_matrices_raise_in_the_adjoint():
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(np.linalg.LinAlgError):
        transpyle.grad(det, backend="numpy")(singular)
    with pytest.raises(np.linalg.LinAlgError):
        transpyle.grad(solve_vector, backend="numpy")(singular, np.ones(2))


def hermitian_eigenvalues(x):
    a = x + np.conj(x.T)
    w = np.linalg.eigvalsh(a)
    return np.sum(w * np.arange(1.0, w.shape[0] + 1)) + np.sum(np.linalg.eigh(a)[0] ** 2)


def hermitian_eigenvectors(x):
    """Gauge-invariant functions of the eigenvectors of a complex Hermitian matrix: |v|, v diag(f(w)) v^H."""
    a = x + np.conj(x.T)
    w, v = np.linalg.eigh(a)
    p = (v * np.sin(w)) @ np.conj(v.T)
    return np.sum(np.abs(v) ** 3) + np.sum(np.real(p) * np.arange(9.0).reshape(3, 3)) + np.sum(np.imag(p))


def hermitian_cholesky(x, c):
    a = x @ np.conj(x.T) + 3.0 * np.eye(x.shape[0])
    low = np.linalg.cholesky(a)
    return np.sum(np.real(c * low)) + np.sum(np.abs(low) ** 2)


def complex_singular_values(x):
    u, s, vh = np.linalg.svd(x, full_matrices=False)
    return np.sum(s * np.arange(1.0, s.shape[0] + 1)) + np.linalg.norm(x, "nuc")


def complex_singular_vectors(x):
    """Gauge-invariant: U diag(f(s)) V^H, |u|, |vh|, the projector U U^H."""
    u, s, vh = np.linalg.svd(x, full_matrices=False)
    return np.sum(np.real((u * np.sin(s)) @ vh)) + np.sum(np.abs(u) ** 3) + np.sum(np.abs(vh) ** 3) \
        + np.sum(np.imag(u @ np.conj(u.T)) * np.arange(u.shape[0]))


def complex_qr(x):
    # NumPy's (LAPACK's) R has a real diagonal, which makes Q and R unique up to locally constant signs
    q, r = np.linalg.qr(x)
    return np.sum(np.sin(np.real(q))) + np.sum(np.cos(np.imag(r))) + np.sum(np.abs(r) * np.abs(q[:r.shape[0]]))


def complex_pinv(x):
    p = np.linalg.pinv(x)
    return np.sum(np.abs(p) ** 2 * np.arange(p.size).reshape(p.shape)) + np.sum(np.real(p))


def complex_lstsq(x, b):
    return np.sum(np.abs(np.linalg.lstsq(x, b)[0] + 1.0) ** 2)


COMPLEX = [
    ("eigvalsh", hermitian_eigenvalues, (3, 3), (), False),
    ("eigh-vectors", hermitian_eigenvectors, (3, 3), (), True),
    ("cholesky", hermitian_cholesky, (3, 3), ((3, 3),), False),
    ("singular-values", complex_singular_values, (4, 3), (), False),
    ("singular-vectors-tall", complex_singular_vectors, (4, 3), (), True),
    ("singular-vectors-wide", complex_singular_vectors, (3, 4), (), False),
    ("qr-tall", complex_qr, (4, 3), (), False),
    ("qr-square", complex_qr, (3, 3), (), False),
    ("pinv-tall", complex_pinv, (4, 3), (), False),
    ("pinv-wide", complex_pinv, (3, 4), (), True),
    ("lstsq", complex_lstsq, (4, 3), ((4,),), False),
]


@pytest.mark.parametrize("fn, shape, extra, backend", backend_cases(
    (name, (fn, shape, extra), on_numba) for name, fn, shape, extra, on_numba in COMPLEX))
def test_complex_matrices_follow_jax(fn, shape, extra, backend, rng):
    """grad against df/dx - i df/dy by central differences, jvp along a random complex direction (the
    other arguments, of shapes ``extra``, are constants)."""
    from test_complex import complex_normal, wirtinger_fd
    x = complex_normal(rng, shape)
    others = tuple(complex_normal(rng, s) for s in extra)
    got = transpyle.grad(fn, backend=backend)(x, *others)
    np.testing.assert_allclose(got, wirtinger_fd(lambda z: fn(z, *others), x), rtol=1e-6, atol=1e-7)
    direction = complex_normal(rng, shape)
    _, tangent = transpyle.jvp(fn, (x,) + others, (direction,) + tuple(np.zeros_like(o) for o in others),
                               backend=backend)
    h = 1e-6
    fd = (fn(x + h * direction, *others) - fn(x - h * direction, *others)) / (2 * h)
    # abs: central differences of f values of order 10 carry about 1e-9 of rounding per unit of |f|
    assert tangent == pytest.approx(fd, rel=1e-6, abs=1e-7)


def lstsq_of_a_stack(a, b):
    return np.sum(np.linalg.lstsq(a, b)[0])


def test_lstsq_of_a_stack_is_refused_as_numpy_refuses_it():
    a, b = np.ones((2, 4, 3)) + np.eye(4, 3), np.ones((2, 4))
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.lstsq(a, b)
    with pytest.raises(transpyle.TranspileError, match=r"test_linalg.py:\d+.*rank 3.*transpyle.vmap"):
        transpyle.grad(lstsq_of_a_stack, backend="numpy")(a, b)


# ---- second derivatives: the rules' own code is differentiated again -----------------------------------
def solve_fixed(a):
    return solve_vector(a, np.array([0.5, -1.0, 2.0]))


def cho_solve_fixed(m):
    return cho_solve_factor(m, np.array([0.5, -1.0, 2.0]))


def hessian_cases():
    return [
        ("cholesky", cholesky, spd(3), False),
        ("solve", solve_fixed, general(3), False),
        ("inv", inv, general(3), False),
        ("det", det, general(3), False),
        ("slogdet", slogdet, general(3), True),
        ("eigvalsh", eigvalsh, spd(3), False),
        ("eigh-vectors", eigh, spd(3), False),
        ("svd-values", svd_values, tall(4, 3), False),
        ("nuclear-norm", norm_nuclear, tall(4, 3), False),
        ("cho-solve", cho_solve_fixed, general(3), False),
    ]


def gradient_fd(grad, a, h=1e-5):
    """d grad / d a by central differences: an array of shape a.shape + a.shape, like hessian's."""
    out = np.zeros(a.shape + a.shape)
    for idx in np.ndindex(a.shape):
        step = np.zeros_like(a)
        step[idx] = h
        out[(...,) + idx] = (grad(a + step) - grad(a - step)) / (2 * h)
    return out


@pytest.mark.parametrize("fn, make, backend", backend_cases((name, (fn, make), on_numba)
                                                            for name, fn, make, on_numba in hessian_cases()))
def test_hessians_through_the_factorizations(fn, make, backend, rng):
    a = make(rng)
    hess = transpyle.hessian(fn, backend=backend)(a)
    expected = gradient_fd(transpyle.grad(fn, backend="numpy"), a)
    np.testing.assert_allclose(hess, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("transform", ["jacfwd-jacfwd", "jacrev-jacrev"])
def test_other_orders_of_second_derivatives(transform, rng):
    first, second = (getattr(transpyle, t) for t in transform.split("-"))
    a = spd(3)(rng)
    got = first(second(eigh), backend="numpy")(a)
    np.testing.assert_allclose(got, transpyle.hessian(eigh, backend="numpy")(a), rtol=1e-8, atol=1e-10)
    got = first(second(cholesky), backend="numpy")(a)
    np.testing.assert_allclose(got, transpyle.hessian(cholesky, backend="numpy")(a), rtol=1e-8, atol=1e-10)


def eigenvalues_along_a_line(t):
    flat = np.array([2.0, 0.5, 0.0, 0.5, 3.0, 0.0, 0.0, 0.0, 4.0]) \
        + t * np.array([1.0, 0.0, 0.1, 0.0, 0.0, 1.0, 0.1, 1.0, 0.0]) - t * t * np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0])
    a = np.reshape(flat, (3, 3))
    return np.sum(np.sin(np.linalg.eigvalsh(a))) + np.linalg.slogdet(a)[1] + np.sum(np.linalg.cholesky(a))


def test_grad_of_grad(rng):
    t = 0.3
    got = transpyle.grad(transpyle.grad(eigenvalues_along_a_line), backend="numpy")(t)
    g = transpyle.grad(eigenvalues_along_a_line, backend="numpy")
    h = 1e-5
    assert got == pytest.approx((g(t + h) - g(t - h)) / (2 * h), rel=1e-6)


def test_second_derivatives_through_a_helper_are_an_error_naming_it(rng):
    with pytest.raises(transpyle.TranspileError, match="rt.qr_r_vjp has no forward-mode rule"):
        transpyle.hessian(qr, backend="numpy")(general(3)(rng))
