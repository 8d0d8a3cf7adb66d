"""Replicability over subsets of data sets: decisions against scipy's Wilcoxon and the Poisson test run on each
subset, R against its formula, and on a small enumerable case against the exact replicability of a uniformly
drawn subset; the command line."""
import itertools
import time

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from pp_corr import load_scores, poisson_test
from pp_corr.cli import main
from pp_corr.studies.replicability import (one_sided_wilcoxon, replicability, replicability_decisions,
                                           replicability_table)
from pp_corr.data.scores import mean_differences


@pytest.fixture(scope="module")
def small_scores():
    """8 data sets, three algorithms, 10 folds; C better than A on most data sets, B close to A."""
    rng = np.random.default_rng(11)
    gaps = np.array([0.03, 0.02, -0.01, 0.04, 0.01, -0.02, 0.05, 0.015])
    base = rng.uniform(0.7, 0.9, (8, 1)) + rng.normal(0, 0.02, (8, 10))
    arrays = {"A": base, "B": base + rng.normal(0.0, 0.01, (8, 10)), "C": base + gaps[:, None]
              + rng.normal(0, 0.02, (8, 10))}
    return load_scores(arrays, folds=10, datasets=[f"d{i}" for i in range(8)])


def formula(e):
    e = np.asarray(e, dtype=float)
    return 1 - 2 * sum((v - e.mean()) ** 2 for v in e) / (len(e) - 1)


def test_decisions_equal_the_tests_run_on_each_subset(small_scores):
    dec = replicability_decisions(small_scores, subset_size=6, n_subsets=40, draws=500, random_seed=1)
    for k, pair in enumerate(dec.pair.values):
        a, b = str(dec.a[k].values), str(dec.b[k].values)
        for s in range(0, 40, 3):
            names = [str(v) for v in dec.datasets[s].values]
            subset = small_scores.sel(dataset=names)
            z = mean_differences(subset, algorithms=(a, b))[0]
            expected = stats.wilcoxon(z, zero_method="zsplit", alternative="greater").pvalue < 0.05
            assert bool(dec.wilcoxon_h1[k, s]) == expected, (pair, s)
            assert bool(dec.poisson_h1[k, s]) == (poisson_test(subset, algorithms=(a, b)).p_b_majority > 0.95)
    table = replicability_table(dec)
    for k, pair in enumerate(dec.pair.values):
        determinate = dec.idp_determinate[k].values
        for test in ("wilcoxon", "dp", "poisson"):
            e = dec[f"{test}_h1"][k].values
            assert table.loc[pair, f"R_{test}"] == pytest.approx(formula(e))
            assert table.loc[pair, f"{test}_h1"] == pytest.approx(e.mean())
            if determinate.sum() >= 2:
                assert table.loc[pair, f"R_{test}_determinate"] == pytest.approx(formula(e[determinate]))
        assert table.loc[pair, "idp_indeterminate"] == pytest.approx(1 - determinate.mean())
        # where the IDP decides, the DP decides the same (lower <= DP <= upper on the shared draws)
        assert (dec.dp_h1[k].values[determinate] == dec.idp_h1[k].values[determinate]).all()


def test_replicability_against_the_enumerated_subsets(small_scores):
    """All C(8, 6) = 28 subsets enumerated: with p the share where Wilcoxon decides H1 (scipy on each), a uniform
    draw of K subsets has E[R] = 1 - 2 p (1 - p) exactly; R within 4.5 standard errors (delta method) of it, and
    the subsets drawn uniformly (chi-square)."""
    z = mean_differences(small_scores, algorithms=("A", "C"))[0]
    subsets = list(itertools.combinations(range(8), 6))
    h1 = {s: stats.wilcoxon(z[list(s)], zero_method="zsplit", alternative="greater").pvalue < 0.05 for s in subsets}
    p = np.mean(list(h1.values()))
    assert 0.2 < p < 0.8  # a case where R is informative
    n = 3000
    dec = replicability_decisions(small_scores, pairs=[("A", "C")], subset_size=6, n_subsets=n, draws=200,
                                  random_seed=2)
    names = list(small_scores.dataset.values)
    drawn = [tuple(sorted(names.index(v) for v in row)) for row in dec.datasets.values]
    assert [h1[s] for s in drawn] == dec.wilcoxon_h1[0].values.tolist()
    counts = pd.Series(drawn).value_counts().reindex(subsets, fill_value=0)
    assert stats.chisquare(counts).pvalue > 0.001
    r = replicability_table(dec).R_wilcoxon.iloc[0]
    se = 2 * abs(1 - 2 * p) * np.sqrt(p * (1 - p) / n) + 2 / n
    assert abs(r - (1 - 2 * p * (1 - p))) < 4.5 * se, (r, p)


