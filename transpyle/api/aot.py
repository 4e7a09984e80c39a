"""Ahead-of-time modules (``transpyle compile``): generated functions written out as one ordinary
Python module that imports only numpy and numba, for codes that must run without transpyle.

The module holds, for each requested function and mode, the generated function under a stable
public name (``loss`` for the primal, ``loss_grad``, ``loss_value_and_grad``, ``loss_vjp``,
``loss_jvp``, ``loss_jacfwd``, ``loss_jacrev``, ``loss_hessian``, ``loss_vmap``) with the helpers
it calls, each decorated with ``numba.njit(cache=True)``, and a copy of the run-time helper modules
(``transpyle/runtime/``) that the generated code calls. With ``backend="numpy"`` the decorators are
left out and the copied helpers are their plain NumPy versions, so the module needs only numpy;
``backend="cuda"`` (``vmap`` only) writes kernels and host wrappers instead (``aot_cuda``).
The text is deterministic: the header names the source file, a digest of its text and the
command that wrote it, so ``transpyle compile --check`` can tell a stale module by regenerating.
"""
import ast
import os
import re

import gast

from .. import runtime
from .show import generate
from ..base.ast_utils import substitute, to_source
from ..base.atomic_files import same_text, unfit_target, write_atomic
from ..base.errors import TranspileError
from ..backends.numba_backend import PRANGE_ONLY
from ..base.naming import OUTLINED_MODULE
from .aot_cuda import compile_cuda_module
from .signature_check import check_options
from .argument_kinds import kind_strings, resolved_kinds, spelled_kinds
from .aot_source import batched_kinds, source_digest, load_source_module, module_docstring, user_function

MODES = ("primal", "grad", "value_and_grad", "vjp", "jvp", "jacfwd", "jacrev", "hessian", "vmap")

# names of the numba-only machinery in the runtime modules: left out of the numpy backend's copy
_NUMBA_ONLY = {"numba", "types", "overload", "register_jitable", "intrinsic", "ir", "cgutils"}


def _runtime_source(backend, generated_text):
    """The text of the run-time helpers to copy: the runtime modules the generated code calls
    (``core`` always) and the runtime modules they import, whole, or only their NumPy part for the numpy
    backend."""
    called = set(re.findall(r"\brt\.(\w+)", generated_text))
    trees, wanted = {}, {runtime.core}
    for module in reversed(runtime.MODULES):          # a module imports only modules listed before it
        public = {n for n in vars(module) if not n.startswith("_") and getattr(vars(module)[n], "__module__", None)
                  == module.__name__}
        if module not in wanted and not called & public:
            continue
        with open(module.__file__) as fh:
            trees[module] = ast.parse(fh.read())
        wanted |= {getattr(runtime, stmt.module) for stmt in trees[module].body
                   if isinstance(stmt, ast.ImportFrom) and stmt.level == 1}
    parts = []
    for module in runtime.MODULES:
        if module not in trees:
            continue
        tree = trees[module]
        body = tree.body[1:] if isinstance(tree.body[0], ast.Expr) else tree.body      # no module docstring
        # the names a module imports from its siblings are defined by their copies, written before it
        body = [stmt for stmt in body if not (isinstance(stmt, ast.ImportFrom) and stmt.level)]
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
        if isinstance(stmt, ast.ImportFrom) and (stmt.module or "").startswith(("numba", "llvmlite")) or names & dropped:
            # the names it defines at the top level (the locals of a dropped function are not)
            targets = stmt.targets if isinstance(stmt, ast.Assign) else []
            dropped |= {getattr(stmt, "name", "")} | {t.id for target in targets for t in ast.walk(target)
                                                      if isinstance(t, ast.Name)}
            continue
        kept.append(stmt)
    return kept


