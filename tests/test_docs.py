"""docs/subset.md lists every primitive of the rule tables, so the documented subset cannot drift."""
from pathlib import Path

from transpyle import rules

SUBSET = (Path(__file__).resolve().parents[1] / "docs" / "subset.md").read_text()

# internal primitives that the passes write, not the user
INTERNAL = {key for key in rules.all_primitives() if key.startswith("rt.")}


def test_every_primitive_is_documented():
    missing = [key for key in rules.all_primitives() if key not in INTERNAL and f"`{key}`" not in SUBSET]
    assert not missing, f"add these to docs/subset.md: {missing}"
