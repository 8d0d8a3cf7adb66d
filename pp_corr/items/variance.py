"""Where the variance of item-level scores comes from: items, runs and what is left (their interaction and the
sampling of answers), from the two-way layout of one model's scores y[item, run] on one benchmark.

With y[i, r] = mu + a_i + u_r + e_ir (item effects a, run shifts u, residual e; variances s_item, s_run,
s_resid), the mean squares of the complete items (those scored in every run) have the expectations

    MS_item = R sum_i (ybar_i. - ybar)^2 / (I - 1)         -> s_resid + R s_item
    MS_run  = I sum_r (ybar_.r - ybar)^2 / (R - 1)         -> s_resid + I s_run
    MS_resid = sum_ir (y_ir - ybar_i. - ybar_.r + ybar)^2 / ((I - 1)(R - 1))  -> s_resid

(the method-of-moments estimates below are these solved and cut at 0). A run mean ybar_.r varies about its
expectation by tau = s_run + s_resid / I, with (R - 1) tau_hat / tau ~ chi^2(R - 1): :func:`run_shift_draws`
draws s_run from that, given s_resid / I (known to many degrees of freedom) as its floor.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats


@dataclass(frozen=True)
class TwoWay:
    """One model's scores on one benchmark in two-way layout: the run means' sum of squared deviations
    ``run_squares`` over ``runs`` runs, the residual mean square ``resid`` on ``resid_df`` degrees of freedom,
    the item mean square ``item_square`` and the ``items`` they rest on."""

    items: int
    runs: int
    run_squares: float
    resid: float
    resid_df: int
    item_square: float

    @property
    def components(self) -> dict:
        """Method-of-moments variances: ``item``, ``run`` and ``residual`` (item x run interaction and sampling).

        >>> y = np.add.outer(np.arange(4.0), [0.0, 1.0, 0.0])  # items 0..3, run 2 shifted by 1
        >>> {k: round(v, 3) for k, v in two_way(y).components.items()}
        {'item': 1.667, 'run': 0.333, 'residual': 0.0}
        """
        run_square = self.items * self.run_squares / max(self.runs - 1, 1)
        return {"item": max((self.item_square - self.resid) / self.runs, 0.0),
                "run": max((run_square - self.resid) / self.items, 0.0) if self.runs > 1 else 0.0,
                "residual": self.resid}

    def run_effect_pvalue(self) -> float:
        """The F test's p-value for run shifts (MS_run / MS_resid); 1 with one run or no residual variation.

        >>> y = np.add.outer(np.arange(50.0) % 7, [0.0, 0.5]) + np.random.default_rng(0).normal(0, 0.1, (50, 2))
        >>> two_way(y).run_effect_pvalue() < 1e-6
        True
        """
        if self.runs < 2 or self.resid_df == 0 or self.resid == 0:
            return 1.0
        ratio = self.items * self.run_squares / (self.runs - 1) / self.resid
        return float(stats.f.sf(ratio, self.runs - 1, self.resid_df))


def two_way(y) -> TwoWay:
    """The two-way summaries of ``y`` (items, runs), NaN for a missing score: the run means over the items
    scored in every run (all items when each run has them all).

    >>> two_way(np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 0.0]])).run_squares
    0.05555555555555555
    """
    y = np.asarray(y, dtype=float)
    y = y[:, np.isfinite(y).any(axis=0)]  # runs this model has
    complete = y[np.isfinite(y).all(axis=1)]
    items, runs = complete.shape
    if items == 0:
        return TwoWay(0, runs, 0.0, 0.0, 0, 0.0)
    item_means, run_means = complete.mean(axis=1), complete.mean(axis=0)
    grand = complete.mean()
    resid_df = (items - 1) * (runs - 1)
    residual = complete - item_means[:, None] - run_means[None, :] + grand
    resid = float((residual ** 2).sum() / resid_df) if resid_df else 0.0
    item_square = float(runs * ((item_means - grand) ** 2).sum() / (items - 1)) if items > 1 else 0.0
    return TwoWay(items, runs, float(((run_means - grand) ** 2).sum()), resid, resid_df, item_square)


def run_shift_draws(summaries, n, rng, *, nodes=4001) -> np.ndarray:
    """``n`` posterior draws of the variance s_run of the run shifts, one variance shared by the models whose
    ``summaries`` (:class:`TwoWay`) are given: each model's run means have sum of squares
    run_squares_m ~ (s_run + f_m) chi^2(R_m - 1), f_m = s_resid_m / I_m its floor, and s_run has the prior
    1 / (s_run + f), f the mean floor (1 / tau, the scale-invariant prior, for one model). The posterior is one-
    dimensional: drawn by inverting its CDF on ``nodes`` points of log(s_run + f), spaced out to where the
    tail holds 1e-12 of the mass.

    >>> y = np.add.outer(np.arange(30.0) % 5, [0.0, 0.3, -0.2])
    >>> noisy = [two_way(y + np.random.default_rng(seed).normal(0, 0.1, y.shape)) for seed in (1, 2)]
    >>> draws = run_shift_draws(noisy, 20_000, np.random.default_rng(3))
    >>> bool(draws.min() >= 0), bool(0.01 < np.median(draws) < 1)
    (True, True)
    """
    for summary in summaries:
        if summary.runs < 2:
            raise ValueError("one run cannot tell a run's shift: runs='seeds' needs at least two runs of each model")
        if summary.items < 2:
            raise ValueError("runs='seeds' needs two or more items scored in every run of each model, to tell a "
                             f"seed's shift from the items' (a model has {summary.items})")
    squares = np.array([s.run_squares for s in summaries])
    half_df = np.array([(s.runs - 1) / 2 for s in summaries])
    floors = np.array([s.resid / s.items for s in summaries])
    floor = floors.mean()
    if not squares.any() and floor == 0:
        return np.zeros(n)
    scale = squares.sum() / (2 * half_df.sum()) + floor  # the typical size of s_run + f
    # the tail of s_run is at least as heavy as scale * X^-1 with X ~ chi^2(2 half_df), P ~ (scale / s)^half_df
    top = np.log(scale) + np.log(1e12) / half_df.sum() + 2.0
    bottom = np.log(floor) if floor > 0 else np.log(scale) - 40.0
    t = np.linspace(bottom, top, nodes)  # log(s_run + f)
    s_run = np.maximum(np.exp(t) - floor, 0.0)
    total = s_run[:, None] + floors[None, :]
    with np.errstate(divide="ignore"):
        log_density = (-half_df * np.log(total) - 0.5 * squares / total).sum(axis=1)  # prior 1/(s + f) x Jacobian
    density = np.exp(log_density - log_density.max())
    cdf = np.concatenate([[0.0], np.cumsum((density[1:] + density[:-1]) / 2)])
    draws_t = np.interp(rng.random(n) * cdf[-1], cdf, t)
    return np.maximum(np.exp(draws_t) - floor, 0.0)
