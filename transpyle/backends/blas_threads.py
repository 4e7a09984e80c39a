"""One BLAS thread inside Numba's parallel loops.

A vmap or Jacobian driver runs its ``numba.prange`` loop on every core, and a matrix product inside
it calls BLAS, which starts threads of its own on every core as well: the two fight (a per-example
gradient of a 512-wide MLP ran 2x slower than with one BLAS thread). A call of a compiled driver on
large arrays therefore runs with BLAS limited to one thread, through threadpoolctl, which knows every
BLAS library loaded in the process (NumPy's and SciPy's, the one Numba calls). Small calls skip the
limit: BLAS does not thread small products, and setting the limit costs a few microseconds.
"""
import numpy as np

from ..base.naming import BLAS_CALL, DRIVER_PARALLEL_LOOP

#: array elements over the arguments from which a driver call limits BLAS to one thread
LARGE_CALL_ELEMENTS = 1 << 14

_libraries = None


def _threaded_blas():
    """threadpoolctl's controllers of the BLAS libraries loaded that may use several threads."""
    global _libraries
    if _libraries is None:
        try:
            from threadpoolctl import ThreadpoolController
            _libraries = [lib for lib in ThreadpoolController().select(user_api="blas").lib_controllers
                          if lib.num_threads > 1]
        except Exception:         # threadpoolctl missing or unable to read the libraries: no limit
            _libraries = []
    return _libraries


def threads_blas(text):
    """Whether generated module ``text`` runs a driver's parallel loop and calls BLAS (a product, a
    factorization). Element loops run on every core (``transforms/parallel_loops``) call no BLAS: BLAS
    keeps its threads around them."""
    return DRIVER_PARALLEL_LOOP.search(text) is not None and BLAS_CALL.search(text) is not None


def with_one_blas_thread(compiled):
    """``compiled`` (a driver whose parallel loop may call BLAS), limiting BLAS to one thread while a
    call on large arrays runs."""
    def call(*args):
        if sum(a.size for a in args if type(a) is np.ndarray) < LARGE_CALL_ELEMENTS:
            return compiled(*args)
        libraries = _threaded_blas()
        saved = [lib.num_threads for lib in libraries]
        for lib in libraries:
            lib.set_num_threads(1)
        try:
            return compiled(*args)
        finally:
            for lib, n in zip(libraries, saved):
                lib.set_num_threads(n)
    call.compiled = compiled
    return call
