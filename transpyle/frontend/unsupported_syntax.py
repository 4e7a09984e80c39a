"""Refused syntax: the statements and expressions transformed code cannot contain (exception handling,
``with``, ``global``, classes, generators, comprehensions, dicts and sets), each refused with an
error at the user's line that says what to write instead.
"""
import gast

_UNSUPPORTED_STATEMENTS = {
    gast.Try: ("try/except", "remove the exception handling from the differentiated function"),
    gast.With: ("with", "move the 'with' block outside the differentiated function"),
    gast.Global: ("global", "pass the value as an argument instead"),
    gast.Nonlocal: ("nonlocal", "pass the value as an argument and return the new one"),
    gast.ClassDef: ("class definition", "define classes outside the function"),
    gast.Delete: ("del", "drop the 'del' statement"),
    gast.AsyncFunctionDef: ("async def", "use a plain function"),
    gast.AsyncFor: ("async for", "use a plain for loop"),
    gast.AsyncWith: ("async with", "remove it"),
}


def refuse_unsupported(ctx, node):
    """Raise the error for ``node`` where transformed code cannot contain it; return None otherwise."""
    bad = _UNSUPPORTED_STATEMENTS.get(type(node))
    if bad:
        raise ctx.error(node, f"'{bad[0]}' is not supported in transformed functions", hint=bad[1],
                        construct=bad[0])
    if isinstance(node, (gast.Yield, gast.YieldFrom, gast.Await)):
        raise ctx.error(node, "generators are not supported", hint="return an array instead",
                        construct="yield")
    if isinstance(node, (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)):
        raise ctx.error(node, "comprehensions are not supported",
                        hint="write the loop out, filling a preallocated array")
    if isinstance(node, (gast.Dict, gast.Set)):
        raise ctx.error(node, "dicts and sets are not supported in transformed code",
                        hint="use arrays or tuples")
