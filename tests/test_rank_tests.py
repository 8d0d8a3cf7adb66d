import csv
import itertools
import math
from collections import defaultdict
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from pp_corr import (bayesian_sign_test, bayesian_signed_rank, compare_all_pairs, imprecise_signed_rank,
                     mean_differences, sign_test, wilcoxon_test)
from pp_corr.pairwise.rank_tests import RegionProbabilities
from tests.conftest import UCI54

N = 50_000


def within_mc_error(samples, value, k=4):
    return abs(samples.mean() - value) <= k * samples.std() / np.sqrt(len(samples))


def test_dp_mean_equals_r_plus():
    z = np.random.default_rng(0).normal(0.01, 0.02, size=30)
    res = bayesian_signed_rank(z, prior_strength=0, draws=N, random_seed=1)
    t_plus = stats.wilcoxon(z, alternative="greater").statistic
    assert within_mc_error(res.samples[:, 2], 2 * t_plus / (30 * 31))
    assert res.p_rope == pytest.approx(0, abs=1e-12)
    assert res.win_right == pytest.approx(np.mean(res.samples[:, 2] > 0.5))


def test_imprecise_means_by_simulation(uci54):
    """The lower and upper posterior means against draws from their definitions (the closed forms are checked
    independently, from Dirichlet moments, in test_oracles_rank.py)."""
    z, _, _ = mean_differences(uci54, algorithms=("nbc", "aode"))
    q, s = len(z), (np.sqrt(17) - 3) / 2
    res = imprecise_signed_rank(z, draws=N, random_seed=2)
    rng = np.random.default_rng(3)
    w = rng.dirichlet(np.concatenate([[s], np.ones(q)]), size=N)
    g = np.einsum("ni,ij,nj->n", w[:, 1:], step(z[:, None] + z[None, :]), w[:, 1:])
    assert within_mc_error(g, res.lower_mean)
    assert within_mc_error(w[:, 0] * (2 - w[:, 0]) + g, res.upper_mean)
    assert 0 <= res.lower <= res.upper <= 1
    # the lower mean without the diagonal's second moment (a formula in circulation) misses the
    # simulation above by far more than its error, and would not tend to R+ as s -> 0
    h = step(z[:, None] + z[None, :])
    assert not within_mc_error(g, h.sum() / ((s + q) * (s + q + 1)), k=20)


def test_imprecise_lower_mean_tends_to_r_plus():
    z = np.random.default_rng(10).normal(0.01, 0.02, size=25)
    h = step(z[:, None] + z[None, :])
    t_plus = stats.wilcoxon(z, alternative="greater").statistic
    assert (h.sum() + np.trace(h)) / (25 * 26) == pytest.approx(2 * t_plus / (25 * 26), rel=1e-12)


def test_imprecise_decisions():
    rng = np.random.default_rng(4)
    assert imprecise_signed_rank(rng.normal(0.02, 0.01, 30), random_seed=0).decision == "B"
    assert imprecise_signed_rank(rng.normal(-0.02, 0.01, 30), random_seed=0).decision == "A"
    few = imprecise_signed_rank([0.01, 0.02, -0.005, 0.01, 0.015], random_seed=0)
    assert few.decision == "indeterminate" and few.lower < few.threshold < few.upper


def test_rope_variant_is_antisymmetric_and_seeded():
    z = np.random.default_rng(5).normal(0.005, 0.02, size=40)
    one = bayesian_signed_rank(z, rope=0.01, random_seed=6)
    other = bayesian_signed_rank(-z, rope=0.01, random_seed=6)
    np.testing.assert_allclose(one.samples[:, ::-1], other.samples, atol=1e-12)
    np.testing.assert_array_equal(one.samples, bayesian_signed_rank(z, rope=0.01, random_seed=6).samples)
    assert sum(one.wins) == pytest.approx(1) and np.allclose(one.samples.sum(axis=1), 1)


def test_rope_variant_means_by_definition():
    z = np.random.default_rng(7).normal(0.005, 0.02, size=20)
    res = bayesian_signed_rank(z, rope=0.01, prior_strength=0.5, z0=0.0, draws=N, random_seed=8)
    pts = np.concatenate([[0.0], z])
    alpha = np.concatenate([[0.5], np.ones(20)])
    pair = pts[:, None] + pts[None, :]
    # E[w_i w_j] of a Dirichlet: alpha_i (alpha_j + [i = j]) / (S (S + 1))
    S = alpha.sum()
    moments = (np.outer(alpha, alpha) + np.diag(alpha)) / (S * (S + 1))
    assert within_mc_error(res.samples[:, 2], (moments * step(pair - 0.02)).sum())
    assert within_mc_error(res.samples[:, 0], (moments * step(-pair - 0.02)).sum())


