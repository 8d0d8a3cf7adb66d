"""Per-fold scores as an xarray Dataset with dims (dataset, algorithm, run, fold)."""
from __future__ import annotations

import warnings
from collections.abc import Mapping
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from .._args import AssumptionWarning, b_minus_a, check_count, check_flag, check_real, counted, warn_percent_scale
from ..pairwise.intraclass import resolve_rho
from .formats import read_source

EXAMPLE = "sklearn_cv.csv"
LABELS = ("dataset", "algorithm", "run", "fold")  # read from a CSV as text, exactly as written
MAX_GRID_CELLS, MAX_GRID_RATIO = 100_000_000, 50  # refuse a (dataset, algorithm, run, fold) grid above both


NAMES_SHOWN = 12  # names (of cells, data sets) listed one by one in a message; the rest are counted


class MissingScoresWarning(AssumptionWarning):
    """``load_scores`` read missing scores (failed folds, an algorithm not run on a data set), kept as NaN; the
    message names them (:func:`missing_cells` lists them)."""


def warn_one_run(n, advice, *, stacklevel, always=False):
    """Say, with an :class:`AssumptionWarning`, that the ``n`` scores of a data set were taken as one run of n-fold
    cross-validation (rho = 1/n), when n > 10 or ``always`` (nothing in the source could tell: a repeated
    cross-validation, read as one run, makes the tests far too sure); ``advice`` says how to give the runs;
    ``stacklevel`` as the caller would give it to warnings.warn."""
    if n > 10 or always:
        warnings.warn(f"runs= not given: assumed the {n} scores of each data set are one run of {n}-fold "
                      f"cross-validation, so rho = 1/{n}; for r runs of k folds {advice}", AssumptionWarning,
                      stacklevel=stacklevel + 1)


