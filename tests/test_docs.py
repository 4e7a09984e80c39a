"""docs/subset.md lists every primitive of the rule tables, so the documented subset cannot drift."""
from pathlib import Path

from transpyle import rules

SUBSET = (Path(__file__).resolve().parents[1] / "docs" / "subset.md").read_text()

# internal primitives that the passes write, not the user
INTERNAL = {key for key in rules.all_primitives() if key.startswith("rt.")}


def test_every_primitive_is_documented():
    missing = [key for key in rules.all_primitives() if key not in INTERNAL and f"`{key}`" not in SUBSET]
    assert not missing, f"add these to docs/subset.md: {missing}"


# ---- every command and code block of README.md and docs/ runs ------------------------------------
# Code blocks: ```python blocks run, in order, as one script per document (functions need a file for
# transforms to read their source), on the numpy backend (compiles are not what the docs show). A
# block may be preceded by an HTML comment:
#   <!-- setup: CODE -->         CODE runs first (the names a fragment uses)
#   <!-- output of: COMMAND -->  the block's lines appear, in order, in COMMAND's output ('...' elides)
#   <!-- excerpt of: PATH -->    the block's lines appear in that file of the repository
#   <!-- not run: REASON -->     compiled, not run; REASON is one of NOT_RUN
# Commands: every `transpyle ...` and `python examples/...` command, in an indented block or inline,
# runs in a copy of the examples; the others are listed in NOT_RUN_COMMANDS with the reason.
import os
import re
import shutil
import subprocess
import sys

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
NOT_RUN = {"needs a GPU", "needs a dask cluster", "a sketch of code to write", "the shape of a rule-table entry"}
NOT_RUN_COMMANDS = {
    "pip install": "installs packages",
    "python -m pytest": "the test suite itself",
    "python -m tests.fuzz_programs": "runs for an hour",
    "python tests/": "rewrites the repository's pinned files",
    "python benchmarks/": "timings, minutes each",
}
_FENCE = re.compile(r"^```(\w*)\s*$")
_NOTE = re.compile(r"<!--\s*(setup|output of|excerpt of|not run):\s*(.*?)\s*-->", re.S)


def code_blocks(path):
    """[(line, language, code, {note: text})] of a markdown file."""
    text = path.read_text()
    lines = text.splitlines()
    blocks, i, previous = [], 0, 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start, language = i, m.group(1)
        j = i + 1
        while not lines[j].startswith("```"):
            j += 1
        # the notes: HTML comments between the previous block and this one, the last ending just above it
        before = "\n".join(lines[previous:start]).rstrip()
        notes = {}
        if before.endswith("-->"):
            notes = dict(_NOTE.findall(before[before.rfind("<!--"):]))
        blocks.append((start + 1, language, "\n".join(lines[start + 1:j]), notes))
        i = previous = j + 1
    return blocks


def commands(path):
    """The shell commands of a markdown file: indented blocks (outside fences) and inline ones."""
    text = path.read_text()
    outside = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    found = [line.strip() for line in outside.splitlines() if line.startswith("    ") and not line.startswith("     ")
             and re.match(r"\s+(transpyle|python|pip) ", line)]
    found += re.findall(r"`((?:transpyle|python) [^`]+)`", outside)
    parts = []
    for command in dict.fromkeys(found):
        parts += [p.strip() for p in command.split("&&")]
    return [p for p in dict.fromkeys(parts) if p.startswith(("transpyle ", "python ", "pip "))]


def is_pattern(command):
    """A command's shape rather than a command: a placeholder (FILE.py, NAME, ...), or a command named
    without what it works on (`transpyle show`)."""
    words = command.split()
    if "..." in command or re.search(r"\b[A-Z]{1,}[A-Z_]*\b(?=[.:\s]|$)", command.split("--")[0]):
        return True
    return words[0] == "transpyle" and words[1] in ("show", "compile") and \
        not any(w.endswith(".py") or ".py:" in w or ":" in w for w in words[2:])


def _environment(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT), TRANSPYLE_BACKEND="numpy")
    return env


def _copy_examples(tmp_path):
    shutil.copytree(ROOT / "examples", tmp_path / "examples", ignore=shutil.ignore_patterns("__pycache__", "*.png"))
    return tmp_path


