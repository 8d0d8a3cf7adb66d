import warnings

import numpy as np
import pytest
from scipy import stats

from pp_corr import SufficientStats, intraclass_logp, resolve_rho
from pp_corr.pairwise.intraclass import intraclass_fold_logp


def intraclass_matrix(n, rho):
    return (1 - rho) * np.eye(n) + rho * np.ones((n, n))


@pytest.mark.parametrize("rho", [0.0, 0.1, 0.5, 0.95])
@pytest.mark.parametrize("n", [2, 10, 100])
def test_logp_equals_dense_mvn(rho, n):
    rng = np.random.default_rng(n)
    x = rng.normal(0.3, 2.0, size=n)
    expected = stats.multivariate_normal(np.full(n, -0.2), 1.7**2 * intraclass_matrix(n, rho)).logpdf(x)
    np.testing.assert_allclose(intraclass_logp(x, -0.2, 1.7, rho), expected, rtol=1e-9)


@pytest.mark.parametrize("rho", [0.0, 0.1, 0.5])
def test_stats_match_dense_gls(rho):
    x = np.random.default_rng(1).normal(size=(3, 12))
    m_inv = np.linalg.inv(intraclass_matrix(12, rho))
    s = SufficientStats.from_samples(x, rho)
    ones = np.ones(12)
    A = ones @ m_inv @ ones
    mu_hat = (x @ m_inv @ ones) / A
    resid = x - mu_hat[:, None]
    np.testing.assert_allclose(s.effective_n, A, rtol=1e-12)
    np.testing.assert_allclose(s.mean, mu_hat, rtol=1e-12)
    np.testing.assert_allclose(s.weighted_ss, np.einsum("ij,jk,ik->i", resid, m_inv, resid), rtol=1e-10)
    general = SufficientStats.from_samples(x, corr=intraclass_matrix(12, rho))
    np.testing.assert_allclose(general.weighted_ss, s.weighted_ss, rtol=1e-10)
    np.testing.assert_allclose(general.effective_n, s.effective_n, rtol=1e-12)


def test_padded_rows_equal_unpadded():
    x = np.random.default_rng(2).normal(size=(2, 10))
    padded = x.copy()
    padded[1, 6:] = np.nan
    s = SufficientStats.from_samples(padded, 0.1, padded=True)
    short = SufficientStats.from_samples(x[1, :6], 0.1)
    assert s.n.tolist() == [10, 6]
    np.testing.assert_allclose([s.mean[1], s.weighted_ss[1], s.effective_n[1]],
                               [short.mean, short.weighted_ss, short.effective_n], rtol=1e-12)


def test_zero_variance_flagged_despite_rounding():
    s = SufficientStats.from_samples(np.full((2, 10), [[0.1], [0.0]]), 0.1)
    assert s.zero_variance.all() and (s.weighted_ss == 0).all()
    assert not SufficientStats.from_samples([0.1, 0.1 + 1e-9], 0.1).zero_variance


def test_resolve_rho():
    assert resolve_rho(folds=10) == 0.1
    assert resolve_rho(n_test=10, n_train=90) == 0.1
    np.testing.assert_allclose(resolve_rho(folds=[5, 10]), [0.2, 0.1])
    for kwargs in ({}, {"rho": 0.1, "folds": 10}, {"rho": 1.0}, {"rho": -0.1}, {"folds": 1}, {"n_test": 3}):
        with pytest.raises(ValueError):
            resolve_rho(**kwargs)


@pytest.mark.parametrize("c", [2.0**-900, 1e-200, 1e-160, 1e160, 1e200, 2.0**900])
def test_logp_does_not_overflow_needlessly(c):
    """x, mu, sigma in other units: the log density shifts by -n log c (the Jacobian) and stays finite."""
    rng = np.random.default_rng(3)
    n, rho = 12, 0.2
    x = rng.normal(0.3, 2.0, size=n)
    expected = stats.multivariate_normal(np.full(n, -0.2), 1.7**2 * intraclass_matrix(n, rho)).logpdf(x)
    got = intraclass_logp(x * c, -0.2 * c, 1.7 * c, rho)
    assert np.isfinite(got)
    np.testing.assert_allclose(got, expected - n * np.log(c), rtol=1e-10)