def load_scores(source, *, format="auto", algorithms=None, columns=None, runs=None, datasets=None, rho=None,
                n_test=None, n_train=None, folds=None, higher_is_better=True, encoding=None, delimiter=None,
                scoring=None, na_values=None, exclude_algorithms=None, exclude_datasets=None) -> xr.Dataset:
    """Read per-fold scores and validate them.

    ``source`` is, by ``format`` (detected when ``"auto"``; :mod:`pp_corr.data.formats` says how):

    - ``"tidy"``: a CSV path or DataFrame with one row per data set, algorithm, run and fold (``columns`` maps
      the roles dataset/algorithm/run/fold/score to other column names);
    - ``"wide"``: a CSV path or DataFrame with one row per data set, run and fold and one column per algorithm:
      ``algorithms`` or else every column that is not a dataset/run/fold (or n_test/n_train) column;
    - ``"arrays"``: a mapping ``{algorithm: array}`` with one ``(q, n)`` array per algorithm as baycomp takes them
      (``n = runs * folds``: give ``runs`` or ``folds``, else one run of n folds is assumed; ``datasets`` names
      the q rows);
    - ``"cross_validate"``: scikit-learn's ``cross_validate`` results of several estimators,
      ``{algorithm: results}`` (one data set) or ``{dataset: {algorithm: results}}``, or a JSON file of either;
      ``test_score`` (or ``test_<scoring>``) per split; with ``return_indices=True`` each split's n_test and
      n_train fix rho and the repeats of k-fold are found as the runs;
    - ``"cv_results"``: a fitted ``GridSearchCV`` / ``RandomizedSearchCV``, its ``cv_results_`` or that table as
      a DataFrame or CSV: each candidate is an algorithm named by its parameters ("C=1, kernel=rbf"), its
      ``split<k>_test_score`` (or ``_<scoring>``) the folds. The split sizes are not in it: rho = 1/k for its
      k splits, right for ``cv=k`` (one run of k-fold); for repeated k-fold give ``folds=k`` (or ``rho=``).

    ``algorithms`` also chooses the algorithms to load in the other formats; ``exclude_algorithms`` and
    ``exclude_datasets`` (lists of names) leave some out. A table's dataset column is its column ``dataset``, else
    its one text column besides run and fold (several: an error naming them, ``columns={"dataset": NAME}`` chooses);
    a table with neither holds one data set (named after the file, else "D1", or ``datasets=[name]``); without a
    run column every score is in run 1;
    the rows of a wide table without run and fold columns are the scores in order, split into runs as arrays are.
    CSV files: ``delimiter`` is ``","``, ``";"`` or ``"\\t"``, by default the one the header line has most of;
    with ``";"`` decimal commas are read (``0,85``); ``encoding`` is the file's text encoding (UTF-8 by default).

    Data set and algorithm names are text exactly as written: "001" stays "001", and "NA" and "None"
    are names; an empty name is an error. Runs and folds may be numbers or labels; within a data set
    they are matched between algorithms by label, then numbered 1, 2, ... in label order (numeric order
    when every label is a number), so labels numbered across data sets cost no memory. Folds whose labels
    never repeat between the runs of a data set (numbered across runs) are matched within each run.
    Data sets may have different numbers of runs: absent runs are NaN in ``score``.

    Missing scores (a failed fold, an algorithm not run on a data set) are NaN in ``score`` too: cells written
    ``NA``, ``NaN``, ``nan``, ``-`` or empty, any of ``na_values`` (a text or a list of texts), NaN in a DataFrame,
    arrays or scikit-learn's results (``error_score=np.nan``), or a row a tidy table lacks. A
    :class:`MissingScoresWarning` names them; :func:`missing_cells` lists them.

    rho is fixed per data set by ``rho``, ``n_test`` with ``n_train``, or ``folds`` (each a scalar or a
    ``{dataset: value}`` mapping; a table may also carry ``n_test`` and ``n_train`` columns); by
    default rho = 1 / (number of folds in a run), with an :class:`AssumptionWarning` when nothing said which
    scores form a run and that leaves more than 10 folds in one. ``folds`` and ``runs`` count the folds of one run
    and the runs of a data set: values that contradict the data are errors.

    Scores are higher-is-better. For errors or losses give ``higher_is_better=False``: the scores are
    negated once, here, so every test reads "B better" as B having the lower loss, and differences,
    ropes and intervals are in units of the negated loss; ``attrs["higher_is_better"]`` keeps the sense
    of the source and ``attrs["score_sense"]`` says what ``score`` holds. Every rope is in the scores'
    units: on percentages rope=0.01 is 0.01 percentage points (an :class:`AssumptionWarning` says so
    when the scores look like percentages: all in [0, 100], some above 1).

    Bad input raises ``ValueError`` (``TypeError`` for the wrong type) naming the data set and
    algorithm, the row, or the argument.

    >>> ds = load_scores({"A": [[0.8, 0.9, 0.85, 0.7]], "B": [[0.82, 0.93, 0.9, 0.75]]}, runs=2)
    >>> ds.score.dims, float(ds.rho[0])
    (('dataset', 'algorithm', 'run', 'fold'), 0.5)
    >>> errors = load_scores({"A": [[0.2, 0.3]], "B": [[0.1, 0.1]]}, higher_is_better=False)
    >>> round(float(differences(errors, "A", "B").mean()), 3), errors.attrs["higher_is_better"]
    (0.15, False)
    >>> wide = pd.DataFrame({"fold": [1, 2, 3], "A": [0.8, 0.9, 0.85], "B": [0.82, 0.93, 0.9]})
    >>> load_scores(wide).score.sizes["algorithm"], float(load_scores(wide).rho[0])
    (2, 0.3333333333333333)
    """
    check_flag("higher_is_better", higher_is_better)
    runs = None if runs is None else check_count("runs", runs)
    default_rho = rho is None and n_test is None and n_train is None and folds is None
    source = read_source(source, format=format, algorithms=algorithms, columns=columns, runs=runs, folds=folds,
                         datasets=datasets, encoding=encoding, delimiter=delimiter, scoring=scoring,
                         na_values=na_values)
    frame = _exclude(source.frame, {"algorithm": exclude_algorithms, "dataset": exclude_datasets})
    frame, where = _standardise(frame, source.columns, source.where), source.where
    score = frame["score"].to_numpy()
    warn_percent_scale(score, stacklevel=2)
    if not higher_is_better:
        frame["score"] = -score
    note = " (no run column: every score was taken to be in run 1)" if source.one_run_assumed else ""
    scores, n_runs, n_folds = _to_array(frame, where, note)
    names = scores.dataset.values
    for what, given, held in (("runs", runs, n_runs), ("folds", folds, n_folds)):
        if given is not None:
            _check_design(what, _per_dataset(given, names, what), n_runs, n_folds, names)
    sized = "n_test" in frame and "n_train" in frame
    if default_rho and source.one_run_assumed and not sized:
        advice = "give runs=r (or folds=k, or rho=)"
        if source.runs_unsplittable:
            advice = "add a run column (folds with labels but no run column cannot be split by runs=), or give rho=1/k"
        elif source.splits_unindexed:
            advice = source.splits_unindexed
        warn_one_run(int(n_folds.max()), advice, stacklevel=2, always=bool(source.splits_unindexed))
    if default_rho and sized:
        # stratified folds differ in size by one: the mean sizes give the heuristic's ratio
        n_test, n_train = (_column_means(frame, column, names, where) for column in ("n_test", "n_train"))
    elif default_rho:
        if (n_folds < 2).any():
            raise ValueError(f"data set {names[np.argmax(n_folds < 2)]!r} has one fold per run, so rho = 1/folds "
                             "does not apply: give rho=, or n_test= with n_train=")
        folds = n_folds
    values = resolve_rho(rho=_per_dataset(rho, names, "rho"), n_test=_per_dataset(n_test, names, "n_test"),
                         n_train=_per_dataset(n_train, names, "n_train"), folds=_per_dataset(folds, names, "folds"))
    rho_da = xr.DataArray(np.broadcast_to(values, names.shape).copy(), dims="dataset")
    sense = "the scores as given (higher is better)" if higher_is_better else \
        "the negated scores: the source is lower-is-better (an error or a loss), so higher is better here"
    loaded = xr.Dataset({"score": scores, "rho": rho_da},
                        attrs={"description": "per-fold scores; rho fixed by the Nadeau-Bengio heuristic",
                               "higher_is_better": bool(higher_is_better), "score_sense": sense})
    cells = missing_cells(loaded)
    if len(cells):
        warnings.warn(describe_missing(cells, int(_gaps(loaded)[1].sum())), MissingScoresWarning, stacklevel=2)
    return loaded


