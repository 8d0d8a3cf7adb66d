"""Hierarchical model over data sets (Corani, Benavoli, Demsar, Mangili, Zaffalon 2017): the population of
data sets' mean differences delta_i ~ t_nu(delta0, sigma0), each data set's folds through the correlated
likelihood, and the answer for a new data set.

Why three forms of one model. Real benchmarks compare near-identical algorithms: many fold differences are
exactly zero and some data sets have zero variance, so the posterior puts sigma0 near 0 with most delta_i
pinned to delta0 (a funnel), while other data sets pin their delta_i tightly by their folds. Sampling delta_i
directly (centred) fails in the funnel; writing it as delta0 + sigma0 z_i / sqrt(lambda_i) (non-centred) fails
where the folds pin it. Writing the Student-t population as a normal scale mixture, delta_i given lambda_i is
normal, and so is xbar_i once delta_i is integrated out:

    xbar_i | delta0, sigma0, lambda_i, sigma_i ~ N(delta0, sigma0^2 / lambda_i + sigma_i^2 c_i),

c_i = (1 - rho_i)/n_i + rho_i. The sampler then never sees delta_i (the marginal form); each draw of delta_i
comes afterwards from its exact conditional normal, precision P_i = lambda_i / sigma0^2 + 1 / (sigma_i^2 c_i)
and mean (delta0 lambda_i / sigma0^2 + xbar_i / (sigma_i^2 c_i)) / P_i. All three forms have the same
posterior; only how well NUTS explores it differs.

The priors of nu and the checks of the prior arguments: :mod:`pp_corr.hierarchical.priors`. The data the model is
built on (each data set's summaries, the unit s, the prior's limits, the start values):
:mod:`pp_corr.hierarchical.preparation`. Fitting it, the convergence policy and the result:
:mod:`pp_corr.hierarchical.fit`.
"""
from __future__ import annotations

import numpy as np
import pymc as pm
import pytensor
import pytensor.tensor as pt
import xarray as xr
from pymc.distributions.transforms import Interval
from pymc.logprob.transforms import ChainedTransform, ScaleTransform
from pymc.model.transform.conditioning import remove_value_transforms
from pytensor.graph.replace import vectorize_graph

from .._args import as_generator
from ..sampling import compilation_settings, kept
from .dataset_likelihood import integrated_log_likelihood
from .preparation import (HierarchicalData, mean_variance_factor, model_values, prepare_hierarchical,
                          prior_limits)
from .priors import check_prior_bounds, check_variant, nu_variable

FORMS = ("centered", "noncentered", "marginal")
LOG_PRIORS = 8  # compiled log-prior functions kept (add_log_prior), the least recently used dropped
_LOG_PRIORS = {}


