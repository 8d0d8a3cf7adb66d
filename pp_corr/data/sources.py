"""The formats per-fold scores come in, each read into one tidy frame for :func:`pp_corr.load_scores`.

``format=`` of ``load_scores`` (``--format`` of ``pp-corr``), detected when ``"auto"`` (the default):

- ``"cv_results"``: a fitted ``GridSearchCV`` / ``RandomizedSearchCV``, its ``cv_results_``, or that table as a
  DataFrame or CSV (``pd.DataFrame(search.cv_results_).to_csv(path)``). Detected by an attribute ``cv_results_``
  or columns ``split<k>_test_<metric>``. Each candidate is an algorithm named by its parameters ("C=1, kernel=rbf").
- ``"cross_validate"``: ``{algorithm: cross_validate(...) result}``, or ``{dataset: {algorithm: result}}``, or a
  JSON file of either. Detected by a mapping whose results hold ``test_<metric>`` keys, or a ``.json`` path.
- ``"arrays"``: ``{algorithm: (q, n) array}`` as baycomp takes them. Any other mapping.
- ``"tidy"``: one row per data set, algorithm, run and fold, with an ``algorithm`` and a ``score`` column. Detected
  when both columns are there (or ``columns=`` names either).
- ``"wide"``: one row per data set, run and fold, one column per algorithm. Any other table: the algorithms are
  ``algorithms=`` or else every column that is not a dataset, run or fold column (nor n_test, n_train).

A table's dataset column is the column named ``dataset`` (or ``columns={"dataset": NAME}``), else its one text
column besides run and fold (``db`` with names such as "iris"); several text columns are an error that names them.
A table with neither holds one data set (named after the file, else "D1", or ``datasets=[name]``);
without a run column every score is in run 1 (a wide table without run and fold columns, or arrays, are split
into runs by ``runs=`` or ``folds=``). ``load_scores`` warns when that leaves more than 10 folds in a run with rho
from 1/folds. CSV files: the delimiter is ``,``, ``;`` or a tab, whichever the header line has most of (``,``
on a tie), unless given; with ``;`` a decimal comma is read too (``0,85`` is 0.85; ``0.85`` still is).

A missing score (a failed fold, an algorithm not run on a data set) is NaN, or a cell written ``NA``, ``NaN``,
``nan``, ``-`` or left empty (``na_values=`` adds other spellings); ``load_scores`` keeps it as NaN.
"""
from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

FORMATS = ("auto", "tidy", "wide", "arrays", "cross_validate", "cv_results")
ROLES = ("dataset", "algorithm", "run", "fold", "score")
SIZES = ("n_test", "n_train")  # optional numeric columns of a table: the sizes of each fold's test and training sets
DELIMITERS = (",", ";", "\t")
SPLIT_COLUMN = re.compile(r"split(\d+)_test_(.+)")
UNINDEXED = {  # how to give the runs of scikit-learn's results, which without split indices cannot tell them
    "cross_validate": "pass return_indices=True to cross_validate (its splits then tell the runs), or give runs=r "
                      "(or folds=k, or rho=): without split indices repeated k-fold looks like one run",
    "cv_results": "give folds=k (or runs=r, or rho=): a search's cv_results_ hold no split indices, so repeated "
                  "k-fold looks like one run"}
MISSING = ("NA", "NaN", "nan", "", "-")  # a missing score as R, pandas and people write it (and an empty cell)


class UnknownAlgorithmError(ValueError):
    """``algorithms=`` names algorithms the source does not hold (``unknown``; it holds ``have``)."""

    def __init__(self, unknown, have, where):
        self.unknown, self.have = unknown, have
        super().__init__(f"algorithms= names {unknown}, not in {where} (it has {have})")


