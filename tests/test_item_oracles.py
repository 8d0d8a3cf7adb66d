"""Self-checks of the independent item-level oracles in tests/item_oracles.py (numpy/scipy only, no pp_corr).

(a) the two deterministic CDF methods for the Dirichlet mean agree, and agree with closed forms; (b) both agree with
10^6 Monte Carlo draws; (c) the item-clustered interval is ttest_1samp(d)'s; (d) simulate_benchmark's truth is the
mean of d over many benchmarks; (e) the item-clustered interval covers ~95% without run shifts and clearly less with
them."""
import math

import numpy as np
import pytest
from scipy import special, stats

from tests.item_oracles import (binary_alpha_for_difference, coverage, dirichlet_mean_difference_cdf,
                                dirichlet_mean_difference_quantile, distinct_value_counts, item_clustered_interval,
                                item_differences, logistic_normal_mean, simulate_benchmark,
                                uniform_dirichlet_mean_cdf_exact)

THREE_VALUE_CASES = [
    ((-1.0, 0.0, 1.0), (5, 3, 7)),
    ((-1.0, 0.0, 1.0), (5, 0, 7)),          # n0 = 0
    ((-1.0, 0.0, 1.0), (1, 1, 1)),          # counts of 1
    ((-1.0, 0.0, 1.0), (1, 0, 1)),          # n0 = 0 and counts of 1: uniform on [-1, 1]
    ((-1.0, 0.0, 1.0), (1, 5, 1)),
    ((-1.0, 0.0, 1.0), (0, 4, 9)),          # n- = 0
    ((-1.0, 0.0, 1.0), (30, 200, 45)),
    ((-1.0, 0.0, 1.0), (300, 1500, 320)),
    ((-0.5, 0.2, 1.3), (2, 4, 3)),          # asymmetric support
    ((-1.0, 0.0, 1.0), (0.7, 1.0, 2.0)),    # non-integer counts
    ((-1.0, 0.0, 1.0), (0.3, 0.4, 0.5)),    # counts < 1: singular densities
    ((-1 / 3, 0.0, 1 / 3), (1, 1, 1)),
]


def t_grid(values):
    lo, hi = min(values), max(values)
    inner = np.linspace(lo, hi, 17)[1:-1]
    return np.concatenate([inner, [0.0, 1e-9, -1e-9, lo + 1e-6 * (hi - lo), hi - 1e-6 * (hi - lo)]])


# -------------------------------------------------------------------------------------------------- (a) deterministic

@pytest.mark.parametrize("values, counts", THREE_VALUE_CASES)
def test_beta_and_gil_pelaez_methods_agree_on_three_values(values, counts):
    t = t_grid(values)
    beta = dirichlet_mean_difference_cdf(values, counts, t, method="beta")
    gil_pelaez = dirichlet_mean_difference_cdf(values, counts, t, method="gil-pelaez")
    assert np.all((beta >= 0) & (beta <= 1))
    assert np.max(np.abs(beta - gil_pelaez)) < 1e-9        # observed <= ~1e-12
    assert np.all(np.diff(beta[np.argsort(t)]) >= -1e-12)  # a CDF


def test_two_values_are_a_scaled_beta():
    values, counts = (-0.4, 1.1), (3.5, 6.0)
    t = np.linspace(-0.39, 1.09, 25)
    exact = special.betainc(6.0, 3.5, (t + 0.4) / 1.5)     # theta = -0.4 + 1.5 p, p ~ Beta(6, 3.5)
    for method in ("beta", "gil-pelaez"):
        assert np.max(np.abs(dirichlet_mean_difference_cdf(values, counts, t, method=method) - exact)) < 1e-12


@pytest.mark.parametrize("values", [(-1.0, -0.3, 0.1, 0.5, 2.0), (-2.0, -1.0, 0.5, 1.0, 1.5, 3.0), (-1.0, 0.0, 1.0)])
def test_gil_pelaez_against_the_exact_uniform_dirichlet_formula(values):
    t = np.linspace(min(values), max(values), 41)[1:-1]     # includes t equal to some of the values
    exact = np.array([uniform_dirichlet_mean_cdf_exact(values, x) for x in t])
    got = dirichlet_mean_difference_cdf(values, np.ones(len(values)), t, method="gil-pelaez")
    assert np.max(np.abs(got - exact)) < 1e-10             # observed ~1e-14


