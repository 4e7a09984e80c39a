"""Twins of NumPy's array constructions and small algorithms, written in plain NumPy.

Sequences and constant arrays:

- ``np.logspace(start, stop, num, endpoint, base, dtype, axis)``: ``base ** np.linspace(...)``; ``start`` and
  ``stop`` numbers (``axis`` 0 or -1), differentiated in ``start``, ``stop`` and ``base``.
- ``np.geomspace(start, stop, num, endpoint, dtype, axis)``: ``start * (stop / start) ** t`` for ``t`` evenly
  spaced in [0, 1], its ends exactly ``start`` and ``stop`` as in NumPy; numbers ``start``, ``stop``.
- ``np.tri(N, M, k, dtype)``: ones on and below the ``k``-th diagonal (a constant: no derivative).
- ``np.tril_indices(n, k, m)``, ``np.triu_indices(n, k, m)``: the rows and columns of that triangle (integers);
  unpack them (``r, c = np.triu_indices(n, 1)`` then ``a[r, c]``).
- ``np.vander(x, N, increasing)``: the running products of ``x`` (NumPy's ``multiply.accumulate``).

Joins and cuts:

- ``np.append(arr, values, axis)``: without an axis both are flattened; with one they are joined along it.
- ``np.insert(arr, obj, values, axis)``: ``obj`` one integer position (a constant or computed, negative ones
  from the end; out of range an IndexError), ``values`` shaped as NumPy shapes them for a single position.
  Positions written as a tuple are refused by name (``check``); a ``slice`` object is refused where it is
  written (``slice`` has no rule).
- ``np.delete(arr, obj, axis)``: ``obj`` an integer or an array of integer positions (negative ones too), or a
  boolean mask array; positions written as a tuple are refused by name, a ``slice`` where it is written.

Small algorithms:

- ``np.vdot(a, b)``: the sum of ``conj(a) * b`` over the flattened arrays.
- ``np.trapezoid(y, x, dx, axis)`` (``np.trapz`` where NumPy has it): ``x`` a vector along the axis or an array
  of ``y``'s shape, else the spacing ``dx``.
- ``np.polyval(p, x)``: Horner's rule as NumPy runs it; ``p`` an array (coefficients written in the call as
  a tuple are refused by name: pass ``np.array([...])``).
- ``np.unwrap(p, discont, axis, period)``: jumps above ``discont`` corrected by multiples of ``period``
  (numbers written in the call); the corrections are piecewise constant, so the derivative is the identity.

``np.column_stack``, ``np.broadcast_to``, ``np.linalg.multi_dot``, ``np.cumulative_sum`` and
``np.cumulative_prod`` are rules (``transpyle/rules/constructions.py``).
"""
import numpy as np

from . import TwinRefusal, VARIABLE, refuse_unless, twin


# ---- sequences ------------------------------------------------------------------------------------------
def _check_space(args, what):
    refuse_unless(args, "axis", (0, -1), f"{what} of numbers")


@twin(np.logspace, check=lambda args: _check_space(args, "np.logspace"))
def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """``base`` to the powers evenly spaced from ``start`` to ``stop``."""
    powers = np.power(base, np.linspace(start, stop, num, endpoint=endpoint))
    if dtype is None:
        return powers
    return powers.astype(dtype)


@twin(np.geomspace, check=lambda args: _check_space(args, "np.geomspace"))
def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """Numbers from ``start`` to ``stop`` in a constant ratio."""
    fraction = np.linspace(0.0, 1.0, num, endpoint=endpoint)
    out = start * (stop / start) ** fraction
    # the ends exactly: NumPy writes start and stop over its computed first and last values
    if num > 0:
        out[0] = start
    if num > 1 and endpoint:
        out[-1] = stop
    if dtype is None:
        return out
    return out.astype(dtype)


def _no_like(args):
    if args.get("like") is not None:
        raise TwinRefusal("np.tri with like= is not supported", hint="leave like= out")


@twin(np.tri, check=_no_like)
def tri(N, M=None, k=0, dtype=float, like=None):
    """Ones where the column is at most the row plus ``k``, zeros elsewhere."""
    if M is None:
        columns = N
    else:
        columns = M
    below = np.arange(N)[:, None] + k >= np.arange(columns)[None, :]
    return below.astype(dtype)


@twin(np.tril_indices)
def tril_indices(n, k=0, m=None):
    """The rows and the columns of the entries on and below the ``k``-th diagonal, row by row."""
    return _triangle(n, k, m, False)


@twin(np.triu_indices)
def triu_indices(n, k=0, m=None):
    """The rows and the columns of the entries on and above the ``k``-th diagonal, row by row."""
    return _triangle(n, k, m, True)


def _triangle(n, k, m, upper):
    """The rows and the columns of one triangle of an n x m (n x n) grid, from the ``k``-th diagonal."""
    if m is None:
        columns = n
    else:
        columns = m
    if upper:
        flat = np.flatnonzero(np.arange(n)[:, None] + k <= np.arange(columns)[None, :])
    else:
        flat = np.flatnonzero(np.arange(n)[:, None] + k >= np.arange(columns)[None, :])
    return flat // columns, flat % columns