@dataclass
class Source:
    """A source read into a tidy frame (columns ``ROLES`` and any of ``SIZES``) and how to point into it."""

    frame: pd.DataFrame
    where: object  # row label -> "line 5 of scores.csv" / "row 3", for the error messages
    columns: dict  # role -> the column it came from, for the error messages
    one_run_assumed: bool  # no run labels and no runs=/folds=: every score of a data set is one run
    runs_unsplittable: bool = False  # fold labels without run labels: runs=/folds= cannot split them into runs
    splits_unindexed: str = ""  # scikit-learn's results without split indices: how to give their runs


def missing_scores(values: pd.Series, na_values=()) -> np.ndarray:
    """Which ``values`` are missing scores: NaN or None, or text spelled as in :data:`MISSING` or ``na_values``
    (spaces around it aside).

    >>> missing_scores(pd.Series(["0.8", "NA", " ", "-", None, 0.7, "n/a", "-0.1"]), ("n/a",)).tolist()
    [False, True, True, True, True, False, True, False]
    """
    text = values.astype(str).str.strip()
    return (values.isna() | text.isin(MISSING + tuple(na_values))).to_numpy()


def _na_values(na_values) -> tuple[str, ...]:
    if na_values is None:
        return ()
    na_values = [na_values] if isinstance(na_values, str) else na_values
    if not isinstance(na_values, (list, tuple, set)) or not all(isinstance(v, str) for v in na_values):
        raise TypeError(f"na_values must be a text or a list of texts (the spellings of a missing score), got "
                        f"{na_values!r}")
    return tuple(na_values)


def read_source(source, *, format, algorithms, columns, runs, folds, datasets, encoding, delimiter, scoring,
                na_values=None) -> Source:
    """Read ``source`` in ``format`` (see the module docstring) into a :class:`Source`; a missing score is NaN.

    >>> read_source({"A": [[0.8, 0.9]], "B": [[0.7, 0.8]]}, format="auto", algorithms=None, columns=None, runs=None,
    ...             folds=None, datasets=None, encoding=None, delimiter=None, scoring=None).frame.shape
    (4, 5)
    """
    na_values = _na_values(na_values)
    if format not in FORMATS:
        raise ValueError(f"format must be one of {list(FORMATS)}, got {format!r}")
    if delimiter is not None and delimiter not in DELIMITERS:
        raise ValueError(f"delimiter must be one of {list(DELIMITERS)}, got {delimiter!r}")
    if isinstance(datasets, (str, bytes)):
        raise TypeError(f"datasets must be a list of names, got the text {datasets!r}")
    layout = dict(runs=runs, folds=folds)
    name = None
    if isinstance(source, (str, Path)) or hasattr(source, "__fspath__"):
        path = Path(source)
        name = path.stem
        if format in ("cross_validate", "arrays") or (format == "auto" and path.suffix.lower() == ".json"):
            source = _read_json(path, encoding)
        else:
            source, where, comma = _read_csv(path, encoding, delimiter)
            return _from_table(source, where, format, algorithms, columns, layout, datasets, name, comma, scoring,
                               na_values)
    if hasattr(source, "cv_results_"):
        source = source.cv_results_
    if isinstance(source, pd.DataFrame):
        return _from_table(source, "row {}".format, format, algorithms, columns, layout, datasets, name or "D1",
                           False, scoring, na_values)
    if not isinstance(source, Mapping):
        raise TypeError("source must be a CSV or JSON path, a pandas DataFrame, a mapping {algorithm: (q, n) array}, "
                        "cross_validate results or a fitted search's cv_results_, got " + type(source).__name__)
    kind = format if format != "auto" else _mapping_format(source)
    if kind in ("tidy", "wide"):
        raise ValueError(f"format={kind!r} is a table: give a DataFrame or a CSV path, not a mapping")
    if columns:
        raise ValueError(f"columns= renames the columns of a tidy or wide table; {kind} results have none")
    if kind == "cv_results":
        return _from_table(pd.DataFrame(source), "row {}".format, "cv_results", algorithms, None, layout, datasets,
                           name or "D1", False, scoring, na_values)
    if kind == "cross_validate":
        return _from_cross_validate(source, algorithms, layout, datasets, name or "D1", scoring)
    if scoring is not None:
        raise ValueError("scoring= chooses the metric of cross_validate results or cv_results_; arrays have one")
    arrays = _select(dict(source), algorithms, "the mapping")
    return Source(arrays_to_frame(arrays, datasets=datasets, **layout), "row {}".format, dict(zip(ROLES, ROLES)),
                  runs is None and folds is None)


