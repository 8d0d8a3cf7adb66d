"""``format="cross_validate"``: ``{algorithm: cross_validate(...) result}``, or ``{dataset: {algorithm: result}}``,
or a JSON file of either. Detected by a mapping whose results hold ``test_<metric>`` keys, or a ``.json`` path."""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..sources import (ROLES, InputFormat, Request, Source, choose_metric, one_dataset_name, run_and_fold,
                       select_algorithms)

UNINDEXED = ("pass return_indices=True to cross_validate (its splits then tell the runs), or give runs=r (or "
             "folds=k, or rho=): without split indices repeated k-fold looks like one run")  # how to give the runs


def detect(source: Mapping, columns) -> bool:
    """Whether ``format="auto"`` reads ``source`` as cross_validate results: each value holds test_<metric> keys,
    or each value is a mapping of such results (one per data set).

    >>> detect({"A": {"test_score": [0.8]}}, None), detect({"d": {"A": {"test_score": [0.8]}}}, None)
    (True, True)
    """
    if source and all(_is_cv(v) for v in source.values()):
        return True
    return bool(source) and all(isinstance(v, Mapping) and v and all(_is_cv(r) for r in v.values())
                                for v in source.values())


def _is_cv(value) -> bool:
    return isinstance(value, Mapping) and any(str(k).startswith("test_") for k in value)


def read(results: Mapping, request: Request) -> Source:
    """The :class:`~pp_corr.data.sources.Source` of cross_validate results, flat or nested by data set.

    >>> results = {"A": {"test_score": [0.8, 0.9]}, "B": {"test_score": [0.7, 0.8]}}
    >>> read(results, Request(None, None, None, None, None)).frame.score.tolist()
    [0.8, 0.9, 0.7, 0.8]
    """
    algorithms, layout, datasets, name, scoring = (request.algorithms, request.layout, request.datasets,
                                                   request.name, request.scoring)
    nested = not all(_is_cv(v) for v in results.values())
    if nested:
        if datasets is not None:
            raise ValueError("datasets= names the data set of flat cross_validate results; nested ones "
                             "{dataset: {algorithm: results}} are named by their keys")
        by_dataset = {str(k): v for k, v in results.items()}
    else:
        by_dataset = {one_dataset_name(datasets, name): results}
    frames, one_run = [], False
    for dataset, by_algorithm in by_dataset.items():
        by_algorithm = select_algorithms(dict(by_algorithm), algorithms, f"the cross_validate results of {dataset!r}")
        frame, assumed = _cross_validate_frame(dataset, by_algorithm, layout, scoring)
        frames.append(frame)
        one_run |= assumed
    return Source(pd.concat(frames, ignore_index=True), "row {}".format, dict(zip(ROLES, ROLES)), one_run,
                  splits_unindexed=UNINDEXED if one_run else "")  # one run: no indices


def _cross_validate_frame(dataset, by_algorithm, layout, scoring):
    """One data set's cross_validate results: the tidy frame, and whether one run was assumed."""
    scores, indices = {}, {}
    for algorithm, result in by_algorithm.items():
        if not _is_cv(result):
            raise ValueError(f"data set {dataset!r}, algorithm {algorithm!r}: not cross_validate results (a mapping "
                             "with test_score)")
        metric = choose_metric(sorted(str(k)[len("test_"):] for k in result if str(k).startswith("test_")), scoring,
                         f"the cross_validate results of {algorithm!r}")
        scores[str(algorithm)] = np.asarray(result[f"test_{metric}"], dtype=float).ravel()
        if "indices" in result:
            indices[str(algorithm)] = result["indices"]
    lengths = {a: len(v) for a, v in scores.items()}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"data set {dataset!r}: the algorithms have different numbers of splits {lengths}")
    n = next(iter(lengths.values()))
    sizes, per_run = {}, None
    if indices:
        reference_name, reference = next(iter(indices.items()))
        for algorithm, other in indices.items():
            for split, (mine, theirs) in enumerate(zip(reference["test"], other["test"])):
                if not np.array_equal(np.asarray(mine), np.asarray(theirs)):
                    raise ValueError(f"data set {dataset!r}: {reference_name!r} and {algorithm!r} were not "
                                     f"cross-validated on the same splits (split {split} differs): give every "
                                     "estimator the same cv (an int, or a splitter with a fixed random_state)")
        sizes = {"n_test": [len(t) for t in reference["test"]], "n_train": [len(t) for t in reference["train"]]}
        if layout["runs"] is None and layout["folds"] is None:
            per_run = _partition_length(reference["test"], sizes)
    if per_run is not None:
        run, fold = np.arange(n) // per_run + 1, np.arange(n) % per_run + 1
    else:
        run, fold = run_and_fold(np.arange(n), np.full(n, n), names=np.full(n, dataset), **layout)
    frame = pd.concat([pd.DataFrame({"dataset": dataset, "algorithm": a, "run": run, "fold": fold, "score": v,
                                     **sizes}) for a, v in scores.items()], ignore_index=True)
    return frame, per_run is None and layout["runs"] is None and layout["folds"] is None and not sizes


def _partition_length(tests, sizes) -> int:
    """The number of splits in one run: the smallest k whose consecutive blocks of k test sets partition the data
    (k-fold, repeated); all splits when none does (shuffle splits: rho comes from the sizes anyway)."""
    n = len(tests)
    total = sizes["n_test"][0] + sizes["n_train"][0]
    for k in range(2, n + 1):
        if n % k:
            continue
        blocks = [np.concatenate([np.asarray(t) for t in tests[i:i + k]]) for i in range(0, n, k)]
        if all(len(b) == total and len(np.unique(b)) == total for b in blocks):
            return k
    return n


FORMAT = InputFormat(("mapping",), read, detect)
