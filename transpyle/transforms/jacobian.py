"""jacobian: the drivers that assemble Jacobians inside compiled code.

``jacfwd`` runs the forward-mode function once per input direction (basis tangent), ``jacrev``
runs the vjp function once per output direction (basis cotangent); both loop in the generated
code, so a Jacobian is one compiled call. The drivers are written in the accepted subset (no
slice assignment, shapes spelled per dimension), so they can themselves be transformed again:
``hessian`` is ``jacfwd`` over the ``jacrev`` driver.

Result layout follows JAX: ``out.shape + in.shape`` per (output, argument) pair, a tuple over
arguments for a tuple ``argnums``, a tuple over outputs for a tuple output.
"""
from ..base.ast_utils import SourceWriter


def _size(expr, kind):
    return f"{expr}.size" if kind.ndim else "1"


def _dims(expr, kind):
    return [f"{expr}.shape[{d}]" for d in range(kind.ndim)]


def _basis(w, depth, k, expr, kind):
    """Emit the k-th basis value shaped like ``expr`` (1.0 for a scalar); returns its name."""
    direction = w.fresh("_dir")
    if not kind.ndim:
        w.emit(depth, f"{direction} = 1.0")
        return direction
    basis = w.fresh("_basis")
    w.emit(depth, f"{basis} = np.zeros({expr}.size)")
    w.emit(depth, f"{basis}[{k}] = 1.0")
    w.emit(depth, f"{direction} = np.reshape({basis}, {expr}.shape)")
    return direction


def _fill(w, jac, value, kind, k, depth, row=False):
    """Emit the writes of ``value`` (flattened) into column ``k`` of ``jac``, or into row ``k``."""
    at = (lambda r: f"{k}, {r}") if row else (lambda r: f"{r}, {k}")
    if not kind.ndim:
        w.emit(depth, f"{jac}[{at(0)}] = {value}")
        return
    flat, r = w.fresh("_flat"), w.fresh("_r")
    w.emit(depth, f"{flat} = np.ravel({value})")
    w.emit(depth, f"for {r} in range({flat}.size):")
    w.emit(depth + 1, f"{jac}[{at(r)}] = {flat}[{r}]")


def _block_shape(out_expr, out_kind, arg, arg_kind):
    """``out.shape + arg.shape`` (the shape of one block of a Jacobian) as source, "" for scalars."""
    return " + ".join(([f"{out_expr}.shape"] if out_kind.ndim else []) + ([f"{arg}.shape"] if arg_kind.ndim else []))


def _finish(w, jac, out_kind, out_expr, arg_kind, arg):
    """Reshape the (output size, argument size) matrix ``jac`` to ``out.shape + arg.shape``."""
    dims = _dims(out_expr, out_kind) + _dims(arg, arg_kind)
    if not dims:
        return f"{jac}[0, 0]"
    return f"np.reshape({jac}, ({', '.join(dims)},))"


def _structure(per_output, tuple_out, tuple_argnums):
    """Nest results as JAX does: outputs outside, arguments inside."""
    parts = []
    for per_arg in per_output:
        parts.append(f"({', '.join(per_arg)},)" if tuple_argnums else per_arg[0])
    return f"({', '.join(parts)},)" if tuple_out else parts[0]


def _outputs(w, out_kinds, tuple_out, has_aux, source):
    """Statements naming each differentiated output of ``source`` (a tuple variable or a value)."""
    names = []
    if has_aux:
        value = w.fresh("_value")
        w.emit(1, f"{value} = {source}[0]")
        aux = w.fresh("_aux")
        w.emit(1, f"{aux} = {source}[1]")
        return [value], aux
    if tuple_out:
        for j in range(len(out_kinds)):
            o = w.fresh("_out")
            w.emit(1, f"{o} = {source}[{j}]")
            names.append(o)
        return names, None
    return [source], None


#: fewer directions than this run in a serial loop: waking threads costs more than a few sweeps
PARALLEL_MIN_DIRECTIONS = 16


