"""Helpers shared by the benchmark scripts: the best per-call time over several batches, and the
relative error used to check that compared implementations agree."""
import math
import time

import numpy as np


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
