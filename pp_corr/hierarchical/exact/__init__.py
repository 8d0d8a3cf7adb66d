"""The hierarchical model's posterior by deterministic quadrature: a reference for the MCMC fits.

The model, in the unit the caller chose. Data set i (i = 1..q) has n_i >= 2 fold differences with mean xbar_i and
sum of squared deviations S_i, fold correlation rho_i in [0, 1) and c_i = (1 - rho_i) / n_i + rho_i:

    xbar_i | delta_i, sigma_i ~ N(delta_i, c_i sigma_i^2),   S_i / ((1 - rho_i) sigma_i^2) ~ chi^2(n_i - 1)
    delta_i ~ t_nu(delta0, sigma0),   sigma_i ~ U(lo_i, hi_i)
    delta0 ~ U(-D, D),   sigma0 ~ U(0, U),   nu - 1 ~ Gamma(alpha, rate beta),   alpha ~ U(a1, a2),   beta ~ U(b1, b2)

As a function of (delta_i, sigma_i) the likelihood of data set i is sigma_i^-n_i exp(-B_i / sigma_i^2) with
B_i = ((xbar_i - delta_i)^2 / c_i + S_i / (1 - rho_i)) / 2 (the intraclass normal density of the folds, whose
sufficient statistics are xbar_i and S_i).

1. sigma_i integrates out in closed form. With t = B / sigma^2 and k = (n - 1) / 2,

       int_lo^hi sigma^-n exp(-B / sigma^2) d sigma = Gamma(k) B^-k [P(k, B / lo^2) - P(k, B / hi^2)] / 2,

   P the regularised lower incomplete gamma function (:func:`log_sigma_integral`). Written as F(lo) - F(hi) with
   F(s) = int_s^inf, it is (s^-2k e^-x sum_j x^j / ((k + 1) ... (k + j))) / (2k) with x = B / s^2, which stays
   finite as B -> 0 (it tends to (lo^(1-n) - hi^(1-n)) / (n - 1)); far in the upper tail it is written through the
   continued fraction of the upper incomplete gamma function instead. This gives L_i(delta_i), a bump at xbar_i.

2. delta_i integrates against the population's t density: g_i(delta0, sigma0, nu) = int t_nu(d; delta0, sigma0)
   L_i(d) dd. L_i lives on cells of its own, symmetric about xbar_i: at most half the bump's scale w_i wide
   (half the distance to xbar_i in the tails) and spanning at most 2.5 nats of log L_i (more where L_i is already
   e^-10 below its top); L_i is cut where it is e^-50 below it. On every cell a five-point Gauss-Legendre rule
   integrates kernel * L_i (exact to degree 9). Where the kernel is not smooth on a cell (sigma0 comparable with
   or below the cell: the funnel), as judged by a bound on the rule's error from the kernel's log-slope, and the
   cell can matter (for each nu apart), it is cut in halves, and those halves that are still not smooth again,
   down to 16 sub-cells, each with a three-point rule whose bound is its share of the cell's; on the finest
   sub-cells that are still not smooth L_i is replaced by its quadratic through the sub-cell's nodes and
   integrated against the kernel by a ten-point rule (kernel at least as wide as the sub-cell) or exactly, with
   the partial moments of the t density: with A(z) = (nu + z^2) f_nu(z), A' = -(nu - 1) z f_nu, so
   int z f = -[A] / (nu - 1) and int z^2 f = (nu int f - [z A]) / (nu - 2), int f being differences of
   the t CDF. A sigma0 far below every cell is thus exact: g_i -> L_i(delta0). The same sums with (d - xbar_i)
   and (d - xbar_i)^2 and with d cut at the rope and at 0 (cell edges) give each delta_i's conditional moments
   and tail probabilities.

3. alpha and beta integrate into the prior of nu: beta in closed form,
   int_b1^b2 beta^a e^(-beta x) d beta = x^-(a+1) Gamma(a + 1) [P(a + 1, b2 x) - P(a + 1, b1 x)], so with x = nu - 1
   p(nu) = x^-2 / ((a2 - a1)(b2 - b1)) int_a1^a2 a [P(a + 1, b2 x) - P(a + 1, b1 x)] da (Gauss-Legendre in a).

4. The rest is a 3-D integral over (delta0, log sigma0, log(nu - 1)) of U(delta0) U(sigma0) p(nu) prod_i g_i:
   - log(nu - 1): Gauss-Legendre panels (the likelihood changes smoothly with it), at most 1.5 prior sds wide and
     cut at nu = 2 (for P(nu < 2)); the prior mass below nu = 1.001 sits on one node there (the likelihood barely
     moves between the Cauchy kernel and nu = 1.001).
   - delta0: given sigma0, segments in v with delta0 = c + s sinh(v) centred on the conditional posterior (found
     from the values themselves, re-built until their ends are e^-27 below the top and the peak resolved): the
     trapezoid rule in v where the density has decayed at both ends (spectrally accurate, heavy tails included),
     and the sinc interpolant for partial integrals (P(delta0 > 0), quantiles, the regions of a new data set).
     Where a segment ends on a bound of delta0's prior, or where sigma0 is so small that summands step at the
     rope's ends or 0 (P(delta_new < r_lo), P(delta_i > 0) as functions of delta0), Gauss-Legendre pieces
     between those points and their Legendre interpolants instead.
   - log sigma0: Gauss-Legendre panels over the region where a cheap pilot (each g_i a t density) puts the
     posterior, cut at sigma0 = 0.01 and where the rope stops being the most probable region at its centre (a
     kink); extended while the tail beyond an end panel holds mass (unless log phi is already straight there,
     below 1e-3 of the smallest w_i), split while a panel's error estimate (its highest Legendre coefficients,
     extrapolated) is above 1e-4 of the total. The grid reaches 1e-6 of the unit at most; the tails beyond the
     end panels are the exponential through the two end nodes (below: at least like e^t, as there prod g_i no
     longer depends on sigma0).
   Everything is summed in logs (the largest term factored out).

A new data set, delta_new ~ t_nu(delta0, sigma0), has P(delta_new < r_lo) = T_nu((r_lo - delta0) / sigma0) given
the hyperparameters; its posterior mean is a sum over the grid. The region with the largest probability changes
with delta0 at most twice for given (sigma0, nu) (the rope's probability is symmetric and unimodal about the
rope's centre), so the probability of each region being the largest is the conditional CDF of delta0 at those
points. Given the hyperparameters the delta_i are independent, so the count of delta_i > 0 is Poisson-binomial.

The numerical error is estimated by the same computation on a grid half as fine in every direction.

Draws (:func:`exact_draws`) follow the same grid, each level given the one above, without evaluating anything
new but each data set's L_i: log sigma0 from the interpolant of its density within a panel (exponential tails
beyond the panels); (delta0, nu) from the conditional law at one of the two sigma0 nodes around it, taken in
proportion to their shares of the joint density's linear interpolant there; delta0 from that node's conditional
density and log(nu - 1) from its nu nodes' densities at that delta0 (local polynomial interpolants of the log
densities through the nodes); each delta_i from L_i(d) t_nu(d; delta0, sigma0), exact at the union of a grid
around xbar_i at L_i's scale and one around delta0 at sigma0's, piecewise exponential in between; and
u = sigma_i^-2 given delta_i from u^(k - 1) exp(-B_i u) on [1 / hi^2, 1 / lo^2], k = (n_i - 1) / 2, by the
incomplete gamma function's inverse.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, replace

import numpy as np
from scipy import special

from ..._args import as_generator, as_rope, check_choice, check_count, check_real
from ...pairwise.intraclass import real_array
from ...pairwise.poisson_binomial import PoissonBinomial
from .convolution import COARSE, GAUSS, dealt_order, five_point_rule, log_t_constant, refine_cells

_SIGMA0_FLOOR = 1e-6  # the sigma0 grid reaches this many units (times U when U < 1)
_NU_LUMP = 1e-3  # prior mass of nu - 1 below this sits on one node
_NU_TAIL = 1e-12  # prior mass of nu left out at either end
_DELTA0_NATS = 30.0  # a delta0 segment ends where the conditional density is this far below its top
_SIGMA0_NATS = 15.0  # the pilot's sigma0 region ends where the density of log sigma0 is this far below
_PEAK_NATS = 2.0  # the half-width of a peak is where it falls this far (sets the scale of a delta0 segment)
_REBUILDS = 6  # a sigma0 node's delta0 segments are evaluated at most this many times
_CELLS_PER_SCALE = 2.0  # cells at most this many per bump scale (per distance in the tails)
METHODS = ("auto", "mcmc", "exact")  # hierarchical_test: MCMC with this module's posterior as fallback, or one alone
SUMMARY_FIELDS = ("delta0_mean", "delta0_sd", "delta0_p_positive", "delta0_q025", "delta0_q975",
                  "p_left", "p_rope", "p_right", "win_left", "win_rope", "win_right",
                  "nu_mean", "nu_p_below_2", "sigma0_median", "sigma0_p_below_0_01")
DATASET_FIELDS = ("delta_mean", "delta_sd", "delta_p_left", "delta_p_rope", "delta_p_right", "delta_p_positive")
PROBABILITY_FIELDS = ("delta0_p_positive", "p_left", "p_rope", "p_right", "win_left", "win_rope", "win_right",
                      "nu_p_below_2", "sigma0_p_below_0_01", "delta_p_left", "delta_p_rope", "delta_p_right",
                      "delta_p_positive")


def log_sigma_integral(b, n, lo, hi):
    """log int_lo^hi s^-n exp(-b / s^2) ds, elementwise, for b >= 0, n > 1 and 0 < lo < hi.

    Accurate in relative terms from b = 0 (where it is log((lo^(1-n) - hi^(1-n)) / (n - 1))) to b far above hi^2,
    and for lo close to hi.

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
    a, wa = _gauss_legendre(alpha[0], alpha[1], points)
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
    a, wa = _gauss_legendre(alpha[0], alpha[1], points)
    b, wb = _gauss_legendre(beta[0], beta[1], points)
    p = special.gammainc(a[:, None], b[None, :] * x[..., None, None])
    return (np.einsum("...ij,i,j->...", p, wa, wb) / ((alpha[1] - alpha[0]) * (beta[1] - beta[0])))[()]


@functools.lru_cache(maxsize=None)
def _legendre_rule(points):
    x, w = np.polynomial.legendre.leggauss(points)
    x.flags.writeable = w.flags.writeable = False
    return x, w


def _gauss_legendre(a, b, points):
    """The Gauss-Legendre nodes and weights of [a, b]."""
    x, w = _legendre_rule(points)
    return 0.5 * (b - a) * x + 0.5 * (a + b), 0.5 * (b - a) * w


