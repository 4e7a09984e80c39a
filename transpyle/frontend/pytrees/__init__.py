"""pytrees: pytree arguments and values of a function's source become flat leaf variables,
resolved before the pipeline runs (see ``flattener``).

``structs`` holds the symbolic values (Struct, StaticSeq) and the helpers on them; the Flattener
(``flattener``) is made of the mixins ``expressions``, ``calls``, ``statements`` and ``loops``.
"""
from .flattener import flatten_function, uses_pytrees

__all__ = ["flatten_function", "uses_pytrees"]
