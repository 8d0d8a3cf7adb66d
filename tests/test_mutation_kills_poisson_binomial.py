"""The Poisson-binomial distribution outside its support and over a batch, its repr, and the Monte Carlo estimate's
size and standard error (issue #19, mutation survivors). Oracles: scipy's poisson_binom row by row, sums of p written
here, and the spread of independent Monte Carlo replications."""
import re

import numpy as np
import pytest
from scipy import stats

from pp_corr import PoissonBinomial, poisson_binomial_monte_carlo

P = np.array([0.5, 0.3, 0.9, 0.65])
P_MC = np.array([0.5, 0.4, 0.6, 0.5])   # every count has probability above 0.05


def test_pmf_is_zero_outside_the_support():
    X = PoissonBinomial(P)
    assert X.pmf([-2, -1, len(P) + 1, len(P) + 5]).tolist() == [0.0, 0.0, 0.0, 0.0]
    assert float(X.pmf(len(P))) == pytest.approx(np.prod(P), rel=1e-14)


def test_batched_cdf_sums_each_problem_on_its_own():
    p = np.random.default_rng(0).uniform(size=(3, 6))
    k = np.arange(-1, 8)
    cdf = PoissonBinomial(p).cdf(k)
    assert cdf.shape == (3, len(k))
    for row, probabilities in zip(cdf, p):
        np.testing.assert_allclose(row, stats.poisson_binom(probabilities).cdf(k), rtol=1e-12, atol=1e-15)


def test_repr_shows_trials_batch_and_mean_to_four_decimals():
    p = np.array([0.51234, 0.3, 0.9, 0.65])
    single = repr(PoissonBinomial(p))
    match = re.fullmatch(r"PoissonBinomial\(n_trials=4, batch=\(\), mean=(\S+)\)", single)
    assert match, single
    assert float(match[1]) == pytest.approx(round(p.sum(), 4), abs=1e-12)
    batch = np.stack([p, p[::-1] / 2])
    text = repr(PoissonBinomial(batch))
    match = re.fullmatch(r"PoissonBinomial\(n_trials=4, batch=\(2,\), mean=\[(\S+) +(\S+)\]\)", text)
    assert match, text
    assert [float(v) for v in match.groups()] == pytest.approx([round(v, 4) for v in batch.sum(axis=1)], abs=1e-12)


def test_monte_carlo_default_size_and_a_last_short_chunk():
    """The default is 100,000 rounds (the pmf is counts / 100,000); a last chunk shorter than the others draws only
    the rounds that are left."""
    pmf, _ = poisson_binomial_monte_carlo(P, random_seed=1)
    counts = pmf * 100_000
    np.testing.assert_allclose(counts, np.round(counts), atol=1e-6)
    assert counts.sum() == pytest.approx(100_000, abs=1e-6)
    pmf, _ = poisson_binomial_monte_carlo(P, draws=25_000, chunk=10_000, random_seed=1)
    counts = pmf * 25_000
    np.testing.assert_allclose(counts, np.round(counts), atol=1e-6)
    assert counts.sum() == pytest.approx(25_000, abs=1e-6)


def test_monte_carlo_standard_error_is_the_spread_of_replications():
    """400 independent estimates of the pmf: their standard deviation is what each reports as its standard error
    (the sd of 400 normal-ish values is off by about 1/sqrt(2 * 399) = 3.5% relative; we allow 5 of those)."""
    replications, n_draws = 400, 2_000
    seeds = np.random.SeedSequence(5).spawn(replications)
    estimates, errors = zip(*(poisson_binomial_monte_carlo(P_MC, draws=n_draws, random_seed=np.random.default_rng(s))
                              for s in seeds))
    spread = np.std(estimates, axis=0, ddof=1)
    reported = np.mean(errors, axis=0)
    exact = PoissonBinomial(P_MC).pmf()
    assert (exact > 0.05).all()
    np.testing.assert_allclose(reported, spread, rtol=5 / np.sqrt(2 * (replications - 1)))
