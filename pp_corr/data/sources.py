"""What the formats of per-fold scores share (:mod:`pp_corr.data.formats`, one module per format): the tidy frame
each is read into (:class:`Source`), what a format is to the registry (:class:`InputFormat`) and what it is asked
(:class:`Request`), and the reading of files, tables and algorithm names.

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
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

ROLES = ("dataset", "algorithm", "run", "fold", "score")
SIZES = ("n_test", "n_train")  # optional numeric columns of a table: the sizes of each fold's test and training sets
DELIMITERS = (",", ";", "\t")
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


KINDS = {"table": "a table: give a DataFrame or a CSV path", "mapping": "a mapping (or a JSON file)"}


@dataclass(frozen=True)
class InputFormat:
    """A format of per-fold scores, an entry of :data:`pp_corr.data.formats.FORMATS`.

    ``holds``: the kinds of source it reads (of :data:`KINDS`: ``"table"``, a DataFrame or CSV file, and
    ``"mapping"``, a mapping or JSON file; a path given in this format is opened as the first). ``read(source,
    request)``: the :class:`Source` of a source of those kinds (a path already opened) and a :class:`Request`.
    ``detect(source, columns)``: whether ``format="auto"`` reads a source of those kinds in this format; None for
    the format of its kind read when no other's detector says so. ``command_line``: offered by ``--format``.

    >>> from pp_corr.data.formats import FORMATS
    >>> FORMATS["tidy"].holds, FORMATS["wide"].detect is None
    (('table',), True)
    """

    holds: tuple[str, ...]
    read: Callable
    detect: Callable | None = None
    command_line: bool = True


@dataclass(frozen=True)
class Request:
    """What :func:`pp_corr.load_scores` asks of a source, for a format's reader (:class:`InputFormat`): the
    arguments of that name, ``name`` (of a source's one data set: the file's stem, else "D1"), and for tables
    read from a file ``where`` (a row label -> its place, for the errors) and ``decimal_comma``.

    >>> Request(algorithms=None, columns=None, runs=2, folds=None, datasets=None).layout
    {'runs': 2, 'folds': None}
    """

    algorithms: object
    columns: object
    runs: object
    folds: object
    datasets: object
    name: str = "D1"
    scoring: str | None = None
    na_values: tuple = ()
    where: Callable = "row {}".format
    decimal_comma: bool = False

    @property
    def layout(self) -> dict:
        """``runs`` and ``folds``, as :func:`run_and_fold` takes them."""
        return {"runs": self.runs, "folds": self.folds}


def missing_scores(values: pd.Series, na_values=()) -> np.ndarray:
    """Which ``values`` are missing scores: NaN or None, or text spelled as in :data:`MISSING` or ``na_values``
    (spaces around it aside).

    >>> missing_scores(pd.Series(["0.8", "NA", " ", "-", None, 0.7, "n/a", "-0.1"]), ("n/a",)).tolist()
    [False, True, True, True, True, False, True, False]
    """
    text = values.astype(str).str.strip()
    return (values.isna() | text.isin(MISSING + tuple(na_values))).to_numpy()


def check_na_values(na_values) -> tuple[str, ...]:
    if na_values is None:
        return ()
    na_values = [na_values] if isinstance(na_values, str) else na_values
    if not isinstance(na_values, (list, tuple, set)) or not all(isinstance(v, str) for v in na_values):
        raise TypeError(f"na_values must be a text or a list of texts (the spellings of a missing score), got "
                        f"{na_values!r}")
    return tuple(na_values)


def select_algorithms(blocks: dict, algorithms, where) -> dict:
    """The entries of ``blocks`` named in ``algorithms`` (all by default), in the source's order."""
    if algorithms is None:
        return blocks
    wanted = algorithm_names(algorithms)
    have = [str(k) for k in blocks]
    unknown = [a for a in wanted if a not in have]
    if unknown:
        raise UnknownAlgorithmError(unknown, have, where)
    return {k: v for k, v in blocks.items() if str(k) in wanted}


def algorithm_names(algorithms) -> list[str]:
    if isinstance(algorithms, (str, bytes)) or np.ndim(algorithms) != 1 or len(algorithms) == 0:
        raise ValueError(f"algorithms must be a list of names, got {algorithms!r}")
    names = [str(a) for a in algorithms]
    if len(set(names)) < len(names):
        raise ValueError(f"algorithms names an algorithm twice: {names}")
    return names


def read_json(path, encoding):
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


def read_csv(path, encoding, delimiter):
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


