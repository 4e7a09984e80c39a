"""Numba's disk cache for generated functions: kept in transpyle's cache folder, and unable to
stop a computation.

``njit(cache=True)`` looks for a writable folder in several places (``NUMBA_CACHE_DIR``, the module's
``__pycache__``, ``~/.cache/numba``), and raises from its cache writer when the disk is full or
read-only. A generated function's dispatcher gets ``FolderCache`` instead:

- its files go only to ``__pycache__`` next to the generated module, inside the cache folder whose
  safety ``cache_folder`` checked; a module compiled in memory has no disk cache at all;
- index and data files start with a SHA-256 digest of the rest: a truncated or damaged file is a
  miss, and the compile that follows rewrites it. An entry loaded must be for the signature asked;
- reads hold the folder's shared lock and writes its exclusive one, so two processes compiling the
  same function at once cannot pair one's index with the other's data;
- a write that fails (full disk, read-only, no permission) warns once and stops disk caching in
  this process; the code just compiled is used.
"""
import hashlib
import pickle

import numba
from numba.core import caching, sigutils


class _Damaged(Exception):
    """A cache file whose digest does not match its content."""


def _checked(raw):
    digest, data = raw[:32], raw[32:]
    if len(digest) < 32 or hashlib.sha256(data).digest() != digest:
        raise _Damaged()
    return pickle.loads(data)


class _InFolderImpl(caching.CompileResultCacheImpl):
    _locator_classes = [caching.InTreeCacheLocator]


class _CheckedFiles(caching.IndexDataCacheFile):
    """Numba's index and data files, each with a digest of its pickled content in front."""

    def _dump(self, obj):
        data = super()._dump(obj)
        return hashlib.sha256(data).digest() + data

    def _load_index(self):
        try:
            with open(self._index_path, "rb") as fh:
                version = pickle.load(fh)
                raw = fh.read()
        except FileNotFoundError:
            return {}
        if version != self._version:
            return {}
        stamp, overloads = _checked(raw)
        return overloads if stamp == self._source_stamp else {}

    def _load_data(self, name):
        with open(self._data_path(name), "rb") as fh:
            return _checked(fh.read())

    def save(self, key, data):
        try:
            self._load_index()
        except Exception:            # a damaged index is started afresh
            self.flush()
        super().save(key, data)


class FolderCache(caching.FunctionCache):
    """The disk cache of one generated function, in ``folder`` (a ``cache_folder.CacheFolder``)."""

    _impl_class = _InFolderImpl

    def __init__(self, py_func, folder):
        super().__init__(py_func)
        self._folder = folder
        plain = self._cache_file
        self._cache_file = _CheckedFiles(plain._cache_path, self._impl.filename_base, plain._source_stamp)

    def load_overload(self, sig, target_context):
        if not self._folder.usable:
            return None
        try:
            with self._folder.locked(exclusive=False):
                cres = super().load_overload(sig, target_context)
        except Exception:            # damaged or unreadable: compiled afresh, and the save replaces it
            return None
        if cres is not None and tuple(cres.signature.args) != tuple(sigutils.normalize_signature(sig)[0]):
            return None
        return cres

    def save_overload(self, sig, data):
        if not self._folder.usable:
            return
        try:
            with self._folder.locked(exclusive=True):
                super().save_overload(sig, data)
        except OSError as exc:
            self._folder.give_up(exc)
        except Exception:            # a compile result that cannot be pickled is not kept
            pass


def cached_njit(module, **options):
    """``numba.njit(**options)`` for a function of the generated ``module``, with its disk cache in
    the cache folder when the module is kept there (``module.__transpyle_folder__``)."""
    def decorate(py_func):
        dispatcher = numba.njit(cache=False, **options)(py_func)
        folder = getattr(module, "__transpyle_folder__", None)
        if folder is not None and folder.usable:
            try:
                dispatcher._cache = FolderCache(py_func, folder)
            except RuntimeError:     # Numba found no writable __pycache__ there
                folder.give_up("its __pycache__ folder cannot be written")
            except Exception:        # a Numba whose cache is built differently: no disk cache
                pass
        return dispatcher
    return decorate


__all__ = ["FolderCache", "cached_njit"]
