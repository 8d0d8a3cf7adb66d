"""The exact posterior's entry point and result: the arguments checked, the computation run (and repeated on a grid
half as fine for the error estimate), the sigma0 nodes combined into :class:`ExactPosterior`'s summaries."""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from ..._args import as_rope, check_choice, check_real
from ...pairwise.intraclass import real_array
from .grid import ExactGrid
from .integrals import legendre_series, nu_prior_functions
from .refinement import Problem

METHODS = ("auto", "mcmc", "exact")  # hierarchical_test: the quadrature where the model has one, else MCMC; or either
SUMMARY_FIELDS = ("delta0_mean", "delta0_sd", "delta0_p_positive", "delta0_q025", "delta0_q975",
                  "p_left", "p_rope", "p_right", "win_left", "win_rope", "win_right",
                  "nu_mean", "nu_p_below_2", "sigma0_median", "sigma0_p_below_0_01")
DATASET_FIELDS = ("delta_mean", "delta_sd", "delta_p_left", "delta_p_rope", "delta_p_right", "delta_p_positive")
PROBABILITY_FIELDS = ("delta0_p_positive", "p_left", "p_rope", "p_right", "win_left", "win_rope", "win_right",
                      "nu_p_below_2", "sigma0_p_below_0_01", "delta_p_left", "delta_p_rope", "delta_p_right",
                      "delta_p_positive")


def check_method(method) -> str:
    """``method`` of :func:`pp_corr.hierarchical_test` (one of :data:`METHODS`), checked.

    >>> check_method("exact")
    'exact'
    """
    return check_choice("method", method, METHODS)


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
                    rope=(0.0, 0.0), grid=None, population="student_t", nu_distribution=None) -> ExactPosterior:
    """The posterior of the hierarchical model by deterministic quadrature (see :mod:`pp_corr.hierarchical.exact`).

    ``xbar``, ``ss``, ``n``, ``rho``: per data set the mean of its fold differences, their sum of squared
    deviations (may be 0), their count (>= 2) and correlation (in [0, 1)), all in the model's unit.
    ``delta0_max`` = D and ``sigma0_max`` = U bound delta0 ~ U(-D, D) and sigma0 ~ U(0, U); ``sigma_bounds`` =
    (lo, hi), scalars or one per data set, bound sigma_i ~ U(lo, hi); ``alpha`` and ``beta`` are the ranges of
    nu's hyperpriors; ``rope`` a half-width r (the rope (-r, r)) or a pair (lo, hi); ``grid`` an
    :class:`ExactGrid`. ``population="normal"``: delta_i ~ N(delta0, sigma0) instead (no nu: ``alpha`` and ``beta``
    unused, ``nu_mean`` inf), the kernel the t density at nu = 1e8 (:data:`.grid.NORMAL_NU`).
    ``nu_distribution``: another prior of nu, a frozen scipy.stats law of nu - 1 on x > 0 (``alpha`` and ``beta``
    then unused), e.g. Kruschke's ``stats.expon(scale=29)``.

    >>> post = exact_posterior([0.2, 0.5, -0.1], [9.0, 12.0, 7.0], 10, 0.1, delta0_max=3.0, sigma0_max=30.0,
    ...                        sigma_bounds=(0.01, 100.0), grid=ExactGrid(error_estimate=False))
    >>> bool(0.5 < post.delta0_p_positive < 1), round(post.p_left + post.p_rope + post.p_right, 9)
    (True, 1.0)
    """
    return solve(xbar, ss, n, rho, delta0_max, sigma0_max, sigma_bounds, alpha, beta, rope, grid, population,
                 nu_distribution)[0]


