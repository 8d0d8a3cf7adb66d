"""Verification as a feature: MCMC posteriors next to the analytic ones, with Monte Carlo errors; and checks of the
hierarchical model (#15): variants compared by leave-one-data-set-out LOO, power-scaling prior sensitivity, posterior
predictive intervals of each data set's mean and sd with their LOO-PIT."""
from __future__ import annotations

import warnings

import arviz as az
import numpy as np
import pandas as pd
import xarray as xr
from scipy import stats

from ._args import check_probability_level
from .pairwise.poisson_binomial import PoissonBinomial
from .pairwise.ttest import CorrelatedTTestResult

QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)


def _per_dataset(draws, analytic, i):
    """(chain, draw) array of data set i and its analytic Normal-Gamma parameters."""
    post = analytic.posterior_params
    take = (lambda v: np.asarray(v)[i]) if draws.ndim == 3 else (lambda v: np.asarray(v).reshape(-1)[0])
    return (draws[..., i] if draws.ndim == 3 else draws), tuple(take(v) for v in (post.mu0, post.k0, post.a, post.b))


def _rows_for(name, draws, cdf, ppf, quantiles, prob_positive=None):
    rows = []
    for p in quantiles:
        mcse = float(az.mcse(draws, method="quantile", prob=p))
        rows.append((name, f"q{p:g}", float(ppf(p)), float(np.quantile(draws, p)), mcse))
    if prob_positive is not None:  # error expected at the exact probability (finite when no draw is <= 0)
        ess = float(az.ess(draws))
        rows.append((name, "P(>0)", prob_positive, float((draws > 0).mean()),
                     np.sqrt(prob_positive * (1 - prob_positive) / ess)))
    rows.append((name, "KS distance", 0.0, float(stats.kstest(draws.ravel(), cdf).statistic), np.nan))
    return rows


def compare_to_analytic(idata, analytic: CorrelatedTTestResult, *, quantiles=QUANTILES) -> pd.DataFrame:
    """Posterior quantiles of ``mu`` and ``sigma``, and P(mu > 0), from MCMC next to the exact values.

    ``analytic`` is :func:`correlated_ttest` on the same data, prior and rho. Columns: ``analytic``,
    ``mcmc``, its Monte Carlo standard error ``mcse`` (ArviZ's for quantiles; for P(mu > 0) the error
    expected at the exact probability with the draws' ESS) and ``z`` = (mcmc - analytic) / mcse; the
    KS distance of all draws to the exact marginal is reported with its own row.

    >>> import numpy as np, pp_corr
    >>> from pp_corr.pairwise.models import correlated_t_model
    >>> from pp_corr.sampling import sample
    >>> x = np.random.default_rng(0).normal(0.01, 0.02, 10)
    >>> idata = sample(correlated_t_model(x, folds=10), draws=500, chains=2, random_seed=1)
    >>> table = compare_to_analytic(idata, pp_corr.correlated_ttest(x, folds=10))
    >>> bool(table["z"].abs().max() < 5)
    True
    """
    mu_draws = idata.posterior["mu"].values
    sigma_draws = idata.posterior["sigma"].values
    names = analytic.datasets or ("",)
    rows = []
    for i, dataset in enumerate(names if mu_draws.ndim == 3 else names[:1]):
        mu, (m, k, a, b) = _per_dataset(mu_draws, analytic, i)
        sigma, _ = _per_dataset(sigma_draws, analytic, i)
        t = stats.t(2 * a, m, np.sqrt(b * k / a))
        nu = stats.gamma(a, scale=1 / b)
        p_positive = float(t.sf(0))
        rows += [(dataset, *r) for r in _rows_for("mu", mu, t.cdf, t.ppf, quantiles, p_positive)]
        rows += [(dataset, *r) for r in _rows_for("sigma", sigma, lambda s: nu.sf(1 / np.square(s)),
                                                   lambda p: 1 / np.sqrt(nu.ppf(1 - p)), quantiles)]
    table = pd.DataFrame(rows, columns=["dataset", "variable", "quantity", "analytic", "mcmc", "mcse"])
    with np.errstate(divide="ignore", invalid="ignore"):
        table["z"] = np.where(table["mcmc"] == table["analytic"], 0.0,
                              (table["mcmc"] - table["analytic"]) / table["mcse"])
    return table


