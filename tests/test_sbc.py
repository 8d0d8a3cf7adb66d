"""Simulation-based calibration of the proper-prior PyMC model (slow; run by make test)."""
import numpy as np
import pytest
from scipy import stats

from pp_corr import NormalGamma
from pp_corr.models import correlated_t_model

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
                              progress_bar=False)
        post = trace.posterior
        for name, truth in (("mu", mu), ("sigma", 1 / np.sqrt(nu))):
            draws = post[name].values.ravel()[::thin]
            ranks[name].append(int(np.sum(draws < truth)))
    for name, r in ranks.items():
        counts = np.bincount(np.asarray(r) // 10, minlength=10)  # ranks 0..99 in 10 bins
        p = stats.chisquare(counts).pvalue
        assert p > 0.001, (name, counts.tolist(), p)
