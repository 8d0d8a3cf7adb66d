"""Cross-validation on demand: :func:`sequential_cv` runs repeats of k-fold cross-validation until the rules stop."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import xarray as xr

from .._args import check_count
from ..results import Result
from ..studies.resampling import design_splits, evaluate, split_and_fit_streams, to_scores
from .result import SequentialResult
from .runs import SequentialRuns


@dataclass(frozen=True, repr=False)
class SequentialCV(Result):
    """The scores of the runs made (a scores Dataset, as :func:`pp_corr.load_scores` returns; higher is better,
    so B - A is A's loss minus B's) and the :class:`SequentialResult` of their replay, whose summary, history
    (:meth:`to_frame`), record and decision are this result's."""

    scores: xr.Dataset
    result: SequentialResult

    @property
    def alpha(self) -> float:
        """The replay's alpha."""
        return self.result.alpha

    def summary(self) -> str:
        """The replay's summary."""
        return self.result.summary()

    def to_frame(self):
        """The replay's history."""
        return self.result.to_frame()

    def to_dict(self) -> dict:
        """The replay's record."""
        return self.result.to_dict()

    def _decide(self, alpha):
        return self.result.decision(alpha)

    def __repr__(self):
        return self.summary()


def sequential_cv(estimator_a, estimator_b, X, y, *, cv=10, max_runs=10, min_runs=2, rope=0.01, alpha=0.05,
                  futility=0.05, loss="zero_one", names=("A", "B"), simulations=400, random_seed=None) -> SequentialCV:
    """Run ``cv``-fold cross-validation of both estimators one run (a fresh permutation) at a time, from
    ``min_runs`` on apply the stopping rules of :func:`pp_corr.sequential_test` after each run (rho =
    n_test / n from the splits), and stop when they say so or after ``max_runs`` runs (a
    :class:`pp_corr.SequentialRuns` fed by scikit-learn; use that class for a runner of your own). ``loss`` is as in
    :func:`pp_corr.studies.resampling.evaluate` ("zero_one": 1 - accuracy). ``random_seed`` seeds the splits,
    the estimators and the predictive draws.

    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> res = sequential_cv(DecisionTreeClassifier(max_depth=1), GaussianNB(), X, y, max_runs=5, random_seed=0,
    ...                     names=("stump", "nb"))
    >>> bool(res.result.runs_used.iloc[0] <= 5), bool(res.scores.sizes["run"] == res.result.runs_used.iloc[0])
    (True, True)
    >>> res.decision() == res.result.decision(), res.to_frame().equals(res.result.to_frame())
    (True, True)
    """
    folds = check_count("cv", cv, minimum=2)
    split_rng, fit_rng = split_and_fit_streams(random_seed)
    a, b = (str(n) for n in names)
    runs = []

    def one_run(run):
        plan = design_splits("kfold", len(y), folds=folds, random_seed=split_rng)
        scores = evaluate(estimator_a, estimator_b, X, y, plan, loss=loss, names=names, random_seed=fit_rng)
        runs.append(scores.assign_coords(group=("split", np.full(scores.sizes["split"], run))))
        own = to_scores(scores)
        sequence.rho = float(own.rho[0])  # n_test / n of the splits
        return (own.score.sel(algorithm=name).values.ravel() for name in (a, b))

    sequence = SequentialRuns(rope=rope, alpha=alpha, futility=futility, max_runs=max_runs, min_runs=min_runs,
                              names=(a, b), simulations=simulations,
                              random_seed=np.random.default_rng(split_rng.integers(2**63)))
    sequence.run(one_run)
    scores = to_scores(xr.concat(runs, dim="split").assign_coords(split=np.arange(len(runs) * folds)))
    return SequentialCV(scores, sequence.result)
