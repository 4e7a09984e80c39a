"""Generated modules: named by a digest of their text, kept in the cache folder, run from that text.

A module's file name is derived from a digest of its own text (which already reflects the
source of the function and every helper it reaches, the transform, its options, the argument
kinds and the transpyle version), so editing a helper gives a new module. The module is put
in ``sys.modules`` under a name derived from the same digest before it runs, which is what lets
Numba's disk cache (``numba_cache``) find its compiled code again in a new process.

The module always runs from the text just generated, never from what the disk holds: the file is
written (atomically, when missing or different) for Numba's cache, for tracebacks and for reading.
When the cache folder cannot be used (``cache_folder``: read-only, full, shared, no home folder)
the module is compiled in memory under the name ``<transpyle KEY>``, which tracebacks still show.
"""
import hashlib
import linecache
import os
import sys
import types

from ..base.atomic_files import same_text, write_atomic
from ..base.version import __version__
from . import cache_folder


def _runtime_digest():
    """The run-time helpers are compiled into every generated function (Numba inlines them), so a
    change to them must give new module names, or Numba's on-disk cache would serve old code."""
    global _RUNTIME
    if _RUNTIME is None:
        from .. import runtime
        digest = hashlib.sha256()
        for module in runtime.MODULES:
            with open(module.__file__, "rb") as fh:
                digest.update(fh.read())
        _RUNTIME = digest.hexdigest()
    return _RUNTIME


_RUNTIME = None


def module_key(text, stem):
    digest = hashlib.sha256((__version__ + "\0" + _runtime_digest() + "\0" + text).encode()).hexdigest()[:20]
    safe = "".join(c if c.isalnum() else "_" for c in stem)[:40]
    return f"tp_{safe}_{digest}"


def _stored(text, key):
    """The path of the cache folder's file holding ``text`` (written when missing or different), or
    None when the folder is not used; the folder, or None."""
    folder = cache_folder.current()
    if not folder.usable:
        return None, None
    path = os.path.join(folder.path, key + ".py")
    if same_text(path, text):
        cache_folder.mark_used(path)
        return path, folder
    try:
        write_atomic(path, text)
    except OSError as exc:
        folder.give_up(exc)
        return None, None
    folder.after_write(key)
    return path, folder


def load_module(text, stem):
    """The generated module with source ``text``, run from that text; its file in the cache folder
    is written (or repaired) first when the folder is used."""
    key = module_key(text, stem)
    if key in sys.modules and getattr(sys.modules[key], "__transpyle_text__", None) == text:
        return sys.modules[key]
    path, folder = _stored(text, key)
    filename = path or f"<transpyle {key}>"
    if path is None:             # tracebacks and inspect read the lines from here
        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    code = compile(text, filename, "exec")
    module = types.ModuleType(key)
    module.__file__ = filename
    module.__transpyle_folder__ = folder        # where Numba may keep its compiled code (numba_cache)
    sys.modules[key] = module
    try:
        exec(code, module.__dict__)
    except BaseException:
        del sys.modules[key]
        raise
    module.__transpyle_text__ = text
    return module
