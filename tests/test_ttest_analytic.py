"""The analytic posterior against independent oracles: scipy's t-tests and brute-force integration."""
import warnings

import numpy as np
import pytest
from scipy import integrate, stats

from pp_corr import DegenerateWarning, NormalGamma, corrected_ttest, correlated_ttest, paired_ttest


def dense_log_joint(x, rho, prior):
    """log p(x | mu, nu) p(mu, nu), vectorised over nu, from an explicit n x n correlation matrix
    factorised once with numpy linear algebra (no closed form of section 2 used)."""
    n = len(x)
    M = (1 - rho) * np.eye(n) + rho * np.ones((n, n))
    m_inv = np.linalg.inv(M)
    _, logdet_m = np.linalg.slogdet(M)

    def log_joint(mu, nu):
        r = x - mu
        loglik = -0.5 * (n * np.log(2 * np.pi) + logdet_m - n * np.log(nu) + nu * (r @ m_inv @ r))
        return loglik + prior.logpdf(mu, nu)

    return log_joint


NODES, WEIGHTS = np.polynomial.legendre.leggauss(400)


def brute_force_density(x, rho, prior, mus):
    """Posterior density of mu: Gauss-Legendre over log nu around the mode (found on a grid), then
    adaptive quadrature over mu, out to infinity."""
    log_joint = dense_log_joint(x, rho, prior)
    grid = np.linspace(-40, 40, 8001)
    shift = np.max(log_joint(np.mean(x), np.exp(grid)) + grid)

    def unnormalised(mu):
        log_f = log_joint(mu, np.exp(grid)) + grid
        inside = grid[log_f > log_f.max() - 60]  # the integrand is below e^-60 of its peak elsewhere
        lo, hi = inside[0] - 0.01, inside[-1] + 0.01
        t = (lo + hi) / 2 + (hi - lo) / 2 * NODES
        return (hi - lo) / 2 * WEIGHTS @ np.exp(log_joint(mu, np.exp(t)) + t - shift)

    center, spread = np.mean(x), max(np.std(x), 1e-3) * 4
    edges = [-np.inf, center - 20 * spread, center + 20 * spread, np.inf]
    total = sum(integrate.quad(unnormalised, lo, hi, epsabs=0, epsrel=1e-11, limit=400)[0]
                for lo, hi in zip(edges[:-1], edges[1:]))
    return np.array([unnormalised(m) for m in mus]) / total


CASES = [  # (mu0, k0, a, b, rho, n)
    (0.0, 1.0, 1.0, 1.0, 0.1, 2),
    (0.05, 0.5, 2.0, 0.01, 0.1, 10),
    (-0.1, 4.0, 0.5, 0.2, 0.5, 7),
    (0.0, 0.01, 3.0, 0.05, 0.2, 30),
    (0.02, 1.0, 1.0, 0.001, 0.1, 500),
]


@pytest.mark.parametrize("mu0,k0,a,b,rho,n", CASES)
def test_proper_prior_density_equals_brute_force_integration(mu0, k0, a, b, rho, n):
    rng = np.random.default_rng(n)
    x = 0.03 + 0.05 * rng.standard_normal(n)
    prior = NormalGamma(mu0, k0, a, b)
    post = correlated_ttest(x, rho=rho, prior=prior).posterior
    mus = post.ppf([0.05, 0.3, 0.5, 0.8, 0.97])
    np.testing.assert_allclose(post.pdf(mus), brute_force_density(x, rho, prior, mus), rtol=1e-6)


def erratum_b(form, prior, s):
    """The two b-tilde forms printed in the paper's Table 2 (wrong for proper priors)."""
    A, mu_hat = s.effective_n, s.mean
    k_post = 1 / (A + 1 / prior.k0)
    mu_post = k_post * (A * mu_hat + prior.mu0 / prior.k0)
    last = mu_post**2 if form == 1 else mu_hat**2
    return prior.b + s.weighted_ss / 2 + (-prior.mu0**2 / prior.k0 - mu_hat**2 * A + last * (A + 1 / prior.k0)) / 2


@pytest.mark.parametrize("form", [1, 2])
def test_published_b_forms_disagree_with_integration(form):
    x = 0.03 + 0.05 * np.random.default_rng(3).standard_normal(10)
    prior = NormalGamma(0.05, 0.5, 2.0, 0.01)
    res = correlated_ttest(x, rho=0.1, prior=prior)
    post = res.posterior_params
    wrong = NormalGamma(post.mu0, post.k0, post.a, erratum_b(form, prior, res.stats)).mu_marginal()
    mus = res.posterior.ppf([0.1, 0.5, 0.9])
    truth = brute_force_density(x, 0.1, prior, mus)
    np.testing.assert_allclose(res.posterior.pdf(mus), truth, rtol=1e-6)
    assert np.max(np.abs(wrong.pdf(mus) / truth - 1)) > 1e-2
    # under the matching prior the printed forms reduce to the correct one
    flat = NormalGamma(0.0, 1e12, -0.5, 0.0)
    assert erratum_b(form, flat, res.stats) == pytest.approx(res.stats.weighted_ss / 2, rel=1e-6)


@pytest.mark.parametrize("rho", [0.0, 0.1, 1 / 3])
def test_matching_prior_equals_one_minus_corrected_pvalue(rho):
    x = np.random.default_rng(4).normal(0.01, 0.03, size=(20, 25))
    res = correlated_ttest(x, rho=rho)
    n = x.shape[1]
    s = x.std(axis=1, ddof=1)
    t = x.mean(axis=1) / (s * np.sqrt(1 / n + rho / (1 - rho)))
    np.testing.assert_allclose(res.p_right, stats.t.cdf(t, n - 1), rtol=0, atol=1e-12)
    np.testing.assert_allclose(res.p_right, 1 - corrected_ttest(x, rho=rho, alternative="greater").pvalue,
                               rtol=0, atol=1e-12)


