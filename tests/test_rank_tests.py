"""pairwise/rank_tests.py. Expected values: definitions written here, Dirichlet means and draws
(TestImpreciseSignedRankOracles below), scipy's frequentist tests and enumerations, and the documented decision rule."""
import csv
import itertools
import math
import re
from collections import defaultdict
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import stats

import pp_corr.studies.simulation
from pp_corr import (bayesian_sign_test, bayesian_signed_rank, compare_all_pairs, imprecise_signed_rank, load_scores,
                     mean_differences, poisson_test, sign_test, wilcoxon_test)
from pp_corr.pairwise.rank_tests import IDP_STRENGTH, PairSumRegions, RegionProbabilities, heaviside
from pp_corr.testing import check_result
from tests.conftest import (INF, NAN, UCI54, assert_close, assert_probability, assert_sums_to_one, campaign,
                            check_error, error_or_warning, quiet, rope_bounds, scores_frame)

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
    independently, from Dirichlet moments, in TestImpreciseSignedRankOracles)."""
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
    assert imprecise_signed_rank(rng.normal(0.02, 0.01, 30), random_seed=0).decision() == "B"
    assert imprecise_signed_rank(rng.normal(-0.02, 0.01, 30), random_seed=0).decision() == "A"
    few = imprecise_signed_rank([0.01, 0.02, -0.005, 0.01, 0.015], random_seed=0)
    assert few.decision() == "indeterminate" and few.lower < few.threshold < few.upper


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


# ---- a tie stays an exact zero -------------------------------------------------------------------------------------

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


# ---- parameters checked, naming the argument; pair ropes ---------------------------------------------------------

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


# ---- one data set is not a comparison across data sets -------------------------------------------------------------

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


# ---- degenerate frequentist tests -----------------------------------------------------------------------------------

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


# ---- the Bayesian tests with all z zero, one data set, two data sets -------------------------------------------------

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
    assert (res.lower, res.upper, res.decision()) == (0.0, 1.0, "indeterminate")


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


# ---- properties over any input ---------------------------------------------------------------------------------------

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
        assert res.decision() in ("A", "B", "indeterminate")
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


Z_IMPRECISE = [0.02, 0.01, 0.03, -0.005]     # imprecise: lower ~ .81, upper ~ .99, indeterminate at 0.95


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


def regions(rows):
    """A RegionProbabilities whose draws are the given (left, rope, right) rows."""
    rows = np.asarray(rows, dtype=float)
    return RegionProbabilities.from_tails(rows[:, 0], rows[:, 2], "m", 0.0, ("svm", "knn"))


def idp_lower_mean(z):
    """E[sum_ij w_i w_j H(z_i + z_j)] under (w0, w) ~ Dir(s, 1, ..., 1), from the Dirichlet second moments."""
    moments = dirichlet_second_moments(np.r_[IDP_STRENGTH, np.ones(len(z))])[1:, 1:]
    return float(np.sum(moments * step(np.add.outer(z, z))))


def documented_right_count(z, lo, hi):
    """sum_ij H(z_i + z_j - 2 hi) with the documented tie rule: a pair sum within 1e-12 x (|z_i| + |z_j| + 2 max(|lo|,
    |hi|)), the size of the numbers compared, of the boundary counts 1/2."""
    z = np.asarray(z)
    gap = np.add.outer(z, z) - 2 * hi
    tolerance = 1e-12 * (np.add.outer(np.abs(z), np.abs(z)) + 2 * max(abs(lo), abs(hi)))
    return float(np.sum(np.where(np.abs(gap) <= tolerance, 0.5, gap > 0)))


class TestHeaviside:
    def test_heaviside_is_one_for_any_positive_value(self):
        assert heaviside(np.array([-1e-300, 0.0, 1e-300, 0.5, 1.0])).tolist() == [0.0, 0.5, 1.0, 1.0, 1.0]


class TestRegionProbabilities:
    """The decision rule at its threshold and from_tails' edges."""

    @pytest.mark.parametrize("largest, label", [(0, "svm"), (1, "rope"), (2, "knn")])
    def test_decision_names_the_region_largest_in_more_than_one_minus_alpha_of_the_draws(self, largest, label):
        big, other = np.full(3, 0.1), np.full(3, 0.1)
        big[largest], other[(largest + 1) % 3] = 0.8, 0.8
        res = regions([big, big, big, other])          # the region is largest in 3 of 4 draws: 0.75 exactly
        assert res.decision(alpha=0.3) == label
        assert res.decision(alpha=0.25) == "none"      # 0.75 is not more than 1 - 0.25
        assert regions([big] * 20).decision() == label                 # default alpha 0.05: 20 of 20
        assert regions([big] * 19 + [other]).decision() == "none"      # 19 of 20 = 0.95 is not more than 0.95

    @pytest.mark.parametrize("alpha", [0.0, 1.0, -0.1, float("nan")])
    def test_decision_names_alpha_when_it_is_not_a_level(self, alpha):
        with pytest.raises(ValueError, match="^alpha "):
            regions([[0.1, 0.8, 0.1]]).decision(alpha=alpha)

    def test_from_tails_accepts_its_edges_and_refuses_beyond_them(self):
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

    def test_from_tails_keeps_the_method_it_is_given(self):
        """The method text is what to_dict and the repr show of the test that made the draws."""
        res = RegionProbabilities.from_tails([0.2, 0.4], [0.3, 0.5], "my own test (prior 2)", 0.05, ("svm", "knn"))
        assert res.method == "my own test (prior 2)" and res.to_dict()["method"] == "my own test (prior 2)"
        assert repr(res).startswith("my own test (prior 2), knn vs svm, rope 0.05, 2 draws")