def test_sign_test_means():
    z = np.array([0.02, 0.01, 0.03, -0.02, 0.002, 0.05, -0.001])
    res = bayesian_sign_test(z, rope=0.005, prior_strength=1.0, draws=N, random_seed=9)
    expected = np.array([1, 2 + 1, 4]) / 8
    for i in range(3):
        assert within_mc_error(res.samples[:, i], expected[i])
    assert res.decision() in ("none", "B")


def test_frequentist_equal_scipy(uci54):
    z, _, _ = mean_differences(uci54, algorithms=("nbc", "hnb"))
    for alt in ("two-sided", "greater", "less"):
        assert wilcoxon_test(uci54, algorithms=("nbc", "hnb"), alternative=alt).pvalue == \
            stats.wilcoxon(z, alternative=alt).pvalue
    assert sign_test(z).pvalue == stats.binomtest(int((z > 0).sum()), int((z != 0).sum())).pvalue


def test_bad_input():
    with pytest.raises(ValueError, match="rope"):
        bayesian_signed_rank([0.1, 0.2], rope=-1)
    with pytest.raises(ValueError, match="NaN"):
        bayesian_sign_test([0.1, np.nan])
    with pytest.raises(ValueError, match="alternative"):
        wilcoxon_test([0.1, 0.2, 0.3], alternative="bigger")


# ---- helpers written here from the definitions ---------------------------------------------------------------------

def step(v):
    """H(v): 1 above zero, 1/2 at exactly zero, 0 below."""
    v = np.asarray(v, dtype=float)
    return (v > 0) + 0.5 * (v == 0)


def dirichlet_moments(alpha):
    """E[w_i w_j] of Dir(alpha): alpha_i (alpha_j + [i = j]) / (S (S + 1))."""
    alpha = np.asarray(alpha, dtype=float)
    total = alpha.sum()
    return (np.outer(alpha, alpha) + np.diag(alpha)) / (total * (total + 1))


def signed_rank_means(z, lo, hi, s, z0=0.0):
    """Posterior means (left, right) of the rope signed-rank test from the Dirichlet moments."""
    pts = np.concatenate([[z0], z]) if s > 0 else np.asarray(z, dtype=float)
    alpha = np.concatenate([[s], np.ones(len(z))]) if s > 0 else np.ones(len(z))
    sums, moments = pts[:, None] + pts[None, :], dirichlet_moments(alpha)
    return (moments * step(2 * lo - sums)).sum(), (moments * step(sums - 2 * hi)).sum()


# ---- issue #10, item 1: a tie stays an exact zero ------------------------------------------------------------------

def recorded_ties(a, b):
    """Data sets of the uci54 file where a and b tie, judged on the recorded decimal text in exact rational
    arithmetic: (identical on every fold, equal sums but not identical, B's sum larger)."""
    cells = defaultdict(dict)
    with open(UCI54, newline="") as f:
        for row in csv.DictReader(f):
            if row["algorithm"] in (a, b):
                cells[row["dataset"], row["algorithm"]][row["run"], row["fold"]] = row["accuracy"]
    identical, equal_sums, b_larger = set(), set(), set()
    for dataset in {d for d, _ in cells}:
        ra, rb = cells[dataset, a], cells[dataset, b]
        assert ra.keys() == rb.keys()
        sum_a, sum_b = sum(map(Fraction, ra.values())), sum(map(Fraction, rb.values()))
        if all(float(ra[k]) == float(rb[k]) for k in ra):
            identical.add(dataset)
        elif sum_a == sum_b:
            equal_sums.add(dataset)
        elif sum_b > sum_a:
            b_larger.add(dataset)
    return identical, equal_sums, b_larger


def test_uci54_ties_stay_exact_zeros(uci54):
    identical, equal_sums, b_larger = recorded_ties("j48", "j48gr")
    assert equal_sums, "the data must hold a tie that is not fold-by-fold identical, or the test proves little"
    z, _, datasets = mean_differences(uci54, algorithms=("j48", "j48gr"))
    assert {d for d, v in zip(datasets, z) if v == 0} == identical | equal_sums
    assert {d for d, v in zip(datasets, z) if v > 0} == b_larger
    # the same rule for (q, n) score arrays given as x (A) and y (B)
    a, b = (uci54.score.sel(algorithm=name).transpose("dataset", ...).values.reshape(len(z), -1)
            for name in ("j48", "j48gr"))
    z_arrays = mean_differences(a, b)[0]
    assert {datasets[i] for i in np.flatnonzero(z_arrays == 0)} == identical | equal_sums
    # and the sign test counts those ties in its rope {0}: mean P(j48gr better) = #right / (q + prior 1)
    res = bayesian_sign_test(uci54, algorithms=("j48", "j48gr"), rope=0.0, draws=N, random_seed=30)
    assert within_mc_error(res.samples[:, 2], len(b_larger) / (len(z) + 1))


