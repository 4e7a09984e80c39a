"""``transpyle.random``: random numbers with explicit keys, as in ``jax.random``.

A key is a NumPy ``uint32`` array of shape ``(2,)`` (JAX's raw key layout). Nothing is global: every
draw is a pure function of its key, so the same key gives the same numbers every time, and code
that needs several independent draws splits its key::

    from transpyle import random
    key = random.key(0)
    key, sub = random.split(key)
    noise = random.normal(sub, (3, 4))

The generator is counter-based: element ``i`` of a draw (in C order) is Threefry-2x32 with 20 rounds
(Random123, the function behind JAX's default keys) applied to the counter ``i`` under the key;
``split(key, n)[i]`` and ``fold_in(key, i)`` are the same function of the counter ``i``. Floats come
from the top mantissa bits of each element's random word (52 bits for float64, 23 for float32), so
uniforms lie in [minval, maxval); normals are the inverse-CDF transform (Wichura's AS 241, accurate
to about 1e-16) of uniforms in the open interval (0, 1); ``randint`` takes 63 random bits modulo the
range; ``permutation`` sorts random 63-bit numbers.

``categorical`` is plain NumPy over ``uniform`` (the Gumbel-max trick), inlined by the transforms like a
helper of the user's own; ``choice`` runs eagerly only.

The other functions are the run-time functions the compiler emits (``transpyle/runtime/random_draws.py``): called
eagerly they run as NumPy code over all counters at once, and in transformed code (``jit``,
``grad``, ``vmap``, ...) they are primitives without derivatives, which Numba compiles as a loop
over the counters calling the same element functions. The bits are identical on every path
(integer arithmetic is masked to 32 bits, floats are built exactly, and the normal transform uses
only + - * / and sqrt), so eager calls, the numpy backend and the numba backend agree exactly. They
follow JAX's construction but are not checked to be bit-for-bit JAX's numbers.
"""
import numpy as np

from . import runtime as _rt

key = _rt.random_key
PRNGKey = _rt.random_key
split = _rt.random_split
fold_in = _rt.random_fold_in
uniform = _rt.random_uniform
normal = _rt.random_normal
bernoulli = _rt.random_bernoulli
randint = _rt.random_randint
permutation = _rt.random_permutation
choice = _rt.random_choice

__all__ = ["key", "PRNGKey", "split", "fold_in", "uniform", "normal", "bernoulli", "randint", "permutation",
           "categorical", "choice"]

_TINY = 2.2250738585072014e-308     # the smallest normal float64: log(-log(u)) stays finite


def categorical(key, logits, axis=-1):
    """Indices drawn with probabilities softmax(logits) along ``axis`` (one draw per slice): the position of
    the largest ``logits + g``, ``g`` standard Gumbel noise made from uniforms of the key."""
    u = uniform(key, logits.shape, minval=_TINY, maxval=1.0)
    return np.argmax(logits - np.log(-np.log(u)), axis=axis)
