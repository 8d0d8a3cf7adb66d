"""The per-sample logs of evaluation harnesses, read into one tidy table (benchmark, item, model, run, score).

- **lm-evaluation-harness** (``lm_eval ... --log_samples --output_path OUT``):
  ``OUT/<model>/samples_<task>_<time>.jsonl``, one JSON object per document with ``doc_id``, ``filter`` and one
  value per metric (named in ``metrics``; a document has one row per filter, its ``repeats`` already scored
  together), beside the ``results_<time>.json`` of the same time (``<name>_<time>.json`` when ``--output_path`` is a
  .json file), whose ``model_name`` (or ``config.model_args``' ``pretrained=`` ...) names the model (else the folder
  does). The benchmark is the task; a metric is chosen as lm-eval names its results, ``"acc"`` or
  ``"exact_match,strict-match"`` (metric, filter); the same task logged twice for a model is two runs.
- **inspect_ai** logs, ``.json`` or ``.eval`` (a zip of ``header.json``, or ``_journal/start.json`` while running,
  and ``samples/<id>_epoch_<n>.json``, or ``samples/<id>_epoch_<n>/sample.json`` when chunked): ``eval.task`` is the
  benchmark, ``eval.model`` the model, each sample's ``id`` the item and ``epoch`` the run; the score is one scorer's
  ``value`` (``metric="scorer"``, or ``"scorer.key"`` for a scorer with several values), read as inspect's
  ``value_to_float`` reads it: "C" 1, "I" 0, "P" 0.5, "N" 0, yes/true 1, no/false 0, numbers as numbers (a value it
  cannot read is an error here, not 0; a missing one, or NaN, is missing). In a folder, .json files are inspect logs
  when their names start with a time, as inspect names them (so ``logs.json``, ``eval-set.json`` are skipped).
"""
from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import pandas as pd

COLUMNS = ["benchmark", "item", "model", "run", "score"]
INSPECT_VALUES = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0, "yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}
SAMPLES_FILE = re.compile(r"samples_(?P<task>.+)_(?P<time>\d{4}-\d{2}-\d{2}T[\d.:-]+)\.jsonl$")
INSPECT_JSON = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}[:-]\d{2}[:-]\d{2}.*\.json$")  # inspect's own test for a log
LM_EVAL_MODEL_KEYS = ("peft", "delta", "pretrained", "model", "path", "engine")  # lm-eval's order in model_args


def read_harness_log(path, *, metric=None, model=None, benchmark=None) -> pd.DataFrame:
    """The scores of a harness log file, or of every log in a folder (recursively), as rows
    (benchmark, item, model, run, score); ``model`` and ``benchmark`` replace the names the logs give. ``metric``
    (see the module docstring) is one for every log, or a mapping ``{benchmark: metric}``; by default a log's
    only score (``acc`` among lm-eval's several). Runs are numbered per benchmark and model in the order of the
    logs' times (lm-eval: a task logged again; inspect_ai: each log's epochs).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     log = Path(folder) / "m7b" / "samples_arc_easy_2026-01-02T03-04-05.678.jsonl"
    ...     log.parent.mkdir()
    ...     _ = log.write_text('{"doc_id": 0, "filter": "none", "metrics": ["acc"], "acc": 1.0}\\n'
    ...                        '{"doc_id": 1, "filter": "none", "metrics": ["acc"], "acc": 0.0}\\n')
    ...     read_harness_log(folder).values.tolist()
    [['arc_easy', '0', 'm7b', 1, 1.0], ['arc_easy', '1', 'm7b', 1, 0.0]]
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no such harness log or folder: {str(path)!r}")
    files = sorted(f for f in path.rglob("*") if _is_log(f)) if path.is_dir() else [path]
    if not files:
        raise ValueError(f"{str(path)!r} holds no harness logs (samples_<task>_<time>.jsonl of lm-evaluation-harness, "
                         "<time>_<task>_<id>.json or .eval logs of inspect_ai)")
    frame = pd.concat([_read_one(f, metric) for f in files], ignore_index=True)
    if model is not None:
        frame["model"] = str(model)
    if benchmark is not None:
        frame["benchmark"] = str(benchmark)
    # runs numbered 1, 2, ... per benchmark and model, in the order of the logs' times (and inspect's epochs)
    frame["run"] = frame.groupby(["benchmark", "model"])["run"].rank(method="dense").astype(int)
    return frame[COLUMNS]


def _is_log(path: Path) -> bool:
    if path.suffix == ".jsonl":
        return bool(SAMPLES_FILE.search(path.name))
    return path.suffix == ".eval" or bool(INSPECT_JSON.match(path.name))


def _read_one(path: Path, metric) -> pd.DataFrame:
    if path.suffix == ".jsonl":
        return _lm_eval(path, metric)
    if path.suffix == ".eval":
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            header = "header.json" if "header.json" in names else "_journal/start.json"
            if header not in names:
                raise ValueError(f"{path}: an .eval log without header.json (is it an inspect_ai log?)")
            log = json.loads(archive.read(header))
            # a sample written again (requeued) repeats its name, and read() gives its last copy: read each once
            samples = [json.loads(archive.read(n)) for n in set(names) if _is_eval_sample(n)]
            log["samples"] = sorted(samples, key=_inspect_order)
    else:
        log = _json(path)
    return _inspect(log, path, metric)


def _is_eval_sample(name: str) -> bool:
    """A sample in an .eval zip: ``samples/<id>_epoch_<n>.json``, or a chunked one's ``.../sample.json``."""
    parts = name.split("/")
    return parts[0] == "samples" and (len(parts) == 2 and name.endswith(".json")
                                      or len(parts) == 3 and parts[2] == "sample.json")


