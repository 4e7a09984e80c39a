"""Adjoints handed to a temporary and started again at zero keep their buffer (``transforms/adjoint_handover``).

A loop that rebinds its state (``x = x + dt * f(x)``, ``acc = forces(pos)``) hands the state's adjoint to a
temporary each iteration and starts a new one at zero. The adjoint now stays in its buffer: passed through
where the next contribution is the temporary itself, zeroed in place after the temporary's last read
otherwise. Gradients are checked against central differences on both backends at several sizes; the rewrite
itself is checked on hand-written sweeps where it must apply and where it must not.
"""
import gast
import numpy as np
import pytest

import transpyle
from transpyle.base.ast_utils import to_source
from transpyle.base.kinds import Kind
from transpyle.transforms.adjoint_handover import Handover
from gradcheck import ALL_BACKENDS, check_grads_at_sizes, sized_cases


def explicit_steps(x, w):
    for k in range(4):
        x = x + 0.1 * np.tanh(w * x)
    return np.sum(x * x)


def leapfrog(pos, vel, mass):
    acc = -pos * mass[:, None]
    for s in range(3):
        vel = vel + 0.05 * acc
        pos = pos + 0.1 * vel
        acc = -np.sin(pos) * mass[:, None]
        vel = vel + 0.05 * acc
    return np.sum(vel * vel) + np.sum(pos ** 3)


def state_and_history(u, c):
    total = 0.0
    for k in range(3):
        prev = u
        u = 0.5 * (u + c * np.roll(u, 1))
        total = total + np.sum(prev * u)
    return total + np.sum(u)


def rows_rebound(a, b):
    for k in range(2):
        a = a @ b + a
        a = a / (1.0 + np.sum(a * a, axis=1, keepdims=True))
    return np.sum(a)


def scaled_by_neighbour_sums(b, y):
    b = b.copy()
    for i in range(2):
        b[0, i] *= 1.0 + 0.2 * np.sin(np.sum(y[:-1] + y[1:]))
    return np.sum(b * b)


def rank_two_update(a, u, v):
    a = a + np.outer(u, v) + np.outer(v, u)
    x = a @ v
    return np.sum(x * x) + np.sum(a)


def copied_then_scaled(a, w):
    a = a.copy()
    for i in range(a.shape[0]):
        a[i] *= np.tanh(w[i])
    return np.sum(a * a)


def sum_of_two(a, b):
    c = a + b
    return np.sum(np.sin(c)) + np.sum(a * c)


CASES = [
    (rank_two_update, lambda r, n: (r.normal(size=(n, n)), r.normal(size=n), r.normal(size=n))),
    (copied_then_scaled, lambda r, n: (r.normal(size=(n, 3)), r.normal(size=n))),
    (sum_of_two, lambda r, n: (r.normal(size=(n, 2)), r.normal(size=(n, 2)))),
    (scaled_by_neighbour_sums, lambda r, n: (r.normal(size=(3, 3)), r.normal(size=n + 2))),
    (explicit_steps, lambda r, n: (r.normal(size=n), r.normal(size=n))),
    (explicit_steps, lambda r, n: (r.normal(size=(n, 2)), r.normal(size=2))),
    (leapfrog, lambda r, n: (r.normal(size=(n, 3)), r.normal(size=(n, 3)), r.uniform(0.5, 1.5, n))),
    (state_and_history, lambda r, n: (r.normal(size=n), r.normal(size=n))),
    (rows_rebound, lambda r, n: (r.normal(size=(n, 3)), 0.3 * r.normal(size=(3, 3)))),
]


@pytest.mark.parametrize("backend", ALL_BACKENDS)
@pytest.mark.parametrize("fn, make", sized_cases(CASES))
def test_gradients_match_finite_differences(fn, make, backend, rng):
    check_grads_at_sizes(fn, make, (1, 4), rng, backend)


def test_a_rebound_state_keeps_its_adjoint_buffer():
    text = transpyle.show(transpyle.grad(explicit_steps), args=(np.ones(5), np.ones(5)))
    loop = text.split("# adjoint sweep")[1].split("\n    for k in ")[1]
    assert "np.zeros_like(bx)" not in loop and "np.zeros_like" not in loop


# ---- the rewrite on sweeps written by hand -------------------------------------------------------------
def _rewritten(src, arrays):
    fn = gast.parse(src).body[0]
    kinds = {v: Kind("float64", 1) for v in arrays}
    Handover(fn, kinds).block(fn.body)
    return to_source(fn)


