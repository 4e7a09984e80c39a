"""jumps: early ``return``, ``break`` and ``continue`` become flags and guarded blocks.

After this pass a function has one ``return`` at its end and loops are left only through their
conditions, so the later passes see structured control flow only. ``for`` loops that ``break``
(or ``return``) become ``while`` loops over their index; the flags read like the source:
``_brk1`` (loop 1 broke), ``_cont1`` (iteration 1 continues early), ``_ret`` (the function returned).
"""
import gast

from ..base.ast_utils import assign, const, name, parse_expr, template_expr


def _contains(stmts, kinds, into_loops):
    for s in stmts:
        for node in gast.walk(s) if into_loops else _walk_no_loops(s):
            if isinstance(node, kinds):
                return True
    return False


def _walk_no_loops(node):
    """Walk without entering nested loops (their break/continue belong to them) or defs."""
    stack = [node]
    first = True
    while stack:
        n = stack.pop()
        yield n
        if not first and isinstance(n, (gast.For, gast.While, gast.FunctionDef, gast.Lambda)):
            continue
        first = False
        if isinstance(n, (gast.For, gast.While)) and n is node:
            # the loop's own body: its break/continue belong to it, skip
            continue
        stack.extend(gast.iter_child_nodes(n))


def _own_jumps(body):
    """break/continue statements in ``body`` that belong to this loop (not nested ones)."""
    found = set()

    def visit(stmts):
        for s in stmts:
            if isinstance(s, gast.Break):
                found.add("break")
            elif isinstance(s, gast.Continue):
                found.add("continue")
            elif isinstance(s, gast.If):
                visit(s.body)
                visit(s.orelse)
    visit(body)
    return found


