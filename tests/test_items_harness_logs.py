"""Harness logs (pp_corr.items.harness_logs): the small lm-evaluation-harness and inspect_ai logs in tests/data/items,
written in those tools' formats, read to the rows written out here."""
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from pp_corr.items import compare_items, load_items
from pp_corr.items.harness_logs import read_harness_log

LOGS = Path(__file__).parent / "data" / "items"
LM_EVAL_METRICS = {"arc_easy": "acc", "gsm8k": "exact_match,strict-match"}


def test_lm_eval_folder_reads_tasks_models_and_the_chosen_filter():
    frame = read_harness_log(LOGS / "lm_eval", metric=LM_EVAL_METRICS)
    arc = frame[frame.benchmark == "arc_easy"].pivot(index="item", columns="model", values="score")
    assert arc.to_dict() == {"EleutherAI/pythia-160m": {"0": 1.0, "1": 0.0, "2": 0.0},
                             "EleutherAI/pythia-410m": {"0": 1.0, "1": 1.0, "2": 0.0}}
    gsm = frame[frame.benchmark == "gsm8k"]
    assert gsm.score.tolist() == [1.0, 0.0, 1.0, 0.0] and set(gsm.run) == {1}
    flexible = read_harness_log(LOGS / "lm_eval",
                                metric={"arc_easy": "acc_norm", "gsm8k": "exact_match,flexible-extract"})
    assert flexible[flexible.benchmark == "gsm8k"].score.tolist() == [1.0] * 4
    assert flexible[flexible.benchmark == "arc_easy"].score.tolist() == [0.0, 1.0, 1.0, 0.0, 0.0, 1.0]


def test_lm_eval_names_the_scores_to_choose_from():
    with pytest.raises(ValueError, match=r"samples_gsm8k_.* holds several scores \['exact_match,strict-match', "
                                         r"'exact_match,flexible-extract'\]: choose one with metric="):
        read_harness_log(LOGS / "lm_eval")
    with pytest.raises(ValueError, match=r"metric='f1' is not in .* \(it has \['acc,none', 'acc_norm,none'\]\)"):
        read_harness_log(next((LOGS / "lm_eval" / "pythia-160m").glob("samples_arc_easy_*")), metric="f1")


def test_lm_eval_output_path_as_a_json_file(tmp_path):
    """``--output_path out/res.json``: samples and ``res_<time>.json`` side by side, for any model; the model is
    the one of the results file of the samples' time (``model_name``, else ``config.model_args``)."""
    source = next((LOGS / "lm_eval" / "pythia-160m").glob("samples_arc_easy_*")).read_text()
    for time, results in [("2026-11-20T10-11-12.345678", {"model_name": "org/a", "config": {"model_args": "x"}}),
                          ("2026-11-21T10-11-12.345678", {"config": {"model_args": {"pretrained": "org/b"}}})]:
        (tmp_path / f"samples_arc_easy_{time}.jsonl").write_text(source)
        (tmp_path / f"res_{time}.json").write_text(json.dumps(results))
    frame = read_harness_log(tmp_path)
    assert frame.groupby("model").run.max().to_dict() == {"org/a": 1, "org/b": 1}
    assert frame.groupby("model").score.sum().to_dict() == {"org/a": 1.0, "org/b": 1.0}


def test_lm_eval_bad_samples_files(tmp_path):
    name = "samples_t_2026-01-01T00-00-00.000001.jsonl"
    for text, message in [("", r"samples_t_.*\.jsonl holds no samples"),
                          ('{"doc_id": 0, "acc": 1.0}\nnot json\n', r"line 2 of .*samples_t_.*: not JSON"),
                          ('{"id": 0, "acc": 1.0}\n', "the samples have no doc_id"),
                          ('{"doc_id": 0, "metrics": ["bypass"], "bypass": null}\n', "no per-sample scores"),
                          ('{"doc_id": 0, "metrics": ["bleu"], "bleu": ["ref", "pred"]}\n',
                           r"samples_t_.*: the score 'bleu' is \['ref', 'pred'\], not a number")]:
        (tmp_path / name).write_text(text)
        with pytest.raises(ValueError, match=message):
            read_harness_log(tmp_path / name)
    with pytest.raises(ValueError, match=r"results_2026-11-20T10-11-12.345678.json: not an inspect_ai log"):
        read_harness_log(LOGS / "lm_eval" / "pythia-160m" / "results_2026-11-20T10-11-12.345678.json")
    (tmp_path / name).unlink()
    (tmp_path / "results_2026-01-01T00-00-00.000001.json").write_text("{}")
    with pytest.raises(ValueError, match=r"'.*' holds no harness logs \(samples_<task>_<time>.jsonl"):
        read_harness_log(tmp_path)


