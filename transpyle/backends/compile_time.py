"""How long a Numba compile of generated code may take: the LLVM optimization level it is compiled
at, and the guard that warns when a compile runs long (and, for ``backend="auto"``, answers with
the NumPy backend until the compile is done).

Optimization level. Numba optimizes at LLVM's -O3 unless ``NUMBA_OPT`` says otherwise. Generated
gradients are long functions of small array loops, each with a broadcasting test per operand and
dimension; -O3's non-trivial loop unswitching copies such a loop once per combination of those
tests, which is what made a 3-D stencil's gradient compile for more than ten minutes. -O2 leaves
that out (and runs the other passes). A function so long that even -O2's per-function passes grow
faster than its length (SROA over a thousand statements took minutes) is compiled at -O0: its warm
run is a few times slower, its compile takes seconds instead of many minutes; where its element loops
are functions of their own (``transforms/outline_loops``), those are compiled at -O2 when the long
function's compile reaches them (``outlined_loops_level``), and only the long function is not
optimized. The level is chosen
per generated module, only where the user has not set ``NUMBA_OPT``; ``TRANSPYLE_NUMBA_OPT``
forces one for generated code.

Guard. A compile that has run ``TRANSPYLE_COMPILE_WARN`` seconds (default ``COMPILE_WARN_SECONDS``)
emits a ``CompileTimeWarning`` at the user's function (file and line), and keeps going.
"""
import contextlib
import os
import re
import threading
import warnings

from ..base.code_size import LONG_FUNCTION_STATEMENTS, statements
from ..base.naming import OUTLINED_CALL

#: seconds after which a compile warns (``TRANSPYLE_COMPILE_WARN`` overrides it)
COMPILE_WARN_SECONDS = 30.0
#: the level for shorter generated code
DEFAULT_OPT = 2


class CompileTimeWarning(UserWarning):
    """A compile of generated code has run longer than ``TRANSPYLE_COMPILE_WARN`` seconds."""


def seconds_setting(variable, default):
    """The seconds the environment ``variable`` gives, else ``default`` (unset or not a number)."""
    value = os.environ.get(variable)
    try:
        return float(value) if value else default
    except ValueError:
        return default


def warn_seconds():
    """The compile time after which a warning is emitted."""
    return seconds_setting("TRANSPYLE_COMPILE_WARN", COMPILE_WARN_SECONDS)


def opt_level_for(text):
    """The LLVM optimization level for a generated module with source ``text``, or None to leave
    Numba's own setting (the user set ``NUMBA_OPT``)."""
    forced = _forced_level()
    if forced is not None:
        return forced
    if "NUMBA_OPT" in os.environ:
        return None
    if OUTLINED_CALL.search(text) or statements(text) > LONG_FUNCTION_STATEMENTS:
        return 0
    return DEFAULT_OPT


def outlined_loops_level():
    """The LLVM level of the element loops of a long function, compiled as functions of their own
    (``transforms/outline_loops``) while the function itself is compiled at -O0; None to leave Numba's
    own setting (the user set ``NUMBA_OPT``)."""
    forced = _forced_level()
    if forced is not None:
        return forced
    return None if "NUMBA_OPT" in os.environ else DEFAULT_OPT


def _forced_level():
    """The level ``TRANSPYLE_NUMBA_OPT`` forces for generated code, or None."""
    forced = os.environ.get("TRANSPYLE_NUMBA_OPT")
    return int(forced) if forced and re.fullmatch(r"[0-3]", forced.strip()) else None


@contextlib.contextmanager
def optimization(level):
    """Numba compiles at LLVM level ``level`` inside the block (nothing changes for None). Numba reads
    ``config.OPT`` each time it builds its pass pipelines; the compiler lock is held so that no
    other thread's compile runs at this level."""
    if level is None:
        yield
        return
    from numba.core import config
    from numba.core.compiler_lock import global_compiler_lock
    with global_compiler_lock:
        saved = config.OPT
        config.OPT = config._OptLevel(level)
        try:
            yield
        finally:
            config.OPT = saved


class _Outcome:
    """What a compile running in a thread produced: its value or its exception."""

    def __init__(self):
        self.done = threading.Event()
        self.value = None
        self.error = None


def start(compile_):
    """Run ``compile_()`` in a daemon thread; returns its ``_Outcome``."""
    outcome = _Outcome()

    def run():
        try:
            outcome.value = compile_()
        except BaseException as exc:      # handed to the caller's thread
            outcome.error = exc
        finally:
            outcome.done.set()
    threading.Thread(target=run, name="transpyle-compile", daemon=True).start()
    return outcome


def slow_warning(where, seconds, falling_back):
    """Warn that the compile of ``where`` (name, file, line) has taken ``seconds`` so far."""
    name, filename, lineno = where
    place = f" ({filename}:{lineno})" if filename else ""
    then = ("answering with the NumPy backend until it is done" if falling_back else
            "still compiling; backend='auto' answers with the NumPy backend meanwhile")
    warnings.warn_explicit(
        f"Numba has been compiling the generated code of '{name}'{place} for {seconds:g} s; {then} "
        "(TRANSPYLE_COMPILE_WARN sets this threshold)", CompileTimeWarning, filename or "<unknown>", lineno or 0)


def compile_guarded(compile_, where, fallback=None):
    """The result of ``compile_()``, warning at ``where`` when it runs past ``warn_seconds()``.
    Without ``fallback`` the compile runs in this thread and a timer thread warns. With
    ``fallback`` (a function returning a callable) it runs in a thread of its own: one not done in
    time is left running, and the result is a callable that runs ``fallback()``'s callable until
    it is done."""
    seconds = warn_seconds()
    if fallback is None:
        timer = threading.Timer(seconds, slow_warning, (where, seconds, False))
        timer.daemon = True
        timer.start()
        try:
            return compile_()
        finally:
            timer.cancel()
    outcome = start(compile_)
    if not outcome.done.wait(seconds):
        slow_warning(where, seconds, True)
        return Pending(outcome, fallback(), where)
    if outcome.error is not None:
        raise outcome.error
    return outcome.value


class Pending:
    """A compiled function still compiling: calls run the stand-in until the compile is done."""

    def __init__(self, outcome, stand_in, where):
        self.outcome = outcome
        self.stand_in = stand_in
        self.where = where
        self.failed_reported = False

    def __call__(self, *args):
        outcome = self.outcome
        if outcome.done.is_set():
            if outcome.error is None:
                return outcome.value(*args)
            if not self.failed_reported:       # the stand-in's answers stay right; say once why
                self.failed_reported = True
                name, filename, lineno = self.where
                warnings.warn_explicit(f"the Numba compile of '{name}' failed ({outcome.error}); the NumPy "
                                       "backend answers instead", CompileTimeWarning, filename or "<unknown>",
                                       lineno or 0)
        return self.stand_in(*args)
