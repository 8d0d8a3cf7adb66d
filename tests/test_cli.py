"""The command line: its numbers against independent computations, its files, and its errors (one line, named)."""
import json
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from pp_corr import NormalGamma, correlated_ttest, poisson_test
from pp_corr.cli import format_table, main, write_figures
from pp_corr.data.scores import example_path
from pp_corr.pairwise.ttest import DegenerateWarning
from tests.conftest import FOLDS, RHO, count_distribution, make_differences, posterior_tails
from tests.conftest import formula_probs

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


Q = 4


POISSON_ROPE = 0.004


@pytest.fixture(scope="module")
def x():
    return make_differences(Q, seed=11)


def write_scores(path, encoding):
    """Tidy scores of two algorithms on two data sets, one named with a non-ASCII letter, in ``encoding``."""
    rng = np.random.default_rng(3)
    rows = ["dataset,algorithm,run,fold,score"]
    for dataset in ("café", "iris"):
        for algorithm, shift in (("a", 0.0), ("b", 0.01)):
            rows += [f"{dataset},{algorithm},1,{fold},{0.8 + shift + 0.02 * rng.standard_normal():.6f}"
                     for fold in range(1, 6)]
    path.write_text("\n".join(rows) + "\n", encoding=encoding)


def write_differences(path, x, first="knn"):
    """Tidy scores whose knn - svm differences are the rows of x (one run of FOLDS folds a data set), knn's rows
    written first unless ``first`` says otherwise, so that the file's own order is not the pair's."""
    rows = ["dataset,algorithm,run,fold,score"]
    for algorithm in ((first, "svm" if first == "knn" else "knn")):
        for i, row in enumerate(x):
            rows += [f"D{i + 1},{algorithm},1,{f + 1},{float(0.5 + (v if algorithm == 'knn' else 0.0))!r}"
                     for f, v in enumerate(row)]
    path.write_text("\n".join(rows) + "\n")


def proper_prior_tail(x, prior, rope):
    """P(mu > rope) per row under a proper Normal-Gamma prior (nu ~ Gamma(a, b), mu | nu ~ N(mu0, k0 / nu)), derived
    here: with M = (1 - rho) I + rho 11', 1'M^-1 1 = n / (1 + (n - 1) rho) = m and the residuals' quadratic form is
    SS / (1 - rho), so mu | x ~ St(2 a + n, (mu0 / k0 + m xbar) / (1 / k0 + m), b_n / (a_n (1 / k0 + m)))."""
    mu0, k0, a, b = prior
    n = x.shape[1]
    xbar = x.mean(axis=1)
    ss = ((x - xbar[:, None]) ** 2).sum(axis=1)
    m = n / (1 + (n - 1) * RHO)
    precision, a_n = 1 / k0 + m, a + n / 2
    b_n = b + (ss / (1 - RHO) + m / k0 / precision * (xbar - mu0) ** 2) / 2
    return stats.t.sf(rope, 2 * a_n, (mu0 / k0 + m * xbar) / precision, np.sqrt(b_n / (a_n * precision)))


class TestPairRecord:
    """The JSON of ``pp-corr compare -o``: the Poisson test's ``to_dict``."""

    def test_pair_record_keys_and_values(self, x):
        d = poisson_test(x, folds=FOLDS, rope=POISSON_ROPE, alpha=0.2, names=("svm", "knn")).to_dict()
        assert list(d) == ["a", "b", "rope", "rho", "prior", "alpha", "n_datasets", "left_out", "p_b_majority",
                           "p_a_majority", "decision", "results"]
        p_right, p_left = posterior_tails(x, POISSON_ROPE)
        majority = np.arange(Q + 1) > Q / 2
        p_b, p_a = (count_distribution(p)[majority].sum() for p in (p_right, p_left))
        rule = "knn" if p_b > 0.8 else "svm" if p_a > 0.8 else "none"
        assert (d["a"], d["b"], d["rope"], d["rho"], d["prior"], d["alpha"], d["n_datasets"], d["decision"]) == \
            ("svm", "knn", (-POISSON_ROPE, POISSON_ROPE), 1 / FOLDS, "matching", 0.2, Q, rule)
        assert (d["p_b_majority"], d["p_a_majority"]) == pytest.approx((p_b, p_a), rel=1e-10)
        assert [r["dataset"] for r in d["results"]] == [f"D{i + 1}" for i in range(Q)]
        assert [r["p_right"] for r in d["results"]] == pytest.approx(p_right.tolist(), rel=1e-10)
        assert [r["p_left"] for r in d["results"]] == pytest.approx(p_left.tolist(), rel=1e-10)

    def test_pair_record_of_a_proper_prior_and_rho_per_data_set(self, x):
        prior = NormalGamma(0.0, 2.0, 3.0, 0.001)
        d = poisson_test(x, rho=[0.1, 0.2, 0.1, 0.25], prior=prior).to_dict()
        assert d["prior"] == {"mu0": 0.0, "k0": 2.0, "a": 3.0, "b": 0.001}
        assert d["rho"] == [0.1, 0.2, 0.1, 0.25] and d["rope"] is None


class TestFormatTable:
    def test_format_table_marks_point_masses_and_names_the_prior(self, x):
        data = np.vstack([x[:2], np.full((1, FOLDS), 0.01)])   # D3: every difference equal -> a point mass
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateWarning)
            text = format_table(correlated_ttest(data, folds=FOLDS, names=("svm", "knn")))
        lines = text.splitlines()
        assert lines[0] == "knn - svm (positive: knn better), rope None, prior matching"
        assert [line.split()[0] for line in lines[2:5]] == ["D1", "D2", "D3*"]
        assert lines[4].split()[1:] == ["+0.0100", "[+0.0100,", "+0.0100]", "0.000", "0.000", "1.000", "knn"]
        assert lines[5:] == ["* all differences equal: the posterior is a point mass"]
        prior = NormalGamma(0.0, 2.0, 3.0, 0.001)
        plain = format_table(correlated_ttest(x, folds=FOLDS, prior=prior)).splitlines()
        assert plain[0] == f"B - A (positive: B better), rope None, prior {prior!r}"
        assert [line.split()[0] for line in plain[3:]] == [f"D{i + 1}" for i in range(Q)]   # no point mass, no note