@dataclass(frozen=True)
class ExactGrid:
    """Resolution of :func:`exact_posterior` (defaults give about three decimals; see the module's tests).

    ``delta0_points``: nodes per delta0 segment; ``nu_points``: Gauss-Legendre nodes per log(nu - 1) panel of
    at most ``nu_panel``; ``sigma0_points``: nodes per log sigma0 panel of at most ``sigma0_panel``, split until its
    estimated error is below ``sigma0_tolerance`` of the total; ``cell_nats``: how much log L_i may change across
    one likelihood cell; ``subcells``: the most sub-cells of a cell where the kernel is narrower than the cell (a
    power of two: others are rounded up);
    ``support_nats``: L_i is cut this many nats below its top. ``error_estimate`` repeats the computation on
    ``coarser()`` and reports the differences.

    >>> ExactGrid().coarser().delta0_points
    12
    """

    delta0_points: int = 24
    nu_points: int = 4
    nu_panel: float = 2.0
    sigma0_points: int = 5
    sigma0_panel: float = 1.0
    sigma0_tolerance: float = 1e-4
    cell_nats: float = 2.5
    subcells: int = 16
    support_nats: float = 50.0
    error_estimate: bool = True

    def __post_init__(self):
        for name, minimum in (("delta0_points", 4), ("nu_points", 2), ("sigma0_points", 4), ("subcells", 2)):
            check_count(name, getattr(self, name), minimum=minimum)
        for name in ("nu_panel", "sigma0_panel", "sigma0_tolerance", "cell_nats", "support_nats"):
            check_real(name, getattr(self, name), low=0, low_open=True)

    def scaled(self, factor: float) -> ExactGrid:
        """Every resolution multiplied by ``factor`` (2: twice as fine in every direction)."""
        return replace(self, delta0_points=max(4, round(self.delta0_points * factor)),
                       nu_points=max(2, round(self.nu_points * factor)), nu_panel=self.nu_panel / factor,
                       sigma0_points=max(4, round(self.sigma0_points * factor)),
                       sigma0_panel=self.sigma0_panel / factor, sigma0_tolerance=self.sigma0_tolerance / factor**4,
                       cell_nats=self.cell_nats / factor, subcells=max(2, round(self.subcells * factor)),
                       error_estimate=False)

    def coarser(self) -> ExactGrid:
        """Half the resolution in every direction (the error estimate's grid)."""
        return self.scaled(0.5)


def check_method(method) -> str:
    """``method`` of :func:`pp_corr.hierarchical_test` (one of :data:`METHODS`), checked.

    >>> check_method("exact")
    'exact'
    """
    return check_choice("method", method, METHODS)


_COARSE_POINTS = len(COARSE[0])


@dataclass(frozen=True)
class _Likelihoods:
    """Each data set's L_i (divided by its top, exp(``log_top``)) on cells of its own, padded to a common count.

    ``edges`` (q, C + 1) bound the cells (padding cells have width 0). ``points`` (q, 5C) are the five
    Gauss-Legendre nodes of every cell and ``weights`` (q, 5C, 6) the rule's weights times [L, L y, L y^2,
    L 1(d < r_lo), L 1(d > r_hi), L 1(d > 0)], y = (d - xbar_i) / scale_i. ``fine`` (q, C, 2 + 4 + ... + S, 3, 3)
    holds L [1, y, y^2] at the three Gauss-Legendre nodes of each of S equal sub-cells of every cell, for S in
    ``subcells`` = 2, 4, 8, ... up to the grid's ``subcells`` (rounded up to a power of two), one level after the
    other, for cells on which the kernel is not smooth.
    ``top`` (q, C) is the largest L_i on a cell and ``sides`` (q, C, 3) says whether a cell lies below r_lo, above
    r_hi, above 0.
    ``levels`` (q, R) are log L_i / top at the distances ``radii`` (q, R) from xbar_i, equally spaced in
    asinh(r / scale_i) up to the support's end (linear interpolation is good to 1e-5 nats near the top, 1e-3
    far out).
    """

    xbar: np.ndarray
    scale: np.ndarray
    log_top: np.ndarray
    mass: np.ndarray
    edges: np.ndarray
    points: np.ndarray
    weights: np.ndarray
    fine: np.ndarray
    top: np.ndarray
    sides: np.ndarray
    radii: np.ndarray
    levels: np.ndarray
    subcells: np.ndarray

    @property
    def q(self):
        return len(self.xbar)

    @property
    def width(self):
        return np.diff(self.edges, axis=1)

    def log_value(self, d):
        """log L_i(d) / top for every data set (rows) at every d, interpolated between the cells' middle nodes
        (-inf outside the support): for the pilot."""
        out = np.empty((self.q, len(d)))
        for i in range(self.q):
            cells = np.count_nonzero(self.width[i])
            centre = _COARSE_POINTS // 2
            middle = self.points[i, centre : _COARSE_POINTS * cells : _COARSE_POINTS]
            level = self.weights[i, centre : _COARSE_POINTS * cells : _COARSE_POINTS, 0]
            logs = np.log(np.maximum(level, 1e-300) / (self.width[i, :cells] * COARSE[1][centre] / 2))
            inside = (d >= self.edges[i, 0]) & (d <= self.edges[i, cells])
            out[i] = np.where(inside, np.interp(d, middle, logs), -np.inf)
        return out

    def log_level(self, i, d):
        """log L_i(d) / top for data set i at d (an array within the support), interpolated linearly in
        ``levels``."""
        steps = self.radii.shape[1] - 1
        y = np.abs(d - self.xbar[i]) / self.scale[i]
        position = np.log(y + np.sqrt(y * y + 1)) * (steps / self._reach(i))  # asinh, faster
        j = np.minimum(position.astype(np.intp), steps - 1)
        levels = self.levels[i]
        return np.take(levels, j) + np.minimum(position - j, 1.0) * np.take(np.diff(levels), j)

    def profile_points(self, i, step):
        """d at the points of L_i's profile about ``step`` apart in asinh(|d - xbar_i| / scale_i), both sides."""
        steps = self.radii.shape[1] - 1
        every = max(1, round(step * steps / self._reach(i)))
        r = np.append(self.radii[i, :-1:every], self.radii[i, -1])
        return self.xbar[i] + np.concatenate([-r[:0:-1], r])

    def _reach(self, i):
        return math.asinh(self.radii[i, -1] / self.scale[i])

    @functools.cached_property
    def distinct(self):
        """The likelihoods of the distinct data sets (identical cells and values count once: real data often
        repeat a data set of equal scores, e.g. all differences 0), and each data set's row among them."""
        rows = {}
        keys = zip(self.edges, self.weights, self.top, self.sides, self.fine)
        inverse = np.array([rows.setdefault(b"".join(a.tobytes() for a in key), len(rows)) for key in keys])
        return (self if len(rows) == self.q else self.rows(np.unique(inverse, return_index=True)[1])), inverse

    @functools.cached_property
    def fine_table(self):
        """``fine``, each level's offset in it, the levels and :attr:`reach`: what
        :func:`pp_corr.hierarchical.convolution.refine_cells` reads."""
        return self.fine, np.cumsum(self.subcells) - self.subcells, self.subcells, self.reach

    @property
    def reach(self):
        """max(1, y^2) at the farther end of each cell (q, C), y = (d - xbar_i) / scale_i: a bound on L's moments
        over L there."""
        y = np.abs(self.edges - self.xbar[:, None]) / self.scale[:, None]
        return np.maximum(1.0, np.maximum(y[:, :-1], y[:, 1:]) ** 2)

    def rows(self, index) -> _Likelihoods:
        """The likelihoods of the data sets ``index`` only."""
        arrays = {name: getattr(self, name)[index] for name in self.__dataclass_fields__ if name != "subcells"}
        return _Likelihoods(**arrays, subcells=self.subcells)


def _build_likelihoods(xbar, ss, n, rho, lo, hi, splits, grid: ExactGrid) -> _Likelihoods:
    """Cells for every data set (see the module docstring, step 2) and L_i on them."""
    c = (1 - rho) / n + rho
    spread = ss / (1 - rho)
    scale = np.sqrt(c) * np.clip(np.sqrt(spread / (n - 1)), lo, hi)

    def log_l(i, d):
        return log_sigma_integral(0.5 * ((d - xbar[i]) ** 2 / c[i] + spread[i]), n[i], lo[i], hi[i])

    q, sub = len(xbar), grid.subcells
    log_top = np.array([log_l(i, xbar[i]) for i in range(q)])
    radius = _support_radius(log_l, xbar, log_top, scale, grid.support_nats)
    cell_edges, profile_r, profile_level = [], np.empty((q, 2001)), np.empty((q, 2001))
    for i in range(q):
        r = scale[i] * np.sinh(np.linspace(0.0, np.arcsinh(radius[i] / scale[i]), 2001))
        below = log_top[i] - log_l(i, xbar[i] + r)  # nats below the top, increasing in r
        profile_r[i], profile_level[i] = r, -below
        nats = grid.cell_nats * np.maximum(1.0, below / 10.0)
        monitor = np.sqrt(_CELLS_PER_SCALE**2 / (scale[i] ** 2 + r * r) + (np.gradient(below, r) / nats) ** 2)
        cumulative = np.concatenate([[0.0], np.cumsum(0.5 * (monitor[1:] + monitor[:-1]) * np.diff(r))])
        radii = np.interp(np.linspace(0.0, cumulative[-1], max(2, math.ceil(cumulative[-1])) + 1), cumulative, r)
        edges = np.concatenate([xbar[i] - radii[:0:-1], xbar[i] + radii])
        for point in sorted(set(splits)):
            if edges[0] < point < edges[-1]:
                edges = _insert(edges, point)
        cell_edges.append(edges)
    cells = max(len(edges) - 1 for edges in cell_edges)
    edges = np.empty((q, cells + 1))
    for i, own in enumerate(cell_edges):
        edges[i, : len(own)], edges[i, len(own):] = own, own[-1]
    width = np.diff(edges, axis=1)
    nodes = (GAUSS[0] + 1) / 2  # on [0, 1]
    levels = [2**j for j in range(1, max(1, math.ceil(math.log2(sub))) + 1)]  # each level halves the one before
    fractions = np.concatenate([(COARSE[0] + 1) / 2] + [((np.arange(s)[:, None] + nodes) / s).ravel()
                                                         for s in levels])
    at = edges[:, :-1, None] + width[..., None] * fractions  # (q, C, 5 + 3 (2 + 4 + ... + S))
    level = np.zeros(at.shape)
    for i, own in enumerate(cell_edges):
        level[i, : len(own) - 1] = np.exp(log_l(i, at[i, : len(own) - 1]) - log_top[i])
    y = (at - xbar[:, None, None]) / scale[:, None, None]
    moments = level[..., None] * np.stack([np.ones_like(y), y, y * y], axis=-1)  # (q, C, points, 3)
    lower, upper = edges[:, :-1], edges[:, 1:]
    inside = (lower <= xbar[:, None]) & (xbar[:, None] <= upper)
    ends = np.zeros(edges.shape)  # L_i / top at the cell edges
    for i, own in enumerate(cell_edges):
        ends[i, : len(own)] = np.exp(log_l(i, own) - log_top[i])
    top = np.where(inside, 1.0, np.maximum(ends[:, :-1], ends[:, 1:]))
    sides = np.stack([upper <= splits[0], lower >= splits[1], lower >= 0.0], axis=-1).astype(float)
    points = _COARSE_POINTS
    coarse = moments[:, :, :points] * (width[..., None] * COARSE[1] / 2)[..., None]  # (q, C, 5, 3)
    weights = np.concatenate([coarse, coarse[..., :1] * sides[:, :, None, :]], axis=-1).reshape(q, points * cells, 6)
    fine = np.ascontiguousarray(moments[:, :, points:]).reshape(q, cells, sum(levels), 3, 3)  # level after level
    return _Likelihoods(xbar, scale, log_top, weights[:, :, 0].sum(axis=1), edges,
                        at[:, :, :points].reshape(q, -1), weights, fine, top, sides, profile_r,
                        profile_level, np.array(levels))


