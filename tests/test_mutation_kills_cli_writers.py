"""What the command line writes and prints for a pair: ``pair_record`` (the JSON of ``pp-corr compare -o``) and
``format_table`` (the printed per-data-set table), and the options ``compare`` passes on (issue #19, mutation
survivors). Expected numbers: the enumerated Poisson test of tests/test_oracles_poisson.py and the Student-t
posterior written there."""
import json
import re
import warnings

import numpy as np
import pytest
from scipy import stats

from pp_corr import NormalGamma, correlated_ttest, poisson_test
from pp_corr.cli import _write_figures, format_table, main, pair_record
from pp_corr.pairwise.ttest import DegenerateWarning
from tests.test_oracles_poisson import FOLDS, RHO, count_distribution, make_differences, posterior_tails

Q = 4
ROPE = 0.004


@pytest.fixture(scope="module")
def x():
    return make_differences(Q, seed=11)


def test_pair_record_keys_and_values(x):
    d = pair_record(poisson_test(x, folds=FOLDS, rope=ROPE, alpha=0.2, names=("svm", "knn")))
    assert list(d) == ["a", "b", "rope", "rho", "prior", "alpha", "n_datasets", "p_b_majority", "p_a_majority",
                       "decision", "results"]
    p_right, p_left = posterior_tails(x, ROPE)
    majority = np.arange(Q + 1) > Q / 2
    p_b, p_a = (count_distribution(p)[majority].sum() for p in (p_right, p_left))
    rule = "knn" if p_b > 0.8 else "svm" if p_a > 0.8 else "none"
    assert (d["a"], d["b"], d["rope"], d["rho"], d["prior"], d["alpha"], d["n_datasets"], d["decision"]) == \
        ("svm", "knn", (-ROPE, ROPE), 1 / FOLDS, "matching", 0.2, Q, rule)
    assert (d["p_b_majority"], d["p_a_majority"]) == pytest.approx((p_b, p_a), rel=1e-10)
    assert [r["dataset"] for r in d["results"]] == [f"D{i + 1}" for i in range(Q)]
    assert [r["p_right"] for r in d["results"]] == pytest.approx(p_right.tolist(), rel=1e-10)
    assert [r["p_left"] for r in d["results"]] == pytest.approx(p_left.tolist(), rel=1e-10)


def test_pair_record_of_a_proper_prior_and_rho_per_data_set(x):
    prior = NormalGamma(0.0, 2.0, 3.0, 0.001)
    d = pair_record(poisson_test(x, rho=[0.1, 0.2, 0.1, 0.25], prior=prior))
    assert d["prior"] == {"mu0": 0.0, "k0": 2.0, "a": 3.0, "b": 0.001}
    assert d["rho"] == [0.1, 0.2, 0.1, 0.25] and d["rope"] is None


def test_format_table_marks_point_masses_and_names_the_prior(x):
    data = np.vstack([x[:2], np.full((1, FOLDS), 0.01)])   # D3: every difference equal -> a point mass
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateWarning)
        text = format_table(correlated_ttest(data, folds=FOLDS, names=("svm", "knn")))
    lines = text.splitlines()
    assert lines[0] == "knn - svm (positive: knn better), rope None, prior matching"
    assert [line.split()[0] for line in lines[2:5]] == ["D1", "D2", "D3*"]
    assert lines[4].split()[1:] == ["+0.0100", "[+0.0100,", "+0.0100]", "0.000", "0.000", "1.000"]
    assert lines[5:] == ["* all differences equal: the posterior is a point mass"]
    prior = NormalGamma(0.0, 2.0, 3.0, 0.001)
    plain = format_table(correlated_ttest(x, folds=FOLDS, prior=prior)).splitlines()
    assert plain[0] == f"B - A (positive: B better), rope None, prior {prior!r}"
    assert [line.split()[0] for line in plain[3:]] == [f"D{i + 1}" for i in range(Q)]   # no point mass, no note