def _mapping_format(source) -> str:
    if "params" in source and any(SPLIT_COLUMN.fullmatch(str(k)) for k in source):
        return "cv_results"
    if source and all(_is_cv(v) for v in source.values()):
        return "cross_validate"
    if source and all(isinstance(v, Mapping) and v and all(_is_cv(r) for r in v.values()) for v in source.values()):
        return "cross_validate"
    return "arrays"


def _is_cv(value) -> bool:
    return isinstance(value, Mapping) and any(str(k).startswith("test_") for k in value)


def _select(blocks: dict, algorithms, where) -> dict:
    """The entries of ``blocks`` named in ``algorithms`` (all by default), in the source's order."""
    if algorithms is None:
        return blocks
    wanted = _names(algorithms)
    have = [str(k) for k in blocks]
    unknown = [a for a in wanted if a not in have]
    if unknown:
        raise UnknownAlgorithmError(unknown, have, where)
    return {k: v for k, v in blocks.items() if str(k) in wanted}


def _names(algorithms) -> list[str]:
    if isinstance(algorithms, (str, bytes)) or np.ndim(algorithms) != 1 or len(algorithms) == 0:
        raise ValueError(f"algorithms must be a list of names, got {algorithms!r}")
    names = [str(a) for a in algorithms]
    if len(set(names)) < len(names):
        raise ValueError(f"algorithms names an algorithm twice: {names}")
    return names


def _read_json(path, encoding):
    _check_file(path)
    try:
        with open(path, encoding=encoding or "utf-8") as stream:
            return json.load(stream)
    except json.JSONDecodeError as err:
        raise ValueError(f"{str(path)!r} is not readable JSON: {err}") from None


def _check_file(path):
    if not path.exists():
        raise FileNotFoundError(f"no such scores file: {str(path)!r}")
    if path.is_dir():
        raise IsADirectoryError(f"{str(path)!r} is a directory, not a scores file")


def sniff_delimiter(line: str) -> str:
    """The delimiter a CSV header line uses: the most frequent of ``,``, ``;`` and tab (``,`` on a tie).

    >>> sniff_delimiter("dataset;algorithm;score"), sniff_delimiter("a\\tb"), sniff_delimiter("score")
    (';', '\\t', ',')
    """
    counts = [line.count(d) for d in DELIMITERS]
    return DELIMITERS[int(np.argmax(counts))]


def _read_csv(path, encoding, delimiter):
    """Every cell as text (names stay as written: "001", "NA"), with the file's line numbers as the index."""
    _check_file(path)
    encoding = "utf-8" if encoding is None else encoding
    try:
        with open(path, encoding=encoding, newline="") as stream:
            header = stream.readline()
        if not header.strip():
            raise ValueError(f"{str(path)!r} is empty: expected a CSV header line")
        delimiter = sniff_delimiter(header) if delimiter is None else delimiter
        frame = pd.read_csv(path, sep=delimiter, dtype=str, keep_default_na=False, encoding=encoding)
    except UnicodeDecodeError as err:
        raise ValueError(f"{str(path)!r} is not {encoding} text (byte {err.object[err.start:err.start + 1]!r} at "
                         f"position {err.start}): give its encoding, e.g. encoding='cp1252' or 'latin-1', "
                         "or save the file as UTF-8") from None
    except LookupError as err:
        raise ValueError(f"encoding={encoding!r}: {err}") from None
    except pd.errors.EmptyDataError:
        raise ValueError(f"{str(path)!r} is empty: expected a CSV header line") from None
    except pd.errors.ParserError as err:
        raise ValueError(f"{str(path)!r} is not a readable CSV file with the delimiter {delimiter!r} (give "
                         f"another with delimiter=): {str(err).strip()}") from None
    frame.index = pd.RangeIndex(2, len(frame) + 2)  # the file's line numbers, for the error messages
    return frame, f"line {{}} of {path}".format, delimiter == ";"