def missing_cells(scores: xr.Dataset) -> pd.DataFrame:
    """The missing scores of a scores Dataset: one row per data set, algorithm and run with a gap, ``folds`` the
    list of the missing folds, or ``"all"`` when the algorithm has no score in that run. A run or fold of a data set
    where no algorithm has a score is not missing: it is not part of that data set's design (fewer runs or folds).

    >>> wide = pd.DataFrame({"fold": [1, 2, 3], "A": [0.8, np.nan, 0.85], "B": [0.82, 0.93, 0.9]})
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", MissingScoresWarning)
    ...     cells = missing_cells(load_scores(wide))
    >>> cells.to_dict(orient="records")
    [{'dataset': 'D1', 'algorithm': 'A', 'run': 1, 'folds': [2]}]
    """
    design, gaps = _gaps(scores)
    runs, folds = scores.run.values, scores.fold.values
    rows = [{"dataset": str(scores.dataset.values[i]), "algorithm": str(scores.algorithm.values[j]),
             "run": int(runs[r]) if np.issubdtype(runs.dtype, np.integer) else runs[r],
             "folds": "all" if gaps[i, j, r].sum() == design[i, 0, r].sum() else
             [int(f) if np.issubdtype(folds.dtype, np.integer) else f for f in folds[gaps[i, j, r]]]}
            for i, j, r in zip(*np.nonzero(gaps.any(axis=3)))]
    return pd.DataFrame(rows, columns=["dataset", "algorithm", "run", "folds"])


