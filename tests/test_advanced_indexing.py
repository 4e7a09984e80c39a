"""Advanced indexing conformance: reads and writes through integer index arrays and boolean masks
(every program of index_programs.py), in jit, grad, jvp and vmap (loop and array lifting), checked
against NumPy and finite differences as test_aliasing.py does; and the forms that are refused, each
with its own message at the user's line.
"""
import numpy as np
import pytest

import transpyle
from transpyle.base.errors import TranspileError
from gradcheck import check_grad
from index_programs import PROGRAMS
from program_modes import ProgramTable, mode_tests

# A mask selects a different number of entries in each example, so array lifting (one batched array
# per value) refuses it, as JAX's vmap does; the default strategy then runs the examples one by one.
RAGGED = "refused: the entries a mask selects differ in number per example"
_FAILING = [(program, ("vmap_array",), TranspileError, RAGGED) for program in (
    "mask_select", "mask_rows", "mask_columns", "mask_cube", "mask_clear", "mask_update", "mask_scale",
    "ellipsis_mask_write")]
TABLE = ProgramTable(PROGRAMS, _FAILING, modes=("jit", "grad", "jvp", "vmap", "vmap_array"),
                     numpy_only=("vmap_array",))
globals().update(mode_tests(TABLE))


@pytest.mark.parametrize("shape, index", [
    ((5,), "[idx]"), ((4, 5), "[idx]"), ((4, 5), "[:, idx]"), ((3, 4, 5), "[:, :, idx]"), ((3, 4, 5), "[1:, idx]"),
    ((3, 4, 5), "[idx, :, 1]"), ((3, 4, 5), "[:, idx, None]"), ((4, 5), "[None, idx]"), ((3, 4, 5), "[0, idx]"),
])
@pytest.mark.parametrize("index_shape", [(3,), (2, 2)])
def test_gather_matches_numpy_for_shapes(shape, index, index_shape, rng):
    """Every placement of one index array among slices, integers and new axes, and its gradient."""
    x = rng.normal(size=shape)
    axis = next(i for i, part in enumerate(index.strip("[]").split(", ")) if part == "idx")
    axis -= sum(1 for part in index.strip("[]").split(", ")[:axis] if part == "None")
    idx = rng.integers(-shape[axis], shape[axis], size=index_shape)
    scope = {"np": np}
    source = f"def f(x, idx):\n    return np.sum(np.sin(x{index}) * 3.0)\n"
    path = _write_module(source)
    exec(compile(source, path, "exec"), scope)
    f = scope["f"]
    np.testing.assert_allclose(transpyle.jit(f, backend="numpy")(x, idx), f(x, idx), rtol=1e-12)
    check_grad(f, (x, idx), 0)


def _write_module(source, _count=[0]):
    import os
    import tempfile
    _count[0] += 1
    path = os.path.join(tempfile.mkdtemp(), f"gather_case_{_count[0]}.py")
    with open(path, "w") as fh:
        fh.write(source)
    return path


def _moved_axes(x):
    return np.sum(x[0, :, np.array([1, 0])])


def _two_masks(x):
    return np.sum(x[x[:, 0] > 0, x[0] > 0])


def _float_index(x):
    return np.sum(x[x * 2.0])


def _out_of_bounds(x):
    return np.sum(x[np.array([0, 7])])


@pytest.mark.parametrize("fn, message", [
    (_moved_axes, "separated from the index arrays by a slice"),
    (_two_masks, "a boolean mask can only be the one index array"),
    (_float_index, "an index must be an integer"),
])
def test_refused_forms_name_the_line(fn, message):
    with pytest.raises(TranspileError, match=message) as err:
        transpyle.grad(fn, backend="numpy")(np.ones((3, 4)))
    assert err.value.lineno == fn.__code__.co_firstlineno + 1


def test_out_of_bounds_index_raises_like_numpy():
    with pytest.raises(IndexError):
        transpyle.jit(_out_of_bounds, backend="numpy")(np.ones(3))


def test_mask_of_another_shape_raises_like_numpy():
    def wrong_mask(x, m):
        return np.sum(x[m])
    with pytest.raises(IndexError):
        transpyle.jit(wrong_mask, backend="numpy")(np.ones((2, 3)), np.ones((3, 2), dtype=bool))
