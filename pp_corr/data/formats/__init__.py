"""The formats per-fold scores come in, one module each, and :func:`read_source`, which reads a source in one of
them into one tidy frame for :func:`pp_corr.load_scores`.

``format=`` of ``load_scores`` (``--format`` of ``pp-corr``) is a name of :data:`FORMATS`, or ``"auto"`` (the
default): a path ending in ``.json`` is read as a mapping, any other as a CSV table, and the format is the first
whose detector (:attr:`~pp_corr.data.sources.InputFormat.detect`) says yes, from the last entry of
:data:`FORMATS` to the first - so a format added later is tried before those it may resemble - else the one of
its kind without a detector:

- ``"cv_results"`` (:mod:`.cv_results`): a fitted search, its ``cv_results_``, or that table;
- ``"cross_validate"`` (:mod:`.cross_validate`): scikit-learn's ``cross_validate`` results, by algorithm (and by
  data set);
- ``"tidy"`` (:mod:`.tidy`): one row per data set, algorithm, run and fold;
- ``"wide"`` (:mod:`.wide`): one row per data set, run and fold, one column per algorithm (any other table);
- ``"arrays"`` (:mod:`.arrays`): ``{algorithm: (q, n) array}`` as baycomp takes them (any other mapping).

What they share (the dataset column, runs, CSV files, missing scores): :mod:`pp_corr.data.sources`. A format is
added by one entry in :data:`FORMATS`, an :class:`~pp_corr.data.sources.InputFormat`.
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from ..sources import DELIMITERS, KINDS, Request, Source, check_na_values, check_table, read_csv, read_json
from . import arrays, cross_validate, cv_results, tidy, wide

FORMATS = {"tidy": tidy.FORMAT, "wide": wide.FORMAT, "arrays": arrays.FORMAT,
           "cross_validate": cross_validate.FORMAT, "cv_results": cv_results.FORMAT}


def read_source(source, *, format, algorithms, columns, runs, folds, datasets, encoding, delimiter, scoring,
                na_values=None) -> Source:
    """Read ``source`` in ``format`` (see the module docstring) into a :class:`~pp_corr.data.sources.Source`; a
    missing score is NaN.

    >>> read_source({"A": [[0.8, 0.9]], "B": [[0.7, 0.8]]}, format="auto", algorithms=None, columns=None, runs=None,
    ...             folds=None, datasets=None, encoding=None, delimiter=None, scoring=None).frame.shape
    (4, 5)
    """
    na_values = check_na_values(na_values)
    if format != "auto" and format not in FORMATS:
        raise ValueError(f"format must be one of {['auto', *FORMATS]}, got {format!r}")
    if delimiter is not None and delimiter not in DELIMITERS:
        raise ValueError(f"delimiter must be one of {list(DELIMITERS)}, got {delimiter!r}")
    if isinstance(datasets, (str, bytes)):
        raise TypeError(f"datasets must be a list of names, got the text {datasets!r}")
    opened = {}
    if isinstance(source, (str, Path)) or hasattr(source, "__fspath__"):
        path = Path(source)
        opened["name"] = path.stem
        json = FORMATS[format].holds[0] == "mapping" if format != "auto" else path.suffix.lower() == ".json"
        if json:
            source = read_json(path, encoding)
        else:
            source, opened["where"], opened["decimal_comma"] = read_csv(path, encoding, delimiter)
    if hasattr(source, "cv_results_"):
        source = source.cv_results_
    if isinstance(source, pd.DataFrame):
        kind = "table"
        check_table(source, columns)
    elif isinstance(source, Mapping):
        kind = "mapping"
    else:
        raise TypeError("source must be a CSV or JSON path, a pandas DataFrame, a mapping {algorithm: (q, n) array}, "
                        "cross_validate results or a fitted search's cv_results_, got " + type(source).__name__)
    name = format if format != "auto" else detect(source, kind, columns)
    if kind not in FORMATS[name].holds:
        raise ValueError(f"format={name!r} is {KINDS[FORMATS[name].holds[0]]}, not a {kind}")
    if kind == "mapping" and columns:
        raise ValueError(f"columns= renames the columns of a tidy or wide table; {name} results have none")
    request = Request(algorithms, columns, runs, folds, datasets, scoring=scoring, na_values=na_values, **opened)
    return FORMATS[name].read(source, request)


def detect(source, kind, columns) -> str:
    """The format ``format="auto"`` reads ``source`` in (a ``kind`` of :data:`~pp_corr.data.sources.KINDS`):
    the first of :data:`FORMATS`, from the last, whose detector says yes, else the one of that kind without one.

    >>> detect({"A": {"test_score": [0.8]}}, "mapping", None), detect(pd.DataFrame({"A": [0.8]}), "table", None)
    ('cross_validate', 'wide')
    """
    held = [name for name, entry in reversed(FORMATS.items()) if kind in entry.holds]
    found = [name for name in held if FORMATS[name].detect is not None and FORMATS[name].detect(source, columns)]
    return (found or [name for name in held if FORMATS[name].detect is None])[0]
