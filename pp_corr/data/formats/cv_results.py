"""``format="cv_results"``: a fitted ``GridSearchCV`` / ``RandomizedSearchCV``, its ``cv_results_``, or that table as
a DataFrame or CSV (``pd.DataFrame(search.cv_results_).to_csv(path)``). Detected by an attribute ``cv_results_``
or columns ``split<k>_test_<metric>``. Each candidate is an algorithm named by its parameters ("C=1, kernel=rbf")."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ..sources import (ROLES, InputFormat, Request, Source, arrays_to_frame, check_table, choose_metric,
                       decimal_point, missing_scores, one_dataset_name, select_algorithms)

SPLIT_COLUMN = re.compile(r"split(\d+)_test_(.+)")
UNINDEXED = ("give folds=k (or runs=r, or rho=): a search's cv_results_ hold no split indices, so repeated k-fold "
             "looks like one run")  # how to give the runs, which without split indices the results cannot tell


def detect(source, columns) -> bool:
    """Whether ``format="auto"`` reads ``source`` (a table, or a mapping) as cv_results_: split<k>_test_ columns
    (and, in a mapping, ``params``).

    >>> table = pd.DataFrame({"params": [{}], "split0_test_score": [0.8]})
    >>> detect(table, None), detect({"split0_test_score": [1]}, None)
    (True, False)
    """
    if isinstance(source, pd.DataFrame):
        return any(SPLIT_COLUMN.fullmatch(str(c)) for c in source.columns)
    return "params" in source and any(SPLIT_COLUMN.fullmatch(str(k)) for k in source)


def read(source, request: Request) -> Source:
    """The :class:`~pp_corr.data.sources.Source` of a search's cv_results_ (a table, or the mapping itself).

    >>> results = {"params": [{"C": 1}, {"C": 2}], "param_C": [1, 2], "split0_test_score": [0.8, 0.7],
    ...            "split1_test_score": [0.9, 0.8]}
    >>> sorted(set(read(results, Request(None, None, None, None, None)).frame.algorithm))
    ['C=1', 'C=2']
    """
    if not isinstance(source, pd.DataFrame):
        source = pd.DataFrame(source)
        check_table(source, None)
    if request.columns:
        raise ValueError("columns= renames the columns of a tidy or wide table, not of cv_results_")
    return _from_frame(source, request.algorithms, request.layout, request.datasets, request.name,
                       request.decimal_comma, request.scoring, request.na_values)


def _from_frame(frame, algorithms, layout, datasets, name, decimal_comma, scoring, na_values) -> Source:
    splits = {}
    for column in frame.columns:
        match = SPLIT_COLUMN.fullmatch(str(column))
        if match:
            splits.setdefault(match[2], []).append((int(match[1]), column))
    if not splits:
        raise ValueError(f"no split<k>_test_<metric> columns in cv_results_ (have {list(frame.columns)})")
    metric = choose_metric(sorted(splits), scoring, "the cv_results_")
    columns = [c for _, c in sorted(splits[metric])]
    parameters = [c for c in frame.columns if str(c).startswith("param_")]
    names = []
    for i, (_, row) in enumerate(frame[parameters].iterrows()):
        shown = [f"{p[len('param_'):]}={v}" for p, v in row.items() if not _absent(v)]
        names.append(", ".join(shown) if shown else f"candidate {i + 1}")
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"cv_results_ has several candidates with the parameters {twice}")
    values = frame[columns]
    if decimal_comma:
        values = values.apply(decimal_point)
    numbers = values.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
    missing = np.column_stack([missing_scores(values[c], na_values) for c in columns])  # a failed fit: NaN
    if (np.isnan(numbers) & ~missing).any():
        i, j = np.argwhere(np.isnan(numbers) & ~missing)[0]
        raise ValueError(f"candidate {names[i]!r}: {columns[j]} is {values.iloc[i, j]!r}, not a number")
    blocks = select_algorithms(dict(zip(names, numbers[:, None, :])), algorithms, "the cv_results_ candidates")
    datasets = [one_dataset_name(datasets, name)]
    one_run = layout["runs"] is None and layout["folds"] is None
    return Source(arrays_to_frame(blocks, datasets=datasets, **layout), "row {}".format, dict(zip(ROLES, ROLES)),
                  one_run, splits_unindexed=UNINDEXED if one_run else "")


def _absent(value) -> bool:
    return value is None or (isinstance(value, float) and np.isnan(value)) or (isinstance(value, str) and not value)


FORMAT = InputFormat(("table", "mapping"), read, detect)