def write_scores(path, encoding):
    """Tidy scores of two algorithms on two data sets, one named with a non-ASCII letter, in ``encoding``."""
    rng = np.random.default_rng(3)
    rows = ["dataset,algorithm,run,fold,score"]
    for dataset in ("café", "iris"):
        for algorithm, shift in (("a", 0.0), ("b", 0.01)):
            rows += [f"{dataset},{algorithm},1,{fold},{0.8 + shift + 0.02 * rng.standard_normal():.6f}"
                     for fold in range(1, 6)]
    path.write_text("\n".join(rows) + "\n", encoding=encoding)


def test_compare_reads_the_file_in_the_given_encoding_with_the_given_prior(tmp_path, capsys):
    source, out = tmp_path / "scores.csv", tmp_path / "out.json"
    write_scores(source, "cp1252")
    assert "café".encode("cp1252") in source.read_bytes() and "café".encode("utf-8") not in source.read_bytes()
    main(["compare", str(source), "--encoding", "cp1252", "--prior", "0,2,3,0.001", "-o", str(out)])
    capsys.readouterr()
    (record,) = json.loads(out.read_text())
    assert [r["dataset"] for r in record["results"]] == ["café", "iris"]
    assert record["prior"] == {"mu0": 0.0, "k0": 2.0, "a": 3.0, "b": 0.001}


# ---- compare's pair and all-pairs paths and simulate (issue #19, second session) -------------------------------------

def write_differences(path, x, first="knn"):
    """Tidy scores whose knn - svm differences are the rows of x (one run of FOLDS folds a data set), knn's rows
    written first unless ``first`` says otherwise, so that the file's own order is not the pair's."""
    rows = ["dataset,algorithm,run,fold,score"]
    for algorithm in ((first, "svm" if first == "knn" else "knn")):
        for i, row in enumerate(x):
            rows += [f"D{i + 1},{algorithm},1,{f + 1},{float(0.5 + (v if algorithm == 'knn' else 0.0))!r}"
                     for f, v in enumerate(row)]
    path.write_text("\n".join(rows) + "\n")


def test_compare_writes_the_enumerated_poisson_test_with_the_options_given(x, tmp_path, capsys):
    source, out = tmp_path / "scores.csv", tmp_path / "out.json"
    write_differences(source, x)
    main(["compare", str(source), "-a", "svm", "-b", "knn", "--rope", "0.004", "--alpha", "0.2", "-o", str(out)])
    printed = capsys.readouterr().out
    (d,) = json.loads(out.read_text())
    p_right, p_left = posterior_tails(x, ROPE)
    majority = np.arange(Q + 1) > Q / 2
    p_b, p_a = (count_distribution(p)[majority].sum() for p in (p_right, p_left))
    assert (d["a"], d["b"], d["rope"], d["alpha"], d["prior"]) == ("svm", "knn", [-ROPE, ROPE], 0.2, "matching")
    assert (d["p_b_majority"], d["p_a_majority"]) == pytest.approx((p_b, p_a), rel=1e-9)
    assert d["decision"] == ("knn" if p_b > 0.8 else "svm" if p_a > 0.8 else "none")
    assert [r["p_right"] for r in d["results"]] == pytest.approx(p_right.tolist(), rel=1e-9)
    assert f"Poisson test, knn vs svm on {Q} data sets" in printed


def test_compare_prints_the_poisson_summary_from_two_data_sets_and_no_point_mass_warning(x, tmp_path, capsys):
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


def test_compare_all_pairs_passes_rope_alpha_and_seed_on_two_data_sets(x, tmp_path, capsys):
    source = tmp_path / "scores.csv"
    write_differences(source, x[:2])
    outs = [tmp_path / f"pairs{i}.json" for i in range(2)]
    for out in outs:
        main(["compare", str(source), "--all-pairs", "--rope", "0.004", "--alpha", "0.3", "--seed", "5",
              "-o", str(out)])
    capsys.readouterr()
    first, second = (json.loads(out.read_text()) for out in outs)
    assert first == second                      # the seed reaches the Bayesian tests
    assert (first["attrs"]["rope"], first["attrs"]["alpha"], first["attrs"]["n_datasets"]) == (ROPE, 0.3, 2)
    (row,) = [r for r in first["pairs"] if (r["a"], r["b"]) == ("svm", "knn")]
    p_right, _ = posterior_tails(x[:2], ROPE)
    assert row["p_b_majority"] == pytest.approx(np.prod(p_right), rel=1e-9)   # a majority of 2 is both



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