def missing_mask(scores: xr.Dataset) -> xr.DataArray:
    """Where a score is missing, dims (dataset, algorithm, run, fold): an algorithm has no score in a fold that
    another algorithm has (a fold no algorithm has is not part of the design); :func:`missing_cells` lists them.

    >>> scores = load_scores(example_path())
    >>> scores["score"][0, 1, 0, 2] = np.nan
    >>> int(missing_mask(scores).sum())
    1
    """
    score = scores.score.transpose("dataset", "algorithm", "run", "fold")
    return xr.DataArray(_gaps(scores)[1], coords=score.coords, dims=score.dims, name="missing")


def describe_missing(cells: pd.DataFrame, n_scores: int) -> str:
    """One line naming the missing ``cells`` (of :func:`missing_cells`; ``n_scores`` missing scores in all): an
    algorithm with no score on a data set once, the others by run and folds; beyond 12 of them, a count.

    >>> cells = pd.DataFrame({"dataset": ["iris", "wine", "wine"], "algorithm": ["svm", "knn", "knn"],
    ...                       "run": [1, 1, 2], "folds": [[3, 7], "all", "all"]})
    >>> describe_missing(cells, 22)
    '22 missing scores, kept as NaN: svm on iris, run 1: folds 3, 7; knn on wine: no scores'
    """
    parts = []
    for (dataset, algorithm), rows in cells.groupby(["dataset", "algorithm"], sort=False):
        if (rows["folds"].astype(str) == "all").all():
            parts.append(f"{algorithm} on {dataset}: no scores")
            continue
        for run, folds in zip(rows["run"], rows["folds"]):
            shown = "all folds" if isinstance(folds, str) else \
                f"fold{'s' * (len(folds) != 1)} {', '.join(str(f) for f in folds)}"
            parts.append(f"{algorithm} on {dataset}, run {run}: {shown}")
    rest = len(parts) - NAMES_SHOWN
    more = f"; and {rest} more (on {cells['dataset'].nunique()} data sets in all)" if rest > 0 else ""
    return f"{counted(n_scores, 'missing score')}, kept as NaN: {'; '.join(parts[:NAMES_SHOWN])}{more}"


def _gaps(scores):
    """The design (dataset, 1, run, fold): where some algorithm has a score; and the gaps (dataset, algorithm, run,
    fold): the design's cells an algorithm has no score in."""
    if not isinstance(scores, xr.Dataset):
        raise TypeError(f"scores must be a scores Dataset (pp_corr.load_scores), got {type(scores).__name__}")
    check_layout(scores)
    present = ~np.isnan(scores.score.transpose("dataset", "algorithm", "run", "fold").values)
    design = present.any(axis=1, keepdims=True)
    return design, design & ~present


def _exclude(frame, names):
    """``frame`` without the rows of the algorithms and data sets in ``names`` ({role: list of names or None})."""
    for role, excluded in names.items():
        if excluded is None:
            continue
        argument = f"exclude_{role}s"
        if isinstance(excluded, (str, bytes)) or np.ndim(excluded) != 1:
            raise TypeError(f"{argument} must be a list of names, got {excluded!r}")
        have = list(pd.unique(frame[role].astype(str)))
        unknown = [str(v) for v in excluded if str(v) not in have]
        if unknown:
            shown = f"{have}" if len(have) <= NAMES_SHOWN else \
                f"{len(have)}: {', '.join(have[:NAMES_SHOWN])}, ..."
            raise ValueError(f"{argument}= names {unknown}, not in the scores (they have {shown})")
        frame = frame[~frame[role].astype(str).isin([str(v) for v in excluded])]
    return frame


def example_path() -> Path:
    """Path of the embedded example: 4 scikit-learn classifiers x 4 data sets x 10 runs x 10 folds.

    >>> example_path().name
    'sklearn_cv.csv'
    """
    return Path(str(resources.files("pp_corr") / "data" / EXAMPLE))


def differences(scores: xr.Dataset, a: str, b: str) -> xr.DataArray:
    """Per-fold differences B - A of a scores Dataset, dims (dataset, run, fold).

    >>> ds = load_scores({"A": [[0.8, 0.9]], "B": [[0.85, 0.95]]})
    >>> differences(ds, "A", "B").values.round(2).tolist()
    [[[0.05, 0.05]]]
    """
    a, b = str(a), str(b)
    _check_pair(scores, a, b)
    diff = scores.score.sel(algorithm=b) - scores.score.sel(algorithm=a)
    return diff.assign_attrs(a=a, b=b)


