"""The values the body of a function is run over when its arguments' kinds are read from it
(``argument_uses``): a rank and the arguments it follows (``Val``), what is known of each argument
(``Evidence``), a function being run (``Frame``), and how operations combine values."""
import inspect
import os
from dataclasses import dataclass, replace

import gast
import numpy as np

from ..base.arrays import library_object
from ..base.ast_utils import dotted, expr_source


@dataclass(frozen=True)
class Val:
    """The abstract value of an expression."""
    rank: object = None          # an int, or None where unknown
    links: tuple = ()            # ((argument, offset), ...): this rank is the argument's + offset
    number: bool = False         # a number whatever the arguments are (a literal, a math result)
    items: object = None         # the items of a tuple
    shape_of: object = None      # x.shape: the value of x
    func: object = None          # a function passed as a value


UNKNOWN = Val()
NUMBER = Val(0, number=True)


@dataclass
class Evidence:
    """What the body says about one argument (see the module docstring)."""
    hard: int = 0                # the least rank its uses need
    soft: int = 0                # the least rank of the array it is added to (yields to a number use)
    upper: object = None         # the most rank its uses allow
    open_at: object = None       # the rank at which a higher one fits as well (linear algebra)
    integer: str = ""
    boolean: str = ""
    arithmetic: str = ""
    key: str = ""                # a key of transpyle.random (an integer array of shape (2,))
    lower_why: str = ""
    upper_why: str = ""
    open_why: str = ""

    @property
    def lower(self):
        if self.upper is not None and self.soft > self.upper:
            return self.hard
        return max(self.hard, self.soft)

    @property
    def open(self):
        return self.open_at is not None and self.open_at >= self.lower and \
            (self.upper is None or self.upper > self.lower)


class Conflict(Exception):
    """An argument used as a number in one place and as an array in another."""

    def __init__(self, argument, evidence):
        super().__init__(argument)
        self.argument, self.evidence = argument, evidence


def where(node, filename):
    line = getattr(node, "lineno", None)
    try:
        text = expr_source(node)
    except Exception:           # a node the printer does not take alone
        text = type(node).__name__
    return f"{text} ({os.path.basename(filename)}:{line})" if line else text


class Frame:
    """One function being run over ranks: its names' values, its namespace and where it returned."""

    def __init__(self, unit, env):
        self.unit, self.tree, self.filename = unit, unit.tree, unit.filename
        self.env = dict(env)
        self.returned = None

    def lookup(self, name):
        return self.unit.lookup(name)

    def resolve(self, node):
        """The object a dotted name refers to in the function's namespace, or None."""
        path = dotted(node)
        if path is None:
            return None
        head, *rest = path.split(".")
        found, obj = self.lookup(head)
        if not found:
            return None
        for part in rest:
            obj = getattr(obj, part, None)
            if obj is None:
                return None
        return library_object(obj)


def constant(value):
    """The value of a name the function reads from its module (or a closure)."""
    if isinstance(value, (bool, int, float, complex, np.number)):
        return NUMBER
    if isinstance(value, np.ndarray):
        return Val(value.ndim, number=value.ndim == 0)
    if isinstance(value, tuple) and all(isinstance(v, (int, float)) for v in value):
        return Val(items=(NUMBER,) * len(value))
    if callable(value) or inspect.ismodule(value):
        return Val(func=value)
    return UNKNOWN


def index_elts(key):
    return key.elts if isinstance(key, gast.Tuple) else [key]


def shifted(val, by):
    """The value ``by`` ranks above (below, negative) ``val``, linked to the same arguments."""
    return Val(None if val.rank is None else max(val.rank + by, 0),
               tuple((arg, off + by) for arg, off in val.links))


def widest(vals, links=True):
    """An elementwise result: the largest rank; linked to an operand when every other one is a number."""
    vals = [v for v in vals if v.func is None]
    if not vals or any(v.rank is None for v in vals):
        return UNKNOWN
    rank = max(v.rank for v in vals)
    linked = [v for v in vals if not v.number]
    if links and len(linked) == 1:
        return replace(linked[0], number=False)
    return Val(rank, number=all(v.number for v in vals))


def joined(vals):
    return widest(list(vals), links=False) if vals else UNKNOWN