def _public_name(func_name, mode):
    return func_name if mode == "primal" else f"{func_name}_{mode}"


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
    if backend == "cuda":                  # kernels and host wrappers: api/aot_cuda.py
        return compile_cuda_module(path, module, functions, kinds, in_axes, source_digest(path), command)
    defs, order = {}, []                   # function name -> (text, tree); the order they are written
    publics, used = [], {}                 # used: function name -> the kinds of one call, as written
    for fname in functions:
        func = user_function(module, path, fname)
        given = kinds.get(fname) if isinstance(kinds, dict) else kinds
        # kinds not given are read from the source once, and written into the module's docstring
        used[fname] = given if given is not None else kind_strings(resolved_kinds(func, generate))
        for mode in modes:
            if mode not in MODES:
                raise TranspileError(f"unknown mode '{mode}'", hint="one of: " + ", ".join(MODES))
            fkinds = used[fname]
            faxes = in_axes.get(fname, 0) if isinstance(in_axes, dict) else in_axes
            check_options(func, mode, argnums, faxes, fkinds)
            if mode == "vmap" and fkinds is not None:
                fkinds = batched_kinds(fkinds, faxes)
            _, tree, ctx = generate(func, mode=mode, argnums=argnums, kinds=fkinds,
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
                _rename_module_calls(f, renames)
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
    return _module_text(path, order, defs, publics, runtime_text, backend, command, used)


def _rename_module_calls(fn, renames):
    """Calls through the module (``_this_module.f_grad_loops3(...)``, transforms/outline_loops) follow
    the helpers' new names."""
    for node in gast.walk(fn):
        if isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name) and \
                node.value.id == OUTLINED_MODULE and node.attr in renames:
            node.attr = renames[node.attr]


def _fresh(base, taken):
    name, k = base, 1
    while name in taken:
        k += 1
        name = f"{base}{k}"
    return name


def _module_text(path, order, defs, publics, runtime_text, backend, command, used):
    listing = "\n".join(f"    {public:28} {mode} of {fname}" for public, fname, mode in publics)
    listing += "\n\nArgument kinds (of one call; vmap adds the batch axis):\n" + \
        "\n".join(f"    {fname}: --kinds {spelled_kinds(k)!r}" for fname, k in used.items())
    header = module_docstring(path, source_digest(path), command,
                              "numpy" + (" and numba" if backend == "numba" else ""), listing)
    header += ["import math", "", "import numpy as np"]
    if backend == "numba":
        header += ["import numba", "", "# only the explicit numba.prange loops run on threads",
                   f"PRANGE_ONLY = {PRANGE_ONLY!r}"]
    parts = ["\n".join(header), "",
             "# ---- run-time helpers: copies of the modules in transpyle/runtime/ " + "-" * 24, runtime_text, "",
             "# ---- generated functions " + "-" * 66]
    if any(f"{OUTLINED_MODULE}." in defs[n][0] for n in order):
        # long functions call their element loops through the module (transforms/outline_loops)
        parts[0] += "\nimport sys"
        parts.insert(-1, f"{OUTLINED_MODULE} = sys.modules[__name__]\n")
    for n in order:
        text = re.sub(r"\brt\.", "", defs[n][0]).rstrip() + "\n"
        if backend == "numba":
            parallel = ", parallel=PRANGE_ONLY" if "numba.prange" in text else ""
            text = f"@numba.njit(cache=True, error_model='numpy'{parallel})\n" + text
        else:                     # a parallel loop is a loop
            text = text.replace("numba.prange(", "range(")
        parts.append("\n" + text)
    parts.append("\n__all__ = [" + ", ".join(repr(p) for p, _, _ in publics) + "]\n")
    return "\n".join(parts)


def write_module(text, output):
    """Write ``text`` to ``output``; returns True when the file changed. The file is replaced whole
    or not at all (``base.atomic_files``); a device, pipe or folder at ``output`` is refused, and so
    is a write the system refuses (full disk, read-only): a TranspileError of one line naming the
    path and the reason."""
    check_output(output)
    if same_text(output, text):
        return False
    if os.path.exists(output) and not os.access(output, os.W_OK):
        # renaming over it would work, but a module made read-only is one its owner wants kept
        raise TranspileError(f"cannot write {output}: the file is read-only")
    try:
        write_atomic(output, text, durable=True)
    except OSError as exc:                      # the file that was there is untouched
        raise TranspileError(f"cannot write {output}: {exc.strerror or exc}") from None
    return True


def is_stale(text, output):
    """Whether the module at ``output`` differs from ``text`` (or is missing)."""
    check_output(output)
    return not same_text(output, text)


def check_output(output):
    """Refuse (TranspileError) an ``output`` that is a device, a pipe or a folder, or whose folder is
    missing: checked before the module is generated, and again before it is written."""
    reason = unfit_target(output)
    if reason is not None:
        raise TranspileError(f"cannot write the module to {output}: {reason}; give the path of a file")


__all__ = ["compile_module", "write_module", "is_stale", "check_output", "load_source_module"]
