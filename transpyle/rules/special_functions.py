"""Special functions (``scipy.special.erf``, ``gammaln`` and ``digamma``, and ``transpyle.scipy.special``'s):
elementwise primitives computed by the run-time helpers of ``runtime/special_functions.py``.

The derivative of erf is ``2/sqrt(pi) exp(-x^2)``, of gammaln the digamma function, of the digamma the
trigamma function; the trigamma's own derivative (a fourth derivative of gammaln) has no rule and is
refused at the user's line. ``math.erf`` and ``math.lgamma`` are not listed: to Numba they take numbers
only, where these helpers take arrays too.
"""
from .. import runtime as rt
from . import define
from .common import StaticError, floating

def _scipy(name):
    """scipy.special's function ``name``, by name: SciPy is imported only where the user's code does
    (transpyle.scipy.special works without it)."""
    return [f"scipy.special.{name}"]


def _no_derivative(k, s):
    raise StaticError("the derivative of the trigamma function (a third derivative of gammaln) is not supported",
                      hint="take at most two derivatives of gammaln, or one of digamma")


define("rt.erf", [rt.erf] + _scipy("erf"), "x", floating("x"), {"x": "g * 1.1283791670955126 * np.exp(-(x * x))"},
       broadcasts=True)
define("rt.gammaln", [rt.gammaln] + _scipy("gammaln"), "x", floating("x"), {"x": "g * rt.digamma(x)"},
       broadcasts=True)
define("rt.digamma", [rt.digamma] + _scipy("digamma") + _scipy("psi"), "x", floating("x"),
       {"x": "g * rt.trigamma(x)"}, broadcasts=True)
define("rt.trigamma", [rt.trigamma], "x", floating("x"), _no_derivative, broadcasts=True, jvp=_no_derivative,
       diff=("x",))
