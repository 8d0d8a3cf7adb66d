"""The simulation study: the counts-based simulator against an instance-level one, the statistics against
scipy and the Poisson test, calibration against exact enumeration, reproducibility."""
import itertools
import warnings

import numba
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats

from pp_corr import poisson_test
from pp_corr.pairwise.ttest import DegenerateWarning, correlated_ttest, study_tails
from pp_corr.studies.bayes_net import (_ITEMWISE, _below, _next, cv_differences, cv_differences_instances, fold_sizes,
                                       split_counts)
from pp_corr.studies.simulation import (CHUNK, bayesian_network_study, experiment_1, rejection_rates, study_statistics,
                                        toy_example)


def chi2_homogeneity(a, b):
    """p-value of a chi-square test that two samples of a discrete variable share one distribution
    (categories with fewer than 10 observations pooled)."""
    a, b = np.round(a, 9), np.round(b, 9)
    values = np.union1d(a, b)
    table = np.array([[np.sum(s == v) for v in values] for s in (a, b)])
    rare = table.sum(axis=0) < 10
    table = np.column_stack([table[:, ~rare], table[:, rare].sum(axis=1)]) if rare.any() else table
    return stats.chi2_contingency(table).pvalue


def chisquare_pooled(observed, expected):
    """p-value of a chi-square goodness-of-fit test with the categories expected fewer than 5 times pooled into one,
    whose expectation is what the others leave of ``observed``'s total (so ``expected`` may omit categories never
    observed)."""
    rare = expected < 5
    f_obs, f_exp = observed[~rare], expected[~rare]
    if rare.any():
        f_obs, f_exp = np.append(f_obs, observed[rare].sum()), np.append(f_exp, observed.sum() - f_exp.sum())
    return stats.chisquare(f_obs, f_exp * f_obs.sum() / f_exp.sum()).pvalue


@pytest.mark.long
@pytest.mark.parametrize("size", [25, 100])
def test_counts_simulator_agrees_with_instance_level(size):
    reps, runs = 2000, 2
    counts = cv_differences(np.full(reps, 0.1), size, runs=runs, random_seed=1)
    instances = cv_differences_instances(np.full(reps, 0.1), size, runs=runs, random_seed=2)
    for fold in (0, 9, 10):  # the first and last fold of run 1, the first of run 2
        assert chi2_homogeneity(counts[:, fold], instances[:, fold]) > 0.001, fold
    means = [x.mean(axis=1) for x in (counts, instances)]
    se = np.sqrt(sum(m.var() / reps for m in means))
    assert abs(means[0].mean() - means[1].mean()) < 4 * se
    assert stats.ks_2samp(*means).pvalue > 0.001
    # runs re-split one data set: the correlation between the two runs' means must agree too
    r = [np.corrcoef(x[:, :10].mean(axis=1), x[:, 10:].mean(axis=1))[0, 1] for x in (counts, instances)]
    assert abs(np.arctanh(r[0]) - np.arctanh(r[1])) < 4 * np.sqrt(2 / (reps - 3)), r


def test_fold_split_is_multivariate_hypergeometric():
    rng = np.random.default_rng(3)
    counts = np.array([7, 3, 5, 10])
    test = split_counts(np.broadcast_to(counts, (20000, 4)), np.broadcast_to(fold_sizes(25, 10), (20000, 10)), rng)
    assert (test.sum(axis=1) == counts).all() and (test.sum(axis=2) == fold_sizes(25, 10)).all()
    # the first fold (3 instances) against the exact multivariate hypergeometric pmf
    cells, freq = np.unique(test[:, 0], axis=0, return_counts=True)
    exact = np.array([stats.multivariate_hypergeom.pmf(c, counts, 3) for c in cells])
    assert exact.sum() == pytest.approx(1)
    assert stats.chisquare(freq, exact * len(test)).pvalue > 0.001


@pytest.mark.parametrize("sizes", [fold_sizes(20 * _ITEMWISE, 10),
                                   _ITEMWISE + np.array([1, 0, -1, 40, -80, 150, 1 - _ITEMWISE, -21])],
                         ids=["folds by inversion", "both kinds of folds"])
