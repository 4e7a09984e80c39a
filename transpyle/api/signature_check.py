"""Checks of a transform's options against the function's signature, before anything is generated:
``argnums`` in range, one ``in_axes`` entry and one kind per positional argument. The command line
(``transpyle show``) and compiled modules (``compile_module``) reject what the Python transforms
reject at their first call, with the same kind of message.
"""
import inspect

from ..base.errors import TranspileError

#: the modes whose generated code depends on ``argnums``
DIFFERENTIATING = ("grad", "value_and_grad", "jacfwd", "jacrev", "hessian")


def positional_count(func):
    """The number of positional parameters of ``func``, or None when it takes ``*args`` (or has no
    signature to read)."""
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return None
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)


def check_options(func, mode="grad", argnums=0, in_axes=0, kinds=None):
    """Raise a TranspileError when ``argnums`` (for a differentiating ``mode``), ``in_axes`` (for
    ``vmap``) or the number of ``kinds`` does not fit ``func``'s positional parameters."""
    name = getattr(func, "__name__", str(func))
    nargs = positional_count(func)
    nums = tuple(argnums) if isinstance(argnums, (tuple, list)) else (argnums,)
    if mode in DIFFERENTIATING:
        if not nums or not all(isinstance(n, int) and not isinstance(n, bool) for n in nums):
            raise TranspileError(f"argnums must be an int or a tuple of ints, got {argnums!r}",
                                 hint="e.g. --argnums 0 or --argnums 0,2")
        for n in nums:
            if nargs is not None and not -nargs <= n < nargs:
                raise TranspileError(f"argnums {n} is out of range for '{name}', which takes {nargs} positional "
                                     "arguments", hint=f"use 0 to {nargs - 1}" if nargs else
                                     "a function without arguments has nothing to differentiate")
    if nargs is None:
        return
    if kinds is not None and len(kinds) != nargs:
        raise TranspileError(f"{len(kinds)} argument kinds given for '{name}', which takes {nargs} positional "
                             "arguments", hint="give one kind per argument, e.g. 'f8[:],f8'")
    if mode == "vmap" and isinstance(in_axes, (tuple, list)) and len(in_axes) != nargs:
        raise TranspileError(f"vmap in_axes has {len(in_axes)} entries but '{name}' takes {nargs} positional "
                             "arguments", hint="give one axis (or None) per argument")


__all__ = ["check_options", "positional_count", "DIFFERENTIATING"]
