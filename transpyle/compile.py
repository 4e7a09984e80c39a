"""Ahead-of-time modules (``transpyle compile``): generated functions written out as one ordinary
Python module that imports only numpy and numba, for codes that must run without transpyle.

The module holds, for each requested function and mode, the generated function under a stable
public name (``loss`` for the primal, ``loss_grad``, ``loss_value_and_grad``, ``loss_vjp``,
``loss_jvp``, ``loss_jacfwd``, ``loss_jacrev``, ``loss_hessian``, ``loss_vmap``) with the helpers
it calls, each decorated with ``numba.njit(cache=True)``, and a copy of the run-time helper modules
(``transpyle/runtime/``) that the generated code calls. With ``backend="numpy"`` the decorators are
left out and the copied helpers are their plain NumPy versions, so the module needs only numpy;
``backend="cuda"`` (``vmap`` only) writes kernels and host wrappers instead (``compile_cuda``).
The text is deterministic: the header names the source file, a digest of its text and the
command that wrote it, so ``transpyle compile --check`` can tell a stale module by regenerating.
"""
import ast
import hashlib
import importlib.util
import os
import re
import sys

from . import __version__, api, runtime
from . import tree as pytree
from .ast_utils import substitute, to_source
from .errors import TranspileError
from .backends.numba_backend import PRANGE_ONLY
from .kinds import parse_kind

MODES = ("primal", "grad", "value_and_grad", "vjp", "jvp", "jacfwd", "jacrev", "hessian", "vmap")

# names of the numba-only machinery in the runtime modules: left out of the numpy backend's copy
_NUMBA_ONLY = {"numba", "types", "overload", "register_jitable"}


def load_source_module(path):
    """Import the user's file ``path`` (adding its folder to ``sys.path``) and return the module."""
    path = os.path.abspath(path)
    if not os.path.exists(path):
        raise TranspileError(f"no such file: {path}", hint="give the path of a .py file")
    name = os.path.splitext(os.path.basename(path))[0]
    folder = os.path.dirname(path)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _runtime_source(backend, generated_text):
    """The text of the run-time helpers to copy: the runtime modules the generated code calls
    (``core`` always), whole, or only their NumPy part for the numpy backend."""
    called = set(re.findall(r"\brt\.(\w+)", generated_text))
    parts = []
    for module in runtime.MODULES:
        public = {n for n in vars(module) if not n.startswith("_") and getattr(vars(module)[n], "__module__", None)
                  == module.__name__}
        if module is not runtime.core and not called & public:
            continue
        with open(module.__file__) as fh:
            tree = ast.parse(fh.read())
        body = tree.body[1:] if isinstance(tree.body[0], ast.Expr) else tree.body      # no module docstring
        if backend == "numpy":
            body = _numpy_part(body)
        name = module.__name__.rsplit(".", 1)[1]
        parts.append(f"# -- {name} (transpyle/runtime/{name}.py)\n" + ast.unparse(ast.Module(body=body, type_ignores=[])))
    return "\n\n\n".join(parts)


def _numpy_part(body):
    """The statements of a runtime module that do not use Numba (and do not depend on ones that do)."""
    kept, dropped = [], set(_NUMBA_ONLY)
    for stmt in body:
        names = {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name)}
        names |= {a.asname or a.name for a in getattr(stmt, "names", [])}
        if isinstance(stmt, ast.ImportFrom) and (stmt.module or "").startswith("numba") or names & dropped:
            dropped |= {getattr(stmt, "name", "")} | {t.id for t in ast.walk(stmt)
                                                      if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)}
            continue
        kept.append(stmt)
    return kept


def _public_name(func_name, mode):
    return func_name if mode == "primal" else f"{func_name}_{mode}"


def _source_digest(path):
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()[:16]


