"""backend="cuda": vmapped functions and their derivatives as CUDA kernels, checked against the
numpy backend. Without a GPU these run in Numba's CUDA simulator (set up here, before anything
imports numba.cuda), on small batches; ``cpu``-implementation cases compile the same kernel
module with Numba's CPU target, which type-checks the device code as the simulator does not.
tests/gpu/ runs checks like these on a real GPU.
"""
import importlib.util
import json
import math
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

if "numba.cuda" not in sys.modules:          # the simulator is chosen when numba.cuda is first imported
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"

if importlib.util.find_spec("numba_cuda") is None:
    pytest.skip("numba-cuda is not installed (pip install 'transpyle[cuda]')", allow_module_level=True)

import transpyle  # noqa: E402
from transpyle.base import cuda_api
from transpyle.api import gpu  # noqa: E402
from transpyle.base.errors import TranspileError  # noqa: E402
from transpyle.base.kinds import parse_kind  # noqa: E402

try:
    cuda_api.load()
except TranspileError as exc:           # numba.cuda was imported earlier without the simulator, and no GPU
    pytest.skip(f"no GPU and the simulator could not be enabled: {exc}", allow_module_level=True)

from numba import cuda  # noqa: E402

B = 40          # more than the simulator's 2 blocks x 16 threads: the grid-stride loop runs


def pendulum(g, c, x0, n):
    """Damped pendulum, explicit Euler: the final angle."""
    x, v = x0, 0.0
    dt = 0.05
    for i in range(n):
        a = -g * math.sin(x) - c * v
        x = x + dt * v
        v = v + dt * a
    return x


def pendulum20(g, c, x0):
    return pendulum(g, c, x0, 20)


def halving(x, s):
    """A while loop on data (a trip count per thread) and branches."""
    k = 0
    while x > 1.0:
        x = x * 0.5 + s * np.sin(x)
        k += 1
    if k > 2:
        x = x * np.exp(-s)
    else:
        x = x + s * s
    return x + 0.1 * k


def two_results(x, y):
    return x * y, np.tanh(x) - y


STEPS = 6            # a module constant: a static size
LONG = 100           # more than passes.workspace.LOCAL_MAX: a global workspace column per thread


def powers(x, s):
    """In-place writes into an array of constant size (a thread-local array)."""
    a = np.zeros(STEPS)
    for i in range(STEPS):
        a[i] = x * (i + 1)
    t = 0.0
    for i in range(STEPS):
        t += np.sin(a[i]) * s
    return t


def differences(u, s):
    """An array sized by an argument's shape (the global workspace), written in place."""
    w = np.empty_like(u)
    for i in range(u.shape[0]):
        w[i] = u[i] * s
    r = 0.0
    for i in range(1, u.shape[0]):
        r += (w[i] - w[i - 1]) ** 2
    return r


def long_history(x):
    h = np.zeros(LONG)
    h[0] = x
    for i in range(1, LONG):
        h[i] = 0.9 * h[i - 1] + 0.01 * np.cos(h[i - 1])
    return h[LONG - 1]


def logistic_loss(w, x, y):
    z = 0.0
    for j in range(x.shape[0]):
        z += w[j] * x[j]
    if z >= 0.0:
        return math.log1p(math.exp(-z)) + (1.0 - y) * z
    return math.log1p(math.exp(z)) - y * z


def nested(u, s):
    """Nested loops overwriting a scalar: a tape of u.shape[0] * 3 values per example."""
    t = 0.0
    for i in range(u.shape[0]):
        for k in range(3):
            t = np.sin(t * s + u[i])
    return t


def many_scalars(a, b, c, d, e, f, g, h, k):
    return a * b + np.sin(c) * d - e / (1.0 + f * f) + g * h * k


def squared_error(w, b, x, y):
    z = b
    for j in range(x.shape[0]):
        z += w[j] * x[j]
    return (z - y) ** 2


def total_error(w, b, x, y):
    return np.sum(transpyle.vmap(squared_error, in_axes=(None, None, 0, 0))(w, b, x, y))


def mean_error(w, b, x, y):
    return np.mean(transpyle.vmap(squared_error, in_axes=(None, None, 0, 0))(w, b, x, y))


def not_a_sum(w, b, x, y):
    return np.max(transpyle.vmap(squared_error, in_axes=(None, None, 0, 0))(w, b, x, y))


def decay(u, x):
    while x > 1.0:
        x = x * 0.5 + u[0] * x
    return x


@pytest.fixture
def pendulum_inputs(rng):
    return rng.uniform(5.0, 10.0, B), rng.uniform(0.1, 0.5, B), rng.uniform(-1.0, 1.0, B)


def both(transform, *args):
    """The cuda result and the numpy backend's, for ``transform(backend=...)``."""
    return transform("cuda")(*args), transform("numpy")(*args)