def _from_table(frame, where, format, algorithms, columns, layout, datasets, name, decimal_comma, scoring,
                na_values) -> Source:
    if len(frame.columns) == 0 or len(frame) == 0:
        raise ValueError("no scores: the source has no rows (zero data sets)")
    roles = _roles(columns)
    if len(frame.columns) == 1 and any(d in str(frame.columns[0]) for d in DELIMITERS):
        raise ValueError(f"missing columns: the table has one column {str(frame.columns[0])!r}, so it seems to use "
                         "another delimiter: give the file's own with delimiter=")
    if format == "auto":
        explicit_tidy = columns is not None and ("algorithm" in columns or "score" in columns)
        if any(SPLIT_COLUMN.fullmatch(str(c)) for c in frame.columns):
            format = "cv_results"
        elif explicit_tidy or roles["algorithm"] in frame.columns:  # without a score column: named as missing
            format = "tidy"
        else:
            format = "wide"
    if format in ("arrays", "cross_validate"):
        raise ValueError(f"format={format!r} is a mapping (or a JSON file), not a table")
    if scoring is not None and format != "cv_results":
        raise ValueError(f"scoring= chooses the metric of cross_validate results or cv_results_, not of a {format} "
                         "table")
    if format == "cv_results":
        if columns:
            raise ValueError("columns= renames the columns of a tidy or wide table, not of cv_results_")
        return _from_cv_results(frame, algorithms, layout, datasets, name, decimal_comma, scoring, na_values)
    one_dataset = roles["dataset"] not in frame.columns and "dataset" not in (columns or {})
    if one_dataset:
        found = _dataset_column(frame, roles, format, algorithms, decimal_comma, na_values)
        one_dataset, roles["dataset"] = found is None, found or roles["dataset"]
    if one_dataset:
        name = _one_name(datasets, name)
    elif datasets is not None:
        raise ValueError("datasets= names the data sets of a source without a dataset column; this one has the "
                         f"column {roles['dataset']!r}")
    read = _tidy if format == "tidy" else _wide
    unsplittable = roles["fold"] in frame.columns and roles["run"] not in frame.columns
    frame, one_run = read(frame, roles, columns or {}, algorithms, layout, name, where, decimal_comma)
    for column in ("score",) + SIZES:
        if decimal_comma and column in frame:
            frame[column] = _decimal_point(frame[column])
    frame["score"] = frame["score"].mask(missing_scores(frame["score"], na_values))
    return Source(frame, where, roles, one_run, unsplittable)


def _dataset_column(frame, roles, format, algorithms, decimal_comma, na_values):
    """The column naming the data sets of a table without a ``dataset`` column: its one text column besides the
    other roles' (and n_test, n_train, and in a wide table ``algorithms``); None when it has none."""
    taken = {roles[r] for r in (("run", "fold") if format == "wide" else ("algorithm", "run", "fold", "score"))}
    chosen = set(_names(algorithms)) if algorithms is not None and format == "wide" else set()
    candidates = [c for c in frame.columns if c not in taken | chosen | set(SIZES)
                  and _is_text(frame[c], decimal_comma, na_values)]
    if len(candidates) > 1:
        raise ValueError(f"the table has no dataset column and several text columns {[str(c) for c in candidates]} "
                         f"that could name the data sets: say which with columns={{\"dataset\": NAME}}")
    return candidates[0] if candidates else None