class TestCompare:
    """compare on a pair: the options it passes on, what it prints and writes."""

    def test_compare_reads_the_file_in_the_given_encoding_with_the_given_prior(self, tmp_path, capsys):
        source, out = tmp_path / "scores.csv", tmp_path / "out.json"
        write_scores(source, "cp1252")
        assert "café".encode("cp1252") in source.read_bytes() and "café".encode("utf-8") not in source.read_bytes()
        main(["compare", str(source), "--encoding", "cp1252", "--prior", "0,2,3,0.001", "-o", str(out)])
        capsys.readouterr()
        (record,) = json.loads(out.read_text())
        assert [r["dataset"] for r in record["results"]] == ["café", "iris"]
        assert record["prior"] == {"mu0": 0.0, "k0": 2.0, "a": 3.0, "b": 0.001}

    def test_compare_writes_the_enumerated_poisson_test_with_the_options_given(self, x, tmp_path, capsys):
        source, out = tmp_path / "scores.csv", tmp_path / "out.json"
        write_differences(source, x)
        main(["compare", str(source), "-a", "svm", "-b", "knn", "--rope", "0.004", "--alpha", "0.2", "-o", str(out)])
        printed = capsys.readouterr().out
        (d,) = json.loads(out.read_text())
        p_right, p_left = posterior_tails(x, POISSON_ROPE)
        majority = np.arange(Q + 1) > Q / 2
        p_b, p_a = (count_distribution(p)[majority].sum() for p in (p_right, p_left))
        assert (d["a"], d["b"], d["rope"], d["alpha"], d["prior"]) == ("svm", "knn", [-POISSON_ROPE, POISSON_ROPE], 0.2,
                                                                        "matching")
        assert (d["p_b_majority"], d["p_a_majority"]) == pytest.approx((p_b, p_a), rel=1e-9)
        assert d["decision"] == ("knn" if p_b > 0.8 else "svm" if p_a > 0.8 else "none")
        assert [r["p_right"] for r in d["results"]] == pytest.approx(p_right.tolist(), rel=1e-9)
        assert f"Poisson test, knn vs svm on {Q} data sets" in printed

    def test_compare_prints_the_poisson_summary_from_two_data_sets_and_no_point_mass_warning(self, x, tmp_path, capsys):
        one, two = tmp_path / "one.csv", tmp_path / "two.csv"
        write_differences(one, x[:1])
        write_differences(two, np.vstack([x[:1], np.full((1, FOLDS), 0.01)]))   # D2: a point mass
        main(["compare", str(one), "-a", "svm", "-b", "knn"])
        captured = capsys.readouterr()
        assert "Poisson test" not in captured.out and "D1" in captured.out
        main(["compare", str(two), "-a", "svm", "-b", "knn"])
        captured = capsys.readouterr()
        assert "Poisson test, knn vs svm on 2 data sets" in captured.out and "D2*" in captured.out
        assert captured.err == ""

    def test_an_unknown_plot_dataset_is_refused_before_any_analysis(self, tmp_path, monkeypatch, capsys):
        """--plot-dataset names a data set of the file, checked before the tests run and before -o writes
        anything."""
        import pp_corr.cli

        monkeypatch.setattr(pp_corr.cli, "poisson_test", lambda *a, **k: pytest.fail("analysed before the check"))
        scores = tmp_path / "scores.csv"
        write_scores(scores, "utf-8")
        with pytest.raises(SystemExit) as caught:
            main(["compare", str(scores), "-o", str(tmp_path / "out.json"), "--plots", str(tmp_path / "figs"),
                  "--plot-dataset", "wine"])
        message = str(caught.value.code) + capsys.readouterr().err
        assert "--plot-dataset 'wine' is not in" in message and "café" in message
        assert not (tmp_path / "out.json").exists()

    def test_compare_pair_figures_get_the_rope_and_seed(self, tmp_path, monkeypatch, capsys):
        """A pair's figures (its signed-rank simplex is sampled) are made with --rope and --seed."""
        import pp_corr.cli

        made = []
        monkeypatch.setattr(pp_corr.cli, "pair_figures",
                            lambda result, datasets, scores, **kw: made.append((result.names, datasets, kw)) or [])
        source = tmp_path / "scores.csv"
        write_three(source)
        main(["compare", str(source), "-a", "a", "-b", "c", "--rope", "0.02", "--seed", "9", "--plots",
              str(tmp_path / "figs"), "--plot-dataset", "d2"])
        capsys.readouterr()
        assert made == [(("a", "c"), ["d2"], {"rope": 0.02, "random_seed": 9})]


class TestCompareAllPairs:
    def test_compare_all_pairs_passes_rope_alpha_and_seed_on_two_data_sets(self, x, tmp_path, capsys):
        source = tmp_path / "scores.csv"
        write_differences(source, x[:2])
        outs = [tmp_path / f"pairs{i}.json" for i in range(2)]
        for out in outs:
            main(["compare", str(source), "--all-pairs", "--rope", "0.004", "--alpha", "0.3", "--seed", "5",
                  "-o", str(out)])
        capsys.readouterr()
        first, second = (json.loads(out.read_text()) for out in outs)
        assert first == second                      # the seed reaches the Bayesian tests
        assert (first["attrs"]["rope"], first["attrs"]["alpha"], first["attrs"]["n_datasets"]) == (POISSON_ROPE, 0.3, 2)
        (row,) = [r for r in first["pairs"] if (r["a"], r["b"]) == ("svm", "knn")]
        p_right, _ = posterior_tails(x[:2], POISSON_ROPE)
        assert row["p_b_majority"] == pytest.approx(np.prod(p_right), rel=1e-9)   # a majority of 2 is both

    def test_compare_all_pairs_passes_the_prior(self, x, tmp_path, capsys):
        """--all-pairs with --prior: P(B better on both data sets) is the
        product of the two proper-prior tails (the matching prior's differ by about 2% here)."""
        source, out = tmp_path / "scores.csv", tmp_path / "pairs.json"
        write_differences(source, x[:2])
        main(["compare", str(source), "--all-pairs", "--rope", "0.004", "--prior", "0,2,3,0.001", "-o", str(out)])
        capsys.readouterr()
        (row,) = [r for r in json.loads(out.read_text())["pairs"] if (r["a"], r["b"]) == ("svm", "knn")]
        p_right = proper_prior_tail(x[:2], (0.0, 2.0, 3.0, 0.001), POISSON_ROPE)
        assert row["p_b_majority"] == pytest.approx(np.prod(p_right), rel=1e-9)
        assert row["p_b_majority"] != pytest.approx(np.prod(posterior_tails(x[:2], POISSON_ROPE)[0]), rel=1e-3)

    def test_compare_all_pairs_draws_each_test_best_first_in_the_formats_asked(self, tmp_path, monkeypatch, capsys):
        """--all-pairs --plots: one figure a test, each drawing its own test with the algorithms best first, in every
        --plot-format."""
        import pp_corr.cli
        import pp_corr.plots

        rows = ["dataset,algorithm,run,fold,score"]   # c beats b beats a on every data set
        rows += [f"{d},{a},1,{f},{level + 0.001 * f:.3f}" for d in ("d1", "d2", "d3")
                 for a, level in (("a", 0.7), ("b", 0.8), ("c", 0.9)) for f in range(1, 6)]
        source = tmp_path / "scores.csv"
        source.write_text("\n".join(rows) + "\n")
        monkeypatch.setattr(pp_corr.plots, "plot_pairs", lambda table, **kw: kw)
        written = []
        monkeypatch.setattr(pp_corr.cli, "write_figures",
                            lambda d, f, figs: written.append((f, [(stem, draw()) for stem, draw in figs])))
        main(["compare", str(source), "--all-pairs", "--plots", str(tmp_path / "figs"), "--plot-format", "svg",
              "--plot-format", "pdf"])
        capsys.readouterr()
        tests = ["poisson", "wilcoxon", "signed_rank", "sign"]  # the order of the table of tests, pairs.TESTS
        assert written == [(["svg", "pdf"], [(f"pairs_{t}", {"test": t, "order": ["c", "b", "a"]}) for t in tests])]


