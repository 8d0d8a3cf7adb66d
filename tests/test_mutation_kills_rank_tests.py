"""What a user reads off the rank tests' results: every key of ``to_dict`` and the imprecise test's repr (issue #19,
mutation survivors). Expected values: Dirichlet means and draws made here (tests/test_oracles_rank.py), and the
documented decision rule."""
import re

import numpy as np
import pytest
from scipy import stats

from pp_corr import bayesian_sign_test, bayesian_signed_rank, imprecise_signed_rank, sign_test, wilcoxon_test
from pp_corr.pairwise.rank_tests import IDP_STRENGTH, PairSumRegions, RegionProbabilities, heaviside
from tests.test_oracles_rank import close_in_mc, dirichlet_second_moments, idp_draws

Z = [0.02, 0.01, 0.03, -0.005]     # imprecise: lower ~ .81, upper ~ .99, indeterminate at 0.95


def test_heaviside_is_one_for_any_positive_value():
    assert heaviside(np.array([-1e-300, 0.0, 1e-300, 0.5, 1.0])).tolist() == [0.0, 0.5, 1.0, 1.0, 1.0]


def test_sign_test_to_dict_keys_and_values():
    z = [0.02, 0.01, 0.03, -0.02, 0.002, 0.04]
    n = 40_000
    d = bayesian_sign_test(z, rope=0.005, draws=n, random_seed=0).to_dict()
    assert list(d) == ["method", "a", "b", "rope", "p_left", "p_rope", "p_right", "win_left", "win_rope",
                       "win_right", "left_out"]
    assert (d["method"], d["a"], d["b"], d["rope"]) == ("Bayesian sign test (prior 1.0 at z0 = 0.0)", "A", "B", 0.005)
    counts = np.array([1, 1 + 1, 4])   # z < -0.005, in the rope (plus the prior at z0 = 0), z > 0.005
    for key, mean in zip(("p_left", "p_rope", "p_right"), counts / counts.sum()):
        se = np.sqrt(mean * (1 - mean) / (counts.sum() + 1) / n)
        assert abs(d[key] - mean) <= 4 * se, key
    draws = np.random.default_rng(1).dirichlet(counts, size=n)
    shares = np.bincount(draws.argmax(axis=1), minlength=3) / n
    for key, share in zip(("win_left", "win_rope", "win_right"), shares):
        assert close_in_mc(d[key], n, share, n), key


def test_imprecise_to_dict_keys_and_values():
    n = 50_000
    d = imprecise_signed_rank(Z, draws=n, random_seed=0).to_dict()
    assert list(d) == ["a", "b", "lower", "upper", "lower_mean", "upper_mean", "threshold", "decision", "left_out"]
    _, lower, upper = idp_draws(Z, n, seed=1)
    rule = "B" if np.mean(lower > 0.5) > 0.95 else "A" if np.mean(upper > 0.5) < 0.95 else "indeterminate"
    assert (d["a"], d["b"], d["threshold"], d["decision"]) == ("A", "B", 0.95, rule)
    assert close_in_mc(d["lower"], n, float(np.mean(lower > 0.5)), n)
    assert close_in_mc(d["upper"], n, float(np.mean(upper > 0.5)), n)
    for key, draws in (("lower_mean", lower), ("upper_mean", upper)):
        assert abs(d[key] - draws.mean()) <= 4 * draws.std() / np.sqrt(n), key


def test_imprecise_repr_names_the_pair_and_the_numbers():
    res = imprecise_signed_rank(Z, draws=20_000, random_seed=0)
    text = repr(res)
    match = re.fullmatch(r"Imprecise DP signed-rank test, B vs A: P\(theta > 1/2\) in \[(\S+), (\S+)\] "
                         r"\(posterior mean of theta in \[(\S+), (\S+)\]\); threshold 0\.95: (\S+)", text)
    assert match, text
    numbers = [float(v) for v in match.groups()[:4]]
    assert numbers == pytest.approx([res.lower, res.upper, res.lower_mean, res.upper_mean], abs=5e-5)
    assert match[5] == res.decision


# ---- the rest of rank_tests.py (issue #19, second session): the decision rule at its threshold, from_tails' edges,
# every field of the frequentist results, the defaults, the draws made in several chunks ------------------------------

EPS = np.finfo(float).eps


