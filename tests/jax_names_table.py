"""The table of JAX names in docs/porting-from-jax.md, generated from the package itself.

Each row is a name of a JAX module, the transpyle name that stands for it and how transformed code
(``grad``, ``jit``, ``vmap``, ...) treats a call of it: a primitive of the rule tables, a call written with
primitives, plain Python that the transforms inline, a transform, a pytree function evaluated when
the code is compiled, or a name for eager code only. ``tests/test_jax_names.py`` checks that the committed
page holds the table this script writes; ``python tests/jax_names_table.py --update`` rewrites it.
"""
import inspect
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import transpyle  # noqa: E402
import transpyle.numpy as jnp  # noqa: E402
from transpyle import lax, nn, random, rules, tree, tree_util  # noqa: E402
from transpyle.example_libraries import optimizers, stax  # noqa: E402
from transpyle.frontend.source import is_user_function  # noqa: E402
from transpyle.rules.matrices import composite, multi_output  # noqa: E402
from transpyle.rules.rewrites import call_rewrite  # noqa: E402
from transpyle.scipy import special  # noqa: E402

PAGE = ROOT / "docs" / "porting-from-jax.md"
BEGIN = "<!-- the table below is written by tests/jax_names_table.py --update -->"
END = "<!-- end of the generated table -->"

# the JAX module each transpyle namespace stands for, its import in transpyle, and its public names
_NAMESPACES = [
    ("jax", "transpyle", transpyle, ["grad", "value_and_grad", "vjp", "jvp", "linearize", "jacfwd", "jacrev",
                                     "hessian", "vmap", "jit", "pmap", "custom_jvp", "custom_vjp", "devices",
                                     "local_devices", "local_device_count", "device_put", "device_get",
                                     "block_until_ready", "checkpoint", "remat", "checkpoint_policies"]),
    ("jax.lax", "transpyle.lax", lax, None),
    ("jax.nn", "transpyle.nn", nn, None),
    ("jax.random", "transpyle.random", random, None),
    ("jax.tree_util", "transpyle.tree_util", tree_util, None),
    ("jax.tree", "transpyle.tree", tree, ["map", "leaves", "flatten", "unflatten", "structure"]),
    ("jax.scipy.special", "transpyle.scipy.special", special, None),
    ("jax.example_libraries.optimizers", "transpyle.example_libraries.optimizers", optimizers, None),
    ("jax.example_libraries.stax", "transpyle.example_libraries.stax", stax, None),
]

# pytree functions that the flattening evaluates when the code is compiled (frontend/pytrees/calls.py)
_EVALUATED = {id(tree.map), id(tree.leaves)}


def _public(module, names):
    if names is not None:
        return names
    listed = getattr(module, "__all__", None)
    if listed is None:
        listed = [n for n in vars(module) if not n.startswith("_") and callable(getattr(module, n)) and
                  not inspect.ismodule(getattr(module, n)) and getattr(getattr(module, n), "__module__", "") != "numpy"]
    return sorted(n for n in listed if n not in ("Optimizer", "PyTreeDef"))


# transforms that are applied outside transformed code only
_OUTSIDE = {id(transpyle.vjp), id(transpyle.linearize), id(transpyle.pmap)}
_OPTIMIZERS = {"sgd", "momentum", "adam"}


def treatment(obj):
    """How transformed code treats a call of ``obj``."""
    if isinstance(obj, tuple) and len(obj) == 2 and getattr(obj[1], "__module__", "") == stax.__name__:
        return "a layer (init_fun, apply_fun): apply_fun is inlined"
    if getattr(obj, "__module__", "") == stax.__name__:
        return "called outside; the apply_fun of the layer it makes is inlined" if obj.__name__[0].isupper() or \
            obj.__name__ == "serial" else "called outside (an initializer)"
    if obj is transpyle.checkpoint:
        return "decorator (also called in transformed code); reverse mode recomputes the loop around its calls"
    if obj is transpyle.checkpoint_policies:
        return "policy names for checkpoint's policy= (everything_saveable keeps the tape)"
    if getattr(obj, "__transpyle_transform__", False):
        return "transform (also called in transformed code)"
    if getattr(obj, "__transpyle_jvp__", False):
        return "transform (also called in transformed code)"
    if id(obj) in _OUTSIDE:
        return "transform (called outside transformed code)"
    if id(obj) in _EVALUATED:
        return "evaluated when compiled (the pytree structure is static)"
    if getattr(obj, "__transpyle_leafwise__", False):
        return "primitive, applied to each leaf of a pytree"
    if rules.by_object(obj) is not None:
        return "primitive"
    if call_rewrite(obj) is not None or composite(obj) is not None or multi_output(obj) is not None:
        return "written with primitives when read"
    if callable(obj) and is_user_function(obj):
        if getattr(obj, "__module__", "") == optimizers.__name__:
            return "called outside; its update and get_params are inlined" if obj.__name__ in _OPTIMIZERS else \
                "called outside; the schedule it returns is inlined"
        return "inlined (plain Python and NumPy)"
    if obj is transpyle.custom_jvp or obj is transpyle.custom_vjp:
        return "decorator; calls of what it decorates use its rules"
    return "eager only"


def rows():
    """(JAX name, transpyle name, treatment) for every name the table lists."""
    out = []
    for jax_name, ours, module, names in _NAMESPACES:
        for name in _public(module, names):
            out.append((f"{jax_name}.{name}", f"{ours}.{name}", treatment(getattr(module, name))))
    return out


def _numpy_row():
    names = sorted(n for n in jnp.__all__ if callable(getattr(jnp, n)) and not isinstance(getattr(jnp, n), type))
    linalg = sorted(vars(jnp.linalg))
    return names, linalg


def table():
    """The generated part of the page, between its markers."""
    lines = [BEGIN, "", "| JAX | transpyle | in transformed code |", "|---|---|---|"]
    lines += [f"| `{j}` | `{t}` | {how} |" for j, t, how in rows()]
    names, linalg = _numpy_row()
    lines += ["", f"`jax.numpy` is `transpyle.numpy`: NumPy's own functions, {len(names)} of them, each a primitive or "
              "written with primitives in transformed code:", ""]
    lines += [", ".join(f"`{n}`" for n in names) + ".", ""]
    lines += ["`jax.numpy.linalg` is `transpyle.numpy.linalg`: " + ", ".join(f"`{n}`" for n in linalg) + ".", "", END]
    return "\n".join(lines)


def render(page_text):
    """``page_text`` with the generated table replaced by the current one."""
    head, rest = page_text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return head + table() + tail


if __name__ == "__main__":
    current = PAGE.read_text()
    wanted = render(current)
    if "--update" in sys.argv:
        PAGE.write_text(wanted)
        print(f"wrote {PAGE}")
    else:
        print(table())
        sys.exit(0 if wanted == current else 1)
