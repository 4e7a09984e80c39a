"""``transpyle.scipy``: the SciPy names of ``jax.scipy`` that transformed code accepts (``special``)."""
from . import special  # noqa: F401

__all__ = ["special"]