def pick_algorithms(scores: xr.Dataset, algorithms=None, y=None) -> tuple[str, str]:
    """The pair (a, b) to compare: ``algorithms`` or, by default, the Dataset's only two algorithms. ``y`` (the
    scores of B, for arrays) must be None: a Dataset's pair is chosen by name.

    >>> pick_algorithms(load_scores(example_path()), ("tree", "knn"))
    ('tree', 'knn')
    >>> pick_algorithms(load_scores(example_path()), y=("tree", "knn"))
    Traceback (most recent call last):
    ValueError: y is for arrays (the scores of B); x is a scores Dataset, whose pair is chosen by name: \
algorithms=('tree', 'knn')
    """
    check_layout(scores)
    if y is not None:
        names = np.ravel(np.asarray(y, dtype=object))
        named = len(names) == 2 and all(isinstance(v, str) for v in names)
        raise ValueError("y is for arrays (the scores of B); x is a scores Dataset, whose pair is chosen by name: "
                         f"algorithms={tuple(names) if named else '(a, b)'}")
    present = [str(v) for v in scores.algorithm.values]
    if algorithms is None:
        if len(present) > 2:
            raise ValueError(f"the scores hold {len(present)} algorithms {present}: choose two with algorithms=(a, b)")
        a, b = present + [None] * (2 - len(present))
    else:
        if isinstance(algorithms, (str, bytes)) or np.ndim(algorithms) != 1 or len(algorithms) != 2:
            raise ValueError(f"algorithms must be a pair of names (a, b), got {algorithms!r}")
        a, b = (str(v) for v in algorithms)
    _check_pair(scores, a, b)
    return a, b


def check_layout(scores: xr.Dataset):
    """Raise a ValueError unless ``scores`` has the layout of :func:`load_scores`: a ``score`` variable with the
    dimensions ``dataset`` and ``algorithm`` (one data set is a ``dataset`` dimension of length 1).

    >>> check_layout(load_scores(example_path()).isel(dataset=0, drop=True))
    Traceback (most recent call last):
    ValueError: the scores Dataset lacks the dimension(s) ['dataset'] of its 'score' variable (has ('algorithm', \
'run', 'fold')): keep them, e.g. scores.isel(dataset=[0]) rather than dataset=0
    """
    if "score" not in scores.data_vars:
        raise ValueError(f"the scores Dataset has no 'score' variable (has {list(scores.data_vars)}): load it with "
                         "load_scores")
    missing = [dim for dim in ("dataset", "algorithm") if dim not in scores.score.dims]
    if missing:
        raise ValueError(f"the scores Dataset lacks the dimension(s) {missing} of its 'score' variable (has "
                         f"{scores.score.dims}): keep them, e.g. scores.isel(dataset=[0]) rather than dataset=0")


def _check_pair(scores, a, b):
    present = [str(v) for v in scores.algorithm.values]
    if len(present) < 2:
        raise ValueError(f"the scores hold {len(present)} algorithm(s) {present}: nothing to compare "
                         "(load the scores of at least two)")
    for name, role in ((a, "a"), (b, "b")):
        if name not in present:
            raise ValueError(f"algorithm {role}={name!r} is not in the scores (have {present})")
    if a == b:
        raise ValueError(f"a and b are both algorithm {a!r}: compare two different algorithms (have {present})")


