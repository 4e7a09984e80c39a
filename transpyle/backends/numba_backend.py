"""The Numba backend: ``njit`` (disk cache: ``numba_cache``) on generated functions, compiled eagerly for the
argument types so that a Numba error surfaces as a TranspileError at the first call."""
import contextlib
import inspect
import threading
import warnings

import numba
from numba.core import errors as numba_errors

from .compile_errors import numba_failure
from .compile_time import opt_level_for, optimization, outlined_loops_level
from .numba_cache import cached_njit
from . import boundscheck
from ..base.naming import DRIVER_PARALLEL_LOOP, OUTLINED_NAME, PARALLEL_NAME


#: Numba's parallel options for generated code: only the explicit numba.prange loops (of vmap and the
#: Jacobian drivers) run on threads. Letting Numba parallelize every array expression as well puts a
#: thread launch in each np.zeros of a small driver (60 us instead of 1 us for a 3x3 Jacobian).
PRANGE_ONLY = {"prange": True, "numpy": False, "setitem": False, "comprehension": False, "reduction": False,
               "inplace_binop": False, "stencil": False, "fusion": False}


# Division by zero gives inf or nan, as in NumPy (the numpy backend), not ZeroDivisionError: a derivative
# at a domain edge (sqrt at 0, arcsin at 1) is inf there, as NumPy's is.
def _compile_helpers(module, fname, check=None, prange=True):
    """Other generated functions in the module (the jvp behind a Jacobian) are compiled too, and
    replace their Python versions, so the compiled entry point can call them; ``prange=False`` (a pmap
    shard, on a thread of its own) compiles the parallel copies of element loops as plain loops."""
    for attr, value in list(vars(module).items()):
        if attr != fname and inspect.isfunction(value) and value.__module__ == module.__name__:
            # the parallel copies of element loops (transforms/parallel_loops) are the only functions with
            # numba.prange loops compiled parallel: the array analysis of Numba's parallel pipeline
            # rejects broadcasts it does not follow, so it sees no other code
            parallel = PRANGE_ONLY if prange and PARALLEL_NAME.fullmatch(attr) else False
            helper = cached_njit(module, error_model="numpy", boundscheck=boundscheck(check),
                                 parallel=parallel)(value)
            if OUTLINED_NAME.fullmatch(attr):
                helper = _compiled_at(helper, outlined_loops_level())
            setattr(module, attr, helper)


def _compiled_at(dispatcher, level):
    """``dispatcher``, compiling at LLVM level ``level`` (None: Numba's), also when the compile of a
    function calling it (at another level) reaches it: the element loops of a long function are
    optimized while the function is not (``compile_time``)."""
    compile_ = dispatcher.compile

    def compile(sig):
        with optimization(level):
            return compile_(sig)
    dispatcher.compile = compile
    return dispatcher


@contextlib.contextmanager
def _quiet_performance_hints():
    """Hints about the generated code's memory layout (a non-contiguous operand of @) are about code
    the user did not write and cannot change: hidden. Only in the main thread: catch_warnings swaps
    process-wide state, which a compile left running in a thread (backend="auto") would restore
    over the main thread's later changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", numba_errors.NumbaPerformanceWarning)
        yield


def compile_function(module, fname, args, nogil=False, prange=True, check=None):
    """``nogil=True`` releases the GIL while the function runs, so threads run it in parallel (pmap's
    shards); ``prange=False`` runs numba.prange loops as plain loops (each shard has its own core).
    A module is compiled with one set of options: Numba's cache index does not tell them apart.
    ``check``: bounds checks (see ``backends.boundscheck``)."""
    _compile_helpers(module, fname, check, prange)
    py = getattr(module, fname)
    dispatcher = getattr(module, "__njit_" + fname, None)
    if dispatcher is None:
        # a vmap driver's numba.prange loop runs on all cores
        threaded = prange and DRIVER_PARALLEL_LOOP.search(getattr(module, "__transpyle_text__", "")) is not None
        dispatcher = cached_njit(module, nogil=nogil, parallel=PRANGE_ONLY if threaded else False,
                                 error_model="numpy", boundscheck=boundscheck(check))(py)
        setattr(module, "__njit_" + fname, dispatcher)
    try:
        sig = tuple(numba.typeof(a) for a in args)
        with _quiet_performance_hints():
            with optimization(opt_level_for(getattr(module, "__transpyle_text__", ""))):
                dispatcher.compile(sig)
    except (numba_errors.NumbaError, NotImplementedError, ValueError) as exc:
        # typing, lowering and unsupported errors, and an operation Numba has no lowering for: at the user's line
        raise numba_failure(module, fname, exc) from None
    return dispatcher