def own_dirichlet(seed, alpha, n):
    """Dirichlet draws as the library documents them (Gamma variates normalised), (n, len(alpha)): in consecutive
    chunks of 2^20 // len(alpha) draws, each chunk's variates drawn weight by weight (all draws of the first
    weight, then of the second, ...)."""
    rng, alpha = np.random.default_rng(seed), np.asarray(alpha, dtype=float)
    rows, chunks = 2**20 // len(alpha), []
    for start in range(0, n, rows):
        g = rng.standard_gamma(np.broadcast_to(alpha[:, None], (len(alpha), min(rows, n - start))))
        chunks.append((g / g.sum(axis=0)).T)
    return np.concatenate(chunks)


def own_signed_rank(w, points, lo, hi):
    """(left, rope, right) per draw from the q x q step matrices of the pair sums, normalised per draw."""
    sums = np.add.outer(points, points)
    left, right = step(2 * lo - sums), step(sums - 2 * hi)
    masses = np.column_stack([np.einsum("ni,ij,nj->n", w, m, w) for m in (left, 1 - left - right, right)])
    return masses / masses.sum(axis=1, keepdims=True)


def step(v):
    return (np.asarray(v) > 0) + 0.5 * (np.asarray(v) == 0)


def regions(rows):
    """A RegionProbabilities whose draws are the given (left, rope, right) rows."""
    rows = np.asarray(rows, dtype=float)
    return RegionProbabilities.from_tails(rows[:, 0], rows[:, 2], "m", 0.0, ("svm", "knn"))


@pytest.mark.parametrize("largest, label", [(0, "svm"), (1, "rope"), (2, "knn")])
def test_decision_names_the_region_largest_in_more_than_one_minus_alpha_of_the_draws(largest, label):
    big, other = np.full(3, 0.1), np.full(3, 0.1)
    big[largest], other[(largest + 1) % 3] = 0.8, 0.8
    res = regions([big, big, big, other])          # the region is largest in 3 of 4 draws: 0.75 exactly
    assert res.decision(alpha=0.3) == label
    assert res.decision(alpha=0.25) == "none"      # 0.75 is not more than 1 - 0.25
    assert regions([big] * 20).decision() == label                 # default alpha 0.05: 20 of 20
    assert regions([big] * 19 + [other]).decision() == "none"      # 19 of 20 = 0.95 is not more than 0.95


def test_from_tails_accepts_its_edges_and_refuses_beyond_them():
    np.testing.assert_array_equal(regions([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]]).samples,
                                  [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]])
    edge = RegionProbabilities.from_tails([0.5, 0.6], [0.5, 0.4 + 5e-10], "m", 0.0, ("A", "B"))
    assert edge.samples[:, 1].tolist() == [0.0, 0.0]   # 1 - left - right < 0 by rounding: clipped to 0
    for left, right, name in (([1.2], [0.0], "left"), ([-0.1], [0.5], "left"), ([0.0], [1.5], "right"),
                              ([0.5], [-1e-3], "right")):
        with pytest.raises(ValueError, match=f"^{name} must hold probabilities"):
            RegionProbabilities.from_tails(left, right, "m", 0.0, ("A", "B"))
    for left, right in (([0.6], [0.6]), ([1.0], [1.0]), ([0.5], [0.5 + 1e-6])):
        with pytest.raises(ValueError, match="left \\+ right must be at most 1"):
            RegionProbabilities.from_tails(left, right, "m", 0.0, ("A", "B"))


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_sign_test_reports_every_field(alternative):
    z = [0.02, 0.0, 0.01, 0.03, -0.01, 0.02, 0.0, 0.04, 0.05]   # 6 of the 7 non-zero are positive
    res = sign_test(z, alternative=alternative)
    assert (res.k, res.n, res.alternative, res.statistic) == (6, 7, alternative, 6 / 7)
    assert res.pvalue == stats.binomtest(6, 7, 0.5, alternative=alternative).pvalue
    tied = sign_test([0.0, 0.0], alternative=alternative)
    assert (tied.k, tied.n, tied.alternative, tied.statistic, tied.pvalue) == (0, 0, alternative, 0.5, 1.0)


def test_sign_test_prior_on_the_rope_edges_counts_in_the_rope():
    """The rope [lo, hi] is closed: a prior pseudo-observation z0 = lo or hi adds its strength to the rope."""
    z, rope, strength, n = [0.02, -0.02, 0.0, 0.03], 0.01, 3.0, 20_000
    for z0, counts in ((-0.01, [1, 1 + 3, 2]), (0.01, [1, 1 + 3, 2]), (-0.0100001, [1 + 3, 1, 2]),
                       (0.0100001, [1, 1, 2 + 3])):
        res = bayesian_sign_test(z, rope=rope, prior_strength=strength, z0=z0, draws=n, random_seed=2)
        mean = np.array(counts) / sum(counts)
        se = np.sqrt(mean * (1 - mean) / (sum(counts) + 1) / n)
        assert np.all(np.abs(res.samples.mean(axis=0) - mean) <= 4 * se), z0


