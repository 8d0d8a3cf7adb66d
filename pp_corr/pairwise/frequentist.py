"""Frequentist comparisons: the paired t-test and the Nadeau-Bengio corrected t-test."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from .._args import b_minus_a, check_alternative, check_finite_array, check_probability_level
from ..results import Result, pvalue_decision, python_values
from .intraclass import SufficientStats, rho_for


@dataclass(frozen=True)
class TTestResult(Result):
    """``statistic``, ``pvalue`` and ``df`` as scipy reports them, plus the estimate and its standard error (one
    value, or an array with one per data set). Its :meth:`decision` names B when the test rejects at ``alpha``
    with a positive mean difference B - A, A with a negative one.

    >>> res = corrected_ttest([0.02, 0.01, 0.03, 0.00], folds=4, alternative="greater")
    >>> round(float(res.pvalue), 4)
    0.1128
    """

    statistic: np.ndarray
    pvalue: np.ndarray
    df: np.ndarray
    estimate: np.ndarray
    standard_error: np.ndarray
    alternative: str
    names: tuple[str, str] = ("A", "B")

    def confidence_interval(self, confidence_level=0.95):
        """Confidence interval for the mean difference, matching ``alternative`` (one-sided bounds are inf).

        >>> lo, hi = paired_ttest([0.02, 0.01, 0.03, 0.00]).confidence_interval(0.9)
        >>> bool(lo < 0.015 < hi)
        True
        """
        check_probability_level("confidence_level", confidence_level)
        if self.alternative == "two-sided":
            half = stats.t.ppf(0.5 + confidence_level / 2, self.df) * self.standard_error
            return self.estimate - half, self.estimate + half
        q = stats.t.ppf(confidence_level, self.df) * self.standard_error
        if self.alternative == "greater":
            return self.estimate - q, np.full_like(self.estimate, np.inf)
        return np.full_like(self.estimate, -np.inf), self.estimate + q

    def to_frame(self, *, confidence_level=0.95) -> pd.DataFrame:
        """One row per data set: the estimate, its standard error, the interval, statistic, df and p-value.

        >>> paired_ttest([[0.02, 0.01, 0.03], [0.0, -0.01, 0.01]]).to_frame().columns.tolist()[:4]
        ['estimate', 'standard_error', 'lower', 'upper']
        """
        lower, upper = self.confidence_interval(confidence_level)
        return pd.DataFrame({name: np.atleast_1d(value) for name, value in (
            ("estimate", self.estimate), ("standard_error", self.standard_error), ("lower", lower),
            ("upper", upper), ("statistic", self.statistic), ("df", self.df), ("pvalue", self.pvalue),
            ("decision", self.decision()))}).assign(alternative=self.alternative)

    def to_dict(self) -> dict:
        """Plain Python values: the alternative and the :meth:`to_frame` records (NaN as None).

        >>> paired_ttest([0.02, 0.01, 0.03, 0.00]).to_dict()["alternative"]
        'two-sided'
        """
        records = self.to_frame().drop(columns="alternative").to_dict(orient="records")
        return python_values({"alternative": self.alternative, "results": records})

    def summary(self, *, confidence_level=0.95) -> str:
        """In words: the mean difference B - A, its interval, t, df, the p-value and the decision at 0.05.

        >>> print(paired_ttest([0.02, 0.01, 0.03, 0.00]).summary())
        t-test of B - A (two-sided): mean +0.015, 95% interval [-0.00554, +0.0355], t = 2.324 (df 3), p = 0.1027;
          decision at alpha = 0.05: none
        """
        level = f"{100 * confidence_level:g}%"
        a, b = self.names
        lines = []
        for row in self.to_frame(confidence_level=confidence_level).itertuples():
            lines.append(f"t-test of {b} - {a} ({self.alternative}): mean {row.estimate:+.3g}, {level} interval "
                         f"[{row.lower:+.3g}, {row.upper:+.3g}], t = {row.statistic:.4g} (df {row.df:g}), "
                         f"p = {row.pvalue:.4g};\n  decision at alpha = {self.alpha:g}: {row.decision}")
        return "\n".join(lines)

    def _decide(self, alpha):
        return pvalue_decision(self.names, self.pvalue, self.estimate, alpha)


def t_from_stats(stats_: SufficientStats, alternative="two-sided") -> TTestResult:
    """The corrected t-test from sufficient statistics: t = mu_hat / sqrt(Q / ((n - 1) A)), df = n - 1.

    t is computed from the statistics in units of ``stats_.scale``, so it does not depend on the magnitude of
    the data. Samples whose values are all equal (Q = 0) give t = +-inf by the sign of the mean, and t = 0
    when they are all 0 (p = 1/2 one-sided, 1 two-sided), the point-mass answers of the Bayesian test.

    >>> stats_ = SufficientStats.from_samples(np.array([0.01, 0.03, 0.02, 0.04]), 0.0)
    >>> round(float(t_from_stats(stats_, "greater").pvalue), 4)
    0.0152
    """
    check_alternative(alternative)
    df = stats_.n - 1
    se_scaled = np.sqrt(np.maximum(stats_.scaled_ss, 0.0) / (df * stats_.effective_n))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = stats_.scaled_mean / se_scaled
    t = np.where(np.isnan(t) & (stats_.scaled_mean == 0), 0.0, t)[()]
    with np.errstate(over="ignore", under="ignore"):
        se = se_scaled * stats_.scale
    if alternative == "greater":
        p = stats.t.sf(t, df)
    elif alternative == "less":
        p = stats.t.cdf(t, df)
    else:
        p = np.minimum(1.0, 2 * stats.t.sf(np.abs(t), df))
    return TTestResult(t, p, df, stats_.mean, se, alternative)


def corrected_ttest(x, y=None, *, rho=None, n_test=None, n_train=None, folds=None, runs=None,
                    alternative="two-sided"):
    """Nadeau-Bengio corrected resampled t-test of the mean of B - A over the last axis.

    ``x`` holds differences B - A, or the scores of A with ``y`` those of B. The variance is
    inflated by (1/n + rho/(1-rho)), rho = n_test/(n_test+n_train) (or 1/k for k-fold: ``folds=k``, or
    ``runs=r`` when the n scores are r repetitions of k-fold, k = n/r); df = n - 1.

    >>> res = corrected_ttest([0.8, 0.9, 0.85], [0.85, 0.92, 0.9], rho=0.1)
    >>> res.statistic > 0
    np.True_
    """
    check_alternative(alternative)
    x = as_differences(x, y)
    rho = rho_for(x.shape, rho=rho, n_test=n_test, n_train=n_train, folds=folds, runs=runs)
    return t_from_stats(SufficientStats.from_samples(x, rho), alternative)


def paired_ttest(x, y=None, *, alternative="two-sided"):
    """Ordinary paired t-test (the corrected test with rho = 0); equals ``scipy.stats.ttest_1samp``.

    >>> float(paired_ttest([1.0, 2.0, 3.0]).statistic).__round__(4)
    3.4641
    """
    return corrected_ttest(x, y, rho=0.0, alternative=alternative)


def as_differences(x, y=None) -> np.ndarray:
    """B - A from differences ``x`` or from scores ``x`` (A) and ``y`` (B), shape ``(n,)`` (one data set) or
    ``(q, n)`` (q data sets); checks the shape (at least one data set, at least 2 scores each) and finiteness.

    >>> as_differences([0.80, 0.90], [0.82, 0.95]).round(2).tolist()
    [0.02, 0.05]
    """
    x = shaped_differences(x, y)
    check_finite_array("x", x)
    return x


def shaped_differences(x, y=None) -> np.ndarray:
    """:func:`as_differences` without the check of x's finiteness (for callers that check it as they read x;
    scores ``x`` and ``y`` are checked).

    >>> shaped_differences([[0.01, float("nan")]]).shape
    (1, 2)
    """
    x = b_minus_a(x, y)
    if x.ndim > 2:
        raise ValueError(f"x must be 1-D (the folds of one data set) or 2-D (data sets x folds), got shape {x.shape}")
    if x.ndim == 2 and x.shape[0] == 0:
        raise ValueError(f"x holds no data sets (shape {x.shape})")
    if x.ndim == 0 or x.shape[-1] < 2:
        raise ValueError(f"x needs at least 2 scores per data set on the last axis, got shape {x.shape}")
    return x