class TestWriteFigures:
    def test_two_figures_for_one_file_are_refused_naming_plots_and_the_file(self, tmp_path):
        """Two figures with one stem (algorithms whose safe names coincide) would overwrite each other: the error names
        the option and the file, and nothing is written."""
        def draw():
            raise AssertionError("no figure may be drawn")

        message = f"--plots: two figures would both be written to {tmp_path / 'a.svg'}"
        with pytest.raises(ValueError, match=re.escape(message)):
            write_figures(tmp_path, ["svg"], [("a", draw), ("a", draw)])
        assert list(tmp_path.iterdir()) == []


class FittedPair:
    """Stands in for a HierarchicalResult of the pair ``names``: each output says which pair and whether it
    converged, so that what the command line prints and writes can be traced to the result it came from."""

    def __init__(self, names, converged):
        self.names, self.converged = names, converged

    def summary(self, allow_unconverged=False):
        return f"summary of {self.names} (allow_unconverged={allow_unconverged})"

    def datasets(self):
        import pandas as pd

        return pd.DataFrame({"pair": ["-".join(self.names)], "p": [0.123456]})

    def format_datasets(self):  # as HierarchicalResult's: the table with 4 decimals
        return self.datasets().to_string(float_format=lambda v: f"{v:.4f}")

    def to_dict(self):
        return {"pair": list(self.names), "converged": self.converged}

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame({"a": [self.names[0]], "b": [self.names[1]], "converged": [self.converged]})


def fake_fits(monkeypatch, converged):
    """``hierarchical_tests`` replaced: records its arguments and returns one FittedPair a pair."""
    from pp_corr.hierarchical import batch as hierarchical_batch

    calls = []

    def fits(scores, pairs, **kwargs):
        calls.append((scores, list(pairs), kwargs))
        return {pair: FittedPair(pair, converged[pair]) for pair in pairs}

    monkeypatch.setattr(hierarchical_batch, "hierarchical_tests", fits)
    return calls


def write_three(path):
    """Tidy scores of algorithms a, b, c on two data sets."""
    rng = np.random.default_rng(4)
    rows = ["dataset,algorithm,run,fold,score"]
    rows += [f"{d},{a},1,{f},{0.8 + 0.02 * rng.standard_normal():.6f}" for d in ("d1", "d2") for a in "abc"
             for f in range(1, 6)]
    path.write_text("\n".join(rows) + "\n")


class TestCompareHierarchical:
    """compare --hierarchical's plumbing, with a test double in place of the PyMC fits."""

    def test_compare_hierarchical_receives_the_scores_pairs_options_and_files(self, tmp_path, monkeypatch):
        """_compare hands _compare_hierarchical the loaded scores, the pairs asked for, the options and both
        destinations."""
        import xarray as xr

        import pp_corr.cli

        calls = []
        monkeypatch.setattr(pp_corr.cli, "_compare_hierarchical", lambda *args: calls.append(args))
        source, out, figs = tmp_path / "scores.csv", tmp_path / "out.json", tmp_path / "figs"
        write_three(source)
        main(["compare", str(source), "--hierarchical", "-a", "c", "-b", "a", "-o", str(out), "--plots", str(figs),
              "--rope", "0.02"])
        ((scores, pairs, args, output, plots_dir),) = calls
        xr.testing.assert_equal(scores, pp_corr.load_scores(source).sel(algorithm=["a", "c"]))   # the pair's two
        assert pairs == [("c", "a")] and args.rope == 0.02 and args.hierarchical
        assert output == out and plots_dir == figs and figs.is_dir()

    @pytest.mark.parametrize("allow", [False, True])
    def test_compare_hierarchical_passes_its_options_and_prints_and_writes_each_fit(self, tmp_path, monkeypatch, capsys,
                                                                                    allow):
        """Every option reaches the fits; a converged pair's summary and table are printed, an unconverged one's
        numbers only with --allow-unconverged; the JSON holds every pair's record in order; without
        --allow-unconverged the exit status is UNCONVERGED and stderr names the failed pair (B - A)."""
        import pp_corr.cli

        converged = {("a", "b"): True, ("a", "c"): False, ("b", "c"): True}
        calls = fake_fits(monkeypatch, converged)
        figures = []
        monkeypatch.setattr(pp_corr.cli, "write_figures",
                            lambda d, f, figs: figures.append((d, f, [s for s, _ in figs])))
        source, out, figs = tmp_path / "scores.csv", tmp_path / "out.json", tmp_path / "figs"
        write_three(source)
        argv = ["compare", str(source), "--hierarchical", "--rope", "0.03", "--seed", "7", "--method", "mcmc",
                "--sampler", "nutpie", "-o", str(out), "--plots", str(figs), "--plot-format", "svg"]
        if allow:
            main(argv + ["--allow-unconverged"])
        else:
            with pytest.raises(SystemExit) as caught:
                main(argv)
            assert caught.value.code == pp_corr.cli.UNCONVERGED
        captured = capsys.readouterr()
        ((_, pairs, kwargs),) = calls
        assert pairs == list(converged)
        assert kwargs == dict(rope=0.03, random_seed=7, method="mcmc", sampler="nutpie", progressbar=True, workers=None,
                              scheduler=None)
        for pair, ok in converged.items():
            assert f"summary of {pair} (allow_unconverged={allow})" in captured.out
            assert ("-".join(pair) in captured.out) == (ok or allow)   # the per-data-set table
        assert json.loads(out.read_text()) == [{"pair": list(p), "converged": ok} for p, ok in converged.items()]
        shown = [p for p, ok in converged.items() if ok or allow]
        assert figures == [(figs, ["svg"], [f"{kind}_{a}_vs_{b}" for a, b in shown
                                            for kind in ("shrinkage", "posterior_predictive")])]
        assert ("c - a" in captured.err) == (not allow) and "b - a" not in captured.err

    def test_compare_hierarchical_writes_every_fit_to_csv(self, tmp_path, monkeypatch, capsys):
        """-o FILE.csv: one row a pair, from each result's to_frame, in the pairs' order."""
        import pandas as pd

        fake_fits(monkeypatch, {("a", "b"): True, ("a", "c"): True, ("b", "c"): True})
        source, out = tmp_path / "scores.csv", tmp_path / "out.csv"
        write_three(source)
        main(["compare", str(source), "--hierarchical", "-o", str(out)])
        capsys.readouterr()
        table = pd.read_csv(out)
        assert table[["a", "b"]].values.tolist() == [["a", "b"], ["a", "c"], ["b", "c"]]
        assert table.converged.all()

    def test_compare_hierarchical_fits_the_loaded_scores_and_prints_each_table_to_4_decimals(self, tmp_path,
                                                                                             monkeypatch, capsys):
        """The fits get the scores _compare loaded, and each pair's per-data-set table is printed rounded to 4
        decimals."""
        import xarray as xr

        import pp_corr

        converged = {("a", "b"): True, ("a", "c"): True, ("b", "c"): True}
        calls = fake_fits(monkeypatch, converged)
        source = tmp_path / "scores.csv"
        write_three(source)
        main(["compare", str(source), "--hierarchical"])
        out = capsys.readouterr().out
        ((scores, _, _),) = calls
        xr.testing.assert_equal(scores, pp_corr.load_scores(source))
        for a, b in converged:   # FittedPair.datasets has p = 0.123456, its format_datasets 4 decimals
            assert re.search(rf"{a}-{b}\s+0\.1235\n", out)
        assert "0.12346" not in out

    def test_compare_hierarchical_draws_each_shown_fit_from_its_result_with_the_seed(self, tmp_path, monkeypatch,
                                                                                     capsys):
        """Each figure _compare_hierarchical hands write_figures draws its own pair's result, the posterior predictive
        one with --seed."""
        import pp_corr.cli
        import pp_corr.plots

        fake_fits(monkeypatch, {("a", "b"): True, ("a", "c"): False, ("b", "c"): True})
        monkeypatch.setattr(pp_corr.plots, "plot_shrinkage", lambda result, **kw: ("shrinkage", result.names, kw))
        monkeypatch.setattr(pp_corr.plots, "plot_posterior_predictive",
                            lambda result, **kw: ("predictive", result.names, kw))
        drawn = []
        monkeypatch.setattr(pp_corr.cli, "write_figures",
                            lambda d, f, figs: drawn.extend((stem, draw()) for stem, draw in figs))
        source = tmp_path / "scores.csv"
        write_three(source)
        with pytest.raises(SystemExit):   # a - c did not converge: no figures for it
            main(["compare", str(source), "--hierarchical", "--seed", "7", "--plots", str(tmp_path / "figs")])
        capsys.readouterr()
        assert drawn == [item for a, b in (("a", "b"), ("b", "c")) for item in (
            (f"shrinkage_{a}_vs_{b}", ("shrinkage", (a, b), {})),
            (f"posterior_predictive_{a}_vs_{b}", ("predictive", (a, b), {"random_seed": 7})))]