def test_cdf_edges_merging_and_symmetry():
    values, counts = (-1.0, 0.0, 1.0), (4, 6, 4)
    assert dirichlet_mean_difference_cdf(values, counts, -1.0) == 0.0
    assert dirichlet_mean_difference_cdf(values, counts, -3.0) == 0.0
    assert dirichlet_mean_difference_cdf(values, counts, 1.0) == 1.0
    assert dirichlet_mean_difference_cdf(values, counts, 0.0) == pytest.approx(0.5, abs=1e-13)
    t = np.array([0.05, 0.2, 0.6])
    for method in ("beta", "gil-pelaez"):
        up = dirichlet_mean_difference_cdf(values, counts, t, method=method)
        down = dirichlet_mean_difference_cdf(values, counts, -t, method=method)
        assert np.max(np.abs(up + down - 1.0)) < 1e-12
    assert dirichlet_mean_difference_quantile(values, counts, 0.5) == pytest.approx(0.0, abs=1e-11)
    # zero counts are dropped and repeated values merged
    assert dirichlet_mean_difference_cdf((1.0, -1.0, 0.0, 1.0, 7.0), (1, 4, 6, 3, 0), 0.3) == pytest.approx(
        dirichlet_mean_difference_cdf(values, counts, 0.3), abs=1e-14)
    # one support point: a step
    assert dirichlet_mean_difference_cdf((0.25,), (3,), [0.2, 0.25, 0.3]).tolist() == [0.0, 1.0, 1.0]
    assert dirichlet_mean_difference_quantile((0.25, 0.5), (3, 0), 0.4) == 0.25
    with pytest.raises(ValueError):
        dirichlet_mean_difference_cdf((-1, 0, 1, 2), (1, 1, 1, 1), 0.0, method="beta")
    with pytest.raises(ValueError):
        dirichlet_mean_difference_cdf((-1, 1), (-1, 2), 0.0)


def test_distinct_value_counts_merges_floating_point_noise():
    d = np.array([1 / 3, 2 / 3 - 1 / 3, 1.0 - 2 / 3, 0.0, -0.0, 0.5, 0.5])
    values, counts = distinct_value_counts(d)
    assert values.tolist() == [0.0, round(1 / 3, 12), 0.5]
    assert counts.tolist() == [2.0, 3.0, 2.0]


# -------------------------------------------------------------------------------------------------- (b) Monte Carlo

MC_DRAWS = 1_000_000
MC_CASES = [
    ((-1.0, 0.0, 1.0), (5, 3, 7)),
    ((-1.0, 0.0, 1.0), (5, 0, 7)),
    ((-1.0, 0.0, 1.0), (1, 1, 1)),
    ((-1.0, 0.0, 1.0), (30, 200, 45)),
    ((-0.5, 0.2, 1.3), (0.7, 4, 3)),
    (tuple(np.arange(-3, 4) / 3), (3, 10, 40, 150, 60, 25, 12)),       # binary items, 3 runs: d in {-1, ..., 1}
    ((-2.0, -0.7, -0.1, 0.4, 0.9, 2.5), (1, 2.5, 1, 0.5, 3, 1)),
]


@pytest.mark.parametrize("case", range(len(MC_CASES)))
def test_cdf_and_quantile_against_monte_carlo(case):
    values, counts = (np.asarray(x, dtype=float) for x in MC_CASES[case])
    keep = counts > 0
    rng = np.random.default_rng(1000 + case)
    gammas = rng.standard_gamma(counts[keep], size=(MC_DRAWS, int(keep.sum())))
    theta = gammas @ values[keep] / gammas.sum(axis=1)
    t = np.quantile(theta, [0.001, 0.025, 0.2, 0.5, 0.8, 0.975, 0.999])
    mc = (theta[:, None] <= t[None, :]).mean(axis=0)
    se = np.sqrt(np.maximum(mc * (1 - mc), 1e-6) / MC_DRAWS)
    methods = ("beta", "gil-pelaez") if keep.sum() <= 3 else ("gil-pelaez",)
    for method in methods:
        exact = dirichlet_mean_difference_cdf(values, counts, t, method=method)
        assert np.all(np.abs(exact - mc) < 4 * se), (method, (exact - mc) / se)
    probs = np.array([0.025, 0.975])
    q = dirichlet_mean_difference_quantile(values, counts, probs)
    assert np.max(np.abs(dirichlet_mean_difference_cdf(values, counts, q) - probs)) < 1e-10
    mc_at_q = (theta[:, None] <= q[None, :]).mean(axis=0)
    assert np.all(np.abs(mc_at_q - probs) < 4 * np.sqrt(probs * (1 - probs) / MC_DRAWS))


