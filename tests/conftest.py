"""Shared test set-up: import path, a private transpyle cache, markers (the default run, the long tail
and the quick subset: ``suite_split``), reproducible random inputs.

Inputs are drawn fresh on every run (DESIGN.md: "fresh random inputs"), from one session seed
printed in the pytest header; set TRANSPYLE_TEST_SEED to that number to repeat a failing run.
Each test gets its own generator derived from the seed and its node id, so one test's inputs do
not depend on which other tests ran.
"""
import glob
import importlib.util
import os
import shutil
import signal
import sys
import tempfile
import zlib
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# Without a GPU, CUDA code runs in Numba's CUDA simulator, which is chosen when numba.cuda is first
# imported: set here, before any test module (or a library a test imports) can import it.
if not glob.glob("/dev/nvidia[0-9]*"):
    os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

# The suite never reads or writes the user's cache, and never inherits a backend choice.
_CACHE_DIR = tempfile.mkdtemp(prefix="transpyle-tests-cache-")
os.environ["TRANSPYLE_CACHE_DIR"] = _CACHE_DIR
os.environ.pop("TRANSPYLE_BACKEND", None)
# Tests check what Numba computes: each first call compiles and answers (test_tiers.py switches tiers on
# where it tests them, the NumPy backend answering while Numba compiles). TRANSPYLE_TIERED=1 in the
# environment runs a suite with tiers instead: first calls then check the tiered Python runs.
os.environ.setdefault("TRANSPYLE_TIERED", "0")
# Element loops' parallel copies (transforms/parallel_loops) run on arrays of any size: every test of
# compiled code checks them, not only those whose arrays pass the 16384 elements they run from otherwise.
os.environ.setdefault("TRANSPYLE_PARALLEL_ELEMENTS", "1")

# Without pytest-timeout, a test stops after this many seconds instead of hanging the run (a
# generated loop that never ends). Compiles take seconds; no test should come near it.
FALLBACK_TIMEOUT_S = 120

SEED = int(os.environ.get("TRANSPYLE_TEST_SEED") or np.random.SeedSequence().entropy % 2**32)

pytest.register_assert_rewrite("gradcheck")

import suite_split  # noqa: E402  (tests/ is on the path from here on)


def pytest_configure(config):
    config.addinivalue_line("markers", "numba: compiles with the numba backend (about 0.5-2 s per case)")
    config.addinivalue_line("markers", "subprocess: runs python in a child process (CLI, disk cache)")
    config.addinivalue_line("markers", "slow: the long tail, left out of the default run; CI runs it with -m slow "
                                       "(tests/suite_split.py)")
    config.addinivalue_line("markers", "quick: the edit-test subset of the default run (-m quick, tests/suite_split.py)")


def pytest_unconfigure(config):
    shutil.rmtree(_CACHE_DIR, ignore_errors=True)


def pytest_report_header(config):
    return f"transpyle test seed: {SEED} (TRANSPYLE_TEST_SEED={SEED} repeats these inputs)"


def pytest_collection_modifyitems(config, items):
    suite_split.mark(items)
    if importlib.util.find_spec("numba") is None:
        skip = pytest.mark.skip(reason="numba is not installed")
        for item in items:
            if "numba" in item.keywords:
                item.add_marker(skip)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    if item.config.pluginmanager.hasplugin("timeout") or not hasattr(signal, "SIGALRM"):
        return (yield)

    def on_alarm(signum, frame):
        raise TimeoutError(f"{item.nodeid} ran for more than {FALLBACK_TIMEOUT_S} s (a loop that never ends?)")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(FALLBACK_TIMEOUT_S)
    try:
        return (yield)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def rng(request):
    """A generator for this test's inputs: fresh per run, repeatable with TRANSPYLE_TEST_SEED."""
    return np.random.default_rng([SEED, zlib.crc32(request.node.nodeid.encode())])