def test_score_arrays_tie_on_their_resolution():
    # 0.9 + 0.8 and 0.85 + 0.85 are equal as written but not as binary fractions
    assert Fraction(0.9) + Fraction(0.8) != 2 * Fraction(0.85)
    assert mean_differences([[0.9, 0.8]], [[0.85, 0.85]])[0].tolist() == [0.0]
    assert mean_differences([0.1 + 0.2], [0.3])[0].tolist() == [0.0]  # per-data-set means one ulp apart
    # a difference the scores resolve is kept exactly
    assert mean_differences([[0.5, 0.5]], [[0.5 + 2**-40, 0.5]])[0].tolist() == [2**-41]
    # per-fold differences: an exact zero sum stays 0 whatever the order; no tolerance (their scale is unknown)
    assert mean_differences([[0.1, 0.7, -0.1, -0.7], [1e-18, 0.0, 0.0, 0.0]])[0].tolist() == [0.0, 2.5e-19]
    assert mean_differences([1e-18, -3e-300])[0].tolist() == [1e-18, -3e-300]  # 1-D: used as given


# ---- item 2: parameters checked, naming the argument; pair ropes -------------------------------------------------

Z = [0.01, -0.02, 0.03]
BAYES = (bayesian_signed_rank, bayesian_sign_test)


@pytest.mark.parametrize("test,kwargs,error,name", [
    *[(t, {"rope": v}, ValueError, "rope") for t in BAYES for v in (np.nan, np.inf, -0.01, (0.02, -0.01),
                                                                     (0.0, np.nan), (0.1, 0.2, 0.3))],
    *[(t, {"rope": "0.01"}, TypeError, "rope") for t in BAYES],
    *[(t, {"prior_strength": v}, ValueError, "prior_strength") for t in BAYES for v in (np.nan, np.inf, -1)],
    *[(t, {"z0": v}, ValueError, "z0") for t in BAYES for v in (np.nan, -np.inf)],
    *[(t, {"z0": "0"}, TypeError, "z0") for t in BAYES],
    *[(imprecise_signed_rank, {"loss_ratio": v}, ValueError, "loss_ratio") for v in (np.nan, np.inf, 0, -1)],
    *[(t, {"draws": v}, ValueError, "draws") for t in (*BAYES, imprecise_signed_rank) for v in (0, -5)],
    *[(t, {"draws": v}, TypeError, "draws") for t in (*BAYES, imprecise_signed_rank) for v in (2.5, "10")],
    *[(t, {"alternative": v}, ValueError, "alternative") for t in (wilcoxon_test, sign_test)
      for v in ("bigger", None)],
    *[(t, {"algorithms": v}, ValueError, "algorithms") for t in (*BAYES, wilcoxon_test) for v in (("a",), "ab")],
])
def test_bad_parameters_name_the_argument(test, kwargs, error, name):
    with pytest.raises(error, match=name):
        test(Z, **kwargs)


def test_pair_rope_signed_rank_by_definition():
    z = np.array([0.25, 0.25, -0.125, 0.0, 0.5, -0.375, 0.125, 0.375])  # dyadic: every pair sum is exact
    lo, hi = -0.125, 0.25
    sums = np.concatenate([[0.0], z])[:, None] + np.concatenate([[0.0], z])[None, :]
    assert (sums == 2 * hi).any() and (sums == 2 * lo).any()  # pair sums on both boundaries
    res = bayesian_signed_rank(z, rope=(lo, hi), prior_strength=0.5, draws=N, random_seed=31)
    left, right = signed_rank_means(z, lo, hi, 0.5)
    assert within_mc_error(res.samples[:, 0], left) and within_mc_error(res.samples[:, 2], right)
    # using hi for both sides (the half-width reading of a pair) would give another P(A better)
    assert not within_mc_error(res.samples[:, 0], signed_rank_means(z, -hi, hi, 0.5)[0], k=20)
    assert res.rope == (lo, hi) and res.to_dict()["rope"] == (lo, hi)
    assert "rope (-0.125, 0.25)" in repr(res)


