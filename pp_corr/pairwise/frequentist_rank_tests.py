"""The frequentist Wilcoxon signed-rank and sign tests on per-data-set mean differences z_1..z_q, with the inputs
of :mod:`.rank_tests` (a scores Dataset with ``algorithms=(a, b)``, the scores of A and of B, or differences B - A;
data sets where the two algorithms have no fold in common left out and named in ``left_out``)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from .._args import check_alternative
from ..results import Result, pvalue_decision, python_values
from .incomplete import left_out_tail
from .rank_tests import rank_test_differences


def wilcoxon_test(x, y=None, *, alternative="two-sided", algorithms=None):
    """Frequentist Wilcoxon signed-rank test on the per-data-set mean differences (``scipy.stats.wilcoxon``).

    Zeros (data sets where the two algorithms tie) are kept and their ranks split half to each side
    (``zero_method="zsplit"``), as Demsar (2006) recommends: a tie is evidence for neither algorithm, and
    dropping it would make the test more eager to reject. This is also how the Bayesian signed-rank test
    counts a tie (H(0) = 1/2): its mean with s -> 0 is 2 T+ / (q (q + 1)) for this T+. scipy's default
    choice of method applies: exact without ties or zeros for q <= 50, an exact enumeration of the sign
    patterns with ties or zeros for q <= 13, the normal approximation otherwise. If every difference is 0
    there is no evidence either way: the p-value is 1 (the statistic is then q (q + 1) / 4, every rank
    split in half).

    >>> round(float(wilcoxon_test([0.02, 0.01, 0.03, -0.01, 0.02, 0.04], alternative="greater").pvalue), 4)
    0.0469
    >>> float(wilcoxon_test([0.0, 0.0, 0.0]).pvalue)
    1.0
    """
    alternative = check_alternative(alternative)
    z, names, left_out = rank_test_differences(x, y, algorithms)
    ranks = stats.rankdata(np.abs(z))
    t_plus = float(ranks[z > 0].sum() + ranks[z == 0].sum() / 2)
    t_minus = float(ranks.sum() - t_plus)
    if not z.any():  # scipy: about 1/2 one-sided by the normal approximation (q > 13), an error for q = 1
        q = len(z)
        return WilcoxonTestResult(q * (q + 1) / 4, 1.0, left_out, alternative, names, t_plus, t_minus)
    result = stats.wilcoxon(z, zero_method="zsplit", alternative=alternative)
    return WilcoxonTestResult(float(result.statistic), float(result.pvalue), left_out, alternative, names, t_plus,
                              t_minus)


class _FrequentistResult(Result):
    """What the Wilcoxon and sign tests' results share: one row of numbers, the decision by p-value."""

    def to_frame(self) -> pd.DataFrame:
        """One row: the fields but ``names`` and ``left_out``, then the decision at 0.05.

        >>> sign_test([0.02, 0.01, 0.03, -0.01]).to_frame().columns.tolist()
        ['a', 'b', 'k', 'n', 'alternative', 'statistic', 'pvalue', 'decision']
        """
        fields = {k: v for k, v in vars(self).items() if k not in ("names", "left_out")}
        return pd.DataFrame([{"a": self.names[0], "b": self.names[1], **fields, "decision": self.decision()}])

    def to_dict(self) -> dict:
        """Plain Python values: :meth:`to_frame`'s row and the data sets left out (NaN as None).

        >>> wilcoxon_test([0.02, 0.01, 0.03, -0.01]).to_dict()["t_plus"]  # ranks 3 + 1.5 + 4 (0.01 ties with -0.01)
        8.5
        """
        return python_values({**self.to_frame().iloc[0].to_dict(), "left_out": list(self.left_out)})

    def summary(self) -> str:
        """In words: the test, its statistic, p-value and decision at 0.05.

        >>> print(sign_test([0.02, 0.01, 0.03, -0.01]).summary())
        Sign test, B vs A (two-sided): statistic 0.75, p = 0.625; decision at alpha = 0.05: none
        """
        a, b = self.names
        gaps = left_out_tail(self.left_out, self.names)
        return (f"{self.test_name}, {b} vs {a} ({self.alternative}): statistic {self.statistic:.4g}, "
                f"p = {self.pvalue:.4g}; decision at alpha = {self.alpha:g}: {self.decision()}{gaps}")

    def _decide(self, alpha) -> str:
        return pvalue_decision(self.names, self.pvalue, self.direction, alpha)