def _walk_no_defs(node):
    """Walk without entering nested defs and lambdas (their returns are their own)."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, (gast.FunctionDef, gast.Lambda)):
            continue
        stack.extend(gast.iter_child_nodes(n))


def _has_return(stmts):
    return any(isinstance(n, gast.Return) for s in stmts for n in _walk_no_defs(s))


class _Lowering:
    def __init__(self, ctx):
        self.ctx = ctx
        self.ret_flag = None       # set when the function has a non-final return
        self.procedure = False     # every return is bare: no value to carry to the end
        self.loops = []            # stack of dicts: {'brk': name or None, 'cont': name or None}

    # flags a statement may set that end the enclosing block early
    def _may_set(self, stmt):
        flags = set()
        for n in gast.walk(stmt):
            if isinstance(n, gast.Return) and self.ret_flag:
                flags.add(self.ret_flag)
        if self.loops:
            loop = self.loops[-1]
            own = _own_jumps([stmt]) if not isinstance(stmt, (gast.For, gast.While)) else set()
            if "break" in own:
                flags.add(loop["brk"])
            if "continue" in own:
                flags.add(loop["cont"])
        return flags

    def block(self, stmts):
        out = []
        for i, s in enumerate(stmts):
            flags = self._may_set(s)          # before lowering: it rewrites the jumps it finds
            out.extend(self.stmt(s))
            if flags and i + 1 < len(stmts):
                rest = self.block(stmts[i + 1:])
                if rest:
                    test = " and ".join(f"not {f}" for f in sorted(flags))
                    guard = gast.If(test=parse_expr(test), body=rest, orelse=[])
                    gast.copy_location(guard, stmts[i + 1])
                    out.append(guard)
                return out
        return out

    def stmt(self, s):
        if isinstance(s, gast.Return):
            if self.ret_flag is None:
                return [s]
            if self.procedure:
                return [gast.copy_location(assign(self.ret_flag, const(True)), s)]
            value = s.value if s.value is not None else const(None)
            return [gast.copy_location(assign("_retval", value), s),
                    gast.copy_location(assign(self.ret_flag, const(True)), s)]
        if isinstance(s, gast.Break):
            return [gast.copy_location(assign(self.loops[-1]["brk"], const(True)), s)]
        if isinstance(s, gast.Continue):
            return [gast.copy_location(assign(self.loops[-1]["cont"], const(True)), s)]
        if isinstance(s, gast.If):
            s.body = self.block(s.body) or [gast.Pass()]
            s.orelse = self.block(s.orelse)
            return [s]
        if isinstance(s, (gast.For, gast.While)):
            return self.loop(s)
        return [s]

    def loop(self, s):
        if s.orelse:
            raise self.ctx.error(s, "'else' on a loop is not supported", construct=f"{type(s).__name__.lower()} ... else",
                                 hint="use a flag variable set before 'break'")
        own = _own_jumps(s.body)
        exits = "break" in own or (self.ret_flag is not None and _has_return(s.body))
        loop = {"brk": self.ctx.namer.fresh("_brk") if exits else None,
                "cont": self.ctx.namer.fresh("_cont") if "continue" in own else None}
        self.loops.append(loop)
        body = self.block(s.body)
        self.loops.pop()
        if loop["cont"]:
            body.insert(0, gast.copy_location(assign(loop["cont"], const(False)), s))
        stops = [f for f in (loop["brk"], self.ret_flag if exits else None) if f]
        if not stops:
            s.body = body
            return [s]
        out = [gast.copy_location(assign(loop["brk"], const(False)), s)]
        if isinstance(s, gast.While):
            test = " and ".join(f"not {f}" for f in stops)
            s.test = gast.BoolOp(op=gast.And(), values=[parse_expr(test), s.test])
            s.body = body
            out.append(s)
            return out
        return out + self._for_as_while(s, body, stops)

    def _for_as_while(self, s, body, stops):
        it = s.iter
        if not (isinstance(it, gast.Call) and isinstance(it.func, gast.Name) and it.func.id == "range"
                and isinstance(s.target, gast.Name)):
            raise self.ctx.error(s, "'break' or 'return' is supported inside 'for i in range(...)' loops",
                                 construct="break", hint="loop over range(len(x)) and index inside the loop")
        args = it.args
        start, stop, step = (const(0), args[0], const(1)) if len(args) == 1 else \
            (args[0], args[1], args[2] if len(args) > 2 else const(1))
        i = s.target.id
        stop_name = self.ctx.namer.fresh("_stop")
        step_name = self.ctx.namer.fresh("_step")
        pre = [assign(stop_name, stop), assign(step_name, step), assign(i, start)]
        flags = " and ".join(f"not {f}" for f in stops)
        test = template_expr(f"{flags} and rt.in_range(i, stop, step)", i=i, stop=stop_name, step=step_name)
        advance = gast.If(test=parse_expr(flags), body=[assign(i, template_expr("i + step", i=i, step=step_name))],
                          orelse=[])
        loop = gast.While(test=test, body=body + [advance], orelse=[])
        for n in pre + [loop, advance]:
            gast.copy_location(n, s)
        return pre + [loop]


_RESULT_NEEDED = {
    "grad": "a real scalar", "value_and_grad": "a real scalar", "vjp": "an output", "jvp": "an output",
    "jacfwd": "an output", "jacrev": "an output", "vmap": "its results per example",
}


def returns_nothing(tree):
    """Whether the function ``tree`` returns no value: a procedure, which writes into its arguments
    (a generator is not one: resolve refuses its ``yield``)."""
    nodes = [n for s in tree.body for n in _walk_no_defs(s)]
    return not any(isinstance(n, (gast.Yield, gast.YieldFrom)) for n in nodes) and \
        all(n.value is None or (isinstance(n.value, gast.Constant) and n.value.value is None)
            for n in nodes if isinstance(n, gast.Return))


def returns_nothing_error(tree, ctx):
    """The error for a transform of a procedure: a function that only writes into its arguments."""
    name = tree.name
    needed = _RESULT_NEEDED.get(ctx.mode, "a value")
    if ctx.mode in ("grad", "value_and_grad"):
        hint = (f"differentiate a function that calls it and returns a scalar, e.g. "
                f"def loss(a): b = a.copy(); {name}(..., b); return np.sum(b ** 2)")
    else:
        hint = f"transform a function that calls it and returns the arrays it writes, e.g. b = a.copy(); {name}(..., b); return b"
    return ctx.error(tree, f"{ctx.mode} needs a function that returns {needed}, but '{name}' returns nothing "
                           "(it only writes into its arguments)", construct=f"def {name}", hint=hint)


def run(tree, ctx, callee=False):
    """Lower the jumps of ``tree``. A ``callee`` (a helper being inlined) may end without a return,
    as helpers that write into their arguments do: it returns None; so may a jitted function. Other
    transforms need a result."""
    body = tree.body
    returns = [n for s in body for n in _walk_no_defs(s) if isinstance(n, gast.Return)]
    if not callee and ctx.mode != "primal" and returns_nothing(tree):
        raise returns_nothing_error(tree, ctx)
    # a procedure (writes into its arguments, returns nothing) returns None, as in Python: helpers, and
    # jit of the procedure itself, whose caller sees the writes into the arrays it passed
    if not returns:
        body.append(gast.copy_location(gast.Return(value=const(None)), body[-1] if body else tree))
        returns.append(body[-1])
    elif len(returns) == 1 and body[-1] is returns[0] and returns[0].value is None:
        returns[0].value = const(None)
    tail_only = len(returns) == 1 and isinstance(body[-1], gast.Return) and body[-1] is returns[0]
    lowering = _Lowering(ctx)
    if not tail_only:
        lowering.ret_flag = ctx.namer.fresh("_ret")
        # a procedure's early returns only end it: no '_retval = None', a value with no type to infer
        lowering.procedure = returns_nothing(tree)
    new = lowering.block(body)
    if lowering.ret_flag:
        new.insert(0, gast.copy_location(assign(lowering.ret_flag, const(False)), tree))
        result = const(None) if lowering.procedure else name("_retval")
        new.append(gast.copy_location(gast.Return(value=result), body[-1]))
    elif not isinstance(new[-1], gast.Return):
        raise ctx.error(body[-1], f"'{tree.name}' can end without returning a value",
                        hint="end the function with 'return <value>'")
    tree.body = new
    return tree
