"""Random numbers (``transpyle.random``): keys and draws, as primitives without derivatives.

A draw is a pure function of its key (an integer array), so in differentiated code it is a
constant, like ``np.zeros``: these entries have no adjoint and no tangent (``diff=()``). Their kind
rules check that the key is a rank-1 integer array and that shapes, bounds and dtypes are what the
run-time functions (``transpyle/runtime/random_draws.py``) accept, so a mistake is reported at the user's line
instead of as a Numba typing error. ``lower`` writes every call in one canonical form: all
arguments positional, the dtype as ``np.float64``/``np.float32`` and a shape list as a tuple.
"""
import gast

from .. import runtime as rt
from ..base.ast_utils import parse_expr, template_expr
from ..base.kinds import BOOL, INT, Kind, TupleKind
from . import LINEAR, by_key, define
from .common import StaticError, dtype_of

KEY = Kind("int64", 1)          # keys are uint32 arrays; to kinds every integer is int64
KEY_HINT = "make keys with transpyle.random.key(seed), split(key) or fold_in(key, i)"


def _check_key(k, s):
    key = k["key"]
    if isinstance(key, Kind) and key.ndim == 2 and not key.is_float and key.dtype != "bool":
        raise StaticError("the key is a stack of keys (rank 2); pass one of them, e.g. keys[0]")
    if not (isinstance(key, Kind) and key.ndim == 1 and not key.is_float and key.dtype != "bool"):
        raise StaticError(f"expected a key (an integer array of shape (2,)), got {key}; {KEY_HINT}")


def _integer(kind, what):
    if not (isinstance(kind, Kind) and kind.ndim == 0 and kind.dtype == "int64"):
        raise StaticError(f"{what} must be an integer, got {kind}")


def _operand_kind(k, s, param):
    """The kind of an operand that may be written inline in the call (``-a``, ``x[0]``, ``1.0 - rate``):
    operands with defaults are kept as written by normalize, so infer gives no kind for them."""
    def kind(node):
        if isinstance(node, gast.Constant):
            v = node.value
            return None if isinstance(v, bool) or not isinstance(v, (int, float)) else \
                INT if isinstance(v, int) else Kind("float64")
        if isinstance(node, gast.Name):
            return k.env.get(node.id)
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
            return kind(node.operand)
        if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub, gast.Mult, gast.Div)):
            left, right = kind(node.left), kind(node.right)
            if isinstance(left, Kind) and isinstance(right, Kind):
                rank = max(left.ndim, right.ndim)
                return INT.with_ndim(rank) if left.dtype == right.dtype == "int64" and \
                    not isinstance(node.op, gast.Div) else Kind("float64", rank)
            return None
        if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name):
            base = k.env.get(node.value.id)
            parts = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
            if isinstance(base, Kind) and all(isinstance(e, (gast.Constant, gast.Name)) and
                                              kind(e) == INT for e in parts):
                return base.with_ndim(base.ndim - len(parts)) if len(parts) <= base.ndim else None
        return None
    found = k.get(param) or kind(s[param])
    if found is None:
        raise StaticError(f"cannot tell the type of {param}; assign it to a variable first")
    return found


def _number(k, s, param):
    kind = _operand_kind(k, s, param)
    if not (isinstance(kind, Kind) and kind.ndim == 0 and kind.dtype in ("int64", "float64", "float32")):
        raise StaticError(f"{param} must be a number, got {kind}")


def _shape_rank(k, node):
    """The rank of an array drawn with shape ``node``: an int, a tuple of ints, or an array's ``.shape``."""
    if isinstance(node, gast.Constant):
        if isinstance(node.value, tuple):            # the default ()
            return len(node.value)
        if isinstance(node.value, int) and not isinstance(node.value, bool):
            return 1
        raise StaticError(f"shape must be an int or a tuple of ints, got {node.value!r}")
    if isinstance(node, (gast.Tuple, gast.List)):
        for e in node.elts:
            if isinstance(e, gast.Constant) and (not isinstance(e.value, int) or isinstance(e.value, bool)):
                raise StaticError(f"shape must be a tuple of ints, got the element {e.value!r}")
            if isinstance(e, gast.Name) and e.id in k.env:
                _integer(k.env[e.id], f"the dimension '{e.id}'")
        return len(node.elts)
    if isinstance(node, gast.Attribute) and node.attr == "shape":
        return k.env_rank(node.value)
    if isinstance(node, gast.Name) and node.id in k.env:
        kind = k.env[node.id]
        if isinstance(kind, TupleKind):
            for item in kind.items:
                _integer(item, "each dimension of shape")
            return len(kind.items)
        _integer(kind, f"the shape '{node.id}'")
    return 1             # an integer expression: len(x), x.shape[0], n * 2


def _key_kind(k, s):
    _integer(k["seed"], "the seed")
    return KEY


def _split_kind(k, s):
    _check_key(k, s)
    num = s["num"]
    if isinstance(num, gast.Constant) and (not isinstance(num.value, int) or isinstance(num.value, bool)):
        raise StaticError(f"num must be an integer, got {num.value!r}")
    if isinstance(num, gast.Name) and num.id in k.env:
        _integer(k.env[num.id], "num")
    return KEY.with_ndim(2)


def _fold_in_kind(k, s):
    _check_key(k, s)
    _integer(k["data"], "data")
    return KEY


