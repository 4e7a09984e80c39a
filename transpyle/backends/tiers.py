"""Tiered first calls: the NumPy backend answers a function's first call while Numba compiles it.

A Numba compile of generated code takes seconds (a Hessian of a small network, ten); the same code
run by the NumPy backend needs no compile. So the first call of a transform, per argument kinds,
starts the Numba compile in a thread and answers with the NumPy backend at once; every later call
runs the compiled code, waiting for the compile to finish where it has not. The switch is exact:
one call is answered by NumPy, the others by Numba, and both compute the same derivative.

- The NumPy run stops at the next loop iteration once the compile is done, and the compiled code
  answers instead: a first call never takes much longer than the compile would have. Its array
  arguments are copies then, so that a run stopped half way leaves the caller's arrays as they were.
- An error of the NumPy run (a backend difference, or the user's error) is not the answer: the call
  waits for the compile and the compiled code answers or raises, as without tiers.
- ``jit`` (mode ``primal``) is not tiered: its writes into its arguments must reach the caller's arrays.
- ``TRANSPYLE_TIERED=0`` switches tiers off: the first call compiles and waits, as before.
- A compile still running after ``TRANSPYLE_COMPILE_NOTICE`` seconds (default 2; 0 or ``off``: never)
  prints one line to stderr saying what is being compiled.
"""
import ast
import os
import sys
import threading

from .compile_time import start

#: seconds after which a running compile prints one line to stderr
NOTICE_SECONDS = 2.0
#: the name of the check the NumPy run makes at the top of each loop iteration
CHECK_NAME = "_tier_check"


def tiered():
    """Whether first calls are tiered (``TRANSPYLE_TIERED``, on unless 0/false/no/off)."""
    return (os.environ.get("TRANSPYLE_TIERED") or "1").strip().lower() not in ("0", "false", "no", "off")


def notice_seconds():
    """Seconds of compiling after which one line is printed, or None for never."""
    value = (os.environ.get("TRANSPYLE_COMPILE_NOTICE") or "").strip().lower()
    if value in ("0", "off", "no", "false"):
        return None
    try:
        return float(value) if value else NOTICE_SECONDS
    except ValueError:
        return NOTICE_SECONDS


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
    """Raised in the NumPy run when the compiled code is ready (not an Exception: the run's own
    handlers never catch it)."""


def _copied(args):
    return tuple(a.copy() if hasattr(a, "copy") and hasattr(a, "shape") else a for a in args)


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
                  "the first call; TRANSPYLE_COMPILE_NOTICE=0 silences this)", file=sys.stderr, flush=True)


class Tiered:
    """A function whose Numba compile runs in a thread: called as the compiled function would be.
    ``stand_in()`` returns (the NumPy backend's module, the function's name in it) for the first call."""

    def __init__(self, compile_, stand_in, what):
        self.outcome = start(compile_)
        self.notice = _Notice(self.outcome, what)
        self.stand_in = stand_in
        self.run = self._first

    def __call__(self, *args):
        return self.run(*args)

    def compiled(self):
        """The compiled function, once the compile is done (raising its error if it failed)."""
        self.outcome.done.wait()
        if self.notice.timer is not None:
            self.notice.timer.cancel()
        if self.outcome.error is not None:
            raise self.outcome.error
        self.run = self.outcome.value
        return self.run

    def _check(self):
        if self.outcome.done.is_set() and self.outcome.error is None:
            raise _Switch()

    def _first(self, *args):
        self.run = self._later
        if not self.outcome.done.is_set():
            try:
                module, fname, stoppable = self.stand_in()
                module.__dict__[CHECK_NAME] = self._check
                return getattr(module, fname)(*(_copied(args) if stoppable else args))
            except _Switch:
                pass
            except Exception:        # noqa: BLE001 -- the compiled code answers or raises, as without tiers
                pass
        return self.compiled()(*args)

    def _later(self, *args):
        return self.compiled()(*args)
