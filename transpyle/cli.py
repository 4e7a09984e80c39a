"""The ``transpyle`` command: ``show`` prints generated code, ``compile`` writes it out as a module
that runs without transpyle, ``cache`` looks at or empties the cache of compiled code, ``demo`` runs
the built-in demo. Its arguments are checked as the Python API checks them: a bad one is reported in
one message, never with a traceback."""
import argparse
import ast
import importlib
import importlib.util
import os
import shlex
import sys

from . import api
from .api.signature_check import check_options
from .base.errors import TranspileError
from .base.kinds import KIND_GRAMMAR, parse_kind


def load_target(spec):
    """The function named by ``FILE.py:FUNC`` or ``pkg.module:FUNC``."""
    if ":" not in spec:
        raise SystemExit(f"transpyle: expected FILE.py:FUNC or module:FUNC, got '{spec}'")
    where, func_name = spec.rsplit(":", 1)
    if where.endswith(".py") or os.path.sep in where:
        path = os.path.abspath(where)
        if not os.path.exists(path):
            raise SystemExit(f"transpyle: no such file: {where}")
        mod_name = os.path.splitext(os.path.basename(path))[0]
        sys.path.insert(0, os.path.dirname(path))
        spec_ = importlib.util.spec_from_file_location(mod_name, path)
        module = importlib.util.module_from_spec(spec_)
        sys.modules[mod_name] = module
        _run_user_code(where, spec_.loader.exec_module, module)
    else:
        sys.path.insert(0, os.getcwd())
        module = _run_user_code(where, importlib.import_module, where)
    obj = module
    for part in func_name.split("."):
        if not hasattr(obj, part):
            raise SystemExit(f"transpyle: '{where}' has no function '{func_name}'")
        obj = getattr(obj, part)
    return getattr(obj, "__wrapped__", obj)


def _run_user_code(where, load, arg):
    """``load(arg)``, importing the user's code: its failure is one line naming it."""
    try:
        return load(arg)
    except SyntaxError as exc:
        raise SystemExit(f"transpyle: {exc.filename}:{exc.lineno}: syntax error: {exc.msg}") from None
    except Exception as exc:
        raise SystemExit(f"transpyle: importing '{where}' failed: {type(exc).__name__}: {exc}") from None


