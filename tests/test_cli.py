import json

import pandas as pd
import pytest

from pp_corr.cli import main
from pp_corr.scores import example_path


def test_demo_prints_named_table(capsys):
    main(["demo"])
    out = capsys.readouterr().out
    assert "knn - logistic" in out and "P(logistic better)" in out and "digits" in out


def test_compare_two_writes_json(tmp_path, capsys, uci54):
    out = tmp_path / "res.json"
    main(["compare", str(example_path()), "-a", "tree", "-b", "logistic", "--rope", "0.02", "-o", str(out)])
    printed = capsys.readouterr().out
    assert "P(tree better)" in printed and "iris" in printed
    payload = json.loads(out.read_text())
    assert payload[0]["a"] == "tree" and len(payload[0]["results"]) == 4
    assert payload[0]["rope"] == [-0.02, 0.02]


def test_compare_all_pairs_csv_on_uci54(tmp_path, capsys):
    from tests.conftest import UCI54

    out = tmp_path / "res.csv"
    main(["compare", str(UCI54), "--column", "score=accuracy", "-o", str(out)])
    printed = capsys.readouterr().out
    assert printed.count("(positive:") == 10 and "point mass" in printed
    frame = pd.read_csv(out)
    assert len(frame) == 10 * 54 and {"a", "b", "P(rope)"} <= set(frame.columns)


def test_compare_reports_bad_input(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("dataset,algorithm,run,fold,score\nd,A,1,1,0.5\nd,B,1,1,x\nd,A,1,2,0.5\nd,B,1,2,0.6\n")
    with pytest.raises(SystemExit, match="data set 'd', algorithm 'B': non-numeric"):
        main(["compare", str(bad)])
