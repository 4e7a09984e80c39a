"""Schedules of checkpointed loops in reverse mode (``transforms/checkpoint_loops``): how many iterations a
segment holds, so that the snapshots of the loop's state and the tape of one segment fit a memory budget,
and the thinning of the snapshots of a ``while`` loop whose trip count is known only at its end.

The two-level schedule: the primal sweep keeps the tape of the current segment of ``k`` iterations only and
a snapshot of the state at each segment's start; the adjoint sweep, segment by segment from the last,
restores a segment's snapshot, runs its ``k`` iterations again with their tape (the last segment's tape is
there already) and replays them backwards. Memory is ``ceil(n / k)`` snapshots plus the tape of ``k``
iterations; every iteration but the last segment's runs twice forward.
"""
import math

import numpy as np

from numba.extending import register_jitable


def segment_length(trips, state_bytes, step_bytes, budget):
    """Iterations per segment of a loop of ``trips`` iterations whose state (what a snapshot copies) takes
    ``state_bytes`` and whose tape grows by about ``step_bytes`` an iteration: the whole loop when one
    snapshot and its whole tape fit ``budget``, else the length that needs the least memory (about
    ``sqrt(trips * state_bytes / step_bytes)``); -1 when even that does not fit."""
    if trips <= 1:
        return 1
    state = max(state_bytes, 1)
    step = max(step_bytes, 1)
    if state + trips * step <= budget:
        return trips
    best = max(1, min(trips, int(math.sqrt(trips * state / step))))
    best_memory = ((trips + best - 1) // best) * state + best * step
    for k in (best - 1, best + 1):
        if 1 <= k <= trips:
            memory = ((trips + k - 1) // k) * state + k * step
            if memory < best_memory:
                best, best_memory = k, memory
    if best_memory > budget:
        return -1
    return best


def snapshot_slots(state_bytes, budget):
    """How many snapshots of ``state_bytes`` a ``while`` loop keeps at most (half the budget; the tape of
    a segment has the other half): an even number, at least 2."""
    slots = int(budget // (2 * max(state_bytes, 1)))
    return max(2, slots - slots % 2)


def thin_snapshots(tape):
    """The array snapshots ``tape`` (a list, oldest first) with every other one dropped (the 1st, 3rd,
    ... kept): the segments become twice as long."""
    kept = tape[:0]
    for i in range(0, len(tape), 2):
        kept.append(tape[i])
    return kept


def thin_values(tape, count):
    """The number snapshots ``tape[:count]`` with every other one dropped, in place; returns the tape."""
    for i in range(0, count, 2):
        tape[i // 2] = tape[i]
    return tape


def snapshot(x):
    """A copy of the array ``x`` that the loop's writes cannot reach."""
    return np.copy(x)


for _helper in (segment_length, snapshot_slots, thin_snapshots, thin_values, snapshot):
    register_jitable(_helper)