def _directions(w, k, start, stop, body, parallel=True):
    """A loop over directions ``k`` in ``range(start, stop)`` running ``body(depth, k)``: parallel
    when there are many, serial when there are few. Code another transform reads has the serial
    loop only (its transform runs ``numba.prange`` as ``range``: two copies would compile twice)."""
    if not parallel:
        w.emit(1, f"for {k} in range({start}, {stop}):")
        body(2, k)
        return
    if stop == "1":                 # a scalar: its one direction, or none left (no parallel loop to compile)
        if start == 0:
            body(1, "0")
        return
    w.emit(1, f"if {stop} - {start} >= {PARALLEL_MIN_DIRECTIONS}:")
    w.emit(2, f"for {k} in numba.prange({start}, {stop}):")
    body(3, k)
    w.emit(1, "else:")
    w.emit(2, f"for {k} in range({start}, {stop}):")
    body(3, k)


def jacfwd_driver(namer, name, params, wrt, kinds, out_kinds, tuple_out, has_aux, tuple_argnums, jvp_name,
                  with_value=False, complex_result=False, parallel=True):
    """Source of ``name(*params)``: the Jacobian from one ``jvp_name`` call per input direction.
    The first direction runs first (it gives the output shapes); the others run in a loop, parallel
    unless ``parallel`` is False (see ``_directions``), each writing its own column."""
    w = SourceWriter(namer)
    if not complex_result and all(kinds[a].ndim == 0 for a in wrt) and all(k.ndim == 0 for k in out_kinds):
        return _scalar_jacfwd(w, name, params, wrt, out_kinds, tuple_out, has_aux, tuple_argnums, jvp_name,
                              with_value)
    w.emit(0, f"def {name}({', '.join(params)}):")
    dtype = ", np.complex128" if complex_result else ""
    zero_names = {}
    if len(wrt) > 1:                   # the other arguments' tangents stay zero
        for a in wrt:
            zero_names[a] = w.fresh("_zero")
            w.emit(1, f"{zero_names[a]} = {'np.zeros_like(' + a + ')' if kinds[a].ndim else '0.0'}")
    jacs = {(j, a): w.fresh("_jac") for j in range(len(out_kinds)) for a in wrt}

    def direction(depth, a, k):
        """Emit the jvp along basis direction ``k`` of ``a``; returns (primal, tangent) names."""
        tangent = _basis(w, depth, k, a, kinds[a])
        out, tout = w.fresh("_o"), w.fresh("_t")
        args = params + [tangent if b == a else zero_names[b] for b in wrt]
        w.emit(depth, f"{out}, {tout} = {jvp_name}({', '.join(args)})")
        return out, tout

    def fill(depth, a, k, tout):
        for j, ok in enumerate(out_kinds):
            t = f"{tout}[{j}]" if tuple_out and not has_aux else tout
            _fill(w, jacs[j, a], t, ok, k, depth)

    first_out, first_t = direction(1, wrt[0], "0")
    outs, aux = _outputs(w, out_kinds, tuple_out, has_aux, first_out)
    for j, (o, ok) in enumerate(zip(outs, out_kinds)):
        for a in wrt:
            w.emit(1, f"{jacs[j, a]} = np.empty(({_size(o, ok)}, {_size(a, kinds[a])}){dtype})")
    fill(1, wrt[0], "0", first_t)
    for n, a in enumerate(wrt):
        def column(depth, k, a=a):
            _, tout = direction(depth, a, k)
            fill(depth, a, k, tout)
        _directions(w, w.fresh("_k"), 1 if n == 0 else 0, _size(a, kinds[a]), column, parallel)
    per_output = [[_finish(w, jacs[j, a], ok, o, kinds[a], a) for a in wrt]
                  for j, (o, ok) in enumerate(zip(outs, out_kinds))]
    result = _structure(per_output, tuple_out and not has_aux, tuple_argnums)
    return _returning(w, result, outs[0], aux, with_value)


def _returning(w, result, value, aux, with_value):
    """End the driver: the Jacobian ``result``, with the value before it for value_and_grad
    (``((value, aux), gradient)`` with has_aux), and the aux after it otherwise."""
    value = f"({value}, {aux})" if aux is not None else value
    if with_value:
        result = f"({value}, {result})"
    elif aux is not None:
        result = f"({result}, {aux})"
    w.emit(1, f"return {result}")
    return w.function()