def hierarchical_model(x, *, rho=None, n_test=None, n_train=None, folds=None, runs=None, priors="current",
                       form="centered", scale=None, bounds=None, algorithms=None, population="student_t",
                       delta0_prior=None) -> pm.Model:
    """The hierarchical model over data sets on x / s, s the median of the data sets' sds.

    delta_i ~ t_nu(delta0, sigma0); the likelihood is exact through the sufficient statistics, with
    c_i = (1 - rho_i)/n_i + rho_i: xbar_i ~ N(delta_i, sigma_i^2 c_i) and SS_i / (sigma_i^2 (1 - rho_i)) ~
    chi^2(n_i - 1), so zero-variance data sets are fine. nu - 1 ~ Gamma(alpha, rate beta) with ``priors``
    ``"current"`` (alpha ~ U(0.5, 5), beta ~ U(0.05, 0.15)) or ``"older"`` ((1, 2), (0.01, 0.1)); alpha and
    beta are integrated out (:func:`~.priors.nu_log_prior`), so the model samples nu alone. Variants for comparison and
    sensitivity (:data:`~.priors.NU_PRIORS`): ``priors="kruschke"``, nu - 1 ~ Exponential(rate 1/29), and
    ``"juarez_steel"``, nu ~ Gamma(2, rate 0.1); or bounds of one's own, ``priors={"alpha": (a1, a2), "beta":
    (b1, b2)}``. ``population="normal"`` makes the population N(delta0, sigma0) (no nu). ``delta0_prior``, a
    callable ``(name, unit) -> PyMC variable``, replaces delta0's uniform prior by one's own, in the model's unit
    (``unit`` is s: e.g. ``lambda name, unit: pm.Normal(name, 0.01 / unit, 0.02 / unit)`` for N(0.01, 0.02) in the
    scores' units).

    ``form`` chooses how the same posterior is written for the sampler (the module docstring says why):

    - ``"centered"``: delta_i sampled as Student-t; mixes well when every data set pins its delta_i, and
      badly in the funnel where sigma0 is tiny (near-identical algorithms, exact ties);
    - ``"noncentered"``: the Student-t as a scale mixture, delta_i = delta0 + sigma0 z_i / sqrt(lambda_i),
      z_i ~ N(0, 1), lambda_i ~ Gamma(nu/2, rate nu/2); good when the population dominates, poor when a
      data set's folds pin delta_i tightly;
    - ``"marginal"`` (:func:`~.fit.hierarchical_test`'s retry): delta_i integrated out given lambda_i,
      xbar_i ~ N(delta0, sigma0^2 / lambda_i + sigma_i^2 c_i); :func:`~.fit.hierarchical_test` then draws each
      delta_i from its exact conditional normal. The model has no delta_i (nor ``delta``, ``W``).

    The unit s is the median sd, not the mean: one data set cannot set it, so an absurd outlier (one fold of
    1e6 among accuracies) no longer makes the others look constant. (When most data sets have zero variance
    it is the median of the non-zero sds.) A data set whose sd, or whose mean's distance from the others',
    is over 100 times theirs is named in an :class:`~.preparation.OutlierWarning`. In units of s, delta0 ~ U(-M, M) with
    M = max |x| over all differences, sigma0 ~ U(0, 1000 sd_i(xbar_i)) and sigma_i ~ U(0.01, 1000 max(1,
    sd_i / s)): each data set's own upper limit, so the limits cover every data set, an outlier included,
    without letting all the sigma_i grow as large as the outlier's (chains stuck there). The lower bound 0.01 keeps
    the posterior proper when a data set has zero variance (its likelihood grows without bound as
    sigma_i -> 0); a data set whose sd is below 1% of the median is treated as nearly constant. delta0's
    log-odds transform is scaled so that, near 0, one unconstrained unit is one unit of s, and
    :func:`~.fit.hierarchical_test` starts the chains near the data: with a huge range, the samplers' default start
    (the middle of each range, plus a jitter of +-1 unconstrained unit) left chains far from the posterior.

    The prior's limits depend on the data by default. ``scale`` (the unit s, finite and > 0) and ``bounds``
    (a dict overriding any of ``"delta0"``: max |delta0|, ``"sigma0"``: max sigma0, ``"sigma"``: (min, max)
    sigma_i, in units of s) make them fixed, e.g. for simulation-based calibration or to share one prior
    across analyses. Everything that depends on the data is ``pm.Data`` (:func:`~.preparation.model_values`: the
    statistics "xbar_obs" and "ss_obs" in units of s, "n_folds", "rho", the unit "unit" and the limits "delta0_max",
    "sigma0_max", "sigma_min", "sigma_max"), so a compiled model can be refitted to any data with as many data sets.

    >>> import numpy as np
    >>> model = hierarchical_model(np.random.default_rng(0).normal(0.01, 0.02, (5, 10)), folds=10)
    >>> sorted(model.coords["dataset"])[:2]
    ['D1', 'D2']
    """
    check_variant(priors, population, delta0_prior)
    bounds = check_prior_bounds(bounds)
    data = prepare_hierarchical(x, rho, n_test, n_train, folds, algorithms, scale, runs)
    check_hierarchical_form(form)
    return build_hierarchical_model(data, priors, form, bounds, population, delta0_prior)


def _uniform_bounds(rng, size, lower, upper):
    """A uniform variable's own bounds, for its interval transform (symbolic: constants or data containers)."""
    return lower, upper


def _quarter_width(rng, size, lower, upper):
    """(upper - lower) / 4, the scale of :func:`centred_uniform`'s transform: half / 2 for U(-half, half)."""
    return (upper - lower) / 4


