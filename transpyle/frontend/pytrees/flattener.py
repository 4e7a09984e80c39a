"""flattener: pytree arguments and values become flat leaf variables (the specialize step for
pytrees).

The structure of a pytree is static, so everything about it is resolved here, before any other
pass: a parameter ``params`` holding ``[{'W': ., 'b': .}, ...]`` becomes the parameters
``params_0_W, params_0_b, ...``; ``params[0]['W']``, ``p.W`` (namedtuples, registered classes),
``len(params)``, ``params is None``, ``for layer in params:`` (also ``enumerate``, ``zip``,
``.items()``, ``.values()``, ``.keys()``, ``range(len(params))``), unpacking
``*hidden, last = params``, dict/list literals, ``tree.map`` and calls of helpers with pytree
arguments or results are evaluated symbolically; loops over pytrees are unrolled. A pytree
returned becomes a flat tuple of its leaves, whose structure the API uses to rebuild the result.

Symbolic pytrees are :class:`~.structs.Struct` values: a TreeDef shell whose children are
Structs or leaf expressions (names of leaf variables, or constants). This module holds the
Flattener's state, its naming of leaf variables and the rewriting of the function itself; the
rewriting of expressions, calls, statements and loops is in the mixins it is made of.
"""
import copy

import gast

from ... import tree as pytree
from ...base.ast_utils import all_names, assign, name, stored_names, to_source
from ...base.context import Context
from ...base.naming import Namer
from ..source import FunctionSource
from .calls import CallFlattening
from .expressions import ExpressionFlattening
from .loops import LoopFlattening
from .statements import StatementFlattening
from .structs import from_treedef, ident


class Flattener(ExpressionFlattening, CallFlattening, StatementFlattening, LoopFlattening):
    """Flattens the pytrees of one function, specialized on the TreeDefs of its pytree parameters."""

    def __init__(self, unit, param_trees, namer, specialized, pair=False):
        self.pair = pair                       # has_aux: the result stays a pair (output, aux leaves)
        self.unit = unit
        self.tree = copy.deepcopy(unit.tree)
        self.namer = namer
        self.specialized = specialized        # (function, treedefs) -> (FunctionSource, out treedef)
        self.namespace = dict(unit.namespace)
        self.locals = stored_names(self.tree) | {a.id for a in self.tree.args.args}
        self.env = {}                          # name -> Struct
        self.aliases = {}                      # loop variable -> the leaf it is bound to (unrolled loops)
        self.consts = {}                       # name -> a constant bound by an unrolled loop
        self.nested = {}                       # nested def name -> FunctionDef
        self.transforms = {}                   # local name -> transform built in the body (g = grad(f))
        self.out_tree = None
        self.param_trees = param_trees
        self.leaf_params = {}                  # pytree parameter -> the names of its leaf parameters
        self.assigned = stored_names(self.tree.body)    # the user's variables that are (re)bound
        self.single = set()                    # generated variables assigned exactly once
        self.rebound = set()                   # generated variables assigned more than once (carries)

    # -- errors -------------------------------------------------------------------------------
    def error(self, node, message, hint=None):
        return Context(source=self.unit).error(node, message, hint=hint)

    # -- names --------------------------------------------------------------------------------
    def leaf_names(self, base, td):
        """Fresh variable names for the leaves of ``td``, derived from their paths under ``base``."""
        out = []

        def walk(prefix, t):
            if t.is_leaf:
                out.append(self.namer.fresh(prefix))
                return
            keys = t.keys or t.names or range(len(t.children))
            for k, c in zip(keys, t.children):
                walk(f"{prefix}_{ident(k)}", c)
        walk(base, td)
        return out

    def materialize(self, s, base, out, node):
        """``s`` with every leaf held in a variable of its own (assigned here), so later rebinding
        of the names it was built from does not change it."""
        def stable(v):             # a constant, or a variable assigned once
            return isinstance(v, gast.Constant) or isinstance(v, gast.Name) and (
                v.id in self.single or v.id not in self.assigned and v.id not in self.rebound)
        leaves = s.leaves()
        targets = self.leaf_names(base, s.treedef())
        kept = []
        for t, v in zip(targets, leaves):
            if stable(v):
                kept.append(copy.deepcopy(v))
                continue
            out.append(gast.copy_location(assign(t, copy.deepcopy(v)), node))
            self.single.add(t)
            kept.append(name(t))
        return from_treedef(s.treedef(), kept)

    # -- the function -------------------------------------------------------------------------
    def run(self):
        tree = self.tree
        new_args = []
        taken = all_names(tree) | set(self.namespace)
        self.namer.reserve(taken)
        for a in tree.args.args:
            td = self.param_trees.get(a.id)
            if td is None:
                new_args.append(a)
                continue
            leaves = self.leaf_names(a.id, td)
            self.leaf_params[a.id] = leaves
            new_args += [gast.Name(id=n, ctx=gast.Param(), annotation=None, type_comment=None) for n in leaves]
            self.env[a.id] = from_treedef(td, [name(n) for n in leaves])
        n_default = len(tree.args.defaults)
        kept_defaults = [d for a, d in zip(tree.args.args[len(tree.args.args) - n_default:], tree.args.defaults)
                         if a.id not in self.param_trees]
        tree.args.args = new_args
        tree.args.defaults = kept_defaults
        tree.body = self.block(tree.body)
        if self.out_tree is None:
            self.out_tree = pytree.LEAF
        unit = FunctionSource(func=self.unit.func, tree=tree, filename=self.unit.filename,
                              namespace=self.namespace,
                              text=self.unit.text + "\n# structure: " + repr(sorted(
                                  (k, str(v)) for k, v in self.param_trees.items())))
        return unit, self.out_tree


def flatten_function(unit, param_trees, pair=False):
    """(the FunctionSource of ``unit`` with its pytree parameters flattened into leaves, the
    TreeDef of its result). ``param_trees`` maps parameter names to TreeDefs. The flat function
    returns the leaves of a pytree result as a tuple; with ``pair`` (has_aux) it returns
    ``(output, aux)`` with the aux leaves as a tuple."""
    flattener = Flattener(unit, param_trees, Namer(), {}, pair)
    flat, out_tree = flattener.run()
    return flat, out_tree


def uses_pytrees(unit):
    """Whether ``unit`` builds or returns pytrees (dict literals, helpers returning them) even with
    no pytree arguments: then it is transformed through its flat version too."""
    flat, out_tree = flatten_function(unit, {})
    return not out_tree.is_leaf or to_source(flat.tree) != to_source(unit.tree)
