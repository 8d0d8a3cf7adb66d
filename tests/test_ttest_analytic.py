"""The analytic posterior against independent oracles: scipy's t-tests and brute-force integration."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, special, stats

import pp_corr
from pp_corr import DegenerateWarning, NormalGamma, corrected_ttest, correlated_ttest, paired_ttest
from pp_corr.pairwise.ttest import student_t_tails


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


# --- magnitudes: the answer must not depend on the units of the differences ----------------------------------

def sweep_data():
    """Four data sets with |x| in [0.01, 3] (so x * scale is never subnormal): an ordinary one, a shifted one,
    an exact tie and a rounding tie (equal differences computed from different scores)."""
    rng = np.random.default_rng(11)
    x = np.empty((4, 12))
    x[0] = rng.uniform(0.01, 3, 12) * rng.choice([-1, 1], 12)
    x[1] = 1.0 + rng.uniform(0.01, 0.5, 12)
    x[2] = 0.7
    scores_b = np.array([0.9, 0.8, 0.7, 0.6, 0.95, 0.85, 0.75, 0.65, 0.9, 0.8, 0.7, 0.6])
    x[3] = scores_b - (scores_b - 0.1).round(2)  # 0.1 up to rounding: a spread of a few ulps
    assert 0 < np.ptp(x[3]) < 1e-15
    return x


SCALES = [10.0**k for k in range(-300, 301, 25)] + [2.0**k for k in range(-990, 1001, 90)]


@pytest.mark.parametrize("scale", SCALES, ids=lambda s: f"{s:.3g}")
def test_magnitude_sweep_equals_unit_scale(scale):
    x = sweep_data()
    rho = np.array([0.1, 0.2, 0.0, 0.5])
    with pytest.warns(DegenerateWarning):
        unit = correlated_ttest(x, rho=rho, rope=(-0.05, 0.5))
    with pytest.warns(DegenerateWarning) as caught:
        scaled = correlated_ttest(x * scale, rho=rho, rope=(-0.05 * scale, 0.5 * scale))
    assert all("D3" in str(w.message) and "D4" in str(w.message) for w in caught)
    np.testing.assert_array_equal(scaled.degenerate, [False, False, True, True])
    for field in ("p_left", "p_rope", "p_right", "p_not_left", "p_not_right"):
        np.testing.assert_allclose(getattr(scaled, field), getattr(unit, field), rtol=1e-12, atol=0, err_msg=field)
    np.testing.assert_allclose(scaled.mean / scale, unit.mean, rtol=1e-12, atol=0)
    np.testing.assert_allclose(np.array(scaled.interval(0.9)) / scale, unit.interval(0.9), rtol=1e-12, atol=1e-14)
    for alternative in ("two-sided", "greater", "less"):
        one, other = (corrected_ttest(v, rho=rho, alternative=alternative) for v in (x, x * scale))
        np.testing.assert_allclose(other.statistic[:2], one.statistic[:2], rtol=1e-12)
        np.testing.assert_array_equal(other.statistic[2:], one.statistic[2:])  # ties: +-inf
        np.testing.assert_allclose(other.pvalue, one.pvalue, rtol=1e-12, atol=0)
        np.testing.assert_allclose(other.standard_error[:2] / scale, one.standard_error[:2], rtol=1e-12)


def test_magnitude_sweep_tiny_values_are_not_a_tie():
    """[1e-170, 2e-170, 3e-170] squared underflows: it used to read as 'all equal' with P = 1."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tiny = correlated_ttest([1e-170, 2e-170, 3e-170], rho=0)
        t_tiny = paired_ttest([1e-170, 2e-170, 3e-170])
    unit = correlated_ttest([1.0, 2.0, 3.0], rho=0)
    assert not tiny.degenerate
    assert float(tiny.p_right) == pytest.approx(float(unit.p_right), rel=1e-12)
    ref = stats.ttest_1samp([1.0, 2.0, 3.0], 0.0)
    assert float(t_tiny.statistic) == pytest.approx(ref.statistic, rel=1e-12)
    assert float(t_tiny.pvalue) == pytest.approx(ref.pvalue, rel=1e-12)