def _float_kind(k, s, complex_too=False):
    _check_key(k, s)
    dtype = dtype_of(s["dtype"])
    allowed = ("float64", "float32") + (("complex128", "complex64") if complex_too else ())
    if dtype not in allowed:
        raise StaticError(f"dtype must be {' or '.join('np.' + d for d in allowed)}, got {dtype}")
    return Kind(dtype, _shape_rank(k, s["shape"]))


def _uniform_kind(k, s):
    _number(k, s, "minval")
    _number(k, s, "maxval")
    return _float_kind(k, s)


def _bernoulli_kind(k, s):
    _check_key(k, s)
    p = _operand_kind(k, s, "p")
    if not (isinstance(p, Kind) and p.dtype in ("int64", "float64", "float32")):
        raise StaticError(f"p must be a probability (a number or an array of floats), got {p}")
    shape = s["shape"]
    if isinstance(shape, gast.Constant) and shape.value is None:
        return BOOL.with_ndim(p.ndim)
    rank = _shape_rank(k, shape)
    if p.ndim > rank:
        raise StaticError(f"p of rank {p.ndim} does not broadcast to a shape of rank {rank}")
    return BOOL.with_ndim(rank)


def _randint_kind(k, s):
    _check_key(k, s)
    for param in ("minval", "maxval"):
        node = s[param]
        if isinstance(node, gast.Constant):
            if not isinstance(node.value, int) or isinstance(node.value, bool):
                raise StaticError(f"{param} must be an integer, got {node.value!r}")
        else:
            _integer(k.get(param), param)
    return INT.with_ndim(_shape_rank(k, s["shape"]))


def _permutation_kind(k, s):
    _check_key(k, s)
    x = k["x"]
    if isinstance(x, Kind) and x.ndim == 0 and x.dtype == "int64":
        return INT.with_ndim(1)
    if isinstance(x, Kind) and x.ndim >= 1:
        return x
    raise StaticError(f"x must be an int or an array of rank 1 or more, got {x}")


def _canonical(fname, params):
    """``lower``: the call with every argument positional, the dtype as np.float64/np.float32 and
    a shape list as a tuple (the forms the Numba implementations in runtime/random_draws.py are typed for)."""
    def lower(bound, kinds, statics):
        args = []
        for param in params:
            node = bound[param]
            if param == "dtype":
                node = parse_expr(f"np.{dtype_of(node)}")
            elif param == "shape" and isinstance(node, gast.List):
                node = gast.Tuple(elts=node.elts, ctx=gast.Load())
            args.append(node)
        return gast.Call(func=parse_expr(f"rt.{fname}"), args=args, keywords=[])
    return lower


def _define(key, function, signature, kind, vjp=None, jvp=None, diff=()):
    # a draw is a constant to the transforms (diff=()); what it is made from may not be
    prim = define(key, [function], signature, kind, vjp, diff=diff, jvp=jvp)
    prim.lower = _canonical(function.__name__, prim.params)


# minval + (maxval - minval) * u: u, the draw's place in the interval, weighs maxval, and 1 - u minval
_UNIFORM_WEIGHTS = {"minval": "(maxval - y) / (maxval - minval)", "maxval": "(y - minval) / (maxval - minval)"}

_define("random.key", rt.random_key, "seed", _key_kind)
_define("random.split", rt.random_split, "key, num=2", _split_kind)
_define("random.fold_in", rt.random_fold_in, "key, data", _fold_in_kind)
_define("random.uniform", rt.random_uniform, "key, shape=(), dtype=None, minval=0.0, maxval=1.0", _uniform_kind,
        vjp={p: f"np.sum(g * {w})" for p, w in _UNIFORM_WEIGHTS.items()},
        jvp={p: f"t * {w}" for p, w in _UNIFORM_WEIGHTS.items()}, diff=("minval", "maxval"))
_define("random.normal", rt.random_normal, "key, shape=(), dtype=None", lambda k, s: _float_kind(k, s, True))
_REAL_NORMAL = by_key("random.normal").lower


def _normal_lower(bound, kinds, statics):
    """A complex normal draw, as JAX makes one: real and imaginary parts independent normals of variance
    1/2, drawn with the two halves of the key."""
    dtype = dtype_of(bound["dtype"])
    if not dtype.startswith("complex"):
        return _REAL_NORMAL(bound, kinds, statics)
    real = "float64" if dtype == "complex128" else "float32"
    return template_expr(f"(rt.random_normal(rt.random_split(key, 2)[0], shape, np.{real}) + "
                         f"1j * rt.random_normal(rt.random_split(key, 2)[1], shape, np.{real})) * 0.7071067811865476",
                         key=bound["key"], shape=bound["shape"] if not isinstance(bound["shape"], gast.List) else
                         gast.Tuple(elts=bound["shape"].elts, ctx=gast.Load()))


by_key("random.normal").lower = _normal_lower
_define("random.bernoulli", rt.random_bernoulli, "key, p=0.5, shape=None", _bernoulli_kind)
_define("random.randint", rt.random_randint, "key, shape, minval, maxval", _randint_kind)
# the rows of x in the key's order: the cotangent's rows go back by the inverse order
_define("random.permutation", rt.random_permutation, "key, x", _permutation_kind,
        vjp={"x": "g[np.argsort(rt.random_permutation(key, g.shape[0]))]"}, jvp=LINEAR, diff=("x",))
