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


def test_simulate_writes_results_rates_and_figures(tmp_path, capsys):
    import xarray as xr

    main(["simulate", "experiment1", "--repetitions", "40", "--workers", "1", "--seed", "3", "--no-progress",
          "-o", str(tmp_path)])
    printed = capsys.readouterr().out
    assert "BN-hat is declared better than zeroR" in printed and "poisson" in printed and "wilcoxon" in printed
    assert sorted(p.name for p in tmp_path.iterdir()) == ["experiment1_q50.png", "experiment1_rates.csv",
                                                         "experiment1_results.nc"]
    results = xr.open_dataset(tmp_path / "experiment1_results.nc", engine="scipy")
    rates = pd.read_csv(tmp_path / "experiment1_rates.csv")
    # the saved rates are those of the saved per-repetition statistics
    poisson = rates.query("test == 'poisson' and delta == 0.1 and runs == 10").rate.item()
    assert poisson == pytest.approx(float((results.p_b_majority.sel(delta=0.1, runs=10) > 0.95).mean()))
    assert len(rates) == 11 * 2 * 2


def test_simulate_without_output_writes_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    main(["simulate", "toy", "--repetitions", "50"])
    assert "2: sd 0.15 on D6-D10" in capsys.readouterr().out
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(SystemExit, match="repetitions"):
        main(["simulate", "toy", "--repetitions", "0"])
