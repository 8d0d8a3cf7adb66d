"""PyMC model builders: the correlated t-test models, exactly the analytic ones (the Bayesian correlated t-test).

Each builder returns a ``pm.Model`` with coords; nothing samples at construction, so users can add
variables inside ``with model:`` first; :func:`pp_corr.sampling.sample` samples them.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pymc as pm
import pytensor
import pytensor.tensor as pt
import xarray as xr

from ..data.scores import differences, pick_algorithms
from .distributions import IntraclassNormal
from .frequentist import as_differences
from .intraclass import check_no_runs, intraclass_fold_logp, intraclass_logp, resolve_rho, rho_for
from .priors import NormalGamma


class DatasetRows(NamedTuple):
    """The per-data-set fold differences B - A that the models take (see :func:`dataset_rows`)."""

    rows: list       # one 1-D array per data set (data sets may have different numbers of folds)
    names: list      # the data sets' names (a scores Dataset's, else D1, D2, ...)
    rho: object      # the correlation: one number, or one per data set
    many: bool       # whether x held several data sets (its model gets a ``dataset`` dimension)


def dataset_rows(x, algorithms=None, rho=None, n_test=None, n_train=None, folds=None, runs=None) -> DatasetRows:
    """The fold differences of ``x`` per data set, their names and rho: ``x`` is ``(n,)`` (one data set),
    ``(q, n)``, or a scores Dataset (``algorithms`` names the pair; its missing folds are dropped). rho is
    the Dataset's unless ``rho``, ``n_test`` with ``n_train``, or ``folds`` fixes it (see :func:`resolve_rho`), or,
    for arrays, ``runs`` (the scores are ``runs`` repetitions of k-fold cross-validation, k = n / runs).

    >>> rows = dataset_rows([[0.01, 0.02, 0.03], [0.0, 0.01, -0.01]], folds=3)
    >>> rows.names, rows.rho, rows.many, rows.rows[1].tolist()
    (['D1', 'D2'], 0.3333333333333333, True, [0.0, 0.01, -0.01])
    """
    given = any(v is not None for v in (rho, n_test, n_train, folds))
    if isinstance(x, xr.Dataset):
        check_no_runs(runs)
        a, b = pick_algorithms(x, algorithms)
        diff = differences(x, a, b)
        flat = diff.values.reshape(diff.shape[0], -1)
        rho = resolve_rho(rho, n_test=n_test, n_train=n_train, folds=folds) if given else x.rho.values
        return DatasetRows([row[~np.isnan(row)] for row in flat], [str(d) for d in diff.dataset.values], rho, True)
    x = as_differences(x)
    rows = [x] if x.ndim == 1 else list(x)
    rho = rho_for(x.shape, rho=rho, n_test=n_test, n_train=n_train, folds=folds, runs=runs)
    return DatasetRows(rows, [f"D{i + 1}" for i in range(len(rows))], rho, x.ndim == 2)


def intraclass_likelihood(name, mu, sigma, data, *, rho, dims=None):
    """The exact correlated likelihood of cross-validation folds as a PyMC observed variable: within data set
    i, x_i ~ MVN(mu_i 1, sigma_i^2 ((1 - rho_i) I + rho_i 1 1^T)), logp in O(n). Call inside a ``pm.Model``.

    ``data`` is one data set's folds (1-D, then ``mu`` and ``sigma`` are scalars) or a list of them, one
    per data set (``mu``, ``sigma`` and ``rho`` one entry each, or rho one number). The folds are stored,
    flat, in ``pm.Data(name + "_obs")`` (``dims`` is their dimension, if the model has it), so that
    :func:`add_log_likelihood` and prior or posterior predictive sampling work on the user's own model.

    >>> rng = np.random.default_rng(0)
    >>> folds = [rng.normal(0.02, 0.01, 10), rng.normal(0.0, 0.01, 5)]
    >>> with pm.Model(coords={"dataset": ["a", "b"]}) as model:
    ...     mu = pm.StudentT("mu", nu=3, mu=0, sigma=0.05, dims="dataset")
    ...     sigma = pm.HalfNormal("sigma", 0.05, dims="dataset")
    ...     x = intraclass_likelihood("x", mu, sigma, folds, rho=[0.1, 0.2])
    >>> from pp_corr.sampling import sample
    >>> idata = sample(model, draws=200, tune=200, chains=2, random_seed=1)
    >>> idata.log_likelihood["by_dataset"].shape, idata.log_likelihood["by_fold"].shape
    ((2, 200, 2), (2, 200, 15))
    """
    rows = [np.asarray(data, dtype=float)] if np.ndim(data[0]) == 0 else [np.asarray(r, dtype=float) for r in data]
    rho_vec = np.broadcast_to(np.asarray(rho, dtype=float), (len(rows),))
    group = np.repeat(np.arange(len(rows)), [len(r) for r in rows])
    observed = pm.Data(f"{name}_obs", np.concatenate(rows), dims=dims)  # swap data with pm.set_data
    return IntraclassNormal(name, mu, sigma, rho_vec, group=group, observed=observed, dims=dims)


def _is_intraclass(rv) -> bool:
    """Whether an observed variable is an intraclass likelihood (:func:`intraclass_likelihood`)."""
    op = rv.owner.op
    return getattr(op, "signature", None) == "(q),(q),(q),(n)->(n)" and len(op.dist_params(rv.owner)) == 4


def add_log_likelihood(idata, model, name="x"):
    """Add the pointwise log-likelihood of the intraclass variable ``name`` to ``idata`` (a DataTree with a
    posterior of ``model``), as two variables of its ``log_likelihood`` group:

    - ``by_dataset`` (dimension ``dataset``): log p(x_i | mu_i, sigma_i), the intraclass log-density of data
      set i's folds (:func:`intraclass_logp`). ``az.loo(idata, var_name="by_dataset")`` estimates how well the
      model predicts a new data set's folds (leave-one-data-set-out; the unit of the question "which model
      generalises over data sets").
    - ``by_fold`` (the folds' dimension, ``obs``): log p(x_ij | x_i,-j, mu_i, sigma_i), each fold given the
      other folds of its data set (:func:`intraclass_fold_logp`; leave-one-fold-out for a model whose folds
      are correlated, where the factorised "one fold, one observation" log-likelihood would be wrong).
      ``var_name="by_fold"`` asks how well the model predicts a held-out fold of a known data set.

    :func:`pp_corr.sampling.sample` calls it for every intraclass variable of the model.

    >>> from pp_corr.sampling import sample
    >>> idata = sample(correlated_t_model(np.random.default_rng(0).normal(0.01, 0.02, (3, 10)), folds=10),
    ...                draws=200, tune=200, chains=2, random_seed=1)
    >>> sorted(idata.log_likelihood.data_vars)
    ['by_dataset', 'by_fold']
    """
    rv = model[name]
    if not _is_intraclass(rv):
        raise ValueError(f"name: {name!r} is not an intraclass likelihood (intraclass_likelihood) of the model")
    params = pytensor.function(model.free_RVs, rv.owner.op.dist_params(rv.owner), on_unused_input="ignore")
    post = idata.posterior
    shape = (post.sizes["chain"], post.sizes["draw"])
    draws = [post[v.name].values.reshape((-1,) + post[v.name].shape[2:]) for v in model.free_RVs]
    mu, sigma = (np.array(values) for values in zip(*(params(*point)[:2] for point in zip(*draws))))
    mu, sigma = mu.reshape(len(mu), -1), sigma.reshape(len(sigma), -1)
    _, _, rho, group = params(*(d[0] for d in draws))
    values = model.rvs_to_values[rv].eval()
    q = len(rho)
    by_dataset, by_fold = np.empty((len(mu), q)), np.empty((len(mu), len(values)))
    for i in range(q):
        rows = group == i
        x_i = np.broadcast_to(values[rows], (len(mu), rows.sum()))
        by_dataset[:, i] = intraclass_logp(x_i, mu[:, i], sigma[:, i], rho[i])
        by_fold[:, rows] = intraclass_fold_logp(x_i, mu[:, i], sigma[:, i], rho[i])
    fold_dims = model.named_vars_to_dims.get(name, (f"{name}_dim_0",))
    names = model.coords.get("dataset") or ()
    names = names if len(names) == q else [f"D{i + 1}" for i in range(q)]
    coords = {"chain": post.chain.values, "draw": post.draw.values, "dataset": list(names),
              fold_dims[0]: list(model.coords.get(fold_dims[0]) or range(len(values)))}
    idata["log_likelihood"] = xr.Dataset(
        {"by_dataset": (("chain", "draw", "dataset"), by_dataset.reshape(shape + (q,))),
         "by_fold": (("chain", "draw", fold_dims[0]), by_fold.reshape(shape + (len(values),)))}, coords=coords)
    return idata


def _mu_sigma(prior: NormalGamma, rows, dims, mu_prior=None, sigma_prior=None):
    """mu and sigma: the user's priors where given, else the Normal-Gamma prior's (sigma = 1/sqrt(nu),
    nu ~ Gamma(a, b); mu | sigma ~ N(mu0, k0 sigma^2)) or the matching prior's (p(mu, sigma) ~ 1/sigma)."""
    means = np.array([r.mean() for r in rows])
    sds = np.array([r.std(ddof=1) for r in rows])
    shape = None if dims is None else len(rows)
    if prior.is_matching and sigma_prior is None:
        constant = np.array([np.ptp(r) == 0 for r in rows])
        if constant.any():
            bad = np.flatnonzero(constant).tolist()
            raise ValueError(f"rows {bad} have zero variance: under the matching prior the posterior is a point "
                             "mass; use a proper NormalGamma prior")
    elif not prior.is_matching and not prior.is_proper:
        raise ValueError("prior must be proper (k0 finite, a > 0, b > 0) or NormalGamma.matching()")
    if sigma_prior is not None:
        sigma = sigma_prior("sigma", dims=dims)
    elif prior.is_matching:
        sigma = pm.HalfFlat("sigma", dims=dims, shape=shape, initval=sds if dims else sds[0])
        pm.Potential("matching_prior", -pt.sum(pt.log(sigma)))  # nu^(a-1) nu^(1/2) with a = -1/2 is 1/nu
    else:
        nu = pm.Gamma("nu", alpha=prior.a, beta=prior.b, dims=dims, shape=shape)
        sigma = pm.Deterministic("sigma", 1 / pt.sqrt(nu), dims=dims)
    if mu_prior is not None:
        mu = mu_prior("mu", dims=dims)
    elif prior.is_matching:
        mu = pm.Flat("mu", dims=dims, shape=shape, initval=means if dims else means[0])
    else:
        mu = pm.Normal("mu", mu=prior.mu0, sigma=np.sqrt(prior.k0) * sigma, dims=dims, shape=shape)
    return mu, sigma


def correlated_t_model(x, *, rho=None, n_test=None, n_train=None, folds=None, runs=None, prior=None,
                       mu_prior=None, sigma_prior=None, noise="normal", noise_df=None, algorithms=None) -> pm.Model:
    """The Bayesian correlated t-test as a PyMC model: one data set (``x`` of shape ``(n,)``) or q
    independent ones (``(q, n)`` or a scores Dataset, coords ``dataset``), mean difference ``mu``; rho as
    for :func:`pp_corr.correlated_ttest`.

    ``prior``: a proper :class:`NormalGamma` (nu ~ Gamma(a, b), mu | nu ~ N(mu0, k0/nu)) or the matching
    prior (default). With several data sets the model also holds ``W`` = #{i : mu_i > 0}, exactly
    Poisson-binomial a posteriori. ``noise="student_t"`` is a robust extension: per-fold Student-t
    noise with ``noise_df`` degrees of freedom (given, or ~ Gamma(2, 0.1) + 1 if None) around a latent
    shared component ``shared`` per data set, so an outlying fold is down-weighted.

    Priors of one's own: ``mu_prior`` and ``sigma_prior`` are callables, called inside the model as
    ``mu_prior("mu", dims=dims)`` (``dims`` is ``"dataset"`` with several data sets, else None), that return
    a PyMC variable of that name. The one not given comes from ``prior``: under the matching prior a flat
    mu, or p(sigma) ~ 1/sigma; under a NormalGamma its sigma = 1/sqrt(nu), or mu ~ N(mu0, k0 sigma^2).
    The likelihood (:func:`intraclass_likelihood`) is the variable ``x``; :func:`~pp_corr.sampling.sample` adds
    its pointwise log-likelihood (:func:`add_log_likelihood`).

    >>> x = np.random.default_rng(0).normal(0.01, 0.02, 10)
    >>> sorted(v.name for v in correlated_t_model(x, folds=10).free_RVs)
    ['mu', 'sigma']
    >>> model = correlated_t_model(x, folds=10,
    ...                            mu_prior=lambda name, dims: pm.StudentT(name, nu=3, mu=0, sigma=0.05, dims=dims),
    ...                            sigma_prior=lambda name, dims: pm.HalfNormal(name, 0.05, dims=dims))
    >>> prior_predictive(model, draws=100, random_seed=1).prior_predictive["x"].shape
    (1, 100, 10)
    """
    prior = NormalGamma.matching() if prior is None else prior
    for label, given in (("mu_prior", mu_prior), ("sigma_prior", sigma_prior)):
        if given is not None and not callable(given):
            raise TypeError(f"{label} must be a callable (name, dims) -> PyMC variable, got {given!r}")
    rows, names, rho, many = dataset_rows(x, algorithms, rho, n_test, n_train, folds, runs)
    dims = "dataset" if many else None
    group = np.repeat(np.arange(len(rows)), [len(r) for r in rows])
    coords = {"dataset": names, "obs": np.arange(len(group))} if many else {"obs": np.arange(len(group))}
    with pm.Model(coords=coords) as model:
        mu, sigma = _mu_sigma(prior, rows, dims, mu_prior, sigma_prior)
        rho_vec = np.broadcast_to(np.asarray(rho, dtype=float), (len(rows),))
        if noise == "normal":
            intraclass_likelihood("x", mu, sigma, rows, rho=rho_vec, dims="obs")
        elif noise == "student_t":
            observed = pm.Data("x_obs", np.concatenate(rows), dims="obs")  # swap data with pm.set_data
            # per-fold t noise around a latent shared component: x_j = mu + sigma (sqrt(rho) z + sqrt(1-rho) e_j);
            # with e_j Normal, integrating z out gives exactly the intraclass MVN
            df = pm.Deterministic("noise_df", pm.Gamma("noise_df_minus_one", 2.0, 0.1) + 1) \
                if noise_df is None else noise_df
            shared = pm.Normal("shared", 0.0, 1.0, dims=dims, shape=None if dims else None)
            mu_g, sigma_g, shared_g = (pt.atleast_1d(v)[group] for v in (mu, sigma, shared))
            pm.StudentT("x", nu=df, mu=mu_g + sigma_g * np.sqrt(rho_vec[group]) * shared_g,
                        sigma=sigma_g * np.sqrt(1 - rho_vec[group]), observed=observed, dims="obs")
        else:
            raise ValueError(f"noise must be 'normal' or 'student_t', got {noise!r}")
        if many:
            pm.Deterministic("W", pt.sum(mu > 0))
    return model


def prior_predictive(model, *, draws=500, random_seed=None):
    """Draws from the prior and the prior predictive of ``model`` (a DataTree, ``pm.sample_prior_predictive``).

    An improper prior has no draws: under the matching prior p(mu, sigma) ~ 1/sigma (the default of
    :func:`correlated_t_model`) there is no prior predictive, and a ValueError says so instead of PyMC's
    failure to draw from a flat distribution.

    >>> prior_predictive(correlated_t_model(np.arange(5.0), folds=5))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: model: the prior of mu, sigma is improper (flat: no draws, so no prior predictive); give a proper ...
    """
    flat = sorted(rv.name for rv in model.free_RVs if type(rv.owner.op).__name__ in ("FlatRV", "HalfFlatRV"))
    if flat:
        raise ValueError(f"model: the prior of {', '.join(flat)} is improper (flat: no draws, so no prior "
                         "predictive); give a proper prior (prior=NormalGamma(...), or mu_prior= and sigma_prior=)")
    with model:
        return pm.sample_prior_predictive(draws=draws, random_seed=random_seed)


def with_intraclass_log_likelihood(idata, model):
    """``idata`` with the pointwise log-likelihood of ``model``'s intraclass likelihood, when it has one."""
    intraclass = [rv.name for rv in model.observed_RVs if _is_intraclass(rv)]
    return add_log_likelihood(idata, model, intraclass[0]) if len(intraclass) == 1 else idata
