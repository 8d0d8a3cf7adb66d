"""Item-level scores: models scored item by item on shared benchmarks, read into one xarray Dataset.

:func:`load_items` takes a long table (one row per benchmark, item, model and run), a wide one (one row per item
and run, one column per model), a mapping ``{model: scores}`` or the per-sample logs evaluation harnesses write
(:mod:`pp_corr.items.harness_logs`). The result has a ``score`` variable with dimensions ``(item, model, run)``:
``item`` is indexed by (``benchmark``, ``item_id``), so ``items.sel(benchmark="gsm8k")`` picks one benchmark, and
a model that lacks a run or an item has NaN there.
"""
from __future__ import annotations

import warnings
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from .._args import counted
from ..data.scores import MissingScoresWarning
from ..data.sources import missing_scores, sniff_delimiter

ROLES = ("benchmark", "item", "model", "run", "score")
ALIASES = {  # the names harnesses and people give each role, tried in this order when the role's own is absent
    "benchmark": ("benchmark", "task", "dataset", "eval", "suite"),
    "item": ("item", "item_id", "doc_id", "sample_id", "question_id", "id", "instance", "example"),
    "model": ("model", "model_name", "system", "agent"),
    "run": ("run", "epoch", "seed", "repeat", "replicate", "sample"),
    "score": ("score", "correct", "acc", "accuracy", "value", "exact_match", "pass"),
}
LOG_SUFFIXES = (".jsonl", ".json", ".eval")
KINDS = ("binary", "graded", "continuous")


def load_items(source, *, columns=None, models=None, benchmark=None, metric=None, na_values=None,
               delimiter=None, encoding=None) -> xr.Dataset:
    """Read item-level scores into a Dataset with ``score`` over ``(item, model, run)``.

    ``source`` is one of:

    - a long table (a DataFrame or CSV path) with one row per benchmark, item, model and run: the columns are
      found by their names (``item``, ``doc_id``, ``id``...; ``model``; ``run``, ``epoch``, ``seed``...;
      ``score``, ``correct``, ``acc``...; ``benchmark``, ``task``...; see :data:`ALIASES`) or given by
      ``columns={"item": "qid", ...}``. Without a run column every score is run 1, without a benchmark column the
      table is one benchmark (named ``benchmark``, else after the file, else "benchmark");
    - a wide table: no model column, one row per item (and run), one column of scores per model (``models`` or
      every column that is not a role's);
    - a mapping ``{model: scores}``, each an array of shape ``(items,)`` or ``(items, runs)`` (one benchmark);
    - a per-sample log of lm-evaluation-harness or inspect_ai, or a folder of them
      (:func:`pp_corr.items.harness_logs.read_harness_log`; ``metric`` chooses the score there).

    Scores are numbers: booleans are 0/1; ``NA``, ``NaN``, ``nan``, ``-``, an empty cell or any of ``na_values``
    are missing (a :class:`~pp_corr.MissingScoresWarning` counts them per model). ``attrs["score_kind"]`` says
    whether the scores are ``binary`` (all 0 or 1), ``graded`` (in [0, 1]) or ``continuous``. ``models`` keeps
    those models only, in that order.

    >>> items = load_items({"A": [1, 0, 1, 1], "B": [1, 1, 1, 0]})
    >>> items.score.dims, items.sizes["item"], items.attrs["score_kind"]
    (('item', 'model', 'run'), 4, 'binary')
    >>> long = pd.DataFrame({"task": ["t"] * 4, "doc_id": [0, 1, 0, 1], "model": ["A", "A", "B", "B"],
    ...                      "acc": [1.0, 0.0, 1.0, 1.0]})
    >>> float(load_items(long).score.sel(model="B").mean())
    1.0
    """
    if isinstance(models, str):
        raise TypeError(f"models must be a list of names, got the text {models!r}")
    models = None if models is None else [str(m) for m in models]
    na_values = _texts("na_values", na_values)
    if isinstance(source, Mapping):  # arrays: straight into the cube
        if columns is not None or metric is not None:
            raise ValueError(f"{'columns' if columns is not None else 'metric'}= is for tables and harness logs; a "
                             "mapping {model: scores} has neither columns nor metrics")
        return _from_arrays(source, benchmark or "benchmark", models)
    frame, where = _read(source, columns, models, benchmark, metric, na_values, delimiter, encoding)
    return _to_dataset(frame, where, models)


