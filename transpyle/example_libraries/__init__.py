"""``transpyle.example_libraries``, for code ported from ``jax.example_libraries`` (``optimizers``)."""
from . import optimizers  # noqa: F401

__all__ = ["optimizers"]