class TestPairSumRegions:
    @pytest.mark.parametrize("magnitude", [1e-170, 1.0, 1e170])
    def test_regions_of_rows_weigh_the_pair_sums_at_any_magnitude(self, magnitude):
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

    def test_a_pair_sum_near_the_rope_edge_is_a_tie_only_within_the_tolerance(self):
        """Pair sums 2 hi (1 + 2.25e-12): 4.5e-12 of 2 hi away, just beyond the tolerance (4e-12 of it: the two values
        and the rope's 2 hi); 2 hi (1 + 1.5e-12): within it. Both for one row and for a batch of rows, at two scales."""
        for scale in (1.0, 2.0**-40):
            hi = 0.5 * scale
            z = np.array([hi * (1 + 2.25e-12), hi * (1 + 1.5e-12), 0.1 * scale, -hi])
            expected = documented_right_count(z, -hi, hi)
            assert PairSumRegions(z, -hi, hi).right_count() == expected
            batch = PairSumRegions.of_rows(np.vstack([z, z[::-1]]), -hi, hi)
            assert [regions.right_count() for regions in batch] == [expected, expected]

    def test_masses_of_weights_stored_draw_after_draw(self):
        """masses() takes the weights of any layout: here a C-ordered (draws, points) array, as idp_probabilities of the
        signed-rank study may pass, not the transposed layout dirichlet makes. Against
        the step matrices of the pair sums written in the test; the points are binary fractions, so the sums are exact
        and 0.375 + 0.125 lies exactly on the rope's edge 2 x 0.25 (a half)."""
        points, lo, hi = np.array([0.375, -0.25, 0.75, 0.125, -0.625]), -0.25, 0.25
        w = np.ascontiguousarray(own_dirichlet(3, np.ones(len(points)), 6))
        assert w.flags.c_contiguous and not w.T.flags.c_contiguous
        masses = PairSumRegions(points, lo, hi).masses(w)
        np.testing.assert_allclose(masses.sum(axis=1), 1.0, rtol=0, atol=1e-14)    # (sum w)^2
        np.testing.assert_allclose(masses, own_signed_rank(w, points, lo, hi), rtol=0, atol=1e-14)


class TestFrequentistRankTests:
    """sign_test and wilcoxon_test: every field, both score arrays."""

    @pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
    def test_sign_test_reports_every_field(self, alternative):
        z = [0.02, 0.0, 0.01, 0.03, -0.01, 0.02, 0.0, 0.04, 0.05]   # 6 of the 7 non-zero are positive
        res = sign_test(z, alternative=alternative)
        assert (res.k, res.n, res.alternative, res.statistic) == (6, 7, alternative, 6 / 7)
        assert res.pvalue == stats.binomtest(6, 7, 0.5, alternative=alternative).pvalue
        tied = sign_test([0.0, 0.0], alternative=alternative)
        assert (tied.k, tied.n, tied.alternative, tied.statistic, tied.pvalue) == (0, 0, alternative, 0.5, 1.0)

    def test_frequentist_rank_tests_take_both_score_arrays(self):
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


class TestBayesianSignTest:
    def test_sign_test_to_dict_keys_and_values(self):
        z = [0.02, 0.01, 0.03, -0.02, 0.002, 0.04]
        n = 40_000
        d = bayesian_sign_test(z, rope=0.005, draws=n, random_seed=0).to_dict()
        assert list(d) == ["method", "a", "b", "rope", "p_left", "p_rope", "p_right", "win_left", "win_rope",
                           "win_right", "decision", "left_out"]
        assert (d["method"], d["a"], d["b"], d["rope"]) == ("Bayesian sign test (prior 1.0 at z0 = 0.0)", "A", "B",
                                                            0.005)
        counts = np.array([1, 1 + 1, 4])   # z < -0.005, in the rope (plus the prior at z0 = 0), z > 0.005
        for key, mean in zip(("p_left", "p_rope", "p_right"), counts / counts.sum()):
            se = np.sqrt(mean * (1 - mean) / (counts.sum() + 1) / n)
            assert abs(d[key] - mean) <= 4 * se, key
        draws = np.random.default_rng(1).dirichlet(counts, size=n)
        shares = np.bincount(draws.argmax(axis=1), minlength=3) / n
        for key, share in zip(("win_left", "win_rope", "win_right"), shares):
            assert close_in_mc(d[key], n, share, n), key

    def test_sign_test_prior_on_the_rope_edges_counts_in_the_rope(self):
        """The rope [lo, hi] is closed: a prior pseudo-observation z0 = lo or hi adds its strength to the rope."""
        z, rope, strength, n = [0.02, -0.02, 0.0, 0.03], 0.01, 3.0, 20_000
        for z0, counts in ((-0.01, [1, 1 + 3, 2]), (0.01, [1, 1 + 3, 2]), (-0.0100001, [1 + 3, 1, 2]),
                           (0.0100001, [1, 1, 2 + 3])):
            res = bayesian_sign_test(z, rope=rope, prior_strength=strength, z0=z0, draws=n, random_seed=2)
            mean = np.array(counts) / sum(counts)
            se = np.sqrt(mean * (1 - mean) / (sum(counts) + 1) / n)
            assert np.all(np.abs(res.samples.mean(axis=0) - mean) <= 4 * se), z0

    def test_sign_test_defaults_no_rope_prior_1_at_0_and_50000_draws(self):
        z = [0.02, 0.0, -0.01, 0.03]          # below 0: 1; at 0 (the rope region [0, 0]) 1 + the prior's 1; above 0: 2
        res = bayesian_sign_test(z, random_seed=4)
        assert len(res.samples) == 50_000 and res.rope is None
        np.testing.assert_array_equal(res.samples, bayesian_sign_test(z, rope=0, random_seed=4).samples)
        assert res.method == "Bayesian sign test (prior 1.0 at z0 = 0.0)"
        mean = np.array([1, 2, 2]) / 5
        assert np.all(np.abs(res.samples.mean(axis=0) - mean) <= 4 * np.sqrt(mean * (1 - mean) / 6 / 50_000))

    def test_sign_test_difference_a_rounding_away_from_a_rope_edge_counts_in_the_rope(self):
        """Differences 1e-13 (relative) beyond either edge of the rope [-0.01, 0.01] are on it (the documented 1e-12
        relative tolerance), so in the rope's count: no data set below or above, and a Dirichlet of count 0 draws 0."""
        z = [-0.01 * (1 + 1e-13), 0.01 * (1 + 1e-13), 0.0]
        res = bayesian_sign_test(z, rope=0.01, prior_strength=1.0, draws=20_000, random_seed=3)
        assert res.samples[:, 0].max() == 0 and res.samples[:, 2].max() == 0     # counts (0, 3 + 1, 0)
        outside = bayesian_sign_test([-0.01 * (1 + 1e-11), 0.01 * (1 + 1e-11), 0.0], rope=0.01, draws=20_000,
                                     random_seed=3)
        mean = np.array([1, 2, 1]) / 4                                          # beyond the tolerance: one each side
        assert np.all(np.abs(outside.samples.mean(axis=0) - mean) <= 4 * np.sqrt(mean * (1 - mean) / 5 / 20_000))