def _read(source, columns, models, benchmark, metric, na_values, delimiter, encoding):
    """(tidy frame with the columns :data:`ROLES`, a name for the source in messages)."""
    if metric is not None and not _is_log(source):
        raise ValueError("metric= chooses the score of a harness log; a table's score column is chosen with "
                         "columns={'score': NAME}")
    if _is_log(source):
        from .harness_logs import read_harness_log

        if columns is not None:
            raise ValueError("columns= names a table's columns; a harness log has its own fields (metric= chooses "
                             "the score)")
        frame = read_harness_log(source, metric=metric, benchmark=benchmark)
        frame["score"] = frame["score"].mask(missing_scores(frame["score"], na_values))
        return _keep_models(frame, models, str(source)), str(source)
    name = benchmark
    if isinstance(source, (str, Path)) or hasattr(source, "__fspath__"):
        path = Path(source)
        name = name or path.stem
        source = _read_csv(path, delimiter, encoding)
        where = str(path)
    elif isinstance(source, pd.DataFrame):
        where = "the table"
    else:
        raise TypeError("source must be a CSV path, a DataFrame, a mapping {model: scores} or a harness log, got "
                        + type(source).__name__)
    frame = _from_table(source, columns, models, name or "benchmark", where)
    frame["score"] = frame["score"].mask(missing_scores(frame["score"], na_values))
    return _keep_models(frame, models, where), where


def _is_log(source) -> bool:
    if not (isinstance(source, (str, Path)) or hasattr(source, "__fspath__")):
        return False
    path = Path(source)
    return path.is_dir() or path.suffix.lower() in LOG_SUFFIXES


def _texts(name, values) -> tuple[str, ...]:
    if values is None:
        return ()
    values = [values] if isinstance(values, str) else values
    if not isinstance(values, (list, tuple)) or not all(isinstance(v, str) for v in values):
        raise TypeError(f"{name} must be a text or a list of texts, got {values!r}")
    return tuple(values)


def _read_csv(path, delimiter, encoding) -> pd.DataFrame:
    if not path.is_file():
        raise FileNotFoundError(f"no such items file: {str(path)!r}")
    with open(path, encoding=encoding or "utf-8", newline="") as stream:
        header = stream.readline()
    if not header.strip():
        raise ValueError(f"{str(path)!r} is empty: expected a CSV header line")
    return pd.read_csv(path, sep=delimiter or sniff_delimiter(header), dtype=str, keep_default_na=False,
                       encoding=encoding or "utf-8")


def _from_arrays(arrays, name, models) -> xr.Dataset:
    """A mapping {model: (items,) or (items, runs) array} as the items Dataset of one benchmark."""
    have = [str(m) for m in arrays]
    unknown = [m for m in models or () if m not in have]
    if unknown:
        raise ValueError(f"models= names {unknown}, not in the mapping (it has {have})")
    blocks = {}
    for model, values in arrays.items():
        values = np.asarray(values, dtype=float)
        if values.ndim not in (1, 2) or values.size == 0:
            raise ValueError(f"the scores of model {model!r} must be an array (items,) or (items, runs), got shape "
                             f"{values.shape}")
        blocks[str(model)] = values.reshape(len(values), -1)
    if len({b.shape for b in blocks.values()}) > 1:
        raise ValueError("the models' score arrays differ in shape: give every model the same items and runs "
                         "(NaN for a missing score)")
    if any(np.isinf(b).any() for b in blocks.values()):
        raise ValueError("the mapping has an infinite score")
    names = models or have
    cube = np.stack([blocks[m] for m in names], axis=1)
    units = pd.MultiIndex.from_arrays([[name] * len(cube), [str(i) for i in range(1, len(cube) + 1)]],
                                      names=["benchmark", "item_id"])
    return _assemble(cube, units, names, [str(r) for r in range(1, cube.shape[2] + 1)], "the mapping")


