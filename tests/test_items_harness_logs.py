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


def test_a_task_logged_twice_is_two_runs(tmp_path):
    source = next((LOGS / "lm_eval" / "pythia-160m").glob("samples_arc_easy_*"))
    (tmp_path / source.name).write_text(source.read_text())
    (tmp_path / "samples_arc_easy_2026-11-22T00-00-00.000001.jsonl").write_text(source.read_text().replace(
        '"acc": 0.0', '"acc": 1.0'))
    frame = read_harness_log(tmp_path, model="m")
    assert frame.groupby("run").score.sum().to_dict() == {1: 1.0, 2: 3.0}
    assert (frame.model == "m").all()


def test_inspect_json_epochs_are_runs_and_values_are_inspects():
    frame = read_harness_log(LOGS / "inspect", metric="match")
    assert frame.benchmark.unique().tolist() == ["popularity"]
    assert frame.model.unique().tolist() == ["openai/gpt-4o-mini"]
    assert frame.run.tolist() == [1, 1, 1, 2, 2, 2]
    assert frame.score.tolist() == [1.0, 0.0, 0.5, 1.0, 1.0, 0.0]  # C, I, P / C, C, N
    assert read_harness_log(LOGS / "inspect", metric="judge.helpful").score.tolist() == [0.9, 0.2, 0.5, 0.8, 0.7, 0.1]
    with pytest.raises(ValueError, match=r"holds the scores of \['match', 'judge'\]: choose one with metric="):
        read_harness_log(LOGS / "inspect")
    with pytest.raises(ValueError, match=r"scorer 'judge' gives several values \['helpful', 'correct'\]"):
        read_harness_log(LOGS / "inspect", metric="judge")


def test_inspect_eval_zip_reads_as_its_json(tmp_path):
    log = json.loads(next((LOGS / "inspect").glob("*.json")).read_text())
    archive = tmp_path / "run.eval"
    with zipfile.ZipFile(archive, "w") as out:
        out.writestr("header.json", json.dumps({k: v for k, v in log.items() if k != "samples"}))
        for sample in log["samples"]:
            out.writestr(f"samples/{sample['id']}_epoch_{sample['epoch']}.json", json.dumps(sample))
    from_zip = read_harness_log(archive, metric="match").sort_values(["run", "item"]).reset_index(drop=True)
    from_json = read_harness_log(LOGS / "inspect", metric="match").sort_values(["run", "item"]).reset_index(drop=True)
    assert from_zip.equals(from_json)


@pytest.mark.parametrize("text, message", [
    ("not json", "not JSON"), ('{"version": 2}', "not an inspect_ai log"),
    ('{"eval": {"task": "t"}, "samples": []}', "holds no samples"),
    ('{"eval": {"task": "t"}, "samples": [{"id": 1, "scores": {"s": {"value": "maybe"}}}]}',
     "the score 's' is 'maybe', not a number"),
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