def _is_text(values, decimal_comma, na_values) -> bool:
    """Whether most of the cells of a column that are not missing scores are not numbers."""
    values = values[~missing_scores(values, na_values)]
    values = _decimal_point(values) if decimal_comma else values
    return len(values) > 0 and pd.to_numeric(values, errors="coerce").isna().mean() > 0.5


def _one_name(datasets, name):
    if datasets is None:
        return name
    if np.ndim(datasets) != 1 or len(datasets) != 1:
        raise ValueError(f"datasets must name the one data set of a source without a dataset column, got {datasets!r}")
    return str(datasets[0])


def _decimal_point(values: pd.Series) -> pd.Series:
    return values if pd.api.types.is_numeric_dtype(values) else values.astype(str).str.replace(",", ".", regex=False)


def _roles(columns):
    if columns is None:
        columns = {}
    if not isinstance(columns, Mapping):
        raise TypeError(f"columns must be a mapping {{role: column name}}, got {type(columns).__name__}")
    unknown = set(columns) - set(ROLES)
    if unknown:
        raise ValueError(f"columns= names unknown roles {sorted(map(str, unknown))}; roles are {list(ROLES)}")
    roles = {**dict(zip(ROLES, ROLES)), **columns}
    targets = list(roles.values())
    shared = sorted({str(c) for c in targets if targets.count(c) > 1})
    if shared:
        raise ValueError(f"columns gives column(s) {shared} more than one role: {roles}")
    return roles


def _check_columns(present, roles, needed):
    missing = [roles[r] for r in needed if roles[r] not in present]
    if missing:
        hint = ""
        if len(present) == 1 and any(sep in str(present[0]) for sep in ";\t|,"):
            hint = "; the file seems to use another delimiter: give the file's own with delimiter="
        raise ValueError(f"missing column(s) {missing}; have {list(present)} (rename them with columns=...){hint}")


def _tidy(frame, roles, columns, algorithms, layout, name, where, decimal_comma):
    needed = ["algorithm", "fold", "score"] + [r for r in ("dataset", "run") if r in columns]
    _check_columns(frame.columns, roles, needed)
    present = [r for r in ROLES if roles[r] in frame.columns]
    extra = [c for c in SIZES if c in frame.columns and c not in roles.values()]
    frame = frame[[roles[r] for r in present] + extra].rename(columns={roles[r]: r for r in present})
    if "dataset" not in present:
        frame.insert(0, "dataset", name)
    one_run = "run" not in present
    if one_run:
        frame["run"] = "1"
    if algorithms is not None:
        wanted = _names(algorithms)
        have = list(pd.unique(frame["algorithm"].astype(str)))
        unknown = [a for a in wanted if a not in have]
        if unknown:
            raise UnknownAlgorithmError(unknown, have, "the source")
        frame = frame[frame["algorithm"].astype(str).isin(wanted)]
    return frame, one_run and layout["runs"] is None and layout["folds"] is None


def _wide(frame, roles, columns, algorithms, layout, name, where, decimal_comma):
    for role in ("algorithm", "score"):
        if role in columns:
            raise ValueError(f"columns= maps {role!r}, a column of a tidy table; a wide table has one column per "
                             "algorithm (choose them with algorithms=)")
    _check_columns(frame.columns, roles, [r for r in ("dataset", "run", "fold") if r in columns])
    labels = [r for r in ("dataset", "run", "fold") if roles[r] in frame.columns]
    taken = {roles[r] for r in labels} | set(SIZES)
    if algorithms is None:
        names = [c for c in frame.columns if c not in taken]
    else:
        names = _names(algorithms)
        unknown = [a for a in names if a not in frame.columns or a in taken]
        if unknown:
            raise UnknownAlgorithmError(unknown, [c for c in frame.columns if c not in taken], "the table's columns")
    if not names:
        raise ValueError(f"no algorithm columns: the table has only {list(frame.columns)} (a wide table has one "
                         "column of scores per algorithm; a tidy one needs columns algorithm and score)")
    for a in names:
        values = _decimal_point(frame[a]) if decimal_comma else frame[a]
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