def _argnums(text):
    try:
        parts = [int(p) for p in text.split(",") if p.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an argument position or a list of them "
                                         "(e.g. 0 or 0,2)") from None
    if not parts:
        raise argparse.ArgumentTypeError("give an argument position, e.g. 0")
    return parts[0] if len(parts) == 1 else tuple(parts)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="transpyle", description="Source-to-source transforms for numerical Python.")
    sub = parser.add_subparsers(dest="command", required=True)
    show = sub.add_parser("show", help="print the generated source of a transform")
    show.add_argument("target", help="FILE.py:FUNC or package.module:FUNC")
    show.add_argument("--mode", default="grad", choices=["primal", "jit", "grad", "value_and_grad", "vjp", "jvp",
                                                         "jacfwd", "jacrev", "hessian", "vmap"])
    show.add_argument("--argnums", default="0", type=_argnums, help="argument positions to differentiate, e.g. 0 or 0,2")
    show.add_argument("--kinds", default=None,
                      help="argument kinds, e.g. 'f8[:],f8[:,:],f8' (default: guessed from how they are used); "
                           "a pytree argument as a literal of kinds, e.g. \"{'W': 'f8[:, :]', 'b': 'f8[:]'}\"")
    show.add_argument("--example", default=None,
                      help="the arguments of an example call, as a Python expression read in FILE's namespace "
                           "(numpy as np), e.g. 'np.ones(3), 100': their kinds are used (instead of --kinds)")
    show.add_argument("--after", default=None, help="print the function after this pass instead (every mode; "
                                                    "the pass names are in docs/pipeline.md)")
    show.add_argument("--in-axes", default="0", type=_in_axes,
                      help="for --mode vmap: one axis or None per argument, e.g. 0,None")
    show.add_argument("--strategy", default="loop", choices=["loop", "array"],
                      help="for --mode vmap: loop lifting (a parallel loop over examples) or array lifting")
    show.add_argument("--memory", default=None,
                      help="reverse mode's memory budget, e.g. 1GB: loops checkpointed to fit it (docs/memory.md)")
    comp = sub.add_parser("compile", help="write generated functions into a module that runs without transpyle")
    comp.add_argument("source", help="FILE.py holding the functions, or FILE.py:FUNC for one function")
    comp.add_argument("--function", action="append", default=None, help="a function to compile (repeatable)")
    comp.add_argument("--mode", action="append", choices=list(compile_module_modes()),
                      help="a transform to include (repeatable; default grad)")
    comp.add_argument("--argnums", default="0", type=_argnums, help="argument positions to differentiate, e.g. 0 or 0,2")
    comp.add_argument("--kinds", action="append", default=None,
                      help="argument kinds, e.g. 'f8[:],f8[:,:],f8' (default: guessed); once for all functions "
                           "or once per --function, in order")
    comp.add_argument("--example", action="append", default=None,
                      help="an example call's arguments as a Python expression (numpy as np), e.g. "
                           "'np.ones(3), 100', instead of --kinds; once for all functions or once per --function")
    comp.add_argument("--in-axes", action="append", default=None, type=_in_axes,
                      help="for --mode vmap: one axis or None per argument (once, or once per --function)")
    comp.add_argument("--backend", default="numba", choices=["numba", "numpy", "cuda"],
                      help="cuda: --mode vmap as Numba-CUDA kernels with host wrappers (docs/cuda.md)")
    comp.add_argument("-o", "--output", required=True, help="the module to write, e.g. model_ad.py")
    comp.add_argument("--check", action="store_true", help="write nothing; exit 1 when OUTPUT is stale")
    cache = sub.add_parser("cache", help="where compiled code is kept, how much there is (info), or empty it (clear)")
    cache.add_argument("action", choices=["info", "clear"])
    sub.add_parser("demo", help="fit a logistic regression written as a Python loop, with transpyle.grad")
    opts = parser.parse_args(argv)
    if opts.command == "demo":
        from .demo import main as demo_main
        return demo_main()
    if opts.command == "compile":
        return _compile(opts, argv)
    if opts.command == "cache":
        return _cache(opts.action)
    func = load_target(opts.target)
    try:
        kinds = _split_kinds(opts.kinds) if opts.kinds else None
        args = _example(opts.example, getattr(func, "__globals__", {})) if opts.example else None
        check_options(func, opts.mode, opts.argnums, opts.in_axes, kinds if args is None else args)
        text = api.show(func, mode=opts.mode, argnums=opts.argnums, kinds=kinds, args=args, after=opts.after,
                        in_axes=opts.in_axes, strategy=opts.strategy, memory=opts.memory)
    except TranspileError as exc:
        print(f"transpyle: {exc}", file=sys.stderr)
        return 1
    sys.stdout.write(text)
    return 0


def compile_module_modes():
    from .api.aot import MODES
    return MODES


def _compile(opts, argv):
    from .api.aot import check_output, compile_module, is_stale, write_module
    where, _, named = opts.source.rpartition(":") if ".py:" in opts.source else (opts.source, "", "")
    opts.source, opts.function = where or opts.source, (opts.function or []) + ([named] if named else [])
    if not opts.function:
        raise SystemExit("transpyle compile: name the functions: FILE.py:FUNC or --function FUNC")
    words = list(sys.argv[1:] if argv is None else argv)
    command = "transpyle " + shlex.join(w for w in words if w != "--check")
    try:
        check_output(opts.output)          # a device, pipe or folder: refused before any work
        kinds = _per_function(opts.function, opts.kinds, _split_kinds, None)
        if opts.example:
            kinds = _example_kinds(opts.source, opts.function, opts.example, opts.kinds)
        text = compile_module(opts.source, opts.function, modes=opts.mode or ["grad"],
                              argnums=opts.argnums,
                              kinds=kinds,
                              in_axes=_per_function(opts.function, opts.in_axes, lambda axes: axes, 0),
                              backend=opts.backend, command=command)
        if opts.check:
            if is_stale(text, opts.output):
                print(f"transpyle: {opts.output} is stale; regenerate it with: {command}", file=sys.stderr)
                return 1
            return 0
        changed = write_module(text, opts.output)
    except TranspileError as exc:
        print(f"transpyle: {exc}", file=sys.stderr)
        return 1
    print(f"{'wrote' if changed else 'unchanged:'} {opts.output}")
    return 0


