"""``import transpyle.numpy as jnp``: the NumPy names the transforms support, for code ported from
JAX. They are NumPy's own functions (so the code also runs as plain NumPy); ``docs/subset.md`` lists
them. The functional update ``x.at[idx].set(v)`` (``.add``, ``.multiply``, ``.min``, ``.max``) is
accepted in transformed code: a copy of ``x`` with that part replaced. Called eagerly, the functions
return ``Array``, NumPy arrays with that update too (``base/arrays``)."""
import types as _types

import numpy as _np

from . import rules as _rules
from .rules.matrices import composite as _composite, multi_output as _multi_output
from .rules.rewrites import call_rewrite as _call_rewrite
from .twins import twin_of as _twin_of


def _accepted(obj):
    """Whether transformed code accepts calls of ``obj``: a primitive, a function written with primitives, or one
    written in NumPy (``transpyle.twins``)."""
    return _rules.by_object(obj) is not None or _call_rewrite(obj) is not None or _composite(obj) is not None or \
        _multi_output(obj) is not None or _twin_of(obj) is not None


__all__ = []
for _key in _rules.all_primitives():
    if _key.startswith("np.") and not _key.startswith("np.linalg."):
        globals()[_key[3:]] = getattr(_np, _key[3:])
        __all__.append(_key[3:])
for _name in dir(_np):          # functions written with primitives when resolved (np.std, np.cumsum, ...)
    if not _name.startswith("_") and _name not in __all__ and callable(getattr(_np, _name)) and \
            not isinstance(getattr(_np, _name), type) and _accepted(getattr(_np, _name)):
        globals()[_name] = getattr(_np, _name)
        __all__.append(_name)

for _name in ("pi", "e", "inf", "nan", "newaxis", "ndarray", "float64", "float32", "int64", "int32",
              "complex128", "bool_", "asarray", "array", "absolute", "amax", "amin", "conjugate", "matmul",
              "multiply", "divide", "true_divide", "power", "negative"):
    globals()[_name] = getattr(_np, _name)
    if _name not in __all__:
        __all__.append(_name)

# every np.linalg function transformed code accepts (norm, det, inv, solve, eigh, eigvals, eigvalsh, svd, ...)
linalg = _types.SimpleNamespace(**{_name: getattr(_np.linalg, _name) for _name in dir(_np.linalg)
                                   if not _name.startswith("_") and _accepted(getattr(_np.linalg, _name))})
__all__.append("linalg")
# every np.fft function transformed code accepts (fft, ifft, rfft, irfft, fftn, fftfreq, fftshift, ...)
fft = _types.SimpleNamespace(**{_name: getattr(_np.fft, _name) for _name in dir(_np.fft)
                                if not _name.startswith("_") and _accepted(getattr(_np.fft, _name))})
__all__.append("fft")


# Last, so that every name above is covered: eager calls return arrays with JAX's ``.at`` updates
# (``base/arrays``); transformed code reads the NumPy function behind each wrapper.
from .base import arrays as _arrays  # noqa: E402


def _eager_namespace(names, namespace):
    for _n in names:
        _obj = namespace[_n]
        if isinstance(_obj, _types.SimpleNamespace):
            _eager_namespace(list(vars(_obj)), vars(_obj))
        elif callable(_obj) and not isinstance(_obj, type) and not isinstance(_obj, _arrays.EagerFunction):
            namespace[_n] = _arrays.eager(_obj)


_eager_namespace(__all__, globals())
