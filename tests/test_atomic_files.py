"""Files transpyle writes are replaced whole or not at all: a disk that fills, a folder that turns
read-only or refuses permission part way through a write leaves the previous file as it was and no
temporary file behind; a process killed mid-write leaves no partial file under the final name.
Devices, pipes and folders are never opened as targets, and comparing with an existing file reads
no more than the new text's size. Faults are injected by patching the write, without privileges.
"""
import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from transpyle.base import atomic_files
from transpyle.base.atomic_files import same_text, unfit_target, write_atomic

ROOT = Path(__file__).resolve().parents[1]
OLD = "def old():\n    return 1\n"
NEW = "def new():\n    return 2\n" * 2000          # several writes' worth with the patched writer below


def _permissions_bind():
    """Whether this process is refused a write into a read-only folder (not so for root)."""
    import tempfile
    folder = tempfile.mkdtemp()
    os.chmod(folder, 0o555)
    try:
        open(os.path.join(folder, "probe"), "w").close()
        return False
    except OSError:
        return True
    finally:
        os.chmod(folder, 0o755)
        for name in os.listdir(folder):
            os.unlink(os.path.join(folder, name))
        os.rmdir(folder)


needs_permissions = pytest.mark.skipif(not _permissions_bind(), reason="this process may write anywhere (root)")


def failing_after(nbytes, code):
    """A stand-in for ``atomic_files._write`` that writes ``nbytes`` and then fails with ``code``."""
    state = {"left": nbytes}

    def write(fd, data):
        if state["left"] <= 0:
            raise OSError(code, os.strerror(code))
        n = os.write(fd, bytes(data[:min(len(data), state["left"], 4096)]))
        state["left"] -= n
        return n
    return write


def leftovers(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS, errno.EACCES, errno.EDQUOT])
def test_a_write_failing_part_way_leaves_the_old_file(tmp_path, monkeypatch, code):
    target = tmp_path / "mod_ad.py"
    target.write_text(OLD)
    monkeypatch.setattr(atomic_files, "_write", failing_after(5000, code))
    with pytest.raises(OSError) as info:
        write_atomic(str(target), NEW)
    assert info.value.errno == code
    assert info.value.filename == str(target)              # the path, and the OS's reason
    assert os.strerror(code) in str(info.value)
    assert target.read_text() == OLD
    assert leftovers(tmp_path) == []


def test_a_failing_first_write_leaves_no_file(tmp_path, monkeypatch):
    monkeypatch.setattr(atomic_files, "_write", failing_after(0, errno.ENOSPC))
    with pytest.raises(OSError):
        write_atomic(str(tmp_path / "new.py"), NEW)
    assert list(tmp_path.iterdir()) == []


def test_a_write_replaces_the_file_whole_and_keeps_its_mode(tmp_path):
    target = tmp_path / "mod_ad.py"
    target.write_text(OLD)
    target.chmod(0o640)
    write_atomic(str(target), NEW, durable=True)
    assert target.read_text() == NEW
    assert target.stat().st_mode & 0o777 == 0o640
    assert leftovers(tmp_path) == []


def test_a_link_keeps_pointing_at_its_file(tmp_path):
    real = tmp_path / "real.py"
    real.write_text(OLD)
    link = tmp_path / "link.py"
    link.symlink_to(real)
    write_atomic(str(link), NEW)
    assert link.is_symlink() and real.read_text() == NEW


@needs_permissions
def test_a_read_only_folder_is_a_clear_error(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    (folder / "mod_ad.py").write_text(OLD)
    folder.chmod(0o555)
    try:
        with pytest.raises(OSError) as info:
            write_atomic(str(folder / "mod_ad.py"), NEW)
        assert info.value.errno in (errno.EACCES, errno.EROFS)
        assert (folder / "mod_ad.py").read_text() == OLD
    finally:
        folder.chmod(0o755)


def test_devices_pipes_and_folders_are_not_targets(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert "named pipe" in unfit_target(str(fifo))
    assert "folder" in unfit_target(str(tmp_path))
    assert "device" in unfit_target("/dev/null")
    assert "does not exist" in unfit_target(str(tmp_path / "missing" / "mod.py"))
    assert unfit_target(str(tmp_path / "mod.py")) is None
    with pytest.raises(OSError):
        write_atomic(str(fifo), NEW)
    assert not fifo.is_file() and fifo.exists()              # still the pipe; nothing waited on it


def test_comparing_never_waits_or_reads_without_bound(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    big = tmp_path / "big.py"
    with open(big, "wb") as fh:                               # 1 GiB, sparse: reading it would take a while
        fh.truncate(1 << 30)
    start = time.monotonic()
    assert not same_text(str(fifo), NEW)
    assert not same_text(str(big), NEW)
    if os.path.exists("/dev/zero"):
        assert not same_text("/dev/zero", NEW)
    assert time.monotonic() - start < 2.0
    small = tmp_path / "same.py"
    small.write_text(NEW)
    assert same_text(str(small), NEW) and not same_text(str(small), NEW + "#")


KILLED_WRITER = '''
import os, sys, time
from transpyle.base import atomic_files

def slow(fd, data):
    n = os.write(fd, bytes(data[:1000]))
    open(sys.argv[2], "w").close()          # the parent may kill now: the write is under way
    time.sleep(60)
    return n

atomic_files._write = slow
atomic_files.write_atomic(sys.argv[1], "x = 1\\n" * 100000)
'''


def test_a_process_killed_mid_write_leaves_no_partial_module(tmp_path):
    target = tmp_path / "mod_ad.py"
    target.write_text(OLD)
    started = tmp_path / "started"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(target), str(started)], env=env)
    try:
        deadline = time.monotonic() + 60
        while not started.exists():
            assert proc.poll() is None, "the writer ended before it started writing"
            assert time.monotonic() < deadline
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert target.read_text() == OLD                         # the final name still holds the old module
    partial = [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert len(partial) == 1 and partial[0].name.startswith(".mod_ad.py.")    # hidden, never imported
