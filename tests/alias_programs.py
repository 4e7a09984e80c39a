"""Small programs whose results depend on NumPy's aliasing rules (issue #25), for test_aliasing.py.

Each program is a module-level function of float arrays (and sometimes a float scalar) returning a
float scalar. The comment above it states the one NumPy fact it relies on: which names and views
share a buffer, which operations write into a buffer and which make a new one. Every program is
smooth at the inputs its maker draws, and its output weighs the written elements differently from
the rest (a weighted sum, a product with an input), so an implementation that gets the aliasing
wrong gets a different value and a different derivative, not merely a different intermediate.

No program writes into its own arguments: the writes go into copies the program makes, so NumPy
run on the inputs directly, finite differences and transpyle all see the same function. The table
``PROGRAMS`` at the bottom lists them with an input maker and whether the Numba backend runs them
too. The programs after "found by the property test" are minimal programs that
test_aliasing_property.py's generator produced.
"""
import numpy as np

from gradcheck import draw, normals, signeds, uniforms

N, U, S = normals, uniforms, signeds


# ---- helpers called by the programs: they write into their arguments ----------------------------
def _add_into(a, b):
    a += b


def _scale_into(a, s):
    a *= s
    return a


def _set_first(a, v):
    a[0] = v


def _double_then_triple(a, b):
    a *= 2.0
    b *= 3.0


def _rebind_local(a):
    a = a * 2.0
    a[0] = 1.0
    return np.sum(a * a)


def _add_then_set(a, b):
    _add_into(a, b)
    a[1] = b[0] * b[1]


def _tail(a):
    return a[1:]


def _bump(s):
    s += 1.0
    return s


# ---- names: `z = y` is a second name for one buffer; copies and arithmetic make new buffers -------

# `z = y` shares the buffer: an element written through z is read back through y
def name_alias_item(x, w):
    y = x.copy()
    z = y
    z[1] = x[0] * x[2]
    return np.sum(y * y * w) + np.sum(z * w)


# a chain of names (`a = y; b = a`) is one buffer: a slice written through b is seen in y and a
def name_alias_chain(x, w):
    y = x * 1.5
    a = y
    b = a
    b[2:4] = w[:2] * x[:2]
    return np.sum(y * w) + np.sum(a * a)


# a write through the original name is seen through the alias made before it
def original_write_seen_by_alias(x, w):
    y = x.copy()
    z = y
    y[3] = x[0] * w[0]
    y[0:2] = w[4:6] * x[4:6]
    return np.sum(z * z * w)


# `.copy()` makes a new buffer: writing into the copy leaves the original unchanged
def copy_method_new_buffer(x, w):
    y = x.copy()
    z = y.copy()
    z[0] = 3.0 * x[1]
    z *= w
    return np.sum(y * y * w) + np.sum(z * z)


# `np.array(y)` makes a new buffer
def np_array_new_buffer(x, w):
    y = x * 2.0
    z = np.array(y)
    z[1:3] = w[1:3] * x[0]
    return np.sum(y * w) + np.sum(z * z)


# `np.copy(y)` makes a new buffer
def np_copy_new_buffer(x, w):
    y = x + 1.0
    z = np.copy(y)
    z += w
    return np.sum(y * y) + np.sum(z * w)


# arithmetic makes a new buffer: `z = y + 0.0` and `u = -y` written afterwards leave y unchanged
def arithmetic_new_buffer(x, w):
    y = x.copy()
    z = y + 0.0
    z[2] = w[0] * w[1]
    u = -y
    u[0] = 5.0
    return np.sum(y * w) + np.sum(z * z) + np.sum(u * w)


# rebinding a name (`z = z * 2.0`) ends its alias: writes before it reach y, writes after do not
def rebind_ends_alias(x, w):
    y = x.copy()
    z = y
    z[0] = w[0] * x[1]
    z = z * 2.0
    z[1] = w[1]
    return np.sum(y * y * w) + np.sum(z * w)


# ---- augmented assignment: in place on arrays (every operator), a rebinding on floats -----------

# `z += b` on an array updates the shared buffer: y sees it
def iadd_through_alias(x, w):
    y = x.copy()
    z = y
    z += w * x
    return np.sum(y * y * w)


# `z -= b` on an array updates the shared buffer
def isub_through_alias(x, w):
    y = x.copy()
    z = y
    z -= w * w
    return np.sum(y * y * x)


