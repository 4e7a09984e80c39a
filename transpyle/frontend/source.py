"""Reading a user function: its source, its gast tree with real line numbers, and its namespace."""
import ast
import builtins
import hashlib
import importlib
import inspect
import linecache
import os
import re
import textwrap
import types
import dataclasses
from dataclasses import dataclass, field

import gast

from . import list_appends, wrapped_callables
from ..twins import MODULES as TWIN_MODULES
from ..base.context import virtual_line
from ..base.errors import TranspileError


@dataclass(eq=False)
class FunctionSource:
    """A user function as the passes see it (compared and hashed by identity)."""
    func: object                 # the Python function object
    tree: gast.FunctionDef       # its definition, line numbers as in the user's file
    filename: str
    namespace: dict = field(default_factory=dict)   # globals, then closure cells
    text: str = ""               # the dedented source text (part of the cache key)
    # names bound to values when the function was read (a method's instance, static arguments,
    # defaults not passed, the arrays a generated function was given): name -> (capture key, getter)
    bound: dict = field(default_factory=dict)

    @property
    def name(self):
        return self.tree.name

    def getter(self, name):
        """A function returning the current value of the global or closure variable ``name``, or of
        an attribute chain ``model.W`` (captured arrays are read at every call, as Python would)."""
        head, *rest = name.split(".")
        get = self._head_getter(head)
        if not rest:
            return get

        def attribute():
            obj = get()
            for part in rest:
                obj = getattr(obj, part)
            return obj
        return attribute

    def _head_getter(self, name):
        if name in self.bound:
            return self.bound[name][1]
        code = getattr(self.func, "__code__", None)
        if code is not None and self.func.__closure__ and name in code.co_freevars:
            cell = self.func.__closure__[code.co_freevars.index(name)]
            return lambda: cell.cell_contents
        scope = self.func.__globals__
        return lambda: scope[name]

    def capture_key(self, name):
        """What a captured array read as ``name`` (a name or an attribute chain) is, across the functions
        inlined into one transform: the same global or closure variable read twice is passed in once."""
        head, _, rest = name.partition(".")
        if head in self.bound:
            return self.bound[head][0] + ((rest,) if rest else ())
        code = getattr(self.func, "__code__", None)
        if code is not None and head in code.co_freevars:
            return (getattr(self.func, "__func__", self.func), name)
        return (id(self.func.__globals__), name)

    def bind(self, values):
        """This function with parameters or free names bound to ``values`` (name -> value): they are
        read like module constants (arrays among them are passed in at every call)."""
        bound = {n: (("bound", id(v), n), lambda v=v: v) for n, v in values.items()}
        return dataclasses.replace(self, namespace={**self.namespace, **values}, bound={**self.bound, **bound})

    def lookup(self, name):
        if name in self.namespace:
            return True, self.namespace[name]
        if hasattr(builtins, name):
            return True, getattr(builtins, name)
        return False, None


#: transpyle's modules written as plain Python for the transforms to inline (lax's control flow, nn's activations)
INLINED_LIBRARY = ("transpyle.lax", "transpyle.nn", "transpyle.random", "transpyle.scipy.special",
                   "transpyle.example_libraries.optimizers", "transpyle.example_libraries.stax") + TWIN_MODULES
#: those whose functions take no functions as arguments (lax's do), so that the pytree flattening specializes
#: them on the structure of their pytree arguments like the user's helpers (an optimizer's update)
PYTREE_LIBRARY = tuple(m for m in INLINED_LIBRARY if m != "transpyle.lax")


def is_user_function(obj, library=INLINED_LIBRARY):
    """Whether ``obj`` is Python code the transforms read and inline: a plain function that is not
    numpy's, math's or transpyle's own, except the transpyle modules in ``library``."""
    obj = python_callable(obj)
    module = getattr(obj, "__module__", "") or ""
    if module.startswith("transpyle") and module not in library:
        return False
    return isinstance(obj, types.FunctionType) and not module.startswith(("numpy", "math"))


def python_callable(obj):
    """The Python function behind ``obj``: a method's function, the ``__call__`` of an object whose
    class defines one in Python (a model called like a function); ``obj`` itself otherwise."""
    if isinstance(obj, types.MethodType):
        return obj.__func__
    call = getattr(type(obj), "__call__", None)
    library = (getattr(type(obj), "__module__", "") or "").startswith(("transpyle", "numpy", "numba"))
    if isinstance(call, types.FunctionType) and not isinstance(obj, type) and not library:
        return call
    return obj