def _support_radius(log_l, xbar, log_top, scale, nats):
    """The distance from xbar_i at which L_i falls ``nats`` below its top (L_i decreases away from xbar_i)."""
    radius = np.empty(len(xbar))
    for i in range(len(xbar)):
        def drop(r):
            return log_top[i] - log_l(i, xbar[i] + r)

        inner, outer = 0.0, scale[i]
        while drop(outer) < nats:
            inner, outer = outer, 2 * outer
        for _ in range(60):
            middle = 0.5 * (inner + outer)
            inner, outer = (middle, outer) if drop(middle) < nats else (inner, middle)
        radius[i] = outer
    return radius


def _insert(edges, point):
    """Sorted cell edges with ``point`` among them: the nearest edge moves there when it is within 1e-6 of a
    cell (not the first or last edge), otherwise the cell is cut."""
    j = int(np.searchsorted(edges, point))  # edges[j - 1] < point <= edges[j]
    cell = edges[j] - edges[j - 1]
    if edges[j] - point < 1e-6 * cell and j < len(edges) - 1:
        return np.concatenate([edges[:j], [point], edges[j + 1:]])
    if point - edges[j - 1] < 1e-6 * cell and j > 1:
        return np.concatenate([edges[:j - 1], [point], edges[j:]])
    return np.insert(edges, j, point)


def _convolve(lik: _Likelihoods, sigma0, delta0, nu):
    """G[k, m, i, :] = int t_nu_m(d; delta0_k, sigma0) L_i(d) [1, y, y^2, 1(d < r_lo), 1(d > r_hi), 1(d > 0)] dd
    (see the module docstring, step 2): the five-point rule on every cell, then the sub-cells where the kernel is
    not smooth (:mod:`pp_corr.hierarchical.convolution`, in parallel threads). Identical data sets are computed
    once. The sub-cells replace a cell's rule by adding their difference, which can leave a G[..., 0] that is 0 to
    rounding a few 1e-16 of the largest below 0 (seen on coarse grids): it is set to 0, as its logarithm is taken.
    """
    distinct, inverse = lik.distinct
    if distinct is not lik:
        return _convolve(distinct, sigma0, delta0, nu)[:, :, inverse]
    nu, delta0 = np.asarray(nu, dtype=float), np.asarray(delta0, dtype=float)
    constants = log_t_constant(nu)
    out = np.empty((len(delta0), len(nu), lik.q, 6))
    five_point_rule(lik.points, lik.weights, float(sigma0), delta0, nu, constants, out)
    refine_cells(out, lik.weights, lik.edges, lik.top, lik.sides, *lik.fine_table, float(sigma0), delta0, nu,
                 constants, dealt_order(len(delta0)))
    np.maximum(out[..., 0], 0.0, out=out[..., 0])
    return out


@dataclass(frozen=True)
class _NuGrid:
    """Nodes of nu with their prior masses ``weight`` (summing to ~1) and whether they count as nu < 2; the
    nodes after the lump (when there is one, the first node, with ``rule`` 0) are ``points`` Gauss-Legendre nodes
    in each of the ``panels`` of log(nu - 1), ``rule`` their rule's weights."""

    nu: np.ndarray
    weight: np.ndarray
    below_2: np.ndarray
    rule: np.ndarray
    panels: tuple
    points: int

    @classmethod
    def build(cls, alpha, beta, grid: ExactGrid) -> _NuGrid:
        """Gauss-Legendre panels in t = log(nu - 1) (the likelihood changes smoothly with it), at most
        ``grid.nu_panel`` and 1.5 prior sds of t wide and cut at nu = 2, from nu = 1.001 (the prior mass below
        sits on one node there) to the prior's 1 - 1e-12 quantile; the weights are the rule's times the prior
        density of t."""
        lump = float(nu_prior_cdf(1 + _NU_LUMP, alpha, beta))
        quantiles = np.log(_prior_quantile(np.array([_NU_TAIL, 0.1587, 0.8413, 1 - _NU_TAIL]), alpha, beta) - 1)
        low = math.log(_NU_LUMP) if lump > _NU_TAIL else quantiles[0]
        high = quantiles[-1]
        width = min(grid.nu_panel, 0.75 * (quantiles[2] - quantiles[1]))  # 1.5 prior sd of t, at most nu_panel
        panels = _panels(low, high, width, (0.0,))
        t, rule = (np.concatenate(v) for v in zip(*(_gauss_legendre(a, b, grid.nu_points) for a, b in panels)))
        nu, w = 1 + np.exp(t), rule * nu_prior_density(1 + np.exp(t), alpha, beta) * np.exp(t)
        if lump > _NU_TAIL:
            nu, w, rule = np.append(1 + _NU_LUMP, nu), np.append(lump, w), np.append(0.0, rule)
        return cls(nu, w, nu < 2, rule, tuple(panels), grid.nu_points)

    @property
    def lump(self):
        """Whether the first node stands for the prior mass below nu = 1.001."""
        return self.rule[0] == 0


def _prior_quantile(u, alpha, beta):
    """nu with F(nu) = u for the prior CDF F (bisection in log(nu - 1), all u at once)."""
    low, high = np.full(u.shape, -40.0), np.full(u.shape, 40.0)
    for _ in range(56):
        middle = 0.5 * (low + high)
        below = nu_prior_cdf(1 + np.exp(middle), alpha, beta, points=24) < u
        low, high = np.where(below, middle, low), np.where(below, high, middle)
    return 1 + np.exp(0.5 * (low + high))


@dataclass(frozen=True)
class _Segment:
    """A piece of the delta0 axis and its rule, in v with delta0 = center + scale sinh(v), v in [low, high].
    Where the conditional density has decayed at both ends and nothing is cut: the trapezoid rule on ``points``
    equally spaced v (spectrally accurate, and so is the sinc interpolant's integral up to any x). Otherwise
    (``hard`` ends: a bound of delta0's prior; or ``cuts``, v where a summand has a step, for small sigma0):
    Gauss-Legendre on every piece between them, and the pieces' Legendre interpolants."""

    center: float
    scale: float
    low: float
    high: float
    points: int
    cuts: tuple = ()
    hard: bool = False

    @property
    def trapezoid(self):
        return not self.cuts and not self.hard

    @functools.cached_property
    def pieces(self):
        """(start, end, nodes) of the Gauss-Legendre pieces, nodes in proportion to their length (at least 6); a
        cut that rounds onto an end (far out on the arcsinh scale) makes no empty piece."""
        edges = [self.low, *self.cuts, self.high]
        span = self.high - self.low
        return tuple((a, b, max(6, round(self.points * (b - a) / span))) for a, b in zip(edges[:-1], edges[1:])
                     if b > a)

    @functools.cached_property
    def v(self):
        if self.trapezoid:
            return np.linspace(self.low, self.high, self.points)
        return np.concatenate([_gauss_legendre(a, b, n)[0] for a, b, n in self.pieces])

    @property
    def size(self):
        return len(self.v)

    @property
    def nodes(self):
        return self.center + self.scale * np.sinh(self.v)

    @property
    def jacobian(self):
        return self.scale * np.cosh(self.v)

    def weights(self):
        """The rule's weights on the density at the nodes."""
        if self.trapezoid:
            weights = (self.high - self.low) / (self.points - 1) * self.jacobian
            weights[[0, -1]] *= 0.5
            return weights
        return np.concatenate([_gauss_legendre(a, b, n)[1] for a, b, n in self.pieces]) * self.jacobian

    def fine_v(self, factor):
        """v on a grid ``factor`` times as fine as the nodes, from the segment's start to its end."""
        if self.trapezoid:
            return np.linspace(self.low, self.high, factor * (self.points - 1) + 1)
        return np.unique(np.concatenate([np.linspace(a, b, factor * n + 1) for a, b, n in self.pieces]))

    def _to_v(self, x):
        return np.atleast_1d(np.arcsinh((np.asarray(x, dtype=float) - self.center) / self.scale))

    def cdf_weights(self, x):
        """W (nodes, len(x)) with density @ W the integral from the segment's start to each x of the density's
        interpolant (sinc in v for the trapezoid rule, the pieces' Legendre interpolants otherwise)."""
        vx = self._to_v(x)
        if self.trapezoid:
            step = (self.high - self.low) / (self.points - 1)
            si, _ = special.sici(np.pi * (vx[None, :] - self.v[:, None]) / step)
            return (self.jacobian * step)[:, None] * (0.5 + si / np.pi)
        blocks = []
        for a, b, n in self.pieces:
            u = 2 * (np.clip(vx, a, b) - a) / (b - a) - 1
            blocks.append(0.5 * (b - a) * _legendre_integrals(n, u))
        return np.concatenate(blocks) * self.jacobian[:, None]

    def interpolation_weights(self, x):
        """W (nodes, len(x)) with density @ W the density's interpolant at each x (0 outside the segment)."""
        vx = self._to_v(x)
        inside = (vx >= self.low) & (vx <= self.high)
        if self.trapezoid:
            step = (self.high - self.low) / (self.points - 1)
            weights = self.jacobian[:, None] * np.sinc((vx[None, :] - self.v[:, None]) / step)
        else:
            blocks = []
            for a, b, n in self.pieces:
                u = 2 * (vx - a) / (b - a) - 1
                own = (vx >= a) & ((vx < b) | (b == self.high))
                blocks.append(_legendre_values(n, np.clip(u, -1, 1)) * own)
            weights = np.concatenate(blocks) * self.jacobian[:, None]
        return weights * inside / (self.scale * np.cosh(vx))


@functools.lru_cache(maxsize=None)
def _legendre_basis(n):
    """(2k + 1) / 2 w_j P_k(x_j) for the n-point Gauss-Legendre rule: values at the nodes -> Legendre series."""
    x, w = _legendre_rule(n)
    basis = np.polynomial.legendre.legvander(x, n - 1) * (2 * np.arange(n) + 1) / 2 * w[:, None]
    basis.flags.writeable = False
    return basis


def _legendre_values(n, u):
    """(n, len(u)): the Lagrange basis of the n Gauss-Legendre nodes at u in [-1, 1]."""
    return _legendre_basis(n) @ np.polynomial.legendre.legvander(u, n - 1).T


def _legendre_integrals(n, u):
    """(n, len(u)): the Lagrange basis of the n Gauss-Legendre nodes integrated from -1 to u."""
    p = np.polynomial.legendre.legvander(u, n)  # P_0 .. P_n at u
    k = np.arange(n)
    below = np.concatenate([np.zeros((len(u), 1)), p[:, : n - 1]], axis=1)  # P_(k-1)
    integral = (p[:, 1:] - below) / (2 * k + 1)  # int_-1^u P_k = (P_(k+1) - P_(k-1)) / (2k + 1) for k >= 1
    integral[:, 0] = u + 1
    return _legendre_basis(n) @ integral.T