# `z *= b` on an array updates the shared buffer
def imul_through_alias(x, w):
    y = x.copy()
    z = y
    z *= w
    return np.sum(y * x) + np.sum(z)


# `z /= b` on an array updates the shared buffer
def idiv_through_alias(x, d):
    y = x.copy()
    z = y
    z /= d
    return np.sum(y * y * x)


# `z **= p` on an array updates the shared buffer
def ipow_through_alias(x, w):
    y = x.copy()
    z = y
    z **= 3.0
    return np.sum(y * w)


# `y += z` with z an alias of y reads and writes one buffer: y (and z) double
def iadd_self_alias(x, w):
    y = x.copy()
    z = y
    y += z
    z *= w
    return np.sum(y * y) + np.sum(z * x)


# `a[i] op= v` through an alias writes the shared buffer
def item_iadd_through_alias(x, w):
    y = x.copy()
    z = y
    z[2] += w[2] * x[3]
    z[0] *= w[0]
    return np.sum(y * y * w)


# on a Python float `t += v` rebinds t: s keeps its value
def float_iadd_rebinds(x, s):
    t = s
    t += x[0]
    t *= s
    return s * np.sum(x) + t * t


# an element `a = y[0]` is a scalar, not a view: `a += v` leaves y unchanged
def element_read_is_a_value(x, w):
    y = x.copy()
    a = y[0]
    a += w[0]
    a *= 2.0
    return a * np.sum(y * w) + np.sum(y * y)


# ---- views: basic indexing, transposes, reshapes and complex parts share their base's buffer ------

# a slice is a view: elements written into it land in the base
def slice_view_write(x, w):
    y = x.copy()
    v = y[1:4]
    v[0] = x[0] * x[5]
    v[2] += w[0]
    return np.sum(y * y * w)


# a stepped slice is a view: `v *= w` scales every other element of the base
def strided_view_imul(x, w):
    y = x.copy()
    v = y[::2]
    v *= w[:3]
    return np.sum(y * y * w)


# a reversed slice is a view: its element 0 is the base's last element
def reversed_view_write(x, w):
    y = x.copy()
    v = y[::-1]
    v[0] = x[0] * w[0]
    v[1:3] += w[:2]
    return np.sum(y * y * w)


# an int mixed with a slice (`B[1, :]`) is a view of a row
def row_view_write(A, w):
    B = A.copy()
    r = B[1, :]
    r *= w
    r[0] = A[0, 0] * A[2, 3]
    return np.sum(B * B * A)


# a column `B[:, 2]` is a view
def column_view_iadd(A, w):
    B = A.copy()
    c = B[:, 2]
    c += w * A[:, 0]
    return np.sum(B * B * A)


# a block `B[1:, 1:3]` is a view: `b[:] = ...` writes the base's block
def block_view_write(A, W):
    B = A.copy()
    b = B[1:, 1:3]
    b[:] = W * A[:2, :2]
    b -= W
    return np.sum(B * B * A)


# `...` indexes views: `B[..., 1]` is column 1, `B[...]` the whole array
def ellipsis_view(A, w):
    B = A.copy()
    v = B[..., 1]
    v *= w
    e = B[...]
    e[0, 0] = w[0] * w[1]
    return np.sum(B * B * A)


# `None` adds an axis to a view: writes through `y[None, :]` and `y[:, None]` land in y
def newaxis_view(x, w):
    y = x.copy()
    v = y[None, :]
    v[0, 1] = x[2] * w[0]
    c = y[:, None]
    c *= 2.0
    c[3, 0] += w[1]
    return np.sum(y * y * w)


# `.T` is a view: element (i, j) of the transpose is element (j, i) of the base
def transpose_attr_view(A, W):
    B = A.copy()
    T = B.T
    T[0, 1] = A[2, 3] * 2.0
    T += W
    return np.sum(B * B * A)


# `np.transpose` is a view
def np_transpose_view(A, W):
    B = A.copy()
    T = np.transpose(B)
    T *= W
    T[3, 2] = A[0, 0] * A[1, 1]
    return np.sum(B * A)


# `np.swapaxes` is a view
def swapaxes_view(A, w):
    B = A.copy()
    S = np.swapaxes(B, 0, 1)
    S[2] += w * A[:, 0]
    S[0, 1] = A[2, 2] * w[0]
    return np.sum(B * B * A)