def test_bayesian_bootstrap_of_a_continuous_sample():
    """Many distinct values (counts 1): the Bayesian bootstrap of the mean of 300 draws, against 2e5 draws."""
    rng = np.random.default_rng(11)
    values, counts = distinct_value_counts(rng.normal(0.1, 1.0, 300))
    assert len(values) == 300
    weights = rng.standard_gamma(np.ones(300), size=(200_000, 300))
    theta = weights @ values / weights.sum(axis=1)
    t = np.quantile(theta, [0.025, 0.5, 0.975])
    mc = (theta[:, None] <= t[None, :]).mean(axis=0)
    exact = dirichlet_mean_difference_cdf(values, counts, t)
    assert np.all(np.abs(exact - mc) < 4 * np.sqrt(mc * (1 - mc) / len(theta)))


# ------------------------------------------------------------------------------------------ (c) item-clustered interval

@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_item_clustered_interval_is_the_one_sample_t_interval_of_item_differences(level):
    rng = np.random.default_rng(3)
    y_a, y_b = rng.normal(size=(50, 3)), rng.normal(0.2, 1.0, size=(50, 3)) + rng.normal(size=(50, 1))
    d = y_b.mean(axis=1) - y_a.mean(axis=1)
    estimate, lo, hi, se = item_clustered_interval(y_a, y_b, level=level)
    result = stats.ttest_1samp(d, 0.0)
    ci = result.confidence_interval(confidence_level=level)
    assert estimate == pytest.approx(d.mean(), abs=1e-14)
    assert (lo, hi) == pytest.approx((ci.low, ci.high), abs=1e-13)
    assert se == pytest.approx(estimate / result.statistic, rel=1e-12)
    assert np.allclose(item_differences(y_a, y_b), d)
    # binary scores, different numbers of runs per model
    y_a, y_b = rng.integers(0, 2, size=(40, 2)), rng.integers(0, 2, size=(40, 5))
    d = y_b.mean(axis=1) - y_a.mean(axis=1)
    ci = stats.ttest_1samp(d, 0.0).confidence_interval(confidence_level=level)
    assert item_clustered_interval(y_a, y_b, level)[1:3] == pytest.approx((ci.low, ci.high), abs=1e-13)


def test_coverage_helper():
    intervals = [(0.0, 1.0), (0.5, 2.0), (-1.0, 0.2), (0.3, 0.3)]
    assert coverage(intervals, 0.3) == pytest.approx((0.5, 0.25))      # the first and the last (closed) cover
    as_tuples = [(0.5, lo, hi, 0.1) for lo, hi in intervals]
    assert coverage(as_tuples, 0.3) == coverage(intervals, 0.3)
    assert coverage(intervals, [0.3, 0.3, 0.3, 5.0])[0] == 0.25


# ------------------------------------------------------------------------------------------- (d) simulation truth

def test_logistic_normal_mean_gauss_hermite_against_quad():
    for alpha in (-6.0, -2.0, 0.0, 0.3, 2.0, 5.0):
        for sigma in (0.1, 1.0, 1.5, 2.5, 3.0):
            assert logistic_normal_mean(alpha, sigma, "gauss-hermite") == pytest.approx(
                logistic_normal_mean(alpha, sigma, "quad"), abs=1e-14)
    assert logistic_normal_mean(0.0, 4.0) == pytest.approx(0.5, abs=1e-15)
    for difference, sigma in ((0.1, 1.5), (-0.45, 3.5), (0.3, 0.0)):
        alpha_b = binary_alpha_for_difference(difference, sigma)
        assert logistic_normal_mean(alpha_b, sigma) - 0.5 == pytest.approx(difference, abs=1e-13)


SIM = dict(item_sd=1.5, model_item_sd=0.7)