def check_table(frame: pd.DataFrame, columns) -> None:
    """What every table is checked for before its format is chosen: rows, ``columns`` (role -> column name), and
    not one column whose name holds a delimiter (a CSV file read with another delimiter than its own).

    >>> check_table(pd.DataFrame({"algorithm;score": ["A;0.8"]}), None)
    Traceback (most recent call last):
    ...
    ValueError: missing columns: the table has one column 'algorithm;score', so it seems to use another ...
    """
    if len(frame.columns) == 0 or len(frame) == 0:
        raise ValueError("no scores: the source has no rows (zero data sets)")
    column_roles(columns)
    if len(frame.columns) == 1 and any(d in str(frame.columns[0]) for d in DELIMITERS):
        raise ValueError(f"missing columns: the table has one column {str(frame.columns[0])!r}, so it seems to use "
                         "another delimiter: give the file's own with delimiter=")


def table_source(frame: pd.DataFrame, request: Request, format: str, read: Callable) -> Source:
    """The :class:`Source` of a table of scores in ``format`` (``"tidy"`` or ``"wide"``): its dataset column (or
    its one data set's name), then ``read(frame, roles, columns, algorithms, layout, name, where, decimal_comma)``
    -> (tidy frame, whether one run was assumed), decimal commas and missing scores.

    >>> from pp_corr.data.formats import tidy
    >>> frame = pd.DataFrame({"algorithm": ["A", "B"], "fold": [1, 1], "score": ["0.8", "NA"]})
    >>> table_source(frame, Request(None, None, None, None, None), "tidy", tidy.read_tidy).frame.score.tolist()
    ['0.8', nan]
    """
    if request.scoring is not None:
        raise ValueError(f"scoring= chooses the metric of cross_validate results or cv_results_, not of a {format} "
                         "table")
    columns, algorithms, decimal_comma = request.columns, request.algorithms, request.decimal_comma
    roles, name = column_roles(columns), request.name
    one_dataset = roles["dataset"] not in frame.columns and "dataset" not in (columns or {})
    if one_dataset:
        found = _dataset_column(frame, roles, format, algorithms, decimal_comma, request.na_values)
        one_dataset, roles["dataset"] = found is None, found or roles["dataset"]
    if one_dataset:
        name = one_dataset_name(request.datasets, name)
    elif request.datasets is not None:
        raise ValueError("datasets= names the data sets of a source without a dataset column; this one has the "
                         f"column {roles['dataset']!r}")
    unsplittable = roles["fold"] in frame.columns and roles["run"] not in frame.columns
    frame, one_run = read(frame, roles, columns or {}, algorithms, request.layout, name, request.where,
                          decimal_comma)
    for column in ("score",) + SIZES:
        if decimal_comma and column in frame:
            frame[column] = decimal_point(frame[column])
    frame["score"] = frame["score"].mask(missing_scores(frame["score"], request.na_values))
    return Source(frame, request.where, roles, one_run, unsplittable)


def _dataset_column(frame, roles, format, algorithms, decimal_comma, na_values):
    """The column naming the data sets of a table without a ``dataset`` column: its one text column besides the
    other roles' (and n_test, n_train, and in a wide table ``algorithms``); None when it has none."""
    taken = {roles[r] for r in (("run", "fold") if format == "wide" else ("algorithm", "run", "fold", "score"))}
    chosen = set(algorithm_names(algorithms)) if algorithms is not None and format == "wide" else set()
    candidates = [c for c in frame.columns if c not in taken | chosen | set(SIZES)
                  and _is_text(frame[c], decimal_comma, na_values)]
    if len(candidates) > 1:
        raise ValueError(f"the table has no dataset column and several text columns {[str(c) for c in candidates]} "
                         f"that could name the data sets: say which with columns={{\"dataset\": NAME}}")
    return candidates[0] if candidates else None


def _is_text(values, decimal_comma, na_values) -> bool:
    """Whether most of the cells of a column that are not missing scores are not numbers."""
    values = values[~missing_scores(values, na_values)]
    values = decimal_point(values) if decimal_comma else values
    return len(values) > 0 and pd.to_numeric(values, errors="coerce").isna().mean() > 0.5


def one_dataset_name(datasets, name):
    if datasets is None:
        return name
    if np.ndim(datasets) != 1 or len(datasets) != 1:
        raise ValueError(f"datasets must name the one data set of a source without a dataset column, got {datasets!r}")
    return str(datasets[0])


def decimal_point(values: pd.Series) -> pd.Series:
    return values if pd.api.types.is_numeric_dtype(values) else values.astype(str).str.replace(",", ".", regex=False)


def column_roles(columns):
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


def check_columns(present, roles, needed):
    missing = [roles[r] for r in needed if roles[r] not in present]
    if missing:
        hint = ""
        if len(present) == 1 and any(sep in str(present[0]) for sep in ";\t|,"):
            hint = "; the file seems to use another delimiter: give the file's own with delimiter="
        raise ValueError(f"missing column(s) {missing}; have {list(present)} (rename them with columns=...){hint}")


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


def choose_metric(available, scoring, what):
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
