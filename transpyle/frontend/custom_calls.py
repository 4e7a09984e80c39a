"""custom_calls: calls to functions with their own derivative rules (``transpyle.custom_jvp`` and
``custom_vjp``, see ``transpyle/frontend/custom.py``).

``expand`` is what ``inline`` does with such a call ``y = f(x, w)``, depending on the sweep the
transform differentiates in (``ctx.derivative``):

- jit and vmap (no derivative), and calls inside f's own rule: f's body, like any helper;
- a custom_jvp function, in both modes: the rule inlined with the primals as values without a
  derivative (``rt.custom_primal(x)``) and as tangents zeros whose derivative is that of the
  primal (``rt.custom_tangent(x)``), then ``y = rt.custom_output(out, tangent_out)``: the rule's
  primal output, carrying the derivative of its tangent output. Forward mode so evaluates the
  rule; reverse mode runs the tangent output, which is linear in the tangents, backwards: its
  transpose;
- a custom_vjp function in reverse mode: fwd inlined, giving the output and the residuals, then
  ``y = rt.custom_vjp_call((x, w), (r0, r1), out, 'f_bwd', ('bx_f', 'bw_f'), ())``, whose adjoint
  (``rules/generated.py``) is ``bx_f, bw_f = f_bwd((r0, r1), by)`` followed by the accumulation
  into the active inputs' adjoints. The residuals are ordinary variables the adjoint reads, so the
  reverse pass saves them on tapes where a loop overwrites them;
- a custom_vjp function in forward mode: its body, marked so that differentiating it is the
  error JAX gives.

After the transform, ``transforms/custom_rules`` replaces the markers by their plain values.
"""
import copy
import dataclasses
import inspect

import gast

from ..base.ast_utils import assign, const, name, parse_expr, stored_names
from ..base.context import FILE_ATTR
from .custom import custom_jvp
from .source import read_function


def expand(inliner, stmt, rule):
    """The statements replacing ``stmt`` (``target = f(...)``, f a CustomRule), inlined."""
    ctx = inliner.ctx
    args = _bind(ctx, stmt, rule)
    target = stmt.targets[0]
    if not ctx.derivative or rule in inliner.stack:
        return inliner.block([_call(ctx, stmt, target, rule.fun, args)])
    fname = rule.__name__
    if not isinstance(target, gast.Name):
        raise ctx.error(stmt, f"'{fname}' has a custom derivative rule, so it must return one value",
                        hint="return one number or array")
    params = list(inspect.signature(rule.fun).parameters)
    for i, a in enumerate(args):
        if i not in rule.nondiff_argnums and isinstance(a, gast.Name) and a.id in ctx.functions:
            raise ctx.error(stmt, f"'{fname}' receives a function as its argument '{params[i]}', which has no "
                            "derivative", hint=f"list it in nondiff_argnums: {type(rule).__name__}({fname}, "
                                               f"nondiff_argnums=({i},))")
    inliner.stack.append(rule)
    try:
        if isinstance(rule, custom_jvp):
            out = _jvp_call(inliner, stmt, rule, args)
        else:
            out = _vjp_call(inliner, stmt, rule, args)
    finally:
        inliner.stack.pop()
    return out


