"""How transpyle writes files: a complete new text or nothing.

Every file transpyle writes (a compiled module, a cached generated module) is written to a
temporary file in the folder of its final name and renamed onto that name only once it is whole,
so a full disk, a read-only folder or a process killed mid-write leaves the previous file as it
was. Before writing, the existing file is compared with the new text, reading no more than that
text's size, and only when it is a regular file: a device (``/dev/full``, ``/dev/zero``), a named
pipe or a folder given as a target is refused (``unfit_target``), never opened.
"""
import errno
import os
import secrets
import stat


def _kind_of(mode):
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def unfit_target(path):
    """Why ``path`` cannot be written as a file (it is a device, a pipe, a folder, or its folder is
    missing), or None when it can be tried: it is a regular file, or nothing is there yet."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            return f"its folder {folder} does not exist"
        return None
    except OSError as exc:
        return exc.strerror or str(exc)
    if stat.S_ISREG(mode):
        return None
    return f"it is {_kind_of(mode)}, not a regular file"


def same_text(path, text):
    """Whether the regular file at ``path`` holds exactly ``text`` (UTF-8). Reads at most one byte
    more than the text's size, and never waits: a pipe or device is not opened for reading."""
    data = text.encode()
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return False
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size != len(data):
            return False
        chunks, left = [], len(data) + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks) == data
    except OSError:
        return False
    finally:
        os.close(fd)


def write_atomic(path, text, durable=False):
    """Write ``text`` to ``path`` through a temporary file in the same folder, renamed into place
    when complete. A symbolic link at ``path`` keeps pointing where it did: its target is written.
    ``durable``: the data reaches the disk before the rename (a power cut cannot leave an empty
    file). Raises OSError naming ``path`` when the folder cannot take the file (full, read-only, no
    permission); the previous file at ``path`` is then untouched and no temporary file is left."""
    target = os.path.realpath(path)
    reason = unfit_target(target)
    if reason is not None and os.path.exists(target):
        raise OSError(errno.EISDIR if os.path.isdir(target) else errno.EINVAL, reason, path)
    folder, name = os.path.split(target)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        mode = 0o666                   # as open() creates files: the umask applies
    data = text.encode()
    tmp = os.path.join(folder, f".{name}.{secrets.token_hex(6)}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), mode)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, path) from None
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[_write(fd, view):]
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise OSError(exc.errno, exc.strerror, path) from None
        raise


def _write(fd, data):
    """One ``os.write`` (a function of its own so that tests can make the disk fill part way)."""
    return os.write(fd, data)


__all__ = ["unfit_target", "same_text", "write_atomic"]
