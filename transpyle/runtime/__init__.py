"""Run-time helpers called by generated code as ``rt.NAME``: ``core`` (loop bounds, tapes,
un-broadcasting, reductions along an axis), ``random_bits`` (the counter-based generator behind
``transpyle.random``) and ``linalg`` (parts of multi-output factorizations, matrix norms, triangular
solves, adjoints that need a factorization) and ``batching`` (broadcasts and masked updates of
array-lifted batched code).

The modules import only numpy and numba, and not each other, so ``transpyle compile`` can copy the
ones a generated module calls into it: compiled modules run without transpyle installed.
"""
from .core import *  # noqa: F401,F403
from .random_bits import *  # noqa: F401,F403
from .linalg import *  # noqa: F401,F403
from .batching import *  # noqa: F401,F403
from . import batching, core, linalg, random_bits  # noqa: F401

#: the modules, in the order a compiled module holds them
MODULES = (core, random_bits, linalg, batching)
