"""Representative functions whose generated source is pinned byte for byte (``tests/golden/``).

Each entry is (function, per-example argument kinds, modes). A mode is a transform name as
``transpyle.show`` takes it, ``vmap_loop``/``vmap_array`` for the two vmap strategies (every
argument batched along axis 0), or ``cuda`` for the GPU module of ``vmap(f, backend="cuda")``.

Regenerate after an intended change to generated code, and read the diff before committing:

    python tests/golden_programs.py --update
"""
import os
import sys

import numpy as np

import transpyle
from transpyle import lax

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN_DIR = os.path.join(HERE, "golden")
ROOT = os.path.dirname(HERE)

SCALAR_MODES = ("grad", "value_and_grad", "jvp", "jacfwd", "jacrev", "hessian", "vmap_loop", "vmap_array", "cuda")
ARRAY_MODES = ("vjp", "jvp", "jacfwd", "jacrev", "vmap_loop", "vmap_array")


# ---- straight-line code and reductions ---------------------------------------------------------
def polynomial(x, y):
    z = x * x * y + 3.0 * y
    return z * np.sin(x) - y / (1.0 + x * x)


def softmax_entropy(v):
    e = np.exp(v - np.max(v))
    p = e / np.sum(e)
    return -np.sum(p * np.log(p))


def row_norms(a):
    return np.sqrt(np.sum(a * a, axis=1))


# ---- loops -------------------------------------------------------------------------------------
def loop_sum(x):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + np.sin(x[i]) * x[i]
    return s


def matvec_loops(a, x):
    n, m = a.shape
    y = np.zeros(n)
    for i in range(n):
        for j in range(m):
            y[i] += a[i, j] * x[j]
    return np.sum(y * y)


def newton_sqrt(a):
    x = a
    it = 0
    while abs(x * x - a) > 1e-12 and it < 50:
        x = 0.5 * (x + a / x)
        it += 1
    return x