def _legendre_series(values, a, b):
    """The Legendre series on [a, b] interpolating ``values`` at its Gauss-Legendre nodes."""
    x, w = np.polynomial.legendre.leggauss(len(values))
    basis = np.polynomial.legendre.legvander(x, len(values) - 1)  # (nodes, degree)
    coefficients = (2 * np.arange(len(values)) + 1) / 2 * ((w * values) @ basis)
    return np.polynomial.legendre.Legendre(coefficients, domain=[a, b])


def _segments(x, log_density, bounds, points, sigma0=np.inf, splits=()):
    """delta0 segments covering where ``log_density`` (at sorted points x) is within _DELTA0_NATS of its top: one
    per run of such points, from the point before the run to the point after it (or to the bounds), centred on
    the run's top with scale half the width where it is within _PEAK_NATS of that top. A run that reaches a
    point on a bound of delta0's prior gets a hard end there; the ``splits`` inside a segment become cuts where
    sigma0 is below three node spacings (summands then step there within a few sigma0)."""
    top = np.max(log_density)
    if not np.isfinite(top):
        return []
    above = log_density > top - _DELTA0_NATS
    starts = np.flatnonzero(above & ~np.concatenate([[False], above[:-1]]))
    ends = np.flatnonzero(above & ~np.concatenate([above[1:], [False]]))
    span = bounds[1] - bounds[0]
    out = []
    for j0, j1 in zip(starts, ends):
        hard = x[j0] <= bounds[0] + 1e-12 * span or x[j1] >= bounds[1] - 1e-12 * span
        a = bounds[0] if x[j0] <= bounds[0] + 1e-12 * span else (x[j0 - 1] if j0 > 0 else bounds[0])
        b = bounds[1] if x[j1] >= bounds[1] - 1e-12 * span else (x[j1 + 1] if j1 + 1 < len(x) else bounds[1])
        run = slice(j0, j1 + 1)
        peak = j0 + int(np.argmax(log_density[run]))
        center = x[peak]
        near = np.flatnonzero(log_density[run] > log_density[peak] - _PEAK_NATS) + j0
        left = x[near[0] - 1] if near[0] > 0 else a
        right = x[near[-1] + 1] if near[-1] + 1 < len(x) else b
        half = ((x[near[-1]] - x[near[0]]) + (right - left)) / 4  # between the inner and the outer bracket
        scale = max(half / 2, 1e-9 * max(b - a, abs(center), 1e-300))  # a normal's sd
        low, high = np.arcsinh((a - center) / scale), np.arcsinh((b - center) / scale)
        count = max(points, math.ceil((high - low) * points / 6))
        step = (high - low) / count
        cuts = tuple(sorted({float(np.arcsinh((r - center) / scale)) for r in splits if a < r < b
                             and sigma0 < 3 * scale * math.cosh(math.asinh((r - center) / scale)) * step}))
        out.append(_Segment(float(center), float(scale), float(low), float(high), int(count), cuts, bool(hard)))
    return out


@dataclass
class _Node:
    """What one sigma0 node contributes: log phi(t) (the posterior density of t = log sigma0, unnormalised) and
    expectations given sigma0."""

    t: float
    log_value: float
    segments: list
    joint: list  # per segment (nodes, nu): the conditional density of (delta0, nu node) (integrating to 1)
    nu: np.ndarray
    delta0: np.ndarray  # E[delta0], E[delta0^2], P(delta0 > 0)
    new: np.ndarray  # E[p_left], E[p_rope], E[p_right], P(left / rope / right largest)
    datasets: np.ndarray  # (q, 5): E[y], E[y^2], P(delta_i < r_lo), P(delta_i > r_hi), P(delta_i > 0)
    count: np.ndarray  # P(#{delta_i > 0} = j), j = 0..q

    @property
    def density(self):
        """Per segment: the conditional density of delta0 at its nodes."""
        return [joint.sum(axis=1) for joint in self.joint]


class _Problem:
    """One posterior computation at one grid resolution."""

    def __init__(self, xbar, ss, n, rho, lo, hi, bounds, sigma0_max, alpha, beta, rope, grid: ExactGrid):
        self.grid, self.bounds, self.sigma0_max, self.rope = grid, bounds, sigma0_max, rope
        self.data = xbar, ss, n, rho, lo, hi
        self.alpha, self.beta = alpha, beta
        self.splits = tuple(sorted({rope[0], rope[1], 0.0}))
        self.lik = _build_likelihoods(xbar, ss, n, rho, lo, hi, (rope[0], rope[1], 0.0), grid)
        self.nus = _NuGrid.build(alpha, beta, grid)
        self.floor = math.log(_SIGMA0_FLOOR * min(1.0, sigma0_max))
        self.ceiling = math.log(sigma0_max)
        self.evaluations = 0

    # --- pilot: every g_i replaced by a t density, to find where the posterior lives
    def pilot(self):
        """t = log sigma0 nodes, the approximate log marginal of t and delta0 segments at each."""
        lik, grid = self.lik, self.grid
        ts = np.arange(self.floor, self.ceiling + 0.25, 0.25)
        ts[-1] = min(ts[-1], self.ceiling)
        pick = np.unique(np.linspace(0, len(self.nus.nu) - 1, 5).round().astype(int))
        nu, log_w = self.nus.nu[pick], np.log(self.nus.weight[pick])
        constants = log_t_constant(nu)
        low, high = self.bounds
        center = float(np.clip(np.median(lik.xbar), low, high))
        spots = np.clip(np.concatenate([lik.xbar, np.linspace(lik.xbar.min(), lik.xbar.max(), 80)]), low, high)
        log_mass = np.log(lik.mass)
        values, segments = [], []
        for t in ts:
            sigma0 = math.exp(t)
            width = max(sigma0, lik.scale.min()) / 2
            v = np.linspace(np.arcsinh((low - center) / width), np.arcsinh((high - center) / width), 160)
            x = np.unique(np.concatenate([spots, np.clip(center + width * np.sinh(v), low, high)]))
            log_l = lik.log_value(x)
            spread = np.sqrt(sigma0**2 + lik.scale**2)[:, None, None]
            z = (x[None, :, None] - lik.xbar[:, None, None]) / spread
            log_t = constants - 0.5 * (nu + 1) * np.log1p(z * z / nu) - np.log(spread) + log_mass[:, None, None]
            log_g = np.logaddexp(log_t, log_l[..., None])  # (q, points, nu)
            log_p = log_g.sum(axis=0) + log_w  # (points, nu)
            profile = special.logsumexp(log_p, axis=1)
            dx = np.gradient(x) if len(x) > 1 else np.ones(1)
            values.append(special.logsumexp(profile + np.log(dx)) + t)
            segments.append(_segments(x, profile, self.bounds, grid.delta0_points, sigma0, self.splits))
        return ts, np.array(values), segments

    # --- the sigma0 panels
    def run(self):
        """Nodes of log sigma0 (Gauss-Legendre panels, adapted) with their weights, the panels and the extra
        weights of the end nodes for the tails beyond them."""
        ts, values, pilot_segments = self.pilot()
        inside = np.flatnonzero(values > values.max() - _SIGMA0_NATS)
        start, stop = ts[max(inside[0] - 1, 0)], ts[min(inside[-1] + 1, len(ts) - 1)]
        flat = math.log(1e-3 * self.lik.scale.min())  # below, prod g_i barely depends on sigma0
        start = max(start, min(flat, ts[int(np.argmax(values))] - 1.0))
        width = min(self.grid.sigma0_panel, max((stop - start) / 4, 0.05))
        panels = _panels(start, stop, width, (math.log(0.01), *self._kinks()))
        nodes = {}

        def guess(t):
            if nodes:
                near = min(nodes, key=lambda u: abs(u - t))
                if abs(near - t) <= 1.0 and nodes[near].segments:
                    return nodes[near].segments
            found = [j for j in np.argsort(np.abs(ts - t)) if pilot_segments[j]]
            return pilot_segments[found[0]]

        points = self.grid.sigma0_points
        for _ in range(40):
            for a, b in panels:
                for t in _gauss_legendre(a, b, points)[0]:
                    if t not in nodes:
                        nodes[t] = self.node(t, guess(t))
            top = max(node.log_value for node in nodes.values())
            weighted, masses, errors = [], [], []
            for a, b in panels:
                t, w = _gauss_legendre(a, b, points)
                log_phi = np.array([nodes[u].log_value - top for u in t])
                weighted.extend((nodes[u], wu) for u, wu in zip(t, w))
                masses.append(w @ np.exp(log_phi))
                wins = np.array([nodes[u].new[3:5] for u in t]).T  # P(left), P(rope) largest: kinks in sigma0
                errors.append(_panel_error(log_phi, 0.5 * (b - a), wins))
            tolerance = self.grid.sigma0_tolerance * sum(masses)
            (low, high), steady = self._tails(panels, weighted), self._steady(weighted)
            result = panels, weighted, (low, high)  # the panels the weights belong to
            first, last = panels[0], panels[-1]
            grow_down = (first[0] > self.floor + 1e-9 and math.exp(weighted[0][0].log_value - top) * low > tolerance
                         and not (first[0] <= flat and steady[0]))
            grow_up = (last[1] < self.ceiling - 1e-9 and math.exp(weighted[-1][0].log_value - top) * high > tolerance
                       and not steady[1])
            split = [panel for panel, error in zip(panels, errors) if error > tolerance]
            panels = sorted([panel for panel in panels if panel not in split]
                            + [half for a, b in split for half in ((a, 0.5 * (a + b)), (0.5 * (a + b), b))])
            if grow_down:
                panels.insert(0, (max(self.floor, first[0] - self.grid.sigma0_panel), first[0]))
            if grow_up:
                panels.append((last[1], min(self.ceiling, last[1] + self.grid.sigma0_panel)))
            if not (split or grow_down or grow_up):
                break
        return result

    def _kinks(self):
        """log sigma0 where the rope stops being the most probable region at its centre, for the smallest and
        the largest nu: there P(rope largest) has a kink in sigma0 (for each nu in between)."""
        half = 0.5 * (self.rope[1] - self.rope[0])
        if half <= 0:
            return ()
        return tuple(math.log(half / special.stdtrit(v, 2 / 3)) for v in (self.nus.nu.min(), self.nus.nu.max()))

    @staticmethod
    def _steady(weighted):
        """Whether log phi is straight (slopes within 1%) over the three lowest and the three highest nodes:
        the tails beyond then follow the exponential of :meth:`_tails`."""
        def straight(a, b, c):
            left = (b.log_value - a.log_value) / (b.t - a.t)
            right = (c.log_value - b.log_value) / (c.t - b.t)
            return abs(left - right) <= 0.01 * max(abs(left), abs(right))

        nodes = [node for node, _ in weighted]
        return straight(*nodes[:3]), straight(*nodes[-3:])

    @staticmethod
    def _tail_slopes(weighted):
        """The rates at which log phi falls beyond the lowest node (downwards, at least 1) and beyond the highest
        (upwards), from the two end nodes on each side."""
        (first, _), (second, _) = weighted[0], weighted[1]
        (last, _), (before, _) = weighted[-1], weighted[-2]
        return (max(1.0, (second.log_value - first.log_value) / (second.t - first.t)),
                (before.log_value - last.log_value) / (last.t - before.t))

    def _tails(self, panels, weighted):
        """Extra weights of the lowest and the highest node for the mass beyond the panels, phi continued as the
        exponential through the two end nodes (at least like e^t below: below the floor prod g_i no longer
        depends on sigma0; nothing above the ceiling)."""
        (first, _), (last, _) = weighted[0], weighted[-1]
        slope_low, slope = self._tail_slopes(weighted)
        low = math.exp(-slope_low * (first.t - panels[0][0])) / slope_low
        beyond = self.ceiling - panels[-1][1]
        high = 0.0
        if beyond > 0:
            if abs(slope) * beyond < 1e-9:
                high = beyond
            else:
                high = math.exp(-slope * (panels[-1][1] - last.t)) * -math.expm1(-slope * beyond) / slope
        return low, high

    # --- one sigma0 node, exactly
    def node(self, t, segments) -> _Node:
        """Evaluate the node at t = log sigma0, re-building its delta0 segments from the exact values until they
        cover the conditional posterior (ends low enough, peaks resolved), at most ``_REBUILDS`` evaluations; the
        node is summarised on the last segments evaluated."""
        sigma0 = math.exp(t)
        samples_x, samples_p = np.empty(0), np.empty(0)
        for attempt in range(_REBUILDS):
            x = np.concatenate([s.nodes for s in segments])
            conv = _convolve(self.lik, sigma0, x, self.nus.nu)
            self.evaluations += 1
            with np.errstate(divide="ignore"):
                log_g = np.log(conv[..., 0]) + self.lik.log_top  # (points, nu, q)
            log_p = log_g.sum(axis=2) + np.log(self.nus.weight)  # (points, nu)
            profile = special.logsumexp(log_p, axis=1)
            if self._covers(segments, profile) or attempt == _REBUILDS - 1:  # the last segments are the evaluated ones
                break
            samples_x = np.concatenate([samples_x, x])
            samples_p = np.concatenate([samples_p, profile])
            order = np.argsort(samples_x)
            better = _segments(samples_x[order], samples_p[order], self.bounds, self.grid.delta0_points, sigma0,
                               self.splits)
            if not better:
                break
            segments = better
        return self._summarise(t, segments, x, conv, log_p)

    def _covers(self, segments, profile):
        """Every segment's ends are _DELTA0_NATS - 3 below the overall top or bounds of delta0's prior, and its
        peak has at least 5 nodes within _PEAK_NATS."""
        top = profile.max()
        if not np.isfinite(top):
            return True
        start, span = 0, self.bounds[1] - self.bounds[0]
        for s in segments:
            part = profile[start : start + s.size]
            ends = s.center + s.scale * np.sinh([s.low, s.high])
            start += s.size
            at_bound = (ends[0] <= self.bounds[0] + 1e-9 * span, ends[1] >= self.bounds[1] - 1e-9 * span)
            for j, bound in ((0, at_bound[0]), (-1, at_bound[1])):
                if part[j] > top - _DELTA0_NATS + 3 and not bound:
                    return False
            if np.count_nonzero(part > part.max() - _PEAK_NATS) < 5 and part.max() > top - 20:
                return False
        return True

    def _summarise(self, t, segments, x, conv, log_p) -> _Node:
        sigma0, lik, nus = math.exp(t), self.lik, self.nus
        rule = np.concatenate([s.weights() for s in segments])
        log_w = log_p + np.log(rule)[:, None]
        top = np.max(log_w)
        q = lik.q
        if not np.isfinite(top):
            return _Node(t, -np.inf, segments, [], np.zeros(len(nus.nu)), np.zeros(3), np.zeros(6),
                         np.zeros((q, 5)), np.zeros(q + 1))
        w = np.exp(log_w - top)
        total = w.sum()
        p = w / total
        log_value = top + math.log(total) + t - math.log(self.sigma0_max)
        nu_p = p.sum(axis=0)
        # delta0 given sigma0 (and given sigma0 and nu, for the regions of a new data set)
        density_nu = np.exp(log_p - top)  # (points, nu), unnormalised densities at the nodes
        bounds = np.cumsum([0] + [s.size for s in segments])
        pieces = [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:])]
        r_lo, r_hi = self.rope
        nu = nus.nu
        cut_low, cut_high = _region_cuts(r_lo, r_hi, sigma0, nu)
        where = np.concatenate([[0.0, np.inf], cut_low, cut_high])
        cdf = sum(density_nu[piece].T @ s.cdf_weights(where) for s, piece in zip(segments, pieces))  # (nu, where)
        total = cdf[:, 1]
        delta0 = np.array([(p.sum(axis=1) * x).sum(), (p.sum(axis=1) * x * x).sum(),
                           1 - cdf[:, 0].sum() / total.sum()])
        left = special.stdtr(nu, (r_lo - x[:, None]) / sigma0)
        right = special.stdtr(nu, (x[:, None] - r_hi) / sigma0)
        inside = np.maximum(1 - left - right, 0.0) if r_hi > r_lo else np.zeros_like(left)
        means = [(p * left).sum(), (p * inside).sum(), (p * right).sum()]
        m = np.arange(len(nu))
        with np.errstate(invalid="ignore", divide="ignore"):
            below_low = np.where(total > 0, cdf[m, 2 + m] / total, 0.0)
            below_high = np.where(total > 0, cdf[m, 2 + len(nu) + m] / total, 0.0)
        wins = np.clip(nu_p @ np.stack([below_low, below_high - below_low, 1 - below_high], axis=1), 0.0, 1.0)
        norm = total.sum()
        with np.errstate(invalid="ignore", divide="ignore"):
            ratios = np.where(conv[..., :1] > 0, conv[..., 1:] / conv[..., :1], 0.0)  # (points, nu, q, 5)
        datasets = np.einsum("km,kmij->ij", p, ratios)
        count = self._count(p, ratios[..., 4])
        joint = [density_nu[piece] / norm for piece in pieces]
        return _Node(t, log_value, segments, joint, nu_p, delta0, np.concatenate([means, wins]), datasets, count)

    def _count(self, p, positive):
        """P(#{delta_i > 0} = j) given sigma0: Poisson-binomial given (delta0, nu), averaged (terms of weight
        below 1e-12 of the largest dropped)."""
        keep = p > 1e-12 * p.max()
        probabilities = np.clip(positive[keep], 0.0, 1.0)
        pmf = PoissonBinomial(probabilities).pmf()
        return (p[keep][:, None] * pmf).sum(axis=0) / p[keep].sum()


