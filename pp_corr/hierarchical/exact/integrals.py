"""The exact posterior's one-dimensional integrals in closed form or by fixed rules: the sigma_i integral (step 1 of
:mod:`pp_corr.hierarchical.exact`), the prior of nu with alpha and beta integrated out (step 3), and the
Gauss-Legendre rules and Legendre interpolants the grids are built from."""
from __future__ import annotations

import functools

import numpy as np
from scipy import special


def log_sigma_integral(b, n, lo, hi):
    """log int_lo^hi s^-n exp(-b / s^2) ds, elementwise, for b >= 0, n > 1 and 0 < lo < hi.

    Accurate in relative terms from b = 0 (where it is log((lo^(1-n) - hi^(1-n)) / (n - 1))) to b far above hi^2,
    and for lo close to hi.

    >>> import math
    >>> round(float(log_sigma_integral(0.0, 3, 1.0, 2.0)), 12) == round(math.log((1 - 2.0**-2) / 2), 12)
    True
    >>> small, large = log_sigma_integral([1e-300, 1e10], 10, 0.01, 1000.0)  # the first is the b = 0 limit
    >>> round(float(small), 6) == round(math.log((0.01**-9 - 1000.0**-9) / 9), 6), round(float(large), 2)
    (True, -10072.07)
    """
    b, n, lo, hi = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (b, n, lo, hi)))
    k = (n - 1) / 2
    out = np.empty(b.shape)
    xa, xb = b / lo**2, b / hi**2  # xa > xb
    low, high = xa <= k + 1, xb > k + 1
    if low.any():  # F(lo) - F(hi), F(s) = int_s^inf
        la, lb = _log_upper_part(k[low], xa[low], lo[low]), _log_upper_part(k[low], xb[low], hi[low])
        out[low] = la + np.log(-np.expm1(lb - la))
    if high.any():  # G(hi) - G(lo), G(s) = int_0^s
        ga, gb = _log_lower_part(k[high], xa[high], lo[high]), _log_lower_part(k[high], xb[high], hi[high])
        out[high] = gb + np.log(-np.expm1(ga - gb))
    middle = ~low & ~high
    if middle.any():  # Gamma(k) B^-k [P(k, xa) - P(k, xb)] / 2, neither term small
        km, bm = k[middle], b[middle]
        out[middle] = (special.gammaln(km) - np.log(2.0) - km * np.log(bm)
                       + np.log(special.gammainc(km, xa[middle]) - special.gammainc(km, xb[middle])))
    return out[()]


def _log_upper_part(k, x, s):
    """log int_s^inf u^-n exp(-b / u^2) du for x = b / s^2 <= k + 1 (k = (n - 1) / 2): s^-2k e^-x
    sum_j x^j / ((k + 1) ... (k + j)) / (2k), the series of the lower incomplete gamma function written without
    b^-k (finite at b = 0) and summed while its terms matter."""
    term, total = np.ones_like(x), np.ones_like(x)
    for j in range(1, 100_000):
        term *= x / (k + j)
        total += term
        if np.all(term < 1e-17 * total):
            break
    return -np.log(2 * k) - 2 * k * np.log(s) - x + np.log(total)


def _log_lower_part(k, x, s):
    """log int_0^s u^-n exp(-b / u^2) du for x = b / s^2 > k + 1: s^-2k e^-x h / 2 with h the continued fraction
    of Gamma(k, x) e^x x^-k (modified Lentz), which converges fast there."""
    floor = 1e-300
    b = x + 1 - k
    c, d = np.full_like(x, 1 / floor), 1 / b
    h = d.copy()
    for i in range(1, 100_000):
        an = -i * (i - k)
        b = b + 2
        d = an * d + b
        d = 1 / np.where(np.abs(d) < floor, floor, d)
        c = b + an / c
        c = np.where(np.abs(c) < floor, floor, c)
        step = d * c
        h *= step
        if np.all(np.abs(step - 1) < 4e-16):
            break
    return -np.log(2.0) - 2 * k * np.log(s) - x + np.log(h)


def nu_prior_density(nu, alpha=(0.5, 5.0), beta=(0.05, 0.15), points=48):
    """Density of nu when nu - 1 ~ Gamma(alpha, rate beta), alpha ~ U(alpha), beta ~ U(beta).

    beta integrates in closed form; alpha by Gauss-Legendre with ``points`` nodes.

    >>> t = np.linspace(-12, 12, 20001)  # log(nu - 1)
    >>> mass = np.trapezoid(nu_prior_density(1 + np.exp(t)) * np.exp(t), t)
    >>> bool(abs(mass - 1) < 1e-4)  # the rest lies below nu = 1 + e^-12
    True
    """
    x = np.asarray(nu, dtype=float) - 1
    a, wa = gauss_legendre(alpha[0], alpha[1], points)
    xs = np.maximum(x, 1e-300)[..., None]
    inner = a * (special.gammainc(a + 1, beta[1] * xs) - special.gammainc(a + 1, beta[0] * xs))
    density = (inner @ wa) / xs[..., 0] ** 2 / ((alpha[1] - alpha[0]) * (beta[1] - beta[0]))
    return np.where(x > 0, density, 0.0)[()]