def compile_module(path, functions, modes=("grad",), argnums=0, kinds=None, in_axes=0, backend="numba",
                   command=None):
    """The text of a module holding ``modes`` of each function in ``functions`` (names in the
    file ``path``). ``kinds`` maps a function name to its argument kinds (strings like ``'f8[:]'``),
    or is one list for every function (the kinds of one call: ``vmap`` adds the batch axis);
    kinds not given are guessed from the source, as ``transpyle show`` does; a pytree argument's
    kinds are a pytree of kind strings, and the compiled function takes its leaves in order.
    ``in_axes`` (for ``vmap``) is one value for every function or a dict by function name."""
    if backend not in ("numba", "numpy", "cuda"):
        raise TranspileError(f"unknown backend '{backend}'", hint="numba, numpy or cuda")
    if backend == "cuda" and set(modes) != {"vmap"}:
        raise TranspileError("compiled modules for the cuda backend hold vmapped functions only",
                             hint="use --mode vmap (derivatives: vmap(grad(f), backend='cuda') from Python, "
                                  "docs/cuda.md)")
    module = load_source_module(path)
    if backend == "cuda":                  # kernels and host wrappers: compile_cuda.py
        from .compile_cuda import compile_cuda_module
        return compile_cuda_module(path, module, functions, kinds, in_axes, _source_digest(path), command)
    defs, order = {}, []                   # function name -> (text, tree); the order they are written
    publics = []
    for fname in functions:
        func = getattr(module, fname, None)
        if func is None or not callable(func):
            raise TranspileError(f"'{os.path.basename(path)}' has no function '{fname}'",
                                 hint="name a function defined at the top level of the file")
        func = getattr(func, "__wrapped__", func)
        for mode in modes:
            if mode not in MODES:
                raise TranspileError(f"unknown mode '{mode}'", hint="one of: " + ", ".join(MODES))
            fkinds = kinds.get(fname) if isinstance(kinds, dict) else kinds
            faxes = in_axes.get(fname, 0) if isinstance(in_axes, dict) else in_axes
            if mode == "vmap" and fkinds is not None:
                fkinds = _batched(fkinds, faxes)
            _, tree, ctx = api.generate(func, mode=mode, argnums=argnums, kinds=fkinds,
                                        in_axes=faxes if mode == "vmap" else 0)
            if ctx.captured:
                raise TranspileError(f"'{fname}' reads module-level arrays "
                                     f"({', '.join(p for p, _, _ in ctx.captured.values())}); a compiled module "
                                     "cannot read them", filename=ctx.filename, lineno=ctx.source.tree.lineno,
                                     construct=f"def {fname}", hint="pass the arrays as arguments")
            public = _public_name(fname, mode)
            renames = {tree.name: public}
            for helper in ctx.helpers:        # a helper with the name of a different function is renamed
                text = to_source(helper)
                if helper.name in defs and defs[helper.name][0] != text or helper.name == public:
                    renames[helper.name] = _fresh(f"{public}_{helper.name}", defs)
            for f in ctx.helpers + [tree]:
                f.name = renames.get(f.name, f.name)
                f.body = [substitute(s, {old: new for old, new in renames.items() if old != f.name})
                          for s in f.body]
                text = to_source(f)
                if f.name in defs and defs[f.name][0] != text:
                    raise TranspileError(f"two generated functions are named '{f.name}'",
                                         hint="compile the functions into separate modules")
                if f.name not in defs:
                    defs[f.name] = (text, f)
                    order.append(f.name)
            publics.append((public, fname, mode))
    runtime_text = _runtime_source(backend, "\n".join(defs[n][0] for n in order))
    runtime_names = {n.id for n in ast.walk(ast.parse(runtime_text)) if isinstance(n, ast.Name)} | \
        {n.name for n in ast.parse(runtime_text).body if isinstance(n, ast.FunctionDef)}
    clash = [n for n in order if n in runtime_names]
    if clash:
        raise TranspileError(f"the generated function '{clash[0]}' has the name of a run-time helper",
                             hint="rename the function in your file")
    return _module_text(path, order, defs, publics, runtime_text, backend, command)


def _batched(kinds, in_axes):
    """The kinds of a batched call: one more dimension on each argument with an axis (kinds given
    are those of one call of the function, the same for every mode)."""
    def add_axis(k):
        k = parse_kind(k) if isinstance(k, str) else k
        return k.with_ndim(k.ndim + 1)
    axes = in_axes if isinstance(in_axes, (tuple, list)) else (in_axes,) * len(kinds)
    return [k if ax is None else pytree.map(add_axis, k) for k, ax in zip(kinds, axes)]


def _fresh(base, taken):
    name, k = base, 1
    while name in taken:
        k += 1
        name = f"{base}{k}"
    return name


def _module_text(path, order, defs, publics, runtime_text, backend, command):
    source = os.path.basename(path)
    listing = "\n".join(f"    {public:28} {mode} of {fname}" for public, fname, mode in publics)
    header = [
        f'"""Generated by transpyle {__version__} from {source} (sha256 {_source_digest(path)}).',
        "",
        f"Written by: {command or 'transpyle.compile_module'}",
        "Do not edit: regenerate it (`transpyle compile ... --check` tells whether it is stale).",
        "It needs numpy" + (" and numba" if backend == "numba" else "") + ", not transpyle.",
        "",
        "Functions:",
        listing,
        '"""',
        "import math",
        "",
        "import numpy as np",
    ]
    if backend == "numba":
        header += ["import numba", "", "# only the explicit numba.prange loops run on threads",
                   f"PRANGE_ONLY = {PRANGE_ONLY!r}"]
    parts = ["\n".join(header), "",
             "# ---- run-time helpers: copies of the modules in transpyle/runtime/ " + "-" * 24, runtime_text, "",
             "# ---- generated functions " + "-" * 66]
    for n in order:
        text = re.sub(r"\brt\.", "", defs[n][0]).rstrip() + "\n"
        if backend == "numba":
            parallel = ", parallel=PRANGE_ONLY" if "numba.prange" in text else ""
            text = f"@numba.njit(cache=True{parallel})\n" + text
        else:                     # a parallel loop is a loop
            text = text.replace("numba.prange(", "range(")
        parts.append("\n" + text)
    parts.append("\n__all__ = [" + ", ".join(repr(p) for p, _, _ in publics) + "]\n")
    return "\n".join(parts)


def write_module(text, output):
    """Write ``text`` to ``output``; returns True when the file changed."""
    try:
        with open(output) as fh:
            if fh.read() == text:
                return False
    except OSError:
        pass
    with open(output, "w") as fh:
        fh.write(text)
    return True


def is_stale(text, output):
    """Whether the module at ``output`` differs from ``text`` (or is missing)."""
    try:
        with open(output) as fh:
            return fh.read() != text
    except OSError:
        return True


__all__ = ["compile_module", "write_module", "is_stale", "load_source_module"]