def _scalar_jacfwd(w, name, params, wrt, out_kinds, tuple_out, has_aux, tuple_argnums, jvp_name, with_value):
    """Scalars in and out: one jvp call per argument, straight-line, no array (so the driver also
    runs inside a CUDA thread, where ``vmap(grad(f))`` of a few scalars uses it)."""
    w.emit(0, f"def {name}({', '.join(params)}):")
    tangents = []
    first = None
    for a in wrt:
        out, tout = w.fresh("_o"), w.fresh("_t")
        seeds = ["1.0" if b == a else "0.0" for b in wrt]
        w.emit(1, f"{out}, {tout} = {jvp_name}({', '.join(params + seeds)})")
        first = first or out
        tangents.append(tout)
    outs, aux = _outputs(w, out_kinds, tuple_out, has_aux, first)
    per_output = [[f"{t}[{j}]" if tuple_out and not has_aux else t for t in tangents] for j in range(len(out_kinds))]
    result = _structure(per_output, tuple_out and not has_aux, tuple_argnums)
    return _returning(w, result, outs[0], aux, with_value)


def jacrev_driver(namer, name, params, wrt, kinds, out_kinds, tuple_out, has_aux, tuple_argnums, primal_name,
                  vjp_name, complex_result=False, parallel=True):
    """Source of ``name(*params)``: the Jacobian from one ``vjp_name`` call per output direction (in
    parallel unless ``parallel`` is False, see ``_directions``)."""
    w = SourceWriter(namer)
    w.emit(0, f"def {name}({', '.join(params)}):")
    dtype = ", np.complex128" if complex_result else ""
    first = w.fresh("_primal")
    w.emit(1, f"{first} = {primal_name}({', '.join(params)})")
    outs, aux = _outputs(w, out_kinds, tuple_out, has_aux, first)
    jacs = {}
    for j, (o, ok) in enumerate(zip(outs, out_kinds)):
        for a in wrt:
            jac = w.fresh("_jac")
            jacs[j, a] = jac
            w.emit(1, f"{jac} = np.empty(({_size(o, ok)}, {_size(a, kinds[a])}){dtype})")
    zero_cts = {}
    if tuple_out and not has_aux:
        for j, (o, ok) in enumerate(zip(outs, out_kinds)):
            zero_cts[j] = w.fresh("_zero")
            w.emit(1, f"{zero_cts[j]} = {'np.zeros_like(' + o + ')' if ok.ndim else '0.0'}")
    for j, (o, ok) in enumerate(zip(outs, out_kinds)):
        def row(depth, k, j=j, o=o, ok=ok):            # rows are independent
            ct = _basis(w, depth, k, o, ok)
            back = w.fresh("_b")
            if tuple_out and not has_aux:
                cts = [ct if i == j else zero_cts[i] for i in range(len(outs))]
                ct_arg = f"({', '.join(cts)},)"
            else:
                ct_arg = ct
            w.emit(depth, f"{back} = {vjp_name}({', '.join(params)}, {ct_arg})")
            for i, a in enumerate(wrt):
                _fill(w, jacs[j, a], f"{back}[{i}]", kinds[a], k, depth, row=True)
        _directions(w, w.fresh("_k"), 0, _size(o, ok), row, parallel)
    per_output = [[_finish(w, jacs[j, a], ok, o, kinds[a], a) for a in wrt]
                  for j, (o, ok) in enumerate(zip(outs, out_kinds))]
    result = _structure(per_output, tuple_out and not has_aux, tuple_argnums)
    return _returning(w, result, outs[0], aux, with_value=False)


