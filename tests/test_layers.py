"""The package's layering (``[tool.importlinter]`` in pyproject.toml) holds: no module imports from a
layer above its own, and no import circles between the layers' packages."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_the_import_layers_contract_is_kept():
    result = subprocess.run([sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
                             "sys.exit(lint_imports_command())", "--no-cache"],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "1 kept, 0 broken" in result.stdout
