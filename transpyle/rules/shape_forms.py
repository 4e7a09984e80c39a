"""Calls written as indexing, reshapes and joins when they are resolved (no rank needed): np.split and
np.array_split (a tuple of slices along the axis), np.meshgrid (each vector reshaped along its own axis and
broadcast against zeros), np.expand_dims and np.moveaxis with several axes (single-axis calls one after
another).

- ``np.split(x, n, axis)`` and ``np.array_split`` give the parts NumPy's array_split gives (the first
  ``len % n`` one longer); ``np.split`` with sections that do not divide the axis, an error in NumPy, is not
  checked. ``np.split(x, [i, j])`` cuts at the positions given.
- ``np.meshgrid(x, y, ..., indexing='xy'|'ij', sparse=)``: its inputs are flattened, as NumPy's are.
- ``np.expand_dims(x, (a, b))`` and ``np.moveaxis(x, (a, b), (c, d))`` take axes counted all from the start
  or all from the end (one sign each), which single moves can follow without knowing the rank.
"""
import numpy as np

from ..base.ast_utils import template_expr
from .common import StaticError
from .call_forms import arguments, axis_index, literal, rewrite


# ---- np.split, np.array_split ---------------------------------------------------------------------------
def _splitter(name):
    def build(call):
        bound = arguments(call, ("ary", "indices_or_sections", "axis"), {"axis": 0}, name)
        cuts = literal(bound["indices_or_sections"], "indices_or_sections")
        axis = literal(bound["axis"], "axis")
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise StaticError(f"{name} takes one constant int axis")
        length = f"x.shape[{axis}]"
        if isinstance(cuts, int) and not isinstance(cuts, bool):
            if cuts < 1:
                raise StaticError(f"{name} needs one section or more")
            bounds = ["0"] + [f"{i} * ({length} // {cuts}) + min({i}, {length} % {cuts})"
                              for i in range(1, cuts)] + [""]
        elif isinstance(cuts, tuple) and all(isinstance(c, int) for c in cuts):
            bounds = ["0"] + [str(c) for c in cuts] + [""]
        else:
            raise StaticError(f"{name} takes a constant number of sections or a list of positions")
        parts = ["x" + axis_index(axis, f"{lo}:{hi}") for lo, hi in zip(bounds, bounds[1:])]
        return template_expr("(" + ", ".join(parts) + ",)", x=bound["ary"])
    return build


rewrite([np.split], _splitter("np.split"))
rewrite([np.array_split], _splitter("np.array_split"))


# ---- np.meshgrid --------------------------------------------------------------------------------------------
def _meshgrid(call):
    for kw in call.keywords:
        if kw.arg not in ("indexing", "sparse", "copy"):
            raise StaticError(f"np.meshgrid with {kw.arg}= is not supported")
    options = {kw.arg: literal(kw.value, kw.arg) for kw in call.keywords}
    indexing, sparse = options.get("indexing", "xy"), options.get("sparse", False)
    if indexing not in ("xy", "ij"):
        raise StaticError(f"np.meshgrid takes indexing='xy' or 'ij', not {indexing!r}")
    inputs = list(call.args)
    count = len(inputs)
    names = [f"x{i}" for i in range(count)]
    position = list(range(count))
    if indexing == "xy" and count > 1:
        position[0], position[1] = 1, 0
    sizes = [None] * count
    for i in range(count):
        sizes[position[i]] = f"{names[i]}.size"
    grids = []
    for i in range(count):
        dims = ["1"] * count
        dims[position[i]] = sizes[position[i]]
        grid = f"np.reshape({names[i]}, ({', '.join(dims)},))"
        if not sparse:      # broadcast against boolean zeros: the values keep their dtype
            grid += f" + np.zeros(({', '.join(sizes)},), np.bool_)"
        grids.append(grid)
    return template_expr("(" + ", ".join(grids) + ",)", **dict(zip(names, inputs)))


rewrite([np.meshgrid], _meshgrid)


# ---- np.expand_dims, np.moveaxis with several axes --------------------------------------------------------------
def _one_sign(axes, what):
    if not all(isinstance(a, int) and not isinstance(a, bool) for a in axes):
        raise StaticError(f"{what} must be constant ints")
    if len(set(axes)) != len(axes):
        raise StaticError(f"{what} {axes!r} names an axis twice")
    if any(a < 0 for a in axes) and any(a >= 0 for a in axes):
        raise StaticError(f"{what} {axes!r} counts some axes from the start and some from the end",
                          hint="count them all from the start or all from the end")


def _written_value(node, what):
    """The constant written in the call, or None for a name (a helper's parameter, bound once it is
    inlined): the one-axis primitive then takes the call and checks its axis itself."""
    try:
        return literal(node, what)
    except StaticError:
        return None


def _expand_dims(call):
    bound = arguments(call, ("a", "axis"), {}, "np.expand_dims")
    axes = _written_value(bound["axis"], "axis")
    if not isinstance(axes, tuple):
        return None                        # one axis: the primitive
    _one_sign(axes, "axis")
    out = bound["a"]
    # inserted in the order of their final places from the near end: each lands where it is named
    for a in sorted(axes, reverse=axes[0] < 0):
        out = template_expr(f"np.expand_dims(x, {a})", x=out)
    return out


def moves(source, destination):
    """Single-axis moves (from, to) with the effect of np.moveaxis(x, source, destination), for axes of one
    sign each: the sources go to the end in the order of their destinations, then to their destinations.
    A source's place after some others left for the end: itself less the number of those before it."""
    pairs = sorted(zip(destination, source))
    out, gone = [], []
    for _, s in pairs:
        out.append((s - sum(1 for q in gone if q < s), -1))
        gone.append(s)
    return out + [(-(len(pairs) - i), d) for i, (d, _) in enumerate(pairs)]


def _moveaxis(call):
    bound = arguments(call, ("a", "source", "destination"), {}, "np.moveaxis")
    source, destination = _written_value(bound["source"], "source"), _written_value(bound["destination"], "destination")
    if not isinstance(source, tuple) and not isinstance(destination, tuple):
        return None                        # one axis: the primitive
    source = source if isinstance(source, tuple) else (source,)
    destination = destination if isinstance(destination, tuple) else (destination,)
    if len(source) != len(destination):
        raise StaticError("np.moveaxis needs as many destinations as sources")
    _one_sign(source, "source")
    _one_sign(destination, "destination")
    out = bound["a"]
    for a, b in moves(source, destination):
        out = template_expr(f"np.moveaxis(x, {a}, {b})", x=out)
    return out


rewrite([np.expand_dims], _expand_dims)
rewrite([np.moveaxis], _moveaxis)

