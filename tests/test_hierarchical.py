import warnings

import arviz as az
import numpy as np
import pymc as pm
import pytest
from scipy import integrate, stats

from pp_corr import poisson_test
from pp_corr.hierarchical import ConvergenceWarning, hierarchical_model, hierarchical_test


def test_conditional_posterior_of_delta_matches_its_analytic_form():
    x = np.random.default_rng(0).normal(0.01, 0.03, size=(4, 10))
    model = hierarchical_model(x, folds=10)
    fixed = {"delta0_scaled": 0.2, "sigma0_scaled": 0.5, "nu_minus_one": 3.0, "alpha": 1.0, "beta": 0.1,
             "sigma_scaled": np.array([0.8, 1.0, 1.2, 0.9])}
    with pm.do(model, fixed):
        idata = pm.sample(draws=2000, chains=4, random_seed=1, quiet=True, progressbar=False)
    s = x.std(axis=1, ddof=1).mean()
    xbar = x.mean(axis=1) / s
    for i in range(4):
        c = fixed["sigma_scaled"][i] ** 2 * (0.9 / 10 + 0.1)
        dens = lambda d: stats.t.pdf(d, 4.0, 0.2, 0.5) * stats.norm.pdf(xbar[i], d, np.sqrt(c))  # noqa: E731
        total = integrate.quad(dens, -np.inf, np.inf, epsabs=0, epsrel=1e-10)[0]
        draws = idata.posterior["delta_scaled"].values[..., i]
        for p in (0.1, 0.5, 0.9):
            q = np.quantile(draws, p)
            exact_cdf = integrate.quad(dens, -np.inf, q, epsabs=0, epsrel=1e-10)[0] / total
            # the draws' quantile q must sit at probability p of the exact conditional, within MC error
            assert abs(exact_cdf - p) <= 4 * np.sqrt(p * (1 - p) / float(az.ess(draws))), (i, p, exact_cdf)


@pytest.mark.parametrize("a", ["nbc", "aode", "j48"])
def test_uci54_converges(uci54, a):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # a noisy data set's delta_i may be flagged
        res = hierarchical_test(uci54, algorithms=(a, "hnb"), rope=0.01, random_seed=2)
    assert float(az.rhat(res.idata, var_names=["delta0"])["delta0"]) <= 1.01
    assert float(az.ess(res.idata, var_names=["delta0"])["delta0"]) >= 1000
    assert int(res.idata.sample_stats.diverging.sum()) == 0
    assert f"{a} better" in repr(res) and "P(delta0 > 0)" in repr(res)
    table = res.datasets()
    assert list(table.index) == list(uci54.dataset.values)
    assert table.filter(like="hier. P").sum(axis=1).round(9).eq(1).all()
    w = res.w_distribution()
    assert w.sum().round(9).eq(1).all()
    # W counts delta_i > 0: its independent counterpart is the Poisson test without a rope
    exact = poisson_test(uci54, algorithms=(a, "hnb")).distribution.pmf()
    np.testing.assert_allclose(w["independent (Poisson-binomial)"], exact, rtol=1e-9, atol=1e-15)
    new = res.new_dataset()
    assert new.p_left + new.p_rope + new.p_right == pytest.approx(1)


def test_zero_variance_keeps_its_mean():
    rng = np.random.default_rng(3)
    x = rng.normal(0.01, 0.03, size=(6, 10))
    x[2] = 0.05          # zero variance, non-zero mean
    x[4] = 0.0           # zero variance, zero mean
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        res = hierarchical_test(x, folds=10, draws=1000, random_seed=4)
    delta = res.idata.posterior["delta"]
    assert float(delta.isel(dataset=2).mean()) == pytest.approx(0.05, abs=0.002)
    assert float(delta.isel(dataset=4).mean()) == pytest.approx(0.0, abs=0.002)
    ppc = res.posterior_predictive(random_seed=5)
    assert set(ppc["posterior_predictive"].data_vars) == {"mean", "sd"}
    assert float(ppc["observed_data"]["sd"].isel(dataset=2)) == 0


def test_bad_input():
    with pytest.raises(ValueError, match="at least 2 data sets"):
        hierarchical_model(np.zeros((1, 10)) + np.arange(10), folds=10)
    with pytest.raises(ValueError, match="priors"):
        hierarchical_model(np.random.default_rng(0).normal(size=(3, 5)), folds=5, priors="newest")


def test_fixed_bounds_and_scale_make_the_prior_independent_of_the_data():
    bounds = {"delta0": 2.0, "sigma0": 3.0, "sigma": (0.1, 5.0)}
    rng = np.random.default_rng(0)
    models = [hierarchical_model(rng.normal(loc, sd, (4, 10)), folds=10, scale=1.0, bounds=bounds)
              for loc, sd in ((0, 1), (5, 0.01))]
    point = {"delta0_scaled_interval__": 0.3, "sigma0_scaled_interval__": -0.2, "alpha_interval__": 0.1,
             "beta_interval__": 0.0, "nu_minus_one_log__": 1.0, "delta_scaled": np.zeros(4),
             "sigma_scaled_interval__": np.zeros(4)}
    # without the likelihood the two models' densities are equal: same prior whatever the data
    priors = [m.compile_logp(vars=m.free_RVs)(point) for m in models]
    assert priors[0] == pytest.approx(priors[1], rel=1e-12)
    with pytest.raises(ValueError, match="unknown keys"):
        hierarchical_model(rng.normal(size=(3, 5)), folds=5, bounds={"mu": 1})
    with pytest.raises(ValueError, match="scale must be positive"):
        hierarchical_model(rng.normal(size=(3, 5)), folds=5, scale=-1.0)
    with pytest.raises(ValueError, match="bounds must be positive"):
        hierarchical_model(rng.normal(size=(3, 5)), folds=5, bounds={"sigma": (2.0, 1.0)})


def test_convergence_warning_names_the_failing_data_set():
    from pp_corr.hierarchical import check_convergence

    rng = np.random.default_rng(0)
    delta = rng.normal(size=(4, 500, 3))
    delta[:2, :, 1] += 3.0  # chains disagree on the second data set only
    idata = az.from_dict({"posterior": {"delta0": rng.normal(size=(4, 500)), "sigma0": rng.normal(size=(4, 500)),
                                        "delta": delta},
                          "sample_stats": {"diverging": np.zeros((4, 500), dtype=bool)}},
                         dims={"delta": ["dataset"]}, coords={"dataset": ["iris", "wine", "zoo"]})
    with pytest.warns(ConvergenceWarning) as record:
        problems = check_convergence(idata)
    assert [p.split(" is ")[0] for p in problems] == ["R-hat of delta[wine]", "bulk ESS of delta[wine]"]
    assert "delta[wine]" in str(record[0].message)
    idata["sample_stats"]["diverging"][0, :3] = True
    with pytest.warns(ConvergenceWarning, match="3 divergent transitions"):
        check_convergence(idata)
