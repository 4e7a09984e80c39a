"""The on-disk cache of generated modules: real files, atomically written, imported by stable names.

A module's file name is derived from a digest of its own text (which already reflects the
source of the function and every helper it reaches, the transform, its options, the argument
kinds and the transpyle version), so editing a helper gives a new module. The module is put
in ``sys.modules`` under a name derived from the same digest before it runs, which is what lets
Numba's ``cache=True`` find its compiled code again in a new process.
"""
import hashlib
import importlib.util
import os
import sys
import tempfile

from ..base.version import __version__


def cache_dir():
    path = os.environ.get("TRANSPYLE_CACHE_DIR")
    if not path:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        path = os.path.join(base, "transpyle")
    os.makedirs(path, exist_ok=True)
    return path


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


def _write_atomic(path, text):
    folder = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp_", suffix=".py")
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _read(path):
    try:
        with open(path) as fh:
            return fh.read()
    except (OSError, UnicodeDecodeError):
        return None


def load_module(text, stem):
    """Import the generated module with source ``text``, writing (or repairing) its file first."""
    key = module_key(text, stem)
    if key in sys.modules and getattr(sys.modules[key], "__transpyle_text__", None) == text:
        return sys.modules[key]
    path = os.path.join(cache_dir(), key + ".py")
    if _read(path) != text:           # missing, or corrupt: regenerate
        _write_atomic(path, text)
    spec = importlib.util.spec_from_file_location(key, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[key] = module
    try:
        spec.loader.exec_module(module)
    except Exception:
        del sys.modules[key]
        raise
    module.__transpyle_text__ = text
    return module