def _region_cuts(r_lo, r_hi, sigma0, nu):
    """For each nu: delta0 below the first cut makes 'left' the most probable region for a new data set, above
    the second 'right', in between the rope (the cuts coincide when the rope never wins)."""
    center, half = 0.5 * (r_lo + r_hi), 0.5 * (r_hi - r_lo)
    nu = np.asarray(nu, dtype=float)
    offset = np.zeros(nu.shape)
    wins = special.stdtr(nu, half / sigma0) > 2 / 3  # P(rope) > P(left) = P(right) at the rope's centre
    if half > 0 and wins.any():
        def excess(b):  # P(rope) - P(right) at delta0 = centre + b
            return 2 * special.stdtr(nu, (half - b) / sigma0) - special.stdtr(nu, (-half - b) / sigma0) - 1

        low, high = np.zeros(nu.shape), np.full(nu.shape, half)
        for _ in range(80):
            middle = 0.5 * (low + high)
            ahead = excess(middle) > 0
            low, high = np.where(ahead, middle, low), np.where(ahead, high, middle)
        offset = np.where(wins, 0.5 * (low + high), 0.0)
    return center - offset, center + offset


def _panels(start, stop, width, cuts=()):
    """Panels of at most ``width`` covering [start, stop], with the ``cuts`` inside among their edges."""
    edges = [start, *sorted(c for c in cuts if start < c < stop), stop]
    out = []
    for a, b in zip(edges[:-1], edges[1:]):
        pieces = max(1, math.ceil((b - a) / width - 1e-9))
        out.extend((a + (b - a) * j / pieces, a + (b - a) * (j + 1) / pieces) for j in range(pieces))
    return out


def _panel_error(log_phi, half_width, shares=()):
    """An estimate of a panel's Gauss-Legendre error (phi = exp(log_phi) at its nodes, which are fewer than its
    highest degree, also times each of ``shares``, values in [0, 1] at the nodes): the rule is exact up to degree
    2p - 1, so the error is of the order of the Legendre coefficients of degree 2p, extrapolated from the decay
    of the interpolant's last ones. A panel over which log phi spans more than 10 nats counts as unresolved
    (its whole mass)."""
    phi = np.exp(log_phi)
    mass = float(phi @ _legendre_rule(len(phi))[1]) * half_width
    if not np.all(np.isfinite(log_phi)) or np.ptp(log_phi) > 10:
        return mass
    error = 0.0
    for values in (phi, *(phi * share for share in shares)):
        c = np.abs(_legendre_series(values, -1.0, 1.0).coef)
        tail, before = c[-1] + c[-2], c[-3] + c[-4]
        ratio = min(1.0, tail / before) if before > 0 else 1.0
        error = max(error, half_width * tail * ratio ** ((len(phi) + 1) / 2))
    return error


def _panel_cdf(a, b, values, x):
    """int_a^x of the Legendre interpolant of ``values`` (at the Gauss-Legendre nodes of [a, b])."""
    return float(_legendre_series(values, a, b).integ(lbnd=a)(x))


@dataclass(frozen=True, repr=False)
class ExactPosterior:
    """The hierarchical model's posterior from :func:`exact_posterior` (all in the model's unit).

    delta0: ``delta0_mean``, ``delta0_sd``, ``delta0_p_positive`` = P(delta0 > 0), ``delta0_q025`` and
    ``delta0_q975``, and its density ``delta0_density`` on ``delta0_grid``. A new data set, delta_new ~
    t_nu(delta0, sigma0): posterior means ``p_left`` = P(delta_new < r_lo), ``p_rope``, ``p_right`` =
    P(delta_new > r_hi), and ``win_left``, ``win_rope``, ``win_right``, the posterior probability that each is
    the largest. Per data set (arrays of q): ``delta_mean``, ``delta_sd``, ``delta_p_left``, ``delta_p_rope``,
    ``delta_p_right``, ``delta_p_positive``. ``nu_mean``, ``nu_p_below_2`` and the density ``nu_density`` at the
    nodes ``nu_grid``; ``sigma0_median``, ``sigma0_p_below_0_01`` and ``sigma0_density`` (per unit of sigma0) at
    ``sigma0_grid``. ``positive_count`` [j] = P(#{i: delta_i > 0} = j). ``error`` maps every scalar above (and
    the largest over data sets of the arrays) to its change from a grid half as fine (empty without the
    estimate; ``max_error`` is the largest for a probability); ``nodes`` counts the (sigma0, delta0, nu) points.
    """

    rope: tuple[float, float]
    delta0_mean: float
    delta0_sd: float
    delta0_p_positive: float
    delta0_q025: float
    delta0_q975: float
    p_left: float
    p_rope: float
    p_right: float
    win_left: float
    win_rope: float
    win_right: float
    nu_mean: float
    nu_p_below_2: float
    sigma0_median: float
    sigma0_p_below_0_01: float
    delta_mean: np.ndarray
    delta_sd: np.ndarray
    delta_p_left: np.ndarray
    delta_p_rope: np.ndarray
    delta_p_right: np.ndarray
    delta_p_positive: np.ndarray
    positive_count: np.ndarray
    delta0_grid: np.ndarray
    delta0_density: np.ndarray
    sigma0_grid: np.ndarray
    sigma0_density: np.ndarray
    nu_grid: np.ndarray
    nu_density: np.ndarray
    nodes: int
    error: dict = field(default_factory=dict)

    @property
    def max_error(self) -> float:
        """The largest change of a probability in ``error`` (nan without the estimate)."""
        changes = [v for name, v in self.error.items() if name in PROBABILITY_FIELDS]
        return max(changes) if changes else float("nan")

    def __repr__(self):
        shown = ", ".join(f"{name}={getattr(self, name):.4g}" for name in SUMMARY_FIELDS)
        return f"ExactPosterior(q={len(self.delta_mean)}, {shown}, max_error={self.max_error:.1g})"


