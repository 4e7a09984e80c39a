"""In-place writers: library functions that write into an array they are given.

``np.copyto(dst, src)`` and the others return nothing a program uses; what they do is a write
into ``dst``. Each entry gives the statements the call stands for, written with the function's
parameters, so normalize spells the call out as ordinary in-place writes (``dst[:] = src``) that
every transform already handles, aliases included (``analysis/aliases``). Names starting with an
underscore in a template are fresh per call. The ``out=`` argument of ufuncs and reductions is
the same thing and is handled by normalize for every primitive: ``r = f(a, out=c)`` writes
``f(a)`` into ``c`` and makes ``r`` the same array as ``c``.
"""
from dataclasses import dataclass

import numpy as np

_BY_OBJECT = {}
_BY_SPELLING = {}


@dataclass(frozen=True)
class Writer:
    spelling: str         # how resolve writes the call, and normalize recognises it
    params: tuple
    template: str         # the statements the call stands for


def define_writer(spelling, objects, params, template):
    writer = Writer(spelling, tuple(p.strip() for p in params.split(",")), template)
    _BY_SPELLING[spelling] = writer
    for obj in objects:
        _BY_OBJECT[id(obj)] = (obj, writer)
    return writer


def writer_of(obj):
    hit = _BY_OBJECT.get(id(obj))
    return hit[1] if hit is not None and hit[0] is obj else None


def by_spelling(spelling):
    return _BY_SPELLING.get(spelling)


define_writer("np.copyto", [np.copyto], "dst, src", "dst[:] = src")
# ``a.sort(axis)``: the array method, which sorts in place (``frontend/spellings``: METHODS)
define_writer("rt.sort_in_place", [], "a, axis", "a[:] = np.sort(a, axis)")
define_writer("np.fill_diagonal", [np.fill_diagonal], "a, val",
              "for _i in range(min(a.shape[0], a.shape[1])):\n    a[_i, _i] = val")
# the flat positions of a (a view of it: the arrays a program puts into are contiguous); a shorter v
# repeats, as the write through an index array does
define_writer("np.put", [np.put], "a, ind, v", "_flat = np.ravel(a)\n_flat[ind] = v")
# the true positions of mask take vals in order, repeated when shorter
define_writer("np.place", [np.place], "a, mask, vals", "a[mask] = vals")
