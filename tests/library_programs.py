"""Scientific programs that lean on NumPy's library (Fourier transforms, order statistics, NaN-ignoring
reductions, interpolation tables, binning, polynomial fits, reduction keywords, positions of nonzero entries),
written as people write them, for tests/test_science_programs.py (joined to science_programs.PROGRAMS).

Each is a function of float arrays (and a few other arguments) returning a float, paired with a maker
``rng -> args`` drawing inputs where it is smooth: no ties in sorted values, no value on a knot or a bin edge.
"""
import numpy as np

DIFFUSIVITY = 0.05
SPECTRAL_STEPS = 6
TABLE_RHO = np.linspace(0.0, 2.0, 9)
TABLE_P = TABLE_RHO ** 2 + 0.3 * TABLE_RHO


def spectral_heat(u0):
    """Periodic diffusion stepped exactly in Fourier space, then a cubic observable."""
    n = u0.shape[0]
    k = 2.0 * np.pi * np.fft.rfftfreq(n, d=1.0 / n)
    decay = np.exp(-DIFFUSIVITY * k ** 2 * 0.01)
    u = u0.copy()
    for _ in range(SPECTRAL_STEPS):
        u = np.fft.irfft(np.fft.rfft(u) * decay, n=n)
    return float(np.sum(u ** 3))


def spectral_burgers_energy(u, nu):
    """One explicit step of viscous Burgers with derivatives taken by FFT; the kinetic energy after it."""
    n = u.shape[0]
    k = np.fft.fftfreq(n, 1.0 / n) * 2.0 * np.pi
    u_hat = np.fft.fft(u)
    ux = np.real(np.fft.ifft(1j * k * u_hat))
    uxx = np.real(np.fft.ifft(-(k ** 2) * u_hat))
    u_next = u + 0.001 * (nu * uxx - u * ux)
    return 0.5 * np.sum(u_next ** 2) / n


def median_centred_fit(w, X, y):
    """Residuals centred by their median (a robust offset), squared."""
    r = y - X @ w
    return np.sum((r - np.median(r)) ** 2)


def quantile_band_loss(w, X, y):
    """Pinball loss at the 80th percentile plus the spread between two quantiles of the predictions."""
    pred = X @ w
    r = y - pred
    pinball = np.mean(np.where(r > 0, 0.8 * r, -0.2 * r))
    lo, hi = np.percentile(pred, 20.0), np.percentile(pred, 80.0)
    return pinball + 0.1 * (hi - lo)


def nan_aware_standardize(x, missing):
    """Columns standardized with NaN-ignoring statistics (missing entries marked NaN and filled with their
    column's mean before any arithmetic: a NaN multiplied by a zero cotangent is NaN, in JAX too)."""
    data = np.where(missing, np.nan, x)
    mu = np.nanmean(data, axis=0)
    sd = np.nanstd(data, axis=0, ddof=1)
    z = (np.where(missing, mu, x) - mu) / sd
    return float(np.sum(z ** 3) + np.nanmax(np.where(missing, np.nan, np.abs(z))) + np.nanmedian(data))


def eos_table_work(rho, dx):
    """Pressure from a tabulated equation of state (linear interpolation), integrated by trapezoids."""
    p = np.interp(rho, TABLE_RHO, TABLE_P)
    return np.trapezoid(p * rho, dx=dx)


def binned_energy(x, weights):
    """Weights summed per bin of x, then the energy of the binned weights."""
    edges = np.linspace(0.0, 1.0, 6)
    bins = np.digitize(x, edges)
    totals = np.bincount(bins, weights=weights, minlength=7)
    return np.sum(totals ** 2)


def polynomial_fit_residual(x, y):
    """Least-squares quadratic fit on a Vandermonde matrix, evaluated with polyval."""
    coeffs = np.linalg.lstsq(np.vander(x, 3), y, rcond=None)[0]
    fitted = np.polyval(coeffs, x)
    return np.sum((fitted - y) ** 2) + np.sum(coeffs ** 2)