def test_logp_with_sigma_far_below_the_spread_is_finite():
    """sigma^2 underflows here, the density's log does not: -0.5 (x - mu)^2 / sigma^2 is about -1e288."""
    x = np.array([1.0, 1.0 + 2.0**-52])
    got = intraclass_logp(x, 1.0, 1e-160, 0.0)
    quad = (2.0**-52 / 1e-160) ** 2  # one deviation of 2^-52, the other 0
    assert np.isfinite(got)
    np.testing.assert_allclose(got, -0.5 * quad, rtol=1e-12)


def test_sigma_600_orders_below_values_at_their_mean_gives_the_finite_density_without_warnings():
    """sigma over the values' scale underflows to 0: where the values sit on their mean the quadratic form is 0
    and the log density finite (written out here: about +1380), where they do not it is -inf; both quietly (it was
    NaN with 'invalid value' warnings, found by the intraclass mutation campaign)."""
    n, rho, sigma = 2, 0.1, 1e-300
    closed_form = -0.5 * (n * np.log(2 * np.pi) + 2 * n * np.log(sigma) + np.log1p(-rho) + np.log1p(rho))
    # n = 2: each value given the other has variance sigma^2 (1 - rho^2)
    folds = -0.5 * (np.log(2 * np.pi) + 2 * np.log(sigma) + np.log((1 - rho) * (1 + rho)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert intraclass_logp([1e300, 1e300], 1e300, sigma, rho) == pytest.approx(closed_form, rel=1e-12, abs=0)
        np.testing.assert_allclose(intraclass_fold_logp([1e300, 1e300], 1e300, sigma, rho), folds, rtol=1e-12)
        assert intraclass_logp([1e300, -1e300], 1e300, sigma, rho) == -np.inf
        assert (intraclass_fold_logp([1e300, -1e300], 1e300, sigma, rho) == -np.inf).all()


@pytest.mark.parametrize("scale", [2.0**-1000, 1e-300, 1e-170, 1e150, 1e300, 2.0**1000])
def test_stats_scale_invariant_over_float_range(scale):
    x = np.random.default_rng(4).uniform(0.01, 3, size=(3, 20))
    base = SufficientStats.from_samples(x, [0.1, 0.2, 0.3])
    s = SufficientStats.from_samples(x * scale, [0.1, 0.2, 0.3])
    assert np.all(np.isfinite(s.scaled_mean)) and np.all(np.isfinite(s.scaled_ss)) and np.all(s.scaled_ss > 0)
    np.testing.assert_allclose(s.scaled_mean * (s.scale / scale), base.mean, rtol=1e-13)
    np.testing.assert_allclose(s.scaled_ss * (s.scale / scale) ** 2, base.weighted_ss, rtol=1e-12)
    assert not s.zero_variance.any()
    np.testing.assert_array_equal(np.log2(s.scale) % 1, 0)  # powers of two: an exact rescaling


@pytest.mark.parametrize("scale", [1e-300, 1e-170, 1.0, 1e170, 1e300])
def test_zero_variance_relative_to_magnitude(scale):
    ties = np.array([[0.1] * 8, [0.9 - 0.8, 0.8 - 0.7] * 4, [0.0] * 8, [0.1] * 7 + [0.1 + 1e-9]]) * scale
    s = SufficientStats.from_samples(ties, 0.1)
    np.testing.assert_array_equal(s.zero_variance, [True, True, True, False])
    assert (s.weighted_ss[:3] == 0).all() and s.scaled_ss[3] > 0
    padded = np.where(np.arange(8) < 6, ties, np.nan)
    np.testing.assert_array_equal(SufficientStats.from_samples(padded, 0.1, padded=True).zero_variance,
                                  [True, True, True, True])  # the 1e-9 was in a padded cell


def test_rho_per_problem_must_match_problems():
    with pytest.raises(ValueError, match="^rho has shape"):
        SufficientStats.from_samples(np.zeros(10) + np.arange(10), [0.1, 0.2])
    with pytest.raises(ValueError, match="^rho must be finite"):
        SufficientStats.from_samples(np.arange(10.0), np.nan)


@pytest.mark.parametrize("kwargs,name", [({"folds": np.inf}, "folds"), ({"folds": np.nan}, "folds"),
                                         ({"folds": "10"}, "folds"), ({"n_test": 3, "n_train": np.inf}, "n_train"),
                                         ({"n_test": np.inf, "n_train": 3}, "n_test"), ({"rho": np.inf}, "rho"),
                                         ({"n_test": [1, 2], "n_train": [1, 2, 3]}, "n_test"),
                                         ({"folds": 2.5}, "folds"), ({"rho": True}, "rho")])
def test_resolve_rho_rejects_non_finite_and_text(kwargs, name):
    with pytest.raises((ValueError, TypeError), match=f"^{name} "):
        resolve_rho(**kwargs)


@pytest.mark.parametrize("name,value", [("sigma", 0.0), ("sigma", -1.0), ("sigma", np.nan), ("sigma", np.inf),
                                        ("rho", np.nan), ("rho", 1.0), ("rho", -0.5), ("mu", np.nan),
                                        ("mu", np.inf), ("x", np.nan), ("sigma", "0.5")])
def test_logp_refuses_bad_arguments_by_name(name, value):
    args = {"x": np.array([0.1, -0.2, 0.4]), "mu": 0.0, "sigma": 0.5, "rho": 0.3}
    args[name] = np.array([0.1, value, 0.4]) if name == "x" else value
    with pytest.raises((ValueError, TypeError), match=f"^{name} "):
        intraclass_logp(**args)


def test_logp_negative_rho_down_to_positive_definite_limit():
    x = np.array([0.1, -0.2, 0.4])
    expected = stats.multivariate_normal(np.zeros(3), 0.25 * intraclass_matrix(3, -0.4)).logpdf(x)
    np.testing.assert_allclose(intraclass_logp(x, 0.0, 0.5, -0.4), expected, rtol=1e-12)


def test_stats_refuse_nan_and_inf_by_name():
    with pytest.raises(ValueError, match=r"^x contains NaN or inf \(first at index \(1,\)\)"):
        SufficientStats.from_samples([0.1, np.nan, 0.3], 0.1)
    with pytest.raises(ValueError, match=r"^x contains inf"):
        SufficientStats.from_samples([[0.1, np.inf, np.nan]], 0.1, padded=True)
    with pytest.raises(TypeError, match="^x must be numbers"):
        SufficientStats.from_samples(["0.1", "0.2"], 0.1)


def test_statistics_read_in_blocks_equal_whole_array_passes():
    """from_samples reads x in blocks of rows that stay in the cache: each row's mean and sum of squares must
    be numpy's whole-array values to the last bit, across block edges (65,536 values: 655 rows of 100), for
    3-D batches too; a NaN in a later block is named at its index in x's own shape."""
    x = np.random.default_rng(3).normal(0.01, 0.05, size=(4, 700, 100))
    s = SufficientStats.from_samples(x, 0.2)
    mean = x.mean(axis=-1)
    np.testing.assert_array_equal(s.scaled_mean, mean)
    dev = x - mean[..., None]
    np.testing.assert_array_equal(s.scaled_ss, np.einsum("...i,...i->...", dev, dev) / (1 - 0.2))
    bad = x.copy()
    bad[3, 699, 42] = np.nan  # the last block
    with pytest.raises(ValueError, match=r"x contains NaN or inf \(first at index \(3, 699, 42\)\)"):
        SufficientStats.from_samples(bad, 0.2)
    bad[1, 5, 0] = -np.inf  # an earlier one comes first
    with pytest.raises(ValueError, match=r"first at index \(1, 5, 0\)"):
        SufficientStats.from_samples(bad, 0.2)
