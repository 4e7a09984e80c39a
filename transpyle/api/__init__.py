"""What users call: the transforms (``functional``: grad, value_and_grad, jacfwd, jacrev, hessian,
jvp, vjp, linearize; ``vmapping``: vmap; ``jitting``: jit), all built on ``transformed.Transformed``;
``show`` and ``generate`` (the generated code); pytree arguments (``pytrees``); CUDA kernels
(``gpu``); pmap (``parallel``); and modules written ahead of time (``aot``)."""
from .functional import grad, hessian, jacfwd, jacrev, jvp, linearize, value_and_grad, vjp
from .jitting import Jitted, jit
from .show import generate, show
from .transformed import Transformed
from .vmapping import Vmapped, vmap

__all__ = ["grad", "value_and_grad", "vjp", "jvp", "linearize", "jacfwd", "jacrev", "hessian", "vmap", "jit",
           "show", "generate", "Transformed", "Vmapped", "Jitted"]
