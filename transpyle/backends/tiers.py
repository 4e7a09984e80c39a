"""Tiered first calls: the NumPy backend answers a function's first call; Numba compiles at the second.

A Numba compile of generated code takes seconds (a Hessian of a small network, ten); the same code
run by the NumPy backend needs none. So the first call of a transform, per argument kinds, is
answered by the NumPy backend, and the second call compiles with Numba and runs the compiled code,
as every later call does. One call is answered by NumPy, the others by Numba; both compute the same
derivative. A function Numba compiled before (its code is in the disk cache) is not tiered: loading
it takes a fraction of a second.

- The NumPy run is bounded: at the top of each loop iteration it checks the time, and once it has
  run ``TRANSPYLE_TIER_SECONDS`` (default 1 s) it stops, and the call compiles and answers with the
  compiled code instead. A first call never takes much longer than the compile would have. Its array
  arguments are copies then, so that a run stopped half way leaves the caller's arrays as they were.
- An error of the NumPy run (a backend difference, or the user's error) is not the answer: the call
  compiles and the compiled code answers or raises, as without tiers.
- A compile that fails after the NumPy run answered (Numba refuses something NumPy ran) leaves the
  NumPy backend answering every call, with one ``CompileTimeWarning`` saying why: a function that
  answered once keeps answering. Without that answer the compile error is raised, as without tiers.
- ``jit`` (mode ``primal``) is not tiered: its writes into its arguments must reach the caller's arrays.
- ``TRANSPYLE_TIERED=0`` switches tiers off: the first call compiles, as before.
- A compile still running after ``TRANSPYLE_COMPILE_NOTICE`` seconds (default 2; 0 or ``off``: never)
  prints one line to stderr saying what is being compiled.

The compile runs in the calling thread, at the second call, not in a thread started by the first:
Numba's compiler enters ``warnings.catch_warnings``, which swaps process-wide state, so a compile left
running beside the caller's code could undo the caller's own warning filters (a test's capture of
warnings, for one), and it would compete with the caller for the interpreter lock.
"""
import ast
import os
import sys
import threading
import time
import warnings

from .compile_time import CompileTimeWarning

#: seconds after which a running compile prints one line to stderr
NOTICE_SECONDS = 2.0
#: seconds the NumPy backend may run a first call before the call compiles instead
STAND_IN_SECONDS = 1.0
#: the name of the check the NumPy run makes at the top of each loop iteration
CHECK_NAME = "_tier_check"


def _seconds(variable, default, none=("0", "off", "no", "false")):
    value = (os.environ.get(variable) or "").strip().lower()
    if none and value in none:
        return None
    try:
        return float(value) if value else default
    except ValueError:
        return default


def tiered():
    """Whether first calls are tiered (``TRANSPYLE_TIERED``, on unless 0/false/no/off)."""
    return (os.environ.get("TRANSPYLE_TIERED") or "1").strip().lower() not in ("0", "false", "no", "off")


def notice_seconds():
    """Seconds of compiling after which one line is printed, or None for never."""
    return _seconds("TRANSPYLE_COMPILE_NOTICE", NOTICE_SECONDS)


def stand_in_seconds():
    """Seconds the NumPy backend may run a first call (``TRANSPYLE_TIER_SECONDS``)."""
    return _seconds("TRANSPYLE_TIER_SECONDS", STAND_IN_SECONDS, none=())


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
    """Raised in the NumPy run when its time is up (not an Exception: the run's own handlers never
    catch it)."""


def _copied(args):
    return tuple(a.copy() if hasattr(a, "copy") and hasattr(a, "shape") else a for a in args)


def _no_check():
    pass


def _deadline_check(seconds):
    deadline = time.perf_counter() + seconds

    def check():
        if time.perf_counter() > deadline:
            raise _Switch()
    return check


class _Notice:
    """One stderr line if the compile of ``what`` runs longer than ``notice_seconds()``."""

    def __init__(self, what):
        seconds = notice_seconds()
        self.timer = None
        if seconds is not None:
            self.timer = threading.Timer(seconds, self._say, (what, seconds))
            self.timer.daemon = True
            self.timer.start()

    @staticmethod
    def _say(what, seconds):
        print(f"transpyle: Numba is compiling {what} ({seconds:g} s so far; TRANSPYLE_COMPILE_NOTICE=0 "
              "silences this)", file=sys.stderr, flush=True)

    def done(self):
        if self.timer is not None:
            self.timer.cancel()


class Tiered:
    """A function called as its compiled code would be: ``stand_in()`` returns (the NumPy backend's
    module, the function's name in it, whether the function has loops) for the first call, and
    ``compile_()`` the compiled function at the call that needs it."""

    def __init__(self, compile_, stand_in, what, where=None):
        self.compile_ = compile_
        self.stand_in = stand_in
        self.what = what
        self.where = where or (None, 0)
        self.answered = None          # the NumPy backend's function, once it has answered a call
        self.run = self._first

    def __call__(self, *args):
        return self.run(*args)

    def compiled(self):
        """The function that answers from now on: the compiled one (raising the compile's error, unless
        the NumPy backend answered before: then it goes on answering, with a warning)."""
        notice = _Notice(self.what)
        try:
            self.run = self.compile_()
        except Exception as exc:
            if self.answered is None:
                raise
            filename, lineno = self.where
            warnings.warn_explicit(f"Numba could not compile {self.what}; the NumPy backend answers its calls "
                                   f"instead: {exc}", CompileTimeWarning, filename or "<unknown>", lineno or 0)
            self.answered.__globals__[CHECK_NAME] = _no_check
            self.run = self.answered
        finally:
            notice.done()
        return self.run

    def _first(self, *args):
        self.run = self._later
        try:
            module, fname, stoppable = self.stand_in()
            module.__dict__[CHECK_NAME] = _deadline_check(stand_in_seconds())
            function = getattr(module, fname)
            out = function(*(_copied(args) if stoppable else args))
        except _Switch:
            pass
        except Exception:            # noqa: BLE001 -- the compiled code answers or raises, as without tiers
            pass
        else:
            self.answered = function
            return out
        return self.compiled()(*args)

    def _later(self, *args):
        return self.compiled()(*args)