# `np.moveaxis` is a view
def moveaxis_view(A, w):
    B = A.copy()
    M = np.moveaxis(B, 0, 1)
    M[1, :] *= w
    return np.sum(B * B * A)


# `reshape` of a contiguous array is a view: row 1 of the (2, 3) view is the base's tail
def reshape_view(x, w):
    y = x.copy()
    m = y.reshape(2, 3)
    m[1] *= w[:3]
    m[0, 2] = x[0] * x[1]
    return np.sum(y * y * w)


# `reshape(-1)` of a contiguous matrix is a view of all its elements in row order
def reshape_flat_view(A, w):
    B = A.copy()
    f = B.reshape(-1)
    f[5] = A[0, 0] * A[0, 1]
    f[::3] *= w
    return np.sum(B * B * A)


# `ravel` of a contiguous array is a view
def ravel_view(A, w):
    B = A.copy()
    r = B.ravel()
    r[1:5] += w * A[2]
    return np.sum(B * B * A)


# `np.ravel` of a contiguous array is a view
def np_ravel_view(A, w):
    B = A * 1.0
    r = np.ravel(B)
    r[6:10] *= w
    return np.sum(B * A)


# `ravel` of a transpose (not contiguous) makes a new buffer: writes into it leave the base unchanged
def ravel_noncontiguous_copies(A, w):
    B = A.copy()
    r = B.T.ravel()
    r[0:4] = w * A[0]
    return np.sum(B * B * A) + np.sum(r * r)


# `flatten` always makes a new buffer
def flatten_copies(A, w):
    B = A.copy()
    f = B.flatten()
    f[:4] *= w
    return np.sum(B * B * A) + np.sum(f * f)


# `.real` of a complex array is a view of its real parts
def real_part_view(x, w):
    z = x + 1j * w
    r = z.real
    r *= w
    return np.sum(z.real * z.real * z.imag)


# `.imag` of a complex array is a view of its imaginary parts
def imag_part_view(x, w):
    z = x + 1j * w
    i = z.imag
    i += x * x
    i[0] = 2.0
    return np.sum(z.real * z.imag * w)


# a view of a view is a view of the base: element 1 of `y[1:][::2]` is y[3]
def view_of_view(x, w):
    y = x.copy()
    v = y[1:]
    u = v[::2]
    u[1] = w[0] * x[0]
    u *= 2.0
    return np.sum(y * y * w)


# a write into the base is seen through a view made before it
def base_write_seen_by_view(x, w):
    y = x.copy()
    v = y[2:]
    y[3] = x[0] * w[0]
    y *= w
    return np.sum(v * v) + v[0] * x[1]


# overlapping views share elements: a[3] is b[1], a[2] is b[0]
def overlapping_views(x, w):
    y = x.copy()
    a = y[:4]
    b = y[2:]
    a[3] = x[0] * w[1]
    b *= w[:4]
    a[2] += b[0]
    return np.sum(y * y * w) - a[0] * b[3]


# a write into the base is seen through its transpose
def base_write_seen_by_transpose(A, W):
    B = A.copy()
    T = B.T
    B[0, 2] = A[1, 1] * A[2, 0]
    B[1] *= 2.0
    return np.sum(T * W)


# rebinding the base's name does not move a view: it keeps writing into the old buffer
def view_outlives_rebind(x, w):
    y = x.copy()
    v = y[1:4]
    y = y * w
    v[0] = x[0] * x[0]
    v *= 2.0
    return np.sum(v * v * w[:3]) + np.sum(y * y)


# ---- calls pass references: helpers write into the caller's arrays -------------------------------

# a helper returning None, called as a statement, updates the caller's array
def call_statement_returns_none(x, w):
    y = x.copy()
    _add_into(y, w * x)
    return np.sum(y * y * w)


# the same helper assigned (`r = helper(...)`, r is None) still updates the caller's array
def call_assigned_returns_none(x, w):
    y = x.copy()
    r = _add_into(y, w)
    return np.sum(y * y * x)


# a helper returning its argument: the result is the caller's buffer, a write through it is seen in y
def call_returns_argument_assigned(x, w):
    y = x.copy()
    z = _scale_into(y, w)
    z[0] = x[1] * x[1]
    return np.sum(y * y * w)


