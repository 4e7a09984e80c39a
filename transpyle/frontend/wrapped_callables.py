"""wrapped_callables: the source transforms read for callables that have none of their own.

- ``functools.partial(f, *args, **kwargs)`` (``grad(partial(loss, scale=3.0))``, ``jit(partial(step,
  model))``): a function of the parameters the partial leaves, calling ``f`` with the bound values.
  Numbers, strings, booleans and None are written into its text (they are constants of the code, and
  part of the cache key); arrays and functions are names in its namespace, read as module globals are
  (an array is captured and read at every call).
- a library function (``jnp.tanh``, ``np.linalg.det``, ``np.dot``): a function of its positional
  parameters that calls it, so ``grad(jnp.tanh)`` is the derivative its rule gives;
- SciPy's special functions that ``transpyle.scipy.special`` writes in NumPy (``expit``, ``logsumexp``):
  called in transformed code, they are those (``transpyle_twin``).

Each is a ``FunctionSource`` located at the wrapped function's definition (or, for a library function,
named by its module), so errors still point at the user's code.
"""
import functools
import inspect

import gast
import numpy as np

from ..base.arrays import library_object
from ..twins import twin_of

_LITERALS = (bool, int, float, complex, str, type(None))


def _literal(value):
    return isinstance(value, _LITERALS) or isinstance(value, (np.number, np.bool_))


def _written(value, namespace, label):
    """Source text for ``value``: a literal as written, anything else as a name in ``namespace``."""
    if _literal(value):
        return repr(value.item() if isinstance(value, (np.number, np.bool_)) else value)
    key = f"_{label}"
    namespace[key] = value
    return key


def _library_parameters(obj):
    """The names of a library function's positional parameters without defaults, or None."""
    if isinstance(obj, np.ufunc):
        return [f"x{i + 1}" for i in range(obj.nin)]
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    return [p.name for p in sig.parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty]


def _is_library(obj):
    module = getattr(obj, "__module__", None) or ""
    return isinstance(obj, np.ufunc) or module.split(".")[0] in ("numpy", "math", "scipy")


def wrapper_text(func):
    """(text, namespace, the function whose place it takes) of the wrapper for ``func``, or None when
    ``func`` is neither a partial nor a library function."""
    if isinstance(func, functools.partial):
        return _partial_text(func)
    obj = library_object(func)
    if not _is_library(obj):
        return None
    params = _library_parameters(obj)
    if params is None:
        return None
    label = getattr(obj, "__name__", "library_function")
    namespace = {f"_{label}": obj}
    text = f"def {label}({', '.join(params)}):\n    return _{label}({', '.join(params)})\n"
    return text, namespace, None


def _partial_text(part):
    wrapped = part.func
    label = getattr(wrapped, "__name__", "partial")
    label = label if label.isidentifier() else "partial"
    namespace = {f"_{label}": wrapped}
    try:
        left = inspect.signature(part).parameters.values()
    except (TypeError, ValueError):
        return None
    params, passed = [], []
    for p in left:
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            continue
        default = "" if p.default is p.empty else "=" + _written(p.default, namespace, f"default_{p.name}")
        params.append(p.name + default)
        passed.append(p.name)
    bound = [_written(v, namespace, f"arg{i}") for i, v in enumerate(part.args)]
    keywords = [f"{k}={_written(v, namespace, f'kw_{k}')}" for k, v in part.keywords.items()
                if k not in passed]
    call = ", ".join(bound + passed + keywords)
    text = f"def {label}_partial({', '.join(params)}):\n    return _{label}({call})\n"
    return text, namespace, wrapped


def located_tree(text, anchor):
    """The FunctionDef parsed from ``text``, every node at ``anchor``'s place (a FunctionDef) or line 1."""
    tree = gast.parse(text).body[0]
    for node in gast.walk(tree):
        if isinstance(node, (gast.expr, gast.stmt)):
            if anchor is not None:
                gast.copy_location(node, anchor)
            else:
                node.lineno, node.col_offset = 1, 0
                node.end_lineno, node.end_col_offset = 1, 0
    return tree


def transpyle_twin(obj):
    """The plain-NumPy function transformed code calls in place of ``obj``: NumPy's function's twin
    (``transpyle.twins``: ``np.median``), SciPy's special function as ``transpyle.scipy.special``'s function of
    that name (``scipy.special.expit``); ``obj`` itself where it has none."""
    from ..rules import imported
    from ..scipy import special
    written = twin_of(obj)
    if written is not None:
        return written
    label = getattr(obj, "__name__", None)
    if isinstance(label, str) and label in special.__all__ and imported("scipy.special", label) is obj:
        return getattr(special, label)
    return obj