def _from_table(table, columns, models, name, where) -> pd.DataFrame:
    if len(table) == 0:
        raise ValueError(f"no scores: {where} has no rows")
    found = _columns(table, columns, where)
    if "model" in found:
        for role in ("item", "score"):
            if role not in found:
                raise ValueError(f"{where} has a model column but no {role} column (have {list(table.columns)}): "
                                 f"name it with columns={{\"{role}\": NAME}}")
        frame = table[list(found.values())].rename(columns={v: k for k, v in found.items()})
    else:
        frame = _melt_wide(table, found, models, where)
    if "benchmark" not in frame:
        frame["benchmark"] = name
    if "run" not in frame:
        frame["run"] = 1
    if "item" not in frame:
        frame["item"] = frame.groupby(["benchmark", "model", "run"], sort=False).cumcount() + 1
    return frame[list(ROLES)]


def _columns(table, columns, where) -> dict:
    """role -> column: ``columns`` first, then each role's :data:`ALIASES` (case apart)."""
    columns = dict(columns or {})
    unknown = set(columns) - set(ROLES)
    if unknown:
        raise ValueError(f"columns= names unknown roles {sorted(unknown)}; the roles are {list(ROLES)}")
    absent = [c for c in columns.values() if c not in table.columns]
    if absent:
        raise ValueError(f"columns= names {absent}, not columns of {where} (have {list(table.columns)})")
    by_lower = {str(c).lower(): c for c in table.columns}
    found = dict(columns)
    for role, names in ALIASES.items():
        if role in found:
            continue
        match = next((by_lower[n] for n in names if n in by_lower and by_lower[n] not in found.values()), None)
        if match is not None:
            found[role] = match
    return found


def _melt_wide(table, found, models, where) -> pd.DataFrame:
    """A wide table (one column per model) as rows: every column that is not a role's is a model's scores."""
    if "score" in found and "model" not in found and models is None:
        found = {k: v for k, v in found.items() if k != "score"}  # a column "score" of a wide table is a model
    keys = [found[r] for r in ("benchmark", "item", "run") if r in found]
    names = [str(m) for m in models] if models is not None else [c for c in table.columns if c not in keys]
    unknown = [m for m in names if m not in table.columns]
    if unknown:
        raise ValueError(f"models= names {unknown}, not columns of {where} (have {list(table.columns)})")
    if not names:
        raise ValueError(f"{where} has no model columns: a long table needs columns item, model and score, a wide "
                         "one a column of scores per model")
    frame = table[keys + names].rename(columns={found[r]: r for r in ("benchmark", "item", "run") if r in found})
    return frame.melt(id_vars=list(frame.columns[:len(keys)]), var_name="model", value_name="score")


def _keep_models(frame, models, where) -> pd.DataFrame:
    frame = frame.assign(model=frame["model"].astype(str))
    if models is None:
        return frame
    have = list(pd.unique(frame["model"]))
    unknown = [m for m in models if m not in have]
    if unknown:
        raise ValueError(f"models= names {unknown}, not in {where} (it has {have})")
    return frame[frame["model"].isin(models)]


def _numbers(frame, where) -> np.ndarray:
    """The scores as floats (booleans 0/1); a cell that is not a number is an error naming it."""
    values = frame["score"]
    if not pd.api.types.is_numeric_dtype(values):
        text = values.astype(str).str.strip().str.lower()
        values = values.mask(text == "true", 1.0).mask(text == "false", 0.0)
    numbers = pd.to_numeric(values, errors="coerce")
    bad = numbers.isna() & values.notna()
    if bad.any():
        row = frame[bad].iloc[0]
        raise ValueError(f"{where}: the score of model {row['model']!r} on item {row['item']!r} of benchmark "
                         f"{row['benchmark']!r} (run {row['run']!r}) is {row['score']!r}, not a number (give "
                         "na_values= if it means a missing score)")
    numbers = numbers.to_numpy(dtype=float)
    if np.isinf(numbers).any():
        raise ValueError(f"{where} has an infinite score")
    return numbers