# a helper returning its argument, called as a statement, updates the caller's array
def call_returns_argument_statement(x, w):
    y = x.copy()
    _scale_into(y, w)
    return np.sum(y * y * x)


# a helper writing one element of its argument
def call_writes_element(x, w):
    y = x.copy()
    _set_first(y, x[2] * w[0])
    return np.sum(y * y * w)


# a view passed to a helper: the helper's write lands in the base
def call_on_view(x, w):
    y = x.copy()
    _add_into(y[1:4], w[:3] * x[:3])
    return np.sum(y * y * w)


# a row view passed to a helper
def call_on_row_view(A, w):
    B = A.copy()
    _scale_into(B[1], w)
    return np.sum(B * B * A)


# an array passed twice is one buffer: `a *= 2; b *= 3` scales it by 6
def call_same_array_twice(x, w):
    y = x.copy()
    _double_then_triple(y, y)
    return np.sum(y * w)


# an array and its alias passed as two arguments are one buffer
def call_array_and_alias(x, w):
    y = x.copy()
    z = y
    _add_into(y, z)
    return np.sum(y * y * w) + np.sum(z * x)


# a helper rebinding its parameter (`a = a * 2.0`) and writing the new array leaves the caller's alone
def call_rebinding_parameter(x, w):
    y = x.copy()
    s = _rebind_local(y)
    return s + np.sum(y * y * w)


# a helper calling a helper: both writes reach the outer caller's array
def call_nested_helpers(x, w):
    y = x.copy()
    _add_then_set(y, w)
    return np.sum(y * y * x)


# a helper returning a view of its argument: writes through the result land in the caller's array
def call_returns_view(x, w):
    y = x.copy()
    t = _tail(y)
    t *= w[1:]
    return np.sum(y * y * w)


# a helper's `s += 1.0` on a float parameter rebinds it: the caller's float is unchanged
def call_float_parameter_rebinds(x, s):
    t = _bump(s)
    return s * np.sum(x * x) + t * x[0]


# a helper writing into its argument, called in a loop, updates the caller's array every time
def call_in_loop(x, w):
    y = x.copy()
    for k in range(3):
        _add_into(y, 0.5 * w * y)
    return np.sum(y * y)


# ---- out=, copyto, put, fill_diagonal, fill write into their target --------------------------------

# `out=` of a ufunc writes into the given array
def ufunc_out_new_target(x, w):
    y = np.zeros(x.shape[0])
    np.multiply(x, w, out=y)
    return np.sum(y * y * x)


# `out=` may be an operand: `np.multiply(y, w, out=y)` updates y in place, and an alias sees it
def ufunc_out_in_place(x, w):
    y = x.copy()
    z = y
    np.multiply(y, w, out=y)
    np.sin(z, out=z)
    return np.sum(y * w) + np.sum(z * z * x)


# `out=` may be a view: the result lands in the base
def ufunc_out_view(x, w):
    y = x.copy()
    np.multiply(y[:3], w[:3], out=y[3:])
    return np.sum(y * y * w)


# `out=` of a reduction writes into the given array, here a row of a matrix
def reduction_out(A, w):
    B = A.copy()
    np.sum(A * A, axis=0, out=B[0])
    return np.sum(B * w)


# `np.copyto(dst, src)` writes into dst (a view here), and the base sees it
def copyto_view(x, w):
    y = x.copy()
    np.copyto(y[1:3], x[:2] * w[:2])
    return np.sum(y * y * w)


# `np.put` writes into the array at flat indices
def put_writes_target(x, w):
    y = x.copy()
    np.put(y, [0, 3], w[:2] * x[1])
    return np.sum(y * y * w)


# `np.place` writes the values, repeated, at the true positions of the mask, through an alias
def place_writes_target(x, w):
    y = x.copy()
    z = y
    np.place(z, np.arange(6) % 2 == 0, w[:2] * x[0])
    return np.sum(y * y * w)


# `np.fill_diagonal` writes into the array (here through an alias)
def fill_diagonal_writes_target(A, s):
    B = A.copy()
    C = B
    np.fill_diagonal(C, s)
    return np.sum(B * B * A)


# `x.fill(v)` writes into x (here a view of the tail)
def fill_writes_view(x, s):
    y = x.copy()
    v = y[2:]
    v.fill(s)
    return np.sum(y * y * x)