def mean_differences(x, y=None, *, algorithms=None):
    """Per-data-set mean differences B - A, with the names: returns (z, (a, b), datasets).

    ``x`` is a scores Dataset (with ``algorithms``); the scores of A with ``y`` those of B, ``(q, n)``
    per fold or ``(q,)`` per data set; per-fold differences B - A ``(q, n)``; or per-data-set
    differences ``(q,)``. A 1-D array always holds one value per data set, never the folds of one data set.

    A tie stays an exact zero. From scores (a Dataset, or ``x`` and ``y``) each algorithm's mean is taken
    first, by the same exactly rounded sum (``math.fsum``) for both, and z = mean(B) - mean(A); then a
    |z| of at most 4 ulps of the scores' magnitude (4 * machine epsilon * the larger mean |score| of the
    data set) is set to 0. Scores written as decimals (0.7, 0.85) are off by up to half an ulp each once
    read as binary floats, so two algorithms whose recorded scores have equal sums can differ by ~1e-18:
    that is a tie, not a win. Per-fold differences given alone are averaged by ``math.fsum`` too (a zero
    sum stays 0) but without the tolerance (the scores' magnitude is unknown); per-data-set differences
    are used as given.

    >>> z, names, datasets = mean_differences([[0.1, 0.3], [0.0, -0.2]])
    >>> z.round(3).tolist(), names, datasets
    ([0.2, -0.1], ('A', 'B'), ('D1', 'D2'))
    >>> mean_differences([[0.9, 0.8]], [[0.85, 0.85]])[0].tolist()  # equal recorded sums: a tie
    [0.0]
    """
    import math

    def mean(values):
        try:
            return math.fsum(values) / len(values)
        except OverflowError:  # an intermediate sum beyond the float range: sum the values scaled by 2^-e
            exponent = max(math.frexp(v)[1] for v in values)
            return math.ldexp(math.fsum(math.ldexp(v, -exponent) for v in values) / len(values), exponent)

    def from_scores(a_scores, b_scores):
        z = np.empty(len(a_scores))
        for i, (row_a, row_b) in enumerate(zip(a_scores, b_scores)):
            keep = ~(np.isnan(row_a) | np.isnan(row_b))  # a Dataset's absent runs are NaN
            row_a, row_b = row_a[keep].tolist(), row_b[keep].tolist()
            if not row_a or not np.isfinite(row_a + row_b).all():
                raise ValueError(f"data set {datasets[i]!r}: no scores, or scores that are inf")
            scale = max(mean([abs(v) for v in row_a]), mean([abs(v) for v in row_b]))
            diff = mean(row_b) - mean(row_a)
            z[i] = 0.0 if abs(diff) <= 4 * np.finfo(float).eps * scale else diff
        return z

    if algorithms is not None and (isinstance(algorithms, (str, bytes)) or np.ndim(algorithms) != 1
                                   or len(algorithms) != 2):
        raise ValueError(f"algorithms must be a pair of names (a, b), got {algorithms!r}")
    if isinstance(x, xr.Dataset):
        a, b = pick_algorithms(x, algorithms, y)
        present = [str(v) for v in x.algorithm.values]
        for name, role in ((a, "a"), (b, "b")):
            if name not in present:
                raise ValueError(f"algorithm {role}={name!r} is not in the scores (have {present})")
        datasets = tuple(str(d) for d in x.dataset.values)
        if not datasets:
            raise ValueError("the scores hold no data set")
        z = from_scores(*(x.score.sel(algorithm=name).transpose("dataset", ...).values.reshape(len(datasets), -1)
                          for name in (a, b)))
        names = (a, b)
    else:
        diff = b_minus_a(x, y)  # checks types, shapes and (with y) finiteness
        if diff.ndim not in (1, 2):
            raise ValueError(f"x must be (q,) per-data-set values or (q, n) per-fold ones, got shape {diff.shape}")
        if len(diff) < 1 or diff.shape[-1] < 1:
            raise ValueError(f"x holds no data sets (shape {diff.shape})")
        datasets = tuple(f"D{i + 1}" for i in range(len(diff)))
        if y is None and not np.isfinite(diff).all():  # (b_minus_a has checked the scores x and y)
            rows = np.flatnonzero(~np.isfinite(diff) if diff.ndim == 1 else ~np.isfinite(diff).all(axis=1))
            raise ValueError(f"data set(s) {rows.tolist()} (rows of x, from 0) contain NaN or inf")
        if y is not None:
            z = from_scores(*(np.asarray(v, dtype=float).reshape(len(diff), -1) for v in (x, y)))
        else:
            z = np.array([mean(row) for row in diff.tolist()]) if diff.ndim == 2 else diff
        names = tuple(str(v) for v in algorithms) if algorithms is not None else ("A", "B")
    if not np.isfinite(z).all():
        raise ValueError(f"data set(s) {[datasets[i] for i in np.flatnonzero(~np.isfinite(z))]}: the mean "
                         "difference overflows the float range")
    return z, names, datasets


