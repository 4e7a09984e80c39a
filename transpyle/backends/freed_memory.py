"""freed_memory: the process keeps the memory of freed arrays for the next call, instead of giving it
back to the kernel and faulting it in again.

A gradient allocates its adjoint buffers and temporaries on every call and frees them at return.
glibc's malloc serves a block of over 128 KiB with its own ``mmap`` and returns it with ``munmap``
at free; it raises that threshold only after freeing such a block, and it gives the top of its heap
back to the kernel whenever more than twice the threshold lies free there. So a call that frees a few
1 MiB arrays hands all of them back, and the next call faults every page in again, zeroed by the
kernel: 4 us a page on the 2-core machine here, 1 ms per MiB, more than computing on it (a fresh
process took 8.2 ms for gemver's gradient and 0.54 ms with the memory kept; softmax 7.5 and 1.9 ms,
``benchmarks/kernels.py``). JAX's CPU runtime keeps its buffers in a pool for the same reason.

On glibc, the first compile of generated code sets the two thresholds once for the process
(``mallopt``): blocks up to ``MMAP_THRESHOLD`` bytes come from the heap, and up to
``TRIM_THRESHOLD`` bytes of freed memory stay with the process. The price is that a process keeps
that much memory after its arrays are freed (its peak, at most ``TRIM_THRESHOLD``). Nothing changes
where the user has chosen: ``TRANSPYLE_KEEP_FREED_MEMORY=0``, or glibc's own settings
(``MALLOC_MMAP_THRESHOLD_``, ``MALLOC_TRIM_THRESHOLD_``, ``malloc.`` in ``GLIBC_TUNABLES``), or another
C library.
"""
import ctypes
import os
import sys

from ..base.settings import switched_off

#: blocks up to this size come from the heap (glibc's largest mmap threshold on 64-bit systems)
MMAP_THRESHOLD = 32 << 20
#: freed memory at the top of the heap up to this size stays with the process
TRIM_THRESHOLD = 256 << 20

# mallopt's parameter numbers (malloc.h)
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3

_applied = None


def _user_chose():
    """Whether the user set the allocator's thresholds, or turned this off."""
    if switched_off("TRANSPYLE_KEEP_FREED_MEMORY"):
        return True
    if "MALLOC_MMAP_THRESHOLD_" in os.environ or "MALLOC_TRIM_THRESHOLD_" in os.environ:
        return True
    return "malloc." in os.environ.get("GLIBC_TUNABLES", "")


def _glibc():
    """The C library of this process, when it is glibc (which has ``mallopt``), else None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version          # only glibc has it
        return libc
    except (OSError, AttributeError):
        return None


def keep_freed_memory():
    """Set the allocator's thresholds once per process (see the module's docstring); True when they
    are set (now or before)."""
    global _applied
    if _applied is None:
        libc = None if _user_chose() else _glibc()
        _applied = bool(libc is not None
                        and libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)
                        and libc.mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))
    return _applied
