"""Numba's disk cache of generated functions (backends/numba_cache.py): its files stay in the cache
folder's __pycache__; a damaged or truncated index or data file is a miss and is rewritten; a disk
that fills while Numba saves warns once and the compiled function is used; a folder that is not
used gets no Numba files at all.
"""
import errno
import os
import sys
import uuid
import warnings
from pathlib import Path

import numba
import pytest
from numba.core import caching

from transpyle.backends import cache
from transpyle.backends.cache_folder import CacheWarning
from transpyle.backends.numba_cache import cached_njit

pytestmark = pytest.mark.numba

SIG = (numba.float64,)


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    path = tmp_path / "cache"
    monkeypatch.setenv("TRANSPYLE_CACHE_DIR", str(path))
    monkeypatch.delenv("TRANSPYLE_CACHE_SHARED", raising=False)
    return path


def fresh_module():
    text = f"# {uuid.uuid4().hex}\n\n\ndef f(x):\n    return 3.0 * x + 1.0\n"
    sys.modules.pop(cache.module_key(text, "f"), None)
    return cache.load_module(text, "f")


def compiled(module):
    """A new dispatcher for module.f (as a new process would make), compiled for float64."""
    dispatcher = cached_njit(module, error_model="numpy")(module.f)
    dispatcher.compile(SIG)
    return dispatcher


def numba_files(folder):
    return sorted((Path(folder) / "__pycache__").glob("*.nb[ic]"))


def test_numba_files_stay_in_the_cache_folder_and_are_found_again(cache_dir):
    module = fresh_module()
    first = compiled(module)
    assert first(2.0) == 7.0
    files = numba_files(cache_dir)
    assert {p.suffix for p in files} == {".nbi", ".nbc"}
    assert all(p.name.startswith(module.__name__ + ".") for p in files)
    again = compiled(module)
    assert again(2.0) == 7.0 and sum(again.stats.cache_hits.values()) == 1


@pytest.mark.parametrize("which", [".nbi", ".nbc"])
@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_a_damaged_numba_file_is_a_miss_and_is_rewritten(cache_dir, which, damage):
    module = fresh_module()
    compiled(module)
    for path in numba_files(cache_dir):
        if path.suffix == which:
            data = path.read_bytes()
            path.write_bytes(b"not a pickle" if damage == "garbage" else data[:len(data) // 2])
    rebuilt = compiled(module)
    assert rebuilt(1.0) == 4.0 and sum(rebuilt.stats.cache_misses.values()) == 1
    healed = compiled(module)
    assert healed(1.0) == 4.0 and sum(healed.stats.cache_hits.values()) == 1


def test_a_disk_that_fills_while_numba_saves(cache_dir, monkeypatch):
    module = fresh_module()

    def full(self, name, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(caching.IndexDataCacheFile, "_save_data", full)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        assert compiled(module)(2.0) == 7.0
        assert compiled(fresh_module())(2.0) == 7.0            # no disk cache for the rest of the process
    messages = [str(w.message) for w in record if issubclass(w.category, CacheWarning)]
    assert len(messages) == 1 and "No space left on device" in messages[0] and str(cache_dir) in messages[0]
    assert not [p for p in (cache_dir / "__pycache__").iterdir() if ".tmp" in p.name]


def test_a_folder_that_is_not_used_gets_no_numba_files(cache_dir):
    cache_dir.mkdir()
    cache_dir.chmod(0o777)
    with pytest.warns(CacheWarning):
        module = fresh_module()
    assert compiled(module)(2.0) == 7.0
    assert not (cache_dir / "__pycache__").exists()