def test_pair_rope_sign_test_counts():
    lo, hi = -0.01, 0.02
    # below, below lo but above -hi, at lo, inside, inside, at hi, above, above
    z = [-0.03, -0.015, -0.01, -0.005, 0.0, 0.02, 0.021, 0.05]
    res = bayesian_sign_test(z, rope=(lo, hi), prior_strength=1.0, z0=0.03, draws=N, random_seed=32)
    expected = np.array([2, 4, 2 + 1]) / 9  # z0 = 0.03 > hi puts the prior on the right
    for i in range(3):
        assert within_mc_error(res.samples[:, i], expected[i])
    assert res.rope == (lo, hi)


@pytest.mark.parametrize("test", BAYES)
def test_symmetric_pair_is_the_half_width(test):
    z = np.random.default_rng(33).normal(0.005, 0.02, size=12)
    half, pair = (test(z, rope=r, draws=2000, random_seed=34) for r in (0.01, (-0.01, 0.01)))
    np.testing.assert_array_equal(half.samples, pair.samples)
    assert half.rope == pair.rope == 0.01 and half.to_dict()["rope"] == 0.01
    assert test(z, rope=None, draws=10, random_seed=0).rope is None and test(z, draws=10).to_dict()["rope"] is None
    assert test(z, rope=0, draws=10, random_seed=0).rope == 0.0  # a rope of width 0, not the default spelling


def test_sums_near_the_float_limit_keep_their_sign():
    """Pair sums and 2 * rope beyond the float range: the signs must come out as in exact arithmetic."""
    z, lo, hi = [1.5e308, 1.0e308, -1.7e308], -1.6e308, 1.2e308
    exact = {v: Fraction(v) for v in (*z, lo, hi)}
    pts = [0.0, *z]
    sums = [[Fraction(a) + Fraction(b) for b in pts] for a in pts]
    exact_step = np.vectorize(lambda v: 1.0 if v > 0 else 0.5 if v == 0 else 0.0, otypes=[float])
    right_h = exact_step(np.array([[s - 2 * exact[hi] for s in row] for row in sums], dtype=object))
    left_h = exact_step(np.array([[2 * exact[lo] - s for s in row] for row in sums], dtype=object))
    moments = dirichlet_moments([0.5, 1, 1, 1])
    res = bayesian_signed_rank(z, rope=(lo, hi), prior_strength=0.5, draws=N, random_seed=47)
    assert within_mc_error(res.samples[:, 2], (moments * right_h).sum())
    assert within_mc_error(res.samples[:, 0], (moments * left_h).sum())
    # and the imprecise test's H(z_i + z_j): 1.5e308 + 1.0e308 overflows but is positive
    q, s = 3, (np.sqrt(17) - 3) / 2
    h = exact_step(np.array([[Fraction(a) + Fraction(b) for b in z] for a in z], dtype=object))
    assert imprecise_signed_rank(z, draws=100, random_seed=0).lower_mean == pytest.approx(
        (h.sum() + np.trace(h)) / ((s + q) * (s + q + 1)), rel=1e-12)


def test_from_tails_keeps_a_float_rope_and_takes_a_pair():
    one = RegionProbabilities.from_tails([0.2], [0.3], "m", 0.05, ("A", "B"))
    assert one.rope == 0.05 and isinstance(one.rope, float) and "rope 0.05," in repr(one)
    assert RegionProbabilities.from_tails([0.2], [0.3], "m", (-0.01, 0.02), ("A", "B")).rope == (-0.01, 0.02)


# ---- item 3: one data set is not a comparison across data sets -----------------------------------------------------

RANK_TESTS = (bayesian_signed_rank, bayesian_sign_test, imprecise_signed_rank, wilcoxon_test, sign_test)


@pytest.mark.parametrize("test", RANK_TESTS)
def test_one_data_set_is_refused(test, uci54):
    with pytest.raises(ValueError, match="only one data set .*'anneal'.*correlated_ttest"):
        test(uci54.isel(dataset=[0]), algorithms=("nbc", "aode"))
    folds = np.random.default_rng(35).normal(0.8, 0.02, size=(2, 1, 10))
    with pytest.raises(ValueError, match="only one data set.*correlated_ttest"):
        test(folds[1] - folds[0])
    with pytest.raises(ValueError, match="only one data set"):
        test(folds[0], folds[1])


# ---- item 4: degenerate frequentist tests ---------------------------------------------------------------------------

