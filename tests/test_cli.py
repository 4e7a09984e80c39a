"""The command line: ``python -m transpyle show FILE.py:FUNC`` and ``show pkg.module:FUNC`` print the
generated source; problems are reported as one message with file and line, exit status non-zero.
"""
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.subprocess

MODEL = textwrap.dedent('''\
    import math

    import numpy as np


    def energy(x, y):
        return math.sin(x) * y + x ** 2


    def unsupported(a):
        return np.linalg.cond(a)
    ''')


def run(command, cwd, extra_path=()):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *map(str, extra_path)])
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def show(args, cwd, extra_path=()):
    return run([sys.executable, "-m", "transpyle", "show", *args], cwd, extra_path)


def assert_prints_source(result):
    assert result.returncode == 0, result.stderr
    assert "def " in result.stdout
    compile(result.stdout, "<transpyle show>", "exec")      # the printed module is valid Python


@pytest.fixture
def model_file(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(MODEL)
    return path


@pytest.mark.parametrize("mode", ["grad", "primal", "value_and_grad", "vjp"])
def test_show_function_in_file(model_file, mode):
    result = show([f"{model_file}:energy", "--mode", mode, "--argnums", "0"], model_file.parent)
    assert_prints_source(result)


def test_show_relative_path_and_argnums_tuple(model_file):
    result = show(["model.py:energy", "--mode", "grad", "--argnums", "0,1"], model_file.parent)
    assert_prints_source(result)


def test_show_function_in_module(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "physics.py").write_text(MODEL)
    result = show(["pkg.physics:energy", "--mode", "grad"], tmp_path, extra_path=[tmp_path])
    assert_prints_source(result)


def test_show_reports_unsupported_construct_with_file_and_line(model_file):
    result = show([f"{model_file}:unsupported", "--mode", "grad"], model_file.parent)
    assert result.returncode != 0
    line = MODEL.splitlines().index("    return np.linalg.cond(a)") + 1
    assert f"model.py:{line}" in result.stderr
    assert "Traceback" not in result.stderr


def test_show_reports_missing_function(model_file):
    result = show([f"{model_file}:no_such_function", "--mode", "grad"], model_file.parent)
    assert result.returncode != 0
    assert "no_such_function" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.skipif(shutil.which("transpyle") is None, reason="the transpyle console script is not installed")
def test_console_script(model_file):
    result = run(["transpyle", "show", "model.py:energy", "--mode", "grad", "--argnums", "0"], model_file.parent)
    assert_prints_source(result)


@pytest.mark.numba
def test_demo_fits_and_checks_its_gradient(tmp_path):
    result = run([sys.executable, "-m", "transpyle", "demo"], tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "[ok]" in out                      # the finite-difference check passed
    assert "numba backend" in out and "numpy backend" in out
    rows = [line.split() for line in out.splitlines() if line.strip()[:1].isdigit() and len(line.split()) == 3]
    losses = [float(r[1]) for r in rows]
    assert len(losses) >= 3 and losses[-1] < losses[0] - 0.1   # gradient descent made progress


def test_show_with_pytree_kinds(tmp_path):
    (tmp_path / "net.py").write_text("import numpy as np\n\n\ndef loss(params, x):\n"
                                     "    return np.sum((x @ params['W'] + params['b']) ** 2)\n")
    result = show(["net.py:loss", "--kinds", "{'W': 'f8[:, :]', 'b': 'f8[:]'}, f8[:, :]"], tmp_path)
    assert_prints_source(result)
    assert "def loss_grad(params_W, params_b, x):" in result.stdout