def exact_posterior(xbar, ss, n, rho, *, delta0_max, sigma0_max, sigma_bounds, alpha=(0.5, 5.0), beta=(0.05, 0.15),
                    rope=(0.0, 0.0), grid=None) -> ExactPosterior:
    """The posterior of the hierarchical model by deterministic quadrature (see the module docstring).

    ``xbar``, ``ss``, ``n``, ``rho``: per data set the mean of its fold differences, their sum of squared
    deviations (may be 0), their count (>= 2) and correlation (in [0, 1)), all in the model's unit.
    ``delta0_max`` = D and ``sigma0_max`` = U bound delta0 ~ U(-D, D) and sigma0 ~ U(0, U); ``sigma_bounds`` =
    (lo, hi), scalars or one per data set, bound sigma_i ~ U(lo, hi); ``alpha`` and ``beta`` are the ranges of
    nu's hyperpriors; ``rope`` a half-width r (the rope (-r, r)) or a pair (lo, hi); ``grid`` an
    :class:`ExactGrid`.

    >>> post = exact_posterior([0.2, 0.5, -0.1], [9.0, 12.0, 7.0], 10, 0.1, delta0_max=3.0, sigma0_max=30.0,
    ...                        sigma_bounds=(0.01, 100.0), grid=ExactGrid(error_estimate=False))
    >>> bool(0.5 < post.delta0_p_positive < 1), round(post.p_left + post.p_rope + post.p_right, 9)
    (True, 1.0)
    """
    return _solve(xbar, ss, n, rho, delta0_max, sigma0_max, sigma_bounds, alpha, beta, rope, grid)[0]


def exact_draws(xbar, ss, n, rho, *, delta0_max, sigma0_max, sigma_bounds, alpha=(0.5, 5.0), beta=(0.05, 0.15),
                rope=(0.0, 0.0), grid=None, draws=4000, random_seed=None) -> tuple[ExactPosterior, dict]:
    """:func:`exact_posterior` (same arguments) and ``draws`` independent draws from that posterior.

    The draws (a dict of arrays in the model's unit: ``delta0``, ``sigma0``, ``nu`` of shape (draws,),
    ``delta`` and ``sigma`` of shape (draws, q)) follow the joint law, one level given the one above: log
    sigma0 from its marginal (the interpolants of its density between the quadrature's nodes, exponential
    tails beyond), then (delta0, nu) from the conditional law at one of the two sigma0 nodes around it (in
    proportion to their shares of the joint density's linear interpolant there), delta0 from its conditional
    density's interpolant and log(nu - 1) from the interpolant through its nodes given that delta0; then each
    delta_i from L_i(d) t_nu(d; delta0, sigma0) on the union of a grid at L_i's scale around xbar_i and one at
    sigma0's around delta0 (so that either may be far narrower than the other), and sigma_i^-2 given delta_i
    from its truncated gamma law (see the module docstring). They add about 2 s to the computation (q = 54,
    4000 draws; with them, 7 to 19 s on the uci54 pairs on 2 cores). ``random_seed``: an int, a numpy Generator or
    None.

    >>> post, d = exact_draws([0.2, 0.5, -0.1], [9.0, 12.0, 7.0], 10, 0.1, delta0_max=3.0, sigma0_max=30.0,
    ...                       sigma_bounds=(0.01, 100.0), grid=ExactGrid(error_estimate=False), draws=1000,
    ...                       random_seed=1)
    >>> d["delta"].shape, bool(abs(np.mean(d["delta0"] > 0) - post.delta0_p_positive) < 0.06)
    ((1000, 3), True)
    """
    draws = check_count("draws", draws)
    rng = as_generator(random_seed)
    result, problem, run = _solve(xbar, ss, n, rho, delta0_max, sigma0_max, sigma_bounds, alpha, beta, rope, grid)
    return result, _draw(problem, *run, draws, rng)


def _solve(xbar, ss, n, rho, delta0_max, sigma0_max, sigma_bounds, alpha, beta, rope, grid):
    """The checked arguments' posterior (with the error estimate when the grid asks for it), the problem at the
    grid's resolution and what its run returned."""
    xbar, ss, n, rho, lo, hi = _check(xbar, ss, n, rho, sigma_bounds)
    delta0_max = check_real("delta0_max", delta0_max, low=0, low_open=True)
    sigma0_max = check_real("sigma0_max", sigma0_max, low=0, low_open=True)
    alpha, beta = _check_range("alpha", alpha), _check_range("beta", beta)
    rope = as_rope(rope)
    if grid is None:
        grid = ExactGrid()
    elif not isinstance(grid, ExactGrid):
        raise TypeError(f"grid must be an ExactGrid or None, got {type(grid).__name__}")
    problem = _Problem(xbar, ss, n, rho, lo, hi, (-delta0_max, delta0_max), sigma0_max, alpha, beta, rope, grid)
    run = problem.run()
    result = _assemble(problem, *run)
    if grid.error_estimate:
        coarse = exact_posterior(xbar, ss, n, rho, delta0_max=delta0_max, sigma0_max=sigma0_max,
                                 sigma_bounds=(lo, hi), alpha=alpha, beta=beta, rope=rope, grid=grid.coarser())
        error = {name: abs(getattr(result, name) - getattr(coarse, name)) for name in SUMMARY_FIELDS}
        error.update({name: float(np.max(np.abs(getattr(result, name) - getattr(coarse, name))))
                      for name in DATASET_FIELDS})
        result = replace(result, error=error)
    return result, problem, run


def _check(xbar, ss, n, rho, sigma_bounds):
    """The data as float arrays of one length q, each checked by name."""
    xbar, ss, n, rho = (np.atleast_1d(real_array(name, v)) for name, v in
                        (("xbar", xbar), ("ss", ss), ("n", n), ("rho", rho)))
    if xbar.ndim != 1 or len(xbar) == 0:
        raise ValueError(f"xbar must be one mean per data set (a 1-D array), got shape {xbar.shape}")
    q = len(xbar)
    try:
        ss, n, rho = (np.broadcast_to(v, (q,)).astype(float) for v in (ss, n, rho))
    except ValueError:
        raise ValueError(f"ss, n and rho must be one value or one per data set ({q}), got shapes "
                         f"{np.shape(ss)}, {np.shape(n)}, {np.shape(rho)}") from None
    if np.any(ss < 0):
        raise ValueError(f"ss must be >= 0 (sums of squared deviations), got {ss[ss < 0][0]}")
    bad = (n < 2) | (n != np.round(n))
    if bad.any():
        raise ValueError(f"n must be whole numbers >= 2 (folds per data set), got {n[bad][0]}")
    if np.any(rho < 0) or np.any(rho >= 1):
        raise ValueError(f"rho must be in [0, 1), got {rho[(rho < 0) | (rho >= 1)][0]}")
    if not isinstance(sigma_bounds, (tuple, list)) or len(sigma_bounds) != 2:
        raise ValueError(f"sigma_bounds must be a pair (lo, hi) of scalars or arrays, got {sigma_bounds!r}")
    lo, hi = (np.atleast_1d(real_array(f"sigma_bounds {name}", v)) for name, v in zip(("lo", "hi"), sigma_bounds))
    try:
        lo, hi = np.broadcast_to(lo, (q,)).astype(float), np.broadcast_to(hi, (q,)).astype(float)
    except ValueError:
        raise ValueError(f"sigma_bounds must hold scalars or arrays of {q} (one per data set)") from None
    if np.any(lo <= 0) or np.any(hi <= lo):
        raise ValueError("sigma_bounds must satisfy 0 < lo < hi for every data set")
    return xbar, ss, n, rho, lo, hi


def _check_range(name, pair):
    """A hyperprior range (a, b) with 0 < a < b."""
    if isinstance(pair, (str, bytes)) or np.ndim(pair) != 1 or len(pair) != 2:
        raise ValueError(f"{name} must be a pair (low, high), got {pair!r}")
    low, high = (check_real(f"{name} bound", v, low=0, low_open=True) for v in pair)
    if not low < high:
        raise ValueError(f"{name} must be a pair (low, high) with low < high, got {pair!r}")
    return (low, high)


def _assemble(problem: _Problem, panels, weighted, tails) -> ExactPosterior:
    """Combine the sigma0 nodes into the posterior's summaries (``tails``: the extra weights of the lowest and the
    highest node, for sigma0 beyond the panels)."""
    nodes = [node for node, _ in weighted]
    extra = np.zeros(len(weighted))
    extra[0], extra[-1] = extra[0] + tails[0], extra[-1] + tails[1]
    log_w = np.array([node.log_value + math.log(w + e) for (node, w), e in zip(weighted, extra)])
    w = np.exp(log_w - log_w.max())
    w /= w.sum()
    lik, nus = problem.lik, problem.nus
    delta0 = w @ np.array([node.delta0 for node in nodes])
    new = w @ np.array([node.new for node in nodes])
    datasets = np.einsum("s,sij->ij", w, np.array([node.datasets for node in nodes]))
    count = w @ np.array([node.count for node in nodes])
    nu_mass = w @ np.array([node.nu for node in nodes])

    used = [(wi, node) for wi, node in zip(w, nodes) if wi > 0]

    def delta0_cdf(x):
        return sum(wi * sum(d @ s.cdf_weights(x) for s, d in zip(node.segments, node.density)) for wi, node in used)

    span = (min(node.segments[0].nodes[0] for _, node in used), max(node.segments[-1].nodes[-1] for _, node in used))
    q025, q975, first, last = _invert(delta0_cdf, np.array([0.025, 0.975, 5e-4, 1 - 5e-4]), span)
    grid_x = np.linspace(first, last, 201)
    density = sum(wi * sum(d @ s.interpolation_weights(grid_x) for s, d in zip(node.segments, node.density))
                  for wi, node in used)
    t = np.array([node.t for node in nodes])
    mean_y, mean_y2 = datasets[:, 0], datasets[:, 1]
    sd = lik.scale * np.sqrt(np.maximum(mean_y2 - mean_y**2, 0.0))
    left, right = np.clip(datasets[:, 2], 0, 1), np.clip(datasets[:, 3], 0, 1)
    sigma0_median, below = _sigma0_summary(panels, weighted, extra, w, problem.grid.sigma0_points)
    return ExactPosterior(
        rope=problem.rope, delta0_mean=float(delta0[0]), delta0_sd=float(np.sqrt(max(delta0[1] - delta0[0] ** 2, 0))),
        delta0_p_positive=float(delta0[2]), delta0_q025=q025, delta0_q975=q975,
        p_left=float(new[0]), p_rope=float(new[1]), p_right=float(new[2]),
        win_left=float(new[3]), win_rope=float(new[4]), win_right=float(new[5]),
        nu_mean=float(nu_mass @ nus.nu), nu_p_below_2=float(nu_mass @ nus.below_2),
        sigma0_median=sigma0_median, sigma0_p_below_0_01=below,
        delta_mean=lik.xbar + lik.scale * mean_y, delta_sd=sd, delta_p_left=left,
        delta_p_rope=np.clip(1 - left - right, 0, 1) if problem.rope[1] > problem.rope[0] else np.zeros_like(left),
        delta_p_right=right,
        delta_p_positive=np.clip(datasets[:, 4], 0, 1), positive_count=count,
        delta0_grid=grid_x, delta0_density=density,
        sigma0_grid=np.exp(t), sigma0_density=_sigma0_density(weighted, extra, w),
        nu_grid=nus.nu, nu_density=nu_mass / nus.weight * nu_prior_density(nus.nu, problem.alpha, problem.beta),
        nodes=int(sum(len(np.concatenate([s.nodes for s in node.segments])) for node in nodes) * len(nus.nu)))


