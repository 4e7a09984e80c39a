"""Differential fuzzing of transpyle: random short NumPy/math programs, checked in every mode.

This module owns three things:

- ``generate(seed)``: a seeded generator (``random.Random(seed)``) of programs ``f(x, y)`` with
  ``x`` a float array of shape (n,) and ``y`` a float array of shape (m,) or a float, returning a
  float. The programs use ``for`` loops over ranges (nested), ``while`` loops with a counter bound,
  ``if``/``elif``/``else`` on computed tests, conditional expressions, ``break``/``continue`` and
  early returns, arrays created (and re-created) inside loops with element and slice writes,
  reads of an array before writes into it, accumulators, module-level helpers, broadcasting,
  reductions with and without ``axis`` and elementwise math. Values stay bounded (sqrt and log of
  positive arguments, exp of bounded ones) so finite differences mean something.
- ``check(program, backend)``: runs jit, grad (each argument and both), value_and_grad, jvp, vjp,
  vmap and vmap(grad) on random inputs and compares them with plain Python execution, central
  finite differences, a Python loop, and with each other (jvp . t against grad . t, the vjp
  against grad). Each (program, mode) is classified ``ok``, ``refused`` (a ``TranspileError``: a
  documented refusal), ``wrong`` (a value that disagrees), ``crash`` (any other exception, or a
  hang) or ``skipped`` (the check was not meaningful: a finite difference that lands on a branch
  switch, a mode whose reference failed).
- ``main``: the long profile, ``python -m tests.fuzz_programs --backend both --minutes 60``,
  which prints counts per mode and writes each failing program, with its inputs and the failing
  checks, to a directory. ``tests/test_fuzz.py`` is the fast profile run by pytest.

Programs are written to real files and imported, because transpyle reads a function's source.
"""
import argparse
import ast
import copy
import importlib.util
import os
import pickle
import random
import re
import select
import shutil
import signal
import sys
import tempfile
import textwrap
import time
import traceback
import warnings
from dataclasses import dataclass, field

import numpy as np

STATUSES = ("ok", "refused", "wrong", "crash", "skipped")
MODES = ("jit", "grad_x", "grad_y", "grad_xy", "value_and_grad", "jvp", "jvp_vs_grad", "vjp", "vjp_vs_grad",
         "vmap", "vmap_grad")


# ==== the program generator ======================================================================

@dataclass(eq=False)
class Dim:
    """An array dimension as the program spells it (``n``, ``3``, ``n - 1``), with the smallest size
    it takes in any call: indices and slices are chosen so that they are valid for every size."""
    expr: str
    lo: int
    fixed: bool = False          # a literal size: ``lo`` is the size
    parent: "Dim" = None         # ``n - 1``: the size of ``a[1:]`` for ``a`` of dimension ``n``


@dataclass(eq=False)
class Var:
    name: str
    shape: tuple                 # of Dims; () for a scalar
    owned: bool                  # created by the function: may be written in place or rebound


@dataclass(eq=False)
class LoopIndex:
    """An integer that indexes arrays: it runs over [lo, size(hi) - off - 1]."""
    name: str
    lo: int
    hi: Dim
    off: int = 0


@dataclass(eq=False)
class Helper:
    name: str
    params: tuple                # "s" (a float) or "v" (a vector of at least 3 elements)
    returns: str                 # "s", or "v" (a vector shaped like the first parameter)


@dataclass
class Program:
    seed: int
    source: str                  # the whole module: imports, helpers, f
    y_array: bool                # y has shape (m,), else y is a float
    n: int
    m: int


UNARY = [                        # elementwise functions, bounded or of positive arguments
    "np.sin({})", "np.cos({})", "np.tanh({})", "np.exp(np.tanh({}))", "np.exp(-({}) ** 2)",
    "np.sqrt(1.0 + ({}) ** 2)", "np.log(1.0 + ({}) ** 2)", "np.log(2.0 + np.sin({}))", "(({}) ** 2)",
]
MATH_UNARY = ["math.sin({})", "math.cos({})", "math.tanh({})", "math.exp(math.tanh({}))",
              "math.sqrt(1.5 + math.sin({}))", "math.log(1.0 + ({}) ** 2)"]
REDUCTIONS = ["np.sum({})", "np.mean({})", "np.max({})", "np.prod({})", "np.min({})", "{}.sum()"]
AXIS_REDUCTIONS = ["np.sum({}, axis={})", "np.mean({}, axis={})", "np.max({}, axis={})", "np.prod({}, axis={})"]
CONSTANTS = ["0.5", "0.3", "1.5", "-0.7", "2.0", "0.1", "-1.2", "0.8"]


def _const(rng):
    return rng.choice(CONSTANTS)


def _reads_variables(expr):
    return any(isinstance(node, ast.Name) and node.id not in ("np", "math")
               for node in ast.walk(ast.parse(expr, mode="eval")))


