"""Memory budgets of reverse mode: ``grad(f, memory="1GB")`` and the ``TRANSPYLE_MEMORY`` default, read as
bytes. A budget makes reverse mode checkpoint its outermost loops (``transforms/checkpoint_loops``)."""
import os
import re

from .errors import TranspileError

_UNITS = {"": 1, "b": 1, "k": 10 ** 3, "kb": 10 ** 3, "m": 10 ** 6, "mb": 10 ** 6, "g": 10 ** 9, "gb": 10 ** 9,
          "t": 10 ** 12, "tb": 10 ** 12, "kib": 2 ** 10, "mib": 2 ** 20, "gib": 2 ** 30, "tib": 2 ** 40}
_SIZE = re.compile(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([a-zA-Z]*)\s*")


def parse_budget(value, where="memory"):
    """``value`` (a number of bytes, or a string such as ``"1GB"``, ``"512 MiB"``, ``"2e9"``) as an int
    number of bytes; None stays None (no budget)."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise TranspileError(f"{where}={value!r} is not a size", hint='give bytes, or a string such as "1GB"')
    if isinstance(value, (int, float)):
        size = value
    elif isinstance(value, str):
        match = _SIZE.fullmatch(value)
        unit = match.group(2).lower() if match else None
        if match is None or unit not in _UNITS:
            raise TranspileError(f"{where}={value!r} is not a size",
                                 hint='write a number of bytes with a unit: "800MB", "1GB", "2GiB"')
        size = float(match.group(1)) * _UNITS[unit]
    else:
        raise TranspileError(f"{where}={value!r} is not a size", hint='give bytes, or a string such as "1GB"')
    if not size > 0:
        raise TranspileError(f"{where}={value!r} is not a positive size", hint="give a budget above zero")
    return int(size)


def budget(value=None):
    """The budget a transform runs under: ``value`` if given, else ``TRANSPYLE_MEMORY`` (unset or empty:
    None, no checkpointing)."""
    if value is not None:
        return parse_budget(value)
    env = os.environ.get("TRANSPYLE_MEMORY", "").strip()
    return parse_budget(env, "TRANSPYLE_MEMORY") if env else None


def readable(size):
    """``size`` bytes as a short text (``1.0 GB``)."""
    for unit, scale in (("GB", 10 ** 9), ("MB", 10 ** 6), ("kB", 10 ** 3)):
        if size >= scale:
            return f"{size / scale:.3g} {unit}"
    return f"{size} B"
