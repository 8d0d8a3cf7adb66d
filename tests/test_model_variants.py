"""Hierarchical variants and their checks (#15 items 2, 3): the integrated per-data-set likelihood against brute-force
2-D quadrature, the variants by keyword, leave-one-data-set-out comparison, prior sensitivity, predictive coverage."""
import warnings

import arviz as az
import numpy as np
import pymc as pm
import pytest
from scipy import integrate, stats

from pp_corr.check_plots import plot_loo_pit, plot_predictive_intervals
from pp_corr.checks import compare_variants, predictive_intervals, prior_sensitivity
from pp_corr.hierarchical.dataset_likelihood import FINE, GRID, integrated_log_likelihood
from pp_corr.hierarchical.model import hierarchical_model
from pp_corr.sampling import ConvergenceWarning
from pp_corr.hierarchical.fit import hierarchical_test

# scipy's adaptive quadrature (epsrel 1e-12 per dimension) against the exact package's cells and refinement: the fine
# grid measured within 3e-9 of it over these cases (the largest where the kernel is 50 times narrower than the data
# set's spread), the default grid within 1.3e-7 (a coarser grid, cell_nats 0.25, reaches 1.2e-8: the error falls
# with the cells)
TOL, TOL_DEFAULT = 1e-8, 5e-7


def brute_force(x, rho, delta0, sigma0, nu, lo, hi):
    """log p(x | delta0, sigma0, nu): scipy quad over log sigma inside quad over delta, both from the densities."""
    n, xbar = len(x), x.mean()
    ss = float(((x - xbar) ** 2).sum())
    kernel = stats.norm(delta0, sigma0) if np.isinf(nu) else stats.t(nu, delta0, sigma0)
    chol = np.linalg.cholesky((1 - rho) * np.eye(n) + rho)  # the dense correlation's factor, sigma^2 R = (sigma L)^2
    to_x, to_one = np.linalg.solve(chol, x), np.linalg.solve(chol, np.ones(n))
    log_det = np.log(np.diag(chol)).sum()

    def folds(d, u):  # p(x | d, sigma = e^u) sigma / (hi - lo): the dense MVN density through L
        z = (to_x - d * to_one) * np.exp(-u)
        return -0.5 * (n * np.log(2 * np.pi) + z @ z) - log_det - n * u + u - np.log(hi - lo)

    top = max(folds(xbar, u) for u in np.linspace(np.log(lo), np.log(hi), 400))

    def inner(d):
        peak = max(np.log(lo), min(np.log(hi), 0.5 * np.log((ss + n * (xbar - d) ** 2 / (1 + (n - 1) * rho)) / n
                                                               + 1e-300)))
        value = integrate.quad(lambda u: np.exp(folds(d, u) - top), np.log(lo), np.log(hi), points=[peak],
                               epsabs=0, epsrel=1e-12, limit=400)[0]
        return value * kernel.pdf(d)

    spread = max(sigma0, np.sqrt(ss / n) + 1e-3)
    a, b = sorted((xbar, delta0))
    edges = [-np.inf, a - 60 * spread, b + 60 * spread, np.inf]
    total = sum(integrate.quad(inner, edges[j], edges[j + 1], epsabs=0, epsrel=1e-12, limit=400,
                               **({"points": sorted({a, b, delta0 - 3 * sigma0, delta0 + 3 * sigma0})} if j == 1
                                  else {}))[0] for j in range(3))
    return top + np.log(total)


CASES = [  # n, rho, delta0 (from xbar), sigma0, nu: wide and narrow kernels, heavy and normal tails, far out
    (6, 0.2, 0.3, 0.8, 4.0), (10, 0.1, -1.0, 0.02, 30.0), (3, 0.4, 2.5, 0.5, 1.2), (8, 0.0, 0.1, 1.5, np.inf),
    (5, 0.3, -0.7, 0.05, np.inf), (7, 0.25, 0.05, 0.015, 15.0)]


@pytest.mark.long
@pytest.mark.parametrize("case", range(len(CASES)))
def test_integrated_log_likelihood_equals_brute_force(case):
    n, rho, shift, sigma0, nu = CASES[case]
    x = np.random.default_rng(case).normal(0.0, 0.7, n)
    lo, hi = 0.05, 20.0
    fine, default = (integrated_log_likelihood([x.mean()], [((x - x.mean()) ** 2).sum()], [n], [rho],
                                               [x.mean() + shift], [sigma0], [nu], (lo, hi), grid=grid)[0, 0]
                     for grid in (FINE, GRID))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", integrate.IntegrationWarning)  # far tails of the inner quad, worth 0
        expected = brute_force(x, rho, x.mean() + shift, sigma0, nu, lo, hi)
    assert abs(fine - expected) < TOL and abs(default - expected) < TOL_DEFAULT


