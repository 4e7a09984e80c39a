"""``transpyle.show``: the generated source as a string, for every mode, stable from call to call."""
import math

import numpy as np
import pytest

import transpyle


def energy(x, y):
    e = math.sin(x) * y
    return e + x ** 2


def weighted(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        s += w[i] * x[i] ** 2
    return s


@pytest.mark.parametrize("mode", ["primal", "grad", "value_and_grad", "vjp"])
def test_show_prints_python_source(mode):
    source = transpyle.show(energy, mode=mode)
    assert isinstance(source, str)
    assert "def " in source
    assert "energy" in source
    compile(source, "<transpyle show>", "exec")


def test_show_is_stable():
    assert transpyle.show(energy, mode="grad") == transpyle.show(energy, mode="grad")


def test_show_argnums_change_the_gradient_code():
    assert transpyle.show(energy, mode="grad", argnums=0) != transpyle.show(energy, mode="grad", argnums=(0, 1))


def test_show_specialises_on_example_arguments():
    source = transpyle.show(weighted, mode="grad", argnums=0, args=(np.ones(4), np.ones(4)))
    assert "def " in source
    compile(source, "<transpyle show>", "exec")


def test_show_unknown_mode():
    with pytest.raises((ValueError, transpyle.TranspileError)) as info:
        transpyle.show(energy, mode="hessian_of_everything")
    assert "hessian_of_everything" in str(info.value)