def _jvp_call(inliner, stmt, rule, args):
    ctx, fname = inliner.ctx, rule.__name__
    if rule.jvp is None:
        raise ctx.error(stmt, f"'{fname}' is a custom_jvp function without a rule",
                        hint=f"define the rule with @{fname}.defjvp")
    _check_returns(ctx, rule.jvp, 2, "(primal_out, tangent_out)")
    params = list(inspect.signature(rule.fun).parameters)
    nondiff = rule.nondiff_argnums
    out, primals, tangents = [], [], []
    for i, (p, a) in enumerate(zip(params, args)):
        if i in nondiff:
            continue
        if isinstance(a, gast.Name):
            primal = ctx.namer.fresh(f"{p}_{fname}")
            out.append(_located(assign(primal, parse_expr(f"rt.custom_primal({a.id})")), stmt))
            primals.append(name(primal))
        else:
            primals.append(a)
        tangent = ctx.namer.fresh(f"d{p}_{fname}")
        out.append(_located(assign(tangent, gast.Call(func=parse_expr("rt.custom_tangent"), args=[a], keywords=[])),
                            stmt))
        tangents.append(name(tangent))
    value, tangent_out = ctx.namer.fresh("_t"), ctx.namer.fresh("_t")
    pair = gast.Tuple(elts=[name(value, store=True), name(tangent_out, store=True)], ctx=gast.Store())
    call = _call(ctx, stmt, pair, rule.jvp, [args[i] for i in nondiff] + [_tuple(primals), _tuple(tangents)])
    out = inliner.block(out + [call])
    out.append(_located(assign(stmt.targets[0].id, parse_expr(f"rt.custom_output({value}, {tangent_out})")), stmt))
    return out


def _vjp_call(inliner, stmt, rule, args):
    ctx, fname = inliner.ctx, rule.__name__
    if rule.fwd is None:
        raise ctx.error(stmt, f"'{fname}' is a custom_vjp function without a rule",
                        hint=f"define the rule with {fname}.defvjp(fwd, bwd)")
    value = ctx.namer.fresh("_t")
    params = list(inspect.signature(rule.fun).parameters)
    diff = [i for i in range(len(params)) if i not in rule.nondiff_argnums]
    if ctx.derivative == "forward":      # the body, and a marker whose tangent rule is the error
        out = inliner.block([_call(ctx, stmt, name(value, store=True), rule.fun, args)])
        link = gast.Call(func=parse_expr("rt.custom_vjp_call"),
                         args=[_tuple(args[i] for i in diff), _tuple([]), name(value), const(fname), _tuple([]),
                               _tuple([])], keywords=[])
        return out + [_located(assign(stmt.targets[0].id, link), stmt)]
    _check_returns(ctx, rule.fwd, 2, "(output, residuals)")
    _check_returns(ctx, rule.bwd, len(diff), f"one cotangent per differentiable argument of '{fname}' "
                                             f"({', '.join(params[i] for i in diff)})")
    residuals = ctx.namer.fresh("_res")
    pair = gast.Tuple(elts=[name(value, store=True), name(residuals, store=True)], ctx=gast.Store())
    out = inliner.block([_call(ctx, stmt, pair, rule.fwd, args)])
    count = _tuple_length(out, residuals)
    nothing = [t for t in out if isinstance(t, gast.Assign) and isinstance(t.targets[0], gast.Name) and
               t.targets[0].id == residuals and isinstance(t.value, gast.Constant) and t.value.value is None]
    if nothing and len(nothing) == sum(residuals in stored_names([t]) for t in out):
        out = [t for t in out if t is not nothing[0]]       # fwd saves nothing (``return y, None``)
        saved = const(None)
    elif count is None:            # not a tuple: bwd receives it as it is
        saved = name(residuals)
    else:
        parts = [ctx.namer.fresh("_r") for _ in range(count)]
        out.extend(_located(assign(p, parse_expr(f"{residuals}[{i}]")), stmt) for i, p in enumerate(parts))
        saved = _tuple([name(p) for p in parts])
    bwd = _register(ctx, rule.bwd, none_is_zero=True)
    cotangents = [ctx.namer.exact_or_fresh(f"b{params[i]}_{fname}") for i in diff]
    # arguments without a derivative go to bwd first; a function among them by its registry key
    nondiff = [const(args[i].id) if isinstance(args[i], gast.Name) and args[i].id in ctx.functions else args[i]
               for i in rule.nondiff_argnums]
    link = gast.Call(func=parse_expr("rt.custom_vjp_call"),
                     args=[_tuple(args[i] for i in diff), saved, name(value), const(bwd),
                           _tuple([const(c) for c in cotangents]), _tuple(nondiff)], keywords=[])
    return out + [_located(assign(stmt.targets[0].id, link), stmt)]


