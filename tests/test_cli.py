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


# ---- kinds read from the source, as a new user runs the commands -----------------------------------
PENDULUM = textwrap.dedent('''\
    import numpy as np


    def pendulum(u0, params):
        u = u0.copy()
        dt = params[0]
        for _ in range(100):
            th, om = u[0], u[1]
            u[0] = th + dt * om
            u[1] = om - dt * params[1] * np.sin(th)
        return u[0] ** 2 + u[1] ** 2


    def steps(x, n):
        s = 0.0
        for i in range(n):
            s = s + np.sin(x * i)
        return s


    def mse(w, x, y):
        r = x @ w - y
        return np.sum(r * r)
    ''')


@pytest.fixture
def pend_file(tmp_path):
    path = tmp_path / "pend.py"
    path.write_text(PENDULUM)
    return path


@pytest.mark.parametrize("func, mode", [("pendulum", "grad"), ("pendulum", "hessian"), ("pendulum", "vmap"),
                                        ("steps", "grad"), ("steps", "jit"), ("steps", "vjp")])
def test_show_without_kinds(pend_file, func, mode):
    result = show([f"pend.py:{func}", "--mode", mode], pend_file.parent)
    assert_prints_source(result)
    first = result.stdout.splitlines()[0]
    assert f": {mode} of {func} from pend.py:" in first
    assert ("u0: float64[:], params: float64[:]" if func == "pendulum" else "x: float64, n: int64") in first


def test_show_ambiguous_kinds_is_one_message_naming_the_argument(pend_file):
    result = show(["pend.py:mse"], pend_file.parent)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "'w'" in result.stderr and "f8[:] or f8[:, :]" in result.stderr and "--example" in result.stderr


def test_show_with_an_example_call(pend_file):
    result = show(["pend.py:mse", "--example", "np.ones(3), np.ones((5, 3)), np.ones(5)"], pend_file.parent)
    assert_prints_source(result)
    assert "w: float64[:], x: float64[:, :], y: float64[:]" in result.stdout.splitlines()[0]


def test_show_after_an_unknown_pass_lists_the_pass_names(pend_file):
    result = show(["pend.py:pendulum", "--mode", "jacrev", "--after", "revrse"], pend_file.parent)
    assert result.returncode == 1 and "no pass is named 'revrse'" in result.stderr and "reverse" in result.stderr
    result = show(["pend.py:pendulum", "--mode", "jacrev", "--after", "reverse"], pend_file.parent)
    assert result.returncode == 0 and result.stdout.startswith("# ---- after reverse ----")


def test_compile_writes_the_kinds_it_read_into_the_docstring(pend_file):
    result = run([sys.executable, "-m", "transpyle", "compile", "pend.py", "--function", "pendulum", "--function",
                  "steps", "--mode", "grad", "--backend", "numpy", "-o", "pend_ad.py"], pend_file.parent)
    assert result.returncode == 0, result.stderr
    text = (pend_file.parent / "pend_ad.py").read_text()
    docstring = text.split('"""')[1]
    assert "pendulum: --kinds 'f8[:],f8[:]'" in docstring and "steps: --kinds 'f8,i8'" in docstring
    result = run([sys.executable, "-m", "transpyle", "compile", "pend.py", "--function", "mse", "--backend", "numpy",
                  "--example", "np.ones(3), np.ones((5, 3)), np.ones(5)", "-o", "mse_ad.py"], pend_file.parent)
    assert result.returncode == 0, result.stderr
    assert "mse: --kinds 'f8[:],f8[:, :],f8[:]'" in (pend_file.parent / "mse_ad.py").read_text()


# the examples, batched: kinds read from the source, or given (batched) where the source leaves a choice
EXAMPLE_VMAPS = [
    ("conv1d.py:conv1d", None), ("conv1d.py:fit_loss", None), ("logreg.py:loss", None),
    ("newton_hessian.py:rosenbrock", None), ("per_example_grads.py:example_loss", None), ("selu_mlp.py:selu", None),
    ("spectral_radius.py:spectral_radius", None), ("straight_through.py:quantize", None),
    ("data_parallel.py:loss", "f8[:, :],f8[:, :, :],f8[:, :]"), ("jit_fit.py:ridge", "f8[:, :],f8[:, :, :],f8[:, :]"),
    ("random_keys.py:dropout_loss", "f8[:, :],f8[:, :, :],f8[:, :],i8[:, :],f8[:]"),
    ("selu_mlp.py:loss", "f8[:, :, :],f8[:, :],f8[:, :],f8[:],f8[:, :, :],f8[:, :]"),
    ("straight_through.py:quantized_loss", "f8[:, :],f8[:, :, :],f8[:, :]"),
    ("mlp_pytree.py:loss", "[{'W': 'f8[:, :, :]', 'b': 'f8[:, :]'}, {'W': 'f8[:, :, :]', 'b': 'f8[:, :]'}],"
                           "f8[:, :, :],f8[:, :, :]"),
]


@pytest.mark.parametrize("target, kinds", EXAMPLE_VMAPS, ids=[t for t, _ in EXAMPLE_VMAPS])
def test_show_vmap_of_every_example(target, kinds):
    result = show([target, "--mode", "vmap"] + (["--kinds", kinds] if kinds else []), ROOT / "examples")
    assert_prints_source(result)


def test_compile_names_a_function_as_show_does(pend_file):
    result = run([sys.executable, "-m", "transpyle", "compile", "pend.py:pendulum", "--backend", "numpy", "-o",
                  "one.py"], pend_file.parent)
    assert result.returncode == 0, result.stderr
    assert "pendulum_grad" in (pend_file.parent / "one.py").read_text()
    result = run([sys.executable, "-m", "transpyle", "compile", "pend.py", "-o", "none.py"], pend_file.parent)
    assert result.returncode != 0 and "FILE.py:FUNC or --function" in result.stderr
