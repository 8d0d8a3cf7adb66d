"""The Bayesian correlated t-test (Corani & Benavoli 2015, Theorem 2), exact and vectorised."""
from __future__ import annotations

import dataclasses
import functools
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
import xarray as xr
from scipy import special, stats

from .._args import as_rope, check_probability_level, warn_percent_scale
from ..data.scores import differences, pick_algorithms
from ..results import Result, region_decision
from .frequentist import TTestResult, shaped_differences, t_from_stats
from .incomplete import common_datasets, left_out_line
from .intraclass import SufficientStats, check_no_runs, rho_for
from .priors import NormalGamma


class DegenerateWarning(UserWarning):
    """All differences on a data set are equal and the prior is improper: the posterior is a point mass."""


@dataclass(frozen=True, repr=False)
class CorrelatedTTestResult(Result):
    """Posterior of the mean difference mu = B - A, one entry per data set.

    ``p_left`` = P(A better) = P(mu < rope lo), ``p_rope`` = P(lo <= mu <= hi), ``p_right`` =
    P(B better) = P(mu > hi); without a rope lo = hi = 0 and ``p_rope`` = 0. ``p_not_left`` and
    ``p_not_right`` are 1 - ``p_left`` and 1 - ``p_right`` computed without cancellation.
    ``degenerate`` flags point-mass posteriors. ``left_out`` names the data sets of a scores Dataset where the
    two algorithms do not both have a score (they are not rows of the result).

    The posterior is stored as ``scaled_posterior``, the Normal-Gamma posterior of mu / ``scale`` (a power of
    two per data set near the magnitude of its differences), whose parameters stay in float range whatever
    that magnitude; the probabilities, ``mean``, ``interval`` and ``posterior`` come from it.
    ``posterior_params`` is the same posterior in the units of the differences: its ``b`` (squared units)
    overflows to inf beyond about 1e154 (underflows to 0 below about 1e-154).
    """

    scaled_posterior: NormalGamma
    scale: np.ndarray | float
    stats: SufficientStats
    prior: NormalGamma
    rope: tuple[float, float] | None
    rho: np.ndarray | float | None
    p_left: np.ndarray
    p_rope: np.ndarray
    p_right: np.ndarray
    p_not_left: np.ndarray
    p_not_right: np.ndarray
    degenerate: np.ndarray
    names: tuple[str, str] = ("A", "B")
    datasets: tuple[str, ...] | None = None
    left_out: tuple[str, ...] = ()

    @property
    def posterior_params(self) -> NormalGamma:
        """The Normal-Gamma posterior of mu in the units of the differences (``b`` may overflow, see above)."""
        post = self.scaled_posterior
        with np.errstate(over="ignore", under="ignore"):
            return NormalGamma._unchecked(post.mu0 * self.scale, post.k0, post.a, post.b * self.scale * self.scale)

    @property
    def posterior(self):
        """Marginal posterior of mu: a frozen scipy Student-t (vectorised; NaN on degenerate rows)."""
        post = self.scaled_posterior
        with np.errstate(over="ignore", invalid="ignore"):
            return stats.t(df=2 * np.asarray(post.a), loc=self.mean, scale=_spread(post) * self.scale)

    @property
    def mean(self):
        """Posterior mean of mu."""
        return self.scaled_posterior.mu0 * self.scale

    def interval(self, confidence_level=0.95):
        """Central credible interval (lo, hi) of mu; a point on degenerate rows.

        >>> res = correlated_ttest([0.01, 0.03, 0.02, 0.04], folds=4)
        >>> lo, hi = res.interval(0.95); bool(lo < 0.025 < hi)
        True
        """
        check_probability_level("confidence_level", confidence_level)
        post = self.scaled_posterior
        half = stats.t.ppf(0.5 + confidence_level / 2, 2 * post.a) * np.where(self.degenerate, 0.0, _spread(post))
        with np.errstate(over="ignore"):
            return (post.mu0 - half) * self.scale, (post.mu0 + half) * self.scale

    def with_rope(self, rope) -> CorrelatedTTestResult:
        """The same posterior with the probabilities for another rope (a half-width, a pair or None).

        >>> res = correlated_ttest([0.01, 0.03, 0.02, 0.04], folds=4, rope=0.05)
        >>> float(res.with_rope(None).p_rope)
        0.0
        """
        with warnings.catch_warnings():  # already warned when the posterior was computed
            warnings.simplefilter("ignore", DegenerateWarning)
            return dataclasses.replace(_result(self.scaled_posterior, self.scale, self.stats, self.prior,
                                               as_rope(rope), self.rho, self.names, self.datasets),
                                       left_out=self.left_out)

    def frequentist(self, alternative="two-sided") -> TTestResult:
        """The frequentist corrected t-test on the same data (its p-values; rho = 0: paired t-test)."""
        return t_from_stats(self.stats, alternative)

    def to_frame(self, *, confidence_level=0.95) -> pd.DataFrame:
        """One row per data set: mean, interval, the three probabilities and the two-sided p-value.

        >>> correlated_ttest([[0.01, 0.03, 0.02], [0.0, -0.01, 0.01]], folds=3).to_frame(confidence_level=0.9).shape
        (2, 8)
        """
        lo, hi = self.interval(confidence_level)  # checks confidence_level
        a, b = self.names
        level = f"{round(100 * confidence_level, 6):g}%"
        columns = {"mean": self.mean, f"{level} lo": lo, f"{level} hi": hi, f"P({a} better)": self.p_left,
                   "P(rope)": self.p_rope, f"P({b} better)": self.p_right,
                   "p (two-sided)": self.frequentist().pvalue, "degenerate": self.degenerate}
        frame = pd.DataFrame({k: np.atleast_1d(v) for k, v in columns.items()})
        if self.datasets is not None:
            frame.index = pd.Index(self.datasets, name="dataset")
        return frame

    def to_xarray(self) -> xr.Dataset:
        """The per-data-set results as an xarray Dataset (dim ``dataset``)."""
        frame = self.to_frame()
        frame.columns = ["mean", "lower", "upper", "p_left", "p_rope", "p_right", "pvalue", "degenerate"]
        frame.index.name = "dataset"
        return xr.Dataset.from_dataframe(frame).assign_attrs(a=self.names[0], b=self.names[1],
                                                             rope=str(self.rope), prior=repr(self.prior))

    def to_dict(self) -> dict:
        """Plain Python values: names, rope, rho, prior, the data sets left out and one record per data set
        (:meth:`to_frame`'s, with its decision at 0.05).

        >>> correlated_ttest([0.01, 0.03, 0.02, 0.04], folds=4).to_dict()["results"][0]["decision"]
        'B'
        """
        frame = self.to_frame().assign(decision=self.decision())
        return {"a": self.names[0], "b": self.names[1], "rope": self.rope, "left_out": list(self.left_out),
                "rho": np.asarray(self.rho).tolist() if self.rho is not None else None,
                "prior": "matching" if self.prior.is_matching else vars(self.prior),
                "results": frame.reset_index().to_dict(orient="records")}

    def _decide(self, alpha):
        return region_decision(self.names, self.p_left, self.p_rope, self.p_right, alpha)

    def summary(self, *, confidence_level=0.95, alpha=None) -> str:
        """The per-data-set table ``pp-corr compare`` prints: mean difference, interval, the three probabilities
        and the decision at ``alpha`` (default :attr:`alpha`, 0.05), a data set with a point-mass posterior marked.

        >>> print(correlated_ttest([0.01, 0.03, 0.02, 0.04], folds=4, names=("a", "b")).summary())
        b - a (positive: b better), rope None, prior matching
          mean diff        95% interval P(a better) P(rope) P(b better) decision
        0   +0.0250  [-0.0064, +0.0564]       0.043   0.000       0.957        b
        """
        frame = self.to_frame(confidence_level=confidence_level)
        a, b = self.names
        lo, hi = frame.columns[1], frame.columns[2]
        alpha = self._alpha(alpha)
        table = pd.DataFrame({
            "mean diff": frame["mean"].map("{:+.4f}".format),
            f"{lo[:-3]} interval": [f"[{x:+.4f}, {y:+.4f}]" for x, y in zip(frame[lo], frame[hi])],
            **{column: frame[column].map("{:.3f}".format) for column in frame.columns[3:6]},
            "decision": np.atleast_1d(self.decision(alpha))}, index=frame.index)
        flags = np.flatnonzero(frame["degenerate"].values)
        if len(flags):
            table.index = [f"{d}*" if i in set(flags) else d for i, d in enumerate(table.index)]
        prior = "matching" if self.prior.is_matching else repr(self.prior)
        note = "\n* all differences equal: the posterior is a point mass" if len(flags) else ""
        return f"{b} - {a} (positive: {b} better), rope {self.rope}, prior {prior}\n{table.to_string()}{note}"

    def __repr__(self):
        a, b = self.names
        prior = "matching" if self.prior.is_matching else repr(self.prior)
        head = (f"Bayesian correlated t-test: {b} - {a} (positive: {b} better), rope = {self.rope}, "
                f"prior = {prior}")
        if self.left_out:
            head += "\n" + left_out_line(self.left_out, self.names)
        with pd.option_context("display.width", 200, "display.max_rows", 60, "display.max_columns", None,
                               "display.float_format", "{:.4g}".format):
            return f"{head}\n{self.to_frame()}"