# ---- overlapping reads and writes: NumPy reads the whole source before writing -------------------

# `y[1:] = y[:-1]` shifts right (every element gets its old left neighbour, not y[0] repeated)
def overlap_shift_right(x, w):
    y = x.copy()
    y[1:] = y[:-1]
    return np.sum(y * y * w)


# `y[:-1] = y[1:]` shifts left
def overlap_shift_left(x, w):
    y = x * w
    y[:-1] = y[1:]
    return np.sum(y * y * x)


# `y[:] = y[::-1]` reverses (not a palindrome of the first half)
def overlap_reverse(x, w):
    y = x.copy()
    y[:] = y[::-1]
    return np.sum(y * w)


# `y[1:] += y[:-1]` adds the old left neighbours (a ufunc with overlapping operands)
def overlap_iadd(x, w):
    y = x.copy()
    y[1:] += y[:-1]
    return np.sum(y * y * w)


# `B[:] = B.T` on a square matrix transposes it
def overlap_assign_transpose(A, W):
    B = A.copy()
    B[:] = B.T
    return np.sum(B * W)


# `B += B.T` makes B symmetric (old B plus old B transposed)
def overlap_iadd_transpose(A, W):
    B = A.copy()
    B += B.T
    return np.sum(B * B * W)


# an overlapping write through an alias: `y[1:] = z[:-1] * w[1:]` with z = y reads the old y
def overlap_through_alias(x, w):
    y = x.copy()
    z = y
    y[1:] = z[:-1] * w[1:]
    return np.sum(z * z * x)


# ---- aliases in loops ------------------------------------------------------------------------------

# `row = B[i]` in a loop is a view of row i: writes through it update B
def loop_row_alias(A, w):
    B = A.copy()
    for i in range(B.shape[0]):
        row = B[i]
        row *= w
        row[i] += A[i, 0] * A[i, 1]
    return np.sum(B * B * A)


# `x_prev = x; x += ...` : x_prev names the same buffer, so it sees the update
def loop_prev_alias(x0, v, dt):
    x = x0.copy()
    acc = 0.0
    for k in range(3):
        x_prev = x
        x += dt * v * x
        acc += np.sum(x_prev * v)
    return acc + np.sum(x * x)


# `x_prev = x.copy(); x += ...` : the copy keeps the old values
def loop_prev_copy(x0, v, dt):
    x = x0.copy()
    acc = 0.0
    for k in range(3):
        x_prev = x.copy()
        x += dt * v * x
        acc += np.sum((x - x_prev) * v)
    return acc + np.sum(x * x)


# a work array re-created each iteration starts fresh (no values left from the last iteration)
def loop_work_array(x, w):
    acc = 0.0
    for k in range(x.shape[0]):
        tmp = np.zeros(x.shape[0])
        tmp[k] = x[k] * w[k]
        tmp += x
        acc += np.sum(tmp * tmp * w)
    return acc


# a view made in one iteration is written in the next: it still points into the base
def loop_view_across_iterations(x, w):
    y = x.copy()
    v = y[0:2]
    for i in range(1, 4):
        v *= w[i]
        v = y[i:i + 2]
    return np.sum(y * y * x)


# swapping two buffers each step (`a, b = b, a`): the writes alternate between them
def loop_ping_pong(x, w):
    a = x.copy()
    b = np.zeros(x.shape[0])
    for k in range(3):
        b[1:-1] = 0.5 * (a[:-2] + a[2:]) * w[1:-1]
        b[0] = a[0]
        b[-1] = a[-1] * w[0]
        a, b = b, a
    return np.sum(a * a * x) + np.sum(b * w)


# an accumulator updated through an alias inside a loop
def loop_alias_accumulator(x, w):
    acc = np.zeros(x.shape[0])
    alias = acc
    for k in range(3):
        alias += x * w * (k + 1.0)
        alias *= w
    return np.sum(acc * acc)


# ---- found by the property test (test_aliasing_property.py) -----------------------------------------
# Minimal forms of programs its generator found failing (the generator's names a0, a1 kept); those
# that pass now stay as regression tests.

# rebinding a name to a view of another rank (`a1 = a0.reshape(2, 3)` after `a1 = a0.copy()`):
# a1 is now a matrix view of a0's buffer, and a write through it lands in a0
def found_rebind_to_other_rank_view(x, w):
    a0 = x.copy()
    a1 = a0.copy()
    a1 = a0.reshape(2, 3)
    a1[1, 0] = x[0] * w[0]
    return np.sum(a0 * a0 * x) + np.sum(a1 * w.reshape(2, 3))


