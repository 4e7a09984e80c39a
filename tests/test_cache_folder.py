"""The cache folder when the machine misbehaves: a folder that cannot be created or written (full,
read-only, no permission, no home folder) never stops a computation: the code runs from memory, with
one warning naming the folder, the reason and TRANSPYLE_CACHE_DIR. A folder that others can write, or
that belongs to someone else, is not used unless TRANSPYLE_CACHE_SHARED says so. A damaged entry is
rebuilt; a changed source or transpyle version is a new entry; the least recently used entries go
beyond TRANSPYLE_CACHE_MAX_MB. Faults are injected by patching, without privileges (numpy backend).
"""
import errno
import importlib.util
import os
import stat
import subprocess
import sys
import traceback
import uuid
import warnings
from pathlib import Path

import numpy as np
import pytest

import transpyle
from transpyle.backends import cache, cache_folder
from transpyle.backends.cache import load_module
from transpyle.backends.cache_folder import CacheWarning
from transpyle.base import atomic_files

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    path = tmp_path / "cache"
    monkeypatch.setenv("TRANSPYLE_CACHE_DIR", str(path))
    monkeypatch.delenv("TRANSPYLE_CACHE_SHARED", raising=False)
    monkeypatch.delenv("TRANSPYLE_CACHE_MAX_MB", raising=False)
    return path


def module_text(scale=2.0):
    """A module like the generated ones, unique to the call (so it is not found in sys.modules)."""
    return f"# {uuid.uuid4().hex}\nimport numpy as np\n\n\ndef f(x):\n    return {scale} * np.sum(x)\n"


def load_fresh(text, stem="f"):
    sys.modules.pop(cache.module_key(text, stem), None)
    return load_module(text, stem)


def entry_files(folder):
    return sorted(p.name for p in Path(folder).rglob("tp_*"))


def cache_warnings(record):
    return [str(w.message) for w in record if issubclass(w.category, CacheWarning)]


def refuse_writes_under(monkeypatch, folder, code):
    """Every open for writing under ``folder`` fails with ``code`` (a read-only or full folder)."""
    real = os.open

    def fake(path, flags, *args, **kwargs):
        if str(path).startswith(str(folder)) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            raise OSError(code, os.strerror(code), path)
        return real(path, flags, *args, **kwargs)
    monkeypatch.setattr(os, "open", fake)


def test_the_folder_is_created_private(cache_dir):
    module = load_module(module_text(), "f")
    assert module.f(np.ones(3)) == 6.0
    assert stat.S_IMODE(cache_dir.stat().st_mode) == 0o700
    assert module.__file__ == str(cache_dir / (module.__name__ + ".py"))
    assert (cache_dir / (module.__name__ + ".py")).read_text() == module.__transpyle_text__


@pytest.mark.parametrize("code", [errno.EROFS, errno.EACCES])
def test_a_folder_that_cannot_be_written_runs_in_memory_and_warns_once(cache_dir, monkeypatch, code):
    cache_dir.mkdir(mode=0o700)
    refuse_writes_under(monkeypatch, cache_dir, code)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        first, second = load_fresh(module_text(2.0)), load_fresh(module_text(3.0))
    assert first.f(np.ones(2)) == 4.0 and second.f(np.ones(2)) == 6.0
    [message] = cache_warnings(record)
    assert str(cache_dir) in message and os.strerror(code) in message and "TRANSPYLE_CACHE_DIR" in message
    assert entry_files(cache_dir) == []
    assert first.__file__.startswith("<transpyle ")


def test_a_real_read_only_folder(cache_dir):
    cache_dir.mkdir(mode=0o700)
    cache_dir.chmod(0o500)
    try:
        try:
            (cache_dir / "probe").write_text("")
        except OSError:
            pass
        else:
            pytest.skip("this process may write anywhere (root)")
        with pytest.warns(CacheWarning, match="cannot be written"):
            assert load_fresh(module_text()).f(np.ones(2)) == 4.0
        assert entry_files(cache_dir) == []
    finally:
        cache_dir.chmod(0o700)


def test_a_disk_that_fills_part_way_leaves_no_entry_and_warns_once(cache_dir, monkeypatch):
    load_fresh(module_text())                                  # the folder works at first
    state = {"calls": 0}

    def fill(fd, data):
        state["calls"] += 1
        if state["calls"] > 1:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return os.write(fd, bytes(data[:10]))
    monkeypatch.setattr(atomic_files, "_write", fill)
    before = entry_files(cache_dir)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        modules = [load_fresh(module_text(s)) for s in (1.0, 2.0, 3.0)]
    assert [m.f(np.ones(2)) for m in modules] == [2.0, 4.0, 6.0]
    [message] = cache_warnings(record)
    assert "No space left on device" in message and str(cache_dir) in message
    assert entry_files(cache_dir) == before                    # nothing partial under an entry's name
    assert not [p for p in cache_dir.iterdir() if p.name.endswith(".tmp")]


