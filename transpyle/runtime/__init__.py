"""Run-time helpers called by generated code as ``rt.NAME``: ``core`` (loop bounds, tapes,
un-broadcasting), ``axis_reductions`` (reductions along axes), ``exclusive_products`` (the products of
the other elements: the derivative of ``np.prod``), ``random_bits`` (the counter-based generator behind
``transpyle.random``) and ``random_draws`` (its public functions: keys and draws), ``linalg`` (parts of
multi-output factorizations, matrix norms, triangular solves, adjoints that need a factorization),
``products`` (``a @ b`` for any ranks and dtypes), ``batching`` (broadcasts, masked updates and tapes of
array-lifted batched code), ``indexing`` (advanced indexing: positions, gathers, scatter-adds); ``collectives``
holds the markers of pmap's collectives (``rt.psum``), which pmap itself carries out and no compiled code
calls; ``scans`` (NumPy's ufunc methods: accumulate, outer, at), ``binning`` (histograms, the shape of a
covariance), ``diagonals`` (diagonals along two axes and their adjoint) and ``along_axis`` (gathers, scatters
and sorting positions along one axis: np.take_along_axis, np.sort).
``reshapes`` holds NumPy's reshape for arrays of any layout (a view where the strides allow one).
``special_functions`` holds erf, gammaln and its derivatives, elementwise; ``dynamic_slices`` lax.dynamic_slice
and dynamic_update_slice; ``elementary`` exp and tanh of numbers in a form LLVM vectorizes (element loops call them);
``checkpoints`` the schedules of loops differentiated in bounded memory; ``spectral`` discrete Fourier
transforms (np.fft) and the cut or zero-padding of an axis their ``n=`` needs.

The modules import only numpy, numba and the runtime modules listed before them in ``MODULES`` (by
relative imports of their private names), so ``transpyle compile`` can copy the ones a generated module
calls, with those they import, into it: compiled modules run without transpyle installed.
"""
from .core import *  # noqa: F401,F403
from .reshapes import *  # noqa: F401,F403
from .axis_reductions import *  # noqa: F401,F403
from .exclusive_products import *  # noqa: F401,F403
from .random_bits import *  # noqa: F401,F403
from .random_draws import *  # noqa: F401,F403
from .linalg import *  # noqa: F401,F403
from .products import *  # noqa: F401,F403
from .batching import *  # noqa: F401,F403
from .indexing import *  # noqa: F401,F403
from .scans import *  # noqa: F401,F403
from .binning import *  # noqa: F401,F403
from .diagonals import *  # noqa: F401,F403
from .along_axis import *  # noqa: F401,F403
from .special_functions import *  # noqa: F401,F403
from .dynamic_slices import *  # noqa: F401,F403
from .elementary import *  # noqa: F401,F403
from .checkpoints import *  # noqa: F401,F403
from .spectral import *  # noqa: F401,F403
from .collectives import *  # noqa: F401,F403  (markers only: not in MODULES, never compiled)
from . import (along_axis, axis_reductions, batching, binning, checkpoints, core, diagonals, exclusive_products, indexing,  # noqa: F401
               linalg, products, random_bits, random_draws, scans, special_functions,
               dynamic_slices, elementary, reshapes, spectral)

#: the modules, in the order a compiled module holds them
MODULES = (core, reshapes, axis_reductions, exclusive_products, random_bits, random_draws, linalg, products, batching, indexing,
           scans, binning, diagonals, along_axis, special_functions, dynamic_slices, elementary, checkpoints, spectral)
