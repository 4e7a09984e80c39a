"""One BLAS thread inside Numba's parallel loops (backends/blas_threads.py): which generated modules
are limited, and that a large call runs with one BLAS thread and restores the count after."""
import numpy as np
import pytest

from transpyle.backends import blas_threads

threadpoolctl = pytest.importorskip("threadpoolctl")


def _blas_threads():
    return [lib["num_threads"] for lib in threadpoolctl.threadpool_info() if lib["user_api"] == "blas"]


def test_modules_with_a_parallel_loop_and_a_product_are_limited():
    driver = "for _c1 in numba.prange(_chunks1):\n    _rows = np.dot(a, b)\n"
    assert blas_threads.threads_blas(driver)
    assert blas_threads.threads_blas("for c in numba.prange(n):\n    y = W @ x\n")
    assert blas_threads.threads_blas("for c in numba.prange(n):\n    y = np.linalg.solve(A, b)\n")
    assert not blas_threads.threads_blas("y = np.dot(a, b)\n")               # no parallel loop
    assert not blas_threads.threads_blas("for c in numba.prange(n):\n    y = np.sin(x)\n")


def test_a_large_call_runs_with_one_blas_thread_and_restores_the_count(monkeypatch):
    monkeypatch.setattr(blas_threads, "_libraries", None)
    with threadpoolctl.threadpool_limits(limits=2, user_api="blas"):
        before = _blas_threads()
        seen = []
        call = blas_threads.with_one_blas_thread(lambda *args: seen.append(_blas_threads()) or "done")
        assert call(np.zeros(blas_threads.LARGE_CALL_ELEMENTS), 1.0) == "done"
        assert call(np.zeros(10), 1.0) == "done"
        assert _blas_threads() == before
    if any(n > 1 for n in before):
        assert all(n == 1 for n in seen[0])
    assert seen[1] == before


def test_the_count_is_restored_when_the_call_raises(monkeypatch):
    monkeypatch.setattr(blas_threads, "_libraries", None)

    def failing(*args):
        raise ValueError("shapes")
    with threadpoolctl.threadpool_limits(limits=2, user_api="blas"):
        before = _blas_threads()
        with pytest.raises(ValueError, match="shapes"):
            blas_threads.with_one_blas_thread(failing)(np.zeros(blas_threads.LARGE_CALL_ELEMENTS))
        assert _blas_threads() == before


def _layer(W, x):
    return np.sum(np.tanh(W @ x) ** 2)


@pytest.mark.numba
def test_a_parallel_driver_on_large_arrays_gives_the_numpy_backends_answer(rng):
    import transpyle
    W, xs = rng.standard_normal((128, 96)), rng.standard_normal((200, 96))
    assert W.size + xs.size >= blas_threads.LARGE_CALL_ELEMENTS
    per_example = transpyle.vmap(transpyle.grad(_layer), in_axes=(None, 0))
    numpy_backend = transpyle.vmap(transpyle.grad(_layer, backend="numpy"), in_axes=(None, 0), backend="numpy")
    np.testing.assert_allclose(per_example(W, xs), numpy_backend(W, xs), rtol=1e-10, atol=1e-12)