def _invert(cdf, p, span, points=32, rounds=10):
    """x with cdf(x) = p (an array of targets) on ``span``: each round evaluates ``cdf`` once, at ``points``
    points inside each target's bracket, and keeps the two around the target (the bracket shrinks by points + 1;
    one call on many points costs about what a call on a few does, as the sum runs over the nodes' segments)."""
    low, high = np.full(p.shape, float(span[0])), np.full(p.shape, float(span[1]))
    steps = np.arange(1, points + 1) / (points + 1)
    rows = np.arange(len(p))
    for _ in range(rounds):
        x = low[:, None] + (high - low)[:, None] * steps
        below = np.count_nonzero(cdf(x.ravel()).reshape(x.shape) < p[:, None], axis=1)
        low, high = (np.where(below > 0, x[rows, np.maximum(below - 1, 0)], low),
                     np.where(below < points, x[rows, np.minimum(below, points - 1)], high))
    return tuple(float(v) for v in 0.5 * (low + high))


def _density_of_t(weighted, extra, w):
    """The normalised posterior density of t = log sigma0 at the nodes (mass over quadrature weight, without the
    ``extra`` weights that stand for the tails beyond the panels)."""
    weights = np.array([weight for _, weight in weighted])
    return w / (weights + extra)


def _sigma0_density(weighted, extra, w):
    """The posterior density of sigma0 at the nodes (per unit of sigma0)."""
    return _density_of_t(weighted, extra, w) / np.exp([node.t for node, _ in weighted])


def _sigma0_summary(panels, weighted, extra, w, points):
    """sigma0's posterior median and P(sigma0 < 0.01) from the panels' Legendre interpolants (the mass below the
    panels counted as below both)."""
    cut = math.log(0.01)
    phi = _density_of_t(weighted, extra, w)
    weights = np.array([weight for _, weight in weighted])
    phis = [phi[j : j + points] for j in range(0, len(phi), points)]  # one panel each
    masses = [float(values @ weights[j * points : (j + 1) * points]) for j, values in enumerate(phis)]
    under = float(phi[0] * extra[0])  # below the panels
    below = under + sum(m for (_, end), m in zip(panels, masses) if end <= cut + 1e-12)
    cumulative = under + np.cumsum(masses)
    j = int(np.searchsorted(cumulative, 0.5))
    j = min(j, len(panels) - 1)
    before = cumulative[j - 1] if j > 0 else under
    a, b = panels[j]
    low, high = a, b
    for _ in range(80):
        middle = 0.5 * (low + high)
        low, high = (middle, high) if before + _panel_cdf(a, b, phis[j], middle) < 0.5 else (low, middle)
    return float(math.exp(0.5 * (low + high))), float(min(below, 1.0))


# --- draws (see exact_draws)

_FINE = 8  # the piecewise-linear grids through the interpolants have this many steps per node spacing
_LOG_FLOOR = 80.0  # nats: interpolated log densities are floored this far below their top
_LAGRANGE = 6  # nodes per local interpolant of a log density
_STEP = 0.1  # delta_i's grids: steps in asinh((d - centre) / scale) around delta0 (out to _CORE) and xbar_i
_CORE = 3.0
_SPAN_POINTS = 64  # and this many equal steps in asinh((d - delta0) / sigma0) over L_i's support
_CHUNK = 1000  # draws at a time


def _draw(problem: _Problem, panels, weighted, tails, size, rng) -> dict:
    """``size`` independent draws of the posterior."""
    t, chosen = _draw_log_sigma0(problem, panels, weighted, tails, size, rng)
    delta0, masses = np.empty(size), np.empty((size, len(problem.nus.nu)))
    for j in np.unique(chosen):
        rows = np.flatnonzero(chosen == j)
        delta0[rows], masses[rows] = _draw_delta0(weighted[j][0], len(rows), rng)
    nu = _draw_nu(problem.nus, masses, problem.alpha, problem.beta, rng)
    sigma0 = np.exp(t)
    delta = _draw_members(problem.lik, delta0, sigma0, nu, rng)
    return {"delta0": delta0, "sigma0": sigma0, "nu": nu, "delta": delta,
            "sigma": _draw_sigmas(problem.data, delta, rng)}


def _draw_log_sigma0(problem: _Problem, panels, weighted, tails, size, rng):
    """t = log sigma0 from its marginal: a panel in proportion to its mass (or a tail beyond the panels, the
    exponentials of :meth:`_Problem._tails`), then within it the interpolant of log phi. And per draw the index
    of the sigma0 node whose conditional law of (delta0, nu) it takes: between two nodes, each in proportion to
    its share of the joint density's linear interpolant at t; beyond the outermost, that node."""
    points = problem.grid.sigma0_points
    t_nodes = np.array([node.t for node, _ in weighted])
    log_phi = np.array([node.log_value for node, _ in weighted])
    phi = np.exp(log_phi - log_phi.max())  # 0 at a node without mass (it has no conditional law to draw from)
    log_phi = np.maximum(log_phi - log_phi.max(), -_LOG_FLOOR)
    rule = np.array([w for _, w in weighted])
    masses = np.concatenate([[phi[0] * tails[0]], (phi * rule).reshape(-1, points).sum(axis=1), [phi[-1] * tails[1]]])
    piece = rng.choice(len(masses), size=size, p=masses / masses.sum())
    t = np.empty(size)
    slope_low, slope_high = problem._tail_slopes(weighted)
    below, above = piece == 0, piece == len(masses) - 1
    t[below] = panels[0][0] - _truncated_exponential(slope_low, np.inf, rng.random(below.sum()))
    t[above] = panels[-1][1] + _truncated_exponential(slope_high, problem.ceiling - panels[-1][1],
                                                      rng.random(above.sum()))
    for p, (a, b) in enumerate(panels):
        rows = np.flatnonzero(piece == p + 1)
        if len(rows):
            fine = np.linspace(a, b, _FINE * points + 1)
            index, weights = _lagrange_weights(t_nodes, fine)
            density = np.exp((log_phi[index] * weights).sum(axis=1))
            t[rows] = _linear_draws(fine, density, rng.random(len(rows)))
    j = np.searchsorted(t_nodes, t) - 1  # t_nodes[j] < t <= t_nodes[j + 1]
    chosen = np.clip(j, 0, len(t_nodes) - 1)
    between = np.flatnonzero((j >= 0) & (j < len(t_nodes) - 1))
    k = j[between]
    share = (t[between] - t_nodes[k]) / (t_nodes[k + 1] - t_nodes[k])
    upper, lower = share * phi[k + 1], (1 - share) * phi[k]
    chosen[between] = k + (rng.random(len(between)) * (upper + lower) < upper)
    massive = np.flatnonzero(phi > 0)
    empty = np.flatnonzero(phi[chosen] == 0)  # beyond an outermost node without mass: the nearest with mass
    chosen[empty] = massive[np.argmin(np.abs(chosen[empty, None] - massive), axis=1)]
    return t, chosen


def _lagrange_weights(nodes, x):
    """Local interpolation at each x through the _LAGRANGE sorted ``nodes`` around it (the first or last ones at
    the ends; all when there are fewer): their indices and Lagrange weights, each (len(x), _LAGRANGE). For log
    densities: no oscillation where a polynomial through all the nodes has it, exact for a normal density."""
    count = min(_LAGRANGE, len(nodes))
    start = np.clip(np.searchsorted(nodes, x) - count // 2, 0, len(nodes) - count)
    index = start[:, None] + np.arange(count)
    at = nodes[index]  # (len(x), count)
    weights = np.ones(index.shape)
    for j in range(count):
        for m in range(count):
            if m != j:
                weights[:, j] *= (x - at[:, m]) / (at[:, j] - at[:, m])
    return index, weights


def _floored_log(values):
    """log of values >= 0, at least _LOG_FLOOR below the largest along the last axis (and finite)."""
    return np.log(np.maximum(values, np.maximum(values.max(axis=-1, keepdims=True) * math.exp(-_LOG_FLOOR), 1e-300)))


def _truncated_exponential(rate, length, u):
    """The inverse CDF at u of the density proportional to exp(-rate x) on [0, length], elementwise (rate of
    either sign; length may be infinite where rate > 0)."""
    rate, length, u = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (rate, length, u)))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(np.abs(rate) * length < 1e-9, u * length, -np.log1p(u * np.expm1(-rate * length)) / rate)


def _draw_delta0(node: _Node, size, rng):
    """delta0 given the node's sigma0 (the local interpolant of its log conditional density in each segment's v,
    exponentiated on a grid _FINE times as fine as the nodes, piecewise linear between; the quadrature's own
    interpolants, polynomials of the density through a piece's nodes, oscillate where a piece is wide), and per
    draw the masses of the nu nodes given that delta0 (the same interpolants of the log joint densities)."""
    fine = [segment.fine_v(_FINE) for segment in node.segments]
    local = [_lagrange_weights(segment.v, v) for segment, v in zip(node.segments, fine)]
    log_density = _floored_log(np.concatenate([joint.sum(axis=1) for joint in node.joint]))
    xs, densities, start = [], [], 0
    for segment, v, (index, weights) in zip(node.segments, fine, local):
        x = segment.center + segment.scale * np.sinh(v)
        density = np.exp((log_density[start + index] * weights).sum(axis=1))
        xs.append(np.concatenate([[x[0]], x, [x[-1]]]))  # zero at both ends: no mass between segments
        densities.append(np.concatenate([[0.0], density, [0.0]]))
        start += segment.size
    delta0 = _linear_draws(np.concatenate(xs), np.concatenate(densities), rng.random(size))
    log_joint = _floored_log(np.concatenate(node.joint).T).T  # (nodes, nu), floored per nu node
    masses, start = np.empty((size, log_joint.shape[1])), 0
    for segment, x in zip(node.segments, xs):
        rows = np.flatnonzero((delta0 >= x[0]) & (delta0 <= x[-1]))
        index, weights = _lagrange_weights(segment.v, np.arcsinh((delta0[rows] - segment.center) / segment.scale))
        logs = np.einsum("rk,rkm->rm", weights, log_joint[start + index])
        masses[rows] = np.exp(logs - logs.max(axis=1, keepdims=True))
        start += segment.size
    return delta0, masses