def test_every_fold_holds_hypergeometric_cell_counts(sizes):
    """A test fold is a uniform random subset of its size, so each of its cell counts is hypergeometric whatever
    the order of the folds: folds drawn instance by instance (at most _ITEMWISE) and by inversion alike, each
    fold and cell against scipy's pmf (chi-square, expected counts below 5 pooled, Bonferroni over all)."""
    reps, n = 20000, sizes.sum()
    counts = np.array([3, 2, 2, 3]) * n // 10
    counts[3] = n - counts[:3].sum()
    test = split_counts(np.broadcast_to(counts, (reps, 4)), np.broadcast_to(sizes, (reps, len(sizes))),
                        np.random.default_rng(11))
    assert (test.sum(axis=1) == counts).all() and (test.sum(axis=2) == sizes).all()
    pvalues = []
    for j, size in enumerate(sizes):
        for cell in range(4):
            expected = reps * stats.hypergeom(n, counts[cell], size).pmf(np.arange(size + 1))
            observed = np.bincount(test[:, j, cell], minlength=size + 1)
            if (expected >= 5).any():
                pvalues.append(chisquare_pooled(observed, expected))
    assert min(pvalues) > 0.001 / len(pvalues), min(pvalues)


def test_whole_splits_follow_the_exact_joint_law():
    """Every fold of a run at once: 12 instances (cells 4, 3, 3, 2) into folds of 5, 4 and 3, 40,000 runs; each
    distinct split's frequency against its exact probability, the product of the folds' multivariate
    hypergeometric pmfs given what the earlier folds left (chi-square, rare splits pooled)."""
    counts, sizes, reps = np.array([4, 3, 3, 2]), np.array([5, 4, 3]), 40_000
    test = split_counts(np.broadcast_to(counts, (reps, 4)), np.broadcast_to(sizes, (reps, 3)),
                        np.random.default_rng(14))
    splits, observed = np.unique(test.reshape(reps, -1), axis=0, return_counts=True)

    def probability(split):
        left, p = counts.copy(), 1.0
        for fold, size in zip(split.reshape(3, 4)[:-1], sizes[:-1]):
            p *= stats.multivariate_hypergeom.pmf(fold, left, size)
            left = left - fold
        return p

    expected = reps * np.array([probability(split) for split in splits])
    assert expected.sum() == pytest.approx(reps, rel=0.02)  # the splits never seen are rare
    assert chisquare_pooled(observed, expected) > 0.001


@numba.njit
def _generator_output(state, n):
    out = np.empty(n, dtype=np.uint64)
    for i in range(n):
        out[i], state = _next(state)
    return out


@numba.njit
def _bounded_draws(state, bound, n):
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        bits, state = _next(state)
        out[i], state = _below(bits >> np.uint64(32), np.uint64(bound), state)
    return out


def test_the_kernels_generator_is_xoshiro256_starstar():
    """The compiled generator's first 1,000 outputs against the published algorithm (Blackman & Vigna 2021) in
    Python integers."""
    mask = 2**64 - 1

    def rotl(x, k):
        return ((x << k) | (x >> (64 - k))) & mask

    seed = np.random.default_rng(12).integers(1, 2**64, size=4, dtype=np.uint64)
    s, expected = [int(v) for v in seed], []
    for _ in range(1000):
        expected.append(rotl(s[1] * 5 & mask, 7) * 9 & mask)
        t = s[1] << 17 & mask
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
    assert [int(v) for v in _generator_output(tuple(seed), 1000)] == expected


@pytest.mark.parametrize("bound", [7, 3 * 2**30])
def test_bounded_draws_are_uniform(bound):
    """Uniform integers below ``bound`` from 32 random bits. At 3 * 2**30, multiplying alone, floor(3 x / 4), would
    give the multiples of 3 two preimages x and the others one, so half the draws would be 0 mod 3; Lemire's
    rejection (a quarter of the draws there) makes the residues equal. Chi-square on 300,000 draws."""
    seed = np.random.default_rng(13).integers(1, 2**64, size=4, dtype=np.uint64)
    draws = _bounded_draws(tuple(seed), bound, 300_000)
    assert draws.min() >= 0 and draws.max() < bound
    bins = draws if bound < 100 else draws % 3
    assert stats.chisquare(np.bincount(bins, minlength=min(bound, 3))).pvalue > 0.001


@settings(max_examples=60, deadline=None)
@given(good=st.integers(0, 400), bad=st.integers(1, 400), share=st.floats(0, 1))
def test_hypergeometric_draw_maps_uniforms_to_the_exact_pmf(good, bad, share):
    """The compiled draw is a deterministic map of u in (0, 1): on a fine grid of u, the share of points mapped
    to each k must be scipy's hypergeometric pmf(k) (each k owns one interval of length pmf(k), so the grid
    misses by at most one point per interval end)."""
    assert_draws_follow_the_pmf(good, bad, int(round(share * (good + bad))))


@pytest.mark.long
@settings(max_examples=80, deadline=None)
@given(good=st.integers(0, 60), bad=st.integers(1, 60), sample=st.integers(0, 16))
def test_small_hypergeometric_draws_map_uniforms_to_the_exact_pmf(good, bad, sample):
    """The same for small samples, where the search from the mode meets the support's ends within a few steps."""
    assume(sample <= good + bad)
    assert_draws_follow_the_pmf(good, bad, sample)


