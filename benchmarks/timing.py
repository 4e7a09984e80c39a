"""Helpers shared by the benchmark scripts: the best per-call time over several batches, the time of
a first (compiling) call, the relative error used to check that compared implementations agree,
and the columns of a transpyle-against-JAX row."""
import math
import os
import time

import numpy as np

# The benchmarks time compiled code and Numba's compiles: each first call compiles and waits. The tiers
# (the NumPy backend answering a first call while Numba compiles) are measured by compile_time.py.
os.environ.setdefault("TRANSPYLE_TIERED", "0")


def best_time(fn, repeat=7, min_batch_s=0.02):
    """Best seconds per call of fn() over `repeat` batches (fn is called once first to warm up);
    each batch repeats fn until it lasts at least `min_batch_s`."""
    fn()
    number = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        if time.perf_counter() - t0 >= min_batch_s:
            break
        number *= 2
    best = math.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


def rel_err(a, b):
    """Largest absolute difference, relative to the largest magnitude of the reference ``b``."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))


def optional_jax(programs):
    """``programs()`` (the JAX versions of a benchmark's rows), or None when JAX is unavailable."""
    try:
        return programs()
    except Exception as exc:          # JAX is optional
        print(f"(JAX rows skipped: {type(exc).__name__}: {exc})")
        return None


def timed_first_call(fn):
    """(fn(), seconds it took): the first call, which compiles."""
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def fmt(seconds):
    return f"{seconds * 1e3:9.3f} ms" if seconds < 1 else f"{seconds:9.3f} s "


def against_jax(got, t_tp, compile_tp, jfn, args):
    """The columns (JAX time, ratio, compile times, agreement) of a row comparing transpyle's
    ``got`` (timed ``t_tp``, compiled in ``compile_tp``) with ``jfn(*args)``; dashes without JAX."""
    if jfn is None:
        return "      -     ", "   -   ", f"{compile_tp:5.1f} s /   -  ", "-"
    want, compile_jax = timed_first_call(lambda: np.asarray(jfn(*args)))
    t_jax = best_time(lambda: jfn(*args).block_until_ready())
    return fmt(t_jax), f"{t_tp / t_jax:6.2f}x", f"{compile_tp:5.1f} s / {compile_jax:4.1f} s", \
        f"jax {rel_err(got, want):.0e}"
