"""Property test of NumPy aliasing (issue #25): random straight-line programs against NumPy.

A small grammar generates programs of two float vectors ``x`` and ``w`` (length 6) that make
copies (`.copy()`, `np.copy`, `np.array`, arithmetic), second names (`b = a`), views (slices,
`.T`, `reshape`, `ravel`, rows and columns), augmented assignments with every operator, element
and slice writes (overlapping ones too) and calls to helpers that write into their arguments, and
rebind names. Every program is written to a source file and imported, so transpyle reads it as it
reads user code. jit is compared with NumPy running the same function; grad and jvp with central
finite differences. The return value weighs every array the program still names, element by element
(by a slice of ``x``), so a write that reaches the wrong buffer changes the result.

Programs never write into ``x`` or ``w``: they start from ``a0 = x.copy()`` and only local arrays
are targets, so NumPy, finite differences and transpyle see one pure function.

The profile is small and derandomized (40 examples per mode, no deadline, no example database, no
shrinking) so that CI runs the same programs every time, in seconds.
"""
import copy
import hashlib
import importlib.util
import inspect
import sys

import numpy as np
import pytest

pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, Phase, given, settings, strategies as st  # noqa: E402

import transpyle  # noqa: E402
import alias_programs  # noqa: E402
from gradcheck import assert_unchanged, check_grad, check_jvp  # noqa: E402

N = 6   # length of x and w

# The helpers of alias_programs.py, written into each generated module: transpyle inlines
# module-level helpers it finds in the function's own module.
HELPERS = "\n\n".join(inspect.getsource(f) for f in (alias_programs._add_into, alias_programs._scale_into,
                                                     alias_programs._set_first))

# The generated programs alias on purpose: transpyle's warning for code relying on JAX's copy semantics
# is expected for them.
pytestmark = pytest.mark.filterwarnings("ignore:.*the same array as:UserWarning")


# ---- the grammar ---------------------------------------------------------------------------------------
def _like(shape, source):
    """An expression of ``shape`` read from the argument ``source`` (``x`` or ``w``), never a target."""
    if len(shape) == 1:
        return f"{source}[:{shape[0]}]"
    return f"{source}[:{shape[0] * shape[1]}].reshape({shape[0]}, {shape[1]})"


def _views(shape):
    """View-making (or, where NumPy copies, copy-making) suffixes for an array of ``shape``."""
    if len(shape) == 1:
        n = shape[0]
        out = ["[::-1]", "[:]"]
        if n >= 3:
            out += ["[1:]", "[:-1]"]
        if n >= 4:
            out += [f"[1:{n - 1}]", "[::2]", "[1::2]"]
        if n == 6:
            out += [".reshape(2, 3)", ".reshape(3, 2)"]
        return out
    r, c = shape
    return [".T", "[0]", "[-1]", "[:, 0]", "[:, 1:]" if c >= 3 else "[:, :]", ".reshape(-1)", ".ravel()",
            "[None, :, :][0]"]


