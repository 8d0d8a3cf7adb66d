import itertools

import numpy as np
import pytest

from pp_corr import compare_all_pairs, example_path, load_scores, poisson_test, wilcoxon_test
from pp_corr.cli import main


@pytest.fixture(scope="module")
def table(uci54):
    return compare_all_pairs(uci54, rope=0.0, draws=20_000, random_seed=0)


def test_matrix_matches_pairwise_tests(table, uci54):
    assert table.p_b_majority.dims == ("a", "b") and table.sizes == {"a": 5, "b": 5}
    pt = poisson_test(uci54, algorithms=("nbc", "hnb"))
    assert table.p_b_majority.sel(a="nbc", b="hnb") == pt.p_b_majority
    assert table.p_b_majority.sel(a="hnb", b="nbc") == pt.p_a_majority
    np.testing.assert_array_equal(table.decision_poisson.values, table.decision_poisson.values.T)
    assert np.isnan(np.diag(table.p_b_majority)).all()
    assert table.decision_poisson.sel(a="nbc", b="hnb") == "hnb"


def test_without_rope_the_sides_are_complements(table):
    p = table.p_b_majority.values  # .values: xarray would align a transpose back by dimension names
    off = ~np.eye(5, dtype=bool)
    assert ((p + p.T)[off] <= 1 + 1e-12).all()
    sr = table.signed_rank_right.values
    np.testing.assert_allclose((sr + sr.T)[off], 1, atol=1e-9)


def test_cli_all_pairs(uci54, capsys):  # the fixture skips when the data are absent
    from tests.conftest import UCI54

    main(["compare", str(UCI54), "--column", "score=accuracy", "--all-pairs", "--rope", "0"])
    out = capsys.readouterr().out
    assert "P(column better than row on a majority of 54 data sets)" in out and "wilcoxon" in out
    assert out.count("hnb") >= 8


def test_plot_pairs_writes_each_decision():
    from pp_corr import plots

    table = compare_all_pairs(load_scores(example_path()), draws=2000, random_seed=0)
    ax = plots.plot_pairs(table, test="wilcoxon")
    cells = [t.get_text() for t in ax.texts]
    names, p = list(table.a.values), table.wilcoxon_pvalue.values
    words = [{names[i]: "row better", names[j]: "column better", "none": "no decision"}[verdict]
             for (i, j), verdict in np.ndenumerate(table.decision_wilcoxon.values) if i != j]
    pvalues = [f"p = {min(p[i, j], p[j, i]):.2g}" for i in range(4) for j in range(4) if i != j]
    assert cells == [text for pair in zip(words, pvalues) for text in pair]
    with pytest.raises(ValueError, match="test must be one of"):
        plots.plot_pairs(table, test="friedman")


@pytest.mark.parametrize("kwargs, name", [({"alpha": 1.0}, "alpha"), ({"alpha": float("nan")}, "alpha"),
                                          ({"alpha": 0}, "alpha"), ({"rope": float("inf")}, "rope"),
                                          ({"rope": -0.1}, "rope"), ({"draws": 0}, "draws")])
def test_regression_all_pairs_parameters_named(kwargs, name):
    with pytest.raises((ValueError, TypeError), match=name):
        compare_all_pairs(load_scores(example_path()), **kwargs)


def test_regression_all_pairs_empty_problems():
    scores = load_scores(example_path())
    with pytest.raises(ValueError, match="across data sets"):
        compare_all_pairs(scores.isel(dataset=[0]))
    with pytest.raises(ValueError, match="at least 2 algorithms"):
        compare_all_pairs(scores.isel(algorithm=[0]))


def test_all_pairs_use_the_data_sets_where_both_have_scores():
    """knn not run on 'iris': its three pairs use 3 data sets, each equal to its Poisson test on them and saying so
    in the table and in the text; the other pairs keep the complete data's numbers exactly."""
    from pp_corr import format_pairs

    scores = load_scores(example_path())
    gappy = scores.copy(deep=True)
    gappy["score"] = gappy.score.where(~((gappy.dataset == "iris") & (gappy.algorithm == "knn")))
    table = compare_all_pairs(gappy, draws=500, random_seed=0)
    complete = compare_all_pairs(scores, draws=500, random_seed=0)
    others = [a for a in table.a.values if a != "knn"]
    for name in ("p_b_majority", "wilcoxon_pvalue"):
        np.testing.assert_array_equal(table[name].sel(a=others, b=others), complete[name].sel(a=others, b=others))
    for other in others:
        restricted = poisson_test(scores.isel(dataset=[1, 2, 3]), algorithms=(other, "knn"), rope=0.01)
        assert table.p_b_majority.sel(a=other, b="knn") == restricted.p_b_majority
        assert table.n_datasets.sel(a=other, b="knn") == table.n_datasets.sel(a="knn", b=other) == 3
        assert table.left_out.sel(a="knn", b=other) == "iris"
    assert (table.n_datasets.sel(a=others, b=others) == 4).all()
    assert (table.left_out.sel(a=others, b=others) == "").all()
    text = format_pairs(table)
    assert text.splitlines()[0].startswith("P(column better than row on a majority of 4 data sets (fewer for the "
                                           "pairs listed at the end))")
    assert text.endswith("Data sets left out (a pair uses the data sets where both have scores):\n"
                         "  naive_bayes and knn: 3 data sets used, left out: iris\n"
                         "  logistic and knn: 3 data sets used, left out: iris\n"
                         "  tree and knn: 3 data sets used, left out: iris")
    assert "left out" not in format_pairs(complete) and "fewer" not in format_pairs(complete)


@pytest.mark.filterwarnings("ignore::pp_corr.DegenerateWarning")  # uci54's data sets where two algorithms tie
def test_uci54_with_a_tenth_of_its_cells_missing_equals_the_complete_data_where_both_are_present(uci54_gappy, uci54):
    """27 of uci54's 270 (data set, algorithm) cells removed at random: every pair's Poisson and Wilcoxon answers are
    the complete data's on the data sets where both have scores, exactly, the data sets left out are those the mask
    removed, and every data set is still used by some pair."""
    gappy, mask = uci54_gappy
    table = compare_all_pairs(gappy, rope=0.01, draws=500, random_seed=0)
    used = set()
    for a, b in itertools.combinations([str(v) for v in uci54.algorithm.values], 2):
        both = (mask.sel(algorithm=a) & mask.sel(algorithm=b)).values
        kept = uci54.isel(dataset=np.flatnonzero(both))
        oracle = poisson_test(kept, algorithms=(a, b), rope=0.01)
        assert table.p_b_majority.sel(a=a, b=b) == oracle.p_b_majority
        assert table.p_b_majority.sel(a=b, b=a) == oracle.p_a_majority
        assert table.wilcoxon_pvalue.sel(a=a, b=b) == wilcoxon_test(kept, algorithms=(a, b),
                                                                    alternative="greater").pvalue
        assert table.left_out.sel(a=a, b=b) == ", ".join(uci54.dataset.values[~both])
        assert int(table.n_datasets.sel(a=a, b=b)) == both.sum()
        used |= set(kept.dataset.values.tolist())
    assert used == set(uci54.dataset.values.tolist())