def nu_prior_cdf(nu, alpha=(0.5, 5.0), beta=(0.05, 0.15), points=48):
    """P(nu' <= nu) under the prior of :func:`nu_prior_density` (2-D Gauss-Legendre over alpha and beta).

    >>> round(float(nu_prior_cdf(2.0)), 4)
    0.029
    """
    x = np.maximum(np.asarray(nu, dtype=float) - 1, 0.0)
    a, wa = gauss_legendre(alpha[0], alpha[1], points)
    b, wb = gauss_legendre(beta[0], beta[1], points)
    p = special.gammainc(a[:, None], b[None, :] * x[..., None, None])
    return (np.einsum("...ij,i,j->...", p, wa, wb) / ((alpha[1] - alpha[0]) * (beta[1] - beta[0])))[()]


def nu_prior_functions(alpha, beta, distribution=None):
    """The prior of nu as its (cdf, density, quantile) functions of nu: the Gamma mixture of
    :func:`nu_prior_density` with hyperprior ranges ``alpha`` and ``beta``, or ``distribution``, a frozen
    scipy.stats law of nu - 1 on x > 0 (then ``alpha`` and ``beta`` are not used).

    >>> from scipy import stats
    >>> cdf, density, quantile = nu_prior_functions(None, None, stats.expon(scale=29))
    >>> round(float(cdf(30.0)), 4), round(float(quantile(np.array([0.5]))[0]), 4)
    (0.6321, 21.1013)
    """
    if distribution is None:
        return (lambda nu: nu_prior_cdf(nu, alpha, beta), lambda nu: nu_prior_density(nu, alpha, beta),
                lambda u: nu_prior_quantile(u, alpha, beta))
    return (lambda nu: distribution.cdf(np.asarray(nu) - 1), lambda nu: distribution.pdf(np.asarray(nu) - 1),
            lambda u: 1 + distribution.ppf(u))


def nu_prior_quantile(u, alpha, beta):
    """nu with F(nu) = u for the prior CDF F (bisection in log(nu - 1), all u at once)."""
    low, high = np.full(u.shape, -40.0), np.full(u.shape, 40.0)
    for _ in range(56):
        middle = 0.5 * (low + high)
        below = nu_prior_cdf(1 + np.exp(middle), alpha, beta, points=24) < u
        low, high = np.where(below, middle, low), np.where(below, high, middle)
    return 1 + np.exp(0.5 * (low + high))


@functools.lru_cache(maxsize=None)
def legendre_rule(points):
    """The Gauss-Legendre nodes and weights of [-1, 1] with ``points`` nodes (cached, read-only)."""
    x, w = np.polynomial.legendre.leggauss(points)
    x.flags.writeable = w.flags.writeable = False
    return x, w


def gauss_legendre(a, b, points):
    """The Gauss-Legendre nodes and weights of [a, b]."""
    x, w = legendre_rule(points)
    return 0.5 * (b - a) * x + 0.5 * (a + b), 0.5 * (b - a) * w


@functools.lru_cache(maxsize=None)
def _legendre_basis(n):
    """(2k + 1) / 2 w_j P_k(x_j) for the n-point Gauss-Legendre rule: values at the nodes -> Legendre series."""
    x, w = legendre_rule(n)
    basis = np.polynomial.legendre.legvander(x, n - 1) * (2 * np.arange(n) + 1) / 2 * w[:, None]
    basis.flags.writeable = False
    return basis


def legendre_values(n, u):
    """(n, len(u)): the Lagrange basis of the n Gauss-Legendre nodes at u in [-1, 1]."""
    return _legendre_basis(n) @ np.polynomial.legendre.legvander(u, n - 1).T


def legendre_integrals(n, u):
    """(n, len(u)): the Lagrange basis of the n Gauss-Legendre nodes integrated from -1 to u."""
    p = np.polynomial.legendre.legvander(u, n)  # P_0 .. P_n at u
    k = np.arange(n)
    below = np.concatenate([np.zeros((len(u), 1)), p[:, : n - 1]], axis=1)  # P_(k-1)
    integral = (p[:, 1:] - below) / (2 * k + 1)  # int_-1^u P_k = (P_(k+1) - P_(k-1)) / (2k + 1) for k >= 1
    integral[:, 0] = u + 1
    return _legendre_basis(n) @ integral.T


def legendre_series(values, a, b):
    """The Legendre series on [a, b] interpolating ``values`` at its Gauss-Legendre nodes."""
    x, w = np.polynomial.legendre.leggauss(len(values))
    basis = np.polynomial.legendre.legvander(x, len(values) - 1)  # (nodes, degree)
    coefficients = (2 * np.arange(len(values)) + 1) / 2 * ((w * values) @ basis)
    return np.polynomial.legendre.Legendre(coefficients, domain=[a, b])
