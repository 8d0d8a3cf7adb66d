"""Model checking (#15): pointwise log-likelihood against dense-covariance oracles, LOO on the results, priors of
one's own and prior predictive, and the hierarchical result's decisions for any rope from one posterior."""
import dataclasses
import math
import warnings

import arviz as az
import numpy as np
import pymc as pm
import pytest
from scipy import stats

from pp_corr.hierarchical.model import dataset_log_likelihood
from pp_corr.hierarchical.fit import hierarchical_test
from pp_corr.pairwise.intraclass import intraclass_fold_logp, intraclass_logp
from pp_corr.pairwise.models import correlated_t_model, dataset_rows, intraclass_likelihood, prior_predictive
from pp_corr.sampling import sample
from pp_corr.pairwise.priors import NormalGamma

# float64 rounding of O(n) sums against an O(n^3) dense solve: far below this at n <= 30
TOL = 1e-10


def dense_conditional_logp(x, mu, sigma, rho):
    """log p(x_j | x_-j) for each j from the dense covariance, conditioning by the Schur complement."""
    n = len(x)
    cov = sigma**2 * ((1 - rho) * np.eye(n) + rho)
    out = np.empty(n)
    for j in range(n):
        rest = np.delete(np.arange(n), j)
        weights = np.linalg.solve(cov[np.ix_(rest, rest)], cov[rest, j])
        mean = mu + weights @ (x[rest] - mu)
        var = cov[j, j] - weights @ cov[rest, j]
        out[j] = stats.norm(mean, np.sqrt(var)).logpdf(x[j])
    return out


def dense_logp(x, mu, sigma, rho):
    n = len(x)
    return stats.multivariate_normal(np.full(n, mu), sigma**2 * ((1 - rho) * np.eye(n) + rho)).logpdf(x)


@pytest.mark.parametrize("seed", range(40))
def test_fold_logp_equals_dense_conditional(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 31))
    rho, mu, sigma = rng.uniform(0, 0.95), rng.normal(0, 0.05), rng.uniform(0.005, 0.2)
    x = rng.normal(mu + 0.03, sigma, n)
    np.testing.assert_allclose(intraclass_fold_logp(x, mu, sigma, rho), dense_conditional_logp(x, mu, sigma, rho),
                               rtol=0, atol=TOL)


def test_fold_logp_broadcasts_over_draws_and_checks_its_arguments():
    rng = np.random.default_rng(1)
    x, mu, sigma = rng.normal(size=8), rng.normal(size=5), rng.uniform(0.5, 2, 5)
    many = intraclass_fold_logp(np.broadcast_to(x, (5, 8)), mu, sigma, 0.2)
    for k in range(5):
        np.testing.assert_allclose(many[k], dense_conditional_logp(x, mu[k], sigma[k], 0.2), rtol=0, atol=TOL)
    with pytest.raises(ValueError, match="sigma must be > 0"):
        intraclass_fold_logp(x, 0.0, 0.0, 0.2)
    with pytest.raises(ValueError, match="at least 2 values"):
        intraclass_fold_logp([1.0], 0.0, 1.0, 0.2)


@pytest.mark.parametrize("seed", range(10))
def test_hierarchical_dataset_log_likelihood_equals_dense(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 31))
    rho, delta, sigma = rng.uniform(0, 0.9), rng.normal(0, 0.05), rng.uniform(0.01, 0.1)
    x = rng.normal(delta, sigma, n)
    ss = float(((x - x.mean()) ** 2).sum())
    assert abs(dataset_log_likelihood(x.mean(), ss, n, rho, delta, sigma) - dense_logp(x, delta, sigma, rho)) < TOL


def ragged_folds(rng):
    return [rng.normal(0.01, 0.02, 10), rng.normal(-0.01, 0.03, 6), rng.normal(0.0, 0.01, 10)]