def correlated_ttest(x, y=None, *, rho=None, n_test=None, n_train=None, folds=None, runs=None, prior=None,
                     rope=None, corr=None, algorithms=None, names=None) -> CorrelatedTTestResult:
    """Bayesian correlated t-test of B - A on each data set.

    ``x`` holds differences B - A on the last axis (shape ``(n,)`` or ``(q, n)``), or the scores of A
    with ``y`` those of B; or it is a scores Dataset from :func:`load_scores`, with ``algorithms=(a, b)``
    (default: its two algorithms) and rho taken from it unless given; each data set uses the folds where both
    algorithms have a score, and data sets where they have none in common are left out (``left_out``). rho is
    fixed by ``rho``,
    ``n_test`` and ``n_train``, ``folds``, or ``runs`` for arrays (the n scores are ``runs`` repetitions of
    k-fold cross-validation: rho = 1/k = runs/n); ``corr`` is a known correlation matrix instead.
    ``prior`` is a :class:`NormalGamma` (default: the matching prior, under which P(B better) = 1 - p
    of the one-sided corrected t-test). ``rope`` is a half-width or a pair (lo, hi), in the scores' units;
    the default None means no rope (P(rope) = 0), since no width suits every unit.

    >>> res = correlated_ttest([0.8, 0.9, 0.85, 0.9], [0.84, 0.93, 0.86, 0.95], folds=4, rope=0.01)
    >>> round(float(res.p_right), 3), round(float(res.p_rope), 3)
    (0.909, 0.068)
    """
    prior = NormalGamma.matching() if prior is None else prior
    if not isinstance(prior, NormalGamma):
        raise TypeError(f"prior must be a NormalGamma (or None for the matching prior), got {type(prior).__name__}")
    rope = as_rope(rope)
    datasets, padded, left_out = None, False, None  # left_out: the Dataset's data sets without common folds
    rho_given = any(v is not None for v in (rho, n_test, n_train, folds, runs))
    if corr is not None and rho_given:
        raise ValueError("give either corr or rho (n_test/n_train, folds, runs), not both")
    if isinstance(x, xr.Dataset):
        check_no_runs(runs)
        a, b = pick_algorithms(x, algorithms, y)
        names = names or (a, b)
        if x.sizes["dataset"] == 0:
            raise ValueError("the scores hold no data sets")
        kept, left_out = common_datasets(x, a, b)
        if left_out:  # design values given one per data set follow their data sets
            rows = np.isin(x.dataset.values, kept.dataset.values)
            rho, n_test, n_train, folds = (np.asarray(v)[rows] if np.ndim(v) == 1 and len(v) == len(rows) else v
                                           for v in (rho, n_test, n_train, folds))
        x = kept
        diff = differences(x, a, b)
        datasets = tuple(str(d) for d in diff.dataset.values)
        if not rho_given and corr is None:
            rho = x.rho.values
        if folds is not None and np.any(np.asarray(folds) != x.sizes["fold"]):
            warnings.warn(f"folds={folds} but the scores have {x.sizes['fold']} folds per run: rho is fixed by "
                          "folds as 1/folds; give the number of folds of one cross-validation run",
                          UserWarning, stacklevel=2)
        x, padded = diff.values.reshape(diff.shape[0], -1), True
        if corr is not None and np.isnan(x).any():
            raise ValueError(f"corr needs every score: {_name_rows(np.isnan(x).any(axis=1), datasets)} have "
                             "missing runs")
    else:
        warn_percent_scale(x, y, rope, stacklevel=2)
        x = shaped_differences(x, y)  # finiteness: checked with the statistics, in the same pass
    if corr is None:
        rho = rho_for(x.shape, rho=rho, n_test=n_test, n_train=n_train, folds=folds, runs=runs)
    if datasets is None and x.ndim == 2:
        datasets = _default_names(x.shape[0])
    stats_ = SufficientStats.from_samples(x, rho, corr=corr, padded=padded)
    if np.any(stats_.n < 2):
        short = _name_rows(stats_.n < 2, datasets)
        if left_out is None:
            raise ValueError(f"need at least 2 scores per data set; {short} have fewer")
        raise ValueError(f"algorithms {names[0]!r} and {names[1]!r} have fewer than 2 folds in common (where both "
                         f"have a score) on {short}: the correlated t-test needs at least 2")
    post, scale = prior.update_scaled(stats_)
    result = _result(post, scale, stats_, prior, rope, rho, tuple(names or ("A", "B")), datasets)
    return dataclasses.replace(result, left_out=left_out) if left_out else result


