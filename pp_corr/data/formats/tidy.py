"""``format="tidy"``: one row per data set, algorithm, run and fold, with an ``algorithm`` and a ``score`` column.
Detected when both columns are there (or ``columns=`` names either)."""
from __future__ import annotations

import pandas as pd

from ..sources import (ROLES, SIZES, InputFormat, Request, UnknownAlgorithmError, algorithm_names, check_columns,
                       column_roles, table_source)


def detect(frame: pd.DataFrame, columns) -> bool:
    """Whether ``format="auto"`` reads ``frame`` as tidy: it has the algorithm column (the score column, if missing,
    is then named as missing), or ``columns`` maps the algorithm or score role.

    >>> detect(pd.DataFrame({"algorithm": ["A"], "score": [0.8]}), None), detect(pd.DataFrame({"A": [0.8]}), None)
    (True, False)
    """
    explicit = columns is not None and ("algorithm" in columns or "score" in columns)
    return explicit or column_roles(columns)["algorithm"] in frame.columns


def read(frame: pd.DataFrame, request: Request):
    """The :class:`~pp_corr.data.sources.Source` of a tidy table.

    >>> frame = pd.DataFrame({"dataset": ["d", "d"], "algorithm": ["A", "B"], "fold": [1, 1], "score": [0.8, 0.7]})
    >>> read(frame, Request(None, None, None, None, None)).frame.algorithm.tolist()
    ['A', 'B']
    """
    return table_source(frame, request, "tidy", read_tidy)


def read_tidy(frame, roles, columns, algorithms, layout, name, where, decimal_comma):
    """The tidy frame of a tidy table (the ``read`` of :func:`~pp_corr.data.sources.table_source`) and whether
    one run was assumed (no run column, nor runs= or folds=).

    >>> frame = pd.DataFrame({"algorithm": ["A", "B"], "fold": [1, 1], "score": [0.8, 0.7]})
    >>> read_tidy(frame, dict(zip(ROLES, ROLES)), {}, None, {"runs": None, "folds": None}, "D1", None, False)[1]
    True
    """
    needed = ["algorithm", "fold", "score"] + [r for r in ("dataset", "run") if r in columns]
    check_columns(frame.columns, roles, needed)
    present = [r for r in ROLES if roles[r] in frame.columns]
    extra = [c for c in SIZES if c in frame.columns and c not in roles.values()]
    frame = frame[[roles[r] for r in present] + extra].rename(columns={roles[r]: r for r in present})
    if "dataset" not in present:
        frame.insert(0, "dataset", name)
    one_run = "run" not in present
    if one_run:
        frame["run"] = "1"
    if algorithms is not None:
        wanted = algorithm_names(algorithms)
        have = list(pd.unique(frame["algorithm"].astype(str)))
        unknown = [a for a in wanted if a not in have]
        if unknown:
            raise UnknownAlgorithmError(unknown, have, "the source")
        frame = frame[frame["algorithm"].astype(str).isin(wanted)]
    return frame, one_run and layout["runs"] is None and layout["folds"] is None


FORMAT = InputFormat(("table",), read, detect)