def _draw_nu(nus: _NuGrid, masses, alpha, beta, rng):
    """nu given the masses of its nodes (draws, nodes): the lump below nu = 1.001 or a panel of log(nu - 1) in
    proportion to their masses, then within the panel the local interpolant of the log density (masses over the
    rule's weights), exponentiated on a grid _FINE times as fine as the nodes."""
    size, start = len(masses), int(nus.lump)
    pieces = np.concatenate([masses[:, :start], masses[:, start:].reshape(size, -1, nus.points).sum(axis=2)],
                            axis=1)
    cumulative = np.cumsum(pieces, axis=1)
    piece = (cumulative < (rng.random(size) * cumulative[:, -1])[:, None]).sum(axis=1)
    piece = np.minimum(piece, pieces.shape[1] - 1)
    nu = np.empty(size)
    lump = piece < start
    nu[lump] = 1 + _draw_lump(alpha, beta, int(lump.sum()), rng)
    rows = np.flatnonzero(~lump)
    panel = piece[rows] - start
    tau = np.log(nus.nu[start:] - 1)
    fine = np.array([np.linspace(a, b, _FINE * nus.points + 1) for a, b in nus.panels])  # (panels, F)
    index, weights = _lagrange_weights(tau, fine.ravel())
    index, weights = (v.reshape(*fine.shape, -1)[panel] for v in (index, weights))  # (rows, F, _LAGRANGE)
    log_density = _floored_log(masses[rows, start:] / nus.rule[start:])
    logs = (np.take_along_axis(log_density, index.reshape(len(rows), -1), axis=1).reshape(index.shape)
            * weights).sum(axis=2)
    density = np.exp(logs - logs.max(axis=1, keepdims=True))
    nu[rows] = 1 + np.exp(_linear_draws(fine[panel], density, rng.random(len(rows))))
    return nu


def _draw_lump(alpha, beta, size, rng):
    """nu - 1 from its prior given nu - 1 < _NU_LUMP: (a, b) from the prior accepted with probability
    P(a, b _NU_LUMP) over its largest value (at the smallest a and largest b: Gamma(a) grows with a in
    distribution), then nu - 1 from Gamma(a, rate b) truncated to (0, _NU_LUMP) by inversion."""
    out = np.empty(0)
    bound = special.gammainc(alpha[0], beta[1] * _NU_LUMP)
    while len(out) < size:
        count = 64 * (size - len(out))
        a, b = rng.uniform(*alpha, count), rng.uniform(*beta, count)
        inside = special.gammainc(a, b * _NU_LUMP)
        keep = rng.random(count) * bound < inside
        x = special.gammaincinv(a[keep], rng.random(keep.sum()) * inside[keep]) / b[keep]
        out = np.concatenate([out, np.minimum(x, _NU_LUMP)])
    return out[:size]


def _draw_members(lik: _Likelihoods, delta0, sigma0, nu, rng):
    """delta_i given (delta0, sigma0, nu) for every draw (rows) and data set (columns): the density
    L_i(d) t_nu(d; delta0, sigma0) on the union of two grids, d = delta0 + sigma0 sinh(v) (v in steps of _STEP
    out to _CORE, and in _SPAN_POINTS equal steps over L_i's support) and L_i's profile points (steps of _STEP),
    so that either factor may be far narrower than the other and both modes of a heavy-tailed kernel far from
    L_i are there; piecewise exponential in between."""
    size = len(delta0)
    out = np.empty((size, lik.q))
    u = rng.random((size, lik.q))
    span, core = np.linspace(0.0, 1.0, _SPAN_POINTS), np.linspace(-_CORE, _CORE, round(2 * _CORE / _STEP) + 1)
    for start in range(0, size, _CHUNK):  # rows in chunks: the arrays stay in the processor's cache
        rows = slice(start, start + _CHUNK)
        d0, s0, half = delta0[rows, None], sigma0[rows, None], 0.5 * (nu[rows, None] + 1)
        for i in range(lik.q):
            low, high = lik.edges[i, 0], lik.edges[i, -1]
            v_low, v_high = np.arcsinh((low - d0) / s0), np.arcsinh((high - d0) / s0)
            grown = np.exp(np.concatenate([v_low + (v_high - v_low) * span, np.clip(core, v_low, v_high)], axis=1))
            own = lik.profile_points(i, _STEP)
            d = np.concatenate([d0 + s0 * (0.5 * (grown - 1 / grown)), np.broadcast_to(own, (len(d0), len(own)))],
                               axis=1)  # sinh written out: faster
            d = np.sort(np.clip(d, low, high), axis=1)
            z = (d - d0) / s0
            log_density = lik.log_level(i, d) - half * np.log(1 + z * z / (2 * half - 1))
            out[rows, i] = _exponential_draws(d, log_density, u[rows, i])
    return out


def _draw_sigmas(data, delta, rng):
    """sigma_i given delta_i: u = sigma_i^-2 has density proportional to u^(k - 1) exp(-B_i u), k = (n_i - 1) / 2,
    on [1 / hi_i^2, 1 / lo_i^2] (the likelihood sigma^-n exp(-B / sigma^2) times the uniform prior, see the
    module docstring); B_u = x is drawn from Gamma(k) truncated to [B / hi^2, B / lo^2]."""
    xbar, ss, n, rho, lo, hi = data
    c = (1 - rho) / n + rho
    b = np.maximum(0.5 * ((delta - xbar) ** 2 / c + ss / (1 - rho)), 1e-300)  # B = 0 only at a tie's own mean
    x = _truncated_gamma((n - 1) / 2, b / hi**2, b / lo**2, rng)
    return np.clip(np.sqrt(b / x), lo, hi)


def _truncated_gamma(k, a, b, rng):
    """Gamma(k, 1) truncated to [a, b], elementwise: by inversion of the regularised incomplete gamma function
    from the side where it is small (lower below the median, upper above it); where even that underflows (the
    interval far in a tail: k - b or a - k over ~37 sqrt(k)), by rejection from the exponential tangent to the
    log density of log x at the interval's end nearer the mode (acceptance near 1 there)."""
    shape = np.broadcast(k, a, b).shape
    k, a, b = (np.ravel(v) for v in np.broadcast_arrays(k, a, b))
    u = rng.random(k.shape)
    x = np.empty(k.shape)
    pb = special.gammainc(k, b)
    low = np.flatnonzero(pb < 0.5)  # the interval below the median: P is small and accurate there
    p = pb[low] - u[low] * (pb[low] - special.gammainc(k[low], a[low]))
    x[low] = special.gammaincinv(k[low], np.maximum(p, 1e-300))
    high = np.flatnonzero(pb >= 0.5)
    qa = special.gammaincc(k[high], a[high])
    q = qa - u[high] * (qa - special.gammaincc(k[high], b[high]))
    x[high] = np.where(q < 0.5, special.gammainccinv(k[high], q), special.gammaincinv(k[high], 1 - q))
    far = np.concatenate([low[pb[low] < 1e-290], high[qa < 1e-290]])
    if len(far):
        x[far] = _gamma_tail(k[far], a[far], b[far], pb[far] < 0.5, rng)
    return np.clip(x, a, b).reshape(shape)


def _gamma_tail(k, a, b, below, rng):
    """Gamma(k, 1) truncated to [a, b] far in its lower tail (``below``: b < k) or its upper tail (a > k): w =
    log x has the concave log density f(w) = k w - e^w; from the end w0 nearer the mode its tangent
    f(w0) - r |w - w0| (r = |k - e^w0|) bounds it, so |w - w0| is proposed from the exponential of rate r
    truncated to the interval and accepted with probability exp(f(w) - tangent)."""
    with np.errstate(divide="ignore"):
        w_a, w_b = np.log(a), np.log(b)
    start = np.where(below, w_b, w_a)
    rate = np.abs(k - np.exp(start))
    sign = np.where(below, -1.0, 1.0)
    out, todo = np.empty(len(k)), np.arange(len(k))
    while len(todo):
        length = w_b[todo] - w_a[todo]
        step = _truncated_exponential(rate[todo], length, rng.random(len(todo)))
        w = start[todo] + sign[todo] * step
        gap = np.exp(start[todo]) * (np.expm1(w - start[todo]) - (w - start[todo]))  # tangent - f >= 0
        accept = np.log(rng.random(len(todo))) < -gap
        out[todo[accept]] = np.exp(w[accept])
        todo = todo[~accept]
    return out


def _linear_draws(x, density, u):
    """The inverse CDF at u (one per row) of the piecewise-linear density through (x, density): one density per
    row of 2-D x and density, or one for all rows when they are 1-D."""
    x, density = np.atleast_2d(x), np.atleast_2d(density)
    h = np.diff(x, axis=1)
    mass = 0.5 * h * (density[:, 1:] + density[:, :-1])
    cumulative = np.cumsum(mass, axis=1)
    target = u * cumulative[:, -1]
    j = np.minimum((cumulative < target[:, None]).sum(axis=1), h.shape[1] - 1)
    rows = np.arange(len(u)) if len(x) > 1 else np.zeros(len(u), dtype=int)
    left, width = density[rows, j], h[rows, j]
    m = np.maximum(target - (cumulative[rows, j] - mass[rows, j]), 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        slope = np.where(width > 0, (density[rows, j + 1] - left) / width, 0.0)
        root = left + np.sqrt(np.maximum(left * left + 2 * slope * m, 0.0))
        step = np.where(root > 0, 2 * m / root, 0.0)  # f0 s + slope s^2 / 2 = m
    return x[rows, j] + np.clip(step, 0.0, width)


def _exponential_draws(x, log_density, u):
    """The inverse CDF at u (one per row) of the piecewise-exponential density through (x, exp(log_density)),
    rows of x sorted (log_density finite)."""
    g = np.maximum(log_density - log_density.max(axis=1, keepdims=True), -700.0)
    h, rise, level = np.diff(x, axis=1), np.diff(g, axis=1), np.exp(g)
    flat = np.abs(rise) < 1e-6
    with np.errstate(divide="ignore", invalid="ignore"):  # int of e^g over a step: h (e^g1 - e^g0) / rise
        mass = h * np.where(flat, level[:, :-1] * (1 + rise * (0.5 + rise / 6)), np.diff(level, axis=1) / rise)
    cumulative = np.cumsum(mass, axis=1)
    target = u * cumulative[:, -1]
    rows = np.arange(len(u))
    j = np.minimum((cumulative < target[:, None]).sum(axis=1), h.shape[1] - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.clip((target - (cumulative[rows, j] - mass[rows, j])) / mass[rows, j], 0.0, 1.0)
        r = rise[rows, j]
        fraction = np.where(flat[rows, j], share * (1 - 0.5 * r * (1 - share)), np.log1p(share * np.expm1(r)) / r)
    return x[rows, j] + h[rows, j] * np.clip(np.nan_to_num(fraction), 0.0, 1.0)
