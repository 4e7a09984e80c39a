"""Scaling per-example gradients past one thread: one process, pmap over the cores, worker
processes, and a dask LocalCluster.

    python benchmarks/scale.py [N] [D]

Logistic regression, N = 1 000 000 examples (default), d = 64: the per-example gradients
``vmap(grad(loss), in_axes=(None, 0, 0))`` (an N x d result), and the gradient of the total loss
(a d-vector: ``grad`` of the summed loss; pmap sums the shards' gradients with ``lax.psum``,
dask with ``transpyle.dask.grad_sum``). One table from one run. Rows:
- one process, one thread: the vmap driver with ``numba.set_num_threads(1)`` (the baseline);
- one process, vmap's prange loop on all threads;
- pmap over the cores (one thread per shard, the compiled shard releases the GIL);
- the same shard function in a ProcessPoolExecutor (the arrays are pickled to the workers and back):
  threads against processes for the same work;
- a dask LocalCluster with 2 worker processes, one thread each (``transpyle.dask``; the data starts
  in the client, as for the other rows, and goes to the workers with the tasks).
Columns: the first call (it compiles, or loads Numba's disk cache, and for the pools includes
shipping the code), the best steady-state call, the speedup over the baseline, the overhead
against a perfect split over the cores (time x cores / baseline - 1), and the cores the process
actually got during a call (CPU time of all its threads over wall time: on a shared machine, less
than the threads it runs). Startup of the pools
(process start, imports) is listed separately. All results are checked against the baseline.
This is a script, not a test.
"""
import concurrent.futures
import math
import os
import sys
import time

import numba
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import transpyle  # noqa: E402
from transpyle import lax  # noqa: E402
from timing import best_time, fmt, rel_err, timed_first_call  # noqa: E402

N = int(float(sys.argv[1])) if len(sys.argv) > 1 else 1_000_000
D = int(sys.argv[2]) if len(sys.argv) > 2 else 64
WORKERS = 2


def example_loss(w, x, y):
    z = np.dot(x, w)
    if z >= 0.0:
        return math.log1p(math.exp(-z)) + (1.0 - y) * z
    return math.log1p(math.exp(z)) - y * z


def total_loss(w, X, y):
    s = 0.0
    for i in range(X.shape[0]):
        s += example_loss(w, X[i], y[i])
    return s


def total_step(w, X, y):
    return lax.psum(transpyle.grad(total_loss)(w, X, y), 'data')


def run_in_processes(pool, block, args_per_worker):
    return list(pool.map(block, *zip(*args_per_worker)))