def _standardise(frame, roles, where):
    if len(frame) == 0:
        raise ValueError("no scores: the source has no rows (zero data sets)")
    frame = frame.copy()
    for role in LABELS:
        empty = frame[role].isna() | (frame[role].astype(str).str.strip() == "")
        if empty.any():
            kind = "name" if role in ("dataset", "algorithm") else "label"
            hint = "; pandas reads 'NA', 'None' and '' as missing unless keep_default_na=False"
            raise ValueError(f"empty or missing {role} {kind} at {where(frame.index[np.argmax(empty)])} (column "
                             f"{roles[role]!r}; {int(empty.sum())} in all{hint if frame[role].isna().any() else ''})")
        if role in ("dataset", "algorithm"):
            frame[role] = frame[role].astype(str)
    score = pd.to_numeric(frame["score"], errors="coerce")
    _raise_on(frame, score.isna() & frame["score"].notna(), lambda row: f"non-numeric score {row['score']!r}", where)
    _raise_on(frame, np.isinf(score), lambda row: f"score is {row['score']} (infinite)", where)
    frame["score"] = score.astype(float)
    return frame


def _raise_on(frame, mask, describe, where):
    mask = np.asarray(mask)
    if mask.any():
        row = frame.iloc[int(np.argmax(mask))]
        raise ValueError(f"data set {row['dataset']!r}, algorithm {row['algorithm']!r}: {describe(row)} at "
                         f"{where(row.name)} ({int(mask.sum())} bad row(s) in all)")


def _label_order(labels):
    """Each row's label as its rank among the distinct labels: numeric order if all are numbers, else first seen."""
    codes, uniques = pd.factorize(labels)
    numbers = pd.to_numeric(pd.Series(np.asarray(uniques, dtype=object)), errors="coerce").to_numpy(dtype=float)
    key = numbers if np.isfinite(numbers).all() else np.arange(len(uniques))
    rank = np.empty(len(uniques), dtype=np.int64)
    rank[np.argsort(key, kind="stable")] = np.arange(len(uniques))
    return rank[codes]


def _dense_within(groups, ranks):
    """Positions 0, 1, ... of the ranks within each group (the same label gets the same position)."""
    return pd.Series(ranks).groupby(groups).rank(method="dense").to_numpy().astype(np.int64) - 1


