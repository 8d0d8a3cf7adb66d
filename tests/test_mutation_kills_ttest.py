"""What a user reads off a correlated t-test result: ``to_dict``, the attributes of ``to_xarray``, ``with_rope``
and the repr (issue #19, mutation survivors). Expected numbers come from the matching-prior posterior written here,
mu | x ~ Student-t(n - 1, mean, s sqrt(1/n + rho/(1 - rho))) with scipy, and from scipy's t-test."""
import warnings

import numpy as np
import pytest
from scipy import stats

from pp_corr import NormalGamma, correlated_ttest

RHO = 0.1
ROPE = 0.01
X = np.array([[0.021, 0.013, 0.034, -0.004, 0.027, 0.018, 0.025, 0.009, 0.031, 0.016],
              [0.002, -0.011, 0.007, -0.003, 0.012, -0.008, 0.001, 0.004, -0.006, 0.009]])


def posterior(x):
    n = x.shape[-1]
    return stats.t(n - 1, x.mean(axis=-1), x.std(axis=-1, ddof=1) * np.sqrt(1 / n + RHO / (1 - RHO)))


def expected_records(x, rope):
    post, n = posterior(x), x.shape[-1]
    lo, hi = post.interval(0.95)
    t = x.mean(axis=-1) / (x.std(axis=-1, ddof=1) * np.sqrt(1 / n + RHO / (1 - RHO)))
    return [{"dataset": f"D{i + 1}", "mean": x[i].mean(), "95% lo": lo[i], "95% hi": hi[i],
             "P(svm better)": post.cdf(-rope)[i], "P(rope)": post.cdf(rope)[i] - post.cdf(-rope)[i],
             "P(knn better)": post.sf(rope)[i], "p (two-sided)": 2 * stats.t.sf(abs(t[i]), n - 1),
             "degenerate": False} for i in range(len(x))]


@pytest.fixture(scope="module")
def result():
    return correlated_ttest(X, rho=RHO, rope=ROPE, names=("svm", "knn"))


def test_to_dict_keys_and_values(result):
    d = result.to_dict()
    assert set(d) == {"a", "b", "rope", "rho", "prior", "results"}
    assert (d["a"], d["b"], d["rope"], d["rho"], d["prior"]) == ("svm", "knn", (-ROPE, ROPE), RHO, "matching")
    assert len(d["results"]) == len(X)
    for got, want in zip(d["results"], expected_records(X, ROPE)):
        assert list(got) == list(want)
        assert got["dataset"] == want["dataset"] and got["degenerate"] is False
        for key in list(want)[1:-1]:
            assert got[key] == pytest.approx(want[key], rel=1e-9, abs=1e-14), key


def test_to_dict_of_a_proper_prior_lists_its_parameters():
    prior = NormalGamma(0.0, 2.0, 3.0, 0.001)
    d = correlated_ttest(X, rho=[0.1, 0.2], prior=prior).to_dict()
    assert d["prior"] == {"mu0": 0.0, "k0": 2.0, "a": 3.0, "b": 0.001}
    assert d["rho"] == [0.1, 0.2] and d["rope"] is None


def test_to_xarray_attributes(result):
    prior = NormalGamma(0.0, 2.0, 3.0, 0.001)
    assert result.to_xarray().attrs == {"a": "svm", "b": "knn", "rope": str((-ROPE, ROPE)),
                                        "prior": repr(NormalGamma.matching())}
    other = correlated_ttest(X, rho=RHO, prior=prior)
    assert other.to_xarray().attrs == {"a": "A", "b": "B", "rope": "None", "prior": repr(prior)}
    assert repr(prior) != repr(NormalGamma.matching())


def test_to_frame_labels_the_interval_with_its_level(result):
    frame = result.to_frame(0.975)
    lo, hi = posterior(X).interval(0.975)
    assert list(frame.columns[1:3]) == ["97.5% lo", "97.5% hi"]
    np.testing.assert_allclose(frame["97.5% lo"], lo, rtol=1e-9)
    np.testing.assert_allclose(frame["97.5% hi"], hi, rtol=1e-9)


def test_with_rope_keeps_the_data_prior_and_rho(result):
    other = result.with_rope(0.02)
    assert other.to_dict()["rho"] == RHO and other.to_dict()["prior"] == "matching"
    assert other.p_right.tolist() == pytest.approx(posterior(X).sf(0.02).tolist(), rel=1e-9)
    expected = stats.ttest_1samp(X, 0.0, axis=-1, alternative="greater")   # rho enters t, not its sign
    n = X.shape[-1]
    t = expected.statistic * np.sqrt(1 / n) / np.sqrt(1 / n + RHO / (1 - RHO))
    assert other.frequentist("greater").pvalue.tolist() == pytest.approx(stats.t.sf(t, n - 1).tolist(), rel=1e-9)


def test_repr_names_the_prior_and_rounds_to_four_digits(result):
    head, *table = repr(result).splitlines()
    assert head == f"Bayesian correlated t-test: knn - svm (positive: knn better), rope = {(-ROPE, ROPE)}, " \
                   "prior = matching"
    prior = NormalGamma(0.0, 2.0, 3.0, 0.001)
    assert repr(correlated_ttest(X, rho=RHO, prior=prior)).splitlines()[0].endswith(f"prior = {repr(prior)}")
    first = table[2].split()   # table[0]: column names, table[1]: the index name
    want = expected_records(X, ROPE)[0]
    assert first[0] == "D1" and first[-1] == "False"
    assert [float(v) for v in first[1:-1]] == [float(f"{want[k]:.4g}") for k in list(want)[1:-1]]


def test_an_interval_beyond_float_range_is_infinite_quietly():
    """Differences near the largest float with rho = 0.9: the 95% interval, written here from the Student-t
    posterior of x / 2^1023, reaches past the largest float on both sides, so it is (-inf, inf), without a warning."""
    unit, rho = 2.0**1023, 0.9
    x_scaled = np.array([1.2, -1.1, 1.3, -1.4, 1.25, -1.0])
    n = len(x_scaled)
    lo, hi = stats.t(n - 1, x_scaled.mean(), x_scaled.std(ddof=1) * np.sqrt(1 / n + rho / (1 - rho))).interval(0.95)
    assert lo < -np.finfo(float).max / unit and hi > np.finfo(float).max / unit
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = correlated_ttest(x_scaled * unit, rho=rho)
        interval = res.interval(0.95)
    assert (float(interval[0]), float(interval[1])) == (-np.inf, np.inf)
