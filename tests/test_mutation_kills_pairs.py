"""The all-pairs table as text and its argument checks (issue #19, mutation survivors): every cell that
``format_pairs`` prints is read back and compared with the table it was given (whose numbers and decisions
tests/test_oracles_pairs.py checks against scipy, Dirichlet moments and an enumeration)."""
import itertools

import numpy as np
import pytest
from scipy import stats

import pp_corr.pairwise.pairs
from pp_corr import compare_all_pairs, example_path, format_pairs, load_scores
from pp_corr.pairwise.pairs import TESTS
from tests.test_oracles_pairs import (dirichlet_second_moments, majority_probability, mean_differences,
                                      signed_rank_terms, step)


@pytest.fixture(scope="module")
def table():
    return compare_all_pairs(load_scores(example_path()), draws=2000, random_seed=0)


def rows_of(block, algorithms):
    """{row name: its cells} of one printed matrix (header, index-name line, then one line per algorithm)."""
    lines = block.splitlines()
    assert lines[1].split() == ["b", *algorithms] and lines[2].split() == ["a"]
    return {line.split()[0]: line.split()[1:] for line in lines[3:]}


def test_every_printed_cell_is_the_tables(table):
    algorithms = [str(a) for a in table.a.values]
    blocks = format_pairs(table).split("\n\n")
    assert len(blocks) == 1 + len(TESTS)
    title = "P(column better than row on a majority of 4 data sets), Poisson test, rope 0.01:"
    assert blocks[0].splitlines()[0] == title
    cells = rows_of(blocks[0], algorithms)
    p = table.p_b_majority.values
    for i, a in enumerate(algorithms):   # the diagonal is blank, so a row shows the k - 1 other cells
        assert cells[a] == [f"{p[i, j]:.3f}" for j in range(len(algorithms)) if j != i], a
    for block, test in zip(blocks[1:], TESTS):
        assert block.splitlines()[0] == f"Better of the pair at alpha = 0.05 ({test} test):"
        verdicts = rows_of(block, algorithms)
        decisions = table[f"decision_{test}"].values
        for i, a in enumerate(algorithms):
            assert verdicts[a] == [decisions[i, j] for j in range(len(algorithms)) if j != i], (test, a)
    assert np.isnan(np.diag(p)).all()


def test_format_pairs_names_what_it_was_given():
    with pytest.raises(TypeError, match="got list$"):
        format_pairs([1, 2])


def test_the_rope_is_checked_before_any_test_runs(monkeypatch):
    def started(*args, **kwargs):
        raise AssertionError("a test ran before the rope was checked")

    monkeypatch.setattr(pp_corr.pairwise.pairs, "poisson_test", started)
    with pytest.raises(ValueError, match="^rope must be in"):
        compare_all_pairs(load_scores(example_path()), rope=-0.1)


def test_decisions_are_blank_on_the_diagonal(table):
    for test in TESTS:
        assert np.diag(table[f"decision_{test}"].values).tolist() == [""] * table.sizes["a"], test


def test_one_data_set_is_refused_with_advice():
    with pytest.raises(ValueError, match="^compare_all_pairs compares algorithms across data sets, and the scores "
                                         "hold one"):
        compare_all_pairs(load_scores(example_path()).isel(dataset=[0]))


def test_default_size_is_50000_draws():
    scores = load_scores(example_path()).isel(algorithm=[0, 1])
    default = compare_all_pairs(scores, random_seed=4)
    explicit = compare_all_pairs(scores, draws=50_000, random_seed=4)
    for name in ("signed_rank_right", "sign_right"):
        assert default[name].equals(explicit[name]), name


def raw_differences(scores, a, b):
    values = scores.score.transpose("dataset", "algorithm", "run", "fold")
    return (values.sel(algorithm=b) - values.sel(algorithm=a)).values.reshape(scores.sizes["dataset"], -1)


def test_alpha_and_rope_reach_every_test():
    """alpha = 0.004 puts 1 - alpha between the Poisson probabilities of two pairs of the example (0.995 and 0.999),
    and the rope moves the signed-rank probabilities (Dirichlet moments, tests/test_oracles_pairs.py) and the sign
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


def test_the_table_records_rope_alpha_size_and_orientation():
    """(Its own table, not the module's fixture: mutmut maps a test to the functions it calls itself.)"""
    table = compare_all_pairs(load_scores(example_path()), draws=100, random_seed=0)
    assert table.attrs == {"rope": 0.01, "alpha": 0.05, "n_datasets": 4, "orientation": "b - a: column minus row"}


def test_one_draw_decides_every_pair():
    """With one posterior draw its largest region is largest in all draws, so every pair is decided; with 20,000
    some are not (the example's four data sets leave much in doubt)."""
    scores = load_scores(example_path())
    off = ~np.eye(scores.sizes["algorithm"], dtype=bool)
    one = compare_all_pairs(scores, draws=1, random_seed=0)
    many = compare_all_pairs(scores, draws=20_000, random_seed=0)
    for test in ("signed_rank", "sign"):
        assert (one[f"decision_{test}"].values[off] != "none").all(), test
        assert (many[f"decision_{test}"].values[off] == "none").any(), test


def test_a_wilcoxon_pvalue_equal_to_alpha_decides_nothing():
    """On four data sets the exact one-sided p-value of four positive differences is 1/16; at alpha = 1/16 the
    rule p < alpha declares nothing, on either side of a pair."""
    scores = load_scores(example_path())
    table = compare_all_pairs(scores, alpha=1 / 16, draws=1000, random_seed=0)
    on_alpha_b = on_alpha_a = 0
    for a, b in itertools.combinations([str(v) for v in scores.algorithm.values], 2):
        z = raw_differences(scores, a, b).mean(axis=1)
        p_b, p_a = (stats.wilcoxon(sign * z, zero_method="zsplit", alternative="greater").pvalue for sign in (1, -1))
        rule = b if p_b < 1 / 16 else a if p_a < 1 / 16 else "none"
        assert table.decision_wilcoxon.sel(a=a, b=b) == rule, (a, b, p_b, p_a)
        on_alpha_b, on_alpha_a = on_alpha_b + (p_b == 1 / 16), on_alpha_a + (p_a == 1 / 16)
    assert on_alpha_b >= 1 and on_alpha_a >= 1
