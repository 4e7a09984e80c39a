"""``transpyle compile`` / ``compile_module``: generated functions written as a module that imports
neither transpyle (nor numba, for the numpy backend); its results match the in-process transforms,
``--check`` tells a stale module, and problems name the user's file and line."""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import transpyle
from transpyle import TranspileError
from transpyle.api.aot import load_source_module

ROOT = Path(__file__).resolve().parents[1]

MODEL = textwrap.dedent('''\
    import numpy as np

    SCALE = np.ones(3)


    def loss(w, x, y):
        r = 0.0
        for i in range(x.shape[0]):
            p = np.dot(x[i], w)
            r += (p - y[i]) ** 2
        return r / x.shape[0]


    def energy(q, k):
        e = 0.0
        for i in range(q.shape[0] - 1):
            d = q[i + 1] - q[i]
            e += 0.5 * k * d * d + np.cos(q[i])
        return e


    def scaled(w):
        return np.sum(w * SCALE)


    def uses_a_set(w):
        s = {1, 2}
        return np.sum(w)
    ''')

# run in a child process where importing transpyle (and, for the numpy backend, numba) fails
USE = textwrap.dedent('''\
    import json, sys
    sys.modules["transpyle"] = None
    if sys.argv[2] == "numpy":
        sys.modules["numba"] = None
    import numpy as np
    mod = __import__(sys.argv[1])
    rng = np.random.default_rng(0)
    w, x, y = rng.normal(size=3), rng.normal(size=(6, 3)), rng.normal(size=6)
    q = rng.normal(size=5)
    out = {
        "loss": float(mod.loss(w, x, y)),
        "loss_grad": mod.loss_grad(w, x, y).tolist(),
        "loss_jvp": [float(v) for v in mod.loss_jvp(w, x, y, np.ones(3), np.zeros((6, 3)), np.zeros(6))],
        "loss_vmap": mod.loss_vmap(w, np.stack([x, 2 * x]), np.stack([y, y])).tolist(),
        "energy_value_and_grad": [float(mod.energy_value_and_grad(q, 2.0)[0]),
                                  mod.energy_value_and_grad(q, 2.0)[1].tolist()],
        "energy_hessian": mod.energy_hessian(q, 2.0).tolist(),
        "energy_vmap": mod.energy_vmap(np.stack([q, -q]), 2.0).tolist(),
    }
    print(json.dumps(out))
    ''')


@pytest.fixture
def model(tmp_path):
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "use.py").write_text(USE)
    return tmp_path


def cli(args, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "transpyle", "compile", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


COMMAND = ["model.py", "--function", "loss", "--function", "energy",
           "--mode", "primal", "--mode", "grad", "--mode", "jvp", "--mode", "vmap", "--mode", "value_and_grad",
           "--mode", "hessian", "--in-axes", "None,0,0", "--in-axes", "0,None",
           "--kinds", "f8[:],f8[:,:],f8[:]", "--kinds", "f8[:],f8"]


def expected(folder):
    rng = np.random.default_rng(0)
    w, x, y = rng.normal(size=3), rng.normal(size=(6, 3)), rng.normal(size=6)
    q = rng.normal(size=5)
    ns = vars(load_source_module(folder / "model.py"))
    kw = dict(backend="numpy")
    return {
        "loss": ns["loss"](w, x, y),
        "loss_grad": transpyle.grad(ns["loss"], **kw)(w, x, y),
        "loss_jvp": transpyle.jvp(ns["loss"], (w, x, y), (np.ones(3), np.zeros((6, 3)), np.zeros(6)), **kw),
        "loss_vmap": transpyle.vmap(ns["loss"], in_axes=(None, 0, 0), **kw)(w, np.stack([x, 2 * x]),
                                                                             np.stack([y, y])),
        "energy_value_and_grad": transpyle.value_and_grad(ns["energy"], **kw)(q, 2.0),
        "energy_hessian": transpyle.hessian(ns["energy"], **kw)(q, 2.0),
        "energy_vmap": [ns["energy"](q, 2.0), ns["energy"](-q, 2.0)],
    }


@pytest.mark.subprocess
@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=pytest.mark.numba)])
def test_module_runs_without_transpyle(model, backend):
    out_name = f"model_ad_{backend}"
    result = cli(COMMAND + ["--backend", backend, "-o", f"{out_name}.py"], model)
    assert result.returncode == 0, result.stderr
    text = (model / f"{out_name}.py").read_text()
    assert "import transpyle" not in text and "from transpyle" not in text
    assert ("import numba" in text) == (backend == "numba")
    env = dict(os.environ, PYTHONPATH="")
    run = subprocess.run([sys.executable, "use.py", out_name, backend], cwd=model, env=env, capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)
    want = expected(model)
    for key, value in want.items():
        flat_got = np.concatenate([np.ravel(v) for v in got[key]]) if isinstance(value, tuple) else got[key]
        flat_want = np.concatenate([np.ravel(v) for v in value]) if isinstance(value, tuple) else value
        np.testing.assert_allclose(flat_got, flat_want, rtol=1e-12, atol=1e-14, err_msg=key)