class TestBayesianSignedRank:
    def test_signed_rank_defaults_against_the_dense_computation(self):
        """Defaults: no rope, prior 0.5 at z0 = 0, 50,000 draws; the draws and regions computed here."""
        z = np.array([0.02, -0.01, 0.03, 0.01, -0.025, 0.04])
        res = bayesian_signed_rank(z, random_seed=7)
        assert len(res.samples) == 50_000 and res.rope is None
        assert res.method == "Bayesian signed-rank test (s = 0.5, z0 = 0.0)"
        w = own_dirichlet(7, np.r_[0.5, np.ones(len(z))], 50_000)
        np.testing.assert_allclose(res.samples, own_signed_rank(w, np.r_[0.0, z], 0.0, 0.0), rtol=0, atol=64 * EPS)
        assert bayesian_signed_rank(z, prior_strength=0, draws=10, random_seed=7).method == \
            "Bayesian signed-rank test (DP, s -> 0)"

    def test_signed_rank_draws_made_in_several_chunks_are_those_of_one_call(self):
        """q = 30 with the prior: 31 weights a draw, 2^20 // 31 = 33,825 draws a chunk, so 70,000 draws take three
        chunks (the last one short); every chunk's draws are used once, in order."""
        z = np.random.default_rng(12).normal(0.005, 0.02, 30)
        n = 70_000
        res = bayesian_signed_rank(z, rope=0.01, draws=n, random_seed=3)
        w = own_dirichlet(3, np.r_[0.5, np.ones(len(z))], n)
        np.testing.assert_allclose(res.samples, own_signed_rank(w, np.r_[0.0, z], -0.01, 0.01), rtol=0,
                                   atol=8 * (len(z) + 3) * EPS)


class TestImpreciseSignedRank:
    def test_imprecise_to_dict_keys_and_values(self):
        n = 50_000
        d = imprecise_signed_rank(Z_IMPRECISE, draws=n, random_seed=0).to_dict()
        assert list(d) == ["a", "b", "lower", "upper", "lower_mean", "upper_mean", "threshold", "decision", "left_out"]
        _, lower, upper = idp_draws(Z_IMPRECISE, n, seed=1)
        rule = "B" if np.mean(lower > 0.5) > 0.95 else "A" if np.mean(upper > 0.5) < 0.95 else "indeterminate"
        assert (d["a"], d["b"], d["threshold"], d["decision"]) == ("A", "B", 0.95, rule)
        assert close_in_mc(d["lower"], n, float(np.mean(lower > 0.5)), n)
        assert close_in_mc(d["upper"], n, float(np.mean(upper > 0.5)), n)
        for key, draws in (("lower_mean", lower), ("upper_mean", upper)):
            assert abs(d[key] - draws.mean()) <= 4 * draws.std() / np.sqrt(n), key

    def test_imprecise_repr_names_the_pair_and_the_numbers(self):
        res = imprecise_signed_rank(Z_IMPRECISE, draws=20_000, random_seed=0)
        text = repr(res)
        match = re.fullmatch(r"Imprecise DP signed-rank test, B vs A: P\(theta > 1/2\) in \[(\S+), (\S+)\] "
                             r"\(posterior mean of theta in \[(\S+), (\S+)\]\); threshold 0\.95: (\S+)", text)
        assert match, text
        numbers = [float(v) for v in match.groups()[:4]]
        assert numbers == pytest.approx([res.lower, res.upper, res.lower_mean, res.upper_mean], abs=5e-5)
        assert match[5] == res.decision()

    def test_imprecise_draws_made_in_several_chunks_and_a_loss_ratio_below_one(self):
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

    def test_imprecise_takes_both_score_arrays_and_50000_draws_by_default(self):
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

    def test_imprecise_pair_sum_near_zero_counts_as_positive(self):
        """A pair sum of 1.5e-12 from values near 0.01 is 1.5e-10 of their size, far above the tie tolerance (1e-12 of
        the size): H = 1, not the 1/2 of a tie (a rope bound of 1 in the ties' scale made it one)."""
        z = np.array([0.01, -0.01 + 1.5e-12, 0.02])
        assert np.add.outer(z, z)[0, 1] > 1e-12
        assert imprecise_signed_rank(z, draws=10, random_seed=0).lower_mean == pytest.approx(idp_lower_mean(z),
                                                                                                  rel=1e-12)


# --- bad and extreme inputs (issue #10); independent oracles (issue #19) --------------------------------------------

SMALL_Z = st.integers(-8, 8).map(lambda i: i / 64)


RANK_BAD = ([("rope", v) for v in [NAN, INF, -INF, -0.01, "0.01", [0.01], (0.02, -0.02), (NAN, 0.0)]]
            + [("prior_strength", v) for v in [NAN, INF, -1.0, "1"]]
            + [("z0", v) for v in [NAN, INF, -INF]]
            + [("draws", v) for v in [0, -5, 2.5, INF, NAN]]
            + [("random_seed", v) for v in [-1, "a"]])


IMPRECISE_BAD = ([("loss_ratio", v) for v in [NAN, INF, 0.0, -1.0, "19"]] + [("draws", v) for v in [0, -5, 2.5]]
                 + [("random_seed", -1)])


