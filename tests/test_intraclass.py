import numpy as np
import pytest
from scipy import stats

from pp_corr import SufficientStats, intraclass_logp, resolve_rho


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