def rates_of(values, dims, coords, alpha=0.1, repetitions=16):
    """A rates Dataset as ``rejection_rates`` returns it, with the rates given and se = sqrt(r (1 - r) / n)."""
    import xarray as xr

    rate = xr.DataArray(values, dims=dims, coords=coords)
    return xr.Dataset({"rate": rate, "se": np.sqrt(rate * (1 - rate) / repetitions)},
                      attrs={"study": "S", "a": "zeroR", "b": "BN-hat", "alpha": alpha, "repetitions": repetitions})


def cell(rate, n=16):
    return f"{rate:.3f} ({np.sqrt(rate * (1 - rate) / n):.3f})"


class TestFormatRates:
    def test_format_rates_prints_every_rate_and_its_standard_error(self):
        from pp_corr.cli import format_rates
        from pp_corr.studies.simulation import rejection_rates, toy_example

        rates = rejection_rates(toy_example(repetitions=40, random_seed=1), alpha=0.1)
        lines = format_rates(rates).splitlines()
        assert lines[0] == (f"{rates.attrs['study']}: how often {rates.attrs['b']} is declared better than "
                            f"{rates.attrs['a']} at alpha = 0.1, 40 repetitions; rate (standard error)")
        frame = rates[["rate", "se"]].to_dataframe()
        cells = re.findall(r"(\d\.\d{3}) \((\d\.\d{3})\)", "\n".join(lines[1:]))
        assert len(cells) == len(frame)
        assert sorted(cells) == sorted((f"{r:.3f}", f"{s:.3f}") for r, s in zip(frame["rate"], frame["se"]))

    def test_format_rates_has_one_column_per_test_and_number_of_runs(self):
        """The documented layout: a column per (test, runs), a row per other setting (not the tests or
        the runs put in the rows, nor every cell in one column). Rates k / 16 of 16 repetitions, each cell
        written here."""
        from pp_corr.cli import format_rates

        values = np.arange(16).reshape(2, 2, 2, 2) / 16    # (test, delta, runs, n_datasets)
        rates = rates_of(values, ("test", "delta", "runs", "n_datasets"),
                         {"test": ["poisson", "wilcoxon"], "delta": [0.0, 0.05], "runs": [1, 10],
                          "n_datasets": [50, 25]})
        lines = format_rates(rates).splitlines()
        assert lines[0] == ("S: how often BN-hat is declared better than zeroR at alpha = 0.1, 16 repetitions; "
                            "rate (standard error)")
        assert lines[1].split() == ["test", "poisson", "wilcoxon"]   # each over its two runs columns
        assert lines[2].split() == ["runs", "1", "10", "1", "10"]
        assert lines[3].split() == ["delta", "n_datasets"]
        rows = [(d, q) for d in range(2) for q in range(2)]
        assert len(lines) == 4 + len(rows)
        for line, (d, q) in zip(lines[4:], rows):
            expected = [cell(values[t, d, m, q]) for t in range(2) for m in range(2)]
            assert re.findall(r"\d\.\d{3} \(\d\.\d{3}\)", line) == expected
            assert line.split()[:-8] == ([f"{[0.0, 0.05][d]:.2f}"] if q == 0 else []) + [str([50, 25][q])]

    def test_format_rates_without_runs_has_one_column_per_test(self):
        """The toy example's rates have no runs: the tests across, the cases down."""
        from pp_corr.cli import format_rates

        values = np.array([[0.125, 0.25], [0.5, 0.875]])   # (test, case)
        rates = rates_of(values, ("test", "case"), {"test": ["poisson", "wilcoxon"], "case": [1, 2]})
        lines = format_rates(rates).splitlines()
        assert lines[1].split() == ["test", "poisson", "wilcoxon"] and lines[2].split() == ["case"]
        assert [line.split() for line in lines[3:]] == [[str(c + 1)] + " ".join(cell(values[t, c]) for t in range(2))
                                                         .split() for c in range(2)]


SCHEDULER = "tcp://127.0.0.1:8786"


def spy(monkeypatch, module, name, **small):
    """Replace ``module.name`` by a study that records its keyword arguments and its result, running the real one
    locally on one worker without a progress bar (whatever scheduler it was given), with ``small`` for a reduced
    design."""
    real, calls, results = getattr(module, name), [], []

    def study(**kwargs):
        calls.append(kwargs)
        local = {k: v for k, v in kwargs.items() if k not in ("scheduler", "workers", "progressbar")}
        results.append(real(**{**local, **small}, workers=1, progressbar=False))
        return results[-1]

    monkeypatch.setattr(module, name, study)
    return calls, results


