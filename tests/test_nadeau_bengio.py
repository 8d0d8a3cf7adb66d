"""The procedures of Nadeau & Bengio: every estimate, variance, statistic, p-value and interval against the
formulas written out here from the per-split losses; #6 against the library's corrected t-test; the exact 5x2cv
variants against their t distributions by simulation."""
import math

import numpy as np
import pytest
from scipy import stats
from sklearn.dummy import DummyRegressor
from sklearn.linear_model import LinearRegression

from pp_corr import corrected_ttest, correlated_ttest
from pp_corr.studies.nadeau_bengio import (PROCEDURES, NadeauBengioResult, nadeau_bengio, procedure_moments,
                                           procedures_from_splits, run_designs, t_statistics)
from pp_corr.studies.resampling import to_scores

J, M, R, N_TEST = 6, 4, 5, 12


@pytest.fixture(scope="module")
def splits():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(60, 1))
    y = 0.3 * x[:, 0] + rng.normal(size=60)
    return run_designs(DummyRegressor(), LinearRegression(), x, y, n_test=N_TEST, splits=J, halvings=M,
                       repetitions=R, random_seed=1)


def sample_var(values):
    values = list(values)
    mean = sum(values) / len(values)
    return sum((v - mean) ** 2 for v in values) / (len(values) - 1)


def hand_moments(res):
    """(estimate, variance, df) of each procedure, written from the table of section 11 with Python loops."""
    diff = [float(a - b) for a, b in zip(res.loss.sel(algorithm="A").values, res.loss.sel(algorithm="B").values)]
    design, group, part = res.design.values, res.group.values, res.part.values
    sub = [d for d, k in zip(diff, design) if k == "subsampling"]
    n2 = int(res.n_test.values[list(design).index("subsampling")])
    n1 = int(res.n_train.values[list(design).index("subsampling")])
    first_var = float(res.difference_var.values[list(design).index("subsampling")])
    five = {(g, p): d for d, k, g, p in zip(diff, design, group, part) if k == "5x2"}
    gaps = [five[(m, 0)] - five[(m, 1)] for m in range(5)]
    halves = {}
    for d, k, g, p in zip(diff, design, group, part):
        if k == "half-splits":
            halves.setdefault((g, p), []).append(d)
    z_var = sum((sum(halves[(m, 0)]) / J - sum(halves[(m, 1)]) / J) ** 2 for m in range(M)) / (2 * M)
    boot = {}
    for d, k, g in zip(diff, design, group):
        if k == "pseudo-bootstrap":
            boot.setdefault(g, []).append(d)
    check = sample_var(sum(v) / J for v in boot.values())
    mean_j, s2 = sum(sub) / J, sample_var(sub)
    five_var = sum(g * g for g in gaps) / 10
    rows = {
        "one_split_t": (sub[0], first_var / n2, math.inf),
        "resampled_t": (mean_j, s2 / J, J - 1),
        "dietterich_5x2cv": (five[(0, 0)], five_var, 5),
        "dietterich_5x2cv_4": (five[(0, 0)], sum(g * g for g in gaps[1:]) / 8, 4),
        "dietterich_5x2cv_mean": ((five[(0, 0)] + five[(0, 1)]) / 2, five_var / 2, 5),
        "conservative_z": (mean_j, z_var, math.inf),
        "pseudo_bootstrap": (mean_j, check, R - 1),
        "corrected_resampled_t": (mean_j, (1 / J + n2 / n1) * s2, J - 1),
        "corrected_pseudo_bootstrap": (mean_j, (1 + J * n2 / n1) * check, R - 1),
    }
    return [rows[p] for p in PROCEDURES]


def hand_test(estimate, variance, df, mu0):
    t = (estimate - mu0) / math.sqrt(variance)
    dist = stats.norm if math.isinf(df) else stats.t(df)
    return t, 2 * dist.sf(abs(t)), dist.sf(t), dist.cdf(t)


@pytest.mark.parametrize("mu0", [0.0, 0.05])
def test_every_procedure_equals_its_formula(splits, mu0):
    res = procedures_from_splits(splits, mu0=mu0)
    lo, hi = res.interval(0.9)
    for k, (estimate, variance, df) in enumerate(hand_moments(splits)):
        name = PROCEDURES[k]
        assert res.estimate[k] == pytest.approx(estimate, rel=1e-12, abs=1e-15), name
        assert res.variance[k] == pytest.approx(variance, rel=1e-12), name
        assert res.df[k] == df, name
        t, two, greater, less = hand_test(estimate, variance, df, mu0)
        assert res.statistic[k] == pytest.approx(t, rel=1e-12, abs=1e-12), name
        for got, want in ((res.pvalue()[k], two), (res.pvalue("greater")[k], greater),
                          (res.pvalue("less")[k], less)):
            assert got == pytest.approx(want, rel=1e-12, abs=1e-15), name
        c = stats.norm.ppf(0.95) if math.isinf(df) else stats.t.ppf(0.95, df)
        assert (lo[k], hi[k]) == pytest.approx((estimate - c * math.sqrt(variance),
                                                estimate + c * math.sqrt(variance)), rel=1e-12, abs=1e-15)