def imported_names(node, namespace):
    """The names an import statement in a function's body binds (name -> module or object); relative
    imports are taken from the package of the function's module (``namespace`` holds its globals)."""
    if isinstance(node, gast.Import):
        out = {}
        for alias in node.names:
            module = importlib.import_module(alias.name)
            head = alias.name.split(".")[0]
            out[alias.asname or head] = module if alias.asname else importlib.import_module(head)
        return out
    package = namespace.get("__package__")
    base = importlib.import_module("." * node.level + (node.module or ""), package) if node.level else \
        importlib.import_module(node.module)
    out = {}
    for alias in node.names:
        if alias.name == "*":
            raise ImportError("'from ... import *' in a function body binds names Python cannot list here")
        try:
            out[alias.asname or alias.name] = getattr(base, alias.name)
        except AttributeError:
            out[alias.asname or alias.name] = importlib.import_module(f"{base.__name__}.{alias.name}")
    return out


def _namespace(func):
    ns = dict(getattr(func, "__globals__", {}))
    code = getattr(func, "__code__", None)
    if code is not None and func.__closure__:
        for name, cell in zip(code.co_freevars, func.__closure__):
            try:
                ns[name] = cell.cell_contents
            except ValueError:      # an empty cell: a name bound later in the enclosing scope
                pass
    return ns


def _find_lambda(tree, func):
    """The lambda of ``tree`` that ``func`` was made from: by its parameters, and where several on one
    line have the same ones (``defjvps(lambda t, a, x: ..., lambda t, a, x: ...)``), by its bytecode."""
    code = func.__code__
    params = list(code.co_varnames[:code.co_argcount])
    found = [node for node in ast.walk(tree)
             if isinstance(node, ast.Lambda) and [a.arg for a in node.args.args] == params]
    if len(found) > 1:
        found = [node for node in found if _same_code(node, code)]
    return found[0] if len(found) == 1 else None


def _same_code(lam, code):
    """Whether the lambda ``lam`` compiles to the bytecode of ``code``."""
    try:
        compiled = compile(ast.fix_missing_locations(ast.Expression(body=lam)), "<lambda>", "eval")
    except (SyntaxError, ValueError, TypeError):
        return False
    inner = next((c for c in compiled.co_consts if isinstance(c, types.CodeType)), None)
    return inner is not None and inner.co_code == code.co_code and inner.co_names == code.co_names and \
        [c for c in inner.co_consts if not isinstance(c, types.CodeType)] == \
        [c for c in code.co_consts if not isinstance(c, types.CodeType)]


def _read_wrapper(func, text, namespace, inner):
    """The FunctionSource of the wrapper ``text`` (``wrapped_callables``), placed at ``inner``'s definition."""
    unit = read_function(inner) if inner is not None else None
    tree = wrapped_callables.located_tree(text, unit.tree if unit is not None else None)
    filename = unit.filename if unit is not None else f"<{getattr(func, '__module__', None) or 'library'}>"
    return FunctionSource(func=func, tree=tree, filename=filename,
                          text=text + (unit.text if unit is not None else "")).bind(namespace)


