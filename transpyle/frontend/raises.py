"""raises: what a ``raise`` statement becomes in transformed code.

A function may raise one of Python's built-in exceptions (``raise ValueError("x must be positive")``),
as input checks do. Compiled code raises it where the function would: Numba raises exceptions whose
arguments are constants, so the message is kept as text, with the fields of a formatted message
(``f"bad step {k}"``, ``"...".format(k)``) written as their source (``"bad step {k}"``). Derivatives
raise it in their primal sweep, where the function's own statements run: a raised exception ends the
call, so no adjoint or tangent statement depends on it. A bare ``raise`` (re-raise) and exceptions
of other classes are refused by name.
"""
import builtins

import gast

from ..base.ast_utils import const, expr_source, name
from . import printed


def _builtin_exception(node):
    """The name of the built-in exception class ``node`` spells, or None."""
    if not isinstance(node, gast.Name):
        return None
    obj = getattr(builtins, node.id, None)
    return node.id if isinstance(obj, type) and issubclass(obj, Exception) else None


def _message(args):
    """The text of an exception's arguments: constants as they are, values as their source in braces."""
    parts = []
    for p in printed.pieces(args):
        if isinstance(p, gast.Constant):
            parts.append(str(p.value))
        else:
            parts.append("{" + expr_source(p) + "}")
    return " ".join(parts)


def lowered(ctx, node, shadowed):
    """``node`` (a ``raise``) as ``raise Name("message")``; an error for forms compiled code cannot raise.
    ``shadowed``: names bound in the function (a local ``ValueError`` is not the built-in)."""
    exc = node.exc
    call = exc if isinstance(exc, gast.Call) else None
    cls = _builtin_exception(call.func if call is not None else exc)
    if exc is None or cls is None or cls in shadowed or (call is not None and call.keywords):
        raise ctx.error(node, "only a built-in exception can be raised here (raise ValueError(\"...\") and the like)",
                        hint="raise ValueError, RuntimeError, ... with a message, or check the input before "
                             "calling the transformed function", construct="raise")
    args = [const(_message(call.args))] if call is not None and call.args else []
    new = gast.Raise(exc=gast.Call(func=name(cls), args=args, keywords=[]), cause=None)
    return gast.copy_location(new, node)
