"""Which tests the default run, the long tail (``-m slow``) and the edit-test loop (``-m quick``) hold.

The suite's cost is Numba compiling generated code: a case on the numba backend takes 1-20 s where
its numpy twin takes a few milliseconds. The README's test command runs every test function, but of
the cases that compile (marked ``numba`` or ``subprocess``) only a sample, one in ``COMPILED_SHARE``
of each test function's cases (at least one); the others, and every test measured longer than
``LONG_S`` seconds, are the long tail, marked ``slow``, which CI runs after the default run
(``python -m pytest -q -n auto -m slow``; ``-m ''`` runs everything at once).

``-m quick`` is a subset of the default run for the edit-test loop: one in ``QUICK_SHARE`` of each test
function's cases among those that compile nothing and were measured under ``QUICK_S`` seconds.

Samples are chosen by a digest of the node id, so every pytest process (each xdist worker) makes
the same choice. Measured durations live in ``tests/durations.txt`` (tests of ``QUICK_S`` seconds or
more); refresh it from a JUnit report of a full run (or of the test files changed):

    python -m pytest -q -n auto -m '' --junitxml=report.xml
    python tests/suite_split.py report.xml
"""
import collections
import sys
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path

import pytest

DURATIONS = Path(__file__).with_name("durations.txt")
#: a test measured this long (seconds) is in the long tail
LONG_S = 2.5
#: a test measured this long or longer is not in the quick subset
QUICK_S = 1.0
#: the default run keeps one in this many of a test function's compiling cases
COMPILED_SHARE = 4
#: the quick subset keeps one in this many of a test function's other cases
QUICK_SHARE = 4
COMPILING_MARKS = ("numba", "subprocess")


def measured():
    """{node id: seconds} of the tests measured ``QUICK_S`` seconds or more."""
    if not DURATIONS.exists():
        return {}
    seconds = {}
    for line in DURATIONS.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            value, node = line.split(None, 1)
            seconds[node] = float(value)
    return seconds


def _samples(items, share):
    """The items kept: one in ``share`` of each test function's items, chosen by node-id digest."""
    by_function = collections.defaultdict(list)
    for item in items:
        by_function[item.nodeid.split("[")[0]].append(item)
    kept = set()
    for group in by_function.values():
        group.sort(key=lambda item: zlib.crc32(item.nodeid.encode()))
        kept.update(id(item) for item in group[::share])
    return kept


def mark(items):
    """Marks each collected item ``slow`` (the long tail) or ``quick`` (the edit-test subset)."""
    seconds = measured()
    compiling = [item for item in items if any(m in item.keywords for m in COMPILING_MARKS)]
    sampled = _samples([item for item in compiling if seconds.get(item.nodeid, 0.0) < LONG_S], COMPILED_SHARE)
    plain = []
    for item in items:
        took = seconds.get(item.nodeid, 0.0)
        if took >= LONG_S or (item in compiling and id(item) not in sampled):
            item.add_marker(pytest.mark.slow)
        elif item not in compiling and took < QUICK_S:
            plain.append(item)
    quick = _samples(plain, QUICK_SHARE)
    for item in plain:
        if id(item) in quick:
            item.add_marker(pytest.mark.quick)


def update(report):
    """Rewrites the entries of ``durations.txt`` for the tests in the JUnit ``report`` (of a full run, or
    of the files changed: the other entries stay)."""
    rows = measured()
    for case in ET.parse(report).getroot().iter("testcase"):
        took = float(case.get("time") or 0.0)
        node = f"{case.get('classname').replace('.', '/')}.py::{case.get('name')}"
        rows.pop(node, None)
        if took >= QUICK_S:
            rows[node] = took
    header = ("# seconds and node id of each test measured 1 s or more (tests/suite_split.py reads it;\n"
              "# `python tests/suite_split.py report.xml` rewrites it from a JUnit report of a full run)\n")
    DURATIONS.write_text(header + "".join(f"{took:.1f} {node}\n" for node, took in sorted(rows.items())))
    print(f"{len(rows)} tests of {QUICK_S:g} s or more written to {DURATIONS}")


if __name__ == "__main__":
    update(sys.argv[1])
