"""The declared list of passes each mode runs after the frontend (``passes.FRONTEND``)."""
from ..base.errors import TranspileError
from . import drivers
from .passes import (ACTIVITY, ADJOINT_HANDOVER, CUSTOM_RULES, ELEMENT_LOOPS, FORWARD, FRONTEND, FUSE, OUTLINE_LOOPS,
                     PARALLEL_LOOPS, REVERSE, TIDY)

#: how vmap is compiled: a parallel loop over the per-example function, or batched array code
STRATEGIES = ("loop", "array")

BACK_END = {
    "primal": (drivers.PRIMAL, FUSE, ELEMENT_LOOPS, TIDY, OUTLINE_LOOPS, PARALLEL_LOOPS),
    # the sweeps of reverse mode
    **{m: (ACTIVITY, REVERSE, CUSTOM_RULES, ADJOINT_HANDOVER, FUSE, ELEMENT_LOOPS, TIDY, OUTLINE_LOOPS, PARALLEL_LOOPS)
       for m in ("grad", "value_and_grad", "vjp")},
    "jvp": (ACTIVITY, FORWARD, CUSTOM_RULES, FUSE, ELEMENT_LOOPS, TIDY, OUTLINE_LOOPS, PARALLEL_LOOPS),
    "jacfwd": (drivers.JACOBIAN, FUSE, ELEMENT_LOOPS, TIDY),
    "jacrev": (drivers.JACOBIAN, FUSE, ELEMENT_LOOPS, TIDY),
    "vmap loop": (drivers.VMAP_LOOP, FUSE, ELEMENT_LOOPS, TIDY),
    "vmap array": (drivers.LIFT, FUSE, ELEMENT_LOOPS, TIDY),
    # derivatives of generated code, and of code holding tapes (grad(g) called in the body), are
    # taken by forward sweeps over it: the jacfwd driver
    "by forward mode": (drivers.JACOBIAN, FUSE, ELEMENT_LOOPS, TIDY),
}

#: the modes ``transform`` takes
MODES = tuple(dict.fromkeys(key.split()[0] for key in BACK_END if key != "by forward mode"))

#: (name, what it does) of every pass, frontend first
PASSES = [(p.name, p.description) for p in FRONTEND] + \
    [(p.name, p.description) for p in dict.fromkeys(p for ps in BACK_END.values() for p in ps)]


def back_end(mode, strategy, by_forward):
    """The passes ``mode`` runs after the frontend."""
    if by_forward:
        return BACK_END["by forward mode"]
    return BACK_END[f"vmap {strategy}" if mode == "vmap" else mode]


def pipeline_of(mode, strategy="loop", by_forward=False):
    """Every pass ``mode`` runs, in order (``docs/pipeline.md`` lists them)."""
    return FRONTEND + back_end(mode, strategy, by_forward)


def check_after(after):
    """``show --after`` names a pass."""
    names = [n for n, _ in PASSES]
    if after is not None and after not in names:
        raise TranspileError(f"no pass is named '{after}'", hint="one of: " + ", ".join(names))
