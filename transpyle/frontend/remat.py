"""``transpyle.checkpoint`` (``jax.checkpoint``, ``jax.remat``): a function whose steps reverse mode recomputes
instead of saving.

Called outside any transform, a checkpointed function runs its body. In transformed code its body is inlined
like any helper's, with a marker first (``rt.recompute_here``): reverse mode checkpoints the outermost loop
around a marked call (``transforms/checkpoint_loops``), as JAX's ``scan`` of a checkpointed step does: the
primal sweep keeps only the loop's state at each iteration, and the adjoint sweep runs each iteration again
with its tape before replaying it. Under a memory budget (``grad(f, memory=...)``) the budget chooses the
segments instead. A marked call outside any loop changes nothing: outside loops reverse mode saves no
value that a later statement overwrites (each name is assigned once there), so there is nothing to recompute.

``policy`` takes JAX's ``checkpoint_policies``: ``everything_saveable`` saves every step as without
checkpoint; the others recompute the step, and within the recomputed step reverse mode saves what its
to-be-recorded analysis asks, whatever the policy names (dots or not).
"""
import copy
import functools

import gast

from ..base.errors import TranspileError
from .. import runtime as rt
from .source import FunctionSource, read_function

MARKER = "__transpyle_recompute_here__"


class Recomputed:
    """``fun`` checkpointed: its body, marked for recomputation in reverse mode."""

    def __init__(self, fun, policy=None, static_argnums=()):
        if not callable(fun):
            raise TranspileError(f"checkpoint expects a function, got {type(fun).__name__}")
        self.fun = fun
        self.policy = policy
        self.static_argnums = static_argnums
        functools.update_wrapper(self, fun, updated=())

    def __call__(self, *args, **kwargs):
        return self.fun(*args, **kwargs)

    def transpyle_source(self):
        """What transforms read: ``fun``'s source with the marker as its first statement."""
        unit = read_function(self.fun)
        if self.policy is checkpoint_policies.everything_saveable:
            return unit
        tree = copy.deepcopy(unit.tree)
        mark = gast.Assign(targets=[gast.Name(id="_recompute", ctx=gast.Store(), annotation=None, type_comment=None)],
                           value=gast.Call(func=gast.Name(id=MARKER, ctx=gast.Load(), annotation=None,
                                                          type_comment=None),
                                           args=[gast.Constant(value=0, kind=None)], keywords=[]),
                           type_comment=None)
        tree.body = [gast.copy_location(mark, tree.body[0])] + tree.body
        for node in gast.walk(mark):
            gast.copy_location(node, tree.body[1])
        return FunctionSource(func=self, tree=tree, filename=unit.filename,
                              namespace={**unit.namespace, MARKER: rt.recompute_here}, text=unit.text,
                              bound=dict(unit.bound))

    def __repr__(self):
        return f"<checkpoint of {getattr(self.fun, '__qualname__', self.fun)}>"


def checkpoint(fun=None, *, prevent_cse=True, policy=None, static_argnums=()):
    """``fun`` with its steps recomputed in reverse mode instead of saved (``jax.checkpoint``); as a
    decorator with options: ``@checkpoint(policy=...)``. ``prevent_cse`` is accepted (nothing here merges
    common subexpressions across the recompute); ``static_argnums`` as in ``jit``: those arguments must be
    numbers or strings known when the enclosing function is transformed."""
    if fun is None:
        return lambda f: checkpoint(f, prevent_cse=prevent_cse, policy=policy, static_argnums=static_argnums)
    return Recomputed(fun, policy, static_argnums)


checkpoint.__transpyle_transform__ = True     # may be called in transformed code: checkpoint(step)(x)
remat = checkpoint


class checkpoint_policies:  # noqa: N801 (JAX's name)
    """JAX's policy names. ``everything_saveable`` keeps the step taped; every other one recomputes it."""

    @staticmethod
    def everything_saveable(*_, **__):
        return True

    @staticmethod
    def nothing_saveable(*_, **__):
        return False

    @staticmethod
    def dots_saveable(*_, **__):
        return False

    checkpoint_dots = dots_saveable

    @staticmethod
    def dots_with_no_batch_dims_saveable(*_, **__):
        return False

    @staticmethod
    def save_anything_except_these_names(*names):
        return checkpoint_policies.nothing_saveable

    @staticmethod
    def save_any_names_but_these(*names):
        return checkpoint_policies.nothing_saveable

    @staticmethod
    def save_only_these_names(*names):
        return checkpoint_policies.nothing_saveable