def windowed_spectrum_centroid(signal):
    """The centroid of a windowed power spectrum."""
    n = signal.shape[0]
    window = np.sinc(np.linspace(-1.0, 1.0, n))
    power = np.abs(np.fft.rfft(signal * window)) ** 2
    freqs = np.fft.rfftfreq(n, d=0.01)
    return np.sum(freqs * power) / np.sum(power)


def short_range_pairs(pos):
    """A soft repulsion over the pairs closer than a cutoff, found with np.nonzero on the upper triangle."""
    diff = pos[:, None, :] - pos[None, :, :]
    dist2 = np.sum(diff ** 2, axis=-1)
    close = np.triu(dist2 < 1.0, 1)
    i, j = np.nonzero(close)
    return np.sum((1.0 - dist2[i, j]) ** 2)


def masked_statistics(x, mask):
    """Means and extremes over a mask with NumPy's where= and initial= keywords."""
    m = np.mean(x * x, axis=1, where=mask)
    top = np.max(x, axis=0, where=mask, initial=-5.0)
    return np.sum(m) + np.sum(top ** 2) + np.sum(x, where=~mask)


def log_grid_integral(a):
    """An integral on a geometric grid by trapezoids with the grid as x."""
    r = np.geomspace(0.1, 10.0, a.shape[0])
    f = a * np.exp(-r) * r ** 2
    return np.trapezoid(f, x=r) + np.ptp(a) ** 2


# ---- makers ---------------------------------------------------------------------------------------
def _fit_inputs(rng):
    return rng.normal(size=3), rng.normal(size=(12, 3)), rng.normal(size=12)


def _nan_inputs(rng):
    missing = rng.uniform(size=(10, 3)) < 0.2
    missing[:3] = False                       # every column keeps enough values
    return rng.normal(size=(10, 3)), missing


def _binned_inputs(rng):
    x = rng.uniform(0.02, 0.98, size=20)
    x = np.where(np.abs(x * 5.0 - np.round(x * 5.0)) < 0.02, x + 0.05, x)   # away from the edges
    return x, rng.normal(size=20)


def _fit_poly_inputs(rng):
    x = np.sort(rng.uniform(-1.0, 1.0, size=10))
    return x, rng.normal(size=10)


def _pairs_inputs(rng):
    while True:
        pos = rng.uniform(0.0, 2.0, size=(7, 2))
        d2 = np.sum((pos[:, None] - pos[None]) ** 2, axis=-1)
        if np.all(np.abs(d2[np.triu_indices(7, 1)] - 1.0) > 0.05):
            return (pos,)


def _masked_inputs(rng):
    mask = rng.uniform(size=(4, 5)) < 0.7
    mask[:, 0] = True
    mask[0, :] = True
    return rng.normal(size=(4, 5)), mask


PROGRAMS = [
    (spectral_heat, lambda rng: (rng.normal(size=16),)),
    (spectral_burgers_energy, lambda rng: (np.sin(np.linspace(0, 2 * np.pi, 32, endpoint=False)) +
                                           0.1 * rng.normal(size=32), 0.1 + 0.05 * rng.uniform())),
    (median_centred_fit, _fit_inputs),
    (quantile_band_loss, _fit_inputs),
    (nan_aware_standardize, _nan_inputs),
    (eos_table_work, lambda rng: (rng.uniform(0.1, 1.9, size=15), 0.1)),
    (binned_energy, _binned_inputs),
    (polynomial_fit_residual, _fit_poly_inputs),
    (windowed_spectrum_centroid, lambda rng: (rng.normal(size=24),)),
    (short_range_pairs, _pairs_inputs),
    (masked_statistics, _masked_inputs),
    (log_grid_integral, lambda rng: (rng.uniform(0.5, 1.5, size=12),)),
]