def assert_draws_follow_the_pmf(good, bad, sample):
    from scipy import special

    from pp_corr.studies.bayes_net import _hypergeometric
    log_factorial = special.gammaln(np.arange(good + bad + 2))
    grid = (np.arange(20_000) + 0.5) / 20_000
    draws = np.array([_hypergeometric(good, bad, sample, log_factorial, u) for u in grid])
    ks = np.arange(sample + 1)
    shares = np.bincount(draws, minlength=sample + 1)[: sample + 1] / len(grid)
    np.testing.assert_allclose(shares, stats.hypergeom(good + bad, good, sample).pmf(ks), atol=2.5 / len(grid))


def test_mean_difference_approaches_delta_as_data_sets_grow():
    delta, reps = 0.05, 4000
    gaps = {}
    for size in (25, 100, 1000):
        x = cv_differences(np.full(reps, delta), size, random_seed=size).mean(axis=1)
        gaps[size] = (x.mean(), x.std() / np.sqrt(reps))
    # small data sets: the learned network often picks the wrong association, so the gap is smaller
    assert gaps[25][0] + 4 * gaps[25][1] < delta - 0.01
    assert gaps[25][0] < gaps[100][0] < gaps[1000][0] + 4 * gaps[1000][1]
    assert abs(gaps[1000][0] - delta) < 0.005 + 4 * gaps[1000][1]
    # a negative delta (zeroR better) mirrors the differences
    assert cv_differences([-delta], 1000, random_seed=1).mean() == pytest.approx(
        -cv_differences([delta], 1000, random_seed=1).mean())


def test_study_statistics_equal_the_poisson_and_wilcoxon_tests():
    rng = np.random.default_rng(4)
    x = rng.normal(0.005, 0.03, size=(3, 12, 10))
    x[1, 4] = 0.0  # a zero-variance, zero-mean data set
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no DegenerateWarning: the studies run in threads, where it can't be silenced
        majority, pvalue, mean = study_statistics(x, rho=0.1)
    for rep in range(3):
        with pytest.warns(UserWarning) if rep == 1 else np.errstate():
            expected = poisson_test(x[rep], rho=0.1).p_b_majority
        assert majority[rep] == pytest.approx(expected, rel=1e-12)
        assert pvalue[rep] == pytest.approx(stats.wilcoxon(x[rep].mean(axis=1), alternative="greater").pvalue)
        assert mean[rep] == pytest.approx(x[rep].mean())


def test_study_tails_are_the_correlated_ttests_bits():
    """study_tails (no names, no warning) against the public correlated t-test, point masses included."""
    rng = np.random.default_rng(8)
    x = np.round(rng.normal(0.0, 0.02, size=(40, 6, 10)), 2)  # rounding makes ties and equal folds
    x[3, 2], x[7, 0] = 0.0, 0.01
    right, not_right = study_tails(x, 0.1)
    with pytest.warns(DegenerateWarning):
        res = correlated_ttest(x.reshape(-1, 10), rho=0.1)
    np.testing.assert_array_equal(right, res.p_right.reshape(40, 6))
    np.testing.assert_array_equal(not_right, res.p_not_right.reshape(40, 6))
    assert right[7, 0] == 1.0 and right[3, 2] == 0.5


def test_wilcoxon_type_one_error_equals_exact_enumeration():
    """Under a symmetric continuous null, the rejection rate equals the exact size of the test, found by
    enumerating the 2^10 sign patterns of the ranks."""
    signs = np.array(list(itertools.product([-1, 1], repeat=10)))
    exact_size = np.mean(stats.wilcoxon(signs * np.arange(1, 11), axis=-1, alternative="greater").pvalue < 0.05)
    rng = np.random.default_rng(5)
    x = rng.normal(0, rng.uniform(0.01, 0.05, size=(20000, 10, 1)), size=(20000, 10, 10))
    rate = np.mean(study_statistics(x, rho=0.0)[1] < 0.05)
    assert abs(rate - exact_size) < 4 * np.sqrt(exact_size * (1 - exact_size) / len(x)), (rate, exact_size)


def test_results_do_not_depend_on_the_number_of_workers():
    kwargs = dict(deltas=[0.0, 0.05], runs=(1, 2), n_datasets=5, repetitions=CHUNK + 10, random_seed=6,
                  progressbar=False)
    serial, parallel = bayesian_network_study(workers=1, **kwargs), bayesian_network_study(workers=2, **kwargs)
    assert serial.identical(parallel)
    other = bayesian_network_study(workers=1, **{**kwargs, "random_seed": 7})
    assert not np.array_equal(serial.mean_difference, other.mean_difference)
    assert dict(serial.sizes) == {"delta": 2, "runs": 2, "n_datasets": 1, "repetition": CHUNK + 10}


