"""Tiered calls: the NumPy backend answers while Numba compiles in the background.

A Numba compile of generated code takes seconds (a Hessian of a small network, ten); the same code
run by the NumPy backend needs none. So the first call of a transform, per argument kinds, starts
the Numba compile in a thread and is answered by the NumPy backend at once; so is every call until
the compile is done, and from then on the compiled code answers. Both compute the same derivative;
only the speed differs. A script that calls a gradient a few times finishes before the compile
would have; a long loop of calls speeds up when the compile is done. Code Numba compiled before (its
entry is in the disk cache) is loaded by the thread the same way, in a fraction of a second.

The NumPy runs execute the very text Numba compiles, as Python (the run-time helpers have Python
versions): no second pipeline run, which would double the first call's time.

- A NumPy run checks at the top of each loop iteration whether the compile is done; if it is, the run
  stops and the compiled code answers that call. A run that may be stopped works on copies of the
  array arguments, so that stopping it half way leaves the caller's arrays as they were.
- The NumPy backend answers for ``TRANSPYLE_TIER_SECONDS`` of its own running time in all (default
  30); after that, calls wait for the compile. The NumPy runs share the interpreter lock with the
  compile thread, which slows the compile's Python half; the bound keeps a long stream of heavy
  calls from stretching it without end. (Measured on a training loop of 300 gradient calls whose
  NumPy runs outlast the compile: with 5 s the script took 16.1 s, with 30 s 12.4 s, without tiers
  12.7 s: calls that make progress cost less than calls that wait.)
- An error of a NumPy run (a backend difference, or the user's error) is not the answer: the call
  waits for the compile, and the compiled code answers or raises, as without tiers.
- A compile that fails after the NumPy backend answered (Numba refuses something NumPy ran) leaves
  the NumPy backend answering every call, with one ``CompileTimeWarning`` saying why: a function that
  answered keeps answering. Without such an answer the compile's error is raised, as without tiers.
- ``jit`` (mode ``primal``) writes into its arguments as the caller's code would: its NumPy runs work
  on copies, and a copy that changed is written back into the caller's array once the run is done.
  A call passing the same memory twice (``f(x, x[1:])``) is answered by the compiled code.
- ``TRANSPYLE_TIERED=0`` switches tiers off: a first call compiles and waits, as before;
  ``wait_compiled()`` waits for the compiles running (to time compiled code, say).
- A compile still running after ``TRANSPYLE_COMPILE_NOTICE`` seconds (default 2; 0 or ``off``: never)
  prints one line to stderr saying what is being compiled.

The compile thread is quiet (``quiet_threads``): Numba's warnings and its ``catch_warnings`` would
otherwise reach, and undo, the warning state of the user's thread.
"""
import ast
import sys
import threading
import time
import warnings
import weakref

import numpy as np

from ..base.settings import switched_off
from .compile_time import CompileTimeWarning, seconds_setting, start
from .quiet_threads import quiet

#: seconds after which a running compile prints one line to stderr
NOTICE_SECONDS = 2.0
#: seconds of NumPy runs a tiered function may spend in all before its calls wait for the compile
STAND_IN_SECONDS = 30.0
#: the name of the check a NumPy run makes at the top of each loop iteration
CHECK_NAME = "_tier_check"

_RUNNING = weakref.WeakSet()       # the Tiered functions whose compile has not finished


def tiered():
    """Whether calls are tiered (``TRANSPYLE_TIERED``, on unless 0/false/no/off)."""
    return not switched_off("TRANSPYLE_TIERED")


def notice_seconds():
    """Seconds of compiling after which one line is printed, or None for never."""
    if switched_off("TRANSPYLE_COMPILE_NOTICE"):
        return None
    return seconds_setting("TRANSPYLE_COMPILE_NOTICE", NOTICE_SECONDS)


def stand_in_seconds():
    """Seconds of NumPy runs a tiered function may spend (``TRANSPYLE_TIER_SECONDS``)."""
    return seconds_setting("TRANSPYLE_TIER_SECONDS", STAND_IN_SECONDS)


def wait_compiled(timeout=None):
    """Wait until the Numba compiles started by tiered calls are done (at most ``timeout`` seconds);
    whether they are."""
    return all(tier.outcome.done.wait(timeout) for tier in list(_RUNNING))


def with_loop_checks(text):
    """Module ``text`` with a call of ``CHECK_NAME`` as the first statement of every loop body, and
    whether it has any loop. Lines are inserted, never changed: the source comments stay above the
    lines they describe."""
    loops = [node for node in ast.walk(ast.parse(text)) if isinstance(node, (ast.For, ast.While))]
    lines = text.split("\n")
    starts = sorted({(node.body[0].lineno, node.body[0].col_offset) for node in loops
                     if node.body[0].lineno > node.lineno}, reverse=True)
    for lineno, col in starts:
        lines.insert(lineno - 1, " " * col + f"{CHECK_NAME}()")
    return "\n".join(lines), bool(starts)