def _bind(ctx, stmt, rule):
    """The call's arguments (atoms) in the order of f's parameters, defaults filled in."""
    call = stmt.value
    try:
        bound = inspect.signature(rule.fun).bind(*call.args, **{kw.arg: kw.value for kw in call.keywords})
    except TypeError as exc:
        raise ctx.error(stmt, f"'{rule.__name__}': {exc}", hint="check the call's arguments") from None
    bound.apply_defaults()
    args = []
    for value in bound.arguments.values():
        if not isinstance(value, gast.AST):
            if not isinstance(value, (bool, int, float, complex)):
                raise ctx.error(stmt, f"'{rule.__name__}' has a default value of type {type(value).__name__}",
                                hint="pass the argument explicitly")
            value = const(value)
        args.append(value)
    return args


def _call(ctx, stmt, target, func, args):
    """``target = func(*args)``, ``func`` registered for inlining."""
    call = gast.Call(func=name(_register(ctx, func)), args=list(args), keywords=[])
    return _located(gast.Assign(targets=[target], value=call, type_comment=None), stmt)


#: the names the adjoint template of a custom_vjp call reads (rules/generated.py): no rule's key may be one
_TEMPLATE_NAMES = {"inputs", "residuals", "value", "bwd", "cotangents", "nondiff", "g"}


def _register(ctx, func, none_is_zero=False):
    """The registry key under which ``func`` is inlined (as ``resolve`` registers helpers). With
    ``none_is_zero`` (a bwd rule), a ``None`` among the cotangents it returns is a zero, as JAX reads it."""
    unit = read_function(func)
    if none_is_zero:
        unit = dataclasses.replace(unit, tree=copy.deepcopy(unit.tree))
        for ret in _returns(unit.tree):
            if isinstance(ret.value, gast.Tuple):
                ret.value.elts = [const(0.0) if isinstance(e, gast.Constant) and e.value is None else e
                                  for e in ret.value.elts]
    base = unit.name if not unit.name.startswith("lambda") else "lambda_fn"
    key = ctx.namer.fresh(base + "_rule" if base in _TEMPLATE_NAMES or base.startswith("nondiff") else base)
    ctx.functions[key] = unit
    return key


def _located(new, stmt):
    gast.copy_location(new, stmt)
    if hasattr(stmt, FILE_ATTR):
        for n in gast.walk(new):
            setattr(n, FILE_ATTR, getattr(stmt, FILE_ATTR))
    return new


def _tuple(elts):
    return gast.Tuple(elts=list(elts), ctx=gast.Load())


def _tuple_length(stmts, var):
    """The number of elements of the tuple last assigned to ``var`` in ``stmts`` (following copies),
    or None when it is not a tuple literal."""
    for s in reversed(stmts):
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and s.targets[0].id == var:
            if isinstance(s.value, gast.Tuple):
                return len(s.value.elts)
            if isinstance(s.value, gast.Name):
                var = s.value.id
                continue
            return None
    return None


def _check_returns(ctx, func, count, what):
    """Each ``return`` of the rule ``func`` must give a tuple of ``count`` values, written out."""
    unit = read_function(func)
    for ret in _returns(unit.tree):
        got = len(ret.value.elts) if isinstance(ret.value, gast.Tuple) else None
        if got != count:
            setattr(ret, FILE_ATTR, unit.filename)
            shown = f"{got} value{'s' if got != 1 else ''}" if got is not None else "one value, not a tuple"
            raise ctx.error(ret, f"'{unit.name}' must return {what}: {count} values, but returns {shown}",
                            hint=f"return a tuple of {count}, written out: return a, b")


def _returns(node):
    """The ``return`` statements of the function ``node`` (not of functions nested in it)."""
    for child in gast.iter_child_nodes(node):
        if isinstance(child, gast.Return):
            yield child
        elif not isinstance(child, (gast.FunctionDef, gast.Lambda)):
            yield from _returns(child)
