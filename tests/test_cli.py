"""The command line: its numbers against independent computations, its files, and its errors (one line, named)."""
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from pp_corr.cli import main
from pp_corr.data.scores import example_path
from tests.test_uci54 import formula_probs

ROPE = 0.02


@pytest.fixture
def scores_csv(tmp_path):
    """3 data sets x 2 algorithms x 2 runs x 5 folds (rho = 1/5), B better on two data sets."""
    rng = np.random.default_rng(11)
    rows = []
    for d, shift in (("d1", 0.03), ("d2", 0.05), ("d3", -0.01)):
        base = rng.uniform(0.6, 0.9, 10)
        for algo, values in (("A", base), ("B", base + shift + rng.normal(0, 0.02, 10))):
            rows += [(d, algo, 1 + i // 5, 1 + i % 5, v) for i, v in enumerate(values)]
    path = tmp_path / "scores.csv"
    pd.DataFrame(rows, columns=["dataset", "algorithm", "run", "fold", "score"]).to_csv(path, index=False)
    return path


def _oracle(path):
    """Per data set (P(A better), P(rope), P(B better)) from the analytic formula (tests/test_uci54.py), and
    P(B better on a majority) by enumerating the 2^3 outcomes."""
    frame = pd.read_csv(path).pivot_table(index=["dataset", "run", "fold"], columns="algorithm", values="score")
    probs = {d: formula_probs((g["B"] - g["A"]).to_numpy(), 0.2, ROPE) for d, g in frame.groupby(level="dataset")}
    right = np.array([p[2] for p in probs.values()])
    outcomes = np.array(np.meshgrid(*[[0, 1]] * 3)).reshape(3, -1).T
    weights = np.prod(np.where(outcomes == 1, right, 1 - right), axis=1)
    return probs, float(weights[outcomes.sum(axis=1) > 1.5].sum())


def test_demo_prints_named_table(capsys):
    main(["demo"])
    out = capsys.readouterr().out
    assert "knn - logistic" in out and "P(logistic better)" in out and "digits" in out
    matrices = out.split("Better of the pair", 1)[1]  # the all-pairs part: every classifier of the example
    assert all(name in matrices for name in ("logistic", "knn", "naive_bayes", "tree"))


def test_json_numbers_equal_the_formula(scores_csv, tmp_path, capsys):
    out = tmp_path / "res.json"
    main(["compare", str(scores_csv), "-a", "A", "-b", "B", "--rope", str(ROPE), "-o", str(out)])
    assert f"wrote {out}" in capsys.readouterr().err
    payload = json.loads(out.read_text(), parse_constant=lambda c: pytest.fail(f"bare {c} in JSON"))
    probs, majority = _oracle(scores_csv)
    (pair,) = payload
    assert (pair["a"], pair["b"], pair["rope"], pair["n_datasets"]) == ("A", "B", [-ROPE, ROPE], 3)
    for record in pair["results"]:
        got = (record["p_left"], record["p_rope"], record["p_right"])
        np.testing.assert_allclose(got, probs[record["dataset"]], atol=1e-12)
    assert pair["p_b_majority"] == pytest.approx(majority, abs=1e-12)
    assert pair["decision"] == ("B" if majority > 0.95 else "none")


def test_csv_has_stable_columns_and_the_formula_s_numbers(scores_csv, tmp_path, capsys):
    out = tmp_path / "res.csv"
    main(["compare", str(scores_csv), "-a", "B", "-b", "A", "--rope", str(ROPE), "-o", str(out)])
    frame = pd.read_csv(out)
    assert list(frame.columns) == ["a", "b", "dataset", "mean", "lower", "upper", "p_left", "p_rope", "p_right",
                                   "pvalue", "degenerate", "p_b_majority", "p_a_majority", "decision"]
    probs, majority = _oracle(scores_csv)
    for row in frame.itertuples():  # a = B here: left and right swap
        np.testing.assert_allclose((row.p_right, row.p_rope, row.p_left), probs[row.dataset], atol=1e-12)
    assert frame.p_a_majority.unique() == pytest.approx([majority], abs=1e-12)
    raw = pd.read_csv(scores_csv).pivot_table(index=["dataset", "run", "fold"], columns="algorithm", values="score")
    x = (raw["A"] - raw["B"]).loc["d1"].to_numpy()
    scale = x.std(ddof=1) * np.sqrt(1 / 10 + 0.2 / 0.8)
    d1 = frame.set_index("dataset").loc["d1"]
    assert d1["mean"] == pytest.approx(x.mean(), abs=1e-12)
    assert d1["pvalue"] == pytest.approx(2 * stats.t.sf(abs(x.mean()) / scale, 9), rel=1e-10)
    assert d1["upper"] == pytest.approx(x.mean() + stats.t.ppf(0.975, 9) * scale, rel=1e-10)


def test_all_pairs_file_holds_the_table(tmp_path, capsys):
    from pp_corr import compare_all_pairs, load_scores

    out = tmp_path / "pairs.csv"
    main(["compare", str(example_path()), "--all-pairs", "--seed", "3", "-o", str(out)])
    frame = pd.read_csv(out).set_index(["a", "b"])
    table = compare_all_pairs(load_scores(example_path()), rope=0.01, random_seed=3)
    assert len(frame) == 12 and not frame.drop(columns="left_out").isna().any().any()
    assert frame["left_out"].fillna("").eq("").all()  # every pair uses every data set (an empty cell: none left out)
    for (a, b), row in frame.iterrows():
        assert row.p_b_majority == pytest.approx(float(table.p_b_majority.sel(a=a, b=b)), abs=1e-12)
        assert row.wilcoxon_pvalue == pytest.approx(float(table.wilcoxon_pvalue.sel(a=a, b=b)), abs=1e-12)
        assert row.decision_sign == table.decision_sign.sel(a=a, b=b)


def test_compare_reports_bad_input(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("dataset,algorithm,run,fold,score\nd,A,1,1,0.5\nd,B,1,1,x\nd,A,1,2,0.5\nd,B,1,2,0.6\n")
    with pytest.raises(SystemExit, match="^pp-corr: data set 'd', algorithm 'B': non-numeric"):
        main(["compare", str(bad)])


def _fails(argv, capsys, *needles):
    """The command exits non-zero with one line on stderr (or in the SystemExit) that starts with pp-corr:."""
    with pytest.raises(SystemExit) as caught:
        main(argv)
    code, err = caught.value.code, capsys.readouterr().err
    message = code if isinstance(code, str) else err.strip()
    assert code not in (0, None) and message.startswith("pp-corr:") and "\n" not in message.strip(), message
    assert "Traceback" not in err
    for needle in needles:
        assert needle in message, (needle, message)
    return message


def test_regression_cli_missing_file_and_directory(tmp_path, capsys):
    _fails(["compare", str(tmp_path / "nope.csv")], capsys, "nope.csv", "no such file")
    _fails(["compare", str(tmp_path)], capsys, str(tmp_path), "directory")


def test_regression_cli_output_checked_before_the_analysis(scores_csv, tmp_path, capsys, monkeypatch):
    import pp_corr.cli

    monkeypatch.setattr(pp_corr.cli, "poisson_test", lambda *a, **k: pytest.fail("analysed before checking -o"))
    _fails(["compare", str(scores_csv), "-o", str(tmp_path / "missing" / "r.json")], capsys, "missing", "exist")
    _fails(["compare", str(scores_csv), "-o", str(tmp_path)], capsys, "directory")
    _fails(["compare", str(scores_csv), "-o", str(tmp_path / "r.txt")], capsys, "r.txt", ".json or .csv")


@pytest.mark.parametrize("argv, option", [
    (["simulate", "toy", "--workers", "-1"], "--workers"),
    (["simulate", "toy", "--seed", "-1"], "--seed"),
    (["simulate", "toy", "--alpha", "2"], "--alpha"),
    (["simulate", "toy", "--repetitions", "0"], "--repetitions"),
    (["compare", "x.csv", "--rope", "nan"], "--rope"),
    (["compare", "x.csv", "--rope", "-0.1"], "--rope"),
    (["compare", "x.csv", "--alpha", "0"], "--alpha"),
])
def test_regression_cli_bad_options_named_before_any_work(argv, option, capsys):
    _fails(argv, capsys, option)


def test_sampler_needs_a_hierarchical_fit(scores_csv, capsys):
    _fails(["compare", str(scores_csv), "-a", "A", "-b", "B", "--sampler", "nutpie"], capsys, "--sampler",
           "--hierarchical")


@pytest.mark.parametrize("extra, option", [(["--workers", "2"], "--workers"),
                                           (["--scheduler", "tcp://127.0.0.1:8786"], "--scheduler")])
def test_dask_options_need_a_hierarchical_fit(scores_csv, capsys, extra, option):
    _fails(["compare", str(scores_csv), "--all-pairs", *extra], capsys, option, "--hierarchical")


def test_hierarchical_pairs_on_workers_print_the_shrinkage_table(scores_csv, capsys, monkeypatch):
    """compare --all-pairs --hierarchical hands --workers to the batch and prints each pair's per-data-set table
    at terminal width, the shrinkage explained above it (the fits: the real exact posterior, 50 draws)."""
    import pp_corr.hierarchical.batch as batch

    seen = {}
    real = batch.hierarchical_tests

    def spy(scores, pairs, **options):
        seen.update(options)
        return real(scores, pairs, **{**options, "workers": 1, "draws": 50, "chains": 2})

    monkeypatch.setattr(batch, "hierarchical_tests", spy)
    assert main(["compare", str(scores_csv), "-a", "A", "-b", "B", "--hierarchical", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert seen["workers"] == 1 and seen["scheduler"] is None
    assert "per data set: 'shrunk' toward the population's delta0" in out
    assert max(len(line) for line in out.splitlines()) <= 120


def test_regression_cli_simulate_output_must_be_a_directory(tmp_path, capsys, monkeypatch):
    import pp_corr.studies.simulation

    monkeypatch.setattr(pp_corr.studies.simulation, "toy_example",
                        lambda **k: pytest.fail("simulated before checking -o"))
    existing = tmp_path / "file.txt"
    existing.write_text("keep me")
    _fails(["simulate", "toy", "-o", str(existing)], capsys, "file.txt", "not a directory")
    assert existing.read_text() == "keep me"


def test_regression_cli_empty_problems(tmp_path, scores_csv, capsys):
    header = tmp_path / "header.csv"
    header.write_text("dataset,algorithm,run,fold,score\n")
    _fails(["compare", str(header)], capsys)
    one = tmp_path / "one.csv"
    pd.read_csv(scores_csv).query("algorithm == 'A'").to_csv(one, index=False)
    _fails(["compare", str(one)], capsys, "1 algorithm")
    _fails(["compare", str(scores_csv), "-a", "A", "-b", "A"], capsys, "same algorithm")
    _fails(["compare", str(scores_csv), "-a", "A", "-b", "C"], capsys, "-b 'C'")
    single = tmp_path / "single.csv"
    pd.read_csv(scores_csv).query("dataset == 'd1'").to_csv(single, index=False)
    _fails(["compare", str(single), "--all-pairs"], capsys, "--all-pairs", "one")


def test_regression_cli_simulate_writes_all_or_nothing(tmp_path, capsys, monkeypatch):
    import matplotlib.figure

    def broken(self, *args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", broken)
    out = tmp_path / "out"
    _fails(["simulate", "toy", "--repetitions", "20", "-o", str(out)], capsys, "disk full")
    assert not out.exists() or list(out.iterdir()) == []


def test_simulate_writes_results_rates_and_figures_and_says_when_it_replaces(tmp_path, capsys):
    import xarray as xr

    argv = ["simulate", "experiment1", "--repetitions", "40", "--workers", "1", "--seed", "3", "--no-progress",
            "-o", str(tmp_path)]
    main(argv)
    captured = capsys.readouterr()
    assert "BN-hat is declared better than zeroR" in captured.out and "wrote" not in captured.out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["experiment1_q50.png", "experiment1_rates.csv",
                                                         "experiment1_results.nc"]
    with xr.open_dataset(tmp_path / "experiment1_results.nc", engine="scipy") as results:
        rates = pd.read_csv(tmp_path / "experiment1_rates.csv")
        # the saved rates are those of the saved per-repetition statistics
        poisson = rates.query("test == 'poisson' and delta == 0.1 and runs == 10").rate.item()
        assert poisson == pytest.approx(float((results.p_b_majority.sel(delta=0.1, runs=10) > 0.95).mean()))
    assert len(rates) == 11 * 2 * 2
    main(argv)
    assert capsys.readouterr().err.count("replaced") == 3


def test_simulate_without_output_writes_nothing_and_progress_goes_to_stderr(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    main(["simulate", "experiment2", "--repetitions", "5", "--workers", "1"])
    captured = capsys.readouterr()
    assert "cauchy deltas" in captured.err and "cauchy deltas" not in captured.out
    assert list(tmp_path.iterdir()) == []


def test_lower_is_better_flips_the_verdict_and_encoding_is_passed(scores_csv, tmp_path, capsys):
    """Errors instead of accuracies: --lower-is-better must give the verdict of the accuracies."""
    frame = pd.read_csv(scores_csv)
    errors = tmp_path / "errors.csv"
    frame.assign(score=1 - frame.score).to_csv(errors, index=False, encoding="cp1252")
    accuracy_json, error_json = tmp_path / "acc.json", tmp_path / "err.json"
    main(["compare", str(scores_csv), "-a", "A", "-b", "B", "-o", str(accuracy_json)])
    accuracy_table = capsys.readouterr().out.splitlines()
    main(["compare", str(errors), "-a", "A", "-b", "B", "--lower-is-better", "--encoding", "cp1252",
          "-o", str(error_json)])
    error_table = capsys.readouterr().out.splitlines()
    acc, err = (json.loads(p.read_text())[0] for p in (accuracy_json, error_json))
    assert err["decision"] == acc["decision"] == "B"
    # the title names the difference in the errors as given: A's error minus B's, B - A of the accuracies
    assert accuracy_table[0].startswith("B - A (positive: B better)")
    assert error_table[0].startswith("A - B (lower is better, positive: B better)")
    means = frame.groupby(["dataset", "algorithm"]).score.mean().unstack()
    for line in error_table[3:3 + len(means)]:  # after the title, the column names and the index name
        name, value = line.split()[:2]
        row = means.loc[name.rstrip("*")]
        assert float(value) == pytest.approx((1 - row["A"]) - (1 - row["B"]), abs=6e-5)
    for r_acc, r_err in zip(acc["results"], err["results"]):
        assert r_err["p_right"] == pytest.approx(r_acc["p_right"], abs=1e-9)


@pytest.fixture
def short_fits(monkeypatch):
    """hierarchical_test with 60 draws of 2 chains: the bulk ESS cannot reach 400, so no fit converges (the
    tests ask for --method mcmc: no exact fallback)."""
    import functools

    import pp_corr.hierarchical.fit as hierarchical

    monkeypatch.setattr(hierarchical, "hierarchical_test",
                        functools.partial(hierarchical.hierarchical_test, draws=60, tune=60, chains=2))


def test_an_unconverged_hierarchical_fit_prints_no_verdict_and_exits_3(scores_csv, tmp_path, capsys, short_fits):
    out = tmp_path / "hier.json"
    with pytest.raises(SystemExit) as caught:
        main(["compare", str(scores_csv), "-a", "A", "-b", "B", "--hierarchical", "--method", "mcmc", "-o", str(out)])
    captured = capsys.readouterr()
    assert caught.value.code == 3
    assert "NOT CONVERGED, no verdict (2 attempt(s)" in captured.out and "bulk ESS of delta0" in captured.out
    assert "P(delta0 > 0)" not in captured.out and "better" not in captured.out  # nor the per-data-set table
    assert "did not converge for B - A" in captured.err and "exit status 3" in captured.err
    written = json.loads(out.read_text())  # the file is written, and says it
    assert written[0]["converged"] is False and len(written[0]["attempts"]) == 2


def test_allow_unconverged_shows_the_numbers_under_a_warning_and_exits_0(scores_csv, capsys, short_fits):
    assert main(["compare", str(scores_csv), "-a", "A", "-b", "B", "--hierarchical", "--method", "mcmc",
                 "--allow-unconverged"]) == 0
    out = capsys.readouterr().out
    assert "NOT CONVERGED (2 attempt(s)" in out and "P(delta0 > 0)" in out and "shrunk" in out


def test_allow_unconverged_needs_hierarchical(scores_csv, capsys):
    _fails(["compare", str(scores_csv), "--allow-unconverged"], capsys, "--allow-unconverged", "--hierarchical")
    _fails(["compare", str(scores_csv), "--method", "exact"], capsys, "--method", "--hierarchical")


# --- figures from the command line (#18): written where asked, named for what they show, all listed on stderr

MAGIC = {"png": b"\x89PNG\r\n\x1a\n", "svg": b"<?xml", "pdf": b"%PDF"}


def _written(directory, capsys):
    """The files in ``directory``, each checked to be what its suffix says and listed on stderr."""
    err = capsys.readouterr().err
    names = sorted(p.name for p in directory.iterdir())
    for name in names:
        assert (directory / name).read_bytes().startswith(MAGIC[name.rsplit(".", 1)[1]]), name
        assert f"wrote {directory / name}" in err
    return names


def test_plots_of_a_pair_in_the_formats_asked(tmp_path, capsys, monkeypatch):
    figures, elsewhere = tmp_path / "figs", tmp_path / "cwd"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    main(["compare", str(example_path()), "-a", "tree", "-b", "knn", "--plots", str(figures)])
    assert _written(figures, capsys) == ["forest_tree_vs_knn.png", "poisson_binomial_tree_vs_knn.png",
                                         "simplex_signed_rank_tree_vs_knn.png"]
    main(["compare", str(example_path()), "-a", "tree", "-b", "knn", "--plots", str(tmp_path / "more"),
          "--plot-format", "svg", "--plot-format", "pdf", "--plot-dataset", "iris"])
    assert _written(tmp_path / "more", capsys) == sorted(
        f"{kind}_tree_vs_knn{part}.{suffix}" for kind, part in (("forest", ""), ("poisson_binomial", ""),
                                                                ("simplex_signed_rank", ""), ("posterior", "_iris"))
        for suffix in ("svg", "pdf"))
    assert list(elsewhere.iterdir()) == []


def test_plots_of_all_pairs_and_of_every_pair(tmp_path, capsys):
    main(["compare", str(example_path()), "--all-pairs", "--plots", str(tmp_path / "all")])
    assert _written(tmp_path / "all", capsys) == [f"pairs_{t}.png" for t in ("poisson", "sign", "signed_rank",
                                                                             "wilcoxon")]
    main(["compare", str(example_path()), "--plots", str(tmp_path / "each")])
    pairs = [("naive_bayes", "logistic"), ("naive_bayes", "tree"), ("naive_bayes", "knn"), ("logistic", "tree"),
             ("logistic", "knn"), ("tree", "knn")]
    assert _written(tmp_path / "each", capsys) == sorted(f"{kind}_{a}_vs_{b}.png" for a, b in pairs
                                                         for kind in ("forest", "poisson_binomial",
                                                                      "simplex_signed_rank"))


def test_plot_file_names_are_safe_and_one_data_set_has_no_poisson_binomial(scores_csv, tmp_path, capsys):
    frame = pd.read_csv(scores_csv).query("dataset == 'd1'")
    odd = tmp_path / "odd.csv"
    frame.assign(algorithm=frame.algorithm.map({"A": "k-NN (k=5)", "B": "../svm rbf"})).to_csv(odd, index=False)
    main(["compare", str(odd), "--plots", str(tmp_path / "figs"), "--plot-dataset", "d1"])
    assert _written(tmp_path / "figs", capsys) == ["forest_k-NN_k_5_vs_.._svm_rbf.png",
                                                   "posterior_k-NN_k_5_vs_.._svm_rbf_d1.png"]


@pytest.mark.slow
def test_plots_of_the_hierarchical_test_only_for_the_numbers_shown(scores_csv, tmp_path, capsys, monkeypatch):
    import functools

    import pp_corr.hierarchical.fit as hierarchical

    monkeypatch.setattr(hierarchical, "hierarchical_test", functools.partial(  # one short fit: not converged
        hierarchical.hierarchical_test, draws=60, tune=60, chains=2, retry=False))
    figures = tmp_path / "figs"
    argv = ["compare", str(scores_csv), "-a", "A", "-b", "B", "--hierarchical", "--method", "mcmc", "--plots",
            str(figures)]
    with pytest.raises(SystemExit):
        main(argv)  # not converged: no verdict, so no figures
    assert _written(figures, capsys) == []
    main([*argv, "--allow-unconverged", "--plot-format", "svg"])
    assert _written(figures, capsys) == ["posterior_predictive_A_vs_B.svg", "shrinkage_A_vs_B.svg"]


@pytest.mark.parametrize("extra", [[], ["--all-pairs"], ["--hierarchical"]])
def test_regression_unwritable_plots_dir_refused_before_the_analysis(scores_csv, tmp_path, capsys, monkeypatch,
                                                                      extra):
    import pp_corr.cli
    import pp_corr.hierarchical.fit

    for module, name in ((pp_corr.cli, "poisson_test"), (pp_corr.cli, "compare_all_pairs"),
                         (pp_corr.hierarchical.fit, "hierarchical_test")):
        monkeypatch.setattr(module, name, lambda *a, **k: pytest.fail("analysed before checking --plots"))
    in_the_way = tmp_path / "file.txt"
    in_the_way.write_text("keep me")
    argv = ["compare", str(scores_csv), "-a", "A", "-b", "B", *extra, "--plots"]
    if extra:
        argv = [a for a in argv if a not in ("-a", "A", "-b", "B")]
    _fails([*argv, str(in_the_way)], capsys, "--plots", "file.txt")
    _fails([*argv, str(in_the_way / "figs")], capsys, "--plots", "file.txt")
    if Path("/proc/self").is_dir():  # a directory root may write to by its permission bits, and yet cannot
        _fails([*argv, "/proc"], capsys, "--plots", "/proc")
        _fails([*argv, "/proc/pp_corr_figures"], capsys, "--plots", "/proc/pp_corr_figures")
    assert in_the_way.read_text() == "keep me"


def test_regression_plot_options_need_plots(scores_csv, tmp_path, capsys):
    _fails(["compare", str(scores_csv), "--plot-format", "svg"], capsys, "--plot-format", "--plots")
    _fails(["compare", str(scores_csv), "--plot-dataset", "d1"], capsys, "--plot-dataset", "--plots")
    _fails(["compare", str(scores_csv), "--plots", str(tmp_path), "--plot-dataset", "d9"], capsys, "d9")
    _fails(["compare", str(scores_csv), "--all-pairs", "--plots", str(tmp_path), "--plot-dataset", "d1"], capsys,
           "--plot-dataset", "pair")
    _fails(["compare", str(scores_csv), "--plots", str(tmp_path), "--plot-format", "jpg"], capsys, "--plot-format")
    assert list(tmp_path.iterdir()) == [scores_csv]


# --- real benchmark files: a text data-set column, NA for failed folds (issue 38) ------------------------------

@pytest.fixture(scope="module")
def messy_csv(tmp_path_factory):
    """16 classifiers x 80 data sets x 10 folds, the data sets in the text column db, two failed folds written NA."""
    from pp_corr.testing import messy_benchmark

    path = tmp_path_factory.mktemp("messy") / "messy.csv"
    messy_benchmark(random_seed=1).to_csv(path, index=False, na_rep="NA")
    return path


def test_a_pair_of_a_messy_file_on_its_80_data_sets_with_the_signed_rank_test_beside(messy_csv, capsys):
    main(["compare", str(messy_csv), "-a", "lr", "-b", "ridge"])
    out, err = capsys.readouterr()
    assert "Poisson test, ridge vs lr on 80 data sets" in out and "molecular_biology_promoters_04 " in out
    assert "decision at alpha = 0.05: none\n" in out  # the Poisson test cannot tell equivalence ...
    assert "Bayesian signed-rank test (s = 0.5, z0 = 0.0), ridge vs lr, rope 0.01" in out  # ... its neighbour can
    assert "decision at alpha = 0.05: rope (practically equivalent: the rope is the largest region in more than " \
           "95% of the draws)" in out
    assert "warning" not in err  # passive, with the failed folds, is not loaded


def test_the_missing_folds_are_named_once_on_stderr(messy_csv, capsys):
    main(["compare", str(messy_csv), "-a", "passive", "-b", "lr"])
    err = capsys.readouterr().err
    assert err == "pp-corr: warning: 2 missing scores, kept as NaN: passive on dataset_02, run 1: folds 3, 7\n"


def test_exclude_options_leave_out_and_name_unknown_names(messy_csv, capsys):
    main(["compare", str(messy_csv), "-a", "lr", "-b", "ridge", "--algorithms", "lr,ridge,passive",
          "--exclude-algorithms", "passive", "--exclude-datasets", "dataset_01,dataset_03"])
    out, err = capsys.readouterr()
    assert "on 78 data sets" in out and "dataset_01 " not in out and "warning" not in err
    main(["compare", str(messy_csv), "-a", "lr", "-b", "ridge", "--exclude-algorithms", "passive"])  # not loaded
    assert "on 80 data sets" in capsys.readouterr().out
    _fails(["compare", str(messy_csv), "--exclude-datasets", "dataset_01,iris"], capsys,
           "--exclude-datasets names ['iris'], not in the scores (they have 80: dataset_01, dataset_02, ")
    _fails(["report", str(messy_csv), "-o", str(messy_csv.parent / "r"), "--exclude-algorithms", "svm"], capsys,
           "--exclude-algorithms names ['svm']")


def test_na_values_and_several_text_columns_in_the_options_words(tmp_path, capsys):
    path = tmp_path / "s.csv"
    pd.DataFrame({"db": ["iris"] * 3 + ["wine"] * 3, "note": "x", "fold": [1, 2, 3] * 2,
                  "A": ["0.8", "failed", "0.7", "0.9", "0.85", "0.8"], "B": ["0.81", "0.9", "0.75"] * 2}).to_csv(
        path, index=False)
    _fails(["compare", str(path)], capsys, "several text columns ['db', 'note']", "say which with --column "
           "dataset=NAME")
    _fails(["compare", str(path), "--column", "dataset=db", "--algorithms", "A,B"], capsys,
           "non-numeric score 'failed'")
    main(["compare", str(path), "--column", "dataset=db", "--algorithms", "A,B", "--na-values", "failed"])
    assert "A on iris, run 1: fold 2\n" in capsys.readouterr().err


def test_messages_in_the_options_words(scores_csv, tmp_path, capsys):
    one = tmp_path / "one.csv"
    pd.read_csv(scores_csv).query("dataset == 'd1'").to_csv(one, index=False)
    message = _fails(["compare", str(one), "-a", "A", "-b", "B", "--hierarchical"], capsys, "--hierarchical",
                     "holds one (d1)")
    assert "x holds" not in message
    _fails(["compare", str(scores_csv), "--runs", "1"], capsys, "--runs 1 contradicts the data")
    _fails(["compare", str(scores_csv), "--runs", "2", "--folds", "2"], capsys,
           "--folds 2 contradicts the data: data set 'd1' holds 2 runs x 5 folds")


@pytest.mark.parametrize("command", [[], ["compare"], ["report"], ["simulate"], ["replicability"], ["demo"],
                                     ["sequential"]])
def test_every_help_ends_with_an_example(command, capsys):
    with pytest.raises(SystemExit):
        main(command + ["--help"])
    out = capsys.readouterr().out
    examples = out.split("\nexamples:\n", 1)[1].splitlines()
    assert examples and all(line.startswith("  pp-corr " + " ".join(command)) for line in examples)