class _Switch(BaseException):
    """Raised in a NumPy run when the compiled code is ready (not an Exception: the run's own handlers
    never catch it)."""


def _copied(args):
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def _overlapping(args):
    """Whether two array arguments may share memory (their copies could not both be written back)."""
    arrays = [a for a in args if isinstance(a, np.ndarray)]
    return any(np.may_share_memory(a, b) for i, a in enumerate(arrays) for b in arrays[i + 1:])


def _written_back(args, copies):
    """The copies' contents put back into the caller's arrays where the run changed them."""
    for a, c in zip(args, copies):
        if isinstance(a, np.ndarray) and a.size and not np.array_equal(a, c, equal_nan=a.dtype.kind in "fc"):
            a[...] = c


def _no_check():
    pass


class _Notice:
    """One stderr line if the compile of ``what`` is still running after ``notice_seconds()``."""

    def __init__(self, outcome, what):
        seconds = notice_seconds()
        self.timer = None
        if seconds is not None:
            self.timer = threading.Timer(seconds, self._say, (outcome, what, seconds))
            self.timer.daemon = True
            self.timer.start()

    @staticmethod
    def _say(outcome, what, seconds):
        if not outcome.done.is_set():
            print(f"transpyle: Numba is compiling {what} ({seconds:g} s so far; the NumPy backend answers "
                  "meanwhile; TRANSPYLE_COMPILE_NOTICE=0 silences this)", file=sys.stderr, flush=True)

    def cancel(self):
        if self.timer is not None:
            self.timer.cancel()


def _quietly(compile_):
    def run():
        with quiet():
            return compile_()
    return run


class Tiered:
    """A function called as its compiled code would be, answered by NumPy until that code is ready.
    ``stand_in()`` returns (the NumPy backend's module, the function's name in it, whether the function
    has loops); ``compile_()`` returns the compiled function (it runs in a thread)."""

    def __init__(self, compile_, stand_in, what, where=None, writes_arguments=False):
        self.writes_arguments = writes_arguments      # jit: the NumPy run's writes reach the caller's arrays
        self.outcome = start(_quietly(compile_))
        self.notice = _Notice(self.outcome, what)
        self.stand_in = stand_in
        self.what = what
        self.where = where or (None, 0)
        self.numpy = None              # (module, function, stoppable) once built; False if it cannot be
        self.answered = False          # whether the NumPy backend has answered a call
        self.spent = 0.0               # seconds of NumPy runs so far
        self.deadline = 0.0            # when the NumPy run going on must stop
        self.run = self._compiling
        _RUNNING.add(self)

    def __call__(self, *args):
        return self.run(*args)

    def _check(self):
        if self.outcome.done.is_set() and self.outcome.error is None or time.perf_counter() > self.deadline:
            raise _Switch()

    def _compiling(self, *args):
        if not self.outcome.done.is_set():
            if self.numpy is None:
                try:
                    module, fname, stoppable = self.stand_in()
                    module.__dict__[CHECK_NAME] = self._check
                    self.numpy = (module, getattr(module, fname), stoppable)
                except Exception:     # noqa: BLE001 -- the NumPy backend cannot run it: the compiled code answers
                    self.numpy = False
            budget = stand_in_seconds() - self.spent
            if self.numpy and budget > 0 and not (self.writes_arguments and _overlapping(args)):
                module, function, stoppable = self.numpy
                copies = _copied(args) if stoppable or self.writes_arguments else args
                start = time.perf_counter()
                self.deadline = start + budget
                try:
                    out = function(*copies)
                    if self.writes_arguments:
                        _written_back(args, copies)
                except _Switch:
                    pass
                except Exception:     # noqa: BLE001 -- the compiled code answers or raises, as without tiers
                    pass
                else:
                    self.answered = True
                    return out
                finally:
                    self.spent += time.perf_counter() - start
        return self.compiled()(*args)

    def compiled(self):
        """The function that answers from now on, once the compile is done: the compiled one; or, if the
        compile failed after the NumPy backend answered, the NumPy one (with a warning)."""
        self.outcome.done.wait()
        self.notice.cancel()
        _RUNNING.discard(self)
        if self.outcome.error is None:
            self.run = self.outcome.value
        elif self.answered:
            module, function, _ = self.numpy
            module.__dict__[CHECK_NAME] = _no_check
            filename, lineno = self.where
            warnings.warn_explicit(f"Numba could not compile {self.what}; the NumPy backend answers its calls "
                                   f"instead: {self.outcome.error}", CompileTimeWarning, filename or "<unknown>",
                                   lineno or 0)
            self.run = function
        else:
            raise self.outcome.error
        return self.run
