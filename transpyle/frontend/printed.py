"""printed: what ``print`` shows in compiled code. Numba prints strings and numbers but formats no string
(``str.format``, f-strings), so a formatted message becomes its pieces, printed one after the other:
``print(f"step {k}: {err:.2e}")`` is ``print("step", k, ":", err)``. The numbers print as Numba writes
them (format specs and conversions are not applied); the text around them is kept, trimmed of the
spaces that ``print`` puts between its arguments itself.
"""
import string

import gast

from ..base.ast_utils import const


def pieces(args):
    """The arguments of ``print(*args)`` with formatted strings split into text and values."""
    out = []
    for a in args:
        split = _joined(a) if isinstance(a, gast.JoinedStr) else _formatted(a)
        out.extend(split if split is not None else [a])
    return [p for p in out if not (isinstance(p, gast.Constant) and p.value == "")]


def _text(chunk):
    return const(chunk.strip())


def _joined(node):
    """An f-string: its constant parts and the values of its fields."""
    out = []
    for part in node.values:
        if isinstance(part, gast.Constant):
            out.append(_text(part.value))
        elif isinstance(part, gast.FormattedValue):
            out.append(part.value)
        else:
            return None
    return out


def _formatted(node):
    """``"...".format(...)`` with automatic, numbered or named fields, else None."""
    if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and node.func.attr == "format"
            and isinstance(node.func.value, gast.Constant) and isinstance(node.func.value.value, str)):
        return None
    named = {kw.arg: kw.value for kw in node.keywords if kw.arg is not None}
    out, auto = [], 0
    try:
        fields = list(string.Formatter().parse(node.func.value.value))
    except ValueError:
        return None
    for text, field, _spec, _conversion in fields:
        if text:
            out.append(_text(text))
        if field is None:
            continue
        if field == "":
            if auto >= len(node.args):
                return None
            out.append(node.args[auto])
            auto += 1
        elif field.isdigit() and int(field) < len(node.args):
            out.append(node.args[int(field)])
        elif field in named:
            out.append(named[field])
        else:
            return None             # an attribute or item of an argument ({0.x}, {p[1]}): left as written
    return out