def zsplit_t_plus(z):
    """T+ with zeros kept and half their rank given to each side (midranks for ties)."""
    z = np.asarray(z, dtype=float)
    ranks = stats.rankdata(np.abs(z))
    return ranks[z > 0].sum() + ranks[z == 0].sum() / 2


def enumerated_pvalues(z):
    """p-values under the sign-flip null: every pattern of signs of z equally likely (a zero stays zero)."""
    z = np.asarray(z, dtype=float)
    observed = zsplit_t_plus(z)
    null = np.array([zsplit_t_plus(z * np.array(signs)) for signs in itertools.product((1, -1), repeat=len(z))])
    greater, less = np.mean(null >= observed - 1e-9), np.mean(null <= observed + 1e-9)
    return {"greater": greater, "less": less, "two-sided": min(1.0, 2 * min(greater, less))}


@pytest.mark.parametrize("z", [
    [0.0, 0.01, 0.02, -0.01, 0.03],
    [0.0, 0.0, 0.02, 0.02, -0.02, 0.05, 0.01],
    [0.01, -0.01, 0.0],
    [0.0, 0.03],
    [0.02, 0.02, 0.02, -0.02, 0.04, 0.0, 0.0, 0.0, 0.06, 0.01, -0.03],
])
def test_wilcoxon_zeros_and_ties_by_enumeration(z):
    enumerated = enumerated_pvalues(z)
    for alternative in ("two-sided", "greater", "less"):
        res = wilcoxon_test(z, alternative=alternative)
        assert res.pvalue == pytest.approx(enumerated[alternative], rel=1e-9, abs=1e-12), alternative
        assert res.pvalue == pytest.approx(stats.wilcoxon(z, zero_method="zsplit", alternative=alternative).pvalue,
                                           rel=1e-12)
    # zsplit's T+ is the Bayesian signed-rank count of Walsh averages with H(0) = 1/2
    sums = np.add.outer(z, z)
    t_plus = wilcoxon_test(z, alternative="greater").statistic
    assert t_plus == zsplit_t_plus(z) == (step(sums).sum() + np.trace(step(sums))) / 2


@pytest.mark.parametrize("q", [1, 2, 5, 13, 14, 60])
def test_wilcoxon_all_zero_has_pvalue_one(q):
    for alternative in ("two-sided", "greater", "less"):
        res = wilcoxon_test(np.zeros(q), alternative=alternative)
        assert res.pvalue == 1.0 and res.statistic == q * (q + 1) / 4
    if q <= 13:
        assert enumerated_pvalues(np.zeros(q)) == {"greater": 1.0, "less": 1.0, "two-sided": 1.0}


def test_sign_test_degenerate_and_by_enumeration():
    for alternative in ("two-sided", "greater", "less"):
        res = sign_test([0.0, 0.0, 0.0], alternative=alternative)
        assert (res.k, res.n, res.pvalue) == (0, 0, 1.0)
    z = [0.02, 0.0, 0.01, 0.03, -0.01, 0.02, 0.0, 0.04, 0.05]  # 6 of the 7 non-zero are positive
    pmf = [math.comb(7, j) / 2**7 for j in range(8)]
    expected = {"greater": sum(pmf[6:]), "less": sum(pmf[:7]), "two-sided": 2 * sum(pmf[6:])}
    for alternative, p in expected.items():
        res = sign_test(z, alternative=alternative)
        assert (res.k, res.n) == (6, 7) and res.pvalue == pytest.approx(p, rel=1e-12)


def test_all_pairs_with_identical_algorithms(uci54):
    import xarray as xr

    sub = uci54.isel(dataset=slice(0, 15)).sel(algorithm=["nbc", "j48"])
    twin = sub.score.sel(algorithm=["j48"]).assign_coords(algorithm=["twin"])
    scores = xr.Dataset({"score": xr.concat([sub.score, twin], dim="algorithm"), "rho": sub.rho})
    table = compare_all_pairs(scores, rope=0.0, draws=2000, random_seed=36)
    pair = dict(a="j48", b="twin")
    assert float(table.wilcoxon_pvalue.sel(**pair)) == float(table.wilcoxon_pvalue.sel(a="twin", b="j48")) == 1.0
    assert float(table.signed_rank_right.sel(**pair)) == 0.5 and float(table.sign_right.sel(**pair)) == 0.0
    decisions = {test: table[f"decision_{test}"].sel(**pair).item() for test in ("wilcoxon", "signed_rank", "sign")}
    assert decisions == {"wilcoxon": "none", "signed_rank": "none", "sign": "rope"}