def test_magnitude_sweep_huge_values_keep_probabilities_when_b_overflows():
    """x * 1e160: the posterior b (squared units) is out of float range; the probabilities are not."""
    x = np.random.default_rng(12).normal(0.3, 1.0, 15)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        huge = correlated_ttest(x * 1e160, folds=5, rope=1e159)
        t_huge = corrected_ttest(x * 1e160, folds=5)
    unit = correlated_ttest(x, folds=5, rope=0.1)
    assert np.isinf(huge.posterior_params.b) and np.isfinite(huge.scaled_posterior.b)
    np.testing.assert_allclose([huge.p_left, huge.p_rope, huge.p_right], [unit.p_left, unit.p_rope, unit.p_right],
                               rtol=1e-12)
    np.testing.assert_allclose(t_huge.pvalue, corrected_ttest(x, folds=5).pvalue, rtol=1e-12)
    assert huge.posterior.cdf(huge.mean) == pytest.approx(0.5)
    np.testing.assert_allclose(huge.posterior.ppf(0.9) / 1e160, unit.posterior.ppf(0.9), rtol=1e-12)


@pytest.mark.parametrize("value", [0.0, 1e-300, 3e-170, 0.7, 2.5e150, 1e300, -1.7e308])
def test_magnitude_sweep_ties_are_caught_at_every_magnitude(value):
    with pytest.warns(DegenerateWarning, match="point mass"):
        res = correlated_ttest(np.full(10, value), folds=10)
    expected = (0.5, 0.0, 0.5) if value == 0 else ((0.0, 0.0, 1.0) if value > 0 else (1.0, 0.0, 0.0))
    assert (float(res.p_left), float(res.p_rope), float(res.p_right)) == expected
    assert float(res.mean) == value
    t = corrected_ttest(np.full(10, value), folds=10, alternative="greater")
    assert float(t.pvalue) == 1 - expected[2]  # the point-mass answer: P(B better) = 1 - p


@pytest.mark.parametrize("c", [1e-150, 2.0**-400, 1e-20, 3.0, 2.0**300, 1e150])
def test_magnitude_sweep_proper_prior_in_other_units(c):
    """A proper prior has units: x, mu0 scaled by c and b by c^2 give the same probabilities."""
    x = np.random.default_rng(13).normal(0.02, 0.05, (3, 10))
    prior = NormalGamma(0.01, 0.5, 2.0, 0.003)
    moved_prior = NormalGamma(0.01 * c, 0.5, 2.0, 0.003 * c * c)
    unit = correlated_ttest(x, folds=10, prior=prior, rope=0.01)
    moved = correlated_ttest(x * c, folds=10, prior=moved_prior, rope=0.01 * c)
    for field in ("p_left", "p_rope", "p_right"):
        np.testing.assert_allclose(getattr(moved, field), getattr(unit, field), rtol=1e-12, err_msg=field)
    np.testing.assert_allclose(moved.mean / c, unit.mean, rtol=1e-12)


def test_magnitude_sweep_prior_much_wider_than_data():
    """Data at 1e-170 and a prior with b = 1: the data's sum of squares is negligible, nothing is NaN."""
    x = np.array([1.0, 2.0, 4.0, 3.0]) * 1e-170
    prior = NormalGamma(0.0, 1.0, 1.0, 1.0)
    res = correlated_ttest(x, rho=0.0, prior=prior)
    post = res.posterior_params
    # by hand: A = 4, k = 1/5, mu = 4 xbar / 5, a = 3, b = 1 + (negligible)
    assert float(post.mu0) == pytest.approx(0.8 * 2.5e-170, rel=1e-12, abs=0)
    assert float(post.b) == pytest.approx(1.0, rel=1e-12)
    assert float(res.p_right) == pytest.approx(stats.t(6, 2e-170, np.sqrt(1 / 15)).sf(0), rel=1e-12)
    lo, hi = res.interval(0.9)
    assert float(hi) == pytest.approx(stats.t(6, 0, np.sqrt(1 / 15)).ppf(0.95), rel=1e-12)