@twin(np.vander)
def vander(x, N=None, increasing=False):
    """The powers of the vector ``x``, highest first unless ``increasing``."""
    if N is None:
        columns = x.shape[0]
    else:
        columns = N
    # as NumPy: a column of ones, then x repeated, multiplied along the row (x**0 is 1 for every x)
    factors = np.empty((x.shape[0], columns), dtype=x.dtype)
    factors[:, :1] = 1
    factors[:, 1:] = x[:, None]
    powers = np.cumprod(factors, axis=1)
    if increasing:
        return powers
    return powers[:, ::-1]


# ---- joins and cuts -----------------------------------------------------------------------------------
@twin(np.append)
def append(arr, values, axis=None):
    """``values`` after ``arr``: both flattened without an axis, joined along ``axis`` with one."""
    if axis is None:
        return np.concatenate((np.ravel(arr), np.ravel(values)))
    return np.concatenate((arr, values), axis=axis)


def _check_insert(args):
    if not (isinstance(args["obj"], int) and not isinstance(args["obj"], bool)) and args["obj"] is not VARIABLE:
        raise TwinRefusal(f"np.insert at {args['obj']!r} is not supported",
                          hint="insert at one integer position")


@twin(np.insert, check=_check_insert)
def insert(arr, obj, values, axis=None):
    """``values`` inserted before position ``obj`` (one integer) along ``axis`` (of the flattened array
    without one)."""
    if axis is None:
        front = np.ravel(arr)
    else:
        front = np.moveaxis(arr, axis, 0)
    given = np.array(values, dtype=arr.dtype)
    # NumPy gives values at least the rank of the array (leading ones) and moves their first axis to
    # ``axis``: with the array's axis moved to the front, that first axis counts the new slices and the
    # others broadcast against the array's (a product with ones keeps every value and the dtype)
    block = given * np.ones_like(front[:1])
    if obj < -front.shape[0] or obj > front.shape[0]:
        raise IndexError("np.insert: the position is out of bounds")
    joined = np.concatenate((front[:obj], block, front[obj:]), axis=0)
    if axis is None:
        return joined
    return np.moveaxis(joined, 0, axis)


def _check_delete(args):
    if isinstance(args["obj"], tuple):
        raise TwinRefusal(f"np.delete at the positions {args['obj']!r} written as a tuple is not supported",
                          hint="pass the positions as an array: np.array([...])")


@twin(np.delete, check=_check_delete)
def delete(arr, obj, axis=None):
    """``arr`` without the positions ``obj`` (an integer, integers or a boolean mask) along ``axis`` (of the
    flattened array without one)."""
    if axis is None:
        flat = np.ravel(arr)
        kept = np.ones(flat.shape[0], dtype=np.bool_)
        kept[obj] = False
        return np.take(flat, np.flatnonzero(kept))
    kept = np.ones(arr.shape[axis], dtype=np.bool_)
    kept[obj] = False
    return np.take(arr, np.flatnonzero(kept), axis=axis)


# ---- small algorithms --------------------------------------------------------------------------------
@twin(np.vdot)
def vdot(a, b):
    """The dot product of the flattened arrays, ``a`` conjugated."""
    return np.sum(np.conj(np.ravel(a)) * np.ravel(b))


@twin(np.trapezoid, getattr(np, "trapz", None))
def trapezoid(y, x=None, dx=1.0, axis=-1):
    """The trapezoidal rule along ``axis``: over the points ``x`` (a vector along the axis, or an array of
    ``y``'s shape), else over the even spacing ``dx``."""
    along = np.moveaxis(y, axis, -1)
    ends = along[..., 1:] + along[..., :-1]
    if x is None:
        return np.sum(dx * ends / 2.0, axis=-1)
    if x.ndim == 1:
        steps = np.diff(x)
    else:
        steps = np.diff(np.moveaxis(x, axis, -1), axis=-1)
    return np.sum(steps * ends / 2.0, axis=-1)


def _check_polyval(args):
    if isinstance(args["p"], tuple):
        raise TwinRefusal("np.polyval of coefficients written in the call is not supported",
                          hint="pass the coefficients as an array: np.polyval(np.array([...]), x)")


@twin(np.polyval, check=_check_polyval)
def polyval(p, x):
    """The polynomial with coefficients ``p`` (highest power first) at ``x``, by Horner's rule."""
    y = np.zeros_like(x)
    for coefficient in p:
        y = y * x + coefficient
    return y


def _check_unwrap(args):
    if args["period"] is VARIABLE or args["discont"] is VARIABLE:
        raise TwinRefusal("np.unwrap with a period or discont computed at run time is not supported",
                          hint="give them as numbers written in the call")


@twin(np.unwrap, check=_check_unwrap)
def unwrap(p, discont=None, axis=-1, period=2 * np.pi):
    """``p`` with each jump between neighbours along ``axis`` larger than ``discont`` (half the period by
    default) brought back by a multiple of ``period``. The corrections are piecewise constant: the derivative
    is the identity."""
    if discont is None:
        limit = period / 2
    else:
        limit = discont
    along = np.moveaxis(p, axis, -1)
    steps = along[..., 1:] - along[..., :-1]
    # each step moved into [-period/2, period/2); a step of exactly -period/2 going up stays +period/2
    moved = np.mod(steps + period / 2, period) - period / 2
    moved = np.where((moved == -period / 2) & (steps > 0), period / 2, moved)
    correction = np.where(np.abs(steps) < limit, 0.0, moved - steps)
    out = np.copy(along) * 1.0
    out[..., 1:] = along[..., 1:] + np.cumsum(correction, axis=-1)
    return np.moveaxis(out, -1, axis)
