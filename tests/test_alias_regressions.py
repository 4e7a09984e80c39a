"""Aliasing programs that once went wrong, each now right (or refused at its line) in every transform on
both backends: a write whose source shares the target's buffer (``A.T[...] = A``: the source is copied
first, as NumPy does), a write through ``np.expand_dims`` (a view), ``x.sort()`` of a part and
``x.view()``, and a reshape of a strided array
written in place (refused by jvp and vmap too, where NumPy would make a view)."""
import numpy as np
import pytest

import transpyle

from gradcheck import ALL_BACKENDS, numerical_grad

W = np.array([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]])


def transposed_onto_itself(A):
    A.T[...] = A
    return np.sum(np.sin(A) * W)


def shifted_onto_itself(a):
    a[1:] = a[:-1]
    return np.sum(a * a * np.arange(1.0, a.shape[0] + 1.0))


def reversed_onto_itself(B):
    B[:, ::-1] = B
    return np.sum(B * W[:, :B.shape[1]])


def through_expand_dims(A):
    E = np.expand_dims(A, 0)
    E[0, 1] = 2.0 * A[0]
    return np.sum(A * A)


def sorted_and_viewed_in_place(a):
    v = a[1:4]
    v.sort()                      # the method sorts the part in place
    b = a.view()                  # a view of the whole array
    b *= 2.0
    return np.sum(a * np.arange(1.0, a.shape[0] + 1.0))


CASES = [(transposed_onto_itself, (3, 3)), (shifted_onto_itself, (5,)), (reversed_onto_itself, (3, 3)),
         (through_expand_dims, (2, 1)), (sorted_and_viewed_in_place, (6,))]


def _fd(f, x):
    return numerical_grad(f, (x,), 0)[0]      # on a copy per evaluation: f writes into its argument


@pytest.mark.parametrize("backend", ALL_BACKENDS)
@pytest.mark.parametrize("f, shape", CASES, ids=[c[0].__name__ for c in CASES])
def test_every_transform_follows_numpy(f, shape, backend, rng):
    x = rng.normal(size=shape)
    given = x.copy()
    g = transpyle.grad(f, backend=backend)(given)
    np.testing.assert_array_equal(given, x)                 # grad never writes into the caller's array
    np.testing.assert_allclose(g, _fd(f, x), rtol=1e-5, atol=1e-8)
    d = rng.normal(size=shape)
    assert transpyle.jvp(f, (x.copy(),), (d,), backend=backend)[1] == pytest.approx(np.sum(_fd(f, x) * d), rel=1e-5)
    mine, numpys = x.copy(), x.copy()
    assert transpyle.jit(f, backend=backend)(mine) == pytest.approx(f(numpys), rel=1e-12)
    np.testing.assert_allclose(mine, numpys, rtol=1e-14)    # jit writes into it as NumPy does


def strided_reshape_written(A):
    v = A[::2].reshape(2, 2)          # NumPy makes a view of these shapes
    v *= 3.0
    return np.sum(A)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_a_strided_reshape_written_in_place_is_refused_at_its_line(backend):
    calls = [lambda: transpyle.jit(strided_reshape_written, backend=backend)(np.ones((4, 2))),
             lambda: transpyle.jvp(strided_reshape_written, (np.ones((4, 2)),), (np.ones((4, 2)),), backend=backend),
             lambda: transpyle.vmap(strided_reshape_written, backend=backend)(np.ones((3, 4, 2)))]
    for call in calls:
        with pytest.raises(transpyle.TranspileError) as info:
            call()
        assert info.value.lineno is not None and "reshape" in str(info.value)