def centred_uniform(name, half, **kwargs):
    """U(-half, half) with the usual log-odds transform times half / 2 (``half`` a number, an array or a data
    container): near 0 one unconstrained unit is one unit of the model whatever the range, so the samplers'
    initial jitter (+-1) stays near the data even when an outlier makes the range huge. The transform reads the
    bounds from the variable itself, so a model with ``half`` in ``pm.Data`` takes a new range without being
    compiled again. Call inside a model.

    >>> with pm.Model() as model:
    ...     d = centred_uniform("d", 1e6)
    >>> to_d = model.compile_fn(model.unobserved_value_vars, inputs=model.value_vars)
    >>> round(float(to_d({"d_chain__": 1.0})[0]), 6)  # one unconstrained unit is one unit of d
    1.0
    """
    transform = ChainedTransform([Interval(bounds_fn=_uniform_bounds), ScaleTransform(_quarter_width)])
    return pm.Uniform(name, -half, half, **kwargs, default_transform=transform)


def build_hierarchical_model(data: HierarchicalData, priors, form="centered", bounds=None, population="student_t",
                             delta0_prior=None) -> pm.Model:
    """:func:`hierarchical_model` for data already prepared (:func:`~.preparation.prepare_hierarchical`)."""
    check_variant(priors, population, delta0_prior)
    check_hierarchical_form(form)
    normal = population == "normal"
    with pm.Model(coords={"dataset": data.datasets}) as model:
        given = {name: pm.Data(name, value, dims="dataset" if np.ndim(value) else None)
                 for name, value in model_values(data, check_prior_bounds(bounds)).items()}
        xbar, ss, n, rho, s = (given[name] for name in ("xbar_obs", "ss_obs", "n_folds", "rho", "unit"))
        delta0 = centred_uniform("delta0_scaled", given["delta0_max"]) if delta0_prior is None else \
            delta0_prior("delta0_scaled", s)
        sigma0 = pm.Uniform("sigma0_scaled", 0, given["sigma0_max"])
        nu = None if normal else nu_variable(priors)
        sigma = pm.Uniform("sigma_scaled", given["sigma_min"], given["sigma_max"], dims="dataset")
        within = sigma**2 * (1 - rho)
        # the variance of xbar_i given delta_i and sigma_i (mean_variance_factor)
        se2 = sigma**2 * ((1 - rho) / n + rho)
        if form == "marginal":  # delta_i integrated out given lambda_i; drawn afterwards (draw_marginal_delta)
            lam = 1.0 if normal else pm.Gamma("lambda", alpha=nu / 2, beta=nu / 2, dims="dataset")
            pm.Normal("xbar", mu=delta0, sigma=pt.sqrt(sigma0**2 / lam + se2), observed=xbar, dims="dataset")
        else:
            if form == "centered":  # each data set's folds pin its delta_i (uci54: 5x the ESS of "noncentered")
                delta = pm.Normal("delta_scaled", mu=delta0, sigma=sigma0, dims="dataset") if normal else \
                    pm.StudentT("delta_scaled", nu=nu, mu=delta0, sigma=sigma0, dims="dataset")
            else:
                z = pm.Normal("z", 0, 1, dims="dataset")
                lam = 1.0 if normal else pm.Gamma("lambda", alpha=nu / 2, beta=nu / 2, dims="dataset")
                delta = pm.Deterministic("delta_scaled", delta0 + sigma0 * z / pt.sqrt(lam), dims="dataset")
            pm.Normal("xbar", mu=delta, sigma=pt.sqrt(se2), observed=xbar, dims="dataset")
            pm.Deterministic("delta", delta * s, dims="dataset")
            pm.Deterministic("W", pt.sum(delta > 0))
        # SS_i / (sigma_i^2 (1 - rho_i)) ~ chi2(n_i - 1): its parameter-dependent part
        pm.Potential("ss", pt.sum(-(n - 1) / 2 * pt.log(within) - ss / (2 * within)))
        pm.Deterministic("delta0", delta0 * s)
        pm.Deterministic("sigma0", sigma0 * s)
    return model


