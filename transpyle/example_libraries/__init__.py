"""``transpyle.example_libraries``, for code ported from ``jax.example_libraries`` (``optimizers``, ``stax``)."""
from . import optimizers, stax  # noqa: F401

__all__ = ["optimizers", "stax"]