def test_no_home_folder(monkeypatch, tmp_path):
    monkeypatch.delenv("TRANSPYLE_CACHE_DIR")
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setattr(os.path, "expanduser", lambda path: path)          # "~" stays "~": no home
    with pytest.warns(CacheWarning, match="there is no home folder.*TRANSPYLE_CACHE_DIR"):
        assert load_fresh(module_text()).f(np.ones(1)) == 2.0


def test_a_home_folder_that_cannot_hold_the_cache(monkeypatch, tmp_path):
    (tmp_path / "file").write_text("")                        # HOME under a file: not even root can
    monkeypatch.delenv("TRANSPYLE_CACHE_DIR")
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "file" / "home"))
    with pytest.warns(CacheWarning, match="cannot be created"):
        assert load_fresh(module_text()).f(np.ones(1)) == 2.0


def test_a_folder_others_can_write_is_not_used(cache_dir):
    cache_dir.mkdir()
    cache_dir.chmod(0o777)
    with pytest.warns(CacheWarning, match="other users can write it.*TRANSPYLE_CACHE_SHARED"):
        assert load_fresh(module_text()).f(np.ones(2)) == 4.0
    assert entry_files(cache_dir) == []


def test_a_shared_folder_is_used_on_purpose(cache_dir, monkeypatch):
    cache_dir.mkdir()
    cache_dir.chmod(0o777)
    monkeypatch.setenv("TRANSPYLE_CACHE_SHARED", "1")
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheWarning)
        assert load_fresh(module_text()).f(np.ones(2)) == 4.0
    assert len(entry_files(cache_dir)) == 1


def test_a_permissive_umask_does_not_make_the_cache_unusable(cache_dir):
    old = os.umask(0o002)                                       # group-writable files by default
    try:
        load_fresh(module_text())
    finally:
        os.umask(old)
    assert stat.S_IMODE(cache_dir.stat().st_mode) == 0o700
    assert stat.S_IMODE((cache_dir / "__pycache__").stat().st_mode) == 0o700
    assert cache_folder.unsafe_reason(str(cache_dir)) is None
    (cache_dir / "__pycache__").chmod(0o777)                   # inside a private folder: unreachable
    assert cache_folder.unsafe_reason(str(cache_dir)) is None
    cache_dir.chmod(0o755)                                      # now others can reach it
    assert "__pycache__" in cache_folder.unsafe_reason(str(cache_dir))


def test_a_cache_path_that_is_a_file(tmp_path, monkeypatch):
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("TRANSPYLE_CACHE_DIR", str(tmp_path / "file"))
    with pytest.warns(CacheWarning, match="is not a folder"):
        assert load_fresh(module_text()).f(np.ones(1)) == 2.0


def test_a_folder_of_another_user_is_not_used(cache_dir, monkeypatch):
    cache_dir.mkdir(mode=0o700)
    uid = os.geteuid()
    monkeypatch.setattr(os, "geteuid", lambda: uid + 1)        # as if another user ran this process
    with pytest.warns(CacheWarning, match="belongs to"):
        assert load_fresh(module_text()).f(np.ones(2)) == 4.0
    assert entry_files(cache_dir) == []


def test_code_from_memory_still_shows_its_lines(cache_dir, monkeypatch):
    cache_dir.mkdir(mode=0o700)
    refuse_writes_under(monkeypatch, cache_dir, errno.EROFS)
    text = module_text().replace("return 2.0 * np.sum(x)", "return x['missing']")
    with pytest.warns(CacheWarning):
        module = load_fresh(text)
    with pytest.raises(IndexError):
        module.f(np.ones(2))
    try:
        module.f(np.ones(2))
    except IndexError:
        assert "return x['missing']" in traceback.format_exc()


