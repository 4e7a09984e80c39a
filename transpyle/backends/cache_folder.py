"""The cache folder: where it is, whether it may be used, how large it may grow.

Generated modules and Numba's compiled code for them are kept in ``$TRANSPYLE_CACHE_DIR`` (default
``$XDG_CACHE_HOME/transpyle``, else ``~/.cache/transpyle``), created private to the user (0700).
The folder is used only when it is safe and it works:

- it must belong to the user and be writable by no one else: Numba's cache files are pickles, and
  whoever can write them runs code in every process that reads them. ``TRANSPYLE_CACHE_SHARED=1``
  accepts a folder shared on purpose (a group's cache);
- it must take files. A folder that cannot be created or written (read-only, no permission, no home
  folder, full) never stops a computation: the code is compiled in memory instead, with one warning
  that names the folder, the reason and the variable that moves it.

Entries are bounded in total size (``TRANSPYLE_CACHE_MAX_MB``, default 1024): beyond it the least
recently used are removed. An entry is every file whose name starts with a module's key: the
generated ``KEY.py`` and Numba's ``__pycache__/KEY.*.nbi|nbc``; its last use is the ``.py``'s
access time, which ``mark_used`` sets.
"""
import contextlib
import os
import pwd
import stat
import sys
import threading
import time
import warnings

DIR_VARIABLE = "TRANSPYLE_CACHE_DIR"
SHARED_VARIABLE = "TRANSPYLE_CACHE_SHARED"
SIZE_VARIABLE = "TRANSPYLE_CACHE_MAX_MB"
DEFAULT_MAX_MB = 1024
#: a process looks at the folder's size at most this often (seconds): each look lists the folder
CHECK_EVERY_S = 10.0
#: a temporary file older than this (seconds) was left by a killed process
STALE_TMP_S = 3600.0

_LOCK = threading.Lock()
_FOLDERS = {}                  # path -> CacheFolder (a decision is taken once per folder and process)


class CacheWarning(UserWarning):
    """The cache folder is not used: compiled code is not kept between runs."""


def configured_path():
    """The cache folder's absolute path, or (None, reason) when there is no home folder to hold it."""
    path = os.environ.get(DIR_VARIABLE)
    if not path:
        base = os.environ.get("XDG_CACHE_HOME")
        if not base:
            home = os.path.expanduser("~")
            if home == "~" or not home:
                return None, "there is no home folder"
            base = os.path.join(home, ".cache")
        path = os.path.join(base, "transpyle")
    return os.path.abspath(path), None


def shared_on_purpose():
    """Whether ``TRANSPYLE_CACHE_SHARED`` accepts a cache folder that others can write."""
    return (os.environ.get(SHARED_VARIABLE) or "").strip().lower() not in ("", "0", "false", "no", "off")


def max_bytes():
    """The size bound, from ``TRANSPYLE_CACHE_MAX_MB`` (a malformed value: the default)."""
    try:
        mb = float(os.environ.get(SIZE_VARIABLE) or DEFAULT_MAX_MB)
    except ValueError:
        mb = DEFAULT_MAX_MB
    return max(0, int(mb * 1024 * 1024))


def _owner(uid):
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"user {uid}"


def unsafe_reason(path):
    """Why ``path`` (an existing folder) may not hold code this process will run, or None. Its
    ``__pycache__`` (Numba's files) counts too, unless the folder itself keeps everyone else out."""
    for folder in (path, os.path.join(path, "__pycache__")):
        try:
            info = os.stat(folder)
        except FileNotFoundError:
            continue
        if not stat.S_ISDIR(info.st_mode):
            return f"{folder} is not a folder"
        if info.st_uid != os.geteuid():
            return f"{'it' if folder == path else folder} belongs to {_owner(info.st_uid)}"
        if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            return f"other users can write {'it' if folder == path else folder} (mode {stat.S_IMODE(info.st_mode):o})"
        if not info.st_mode & (stat.S_IXGRP | stat.S_IXOTH):
            return None                        # no one else can reach what is inside
    return None


