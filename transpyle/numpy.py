"""``import transpyle.numpy as jnp``: the NumPy names the transforms support, for code ported from
JAX. They are NumPy's own functions (so the code also runs as plain NumPy); ``docs/subset.md`` lists
them. The functional update ``x.at[idx].set(v)`` (``.add``, ``.multiply``, ``.min``, ``.max``) is
accepted in transformed code: a copy of ``x`` with that part replaced."""
import types as _types

import numpy as _np

from . import rules as _rules

__all__ = []
for _key in _rules.all_primitives():
    if _key.startswith("np.") and not _key.startswith("np.linalg."):
        globals()[_key[3:]] = getattr(_np, _key[3:])
        __all__.append(_key[3:])

for _name in ("pi", "e", "inf", "nan", "newaxis", "ndarray", "float64", "float32", "int64", "int32",
              "complex128", "bool_", "asarray", "array", "absolute", "amax", "amin", "conjugate", "matmul",
              "multiply", "divide", "true_divide", "power", "negative"):
    globals()[_name] = getattr(_np, _name)
    __all__.append(_name)

linalg = _types.SimpleNamespace(norm=_np.linalg.norm)
__all__.append("linalg")