def _regions(z, lo, hi):
    return np.where(z < lo, 0, np.where(z > hi, 2, 1))


S_IDP = (np.sqrt(17) - 3) / 2


def pair_sums(z):
    z = np.asarray(z, dtype=float)
    return z[:, None] + z[None, :]


def dirichlet_second_moments(alpha):
    """E[w_i w_j] of Dir(alpha): (alpha_i alpha_j + alpha_i [i = j]) / (S (S + 1))."""
    alpha = np.asarray(alpha, dtype=float)
    total = alpha.sum()
    return (np.outer(alpha, alpha) + np.diag(alpha)) / (total * (total + 1))


def idp_draws(z, n, seed):
    """(w0, lower g, upper g) of the imprecise DP, drawn here: (w0, w) ~ Dir(s, 1, ..., 1)."""
    z = np.asarray(z, dtype=float)
    w = np.random.default_rng(seed).dirichlet(np.concatenate([[S_IDP], np.ones(len(z))]), size=n)
    lower = np.einsum("ni,ij,nj->n", w[:, 1:], step(pair_sums(z)), w[:, 1:])
    return w[:, 0], lower, w[:, 0] * (2 - w[:, 0]) + lower


def close_in_mc(p_lib, n_lib, p_own, n_own, k=4):
    """Two Monte Carlo estimates of one probability agree within k standard errors of their difference."""
    p = (p_lib * n_lib + p_own * n_own) / (n_lib + n_own)
    se = np.sqrt(max(p * (1 - p), 1 / n_own) * (1 / n_lib + 1 / n_own))
    return abs(p_lib - p_own) <= k * se


# small q keeps w0 large, so lower and upper are far apart; the decisions cover B, A and indeterminate at the
# default threshold 0.95 and at 1/2 (loss ratio 1)
IDP_CASES = [
    ([0.02, 0.01, 0.03, -0.005], 19.0, "indeterminate"),          # lower ~ .81, upper ~ .99
    ([0.02, -0.01, -0.015], 19.0, "A"),                           # lower ~ .31, upper ~ .69
    ([0.03, 0.02, 0.01, 0.04, 0.01, 0.02, 0.005, 0.01, 0.02, 0.03], 19.0, "B"),   # lower ~ .99
    ([0.02, 0.01, -0.015, 0.005], 1.0, "B"),                      # lower ~ .59, upper ~ .88
    ([0.02, -0.01, -0.03, -0.005], 1.0, "A"),                     # lower ~ .12, upper ~ .42
    ([0.02, -0.01, -0.015], 1.0, "indeterminate"),                # lower ~ .31, upper ~ .69
]


TIES = np.array([0.0, 0.0, 0.25, -0.25, 0.5, -0.125, 0.125, 0.375])  # dyadic: every sum below is exact


class TestRankTestsArguments:
    @campaign(250)
    @given(z=hnp.arrays(np.float64, st.integers(2, 10), elements=SMALL_Z),
           case=st.sampled_from([("bayesian_sign_test", c) for c in RANK_BAD]
                                + [("bayesian_signed_rank", c) for c in RANK_BAD]
                                + [("imprecise_signed_rank", c) for c in IMPRECISE_BAD]
                                + [(t, ("alternative", v)) for t in ("sign_test", "wilcoxon_test")
                                   for v in ["bigger", "", None]]
                                + [(t, ("x", "nan")) for t in ("bayesian_sign_test", "bayesian_signed_rank",
                                                               "imprecise_signed_rank", "sign_test", "wilcoxon_test")]
                                + [(t, ("y", "nan")) for t in ("bayesian_sign_test", "sign_test", "wilcoxon_test")]))
    def test_rank_tests_refuse_bad_arguments(self, z, case):
        test, (name, value) = case
        fn = getattr(pp_corr, test)
        kwargs = {"draws": 200, "random_seed": 0} if test.startswith(("bayesian", "imprecise")) else {}
        if name == "x":
            check_error(lambda: fn(np.where(np.arange(len(z)) == 0, NAN, z), **kwargs), ("x",))
        elif name == "y":
            check_error(lambda: fn(z, np.where(np.arange(len(z)) == 0, NAN, z), **kwargs), ("y",))
        else:
            check_error(lambda: fn(z, **{**kwargs, name: value}), (name,))

    @campaign(30)
    @given(z=hnp.arrays(np.float64, st.integers(2, 10), elements=SMALL_Z), r=st.sampled_from([0.0, 0.01, 0.05]),
           seed=st.integers(0, 2**20))
    def test_rope_pair_equals_half_width(self, z, r, seed):
        for fn in (bayesian_sign_test, bayesian_signed_rank):
            one = fn(z, rope=r, draws=500, random_seed=seed)
            two = fn(z, rope=(-r, r), draws=500, random_seed=seed)
            assert_close([two.p_left, two.p_rope, two.p_right], [one.p_left, one.p_rope, one.p_right], fn.__name__,
                         rtol=0, atol=1e-12)

    def test_regression_rank_tests_reject_nonfinite_parameters(self):
        z = [0.02, 0.01, 0.03, -0.01, 0.02]
        for fn in (bayesian_sign_test, bayesian_signed_rank):
            for name, value in [("rope", NAN), ("rope", INF), ("prior_strength", NAN), ("prior_strength", INF),
                                ("z0", NAN), ("z0", INF), ("draws", 0), ("draws", -1)]:
                check_error(lambda: fn(z, **{name: value}, random_seed=0), (name,))
        for name, value in [("loss_ratio", NAN), ("loss_ratio", INF), ("draws", 0), ("draws", -1)]:
            check_error(lambda: imprecise_signed_rank(z, **{name: value}, random_seed=0), (name,))

    def test_regression_rank_tests_accept_rope_pair(self):
        """The rank tests rejected the rope pair that correlated_ttest accepts ('<' not supported)."""
        z = [0.02, 0.01, 0.03, -0.01, 0.02, 0.0]
        for fn in (bayesian_sign_test, bayesian_signed_rank):
            pair = fn(z, rope=(-0.015, 0.015), draws=1000, random_seed=3)
            half = fn(z, rope=0.015, draws=1000, random_seed=3)
            assert_close([pair.p_left, pair.p_rope, pair.p_right], [half.p_left, half.p_rope, half.p_right],
                         fn.__name__)
        res = bayesian_sign_test(z, rope=(-0.005, 0.025), draws=20000, random_seed=0)
        # left: -0.01; rope: 0.02, 0.01, -0.005 < 0, 0.02 and the prior at 0; right: 0.03 -> (1, 5 + 1, 1) / 7
        assert_close([res.p_left, res.p_rope, res.p_right], [1 / 7, 5 / 7, 1 / 7], "asymmetric rope", rtol=0, atol=0.01)

    def test_regression_rank_test_on_one_dataset(self):
        """A rank test given the folds of one data set: an error or a warning that there is one data set."""
        rng = np.random.default_rng(9)
        one = rng.normal(0.01, 0.02, (1, 50))
        ds = quiet(load_scores, {"A": rng.uniform(0.7, 0.9, (1, 50)), "B": rng.uniform(0.7, 0.9, (1, 50))}, runs=5)
        for fn in (wilcoxon_test, sign_test, bayesian_signed_rank, bayesian_sign_test, imprecise_signed_rank):
            kwargs = {"random_seed": 0, "draws": 200} if fn not in (wilcoxon_test, sign_test) else {}
            error_or_warning(lambda: fn(one, **kwargs), ("x", "data set", "data sets"), ("data set",))
            error_or_warning(lambda: fn(ds, **kwargs), ("x", "data set", "data sets"), ("data set",))