def test_compare_all_pairs_passes_the_prior(x, tmp_path, capsys):
    """--all-pairs with --prior (cli _compare 66 at 06c77b0 dropped it): P(B better on both data sets) is the
    product of the two proper-prior tails (the matching prior's differ by about 2% here)."""
    source, out = tmp_path / "scores.csv", tmp_path / "pairs.json"
    write_differences(source, x[:2])
    main(["compare", str(source), "--all-pairs", "--rope", "0.004", "--prior", "0,2,3,0.001", "-o", str(out)])
    capsys.readouterr()
    (row,) = [r for r in json.loads(out.read_text())["pairs"] if (r["a"], r["b"]) == ("svm", "knn")]
    p_right = proper_prior_tail(x[:2], (0.0, 2.0, 3.0, 0.001), ROPE)
    assert row["p_b_majority"] == pytest.approx(np.prod(p_right), rel=1e-9)
    assert row["p_b_majority"] != pytest.approx(np.prod(posterior_tails(x[:2], ROPE)[0]), rel=1e-3)

def test_format_rates_prints_every_rate_and_its_standard_error():
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


def test_simulate_passes_seed_alpha_and_writes_the_rates_as_plain_columns(tmp_path, capsys):
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


# ---- fifth session (mutants at 01ffeae): the studies' options reach them, and every file holds what they computed --

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


@pytest.mark.parametrize("options, execution", EXECUTION)
def test_simulate_signed_rank_passes_every_option_to_the_study(monkeypatch, capsys, options, execution):
    from pp_corr.studies import signed_rank_study

    calls, _ = spy(monkeypatch, signed_rank_study, "signed_rank_study", deltas=[0.0, 0.05], correlations=[0.5],
                   n_datasets=5)
    main(["simulate", "signed-rank", "--repetitions", "3", "--draws", "40", "--seed", "2"] + options)
    assert calls == [dict(runs=3, draws=40, random_seed=2, **execution)]
    assert "3 runs per Delta, 40 Dirichlet draws" in capsys.readouterr().out