def _run(command, cwd, env):
    words = command.split(" ", 1)
    if words[0] == "transpyle":
        command = f"{sys.executable} -m transpyle {words[1]}"
    elif words[0] == "python":
        command = f"{sys.executable} {words[1]}"
    return subprocess.run(command, shell=True, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


def _appears_in_order(block, text):
    """Whether the lines of ``block`` appear in ``text`` in order (a line '...' or '...' inside one elides)."""
    position = 0
    for line in block.splitlines():
        if not line.strip() or line.strip() == "...":
            continue
        pattern = ".*?".join(re.escape(part) for part in line.strip().split("..."))
        found = re.compile(pattern).search(text, position)
        if not found:
            return False, line
        position = found.end()
    return True, None


ALL_BLOCKS = [(path, *block) for path in DOCUMENTS for block in code_blocks(path)]
ALL_COMMANDS = [(path, command) for path in DOCUMENTS for command in commands(path)]


@pytest.mark.subprocess
@pytest.mark.parametrize("path", [p for p in DOCUMENTS if any(b[1] == "python" for b in code_blocks(p))],
                         ids=lambda p: p.name)
def test_python_blocks_run(path, tmp_path):
    script = ["import os", "os.environ.setdefault('TRANSPYLE_BACKEND', 'numpy')"]
    for line, language, code, notes in code_blocks(path):
        if language != "python" or {"output of", "excerpt of"} & set(notes):
            continue
        if "not run" in notes:
            assert notes["not run"] in NOT_RUN, f"{path.name}:{line}: say why it does not run, one of {NOT_RUN}"
            compile(code, f"{path.name}:{line}", "exec")
            continue
        script += [f"# ---- {path.name}:{line}", notes.get("setup", ""), code]
    (tmp_path / "doc_blocks.py").write_text("\n".join(script) + "\n")
    _copy_examples(tmp_path)
    result = _run("python doc_blocks.py", tmp_path, _environment(tmp_path))
    assert result.returncode == 0, f"a code block of {path.name} fails:\n{result.stdout[-3000:]}\n{result.stderr[-5000:]}"


@pytest.mark.subprocess
@pytest.mark.parametrize("path, line, language, code, notes",
                         [b for b in ALL_BLOCKS if {"output of", "excerpt of"} & set(b[4])],
                         ids=lambda v: v.name if isinstance(v, Path) else str(v)[:20])
def test_shown_output_and_excerpts_match_the_code(path, line, language, code, notes, tmp_path):
    if "excerpt of" in notes:
        text = (ROOT / notes["excerpt of"]).read_text()
    else:
        result = _run(notes["output of"], _copy_examples(tmp_path), _environment(tmp_path))
        assert result.returncode == 0, result.stderr
        text = result.stdout
    ok, missing = _appears_in_order(code, text)
    assert ok, f"{path.name}:{line}: the block's line {missing!r} is not in {notes}"


@pytest.mark.subprocess
@pytest.mark.parametrize("path, command", ALL_COMMANDS, ids=[f"{p.name}: {c[:50]}" for p, c in ALL_COMMANDS])
def test_commands_run(path, command, tmp_path):
    skipped = [reason for prefix, reason in NOT_RUN_COMMANDS.items() if command.startswith(prefix)]
    if skipped:
        pytest.skip(skipped[0])
    if is_pattern(command):
        pytest.skip("a pattern, not a command")
    cwd = _copy_examples(tmp_path)
    files = [w.split(":")[0] for w in command.split() if w.split(":")[0].endswith(".py") and not w.startswith("-")]
    if any(not (cwd / f).exists() for f in files[:1]):
        pytest.skip(f"works on a file of the reader's ({files[0]})")
    result = _run(command, cwd, _environment(tmp_path))
    assert result.returncode == 0, f"{path.name}: `{command}` fails:\n{result.stdout[-2000:]}\n{result.stderr[-3000:]}"


def test_every_numpy_function_written_in_numpy_is_documented():
    from transpyle import twins
    from transpyle.frontend.spellings import library_name
    missing = sorted({library_name(obj) for obj in twins.twinned()} - {n for n in _names_in(SUBSET)})
    assert not missing, f"add these to docs/subset.md: {missing}"


def _names_in(text):
    import re
    return set(re.findall(r"`(np\.[A-Za-z0-9_.]+)`", text))