def assert_same(got, want, rtol=1e-12):
    got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert isinstance(a, np.ndarray) and a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_vmap_of_a_loop(pendulum_inputs, dtype):
    g, c, x0 = (a.astype(dtype) for a in pendulum_inputs)
    got, want = both(lambda be: transpyle.vmap(pendulum20, backend=be), g, c, x0)
    assert_same(got, want, rtol=1e-12 if dtype == np.float64 else 1e-5)


def test_unbatched_arguments_and_tuple_results(rng):
    x, y = rng.normal(size=B), 0.7
    got, want = both(lambda be: transpyle.vmap(two_results, in_axes=(0, None), backend=be), x, y)
    assert_same(got, want)


def test_per_example_gradient_of_a_loop_uses_forward_mode(pendulum_inputs):
    grad = transpyle.grad(pendulum20, argnums=(0, 1))
    got, want = both(lambda be: transpyle.vmap(grad, backend=be), *pendulum_inputs)
    assert_same(got, want)
    fd = (transpyle.vmap(pendulum20, backend="numpy")(pendulum_inputs[0] + 1e-6, *pendulum_inputs[1:]) -
          transpyle.vmap(pendulum20, backend="numpy")(pendulum_inputs[0] - 1e-6, *pendulum_inputs[1:])) / 2e-6
    np.testing.assert_allclose(got[0], fd, rtol=1e-5, atol=1e-7)
    _, text, spec, _ = gpu.build(grad, (parse_kind("f8[:]"),) * 3, 0, 0)
    assert spec.mode == "forward" and "_jvp" in text and "_tape" not in text