# ---- item 5: the Bayesian tests with all z zero, one data set, two data sets -----------------------------------------

@pytest.mark.parametrize("prior_strength", [0.0, 0.5])
def test_bayesian_tests_when_every_difference_is_zero(prior_strength):
    z = np.zeros(6)
    for rope, expected in ((0.0, [0.5, 0.0, 0.5]), (0.01, [0.0, 1.0, 0.0]), ((0.0, 0.01), [0.25, 0.75, 0.0])):
        res = bayesian_signed_rank(z, rope=rope, prior_strength=prior_strength, draws=500, random_seed=37)
        if rope == (0.0, 0.01):  # z_i + z_j = 0 = 2 lo: half on the left, half in the rope
            expected = [0.5, 0.5, 0.0]
        np.testing.assert_array_equal(res.samples, np.tile(expected, (500, 1)))
        sign = bayesian_sign_test(z, rope=rope, prior_strength=prior_strength, draws=500, random_seed=37)
        np.testing.assert_array_equal(sign.samples, np.tile([0.0, 1.0, 0.0], (500, 1)))
    assert bayesian_signed_rank(z, draws=500, random_seed=0).decision() == "none"
    res = imprecise_signed_rank(z, draws=2000, random_seed=38)
    assert (res.lower, res.upper, res.decision) == (0.0, 1.0, "indeterminate")


@pytest.mark.parametrize("z", [[0.03], [0.0], [0.03, -0.01], [0.0, 0.02], [0.01, -0.01]])
def test_bayesian_tests_on_one_and_two_data_sets(z):
    rope = 0.005
    res = bayesian_signed_rank(z, rope=rope, prior_strength=0.5, draws=N, random_seed=39)
    left, right = signed_rank_means(z, -rope, rope, 0.5)
    assert within_mc_error(res.samples[:, 0], left) and within_mc_error(res.samples[:, 2], right)
    assert np.allclose(res.samples.sum(axis=1), 1) and np.isfinite(res.samples).all()
    sign = bayesian_sign_test(z, rope=rope, prior_strength=1.0, draws=N, random_seed=40)
    counts = np.array([np.sum(np.less(z, -rope)), np.sum(np.abs(z) <= rope) + 1, np.sum(np.greater(z, rope))])
    for i in range(3):
        assert within_mc_error(sign.samples[:, i], counts[i] / counts.sum())
    q, s = len(z), (np.sqrt(17) - 3) / 2
    moments = dirichlet_moments(np.concatenate([[s], np.ones(q)]))
    lower = (moments[1:, 1:] * step(np.add.outer(z, z))).sum()
    imprecise = imprecise_signed_rank(z, draws=2000, random_seed=41)
    assert imprecise.lower_mean == pytest.approx(lower, rel=1e-12)
    assert imprecise.upper_mean == pytest.approx(lower + 2 * s / (s + q) - moments[0, 0], rel=1e-12)
    # s -> 0 on one data set: a point mass on the single observation
    if q == 1:
        point = bayesian_signed_rank(z, rope=rope, prior_strength=0, draws=100, random_seed=42).samples
        expected = [step(2 * (-rope) - 2 * z[0]), 0, step(2 * z[0] - 2 * rope)]
        expected[1] = 1 - expected[0] - expected[2]
        np.testing.assert_array_equal(point, np.tile(expected, (100, 1)))


# ---- item 6: properties over any input -------------------------------------------------------------------------------

MAGNITUDES = st.builds(lambda sign, mantissa, exponent: sign * mantissa * 10.0**exponent,
                       st.sampled_from([1.0, -1.0]), st.floats(1, 9.99), st.integers(-300, 299))
NOT_FINITE = st.sampled_from([np.nan, np.inf, -np.inf])


@st.composite
def differences(draw, finite_only=False):
    """1 to 8 per-data-set differences with exact ties, exact opposites (pair sums exactly 0) and zeros."""
    pool = draw(st.lists(MAGNITUDES, min_size=1, max_size=3))
    pool = pool + [-v for v in pool] + [0.0]
    z = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=8))
    bad = False
    if not finite_only and draw(st.integers(0, 5)) == 0:
        z[draw(st.integers(0, len(z) - 1))] = draw(NOT_FINITE)
        bad = True
    return z, bad


@st.composite
def valid_or_not(draw, good, bad):
    """(value, is_bad): a bad value one time in six, so that calls with every argument valid are common."""
    is_bad = draw(st.integers(0, 5)) == 0
    return draw(bad if is_bad else good), is_bad