# an overlapping shift inside a strided view (`a1 = a0[::2]; a1[1:] = a1[:-1]`) moves a0[0], a0[2]
# to a0[2], a0[4], reading the old values
def found_overlap_shift_in_view(x, w):
    a0 = x.copy()
    a1 = a0[::2]
    a1[1:] = a1[:-1]
    return np.sum(a0 * a0 * w) + 0.5 * np.sum(a1 * x[:3])


# after `a1 = a0; a0 = np.array(a0)` only a1 names the first buffer: a write through a1 changes a1,
# not the copy now named a0
def found_alias_outlives_rebound_partner(x, w):
    a0 = x.copy()
    a1 = a0
    a0 = np.array(a0)
    a1[:-1] = a1[1:]
    return np.sum(a0 * a0 * w) + 0.5 * np.sum(a1 * a1 * x)


# taking the same view twice (`a1 = a0[1:]` again) leaves a1 one view of a0: a write into a0 after
# it reaches a1's reads once, in the value and in the gradient
def found_same_view_taken_twice(x, w):
    a0 = x.copy()
    a1 = a0[1:]
    a1 = a0[1:]
    a0[1] = x[1] * w[1]
    return np.sum(a0 * a0 * x) + 0.5 * np.sum(a1 * a1 * x[:5])


# a view written, then taken again from the same base and written again, in straight-line code
def found_view_taken_again_after_write(x, w):
    a0 = x.copy()
    a1 = a0[::-1]
    a1[1] = x[2] * w[2]
    a1 = a0[::-1]
    a1[0] = x[1] * w[1]
    return np.sum(a0 * a0 * x) + 0.5 * np.sum(a1 * a1 * w)


# rebinding a name to an alias of its own buffer (`a1 = a0; ...; a0 = a1`) changes nothing
def found_rebind_to_same_buffer(x, w):
    a0 = x.copy()
    a1 = a0
    a0[:] = a0[::-1]
    a0 = a1
    a0[2] = x[0] * w[0]
    return np.sum(a0 * a0 * x) + 0.5 * np.sum(a1 * a1 * w)


# ---- the table --------------------------------------------------------------------------------------
V6, M34, M33 = (6,), (3, 4), (3, 3)