def test_passed_through_where_the_next_contribution_is_the_temporary():
    out = _rewritten("def f(bx, bv, n):\n    for k in range(n):\n        t = bx\n        bx = np.zeros_like(bx)\n"
                     "        bx += t\n        bv += t * 0.1\n        bx += bv\n", "bx bv t".split())
    assert "zeros_like" not in out and "bx += t\n" not in out and "bv += t * 0.1" in out


def test_zeroed_in_place_after_the_last_read():
    out = _rewritten("def f(bx, bv, n):\n    for k in range(n):\n        t = bx\n        bx = np.zeros_like(bx)\n"
                     "        bv += t * 0.1\n        bx += bv\n", "bx bv t".split())
    body = out.split("for k in range(n):")[1]
    assert "zeros_like" not in body and body.index("bv += t * 0.1") < body.index("bx[...] = 0.0") < \
        body.index("bx += bv")


@pytest.mark.parametrize("src", [
    # the temporary is read after the adjoint is written again
    "def f(bx, bv, n):\n    for k in range(n):\n        t = bx\n        bx = np.zeros_like(bx)\n        bx += bv\n"
    "        bv += t\n",
    # ... also where the next contribution is the temporary itself
    "def f(bx, bv, n):\n    for k in range(n):\n        t = bx\n        bx = np.zeros_like(bx)\n        bx += t\n"
    "        bx += bv\n        bv += t\n",
    # a view of the temporary is read after the adjoint is written
    "def f(bx, bv, n):\n    for k in range(n):\n        t = bx\n        bx = np.zeros_like(bx)\n        s = t[1:]\n"
    "        bx += bv\n        bv[1:] += s\n",
    # the temporary is written through
    "def f(bx, bv, n):\n    for k in range(n):\n        t = bx\n        bx = np.zeros_like(bx)\n        t *= 2.0\n"
    "        bv += t\n",
    # the temporary is read in the next iteration
    "def f(bx, bv, n):\n    t = bv\n    for k in range(n):\n        bv += t\n        t = bx\n        bx = np.zeros_like(bx)\n",
    # a name handed the adjoint earlier is read after it is written
    "def f(bx, bv, n):\n    for k in range(n):\n        t = bx\n        s = bx\n        bx = np.zeros_like(bx)\n"
    "        bv += s\n        bx += bv\n        bv += t\n",
    # the adjoint shares memory with another array
    "def f(bx, bv, n):\n    bx = bv\n    for k in range(n):\n        t = bx\n        bx = np.zeros_like(bx)\n"
    "        bv += t\n",
])
def test_left_alone_where_memory_is_shared(src):
    out = _rewritten(src, "bx bv t s".split())
    assert "bx = np.zeros_like(bx)" in out


# ---- an adjoint made zero whose first contribution is a whole array nothing reads afterwards ---------------
def _taken_over(src, arrays):
    fn = gast.parse(src).body[0]
    kinds = {v: Kind("float64", 2) for v in arrays}
    Handover(fn, kinds).take_over(fn.body)
    return to_source(fn)


def test_taken_over_where_the_added_array_is_not_read_afterwards():
    out = _taken_over("def f(a, g):\n    ba = np.zeros_like(a)\n    ba_2 = np.zeros(a.shape)\n    ba_2 += g\n"
                      "    t = ba_2\n    ba += t\n    ba += g\n    return ba\n", "a g ba ba_2 t".split())
    assert "np.zeros_like(a)" not in out and "ba = t" in out and "ba += g" in out


@pytest.mark.parametrize("src", [
    # the added array is read afterwards
    "def f(a, g, bb):\n    ba = np.zeros_like(a)\n    ba_2 = np.zeros(a.shape)\n    ba_2 += g\n    ba += ba_2\n"
    "    bb += ba_2\n    return ba, bb\n",
    # ... through a view of it
    "def f(a, g, bb):\n    ba = np.zeros_like(a)\n    ba_2 = np.zeros(a.shape)\n    v = ba_2[1:]\n    ba += ba_2\n"
    "    bb[1:] += v\n    return ba, bb\n",
    # of another shape (broadcast by the addition)
    "def f(a, g):\n    ba = np.zeros_like(a)\n    ba_2 = np.zeros(g.shape)\n    ba_2 += g\n    ba += ba_2\n"
    "    return ba\n",
    # an array the function does not make
    "def f(a, g):\n    ba = np.zeros_like(a)\n    ba += g\n    return ba\n",
    # the added array is rebound
    "def f(a, g, n):\n    ba = np.zeros_like(a)\n    ba_2 = np.zeros(a.shape)\n    for k in range(n):\n"
    "        ba_2 = ba_2 + g\n    ba += ba_2\n    return ba\n",
])
def test_not_taken_over(src):
    out = _taken_over(src, "a g ba ba_2 bb v".split())
    assert "ba = np.zeros_like(a)" in out