def compare_w_to_poisson_binomial(idata, analytic: CorrelatedTTestResult) -> pd.DataFrame:
    """Posterior of W = #{i : mu_i > 0} from MCMC next to the exact Poisson-binomial, per count.

    Columns ``exact``, ``mcmc`` (share of draws), ``mcse`` (the Monte Carlo error expected at the exact
    probability with W's effective sample size) and ``z``; ``attrs["total_variation"]`` is the
    total-variation distance between the two distributions, ``attrs["ess"]`` W's bulk ESS.

    >>> import numpy as np, pp_corr
    >>> from pp_corr.pairwise.models import correlated_t_model
    >>> from pp_corr.sampling import sample
    >>> x = np.random.default_rng(0).normal(0.01, 0.02, (3, 10))
    >>> idata = sample(correlated_t_model(x, folds=10), draws=300, chains=2, random_seed=1)
    >>> table = compare_w_to_poisson_binomial(idata, pp_corr.correlated_ttest(x, folds=10))
    >>> table["count"].tolist(), bool(table.attrs["total_variation"] < 0.1)
    ([0, 1, 2, 3], True)
    """
    w = idata.posterior["W"].values
    exact = PoissonBinomial(analytic.p_right, complement=analytic.p_not_right).pmf()
    counts = np.arange(len(exact))
    share = np.array([(w == c).mean() for c in counts])
    ess = float(az.ess(w.astype(float)))
    table = pd.DataFrame({"count": counts, "exact": exact, "mcmc": share,
                          "mcse": np.sqrt(exact * (1 - exact) / ess)})
    with np.errstate(divide="ignore", invalid="ignore"):
        table["z"] = (table["mcmc"] - table["exact"]) / table["mcse"]
    table.attrs["ess"] = ess
    table.attrs["total_variation"] = 0.5 * float(np.abs(share - exact).sum())
    return table


def compare_variants(results, *, method="stacking") -> pd.DataFrame:
    """``az.compare`` of fitted hierarchical results (a dict name -> :class:`~.hierarchical.fit.HierarchicalResult`)
    by leave-one-data-set-out PSIS-LOO on ``by_dataset``, each data set's likelihood with its own delta_i and sigma_i
    integrated out (how well each variant predicts a new data set; computed here for fits without it). The
    three-line recipe it stands for::

        fits = {"t": hierarchical_test(x, folds=10, log_likelihood=True),
                "normal": hierarchical_test(x, folds=10, population="normal", log_likelihood=True)}
        az.compare({name: fit.idata for name, fit in fits.items()}, var_name="by_dataset")

    ``elpd_diff`` and ``dse`` are the differences from the best and their standard errors; a variant is worse only
    when elpd_diff is several dse. Look at the Pareto k too (``az.loo(fit.idata, var_name="by_dataset")``).

    >>> from pp_corr.hierarchical.fit import hierarchical_test
    >>> x = np.random.default_rng(0).normal(0.02, 0.02, (4, 10))
    >>> fits = {p: hierarchical_test(x, folds=10, priors=p, method="exact", draws=100, chains=2, random_seed=1)
    ...         for p in ("current", "older")}
    >>> sorted(compare_variants(fits).index)
    ['current', 'older']
    """
    if not isinstance(results, dict) or len(results) < 2:
        raise ValueError(f"results must be a dict of at least two fitted results, got {results!r}")
    return az.compare({name: result.with_log_likelihood().idata for name, result in results.items()},
                      var_name="by_dataset", method=method)


