"""The likelihood of a whole data set under the hierarchical model, its own parameters integrated out: the unit of
leave-one-data-set-out comparison.

Why. The conditional log p(x_i | delta_i, sigma_i) is no unit for "how well does the model predict a new data set":
data set i dominates its own delta_i and sigma_i, so leaving it out moves them far (Pareto k > 0.7 for most data
sets). A new data set is drawn from the population, so the unit is

    p(x_i | delta0, sigma0, nu) = int int p(x_i | delta_i, sigma_i) t_nu(delta_i; delta0, sigma0) p(sigma_i)
                                          d delta_i d sigma_i,

with sigma_i ~ U(lo_i, hi_i) (the model's prior) and the population Student-t (nu = inf: normal).

How (pieces of :mod:`pp_corr.hierarchical.exact`). With B_i(d) = ((xbar_i - d)^2 / c_i + S_i / (1 - rho_i)) / 2,
c_i = (1 - rho_i)/n_i + rho_i, the folds' density is K_i sigma^-n_i exp(-B_i / sigma^2), K_i = (2 pi)^(-n_i/2)
(1 - rho_i)^(-(n_i - 1)/2) (1 + (n_i - 1) rho_i)^(-1/2). sigma_i integrates in closed form
(:func:`~pp_corr.hierarchical.exact.log_sigma_integral`), leaving L_i(d); delta_i then integrates against the t
kernel by the exact package's cells and their refinement where the kernel is narrow. For the normal population the
order is swapped: delta_i integrates in closed form given sigma_i (xbar_i ~ N(delta0, sigma0^2 + c_i sigma^2)), and
log sigma_i by Gauss-Legendre over the region where the integrand is within 60 nats of its top.
"""
from __future__ import annotations

import numpy as np

from .exact import ExactGrid
from .exact.likelihoods import build_likelihoods, convolve_draws

# the t kernel's quadrature: cells spanning at most 0.5 nats of log L_i (the exact posterior's 2.5), sub-cells up to
# 64: within 2e-7 of brute-force 2-D quadrature (tests/test_model_variants.py), 0.5 ms a draw at q = 54; FINE (0.1
# nats): within 1e-8, eight times slower
GRID = ExactGrid(cell_nats=0.5, subcells=64, support_nats=60.0, error_estimate=False)
FINE = ExactGrid(cell_nats=0.1, subcells=128, support_nats=60.0, error_estimate=False)
_COARSE = 512  # points over [log lo, log hi] that find where the normal population's integrand lives
_PANELS, _NODES = 24, 10  # Gauss-Legendre panels and nodes per panel over that region
_CHUNK = 256  # draws at a time