def _spread(post):
    """Scale sqrt(b k0 / a) of the Student-t marginal of mu (a product of square roots: no underflow)."""
    return np.sqrt(post.b) * np.sqrt(post.k0 / post.a)


def student_t_tails(df, z):
    """The Student-t cdf at ``z`` and at ``-z`` (``df`` degrees of freedom) from one evaluation of the smaller
    tail: scipy computes the cdf above 0 as 1 minus the tail below, so both equal ``scipy.special.stdtr(df, z)``
    and ``stdtr(df, -z)`` to the last bit, at half the cost (and a third of scipy.stats.t's).

    >>> from scipy import special
    >>> z = np.array([-2.0, 0.0, 3.0])
    >>> below, above = student_t_tails(4.0, z)
    >>> bool((below == special.stdtr(4.0, z)).all() and (above == special.stdtr(4.0, -z)).all())
    True
    """
    z = np.asarray(z)
    tail = special.stdtr(df, -np.abs(z))
    negative = z < 0
    return np.where(negative, tail, 1 - tail), np.where(negative, 1 - tail, tail)


def study_tails(x, rho):
    """P(mu > 0) and P(mu <= 0) of the correlated t-test (matching prior, no rope) on the differences ``x``
    (..., n) with correlation ``rho``: :func:`correlated_ttest`'s ``p_right`` and ``p_not_right`` to the last bit,
    for simulation studies - no names, and point masses (all differences equal, common in small simulated data
    sets) answered 1, 0 or 1/2 without a DegenerateWarning: the studies run in threads, where silencing it with
    ``warnings.catch_warnings`` is not safe (it changes the filters of every thread).

    >>> x = np.array([[0.01, 0.03, 0.02], [0.02, 0.02, 0.02]])
    >>> right, not_right = study_tails(x, 1 / 3)
    >>> bool(right[0] == correlated_ttest(x[0], rho=1 / 3).p_right), right[1].item(), not_right[1].item()
    (True, 1.0, 0.0)
    """
    stats_ = SufficientStats.from_samples(x, rho)
    prior = NormalGamma.matching()
    post, scale = prior.update_scaled(stats_)
    res = _result(post, scale, stats_, prior, None, rho, ("A", "B"), None, warn=False)
    return res.p_right, res.p_not_right