@pytest.mark.parametrize("kind, difference, run_shift_sd, items, runs, benchmarks", [
    ("continuous", 0.3, 0.0, 1000, 20, 200),
    ("continuous", -0.2, 0.8, 1000, 20, 200),
    ("binary", 0.1, 0.0, 1000, 20, 200),
    ("binary", 0.2, 1.2, 200, 100, 400),
])
def test_simulated_truth_is_the_mean_difference(kind, difference, run_shift_sd, items, runs, benchmarks):
    rng = np.random.default_rng(7)
    means = np.empty(benchmarks)
    for k in range(benchmarks):
        y_a, y_b, truth = simulate_benchmark(rng, items=items, runs=runs, kind=kind, difference=difference,
                                             run_shift_sd=run_shift_sd, **SIM)
        assert y_a.shape == y_b.shape == (items, runs)
        means[k] = item_differences(y_a, y_b).mean()
    assert truth == pytest.approx(difference, abs=1e-12)
    se = means.std(ddof=1) / math.sqrt(benchmarks)
    assert abs(means.mean() - truth) < 4 * se, (means.mean(), truth, se)
    if kind == "binary":
        assert set(np.unique(y_a)) <= {0.0, 1.0}
        # The check has teeth: the truth on the logit scale at the mean effect (expit(alpha_B) - 1/2) is far off,
        # and so, with large run shifts, is the logistic-normal mean that forgets them.
        sigma = math.sqrt(SIM["item_sd"] ** 2 + SIM["model_item_sd"] ** 2 + run_shift_sd ** 2)
        alpha_b = binary_alpha_for_difference(difference, sigma)
        assert abs(special.expit(alpha_b) - 0.5 - means.mean()) > 10 * se
        if run_shift_sd > 0:
            forgetting = logistic_normal_mean(alpha_b, math.hypot(SIM["item_sd"], SIM["model_item_sd"])) - 0.5
            assert abs(forgetting - means.mean()) > 8 * se


# ------------------------------------------------------------------------------------------------- (e) coverage

def clustered_coverage(run_shift_sd, benchmarks=400, items=300, runs=3, seed=2024):
    rng = np.random.default_rng(seed)
    intervals, truth = [], None
    for _ in range(benchmarks):
        y_a, y_b, truth = simulate_benchmark(rng, items=items, runs=runs, kind="continuous", difference=0.1,
                                             item_sd=1.0, model_item_sd=0.5, run_shift_sd=run_shift_sd,
                                             noise_sd=1.0)
        intervals.append(item_clustered_interval(y_a, y_b))
    return coverage(intervals, truth)


def test_item_clustered_interval_covers_95_percent_without_run_shifts(capsys):
    fraction, se = clustered_coverage(0.0)
    with capsys.disabled():
        print(f"\nitem-clustered 95% interval, no run shifts: coverage {fraction:.3f} +- {se:.3f}")
    assert abs(fraction - 0.95) < 4 * math.sqrt(0.95 * 0.05 / 400), fraction


def test_item_clustered_interval_under_covers_with_run_shifts(capsys):
    fraction, se = clustered_coverage(0.3)
    # Approximate coverage: the estimate's error is N(0, s_i^2 / I + 2 s_u^2 / R) (item part plus the mean run shift
    # of B minus that of A, shared by all items), the interval's half width ~ t_{0.975, I-1} s_i / sqrt(I), with
    # s_i^2 = 2 model_item_sd^2 + 2 noise_sd^2 / R the variance of d_i given the run shifts.
    items, runs = 300, 3
    s_i2 = 2 * 0.5 ** 2 + 2 * 1.0 ** 2 / runs
    ratio = stats.t.ppf(0.975, items - 1) * math.sqrt(s_i2 / items) / math.sqrt(s_i2 / items + 2 * 0.3 ** 2 / runs)
    predicted = 2 * stats.norm.cdf(ratio) - 1
    with capsys.disabled():
        print(f"\nitem-clustered 95% interval, run_shift_sd=0.3: coverage {fraction:.3f} +- {se:.3f} "
              f"(predicted {predicted:.3f})")
    assert fraction < 0.95 - 10 * math.sqrt(0.95 * 0.05 / 400)
    assert abs(fraction - predicted) < 4 * math.sqrt(predicted * (1 - predicted) / 400)