def test_simulate_signed_rank_runs_1000_times_by_default_and_every_table_takes_the_alpha_given(monkeypatch, capsys):
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
def test_simulate_nadeau_bengio_passes_every_option_and_writes_its_results(tmp_path, monkeypatch, options,
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


def test_two_figures_for_one_file_are_refused_naming_plots_and_the_file(tmp_path):
    """Two figures with one stem (algorithms whose safe names coincide) would overwrite each other: the error names
    the option and the file, and nothing is written."""
    def draw():
        raise AssertionError("no figure may be drawn")

    message = f"--plots: two figures would both be written to {tmp_path / 'a.svg'}"
    with pytest.raises(ValueError, match=re.escape(message)):
        _write_figures(tmp_path, ["svg"], [("a", draw), ("a", draw)])
    assert list(tmp_path.iterdir()) == []


def test_an_unknown_plot_dataset_is_refused_before_any_analysis(tmp_path, monkeypatch, capsys):
    """--plot-dataset names a data set of the file, checked before the tests run and before -o writes anything
    (_compare 47 dropped the check: the pair was analysed and written, then the figures failed)."""
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


# ---- sixth session: compare --hierarchical's plumbing, with a test double in place of the PyMC fits ------------------

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


def test_compare_hierarchical_receives_the_scores_pairs_options_and_files(tmp_path, monkeypatch):
    """_compare hands _compare_hierarchical the loaded scores, the pairs asked for, the options and both
    destinations (_compare 54-63 at 01ffeae: each argument None or dropped)."""
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
def test_compare_hierarchical_passes_its_options_and_prints_and_writes_each_fit(tmp_path, monkeypatch, capsys,
                                                                               allow):
    """Every option reaches the fits; a converged pair's summary and table are printed, an unconverged one's
    numbers only with --allow-unconverged; the JSON holds every pair's record in order; without
    --allow-unconverged the exit status is UNCONVERGED and stderr names the failed pair (B - A)."""
    import pp_corr.cli

    converged = {("a", "b"): True, ("a", "c"): False, ("b", "c"): True}
    calls = fake_fits(monkeypatch, converged)
    figures = []
    monkeypatch.setattr(pp_corr.cli, "_write_figures", lambda d, f, figs: figures.append((d, f, [s for s, _ in figs])))
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


def test_compare_hierarchical_writes_every_fit_to_csv(tmp_path, monkeypatch, capsys):
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


def test_compare_hierarchical_fits_the_loaded_scores_and_prints_each_table_to_4_decimals(tmp_path, monkeypatch,
                                                                                        capsys):
    """The fits get the scores _compare loaded, and each pair's per-data-set table is printed rounded to 4 decimals
    (_compare_hierarchical 3: the scores None; 42: round(5))."""
    import pandas as pd
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


def test_compare_hierarchical_draws_each_shown_fit_from_its_result_with_the_seed(tmp_path, monkeypatch, capsys):
    """Each figure _compare_hierarchical hands _write_figures draws its own pair's result, the posterior predictive
    one with --seed (_compare_hierarchical 71, 73, 80, 83: the result None or dropped; 81, 84: the seed None or
    dropped)."""
    import pp_corr.cli
    import pp_corr.plots

    fake_fits(monkeypatch, {("a", "b"): True, ("a", "c"): False, ("b", "c"): True})
    monkeypatch.setattr(pp_corr.plots, "plot_shrinkage", lambda result, **kw: ("shrinkage", result.names, kw))
    monkeypatch.setattr(pp_corr.plots, "plot_posterior_predictive",
                        lambda result, **kw: ("predictive", result.names, kw))
    drawn = []
    monkeypatch.setattr(pp_corr.cli, "_write_figures",
                        lambda d, f, figs: drawn.extend((stem, draw()) for stem, draw in figs))
    source = tmp_path / "scores.csv"
    write_three(source)
    with pytest.raises(SystemExit):   # a - c did not converge: no figures for it
        main(["compare", str(source), "--hierarchical", "--seed", "7", "--plots", str(tmp_path / "figs")])
    capsys.readouterr()
    assert drawn == [item for a, b in (("a", "b"), ("b", "c")) for item in (
        (f"shrinkage_{a}_vs_{b}", ("shrinkage", (a, b), {})),
        (f"posterior_predictive_{a}_vs_{b}", ("predictive", (a, b), {"random_seed": 7})))]


def test_compare_all_pairs_draws_each_test_best_first_in_the_formats_asked(tmp_path, monkeypatch, capsys):
    """--all-pairs --plots: one figure a test, each drawing its own test with the algorithms best first, in every
    --plot-format (_compare 108: the formats dropped; 116, 120: the order None or dropped; 119: the test dropped)."""
    import pp_corr.cli
    import pp_corr.plots

    rows = ["dataset,algorithm,run,fold,score"]   # c beats b beats a on every data set
    rows += [f"{d},{a},1,{f},{level + 0.001 * f:.3f}" for d in ("d1", "d2", "d3")
             for a, level in (("a", 0.7), ("b", 0.8), ("c", 0.9)) for f in range(1, 6)]
    source = tmp_path / "scores.csv"
    source.write_text("\n".join(rows) + "\n")
    monkeypatch.setattr(pp_corr.plots, "plot_pairs", lambda table, **kw: kw)
    written = []
    monkeypatch.setattr(pp_corr.cli, "_write_figures",
                        lambda d, f, figs: written.append((f, [(stem, draw()) for stem, draw in figs])))
    main(["compare", str(source), "--all-pairs", "--plots", str(tmp_path / "figs"), "--plot-format", "svg",
          "--plot-format", "pdf"])
    capsys.readouterr()
    tests = ["poisson", "signed_rank", "sign", "wilcoxon"]
    assert written == [(["svg", "pdf"], [(f"pairs_{t}", {"test": t, "order": ["c", "b", "a"]}) for t in tests])]


def test_compare_pair_figures_get_the_rope_and_seed(tmp_path, monkeypatch, capsys):
    """A pair's figures (its signed-rank simplex is sampled) are made with --rope and --seed (_compare 175, 176:
    either None)."""
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


# ---- sixth session, format_rates and _simulate (mutants at 7c3c991) -----------------------------------------------

def rates_of(values, dims, coords, alpha=0.1, repetitions=16):
    """A rates Dataset as ``rejection_rates`` returns it, with the rates given and se = sqrt(r (1 - r) / n)."""
    import xarray as xr

    rate = xr.DataArray(values, dims=dims, coords=coords)
    return xr.Dataset({"rate": rate, "se": np.sqrt(rate * (1 - rate) / repetitions)},
                      attrs={"study": "S", "a": "zeroR", "b": "BN-hat", "alpha": alpha, "repetitions": repetitions})


def cell(rate, n=16):
    return f"{rate:.3f} ({np.sqrt(rate * (1 - rate) / n):.3f})"


def test_format_rates_has_one_column_per_test_and_number_of_runs():
    """The documented layout: a column per (test, runs), a row per other setting (format_rates 22-26, 29: the tests
    or the runs put in the rows, or every cell in one column). Rates k / 16 of 16 repetitions, each cell
    written here."""
    from pp_corr.cli import format_rates

    values = np.arange(16).reshape(2, 2, 2, 2) / 16    # (test, delta, runs, n_datasets)
    rates = rates_of(values, ("test", "delta", "runs", "n_datasets"),
                     {"test": ["poisson", "wilcoxon"], "delta": [0.0, 0.05], "runs": [1, 10], "n_datasets": [50, 25]})
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


def test_format_rates_without_runs_has_one_column_per_test():
    """The toy example's rates have no runs: the tests across, the cases down."""
    from pp_corr.cli import format_rates

    values = np.array([[0.125, 0.25], [0.5, 0.875]])   # (test, case)
    rates = rates_of(values, ("test", "case"), {"test": ["poisson", "wilcoxon"], "case": [1, 2]})
    lines = format_rates(rates).splitlines()
    assert lines[1].split() == ["test", "poisson", "wilcoxon"] and lines[2].split() == ["case"]
    assert [line.split() for line in lines[3:]] == [[str(c + 1)] + " ".join(cell(values[t, c]) for t in range(2))
                                                     .split() for c in range(2)]


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


@pytest.mark.parametrize("study", list(STUDIES))
@pytest.mark.parametrize("options, execution", EXECUTION)
def test_simulate_runs_the_study_named_with_every_option(monkeypatch, capsys, study, options, execution):
    """Each study gets the repetitions, seed, scheduler, workers and progress asked (_simulate 32, 37: the
    scheduler None or dropped; 48, 51, 52: experiment1 ran experiment 2)."""
    calls, _ = spy_study(monkeypatch, study)
    main(["simulate", study, "--repetitions", "6", "--seed", "5"] + options)
    assert calls == [dict(repetitions=6, random_seed=5, **execution)]
    assert ", 6 repetitions;" in capsys.readouterr().out


def test_simulate_runs_5000_repetitions_by_default(monkeypatch, capsys):
    """(_simulate 41: 5001.) The spy runs 6 repetitions whatever it is asked."""
    calls, _ = spy_study(monkeypatch, "toy", repetitions=6)
    main(["simulate", "toy", "--workers", "1", "--no-progress"])
    assert calls[0]["repetitions"] == 5000
    capsys.readouterr()


def test_simulate_experiment_draws_one_figure_per_number_of_data_sets(tmp_path, monkeypatch, capsys):
    """Experiment 2 (q = 50 and 25) with -o: a figure per q, each of that q's rates only (_simulate 68-71), and the
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