# --- unchecked parameters --------------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs,name", [
    ({"rho": [0.1, 0.2, 0.3]}, "rho"), ({"folds": [5, 10]}, "folds"), ({"n_test": [1, 2], "n_train": 9}, "n_test"),
    ({"n_test": 1, "n_train": [9, 9, 9]}, "n_train"), ({"rho": [[0.1]]}, "rho")])
def test_rho_vector_length_must_match_datasets(kwargs, name):
    x = np.random.default_rng(14).normal(size=10)
    for data in (x, x[None, :], np.stack([x, x, x, x])):
        with pytest.raises(ValueError, match=rf"^{name} has .* data set"):
            correlated_ttest(data, **kwargs)
        with pytest.raises(ValueError, match=rf"^{name} has"):
            corrected_ttest(data, **kwargs)
    # one value per data set is fine, and a single value in a list is the one data set's
    three = np.stack([x, x, x])
    np.testing.assert_allclose(correlated_ttest(three, rho=[0.1, 0.2, 0.3]).p_right,
                               [float(correlated_ttest(x, rho=r).p_right) for r in (0.1, 0.2, 0.3)], rtol=1e-14)
    assert np.ndim(correlated_ttest(x, rho=[0.1]).p_right) == 0


def test_prior_arrays_must_match_datasets():
    x = np.random.default_rng(15).normal(size=(2, 10))
    with pytest.raises(ValueError, match="prior parameters have shape"):
        correlated_ttest(x[0], rho=0.1, prior=NormalGamma([0.0, 0.1, 0.2], 1.0, 1.0, 1.0))
    with pytest.raises(ValueError, match="prior parameters have shape"):
        correlated_ttest(x, rho=0.1, prior=NormalGamma([0.0, 0.1, 0.2], 1.0, 1.0, 1.0))
    with pytest.raises(TypeError, match="prior must be a NormalGamma"):
        correlated_ttest(x, rho=0.1, prior=(0.0, 1.0, 1.0, 1.0))


@pytest.mark.parametrize("name,value", [("mu0", np.nan), ("mu0", np.inf), ("k0", np.nan), ("k0", -np.inf),
                                        ("k0", 0.0), ("k0", 1e-320), ("a", np.nan), ("a", np.inf), ("a", -1.0),
                                        ("b", np.nan), ("b", np.inf), ("b", -1.0), ("mu0", [0.0, np.nan])])
def test_bad_prior_hyperparameters_are_named(name, value):
    params = {"mu0": 0.0, "k0": 1.0, "a": 1.0, "b": 1.0, name: value}
    with pytest.raises(ValueError, match=f"^{name} must"):
        NormalGamma(**params)
    with pytest.raises(TypeError, match=f"^{name} must"):
        NormalGamma(**{**params, name: "1.0"})
    assert NormalGamma(0.0, np.inf, 1.0, 1.0).update  # k0 = inf is the flat prior


def test_nan_prior_is_not_reported_as_a_probability_error():
    with pytest.raises(ValueError, match="^mu0 must be finite"):
        correlated_ttest([0.1, 0.2, 0.3], rho=0.1, prior=NormalGamma(np.nan, 1.0, 1.0, 1.0))


@pytest.mark.parametrize("kwargs,name", [({"folds": np.inf}, "folds"), ({"folds": np.nan}, "folds"),
                                         ({"folds": "10"}, "folds"), ({"n_test": 3, "n_train": np.inf}, "n_train"),
                                         ({"n_test": np.inf, "n_train": 30}, "n_test"),
                                         ({"n_test": np.nan, "n_train": 30}, "n_test"), ({"rho": np.nan}, "rho"),
                                         ({"rho": "0.1"}, "rho"), ({"folds": [10, np.inf]}, "folds")])
def test_non_finite_design_parameters_are_named(kwargs, name):
    x = np.random.default_rng(16).normal(size=(2, 10))
    with pytest.raises((ValueError, TypeError), match=f"^{name} must"):
        correlated_ttest(x, **kwargs)
    with pytest.raises((ValueError, TypeError), match=f"^{name} must"):
        corrected_ttest(x, **kwargs)