EXECUTION = [(["--scheduler", SCHEDULER], dict(scheduler=SCHEDULER, workers=None, progressbar=True)),
             (["--workers", "1", "--no-progress"], dict(scheduler=None, workers=1, progressbar=False))]


STUDIES = {"toy": ("toy_example", {}),
           "experiment1": ("experiment_1", dict(deltas=[0.0, 0.1], runs=1, n_datasets=10)),
           "experiment2": ("experiment_2", dict(deltas=[0.0, 0.05], runs=1))}


def spy_study(monkeypatch, study, **small):
    """The study's function spied on (see ``spy``); the other studies' functions fail if called."""
    from pp_corr.studies import simulation

    name, design = STUDIES[study]
    for other, _ in STUDIES.values():
        if other != name:
            monkeypatch.setattr(simulation, other, lambda **kw: pytest.fail("another study was run"))
    return spy(monkeypatch, simulation, name, **design, **small)


class TestSimulate:
    """The studies' options reach them, and every file holds what they computed."""

    def test_simulate_passes_seed_alpha_and_writes_the_rates_as_plain_columns(self, tmp_path, capsys):
        import pandas as pd
        import xarray as xr

        argv = ["simulate", "toy", "--repetitions", "30", "--workers", "1", "--seed", "4", "--alpha", "0.2",
                "--no-progress", "-o"]
        main(argv + [str(tmp_path / "one")])
        main(argv + [str(tmp_path / "two")])
        captured = capsys.readouterr()
        assert "alpha = 0.2, 30 repetitions" in captured.out and "%|" not in captured.err   # no progress bar
        one, two = (pd.read_csv(tmp_path / d / "toy_rates.csv") for d in ("one", "two"))
        pd.testing.assert_frame_equal(one, two)     # the seed reaches the study
        assert sorted(p.name for p in (tmp_path / "one").iterdir()) == ["toy.png", "toy_rates.csv", "toy_results.nc"]
        with xr.open_dataset(tmp_path / "one" / "toy_results.nc", engine="scipy") as results:
            dims = [d for d in results.dims if d != "repetition"]
        assert list(one.columns[:len(dims)]) == sorted(dims, key=list(one.columns).index)   # no index column
        assert "Unnamed: 0" not in one.columns

    @pytest.mark.parametrize("options, execution", EXECUTION)
    def test_simulate_signed_rank_passes_every_option_to_the_study(self, monkeypatch, capsys, options, execution):
        from pp_corr.studies import signed_rank_study

        calls, _ = spy(monkeypatch, signed_rank_study, "signed_rank_study", deltas=[0.0, 0.05], correlations=[0.5],
                       n_datasets=5)
        main(["simulate", "signed-rank", "--repetitions", "3", "--draws", "40", "--seed", "2"] + options)
        assert calls == [dict(runs=3, draws=40, random_seed=2, **execution)]
        assert "3 runs per Delta, 40 Dirichlet draws" in capsys.readouterr().out

    def test_simulate_signed_rank_runs_1000_times_by_default_and_every_table_takes_the_alpha_given(self, monkeypatch,
                                                                                                   capsys):
        from pp_corr.studies import signed_rank_study

        calls, _ = spy(monkeypatch, signed_rank_study, "signed_rank_study", deltas=[0.0, 0.05], correlations=[0.5],
                       n_datasets=5, runs=3)   # the study is run 3 times whatever it is asked
        alphas = []

        def recorded(name):
            real = getattr(signed_rank_study, name)
            return lambda results, **kw: alphas.append((name, kw)) or real(results, **kw)

        for name in ("loss_curves", "loss_areas", "indeterminate_decisions"):
            monkeypatch.setattr(signed_rank_study, name, recorded(name))
        main(["simulate", "signed-rank", "--draws", "40", "--seed", "2", "--alpha", "0.2", "--workers", "1",
              "--no-progress"])
        assert calls[0]["runs"] == 1000
        assert sorted(alphas) == [(name, {"alpha": 0.2}) for name in ("indeterminate_decisions", "loss_areas",
                                                                      "loss_curves")]
        assert "Wilcoxon at alpha = 0.2;" in capsys.readouterr().out

    @pytest.mark.parametrize("options, execution", EXECUTION)
    def test_simulate_nadeau_bengio_passes_every_option_and_writes_its_results(self, tmp_path, monkeypatch, options,
                                                                               execution):
        """Every option reaches the study; the .nc file holds the study's result, and the rho table rho0 = n2 / n of
        each configuration (n_test / n, computed here from the configurations)."""
        import pandas as pd
        import xarray as xr

        from pp_corr.studies import nadeau_bengio_study as nbs

        configurations = nbs.CONFIGURATIONS[:2]
        calls, results = spy(monkeypatch, nbs, "nadeau_bengio_study", configurations=configurations, splits=3,
                             halvings=2, bootstrap_repetitions=2, truth_training_sets=2)
        main(["simulate", "nadeau-bengio", "--repetitions", "4", "--seed", "3", "-o", str(tmp_path)] + options)
        assert calls == [dict(repetitions=4, random_seed=3, **execution)]
        with xr.open_dataset(tmp_path / "nadeau_bengio_results.nc", engine="scipy") as saved:
            xr.testing.assert_allclose(saved.load(), results[0])
        rho = pd.read_csv(tmp_path / "nadeau_bengio_rho.csv")
        assert list(rho.columns) == ["config", "rho", "rho_se", "rho0"]
        np.testing.assert_allclose(rho["rho0"], [c["n_test"] / c["n"] for c in configurations], rtol=1e-12)
        assert np.isfinite(rho[["rho", "rho_se"]].to_numpy()).all()

    @pytest.mark.parametrize("study", list(STUDIES))
    @pytest.mark.parametrize("options, execution", EXECUTION)
    def test_simulate_runs_the_study_named_with_every_option(self, monkeypatch, capsys, study, options, execution):
        """Each study gets the repetitions, seed, scheduler, workers and progress asked (experiment1 runs
        experiment 1, not 2)."""
        calls, _ = spy_study(monkeypatch, study)
        main(["simulate", study, "--repetitions", "6", "--seed", "5"] + options)
        assert calls == [dict(repetitions=6, random_seed=5, **execution)]
        assert ", 6 repetitions;" in capsys.readouterr().out

    def test_simulate_runs_5000_repetitions_by_default(self, monkeypatch, capsys):
        """The spy runs 6 repetitions whatever it is asked."""
        calls, _ = spy_study(monkeypatch, "toy", repetitions=6)
        main(["simulate", "toy", "--workers", "1", "--no-progress"])
        assert calls[0]["repetitions"] == 5000
        capsys.readouterr()

    def test_simulate_experiment_draws_one_figure_per_number_of_data_sets(self, tmp_path, monkeypatch, capsys):
        """Experiment 2 (q = 50 and 25) with -o: a figure per q, each of that q's rates only, and the
        rates file holds the rejection rates of the saved repetitions, counted here."""
        import pandas as pd
        import xarray as xr

        import pp_corr.plots

        _, results = spy_study(monkeypatch, "experiment2")
        drawn = []
        real = pp_corr.plots.plot_rejection_rates

        def plot(rates, **kw):
            drawn.append(rates.n_datasets.values.tolist())
            return real(rates, **kw)

        monkeypatch.setattr(pp_corr.plots, "plot_rejection_rates", plot)
        main(["simulate", "experiment2", "--repetitions", "6", "--seed", "1", "--alpha", "0.3", "--workers", "1",
              "--no-progress", "-o", str(tmp_path)])
        capsys.readouterr()
        assert drawn == [[50], [25]]
        assert sorted(p.name for p in tmp_path.iterdir()) == ["experiment2_q25.png", "experiment2_q50.png",
                                                             "experiment2_rates.csv", "experiment2_results.nc"]
        with xr.open_dataset(tmp_path / "experiment2_results.nc", engine="scipy") as saved:
            saved = saved.load()
        xr.testing.assert_allclose(saved, results[0])
        rates = pd.read_csv(tmp_path / "experiment2_rates.csv").set_index(["test", "delta", "runs", "n_datasets"])
        for delta in saved.delta.values:
            for q in saved.n_datasets.values:
                one = saved.sel(delta=delta, runs=1, n_datasets=q)
                poisson = np.mean(one.p_b_majority.values > 0.7)
                wilcoxon = np.mean(one.wilcoxon_pvalue.values < 0.3)
                assert rates.loc[("poisson", delta, 1, q), "rate"] == pytest.approx(poisson, abs=1e-12)
                assert rates.loc[("wilcoxon", delta, 1, q), "rate"] == pytest.approx(wilcoxon, abs=1e-12)


