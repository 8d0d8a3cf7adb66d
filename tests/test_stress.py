"""The stress benchmarks: exact ties and zero-variance data sets where intended, realised differences against the
true delta_i, the zero share and the fold noise against the laws of iid instances, reproducibility, and loading in
the library."""
import functools
import warnings

import numpy as np
import pytest
import xarray as xr
from scipy import special, stats

import pp_corr
from pp_corr.hierarchical.model import hierarchical_model
from pp_corr.hierarchical.stress import STRESS_CASES, stress_cases, stress_scores

SEED = 20
NEAR_IDENTICAL = [name for name, params in STRESS_CASES.items() if params["zero_share"] is not None]


@functools.cache
def benchmark(name, seed=SEED):
    return stress_scores(name, seed=seed)


def fold_differences(ds):
    """B - A per data set, (q, runs * folds), straight from the scores."""
    return (ds.score.sel(algorithm="B") - ds.score.sel(algorithm="A")).values.reshape(ds.sizes["dataset"], -1)


def split_sizes(n, folds):
    return np.array([len(part) for part in np.array_split(np.arange(n), folds)])


def p_tie(n, gain, loss):
    """P(G = L) for the (gains, losses, others) of n instances, trinomial(n; gain, loss): a fold's exact tie."""
    k = np.arange(n // 2 + 1)
    log_pmf = (special.gammaln(n + 1) - 2 * special.gammaln(k + 1) - special.gammaln(n - 2 * k + 1)
               + special.xlogy(k, gain) + special.xlogy(k, loss) + special.xlog1py(n - 2 * k, -gain - loss))
    return float(np.exp(log_pmf).sum())


def test_catalogue_lists_every_case_with_a_description():
    cases = stress_cases()
    assert list(cases) == list(STRESS_CASES) and 8 <= len(cases) <= 12
    assert all(isinstance(about, str) and about and "\n" not in about for about in cases.values())
    assert "control" in cases and "control" not in NEAR_IDENTICAL


@pytest.mark.parametrize("name", list(STRESS_CASES))
def test_design_matches_the_case(name):
    ds, params = benchmark(name), STRESS_CASES[name]
    assert dict(ds.score.sizes) == {"dataset": params["n_datasets"], "algorithm": 2, "run": params["runs"],
                                    "fold": params["folds"]}
    n, folds = ds.n_instances.values, params["folds"]
    assert ((n % folds != 0) == params["ragged"]).all()
    # stratified: one n_test in each of q slices of the log range (then rounded), so both end slices are drawn
    n_test, edges = n // folds, np.geomspace(*params["n_test"], len(n) + 1)
    assert edges[0] - 0.5 <= n_test.min() <= edges[1] + 0.5 and edges[-2] - 0.5 <= n_test.max() <= edges[-1] + 0.5
    # every score is a share of whole instances of its fold
    sizes = np.stack([split_sizes(size, folds) for size in n])[:, None, None, :]
    hits = ds.score.transpose("dataset", "algorithm", "run", "fold").values * sizes
    assert np.allclose(hits, np.round(hits), atol=1e-9)
    assert np.allclose(ds.rho, 1 / folds)


@pytest.mark.parametrize("name", NEAR_IDENTICAL)
def test_share_of_exact_ties_in_intended_range(name):
    x = fold_differences(benchmark(name))
    lo, hi = STRESS_CASES[name]["zero_share"]
    assert lo <= np.mean(x == 0) <= hi


def test_control_has_few_ties_and_no_zero_variance():
    x = fold_differences(benchmark("control"))
    assert np.mean(x == 0) < min(STRESS_CASES[name]["zero_share"][0] for name in NEAR_IDENTICAL) / 2
    assert (np.ptp(x, axis=1) > 0).all()


@pytest.mark.parametrize("name", list(STRESS_CASES))
def test_share_of_exact_ties_agrees_with_the_trinomial_law(name):
    """A fold of n instances taken from iid ones holds trinomial(n; g, l) gains and losses, so each data set's
    expected share of ties e_i is known; the data sets are independent, so sum(o_i - e_i) / sqrt(sum (o_i - e_i)^2)
    is about standard normal (self-normalised: the folds of one data set are dependent, of unknown variance)."""
    ds, params = benchmark(name), STRESS_CASES[name]
    observed, expected = [], []
    for row, n, gain, loss in zip(fold_differences(ds), ds.n_instances.values, ds.gain.values, ds.loss.values):
        observed.append(np.mean(row == 0))
        expected.append(np.mean([p_tie(size, gain, loss) for size in split_sizes(n, params["folds"])]))
    gap = np.array(observed) - np.array(expected)
    assert abs(gap.sum()) < 4 * np.sqrt(np.sum(gap ** 2))


@pytest.mark.parametrize("name", list(STRESS_CASES))
def test_zero_variance_where_intended(name):
    ds, params = benchmark(name), STRESS_CASES[name]
    x = fold_differences(ds)
    constant = np.ptp(x, axis=1) == 0
    assert ds.is_identical.sum() == params["n_identical"]
    assert (x[ds.is_identical.values] == 0).all() and constant[ds.is_identical.values].all()
    if params["n_identical"]:
        assert pp_corr.mean_differences(ds.isel(dataset=ds.is_identical.values))[0].tolist() == [0.0] * int(
            ds.is_identical.sum())


@pytest.mark.parametrize("name", list(STRESS_CASES))
def test_realised_mean_differences_agree_with_true_delta(name):
    """z_i = (mean_i - delta_i) / se_i, se_i the multinomial sd of (G - L) / N (every run tests each instance
    once): z has mean 0 and sum z^2 ~ chi2(m) over the m data sets where B is not A."""
    ds = benchmark(name)
    keep = ~ds.is_identical.values
    gain, loss, n = (ds[v].values[keep] for v in ("gain", "loss", "n_instances"))
    se = np.sqrt((gain + loss - (gain - loss) ** 2) / n)
    z = (fold_differences(ds)[keep].mean(axis=1) - ds.delta.values[keep]) / se
    assert abs(z.mean()) < 4 / np.sqrt(len(z))
    assert stats.chi2.ppf(1e-4, len(z)) < np.sum(z ** 2) < stats.chi2.isf(1e-4, len(z))


@pytest.mark.parametrize("name", list(STRESS_CASES))
def test_fold_noise_follows_the_instances(name):
    """Within a run the folds hold disjoint sets of iid instances: independent, each with variance
    sigma^2 / n_j, sigma^2 = g + l - (g - l)^2. Runs reshuffle the same N instances, so fold j of run 1 and
    fold j of run 2 share only the data set's mean: correlation n_j / N. Both by self-normalised sums over
    the independent data sets."""
    ds, params = benchmark(name), STRESS_CASES[name]
    keep = ~ds.is_identical.values
    gain, loss, n, delta = (ds[v].values[keep] for v in ("gain", "loss", "n_instances", "delta"))
    x = fold_differences(ds)[keep].reshape(len(n), params["runs"], params["folds"])
    sigma2, sizes = gain + loss - (gain - loss) ** 2, np.stack([split_sizes(size, params["folds"]) for size in n])
    gap = x.var(axis=2, ddof=1).mean(axis=1) - (sigma2[:, None] / sizes).mean(axis=1)
    assert abs(gap.sum()) < 4 * np.sqrt(np.sum(gap ** 2))
    if params["runs"] > 1:
        z = (x - delta[:, None, None]) / np.sqrt(sigma2[:, None, None] / sizes[:, None, :])
        gap = (z[:, 0] * z[:, 1]).mean(axis=1) - (sizes / n[:, None]).mean(axis=1)
        assert abs(gap.sum()) < 4 * np.sqrt(np.sum(gap ** 2))


def test_true_deltas_follow_the_population():
    normal, student = [], []
    for name, params in STRESS_CASES.items():
        ds = benchmark(name)
        outlier = ds.is_outlier.values
        assert np.allclose(np.abs(ds.delta.values[outlier] - params["delta0"]), params["outlier_shift"])
        typical = ~(outlier | ds.is_identical.values)
        z = (ds.delta.values[typical] - params["delta0"]) / params["sigma0"]
        (student if params["population"] == "t" else normal).append((z, params["nu"]))
    assert stats.kstest(np.concatenate([z for z, _ in normal]), "norm").pvalue > 1e-3
    for z, nu in student:
        assert stats.kstest(z, "t", args=(nu,)).pvalue > 1e-3


def test_gains_and_losses_are_possible_for_algorithm_a():
    for name in STRESS_CASES:
        ds = benchmark(name)
        error_a = 1 - ds.accuracy_a.values
        assert (ds.gain.values <= error_a + 1e-12).all() and (ds.loss.values <= ds.accuracy_a.values + 1e-12).all()
        assert np.allclose(ds.gain - ds.loss, ds.delta, atol=1e-15)


def test_same_seed_same_data_other_seed_or_case_other_data():
    xr.testing.assert_identical(stress_scores("near_identical", seed=SEED), benchmark("near_identical"))
    other = stress_scores("near_identical", seed=SEED + 1)
    assert not np.array_equal(other.score.values, benchmark("near_identical").score.values)
    # cases are keyed by name: two cases whose draws would otherwise coincide up to delta_i (they differ only
    # in the number of runs) get different ones from the same seed
    assert not np.allclose(benchmark("near_identical").delta, benchmark("near_identical_10x1").delta)


def test_loads_through_the_library():
    ds = benchmark("near_identical")
    with pytest.warns(pp_corr.DegenerateWarning):  # the zero-variance data sets
        res = pp_corr.correlated_ttest(ds)
    p = np.asarray(res.p_right)
    assert p.shape == (ds.sizes["dataset"],) and np.isfinite(p[~ds.is_identical.values]).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        control = pp_corr.correlated_ttest(benchmark("control"))
        model = hierarchical_model(ds)
    assert np.mean(control.p_right > 0.5) > 0.8  # B is better on most data sets of the control
    assert list(model.coords["dataset"]) == [str(d) for d in ds.dataset.values]


@pytest.mark.parametrize("case, error, argument", [
    ("nope", ValueError, "case"), (3, TypeError, "case"), ({"n_dataset": 5}, ValueError, "n_dataset"),
    ({"n_datasets": 1}, ValueError, "n_datasets"), ({"folds": 1}, ValueError, "folds"),
    ({"n_test": (50, 10)}, ValueError, "n_test"), ({"n_test": 10}, ValueError, "n_test"),
    ({"churn": (0.0, 0.1)}, ValueError, "churn"), ({"accuracy_a": (0.5, 1.5)}, ValueError, "accuracy_a"),
    ({"population": "cauchy"}, ValueError, "population"), ({"sigma0": -1}, ValueError, "sigma0"),
    ({"nu": 0}, ValueError, "nu"), ({"ragged": "yes"}, TypeError, "ragged"),
    ({"n_datasets": 3, "n_identical": 2, "n_outliers": 2}, ValueError, r"n_identical \+ n_outliers"),
])
def test_bad_arguments_are_named(case, error, argument):
    with pytest.raises(error, match=argument):
        stress_scores(case, seed=0)


@pytest.mark.parametrize("seed, error", [(-1, ValueError), (1.5, TypeError), (None, TypeError)])
def test_bad_seed_is_named(seed, error):
    with pytest.raises(error, match="seed"):
        stress_scores("control", seed=seed)