def _result(post, unit, stats_, prior, rope, rho, names, datasets, *, warn=True) -> CorrelatedTTestResult:
    """The probabilities from the posterior of mu / unit, with the rope in the same units (exact: unit is a
    power of two; a rope end out of float range in these units is +-inf or 0, its limit); ``warn``: a
    DegenerateWarning for point masses."""
    lo, hi = rope if rope is not None else (0.0, 0.0)
    with np.errstate(over="ignore", under="ignore"):
        lo_u, hi_u = lo / unit, hi / unit
    degenerate = np.asarray(_spread(post) == 0)  # b = 0: only with an improper prior
    if warn and degenerate.any():
        warnings.warn(f"{_name_rows(degenerate, datasets)}: all differences are equal and the prior is improper, "
                      "so the posterior of the mean is a point mass", DegenerateWarning, stacklevel=3)
    df = 2 * post.a
    spread = np.where(degenerate, 1.0, _spread(post))
    z_lo = (lo_u - post.mu0) / spread
    p_left, p_not_left = student_t_tails(df, z_lo)
    if lo == hi:  # one point: P(mu <= hi) = P(mu < lo) for a continuous posterior, and no rope mass
        p_not_right, p_right = p_left, p_not_left
        p_rope = np.zeros_like(p_left)
    else:
        p_not_right, p_right = student_t_tails(df, (hi_u - post.mu0) / spread)
        # the rope mass from the side where it does not cancel
        p_rope = np.where(post.mu0 > hi_u, p_not_right - p_left,  # two left tails, small: no cancellation
                          np.where(post.mu0 < lo_u, p_not_left - p_right, 1 - p_left - p_right))
        p_rope = np.clip(p_rope, 0.0, 1.0)
    if degenerate.any():
        point = post.mu0
        tie = np.where((lo == hi) & (point == lo_u), 0.5, 0.0)
        p_left = np.where(degenerate, np.where(point < lo_u, 1.0, tie), p_left)
        p_right = np.where(degenerate, np.where(point > hi_u, 1.0, tie), p_right)
        p_rope = np.where(degenerate, ((point >= lo_u) & (point <= hi_u) & (lo < hi)).astype(float), p_rope)
        p_not_left = np.where(degenerate, 1.0 - p_left, p_not_left)
        p_not_right = np.where(degenerate, 1.0 - p_right, p_not_right)
    return CorrelatedTTestResult(post, unit, stats_, prior, rope, rho, p_left, p_rope, p_right, p_not_left,
                                 p_not_right, degenerate, names, datasets)


@functools.lru_cache(maxsize=4)
def _default_names(q) -> tuple[str, ...]:
    """D1 .. Dq, the names of the rows of an array (kept: a study asks for the same 12,500 again and again)."""
    return tuple(f"D{i + 1}" for i in range(q))


def _name_rows(mask, datasets):
    idx = np.flatnonzero(np.asarray(mask))
    if datasets is None:
        return "data set" if np.ndim(mask) == 0 else f"rows {idx.tolist()}"
    return "data set(s) " + ", ".join(repr(datasets[i]) for i in idx)