def test_replicability_formula_edges():
    assert replicability([True] * 5) == 1.0 and replicability([False] * 3) == 1.0
    assert np.isnan(replicability([True]))
    e = [True, False, False, True, True]
    assert replicability(e) == pytest.approx(formula(e))


def test_one_sided_wilcoxon_equals_scipy_row_by_row():
    rng = np.random.default_rng(3)
    z = rng.normal(0.01, 0.03, (200, 15))  # q > 13: scipy's method with ties differs from its method without
    z[::2] = np.round(z[::2], 2)  # ties and zeros in half the rows: scipy picks its method row by row
    z[0] = 0.0
    expected = [1.0 if not row.any() else stats.wilcoxon(row, zero_method="zsplit", alternative="greater").pvalue
                for row in z]
    assert one_sided_wilcoxon(z) == pytest.approx(expected, rel=1e-12)


def test_seeded_and_oriented(small_scores):
    kwargs = dict(subset_size=5, n_subsets=30, draws=200)
    one, two = (replicability_table(replicability_decisions(small_scores, random_seed=4, **kwargs)) for _ in "12")
    pd.testing.assert_frame_equal(one, two)
    other = replicability_decisions(small_scores, random_seed=5, **kwargs)
    assert not (other.datasets.values == replicability_decisions(small_scores, random_seed=4, **kwargs)
                .datasets.values).all()
    means = small_scores.score.mean(["dataset", "run", "fold"])
    reversed_order = small_scores.isel(algorithm=[2, 1, 0])  # combinations in this order need turning round
    for table in (one, replicability_table(replicability_decisions(reversed_order, random_seed=4, **kwargs))):
        for a, b in zip(table.a, table.b):
            assert means.sel(algorithm=b) >= means.sel(algorithm=a)


@pytest.mark.parametrize("kwargs, name", [({"subset_size": 8}, "subset_size"), ({"subset_size": 1}, "subset_size"),
                                          ({"n_subsets": 1}, "n_subsets"), ({"draws": 0}, "draws"),
                                          ({"loss_ratio": 0}, "loss_ratio"), ({"alpha": 1}, "alpha")])
def test_bad_arguments_named(small_scores, kwargs, name):
    with pytest.raises(ValueError, match=name):
        replicability_decisions(small_scores, **{"subset_size": 5, **kwargs})


def test_scores_must_be_a_dataset():
    with pytest.raises(ValueError, match="scores"):
        replicability_decisions(np.zeros((10, 10)))


def test_uci54_every_pair(uci54):
    start = time.perf_counter()
    table = replicability_table(replicability_decisions(uci54, n_subsets=100, draws=1000, random_seed=0))
    assert time.perf_counter() - start < 30
    assert len(table) == 10 and table.filter(like="R_").stack().between(0, 1).all()


def test_cli_writes_the_functions_table(small_scores, tmp_path, capsys):
    csv = tmp_path / "scores.csv"
    small_scores.score.to_dataframe().reset_index().to_csv(csv, index=False)
    out = tmp_path / "table.csv"
    main(["replicability", str(csv), "--subset-size", "6", "--subsets", "30", "--draws", "300", "--seed", "7",
          "-o", str(out)])
    printed = capsys.readouterr().out
    assert "replicability on 30 subsets" in printed
    expected = replicability_table(replicability_decisions(load_scores(csv), subset_size=6, n_subsets=30,
                                                           draws=300, random_seed=7))
    (counts,) = [line.split()[2:] for line in printed.splitlines() if line.startswith("n det.")]
    assert counts == [str(n) for n in expected.n_determinate]  # a count, printed as one
    pd.testing.assert_frame_equal(pd.read_csv(out, index_col="pair"), expected, check_dtype=False)
    main(["replicability", str(csv), "-a", "C", "-b", "A", "--subset-size", "6", "--subsets", "30"])
    assert "A vs C" in capsys.readouterr().out


@pytest.mark.parametrize("argv, needle", [(["--subset-size", "1"], "--subset-size"), (["--subsets", "0"], "--subsets"),
                                          (["-a", "A"], "-b"), (["-o", "x.json"], ".csv")])
def test_cli_bad_options_named(small_scores, tmp_path, capsys, argv, needle):
    csv = tmp_path / "scores.csv"
    small_scores.score.to_dataframe().reset_index().to_csv(csv, index=False)
    with pytest.raises(SystemExit) as exit_:
        main(["replicability", str(csv), *argv])
    assert needle in str(exit_.value.code) + capsys.readouterr().err