def _to_array(frame, where, note=""):
    """The dense (dataset, algorithm, run, fold) grid with runs and folds numbered within each data set,
    validated (no duplicate cell, every run of a data set with its folds); with the runs and folds per data set.
    A missing score (NaN, or no row) is NaN."""
    d, datasets = pd.factorize(frame["dataset"])
    a, algorithms = pd.factorize(frame["algorithm"])
    q, n_algorithms = len(datasets), len(algorithms)
    fold_rank = _label_order(frame["fold"])
    r = _dense_within(d, _label_order(frame["run"]))
    n_runs = np.zeros(q, dtype=np.int64)
    np.maximum.at(n_runs, d, r + 1)
    # folds numbered across runs (each fold label in one run only) are matched within their run
    runs_per_fold = pd.Series(r).groupby([d, fold_rank]).nunique()
    across = (n_runs > 1) & (runs_per_fold.groupby(level=0).max().reindex(range(q)).to_numpy() == 1)
    f = _dense_within(np.where(across[d], d * n_runs.max() + r, d * n_runs.max()), fold_rank)
    n_folds = np.zeros(q, dtype=np.int64)
    np.maximum.at(n_folds, d, f + 1)
    n_run, n_fold = int(n_runs.max()), int(n_folds.max())
    cells = q * n_algorithms * n_run * n_fold
    if cells > MAX_GRID_CELLS and cells > MAX_GRID_RATIO * len(frame):
        raise ValueError(f"the (dataset, algorithm, run, fold) grid would hold {cells:,} cells for {len(frame):,} "
                         f"scores: data set {datasets[np.argmax(n_runs)]!r} has {n_run} runs and "
                         f"{datasets[np.argmax(n_folds)]!r} has {n_fold} folds per run; load such data sets "
                         "separately")
    flat = ((d * n_algorithms + a) * n_run + r) * n_fold + f
    _raise_on(frame, pd.Series(flat).duplicated(keep=False),
              lambda row: f"duplicate cell run {row['run']}, fold {row['fold']}{note}", where)
    values = np.full(cells, np.nan)
    values[flat] = frame["score"].to_numpy()
    values = values.reshape(q, n_algorithms, n_run, n_fold)
    grid = (np.arange(n_run) < n_runs[:, None])[:, :, None] & (np.arange(n_fold) < n_folds[:, None])[:, None, :]
    labelled = np.zeros_like(grid)
    labelled[d, r, f] = True  # a row for some algorithm, its score given or missing
    if (grid & ~labelled).any():
        i, run, _ = np.argwhere(grid & ~labelled)[0]
        in_run = (d == i) & (r == run)
        raise ValueError(f"data set {datasets[i]!r}: run {frame['run'].to_numpy()[in_run][0]} has "
                         f"{len(np.unique(f[in_run]))} folds where another run has {n_folds[i]} (missing for every "
                         "algorithm)")
    empty = np.isnan(values).all(axis=(1, 2, 3))
    if empty.any():
        raise ValueError(f"data set(s) {[str(v) for v in datasets[empty]]}: every score is missing (leave them out "
                         "with exclude_datasets=)")
    if (n_runs * n_folds < 2).any():
        raise ValueError(f"data set {datasets[np.argmax(n_runs * n_folds < 2)]!r}: fewer than 2 scores per algorithm")
    coords = {"dataset": np.array([str(v) for v in datasets], dtype=object),
              "algorithm": np.array([str(v) for v in algorithms], dtype=object),
              "run": np.arange(1, n_run + 1), "fold": np.arange(1, n_fold + 1)}
    return xr.DataArray(values, dims=("dataset", "algorithm", "run", "fold"), coords=coords), n_runs, n_folds


def _check_design(what, given, n_runs, n_folds, names):
    held = n_runs if what == "runs" else n_folds
    bad = np.broadcast_to(given, held.shape) != held
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"{what}={np.broadcast_to(given, held.shape)[i]:g} contradicts the data: data set "
                         f"{names[i]!r} holds {counted(n_runs[i], 'run')} x {counted(n_folds[i], 'fold')} ({what} "
                         f"counts the {'runs of a data set' if what == 'runs' else 'folds of one run'}; give rho= to "
                         "set the correlation directly)")


def _column_means(frame, column, names, where):
    """Per-data-set mean of a numeric column (n_test, n_train), checked row by row."""
    values = pd.to_numeric(frame[column], errors="coerce")
    _raise_on(frame, ~(values > 0) | ~np.isfinite(values),
              lambda row: f"{column} is {row[column]!r}, not a positive number", where)
    return values.groupby(frame["dataset"]).mean().reindex(names).to_numpy()


def _per_dataset(value, names, what):
    """A scalar, one value per data set (in order), or a {dataset: value} mapping as floats."""
    if value is None:
        return None
    if isinstance(value, Mapping):
        by_name = {}
        for key, v in value.items():
            if str(key) in by_name:
                raise ValueError(f"{what} gives data set {str(key)!r} twice")
            by_name[str(key)] = v
        missing = [d for d in names if d not in by_name]
        if missing:
            raise ValueError(f"{what} has no value for data set(s) {missing}")
        return np.array([check_real(f"{what}[{d!r}]", by_name[d]) for d in names])
    if np.ndim(value) == 0:
        return check_real(what, value)
    if np.shape(value) != (len(names),):
        raise ValueError(f"{what} must be one number, a {{dataset: value}} mapping or {len(names)} values (one per "
                         f"data set), got shape {np.shape(value)}")
    if isinstance(value, np.ndarray) and value.dtype.kind in "iuf":
        return value.astype(float)
    return np.array([check_real(what, v) for v in value])
