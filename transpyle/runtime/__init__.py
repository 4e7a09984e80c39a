"""Run-time helpers called by generated code as ``rt.NAME``: ``core`` (loop bounds, tapes,
un-broadcasting, reductions along an axis), ``random_bits`` (the counter-based generator behind
``transpyle.random``), ``linalg`` (parts of multi-output factorizations, matrix norms, triangular
solves, adjoints that need a factorization), ``products`` (``a @ b`` for any ranks and dtypes), ``batching`` (broadcasts, masked updates and tapes of
array-lifted batched code), ``indexing`` (advanced indexing: positions, gathers, scatter-adds); ``collectives`` holds the markers of pmap's collectives (``rt.psum``),
which pmap itself carries out and no compiled code calls; ``scans`` (NumPy's ufunc methods:
accumulate, outer, at), ``binning`` (histograms, the shape of a covariance) and ``diagonals`` (diagonals
along two axes and their adjoint).

The modules import only numpy and numba, and not each other, so ``transpyle compile`` can copy the
ones a generated module calls into it: compiled modules run without transpyle installed.
"""
from .core import *  # noqa: F401,F403
from .random_bits import *  # noqa: F401,F403
from .linalg import *  # noqa: F401,F403
from .products import *  # noqa: F401,F403
from .batching import *  # noqa: F401,F403
from .indexing import *  # noqa: F401,F403
from .scans import *  # noqa: F401,F403
from .binning import *  # noqa: F401,F403
from .diagonals import *  # noqa: F401,F403
from .collectives import *  # noqa: F401,F403  (markers only: not in MODULES, never compiled)
from . import batching, binning, core, diagonals, indexing, linalg, products, random_bits, scans  # noqa: F401

#: the modules, in the order a compiled module holds them
MODULES = (core, random_bits, linalg, products, batching, indexing, scans, binning, diagonals)