# --- moved from tests/test_edges.py: bad and extreme options, regressions of issue #10 -------------------------
# (imported here, not at the top, so that this block is all that the move changed in this file)
import os  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
from contextlib import ExitStack  # noqa: E402
from unittest import mock  # noqa: E402

from hypothesis import HealthCheck, assume, given, strategies as st  # noqa: E402

import pp_corr  # noqa: E402
import pp_corr.pairwise.pairs  # noqa: E402,F401 - imported before any stand-in is patched in (see forbid_computation)
import pp_corr.plots  # noqa: E402,F401
import pp_corr.studies.simulation  # noqa: E402,F401
from pp_corr import compare_all_pairs, load_scores  # noqa: E402
from tests.conftest import (run_limited, assert_close, assert_sums_to_one, campaign, cli_error,  # noqa: E402
                            error_or_warning, quiet, scores_frame)

def cli_ok(capsys, argv):
    capsys.readouterr()
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:
        pytest.fail(f"{argv} exited: {exc.code!r} {capsys.readouterr().err[-500:]}")
    assert code in (0, None)
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return captured


class ComputationStarted(Exception):
    """Raised by stand-ins for the computations the command line must not reach before checking its arguments."""


def forbid_computation():
    stack = ExitStack()

    def stop(*args, **kwargs):
        raise ComputationStarted("the computation started before the arguments and output path were checked")

    names = ("pp_corr.pairwise.ttest", "pp_corr.pairwise.poisson_test", "pp_corr.pairwise.pairs",
             "pp_corr.pairwise.rank_tests", "pp_corr.hierarchical.model", "pp_corr.studies.simulation")
    modules = [pp_corr, sys.modules["pp_corr.cli"]] + [sys.modules[m] for m in names if m in sys.modules]
    for module in modules:
        for name in ("correlated_ttest", "poisson_test", "compare_all_pairs", "hierarchical_test",
                     "bayesian_signed_rank", "bayesian_sign_test", "imprecise_signed_rank", "wilcoxon_test",
                     "sign_test", "toy_example", "experiment_1", "experiment_2", "bayesian_network_study",
                     "study_statistics"):
            if name in vars(module):
                stack.enter_context(mock.patch.object(module, name, stop))
    return stack


@pytest.fixture(scope="module")
def small_csv(tmp_path_factory):
    folder = tmp_path_factory.mktemp("edges_cli")
    frame = scores_frame(np.random.default_rng(11), ["d1", "d2", "d3", "d4"], ["P", "Q", "R"], 2, 5)
    path = folder / "scores.csv"
    frame.to_csv(path, index=False)
    return path


ROPES = {"0": True, "0.01": True, "0.5": True, "nan": False, "inf": False, "-0.1": False, "abc": False, "": False}


SEEDS = {"0": True, "7": True, "-1": False, "1.5": False, "x": False}


PRIORS = {"matching": True, "0,1,2,0.01": True, "nan,1,1,1": False, "1,2": False, "a,b,c,d": False,
          "0,1,inf,1": False, "0,-1,2,1": False}


PAIRS = {None: True, ("P", "Q"): True, ("P", "zzz"): False, ("Q", "Q"): False}


OUTPUTS = {None: True, "out.json": True, "out.csv": True, "missing/out.json": False, "out.txt": False,
           "existing_dir": False}


COLUMNS = {None: True, "score=score": True, "score=nonexistent": False, "bogus=score": False}


def strict_json(text):
    def refuse(token):
        raise AssertionError(f"bare {token} in the JSON output (strict parsers reject it)")

    return json.loads(text, parse_constant=refuse)


SIM_BAD = {"--repetitions": ["0", "-3", "2.5", "x"], "--workers": ["0", "-1", "x"], "--alpha": ["2", "0", "1", "nan",
                                                                                                "-0.5"],
           "--seed": ["-1", "x"]}


