"""transpyle.tree: flattening and rebuilding pytrees outside transformed code."""
import dataclasses
from collections import namedtuple

import numpy as np
import pytest

from transpyle import tree

Point = namedtuple("Point", "x y")


class Box:
    def __init__(self, lo, hi, label):
        self.lo, self.hi, self.label = lo, hi, label


tree.register_pytree_node(Box, lambda b: ((b.lo, b.hi), b.label), lambda label, ch: Box(ch[0], ch[1], label))


@tree.register_dataclass
@dataclasses.dataclass
class Layer:
    W: np.ndarray
    b: np.ndarray


def test_leaves_in_sorted_key_order_and_round_trip():
    t = {"b": [1.0, (2.0, None)], "a": Point(3.0, np.ones(2)), "c": Layer(np.zeros(2), 4.0)}
    leaves, td = tree.flatten(t)
    assert leaves[0] == 3.0 and leaves[2:4] == [1.0, 2.0] and leaves[5] == 4.0
    assert td.num_leaves == 6
    back = tree.unflatten(td, leaves)
    assert isinstance(back["a"], Point) and back["b"][1][1] is None and isinstance(back["c"], Layer)
    assert tree.structure(back) == td
    assert str(tree.structure({"W": 1, "b": [2, 3]})) == "{'W': *, 'b': [*, *]}"


def test_registered_class_keeps_its_static_data():
    leaves, td = tree.flatten(Box(1.0, 2.0, "unit"))
    assert leaves == [1.0, 2.0]
    b = tree.unflatten(td, [5.0, 6.0])
    assert (b.lo, b.hi, b.label) == (5.0, 6.0, "unit")
    assert tree.structure(Box(1.0, 2.0, "a")) != tree.structure(Box(1.0, 2.0, "b"))


def test_map_over_several_trees():
    a = {"w": np.ones(3), "b": 2.0}
    b = {"w": np.arange(3.0), "b": 1.0}
    out = tree.map(lambda x, y: x * 10 + y, a, b)
    np.testing.assert_array_equal(out["w"], [10.0, 11.0, 12.0])
    assert out["b"] == 21.0
    assert tree.leaves(out)[0] == 21.0


def test_map_rejects_different_structures_showing_both():
    with pytest.raises(ValueError, match=r"\{'a': \*\}[\s\S]*\{'b': \*\}"):
        tree.map(lambda x, y: x + y, {"a": 1.0}, {"b": 1.0})


def test_unflatten_checks_the_number_of_leaves():
    with pytest.raises(ValueError, match="2 leaves, 3 given"):
        tree.unflatten(tree.structure((1, 2)), [1, 2, 3])