@st.composite
def programs(draw):
    """The source of ``def prog(x, w)``: statements built one at a time, each drawn from the names
    and shapes bound so far, then a return of a weighted sum over every name still bound."""
    shapes = {"a0": (N,)}        # local array name -> shape (found by running the statement in NumPy)
    env = {"np": np, "x": np.zeros(N), "w": np.zeros(N)}
    exec(HELPERS, env)
    env["a0"] = env["x"].copy()
    lines = ["a0 = x.copy()"]
    fresh = [1]

    def new_name():
        if draw(st.booleans()) or len(shapes) == 1:    # a new name, or rebinding one already bound
            name = f"a{fresh[0]}"
            fresh[0] += 1
            return name
        return draw(st.sampled_from(sorted(shapes)))

    n_statements = draw(st.integers(1, 7))
    for _ in range(n_statements):
        kind = draw(st.sampled_from(["copy", "alias", "view", "augmented", "item", "slice", "call"]))
        src = draw(st.sampled_from(sorted(shapes)))
        shape = shapes[src]
        c = draw(st.sampled_from(["0.5", "1.5", "-0.75", "2.0"]))
        if kind == "copy":
            rhs = draw(st.sampled_from(["{s}.copy()", "np.copy({s})", "np.array({s})", "{s} * 1.5", "{s} + 0.0",
                                        "-{s}"])).format(s=src)
            line = f"{new_name()} = {rhs}"
        elif kind == "alias":
            line = f"{new_name()} = {src}"
        elif kind == "view":
            line = f"{new_name()} = {src}{draw(st.sampled_from(_views(shape)))}"
        elif kind == "augmented":
            op = draw(st.sampled_from(["+=", "-=", "*=", "/=", "**="]))
            same = [n for n in sorted(shapes) if shapes[n] == shape]
            if op in ("+=", "-="):
                other = draw(st.sampled_from(same + ["w"]))
                rhs = f"{c} * {_like(shape, 'w') if other == 'w' else other}"
            elif op == "*=":
                rhs = f"(1.0 + 0.5 * {_like(shape, 'w')})"
            elif op == "/=":
                rhs = f"(1.5 + {_like(shape, 'w')} * {_like(shape, 'w')})"
            else:
                rhs = "2.0"
            line = f"{src} {op} {rhs}"
        elif kind == "item":
            idx = ", ".join(str(draw(st.integers(0, d - 1))) for d in shape)
            line = f"{src}[{idx}] = x[{draw(st.integers(0, N - 1))}] * w[{draw(st.integers(0, N - 1))}]"
        elif kind == "slice":
            if len(shape) == 2:
                line = draw(st.sampled_from([f"{src}[0] = {src}[-1] * {c}", f"{src}[:] = {src}[::-1]",
                                             f"{src}[:, 0] = {c} * {_like((shape[0],), 'x')}"]))
            elif shape[0] >= 2:
                k = shape[0] - 1
                line = draw(st.sampled_from([f"{src}[1:] = {src}[:-1]", f"{src}[:-1] = {src}[1:]",
                                             f"{src}[:] = {src}[::-1]", f"{src}[:{k}] = {c} * {_like((k,), 'x')}",
                                             f"{src}[1:] += {src}[:-1]"]))
            else:
                line = f"{src}[:] = {c} * x[:1]"
        else:
            call = draw(st.sampled_from(["add", "scale", "scale_assigned", "first"]))
            if call == "add":
                line = f"_add_into({src}, {c} * {_like(shape, 'w')})"
            elif call == "scale":
                line = f"_scale_into({src}, 1.0 + 0.5 * {_like(shape, 'w')})"
            elif call == "scale_assigned":
                line = f"{new_name()} = _scale_into({src}, 1.0 + 0.5 * {_like(shape, 'w')})"
            else:
                line = f"_set_first({src}, {c} * x[{draw(st.integers(0, N - 1))}])"
        exec(line, env)                      # NumPy itself says what the statement binds, and its shape
        lines.append(line)
        for name in list(shapes) + [f"a{k}" for k in range(fresh[0])]:
            if name in env:
                shapes[name] = env[name].shape

    terms = []
    for k, name in enumerate(sorted(shapes)):
        shape = shapes[name]
        terms.append(f"np.sum({name} * {name} * {_like(shape, 'x')}) + {0.25 * (k + 1)} * np.sum({name})")
    body = "\n".join("    " + s for s in lines + ["return " + " + ".join(terms)])
    return f"def prog(x, w):\n{body}\n"


def load(source, directory):
    """Write the helpers and ``source`` to a module file under ``directory``, import it, return ``prog``."""
    text = "import numpy as np\n\n\n" + HELPERS + "\n\n" + source
    name = "alias_prop_" + hashlib.sha1(text.encode()).hexdigest()[:16]
    path = directory / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module.prog


def inputs(seed):
    rng = np.random.default_rng(seed)
    return rng.uniform(-1.0, 1.0, N), rng.uniform(-1.0, 1.0, N)


# Without the shrink phase a failing mode reports in seconds instead of minutes; the programs are at
# most eight statements, readable as drawn.
PROFILE = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                   phases=[Phase.explicit, Phase.generate],
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def module_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("alias_programs")


@pytest.mark.parametrize("mode", ["jit", "grad", "jvp"])
@PROFILE
@given(source=programs(), seed=st.integers(0, 2**32 - 1))
def test_generated_program(mode, source, seed, module_dir):
    fn = load(source, module_dir)
    args = inputs(seed)
    before = copy.deepcopy(args)
    want = fn(*copy.deepcopy(args))
    if mode == "jit":
        got = transpyle.jit(fn, backend="numpy")(*args)
        assert_unchanged(before, args, "argument")
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12, err_msg=f"jit differs from NumPy:\n{source}")
    elif mode == "grad":
        check_grad(fn, args, (0, 1), backend="numpy")
    else:
        check_jvp(fn, args, (0, 1), np.random.default_rng(seed), backend="numpy")