def test_sign_test_defaults_no_rope_prior_1_at_0_and_50000_draws():
    z = [0.02, 0.0, -0.01, 0.03]          # below 0: 1; at 0 (the rope region [0, 0]) 1 + the prior's 1; above 0: 2
    res = bayesian_sign_test(z, random_seed=4)
    assert len(res.samples) == 50_000 and res.rope is None
    np.testing.assert_array_equal(res.samples, bayesian_sign_test(z, rope=0, random_seed=4).samples)
    assert res.method == "Bayesian sign test (prior 1.0 at z0 = 0.0)"
    mean = np.array([1, 2, 2]) / 5
    assert np.all(np.abs(res.samples.mean(axis=0) - mean) <= 4 * np.sqrt(mean * (1 - mean) / 6 / 50_000))


def test_signed_rank_defaults_against_the_dense_computation():
    """Defaults: no rope, prior 0.5 at z0 = 0, 50,000 draws; the draws and regions computed here."""
    z = np.array([0.02, -0.01, 0.03, 0.01, -0.025, 0.04])
    res = bayesian_signed_rank(z, random_seed=7)
    assert len(res.samples) == 50_000 and res.rope is None
    assert res.method == "Bayesian signed-rank test (s = 0.5, z0 = 0.0)"
    w = own_dirichlet(7, np.r_[0.5, np.ones(len(z))], 50_000)
    np.testing.assert_allclose(res.samples, own_signed_rank(w, np.r_[0.0, z], 0.0, 0.0), rtol=0, atol=64 * EPS)
    assert bayesian_signed_rank(z, prior_strength=0, draws=10, random_seed=7).method == \
        "Bayesian signed-rank test (DP, s -> 0)"


def test_signed_rank_draws_made_in_several_chunks_are_those_of_one_call():
    """q = 30 with the prior: 31 weights a draw, 2^20 // 31 = 33,825 draws a chunk, so 70,000 draws take three
    chunks (the last one short); every chunk's draws are used once, in order."""
    z = np.random.default_rng(12).normal(0.005, 0.02, 30)
    n = 70_000
    res = bayesian_signed_rank(z, rope=0.01, draws=n, random_seed=3)
    w = own_dirichlet(3, np.r_[0.5, np.ones(len(z))], n)
    np.testing.assert_allclose(res.samples, own_signed_rank(w, np.r_[0.0, z], -0.01, 0.01), rtol=0,
                               atol=8 * (len(z) + 3) * EPS)


def test_imprecise_draws_made_in_several_chunks_and_a_loss_ratio_below_one():
    z = np.random.default_rng(13).normal(0.004, 0.02, 40)
    n, q, s = 60_000, len(z), IDP_STRENGTH                       # 41 weights: three chunks of at most 25,575
    res = imprecise_signed_rank(z, draws=n, random_seed=6, loss_ratio=0.5)
    w = own_dirichlet(6, np.r_[s, np.ones(q)], n)
    low = np.einsum("ni,ij,nj->n", w[:, 1:], step(np.add.outer(z, z)), w[:, 1:])
    high = w[:, 0] * (2 - w[:, 0]) + low
    near = 1e-13   # draws this close to 1/2 may fall either side by rounding
    assert abs(res.lower - np.mean(low > 0.5)) <= np.mean(np.abs(low - 0.5) <= near)
    assert abs(res.upper - np.mean(high > 0.5)) <= np.mean(np.abs(high - 0.5) <= near)
    assert res.threshold == pytest.approx(1 / 3, rel=1e-15)      # l1 / (l0 + l1) with l1/l0 = 1/2
    with pytest.raises(ValueError, match="loss_ratio"):
        imprecise_signed_rank(z, loss_ratio=0.0)


# ---- third session: survivors of the measured run at 8439317 ---------------------------------------------------------

def idp_lower_mean(z):
    """E[sum_ij w_i w_j H(z_i + z_j)] under (w0, w) ~ Dir(s, 1, ..., 1), from the Dirichlet second moments."""
    moments = dirichlet_second_moments(np.r_[IDP_STRENGTH, np.ones(len(z))])[1:, 1:]
    return float(np.sum(moments * step(np.add.outer(z, z))))