def run_and_fold(position, n, *, runs, folds, names):
    """Run and fold numbers (from 1) of the score at ``position`` among the ``n`` scores of its data set.

    ``runs`` splits them into that many runs, ``folds`` (a number or ``{dataset: number}``) into runs of that many
    folds; neither: one run.

    >>> run_and_fold(np.arange(6), np.full(6, 6), runs=2, folds=None, names=np.array(["d"] * 6))
    (array([1, 1, 1, 2, 2, 2]), array([1, 2, 3, 1, 2, 3]))
    """
    if runs is not None:
        bad = n % runs != 0
        if bad.any():
            raise ValueError(f"{n[bad][0]} scores per data set do not split into runs={runs}")
        per_run = n // runs
    elif folds is not None:
        if isinstance(folds, Mapping):
            by_name = {str(k): v for k, v in folds.items()}
            missing = sorted({str(d) for d in names} - set(by_name))
            if missing:
                raise ValueError(f"folds has no value for data set(s) {missing}")
            per_run = np.array([float(by_name[str(d)]) for d in names])
        else:
            per_run = np.broadcast_to(np.asarray(folds, dtype=float), n.shape)
        bad = (per_run < 2) | (per_run != np.round(per_run)) | (n % np.maximum(per_run, 1) != 0)
        if bad.any():
            i = int(np.argmax(bad))
            raise ValueError(f"folds = {per_run[i]:g} (data set {str(names[i])!r}) does not split its {n[i]} scores "
                             "into whole runs: folds is the number of folds of one run, a whole number >= 2 dividing n")
        per_run = per_run.astype(np.int64)
    else:
        per_run = n
    return position // per_run + 1, position % per_run + 1


def arrays_to_frame(arrays, *, runs, datasets, folds) -> pd.DataFrame:
    """The tidy frame of ``{algorithm: (q, n) array}``: n scores per data set, split into runs by runs= or folds=.

    >>> arrays_to_frame({"A": [[0.8, 0.9]], "B": [[0.7, 0.8]]}, runs=None, datasets=None, folds=None).fold.tolist()
    [1, 2, 1, 2]
    """
    if not arrays:
        raise ValueError("no algorithms given: the mapping {algorithm: (q, n) array} is empty")
    blocks = {}
    for algorithm, values in arrays.items():
        try:
            values = np.asarray(values)
        except ValueError as err:
            raise ValueError(f"scores of algorithm {algorithm!r} must be a (q, n) array: {err}") from None
        values = values[None] if values.ndim == 1 else values
        if values.ndim != 2:
            raise ValueError(f"scores of algorithm {algorithm!r} must be (q, n), got shape {values.shape}")
        if str(algorithm) in blocks:
            raise ValueError(f"two algorithms are named {str(algorithm)!r}")
        blocks[str(algorithm)] = values
    shapes = {name: values.shape for name, values in blocks.items()}
    if len(set(shapes.values())) > 1:
        raise ValueError(f"the algorithms' score arrays differ in shape: {shapes}")
    q, n = next(iter(shapes.values()))
    if q == 0 or n == 0:
        raise ValueError(f"no scores: the arrays have shape {(q, n)} (zero data sets or zero scores per data set)")
    if isinstance(datasets, (str, bytes)):
        raise TypeError(f"datasets must be a list of names, got the text {datasets!r}")
    names = [str(d) for d in datasets] if datasets is not None else [f"D{i + 1}" for i in range(q)]
    if len(names) != q:
        raise ValueError(f"datasets has {len(names)} names but the arrays have {q} rows")
    run, fold = run_and_fold(np.tile(np.arange(n), q), np.full(q * n, n), runs=runs, folds=folds,
                             names=np.repeat(names, n))
    return pd.concat([pd.DataFrame({"dataset": np.repeat(names, n), "algorithm": algorithm, "run": run, "fold": fold,
                                    "score": values.ravel()}) for algorithm, values in blocks.items()],
                     ignore_index=True)


