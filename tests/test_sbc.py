"""Simulation-based calibration of the PyMC models (slow; run by make test).

The fits keep no warm-up draws (``save_warmup=False``): the ranks use only the draws after it, which are the same,
bit for bit, either way (same seed); storing and converting the warm-up took a quarter of each replication's time."""
import numpy as np
import pytest
from scipy import stats

from pp_corr import NormalGamma
from pp_corr.pairwise.models import correlated_t_model

nutpie = pytest.importorskip("nutpie")


@pytest.mark.slow
def test_sbc_rank_statistics_are_uniform():
    n, rho, prior = 10, 0.1, NormalGamma(0.0, 1.0, 3.0, 0.02)
    reps, thin, kept = 200, 4, 99
    rng = np.random.default_rng(2026)
    compiled = nutpie.compile_pymc_model(correlated_t_model(np.zeros(n) + rng.normal(size=n), rho=rho, prior=prior))
    corr = (1 - rho) * np.eye(n) + rho
    ranks = {"mu": [], "sigma": []}
    for rep in range(reps):
        nu = rng.gamma(prior.a, 1 / prior.b)
        mu = rng.normal(prior.mu0, np.sqrt(prior.k0 / nu))
        x = rng.multivariate_normal(np.full(n, mu), corr / nu)
        trace = nutpie.sample(compiled.with_data(x_obs=x), draws=thin * kept, tune=300, chains=1, seed=rep,
                              progress_bar=False, save_warmup=False)
        post = trace.posterior
        for name, truth in (("mu", mu), ("sigma", 1 / np.sqrt(nu))):
            draws = post[name].values.ravel()[::thin]
            ranks[name].append(int(np.sum(draws < truth)))
    for name, r in ranks.items():
        counts = np.bincount(np.asarray(r) // 10, minlength=10)  # ranks 0..99 in 10 bins
        p = stats.chisquare(counts).pvalue
        assert p > 0.001, (name, counts.tolist(), p)


@pytest.mark.slow
def test_hierarchical_sbc_rank_statistics_are_uniform():
    """SBC of the hierarchical model on 5 small data sets (fixed prior limits, so the prior does not depend on
    the data), 200 replications: simulating with rho = 0.3 against the model's 0.1 makes sigma0 fail it (p = 7e-9,
    and delta[0] p = 5e-4; at 400 replications p ~ 1e-11), while the model's own rho passes (smallest p 0.13)."""
    from pp_corr.hierarchical.model import hierarchical_model
    from pp_corr.hierarchical.priors import hyperprior_bounds

    q, n, rho, reps, thin, kept = 5, 10, 0.1, 200, 4, 99
    bounds = {"delta0": 1.0, "sigma0": 1.0, "sigma": (0.5, 2.0)}
    rng = np.random.default_rng(7)
    model = hierarchical_model(rng.normal(size=(q, n)), rho=rho, scale=1.0, bounds=bounds, form="noncentered")
    compiled = nutpie.compile_pymc_model(model)
    corr = (1 - rho) * np.eye(n) + rho
    ranks = {"delta0": [], "sigma0": [], "nu": [], "delta[0]": []}
    for rep in range(reps):
        delta0, sigma0 = rng.uniform(-1, 1), rng.uniform(0, 1)
        alpha, beta = (rng.uniform(*hyperprior_bounds("current")[key]) for key in ("alpha", "beta"))
        nu = 1 + rng.gamma(alpha, 1 / beta)
        delta = delta0 + sigma0 * rng.standard_t(nu, q)
        sigma = rng.uniform(*bounds["sigma"], q)
        x = delta[:, None] + sigma[:, None] * rng.multivariate_normal(np.zeros(n), corr, size=q)
        xbar = x.mean(axis=1)
        trace = nutpie.sample(compiled.with_data(xbar_obs=xbar, ss_obs=((x - xbar[:, None]) ** 2).sum(axis=1)),
                              draws=thin * kept, tune=500, chains=1, seed=rep, progress_bar=False, target_accept=0.95,
                              save_warmup=False)
        post = trace.posterior
        for name, truth, draws in (("delta0", delta0, post["delta0"]), ("sigma0", sigma0, post["sigma0"]),
                                   ("nu", nu, post["nu"]), ("delta[0]", delta[0], post["delta"].values[..., 0])):
            ranks[name].append(int(np.sum(np.asarray(draws).ravel()[::thin] < truth)))
    for name, r in ranks.items():
        counts = np.bincount(np.asarray(r) // 10, minlength=10)
        p = stats.chisquare(counts).pvalue
        assert p > 0.001, (name, counts.tolist(), p)