@pytest.mark.subprocess
def test_check_tells_a_stale_module(model):
    args = ["model.py", "--function", "loss", "--kinds", "f8[:],f8[:,:],f8[:]", "--backend", "numpy",
            "-o", "model_ad.py"]
    assert cli(args + ["--check"], model).returncode == 1            # missing
    assert cli(args, model).returncode == 0
    assert cli(args + ["--check"], model).returncode == 0
    header = (model / "model_ad.py").read_text().splitlines()[:3]
    assert "model.py (sha256" in header[0] and "transpyle compile model.py" in header[2]
    (model / "model.py").write_text(MODEL.replace("** 2", "** 4"))
    stale = cli(args + ["--check"], model)
    assert stale.returncode == 1 and "stale" in stale.stderr


def test_problems_name_the_file_and_line(model):
    with pytest.raises(TranspileError, match=r"model\.py:\d+.*module-level arrays"):
        transpyle.compile_module(model / "model.py", ["scaled"], kinds=["f8[:]"])
    with pytest.raises(TranspileError, match=r"model\.py:27.*set"):
        transpyle.compile_module(model / "model.py", ["uses_a_set"], kinds=["f8[:]"])
    with pytest.raises(TranspileError, match="has no function 'nope'"):
        transpyle.compile_module(model / "model.py", ["nope"])


def test_module_text_lists_its_functions(model):
    text = transpyle.compile_module(model / "model.py", ["loss"], modes=["grad", "jacrev"],
                                    kinds=["f8[:]", "f8[:, :]", "f8[:]"], backend="numpy")
    assert "loss_grad                    grad of loss" in text
    assert "def loss_jacrev(w, x, y):" in text and "def loss_grad(w, x, y):" in text
    compile(text, "model_ad.py", "exec")


def test_pytree_arguments_become_their_leaves(tmp_path):
    (tmp_path / "net.py").write_text(textwrap.dedent('''\
        import numpy as np


        def loss(params, x):
            return np.sum((x @ params["W"] + params["b"]) ** 2)
        '''))
    kinds = [{"W": "f8[:, :]", "b": "f8[:]"}, "f8[:, :]"]
    text = transpyle.compile_module(tmp_path / "net.py", ["loss"], modes=["grad", "vmap"], kinds=kinds,
                                    in_axes=(None, 0), backend="numpy")
    assert "def loss_grad(params_W, params_b, x):" in text
    ns = {}
    exec(compile(text, "net_ad.py", "exec"), ns)
    rng = np.random.default_rng(1)
    params, x = {"W": rng.normal(size=(3, 2)), "b": rng.normal(size=2)}, rng.normal(size=(4, 3))
    g = transpyle.grad(load_source_module(tmp_path / "net.py").loss, backend="numpy")(params, x)
    got = ns["loss_grad"](params["W"], params["b"], x)
    np.testing.assert_allclose(got[0], g["W"])
    np.testing.assert_allclose(got[1], g["b"])
    assert ns["loss_vmap"](params["W"], params["b"], np.stack([x, x])).shape == (2,)
