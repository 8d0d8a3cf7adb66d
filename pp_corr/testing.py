"""Benchmarks made for trying pp_corr as a user would: files shaped like the ones real papers publish; and
:func:`check_result`, the contract every result type keeps, for the tests of each.

:func:`messy_benchmark` writes what a new user brings: a wide table of per-fold accuracies of many classifiers on
many data sets, with the data-set column under a name of its own, and some folds that failed, written as R writes a
missing value. :func:`remove_cells` makes a complete benchmark incomplete: whole (data set, algorithm) cells
removed at random, as an algorithm that failed or was not run on some data sets leaves it.
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import xarray as xr

from ._args import as_generator, check_count
from .results import Result

_NEAR_COPIES = {"ridge": "lr", "svm_lin": "lr", "extra_trees": "rf"}  # near-identical pairs: mostly exact ties
CLASSIFIERS = ("lr", "ridge", "svm_lin", "svm_rbf", "knn", "nbc", "lda", "qda", "tree", "rf", "extra_trees",
               "gbm", "adaboost", "mlp", "passive", "perceptron")


def messy_benchmark(n_algorithms=16, n_datasets=80, folds=10, *, failed=(("passive", 1, (3, 7)),),
                    dataset_column="db", random_seed=None) -> pd.DataFrame:
    """Per-fold accuracies of ``n_algorithms`` classifiers on ``n_datasets`` data sets, one run of ``folds``-fold CV,
    as a wide table: a text column ``dataset_column`` (the data set's name), a ``fold`` column and one column per
    classifier; the scores are rounded to 4 decimals, as papers print them.

    Each data set has its own difficulty and size; each classifier its own skill, with near-identical pairs (lr and
    ridge, svm_lin and lr, rf and extra_trees) and some clearly worse (passive, perceptron), so that some pairs are
    equivalent, some are separated and some are undecided. Every fold's score is the share of its test instances
    classified correctly, so ties are exact; every seventh data set has a long name. ``failed`` lists ``(algorithm,
    dataset index, folds)`` whose scores are missing (NaN; :meth:`pandas.DataFrame.to_csv` with ``na_rep="NA"`` writes
    them as R does).

    >>> frame = messy_benchmark(4, 3, random_seed=0, failed=(("lr", 0, (2,)),))
    >>> frame.shape, frame.columns[:3].tolist(), int(frame["lr"].isna().sum())
    ((30, 6), ['db', 'fold', 'lr'], 1)
    """
    n_algorithms = check_count("n_algorithms", n_algorithms, minimum=2)
    if n_algorithms > len(CLASSIFIERS):
        raise ValueError(f"n_algorithms: at most {len(CLASSIFIERS)}, got {n_algorithms}")
    n_datasets = check_count("n_datasets", n_datasets, minimum=1)
    folds = check_count("folds", folds, minimum=2)
    rng = as_generator(random_seed)
    names = CLASSIFIERS[:n_algorithms]
    skill = {"lr": 0.0, "ridge": 0.0, "svm_lin": 0.002, "svm_rbf": 0.02, "knn": -0.01, "nbc": -0.03, "lda": -0.005,
             "qda": -0.04, "tree": -0.03, "rf": 0.025, "extra_trees": 0.024, "gbm": 0.022, "adaboost": 0.0,
             "mlp": 0.01, "passive": -0.08, "perceptron": -0.09}
    base = rng.uniform(0.6, 0.95, n_datasets)  # the data set's difficulty
    n_test = np.rint(np.exp(rng.uniform(np.log(10), np.log(300), n_datasets))).astype(int)
    effects = {a: skill[a] + rng.normal(0, 0.02, n_datasets) for a in names}
    rows = []
    for i in range(n_datasets):
        for k in range(folds):
            noise = rng.normal(0, 0.5 / np.sqrt(n_test[i]))  # the fold's instances are easier or harder for all
            correct = {}
            for a in names:
                parent = _NEAR_COPIES.get(a)
                if parent in correct:  # a near copy: the parent's predictions with a few swapped either way
                    churn = rng.binomial(n_test[i], 0.01, 2)
                    correct[a] = int(np.clip(correct[parent] + churn[0] - churn[1], 0, n_test[i]))
                else:
                    correct[a] = rng.binomial(n_test[i], np.clip(base[i] + effects[a][i] + noise, 0.01, 0.999))
            rows.append({dataset_column: _dataset_name(i), "fold": k + 1,
                         **{a: round(correct[a] / n_test[i], 4) for a in names}})
    frame = pd.DataFrame(rows)
    for algorithm, dataset, failed_folds in failed:
        if algorithm not in names or not 0 <= dataset < n_datasets:
            raise ValueError(f"failed: {algorithm!r} on data set {dataset} is not in this benchmark")
        for k in failed_folds:
            frame.loc[dataset * folds + k - 1, algorithm] = np.nan
    return frame


def _dataset_name(i) -> str:
    """Short names, and every seventh a long one with underscores, as UCI's are (molecular_biology_promoters)."""
    return f"molecular_biology_promoters_{i + 1:02d}" if i % 7 == 3 else f"dataset_{i + 1:02d}"


def remove_cells(scores: xr.Dataset, fraction=0.1, *, random_seed=None) -> tuple[xr.Dataset, xr.DataArray]:
    """A copy of ``scores`` (:func:`pp_corr.load_scores`) without ``fraction`` of its (data set, algorithm) cells,
    chosen at random (their scores NaN), and the (data set, algorithm) mask of the cells kept.

    >>> from pp_corr import load_scores
    >>> rng = np.random.default_rng(0)
    >>> scores = load_scores({name: rng.uniform(0.7, 0.9, (10, 5)) for name in "abcd"}, folds=5)
    >>> gappy, kept = remove_cells(scores, 0.1, random_seed=0)
    >>> int((~kept).sum()), int(gappy.score.isnull().any(dim=["run", "fold"]).sum())
    (4, 4)
    """
    q, k = scores.sizes["dataset"], scores.sizes["algorithm"]
    removed = as_generator(random_seed).choice(q * k, size=round(fraction * q * k), replace=False)
    kept = np.ones(q * k, dtype=bool)
    kept[removed] = False
    mask = xr.DataArray(kept.reshape(q, k), dims=("dataset", "algorithm"),
                        coords={"dataset": scores.dataset, "algorithm": scores.algorithm})
    gappy = scores.copy(deep=True)
    gappy["score"] = scores.score.where(mask)
    return gappy, mask


def check_result(result, alphas=(0.01, 0.3)) -> None:
    """Assert that ``result`` keeps the contract of :class:`pp_corr.results.Result`: it is one; its ``summary()`` is
    text that names its decision (or says "practically equivalent" for "rope", "no decision" for "none");
    ``to_dict()`` survives ``json.dumps``; ``to_frame()`` is a non-empty DataFrame; ``decision(alpha)`` at each of
    ``alphas`` is an algorithm's name, "rope", "none" (or the imprecise test's "indeterminate"), or a tuple of them; a bad ``alpha`` is refused with an error that names ``alpha``. The
    numbers themselves are each type's tests' to check.

    >>> import pp_corr
    >>> check_result(pp_corr.paired_ttest([0.02, 0.01, 0.03, 0.00]))
    """
    assert isinstance(result, Result), type(result).__name__
    summary = result.summary()
    assert isinstance(summary, str) and str(result) == summary
    said = {"rope": ("rope", "practically equivalent"), "none": ("none", "no decision")}
    for decision in np.atleast_1d(result.decision()):
        assert any(words in summary for words in said.get(decision, (decision,))), (decision, summary)
    json.dumps(result.to_dict())
    frame = result.to_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame) > 0
    names = set(getattr(result, "names", None) or getattr(result, "algorithms", ()))
    for alpha in alphas:
        assert set(np.atleast_1d(result.decision(alpha))) <= names | {"rope", "none", "indeterminate"}
    for bad in (0.0, 1.0, -0.1, float("nan")):
        try:
            result.decision(bad)
        except ValueError as err:
            assert str(err).startswith("alpha "), err
        else:
            raise AssertionError(f"decision({bad!r}) was not refused")