@pytest.mark.parametrize("corr,message", [
    (np.full((6, 6), np.nan), "corr must be finite"),
    (np.triu(np.full((6, 6), 0.3)) + 0.7 * np.eye(6), "corr must be symmetric"),
    (np.ones((6, 6)), "corr must be positive definite"),
    (np.eye(6) - 0.5 * (np.ones((6, 6)) - np.eye(6)), "corr must be positive definite"),
    (np.eye(5), r"corr must be \(6, 6\)"),
    (np.eye(6)[0], r"corr must be \(6, 6\)"),
    (np.stack([np.eye(6)] * 3), "corr has shape"),
])
def test_corr_must_be_finite_symmetric_positive_definite(corr, message):
    x = np.random.default_rng(17).normal(size=(2, 6))
    with pytest.raises(ValueError, match=message):
        correlated_ttest(x, corr=corr)


def test_x_shape_must_hold_data_sets():
    with pytest.raises(ValueError, match="x must be 1-D .* or 2-D"):
        correlated_ttest(np.zeros((2, 3, 4)), rho=0.1)
    with pytest.raises(ValueError, match="x must be 1-D"):
        corrected_ttest(np.zeros((2, 3, 4)), rho=0.1)
    for empty in (np.zeros((0, 5)), np.zeros((0, 0))):
        with pytest.raises(ValueError, match="no data sets"):
            correlated_ttest(empty, rho=0.1)
        with pytest.raises(ValueError, match="no data sets"):
            paired_ttest(empty)
    with pytest.raises(ValueError, match="at least 2"):
        correlated_ttest(np.zeros((3, 1)), rho=0.1)


def test_nan_in_y_is_reported_as_y():
    for fn in (lambda a, b: correlated_ttest(a, b, rho=0.1), lambda a, b: corrected_ttest(a, b, rho=0.1)):
        with pytest.raises(ValueError, match=r"^y contains NaN"):
            fn([0.8, 0.9, 0.7], [0.8, np.nan, 0.7])
        with pytest.raises(ValueError, match=r"^x contains NaN"):
            fn([0.8, np.inf, 0.7], [0.8, 0.9, 0.7])


@pytest.mark.parametrize("level", [0.0, 1.0, 1.5, -0.1, np.nan, np.inf])
def test_confidence_level_outside_unit_interval_is_named(level):
    res = correlated_ttest([0.01, 0.03, 0.02, 0.05], folds=4)
    for fn in (res.interval, res.to_frame, paired_ttest([0.01, 0.03, 0.02]).confidence_interval):
        with pytest.raises(ValueError, match="^confidence_level must"):
            fn(confidence_level=level)
    with pytest.raises(TypeError, match="^confidence_level must"):
        res.interval("0.95")


def test_unknown_alternative_is_named():
    for fn in (lambda: corrected_ttest([0.1, 0.2], rho=0.1, alternative="bigger"),
               lambda: paired_ttest([0.1, 0.2], alternative="two_sided"),
               lambda: correlated_ttest([0.1, 0.2], rho=0.1).frequentist("larger")):
        with pytest.raises(ValueError, match="^alternative must be"):
            fn()


@pytest.mark.parametrize("mu0", [0.0, 1e-300, 3.0, 1e300, -1.7e308])
def test_flat_prior_ignores_its_centre(mu0):
    """k0 = inf: mu0 has no weight, however large (it used to meet 0 * inf = NaN in b)."""
    x = np.random.default_rng(18).normal(0.01, 0.02, (3, 10))
    ref = correlated_ttest(x, folds=10, prior=NormalGamma(0.0, np.inf, 1.0, 1e-4), rope=0.01)
    res = correlated_ttest(x, folds=10, prior=NormalGamma(mu0, np.inf, 1.0, 1e-4), rope=0.01)
    for field in ("p_left", "p_rope", "p_right"):
        np.testing.assert_array_equal(getattr(res, field), getattr(ref, field))
    # by hand: flat prior, a = 1 + n/2, b = 1e-4 + Q/2, loc = xbar, scale^2 = b / (a A)
    n, rho = 10, 0.1
    A = n / (1 + (n - 1) * rho)
    b = 1e-4 + x.var(axis=1) * n / (1 - rho) / 2
    law = stats.t(2 * (1 + n / 2), x.mean(axis=1), np.sqrt(b / ((1 + n / 2) * A)))
    np.testing.assert_allclose(res.p_right, law.sf(0.01), rtol=1e-10)


