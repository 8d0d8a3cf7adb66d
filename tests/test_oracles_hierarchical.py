"""Independent oracles for the hierarchical model (issue #19): the new-data-set probabilities recomputed from the
posterior draws with scipy, and the conditional posterior of one sigma_i (the chi-square scatter term and the
sigma prior) against its analytic form."""
import warnings

import arviz as az
import numpy as np
import pymc as pm
import pytest
from pymc.model.transform.conditioning import remove_value_transforms
from scipy import integrate, stats

from pp_corr.hierarchical.model import hierarchical_model
from pp_corr.sampling import ConvergenceWarning
from pp_corr.hierarchical.fit import hierarchical_test

FOLDS, RHO = 10, 0.1


def test_new_dataset_probabilities_from_the_posterior_draws():
    x = np.random.default_rng(0).normal(0.01, 0.02, (6, FOLDS))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)   # a short fit; the draws are what we check against
        res = hierarchical_test(x, folds=FOLDS, rope=0.01, draws=300, tune=300, chains=2,
                                form="noncentered", retry=False, method="mcmc",
                                target_accept=0.95, random_seed=1)
    post = res.idata.posterior
    delta0, sigma0, nu = (post[v].values.ravel() for v in ("delta0", "sigma0", "nu"))
    lo, hi = res.rope
    assert (lo, hi) == pytest.approx((-0.01, 0.01))
    # delta_new ~ Student-t(nu, delta0, sigma0), per draw
    left = stats.t.cdf(lo, nu, delta0, sigma0)
    right = stats.t.sf(hi, nu, delta0, sigma0)
    regions = np.column_stack([left, 1 - left - right, right])
    top = regions == regions.max(axis=1, keepdims=True)
    wins = (top / top.sum(axis=1, keepdims=True)).mean(axis=0)
    new = res.new_dataset()
    means = regions.mean(axis=0)
    # the three regions differ clearly, so a swap of any two cannot pass
    assert min(abs(means[0] - means[1]), abs(means[1] - means[2]), abs(means[0] - means[2])) > 0.05, means
    assert min(abs(wins[0] - wins[1]), abs(wins[1] - wins[2]), abs(wins[0] - wins[2])) > 0.05, wins
    np.testing.assert_allclose([new.p_left, new.p_rope, new.p_right], means, rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose([new.win_left, new.win_rope, new.win_right], wins, rtol=0, atol=1e-12)
    # draw by draw (the order of the draws aside)
    np.testing.assert_allclose(np.sort(new.samples, axis=0), np.sort(regions, axis=0), rtol=1e-7, atol=1e-10)


# ---- the conditional posterior of sigma_i -------------------------------------------------------------------------

BOUNDS = {"delta0": 1.0, "sigma0": 1.0, "sigma": (0.005, 0.2)}
X = np.random.default_rng(2).normal(0.01, 0.03, (4, FOLDS))
FIXED = {"delta0_scaled": 0.01, "sigma0_scaled": 0.02, "nu_minus_one": 4.0,
         "delta_scaled": np.array([0.0, 0.02, 0.01, -0.01])}


def analytic_log_conditional(sigma, i):
    """log p(sigma_i | xbar_i, SS_i, delta_i) up to a constant: the flat prior on the bounds times
    N(xbar_i | delta_i, sigma^2 ((1 - rho)/n + rho)) times the density of SS_i, where
    SS_i / (sigma^2 (1 - rho)) ~ chi-square(n - 1)."""
    n = X.shape[1]
    xbar, ss = X[i].mean(), ((X[i] - X[i].mean()) ** 2).sum()
    sigma = np.asarray(sigma, dtype=float)
    mean_part = stats.norm.logpdf(xbar, FIXED["delta_scaled"][i], sigma * np.sqrt((1 - RHO) / n + RHO))
    unit = sigma**2 * (1 - RHO)
    scatter_part = stats.chi2.logpdf(ss / unit, n - 1) - np.log(unit)
    inside = (sigma >= BOUNDS["sigma"][0]) & (sigma <= BOUNDS["sigma"][1])
    return np.where(inside, mean_part + scatter_part, -np.inf)


@pytest.fixture(scope="module")
def model_log_conditional():
    """sigma -> the model's joint log density (on the constrained scale, no Jacobian) with everything fixed but
    sigma_i: as a function of sigma_i that is its log conditional up to a constant."""
    model = hierarchical_model(X, folds=FOLDS, scale=1.0, bounds=BOUNDS)
    assert {"sigma_scaled", "delta_scaled", "xbar_obs", "ss_obs"} <= set(model.named_vars)
    np.testing.assert_allclose(model["xbar_obs"].get_value(), X.mean(axis=1), rtol=1e-12)   # scale=1: our units
    plain = remove_value_transforms(model)
    logp = plain.compile_logp(jacobian=False)
    sigmas = np.array([0.03, 0.025, 0.035, 0.04])

    def log_conditional(sigma, i):
        s = sigmas.copy()
        s[i] = sigma
        return float(logp({**FIXED, "sigma_scaled": s}))

    return log_conditional


@pytest.mark.parametrize("i", range(4))
def test_conditional_posterior_of_sigma_matches_its_analytic_form(model_log_conditional, i):
    lo, hi = BOUNDS["sigma"]
    grid = np.geomspace(lo * 1.01, hi * 0.99, 40)
    model = np.array([model_log_conditional(s, i) for s in grid])
    exact = analytic_log_conditional(grid, i)
    # equal up to one additive constant
    np.testing.assert_allclose(model - model[20], exact - exact[20], rtol=0, atol=1e-8)
    # normalised on the prior's support by quadrature: the same conditional density and distribution
    ref = exact[20]
    z_model = integrate.quad(lambda s: np.exp(model_log_conditional(s, i) - model[20]), lo, hi, points=grid[::8],
                             epsabs=0, epsrel=1e-10, limit=200)[0]
    z_exact = integrate.quad(lambda s: np.exp(analytic_log_conditional(s, i) - ref), lo, hi, points=grid[::8],
                             epsabs=0, epsrel=1e-10, limit=200)[0]
    assert z_model == pytest.approx(z_exact, rel=1e-7)
    for s in grid[::5]:
        cdf_model = integrate.quad(lambda t: np.exp(model_log_conditional(t, i) - model[20]), lo, s,
                                   epsabs=0, epsrel=1e-10, limit=200)[0] / z_model
        cdf_exact = integrate.quad(lambda t: np.exp(analytic_log_conditional(t, i) - ref), lo, s,
                                   epsabs=0, epsrel=1e-10, limit=200)[0] / z_exact
        assert cdf_model == pytest.approx(cdf_exact, abs=1e-7)
    # the flat prior stops at its bounds
    assert model_log_conditional(lo * 0.99, i) == -np.inf and model_log_conditional(hi * 1.01, i) == -np.inf


def test_a_wrong_chi_square_degrees_of_freedom_would_show():
    """The oracle above separates sigma^-(n-1) from sigma^-n: over the grid the two log densities differ by
    log(sigma) + const, far beyond the 1e-8 tolerance."""
    lo, hi = BOUNDS["sigma"]
    grid = np.geomspace(lo * 1.01, hi * 0.99, 40)
    exact = analytic_log_conditional(grid, 0)
    wrong = exact - np.log(grid)      # one more power of 1/sigma: n/2 in place of (n - 1)/2
    assert np.ptp((wrong - wrong[20]) - (exact - exact[20])) > 1.0


@pytest.mark.slow
def test_sampled_sigma_follows_its_conditional():
    """The same conditional by NUTS: everything but sigma fixed with pm.do (the sigma_i are then independent),
    the draws' quantiles against the analytic distribution function."""
    model = hierarchical_model(X, folds=FOLDS, scale=1.0, bounds=BOUNDS)
    with pm.do(model, FIXED):
        idata = pm.sample(draws=1000, tune=500, chains=2, random_seed=3, quiet=True, progressbar=False,
                          compute_convergence_checks=False)
    lo, hi = BOUNDS["sigma"]
    for i in range(4):
        draws = idata.posterior["sigma_scaled"].values[..., i]
        ref = analytic_log_conditional(np.median(draws), i)
        dens = lambda s: np.exp(analytic_log_conditional(s, i) - ref)  # noqa: E731
        total = integrate.quad(dens, lo, hi, epsabs=0, epsrel=1e-10, limit=200)[0]
        ess = float(az.ess(draws))
        for p in (0.1, 0.5, 0.9):
            q = np.quantile(draws, p)
            cdf = integrate.quad(dens, lo, q, epsabs=0, epsrel=1e-10, limit=200)[0] / total
            assert abs(cdf - p) <= 4 * np.sqrt(p * (1 - p) / ess), (i, p, cdf)