class TestRankTestsAgainstFormulas:
    @campaign(80)
    @given(z=hnp.arrays(np.float64, st.integers(1, 12), elements=SMALL_Z),
           rope=st.sampled_from([0.0, 0.01, 0.05, (-0.02, 0.01), (0.0, 0.03)]),
           s=st.sampled_from([0.0, 0.5, 1.0, 2.0]), z0=st.sampled_from([0.0, 0.2, -0.2]), seed=st.integers(0, 2**20))
    def test_bayesian_sign_test_matches_the_dirichlet_mean(self, z, rope, s, z0, seed):
        """Posterior means (n_region + s [z0 in region]) / (q + s); zeros fall in the rope (closed) when rope = 0."""
        lo, hi = rope_bounds(rope)
        assume(s > 0 or len(z) > 0)
        n_samples = 4000
        res = bayesian_sign_test(z, rope=rope, prior_strength=s, z0=z0, draws=n_samples, random_seed=seed)
        counts = np.bincount(_regions(z, lo, hi), minlength=3).astype(float)
        counts[_regions(np.array([z0]), lo, hi)[0]] += s
        expected = counts / counts.sum()
        got = np.array([res.p_left, res.p_rope, res.p_right])
        assert_probability("region probabilities", got)
        assert_sums_to_one(*got)
        samples = np.asarray(res.samples)
        assert samples.shape == (n_samples, 3) and np.allclose(samples.sum(axis=1), 1)
        sd = np.sqrt(expected * (1 - expected) / (counts.sum() + 1))
        assert np.all(np.abs(got - expected) <= 5 * sd / math.sqrt(n_samples) + 1e-9), f"{got} vs {expected}"
        wins = np.array([res.win_left, res.win_rope, res.win_right])
        assert_probability("wins", wins)
        assert_sums_to_one(*wins)

    @campaign(60)
    @given(z=hnp.arrays(np.float64, st.integers(1, 10), elements=SMALL_Z), r=st.sampled_from([0.01, 0.05]),
           s=st.sampled_from([0.0, 0.5, 1.0]), seed=st.integers(0, 2**20))
    def test_bayesian_signed_rank_matches_the_dirichlet_moments(self, z, r, s, seed):
        """E[sum w_i w_j H(z_i + z_j - 2r)] with (w0, w) ~ Dir(s, 1, .., 1): E w_i w_j = a_i a_j / (S (S + 1)) off the
        diagonal, a_i (a_i + 1) / (S (S + 1)) on it."""
        n_samples = 4000
        res = bayesian_signed_rank(z, rope=r, prior_strength=s, draws=n_samples, random_seed=seed)
        values = np.concatenate([[0.0], z])
        alpha = np.concatenate([[s], np.ones(len(z))])
        big = alpha.sum()
        pair = values[:, None] + values[None, :]
        second = (np.outer(alpha, alpha) + np.diag(alpha)) / (big * (big + 1))
        expected = np.array([(second * (pair < -2 * r)).sum(), 0.0, (second * (pair > 2 * r)).sum()])
        expected[1] = 1 - expected[0] - expected[2]
        got = np.array([res.p_left, res.p_rope, res.p_right])
        assert_probability("region probabilities", got)
        assert_sums_to_one(*got)
        sd = np.asarray(res.samples).std(axis=0)
        assert np.all(np.abs(got - expected) <= 5 * sd / math.sqrt(n_samples) + 1e-9), f"{got} vs {expected}"

    @campaign(60)
    @given(z=hnp.arrays(np.float64, st.integers(1, 12), elements=SMALL_Z), loss=st.sampled_from([1.0, 4.0, 19.0, 99.0]),
           seed=st.integers(0, 2**20))
    def test_imprecise_signed_rank_bounds_match_the_formula(self, z, loss, seed):
        assume(np.all(z != 0) and np.all(z[:, None] + z[None, :] != 0))
        res = imprecise_signed_rank(z, loss_ratio=loss, draws=2000, random_seed=seed)
        assert isinstance(res, pp_corr.ImpreciseSignedRankResult)
        s, q = (math.sqrt(17) - 3) / 2, len(z)
        lower_mean = ((z[:, None] + z[None, :] > 0).sum() + (2 * z > 0).sum()) / ((s + q) * (s + q + 1))
        upper_mean = lower_mean + (s * s + 2 * q * s + s) / ((s + q) * (s + q + 1))
        assert_close([res.lower_mean, res.upper_mean], [lower_mean, upper_mean], "posterior means", rtol=1e-9)
        for name in ("lower", "upper", "lower_mean", "upper_mean"):
            assert_probability(name, getattr(res, name))
        assert res.lower <= res.upper
        threshold = loss / (1 + loss)
        assert_close(res.threshold, threshold, "threshold l1 / (l0 + l1)")
        expected = "B" if res.lower > threshold else "A" if res.upper < threshold else "indeterminate"
        assert res.decision() in (expected, {"A": res.names[0], "B": res.names[1]}.get(expected, expected))

    @campaign(80)
    @given(z=hnp.arrays(np.float64, st.integers(1, 14), elements=SMALL_Z),
           alternative=st.sampled_from(["two-sided", "less", "greater"]))
    def test_sign_and_wilcoxon_tests_match_scipy(self, z, alternative):
        nonzero = z[z != 0]
        sign = sign_test(z, alternative=alternative)
        assert_probability("sign test pvalue", sign.pvalue)
        if len(nonzero):
            ref = stats.binomtest(int((nonzero > 0).sum()), len(nonzero), 0.5, alternative=alternative).pvalue
            assert_close(sign.pvalue, ref, "sign test vs scipy.stats.binomtest", rtol=1e-12)
        elif alternative == "two-sided":
            assert float(sign.pvalue) == 1.0, "no non-zero difference: no evidence either way"
        wil = wilcoxon_test(z, alternative=alternative)
        assert_probability("wilcoxon pvalue", wil.pvalue)
        if len(nonzero) == len(z) and len(np.unique(np.abs(z))) == len(z):
            assert_close(wil.pvalue, stats.wilcoxon(z, alternative=alternative).pvalue, "wilcoxon vs scipy", rtol=1e-12)

    def test_regression_sign_test_all_zero(self):
        """sign_test on all-zero differences returned NaN: no evidence either way is p = 1."""
        res = sign_test(np.zeros(6))
        assert float(res.pvalue) == 1.0
        for alternative in ("less", "greater"):
            assert_probability("pvalue", sign_test(np.zeros(6), alternative=alternative).pvalue)
        assert_probability("wilcoxon pvalue", wilcoxon_test(np.zeros(6)).pvalue)
        bayes = bayesian_sign_test(np.zeros(6), rope=0, draws=2000, random_seed=0)
        assert_close([bayes.p_left, bayes.p_rope, bayes.p_right], [0, 1, 0], "all ties and the prior in the rope",
                     atol=1e-12)

    def test_regression_wilcoxon_tie_on_one_dataset(self):
        """Wilcoxon (and so compare_all_pairs) crashed when two algorithms tie on one data set."""
        z = np.array([0.02, 0.0, 0.01, -0.005, 0.03, 0.015])
        res = wilcoxon_test(z, alternative="greater")
        assert_probability("pvalue", res.pvalue)
        # zero dropped (Wilcoxon's own treatment): ranks of 0.005, 0.01, 0.015, 0.02, 0.03 -> W+ = 14 of 15, exact
        assert_close(res.pvalue, stats.wilcoxon(z[z != 0], alternative="greater").pvalue, "wilcoxon without the tie",
                     rtol=0, atol=0.06)
        frame = scores_frame(np.random.default_rng(1), ["d1", "d2", "d3", "d4"], ["P", "Q", "R"], 1, 5)
        tie = frame.query("dataset == 'd2' and algorithm == 'P'").score.values
        frame.loc[(frame.dataset == "d2") & (frame.algorithm == "Q"), "score"] = tie
        table = quiet(compare_all_pairs, quiet(load_scores, frame), draws=500, random_seed=0)
        off = ~np.eye(3, dtype=bool)
        for var in ("p_b_majority", "wilcoxon_pvalue", "signed_rank_right", "sign_right"):
            assert_probability(var, table[var].values[off])