class CacheFolder:
    """The decision about one cache folder in this process: ``usable`` (generated modules and
    Numba's code are kept there) or not, with ``reason``."""

    def __init__(self, path, reason=None):
        self.path = path
        self.reason = reason
        self.warned = False
        self.last_check = 0.0
        if reason is None:
            self.reason = self._open()

    @property
    def usable(self):
        return self.reason is None

    def _open(self):
        if os.path.exists(self.path) and not os.path.isdir(self.path):
            return "it is not a folder"
        try:
            os.makedirs(self.path, mode=0o700, exist_ok=True)
        except OSError as exc:
            return f"it cannot be created ({exc.strerror or exc})"
        unsafe = unsafe_reason(self.path)
        if unsafe is not None and not shared_on_purpose():
            advice = "use a folder of your own" if " belongs to " in unsafe else "make it private (chmod 700)"
            return f"{unsafe}, and a process runs the code it finds there; {advice}, or set {SHARED_VARIABLE}=1 " \
                   "to share it on purpose"
        try:                                    # read-only, or no permission: found now, not mid-write
            fd = os.open(os.path.join(self.path, f".probe.{os.getpid()}.tmp"),
                         os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.close(fd)
            os.unlink(os.path.join(self.path, f".probe.{os.getpid()}.tmp"))
        except OSError as exc:
            return f"it cannot be written ({exc.strerror or exc})"
        try:                                    # Numba's folder, private too (Numba would follow the umask)
            os.mkdir(os.path.join(self.path, "__pycache__"), 0o700)
        except OSError:
            pass
        return None

    def give_up(self, problem):
        """A write failed (the disk filled, permissions changed): the rest of this process compiles
        in memory. ``problem``: the OSError, or a reason in words."""
        with _LOCK:
            if self.reason is None:
                self.reason = f"a write failed ({getattr(problem, 'strerror', None) or problem})"
        self.warn()

    def warn(self):
        with _LOCK:
            if self.warned:
                return
            self.warned = True
        warnings.warn(f"the cache folder {self.path} is not used: {self.reason}. Compiled code is kept in "
                      f"memory for this process only; set {DIR_VARIABLE} to a private, writable folder to keep "
                      "it between runs.", CacheWarning, stacklevel=_caller_level())

    def locked(self, exclusive):
        return locked(self.path, exclusive)

    def after_write(self, key):
        """A new entry was written: keep the folder within its bound (looked at every few seconds)."""
        now = time.monotonic()
        if now - self.last_check < CHECK_EVERY_S and self.last_check:
            return
        self.last_check = now
        try:
            evict(self, max_bytes(), keep=key)
        except OSError:
            pass                               # a listing that fails is retried at the next write


@contextlib.contextmanager
def locked(path, exclusive):
    """The cache folder's lock (``fcntl.flock`` on ``.lock``): shared to read Numba's cache, exclusive
    to write it or remove entries. Where locks do not work (a read-only folder, some network file
    systems) nothing is locked: each file is still replaced whole."""
    fd = None
    try:
        import fcntl
        fd = os.open(os.path.join(path, ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
    except (OSError, ImportError):
        if fd is not None:
            os.close(fd)
        fd = None
    try:
        yield
    finally:
        if fd is not None:
            os.close(fd)                       # releases the lock


def _caller_level():
    """The ``stacklevel`` that points a warning at the first frame outside transpyle and Numba (the
    user's call)."""
    inside = tuple(os.path.dirname(os.path.abspath(m.__file__)) + os.sep
                   for m in (sys.modules[__package__.rsplit(".", 1)[0]], sys.modules.get("numba")) if m)
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(inside):
        frame, level = frame.f_back, level + 1
    return level


def current():
    """The CacheFolder for the configured path (decided, and warned about, once per process)."""
    path, reason = configured_path()
    key = path or "~"
    with _LOCK:
        folder = _FOLDERS.get(key)
    if folder is None:
        folder = CacheFolder(path or "~/.cache/transpyle", reason)
        with _LOCK:
            folder = _FOLDERS.setdefault(key, folder)
    if not folder.usable:
        folder.warn()                          # once per folder and process
    return folder


def mark_used(path):
    """Set the access time of an entry's ``.py`` to now (its modification time is kept): the least
    recently used entries go first. Explicit, since many file systems do not keep access times."""
    try:
        os.utime(path, ns=(time.time_ns(), os.stat(path).st_mtime_ns))
    except OSError:
        pass


def _entry_key(name):
    return name.split(".", 1)[0] if name.startswith("tp_") else None


def entries(path):
    """{key: [size in bytes, last use (s), [file paths]]} of the folder's entries, and the
    temporary files left by killed processes (path, age in s)."""
    found, stale, now = {}, [], time.time()
    for folder in (path, os.path.join(path, "__pycache__")):
        try:
            listing = list(os.scandir(folder))
        except (FileNotFoundError, NotADirectoryError):
            continue
        for item in listing:
            try:
                info = item.stat(follow_symlinks=False)
            except OSError:
                continue
            if not stat.S_ISREG(info.st_mode):
                continue
            key = _entry_key(item.name)
            if key is None:
                if item.name.startswith(".") and ".tmp" in item.name or ".tmp." in item.name:
                    stale.append((item.path, now - info.st_mtime))
                continue
            entry = found.setdefault(key, [0, 0.0, []])
            entry[0] += info.st_size
            entry[2].append(item.path)
            used = info.st_atime if item.name == key + ".py" else info.st_mtime
            entry[1] = max(entry[1], used)
    return found, stale


def _remove(paths):
    """Remove the files; the reason the first one that could not be removed gives, or None."""
    problem = None
    for p in paths:
        try:
            os.unlink(p)
        except FileNotFoundError:
            pass
        except OSError as exc:
            problem = problem or exc.strerror or str(exc)
    return problem


def evict(folder, bound, keep=None):
    """Remove the least recently used entries until the folder holds at most ``bound`` bytes (the
    entry ``keep``, just written, stays), and temporary files left by killed processes. Returns
    the keys removed."""
    with locked(folder.path, exclusive=True):
        found, stale = entries(folder.path)
        _remove(p for p, age in stale if age > STALE_TMP_S)
        total = sum(size for size, _, _ in found.values())
        removed = []
        for key, (size, _, paths) in sorted(found.items(), key=lambda kv: kv[1][1]):
            if total <= bound:
                break
            if key == keep:
                continue
            _remove(paths)
            total -= size
            removed.append(key)
    return removed


def clear(path):
    """Remove every entry and temporary file of the cache folder ``path`` (only transpyle's files: a
    cache folder set to a busy folder by mistake keeps everything else). Returns (entries removed,
    bytes freed, the reason some could not be removed or None)."""
    removed, freed, problem = 0, 0, None
    with locked(path, exclusive=True):
        found, stale = entries(path)
        for size, _, paths in found.values():
            failed = _remove(paths)
            problem = problem or failed
            removed, freed = removed + (failed is None), freed + (size if failed is None else 0)
        problem = problem or _remove(p for p, _ in stale)
    with contextlib.suppress(OSError):
        os.rmdir(os.path.join(path, "__pycache__"))      # only when empty
    return removed, freed, problem


def describe():
    """Lines for ``transpyle cache info``."""
    path, reason = configured_path()
    lines = [f"cache folder: {path or '(none)'}  (moved by {DIR_VARIABLE})"]
    if path is None:
        lines.append(f"state: not used: {reason}")
        return lines
    if not os.path.isdir(path):
        lines.append("state: not created yet")
    else:
        unsafe = unsafe_reason(path)
        shared = unsafe is not None and shared_on_purpose()
        if unsafe is not None and not shared:
            lines.append(f"state: not used: {unsafe} (set {SHARED_VARIABLE}=1 to share it on purpose)")
        elif not os.access(path, os.W_OK):
            lines.append("state: not used: it cannot be written")
        else:
            lines.append("state: used" + (f", shared on purpose ({SHARED_VARIABLE}=1)" if shared else
                                         ", private to you"))
        found, stale = entries(path)
        size = sum(s for s, _, _ in found.values())
        lines.append(f"entries: {len(found)} generated modules with their compiled code, {size / 2**20:.1f} MB"
                     + (f" ({len(stale)} unfinished temporary files)" if stale else ""))
    lines.append(f"bound: {max_bytes() / 2**20:.0f} MB (set by {SIZE_VARIABLE}); the least recently used "
                 "entries are removed beyond it")
    return lines


__all__ = ["CacheFolder", "CacheWarning", "configured_path", "current", "locked", "mark_used", "entries", "evict",
           "clear", "describe", "max_bytes", "unsafe_reason", "shared_on_purpose", "DIR_VARIABLE", "SHARED_VARIABLE",
           "SIZE_VARIABLE"]