PAIRS = st.tuples(MAGNITUDES, MAGNITUDES).map(lambda p: (min(p), max(p)))
ROPES = valid_or_not(st.one_of(st.just(0.0), st.none(), MAGNITUDES.map(abs), PAIRS),
                     st.one_of(NOT_FINITE, MAGNITUDES.map(lambda v: -abs(v)),
                               PAIRS.filter(lambda p: p[0] < p[1]).map(lambda p: p[::-1]),  # (v, v) is a valid rope
                               st.just("0.01"), st.just((0.1, 0.2, 0.3))).filter(lambda r: r != (0.0, 0.0)))
PRIORS = valid_or_not(st.one_of(st.sampled_from([0.0, 0.5, 1.0]), MAGNITUDES.map(abs)),
                      st.one_of(NOT_FINITE, st.just(-1.0), st.just("1")))
Z0S = valid_or_not(st.one_of(st.just(0.0), MAGNITUDES), st.one_of(NOT_FINITE, st.just("0")))
SAMPLES = valid_or_not(st.integers(1, 40), st.sampled_from([0, -3, 2.5, "10"]))
LOSSES = valid_or_not(st.one_of(st.just(19.0), MAGNITUDES.map(abs)),
                      st.one_of(NOT_FINITE, st.sampled_from([0.0, -1.0])))
ALTERNATIVES = valid_or_not(st.sampled_from(["two-sided", "greater", "less"]), st.sampled_from(["bigger", None]))


def check_call(call, bad_names):
    """Either an error that names one of the bad arguments, or the result (when nothing was bad)."""
    if bad_names:
        with pytest.raises((ValueError, TypeError)) as info:
            call()
        assert any(name in str(info.value) for name in bad_names), (str(info.value), bad_names)
        return None
    return call()


def check_regions(res):
    samples = res.samples
    assert np.isfinite(samples).all() and (samples >= 0).all() and (samples <= 1).all()
    np.testing.assert_allclose(samples.sum(axis=1), 1, rtol=0, atol=1e-12)
    probabilities = [res.p_left, res.p_rope, res.p_right]
    wins = [res.win_left, res.win_rope, res.win_right]
    for values in (probabilities, wins):
        assert all(0 <= v <= 1 for v in values) and sum(values) == pytest.approx(1, abs=1e-12)


@settings(max_examples=150, deadline=None)
@given(data=differences(), rope=ROPES, prior=PRIORS, z0=Z0S, n_samples=SAMPLES, loss=LOSSES, alt=ALTERNATIVES)
def test_any_input_gives_an_error_naming_it_or_valid_probabilities(data, rope, prior, z0, n_samples, loss, alt):
    z, z_bad = data
    data_name = ["data set"] if z_bad else []
    (rope, rope_bad), (prior, prior_bad), (z0, z0_bad) = rope, prior, z0
    (n_samples, n_bad), (loss, loss_bad), (alt, alt_bad) = n_samples, loss, alt
    bayes_bad = data_name + [name for name, bad in (("rope", rope_bad), ("prior_strength", prior_bad),
                                                    ("z0", z0_bad), ("draws", n_bad)) if bad]
    for test in BAYES:
        res = check_call(lambda: test(z, rope=rope, prior_strength=prior, z0=z0, draws=n_samples,
                                      random_seed=43), bayes_bad)
        if res is not None:
            check_regions(res)
    imprecise_bad = data_name + [name for name, bad in (("loss_ratio", loss_bad), ("draws", n_bad)) if bad]
    res = check_call(lambda: imprecise_signed_rank(z, loss_ratio=loss, draws=n_samples, random_seed=44),
                     imprecise_bad)
    if res is not None:
        values = [res.lower, res.upper, res.lower_mean, res.upper_mean, res.threshold]
        assert all(0 <= v <= 1 for v in values)
        assert res.lower <= res.upper and res.lower_mean <= res.upper_mean
        assert res.decision in ("A", "B", "indeterminate")
    for test in (wilcoxon_test, sign_test):
        res = check_call(lambda: test(z, alternative=alt), data_name + (["alternative"] if alt_bad else []))
        if res is not None:
            assert 0 <= res.pvalue <= 1


@settings(max_examples=60, deadline=None)
@given(data=differences(finite_only=True), power=st.integers(-30, 30), rope=st.one_of(MAGNITUDES.map(abs), PAIRS),
       prior=st.sampled_from([0.0, 0.5, 1.0]), z0=st.one_of(st.just(0.0), MAGNITUDES))