def test_a_task_logged_twice_is_two_runs(tmp_path):
    source = next((LOGS / "lm_eval" / "pythia-160m").glob("samples_arc_easy_*"))
    (tmp_path / source.name).write_text(source.read_text())
    (tmp_path / "samples_arc_easy_2026-11-22T00-00-00.000001.jsonl").write_text(source.read_text().replace(
        '"acc": 0.0', '"acc": 1.0'))
    frame = read_harness_log(tmp_path, model="m")
    assert frame.groupby("run").score.sum().to_dict() == {1: 1.0, 2: 3.0}
    assert (frame.model == "m").all()


INSPECT_LOG = LOGS / "inspect" / "2026-11-21T09-00-00+00-00_popularity_t1.json"


def test_inspect_json_epochs_are_runs_and_values_are_inspects():
    frame = read_harness_log(INSPECT_LOG, metric="match")
    assert frame.benchmark.unique().tolist() == ["popularity"]
    assert frame.model.unique().tolist() == ["openai/gpt-4o-mini"]
    assert frame.item.tolist() == ["1", "2", "3"] * 2
    assert frame.run.tolist() == [1, 1, 1, 2, 2, 2]
    assert frame.score.tolist() == [1.0, 0.0, 0.5, 1.0, 1.0, 0.0]  # C, I, P / C, C, N
    assert read_harness_log(INSPECT_LOG, metric="judge.helpful").score.tolist() == [0.9, 0.2, 0.5, 0.8, 0.7, 0.1]
    with pytest.raises(ValueError, match=r"_t1.json holds the scores of \['match', 'judge'\]: choose one with metric="):
        read_harness_log(INSPECT_LOG)
    with pytest.raises(ValueError, match=r"scorer 'judge' gives several values \['helpful', 'correct'\]"):
        read_harness_log(INSPECT_LOG, metric="judge")
    with pytest.raises(ValueError, match=r"metric='f1' is not a scorer of .*_t1.json \(it has \['match', 'judge'\]\)"):
        read_harness_log(INSPECT_LOG, metric="f1")


def test_inspect_folder_holds_two_models_and_skips_its_manifests(tmp_path):
    for log in (LOGS / "inspect").glob("*.json"):
        (tmp_path / log.name).write_text(log.read_text())
    (tmp_path / "logs.json").write_text('{"x.eval": {"version": 2}}')  # eval_set's manifest and record: not logs
    (tmp_path / "eval-set.json").write_text('{"eval_set_id": "s1", "tasks": []}')
    frame = read_harness_log(tmp_path, metric="match")
    wide = frame.pivot(index=["item", "run"], columns="model", values="score")
    assert wide.to_dict("list") == {"anthropic/claude-3-5-haiku-latest": [1.0, 1.0, 1.0, 0.5, 0.0, 1.0],
                                    "openai/gpt-4o-mini": [1.0, 1.0, 0.0, 1.0, 0.5, 0.0]}
    assert wide.index.tolist() == [("1", 1), ("1", 2), ("2", 1), ("2", 2), ("3", 1), ("3", 2)]


def test_inspect_value_map(tmp_path):
    values = ["C", "I", "P", "N", "yes", "No", "TRUE", "false", 0.25, "0.75", True, 3, None, float("nan")]
    log = {"eval": {"task": "t", "model": "m", "created": "2026-01-01T00:00:00+00:00"},
           "samples": [{"id": i, "epoch": 1, "scores": {"s": {"value": v}}} for i, v in enumerate(values)]}
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log))  # NaN written as inspect writes an unscored sample
    scores = read_harness_log(path).score.tolist()
    assert scores[:12] == [1.0, 0.0, 0.5, 0.0, 1.0, 0.0, 1.0, 0.0, 0.25, 0.75, 1.0, 3.0]
    assert np.isnan(scores[12:]).all()


