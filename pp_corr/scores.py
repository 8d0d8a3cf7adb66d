"""Per-fold scores as an xarray Dataset with dims (dataset, algorithm, run, fold)."""
from __future__ import annotations

from collections.abc import Mapping
from importlib import resources
from os import PathLike
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from ._args import b_minus_a
from .intraclass import resolve_rho

EXAMPLE = "sklearn_cv.csv"
DEFAULT_COLUMNS = {"dataset": "dataset", "algorithm": "algorithm", "run": "run", "fold": "fold", "score": "score"}


def load_scores(source, *, columns=None, runs=1, datasets=None, rho=None, n_test=None, n_train=None,
                folds=None) -> xr.Dataset:
    """Read per-fold scores and validate them.

    ``source`` is a tidy CSV path or DataFrame (one row per data set, algorithm, run and fold;
    ``columns`` maps the roles dataset/algorithm/run/fold/score to other column names), or a
    mapping ``{algorithm: array}`` with one ``(q, n)`` array per algorithm as baycomp takes them
    (``n = runs * folds``; ``datasets`` names the q rows).

    rho is fixed per data set by ``rho``, ``n_test`` with ``n_train``, or ``folds`` (each a scalar or a
    ``{dataset: value}`` mapping; a tidy file may also carry ``n_test`` and ``n_train`` columns); by
    default rho = 1 / (number of folds). Data sets may have different numbers of runs: absent
    runs are NaN in ``score``. Bad input raises ``ValueError`` naming the data set and algorithm.

    >>> ds = load_scores({"A": [[0.8, 0.9, 0.85, 0.7]], "B": [[0.82, 0.93, 0.9, 0.75]]}, runs=2)
    >>> ds.score.dims, float(ds.rho[0])
    (('dataset', 'algorithm', 'run', 'fold'), 0.5)
    """
    if isinstance(source, Mapping):
        frame = _arrays_to_frame(source, runs=runs, datasets=datasets)
        columns = None
    elif isinstance(source, pd.DataFrame):
        frame = source
    elif isinstance(source, (str, PathLike)):
        frame = pd.read_csv(source)
    else:
        raise ValueError("source must be a CSV path, a pandas DataFrame or a mapping {algorithm: (q, n) array}")
    frame = _standardise(frame, columns)
    scores = _to_array(frame)
    n_folds = (scores.notnull().any(["algorithm", "run"])).sum("fold")
    names = scores.dataset.values
    if n_test is None and "n_test" in frame and "n_train" in frame and rho is None and folds is None:
        # stratified folds differ in size by one: the mean sizes give the heuristic's ratio
        n_test, n_train = (frame.groupby("dataset", observed=True)[c].mean().to_dict() for c in ("n_test", "n_train"))
    if rho is None and n_test is None and n_train is None and folds is None:
        folds = n_folds.values
    values = resolve_rho(rho=_per_dataset(rho, names, "rho"), n_test=_per_dataset(n_test, names, "n_test"),
                         n_train=_per_dataset(n_train, names, "n_train"), folds=_per_dataset(folds, names, "folds"))
    rho_da = xr.DataArray(np.broadcast_to(values, names.shape).copy(), dims="dataset")
    return xr.Dataset({"score": scores, "rho": rho_da},
                      attrs={"description": "per-fold scores; rho fixed by the Nadeau-Bengio heuristic"})


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
    algos = list(scores.algorithm.values)
    for name, role in ((a, "a"), (b, "b")):
        if name not in algos:
            raise ValueError(f"algorithm {role}={name!r} is not in the scores (have {algos})")
    diff = scores.score.sel(algorithm=b) - scores.score.sel(algorithm=a)
    return diff.assign_attrs(a=a, b=b)


def pick_algorithms(scores: xr.Dataset, algorithms=None) -> tuple[str, str]:
    """The pair (a, b) to compare: ``algorithms`` or, by default, the Dataset's only two algorithms.

    >>> pick_algorithms(load_scores(example_path()), ("tree", "knn"))
    ('tree', 'knn')
    """
    if algorithms is not None:
        a, b = algorithms
        return str(a), str(b)
    present = [str(v) for v in scores.algorithm.values]
    if len(present) != 2:
        raise ValueError(f"the scores hold {len(present)} algorithms {present}: choose two with algorithms=(a, b)")
    return present[0], present[1]


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
        a, b = pick_algorithms(x, algorithms)
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
        if diff.ndim not in (1, 2) or len(diff) < 1 or diff.shape[-1] < 1:
            raise ValueError(f"expected (q,) per-data-set values or (q, n) per-fold ones, got shape {diff.shape}")
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


