"""``format="wide"``: one row per data set, run and fold, one column per algorithm. Any table no other format
detects: the algorithms are ``algorithms=`` or else every column that is not a dataset, run or fold column (nor
n_test, n_train)."""
from __future__ import annotations

import pandas as pd

from ..sources import (SIZES, InputFormat, Request, UnknownAlgorithmError, algorithm_names, check_columns,
                       decimal_point, run_and_fold, table_source)


def read(frame: pd.DataFrame, request: Request):
    """The :class:`~pp_corr.data.sources.Source` of a wide table.

    >>> frame = pd.DataFrame({"fold": [1, 2], "A": [0.8, 0.9], "B": [0.7, 0.8]})
    >>> read(frame, Request(None, None, None, None, None)).frame.algorithm.tolist()
    ['A', 'A', 'B', 'B']
    """
    return table_source(frame, request, "wide", read_wide)


def read_wide(frame, roles, columns, algorithms, layout, name, where, decimal_comma):
    """The tidy frame of a wide table (the ``read`` of :func:`~pp_corr.data.sources.table_source`) and whether
    one run was assumed.

    >>> frame = pd.DataFrame({"fold": [1, 2], "A": [0.8, 0.9], "B": [0.7, 0.8]})
    >>> roles = {"dataset": "dataset", "run": "run", "fold": "fold"}
    >>> read_wide(frame, roles, {}, None, {"runs": None, "folds": None}, "D1", None, False)[1]
    True
    """
    for role in ("algorithm", "score"):
        if role in columns:
            raise ValueError(f"columns= maps {role!r}, a column of a tidy table; a wide table has one column per "
                             "algorithm (choose them with algorithms=)")
    check_columns(frame.columns, roles, [r for r in ("dataset", "run", "fold") if r in columns])
    labels = [r for r in ("dataset", "run", "fold") if roles[r] in frame.columns]
    taken = {roles[r] for r in labels} | set(SIZES)
    if algorithms is None:
        names = [c for c in frame.columns if c not in taken]
    else:
        names = algorithm_names(algorithms)
        unknown = [a for a in names if a not in frame.columns or a in taken]
        if unknown:
            raise UnknownAlgorithmError(unknown, [c for c in frame.columns if c not in taken], "the table's columns")
    if not names:
        raise ValueError(f"no algorithm columns: the table has only {list(frame.columns)} (a wide table has one "
                         "column of scores per algorithm; a tidy one needs columns algorithm and score)")
    for a in names:
        values = decimal_point(frame[a]) if decimal_comma else frame[a]
        if pd.to_numeric(values, errors="coerce").isna().all():
            raise ValueError(f"column {a!r} holds no numbers: in a wide table every column other than dataset, run, "
                             "fold, n_test and n_train is an algorithm's scores (choose them with algorithms=; a tidy "
                             "table needs columns algorithm and score, see columns=)")
    keys = frame[[roles[r] for r in labels]].rename(columns={roles[r]: r for r in labels})
    if "dataset" not in labels:
        keys.insert(0, "dataset", name)
    one_run = "run" not in labels
    if one_run and "fold" not in labels:  # the rows of a data set are its scores in order, as arrays are
        position = keys.groupby("dataset", sort=False).cumcount().to_numpy()
        n = keys.groupby("dataset", sort=False)["dataset"].transform("size").to_numpy()
        keys["run"], keys["fold"] = run_and_fold(position, n, names=keys["dataset"].to_numpy(), **layout)
        one_run = layout["runs"] is None and layout["folds"] is None
    elif one_run:
        keys["run"] = "1"
        one_run = layout["runs"] is None and layout["folds"] is None
    elif "fold" not in labels:
        keys["fold"] = keys.groupby(["dataset", "run"], sort=False).cumcount() + 1
        one_run = False
    else:
        one_run = False
    sizes = frame[[c for c in SIZES if c in frame.columns]]
    long = pd.concat([keys.assign(algorithm=str(a), score=frame[a]).join(sizes) for a in names])
    return long[["dataset", "algorithm", "run", "fold", "score"] + list(sizes.columns)], one_run


FORMAT = InputFormat(("table",), read)