class TestArgumentEdges:
    @campaign(60, HealthCheck.function_scoped_fixture)
    @given(rope=st.sampled_from(sorted(ROPES)), seed=st.sampled_from(sorted(SEEDS)),
           prior=st.sampled_from(sorted(PRIORS)),
           pair=st.sampled_from(list(PAIRS)), output=st.sampled_from(list(OUTPUTS)),
           column=st.sampled_from(list(COLUMNS)), all_pairs=st.booleans(), lower=st.booleans())
    def test_cli_compare_options(self, capsys, small_csv, rope, seed, prior, pair, output, column, all_pairs, lower):
        """Any mix of good and bad options: an answer (and a parseable file) when all are good, else a one-line
        pp-corr error naming one of the bad ones - before any computation."""
        folder = Path(tempfile.mkdtemp(dir=small_csv.parent))
        (folder / "existing_dir").mkdir()
        argv = ["compare", small_csv, f"--rope={rope}", f"--seed={seed}", f"--prior={prior}"]
        bad = []
        for valid, names in ((ROPES[rope], ("--rope", "rope")), (SEEDS[seed], ("--seed", "seed")),
                             (PRIORS[prior], ("--prior", "prior"))):
            if not valid:
                bad += names
        if all_pairs:
            argv.append("--all-pairs")
        elif pair:
            argv += ["-a", pair[0], "-b", pair[1]]
            if not PAIRS[pair]:
                bad += ["zzz", "-b"] if pair[1] == "zzz" else ["Q", "-a", "-b"]
        if output:
            path = folder / output
            argv += ["-o", path]
            if not OUTPUTS[output]:
                bad += [str(path), path.name, "--output", "-o"]
        if column:
            argv += ["--column", column]
            if not COLUMNS[column]:
                bad += ["--column", "column", column.split("=")[0] if column.startswith("bogus") else "nonexistent"]
        if lower:
            argv.append("--lower-is-better")
        if bad:
            with forbid_computation():
                cli_error(capsys, argv, bad)
            if output:
                assert not (folder / output).is_file()
            return
        captured = cli_ok(capsys, argv)
        assert captured.out.strip(), "nothing printed"
        if output in ("out.json", "out.csv"):
            path = folder / output
            assert path.is_file(), "no output file"
            if output == "out.json":
                strict_json(path.read_text())
            else:
                frame = pd.read_csv(path)
                assert len(frame) > 0 and {"a", "b"} <= set(frame.columns)

    @campaign(40, HealthCheck.function_scoped_fixture)
    @given(study=st.sampled_from(["experiment1", "experiment2", "toy"]),
           bad=st.dictionaries(st.sampled_from(sorted(SIM_BAD)), st.just(None), min_size=0, max_size=3),
           data=st.data(), output_is_file=st.booleans())
    def test_cli_simulate_refuses_bad_options_before_simulating(self, capsys, tmp_path_factory, study, bad, data,
                                                                output_is_file):
        assume(bad or output_is_file)
        folder = tmp_path_factory.mktemp("sim")
        argv = ["simulate", study, "--no-progress"]
        names = []
        for option in bad:
            value = data.draw(st.sampled_from(SIM_BAD[option]), label=option)
            argv.append(f"{option}={value}")
            names.append(option)
        if "--repetitions" not in bad:
            argv.append("--repetitions=5")
        if output_is_file:
            target = folder / "a_file"
            target.write_text("not a directory")
            argv += ["-o", target]
            names += [str(target), "--output", "-o"]
        else:
            argv += ["-o", folder / "out"]
        with forbid_computation():
            cli_error(capsys, argv, names)
        assert not (folder / "out").exists() or not any((folder / "out").iterdir())

    def test_regression_cli_missing_file(self, capsys, tmp_path):
        path = tmp_path / "nope.csv"
        cli_error(capsys, ["compare", path], (str(path),))

    def test_regression_cli_directory(self, capsys, tmp_path):
        cli_error(capsys, ["compare", tmp_path], (str(tmp_path),))

    def test_regression_cli_missing_output_directory(self, capsys, small_csv, tmp_path):
        """-o in a missing directory was reported (with a traceback) after the whole analysis."""
        out = tmp_path / "missing" / "out.json"
        with forbid_computation():
            cli_error(capsys, ["compare", small_csv, "-o", out], (str(out), str(out.parent), "--output", "-o"))
        blocker = tmp_path / "a_file"
        blocker.write_text("x")
        with forbid_computation():  # simulate may create a missing directory, but not inside a file
            cli_error(capsys, ["simulate", "toy", "--repetitions", "5", "-o", blocker / "sub"],
                      (str(blocker / "sub"), str(blocker), "--output", "-o"))

    def test_regression_cli_workers_negative(self, capsys):
        with forbid_computation():
            cli_error(capsys, ["simulate", "toy", "--workers", "-1"], ("--workers",))

    def test_regression_cli_seed_negative(self, capsys, small_csv):
        with forbid_computation():
            cli_error(capsys, ["simulate", "toy", "--seed", "-1"], ("--seed",))
            cli_error(capsys, ["compare", small_csv, "--seed", "-1"], ("--seed",))

    def test_regression_cli_simulate_alpha_2(self, capsys, tmp_path):
        """simulate --alpha 2 failed after the whole simulation."""
        with forbid_computation():
            cli_error(capsys, ["simulate", "toy", "--alpha", "2", "--repetitions", "5", "-o", tmp_path / "o"],
                      ("--alpha",))

    def test_regression_cli_existing_file_for_directory(self, capsys, tmp_path):
        target = tmp_path / "file"
        target.write_text("x")
        with forbid_computation():
            cli_error(capsys, ["simulate", "toy", "--repetitions", "5", "-o", target], (str(target),))

    def test_regression_cli_one_dataset_all_pairs(self, tmp_path, capsys):
        """--all-pairs on one data set: an error, or a warning on stderr that says so."""
        frame = scores_frame(np.random.default_rng(12), ["only"], ["P", "Q", "R"], 1, 10)
        path = tmp_path / "one.csv"
        frame.to_csv(path, index=False)
        try:
            main(["compare", str(path), "--all-pairs"])
        except SystemExit as exc:
            message = exc.code if isinstance(exc.code, str) else capsys.readouterr().err
            assert exc.code not in (0, None) and "data set" in message
        else:
            assert "data set" in capsys.readouterr().err, "no word that there is only one data set"
        ds = quiet(load_scores, frame)
        error_or_warning(lambda: compare_all_pairs(ds, draws=200, random_seed=0), ("data set", "data sets"),
                         ("data set",))

    def test_regression_cli_pairwise_output_has_poisson_test(self, tmp_path, capsys, small_csv):
        """Pairwise -o: stable columns and, per pair, the Poisson test (the headline of the printed output)."""
        out = tmp_path / "pairs.csv"
        cli_ok(capsys, ["compare", small_csv, "--rope", "0.02", "-o", out])
        frame = pd.read_csv(out, keep_default_na=False, na_values=[""])
        required = ["a", "b", "dataset", "mean", "lower", "upper", "p_left", "p_rope", "p_right", "pvalue",
                    "degenerate", "p_b_majority", "p_a_majority", "decision"]
        assert set(required) <= set(frame.columns), f"missing {set(required) - set(frame.columns)}"
        ds = quiet(load_scores, small_csv)
        for (a, b), rows in frame.groupby(["a", "b"]):
            res = quiet(correlated_ttest, ds, algorithms=(str(a), str(b)), rope=0.02)
            expected = pd.DataFrame({"dataset": [str(d) for d in ds.dataset.values], "p_left": res.p_left,
                                     "p_right": res.p_right}).set_index("dataset")
            got = rows.assign(dataset=rows.dataset.astype(str)).set_index("dataset").loc[expected.index]
            assert_close(got.p_left, expected.p_left, f"{a}, {b}: p_left is P({a} better)", rtol=1e-9)
            assert_close(got.p_right, expected.p_right, f"{a}, {b}: p_right is P({b} better)", rtol=1e-9)
            poi = quiet(poisson_test, ds, algorithms=(str(a), str(b)), rope=0.02)
            assert_close(rows.p_b_majority, poi.p_b_majority, "p_b_majority", rtol=1e-9)
            assert_close(rows.p_a_majority, poi.p_a_majority, "p_a_majority", rtol=1e-9)
            assert set(rows.decision.astype(str)) == {str(poi.decision())}
        out_json = tmp_path / "pairs.json"
        cli_ok(capsys, ["compare", small_csv, "-o", out_json])
        text = out_json.read_text()
        strict_json(text)
        assert "p_b_majority" in text and "p_a_majority" in text

    def test_regression_cli_csv_stable_columns(self, tmp_path, capsys, small_csv):
        """Columns do not depend on the algorithms' names; p_left is always P(a better)."""
        out = tmp_path / "two.csv"
        cli_ok(capsys, ["compare", small_csv, "-a", "Q", "-b", "P", "-o", out])
        frame = pd.read_csv(out)
        assert not any("P(" in c for c in frame.columns), f"columns named after algorithms: {list(frame.columns)}"
        assert {"p_left", "p_rope", "p_right"} <= set(frame.columns)
        assert set(frame.a) == {"Q"} and set(frame.b) == {"P"}
        assert_sums_to_one(frame.p_left, frame.p_rope, frame.p_right)

    def test_regression_cli_json_no_bare_nan(self, tmp_path, capsys):
        """Degenerate data sets (A = B on every fold) produce NaN statistics: JSON has null, never bare NaN."""
        frame = scores_frame(np.random.default_rng(13), ["d1", "d2", "d3"], ["A", "B", "C"], 1, 5)
        same = frame.algorithm.eq("B") & frame.dataset.eq("d1")
        frame.loc[same, "score"] = frame.loc[frame.algorithm.eq("A") & frame.dataset.eq("d1"), "score"].values
        path = tmp_path / "degenerate.csv"
        frame.to_csv(path, index=False)
        for argv in (["-a", "A", "-b", "B"], [], ["--all-pairs"]):
            out = tmp_path / f"out{len(argv)}.json"
            cli_ok(capsys, ["compare", path, *argv, "-o", out])
            strict_json(out.read_text())

    def test_regression_cli_lower_is_better(self, tmp_path, capsys):
        frame = scores_frame(np.random.default_rng(14), ["d1", "d2", "d3"], ["A", "B"], 1, 10)
        frame["score"] = (1 - frame.score).round(3)
        errors, negated = tmp_path / "errors.csv", tmp_path / "negated.csv"
        frame.to_csv(errors, index=False)
        frame.assign(score=-frame.score).to_csv(negated, index=False)
        one, two = tmp_path / "one.csv", tmp_path / "two.csv"
        cli_ok(capsys, ["compare", errors, "-a", "A", "-b", "B", "--lower-is-better", "-o", one])
        cli_ok(capsys, ["compare", negated, "-a", "A", "-b", "B", "-o", two])
        a, b = pd.read_csv(one), pd.read_csv(two)
        assert_close(a.p_right, b.p_right, "--lower-is-better = the negated scores")

    def test_regression_simulate_output_atomic_and_replacement_said(self, tmp_path, capsys):
        """simulate -o: a later write that fails leaves nothing behind; replacing existing files is said."""
        out = tmp_path / "sim"
        cli_ok(capsys, ["simulate", "toy", "--repetitions", "20", "--no-progress", "-o", out])
        written = sorted(p.name for p in out.iterdir())
        assert written, "nothing written"
        captured = cli_ok(capsys, ["simulate", "toy", "--repetitions", "20", "--no-progress", "-o", out])
        said = (captured.out + captured.err).lower()
        assert "replac" in said or "overwr" in said, f"existing files replaced without a word: {said[-300:]!r}"
        for blocked in written:
            fresh = tmp_path / f"fresh_{blocked}"
            fresh.mkdir()
            (fresh / blocked).mkdir()  # a directory where one of the files goes: that write fails
            cli_error(capsys, ["simulate", "toy", "--repetitions", "20", "--no-progress", "-o", fresh],
                      (str(fresh / blocked), blocked, str(fresh)))
            assert sorted(p.name for p in fresh.iterdir()) == [blocked], \
                f"partial result left behind: {sorted(p.name for p in fresh.iterdir())}"

    def test_regression_simulate_workers_capped(self, monkeypatch):
        """--workers 100 started a process per task: at most as many processes as cores."""
        import multiprocessing.process

        from pp_corr.studies.simulation import bayesian_network_study

        started = []
        original = multiprocessing.process.BaseProcess.start

        def counting_start(self):
            started.append(self)
            return original(self)

        monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", counting_start)
        res = bayesian_network_study([0.0, 0.01, 0.02], runs=(1,), n_datasets=5, repetitions=2, workers=100,
                                     progressbar=False, random_seed=0)
        assert res.sizes["delta"] == 3
        assert len(started) <= (os.cpu_count() or 1), f"{len(started)} processes on {os.cpu_count()} cores"

    def test_regression_simulate_repetitions_too_many(self):
        """--repetitions 100000000 grew to gigabytes before any result: refused at once with a clear message."""
        proc = run_limited([sys.executable, "-c", "import sys; from pp_corr.cli import main; "
                             "sys.exit(main(['simulate', 'experiment1', '--repetitions', '100000000', '--no-progress',"
                             " '--workers', '1']))"], timeout=90, memory_gb=3)
        assert proc.returncode != 0, "accepted"
        lines = proc.stderr.strip().splitlines()
        assert lines and lines[-1].startswith("pp-corr") and "repetitions" in lines[-1], proc.stderr[-1500:]
        assert "Traceback" not in proc.stderr

    def test_cli_demo_refuses_bad_rope(self, capsys):
        with forbid_computation():
            for rope in ("nan", "-1", "inf"):
                cli_error(capsys, ["demo", f"--rope={rope}"], ("--rope", "rope"))

    @pytest.mark.slow
    def test_regression_cli_hierarchical_writes_output_and_progress_to_stderr(self, small_csv, tmp_path):
        """compare --hierarchical -o out.json wrote nothing: it writes the fit; progress never goes to stdout."""
        out = tmp_path / "hier.json"
        proc = run_limited([sys.executable, "-c",
                            "import sys; from pp_corr.cli import main; sys.exit(main(sys.argv[1:]))",
                             "compare", str(small_csv), "-a", "P", "-b", "Q", "--hierarchical", "-o", str(out)],
                            timeout=900, memory_gb=6)
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert out.is_file(), "no output written"
        text = out.read_text()
        strict_json(text)
        assert "delta0" in text or "hierarchical" in text.lower(), text[:500]
        for mark in ("Sampling", "draws/s", "%|", "━", "it/s"):
            assert mark not in proc.stdout, f"progress ({mark!r}) in stdout"
