"""The stopping rules of a sequential comparison on one data set (docs/theory.md, section 10).

After n fold differences B - A (correlation rho between any two folds of the data set) the matching prior's
posterior of the mean difference mu is Student-t with n - 1 degrees of freedom, centre the sample mean and
scale^2 = (1/n + rho/(1 - rho)) s_n^2: :func:`pp_corr.correlated_ttest` on the folds seen so far, used here as
it is. Three rules read that posterior:

* **decision**: a region (A better, rope, B better) whose posterior probability reaches 1 - ``alpha``;
* **floor**: as runs are added the factor 1/n + rho/(1 - rho) tends to rho/(1 - rho), not 0. If even that floor
  (the current s_n^2 times rho/(1 - rho), a Normal as the degrees of freedom grow) leaves every region below
  1 - ``alpha``, no number of runs decides: more data sets (or more data) are needed, not more runs;
* **futility**: the predictive probability that the full budget decides, from completions of the design drawn
  from the posterior predictive of the remaining folds (:func:`predictive_success`).
"""
from __future__ import annotations

import warnings

import numpy as np
from scipy import stats

from .._args import as_rope
from ..pairwise.ttest import DegenerateWarning, correlated_ttest

REGIONS = ("left", "rope", "right")


def posterior_regions(x, rho, rope):
    """(P(A better), P(rope), P(B better)) of the correlated t-test on the differences ``x`` (..., n): the
    posterior after the folds seen so far. A point mass (all differences equal) answers 0 or 1 silently.

    >>> [round(float(p), 3) for p in posterior_regions([0.01, 0.03, 0.02, 0.04], 0.25, 0.01)]
    [0.019, 0.094, 0.887]
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateWarning)
        res = correlated_ttest(np.asarray(x, dtype=float), rho=rho, rope=rope)
    return res.p_left, res.p_rope, res.p_right


def decide(probabilities, alpha):
    """The region whose probability reaches 1 - ``alpha`` ("left", "rope" or "right"), else "none".

    >>> decide((0.01, 0.02, 0.97), 0.05), decide((0.3, 0.4, 0.3), 0.05)
    ('right', 'none')
    """
    p = np.asarray(probabilities, dtype=float)
    best = int(np.nanargmax(p)) if not np.isnan(p).all() else 0
    return REGIONS[best] if p[best] >= 1 - alpha else "none"


def floor_regions(x, rho, rope):
    """The region probabilities at the floor: infinitely many more runs with the current spread, i.e. a Normal
    centred at the mean of ``x`` with variance rho/(1 - rho) s_n^2 (s_n^2 the sample variance of ``x``). With
    rho = 0 (or s_n = 0) the floor is a point mass at the mean. ``rope`` is a half-width or a pair.

    >>> [round(float(p), 3) for p in floor_regions([0.01, 0.03, 0.02, 0.04], 0.25, 0.01)]
    [0.0, 0.022, 0.978]
    """
    x = np.asarray(x, dtype=float)
    lo, hi = as_rope(rope) or (0.0, 0.0)
    mean, spread = x.mean(), np.sqrt(rho / (1 - rho)) * x.std(ddof=1)
    if spread == 0:
        return float(mean < lo), float(lo <= mean <= hi), float(mean > hi)
    left, below_hi = stats.norm.cdf([lo, hi], mean, spread)
    return float(left), float(below_hi - left), float(stats.norm.sf(hi, mean, spread))


def _predictive_draws(x, rho, simulations, rng):
    """Draws of (mu, sigma^2, w) from the posterior given the folds ``x``, w = sigma sqrt(rho) u the component
    shared by every fold of the data set, or None when the posterior is a point mass (all differences equal).

    (mu, nu = 1 / sigma^2) is the Normal-Gamma posterior of :func:`pp_corr.correlated_ttest` (nu ~ Gamma(a, b),
    mu | nu ~ N(mu0, k0 / nu)); given them and ``x``, w is Normal with precision 1 / (rho sigma^2) + n / ((1 - rho)
    sigma^2) and centre (sum x - n mu) / ((1 - rho) sigma^2) over that precision.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateWarning)
        post = correlated_ttest(x, rho=rho).posterior_params
    if post.b == 0:
        return None
    nu = rng.gamma(post.a, 1 / post.b, simulations)
    sigma2 = 1 / nu
    mu = post.mu0 + np.sqrt(post.k0 * sigma2) * rng.standard_normal(simulations)
    if rho == 0:
        return mu, sigma2, np.zeros(simulations)
    precision = 1 / (rho * sigma2) + x.size / ((1 - rho) * sigma2)
    centre = (x.sum() - x.size * mu) / ((1 - rho) * sigma2) / precision
    return mu, sigma2, centre + rng.standard_normal(simulations) / np.sqrt(precision)


def _share(decided):
    share = float(np.mean(decided))
    return share, float(np.sqrt(share * (1 - share) / len(decided)))