def dataset_log_likelihood(xbar, ss, n, rho, delta, sigma):
    """log p(x_i | delta_i, sigma_i): the intraclass log-density of data set i's folds (:func:`intraclass_logp`)
    from its sufficient statistics, mean ``xbar`` and sum of squared deviations ``ss`` of its ``n`` folds:

        -(n log 2 pi + 2 n log sigma + (n - 1) log(1 - rho) + log(1 + (n - 1) rho)) / 2
        - ss / (2 sigma^2 (1 - rho)) - n (xbar - delta)^2 / (2 sigma^2 (1 + (n - 1) rho)),

    the mean's normal term and the scatter term of :func:`hierarchical_model` (its ``ss`` Potential) with
    their constants: the full likelihood of the data set, so that leave-one-data-set-out LOO sees all of it.
    Arrays broadcast (draws first, data sets last).

    >>> from pp_corr.pairwise.intraclass import intraclass_logp
    >>> x = np.array([0.1, -0.2, 0.4, 0.3])
    >>> float(dataset_log_likelihood(x.mean(), 3 * x.var(ddof=1), 4, 0.25, 0.05, 0.3) - intraclass_logp(x, 0.05, 0.3,
    ...                                                                                             0.25)) < 1e-12
    True
    """
    quad = ss / (1 - rho) + n / (1 + (n - 1) * rho) * (xbar - delta) ** 2
    logdet = 2 * n * np.log(sigma) + (n - 1) * np.log1p(-rho) + np.log1p((n - 1) * rho)
    return -0.5 * (n * np.log(2 * np.pi) + logdet + quad / sigma**2)


def add_dataset_log_likelihood(idata, data: HierarchicalData, bounds=None, population="student_t"):
    """``idata`` with two per-data-set log-likelihoods in its ``log_likelihood`` group, in the units of the scores:

    - ``by_dataset``: log p(x_i | delta0, sigma0, nu), delta_i and sigma_i integrated out
      (:func:`~.dataset_likelihood.integrated_log_likelihood`, with sigma_i's prior limits ``bounds`` as in
      :func:`hierarchical_model`). ``az.loo(idata, var_name="by_dataset")`` is leave-one-data-set-out: how well the
      model predicts the folds of a new data set drawn from the population, the question of a variant comparison.
    - ``by_dataset_conditional``: log p(x_i | delta_i, sigma_i) (:func:`dataset_log_likelihood`), data set i's
      folds given its own parameters; data set i dominates them, so LOO on it has Pareto k > 0.7 for most data
      sets (49 of 54 on uci54): it answers "a new draw of the folds of a known data set", poorly estimated.
    """
    post = idata.posterior
    s = np.float64(data.scale)
    xbar, ss = data.mean / s, data.ss(s)
    jacobian = data.n * np.log(s)  # densities in units of s to the units of the scores
    conditional = dataset_log_likelihood(xbar, ss, data.n, data.rho, post["delta_scaled"].values,
                                         post["sigma_scaled"].values) - jacobian
    shape = (post.sizes["chain"], post.sizes["draw"])
    d0, s0 = (post[name].values.ravel() for name in ("delta0_scaled", "sigma0_scaled"))
    nu = np.full(d0.shape, np.inf) if population == "normal" else post["nu"].values.ravel()
    lo, hi = prior_limits(data, bounds)["sigma"]
    integrated = integrated_log_likelihood(xbar, ss, data.n, data.rho, d0, s0, nu, (lo, hi)) - jacobian
    dims = ("chain", "draw", "dataset")
    idata["log_likelihood"] = xr.Dataset({"by_dataset": (dims, integrated.reshape(shape + (-1,))),
                                          "by_dataset_conditional": (dims, conditional)},
                                         coords={"chain": post.chain.values, "draw": post.draw.values,
                                                 "dataset": data.datasets})
    return idata