def _inspect_order(sample) -> tuple:
    """inspect's order of samples: by epoch, then id (numbers as numbers)."""
    id_ = sample.get("id")
    return sample.get("epoch", 1), id_ if isinstance(id_, str) else str(id_).zfill(20)


def _json(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise ValueError(f"{path}: not JSON ({err})") from None


def _lm_eval(path: Path, metric) -> pd.DataFrame:
    """One lm-evaluation-harness samples file: the task from its name, the model from results_*.json beside it."""
    match = SAMPLES_FILE.search(path.name)
    if match is None:
        raise ValueError(f"{path}: an lm-evaluation-harness samples file is named samples_<task>_<time>.jsonl")
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as err:
                raise ValueError(f"line {number} of {path}: not JSON ({err})") from None
    if not rows:
        raise ValueError(f"{path} holds no samples")
    records = pd.DataFrame(rows)
    if "doc_id" not in records:
        raise ValueError(f"{path}: the samples have no doc_id (is it an lm-evaluation-harness samples file?)")
    name, filter_ = _lm_eval_metric(records, _metric_for(metric, match["task"]), path)
    records = records[records.get("filter", pd.Series("none", index=records.index)).fillna("none") == filter_]
    return pd.DataFrame({"benchmark": match["task"], "item": records["doc_id"].astype(str),
                         "model": _lm_eval_model(path, match["time"]), "run": match["time"],
                         "score": [_number(v, path, name) for v in records[name]]})


def _lm_eval_metric(records, metric, path) -> tuple[str, str]:
    """(metric, filter): ``metric`` as lm-eval names results, "acc" or "exact_match,strict-match"."""
    filters = list(pd.unique(records["filter"].fillna("none"))) if "filter" in records else ["none"]
    names = [m for m in dict.fromkeys(sum(records.get("metrics", pd.Series([[]])).tolist(), [])) if m in records]
    if not names:
        names = [c for c in records.columns if c in ("acc", "acc_norm", "exact_match", "f1", "em", "mcc")]
    names = [m for m in names if m != "bypass"]  # --predict_only: a placeholder, no score
    if not names:
        raise ValueError(f"{path} holds no per-sample scores (written with --predict_only?)")
    available = [f"{m},{f}" for m in names for f in filters]
    if metric is None:
        if len(names) != 1 and "acc" not in names or len(filters) > 1:
            raise ValueError(f"{path} holds several scores {available}: choose one with metric= (e.g. "
                             f"metric={available[0]!r})")
        return ("acc" if "acc" in names else names[0]), filters[0]
    name, _, filter_ = str(metric).partition(",")
    filter_ = filter_ or (filters[0] if len(filters) == 1 else "")
    if name not in names or filter_ not in filters:
        raise ValueError(f"metric={metric!r} is not in {path} (it has {available})")
    return name, filter_


def _lm_eval_model(path: Path, time: str) -> str:
    """The model's name from the results file of the samples' time beside them, else the folder's name."""
    for results in sorted(path.parent.glob(f"*_{time}.json")):
        log = _json(results)
        if log.get("model_name"):
            return str(log["model_name"])
        arguments = log.get("config", {}).get("model_args") or {}
        if isinstance(arguments, str):
            arguments = dict(a.partition("=")[::2] for a in arguments.split(","))
        for key in LM_EVAL_MODEL_KEYS:
            if arguments.get(key):
                return str(arguments[key])
    return path.parent.name


def _inspect(log, path, metric) -> pd.DataFrame:
    if not isinstance(log, dict) or "eval" not in log:
        raise ValueError(f"{path}: not an inspect_ai log (no 'eval' header)")
    samples = log.get("samples") or []
    if not samples:
        raise ValueError(f"{path}: the log holds no samples (status {log.get('status', 'unknown')!r})")
    task = log["eval"].get("task", path.stem)
    metric = _metric_for(metric, task)
    scorers = list(dict.fromkeys(k for s in samples for k in (s.get("scores") or {})))
    scorer, _, key = (str(metric) if metric is not None else "").partition(".")
    if metric is None:
        if len(scorers) != 1:
            raise ValueError(f"{path} holds the scores of {scorers}: choose one with metric=")
        scorer = scorers[0]
    elif scorer not in scorers:
        raise ValueError(f"metric={metric!r} is not a scorer of {path} (it has {scorers})")
    values = []
    for sample in samples:
        value = (sample.get("scores") or {}).get(scorer, {}).get("value")
        if isinstance(value, dict):
            if key not in value:
                raise ValueError(f"{path}: scorer {scorer!r} gives several values {list(value)}: choose one with "
                                 f"metric='{scorer}.KEY'")
            value = value[key]
        values.append(_inspect_number(value, path, scorer))
    created = str(log["eval"].get("created", ""))
    return pd.DataFrame({"benchmark": task, "item": [str(s.get("id")) for s in samples],
                         "model": log["eval"].get("model", "model"),
                         "run": [f"{created}/{int(s.get('epoch', 1)):06d}" for s in samples], "score": values})


def _metric_for(metric, benchmark):
    """The metric asked for a benchmark: ``metric`` itself, or its entry in a mapping (None when absent)."""
    return metric.get(benchmark) if isinstance(metric, dict) else metric


def _inspect_number(value, path, scorer) -> float:
    if isinstance(value, str) and value.strip() in INSPECT_VALUES:
        return INSPECT_VALUES[value.strip()]
    if isinstance(value, str) and value.strip().lower() in INSPECT_VALUES:
        return INSPECT_VALUES[value.strip().lower()]
    return _number(value, path, scorer)


def _number(value, path, name) -> float:
    if value is None:
        return float("nan")
    if isinstance(value, bool):
        return float(value)
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{path}: the score {name!r} is {value!r}, not a number") from None
