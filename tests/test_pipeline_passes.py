"""The pipeline runs the declared passes of each mode, in an order whose requirements hold; it times
them (``TRANSPYLE_TIMINGS``) and shows the tree after any of them (``show --after``)."""
import numpy as np
import pytest

import transpyle
from transpyle import pipeline
from transpyle.api import generate
from transpyle.pipeline import passes
from transpyle.pipeline.modes import BACK_END


def energy(x, y):
    s = 0.0
    for i in range(x.shape[0]):
        s += np.sin(x[i]) * y
    return s


KINDS = ("f8[:]", "f8")


@pytest.mark.parametrize("back", list(BACK_END))
def test_every_declared_list_meets_its_requirements(back):
    facts = set()
    for p in passes.FRONTEND + BACK_END[back]:
        assert set(p.requires) <= facts, (back, p.name)
        facts |= set(p.produces)


def test_a_pass_run_before_what_it_requires_is_refused():
    job = passes.Job("grad")
    with pytest.raises(AssertionError, match="'reverse' needs activity"):
        passes.run(None, None, job, (passes.REVERSE,))


@pytest.mark.parametrize("mode,back", [("grad", "grad"), ("jvp", "jvp"), ("vjp", "vjp"), ("primal", "primal"),
                                       ("jacrev", "jacrev")])
def test_a_transform_runs_exactly_its_declared_passes(mode, back):
    _, _, ctx = generate(energy, mode=mode, kinds=KINDS)
    ran = [name for name, _ in ctx.timings]
    declared = [p.name for p in pipeline.pipeline_of(mode)]
    # the jacobian driver runs the sweeps it calls on copies of the tree (their times are listed
    # before its own, which ends after them): the declared passes run in order, with those in between
    inside = iter(ran)
    assert all(name in inside for name in declared)
    assert set(ran) - set(declared) <= {"activity", "reverse", "forward", "custom_rules"}


def test_timings_switch_prints_every_pass(monkeypatch, capfd):
    monkeypatch.setenv("TRANSPYLE_TIMINGS", "1")
    transpyle.show(energy, mode="grad", kinds=KINDS)
    err = capfd.readouterr().err
    assert "pass timings for energy (grad)" in err
    for p in pipeline.pipeline_of("grad"):
        assert f"#   {p.name}" in err


@pytest.mark.parametrize("after", ["normalize", "infer", "in_place", "activity", "reverse"])
def test_show_after_any_pass(after):
    text = transpyle.show(energy, mode="grad", kinds=KINDS, after=after)
    assert text.startswith(f"# ---- after {after} ----")
    assert "def energy" in text


def test_show_after_an_unknown_pass_names_the_passes():
    with pytest.raises(transpyle.TranspileError, match="(?s)no pass is named .normalise.*normalize"):
        transpyle.show(energy, mode="grad", kinds=KINDS, after="normalise")