def _eval_zip(path, log, *, header=True):
    """An inspect .eval log: header.json (or, while running, _journal/start.json) and one entry per sample."""
    with zipfile.ZipFile(path, "w") as out:
        start = {k: log[k] for k in ("version", "eval")}
        out.writestr("_journal/start.json", json.dumps(start))
        for sample in log["samples"]:
            out.writestr(f"samples/{sample['id']}_epoch_{sample['epoch']}.json", json.dumps(sample))
        if header:
            out.writestr("header.json", json.dumps({k: v for k, v in log.items() if k != "samples"}))


def test_inspect_eval_zip_reads_as_its_json(tmp_path):
    log = json.loads(INSPECT_LOG.read_text())
    _eval_zip(tmp_path / "done.eval", log)
    from_json = read_harness_log(INSPECT_LOG, metric="match")
    assert read_harness_log(tmp_path / "done.eval", metric="match").equals(from_json)
    _eval_zip(tmp_path / "running.eval", log, header=False)
    assert read_harness_log(tmp_path / "running.eval", metric="match").equals(from_json)


def test_inspect_eval_zip_requeued_and_chunked_samples(tmp_path):
    log = json.loads(INSPECT_LOG.read_text())
    path = tmp_path / "log.eval"
    _eval_zip(path, log)
    again = dict(log["samples"][0], scores={"match": {"value": "I"}})
    chunked = dict(log["samples"][1], id=4)
    with zipfile.ZipFile(path, "a") as out, pytest.warns(UserWarning, match="Duplicate name"):
        out.writestr("samples/1_epoch_1.json", json.dumps(again))  # a requeued sample: its last copy counts
        out.writestr("samples/4_epoch_1/sample.json", json.dumps(chunked))  # a chunked sample's shell
        out.writestr("samples/4_epoch_1/messages/0.json", "[]")
        out.writestr("samples/4_epoch_1/events/0.json", "[]")
    frame = read_harness_log(path, metric="match")
    assert frame[["item", "run", "score"]].values.tolist() == [["1", 1, 0.0], ["2", 1, 0.0], ["3", 1, 0.5],
                                                              ["4", 1, 0.0], ["1", 2, 1.0], ["2", 2, 1.0],
                                                              ["3", 2, 0.0]]  # inspect's order: epoch, then id


@pytest.mark.parametrize("text, message", [
    ("not json", r"log.json: not JSON"), ('{"version": 2}', r"log.json: not an inspect_ai log"),
    ('{"eval": {"task": "t"}, "samples": []}', r"log.json: the log holds no samples"),
    ('{"eval": {"task": "t"}, "samples": [{"id": 1, "scores": {"s": {"value": "maybe"}}}]}',
     r"log.json: the score 's' is 'maybe', not a number"),
])
def test_bad_logs_name_the_file_and_the_fault(tmp_path, text, message):
    path = tmp_path / "log.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        read_harness_log(path)


def test_logs_load_and_compare():
    items = load_items(LOGS / "lm_eval", metric=LM_EVAL_METRICS)
    assert items.sizes["item"] == 5 and items.attrs["score_kind"] == "binary"
    res = compare_items(items, random_seed=0)
    assert res.benchmarks == ("arc_easy", "gsm8k")
    np.testing.assert_allclose(res.mean, [1 / (3 + 1), 0.0])  # arc: one item only 410m gets right, and the prior
    with pytest.raises(FileNotFoundError, match="no such harness log"):
        read_harness_log(LOGS / "absent")


def test_items_command_reads_a_folder_of_logs(capsys):
    from pp_corr.cli import main

    main(["items", str(LOGS / "lm_eval"), "--metric", "arc_easy=acc", "--metric", "gsm8k=exact_match,strict-match"])
    printed = capsys.readouterr().out
    assert "EleutherAI/pythia-410m - EleutherAI/pythia-160m" in printed and "gsm8k" in printed
    with pytest.raises(SystemExit, match="--metric: give one METRIC for every benchmark"):
        main(["items", str(LOGS / "lm_eval"), "--metric", "acc", "--metric", "gsm8k=exact_match,strict-match"])