class TestRegionProbabilitiesArguments:
    @campaign(20)
    @given(left=st.sampled_from([[NAN], [-0.1], [1.2], [0.7]]), right=st.sampled_from([[0.2], [0.6]]))
    def test_region_probabilities_from_tails(self, left, right):
        if 0 <= left[0] <= 1 and left[0] + right[0] <= 1:
            res = RegionProbabilities.from_tails(left, right, "example", 0.01, ("A", "B"))
            assert_sums_to_one(res.p_left, res.p_rope, res.p_right)
            return
        check_error(lambda: RegionProbabilities.from_tails(left, right, "example", 0.01, ("A", "B")), ("left", "right"))

    @campaign(20)
    @given(alpha=st.sampled_from([NAN, 0.0, 1.0, 2.0, "0.05"]))
    def test_region_probabilities_decision_refuses_bad_alpha(self, alpha):
        res = bayesian_sign_test([0.02, 0.01, -0.01, 0.03], rope=0.005, draws=200, random_seed=0)
        check_error(lambda: res.decision(alpha), ("alpha",))


class TestImpreciseSignedRankOracles:
    @pytest.mark.parametrize("z,loss_ratio,decision", IDP_CASES)
    def test_imprecise_lower_and_upper_probabilities_by_simulation(self, z, loss_ratio, decision):
        res = imprecise_signed_rank(z, loss_ratio=loss_ratio, draws=N, random_seed=11)
        _, lower, upper = idp_draws(z, N, seed=12)
        own_lower, own_upper = np.mean(lower > 0.5), np.mean(upper > 0.5)
        assert close_in_mc(res.lower, N, own_lower, N), (res.lower, own_lower)
        assert close_in_mc(res.upper, N, own_upper, N), (res.upper, own_upper)
        threshold = loss_ratio / (1 + loss_ratio)
        assert res.threshold == pytest.approx(threshold, rel=1e-12)
        # the documented rule on the independent estimates (each case is far from its threshold)
        expected = "B" if own_lower > threshold else "A" if own_upper < threshold else "indeterminate"
        assert expected == decision and res.decision() == decision

    def test_upper_probability_is_sensitive_to_the_upper_bound(self):
        """The case above where the upper bound decides: the w0 (2 - w0) term moves P(upper g > 1/2) far more
        than the Monte Carlo error, so a wrong upper-bound formula (w0 alone, w0^2, no term) cannot pass."""
        z = [0.02, -0.01, -0.015]
        res = imprecise_signed_rank(z, draws=N, random_seed=11)
        w0, lower, _ = idp_draws(z, N, seed=12)
        for wrong in (w0 + lower, w0**2 + lower, lower, w0 * (1 - w0) + lower):
            assert not close_in_mc(res.upper, N, np.mean(wrong > 0.5), N, k=8)

    @pytest.mark.parametrize("z", [
        [0.02, -0.01, -0.015],
        [0.0, 0.0, 0.25, -0.25, 0.5, -0.125, 0.125, 0.375],   # exact ties: z_i = 0 and z_i + z_j = 0
        np.random.default_rng(13).normal(0.01, 0.02, 30),
    ])
    def test_imprecise_posterior_means_from_dirichlet_moments(self, z):
        q = len(z)
        moments = dirichlet_second_moments(np.concatenate([[S_IDP], np.ones(q)]))
        lower = (moments[1:, 1:] * step(pair_sums(z))).sum()
        # E[w0 (2 - w0)] = 2 E[w0] - E[w0^2]
        upper = lower + 2 * S_IDP / (S_IDP + q) - moments[0, 0]
        res = imprecise_signed_rank(z, draws=2000, random_seed=14)
        assert res.lower_mean == pytest.approx(lower, rel=1e-9)
        assert res.upper_mean == pytest.approx(upper, rel=1e-9)
        # and the moments themselves against draws made here
        _, g_lower, g_upper = idp_draws(z, N, seed=15)
        for draws, mean in ((g_lower, lower), (g_upper, upper)):
            assert abs(draws.mean() - mean) <= 4 * draws.std() / np.sqrt(N)