def _label(values) -> np.ndarray:
    """Labels as text, integers without a trailing '.0'."""
    values = pd.Series(values)
    if pd.api.types.is_float_dtype(values) and (values.dropna() % 1 == 0).all():
        values = values.astype("Int64")
    return values.astype(str).to_numpy()


def _to_dataset(frame, where, models) -> xr.Dataset:
    score = _numbers(frame, where)
    keys = pd.DataFrame({role: _label(frame[role]) for role in ("benchmark", "item", "run")})
    keys["model"] = frame["model"].to_numpy()
    repeated = keys.duplicated()
    if repeated.any():
        row = keys[repeated].iloc[0]
        raise ValueError(f"{where} holds two scores of model {row['model']!r} on item {row['item']!r} of benchmark "
                         f"{row['benchmark']!r} in run {row['run']!r}: one score per item, model and run (give runs "
                         "a run column)")
    units = pd.MultiIndex.from_frame(keys[["benchmark", "item"]].drop_duplicates(), names=["benchmark", "item_id"])
    model_names = models or list(pd.unique(keys["model"]))
    run_names = sorted(pd.unique(keys["run"]), key=_run_order)
    cube = np.full((len(units), len(model_names), len(run_names)), np.nan)
    cube[units.get_indexer(pd.MultiIndex.from_frame(keys[["benchmark", "item"]])),
         pd.Index(model_names).get_indexer(keys["model"]), pd.Index(run_names).get_indexer(keys["run"])] = score
    return _assemble(cube, units, model_names, run_names, where)


def _assemble(cube, units, models, runs, where) -> xr.Dataset:
    """The items Dataset of a cube (items, models, runs) whose items are ``units`` (benchmark, item_id)."""
    coords = xr.Coordinates.from_pandas_multiindex(units, "item")
    items = xr.Dataset({"score": (("item", "model", "run"), cube)}, coords=coords.assign(model=models, run=runs),
                       attrs={"score_kind": score_kind(cube), "source": where})
    _warn_missing(items)
    return items


def benchmark_names(items: xr.Dataset) -> list[str]:
    """The benchmarks of an items Dataset, in their order.

    >>> benchmark_names(load_items({"A": [1, 0], "B": [0, 1]}, benchmark="arc"))
    ['arc']
    """
    return list(pd.unique(items.indexes["item"].get_level_values("benchmark")))


def one_benchmark(items: xr.Dataset, benchmark=None) -> str:
    """``benchmark``, checked to be one of the items', or the items' only benchmark when None.

    >>> one_benchmark(load_items({"A": [1, 0], "B": [0, 1]}))
    'benchmark'
    """
    names = benchmark_names(items)
    if benchmark is None and len(names) > 1:
        raise ValueError(f"the items hold {len(names)} benchmarks {names}: choose one with benchmark=")
    if benchmark is not None and benchmark not in names:
        raise ValueError(f"benchmark={benchmark!r} is not in the items (they have {names})")
    return names[0] if benchmark is None else benchmark


def _run_order(label):
    try:
        return (0, float(label), "")
    except ValueError:
        return (1, 0.0, label)


def score_kind(values) -> str:
    """``binary`` when every score is 0 or 1, ``graded`` when all lie in [0, 1], else ``continuous``.

    >>> score_kind([0, 1, 1]), score_kind([0.5, 1]), score_kind([2.0, np.nan])
    ('binary', 'graded', 'continuous')
    """
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values)]
    if np.isin(values, (0.0, 1.0)).all():
        return "binary"
    return "graded" if ((values >= 0) & (values <= 1)).all() else "continuous"


def _warn_missing(items):
    """One warning counting the missing scores of each model (an item or run a model lacks)."""
    missing = items.score.isnull().sum(dim=("item", "run")).to_series()
    missing = missing[missing > 0]
    if len(missing):
        total = items.sizes["item"] * items.sizes["run"]
        parts = ", ".join(f"{model} {n} of {total}" for model, n in missing.items())
        warnings.warn(f"missing scores ({parts}; items x runs): a comparison uses the items both models have, "
                      f"averaging the runs each has; {counted(int(missing.sum()), 'score')} in all",
                      MissingScoresWarning, stacklevel=5)