def test_rejection_rates_and_power():
    res = experiment_1(deltas=[0.0, 0.1], runs=1, repetitions=300, workers=1, random_seed=8, progressbar=False)
    rates = rejection_rates(res)
    assert rates.rate.dims == ("test", "delta", "runs", "n_datasets")
    by_hand = np.mean(res.p_b_majority.sel(delta=0.1) > 0.95)
    assert float(rates.rate.sel(test="poisson", delta=0.1).squeeze()) == pytest.approx(float(by_hand))
    # delta = 0.1 on 50 data sets: both tests always see it; delta = 0: below the level
    assert (rates.rate.sel(delta=0.1) > 0.95).all()
    assert (rates.rate.sel(delta=0.0) <= 0.05 + 4 * rates.se.sel(delta=0.0).clip(min=0.01)).all()


@pytest.mark.long
def test_toy_example():
    """Case 1: the ten |means| are exchangeable and the five of D1..D5 are the positive ones, so T+ is the rank
    sum of a uniformly random half of 1..10 (exact, by enumeration); T+ <= 40, so the Wilcoxon p-value never
    falls below p(40) = 0.116. Case 2 is not the same distribution: the noisier D6..D10 spread to both ends of
    the ranking and now and then change sign, so T+ spreads more - yet Wilcoxon still does not declare B better."""
    reps = 20_000
    res = toy_example(repetitions=reps, random_seed=9)
    # T+ from the p-value: scipy's exact one-sided p-value (10 non-zero means) falls strictly as T+ grows
    signs = np.array(list(itertools.product([-1, 1], repeat=10)))
    t_plus = (signs > 0) @ np.arange(1, 11)
    p_of = {int(t): stats.wilcoxon(s * np.arange(1, 11), alternative="greater").pvalue for t, s in zip(t_plus, signs)}
    p_table = np.array([p_of[t] for t in range(56)])
    assert (np.diff(p_table) < 0).all()
    half_sums = np.array([sum(c) for c in itertools.combinations(range(1, 11), 5)])
    exact = np.bincount(half_sums, minlength=56) / len(half_sums)
    exact_sd = np.sqrt(5 * 5 * 11 / 12)   # sd of the sum of a random half of 1..10
    observed = []
    for case in range(2):
        p = res.wilcoxon_pvalue.values[case]
        t = np.abs(p[:, None] - p_table[None, :]).argmin(axis=1)
        np.testing.assert_allclose(p, p_table[t], rtol=1e-12)
        observed.append(t)
    case1, case2 = observed
    counts1, counts2 = (np.bincount(t, minlength=56) for t in observed)
    support = exact > 0
    assert counts1[~support].sum() == 0
    assert stats.chisquare(counts1[support], exact[support] * reps).pvalue > 0.001
    assert abs(case1.std() - exact_sd) < 4 * exact_sd / np.sqrt(2 * reps)
    assert (res.wilcoxon_pvalue.values[0] >= p_table[40]).all() and p_table[40] > 0.1
    # case 2: the same goodness-of-fit test rejects, T+ has a larger sd and sometimes leaves the case-1 support
    in_support = counts2[support]
    assert stats.chisquare(in_support, exact[support] * in_support.sum()).pvalue < 1e-6
    assert case2.std() > exact_sd + 4 * case2.std() / np.sqrt(2 * reps)
    assert counts2[~support].sum() > 0
    rates = rejection_rates(res).rate
    assert float(rates.sel(test="wilcoxon").isel(case=0)) == 0 and float(rates.sel(test="wilcoxon").isel(case=1)) < 1e-3
    # the Poisson test sees the noise of D6..D10: P(X > q/2) is far larger in case 2, rarely above 0.95
    maj1, maj2 = res.p_b_majority.values
    assert np.median(maj2) > 10 * np.median(maj1)
    assert float(rates.sel(test="poisson").isel(case=0)) < 1e-3 and float(rates.sel(test="poisson").isel(case=1)) < 0.01


def test_bad_input():
    with pytest.raises(ValueError, match="distribution"):
        bayesian_network_study([0.0], distribution="normal", repetitions=1, progressbar=False)
    with pytest.raises(ValueError, match="deltas"):
        bayesian_network_study([0.7], repetitions=1, progressbar=False)
    with pytest.raises(ValueError, match="random_seed must be an int"):
        bayesian_network_study([0.0], repetitions=1, random_seed=np.random.default_rng(0), progressbar=False)
    with pytest.raises(ValueError, match="sizes"):
        cv_differences([0.1], 5, folds=10)
    with pytest.raises(ValueError, match="alpha"):
        rejection_rates(toy_example(repetitions=5, random_seed=0, workers=1, progressbar=False), alpha=1.5)