def _arrays_to_frame(arrays, *, runs, datasets):
    frames = []
    for algorithm, values in arrays.items():
        values = np.asarray(values)
        values = values[None] if values.ndim == 1 else values
        if values.ndim != 2:
            raise ValueError(f"scores of algorithm {algorithm!r} must be (q, n), got shape {values.shape}")
        q, n = values.shape
        if n % runs:
            raise ValueError(f"algorithm {algorithm!r}: {n} scores per data set do not split into runs={runs}")
        names = list(datasets) if datasets is not None else [f"D{i + 1}" for i in range(q)]
        if len(names) != q:
            raise ValueError(f"datasets has {len(names)} names but algorithm {algorithm!r} has {q} rows")
        run, fold = np.divmod(np.arange(n), n // runs)
        frames.append(pd.DataFrame({"dataset": np.repeat(names, n), "algorithm": algorithm,
                                    "run": np.tile(run + 1, q), "fold": np.tile(fold + 1, q),
                                    "score": values.ravel()}))
    if not frames:
        raise ValueError("no algorithms given")
    return pd.concat(frames, ignore_index=True)


def _standardise(frame, columns):
    roles = {**DEFAULT_COLUMNS, **(columns or {})}
    unknown = set(columns or {}) - set(DEFAULT_COLUMNS)
    if unknown:
        raise ValueError(f"columns maps unknown roles {sorted(unknown)}; roles are {list(DEFAULT_COLUMNS)}")
    missing = [col for col in roles.values() if col not in frame.columns]
    if missing:
        raise ValueError(f"missing column(s) {missing}; have {list(frame.columns)} (rename them with columns=...)")
    extra = [c for c in ("n_test", "n_train") if c in frame.columns and c not in roles.values()]
    frame = frame[list(roles.values()) + extra].rename(columns={v: k for k, v in roles.items()})
    for role in ("dataset", "algorithm"):
        frame[role] = pd.Categorical(frame[role].astype(str), categories=pd.unique(frame[role].astype(str)))
    score = pd.to_numeric(frame["score"], errors="coerce")
    bad = score.isna() & frame["score"].notna()
    _raise_on(frame, bad, lambda row: f"non-numeric score {row['score']!r}")
    _raise_on(frame, ~np.isfinite(score), lambda row: f"score is {row['score']} (NaN or inf)")
    frame["score"] = score.astype(float)
    _raise_on(frame, frame.duplicated(["dataset", "algorithm", "run", "fold"], keep=False),
              lambda row: f"duplicate cell run {row['run']}, fold {row['fold']}")
    return frame


def _raise_on(frame, mask, describe):
    if mask.any():
        row = frame[mask].iloc[0]
        raise ValueError(f"data set {row['dataset']!r}, algorithm {row['algorithm']!r}: {describe(row)}"
                         f" ({int(mask.sum())} bad row(s) in all)")


def _to_array(frame) -> xr.DataArray:
    scores = frame.set_index(["dataset", "algorithm", "run", "fold"])["score"].to_xarray()
    present = scores.notnull()
    for dataset in scores.dataset.values:
        cells = present.sel(dataset=dataset)
        for algorithm in scores.algorithm.values:
            if not cells.sel(algorithm=algorithm).any():
                raise ValueError(f"data set {dataset!r}, algorithm {algorithm!r}: no scores (algorithm missing)")
        used = cells.any("algorithm")
        grid = used.any("fold") & used.any("run")
        holes = grid & ~cells
        if holes.any():
            algo, run, fold = (v[0] for v in np.nonzero(holes.transpose("algorithm", "run", "fold").values))
            raise ValueError(f"data set {dataset!r}, algorithm {scores.algorithm.values[algo]!r}: missing cell "
                             f"run {scores.run.values[run]}, fold {scores.fold.values[fold]}")
        if int(grid.sum()) < 2:
            raise ValueError(f"data set {dataset!r}: fewer than 2 scores per algorithm")
    return scores.astype(float).assign_coords(dataset=scores.dataset.values.astype(str).astype(object),
                                              algorithm=scores.algorithm.values.astype(str).astype(object))


def _per_dataset(value, names, what):
    if value is None or not isinstance(value, Mapping):
        return value
    missing = [d for d in names if d not in value]
    if missing:
        raise ValueError(f"{what} has no value for data set(s) {missing}")
    return np.array([value[d] for d in names], dtype=float)