def add_log_prior(idata, model, key=None):
    """``idata`` with the log prior densities of ``model``'s population-level parameters (its free variables
    without a ``dataset`` dimension: delta0, sigma0 and nu's) in its ``log_prior`` group, per draw, for power-scaling
    prior sensitivity (``az.psense_summary``). The delta_i and sigma_i are left out: power-scaling the population
    itself would change the model, not its prior.

    The densities are PyMC's (``model.logp`` without the transforms, as ``pm.stats.compute_log_prior`` has them),
    evaluated for all draws at once. ``key`` (hashable) names the model's structure: models of one key share one
    compiled function, which takes each model's data containers (a fit of a batch then costs 10 ms, not 0.25 s).

    >>> x = np.random.default_rng(0).normal(0.02, 0.02, (4, 10))
    >>> from pp_corr.hierarchical.fit import hierarchical_test
    >>> res = hierarchical_test(x, folds=10, method="exact", draws=100, chains=2, random_seed=1)
    >>> sorted(res.idata.log_prior.data_vars)
    ['delta0_scaled', 'nu_minus_one', 'sigma0_scaled']
    """
    top = [rv.name for rv in model.free_RVs if "dataset" not in (model.named_vars_to_dims.get(rv.name) or ())]
    post = idata.posterior
    if "nu_minus_one" in top and "nu_minus_one" not in post:  # the exact posterior's draws carry nu
        idata["posterior"] = post = post.to_dataset().assign(nu_minus_one=post["nu"] - 1)
    log_prior = _log_prior_function(model, top, key)
    shape = post.sizes["chain"], post.sizes["draw"]
    values = log_prior(*(np.asarray(post[name].values, dtype=float).ravel() for name in top))
    idata["log_prior"] = xr.Dataset({name: (("chain", "draw"), np.reshape(value, shape))
                                     for name, value in zip(top, values)},
                                    coords={"chain": post.chain.values, "draw": post.draw.values})
    return idata


def _log_prior_function(model, top, key):
    """The log prior densities of the free variables ``top`` (names) of ``model`` as a compiled function of a
    vector of draws of each: compiled for the first model of ``key`` and kept (the last :data:`LOG_PRIORS` keys),
    with the data containers of ``model`` copied to it at each call."""
    def build():
        plain = remove_value_transforms(model)
        variables = [plain[name] for name in top]
        values = [plain.rvs_to_values[variable] for variable in variables]
        draws = [pt.vector(f"{name}_draws", dtype=value.dtype) for name, value in zip(top, values)]
        densities = vectorize_graph(plain.logp(vars=variables, sum=False), replace=dict(zip(values, draws)))
        with compilation_settings():  # the function it compiles writes its generated source where sample's do
            return plain, pytensor.function(draws, densities, on_unused_input="ignore")

    if key is None:
        return build()[1]
    plain, function = kept(_LOG_PRIORS, key, build, LOG_PRIORS)
    for container in model.data_vars:
        plain[container.name].set_value(container.get_value())
    return function


def check_hierarchical_form(form):
    """``form`` one of :data:`FORMS` (the ways :func:`hierarchical_model` writes the posterior for the sampler)."""
    if not isinstance(form, str) or form not in FORMS:
        raise ValueError(f"form must be one of {list(FORMS)}, got {form!r}")


def draw_marginal_delta(idata, data: HierarchicalData, random_seed):
    """Add delta_i (``delta_scaled``, ``delta``) and W to the posterior of the marginal form: per draw, delta_i
    from its exact conditional normal given delta0, sigma0, lambda_i, sigma_i and xbar_i (precision
    lambda_i / sigma0^2 + 1 / (sigma_i^2 c_i))."""
    post = idata.posterior
    rng = as_generator(random_seed)
    d0, s0 = post["delta0_scaled"].values[..., None], post["sigma0_scaled"].values[..., None]
    sigma = post["sigma_scaled"].values
    lam = post["lambda"].values if "lambda" in post else np.ones_like(sigma)  # the normal population: lambda_i = 1
    xbar = data.mean / data.scale
    prior_precision, data_precision = lam / s0**2, 1 / (sigma**2 * mean_variance_factor(data))
    precision = prior_precision + data_precision
    mean = (d0 * prior_precision + xbar * data_precision) / precision
    delta = mean + rng.standard_normal(mean.shape) / np.sqrt(precision)
    dims = ("chain", "draw", "dataset")
    post = post.to_dataset().assign(delta_scaled=(dims, delta), delta=(dims, delta * data.scale),
                                    W=(("chain", "draw"), (delta > 0).sum(axis=-1)))
    idata["posterior"] = post
    return idata