def _cache(action):
    """``transpyle cache info`` and ``transpyle cache clear``."""
    from .backends import cache_folder
    if action == "info":
        print("\n".join(cache_folder.describe()))
        return 0
    path, reason = cache_folder.configured_path()
    if path is None or not os.path.isdir(path):
        print(f"nothing to clear: {reason or f'{path} does not exist'}")
        return 0
    unsafe = cache_folder.unsafe_reason(path)
    if unsafe is not None and not cache_folder.shared_on_purpose():
        print(f"transpyle: not clearing {path}: {unsafe} (set {cache_folder.SHARED_VARIABLE}=1 if it is "
              "shared on purpose)", file=sys.stderr)
        return 1
    removed, freed, problem = cache_folder.clear(path)
    print(f"removed {removed} entries ({freed / 2**20:.1f} MB) from {path}")
    if problem is not None:
        print(f"transpyle: some files in {path} could not be removed: {problem}", file=sys.stderr)
        return 1
    return 0


def _example(text, namespace):
    """The arguments of an example call: ``text`` evaluated in the user's module (numpy as np)."""
    import numpy
    try:
        value = eval(text, {"np": numpy, "numpy": numpy, **namespace})     # noqa: S307 (the user's own expression)
    except Exception as exc:
        raise TranspileError(f"--example '{text}' could not be evaluated: {type(exc).__name__}: {exc}",
                             hint="give the arguments of one call, e.g. --example 'np.ones(3), 100'") from None
    return value if isinstance(value, tuple) else (value,)


def _example_kinds(source, functions, examples, kinds):
    """{function: kind strings} of the example calls (once, or once per --function)."""
    from .api.aot_source import load_source_module
    from .api.argument_kinds import example_kinds, kind_strings
    if kinds:
        raise TranspileError("give --kinds or --example, not both")
    namespace = vars(load_source_module(source))
    return _per_function(functions, examples, lambda text: kind_strings(example_kinds(_example(text, namespace))),
                         None)


def _per_function(functions, given, parse, default):
    """An option given once (for every function) or once per --function, as {function: value}."""
    if not given:
        return {f: default for f in functions}
    if len(given) == 1:
        return {f: parse(given[0]) for f in functions}
    if len(given) != len(functions):
        raise SystemExit("transpyle: give --kinds and --in-axes once, or once per --function")
    return {f: parse(v) for f, v in zip(functions, given)}


def _in_axes(text):
    try:
        parts = [None if p.strip() == "None" else int(p) for p in text.split(",") if p.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not one axis (an integer) or None per argument "
                                         "(e.g. 0 or 0,None)") from None
    if not parts:
        raise argparse.ArgumentTypeError("give an axis or None, e.g. 0")
    return parts[0] if len(parts) == 1 else tuple(parts)


def _split_kinds(text):
    """Split 'f8[:, :],f8' at the commas outside brackets; a part written as a Python literal of
    kind strings (``[{'W': 'f8[:, :]', 'b': 'f8[:]'}]``) is the kinds of a pytree argument."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    if depth != 0:
        raise TranspileError(f"--kinds '{text}' has unbalanced brackets", hint=KIND_GRAMMAR)
    kinds = []
    for part in (p.strip() for p in parts if p.strip()):
        if part[0] in "[{(":
            try:
                tree = ast.literal_eval(part)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                raise TranspileError(f"--kinds: {part!r} is not a literal of kinds", hint=KIND_GRAMMAR +
                                     "; a pytree argument as a literal, e.g. \"{'W': 'f8[:, :]', 'b': 'f8[:]'}\"") \
                    from None
            _check_kind_leaves(tree)
            kinds.append(tree)
        else:
            parse_kind(part)
            kinds.append(part)
    return kinds


def _check_kind_leaves(tree):
    """Every leaf of a pytree of kinds is a kind string (checked as one)."""
    if isinstance(tree, dict):
        for value in tree.values():
            _check_kind_leaves(value)
    elif isinstance(tree, (list, tuple)):
        for value in tree:
            _check_kind_leaves(value)
    else:
        parse_kind(tree)


if __name__ == "__main__":
    sys.exit(main())
