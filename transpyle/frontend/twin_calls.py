"""twin_calls: a call of a NumPy function that ``transpyle.twins`` writes in NumPy, checked when it is read.

The call's arguments are bound to the twin's parameters (NumPy's names) as Python would bind them; an
argument NumPy does not have, one too many, or a form the twin's ``check`` refuses is an error at the user's
line naming NumPy's function, before the twin is inlined. A check may return constants to write in place of
arguments (an axis given as a number or a tuple, written as a tuple), so the twin reads one form. A list written
in the call is passed as ``np.array`` of it (NumPy reads lists as arrays).
"""
import inspect

import gast

from ..base.ast_utils import parse_expr
from ..twins import VARIABLE, TwinRefusal


def _value(node):
    """The Python value of a constant written in the call, else VARIABLE."""
    if isinstance(node, gast.Constant):
        return node.value
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub) and isinstance(node.operand, gast.Constant) \
            and isinstance(node.operand.value, (int, float)):
        return -node.operand.value
    if isinstance(node, gast.Tuple):
        values = tuple(_value(e) for e in node.elts)
        return VARIABLE if VARIABLE in values else values
    return VARIABLE


def _lists_as_arrays(node):
    """A list written in the call is an array to NumPy (array_like): ``np.array`` of it, as the twin reads it."""
    def array(value):
        if isinstance(value, gast.List):
            return gast.copy_location(gast.Call(func=parse_expr("np.array"), args=[value], keywords=[]), value)
        return value
    node.args = [array(a) for a in node.args]
    for kw in node.keywords:
        kw.value = array(kw.value)


def check(ctx, node, label, twin):
    """Raise at ``node`` (a call of NumPy's ``label``) where its arguments do not fit ``twin``."""
    signature = inspect.signature(twin)
    _lists_as_arrays(node)
    if any(isinstance(a, gast.Starred) for a in node.args) or any(kw.arg is None for kw in node.keywords):
        raise ctx.error(node, f"{label} with *args or **kwargs is not supported", construct=label,
                        hint="pass its arguments one by one")
    try:
        bound = signature.bind(*node.args, **{kw.arg: kw.value for kw in node.keywords})
    except TypeError as exc:
        raise ctx.error(node, str(exc), construct=label,
                        hint=f"its parameters here are {', '.join(signature.parameters)}") from None
    bound.apply_defaults()
    rule = getattr(twin, "__transpyle_twin_check__", None)
    if rule is None:
        return
    args = {p: (_value(v) if isinstance(v, gast.AST) else v) for p, v in bound.arguments.items()}
    try:
        normal = rule(args)
    except TwinRefusal as exc:
        raise ctx.error(node, str(exc), construct=label,
                        hint=exc.hint or "supported forms are listed in docs/subset.md") from None
    for param, value in (normal or {}).items():   # constants the check wrote in one form (an axis as a tuple)
        node.keywords = [kw for kw in node.keywords if kw.arg != param]
        position = list(signature.parameters).index(param)
        if position < len(node.args):
            node.args = node.args[:position] + [parse_expr(repr(value))] + node.args[position + 1:]
        else:
            node.keywords.append(gast.keyword(arg=param, value=parse_expr(repr(value))))