def _fresh(expr):
    """``expr`` as a new array: a name, a subscript, a conditional expression or a helper's result may
    be a view of (or the same array as) one the function does not own, and a later in-place write
    into it would write into the caller's argument, or be an alias transpyle refuses."""
    node = ast.parse(expr, mode="eval").body
    if isinstance(node, ast.BinOp) or (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return expr
    return f"np.copy({expr})"


class _Function:
    """The generator's state while writing one function body: scopes of variables, the loops it
    is inside, fresh names."""

    def __init__(self, gen, params, dims, base_dims):
        self.gen = gen
        self.rng = gen.rng
        self.scopes = [list(params)]
        self.loops = []                 # LoopIndex, innermost last
        self.in_loop = 0
        self.dims = dims                # every dimension expressions may have
        self.base_dims = base_dims      # those new arrays may have (not slices)
        self.counter = 0
        self.statements = 0
        self.return_dim = None          # a helper that returns a vector: its dimension

    # -- names and scopes ------------------------------------------------------------------------
    def fresh(self, prefix):
        self.counter += 1
        return f"{prefix}{self.counter}"

    def visible(self):
        return [v for scope in self.scopes for v in scope]

    def define(self, var):
        self.scopes[-1].append(var)
        return var

    def scalars(self, owned=None):
        return [v for v in self.visible() if v.shape == () and (owned is None or v.owned == owned)]

    def vectors(self, dim=None, owned=None):
        return [v for v in self.visible() if len(v.shape) == 1 and (dim is None or v.shape[0] is dim)
                and (owned is None or v.owned == owned)]

    def matrices(self, owned=None):
        return [v for v in self.visible() if len(v.shape) == 2 and (owned is None or v.owned == owned)]

    # -- indices -----------------------------------------------------------------------------------
    def index(self, dim):
        """An integer expression that is a valid index into ``dim`` for every size it takes."""
        options = [str(k) for k in range(min(dim.lo, 3))] + ["-1"]
        for loop in self.loops:
            for d in (0, -1, 1):
                if loop.lo + d < 0:
                    continue
                if loop.hi is dim:
                    ok = d <= loop.off
                else:
                    ok = loop.hi.fixed and loop.hi.lo - loop.off - 1 + d <= dim.lo - 1
                if ok:
                    expr = loop.name if d == 0 else f"{loop.name} {'+' if d > 0 else '-'} {abs(d)}"
                    options += [expr] * (3 if d == 0 else 1)     # loop indices are the common case
        return self.rng.choice(options)

    # -- expressions -------------------------------------------------------------------------------
    def scalar(self, depth):
        rng = self.rng
        if depth <= 0 or rng.random() < 0.25:
            return self.scalar_leaf()
        kind = rng.choices(
            ["binop", "div", "unary", "math", "reduce", "slice_reduce", "axis_reduce", "dot", "ifexp", "helper",
             "leaf"],
            [5, 1, 4, 1, 4, 2, 1, 1, 1.5, 2, 2])[0]
        if kind == "binop":
            op = rng.choice(["+", "-", "*", "+", "-"])
            return f"({self.scalar(depth - 1)} {op} {self.scalar(depth - 1)})"
        if kind == "div":
            if rng.random() < 0.5:
                return f"({self.scalar(depth - 1)} / {rng.choice(['2.0', '3.0', '-1.5'])})"
            return f"({self.scalar(depth - 1)} / (1.0 + ({self.scalar(depth - 1)}) ** 2))"
        if kind == "unary":
            return rng.choice(UNARY).format(self.scalar(depth - 1))
        if kind == "math":
            return rng.choice(MATH_UNARY).format(self.scalar(depth - 1))
        if kind == "reduce":
            dim = rng.choice(self.dims)
            red = rng.choice(REDUCTIONS)
            operand = self.vector(dim, depth - 1)
            if red.startswith("{}") and not operand.isidentifier():
                operand = f"({operand})"
            return red.format(operand)
        if kind == "slice_reduce":
            return self.slice_reduce(depth)
        if kind == "axis_reduce":
            d1, d2 = rng.choice(self.base_dims), rng.choice(self.base_dims)
            return f"np.sum({rng.choice(AXIS_REDUCTIONS).format(self.matrix(d1, d2, depth - 1), rng.choice([0, 1]))})"
        if kind == "dot":
            dim = rng.choice(self.dims)
            return f"np.dot({self.vector(dim, depth - 1)}, {self.vector(dim, depth - 1)})"
        if kind == "ifexp":
            return f"({self.scalar(depth - 1)} if {self.test(depth - 1)} else {self.scalar(depth - 1)})"
        if kind == "helper":
            call = self.helper_call("s", depth)
            if call:
                return call
        return self.scalar_leaf()

    def slice_reduce(self, depth):
        """``np.sum(a[1:] * x[1:])`` and relatives: slices read from whole arrays."""
        rng = self.rng
        sliced = [d for d in self.dims if d.parent is not None or d.fixed]
        dim = rng.choice(sliced)
        a, b = self.slice_leaf(dim), self.slice_leaf(dim)
        if a is None or b is None:
            return self.scalar_leaf()
        red = rng.choice(["np.sum({})", "np.sum({})", "np.mean({})", "np.max({})"])
        return red.format(f"{a} {rng.choice(['*', '+', '-'])} {b}")

    def scalar_leaf(self):
        rng = self.rng
        options = [("const", 2)]
        if self.scalars():
            options.append(("var", 6))
        if self.vectors():
            options.append(("elem", 5))
        if self.matrices():
            options.append(("melem", 1))
        kind = rng.choices([k for k, _ in options], [w for _, w in options])[0]
        if kind == "var":
            return rng.choice(self.scalars()).name
        if kind == "elem":
            v = rng.choice(self.vectors())
            return f"{v.name}[{self.index(v.shape[0])}]"
        if kind == "melem":
            mat = rng.choice(self.matrices())
            return f"{mat.name}[{self.index(mat.shape[0])}, {self.index(mat.shape[1])}]"
        return _const(rng)

    def slice_leaf(self, dim):
        """A slice of a whole vector with dimension ``dim`` (``a[1:]``, ``a[:-1]``, ``a[0:2]``, ``a[:3]``)."""
        rng = self.rng
        if dim.parent is not None:
            parents = self.vectors(dim.parent)
            if not parents:
                return None
            return f"{rng.choice(parents).name}[{rng.choice(['1:', ':-1'])}]"
        if dim.fixed:
            sources = [v for v in self.vectors() if v.shape[0].lo >= 3 and v.shape[0] is not dim]
            if not sources:
                return None
            sl = rng.choice(["0:2", "1:3"]) if dim.lo == 2 else rng.choice([":3", "0:3"])
            return f"{rng.choice(sources).name}[{sl}]"
        return None

    def vector_leaf(self, dim):
        rng = self.rng
        options = [v.name for v in self.vectors(dim)] * 3
        sl = self.slice_leaf(dim)
        if sl is not None:
            options.append(sl)
        for mat in self.matrices():
            if mat.shape[1] is dim:
                options.append(f"{mat.name}[{self.index(mat.shape[0])}, :]")
            if mat.shape[0] is dim:
                options.append(f"{mat.name}[:, {self.index(mat.shape[1])}]")
        if not options:
            options.append(f"({_const(rng)} * np.ones({dim.expr}))")
        return rng.choice(options)

    def vector(self, dim, depth):
        rng = self.rng
        if depth <= 0 or rng.random() < 0.3:
            return self.vector_leaf(dim)
        kind = rng.choices(["binop", "scale", "unary", "axis_reduce", "ifexp", "helper", "leaf"],
                           [4, 3, 4, 1, 0.5, 1, 2])[0]
        if kind == "binop":
            return f"({self.vector(dim, depth - 1)} {rng.choice(['+', '-', '*'])} {self.vector(dim, depth - 1)})"
        if kind == "scale":
            s, v = self.scalar(depth - 1), self.vector(dim, depth - 1)
            op = rng.choice(["+", "*", "-"])
            return f"({s} {op} {v})" if rng.random() < 0.5 else f"({v} {op} {s})"
        if kind == "unary":
            return rng.choice(UNARY).format(self.vector(dim, depth - 1))
        if kind == "axis_reduce" and dim in self.base_dims:
            other = rng.choice(self.base_dims)
            axis = rng.choice([0, 1])
            shape = (other, dim) if axis == 0 else (dim, other)
            return rng.choice(AXIS_REDUCTIONS).format(self.matrix(*shape, depth - 1), axis)
        if kind == "ifexp":
            return f"({self.vector(dim, depth - 1)} if {self.test(depth - 1)} else {self.vector(dim, depth - 1)})"
        if kind == "helper" and dim.lo >= 3:
            call = self.helper_call("v", depth, dim)
            if call:
                return call
        return self.vector_leaf(dim)

    def matrix(self, d1, d2, depth):
        """An expression of shape (d1, d2): broadcasting of vectors, or matrix variables."""
        rng = self.rng
        mats = [mat.name for mat in self.matrices() if mat.shape[0] is d1 and mat.shape[1] is d2]
        kind = rng.choices(["var", "outer", "ones", "unary", "scale"], [3 if mats else 0, 4, 2, 1, 1])[0]
        if kind == "var":
            return rng.choice(mats)
        if depth > 0 and kind == "unary":
            return rng.choice(UNARY).format(self.matrix(d1, d2, depth - 1))
        if depth > 0 and kind == "scale":
            return f"({self.matrix(d1, d2, depth - 1)} {rng.choice(['*', '+'])} {self.scalar(depth - 1)})"
        if kind == "ones":
            if rng.random() < 0.5:
                return f"(np.ones(({d1.expr}, {d2.expr})) + {self.vector_leaf(d1)}[:, None])"
            return f"(np.ones(({d1.expr}, {d2.expr})) * {self.vector_leaf(d2)}[None, :])"
        a, b = self.vector(d1, max(depth - 1, 0)), self.vector(d2, max(depth - 1, 0))
        op = rng.choice(["+", "*", "-"])
        if rng.random() < 0.7:
            return f"({a}[:, None] {op} {b}[None, :])"
        return f"({a}[:, np.newaxis] {op} {b})"

    def test(self, depth):
        """A computed test: comparisons of scalar expressions that depend on the inputs (a test of
        constants alone is drawn again)."""
        for _ in range(5):
            text = self._test(depth)
            if _reads_variables(text):
                break
        return text

    def _test(self, depth):
        rng = self.rng
        kind = rng.choices(["cmp_const", "cmp", "reduce", "loop", "and"], [6, 2, 2, 1 if self.loops else 0, 1])[0]
        cmp = rng.choice(["<", ">", "<=", ">="])
        if kind == "cmp":
            return f"{self.scalar(depth)} {cmp} {self.scalar(depth)}"
        if kind == "reduce":
            dim = rng.choice(self.dims)
            return f"{rng.choice(['np.sum', 'np.max', 'np.mean'])}({self.vector(dim, depth)}) {cmp} {_const(rng)}"
        if kind == "loop":
            loop = rng.choice(self.loops)
            return rng.choice([f"{loop.name} % 2 == 0", f"{loop.name} > 1", f"{loop.name} == 1"])
        if kind == "and" and depth > 0:
            return f"({self._test(depth - 1)}) {rng.choice(['and', 'or'])} ({self._test(depth - 1)})"
        s = self.scalar(max(depth, 1))
        return rng.choice([f"{s} {cmp} {_const(rng)}", f"np.cos({s}) > 0.3", f"{s} * 2.0 < 1.5"])

    def helper_call(self, returns, depth, dim=None):
        helpers = [h for h in self.gen.helpers if h.returns == returns]
        if not helpers:
            return None
        h = self.rng.choice(helpers)
        args = []
        for k, p in enumerate(h.params):
            if p == "s":
                args.append(self.scalar(depth - 1))
            else:
                if k == 0 and dim is not None:
                    d = dim
                else:
                    d = self.rng.choice([d for d in self.dims if d.lo >= 3])
                args.append(self.vector(d, depth - 1))
        return f"{h.name}({', '.join(args)})"

    # -- statements --------------------------------------------------------------------------------
    def block(self, depth, count):
        """``count`` statements (at least one line), in a new scope."""
        self.scopes.append([])
        lines = []
        for _ in range(count):
            lines += self.statement(depth)
        self.scopes.pop()
        return lines or ["pass"]

    def statement(self, depth):
        rng = self.rng
        self.statements += 1
        weights = {
            "new_scalar": 2, "update": 6, "new_array": 3, "rebind_array": 1, "elem_write": 4, "slice_write": 2,
            "read_then_write": 2, "scratch": 2 if self.in_loop else 0.5,
            "for": 4 if depth > 0 else 0, "while": 1.5 if depth > 0 else 0, "if": 3 if depth > 0 else 0,
            "jump": 2 if self.in_loop else 0, "early_return": 1,
        }
        if self.statements > 10:                   # keep programs short: no new compound statements
            for k in ("for", "while", "if"):
                weights[k] = 0
        kind = rng.choices(list(weights), list(weights.values()))[0]
        return getattr(self, "st_" + kind)(depth)

    def st_new_scalar(self, depth):
        var = Var(self.fresh("t"), (), True)
        line = f"{var.name} = {self.scalar(2)}"
        self.define(var)
        return [line]

    def st_update(self, depth):
        rng = self.rng
        owned = self.scalars(owned=True)
        if not owned:
            return self.st_new_scalar(depth)
        v = rng.choice(owned).name
        e = self.scalar(2)
        form = rng.choice(["{v} = {v} + {e}", "{v} += {e}", "{v} -= 0.5 * {e}", "{v} = 0.5 * {v} + {e}",
                           "{v} = {e}", "{v} = {v} * (1.0 + 0.1 * np.tanh({e}))", "{v} = {v} + 0.3 * np.sin({e})"])
        return [form.format(v=v, e=e)]

    def st_new_array(self, depth):
        rng = self.rng
        if rng.random() < 0.25:
            d1, d2 = rng.choice(self.base_dims), rng.choice(self.base_dims)
            var = Var(self.fresh("b"), (d1, d2), True)
            init = rng.choice([f"np.zeros(({d1.expr}, {d2.expr}))", _fresh(self.matrix(d1, d2, 1))])
        else:
            dim = rng.choice(self.base_dims)
            var = Var(self.fresh("a"), (dim,), True)
            inits = [f"np.zeros({dim.expr})", f"np.ones({dim.expr})", _fresh(self.vector(dim, 2))]
            sources = [v for v in self.vectors(dim) if not v.owned]
            if sources:
                inits.append(f"{rng.choice(sources).name}.copy()")
            init = rng.choice(inits)
        self.define(var)
        return [f"{var.name} = {init}"]

    def st_rebind_array(self, depth):
        """Re-creating an array that already exists (inside a loop: a fresh array every iteration)."""
        arrays = [v for v in self.visible() if v.owned and v.shape]
        if not arrays:
            return self.st_new_array(depth)
        v = self.rng.choice(arrays)
        if len(v.shape) == 1:
            init = self.rng.choice([f"np.zeros({v.shape[0].expr})", _fresh(self.vector(v.shape[0], 2))])
        else:
            init = self.rng.choice([f"np.zeros(({v.shape[0].expr}, {v.shape[1].expr}))",
                                    _fresh(self.matrix(v.shape[0], v.shape[1], 1))])
        return [f"{v.name} = {init}"]

    def st_elem_write(self, depth):
        rng = self.rng
        arrays = [v for v in self.visible() if v.owned and v.shape]
        if not arrays:
            return self.st_new_array(depth) + self.st_elem_write(depth)
        v = rng.choice(arrays)
        idx = ", ".join(self.index(d) for d in v.shape)
        op = rng.choice(["=", "=", "+=", "-=", "*="])
        e = self.scalar(2)
        if op == "*=":
            e = f"(1.0 + 0.2 * np.sin({e}))"
        return [f"{v.name}[{idx}] {op} {e}"]

    def st_slice_write(self, depth):
        rng = self.rng
        vectors = self.vectors(owned=True)
        mats = self.matrices(owned=True)
        if mats and (not vectors or rng.random() < 0.3):
            mat = rng.choice(mats)
            if rng.random() < 0.5:
                return [f"{mat.name}[{self.index(mat.shape[0])}, :] = {self.vector(mat.shape[1], 2)}"]
            return [f"{mat.name}[:, {self.index(mat.shape[1])}] = {self.vector(mat.shape[0], 2)}"]
        if not vectors:
            return self.st_new_array(depth)
        v = rng.choice(vectors)
        dim = v.shape[0]
        sub = [d for d in self.dims if d.parent is dim]
        choices = [("0:2", self.gen.two)]
        if dim is not self.gen.three and dim.lo >= 3:
            choices.append((":3", self.gen.three))
        if sub:
            choices += [("1:", sub[0]), (":-1", sub[0])]
        sl, sdim = rng.choice(choices)
        op = rng.choice(["=", "=", "+="])
        return [f"{v.name}[{sl}] {op} {self.vector(sdim, 2)}"]

    def st_read_then_write(self, depth):
        """A read of an array (a slice, or all of it) into an accumulator, then a write into it."""
        rng = self.rng
        vectors = self.vectors(owned=True)
        if not vectors:
            return self.st_new_array(depth)
        v = rng.choice(vectors)
        dim = v.shape[0]
        sub = [d for d in self.dims if d.parent is dim]
        others = self.vectors(dim)
        w = rng.choice(others).name
        if sub and rng.random() < 0.7:
            sl = rng.choice(["1:", ":-1"])
            read = f"np.sum({v.name}[{sl}] * {w}[{rng.choice(['1:', ':-1'])}])"
        else:
            read = rng.choice([f"np.sum({v.name} * {w})", f"np.dot({v.name}, {w})", f"np.max({v.name})"])
        owned = self.scalars(owned=True)
        lines = []
        if owned:
            acc = rng.choice(owned).name
            lines.append(f"{acc} = {acc} + {read}")
        else:
            acc = self.define(Var(self.fresh("t"), (), True)).name
            lines.append(f"{acc} = {read}")
        lines.append(f"{v.name}[{self.index(dim)}] = {rng.choice([_const(rng), self.scalar(1)])}")
        return lines

    def st_scratch(self, depth):
        """A scratch array: created, written element by element from the inputs, read nonlinearly
        (inside a loop, a fresh array every iteration)."""
        rng = self.rng
        dim = rng.choice(self.base_dims)
        var = Var(self.fresh("z"), (dim,), True)
        lines = [f"{var.name} = {rng.choice([f'np.zeros({dim.expr})', f'np.ones({dim.expr})'])}"]
        self.define(var)
        for _ in range(rng.randint(1, 3)):
            idx = self.index(dim)
            op = rng.choice(["=", "=", "+="])
            lines.append(f"{var.name}[{idx}] {op} {self.scalar(2)}")
        read = rng.choice([f"np.sum({rng.choice(UNARY).format(var.name)})", f"{var.name}[{self.index(dim)}] ** 2",
                           f"np.max({var.name})", f"np.prod({var.name} + 1.0)",
                           f"np.dot({var.name}, {self.vector(dim, 1)})"])
        owned = self.scalars(owned=True)
        if owned:
            acc = rng.choice(owned).name
            lines.append(f"{acc} = {acc} + {read}")
        else:
            acc = self.define(Var(self.fresh("t"), (), True)).name
            lines.append(f"{acc} = {read}")
        return lines

    def st_for(self, depth):
        rng = self.rng
        dim = rng.choice(self.base_dims + [self.gen.two])
        form = rng.choice(["plain", "plain", "from1", "minus1"] if not dim.fixed else ["plain"])
        name = self.fresh("i")
        if form == "plain":
            header, loop = f"range({dim.expr})", LoopIndex(name, 0, dim)
        elif form == "from1":
            header, loop = f"range(1, {dim.expr})", LoopIndex(name, 1, dim)
        else:
            header, loop = f"range({dim.expr} - 1)", LoopIndex(name, 0, dim, off=1)
        self.loops.append(loop)
        self.in_loop += 1
        body = self.block(depth - 1, rng.randint(1, 3))
        self.in_loop -= 1
        self.loops.pop()
        return [f"for {name} in {header}:"] + ["    " + line for line in body]

    def st_while(self, depth):
        rng = self.rng
        bound = rng.randint(2, 4)
        counter = self.fresh("k")
        cond = f"{counter} < {bound}"
        if rng.random() < 0.6:
            cond += f" and ({self.test(1)})"
        # the counter is bumped first, so a ``continue`` later in the body cannot skip it
        self.loops.append(LoopIndex(counter, 1, Dim(str(bound + 1), bound + 1, fixed=True)))
        self.in_loop += 1
        body = self.block(depth - 1, rng.randint(1, 3))
        self.in_loop -= 1
        self.loops.pop()
        return [f"{counter} = 0", f"while {cond}:", f"    {counter} = {counter} + 1"] + ["    " + line for line in body]

    def st_if(self, depth):
        rng = self.rng
        lines = [f"if {self.test(1)}:"] + ["    " + line for line in self.block(depth - 1, rng.randint(1, 2))]
        for _ in range(rng.choice([0, 0, 1, 2])):
            lines += [f"elif {self.test(1)}:"] + ["    " + line for line in self.block(depth - 1, rng.randint(1, 2))]
        if rng.random() < 0.6:
            lines += ["else:"] + ["    " + line for line in self.block(depth - 1, rng.randint(1, 2))]
        return lines

    def st_jump(self, depth):
        jump = self.rng.choice(["break", "continue"])
        return [f"if {self.test(1)}:", f"    {jump}"]

    def st_early_return(self, depth):
        if not self.in_loop and self.rng.random() < 0.7:
            return self.st_update(depth)
        value = self.vector(self.return_dim, 2) if self.return_dim else self.scalar(2)
        return [f"if {self.test(1)}:", f"    return {value}"]

    def final_return(self):
        """A return that reads every top-level accumulator and array, so most of the body is live."""
        rng = self.rng
        terms = [v.name for v in self.scopes[0] if v.shape == () and v.owned]
        for v in self.scopes[0]:
            if v.owned and v.shape:
                terms.append(rng.choice([f"np.sum({v.name})", f"np.sum({v.name} * {v.name})",
                                         f"np.mean(np.sin({v.name}))"]))
        terms = terms or [self.scalar(2)]
        weighted = " + ".join(t if k == 0 else f"{_const(rng)} * {t}" for k, t in enumerate(terms))
        if rng.random() < 0.3:
            weighted = rng.choice(UNARY).format(weighted)
        return f"return {weighted}"


class Generator:
    """One program per seed: helpers first (each may call the ones before it), then ``f``."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.seed = seed
        self.helpers = []
        self.two = Dim("2", 2, fixed=True)
        self.three = Dim("3", 3, fixed=True)

    def helper(self, index):
        rng = self.rng
        params, returns = rng.choice([(("s", "s"), "s"), (("v", "s"), "s"), (("v", "s"), "v"), (("s",), "s"),
                                      (("v",), "s")])
        name = f"h{index}"
        names = []
        vars_ = []
        dims = [self.two, self.three]
        vdim = None
        for k, p in enumerate(params):
            pname = ("v" if p == "v" else "c") + str(k)
            names.append(pname)
            if p == "v":
                vdim = Dim(f"{pname}.shape[0]", 3)
                sub = Dim(f"{pname}.shape[0] - 1", 2, parent=vdim)
                dims += [vdim, sub]
                vars_.append(Var(pname, (vdim,), False))
            else:
                vars_.append(Var(pname, (), False))
        base = [d for d in dims if not d.fixed and d.parent is None] + [self.three]
        fn = _Function(self, vars_, dims, base)
        fn.statements = 7               # helpers stay short: few compound statements
        fn.return_dim = vdim if returns == "v" else None
        lines = []
        if rng.random() < 0.7:
            init = fn.scalar(1)
            acc = fn.define(Var(fn.fresh("t"), (), True))
            lines.append(f"{acc.name} = {init}")
        for _ in range(rng.randint(0, 3)):
            lines += fn.statement(2)
        if returns == "v":
            if rng.random() < 0.5:
                w = fn.fresh("w")
                lines.append(f"{w} = {_fresh(fn.vector(vdim, 2))}")
                lines.append(f"{w}[{fn.index(vdim)}] = {fn.scalar(1)}")
                lines.append(f"return {w}")
            else:
                lines.append(f"return {_fresh(fn.vector(vdim, 2))}")
        else:
            lines.append(fn.final_return())
        self.helpers.append(Helper(name, params, returns))
        return [f"def {name}({', '.join(names)}):"] + ["    " + line for line in lines]

    def program(self):
        rng = self.rng
        y_array = rng.random() < 0.5
        n, m = rng.randint(4, 6), rng.randint(3, 5)
        out = ["import math", "", "import numpy as np", ""]
        for k in range(rng.choice([0, 1, 1, 2, 3])):
            out += ["", *self.helper(k), ""]
        dn = Dim("n", 4)
        dims = [dn, Dim("n - 1", 3, parent=dn), self.two, self.three]
        base = [dn, self.three]
        params = [Var("x", (dn,), False)]
        head = ["n = x.shape[0]"]
        if y_array:
            dm = Dim("m", 3)
            dims += [dm, Dim("m - 1", 2, parent=dm)]
            base.append(dm)
            params.append(Var("y", (dm,), False))
            head.append("m = y.shape[0]")
        else:
            params.append(Var("y", (), False))
        fn = _Function(self, params, dims, base)
        body = list(head)
        for k in range(rng.randint(1, 2)):         # accumulators that later statements update
            init = rng.choice(["0.0", fn.scalar(1)])
            acc = fn.define(Var(fn.fresh("s"), (), True))
            body.append(f"{acc.name} = {init}")
        for _ in range(rng.randint(2, 4)):
            body += fn.statement(3)
        body.append(fn.final_return())
        out += ["", "def f(x, y):"] + ["    " + line for line in body] + [""]
        return Program(self.seed, "\n".join(out), y_array, n, m)


def generate(seed):
    """The program for ``seed``: ``random.Random(seed)`` alone decides it, so a seed names a program."""
    return Generator(seed).program()


# ==== loading and inputs =========================================================================

_LOADED = {}


def load(program, directory):
    """Write the program to ``directory/fuzz_<seed>.py`` and import it; returns its ``f``."""
    path = os.path.join(directory, f"fuzz_{program.seed}.py")
    fd, tmp = tempfile.mkstemp(dir=directory, suffix=".py")
    with os.fdopen(fd, "w") as fh:        # atomically: parallel checks of one seed share the file
        fh.write(program.source)
    os.replace(tmp, path)
    name = f"_transpyle_fuzz_{program.seed}_{len(_LOADED)}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module            # inspect.getsource finds the file through the module
    spec.loader.exec_module(module)
    _LOADED[name] = path
    return module.f


def draw_inputs(program, rng):
    x = rng.uniform(-1.0, 1.0, program.n)
    y = rng.uniform(-1.0, 1.0, program.m) if program.y_array else float(rng.uniform(-1.0, 1.0))
    return x, y


# ==== finite differences =========================================================================

STEPS = (1e-6, 1e-5)                      # two relative steps: where they disagree, a branch switch is near
ROUNDOFF = 1024 * np.finfo(np.float64).eps
RTOL, ATOL = 1e-5, 1e-6                   # transpyle against a finite difference
EXACT = 1e-9                              # transpyle against transpyle, or against the Python value
LARGEST_INTERMEDIATE = 1e4                # programs whose variables grow past this are not checked


def _evaluate(f, x, y):
    with np.errstate(all="ignore"):
        return float(f(x, y))


def largest_intermediate(f, x, y):
    """The largest magnitude a float variable (scalar or array) of the program takes while
    ``f(x, y)`` runs, in ``f`` and the helpers of its file. A value can stay small while an
    accumulator inside grows without bound (``np.sin(s)`` of a huge ``s``); finite differences of
    such a program measure rounding, not the derivative."""
    filename = f.__code__.co_filename
    largest = 0.0

    def in_frame(frame, event, arg):
        nonlocal largest
        for v in frame.f_locals.values():
            if isinstance(v, (float, np.floating)):
                size = abs(float(v))
            elif isinstance(v, np.ndarray) and v.dtype.kind == "f" and v.size:
                size = float(np.max(np.abs(v)))
            else:
                continue
            if not size <= largest:
                largest = size if size == size else np.inf       # nan counts as unbounded
        return in_frame

    def on_call(frame, event, arg):
        return in_frame if frame.f_code.co_filename == filename else None

    previous = sys.gettrace()
    sys.settrace(on_call)
    try:
        with np.errstate(all="ignore"):
            f(x, y)
    finally:
        sys.settrace(previous)
    return largest


def _fd_element(f, args, argnum, idx, step):
    base = args[argnum]
    value = float(base[idx]) if isinstance(base, np.ndarray) else float(base)
    h = step * max(1.0, abs(value))

    def moved(sign):
        if isinstance(base, np.ndarray):
            a = base.copy()
            a[idx] = value + sign * h
        else:
            a = value + sign * h
        new = list(args)
        new[argnum] = a
        return _evaluate(f, *new)
    fp, fm = moved(1.0), moved(-1.0)
    return (fp - fm) / (2 * h), ROUNDOFF * max(abs(fp), abs(fm)) / (2 * h)


@dataclass
class FD:
    """A finite-difference derivative: the value at the smaller step, a tolerance that covers its
    error, and whether the two steps agree (they do not where a branch switch is within a step)."""
    value: np.ndarray
    tol: np.ndarray
    reliable: np.ndarray


def fd_gradient(f, args, argnum):
    base = args[argnum]
    shape = base.shape if isinstance(base, np.ndarray) else ()
    value, tol, reliable = np.zeros(shape), np.zeros(shape), np.zeros(shape, dtype=bool)
    for idx in np.ndindex(shape):
        (g1, n1), (g2, n2) = (_fd_element(f, args, argnum, idx, s) for s in STEPS)
        gap = abs(g1 - g2)
        value[idx] = g1
        tol[idx] = ATOL + RTOL * abs(g1) + n1 + n2 + gap
        reliable[idx] = np.isfinite(g1) and gap <= 1e-6 + 1e-4 * abs(g1) + 10 * (n1 + n2)
    return FD(value, tol, reliable)


def fd_directional(f, args, tangents):
    scale = max(1.0, max(float(np.max(np.abs(a))) for a in args))
    results = []
    for step in STEPS:
        h = step * scale
        plus = [a + h * t for a, t in zip(args, tangents)]
        minus = [a - h * t for a, t in zip(args, tangents)]
        fp, fm = _evaluate(f, *plus), _evaluate(f, *minus)
        results.append(((fp - fm) / (2 * h), ROUNDOFF * max(abs(fp), abs(fm)) / (2 * h)))
    (g1, n1), (g2, n2) = results
    gap = abs(g1 - g2)
    return FD(np.asarray(g1), np.asarray(ATOL + RTOL * abs(g1) + n1 + n2 + gap),
              np.asarray(np.isfinite(g1) and gap <= 1e-6 + 1e-4 * abs(g1) + 10 * (n1 + n2)))


# ==== the checker ================================================================================

class Wrong(Exception):
    """A transform returned a value that disagrees with its reference."""


class Skip(Exception):
    """The check is not meaningful here (a finite difference on a branch switch, no reference)."""


class Timeout(Exception):
    pass


@dataclass
class Outcome:
    mode: str
    status: str
    detail: str = ""
    seconds: float = 0.0
    reason: str = ""             # of a refusal: the TranspileError's message, without file, line and construct


@dataclass
class Report:
    program: Program
    backend: str
    inputs: tuple = None
    outcomes: list = field(default_factory=list)
    rejected: str = ""              # why the program was not checked at all (unbounded values, ...)

    def failures(self):
        return [o for o in self.outcomes if o.status in ("wrong", "crash")]


def _same_value(got, want, what, tol=EXACT):
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        raise Wrong(f"{what}: shape {got.shape}, expected {want.shape}")
    if not np.all(np.abs(got - want) <= tol * (1.0 + np.abs(want))):
        raise Wrong(f"{what}: got {got!r}, expected {want!r}")


def _like_argument(g, arg, what):
    """A float for a float argument, an array of its shape for an array."""
    if isinstance(arg, np.ndarray):
        if not isinstance(g, np.ndarray) or g.shape != arg.shape:
            raise Wrong(f"{what}: expected an array of shape {arg.shape}, got {type(g).__name__} "
                        f"{getattr(g, 'shape', '')}")
    elif isinstance(g, np.ndarray) and g.shape != ():
        raise Wrong(f"{what}: expected a float, got an array of shape {g.shape}")


def _matches_fd(got, fd, what, scale=1.0):
    """``got`` against ``scale`` times the finite difference, where the finite difference is reliable."""
    got = np.asarray(got, dtype=np.float64)
    if got.shape != fd.value.shape:
        raise Wrong(f"{what}: shape {got.shape}, expected {fd.value.shape}")
    if not np.any(fd.reliable):
        raise Skip("finite differences unreliable (a branch switch within a step)")
    want = scale * fd.value
    bad = fd.reliable & ~(np.abs(got - want) <= abs(scale) * fd.tol)
    if np.any(bad):
        raise Wrong(f"{what}: {int(np.sum(bad))} element(s) differ from finite differences\n"
                    f"  transpyle   {got!r}\n  finite diff {want!r}")


class _Deadline:
    """SIGALRM after ``seconds`` (a generated loop that never ends becomes a crash, not a hang)."""

    def __init__(self, seconds):
        self.seconds = seconds

    def __enter__(self):
        self.active = self.seconds and hasattr(signal, "SIGALRM") and \
            signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, None, signal.default_int_handler)
        if self.active:
            def on_alarm(signum, frame):
                raise Timeout(f"no result after {self.seconds} s")
            self.previous = signal.signal(signal.SIGALRM, on_alarm)
            signal.alarm(self.seconds)
        return self

    def __exit__(self, *exc):
        if self.active:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, self.previous)
        return False


def _classify(exc):
    import transpyle
    if isinstance(exc, Wrong):
        return "wrong"
    if isinstance(exc, Skip):
        return "skipped"
    if isinstance(exc, transpyle.TranspileError):
        return "refused"
    return "crash"


def _message(exc):
    if isinstance(exc, (Wrong, Skip)):
        return str(exc)
    tb = traceback.extract_tb(exc.__traceback__)
    where = f" at {tb[-1].filename}:{tb[-1].lineno}" if tb else ""
    text = str(exc).strip().splitlines()
    head = "\n".join(text[:12])
    return f"{type(exc).__name__}{where}: {head}"


def check(program, backend, f=None, directory=None, rng=None, timeout=120, modes=MODES, progress=None,
          inputs=None):
    """Run every mode of ``program`` on one random input (or on ``inputs``, an ``(x, y)`` pair);
    returns a ``Report``. ``progress`` is called with each mode's name before it runs (the parallel
    runner uses it to name a mode that hangs)."""
    import transpyle
    if f is None:
        f = load(program, directory or tempfile.mkdtemp(prefix="transpyle-fuzz-"))
    rng = rng or np.random.default_rng(program.seed)
    report = Report(program, backend)
    x, y = draw_inputs(program, rng)
    if inputs is not None:
        x, y = inputs
    report.inputs = (x.copy(), copy.copy(y))
    try:
        value = _evaluate(f, x, y)
    except Exception as exc:           # the generator wrote an invalid program: its bug, not transpyle's
        report.rejected = f"the program itself fails: {_message(exc)}"
        return report
    if not np.isfinite(value) or abs(value) > 1e6:
        report.rejected = f"value {value!r} is not finite or too large"
        return report
    largest = largest_intermediate(f, x, y)
    if largest > LARGEST_INTERMEDIATE:
        report.rejected = f"an intermediate value reaches {largest:.3g}"
        return report
    args = (x, y)
    fds = [fd_gradient(f, args, 0), fd_gradient(f, args, 1)]
    if any(np.any(np.abs(d.value) > 1e6) for d in fds):
        report.rejected = "derivatives too large for finite differences"
        return report
    tx = rng.standard_normal(x.shape)
    ty = rng.standard_normal(y.shape) if program.y_array else float(rng.standard_normal())
    ct = float(rng.standard_normal())
    batch = np.stack([x] + [rng.uniform(-1.0, 1.0, x.shape) for _ in range(2)])
    results = {}

    def guard(check_args):
        before = copy.deepcopy(check_args)

        def after():
            for b, a in zip(before, check_args):
                if not np.array_equal(b, a):
                    raise Wrong("an argument was modified in place")
        return after

    def run_jit():
        got = transpyle.jit(f, backend=backend)(x, y)
        _same_value(got, value, "jit value")

    def run_grad(argnums):
        def go():
            got = transpyle.grad(f, argnums=argnums, backend=backend)(x, y)
            results[f"grad{argnums}"] = got
            if isinstance(argnums, tuple):
                if not isinstance(got, tuple) or len(got) != 2:
                    raise Wrong(f"argnums=(0, 1): expected a pair, got {type(got).__name__}")
                pairs = zip(got, argnums)
            else:
                pairs = [(got, argnums)]
            for g, i in pairs:
                _like_argument(g, args[i], f"d f / d arg{i}")
                _matches_fd(g, fds[i], f"d f / d arg{i}")
        return go

    def run_value_and_grad():
        v, (gx, gy) = transpyle.value_and_grad(f, argnums=(0, 1), backend=backend)(x, y)
        _same_value(v, value, "value")
        results["grad(0, 1)"] = results.get("grad(0, 1)", (gx, gy))
        for g, i in ((gx, 0), (gy, 1)):
            _like_argument(g, args[i], f"d f / d arg{i}")
            _matches_fd(g, fds[i], f"d f / d arg{i}")

    def run_jvp():
        out, tangent = transpyle.jvp(f, (x, y), (tx, ty), backend=backend)
        _same_value(out, value, "jvp primal")
        results["jvp"] = tangent
        _matches_fd(tangent, fd_directional(f, args, (tx, ty)), "jvp tangent")

    def grad_pair():
        if "grad(0, 1)" not in results:
            raise Skip("no gradient from grad_xy or value_and_grad to compare with")
        gx, gy = results["grad(0, 1)"]
        if np.shape(gx) != x.shape or np.shape(gy) != np.shape(y):
            raise Skip("the gradient has the wrong shape (reported by grad_xy)")
        return gx, gy

    def run_jvp_vs_grad():
        if "jvp" not in results:
            raise Skip("jvp gave no tangent")
        gx, gy = grad_pair()
        _same_value(results["jvp"], np.sum(gx * tx) + np.sum(gy * ty), "jvp tangent against grad . t", 1e-8)

    def run_vjp():
        out, pullback = transpyle.vjp(f, x, y, backend=backend)
        _same_value(out, value, "vjp primal")
        cx, cy = pullback(ct)
        results["vjp"] = (cx, cy)
        for c, i in ((cx, 0), (cy, 1)):
            _like_argument(c, args[i], f"vjp cotangent of arg{i}")
            _matches_fd(c, fds[i], f"vjp cotangent of arg{i}", scale=ct)

    def run_vjp_vs_grad():
        if "vjp" not in results:
            raise Skip("vjp gave no cotangents")
        gx, gy = grad_pair()
        cx, cy = results["vjp"]
        _same_value(cx, ct * gx, "vjp cotangent of arg0 against ct * grad", 1e-8)
        _same_value(cy, ct * gy, "vjp cotangent of arg1 against ct * grad", 1e-8)

    def run_vmap():
        got = transpyle.vmap(f, in_axes=(0, None), backend=backend)(batch, y)
        want = np.array([_evaluate(f, b, y) for b in batch])
        _same_value(got, want, "vmap value")

    def run_vmap_grad():
        got = transpyle.vmap(transpyle.grad(f, backend=backend), in_axes=(0, None), backend=backend)(batch, y)
        try:
            g = transpyle.grad(f, backend=backend)
            want = np.stack([g(b, y) for b in batch])
            what = "vmap(grad) against a loop of grad"
        except Exception:
            raise Skip("grad failed: no loop of grad to compare with")
        _same_value(got, want, what, 1e-8)

    runners = {"jit": run_jit, "grad_x": run_grad(0), "grad_y": run_grad(1), "grad_xy": run_grad((0, 1)),
               "value_and_grad": run_value_and_grad, "jvp": run_jvp, "jvp_vs_grad": run_jvp_vs_grad,
               "vjp": run_vjp, "vjp_vs_grad": run_vjp_vs_grad, "vmap": run_vmap, "vmap_grad": run_vmap_grad}
    for mode in modes:
        unchanged = guard((x, np.asarray(y), batch))
        if progress is not None:
            progress(mode)
        start = time.monotonic()
        try:
            # generated code that divides by zero warns; the comparison reports what that led to
            with _Deadline(timeout), np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                runners[mode]()
            unchanged()
            outcome = Outcome(mode, "ok")
        except Exception as exc:
            outcome = Outcome(mode, _classify(exc), _message(exc), reason=getattr(exc, "message", ""))
        outcome.seconds = time.monotonic() - start
        report.outcomes.append(outcome)
    return report


# ==== the long profile ===========================================================================

def failure_text(report):
    """A self-contained file: the program, then how to rerun it and what failed."""
    x, y = report.inputs
    lines = [f"# transpyle fuzz failure: seed {report.program.seed}, backend {report.backend}",
             f"# rerun: python -m tests.fuzz_programs --backend {report.backend} --seeds {report.program.seed}",
             f"# x = np.array({x.tolist()!r})", f"# y = {np.asarray(y).tolist()!r}"]
    for o in report.failures():
        lines.append(f"# {o.mode}: {o.status.upper()}")
        lines += ["#     " + line for line in o.detail.splitlines()]
    return "\n".join(lines) + "\n\n" + report.program.source


class Tally:
    """Counts per (backend, mode) and status."""

    def __init__(self):
        self.counts = {}
        self.programs = {}
        self.rejected = {}
        self.refusals = {}          # (backend, reason with names blanked) -> count


    def add(self, report):
        b = report.backend
        if report.rejected:
            self.rejected[b] = self.rejected.get(b, 0) + 1
            return
        self.programs[b] = self.programs.get(b, 0) + 1
        for o in report.outcomes:
            row = self.counts.setdefault((b, o.mode), dict.fromkeys(STATUSES, 0))
            row[o.status] += 1
            if o.status == "refused":
                # a refusal is not a bug, unless it refuses what docs/subset.md accepts: the common
                # reasons are listed so that such a one stands out
                key = (b, re.sub(r"'[^']*'", "'_'", o.reason or o.detail.splitlines()[0])[:110])
                self.refusals[key] = self.refusals.get(key, 0) + 1

    def table(self):
        out = []
        for b in sorted(self.programs.keys() | self.rejected.keys()):
            checks = sum(sum(r.values()) for (bb, _), r in self.counts.items() if bb == b)
            out.append(f"backend {b}: {self.programs.get(b, 0)} programs checked, "
                       f"{self.rejected.get(b, 0)} rejected (unbounded values), {checks} checks")
            out.append(f"  {'mode':<16}" + "".join(f"{s:>9}" for s in STATUSES))
            total = dict.fromkeys(STATUSES, 0)
            for mode in MODES:
                row = self.counts.get((b, mode))
                if row:
                    out.append(f"  {mode:<16}" + "".join(f"{row[s]:>9}" for s in STATUSES))
                    for s in STATUSES:
                        total[s] += row[s]
            out.append(f"  {'total':<16}" + "".join(f"{total[s]:>9}" for s in STATUSES))
            reasons = sorted(((n, r) for (bb, r), n in self.refusals.items() if bb == b), reverse=True)
            if reasons:
                out.append("  refusals (checks, reason):")
                out += [f"  {n:>6}  {r}" for n, r in reasons[:8]]
        return "\n".join(out)


def _send(fd, message):
    data = pickle.dumps(message)
    os.write(fd, len(data).to_bytes(8, "little"))
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


class _Worker:
    """One (program, backend) check in a forked child: a crash of the process (a segfault in
    compiled code) or a loop that never ends (compiled code does not see signals) costs the child,
    not the run. The child reports each mode as it starts, then its ``Report``."""

    def __init__(self, seed, backend, work, timeout):
        self.seed, self.backend, self.started = seed, backend, time.monotonic()
        self.last = self.started
        self.mode = None
        self.buffer = b""
        self.report = None
        read, write = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:                      # the child
            os.close(read)
            code = 0
            try:
                program = generate(seed)
                f = load(program, work)
                report = check(program, backend, f=f, timeout=timeout, progress=lambda m: _send(write, ("mode", m)))
                _send(write, ("report", report))
            except BaseException:
                traceback.print_exc()
                code = 1
            finally:
                os._exit(code)
        os.close(write)
        self.fd = read

    def read(self):
        """Take what the child wrote; False once it closed the pipe."""
        chunk = os.read(self.fd, 1 << 16)
        if not chunk:
            return False
        self.buffer += chunk
        self.last = time.monotonic()
        while len(self.buffer) >= 8:
            size = int.from_bytes(self.buffer[:8], "little")
            if len(self.buffer) < 8 + size:
                break
            kind, value = pickle.loads(self.buffer[8:8 + size])
            self.buffer = self.buffer[8 + size:]
            if kind == "mode":
                self.mode = value
            else:
                self.report = value
        return True

    def finish(self, killed_after=None):
        """The child's report, or one that records how it died (in the mode it was running)."""
        os.close(self.fd)
        _, status = os.waitpid(self.pid, 0)
        if self.report is not None:
            return self.report
        program = generate(self.seed)
        report = Report(program, self.backend, draw_inputs(program, np.random.default_rng(program.seed)))
        if killed_after is not None:
            why = f"no result after {killed_after:.0f} s (killed)"
        elif os.WIFSIGNALED(status):
            why = f"the process died with signal {os.WTERMSIG(status)}"
        else:
            why = f"the process exited with status {os.waitstatus_to_exitcode(status)} without a report"
        report.outcomes.append(Outcome(self.mode or "setup", "crash", why, time.monotonic() - self.started))
        return report