@dataclass(frozen=True, repr=False)
class WilcoxonTestResult(_FrequentistResult):
    """The Wilcoxon signed-rank test's ``statistic`` (T+ for a one-sided test, min(T+, T-) two-sided, as scipy
    reports it) and ``pvalue``; ``left_out`` names the data sets where the two algorithms do not both have scores;
    ``t_plus`` and ``t_minus`` are the rank sums of the positive and negative differences B - A (zeros split), which
    say which algorithm a rejection favours.

    >>> res = WilcoxonTestResult(3.0, 0.02, t_plus=18.0, t_minus=3.0)
    >>> res.pvalue, res.decision(), res.to_frame().shape
    (0.02, 'B', (1, 8))
    >>> print(res)
    Wilcoxon signed-rank test, B vs A (two-sided): statistic 3, p = 0.02; decision at alpha = 0.05: B
    """

    statistic: float
    pvalue: float
    left_out: tuple[str, ...] = ()
    alternative: str = "two-sided"
    names: tuple[str, str] = ("A", "B")
    t_plus: float = float("nan")
    t_minus: float = float("nan")
    test_name = "Wilcoxon signed-rank test"

    @property
    def direction(self) -> float:
        """T+ - T-: positive when the data favour B."""
        return self.t_plus - self.t_minus

    def __repr__(self):
        return self.summary()


@dataclass(frozen=True, repr=False)
class SignTestResult(_FrequentistResult):
    """A sign test: ``k`` positive differences among the ``n`` non-zero ones, ``statistic`` = k / n, the
    ``pvalue`` of the binomial test and its ``alternative`` (the attributes of scipy's BinomTestResult);
    ``left_out`` names the data sets where the two algorithms do not both have scores.

    >>> res = SignTestResult(3, 4, "two-sided", 0.75, 0.625)
    >>> res.pvalue, res.decision(), res.to_dict()["k"]
    (0.625, 'none', 3)
    """

    k: int
    n: int
    alternative: str
    statistic: float
    pvalue: float
    left_out: tuple[str, ...] = ()
    names: tuple[str, str] = ("A", "B")
    test_name = "Sign test"

    @property
    def direction(self) -> float:
        """k - n/2: positive when the data favour B."""
        return self.k - self.n / 2

    def __repr__(self):
        return self.summary()


def sign_test(x, y=None, *, alternative="two-sided", algorithms=None) -> SignTestResult:
    """Frequentist sign test: binomial test of #{z > 0} among the non-zero z (``scipy.stats.binomtest``).

    Zeros are left out (the test conditions on the data sets where the algorithms differ). If no
    difference is non-zero there is no evidence either way: k = n = 0, statistic 1/2 and p-value 1.

    >>> round(float(sign_test([0.02, 0.01, 0.03, -0.01, 0.02, 0.04]).pvalue), 4)
    0.2188
    >>> sign_test([0.0, 0.0]).pvalue
    1.0
    """
    alternative = check_alternative(alternative)
    z, names, left_out = rank_test_differences(x, y, algorithms)
    k, n = int(np.sum(z > 0)), int(np.sum(z != 0))
    if n == 0:
        return SignTestResult(0, 0, alternative, 0.5, 1.0, left_out, names)
    result = stats.binomtest(k, n, 0.5, alternative=alternative)
    return SignTestResult(k, n, alternative, float(result.statistic), float(result.pvalue), left_out, names)
