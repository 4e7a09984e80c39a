"""dtypes: ``x.dtype`` and names holding a dtype, which ``infer`` resolves from the kinds it finds.

A dtype is a static fact, like a shape's rank: ``np.empty(n, dtype=x.dtype)``, ``y.astype(x.dtype)``
or ``dt = x.dtype; np.zeros(3, dt)`` name the dtype of ``x``'s kind. While ``infer`` walks the body,
the kind rules see the concrete dtype (``np.float64``) in place of each such reference, so they read
it as if it had been written out; once the kinds are final, ``rewrite`` writes it out: references become
``np.<dtype>``, assignments to dtype names go (nothing else reads them), and a comparison of two
dtypes (``x.dtype == np.float32``) becomes the constant it is.
"""
import gast

from ..base.ast_utils import const, parse_expr
from ..base.kinds import Kind
from ..rules.common import StaticError, dtype_of, is_dtype_expr


class DtypeNames:
    """The local names that hold a dtype, and the dtype each reference stands for."""

    def __init__(self, ctx, kind_of):
        self.ctx = ctx
        self.kind_of = kind_of          # node -> its kind (infer's expr_kind)
        self.held = {}                  # name -> the reference it was assigned

    def refers(self, node):
        """Whether ``node`` is a dtype: ``x.dtype``, ``np.float32``, or a name that holds one."""
        return is_dtype_expr(node) or isinstance(node, gast.Name) and node.id in self.held

    def record(self, target, value, stmt):
        """``target = value`` where value is a dtype: one name holds one dtype for its life."""
        if target in self.held and self.text(self.held[target]) != self.text(value):
            raise self.ctx.error(stmt, f"'{target}' holds the dtype {self.text(self.held[target])} and then "
                                 f"{self.text(value)}", hint="use a new name for the other dtype")
        self.held[target] = value

    def text(self, node):
        """The dtype name (``'float64'``) a reference stands for."""
        if isinstance(node, gast.Name) and node.id in self.held:
            return self.text(self.held[node.id])
        if isinstance(node, gast.Attribute) and node.attr == "dtype":
            kind = self.kind_of(node.value)
            if not isinstance(kind, Kind):
                raise self.ctx.error(node, f"'.dtype' of a value of type {kind}",
                                     hint="take the dtype of an array or a number")
            return kind.dtype
        try:
            return dtype_of(node)
        except StaticError as exc:
            raise self.ctx.error(node, str(exc)) from None

    def concrete(self, node):
        """``np.<dtype>`` for a dtype reference, else ``node`` itself."""
        if not self.refers(node):
            return node
        text = self.text(node)
        return gast.copy_location(parse_expr(f"np.{'bool_' if text == 'bool' else text}"), node)

    def compared(self, node, stmt):
        """The constant value of ``a == b`` or ``a != b`` between dtypes, or None when ``node`` is no such
        comparison."""
        if not (isinstance(node, gast.Compare) and len(node.ops) == 1 and self.refers(node.left) and
                self.refers(node.comparators[0])):
            return None
        if not isinstance(node.ops[0], (gast.Eq, gast.NotEq)):
            raise self.ctx.error(stmt, "dtypes can only be compared with == and !=")
        same = self.text(node.left) == self.text(node.comparators[0])
        return same if isinstance(node.ops[0], gast.Eq) else not same

    def rewrite(self, body):
        """``body`` with every dtype written out (see the module docstring)."""
        out = []
        for s in body:
            if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and s.targets[0].id in self.held:
                continue
            for field in ("body", "orelse"):
                if isinstance(getattr(s, field, None), list):
                    setattr(s, field, self.rewrite(getattr(s, field)) or ([gast.Pass()] if field == "body" else []))
            value = getattr(s, "value", None)
            folded = self.compared(value, s) if isinstance(s, gast.Assign) else None
            if folded is not None:
                s.value = gast.copy_location(const(folded), value)
            else:
                self._write_out(s)
            out.append(s)
        return out

    def _write_out(self, stmt):
        for node in gast.walk(stmt):
            for field, child in gast.iter_fields(node):
                if isinstance(child, list):
                    setattr(node, field, [self.concrete(c) if isinstance(c, gast.expr) else c for c in child])
                elif isinstance(child, gast.expr) and (not isinstance(child, gast.Name) or
                                                       isinstance(child.ctx, gast.Load)):
                    setattr(node, field, self.concrete(child))