@pytest.mark.long
def test_integrated_log_likelihood_of_a_constant_data_set_and_many_draws():
    """A zero-variance data set (its likelihood peaks at sigma_i = lo) and draws as rows, against the one-draw calls."""
    x = np.full(6, 0.4)
    draws = [(0.35, 0.01, 20.0), (0.0, 0.5, 2.0), (0.4, 0.2, np.inf)]
    many = integrated_log_likelihood([0.4], [0.0], [6], [0.2], *zip(*draws), (0.05, 20.0), grid=FINE)
    for row, (d0, s0, nu) in zip(many, draws):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", integrate.IntegrationWarning)
            assert abs(row[0] - brute_force(x, 0.2, d0, s0, nu, 0.05, 20.0)) < TOL
    with pytest.raises(ValueError, match="sigma0: out of range"):
        integrated_log_likelihood([0.4], [0.0], [6], [0.2], [0.0], [0.0], [3.0], (0.05, 20.0))


def test_variants_by_keyword():
    x = np.random.default_rng(0).normal(0.02, 0.02, (4, 10))
    free = {name: sorted(v.name for v in hierarchical_model(x, folds=10, **kw).free_RVs) for name, kw in (
        ("normal", {"population": "normal"}), ("kruschke", {"priors": "kruschke"}),
        ("juarez_steel", {"priors": "juarez_steel"}),
        ("bounds", {"priors": {"alpha": (1.0, 3.0), "beta": (0.1, 0.2)}}))}
    assert free["normal"] == ["delta0_scaled", "delta_scaled", "sigma0_scaled", "sigma_scaled"]
    assert "nu_minus_one" in free["kruschke"] and "nu_minus_one" in free["bounds"]
    assert "nu_gamma" in free["juarez_steel"]
    kruschke = hierarchical_model(x, folds=10, priors="kruschke")
    assert type(kruschke["nu_minus_one"].owner.op).__name__ == "ExponentialRV"
    np.testing.assert_allclose(kruschke["nu_minus_one"].owner.inputs[-1].eval(), 29.0)  # the scale, 1 / rate
    juarez = hierarchical_model(x, folds=10, priors="juarez_steel")
    alpha, scale = (float(v.eval()) for v in juarez["nu_gamma"].owner.inputs[-2:])
    assert (alpha, scale) == (2.0, 10.0)
    marginal = hierarchical_model(x, folds=10, population="normal", form="marginal")
    assert sorted(v.name for v in marginal.free_RVs) == ["delta0_scaled", "sigma0_scaled", "sigma_scaled"]
    with pytest.raises(ValueError, match="population must be one of"):
        hierarchical_model(x, folds=10, population="cauchy")
    with pytest.raises(ValueError, match="priors must be one of"):
        hierarchical_model(x, folds=10, priors="gelman")
    with pytest.raises(ValueError, match=r"priors\['beta'\] must be a pair"):
        hierarchical_model(x, folds=10, priors={"alpha": (1.0, 2.0), "beta": (0.2, 0.1)})
    with pytest.raises(TypeError, match="delta0_prior must be a callable"):
        hierarchical_model(x, folds=10, delta0_prior="normal")
    with pytest.raises(ValueError, match="method: 'exact' needs delta0's uniform prior and priors in"):
        hierarchical_test(x, folds=10, priors="juarez_steel", method="exact")


@pytest.mark.slow
def test_result_log_likelihood_is_the_integrated_one_and_loo_is_reliable():
    """by_dataset of a fit is the integrated likelihood at its draws (in the scores' units), its Pareto k are good
    where the conditional one's are not, and compare_variants ranks the fits."""
    x = np.random.default_rng(9).normal(0.01, 0.02, (5, 10))  # no data set far out (k of one can exceed 0.7)
    fits = {p: hierarchical_test(x, folds=10, priors=p, method="exact", draws=300, chains=2, random_seed=1)
            for p in ("current", "older")}
    assert "log_likelihood" not in fits["older"].idata.children  # left out unless asked: compare_variants adds it
    res = fits["current"].with_log_likelihood()
    post, data = res.idata.posterior, res.data
    for chain, draw, i in ((0, 5, 1), (1, 200, 4)):  # each draw's hyperparameters, at data set i
        d0, s0, nu = (float(post[v].values[chain, draw]) for v in ("delta0", "sigma0", "nu"))
        sd_max = 1000 * max(1.0, data.sd[i] / data.scale) * data.scale  # the model's limits of sigma_i
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", integrate.IntegrationWarning)
            expected = brute_force(x[i], 0.1, d0, s0, nu, 0.01 * data.scale, sd_max)
        assert abs(float(res.idata.log_likelihood["by_dataset"].values[chain, draw, i]) - expected) < TOL_DEFAULT
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        integrated = az.loo(res.idata, var_name="by_dataset", pointwise=True)
        az.loo(res.idata, var_name="by_dataset_conditional", pointwise=True)
        table = compare_variants(fits)
    assert integrated.pareto_k.values.max() < 0.7
    assert not [w for w in caught if "Pareto" not in str(w.message)]
    assert set(table.index) == {"current", "older"} and table["elpd_diff"].min() <= 0
    with pytest.raises(ValueError, match="results must be a dict of at least two"):
        compare_variants({"current": res})