def test_folds_that_disagree_with_the_scores_are_named(uci54):
    """10 runs x 10 folds given folds=100 (the number of scores): rho would be 0.01 instead of 0.1."""
    with pytest.warns(UserWarning, match="folds=100 but the scores have 10 folds per run"):
        correlated_ttest(uci54, algorithms=("nbc", "hnb"), folds=100)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        correlated_ttest(uci54.isel(dataset=slice(0, 3)), algorithms=("nbc", "hnb"), folds=10)


@settings(max_examples=300, deadline=None)
@given(df=st.floats(1e-3, 1e12), z=st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                                              st.floats(-1e-300, 1e-300)))
def test_both_student_t_tails_from_one_evaluation_equal_scipys(df, z):
    """correlated_ttest's probabilities come from student_t_tails; it must be stdtr(df, z) and stdtr(df, -z)."""
    below, above = student_t_tails(df, np.array([z]))
    np.testing.assert_array_equal(below, special.stdtr(df, [z]))
    np.testing.assert_array_equal(above, special.stdtr(df, [-z]))


@pytest.mark.parametrize("spread", [1.0, 0.5, 0.3])
@pytest.mark.parametrize("sign", [1, -1])
def test_rope_mass_far_from_the_posterior_keeps_its_relative_precision(spread, sign):
    """A posterior far on one side of the rope: P(rope) is the difference of two small tails on the rope's side.
    Computed as the difference of the two tails near 1 it lost its digits (1.6992e-12 read 1.6992e-12 only to 5
    digits, 3.44e-15 as 3.33e-15, smaller values as a few ulps of 1 or 0)."""
    base = np.array([1.0, 1.1, 0.9, 1.05, 0.95, 1.02, 0.98, 1.01, 0.99, 1.03])
    d = sign * (1.0 + (base - 1.0) * spread)
    res = correlated_ttest(d, rho=0.1, rope=0.01)
    n, m = len(d), d.mean()
    scale = np.sqrt((1 / n + 0.1 / 0.9) * d.var(ddof=1))
    lo, hi = (-0.01 - m) / scale, (0.01 - m) / scale
    oracle = stats.t.cdf(hi, n - 1) - stats.t.cdf(lo, n - 1) if sign > 0 else \
        stats.t.sf(lo, n - 1) - stats.t.sf(hi, n - 1)
    assert 0 < oracle < 1e-11
    assert float(res.p_rope) == pytest.approx(oracle, rel=1e-10, abs=0)  # pytest.approx allows 1e-12 by default


def test_a_scores_dataset_without_data_sets_is_refused_by_name():
    scores = pp_corr.load_scores(pp_corr.example_path()).isel(dataset=[])
    with pytest.raises(ValueError, match="the scores hold no data sets"):
        correlated_ttest(scores, algorithms=("tree", "knn"))


# ---- incomplete designs: failed folds ----------------------------------------------------------------------------

def gappy_example():
    """The example's scores with failed folds of 'knn' on 'wine' (runs of 10, 8 and 9 folds) and of 'tree' there
    (one fold where both failed, one where only 'tree' did), and 'knn' not run on 'iris'."""
    scores = pp_corr.load_scores(pp_corr.example_path())
    gappy = scores.copy(deep=True)
    for algorithm, run, folds in (("knn", 1, [2, 5]), ("knn", 3, [7]), ("tree", 1, [2]), ("tree", 4, [0])):
        gappy["score"].loc[dict(dataset="wine", algorithm=algorithm, run=run + 1)][folds] = np.nan
    gappy["score"] = gappy.score.where(~((gappy.dataset == "iris") & (gappy.algorithm == "knn")))
    return scores, gappy


