"""pairwise/pairs.py: the all-pairs table against the pairwise tests, and as text: every cell that ``format_pairs``
prints is read back and compared with the table it was given (whose numbers and decisions TestCompareAllPairsOnUci54
below checks against scipy, Dirichlet moments and an enumeration)."""
import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, strategies as st
from scipy import stats

import pp_corr.pairwise.pairs
from pp_corr import (bayesian_signed_rank, compare_all_pairs, example_path, format_pairs, load_scores, poisson_test,
                     wilcoxon_test)
from pp_corr.cli import main
from pp_corr.pairwise.pairs import TESTS
from pp_corr.pairwise.pairs import OneSided
from pp_corr.testing import check_result
from tests.conftest import INF, NAN, assert_close, assert_probability, campaign, check_error, quiet, scores_frame


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


@pytest.fixture(scope="module")
def example_table():
    return compare_all_pairs(load_scores(example_path()), draws=2000, random_seed=0)


def rows_of(block, algorithms):
    """{row name: its cells} of one printed matrix (header, index-name line, then one line per algorithm)."""
    lines = block.splitlines()
    assert lines[1].split() == ["b", *algorithms] and lines[2].split() == ["a"]
    return {line.split()[0]: line.split()[1:] for line in lines[3:]}


def raw_differences(scores, a, b):
    values = scores.score.transpose("dataset", "algorithm", "run", "fold")
    return (values.sel(algorithm=b) - values.sel(algorithm=a)).values.reshape(scores.sizes["dataset"], -1)


class TestFormatPairs:
    def test_every_printed_cell_is_the_tables(self, example_table):
        algorithms = [str(a) for a in example_table.a.values]
        blocks = format_pairs(example_table).split("\n\n")
        assert len(blocks) == 1 + len(TESTS)
        title = "P(column better than row on a majority of 4 data sets), Poisson test, rope 0.01:"
        assert blocks[0].splitlines()[0] == title
        cells = rows_of(blocks[0], algorithms)
        p = example_table.p_b_majority.values
        for i, a in enumerate(algorithms):   # the diagonal is blank, so a row shows the k - 1 other cells
            assert cells[a] == [f"{p[i, j]:.3f}" for j in range(len(algorithms)) if j != i], a
        for block, test in zip(blocks[1:], TESTS):
            assert block.splitlines()[0] == f"Better of the pair at alpha = 0.05 ({test} test):"
            verdicts = rows_of(block, algorithms)
            decisions = example_table[f"decision_{test}"].values
            for i, a in enumerate(algorithms):
                assert verdicts[a] == [decisions[i, j] for j in range(len(algorithms)) if j != i], (test, a)
        assert np.isnan(np.diag(p)).all()

    def test_format_pairs_names_what_it_was_given(self):
        with pytest.raises(TypeError, match="got list$"):
            format_pairs([1, 2])