def test_sampled_log_likelihood_equals_dense_oracles_per_draw():
    """The wiring: by_fold and by_dataset of a sampled model (ragged data sets, one rho each) against the dense
    oracles evaluated at the same posterior draws."""
    rng = np.random.default_rng(2)
    rows, rho = ragged_folds(rng), np.array([0.1, 1 / 6, 0.1])
    with pm.Model(coords={"dataset": ["a", "b", "c"]}) as model:
        mu = pm.Normal("mu", 0, 0.1, dims="dataset")
        sigma = pm.HalfNormal("sigma", 0.1, dims="dataset")
        intraclass_likelihood("x", mu, sigma, rows, rho=rho)
    idata = sample(model, draws=20, tune=100, chains=1, random_seed=3)
    loglik = idata.log_likelihood
    start = np.cumsum([0] + [len(r) for r in rows])
    for k in range(0, 20, 7):
        for i, row in enumerate(rows):
            m, s = (float(idata.posterior[v].values[0, k, i]) for v in ("mu", "sigma"))
            by_fold = loglik["by_fold"].values[0, k, start[i]:start[i + 1]]
            np.testing.assert_allclose(by_fold, dense_conditional_logp(row, m, s, rho[i]), rtol=0, atol=TOL)
            assert abs(float(loglik["by_dataset"].values[0, k, i]) - dense_logp(row, m, s, rho[i])) < TOL
            assert abs(float(loglik["by_dataset"].values[0, k, i]) - intraclass_logp(row, m, s, rho[i])) < TOL
    assert list(loglik["by_dataset"].dataset.values) == ["a", "b", "c"]


@pytest.mark.long
def test_loo_and_compare_by_dataset_and_by_fold_on_correlated_models():
    x = np.random.default_rng(4).normal(0.01, 0.02, (6, 10))
    fits = {name: sample(correlated_t_model(x, folds=10, prior=prior), draws=300, tune=300, chains=2, random_seed=5)
            for name, prior in (("matching", None), ("normal-gamma", NormalGamma(0, 1, 1, 0.0004)))}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        by_dataset = az.loo(fits["matching"], var_name="by_dataset", pointwise=True)
        by_fold = az.loo(fits["matching"], var_name="by_fold", pointwise=True)
        table = az.compare(fits, var_name="by_fold")
    # one observation per data set or per fold, and no warning but the Pareto k one (expected by data set: each data
    # set has its own mu_i and sigma_i, so leaving it out leaves them to the prior)
    assert not [w for w in caught if "Pareto" not in str(w.message)]
    assert by_dataset.n_data_points == 6 and by_fold.n_data_points == 60
    assert set(table.index) == {"matching", "normal-gamma"}


@pytest.mark.long
def test_student_t_noise_model_samples_without_log_likelihood_group():
    idata = sample(correlated_t_model(np.random.default_rng(6).normal(0, 0.02, 10), folds=10, noise="student_t",
                                      noise_df=5), draws=50, tune=50, chains=1, random_seed=1)
    assert "log_likelihood" not in idata.children


def test_priors_of_ones_own_and_prior_predictive():
    x = np.random.default_rng(7).normal(0.01, 0.02, (3, 10))
    model = correlated_t_model(x, folds=10,
                               mu_prior=lambda name, dims: pm.StudentT(name, nu=3, mu=0, sigma=0.05, dims=dims))
    assert type(model["mu"].owner.op).__name__ == "StudentTRV"
    assert "matching_prior" in model.named_vars  # sigma keeps p(sigma) ~ 1/sigma
    with pytest.raises(ValueError, match="the prior of sigma is improper"):
        prior_predictive(model)
    proper = correlated_t_model(x, folds=10, prior=NormalGamma(0, 1, 2, 0.001),
                                mu_prior=lambda name, dims: pm.Laplace(name, 0, 0.02, dims=dims))
    draws = prior_predictive(proper, draws=2000, random_seed=8)
    # sigma = 1/sqrt(nu), nu ~ Gamma(2, rate 0.001): E[sigma] = sqrt(b) Gamma(a - 1/2) / Gamma(a)
    sigma = draws.prior["sigma"].values.ravel()
    expected = np.sqrt(0.001) * np.exp(math.lgamma(1.5) - math.lgamma(2.0))
    assert abs(sigma.mean() - expected) < 5 * sigma.std() / np.sqrt(sigma.size)
    assert draws.prior_predictive["x"].shape == (1, 2000, 30)
    with pytest.raises(TypeError, match="mu_prior must be a callable"):
        correlated_t_model(x, folds=10, mu_prior="normal")