def main():
    cores = transpyle.local_device_count()
    rng = np.random.default_rng(0)
    X = rng.normal(size=(N, D)) / math.sqrt(D)
    y = rng.integers(0, 2, N).astype(float)
    w = rng.normal(size=D)
    Xs, ys = X.reshape(cores, N // cores, D), y.reshape(cores, N // cores)
    per_example = transpyle.vmap(transpyle.grad(example_loss), in_axes=(None, 0, 0))
    grad_total = transpyle.grad(total_loss)
    rows, startup = [], []

    def row(task, how, fn, check, parallelism, in_process=True):
        out, first = timed_first_call(fn)
        t = best_time(fn, repeat=3, min_batch_s=0.0)
        err = 0.0 if check is None else rel_err(np.reshape(out, np.shape(check)), check)
        c0, t0 = time.process_time(), time.perf_counter()
        fn()
        # the cores this process got during one call (CPU seconds of all its threads per second):
        # on a shared machine, what the other work left; the pools' workers are other processes
        used = (time.process_time() - c0) / (time.perf_counter() - t0) if in_process else None
        rows.append((task, how, first, t, err, parallelism, used))
        return out

    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    base = row("per-example", "one process, 1 thread", lambda: per_example(w, X, y), None, 1)
    numba.set_num_threads(threads)
    row("per-example", f"one process, prange on {threads} threads", lambda: per_example(w, X, y), base, threads)
    pm = transpyle.pmap(per_example, in_axes=(None, 0, 0))
    row("per-example", f"pmap, {cores} shards (threads)", lambda: pm(w, Xs, ys), base, cores)

    total = row("total", "one process (grad of the sum)", lambda: grad_total(w, X, y), None, 1)
    pm_total = transpyle.pmap(total_step, axis_name='data', in_axes=(None, 0, 0), out_axes=None)
    row("total", f"pmap + lax.psum, {cores} shards", lambda: pm_total(w, Xs, ys), total, cores)

    import transpyle.dask as tdask
    block, _, _ = tdask.block_function(per_example, (w, Xs[0], ys[0]))
    t0 = time.perf_counter()
    with concurrent.futures.ProcessPoolExecutor(WORKERS) as pool:
        pool.submit(int).result()
        startup.append((f"ProcessPoolExecutor({WORKERS}) start", time.perf_counter() - t0))
        shards = [(w, Xs[i], ys[i]) for i in range(cores)]
        row("per-example", f"processes, {WORKERS} workers (pickled)",
            lambda: np.concatenate(run_in_processes(pool, block, shards)), base, WORKERS, False)

    try:
        import dask.array as da
        from distributed import Client, LocalCluster
    except ImportError as exc:
        print(f"(dask rows skipped: {exc}; pip install -e '.[dask]')")
    else:
        t0 = time.perf_counter()
        with LocalCluster(n_workers=WORKERS, threads_per_worker=1, processes=True, dashboard_address=None,
                          silence_logs=40) as cluster, Client(cluster):
            startup.append((f"LocalCluster({WORKERS} workers) + Client start", time.perf_counter() - t0))
            chunk = N // (4 * WORKERS)
            dX, dy = da.from_array(X, chunks=(chunk, D)), da.from_array(y, chunks=chunk)
            row("per-example", f"dask map_blocks, {WORKERS} workers",
                lambda: tdask.map_blocks(per_example, w, dX, dy).compute(), base, WORKERS, False)
            row("total", f"dask grad_sum, {WORKERS} workers", lambda: tdask.grad_sum(total_loss, w, dX, dy),
                total, WORKERS, False)
            # the data already on the workers: what the compute costs without shipping it
            dXp, dyp = dX.persist(), dy.persist()
            row("per-example", "dask map_blocks, data on workers",
                lambda: tdask.map_blocks(per_example, w, dXp, dyp).compute(), base, WORKERS, False)
            row("total", "dask grad_sum, data on workers", lambda: tdask.grad_sum(total_loss, w, dXp, dyp),
                total, WORKERS, False)

    load = ", ".join(f"{v:.1f}" for v in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    print(f"logistic regression, N = {N:,} examples, d = {D}; {cores} cores, numba {numba.__version__}; "
          f"load average at the end {load} (other work on the cores shows as lost speedup)")
    print()
    print(f"{'result':12} {'how':40} {'first call':>12} {'steady':>12} {'speedup':>8} {'overhead':>9} "
          f"{'cores used':>10}  check")
    baselines = {task: t for task, how, first, t, err, par, used in rows if par == 1}
    for task, how, first, t, err, par, used in rows:
        speedup = baselines[task] / t
        overhead = t * par / baselines[task] - 1 if par > 1 else 0.0
        cores_used = f"{used:10.2f}" if used is not None else f"{'-':>10}"
        print(f"{task:12} {how:40} {fmt(first):>12} {fmt(t):>12} {speedup:7.2f}x {overhead:8.0%} {cores_used}  "
              f"{err:.0e}")
    print()
    for what, seconds in startup:
        print(f"startup: {what}: {fmt(seconds).strip()}")
    print("first call: compiles (or loads Numba's disk cache) and, for the pools, ships the code and data;"
          " overhead: steady time x parallel workers / baseline - 1;\ncores used: CPU seconds of this process's"
          " threads per second of one call (the pools' workers are other processes: -)")


if __name__ == "__main__":
    main()
