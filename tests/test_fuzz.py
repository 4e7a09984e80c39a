"""The fast profile of the differential fuzzer (tests/fuzz_programs.py), on the numpy backend, and
checks of the fuzzer itself.

Each seed is one generated program, checked in every mode (jit, grad of each argument and of both,
value_and_grad, jvp, vjp, vmap, vmap(grad)) against plain Python, finite differences and the other
modes. A wrong value or a crash fails the test with the program, its inputs and what differed;
``python -m tests.fuzz_programs --backend numpy --seeds N`` reruns seed N and writes the program to
fuzz-failures/. The seeds are fixed, so a failure repeats on every run and machine.

FAST_SEEDS are seeds that pass today. A seed that finds a bug stays out of it, in
KNOWN_FAILING_SEEDS with the name of the regression test in test_fuzz_regressions.py that holds its
hand-minimized reproducer; put it back when that test passes. TRANSPYLE_FUZZ_SEEDS (a range ``a-b``
or a comma-separated list) checks more seeds, e.g. ``TRANSPYLE_FUZZ_SEEDS=1000-1099``.
"""
import os

import numpy as np
import pytest

import fuzz_programs
import transpyle

# seed -> the regression test in test_fuzz_regressions.py that reproduces what it finds (none today:
# the bugs the fast seeds found are fixed)
KNOWN_FAILING_SEEDS = {
}

FAST_SEEDS = [s for s in range(20) if s not in KNOWN_FAILING_SEEDS]


def _extra_seeds():
    spec = os.environ.get("TRANSPYLE_FUZZ_SEEDS", "").strip()
    if not spec:
        return []
    if "-" in spec:
        lo, hi = (int(part) for part in spec.split("-"))
        return list(range(lo, hi + 1))
    return [int(part) for part in spec.split(",")]


@pytest.fixture(scope="module")
def program_dir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("fuzz_programs"))


def _check(seed, program_dir):
    program = fuzz_programs.generate(seed)
    report = fuzz_programs.check(program, "numpy", directory=program_dir)
    if report.rejected:
        pytest.skip(f"seed {seed}: {report.rejected}")
    if report.failures():
        pytest.fail(fuzz_programs.failure_text(report), pytrace=False)
    return report


@pytest.mark.parametrize("seed", FAST_SEEDS)
def test_program(seed, program_dir):
    _check(seed, program_dir)


if _extra_seeds():
    @pytest.mark.parametrize("seed", _extra_seeds())
    def test_program_extra(seed, program_dir):
        _check(seed, program_dir)


# ---- the fuzzer itself ---------------------------------------------------------------------------
def test_generator_is_deterministic_and_writes_valid_programs(program_dir):
    """The same seed gives the same text, and every program runs in plain Python to a finite float."""
    rng = np.random.default_rng(0)
    for seed in range(150):
        program = fuzz_programs.generate(seed)
        assert fuzz_programs.generate(seed).source == program.source
        f = fuzz_programs.load(program, program_dir)
        x, y = fuzz_programs.draw_inputs(program, rng)
        value = f(x, y)
        assert isinstance(float(value), float) and np.isfinite(value), (seed, value, program.source)


def test_generator_covers_the_constructs():
    """Over a few hundred seeds, every construct the fuzzer is meant to exercise appears."""
    text = "\n".join(fuzz_programs.generate(seed).source for seed in range(300))
    for construct in ["for i", "range(1, ", "while k", "break", "continue", "elif ", "else:", " if ", "return",
                      "= np.zeros(", "[0:2] ", "[1:] * ", "] += ", "def h", "[:, None]", "[None, :]",
                      "np.ones((", "axis=0", "axis=1", "np.sum(", "np.prod(", "np.max(", "np.mean(", "np.sin(",
                      "np.cos(", "np.exp(", "np.tanh(", "np.sqrt(", "np.log(", "math."]:
        assert construct in text, construct


@transpyle.custom_jvp
def _twice_sin(v):
    return np.sin(v)


@_twice_sin.defjvp
def _twice_sin_jvp(primals, tangents):
    v, = primals
    dv, = tangents
    return np.sin(v), 2.0 * dv * np.cos(v)        # twice the true derivative


def _wrong_rule(x, y):
    return _twice_sin(x[0]) * y


def _kink(x, y):
    return (x[0] if x[0] > 0.25 else 3.0 * x[0]) * y


def test_checker_calls_a_wrong_derivative_wrong():
    program = fuzz_programs.Program(0, "", False, 4, 3)
    report = fuzz_programs.check(program, "numpy", f=_wrong_rule, modes=("jit", "grad_x", "jvp", "vjp"))
    assert [o.status for o in report.outcomes] == ["ok", "wrong", "wrong", "wrong"], report.outcomes


def test_checker_skips_a_finite_difference_across_a_branch_switch():
    """x[0] is closer to the switch than a step: its finite difference (and the directional one,
    which moves x[0]) is not compared; the other elements are, and agree."""
    program = fuzz_programs.Program(0, "", False, 4, 3)
    x = np.array([0.25 + 1e-7, 0.1, 0.2, 0.3])
    report = fuzz_programs.check(program, "numpy", f=_kink, modes=("grad_x", "grad_y", "jvp"), inputs=(x, 0.7))
    assert [o.status for o in report.outcomes] == ["ok", "ok", "skipped"], report.outcomes


def _grows(x, y):
    s = x[0]
    for i in range(4):
        s = s * s * s + 10.0          # 1e27 after four steps, while the result stays in [-1, 1]
    return np.sin(s) * y


def test_checker_rejects_a_program_whose_intermediates_grow_without_bound():
    program = fuzz_programs.Program(0, "", False, 4, 3)
    report = fuzz_programs.check(program, "numpy", f=_grows)
    assert report.rejected.startswith("an intermediate value reaches") and not report.outcomes, report.rejected