def test_imprecise_takes_both_score_arrays_and_50000_draws_by_default():
    """Scores of A and of B (not differences): z = mean(B - A) per data set, A better on three data sets of four;
    the default of 50,000 draws shows in the probabilities, which are counts of draws over 50,000."""
    rng = np.random.default_rng(21)
    a = 0.8 + 0.02 * rng.standard_normal((4, 10))
    b = a + np.array([[-0.02], [-0.01], [0.015], [-0.005]]) + 0.001 * rng.standard_normal((4, 10))
    res = imprecise_signed_rank(a, b, random_seed=0)
    z = (b - a).mean(axis=1)
    assert res.lower_mean == pytest.approx(idp_lower_mean(z), rel=1e-12)
    for p in (res.lower, res.upper):
        assert 0 < p < 1 and p * 50_000 == round(p * 50_000)     # k / 50,000 (k / 50,001 is not, for 0 < k)
    _, lower, upper = idp_draws(z, 50_000, seed=1)
    assert close_in_mc(res.lower, 50_000, float(np.mean(lower > 0.5)), 50_000)
    assert close_in_mc(res.upper, 50_000, float(np.mean(upper > 0.5)), 50_000)


def test_imprecise_pair_sum_near_zero_counts_as_positive():
    """A pair sum of 1.5e-12 from values near 0.01 is 1.5e-10 of their size, far above the tie tolerance (1e-12 of
    the size): H = 1, not the 1/2 of a tie (a rope bound of 1 in the ties' scale made it one)."""
    z = np.array([0.01, -0.01 + 1.5e-12, 0.02])
    assert np.add.outer(z, z)[0, 1] > 1e-12
    assert imprecise_signed_rank(z, draws=10, random_seed=0).lower_mean == pytest.approx(idp_lower_mean(z),
                                                                                              rel=1e-12)


@pytest.mark.parametrize("magnitude", [1e-170, 1.0, 1e170])
def test_regions_of_rows_weigh_the_pair_sums_at_any_magnitude(magnitude):
    """PairSumRegions.of_rows (the signed-rank study's batch) against the dense matrices of the pair sums written
    here: each row's masses for given weights. The values are exact multiples of a power of two near ``magnitude``,
    so the test's sums are exact; sorting by rows * unit instead of rows / unit underflows or overflows here."""
    unit = 2.0 ** round(np.log2(magnitude))
    rows = unit * np.array([[3.0, -1.0, 2.0, 0.5, -2.5], [0.0, 1.5, -0.5, -3.0, 1.0]])
    lo, hi = -0.75 * unit, 0.75 * unit
    w = own_dirichlet(5, np.ones(5), 8)
    for row, regions in zip(rows, PairSumRegions.of_rows(rows, lo, hi)):
        expected = own_signed_rank(w, row / unit, lo / unit, hi / unit)
        masses = regions.masses(w)
        np.testing.assert_allclose(masses / masses.sum(axis=1, keepdims=True), expected, rtol=0, atol=1e-14)


def documented_right_count(z, lo, hi):
    """sum_ij H(z_i + z_j - 2 hi) with the documented tie rule: a pair sum within 1e-12 x (|z_i| + |z_j| + 2 max(|lo|,
    |hi|)), the size of the numbers compared, of the boundary counts 1/2."""
    z = np.asarray(z)
    gap = np.add.outer(z, z) - 2 * hi
    tolerance = 1e-12 * (np.add.outer(np.abs(z), np.abs(z)) + 2 * max(abs(lo), abs(hi)))
    return float(np.sum(np.where(np.abs(gap) <= tolerance, 0.5, gap > 0)))


def test_a_pair_sum_near_the_rope_edge_is_a_tie_only_within_the_tolerance():
    """Pair sums 2 hi (1 + 2.25e-12): 4.5e-12 of 2 hi away, just beyond the tolerance (4e-12 of it: the two values
    and the rope's 2 hi); 2 hi (1 + 1.5e-12): within it. Both for one row and for a batch of rows, at two scales."""
    for scale in (1.0, 2.0**-40):
        hi = 0.5 * scale
        z = np.array([hi * (1 + 2.25e-12), hi * (1 + 1.5e-12), 0.1 * scale, -hi])
        expected = documented_right_count(z, -hi, hi)
        assert PairSumRegions(z, -hi, hi).right_count() == expected
        batch = PairSumRegions.of_rows(np.vstack([z, z[::-1]]), -hi, hi)
        assert [regions.right_count() for regions in batch] == [expected, expected]