class TestExactTies:
    @pytest.mark.parametrize("prior_strength,rope", [(0.0, 0.0), (0.5, 0.0), (0.5, 0.125), (0.0, 0.0625)])
    def test_signed_rank_exact_ties_count_one_half(self, prior_strength, rope):
        """Pair sums exactly at the boundary (z_i = 0, z_i + z_j = 0, z_i + z_j = 2r) weigh 1/2 on each side
        they touch. Expected means from the Dirichlet moments; the shares of largest regions from draws made here."""
        z0 = 0.0
        points = TIES if prior_strength == 0 else np.concatenate([[z0], TIES])
        alpha = np.ones(len(TIES)) if prior_strength == 0 else np.concatenate([[prior_strength], np.ones(len(TIES))])
        sums = pair_sums(points)
        assert (sums - 2 * rope == 0).sum() >= 2 and (sums == 0).sum() >= 2  # ties at the boundaries do occur
        moments = dirichlet_second_moments(alpha)
        right, left = (moments * step(sums - 2 * rope)).sum(), (moments * step(-sums - 2 * rope)).sum()
        res = bayesian_signed_rank(TIES, rope=rope, prior_strength=prior_strength, z0=z0, draws=N, random_seed=16)
        for column, mean in ((2, right), (0, left)):
            draws = res.samples[:, column]
            assert abs(draws.mean() - mean) <= 4 * draws.std() / np.sqrt(N), (column, draws.mean(), mean)
        # counting the ties as 0 or 1 instead of 1/2 moves the means by far more than the error
        for wrong in ((sums - 2 * rope > 0), (sums - 2 * rope >= 0)):
            assert abs(res.samples[:, 2].mean() - (moments * wrong).sum()) > 20 * res.samples[:, 2].std() / np.sqrt(N)
        if rope == 0:
            assert res.p_rope == pytest.approx(0, abs=1e-9)  # the half weights of a tie go left and right
        # shares of the largest region, by simulation here (regions tied in a draw share it equally)
        w = np.random.default_rng(17).dirichlet(alpha, size=N)
        own_left, own_right = (np.einsum("ni,ij,nj->n", w, step(v), w) for v in (-sums - 2 * rope, sums - 2 * rope))
        own = np.stack([own_left, 1 - own_left - own_right, own_right], axis=1)
        top = np.isclose(own, own.max(axis=1, keepdims=True), rtol=0, atol=1e-12)
        own_wins = (top / top.sum(axis=1, keepdims=True)).mean(axis=0)
        for lib, mine in zip((res.win_left, res.win_rope, res.win_right), own_wins):
            assert close_in_mc(lib, N, mine, N), (res.wins, own_wins)

    def test_imprecise_exact_ties_count_one_half(self):
        res = imprecise_signed_rank(TIES, draws=N, random_seed=18)
        _, lower, upper = idp_draws(TIES, N, seed=19)
        assert close_in_mc(res.lower, N, np.mean(lower > 0.5), N)
        assert close_in_mc(res.upper, N, np.mean(upper > 0.5), N)
        # H(0) = 0 or 1 would give other lower means (the closed form with ties is checked above)
        moments = dirichlet_second_moments(np.concatenate([[S_IDP], np.ones(len(TIES))]))[1:, 1:]
        for wrong in (pair_sums(TIES) > 0, pair_sums(TIES) >= 0):
            assert abs(res.lower_mean - (moments * wrong).sum()) > 0.01

    def test_regions_tied_in_every_draw_share_the_win(self):
        """All differences zero, no rope: every draw gives P(left) = P(right) = 1/2 exactly (ties weigh 1/2 each
        way), so the two regions share each draw's win equally; the hierarchical new-data-set summary uses the
        same rule."""
        res = bayesian_signed_rank([0.0, 0.0, 0.0], prior_strength=0.0, draws=1000, random_seed=24)
        np.testing.assert_array_equal(res.samples, np.tile([0.5, 0.0, 0.5], (1000, 1)))
        assert (res.win_left, res.win_rope, res.win_right) == (0.5, 0.0, 0.5)
        assert res.decision() == "none"


