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

These functions are the run-time functions the compiler emits (``transpyle/runtime/random_draws.py``): called
eagerly they run as NumPy code over all counters at once, and in transformed code (``jit``,
``grad``, ``vmap``, ...) they are primitives without derivatives, which Numba compiles as a loop
over the counters calling the same element functions. The bits are identical on every path
(integer arithmetic is masked to 32 bits, floats are built exactly, and the normal transform uses
only + - * / and sqrt), so eager calls, the numpy backend and the numba backend agree exactly. They
follow JAX's construction but are not checked to be bit-for-bit JAX's numbers.
"""
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

__all__ = ["key", "PRNGKey", "split", "fold_in", "uniform", "normal", "bernoulli", "randint", "permutation"]