def read_function(func):
    """Parse ``func`` into a FunctionSource, or raise a TranspileError saying why not."""
    if isinstance(func, FunctionSource):
        return func
    func = getattr(func, "py_func", func)       # a Numba dispatcher: read its Python function
    if hasattr(func, "transpyle_source"):       # a function with a custom derivative rule (custom.py)
        return func.transpyle_source()
    if python_callable(func) is not func:
        return _read_method(func)
    name = getattr(func, "__name__", repr(func))
    if not inspect.isfunction(func):
        wrapper = wrapped_callables.wrapper_text(func)
        if wrapper is not None:           # a partial, a library function: a function calling it
            return _read_wrapper(func, *wrapper)
        raise TranspileError(
            f"'{name}' is not a Python function with source code ({type(func).__name__})",
            construct=name,
            hint="transforms read the function's source: pass a function defined with 'def' or 'lambda' in a file")
    try:
        filename = inspect.getsourcefile(func) or func.__code__.co_filename
        lines, first = inspect.getsourcelines(func)
    except (OSError, TypeError) as exc:
        raise TranspileError(
            f"the source of '{name}' is not available ({exc})",
            filename=func.__code__.co_filename, lineno=func.__code__.co_firstlineno, construct=name,
            hint="define the function in a .py file (functions typed at an interactive prompt have no source)")
    text = textwrap.dedent("".join(lines))
    shift = first - 1             # the text's lines are numbered from 1
    try:
        pytree = ast.parse(text)
    except SyntaxError:
        if name != "<lambda>":
            raise
        # a lambda inside a larger expression: parse the enclosing statement's text as an expression, or
        # else the whole file, keeping the lambdas on its line (jax.tree.map(lambda p, g: ...,\n params, ...))
        try:
            pytree = ast.parse("(" + text.strip().rstrip(",") + ")")
        except SyntaxError:
            whole = ast.parse("".join(linecache.getlines(filename)))
            pytree = ast.Module(body=[ast.Expr(n) for n in ast.walk(whole)
                                      if isinstance(n, ast.Lambda) and n.lineno == first], type_ignores=[])
            shift = 0             # the lines are the file's already
    ast.increment_lineno(pytree, shift)
    if name == "<lambda>":
        lam = _find_lambda(pytree, func)
        if lam is None:
            raise TranspileError("could not find the lambda's source", filename=filename, lineno=first,
                                 construct="lambda", hint="define the function with 'def'")
        fdef = ast.FunctionDef(name=f"lambda_{first}", args=lam.args, body=[ast.Return(lam.body)],
                               decorator_list=[], returns=None, type_comment=None, type_params=[])
        ast.copy_location(fdef, lam)
        for n in ast.walk(fdef):
            ast.copy_location(n, lam) if not hasattr(n, "lineno") else None
        pytree = ast.Module(body=[fdef], type_ignores=[])
    fdef = pytree.body[0]
    if not isinstance(fdef, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise TranspileError("expected a function definition", filename=filename, lineno=first,
                             construct=name, hint="pass a function defined with 'def' or 'lambda'")
    fdef.decorator_list = []
    tree = gast.ast_to_gast(pytree).body[0]
    list_appends.rewrite(tree)        # lists built by appends in a loop: arrays filled in place
    origin = generated_origin(filename)
    if origin is None:
        _USER_FILES[os.path.basename(filename)] = filename
    else:
        filename = _locate_in_user_source(tree, filename, *origin)
    return FunctionSource(func=func, tree=tree, filename=filename, namespace=_namespace(func), text=text)


def _read_method(obj):
    """A bound method (``model.loss``) or an object called like a function (its ``__call__``): the
    function with its first parameter bound to the instance, which the transforms take as a constant
    of the function, as JAX does (arrays read from it, ``self.W``, are passed in at every call)."""
    method = obj if isinstance(obj, types.MethodType) else obj.__call__
    unit = read_function(method.__func__)
    args = unit.tree.args
    if not args.args:
        raise TranspileError(f"'{unit.name}' takes no 'self' parameter", construct=unit.name,
                             hint="transform a function or a method of an instance")
    this = args.args.pop(0).id
    if len(args.defaults) > len(args.args):       # a default of the instance's own parameter
        args.defaults.pop(0)
    if method is not obj:            # a callable object: the function is named by its class
        unit.tree.name = f"{type(obj).__name__}_call"
    return dataclasses.replace(unit.bind({this: method.__self__}), func=method)


# ---- generated code read as source: its statements located at the user's lines ----------------------
# A transform of a transform (grad(grad(f)), vmap(grad(f)), hessian) reads the code the inner one
# generated. Its statements follow `# file.py:12: <the line>` comments naming the user's line that each
# block came from; reading them back puts every node at that line, so errors and the comments of the
# next generated code name the user's file and line, never the generated module's.
_HEADER = re.compile(r'"""Generated by transpyle \S+: .*? from (\S+?):(\d+) for ')
_SOURCE_LINE = re.compile(r"\s*# (\S+):(\d+): ")
_USER_FILES = {}        # basename -> path of the user files read (comments name files by basename)


def generated_origin(filename):
    """(user file, line of its def) from the header of a generated module, or None for user code
    (the header names the file without its folder: the user file read under that name)."""
    found = _HEADER.match(linecache.getline(filename, 1))
    if not found:
        return None
    return _USER_FILES.get(found.group(1), found.group(1)), int(found.group(2))


def _locate_in_user_source(tree, filename, user_file, def_line):
    """Put the nodes of ``tree`` (read from the generated module ``filename``) at the user's lines; returns
    the user's file, where the function is said to be. Each statement takes the line of the nearest
    comment above it (statements before any, such as zero adjoints, the line of the ``def``)."""
    files = {os.path.basename(user_file): user_file}
    where = {}                  # generated line -> (user file, user line)
    current = (user_file, def_line)
    for number, text in enumerate(linecache.getlines(filename), start=1):
        found = _SOURCE_LINE.match(text)
        if text.startswith("def "):         # another function of the module starts
            current = (user_file, def_line)
        elif found:
            path = files.get(found.group(1)) or _USER_FILES.get(found.group(1))
            current = (path, int(found.group(2))) if path else (filename, number)
        where[number] = current
    # the final return gives what the whole function computed: the def's line, not the last block's
    whole = {id(n) for n in gast.walk(tree.body[-1])} if isinstance(tree.body[-1], gast.Return) else set()
    for node in gast.walk(tree):
        lineno = getattr(node, "lineno", None)
        if lineno is None:
            continue
        path, line = (user_file, def_line) if node is tree or id(node) in whole else \
            where.get(lineno, (filename, lineno))
        if path != user_file:
            line = virtual_line(path, line)
        node.lineno = line
        if getattr(node, "end_lineno", None) is not None:
            node.end_lineno = line
    return user_file


def source_digest(texts):
    """A short stable digest of several source texts (for cache keys)."""
    h = hashlib.sha256()
    for t in texts:
        h.update(t.encode())
        h.update(b"\0")
    return h.hexdigest()[:16]
