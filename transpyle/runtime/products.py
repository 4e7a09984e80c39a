"""Matrix products with NumPy's ``matmul`` semantics at run time: ``matmul(a, b)`` is ``a @ b`` for operands
of any rank, batched over the leading (batch) dimensions with those broadcast against each other, a 1-D
operand read as a row (on the left) or a column (on the right) whose dimension the result drops, and
mixed or integer dtypes promoted as NumPy does.

Numba's own ``@``/``np.matmul`` takes only 1-D and 2-D arrays of one float or complex dtype. Its
implementation here is generated for each pair of ranks: one loop over the broadcast batch index that
multiplies one pair of matrices per item (``np.dot`` on contiguous float or complex matrices, a plain
loop for integers and booleans), reading each operand's item at its own (possibly broadcast) index, so
no broadcast operand is ever copied out.
"""
import numpy as np

from numba import types
from numba.extending import overload


def matmul(a, b):
    """``a @ b`` with NumPy's semantics, for operands of any rank (the numpy backend's reference)."""
    return np.matmul(a, b)


def _product_of(terms):
    return " * ".join(terms) if terms else "1"


def _matmul_source(ra, rb, cast_a, cast_b, loop_kernel, boolean):
    """The Numba implementation of ``matmul`` for operands of ranks ``ra`` and ``rb``: each operand becomes a
    C-contiguous stack of matrices (``A3``, ``B3``: its batch dimensions flattened, a 1-D operand one row or
    one column), then each item of the broadcast batch is the product of the items it reads."""
    la, lb = max(ra - 2, 0), max(rb - 2, 0)
    depth = max(la, lb)
    lines = ["def impl(a, b):",
             "    A = np.ascontiguousarray(a)" + (".astype(out_dtype)" if cast_a else ""),
             "    B = np.ascontiguousarray(b)" + (".astype(out_dtype)" if cast_b else "")]
    if ra >= 3 and rb == 2 and not loop_kernel:
        # a stack times one matrix is one product: the stack's rows, all of them, times b (one gemm, where a
        # call per matrix of the stack pays BLAS's overhead each time)
        batch = [f"A.shape[{j}]" for j in range(ra - 1)]
        lines += [f"    if A.shape[{ra - 1}] != B.shape[0]:",
                  "        raise ValueError('matmul: the last dimension of a differs from the rows of b')",
                  f"    out = np.dot(A.reshape(({_product_of(batch)}, A.shape[{ra - 1}])), B)",
                  f"    return out.reshape(({', '.join(batch)}, B.shape[1]))"]
        return "\n".join(lines)
    lines += [f"    n = {'A.shape[%d]' % (ra - 2) if ra >= 2 else '1'}",
              f"    k = A.shape[{ra - 1}]",
              f"    kb = B.shape[{rb - 2 if rb >= 2 else 0}]",
              f"    m = {'B.shape[%d]' % (rb - 1) if rb >= 2 else '1'}",
              "    if k != kb:",
              "        raise ValueError('matmul: the last dimension of a differs from the rows of b')"]
    # the batch dimensions, aligned from the right: operand dimension j of a sits at output position
    # j + depth - la (the missing leading ones count as length 1)
    out_dims = []
    for d in range(depth):
        ja, jb = d - (depth - la), d - (depth - lb)
        sa = f"A.shape[{ja}]" if ja >= 0 else "1"
        sb = f"B.shape[{jb}]" if jb >= 0 else "1"
        lines += [f"    sa{d} = {sa}", f"    sb{d} = {sb}",
                  f"    if sa{d} != sb{d} and sa{d} != 1 and sb{d} != 1:",
                  "        raise ValueError('matmul: the batch dimensions of the operands do not broadcast')",
                  f"    o{d} = sb{d} if sa{d} == 1 else sa{d}"]
        out_dims.append(f"o{d}")
    lines += [f"    A3 = A.reshape(({_product_of([f'A.shape[{j}]' for j in range(la)])}, n, k))",
              f"    B3 = B.reshape(({_product_of([f'B.shape[{j}]' for j in range(lb)])}, k, m))",
              f"    count = {_product_of(out_dims)}",
              "    out = np.empty((count, n, m), out_dtype)",
              "    for f in range(count):",
              "        rem = f",
              "        ia = 0",
              "        ib = 0",
              "        stride_a = 1",
              "        stride_b = 1"]
    for d in range(depth - 1, -1, -1):          # the flat index f, digit by digit from the last dimension
        lines += [f"        i = rem % o{d}", f"        rem //= o{d}"]
        if d >= depth - la:
            lines += [f"        if sa{d} != 1:", "            ia += i * stride_a", f"        stride_a *= sa{d}"]
        if d >= depth - lb:
            lines += [f"        if sb{d} != 1:", "            ib += i * stride_b", f"        stride_b *= sb{d}"]
    if loop_kernel:
        start, step = ("False", "acc or (A3[ia, r, p] and B3[ib, p, c])") if boolean else \
            ("zero", "acc + A3[ia, r, p] * B3[ib, p, c]")
        lines += ["        for r in range(n):",
                  "            for c in range(m):",
                  f"                acc = {start}",
                  "                for p in range(k):",
                  f"                    acc = {step}",
                  "                out[f, r, c] = acc"]
    else:
        # into the item in place: assigning a returned matrix to out[f] costs Numba seconds of compile time
        lines.append("        np.dot(A3[ia], B3[ib], out[f])")
    final = out_dims + (["n"] if ra >= 2 else []) + (["m"] if rb >= 2 else [])
    if final:
        lines.append(f"    return out.reshape(({', '.join(final)},))")
    else:
        lines.append("    return out[0, 0, 0]")
    return "\n".join(lines)


def _numpy_dtype(dtype):
    return np.dtype(str(dtype))


@overload(matmul)
def _matmul_numba(a, b):
    if not (isinstance(a, types.Array) and isinstance(b, types.Array)) or a.ndim == 0 or b.ndim == 0:
        return None
    da, db = _numpy_dtype(a.dtype), _numpy_dtype(b.dtype)
    out_dtype = np.result_type(da, db)
    # Numba's np.dot multiplies float and complex matrices of one dtype; anything else takes the loop
    loop_kernel = out_dtype.kind not in "fc"
    source = _matmul_source(a.ndim, b.ndim, da != out_dtype, db != out_dtype, loop_kernel, out_dtype.kind == "b")
    scope = {"np": np, "out_dtype": out_dtype, "zero": out_dtype.type(0)}
    exec(source, scope)
    return scope["impl"]