def _metric(available, scoring, what):
    """The metric to read among ``available`` (those of the test_<metric> keys or split columns)."""
    if scoring is not None:
        if scoring not in available:
            raise ValueError(f"scoring={scoring!r} is not among the metrics of {what}: {available}")
        return scoring
    if "score" in available:
        return "score"
    if len(available) == 1:
        return available[0]
    raise ValueError(f"{what} hold several metrics {available}: choose one with scoring=")


def _from_cv_results(frame, algorithms, layout, datasets, name, decimal_comma, scoring, na_values) -> Source:
    splits = {}
    for column in frame.columns:
        match = SPLIT_COLUMN.fullmatch(str(column))
        if match:
            splits.setdefault(match[2], []).append((int(match[1]), column))
    if not splits:
        raise ValueError(f"no split<k>_test_<metric> columns in cv_results_ (have {list(frame.columns)})")
    metric = _metric(sorted(splits), scoring, "the cv_results_")
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
        values = values.apply(_decimal_point)
    numbers = values.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
    missing = np.column_stack([missing_scores(values[c], na_values) for c in columns])  # a failed fit: NaN
    if (np.isnan(numbers) & ~missing).any():
        i, j = np.argwhere(np.isnan(numbers) & ~missing)[0]
        raise ValueError(f"candidate {names[i]!r}: {columns[j]} is {values.iloc[i, j]!r}, not a number")
    blocks = _select(dict(zip(names, numbers[:, None, :])), algorithms, "the cv_results_ candidates")
    datasets = [_one_name(datasets, name)]
    one_run = layout["runs"] is None and layout["folds"] is None
    return Source(arrays_to_frame(blocks, datasets=datasets, **layout), "row {}".format, dict(zip(ROLES, ROLES)),
                  one_run, splits_unindexed=UNINDEXED["cv_results"] if one_run else "")


def _absent(value) -> bool:
    return value is None or (isinstance(value, float) and np.isnan(value)) or (isinstance(value, str) and not value)


def _from_cross_validate(results, algorithms, layout, datasets, name, scoring) -> Source:
    nested = not all(_is_cv(v) for v in results.values())
    if nested:
        if datasets is not None:
            raise ValueError("datasets= names the data set of flat cross_validate results; nested ones "
                             "{dataset: {algorithm: results}} are named by their keys")
        by_dataset = {str(k): v for k, v in results.items()}
    else:
        by_dataset = {_one_name(datasets, name): results}
    frames, one_run = [], False
    for dataset, by_algorithm in by_dataset.items():
        by_algorithm = _select(dict(by_algorithm), algorithms, f"the cross_validate results of {dataset!r}")
        frame, assumed = _cross_validate_frame(dataset, by_algorithm, layout, scoring)
        frames.append(frame)
        one_run |= assumed
    return Source(pd.concat(frames, ignore_index=True), "row {}".format, dict(zip(ROLES, ROLES)), one_run,
                  splits_unindexed=UNINDEXED["cross_validate"] if one_run else "")  # one run: no indices


def _cross_validate_frame(dataset, by_algorithm, layout, scoring):
    """One data set's cross_validate results: the tidy frame, and whether one run was assumed."""
    scores, indices = {}, {}
    for algorithm, result in by_algorithm.items():
        if not _is_cv(result):
            raise ValueError(f"data set {dataset!r}, algorithm {algorithm!r}: not cross_validate results (a mapping "
                             "with test_score)")
        metric = _metric(sorted(str(k)[len("test_"):] for k in result if str(k).startswith("test_")), scoring,
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