def integrated_log_likelihood(xbar, ss, n, rho, delta0, sigma0, nu, sigma_bounds, *, grid=GRID):
    """log p(x_i | delta0, sigma0, nu) for every draw (rows) and data set (columns), delta_i ~ t_nu(delta0, sigma0)
    and sigma_i ~ U(lo_i, hi_i) integrated out (the module docstring says how). ``xbar``, ``ss`` (sum of squared
    deviations), ``n`` and ``rho`` are per data set; ``delta0``, ``sigma0`` and ``nu`` per draw (``nu`` inf: a normal
    population); ``sigma_bounds`` is the pair (lo, hi) of sigma_i's prior, numbers or one per data set. All in one
    unit: the result is a density of the folds in that unit. ``grid`` is the t kernel's quadrature (:data:`GRID`,
    or :data:`FINE` for 1e-8).

    >>> from scipy import integrate, stats
    >>> xbar, ss, n, rho = np.array([0.3]), np.array([2.0]), np.array([6]), np.array([0.2])
    >>> value = integrated_log_likelihood(xbar, ss, n, rho, [0.0], [0.5], [np.inf], (0.1, 5.0))[0, 0]
    >>> c = (1 - 0.2) / 6 + 0.2
    >>> def joint(sigma):  # delta_i integrated by hand: xbar ~ N(delta0, sigma0^2 + c sigma^2)
    ...     k = (2 * np.pi) ** -3 * 0.8 ** -2.5 * 2.0 ** -0.5 * sigma ** -6 * np.exp(-2.0 / 0.8 / (2 * sigma ** 2))
    ...     return k * np.sqrt(2 * np.pi * c) * sigma * stats.norm.pdf(0.3, 0, np.sqrt(0.25 + c * sigma ** 2)) / 4.9
    >>> bool(abs(value - np.log(integrate.quad(joint, 0.1, 5.0, epsabs=0, epsrel=1e-12)[0])) < 1e-9)
    True
    """
    xbar, ss, n, rho = (np.atleast_1d(np.asarray(v, dtype=float)) for v in (xbar, ss, n, rho))
    xbar, ss, n, rho = np.broadcast_arrays(xbar, ss, n, rho)
    delta0, sigma0, nu = np.broadcast_arrays(*(np.atleast_1d(np.asarray(v, dtype=float)) for v in (delta0, sigma0, nu)))
    lo, hi = (np.broadcast_to(np.asarray(v, dtype=float), xbar.shape) for v in sigma_bounds)
    for name, values, bad in (("n", n, n < 2), ("rho", rho, (rho < 0) | (rho >= 1)), ("ss", ss, ss < 0),
                              ("sigma0", sigma0, ~(sigma0 > 0)), ("nu", nu, ~(nu > 0)),
                              ("sigma_bounds", lo, ~((lo > 0) & (lo < hi)))):
        if np.any(bad):
            raise ValueError(f"{name}: out of range ({values[bad][:3].tolist()}); need n >= 2, 0 <= rho < 1, ss >= 0, "
                             "sigma0 > 0, nu > 0 and 0 < lo < hi")
    log_k = (-0.5 * n * np.log(2 * np.pi) - 0.5 * (n - 1) * np.log1p(-rho) - 0.5 * np.log1p((n - 1) * rho)
             - np.log(hi - lo))
    out = np.empty((len(delta0), len(xbar)))
    normal = np.isinf(nu)
    if normal.any():
        out[normal] = _normal_population(xbar, ss, n, rho, lo, hi, delta0[normal], sigma0[normal])
    if (~normal).any():
        lik = build_likelihoods(xbar, ss, n, rho, lo, hi, (0.0, 0.0), grid)
        rows = np.flatnonzero(~normal)
        for start in range(0, len(rows), _CHUNK):  # the kernel's working arrays stay small
            chunk = rows[start : start + _CHUNK]
            g = convolve_draws(lik, sigma0[chunk], delta0[chunk], nu[chunk])[..., 0]
            with np.errstate(divide="ignore"):
                out[chunk] = lik.log_top + np.log(g)
    return out + log_k


def _normal_population(xbar, ss, n, rho, lo, hi, delta0, sigma0):
    """log int p(x_i | d, sigma) N(d; delta0, sigma0) dd d sigma without K_i / (hi - lo): per draw (rows) and data
    set, u = log sigma from Gauss-Legendre panels over the region within 60 nats of the integrand's top (found on a
    grid of :data:`_COARSE` points over [log lo, log hi])."""
    c = (1 - rho) / n + rho
    spread = ss / (1 - rho)

    def log_f(u, d0, s0):  # u (..., q, points), d0 and s0 (draws, 1, 1)
        var = s0**2 + c[:, None] * np.exp(2 * u)
        return (0.5 * np.log(2 * np.pi * c[:, None]) - (n[:, None] - 2) * u - 0.5 * spread[:, None] * np.exp(-2 * u)
                - 0.5 * np.log(2 * np.pi * var) - 0.5 * (xbar[:, None] - d0) ** 2 / var)

    steps = np.linspace(0.0, 1.0, _COARSE)
    coarse = np.log(lo)[:, None] + (np.log(hi) - np.log(lo))[:, None] * steps  # (q, points)
    width = (np.log(hi) - np.log(lo)) / (_COARSE - 1)
    x, w = np.polynomial.legendre.leggauss(_NODES)
    panel = (np.arange(_PANELS)[:, None] + (x + 1) / 2).ravel() / _PANELS  # (panels * nodes,) in [0, 1]
    weights = np.tile(w / 2, _PANELS) / _PANELS
    out = np.empty((len(delta0), len(xbar)))
    for start in range(0, len(delta0), _CHUNK):
        rows = slice(start, start + _CHUNK)
        d0, s0 = delta0[rows, None, None], sigma0[rows, None, None]
        values = log_f(coarse, d0, s0)  # (draws, q, points)
        top = values.max(axis=-1, keepdims=True)
        inside = values > top - 60
        first = np.argmax(inside, axis=-1)
        last = _COARSE - 1 - np.argmax(inside[..., ::-1], axis=-1)
        a = np.maximum(coarse[:, 0] + (first - 1) * width, np.log(lo))[..., None]
        b = np.minimum(coarse[:, 0] + (last + 1) * width, np.log(hi))[..., None]
        u = a + (b - a) * panel
        logs = log_f(u, d0, s0)
        peak = logs.max(axis=-1, keepdims=True)
        out[rows] = (peak[..., 0] + np.log(np.sum(np.exp(logs - peak) * weights, axis=-1)) + np.log(b - a)[..., 0])
    return out