def test_value_and_grad_of_a_while_loop_with_branches(rng):
    x = np.concatenate([rng.uniform(0.2, 0.9, B // 2), rng.uniform(2.0, 60.0, B - B // 2)])
    s = rng.uniform(0.01, 0.1, B)
    vg = transpyle.value_and_grad(halving)
    assert_same(*both(lambda be: transpyle.vmap(vg, backend=be), x, s))
    g = transpyle.grad(halving, argnums=(0, 1))
    assert_same(*both(lambda be: transpyle.vmap(g, backend=be), x, s))


def test_arrays_created_in_the_body_live_in_local_arrays_or_the_workspace(rng):
    x, s, u = rng.normal(size=B), rng.uniform(0.5, 1.5, B), rng.normal(size=(B, 5))
    grad = transpyle.grad(powers, argnums=(0, 1))
    assert_same(*both(lambda be: transpyle.vmap(grad, backend=be), x, s))
    vg = transpyle.value_and_grad(differences, argnums=1)
    assert_same(*both(lambda be: transpyle.vmap(vg, backend=be), u, s))
    assert_same(*both(lambda be: transpyle.vmap(transpyle.grad(long_history), backend=be), x))
    f8 = parse_kind("f8[:]")
    local = gpu.build(grad, (f8, f8), 0, 0)
    assert "cuda.local.array(6, np.float64)" in local[1] and not local[2].workspace
    column = gpu.build(vg, (parse_kind("f8[:, :]"), f8), 0, 0)
    assert "[:, _thread" in column[1] and len(column[2].workspace) == 2      # w and its tangent


def test_per_example_gradient_of_an_array_uses_reverse_mode(rng):
    d = 7
    w, X, y = rng.normal(size=d), rng.normal(size=(B, d)), rng.integers(0, 2, B).astype(np.float64)
    grad = transpyle.grad(logistic_loss)
    got, want = both(lambda be: transpyle.vmap(grad, in_axes=(None, 0, 0), backend=be), w, X, y)
    assert_same(got, want)
    assert got.shape == (B, d)
    W = rng.normal(size=(B, d))                        # a parameter vector per example
    assert_same(*both(lambda be: transpyle.vmap(transpyle.value_and_grad(logistic_loss), backend=be), W, X, y))
    f8, f8_2 = parse_kind("f8[:]"), parse_kind("f8[:, :]")
    _, text, spec, _ = gpu.build(grad, (f8, f8_2, f8), (None, 0, 0), 0)
    assert spec.mode == "reverse" and [b.array for b in spec.out_buffers] == ["bw"]


def test_reverse_mode_tapes_are_sized_before_launch(rng):
    u, s = rng.normal(size=(B, 5)), rng.uniform(0.5, 1.5, B)
    grad = transpyle.grad(nested, argnums=(0, 1))
    assert_same(*both(lambda be: transpyle.vmap(grad, backend=be), u, s))
    _, text, spec, _ = gpu.build(grad, (parse_kind("f8[:, :]"), parse_kind("f8[:]")), 0, 0)
    tape = next(b for b in spec.workspace if b.array.startswith("_tape"))
    assert tape.rows_value((u, s), (0, 0)) == 5 * 3 and "rt." not in text
    # more than FORWARD_MAX_SCALARS scalars: reverse mode too
    args = [rng.normal(size=B) for _ in range(9)]
    grad = transpyle.grad(many_scalars, argnums=tuple(range(9)))
    assert_same(*both(lambda be: transpyle.vmap(grad, backend=be), *args))


@pytest.mark.parametrize("deterministic", [False, True])
def test_gradient_of_a_sum_over_a_batch_is_reduced_across_threads(rng, deterministic):
    w, b, X, y = rng.normal(size=5), 0.3, rng.normal(size=(B, 5)), rng.normal(size=B)
    for f, T, argnums in [(total_error, transpyle.grad, (0, 1)), (mean_error, transpyle.value_and_grad, 0),
                          (mean_error, transpyle.grad, (0, 2))]:      # x is batched: its gradient per example
        got = T(f, argnums=argnums, backend="cuda", deterministic=deterministic)(w, b, X, y)
        # the numba backend for one case (compiling is slow), the numpy backend for the others
        want = T(f, argnums=argnums, backend="numba" if f is total_error else "numpy")(w, b, X, y)
        for g, v in zip(got, want):
            assert np.shape(g) == np.shape(v)
            np.testing.assert_allclose(g, v, rtol=1e-12, atol=1e-12)


def test_what_a_reduced_gradient_must_look_like(rng):
    w, X, y = rng.normal(size=5), rng.normal(size=(B, 5)), rng.normal(size=B)
    with pytest.raises(TranspileError, match=r"test_cuda\.py:\d+: .*sum or mean over a batch, and this return value "
                                             r"is not np\.sum(.|\n)*hint: write the function as"):
        transpyle.grad(not_a_sum, backend="cuda")(w, 0.3, X, y)


def test_device_arrays_are_used_in_place_and_results_stay_on_the_device(pendulum_inputs):
    g, c, x0 = pendulum_inputs
    f = transpyle.vmap(transpyle.grad(pendulum20), in_axes=(0, None, 0), backend="cuda")
    out = f(cuda.to_device(g), 0.3, cuda.to_device(x0))
    assert cuda_api.is_device_array(out) and not isinstance(out, np.ndarray)
    want = transpyle.vmap(transpyle.grad(pendulum20), in_axes=(0, None, 0), backend="numpy")(g, 0.3, x0)
    np.testing.assert_allclose(out.copy_to_host(), want, rtol=1e-12)


def test_jit_of_vmap(pendulum_inputs):
    got = transpyle.jit(transpyle.vmap(pendulum20), backend="cuda")(*pendulum_inputs)
    assert_same(got, transpyle.vmap(pendulum20, backend="numpy")(*pendulum_inputs))


def test_cpu_implementation_type_checks_the_kernel_module(monkeypatch, pendulum_inputs):
    """The same module compiled by Numba's CPU target: typing errors the simulator would not show."""
    monkeypatch.setenv("TRANSPYLE_CUDA_IMPL", "cpu")
    grad = transpyle.grad(pendulum20, argnums=(0, 1))
    assert_same(*both(lambda be: transpyle.vmap(grad, backend=be), *pendulum_inputs))
    vg = transpyle.value_and_grad(differences, argnums=1)         # local arrays, workspace columns
    u, s = pendulum_inputs[0].reshape(8, 5), pendulum_inputs[1][:8]
    assert_same(*both(lambda be: transpyle.vmap(vg, backend=be), u, s))
    assert_same(*both(lambda be: transpyle.vmap(transpyle.grad(powers), backend=be), u[:, 0], s))
    grad = transpyle.grad(nested, argnums=(0, 1))                 # reverse mode: tapes, array results
    assert_same(*both(lambda be: transpyle.vmap(grad, backend=be), u, s))


def test_what_a_thread_cannot_do_is_an_error_at_the_line(rng):
    def makes_array(x):
        return np.sum(x * x)

    with pytest.raises(TranspileError, match=r"test_cuda\.py:\d+: .*x \* x.*CUDA thread cannot"):
        transpyle.vmap(makes_array, backend="cuda")(rng.normal(size=(B, 3)))

    def array_result(x):
        return x * 2.0

    with pytest.raises(TranspileError, match=r"return x \* 2\.0: creates a new array"):
        transpyle.vmap(array_result, backend="cuda")(rng.normal(size=(B, 3)))

    def returns_an_argument(x):
        return x

    with pytest.raises(TranspileError, match="result 'x' is an array that the cuda backend cannot place"):
        transpyle.vmap(returns_an_argument, backend="cuda")(rng.normal(size=(B, 3)))
    def data_sized(x):
        n = int(x * 3.0) + 1
        a = np.zeros(n)
        return a[0] + x

    with pytest.raises(TranspileError, match=r"test_cuda\.py:\d+: a = np.zeros\(n\): the size of 'a' is not known "
                                             r"before the kernel is launched(.|\n)*static_argnums"):
        transpyle.vmap(data_sized, backend="cuda")(rng.normal(size=B))

    def in_loop(x):
        t = 0.0
        for i in range(3):
            a = np.zeros(STEPS)
            a[i] = x
            t += a[i]
        return t

    with pytest.raises(TranspileError, match="inside a loop"):
        transpyle.vmap(in_loop, backend="cuda")(rng.normal(size=B))
    with pytest.raises(TranspileError, match=r"test_cuda\.py:\d+: while x > 1\.0:: reverse mode records .*while "
                                             r"loop's trip count depends on the data(.|\n)*forward mode"):
        transpyle.vmap(transpyle.grad(decay), backend="cuda")(rng.normal(size=(B, 2)), rng.uniform(2, 5, B))
    with pytest.raises(TranspileError, match="compiles batched functions"):
        transpyle.jacfwd(pendulum20, backend="cuda")(1.0, 0.1, 0.2)
    with pytest.raises(TranspileError, match="differentiates a sum or mean over a batch"):
        transpyle.grad(pendulum20, backend="cuda")(1.0, 0.1, 0.2)


@pytest.mark.subprocess
def test_without_a_gpu_or_the_simulator_the_error_says_what_to_do(tmp_path):
    script = tmp_path / "no_gpu.py"
    script.write_text(textwrap.dedent("""
        import numpy as np, transpyle

        def double(x):
            return x * 2.0

        try:
            transpyle.vmap(double, backend="cuda")(np.ones(3))
            print("ran")
        except transpyle.TranspileError as exc:
            print(exc)
    """))
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                         env.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120)
    if out.stdout.strip() == "ran":
        pytest.skip("this machine has a GPU")
    assert "found no usable GPU" in out.stdout and "NUMBA_ENABLE_CUDASIM=1" in out.stdout, out.stdout + out.stderr


COMPILED_MODEL = '''
import math
import numpy as np


def loss(w, x, y):
    z = 0.0
    for j in range(x.shape[0]):
        z += w[j] * x[j]
    return math.log1p(math.exp(-z)) + (1.0 - y) * z, z


def stencil(u, s):
    w = np.empty_like(u)
    for i in range(u.shape[0]):
        w[i] = u[i] * s
    r = 0.0
    for i in range(1, u.shape[0]):
        r += math.sin(w[i] - w[i - 1]) ** 2
    return r
'''

COMPILED_USE = '''
import sys
sys.modules["transpyle"] = None             # the compiled module must not need it
import json
import numpy as np
import model_cuda
rng = np.random.default_rng(0)
w, X, y = rng.normal(size=4), rng.normal(size=(40, 4)), rng.normal(size=40)
U, s = rng.normal(size=(40, 6)), rng.normal(size=40)
value, z = model_cuda.loss_vmap(w, X, y)
print(json.dumps({"loss": [value.tolist(), z.tolist()], "stencil": model_cuda.stencil_vmap(U, s).tolist()}))
'''


@pytest.mark.subprocess
def test_compiled_cuda_module_runs_without_transpyle(tmp_path):
    from transpyle.api.aot import compile_module
    (tmp_path / "model.py").write_text(COMPILED_MODEL)
    (tmp_path / "use.py").write_text(COMPILED_USE)
    text = compile_module(str(tmp_path / "model.py"), ["loss", "stencil"], modes=("vmap",), backend="cuda",
                          kinds={"loss": ["f8[:]", "f8[:]", "f8"], "stencil": ["f8[:]", "f8"]},
                          in_axes={"loss": (None, 0, 0), "stencil": 0})
    assert "import transpyle" not in text and "from transpyle" not in text and "@cuda.jit\ndef loss_kernel(" in text
    (tmp_path / "model_cuda.py").write_text(text)
    env = dict(os.environ, PYTHONPATH="", NUMBA_ENABLE_CUDASIM="1")
    run = subprocess.run([sys.executable, "use.py"], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)
    import importlib
    sys.path.insert(0, str(tmp_path))
    try:
        model = importlib.import_module("model")
    finally:
        sys.path.remove(str(tmp_path))
    rng = np.random.default_rng(0)
    w, X, y = rng.normal(size=4), rng.normal(size=(40, 4)), rng.normal(size=40)
    U, s = rng.normal(size=(40, 6)), rng.normal(size=40)
    want = transpyle.vmap(model.loss, in_axes=(None, 0, 0), backend="numpy")(w, X, y)
    np.testing.assert_allclose(got["loss"], want, rtol=1e-12)
    np.testing.assert_allclose(got["stencil"], transpyle.vmap(model.stencil, backend="numpy")(U, s), rtol=1e-12)
