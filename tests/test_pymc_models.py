"""The PyMC models are exactly the analytic ones."""
import numpy as np
import pymc as pm
import pytest
from scipy import stats

from pp_corr import NormalGamma, correlated_ttest
from pp_corr.checks import compare_to_analytic, compare_w_to_poisson_binomial
from pp_corr.pairwise.distributions import IntraclassNormal
from pp_corr.pairwise.models import correlated_t_model
from pp_corr.sampling import sample


def intraclass_matrix(n, rho):
    return (1 - rho) * np.eye(n) + rho * np.ones((n, n))


@pytest.mark.parametrize("rho", [0.0, 0.1, 0.5, 0.95])
@pytest.mark.parametrize("n", [2, 10, 100])
def test_logp_equals_mvnormal_and_scipy(rho, n):
    x = np.random.default_rng(n).normal(0.1, 0.4, size=n)
    with pm.Model() as model:
        IntraclassNormal("x", 0.05, 0.3, rho, group=np.zeros(n, int), observed=x)
    ours = model.compile_logp()({})
    cov = 0.09 * intraclass_matrix(n, rho)
    mvn = pm.logp(pm.MvNormal.dist(mu=np.full(n, 0.05), cov=cov), x).eval()
    np.testing.assert_allclose(ours, mvn, rtol=1e-9)
    np.testing.assert_allclose(ours, stats.multivariate_normal(np.full(n, 0.05), cov).logpdf(x), rtol=1e-9)


def test_logp_of_several_groups_is_the_sum():
    sizes, mus, sigmas, rhos = [3, 7, 5], [0.0, 0.1, -0.2], [0.5, 1.0, 2.0], [0.1, 0.2, 0.5]
    x = np.random.default_rng(1).normal(size=sum(sizes))
    with pm.Model() as model:
        IntraclassNormal("x", np.array(mus), np.array(sigmas), np.array(rhos),
                         group=np.repeat(np.arange(3), sizes), observed=x)
    parts = np.split(x, np.cumsum(sizes)[:-1])
    expected = sum(stats.multivariate_normal(np.full(len(p), m), s**2 * intraclass_matrix(len(p), r)).logpdf(p)
                   for p, m, s, r in zip(parts, mus, sigmas, rhos))
    np.testing.assert_allclose(model.compile_logp()({}), expected, rtol=1e-10)


@pytest.mark.long
def test_predictive_draws_have_the_intraclass_covariance():
    with pm.Model() as model:
        IntraclassNormal("x", 1.0, 2.0, 0.3, group=np.zeros(4, int))
    draws = pm.draw(model["x"], draws=40_000, random_seed=2)
    cov = np.cov(draws.T)
    target = 4.0 * intraclass_matrix(4, 0.3)
    # sd of a sample covariance entry: sqrt((s_ij^2 + s_ii s_jj) / N)
    se = np.sqrt((target**2 + np.outer(np.diag(target), np.diag(target))) / len(draws))
    assert np.all(np.abs(cov - target) < 4 * se)
    assert np.all(np.abs(draws.mean(axis=0) - 1.0) < 4 * np.sqrt(target[0, 0] / len(draws)))


def assert_matches(table, k=4):
    checked = table[table.quantity != "KS distance"]
    assert checked.z.abs().max() <= k, checked.loc[checked.z.abs().idxmax()].to_dict()


PRIORS = {"matching": None, "proper": NormalGamma(0.0, 1.0, 2.0, 0.005)}


@pytest.mark.long
@pytest.mark.parametrize("prior", PRIORS.values(), ids=PRIORS.keys())
def test_posterior_matches_analytic_on_simulated_data(prior):
    x = np.random.default_rng(3).normal(0.01, 0.03, size=30)
    idata = sample(correlated_t_model(x, folds=10, prior=prior), random_seed=4)
    assert int(idata.sample_stats.diverging.sum()) == 0
    assert_matches(compare_to_analytic(idata, correlated_ttest(x, folds=10, prior=prior)))


@pytest.mark.long
@pytest.mark.parametrize("prior", PRIORS.values(), ids=PRIORS.keys())
def test_posterior_and_w_match_analytic_on_uci54(uci54, prior):
    scores = uci54.isel(dataset=[0, 5, 12, 30, 41])
    idata = sample(correlated_t_model(scores, algorithms=("nbc", "hnb"), prior=prior), random_seed=5)
    analytic = correlated_ttest(scores, algorithms=("nbc", "hnb"), prior=prior)
    table = compare_to_analytic(idata, analytic)
    assert set(table.dataset) == set(analytic.datasets)
    assert_matches(table)
    w = compare_w_to_poisson_binomial(idata, analytic)
    assert w[w.exact > 0].z.abs().max() <= 4
    assert w.attrs["total_variation"] < 0.05


def test_builder_errors_and_coords(uci54):
    with pytest.raises(ValueError, match="zero variance"):
        correlated_t_model(np.full(10, 0.02), folds=10)
    with pytest.raises(ValueError, match="noise"):
        correlated_t_model(np.arange(5.0), folds=10, noise="cauchy")
    with pytest.raises(ValueError, match="proper"):
        correlated_t_model(np.arange(5.0), folds=10, prior=NormalGamma(0, 1, 1, 0.0))
    model = correlated_t_model(uci54, algorithms=("j48", "j48gr"), prior=PRIORS["proper"])
    assert list(model.coords["dataset"])[:2] == ["anneal", "audiology"]
    assert {"mu", "sigma", "W"} <= set(model.named_vars)