def test_rho_zero_equals_scipy_paired_ttest():
    rng = np.random.default_rng(5)
    a, b = rng.normal(0.8, 0.05, size=(2, 8, 30))
    res = correlated_ttest(a, b, rho=0.0)
    for alternative in ("greater", "less", "two-sided"):
        ref = stats.ttest_1samp(b - a, 0.0, axis=1, alternative=alternative)
        ours = paired_ttest(a, b, alternative=alternative)
        np.testing.assert_allclose(ours.pvalue, ref.pvalue, rtol=1e-12)
        np.testing.assert_allclose(ours.statistic, ref.statistic, rtol=1e-12)
        np.testing.assert_allclose(ours.confidence_interval(0.9), ref.confidence_interval(0.9), rtol=1e-10)
    np.testing.assert_allclose(res.p_right, 1 - stats.ttest_1samp(b - a, 0, axis=1, alternative="greater").pvalue,
                               atol=1e-12)


def test_rope_probabilities_sum_to_one_and_match_cdf():
    x = np.random.default_rng(6).normal(0.005, 0.02, size=(50, 10))
    res = correlated_ttest(x, folds=10, rope=(-0.01, 0.02))
    post = res.posterior
    np.testing.assert_allclose(res.p_left, post.cdf(-0.01), atol=1e-14)
    np.testing.assert_allclose(res.p_right, post.sf(0.02), atol=1e-14)
    np.testing.assert_allclose(res.p_left + res.p_rope + res.p_right, 1, atol=1e-12)
    np.testing.assert_allclose(res.p_not_right, 1 - res.p_right, atol=1e-14)
    assert (correlated_ttest(x, folds=10).p_rope == 0).all()


def test_with_rope_equals_a_fresh_test_with_that_rope():
    x = np.random.default_rng(8).normal(0.005, 0.02, size=(6, 10))
    x[2] = 0.03  # a degenerate row keeps its point mass
    with pytest.warns(DegenerateWarning):
        wide = correlated_ttest(x, folds=10, rope=0.05)
    for rope in (None, 0.01, (-0.02, 0.0)):
        with pytest.warns(DegenerateWarning):
            fresh = correlated_ttest(x, folds=10, rope=rope)
        swapped = wide.with_rope(rope)
        assert swapped.rope == fresh.rope
        for field in ("p_left", "p_rope", "p_right", "p_not_left", "p_not_right"):
            np.testing.assert_array_equal(getattr(swapped, field), getattr(fresh, field))


def test_interval_is_central():
    x = np.random.default_rng(7).normal(size=(4, 10))
    res = correlated_ttest(x, folds=10, prior=NormalGamma(0, 2, 1, 1))
    lo, hi = res.interval(0.9)
    np.testing.assert_allclose(res.posterior.cdf(lo), 0.05, atol=1e-12)
    np.testing.assert_allclose(res.posterior.cdf(hi), 0.95, atol=1e-12)


@pytest.mark.parametrize("value,expected", [(0.02, (0, 0, 1)), (-0.02, (1, 0, 0)), (0.0, (0.5, 0, 0.5))])
def test_degenerate_matching_prior_is_point_mass_with_warning(value, expected):
    with pytest.warns(DegenerateWarning, match="point mass"):
        res = correlated_ttest(np.full(10, value), folds=10)
    assert (float(res.p_left), float(res.p_rope), float(res.p_right)) == expected
    assert res.degenerate and res.interval()[0] == res.interval()[1] == pytest.approx(value)


def test_degenerate_inside_rope_and_proper_prior_not_degenerate():
    with pytest.warns(DegenerateWarning):
        res = correlated_ttest(np.full(10, 0.005), folds=10, rope=0.01)
    assert float(res.p_rope) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        proper = correlated_ttest(np.full(10, 0.02), folds=10, prior=NormalGamma(0, 1, 1, 0.01))
    assert not proper.degenerate and 0.5 < float(proper.p_right) < 1


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="at least 2"):
        correlated_ttest([0.1], folds=10)
    with pytest.raises(ValueError, match="NaN or inf"):
        correlated_ttest([0.1, np.nan, 0.2], folds=10)
    with pytest.raises(ValueError, match="rho"):
        correlated_ttest([0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="differ in shape"):
        correlated_ttest([0.1, 0.2], [0.1, 0.2, 0.3], rho=0.1)
    with pytest.raises(ValueError, match="rope"):
        correlated_ttest([0.1, 0.2], rho=0.1, rope=(0.1, -0.1))


def test_block_correlation_matrix():
    """m runs of k folds: a known block structure instead of the intraclass heuristic."""
    k, m = 5, 3
    within = np.kron(np.eye(m), np.full((k, k), 0.2)) + 0.8 * np.eye(k * m)
    corr = np.where(within > 0, within, 0.05)
    x = np.random.default_rng(8).normal(0.01, 0.02, size=k * m)
    res = correlated_ttest(x, corr=corr)
    m_inv = np.linalg.inv(corr)
    A = m_inv.sum()
    mu_hat = m_inv.sum(axis=0) @ x / A
    r = x - mu_hat
    scale = np.sqrt(r @ m_inv @ r / (A * (k * m - 1)))
    np.testing.assert_allclose(res.p_right, stats.t.cdf(mu_hat / scale, k * m - 1), atol=1e-12)
    with pytest.raises(ValueError, match="corr"):
        correlated_ttest(x, corr=corr[:3, :3])