class TestCompareAllPairs:
    """Its argument checks, its defaults, and alpha, the rope and the size reaching every test."""

    def test_the_rope_is_checked_before_any_test_runs(self, monkeypatch):
        def started(*args, **kwargs):
            raise AssertionError("a test ran before the rope was checked")

        monkeypatch.setattr(pp_corr.pairwise.pairs, "poisson_test", started)
        with pytest.raises(ValueError, match="^rope must be in"):
            compare_all_pairs(load_scores(example_path()), rope=-0.1)

    def test_decisions_are_blank_on_the_diagonal(self, example_table):
        for test in TESTS:
            assert np.diag(example_table[f"decision_{test}"].values).tolist() == [""] * example_table.sizes["a"], test

    def test_one_data_set_is_refused_with_advice(self):
        with pytest.raises(ValueError, match="^compare_all_pairs compares algorithms across data sets, and the scores "
                                             "hold one"):
            compare_all_pairs(load_scores(example_path()).isel(dataset=[0]))

    def test_default_size_is_50000_draws(self):
        scores = load_scores(example_path()).isel(algorithm=[0, 1])
        default = compare_all_pairs(scores, random_seed=4)
        explicit = compare_all_pairs(scores, draws=50_000, random_seed=4)
        for name in ("signed_rank_right", "sign_right"):
            assert default[name].equals(explicit[name]), name

    def test_alpha_and_rope_reach_every_test(self):
        """alpha = 0.004 puts 1 - alpha between the Poisson probabilities of two pairs of the example (0.995 and 0.999),
        and the rope moves the signed-rank probabilities (Dirichlet moments, TestCompareAllPairsOnUci54) and the sign
        test's counts (a Dirichlet mean)."""
        scores, alpha, rope, n = load_scores(example_path()), 0.004, 0.01, 20_000
        table = compare_all_pairs(scores, rope=rope, alpha=alpha, draws=n, random_seed=0)
        rho = float(scores.rho.values.ravel()[0])
        undecided_here = signed_rank_moved = sign_moved = 0
        for a, b in itertools.combinations([str(v) for v in scores.algorithm.values], 2):
            d = raw_differences(scores, a, b)
            p_b, p_a = (majority_probability(sign * d, rho, rope) for sign in (1, -1))
            rule = b if p_b > 1 - alpha else a if p_a > 1 - alpha else "none"
            assert table.decision_poisson.sel(a=a, b=b) == rule, (a, b, p_b, p_a)
            undecided_here += 0.95 < max(p_b, p_a) <= 1 - alpha     # decided at the default alpha = 0.05
            z = mean_differences(d)
            concentration, to_right, _ = signed_rank_terms(z, rope)
            right = (dirichlet_second_moments(concentration) * step(to_right)).sum()
            tolerance = 4 * 0.5 / np.sqrt(n)   # each draw is a probability: sd <= 1/2
            assert abs(float(table.signed_rank_right.sel(a=a, b=b)) - right) <= tolerance, (a, b, right)
            _, without_rope, _ = signed_rank_terms(z, 0.0)
            signed_rank_moved += abs((dirichlet_second_moments(concentration) * step(without_rope)).sum() - right) > \
                3 * tolerance
            counts = np.array([(z < -rope).sum(), (np.abs(z) <= rope).sum() + 1, (z > rope).sum()])   # + the prior
            mean = counts[2] / counts.sum()
            se = np.sqrt(mean * (1 - mean) / (counts.sum() + 1) / n)
            assert abs(float(table.sign_right.sel(a=a, b=b)) - mean) <= 4 * se + 1e-12, (a, b, mean)
            sign_moved += bool(((np.abs(z) <= rope) & (z != 0)).any())   # counted in the rope, not on a side
        assert undecided_here >= 1 and signed_rank_moved >= 1 and sign_moved >= 1

    def test_the_table_records_rope_alpha_size_and_orientation(self):
        """(Its own table, not the module's fixture: mutmut maps a test to the functions it calls itself.)"""
        table = compare_all_pairs(load_scores(example_path()), draws=100, random_seed=0)
        assert table.attrs == {"rope": 0.01, "alpha": 0.05, "n_datasets": 4, "orientation": "b - a: column minus row"}

    def test_one_draw_decides_every_pair(self):
        """With one posterior draw its largest region is largest in all draws, so every pair is decided; with 20,000
        some are not (the example's four data sets leave much in doubt)."""
        scores = load_scores(example_path())
        off = ~np.eye(scores.sizes["algorithm"], dtype=bool)
        one = compare_all_pairs(scores, draws=1, random_seed=0)
        many = compare_all_pairs(scores, draws=20_000, random_seed=0)
        for test in ("signed_rank", "sign"):
            assert (one[f"decision_{test}"].values[off] != "none").all(), test
            assert (many[f"decision_{test}"].values[off] == "none").any(), test

    def test_a_wilcoxon_pvalue_equal_to_alpha_decides_nothing(self):
        """On four data sets the exact one-sided p-value of four positive differences is 1/16; at alpha = 1/16 the
        rule p < alpha declares nothing, on either side of a pair."""
        scores = load_scores(example_path())
        table = compare_all_pairs(scores, alpha=1 / 16, draws=1000, random_seed=0)
        on_alpha_b = on_alpha_a = 0
        for a, b in itertools.combinations([str(v) for v in scores.algorithm.values], 2):
            z = raw_differences(scores, a, b).mean(axis=1)
            p_b, p_a = (stats.wilcoxon(sign * z, zero_method="zsplit", alternative="greater").pvalue
                        for sign in (1, -1))
            rule = b if p_b < 1 / 16 else a if p_a < 1 / 16 else "none"
            assert table.decision_wilcoxon.sel(a=a, b=b) == rule, (a, b, p_b, p_a)
            on_alpha_b, on_alpha_a = on_alpha_b + (p_b == 1 / 16), on_alpha_a + (p_a == 1 / 16)
        assert on_alpha_b >= 1 and on_alpha_a >= 1


