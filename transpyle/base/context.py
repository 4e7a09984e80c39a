"""What the passes share: the user's function, diagnostics with locations, names and kinds."""
import linecache
from dataclasses import dataclass, field

import gast

from .errors import TranspileError
from .naming import Namer

FILE_ATTR = "transpyle_file"     # set on statements inlined from another file


#: lines of another file in generated code that is read back as source (``frontend/source``): a
#: statement there is numbered above VIRTUAL_LINES, one number per (file, line), so the place
#: survives every pass that copies a statement's line onto the statements it makes from it
VIRTUAL_LINES = 1 << 24
_NUMBERS = {}
_PLACES = []


def virtual_line(path, line):
    """The number standing for ``line`` of ``path``."""
    if (path, line) not in _NUMBERS:
        _NUMBERS[(path, line)] = VIRTUAL_LINES + len(_PLACES)
        _PLACES.append((path, line))
    return _NUMBERS[(path, line)]


def place(node, default):
    """(file, line) that ``node`` came from; ``default`` is the file being transformed."""
    line = getattr(node, "lineno", None)
    if line is not None and line >= VIRTUAL_LINES:
        return _PLACES[line - VIRTUAL_LINES]
    return node_file(node, default), line


def node_file(node, default):
    """The file ``node`` came from: its own ``FILE_ATTR``, or that of the nodes it holds (a pass that
    splits a statement copies its line onto the new statements, not the mark of an inlined file)."""
    todo = [node]
    while todo:
        n = todo.pop()
        path = getattr(n, FILE_ATTR, None)
        if path:
            return path
        # a loop's or a branch's header, not the statements inside it (they may come from elsewhere)
        todo.extend(child for field, child in gast.iter_fields(n) if field not in ("body", "orelse", "finalbody")
                    for child in (child if isinstance(child, list) else [child]) if isinstance(child, gast.AST))
    return default


class DeferredCall:
    """A call to a transformed function (``grad(g)`` called inside ``f``): its code depends on the
    kinds of the arguments at the call, so it is generated and inlined once ``infer`` knows them."""

    def __init__(self, transformed):
        self.transformed = transformed


class NeedKinds(Exception):
    """Raised by ``infer`` at a deferred call: (registry key, argument kinds)."""

    def __init__(self, key, kinds):
        super().__init__(key)
        self.key, self.kinds = key, kinds


@dataclass
class Context:
    """State that passes read and write, declared in one place.

    - ``source``: the FunctionSource of the function being transformed;
    - ``namer``: fresh names for generated variables;
    - ``functions``: user functions called from the body (name in the tree -> FunctionSource,
      a nested ``FunctionDef``, a ``DeferredCall``, or a ``CustomRule`` for functions with custom
      derivative rules), filled by ``resolve`` and consumed by ``inline``;
    - ``arg_kinds``/``kinds``: kinds of the arguments and, after ``infer``, of every variable;
    - ``arg_lengths``: for array arguments of the call the code is compiled for, each axis as the first
      argument axis of its length, ``(argument, axis)`` (``base.kinds.equal_axes``); empty where the code
      must serve any shapes;
    - ``wrt``: names of the arguments differentiated; ``active``: variables carrying derivatives;
    - ``mode``/``options``: the transform and its options; ``stage``: the running pass;
    - ``captured``: module-level arrays the code reads, passed in as extra parameters;
    - ``helpers``: generated functions the result calls (the jvp or vjp behind a Jacobian driver);
    - ``derivative``: the sweep the transform differentiates in, ``"reverse"`` or ``"forward"``
      (``""`` for jit and vmap): it decides how calls to functions with custom rules are inlined;
    - ``timings``: (pass, seconds) of each pass run;
    - ``array_form``: where ``element_loops`` lowered elementwise statements to loops, the function as
      it was before (tidied): what a Python run answering while Numba compiles executes;
    - ``transform_call``: ``(function, mode, argnums) ->`` a transform of it that a call in the
      body refers to (``jvp(f, ...)`` in transformed code), set by the pipeline.
    """
    source: object
    namer: Namer = field(default_factory=Namer)
    functions: dict = field(default_factory=dict)
    arg_kinds: dict = field(default_factory=dict)
    kinds: dict = field(default_factory=dict)
    arg_lengths: dict = field(default_factory=dict)
    wrt: tuple = ()
    active: set = field(default_factory=set)
    mode: str = "primal"
    options: dict = field(default_factory=dict)
    stage: str = ""
    captured: dict = field(default_factory=dict)
    helpers: list = field(default_factory=list)
    derivative: str = ""
    timings: list = field(default_factory=list)
    transform_call: object = None
    array_form: object = None

    def capture(self, unit, name, value):
        """The parameter name under which the global array ``name`` of ``unit`` (or the array an
        attribute chain ``self.W`` reads) is passed in.

        ``captured`` maps (function, name) -> (parameter, getter, value) (``unit.capture_key``); the
        pipeline appends the parameters to the generated function and the API passes the current values."""
        key = unit.capture_key(name)
        if key not in self.captured:
            # the transformed function's own free names are reserved for exactly this use
            plain = "." not in name
            param = name if unit is self.source and plain else self.namer.exact_or_fresh(name.replace(".", "_"))
            self.captured[key] = (param, unit.getter(name), value)
        return self.captured[key][0]

    @property
    def filename(self):
        return self.source.filename

    def error(self, node, message, hint=None, construct=None):
        """A TranspileError located at ``node`` (a gast node, or None for the function itself)."""
        filename, lineno = place(node, self.filename) if node is not None else (self.filename, None)
        if lineno is None:
            lineno = getattr(self.source.tree, "lineno", None)
        if construct is None and node is not None:
            from .ast_utils import expr_source
            try:
                # a statement is named by its line as the user wrote it (passes rewrite the tree)
                line = linecache.getline(filename, lineno).strip() if lineno else ""
                construct = expr_source(node) if isinstance(node, gast.expr) else \
                    line or type(node).__name__.lower()
            except Exception:          # a half-built node: name its type
                construct = type(node).__name__
        return TranspileError(message, filename=filename, lineno=lineno, construct=construct, hint=hint,
                              stage=None)