def test_corrected_resampled_t_is_the_library_corrected_ttest(splits):
    res = procedures_from_splits(splits)
    k = PROCEDURES.index("corrected_resampled_t")
    sub = splits.isel(split=splits.design.values == "subsampling")
    diff = (sub.loss.sel(algorithm="A") - sub.loss.sel(algorithm="B")).values
    n1 = int(sub.n_train[0])
    for alternative in ("two-sided", "greater", "less"):
        library = corrected_ttest(diff, n_test=N_TEST, n_train=n1, alternative=alternative)
        assert res.statistic[k] == pytest.approx(float(library.statistic), rel=1e-12)
        assert res.pvalue(alternative)[k] == pytest.approx(float(library.pvalue), rel=1e-12)
    lo, hi = res.interval(0.95)
    library_lo, library_hi = corrected_ttest(diff, n_test=N_TEST, n_train=n1).confidence_interval(0.95)
    assert (lo[k], hi[k]) == pytest.approx((float(library_lo), float(library_hi)), rel=1e-12)
    # and the Bayesian correlated t-test on the runner's scores (matching prior): P(B better) = 1 - p(greater)
    bayes = correlated_ttest(to_scores(sub))
    assert float(bayes.p_right[0]) == pytest.approx(1 - res.pvalue("greater")[k], abs=1e-12)


def test_vectorised_moments_equal_one_at_a_time():
    rng = np.random.default_rng(3)
    args = (rng.normal(size=7), rng.random(7), rng.normal(size=(7, J)), rng.normal(size=(7, 5, 2)),
            rng.normal(size=(7, M, 2)), rng.normal(size=(7, R)))
    est, var, df = procedure_moments(*args, n_train=48, n_test=N_TEST)
    for i in range(7):
        one = procedure_moments(*(a[i] for a in args), n_train=48, n_test=N_TEST)
        np.testing.assert_array_equal(est[i], one[0])
        np.testing.assert_array_equal(var[i], one[1])
    assert est.shape == var.shape == (7, len(PROCEDURES)) and df.shape == (len(PROCEDURES),)


@pytest.mark.parametrize("name,df", [("dietterich_5x2cv_4", 4), ("dietterich_5x2cv_mean", 5)])
def test_exact_5x2cv_variants_follow_their_t(name, df):
    # i.i.d. Gaussian mu~ with mean 0: the two variants' statistics are exactly t4 and t5
    rng = np.random.default_rng(4)
    reps = 20000
    five = rng.normal(0.0, 0.3, (reps, 5, 2))
    zeros = np.zeros(reps)
    est, var, dfs = procedure_moments(zeros, np.ones(reps), rng.normal(size=(reps, 2)), five,
                                      rng.normal(size=(reps, 2, 2)), rng.normal(size=(reps, 2)), n_train=9, n_test=1)
    k = PROCEDURES.index(name)
    assert dfs[k] == df
    t, p = t_statistics(est[:, k], var[:, k], dfs[k])
    assert stats.kstest(t, stats.t(df).cdf).pvalue > 0.001
    size = np.mean(p < 0.05)
    assert abs(size - 0.05) < 4 * math.sqrt(0.05 * 0.95 / reps)


def test_nadeau_bengio_runs_the_designs_and_reports():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(50, 1))
    y = x[:, 0] + rng.normal(size=50)
    res = nadeau_bengio(DummyRegressor(), LinearRegression(), x, y, n_test=5, splits=4, halvings=2, repetitions=3,
                        random_seed=0, names=("mean", "ols"))
    again = nadeau_bengio(DummyRegressor(), LinearRegression(), x, y, n_test=5, splits=4, halvings=2,
                          repetitions=3, random_seed=0, names=("mean", "ols"))
    np.testing.assert_array_equal(res.estimate, again.estimate)
    frame = res.to_frame(0.9)
    assert list(frame.index)[0].startswith("1 ") and frame.shape == (len(PROCEDURES), 9)
    record = res.to_dict()
    assert record["a"] == "mean" and len(record["results"]) == len(PROCEDURES)
    assert record["results"][0]["df"] is None  # the normal reference has no degrees of freedom
    assert "positive: ols better" in repr(res)
    # an interval at level 1 - alpha excludes mu0 exactly when the two-sided p-value is below alpha
    lo, hi = res.interval(0.95)
    np.testing.assert_array_equal((lo > 0) | (hi < 0), res.pvalue() < 0.05)
    lo_g, hi_g = res.interval(0.95, "greater")
    assert np.isinf(hi_g).all() and np.array_equal(lo_g > 0, res.pvalue("greater") < 0.05)


def test_errors_name_the_argument(splits):
    with pytest.raises(ValueError, match="five_by_two must end in shape"):
        procedure_moments(0, 1, [1, 2], np.zeros((4, 2)), np.zeros((2, 2)), [1, 2], n_train=5, n_test=2)
    with pytest.raises(ValueError, match="split_means and bootstrap_means need at least 2"):
        procedure_moments(0, 1, [1], np.zeros((5, 2)), np.zeros((2, 2)), [1, 2], n_train=5, n_test=2)
    with pytest.raises(ValueError, match="lack the designs"):
        procedures_from_splits(splits.isel(split=splits.design.values != "5x2"))
    with pytest.raises(ValueError, match="alternative must be"):
        NadeauBengioResult(np.ones(1), np.ones(1), np.ones(1), ("resampled_t",)).pvalue("both")
    with pytest.raises(ValueError, match="confidence_level"):
        procedures_from_splits(splits).interval(1.5)