def test_dataset_rows_is_public_and_ragged(uci54):
    rows = dataset_rows(uci54, ("nbc", "hnb"))
    assert rows.many and len(rows.rows) == len(rows.names) == 54 and np.shape(rows.rho) == (54,)


@pytest.mark.long
def test_hierarchical_result_keeps_its_model_and_log_likelihood_and_any_rope():
    x = np.random.default_rng(9).normal(0.01, 0.02, (5, 10))
    res = hierarchical_test(x, folds=10, rope=0.01, method="exact", draws=500, chains=2, random_seed=1,
                            log_likelihood=True)
    assert isinstance(res.model, pm.Model) and "xbar" in res.model.named_vars
    assert res.idata.log_likelihood["by_dataset"].shape == (2, 500, 5)
    # the conditional per-data-set log-likelihood against the dense MVN at one draw
    post = res.idata.posterior
    d, s = post["delta"].values[1, 7, 2], post["sigma_scaled"].values[1, 7, 2] * res.data.scale
    assert abs(float(res.idata.log_likelihood["by_dataset_conditional"].values[1, 7, 2])
               - dense_logp(x[2], d, s, 0.1)) < 1e-9 * abs(dense_logp(x[2], d, s, 0.1))
    for rope in (0.0, 0.005, (-0.02, 0.01)):
        refit = dataclasses.replace(res, rope=(-rope, rope) if np.ndim(rope) == 0 else rope,
                                    independent=res.independent.with_rope(rope))
        new, same = res.new_dataset(rope), refit.new_dataset()
        np.testing.assert_allclose(new.samples, same.samples, rtol=0, atol=0)
        assert (new.win_left, new.win_rope, new.win_right) == (same.win_left, same.win_rope, same.win_right)
        np.testing.assert_allclose(res.datasets(rope=rope).values, refit.datasets().values)
        assert res.to_dict(rope=rope)["rope"] == list(refit.rope)
    wide = res.datasets(rope=0.5)
    assert np.allclose(wide["hier. P(rope)"], 1) and np.allclose(wide["indep. P(rope)"], 1, atol=1e-6)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert az.loo(res.idata, var_name="by_dataset").n_data_points == 5
    assert not [w for w in caught if "Pareto" not in str(w.message)]


@pytest.mark.long
def test_log_prior_group_equals_pymcs_for_every_fit_sharing_its_compiled_function():
    """add_log_prior compiles one vectorised function per model shape and copies each model's data into it: every
    fit's log_prior group must equal PyMC's compute_log_prior on that fit's own model (the oracle), for data of
    different ranges (delta0's and sigma0's limits come from the data, so a stale copy would show) and for priors
    whose nu differs."""
    rng = np.random.default_rng(4)
    fits = [hierarchical_test(rng.normal(0.01, 0.02, (5, 10)) * scale, folds=10, method="exact", draws=200, chains=2,
                              random_seed=1) for scale in (1.0, 30.0)]
    fits += [hierarchical_test(rng.normal(0.01, 0.02, (5, 10)), folds=10, priors=priors, population=population,
                               method="mcmc", retry=False, draws=100, tune=100, chains=2, random_seed=1)
             for priors, population in [("kruschke", "student_t"), ("current", "normal")]]
    first_delta0 = []
    for res in fits:
        names = list(res.idata.log_prior.data_vars)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the short fits' convergence
            oracle = pm.stats.compute_log_prior(res.idata, var_names=names, model=res.model,
                                                extend_inferencedata=False, progressbar=False)
        for name in names:
            np.testing.assert_allclose(res.idata.log_prior[name].values, oracle[name].values, rtol=1e-12)
        first_delta0.append(float(res.idata.log_prior["delta0_scaled"].values[0, 0]))
    assert first_delta0[0] != first_delta0[1]  # the data's limits reached the shared function
    assert sorted(fits[3].idata.log_prior.data_vars) == ["delta0_scaled", "sigma0_scaled"]  # no nu in a normal one


