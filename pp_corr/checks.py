"""Verification as a feature: MCMC posteriors next to the analytic ones, with Monte Carlo errors."""
from __future__ import annotations

import arviz as az
import numpy as np
import pandas as pd
from scipy import stats

from .poisson_binomial import PoissonBinomial
from .ttest import CorrelatedTTestResult

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
    >>> from pp_corr.models import correlated_t_model, sample
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
    >>> from pp_corr.models import correlated_t_model, sample
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