@pytest.mark.parametrize("alpha", [0.0, 1.0, -0.1, float("nan")])
def test_decision_names_alpha_when_it_is_not_a_level(alpha):
    with pytest.raises(ValueError, match="^alpha "):
        regions([[0.1, 0.8, 0.1]]).decision(alpha=alpha)


def test_sign_test_difference_a_rounding_away_from_a_rope_edge_counts_in_the_rope():
    """Differences 1e-13 (relative) beyond either edge of the rope [-0.01, 0.01] are on it (the documented 1e-12
    relative tolerance), so in the rope's count: no data set below or above, and a Dirichlet of count 0 draws 0."""
    z = [-0.01 * (1 + 1e-13), 0.01 * (1 + 1e-13), 0.0]
    res = bayesian_sign_test(z, rope=0.01, prior_strength=1.0, draws=20_000, random_seed=3)
    assert res.samples[:, 0].max() == 0 and res.samples[:, 2].max() == 0     # counts (0, 3 + 1, 0)
    outside = bayesian_sign_test([-0.01 * (1 + 1e-11), 0.01 * (1 + 1e-11), 0.0], rope=0.01, draws=20_000,
                                 random_seed=3)
    mean = np.array([1, 2, 1]) / 4                                          # beyond the tolerance: one each side
    assert np.all(np.abs(outside.samples.mean(axis=0) - mean) <= 4 * np.sqrt(mean * (1 - mean) / 5 / 20_000))


def test_frequentist_rank_tests_take_both_score_arrays():
    """Scores of A and of B as two arrays: z = mean(B - A) per data set, against scipy on z computed here."""
    rng = np.random.default_rng(22)
    a = 0.8 + 0.02 * rng.standard_normal((8, 5))
    b = a + np.array([[-0.02], [0.01], [0.03], [-0.005], [0.02], [0.04], [0.012], [-0.001]])
    z = (b - a).mean(axis=1)
    res = wilcoxon_test(a, b, alternative="greater")
    expected = stats.wilcoxon(z, zero_method="zsplit", alternative="greater")
    assert (res.statistic, res.pvalue) == pytest.approx((expected.statistic, expected.pvalue), rel=1e-12)
    signs = sign_test(a, b, alternative="less")
    assert (signs.k, signs.n) == (5, 8)
    assert signs.pvalue == pytest.approx(stats.binomtest(5, 8, 0.5, alternative="less").pvalue, rel=1e-12)


# ---- fourth session: survivors of the rest of the module (mutants at 8777dfd) ----------------------------------------

def test_from_tails_keeps_the_method_it_is_given():
    """The method text is what to_dict and the repr show of the test that made the draws (from_tails 27 dropped it)."""
    res = RegionProbabilities.from_tails([0.2, 0.4], [0.3, 0.5], "my own test (prior 2)", 0.05, ("svm", "knn"))
    assert res.method == "my own test (prior 2)" and res.to_dict()["method"] == "my own test (prior 2)"
    assert repr(res).startswith("my own test (prior 2), knn vs svm, rope 0.05, 2 draws")


# ---- fifth session: the rest of the module at 01ffeae (dirichlet and PairSumRegions.masses rewritten) --------------

def test_masses_of_weights_stored_draw_after_draw():
    """masses() takes the weights of any layout: here a C-ordered (draws, points) array, as idp_probabilities of the
    signed-rank study may pass, not the transposed layout dirichlet makes (masses 7, 8 lost such weights). Against
    the step matrices of the pair sums written in the test; the points are binary fractions, so the sums are exact
    and 0.375 + 0.125 lies exactly on the rope's edge 2 x 0.25 (a half)."""
    points, lo, hi = np.array([0.375, -0.25, 0.75, 0.125, -0.625]), -0.25, 0.25
    w = np.ascontiguousarray(own_dirichlet(3, np.ones(len(points)), 6))
    assert w.flags.c_contiguous and not w.T.flags.c_contiguous
    masses = PairSumRegions(points, lo, hi).masses(w)
    np.testing.assert_allclose(masses.sum(axis=1), 1.0, rtol=0, atol=1e-14)    # (sum w)^2
    np.testing.assert_allclose(masses, own_signed_rank(w, points, lo, hi), rtol=0, atol=1e-14)
