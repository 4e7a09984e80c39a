"""The disk cache: generated modules are files under $TRANSPYLE_CACHE_DIR, compiled with Numba's
disk cache there, so a second process starts warm; edits to the user's code are picked up; a
damaged cache file is regenerated; two processes compiling at once both succeed and leave a cache
the next one uses. Each test runs fresh Python processes on a module it writes.
"""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = [pytest.mark.subprocess, pytest.mark.numba]

MODEL = textwrap.dedent('''\
    import numpy as np

    SCALE = 2.0


    def helper(x):
        return x * x


    def f(x):
        return SCALE * np.sum(helper(x))
    ''')

RUNNER = textwrap.dedent('''\
    import json
    import sys

    import numpy as np

    import transpyle
    import model

    options = {"backend": sys.argv[1]} if len(sys.argv) > 1 else {}
    g = transpyle.grad(model.f, **options)(np.array([0.5, 1.0, 1.5]))
    print(json.dumps([float(v) for v in g]))
    ''')

X = np.array([0.5, 1.0, 1.5])


@pytest.fixture
def project(tmp_path):
    """A directory with model.py and run.py; run.py prints the gradient of model.f at X."""
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "run.py").write_text(RUNNER)
    return tmp_path


def gradient_env(project, **env_vars):
    env = dict(os.environ)
    for name in ("NUMBA_CACHE_DIR", "TRANSPYLE_BACKEND"):
        env.pop(name, None)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(project)])
    env["TRANSPYLE_CACHE_DIR"] = str(project / "cache")
    env["PYTHONDONTWRITEBYTECODE"] = "1"     # model.py is edited within the same second: no stale .pyc
    env.update(env_vars)
    return env


def run_gradient(project, *argv, **env_vars):
    result = subprocess.run([sys.executable, "run.py", *argv], cwd=project, env=gradient_env(project, **env_vars),
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return np.array(json.loads(result.stdout.strip().splitlines()[-1]))


def cache_files(project, suffixes):
    """{path relative to the cache dir: modification time in ns} for the files with these suffixes."""
    cache = project / "cache"
    return {str(p.relative_to(cache)): p.stat().st_mtime_ns
            for p in cache.rglob("*") if p.is_file() and p.suffix in suffixes}


def test_second_process_starts_from_the_cache(project):
    first = run_gradient(project)
    np.testing.assert_allclose(first, 2.0 * 2.0 * X, rtol=1e-12)
    generated = cache_files(project, {".py"})
    compiled = cache_files(project, {".nbi", ".nbc"})
    assert generated, "no generated module was written under TRANSPYLE_CACHE_DIR"
    assert any(name.endswith(".nbi") for name in compiled), "numba wrote no cache index (cache=True)"

    second = run_gradient(project)
    np.testing.assert_array_equal(second, first)
    # warm start: the generated modules are not rewritten and nothing is compiled again
    assert cache_files(project, {".py"}) == generated
    assert cache_files(project, {".nbi", ".nbc"}) == compiled


def test_editing_a_helper_changes_the_gradient(project):
    np.testing.assert_allclose(run_gradient(project), 4.0 * X, rtol=1e-12)
    (project / "model.py").write_text(MODEL.replace("return x * x", "return x * x * x"))
    np.testing.assert_allclose(run_gradient(project), 6.0 * X ** 2, rtol=1e-12)
    (project / "model.py").write_text(MODEL)
    np.testing.assert_allclose(run_gradient(project), 4.0 * X, rtol=1e-12)


def test_editing_a_module_constant_changes_the_gradient(project):
    np.testing.assert_allclose(run_gradient(project), 4.0 * X, rtol=1e-12)
    (project / "model.py").write_text(MODEL.replace("SCALE = 2.0", "SCALE = 3.25"))
    np.testing.assert_allclose(run_gradient(project), 6.5 * X, rtol=1e-12)


def test_corrupted_cache_file_is_regenerated(project):
    expected = run_gradient(project)
    generated = [project / "cache" / name for name in cache_files(project, {".py"})]
    assert generated
    for path in generated:
        path.write_text("this is not python ((((\n")
    np.testing.assert_array_equal(run_gradient(project), expected)
    for path in project.joinpath("cache").rglob("*.py"):
        compile(path.read_text(), str(path), "exec")


def test_backend_from_environment(project):
    g = run_gradient(project, TRANSPYLE_BACKEND="numpy")
    np.testing.assert_allclose(g, 4.0 * X, rtol=1e-12)
    assert not cache_files(project, {".nbi", ".nbc"}), "TRANSPYLE_BACKEND=numpy still compiled with numba"


def test_backend_keyword_overrides_environment(project):
    g = run_gradient(project, "numpy", TRANSPYLE_BACKEND="numba")
    np.testing.assert_allclose(g, 4.0 * X, rtol=1e-12)
    assert not cache_files(project, {".nbi", ".nbc"}), "backend='numpy' still compiled with numba"


def test_two_processes_compiling_the_same_function_at_once(project):
    env = gradient_env(project)
    procs = [subprocess.Popen([sys.executable, "run.py"], cwd=project, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [err for _, err in results]
    for out, _ in results:
        np.testing.assert_allclose(json.loads(out.strip().splitlines()[-1]), 4.0 * X, rtol=1e-12)
    compiled = cache_files(project, {".nbi", ".nbc"})
    assert compiled
    np.testing.assert_allclose(run_gradient(project), 4.0 * X, rtol=1e-12)
    assert cache_files(project, {".nbi", ".nbc"}) == compiled      # the third process found both's work