def solve(xbar, ss, n, rho, delta0_max, sigma0_max, sigma_bounds, alpha, beta, rope, grid, population="student_t",
          nu_distribution=None):
    """The checked arguments' posterior (with the error estimate when the grid asks for it), the problem at the
    grid's resolution and what its run returned."""
    xbar, ss, n, rho, lo, hi = _check(xbar, ss, n, rho, sigma_bounds)
    delta0_max = check_real("delta0_max", delta0_max, low=0, low_open=True)
    sigma0_max = check_real("sigma0_max", sigma0_max, low=0, low_open=True)
    alpha, beta = _check_range("alpha", alpha), _check_range("beta", beta)
    rope = as_rope(rope)
    population = check_choice("population", population, ("student_t", "normal"))
    if grid is None:
        grid = ExactGrid()
    elif not isinstance(grid, ExactGrid):
        raise TypeError(f"grid must be an ExactGrid or None, got {type(grid).__name__}")
    problem = Problem(xbar, ss, n, rho, lo, hi, (-delta0_max, delta0_max), sigma0_max, alpha, beta, rope, grid,
                      population, nu_distribution)
    run = problem.run()
    result = _assemble(problem, *run)
    if grid.error_estimate:
        result = replace(result, error=_error(result, _coarse(problem, run)))
    return result, problem, run


def _coarse(problem: Problem, run) -> ExactPosterior:
    """The posterior on a grid half as fine in every direction: ``problem`` at ``grid.coarser()`` on the sigma0
    panels of its ``run`` merged in pairs, each node's delta0 segments started from the run's nearest node."""
    coarse = problem.coarser()
    panels, weighted, _ = run
    seeds = {node.t: node for node, _ in weighted}
    merged = coarse.coarser_panels(panels, weighted, coarse.grid.sigma0_tolerance)
    return _assemble(coarse, *coarse.run(merged, seeds))


def _error(result: ExactPosterior, coarse: ExactPosterior) -> dict:
    """Each summary's change from ``coarse`` (the largest over data sets for the per-data-set arrays)."""
    error = {name: _change(getattr(result, name), getattr(coarse, name)) for name in SUMMARY_FIELDS}
    error.update({name: float(np.max(np.abs(getattr(result, name) - getattr(coarse, name))))
                  for name in DATASET_FIELDS})
    return error


def _change(value, coarse) -> float:
    """|value - coarse|, 0 where both are the same (nu's mean, inf for the normal population)."""
    return 0.0 if value == coarse else abs(value - coarse)


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


def _assemble(problem: Problem, panels, weighted, tails) -> ExactPosterior:
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
    q025, q975, first, last = invert(delta0_cdf, np.array([0.025, 0.975, 5e-4, 1 - 5e-4]), span)
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
        nu_mean=math.inf if nus.normal_population else float(nu_mass @ nus.nu),
        nu_p_below_2=float(nu_mass @ nus.below_2),
        sigma0_median=sigma0_median, sigma0_p_below_0_01=below,
        delta_mean=lik.xbar + lik.scale * mean_y, delta_sd=sd, delta_p_left=left,
        delta_p_rope=np.clip(1 - left - right, 0, 1) if problem.rope[1] > problem.rope[0] else np.zeros_like(left),
        delta_p_right=right,
        delta_p_positive=np.clip(datasets[:, 4], 0, 1), positive_count=count,
        delta0_grid=grid_x, delta0_density=density,
        sigma0_grid=np.exp(t), sigma0_density=_sigma0_density(weighted, extra, w),
        nu_grid=np.full(1, np.inf) if nus.normal_population else nus.nu,
        nu_density=(np.ones(1) if nus.normal_population else
                    nu_mass / nus.weight * nu_prior_functions(problem.alpha, problem.beta,
                                                              problem.nu_distribution)[1](nus.nu)),
        nodes=int(sum(len(np.concatenate([s.nodes for s in node.segments])) for node in nodes) * len(nus.nu)))


def invert(cdf, p, span, points=32, rounds=10):
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


def _panel_cdf(a, b, values, x):
    """int_a^x of the Legendre interpolant of ``values`` (at the Gauss-Legendre nodes of [a, b])."""
    return float(legendre_series(values, a, b).integ(lbnd=a)(x))