# --- bad and extreme inputs (issue #10); independent oracles on uci54 and raw scores (issue #19) --------------------

N_LIB = 20_000      # the library's draws per pair


N_OWN = 20_000      # ours


SIGNED_RANK_PRIOR = 0.5   # documented defaults of the Bayesian signed-rank and sign tests, both at z0 = 0


SIGN_PRIOR = 1.0


def step(v):
    return (v > 0) + 0.5 * (v == 0)


def dirichlet_second_moments(c):
    """E[w_i w_j] of Dir(c): (c_i c_j + c_i [i = j]) / (S (S + 1)), S = sum c."""
    total = c.sum()
    return (np.outer(c, c) + np.diag(c)) / (total * (total + 1))


def mean_differences(d):
    """Per-data-set means, rounded to 1e-12 so that differences that are exactly zero (or exactly opposite) in
    exact arithmetic are so here too, whatever the order of the floating-point sum."""
    return np.round(d.mean(axis=1), 12)


def poisson_binomial_pmf(p):
    pmf = np.array([1.0])
    for pj in p:
        pmf = np.concatenate([pmf * (1 - pj), [0.0]]) + np.concatenate([[0.0], pmf * pj])
    return pmf


def majority_probability(d, rho, rope):
    """P(X > q/2), X = #{data sets with mu_i > rope}, under the matching prior: Student-t posteriors, and a
    point mass at the mean for a data set without variance."""
    n = d.shape[1]
    xbar, s = d.mean(axis=1), d.std(axis=1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = stats.t.sf(rope, n - 1, xbar, s * np.sqrt(1 / n + rho / (1 - rho)))
    point = (xbar > rope) + 0.5 * ((xbar == rope) & (rope == 0))   # P(mu > 0) = 1/2 for a point mass at 0
    p = np.where(s == 0, point, p)
    pmf = poisson_binomial_pmf(p)
    return pmf[np.arange(len(pmf)) > len(p) / 2].sum()


def shares_of_largest(samples):
    """Share of draws in which each of (left, rope, right) is largest, ties shared equally."""
    top = np.isclose(samples, samples.max(axis=1, keepdims=True), rtol=0, atol=1e-12)
    return (top / top.sum(axis=1, keepdims=True)).mean(axis=0)


def mc_margin(alpha):
    """4 standard errors of the difference of two estimates (ours, the library's) of a share near 1 - alpha."""
    return 4 * np.sqrt(alpha * (1 - alpha) * (1 / N_LIB + 1 / N_OWN))


def decision_from_shares(shares, names, alpha, margin):
    """The documented rule: the region largest in more than 1 - alpha of the draws, else "none"; None where
    Monte Carlo error could put a share on either side of 1 - alpha."""
    if (np.abs(shares - (1 - alpha)) < margin).any():
        return None
    labels = (names[0], "rope", names[1])
    best = int(np.argmax(shares))
    return labels[best] if shares[best] > 1 - alpha else "none"


# alpha 0.02 puts the level between shares that alpha 0.05 decides (e.g. hnb vs j48, about 0.97)
@pytest.fixture(scope="module", params=[(0.0, 0.05), (0.01, 0.05), (0.0, 0.02)],
                ids=["no rope", "rope 0.01", "no rope, alpha 0.02"])
def case(request, uci54):
    rope, alpha = request.param
    table = compare_all_pairs(uci54, rope=rope, alpha=alpha, draws=N_LIB, random_seed=0)
    scores = uci54.score.transpose("dataset", "algorithm", "run", "fold").values
    algorithms = list(uci54.algorithm.values)
    q = scores.shape[0]
    diffs = {(a, b): (scores[:, j] - scores[:, i]).reshape(q, -1)
             for (i, a), (j, b) in itertools.permutations(enumerate(algorithms), 2)}
    return rope, alpha, table, diffs, uci54.rho.values


def signed_rank_terms(z, rope):
    """Prior weights and H(z_i + z_j - 2r), H(-z_i - z_j - 2r) over (z0 = 0, z), with the boundary decided in
    exact arithmetic (the pair sums rounded to 1e-12)."""
    points = np.concatenate([[0.0], z])
    concentration = np.concatenate([[SIGNED_RANK_PRIOR], np.ones(len(z))])
    sums = points[:, None] + points[None, :]
    return concentration, np.round(sums - 2 * rope, 12), np.round(-sums - 2 * rope, 12)


class TestCompareAllPairsArguments:
    @pytest.mark.long
    @campaign(25)
    @given(seed=st.integers(0, 2**20), q=st.integers(2, 5), k=st.integers(2, 4), ties=st.booleans(),
           rope=st.sampled_from([0.0, 0.01, 0.05]), alpha=st.sampled_from([0.05, 0.2]))
    def test_compare_all_pairs_answers(self, seed, q, k, ties, rope, alpha):
        rng = np.random.default_rng(seed)
        algorithms = ["P", "Q", "R", "S"][:k]
        frame = scores_frame(rng, [f"d{i}" for i in range(q)], algorithms, 1, 4)
        if ties:  # Q repeats P on the first data set (and everywhere when rope = 0)
            mask = frame.dataset.eq("d0") | (rope == 0)
            frame.loc[mask & frame.algorithm.eq("Q"), "score"] = \
                frame.loc[mask & frame.algorithm.eq("P"), "score"].values
        ds = quiet(load_scores, frame)
        table = quiet(compare_all_pairs, ds, rope=rope, alpha=alpha, draws=300, random_seed=seed)
        off = ~np.eye(k, dtype=bool)
        for var in ("p_b_majority", "wilcoxon_pvalue", "signed_rank_right", "sign_right"):
            assert_probability(var, table[var].values[off])
        for var in [v for v in table.data_vars if v.startswith("decision_")]:
            assert set(table[var].values[off].ravel()) <= set(algorithms) | {"none", "rope"}, var
        a, b = str(table.a.values[0]), str(table.b.values[1])
        assert_close(float(table.p_b_majority.sel(a=a, b=b)),
                     quiet(poisson_test, ds, algorithms=(a, b), rope=rope).p_b_majority,
                     "p_b_majority = poisson_test's")
        text = format_pairs(table)
        assert all(name in text for name in algorithms)

    @campaign(30)
    @given(case=st.sampled_from([("alpha", v) for v in [NAN, 0.0, 1.0, 1.5, -0.1]]
                                + [("rope", v) for v in [NAN, INF, -0.01, "0.01"]]
                                + [("draws", v) for v in [0, -1, 2.5]] + [("prior", 42), ("random_seed", -1)]))
    def test_compare_all_pairs_refuses_bad_arguments(self, case):
        name, value = case
        ds = quiet(load_scores, example_path())
        kwargs = {"draws": 200, "random_seed": 0, name: value}
        check_error(lambda: compare_all_pairs(ds, **kwargs), (name,))

    @campaign(10)
    @given(table=st.sampled_from([42, "table", None, pd.DataFrame({"a": [1]})]))
    def test_format_pairs_refuses_what_is_not_a_table(self, table):
        check_error(lambda: format_pairs(table), ("table",))

    def test_regression_compare_all_pairs_alpha(self):
        ds = quiet(load_scores, example_path())
        for alpha in (0.0, 1.0, 1.5, -0.2, NAN):
            check_error(lambda: compare_all_pairs(ds, alpha=alpha, draws=200, random_seed=0), ("alpha",))


class TestCompareAllPairsOnUci54:
    def test_wilcoxon_pvalues_equal_scipy(self, case):
        _, alpha, table, diffs, _ = case
        checked = 0
        for (a, b), d in diffs.items():
            z = mean_differences(d)
            if (z == 0).any():
                continue   # zero differences: their handling is settled elsewhere
            expected = stats.wilcoxon(z, alternative="greater").pvalue
            assert float(table.wilcoxon_pvalue.sel(a=a, b=b)) == pytest.approx(expected, rel=1e-9), (a, b)
            # the documented rule: the column if its one-sided p-value is below alpha, the row if the reverse is
            reverse = stats.wilcoxon(-z, alternative="greater").pvalue
            rule = b if expected < alpha else a if reverse < alpha else "none"
            assert table.decision_wilcoxon.sel(a=a, b=b) == rule, (a, b)
            checked += 1
        assert checked >= 8

    def test_signed_rank_means_and_decisions(self, case):
        rope, alpha, table, diffs, _ = case
        rng = np.random.default_rng(1)
        decided = checked = 0
        for (a, b), d in diffs.items():
            concentration, to_right, to_left = signed_rank_terms(mean_differences(d), rope)
            if rope > 0 and ((to_right == 0).any() or (to_left == 0).any()):
                continue   # pair sums exactly on the rope's edge: see test_pair_sums_on_the_rope_edge_weigh_one_half
            moments = dirichlet_second_moments(concentration)
            right, left = (moments * step(to_right)).sum(), (moments * step(to_left)).sum()
            w = rng.dirichlet(concentration, size=N_OWN)
            own_right = np.einsum("ni,ni->n", w @ step(to_right), w)
            own_left = np.einsum("ni,ni->n", w @ step(to_left), w)
            assert abs(own_right.mean() - right) <= 4 * own_right.std() / np.sqrt(N_OWN)   # the oracle itself
            assert abs(float(table.signed_rank_right.sel(a=a, b=b)) - right) <= 4 * own_right.std() / np.sqrt(N_LIB) \
                + 1e-12, (a, b, right)
            # p_left of (a, b) is p_right of (b, a)
            assert abs(float(table.signed_rank_right.sel(a=b, b=a)) - left) <= 4 * own_left.std() / np.sqrt(N_LIB) \
                + 1e-12, (a, b, left)
            checked += 1
            shares = shares_of_largest(np.column_stack([own_left, 1 - own_left - own_right, own_right]))
            rule = decision_from_shares(shares, (a, b), alpha, margin=mc_margin(alpha))
            if rule is not None:
                assert table.decision_signed_rank.sel(a=a, b=b) == rule, (a, b, shares)
                decided += 1
        assert checked >= (20 if rope == 0 else 14) and decided >= checked - 4

    def test_pair_sums_on_the_rope_edge_weigh_one_half(self, uci54):
        """nbc - aode on uci54 has pair sums z_i + z_j exactly 0.02 (mean differences are ratios of counts)."""
        scores = uci54.score.transpose("dataset", "algorithm", "run", "fold")
        d = (scores.sel(algorithm="nbc") - scores.sel(algorithm="aode")).values.reshape(len(scores.dataset), -1)
        concentration, to_right, _ = signed_rank_terms(mean_differences(d), 0.01)
        assert (to_right == 0).sum() >= 2
        right = (dirichlet_second_moments(concentration) * step(to_right)).sum()
        res = bayesian_signed_rank(uci54, algorithms=("aode", "nbc"), rope=0.01, draws=200_000, random_seed=3)
        draws = res.samples[:, 2]
        assert abs(draws.mean() - right) <= 4 * draws.std() / np.sqrt(len(draws)), (draws.mean(), right)

    def test_sign_means_and_decisions(self, case):
        rope, alpha, table, diffs, _ = case
        rng = np.random.default_rng(2)
        decided = 0
        for (a, b), d in diffs.items():
            z = mean_differences(d)
            if rope > 0 and np.isclose(np.abs(z), rope, rtol=0, atol=1e-12).any():
                continue   # a mean difference on the rope's edge in exact arithmetic: floating point decides its side
            # counts in (left, rope, right) plus the prior pseudo-count at z0 = 0; the rope is closed, so without a
            # rope an exact zero counts in it
            counts = np.array([(z < -rope).sum(), (np.abs(z) <= rope).sum() + SIGN_PRIOR, (z > rope).sum()])
            total = counts.sum()
            mean = counts[2] / total
            se = np.sqrt(mean * (1 - mean) / (total + 1) / N_LIB)   # Beta marginal of a Dirichlet
            assert abs(float(table.sign_right.sel(a=a, b=b)) - mean) <= 4 * se + 1e-12, (a, b, mean)
            shares = shares_of_largest(rng.dirichlet(counts, size=N_OWN))
            rule = decision_from_shares(shares, (a, b), alpha, margin=mc_margin(alpha))
            if rule is not None:
                assert table.decision_sign.sel(a=a, b=b) == rule, (a, b, shares)
                decided += 1
        assert decided >= (16 if rope == 0 else 12), decided

    def test_poisson_decisions_follow_the_documented_rule(self, case):
        rope, alpha, table, diffs, rho = case
        assert np.allclose(rho, rho[0])
        for (a, b), d in diffs.items():
            p_b, p_a = (majority_probability(sign * d, rho[0], rope) for sign in (1, -1))
            assert float(table.p_b_majority.sel(a=a, b=b)) == pytest.approx(p_b, rel=1e-8, abs=1e-12), (a, b)
            rule = b if p_b > 1 - alpha else a if p_a > 1 - alpha else "none"
            assert table.decision_poisson.sel(a=a, b=b) == rule, (a, b, p_b, p_a)


class TestOrientation:
    def test_all_pairs_reads_column_minus_row_from_raw_scores(self, raw_b_better):
        scores, z = raw_b_better
        table = compare_all_pairs(scores, rope=0.0, draws=20_000, random_seed=23)
        cell = table.sel(a="old", b="new")      # column "new" minus row "old"
        assert float(cell.wilcoxon_pvalue) == pytest.approx(stats.wilcoxon(z, alternative="greater").pvalue, rel=1e-12)
        assert float(table.wilcoxon_pvalue.sel(a="new", b="old")) > 0.95
        assert float(cell.signed_rank_right) > 0.7 and float(table.signed_rank_right.sel(a="new", b="old")) < 0.25
        assert float(cell.p_b_majority) > 0.95
        for test in ("poisson", "wilcoxon", "signed_rank"):
            assert cell[f"decision_{test}"] == "new" and table[f"decision_{test}"].sel(a="new", b="old") == "new"


class TestOneSidedProtocol:
    @pytest.mark.parametrize("b, a, alpha, want", [(0.01, 0.99, 0.05, "B"), (0.99, 0.01, 0.05, "A"),
                                                   (0.04, 0.96, 0.01, "none"), (0.2, 0.8, 0.3, "B")])
    def test_decision_and_frame(self, b, a, alpha, want):
        res = OneSided(("A", "B"), b, a)
        check_result(res)
        assert res.decision(alpha) == want
        assert res.to_frame().loc[0, ["pvalue_b_better", "pvalue_a_better"]].tolist() == [b, a]