def test_failed_folds_use_the_folds_both_have_with_the_designs_rho():
    """On 'wine' the test uses the 96 folds where both have a score, with rho = 1/10 of the design's splits, and
    equals the correlated t-test written out on those folds: the matching prior's posterior is
    t_{n-1}(mean, sqrt((1/n + rho/(1 - rho)) s^2)). The data sets without gaps keep their complete-data answer
    exactly; 'iris', where knn has no score, is left out and named."""
    scores, gappy = gappy_example()
    res = correlated_ttest(gappy, algorithms=("tree", "knn"), rope=0.01)
    assert res.datasets == ("wine", "breast_cancer", "digits") and res.left_out == ("iris",)
    assert "left out: 1 data set where tree and knn do not both have scores: iris" in repr(res)
    assert res.to_dict()["left_out"] == ["iris"]
    assert res.with_rope(0.02).left_out == ("iris",)
    given_rho = correlated_ttest(gappy, algorithms=("tree", "knn"), rho=[0.4, 0.1, 0.2, 0.3])  # one per data set
    assert np.asarray(given_rho.rho).tolist() == [0.1, 0.2, 0.3]
    assert given_rho.p_right[0] == res.with_rope(None).p_right[0]
    d = (gappy.score.sel(dataset="wine", algorithm="knn") - gappy.score.sel(dataset="wine", algorithm="tree")).values
    d = d[~np.isnan(d)]
    n, rho = len(d), 0.1
    assert n == 96 and float(gappy.rho.sel(dataset="wine")) == rho
    law = stats.t(n - 1, d.mean(), np.sqrt((1 / n + rho / (1 - rho)) * d.var(ddof=1)))
    assert float(res.p_right[0]) == pytest.approx(law.sf(0.01), rel=1e-12)
    assert float(res.p_left[0]) == pytest.approx(law.cdf(-0.01), rel=1e-12)
    complete = correlated_ttest(scores, algorithms=("tree", "knn"), rope=0.01)
    np.testing.assert_array_equal(res.p_right[1:], complete.p_right[2:])
    np.testing.assert_array_equal(res.p_left[1:], complete.p_left[2:])


@pytest.mark.parametrize("rho", [0.1, 0.3])
def test_intraclass_statistics_on_unequal_runs_equal_the_dense_likelihood(rho):
    """The sufficient statistics of the folds present (runs of 10, 7 and 4 folds, NaN for the failed ones) give the
    log-likelihood of x ~ MVN(mu 1, sigma^2 ((1 - rho) I + rho 1 1^T)) over those folds, as scipy's dense
    multivariate normal computes it with the explicit covariance; so does a known corr= of that matrix."""
    from pp_corr.pairwise.intraclass import SufficientStats

    rng = np.random.default_rng(38)
    x = rng.normal(0.02, 0.03, size=(3, 10))
    x[1, 7:], x[2, [0, 2, 4, 5, 6, 9]] = np.nan, np.nan
    present = x[~np.isnan(x)]
    n = len(present)
    cov = (1 - rho) * np.eye(n) + rho * np.ones((n, n))
    s = SufficientStats.from_samples(x.reshape(1, -1), rho, padded=True)
    assert int(s.n[0]) == n == 21
    dense = SufficientStats.from_samples(present, corr=cov)
    for mu, sigma in ((0.0, 0.03), (0.02, 0.05), (-0.01, 0.01)):
        oracle = stats.multivariate_normal(np.full(n, mu), sigma**2 * cov).logpdf(present)
        for st_ in (s, dense):
            logdet = (n - 1) * np.log1p(-rho) + np.log1p((n - 1) * rho)
            quad = st_.weighted_ss + st_.effective_n * (st_.mean - mu) ** 2
            logp = -0.5 * (n * np.log(2 * np.pi * sigma**2) + logdet + quad / sigma**2)
            assert float(np.ravel(logp)[0]) == pytest.approx(oracle, rel=1e-12)


def test_a_pair_without_two_common_folds_or_a_common_data_set_is_named():
    scores, gappy = gappy_example()
    gappy["score"].loc[dict(dataset="digits", algorithm="tree")][:, 1:] = np.nan
    gappy["score"].loc[dict(dataset="digits", algorithm="tree")][1:, :] = np.nan
    with pytest.raises(ValueError, match=r"'tree' and 'knn' have fewer than 2 folds in common .* 'digits'"):
        correlated_ttest(gappy, algorithms=("tree", "knn"))
    alone = gappy.sel(dataset=["iris"])
    with pytest.raises(ValueError, match=r"'tree' and 'knn' have no data set where both have scores \(of 1"):
        correlated_ttest(alone, algorithms=("tree", "knn"))