@pytest.mark.slow
def test_uci54_loo_by_dataset(uci54):
    """nbc vs hnb on 54 data sets: LOO by data set on the correlated and hierarchical models, no warning about the
    number of observations; the Pareto k are printed (pytest -s) for the record. The hierarchical model's integrated
    likelihood (delta_i, sigma_i integrated out) has every k below 0.7; its conditional one had 49 of 54 above."""
    correlated = sample(correlated_t_model(uci54, algorithms=("nbc", "hnb")), draws=500, chains=2, random_seed=1)
    hier = hierarchical_test(uci54, algorithms=("nbc", "hnb"), random_seed=2, log_likelihood=True)
    for name, idata, var_name in (("correlated", correlated, "by_dataset"),
                                  ("hierarchical, conditional", hier.idata, "by_dataset_conditional"),
                                  ("hierarchical, integrated", hier.idata, "by_dataset")):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            loo = az.loo(idata, var_name=var_name, pointwise=True)
        assert not [w for w in caught if "Pareto" not in str(w.message)]
        assert loo.n_data_points == 54
        k = loo.pareto_k.values
        print(f"{name}: elpd {loo.elpd:.1f} (se {loo.se:.1f}), Pareto k quantiles "
              f"{np.round(np.quantile(k, [0, 0.5, 0.9, 1]), 2)}, k > 0.7 in {int((k > 0.7).sum())} of 54")
    assert k.max() < 0.7  # the last: the integrated likelihood


@pytest.mark.long
def test_posterior_predictive_draws_a_new_run_from_each_draws_parameters():
    """A new run of a data set's folds, given a posterior draw's delta_i and sigma_i: its mean is
    N(delta_i, sigma_i^2 ((1 - rho)/n + rho)) and (n - 1) sd^2 / (sigma_i^2 (1 - rho)) is chi-square(n - 1), both
    written out here. Standardised by each draw's own parameters, the predictive draws are iid N(0, 1) and
    chi-square(n - 1): their mean and variance within 4 standard errors (leaving out rho's term halves the
    variance of the means; a wrong degrees-of-freedom count moves the chi-square's mean by 1)."""
    x = np.random.default_rng(4).normal(0.01, 0.02, (4, 10))
    n, rho = 10, 0.1
    res = hierarchical_test(x, folds=n, method="exact", draws=1000, chains=2, random_seed=1)
    tree = res.posterior_predictive(random_seed=2)
    post = res.idata.posterior
    delta, sigma = post["delta"].values, post["sigma_scaled"].values * res.data.scale
    z = (tree.posterior_predictive["mean"].values - delta) / (sigma * np.sqrt((1 - rho) / n + rho))
    chi2 = (n - 1) * tree.posterior_predictive["sd"].values ** 2 / (sigma**2 * (1 - rho))
    size = z.shape[0] * z.shape[1]  # per data set; the exact method's draws are independent
    for values, mean, var in ((z, 0.0, 1.0), (chi2, n - 1.0, 2.0 * (n - 1))):
        values = values.reshape(size, -1)
        # sd of a sample variance: sqrt((mu4 - var^2) / size), mu4 = 3 var^2 (normal), 3 var^2 + 48 (n - 1) (chi2)
        fourth = 3 * var**2 + (0.0 if mean == 0 else 48.0 * (n - 1))
        np.testing.assert_array_less(np.abs(values.mean(axis=0) - mean), 4 * np.sqrt(var / size))
        np.testing.assert_array_less(np.abs(values.var(axis=0) - var), 4 * np.sqrt((fourth - var**2) / size))
    np.testing.assert_array_equal(tree.observed_data["mean"].values, x.mean(axis=1))
    np.testing.assert_allclose(tree.observed_data["sd"].values, x.std(axis=1, ddof=1), rtol=1e-12)