# ---- branches and early exits ------------------------------------------------------------------
def relu_sum(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0.0:
            s += x[i]
        else:
            s += 0.01 * x[i]
    return s


def first_crossing(x):
    total = 0.0
    for i in range(x.shape[0]):
        if total + x[i] > 2.0:
            break
        total = total + x[i] * x[i]
    return total


def bouncing_ball(h, v):
    dt = 0.01
    for _ in range(100):
        if h + dt * v < 0.0:
            v = -0.9 * v
        h = h + dt * v
        v = v - dt * 9.81
    return h


# ---- in-place writes, views, helpers -----------------------------------------------------------
def heat_1d(u):
    u = u.copy()
    for _ in range(10):
        u[1:-1] = u[1:-1] + 0.1 * (u[2:] - 2.0 * u[1:-1] + u[:-2])
    return np.sum(u * u)


def _accumulate(a, b):
    a += b * b


def helper_in_place(x):
    acc = np.zeros_like(x)
    for _ in range(3):
        _accumulate(acc, x)
    return np.sum(acc * x)


def _leapfrog_step(q, p, dt):
    p = p - 0.5 * dt * q
    q = q + dt * p
    p = p - 0.5 * dt * q
    return q, p


def leapfrog(q, p):
    for _ in range(20):
        q, p = _leapfrog_step(q, p, 0.05)
    return np.sum(q * q + p * p)


def row_view_updates(a):
    b = a.copy()
    for i in range(b.shape[0]):
        row = b[i]
        row *= 2.0
        row += np.sum(a[i])
    return np.sum(b * b)


def gather_scatter(x):
    idx = np.array([0, 2, 2, 1])
    y = x[idx] * 2.0
    z = np.zeros_like(x)
    z[idx] += y
    return np.sum(z * x)


# ---- array outputs -----------------------------------------------------------------------------
def tanh_layer(w, x):
    return np.tanh(w @ x)


def clipped_cumulative(x):
    return np.cumsum(np.where(x > 0.0, x, 0.1 * x))


# ---- custom rules, stop_gradient, lax ----------------------------------------------------------
@transpyle.custom_jvp
def soft_clip(x):
    return np.tanh(x)


@soft_clip.defjvp
def soft_clip_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    y = np.tanh(x)
    return y, t * (1.0 - y * y)


def uses_custom_jvp(x):
    return soft_clip(x) * x


@transpyle.custom_vjp
def scaled_square(x):
    return x * x


def scaled_square_fwd(x):
    return x * x, x


def scaled_square_bwd(x, g):
    return (2.0 * x * g,)


scaled_square.defvjp(scaled_square_fwd, scaled_square_bwd)


def uses_custom_vjp(x):
    return scaled_square(np.sin(x)) + x


def stopped(x, y):
    return x * transpyle.stop_gradient(y * x) + y


def _fori_body(i, c):
    return c * 0.9 + np.sin(c)


def fori(x):
    return lax.fori_loop(0, 5, _fori_body, x)


PROGRAMS = [
    (polynomial, ("f8", "f8"), SCALAR_MODES),
    (softmax_entropy, ("f8[:]",), SCALAR_MODES),
    (row_norms, ("f8[:, :]",), ARRAY_MODES),
    (loop_sum, ("f8[:]",), SCALAR_MODES),
    (matvec_loops, ("f8[:, :]", "f8[:]"), SCALAR_MODES),
    (newton_sqrt, ("f8",), SCALAR_MODES),
    (relu_sum, ("f8[:]",), SCALAR_MODES),
    (first_crossing, ("f8[:]",), SCALAR_MODES),
    (bouncing_ball, ("f8", "f8"), SCALAR_MODES),
    (heat_1d, ("f8[:]",), SCALAR_MODES),
    (helper_in_place, ("f8[:]",), SCALAR_MODES),
    (leapfrog, ("f8[:]", "f8[:]"), SCALAR_MODES),
    (row_view_updates, ("f8[:, :]",), SCALAR_MODES),
    (gather_scatter, ("f8[:]",), SCALAR_MODES),
    (tanh_layer, ("f8[:, :]", "f8[:]"), ARRAY_MODES),
    (clipped_cumulative, ("f8[:]",), ARRAY_MODES),
    (uses_custom_jvp, ("f8",), SCALAR_MODES),
    (uses_custom_vjp, ("f8",), SCALAR_MODES),
    (stopped, ("f8", "f8"), SCALAR_MODES),
    (fori, ("f8",), SCALAR_MODES),
]

#: the pytree case: a dict of parameters, shown from example arguments
PYTREE_ARGS = ({"w": np.ones(3), "b": 0.5}, np.ones(3))


def pytree_loss(params, x):
    return np.sum(np.tanh(params["w"] * x + params["b"]) ** 2)


PYTREE_MODES = ("grad", "jacrev", "vmap_loop")


def cases():
    """(file name, function, kinds or example args, mode) of every pinned output."""
    out = [(f"{f.__name__}.{m}", f, kinds, m) for f, kinds, modes in PROGRAMS for m in modes]
    out += [(f"pytree_loss.{m}", pytree_loss, PYTREE_ARGS, m) for m in PYTREE_MODES]
    return out


def _batched(kinds):
    from transpyle.base.kinds import parse_kind
    return tuple(parse_kind(k).with_ndim(parse_kind(k).ndim + 1) for k in kinds)


def _located(text):
    """The text with this checkout's paths made relative (the same on every machine)."""
    return text.replace(ROOT + os.sep, "").replace(ROOT, ".")


def generated(fun, kinds, mode):
    """The generated module for ``mode`` (or the error it raises, as text)."""
    from transpyle import api
    from transpyle.api import gpu
    try:
        if mode == "cuda":
            text = gpu.build(fun, _batched(kinds), 0, 0)[1]
        elif mode in ("vmap_loop", "vmap_array"):
            strategy = mode.split("_")[1]
            if isinstance(kinds[0], str):
                text = api.show(fun, mode="vmap", kinds=_batched(kinds), strategy=strategy)
            else:
                args = tuple(np.stack([a, a]) if isinstance(a, np.ndarray) else a for a in kinds)
                args = ({k: np.stack([v, v]) if isinstance(v, np.ndarray) else np.array([v, v])
                         for k, v in args[0].items()},) + args[1:]
                text = api.show(fun, mode="vmap", args=args, strategy=strategy)
        elif isinstance(kinds[0], str):
            text = api.show(fun, mode=mode, kinds=kinds)
        else:
            text = api.show(fun, mode=mode, args=kinds)
    except transpyle.TranspileError as exc:
        text = f"# refused: {type(exc).__name__}\n{exc}\n"
    return _located(text)


def golden_path(name):
    return os.path.join(GOLDEN_DIR, name + ".txt")


def update():
    os.makedirs(GOLDEN_DIR, exist_ok=True)
    wanted = set()
    for name, fun, kinds, mode in cases():
        path = golden_path(name)
        wanted.add(os.path.basename(path))
        with open(path, "w") as fh:
            fh.write(generated(fun, kinds, mode))
    for stale in set(os.listdir(GOLDEN_DIR)) - wanted:
        os.remove(os.path.join(GOLDEN_DIR, stale))
    print(f"{len(wanted)} golden files written to {os.path.relpath(GOLDEN_DIR)}")


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit(__doc__)
    sys.path.insert(0, HERE)
    # as the suite runs (conftest): element loops' parallel copies taken from one element on
    os.environ.setdefault("TRANSPYLE_PARALLEL_ELEMENTS", "1")
    import golden_programs          # the functions as the tests see them, not as __main__'s
    golden_programs.update()
