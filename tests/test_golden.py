"""The generated source of representative functions, in every mode, is unchanged byte for byte
(``tests/golden/``; regenerate with ``python tests/golden_programs.py --update`` after an intended
change and read the diff)."""
import difflib
import os

import pytest

import golden_programs as programs

CASES = programs.cases()


@pytest.mark.parametrize("name,fun,kinds,mode", CASES, ids=[c[0] for c in CASES])
def test_generated_source_is_unchanged(name, fun, kinds, mode):
    with open(programs.golden_path(name)) as fh:
        expected = fh.read()
    got = programs.generated(fun, kinds, mode)
    if got != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), got.splitlines(True), "golden", "now"))
        pytest.fail(f"the generated source of {name} changed "
                    f"(python tests/golden_programs.py --update if intended):\n{diff}")


def test_every_golden_file_belongs_to_a_case():
    names = {os.path.basename(programs.golden_path(c[0])) for c in CASES}
    assert set(os.listdir(programs.GOLDEN_DIR)) == names