def floor_success(x, rho, rope, alpha, *, simulations=400, random_seed=None):
    """The predictive probability that infinitely many more runs decide, and its Monte Carlo standard error.

    With every fold of the data set seen, the posterior of mu is Normal, centred at mu + w (the data set's own
    mean, w the shared component) with variance rho sigma^2 (the floor rho/(1 - rho) s^2, as s^2 tends to
    (1 - rho) sigma^2). Each of ``simulations`` draws of (mu, sigma^2, w) from the current posterior
    (:func:`predictive_success` explains them) gives that limit; the answer is the share whose best region
    reaches 1 - ``alpha``. Below the futility threshold no number of runs is likely to decide.

    >>> share, mcse = floor_success([0.01, 0.03, 0.02, 0.04] * 5, 0.25, 0.01, 0.05, random_seed=0)
    >>> bool(0.3 < share <= 1), bool(mcse < 0.03)
    (True, True)
    """
    x = np.asarray(x, dtype=float)
    draws = _predictive_draws(x, rho, simulations, np.random.default_rng(random_seed))
    if draws is None:
        return float(decide(posterior_regions(x, rho, rope), alpha) != "none"), 0.0
    mu, sigma2, shared = draws
    lo, hi = as_rope(rope) or (0.0, 0.0)
    centre, spread = mu + shared, np.sqrt(rho * sigma2)
    with np.errstate(divide="ignore", invalid="ignore"):
        left, below_hi = stats.norm.cdf(lo, centre, spread), stats.norm.cdf(hi, centre, spread)
    if rho == 0:  # no floor: the limit is a point mass at mu + w
        left, below_hi = (centre < lo).astype(float), (centre <= hi).astype(float)
    p = np.stack([left, below_hi - left, 1 - below_hi], axis=1)
    return _share((p >= 1 - alpha).any(axis=1))


def predictive_success(x, rho, rope, alpha, total, *, simulations=400, random_seed=None):
    """The predictive probability that the design completed to ``total`` folds decides, and its Monte Carlo
    standard error: ``(share, mcse)``.

    Each of ``simulations`` completions draws (mu, sigma^2) from the Normal-Gamma posterior after the folds ``x``
    (read from :func:`pp_corr.correlated_ttest`), then the component w = sigma sqrt(rho) u shared by every fold
    of the data set given the folds seen, and the ``total - n`` new folds mu + w + sqrt(1 - rho) sigma e_j:
    together a draw of the multivariate-t predictive with the intraclass covariance. The share of completions
    whose correlated t-test reaches 1 - ``alpha`` in some region is the answer.

    >>> share, mcse = predictive_success([0.01, 0.03, 0.02, 0.04] * 5, 0.25, 0.01, 0.05, 40, random_seed=0)
    >>> bool(0.3 < share <= 1), bool(mcse < 0.03)
    (True, True)
    """
    x = np.asarray(x, dtype=float)
    n, missing = x.size, total - x.size
    if missing <= 0:
        raise ValueError(f"total must exceed the {n} folds seen, got {total}")
    rng = np.random.default_rng(random_seed)
    draws = _predictive_draws(x, rho, simulations, rng)
    if draws is None:  # all differences equal: the posterior (and the predictive) is a point mass
        return float(decide(posterior_regions(x, rho, rope), alpha) != "none"), 0.0
    mu, sigma2, shared = draws
    new = (mu + shared)[:, None] + np.sqrt((1 - rho) * sigma2)[:, None] * rng.standard_normal((simulations, missing))
    completed = np.concatenate([np.broadcast_to(x, (simulations, n)), new], axis=1)
    p = np.stack(posterior_regions(completed, rho, rope), axis=1)
    return _share((p >= 1 - alpha).any(axis=1))


def region_label(region, names):
    """'P(A better)', 'P(rope)' or 'P(B better)' for the region 'left', 'rope' or 'right'."""
    a, b = names
    return {"left": f"P({a} better)", "rope": "P(rope)", "right": f"P({b} better)"}[region]


def run_step(x, runs, folds, rho, rope, alpha, futility, max_runs, simulations, rng, names):
    """The rules after ``runs`` runs of ``folds`` folds (the differences ``x``): (history record, decision, reason
    in words, or None to go on). A decision first, then the budget, the floor and the budget's futility."""
    p = posterior_regions(x, rho, rope)
    record = {"runs": runs, "p_left": float(p[0]), "p_rope": float(p[1]), "p_right": float(p[2]),
              "floor": max(floor_regions(x, rho, rope)), "p_floor": np.nan, "p_success": np.nan}
    decision = decide(p, alpha)
    if decision != "none":
        return record, decision, (f"{region_label(decision, names)} = {max(p):.3g} >= {1 - alpha:g} after {runs} of "
                                  f"{max_runs} runs")
    if runs >= max_runs:
        return record, decision, f"budget exhausted: {max_runs} runs and every region below {1 - alpha:g}"
    record["p_floor"] = floor_success(x, rho, rope, alpha, simulations=simulations, random_seed=rng)[0]
    if record["p_floor"] < futility:
        return record, decision, (f"even infinitely many runs would decide with probability {record['p_floor']:.3g} "
                                  f"< {futility} (the floor rho/(1-rho) s^2 leaves the best region at "
                                  f"{record['floor']:.3g}): add data sets, not runs")
    record["p_success"] = predictive_success(x, rho, rope, alpha, max_runs * folds, simulations=simulations,
                                             random_seed=rng)[0]
    if record["p_success"] < futility:
        return record, decision, (f"the full budget of {max_runs} runs would decide with probability "
                                  f"{record['p_success']:.3g} < {futility}")
    return record, decision, None