def prior_sensitivity(result, var_names=("delta0", "sigma0", "nu"), *, threshold=0.05) -> pd.DataFrame:
    """Power-scaling sensitivity (``az.psense_summary``) of a hierarchical result's ``var_names``: how much they move
    when the population-level priors (the ``log_prior`` group: delta0, sigma0, nu) or the likelihood (``by_dataset``)
    are raised to the power 0.99 or 1.01. Columns ``prior``, ``likelihood`` (cumulative Jensen-Shannon distances
    per unit of log power) and ``diagnosis``: above ``threshold`` for the prior, with the likelihood also above,
    "potential prior-data conflict"; without, "potential strong prior / weak likelihood". A prior with a constant
    density (the uniform priors of delta0 and sigma0) cannot be power-scaled: it has sensitivity 0. nu is usually
    prior-dominated (a few dozen data sets say little about the tails): look at delta0 and sigma0 for the verdict.

    >>> from pp_corr.hierarchical.fit import hierarchical_test
    >>> x = np.random.default_rng(0).normal(0.02, 0.02, (4, 10))
    >>> res = hierarchical_test(x, folds=10, method="exact", draws=200, chains=2, random_seed=1)
    >>> list(prior_sensitivity(res).columns)
    ['prior', 'likelihood', 'diagnosis']
    """
    idata = result.with_log_likelihood().idata
    names = [name for name in var_names if name in idata.posterior]
    prior = idata.log_prior
    varying = [name for name in prior.data_vars if float(np.ptp(prior[name].values)) > 0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "Number of tail draws cannot be less than 5" at few draws
        likelihood = az.psense(idata, var_names=names, group="likelihood", group_var_names=["by_dataset"])
        power = (az.psense(idata, var_names=names, group="prior", group_var_names=varying) if varying
                 else xr.zeros_like(likelihood))
    table = pd.DataFrame({"prior": [float(power[n]) for n in names],
                          "likelihood": [float(likelihood[n]) for n in names]}, index=pd.Index(names, name="variable"))
    table["diagnosis"] = np.where(table["prior"] < threshold, "ok",
                                  np.where(table["likelihood"] < threshold, "potential strong prior / weak likelihood",
                                           "potential prior-data conflict"))
    return table


def predictive_intervals(result, confidence_level=0.9, *, random_seed=None) -> pd.DataFrame:
    """Per data set, its observed fold mean and sd against the ``confidence_level`` central intervals of their
    posterior predictive (a new run of the same data set's cross-validation,
    :meth:`HierarchicalResult.posterior_predictive`), whether each is ``covered``, and its LOO-PIT (the predictive CDF
    at the observation, leaving that statistic out by Pareto-smoothed importance sampling; uniform when the model is
    calibrated) with the Pareto k.

    The observed statistics are in the fit: their coverage is above ``confidence_level`` in-sample (each data set's
    mean pins its delta_i). The LOO-PIT is the calibrated check of the observed values, and a new run of the folds,
    which the fit has not seen, falls in the intervals with probability ``confidence_level`` under the model
    (tests/test_model_checks.py).

    >>> from pp_corr.hierarchical.fit import hierarchical_test
    >>> x = np.random.default_rng(0).normal(0.02, 0.02, (4, 10))
    >>> res = hierarchical_test(x, folds=10, method="exact", draws=200, chains=2, random_seed=1)
    >>> list(predictive_intervals(res, random_seed=2).columns)[:4]
    ['mean', 'mean_lower', 'mean_upper', 'mean_covered']
    """
    tail = (1 - check_probability_level("confidence_level", confidence_level)) / 2
    tree = loo_pit_tree(result, random_seed=random_seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # Pareto k warnings: the k are in the table
        pit = az.loo_pit(tree, var_names=["mean", "sd"])
        khat = {name: az.loo(tree, var_name=name, pointwise=True).pareto_k.values for name in ("mean", "sd")}
    columns = {}
    for name in ("mean", "sd"):
        draws = tree.posterior_predictive[name].stack(sample=("chain", "draw")).transpose("dataset", "sample").values
        observed = tree.observed_data[name].values
        lower, upper = np.quantile(draws, [tail, 1 - tail], axis=1)
        columns.update({name: observed, f"{name}_lower": lower, f"{name}_upper": upper,
                        f"{name}_covered": (observed >= lower) & (observed <= upper),
                        f"{name}_loo_pit": pit[name].values, f"{name}_pareto_k": khat[name]})
    return pd.DataFrame(columns, index=pd.Index(result.data.datasets, name="dataset"))


def loo_pit_tree(result, *, random_seed=None):
    """The DataTree ``az.loo_pit`` needs for each data set's mean and sd: the result's posterior predictive and
    observed values (``mean``, ``sd``) and, under the same names, the log-likelihood of each statistic given the
    data set's parameters (the mean: N(delta_i, sigma_i^2 c_i); the sd: the scatter term, (n_i - 1) sd_i^2 /
    (sigma_i^2 (1 - rho_i)) ~ chi^2(n_i - 1), up to a constant that cancels in the weights)."""
    tree = result.posterior_predictive(random_seed=random_seed)
    data, post = result.data, result.idata.posterior
    s = np.float64(data.scale)
    sigma = post["sigma_scaled"].values
    c = (1 - data.rho) / data.n + data.rho
    within = sigma**2 * (1 - data.rho)
    by_mean = stats.norm.logpdf(data.mean / s, post["delta_scaled"].values, sigma * np.sqrt(c))
    by_sd = -(data.n - 1) / 2 * np.log(within) - data.ss(s) / (2 * within)
    dims = ("chain", "draw", "dataset")
    tree["log_likelihood"] = xr.Dataset({"mean": (dims, by_mean), "sd": (dims, by_sd)},
                                        coords={name: post[name].values for name in dims})
    return tree