@pytest.mark.slow
def test_prior_sensitivity_flags_a_misspecified_prior_and_not_the_default():
    """delta0 ~ N(-0.03, 0.005) where the data put it near +0.02 is a prior-data conflict (prior sensitivity of
    delta0 measured 0.17 at this seed), the default's uniform delta0 is not flagged (0.01; nu, barely informed by six
    data sets, is prior-dominated under either, and said so)."""
    x = np.random.default_rng(3).normal(0.02, 0.02, (6, 10))
    default = hierarchical_test(x, folds=10, method="exact", draws=500, chains=2, random_seed=1)
    wrong = hierarchical_test(x, folds=10, draws=500, tune=500, chains=2, random_seed=1, retry=False,
                              delta0_prior=lambda name, unit: pm.Normal(name, -0.03 / unit, 0.005 / unit))
    assert wrong.converged
    good, bad = prior_sensitivity(default), prior_sensitivity(wrong)
    assert good.loc["delta0", "diagnosis"] == "ok" and good.loc["delta0", "prior"] < 0.05
    assert bad.loc["delta0", "diagnosis"] == "potential prior-data conflict"
    assert good.loc["nu", "diagnosis"] == "potential strong prior / weak likelihood"


@pytest.mark.slow
def test_predictive_intervals_cover_new_folds_at_their_level():
    """Data simulated from the model (a fixed proper prior: scale 1 and bounds): new runs of every data set's folds,
    drawn with its true delta_i and sigma_i, fall in the 90% posterior predictive intervals of its mean and of its sd
    90% of the time. 200 new runs per data set; the share over q = 40 data sets has variance at most that of a
    Bernoulli(0.9) over q (the per-data-set coverage is in [0, 1]): within 3 such sd, 0.14, for each statistic.
    Measured: 0.93 (mean), 0.90 (sd); with the sd's chi-square spread left out of the predictive, 0.71."""
    rng = np.random.default_rng(11)
    q, n, rho, level = 40, 10, 0.1, 0.9
    bounds = {"delta0": 1.0, "sigma0": 1.0, "sigma": (0.1, 2.0)}
    delta0, sigma0 = rng.uniform(-1, 1), rng.uniform(0, 1)
    nu = 1 + rng.gamma(rng.uniform(0.5, 5), 1 / rng.uniform(0.05, 0.15))
    delta = delta0 + sigma0 * rng.standard_t(nu, q)
    sigma = rng.uniform(0.1, 2.0, q)
    chol = np.linalg.cholesky((1 - rho) * np.eye(n) + rho)

    def run(runs=1):  # cross-validation runs of every data set, (q, runs, n)
        return delta[:, None, None] + sigma[:, None, None] * (rng.standard_normal((q, runs, n)) @ chol.T)

    with warnings.catch_warnings():  # one fit, no retry: intervals need no verdict (a short chain's R-hat or ESS
        warnings.simplefilter("ignore", ConvergenceWarning)  # shortfall is far below the binomial error here)
        res = hierarchical_test(run()[:, 0], folds=10, scale=1.0, bounds=bounds, draws=500, chains=4, random_seed=2,
                                retry=False)
    table = predictive_intervals(res, level, random_seed=3)
    new = run(200)
    for name, values in (("mean", new.mean(axis=2)), ("sd", new.std(axis=2, ddof=1))):
        lower, upper = (table[f"{name}_{end}"].to_numpy()[:, None] for end in ("lower", "upper"))
        share = float(np.mean((values >= lower) & (values <= upper)))
        assert abs(share - level) < 3 * np.sqrt(level * (1 - level) / q), (name, share)
    assert table["mean_covered"].mean() >= level - 3 * np.sqrt(level * (1 - level) / q)  # in-sample: at least
    assert np.all((table[["mean_loo_pit", "sd_loo_pit"]] >= 0) & (table[["mean_loo_pit", "sd_loo_pit"]] <= 1))
    for figure in (plot_predictive_intervals(table, confidence_level=level), plot_loo_pit(table)):
        assert figure.axes