@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty"])
def test_a_damaged_module_is_rebuilt(cache_dir, damage):
    text = module_text()
    module = load_fresh(text)
    path = Path(module.__file__)
    content = {"garbage": "this is not python ((((\n", "truncated": text[:len(text) // 2], "empty": ""}[damage]
    path.write_text(content)
    assert load_fresh(text).f(np.ones(3)) == 6.0
    assert path.read_text() == text


def test_a_new_transpyle_version_is_a_new_entry(cache_dir, monkeypatch):
    text = module_text()
    old = cache.module_key(text, "f")
    monkeypatch.setattr(cache, "__version__", "999.0")
    assert cache.module_key(text, "f") != old
    load_fresh(text)
    assert (cache_dir / (cache.module_key(text, "f") + ".py")).exists()


def test_an_edited_source_gives_a_new_gradient(cache_dir, tmp_path):
    def gradient(scale):
        name = f"model_{uuid.uuid4().hex[:8]}"
        (tmp_path / f"{name}.py").write_text(f"import numpy as np\n\n\ndef loss(x):\n    return {scale} * np.sum(x * x)\n")
        spec = importlib.util.spec_from_file_location(name, tmp_path / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return transpyle.grad(module.loss, backend="numpy")(np.array([1.0, 2.0]))
    np.testing.assert_allclose(gradient(1.5), [3.0, 6.0])
    np.testing.assert_allclose(gradient(2.5), [5.0, 10.0])
    assert len(list(cache_dir.glob("tp_*.py"))) == 2


def make_entry(folder, key, size, used):
    folder.joinpath("__pycache__").mkdir(parents=True, exist_ok=True)
    py = folder / f"{key}.py"
    py.write_bytes(b"#" * size)
    (folder / "__pycache__" / f"{key}.f-3.py311.nbi").write_bytes(b"i" * size)
    os.utime(py, (used, used))
    os.utime(folder / "__pycache__" / f"{key}.f-3.py311.nbi", (used, used))


def test_the_least_recently_used_entries_go_beyond_the_bound(cache_dir):
    cache_dir.mkdir(mode=0o700)
    for k, used in enumerate([1000, 3000, 2000, 4000]):
        make_entry(cache_dir, f"tp_e{k}_x", 500, used)
    cache_folder.mark_used(str(cache_dir / "tp_e0_x.py"))     # used now: the newest
    folder = cache_folder.current()
    removed = cache_folder.evict(folder, bound=2 * 1000, keep="tp_e1_x")
    assert removed == ["tp_e2_x", "tp_e3_x"]                    # oldest first; the kept one stays
    assert {p.split(".")[0] for p in entry_files(cache_dir)} == {"tp_e0_x", "tp_e1_x"}


def test_a_new_entry_keeps_the_folder_within_the_variable_bound(cache_dir, monkeypatch):
    cache_dir.mkdir(mode=0o700)
    for k in range(5):
        make_entry(cache_dir, f"tp_old{k}_x", 4000, 1000 + k)
    (cache_dir / ".mod.py.abc.tmp").write_text("left by a killed process")
    os.utime(cache_dir / ".mod.py.abc.tmp", (1000, 1000))
    monkeypatch.setenv("TRANSPYLE_CACHE_MAX_MB", str(10000 / 2**20))
    module = load_fresh(module_text())
    names = entry_files(cache_dir)
    assert module.__name__ + ".py" in names
    assert sum(os.path.getsize(p) for p in cache_dir.rglob("tp_*")) <= 10000
    assert not (cache_dir / ".mod.py.abc.tmp").exists()


def test_info_and_clear(cache_dir, capsys):
    from transpyle import cli
    load_fresh(module_text())
    (cache_dir / "notes.txt").write_text("not transpyle's")
    assert cli.main(["cache", "info"]) == 0
    out = capsys.readouterr().out
    assert str(cache_dir) in out and "TRANSPYLE_CACHE_DIR" in out and "TRANSPYLE_CACHE_MAX_MB" in out
    assert "entries: 1 " in out and "private to you" in out
    assert cli.main(["cache", "clear"]) == 0
    assert "removed 1 entries" in capsys.readouterr().out
    assert entry_files(cache_dir) == [] and (cache_dir / "notes.txt").exists()


def test_clear_refuses_a_folder_others_can_write(cache_dir, capsys):
    from transpyle import cli
    cache_dir.mkdir()
    cache_dir.chmod(0o777)
    assert cli.main(["cache", "clear"]) == 1
    assert "not clearing" in capsys.readouterr().err


CONCURRENT = '''
import sys
from transpyle.backends.cache import load_module
text = open(sys.argv[1]).read()
print(load_module(text, "f").f(3.0))
'''


@pytest.mark.subprocess
def test_processes_writing_one_entry_at_once(cache_dir, tmp_path):
    text_file = tmp_path / "text.py"
    text_file.write_text("def f(x):\n    return 2.0 * x\n" + "# padding\n" * 20000)
    env = dict(os.environ, PYTHONPATH=str(ROOT), TRANSPYLE_CACHE_DIR=str(cache_dir))
    procs = [subprocess.Popen([sys.executable, "-c", CONCURRENT, str(text_file)], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = [p.communicate(timeout=120) for p in procs]
    assert [out.strip() for out, _ in results] == ["6.0"] * 2, [err for _, err in results]
    [entry] = cache_dir.glob("tp_*.py")
    assert entry.read_text() == text_file.read_text()
    assert not [p for p in cache_dir.iterdir() if p.name.endswith(".tmp")]
