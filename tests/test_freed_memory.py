"""The process keeps freed array memory for the next call (backends/freed_memory): on glibc, a 1 MiB
array comes from the heap instead of its own mmap once generated code has been compiled, and the
user's own allocator settings (or TRANSPYLE_KEEP_FREED_MEMORY=0) are left alone."""
import os
import subprocess
import sys
import textwrap

import pytest

from transpyle.backends import freed_memory

pytestmark = pytest.mark.skipif(freed_memory._glibc() is None, reason="glibc's mallopt only")

_PROBE = textwrap.dedent("""
    import ctypes, numpy as np
    class Info(ctypes.Structure):
        _fields_ = [(name, ctypes.c_size_t) for name in
                    ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
                     "fordblks", "keepcost")]
    libc = ctypes.CDLL(None)
    libc.mallinfo2.restype = Info
    import transpyle
    def double(x):
        return x * 2.0
    f = transpyle.jit(double)
    f(np.ones(3))                                  # the first compile sets the thresholds
    before = libc.mallinfo2().hblks
    arrays = [np.ones(1 << 17) for _ in range(4)]  # four 1 MiB arrays
    print(libc.mallinfo2().hblks - before, freed_memory_applied())
""")


def _run(env_extra, folder):
    env = dict(os.environ, **env_extra)
    for name in ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "GLIBC_TUNABLES"):
        if name not in env_extra:
            env.pop(name, None)
    code = ("from transpyle.backends.freed_memory import keep_freed_memory as freed_memory_applied\n"
            + _PROBE)
    probe = folder / "probe.py"
    probe.write_text(code)
    out = subprocess.run([sys.executable, str(probe)], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    mapped, applied = out.stdout.split()
    return int(mapped), applied == "True"


def test_arrays_come_from_the_heap_after_a_compile(tmp_path):
    mapped, applied = _run({"TRANSPYLE_KEEP_FREED_MEMORY": "1"}, tmp_path)
    assert applied
    assert mapped == 0


@pytest.mark.parametrize("setting", [{"TRANSPYLE_KEEP_FREED_MEMORY": "0"},
                                     {"MALLOC_MMAP_THRESHOLD_": "131072"}])
def test_the_users_choice_is_left_alone(setting, tmp_path):
    mapped, applied = _run(setting, tmp_path)
    assert not applied
    assert mapped == 4                             # glibc's default: each 1 MiB array is its own mmap


def test_thresholds_are_within_what_glibc_accepts():
    assert freed_memory.MMAP_THRESHOLD <= 32 << 20          # HEAP_MAX_SIZE / 2 on 64-bit systems
    assert freed_memory.TRIM_THRESHOLD >= 2 * freed_memory.MMAP_THRESHOLD