def test_scaling_by_a_power_of_two_gives_the_same_draws(data, power, rope, prior, z0):
    z, _ = data
    z = [v for v in z if abs(v) < 1e290] or [0.0]  # keep 2^30 * z, pair sums and 2 * rope finite
    rope = rope if np.ndim(rope) else min(rope, 1e290)
    rope = tuple(min(max(v, -1e290), 1e290) for v in rope) if np.ndim(rope) else rope
    z0 = min(max(z0, -1e290), 1e290)
    scale = 2.0**power
    scaled_rope = tuple(v * scale for v in rope) if np.ndim(rope) else rope * scale
    for test in BAYES:
        one = test(z, rope=rope, prior_strength=prior, z0=z0, draws=200, random_seed=45)
        other = test([v * scale for v in z], rope=scaled_rope, prior_strength=prior, z0=z0 * scale, draws=200,
                     random_seed=45)
        np.testing.assert_array_equal(one.samples, other.samples)
    one, other = (imprecise_signed_rank(v, draws=200, random_seed=46) for v in (z, [u * scale for u in z]))
    assert (one.lower, one.upper, one.lower_mean) == (other.lower, other.upper, other.lower_mean)
    for test in (wilcoxon_test, sign_test):
        assert test(z).pvalue == test([v * scale for v in z]).pvalue


def test_regression_differences_on_the_rope_edge_count_as_on_it():
    """B - A is exactly 0.01 on every data set in decimal arithmetic but 0.010000000000000009 in floating point:
    the sign test must count it in the (closed) rope, and the signed-rank pair sums 0.02 = 2 x rope half right."""
    a = np.array([[0.80, 0.70], [0.61, 0.93], [0.47, 0.52]])
    b = a + np.array([[0.01, 0.01], [0.01, 0.01], [0.01, 0.01]])
    assert (b - a != 0.01).any()  # the premise: rounding moves some differences off the edge
    sign = bayesian_sign_test(a, b, rope=0.01, random_seed=0, draws=100)
    np.testing.assert_array_equal(sign.samples, np.tile([0.0, 1.0, 0.0], (100, 1)))
    rank = bayesian_signed_rank(a, b, rope=0.01, prior_strength=0, random_seed=0, draws=100)
    np.testing.assert_allclose(rank.samples, np.tile([0.0, 0.5, 0.5], (100, 1)), atol=1e-12)


# ---- incomplete designs: a pair uses the data sets where both have scores ----------------------------------------

@pytest.mark.parametrize("test", RANK_TESTS)
def test_a_pair_leaves_out_the_data_sets_without_both_and_names_them(test, uci54):
    """nbc without scores on 3 data sets and hnb on 2 others (one shared): the pair uses the other 50, equal (same
    seed) to the complete data's test on those 50, and names the 4 left out; two algorithms with a single common
    data set are refused as one data set, with the others named."""
    gone = {"nbc": ["anneal", "audiology", "cmc"], "hnb": ["cmc", "credit"]}
    gappy = uci54.copy(deep=True)
    for algorithm, datasets in gone.items():
        gappy["score"] = gappy.score.where(~(gappy.dataset.isin(datasets) & (gappy.algorithm == algorithm)))
    kwargs = {} if test in (wilcoxon_test, sign_test) else {"draws": 2000, "random_seed": 3}
    res = test(gappy, algorithms=("nbc", "hnb"), **kwargs)
    kept = [d for d in uci54.dataset.values if d not in ("anneal", "audiology", "cmc", "credit")]
    oracle = test(uci54.sel(dataset=kept), algorithms=("nbc", "hnb"), **kwargs)
    assert res.left_out == ("anneal", "audiology", "cmc", "credit") and oracle.left_out == ()
    if isinstance(res, RegionProbabilities):
        np.testing.assert_array_equal(res.samples, oracle.samples)
    else:
        assert {k: v for k, v in vars(res).items() if k != "left_out"} == \
               {k: v for k, v in vars(oracle).items() if k != "left_out"}
    if test not in (wilcoxon_test, sign_test):  # their results are scipy's attributes, whose repr is the fields'
        assert "left out: 4 data sets where nbc and hnb do not both have scores: anneal, audiology, cmc, credit" \
            in repr(res)
        assert res.to_dict()["left_out"] == list(res.left_out)
    two = gappy.sel(dataset=["anneal", "ecoli"])
    with pytest.raises(ValueError, match=r"only one data set where both algorithms have scores \(left out: "
                                         r"anneal\) \('ecoli'\)"):
        test(two, algorithms=("nbc", "hnb"))
