"""Collectives over a ``pmap`` axis (``psum``, ``pmean``, ``pmax``, ``pmin``), as generated code
names them (``rt.psum``).

A collective combines one value from every shard of a pmap, so it cannot run inside one shard's
compiled code: ``transpyle/pmap.py`` splits the generated function at each collective and the host
combines the shards' values. These functions are what the rule table (``rules/collectives.py``)
resolves the user's ``transpyle.lax.psum`` to; called eagerly no axis is bound, and they raise
``NameError`` as JAX does. Nothing compiled calls them, so they are not copied into compiled modules.
"""


def _unbound(op, axis_name):
    raise NameError(f"unbound axis name: {axis_name!r} ({op} is only meaningful inside a function mapped by "
                    f"transpyle.pmap(..., axis_name={axis_name!r}))")


def psum(x, axis_name):
    """The sum of ``x`` over the shards of the pmap axis ``axis_name``, on every shard."""
    _unbound("psum", axis_name)


def pmean(x, axis_name):
    """The mean of ``x`` over the shards of the pmap axis ``axis_name``, on every shard."""
    _unbound("pmean", axis_name)


def pmax(x, axis_name):
    """The elementwise maximum of ``x`` over the shards of the pmap axis ``axis_name``."""
    _unbound("pmax", axis_name)


def pmin(x, axis_name):
    """The elementwise minimum of ``x`` over the shards of the pmap axis ``axis_name``."""
    _unbound("pmin", axis_name)


# on a pytree (a dict of gradients), a collective applies to every leaf (see frontend/pytrees)
for _collective in (psum, pmean, pmax, pmin):
    _collective.__transpyle_leafwise__ = True

__all__ = ["psum", "pmean", "pmax", "pmin"]