def vector_jacrev_driver(namer, name, params, wrt, kinds, out_kind, tuple_argnums, primal_name, rows_name,
                         threads=False):
    """Source of ``name(*params)``: the Jacobian from ``rows_name``, the vjp lifted over a stack of
    cotangents (``transforms/lift``), given every output direction at once: the identity. With
    ``threads`` the directions are split in chunks, one call per thread (each repeats the primal
    sweep; see ``rt.direction_chunks``). A vector-mode driver is compiled, never transformed again."""
    w = SourceWriter(namer)
    w.emit(0, f"def {name}({', '.join(params)}):")
    out = w.fresh("_primal")
    w.emit(1, f"{out} = {primal_name}({', '.join(params)})")
    basis = w.fresh("_basis")
    if out_kind.ndim:
        w.emit(1, f"{basis} = np.reshape(np.eye({out}.size), ({out}.size,) + {out}.shape)")
    else:
        w.emit(1, f"{basis} = np.ones(1)")
    rows = w.fresh("_rows")
    shapes = [_block_shape(out, out_kind, a, kinds[a]) for a in wrt]
    if not threads:
        w.emit(1, f"{rows} = {rows_name}({', '.join(params)}, {basis})")
        parts = [f"np.reshape(np.ascontiguousarray({rows}[{i}]), {shape})" if shape else f"{rows}[{i}][0]"
                 for i, shape in enumerate(shapes)]
        w.emit(1, f"return {_structure([parts], False, tuple_argnums)}")
        return w.function()
    n, chunks, c, lo, hi = (w.fresh(p) for p in ("_n", "_chunks", "_c", "_lo", "_hi"))
    w.emit(1, f"{n} = {basis}.shape[0]")
    jacs = [w.fresh("_jac") for _ in wrt]
    for jac, a in zip(jacs, wrt):
        w.emit(1, f"{jac} = np.empty(({n}, {_size(a, kinds[a])}))")
    w.emit(1, f"{chunks} = rt.direction_chunks({n})")
    w.emit(1, f"for {c} in numba.prange({chunks}):")
    w.emit(2, f"{lo} = {c} * {n} // {chunks}")
    w.emit(2, f"{hi} = ({c} + 1) * {n} // {chunks}")
    w.emit(2, f"{rows} = {rows_name}({', '.join(params)}, np.ascontiguousarray({basis}[{lo}:{hi}]))")
    for i, (jac, a) in enumerate(zip(jacs, wrt)):      # element loops: Numba compiles a slice assignment slowly
        part, r, q = w.fresh("_part"), w.fresh("_r"), w.fresh("_q")
        w.emit(2, f"{part} = np.reshape(np.ascontiguousarray({rows}[{i}]), ({hi} - {lo}, {_size(a, kinds[a])}))")
        w.emit(2, f"for {r} in range({hi} - {lo}):")
        w.emit(3, f"for {q} in range({part}.shape[1]):")
        w.emit(4, f"{jac}[{lo} + {r}, {q}] = {part}[{r}, {q}]")
    parts = [f"np.reshape({jac}, {shape})" if shape else f"{jac}[0, 0]" for jac, shape in zip(jacs, shapes)]
    w.emit(1, f"return {_structure([parts], False, tuple_argnums)}")
    return w.function()


def vector_jacfwd_driver(namer, name, params, wrt, kinds, out_kind, tuple_argnums, lifted_name, with_value=False):
    """Source of ``name(*params)``: the Jacobian from one call of ``lifted_name``, the jvp lifted over a
    stack of tangents (``transforms/lift``), given every input direction at once: the columns of the
    identity, split between the arguments. Its tangent output has the directions last."""
    w = SourceWriter(namer)
    w.emit(0, f"def {name}({', '.join(params)}):")
    total, eye = w.fresh("_n"), w.fresh("_eye")
    sizes = [_size(a, kinds[a]) for a in wrt]
    w.emit(1, f"{total} = {' + '.join(sizes)}")
    w.emit(1, f"{eye} = np.eye({total})")
    offsets, tangents = [], []
    for i, a in enumerate(wrt):
        offset = " + ".join(sizes[:i]) or "0"
        offsets.append(offset)
        tangent = w.fresh("_dirs")
        columns = eye if len(wrt) == 1 else f"np.ascontiguousarray({eye}[:, {offset}:{offset} + {sizes[i]}])"
        w.emit(1, f"{tangent} = " + (f"np.reshape({columns}, ({total},) + {a}.shape)" if kinds[a].ndim else
                                     f"np.ascontiguousarray({eye}[:, {offset}])"))
        tangents.append(tangent)
    values, touts = w.fresh("_o"), w.fresh("_t")
    w.emit(1, f"{values}, {touts} = {lifted_name}({', '.join(params + tangents)})")
    value = w.fresh("_value")
    w.emit(1, f"{value} = {values}[0]")
    out_size = _size(value, out_kind)
    flat = w.fresh("_flat")
    w.emit(1, f"{flat} = np.reshape(np.ascontiguousarray({touts}), ({out_size}, {total}))")
    parts = []
    for a, offset, size in zip(wrt, offsets, sizes):
        shape = _block_shape(value, out_kind, a, kinds[a])
        part = flat if len(wrt) == 1 else f"np.ascontiguousarray({flat}[:, {offset}:{offset} + {size}])"
        parts.append(f"np.reshape({part}, {shape})" if shape else f"{flat}[0, {offset}]")
    return _returning(w, _structure([parts], False, tuple_argnums), value, None, with_value)