class TestOrientation:
    def test_every_rank_test_reads_b_minus_a_from_raw_scores(self, raw_b_better):
        scores, z = raw_b_better
        ab, ba = ("old", "new"), ("new", "old")
        greater = wilcoxon_test(scores, algorithms=ab, alternative="greater").pvalue
        assert greater == pytest.approx(stats.wilcoxon(z, alternative="greater").pvalue, rel=1e-12) and greater < 0.05
        assert wilcoxon_test(scores, algorithms=ba, alternative="greater").pvalue > 0.95
        assert wilcoxon_test(scores, algorithms=ba, alternative="less").pvalue == pytest.approx(greater, rel=1e-12)
        assert sign_test(scores, algorithms=ab, alternative="greater").pvalue == pytest.approx(
            stats.binomtest(8, 10, alternative="greater").pvalue, rel=1e-12)
        for test in (bayesian_signed_rank, bayesian_sign_test):
            right, left = (test(scores, algorithms=names, random_seed=21) for names in (ab, ba))
            assert right.p_right > 0.7 and right.p_left < 0.25, test.__name__
            assert left.p_left == pytest.approx(right.p_right, abs=0.02) and left.p_right < 0.25, test.__name__
            assert right.decision() == left.decision() == "new", test.__name__
        idp_ab, idp_ba = (imprecise_signed_rank(scores, algorithms=names, random_seed=22) for names in (ab, ba))
        assert idp_ab.lower > 0.95 and idp_ba.upper < 0.05 and idp_ab.decision() == idp_ba.decision() == "new"
        assert poisson_test(scores, algorithms=ab).p_b_majority > 0.95
        assert poisson_test(scores, algorithms=ba).p_a_majority > 0.95
        assert poisson_test(scores, algorithms=ab).decision() == poisson_test(scores, algorithms=ba).decision() == "new"


Z_PROTOCOL = np.array([0.02, 0.01, 0.03, -0.01, 0.02, 0.04, 0.0, 0.015])


class TestRegionProbabilitiesProtocol:
    def result(self):
        return bayesian_signed_rank(Z_PROTOCOL, rope=0.005, draws=4000, random_seed=0)

    def test_contract(self):
        check_result(self.result())

    def test_frame_numbers_are_the_fields(self):
        res = self.result()
        frame = res.to_frame()
        assert frame["p"].tolist() == [res.p_left, res.p_rope, res.p_right]
        assert frame["win"].tolist() == [res.win_left, res.win_rope, res.win_right]
        assert res.to_dict()["decision"] == res.decision()

    @pytest.mark.parametrize("alpha", [0.05, 0.5])
    @pytest.mark.parametrize("z", [Z_PROTOCOL, Z_PROTOCOL - 0.012])   # clear, and split between the regions
    def test_decision_follows_the_shares_of_largest_regions(self, alpha, z):
        res = bayesian_signed_rank(z, rope=0.005, draws=4000, random_seed=0)
        wins = {"A": res.win_left, "rope": res.win_rope, "B": res.win_right}
        best = max(wins, key=wins.get)
        assert res.decision(alpha) == (best if wins[best] > 1 - alpha else "none")
        assert f"decision at alpha = {alpha:g}: {res.decision(alpha)} (" in res.summary(alpha=alpha)


class TestImpreciseSignedRankResultProtocol:
    def result(self):
        return imprecise_signed_rank(Z_PROTOCOL, draws=4000, random_seed=0)

    def test_contract(self):
        check_result(self.result())

    def test_frame_numbers_are_the_fields(self):
        res = self.result()
        frame = res.to_frame()
        assert frame["p_theta_above_half"].tolist() == [res.lower, res.upper]
        assert frame["theta_mean"].tolist() == [res.lower_mean, res.upper_mean]

    @pytest.mark.parametrize("alpha", [0.05, 0.4])
    def test_decision_against_one_minus_alpha(self, alpha):
        res = self.result()
        want = "B" if res.lower > 1 - alpha else "A" if res.upper < 1 - alpha else "indeterminate"
        assert res.decision(alpha) == want

    def test_default_is_the_loss_ratios_threshold(self):
        res = imprecise_signed_rank(Z_PROTOCOL, loss_ratio=1.0, draws=4000, random_seed=0)
        assert res.alpha == 0.5 and res.decision() == res.decision(0.5) and res.decision() in res.summary()
        with pytest.raises(ValueError, match="^alpha must"):
            res.decision(-0.5)


class TestWilcoxonAndSignTestResultProtocol:
    @pytest.mark.parametrize("test", [wilcoxon_test, sign_test])
    def test_contract_and_names(self, test):
        res = test(Z_PROTOCOL)
        check_result(res)
        assert res.to_frame().loc[0, "pvalue"] == res.pvalue and res.to_dict()["statistic"] == res.statistic

    @pytest.mark.parametrize("alpha", [0.01, 0.1])
    @pytest.mark.parametrize("sign", [1, -1])
    def test_decision_is_the_side_the_data_favour_when_rejected(self, alpha, sign):
        z = sign * Z_PROTOCOL
        for res in (wilcoxon_test(z), sign_test(z)):
            assert res.decision(alpha) == (("B" if sign > 0 else "A") if res.pvalue < alpha else "none")

    def test_rank_sums_are_t_plus_and_t_minus(self):
        res = wilcoxon_test(Z_PROTOCOL)
        ranks = stats.rankdata(np.abs(Z_PROTOCOL))
        assert res.t_plus == ranks[Z_PROTOCOL > 0].sum() + ranks[Z_PROTOCOL == 0].sum() / 2
        assert res.t_plus + res.t_minus == ranks.sum() and res.statistic == min(res.t_plus, res.t_minus)

    def test_names_come_from_the_scores(self, raw_b_better):
        scores, _ = raw_b_better
        res = sign_test(scores, algorithms=("old", "new"))
        assert res.names == ("old", "new") and res.decision(0.2) == "new" and "new vs old" in res.summary()
