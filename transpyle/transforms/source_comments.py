"""Comments that tie generated code to the user's source (``# file.py:12: <the line>``), for the last
pass (``tidy``): a function whose passes wrote none (the primal, a vmapped or array-lifted function)
gets one before the statements of each source line; a comment whose statements were all removed, or
that has none under it, is dropped."""
import linecache
import os
import re

import gast

from ..base.ast_utils import COMMENT_MARK, comment, is_comment
from ..base.context import place

SOURCE_COMMENT = re.compile(re.escape(COMMENT_MARK) + r"\S+:\d+: ")


def has_source_comments(fn):
    return any(is_comment(s) and SOURCE_COMMENT.match(s.value.value) for s in gast.walk(fn)
               if isinstance(s, gast.Expr))


def commented(stmts, ctx, last):
    """``stmts`` with ``# file.py:12: <line>`` before the first statement of each source line
    (``last`` holds the place commented last, across nested blocks)."""
    out = []
    for s in stmts:
        if is_comment(s) or isinstance(s, gast.Pass):
            out.append(s)
            continue
        path, line = place(s, ctx.filename)
        own = ctx.source.tree
        end = getattr(own, "end_lineno", None) or 0        # generated code read back: its def's line only
        if path == ctx.filename and not own.lineno < (line or 0) <= (end if end > own.lineno else line):
            line = None                 # a statement the passes made, placed outside the function's lines
        if line and (path, line) != last[0]:
            text = linecache.getline(path, line).strip()
            if text:
                out.append(comment(f"{os.path.basename(path)}:{line}: {text}"))
            last[0] = (path, line)
        for field in ("body", "orelse"):
            if isinstance(s, (gast.For, gast.While, gast.If)):
                setattr(s, field, commented(getattr(s, field), ctx, last))
        out.append(s)
    return out


def comment_groups(stmts, groups, ctx):
    """{id of a source comment: ids of the statements it labels}: those under it (up to the next
    comment) that come from its line, or all of them where none says where it comes from."""
    current, line, under, own = None, None, [], []

    def close():
        if current is not None:
            groups[current] = set(own or under)
    for s in stmts:
        if is_comment(s):
            close()
            current, under, own = None, [], []
            if SOURCE_COMMENT.match(s.value.value):
                current = id(s)
                file_name, number = s.value.value[len(COMMENT_MARK):].split(":")[:2]
                line = (file_name, int(number))
            continue
        if current is not None:
            if not isinstance(s, gast.Return):          # the end of the function, not this line's
                under.append(id(s))
            path, number = place(s, ctx.filename)
            if path and number and (os.path.basename(path), number) == line:
                own.append(id(s))
        if isinstance(s, (gast.For, gast.While, gast.If)):
            comment_groups(s.body, groups, ctx)
            comment_groups(s.orelse, groups, ctx)
    close()
    return groups


def without_dangling_comments(stmts, emptied):
    """Source comments whose statements were all removed (``emptied``), or with none under them, left out."""
    out = []
    for i, s in enumerate(stmts):
        if isinstance(s, (gast.For, gast.While, gast.If)):
            s.body = without_dangling_comments(s.body, emptied) or [gast.Pass()]
            s.orelse = without_dangling_comments(s.orelse, emptied)
        if is_comment(s) and SOURCE_COMMENT.match(s.value.value):
            following = stmts[i + 1] if i + 1 < len(stmts) else None
            if id(s) in emptied or following is None or is_comment(following) or isinstance(following, gast.Pass):
                continue
        out.append(s)
    return out
