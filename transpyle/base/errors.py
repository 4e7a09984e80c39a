"""Errors raised to users: every one names the user's file, line and construct, with a hint."""


class TranspileError(Exception):
    """A function (or a call to a transform) is outside what transpyle accepts.

    The message reads ``file.py:12: <construct>: <what is wrong>`` followed by a
    ``hint:`` line, so the user sees where to look and what to do first.
    """

    def __init__(self, message, filename=None, lineno=None, construct=None, hint=None, stage=None):
        self.message = message
        self.filename = filename
        self.lineno = lineno
        self.construct = construct
        self.hint = hint
        self.stage = stage
        super().__init__(message)

    def __str__(self):
        # formatted when read, not when raised: the pipeline names the failing pass (``stage``) after
        # the pass that raised the error built it
        return self._format()

    def _format(self):
        where = ""
        if self.filename:
            where = f"{self.filename}:{self.lineno}: " if self.lineno else f"{self.filename}: "
        what = f"{self.construct}: " if self.construct else ""
        text = f"{where}{what}{self.message}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        if self.stage:
            text += f"\n  (in transpyle pass '{self.stage}')"
        return text
