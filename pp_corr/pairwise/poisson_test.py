"""The Poisson test: how many data sets is B better on? (Corani & Benavoli 2015, computed exactly)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import xarray as xr

from .._args import check_probability_level, warn_percent_scale
from ..results import Result
from .frequentist import as_differences
from .incomplete import left_out_line
from .poisson_binomial import PoissonBinomial
from .ttest import CorrelatedTTestResult, correlated_ttest


@dataclass(frozen=True, repr=False)
class PoissonTestResult(Result):
    """X = number of data sets on which B is better, Poisson-binomial in the per-data-set P(B better);
    Y, the same for A with P(A better). Without a rope Y = q - X.

    ``p_b_majority`` = P(X > q/2), ``p_a_majority`` = P(Y > q/2); :meth:`decision` names the algorithm
    declared better at ``alpha`` (P(majority) > 1 - alpha; by default the ``alpha`` of :func:`poisson_test`) or is
    ``"none"``. On a single data set
    (``n_datasets`` = 1) the majority is that data set: the test is its correlated t-test, and says so.
    ``left_out`` names the data sets of a scores Dataset where A and B do not both have scores: they are not
    counted (q is the number of the others).
    """

    per_dataset: CorrelatedTTestResult
    distribution: PoissonBinomial
    distribution_a: PoissonBinomial
    p_b_majority: float
    p_a_majority: float
    alpha: float

    @property
    def names(self):
        return self.per_dataset.names

    @property
    def left_out(self) -> tuple[str, ...]:
        return self.per_dataset.left_out

    @property
    def n_datasets(self) -> int:
        """q, the number of data sets counted."""
        return self.distribution.n_trials

    def _decide(self, alpha) -> str:
        a, b = self.names
        if self.p_b_majority > 1 - alpha:
            return b
        if self.p_a_majority > 1 - alpha:
            return a
        return "none"

    def to_xarray(self) -> xr.Dataset:
        """The pmfs of X (B) and Y (A) (dim ``count``) and the per-data-set probabilities (dim ``dataset``)."""
        q = self.distribution.n_trials
        return xr.Dataset(
            {"pmf_b": ("count", self.distribution.pmf()), "pmf_a": ("count", self.distribution_a.pmf()),
             "p_right": ("dataset", self.per_dataset.p_right), "p_left": ("dataset", self.per_dataset.p_left)},
            coords={"count": np.arange(q + 1), "dataset": list(self.per_dataset.datasets)},
            attrs={"a": self.names[0], "b": self.names[1], "p_b_majority": self.p_b_majority,
                   "p_a_majority": self.p_a_majority, "alpha": self.alpha, "decision": self.decision(),
                   "left_out": ", ".join(self.left_out)})

    def to_frame(self) -> pd.DataFrame:
        """One row per data set, with column names that do not depend on the algorithms': ``a, b, dataset, mean,
        lower, upper, p_left, p_rope, p_right, pvalue, degenerate`` (the correlated t-test, 95% interval,
        two-sided p-value), then the pair's ``p_b_majority, p_a_majority, decision`` (what ``pp-corr compare
        --output FILE.csv`` writes).

        >>> from pp_corr import load_scores, example_path
        >>> res = poisson_test(load_scores(example_path()), algorithms=("tree", "knn"), rope=0.01)
        >>> list(res.to_frame().columns[:4]), len(res.to_frame())
        (['a', 'b', 'dataset', 'mean'], 4)
        """
        frame = self.per_dataset.to_xarray().to_dataframe().reset_index()
        frame.insert(0, "a", self.names[0])
        frame.insert(1, "b", self.names[1])
        return frame.assign(p_b_majority=self.p_b_majority, p_a_majority=self.p_a_majority,
                            decision=self.decision())

    def to_dict(self) -> dict:
        """Plain Python values (what ``pp-corr compare --output FILE.json`` writes): the pair, its settings, the
        data sets left out, the Poisson test and the per-data-set records of :meth:`to_frame` (the pmfs of the
        counts are in :meth:`to_xarray`).

        >>> import numpy as np
        >>> res = poisson_test(np.random.default_rng(0).normal(0.02, 0.02, size=(3, 10)), folds=10)
        >>> record = res.to_dict(); record["decision"], record["results"][0]["dataset"]
        ('B', 'D1')
        """
        test = self.per_dataset.to_dict()
        return {"a": self.names[0], "b": self.names[1], **{key: test[key] for key in ("rope", "rho", "prior")},
                "alpha": self.alpha, "n_datasets": self.n_datasets, "left_out": list(self.left_out),
                "p_b_majority": self.p_b_majority, "p_a_majority": self.p_a_majority, "decision": self.decision(),
                "results": self.to_frame().drop(columns=["a", "b", "p_b_majority", "p_a_majority", "decision"])
                .to_dict(orient="records")}

    def summary(self, *, alpha=None) -> str:
        """In words (the ``repr``): the expected count, the probabilities of a majority and the decision at
        ``alpha`` (default the test's).

        >>> import numpy as np
        >>> res = poisson_test(np.random.default_rng(0).normal(0.02, 0.02, size=(10, 10)), folds=10)
        >>> res.summary(alpha=0.01).splitlines()[-1]
        '  decision at alpha = 0.01: B'
        """
        alpha = self._alpha(alpha)
        a, b = self.names
        q = self.distribution.n_trials
        single = (f"  (one data set: the majority is that data set, so this is its correlated t-test, "
                  f"P({b} better) = {self.p_b_majority:.4g})\n" if q == 1 else "")
        if self.left_out:
            single = f"  {left_out_line(self.left_out, self.names)}\n{single}"
        return (f"Poisson test, {b} vs {a} on {q} data set{'s' * (q != 1)} (rope {self.per_dataset.rope}):\n"
                f"{single}"
                f"  expected number of data sets where {b} is better: {float(self.distribution.mean):.2f}\n"
                f"  P({b} better on a majority) = {self.p_b_majority:.4g}\n"
                f"  P({a} better on a majority) = {self.p_a_majority:.4g}\n"
                f"  decision at alpha = {alpha:g}: {self.decision(alpha)}")

    def __repr__(self):
        return self.summary()


def poisson_test(x, y=None, *, alpha=0.05, **ttest_options) -> PoissonTestResult:
    """The Poisson test on ``(q, n)`` per-fold differences (or scores of A and B) or a scores Dataset.

    A 1-D ``x`` is one data set (q = 1): the majority is then that data set and the result says so. A scores
    Dataset's data sets where A and B have no fold in common are left out (``left_out``), and its others use the
    folds both have.

    Each data set's P(B better) comes from :func:`correlated_ttest` (``ttest_options``: rho, n_test,
    n_train, folds, prior, rope, algorithms, names); the count of data sets where B is better is
    exactly Poisson-binomial, and so is the count Y where A is better. B is declared better if
    P(X > q/2) > 1 - alpha, A if P(Y > q/2) > 1 - alpha (without a rope, P(Y > q/2) = P(X < q/2)).

    >>> import numpy as np
    >>> x = np.random.default_rng(0).normal(0.02, 0.02, size=(10, 10))
    >>> res = poisson_test(x, folds=10)
    >>> res.decision(), bool(res.p_b_majority > 0.95)
    ('B', True)
    """
    alpha = check_probability_level("alpha", alpha)
    if not isinstance(x, xr.Dataset):  # one data set (n,) is a problem of q = 1 row named D1
        warn_percent_scale(x, y, ttest_options.get("rope"), stacklevel=2)
        x, y = np.atleast_2d(as_differences(x, y)), None
    per_dataset = correlated_ttest(x, y, **ttest_options)
    p = per_dataset.p_right
    dist_b = PoissonBinomial(p, complement=per_dataset.p_not_right)
    dist_a = PoissonBinomial(per_dataset.p_left, complement=per_dataset.p_not_left)
    half = len(p) // 2
    return PoissonTestResult(per_dataset, dist_b, dist_a, float(dist_b.sf(half)), float(dist_a.sf(half)), alpha)