PROGRAMS = [
    # function, input maker (rng -> argument tuple), also on numba
    (name_alias_item, draw(N(V6), N(V6)), True),
    (name_alias_chain, draw(N(V6), N(V6)), False),
    (original_write_seen_by_alias, draw(N(V6), N(V6)), False),
    (copy_method_new_buffer, draw(N(V6), N(V6)), True),
    (np_array_new_buffer, draw(N(V6), N(V6)), False),
    (np_copy_new_buffer, draw(N(V6), N(V6)), False),
    (arithmetic_new_buffer, draw(N(V6), N(V6)), False),
    (rebind_ends_alias, draw(N(V6), N(V6)), True),
    (iadd_through_alias, draw(N(V6), N(V6)), True),
    (isub_through_alias, draw(N(V6), N(V6)), False),
    (imul_through_alias, draw(N(V6), N(V6)), False),
    (idiv_through_alias, draw(N(V6), S(V6)), False),
    (ipow_through_alias, draw(N(V6), N(V6)), False),
    (iadd_self_alias, draw(N(V6), N(V6)), False),
    (item_iadd_through_alias, draw(N(V6), N(V6)), False),
    (float_iadd_rebinds, draw(N(V6), U(())), True),
    (element_read_is_a_value, draw(N(V6), N(V6)), False),
    (slice_view_write, draw(N(V6), N(V6)), True),
    (strided_view_imul, draw(N(V6), N(V6)), False),
    (reversed_view_write, draw(N(V6), N(V6)), False),
    (row_view_write, draw(N(M34), N(4)), True),
    (column_view_iadd, draw(N(M34), N(3)), False),
    (block_view_write, draw(N(M34), N((2, 2))), False),
    (ellipsis_view, draw(N(M34), N(3)), False),
    (newaxis_view, draw(N(V6), N(V6)), False),
    (transpose_attr_view, draw(N(M34), N((4, 3))), True),
    (np_transpose_view, draw(N(M34), N((4, 3))), False),
    (swapaxes_view, draw(N(M34), N(3)), False),
    (moveaxis_view, draw(N(M34), N(3)), False),
    (reshape_view, draw(N(V6), N(V6)), True),
    (reshape_flat_view, draw(N(M34), N(4)), False),
    (ravel_view, draw(N(M34), N(4)), False),
    (np_ravel_view, draw(N(M34), N(4)), False),
    (ravel_noncontiguous_copies, draw(N(M34), N(4)), False),
    (flatten_copies, draw(N(M34), N(4)), False),
    (real_part_view, draw(N(V6), N(V6)), False),
    (imag_part_view, draw(N(V6), N(V6)), False),
    (view_of_view, draw(N(V6), N(V6)), False),
    (base_write_seen_by_view, draw(N(V6), N(V6)), True),
    (overlapping_views, draw(N(V6), N(V6)), False),
    (base_write_seen_by_transpose, draw(N(M34), N((4, 3))), False),
    (view_outlives_rebind, draw(N(V6), N(V6)), False),
    (call_statement_returns_none, draw(N(V6), N(V6)), True),
    (call_assigned_returns_none, draw(N(V6), N(V6)), False),
    (call_returns_argument_assigned, draw(N(V6), N(V6)), True),
    (call_returns_argument_statement, draw(N(V6), N(V6)), False),
    (call_writes_element, draw(N(V6), N(V6)), False),
    (call_on_view, draw(N(V6), N(V6)), True),
    (call_on_row_view, draw(N(M34), N(4)), False),
    (call_same_array_twice, draw(N(V6), N(V6)), True),
    (call_array_and_alias, draw(N(V6), N(V6)), False),
    (call_rebinding_parameter, draw(N(V6), N(V6)), False),
    (call_nested_helpers, draw(N(V6), N(V6)), False),
    (call_returns_view, draw(N(V6), N(V6)), False),
    (call_float_parameter_rebinds, draw(N(V6), U(())), False),
    (call_in_loop, draw(N(V6), U(V6, -0.5, 0.5)), False),
    (ufunc_out_new_target, draw(N(V6), N(V6)), True),
    (ufunc_out_in_place, draw(N(V6), N(V6)), False),
    (ufunc_out_view, draw(N(V6), N(V6)), False),
    (reduction_out, draw(N(M34), N(M34)), False),
    (copyto_view, draw(N(V6), N(V6)), False),
    (put_writes_target, draw(N(V6), N(V6)), True),
    (place_writes_target, draw(N(V6), N(V6)), False),
    (fill_diagonal_writes_target, draw(N(M33), U(())), True),
    (fill_writes_view, draw(N(V6), U(())), False),
    (overlap_shift_right, draw(N(V6), N(V6)), True),
    (overlap_shift_left, draw(N(V6), N(V6)), False),
    (overlap_reverse, draw(N(V6), N(V6)), False),
    (overlap_iadd, draw(N(V6), N(V6)), True),
    (overlap_assign_transpose, draw(N(M33), N(M33)), False),
    (overlap_iadd_transpose, draw(N(M33), N(M33)), False),
    (overlap_through_alias, draw(N(V6), N(V6)), False),
    (loop_row_alias, draw(N(M34), N(4)), True),
    (loop_prev_alias, draw(N(V6), N(V6), U((), 0.05, 0.2)), True),
    (loop_prev_copy, draw(N(V6), N(V6), U((), 0.05, 0.2)), False),
    (loop_work_array, draw(N(V6), N(V6)), False),
    (loop_view_across_iterations, draw(N(V6), N(V6)), True),
    (loop_ping_pong, draw(N(V6), N(V6)), True),
    (loop_alias_accumulator, draw(N(V6), U(V6, -1.2, 1.2)), False),
    (found_rebind_to_other_rank_view, draw(N(V6), N(V6)), False),
    (found_overlap_shift_in_view, draw(N(V6), N(V6)), False),
    (found_alias_outlives_rebound_partner, draw(N(V6), N(V6)), False),
    (found_same_view_taken_twice, draw(N(V6), N(V6)), False),
    (found_view_taken_again_after_write, draw(N(V6), N(V6)), False),
    (found_rebind_to_same_buffer, draw(N(V6), N(V6)), False),
]