def _run_parallel(tasks, jobs, work, timeout, on_report):
    """Check ``tasks`` ((seed, backend) pairs, drawn while the iterator gives them) in ``jobs``
    forked children; a child that reports nothing for ``timeout`` + 60 s is killed."""
    running = {}
    tasks = iter(tasks)
    exhausted = False
    while running or not exhausted:
        while not exhausted and len(running) < jobs:
            task = next(tasks, None)
            if task is None:
                exhausted = True
                break
            worker = _Worker(*task, work, timeout)
            running[worker.fd] = worker
        if not running:
            break
        ready, _, _ = select.select(list(running), [], [], 5.0)
        for fd in ready:
            worker = running[fd]
            if not worker.read():
                del running[fd]
                on_report(worker.finish())
        now = time.monotonic()
        for fd, worker in list(running.items()):
            if now - worker.last > timeout + 60:
                os.kill(worker.pid, signal.SIGKILL)
                del running[fd]
                on_report(worker.finish(killed_after=now - worker.last))


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz_programs", description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["numpy", "numba", "both"], default="both")
    parser.add_argument("--minutes", type=float, default=5.0, help="time budget (default 5)")
    parser.add_argument("--start", type=int, default=None, help="first seed (default: random, printed)")
    parser.add_argument("--seeds", default=None, help="comma-separated seeds to run (instead of a time budget)")
    parser.add_argument("--out", default="fuzz-failures", help="directory for failing programs")
    parser.add_argument("--timeout", type=int, default=300,
                        help="seconds per check (compiling included) before it counts as a crash")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="checks run at once, each in a forked process (0: in this process)")
    parser.add_argument("--show", type=int, default=None, help="print the program of this seed and exit")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every failure as it happens")
    opts = parser.parse_args(argv)
    if opts.show is not None:
        print(generate(opts.show).source)
        return 0
    # a private cache: thousands of generated modules should not land in the user's cache
    own_cache = "TRANSPYLE_CACHE_DIR" not in os.environ
    if own_cache:
        os.environ["TRANSPYLE_CACHE_DIR"] = tempfile.mkdtemp(prefix="transpyle-fuzz-cache-")
    import transpyle  # noqa: F401  (imported once here, before the children fork)
    backends = ["numpy", "numba"] if opts.backend == "both" else [opts.backend]
    if opts.seeds:
        seeds = [int(s) for s in opts.seeds.split(",")]
    else:
        start = opts.start if opts.start is not None else random.SystemRandom().randrange(10**6)
        print(f"seeds from {start} (--start {start} repeats this run)", flush=True)
        seeds = range(start, start + 10**9)
    os.makedirs(opts.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="transpyle-fuzz-programs-")
    began = time.monotonic()
    tally = Tally()
    failing = []

    def tasks(backend, deadline):
        for seed in seeds:
            if not opts.seeds and time.monotonic() > deadline:
                return
            yield seed, backend

    def on_report(report):
        tally.add(report)
        if report.failures():
            path = os.path.join(opts.out, f"seed{report.program.seed}-{report.backend}.py")
            with open(path, "w") as fh:
                fh.write(failure_text(report))
            failing.append(path)
            summary = ", ".join(f"{o.mode} {o.status}" for o in report.failures())
            print(f"[{(time.monotonic() - began) / 60:5.1f} min] seed {report.program.seed} ({report.backend}): "
                  f"{summary} -> {path}", flush=True)
            if opts.verbose:
                for o in report.failures():
                    print(textwrap.indent(o.detail, "    "), flush=True)

    try:
        # the budget is shared equally, one backend after the other, on the same seeds: numba
        # compiles make its checks some ten times slower, so it gets through fewer of them
        for k, backend in enumerate(backends):
            deadline = began + 60 * opts.minutes * (k + 1) / len(backends)
            if opts.jobs > 0 and hasattr(os, "fork"):
                _run_parallel(tasks(backend, deadline), opts.jobs, work, opts.timeout, on_report)
            else:
                for seed, _ in tasks(backend, deadline):
                    program = generate(seed)
                    on_report(check(program, backend, f=load(program, work), timeout=opts.timeout))
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if own_cache:
            shutil.rmtree(os.environ["TRANSPYLE_CACHE_DIR"], ignore_errors=True)
    print(tally.table())
    print(f"{len(failing)} failing (program, backend) pairs written to {opts.out}/")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
