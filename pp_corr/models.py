"""PyMC model builders: the correlated t-test models, exactly the analytic ones (the Bayesian correlated t-test).

Each builder returns a ``pm.Model`` with coords; nothing samples at construction, so users can add
variables inside ``with model:`` first. :func:`sample` returns an ArviZ DataTree.
"""
from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import numpy as np
import pymc as pm
import pytensor
import pytensor.tensor as pt
import xarray as xr

from .distributions import IntraclassNormal
from .frequentist import as_differences
from .intraclass import resolve_rho
from .priors import NormalGamma
from .scores import differences, pick_algorithms


def _rows(x, algorithms, rho=None, n_test=None, n_train=None, folds=None):
    """Per-data-set 1-D difference arrays, their names, rho and whether x holds several data sets; x is (n,),
    (q, n) or a scores Dataset. rho is the Dataset's unless rho, n_test and n_train, or folds fix it."""
    given = any(v is not None for v in (rho, n_test, n_train, folds))
    if isinstance(x, xr.Dataset):
        a, b = pick_algorithms(x, algorithms)
        diff = differences(x, a, b)
        flat = diff.values.reshape(diff.shape[0], -1)
        rho = resolve_rho(rho, n_test=n_test, n_train=n_train, folds=folds) if given else x.rho.values
        return [row[~np.isnan(row)] for row in flat], [str(d) for d in diff.dataset.values], rho, True
    x = as_differences(x)
    rows = [x] if x.ndim == 1 else list(x)
    rho = resolve_rho(rho, n_test=n_test, n_train=n_train, folds=folds)
    return rows, [f"D{i + 1}" for i in range(len(rows))], rho, x.ndim == 2


def _mu_sigma(prior: NormalGamma, rows, dims):
    """mu and sigma with the Normal-Gamma prior, or the matching prior p(mu, sigma) ~ 1/sigma."""
    means = np.array([r.mean() for r in rows])
    sds = np.array([r.std(ddof=1) for r in rows])
    shape = None if dims is None else len(rows)
    if prior.is_matching:
        constant = np.array([np.ptp(r) == 0 for r in rows])
        if constant.any():
            bad = np.flatnonzero(constant).tolist()
            raise ValueError(f"rows {bad} have zero variance: under the matching prior the posterior is a point "
                             "mass; use a proper NormalGamma prior")
        mu = pm.Flat("mu", dims=dims, shape=shape, initval=means if dims else means[0])
        sigma = pm.HalfFlat("sigma", dims=dims, shape=shape, initval=sds if dims else sds[0])
        pm.Potential("matching_prior", -pt.sum(pt.log(sigma)))  # nu^(a-1) nu^(1/2) with a = -1/2 is 1/nu
        return mu, sigma
    if not prior.is_proper:
        raise ValueError("prior must be proper (k0 finite, a > 0, b > 0) or NormalGamma.matching()")
    nu = pm.Gamma("nu", alpha=prior.a, beta=prior.b, dims=dims, shape=shape)
    mu = pm.Normal("mu", mu=prior.mu0, sigma=pt.sqrt(prior.k0 / nu), dims=dims, shape=shape)
    return mu, pm.Deterministic("sigma", 1 / pt.sqrt(nu), dims=dims)


def correlated_t_model(x, *, rho=None, n_test=None, n_train=None, folds=None, prior=None, noise="normal",
                       noise_df=None, algorithms=None) -> pm.Model:
    """The Bayesian correlated t-test as a PyMC model: one data set (``x`` of shape ``(n,)``) or q
    independent ones (``(q, n)`` or a scores Dataset, coords ``dataset``), mean difference ``mu``.

    ``prior``: a proper :class:`NormalGamma` (nu ~ Gamma(a, b), mu | nu ~ N(mu0, k0/nu)) or the matching
    prior (default). With several data sets the model also holds ``W`` = #{i : mu_i > 0}, exactly
    Poisson-binomial a posteriori. ``noise="student_t"`` is a robust extension: per-fold Student-t
    noise with ``noise_df`` degrees of freedom (given, or ~ Gamma(2, 0.1) + 1 if None) around a latent
    shared component ``shared`` per data set, so an outlying fold is down-weighted.

    >>> import numpy as np
    >>> model = correlated_t_model(np.random.default_rng(0).normal(0.01, 0.02, 10), folds=10)
    >>> sorted(v.name for v in model.free_RVs)
    ['mu', 'sigma']
    """
    prior = NormalGamma.matching() if prior is None else prior
    rows, names, rho, many = _rows(x, algorithms, rho, n_test, n_train, folds)
    dims = "dataset" if many else None
    group = np.repeat(np.arange(len(rows)), [len(r) for r in rows])
    coords = {"dataset": names, "obs": np.arange(len(group))} if many else {"obs": np.arange(len(group))}
    with pm.Model(coords=coords) as model:
        mu, sigma = _mu_sigma(prior, rows, dims)
        rho_vec = np.broadcast_to(np.asarray(rho, dtype=float), (len(rows),))
        observed = pm.Data("x_obs", np.concatenate(rows), dims="obs")  # swap data with pm.set_data
        if noise == "normal":
            IntraclassNormal("x", mu, sigma, rho_vec, group=group, observed=observed, dims="obs")
        elif noise == "student_t":
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


def sample(model, *, draws=1000, tune=1000, chains=4, random_seed=None, sampler="pymc", progressbar=False,
           **kwargs):
    """Sample ``model`` with NUTS and return an ArviZ DataTree; quiet and seeded by default.

    ``sampler="nutpie"`` uses nutpie (optional extra) when installed. A fixed ``random_seed`` gives the same
    draws whether or not PyTensor's compilation cache is warm (see :func:`compilation_settings`), and the
    progress bar (``progressbar=True``) is drawn on stderr, so stdout carries only results.

    >>> import numpy as np
    >>> model = correlated_t_model(np.random.default_rng(0).normal(0.01, 0.02, 10), folds=10)
    >>> idata = sample(model, draws=200, tune=200, chains=2, random_seed=1)
    >>> idata.posterior["mu"].shape
    (2, 200)
    """
    if sampler not in ("pymc", "nutpie"):
        raise ValueError(f"sampler must be 'pymc' or 'nutpie', got {sampler!r}")
    # PyMC's and nutpie's progress bars write to stdout (a rich Console); send them, and any other chatter of
    # the sampler, to stderr
    to_stderr = contextlib.redirect_stdout(sys.stderr) if progressbar else contextlib.nullcontext()
    with model, compilation_settings(), to_stderr:
        return pm.sample(draws=draws, tune=tune, chains=chains, random_seed=random_seed, nuts_sampler=sampler,
                         progressbar=progressbar, quiet=not progressbar, **kwargs)


def compilation_settings():
    """PyTensor settings under which :func:`sample` compiles a model (a context manager).

    - ``numba__fastmath=False``: with fast-math, Numba's machine code for a model differs between a fresh
      compilation and one loaded from PyTensor's cache (``<base_compiledir>/numba``) in the last bits of the
      log density, so the first fit after the cache is emptied drew different (equally valid) chains from a
      seeded fit than every later one. Without fast-math both are bit-identical (and no slower here).
    - ``generated_src_dir``: PyTensor writes the Python source it generates for Numba to files it keeps; by
      default each is a new ``tmp*`` file in the system temporary directory that nothing removes (about 30 per
      fitted model). Here they go, named by their content and so reused, to ``<compiledir>/generated_src``,
      where PyTensor prunes the ones long unused - unless the user chose a directory.

    >>> with compilation_settings():
    ...     bool(pytensor.config.numba__fastmath)
    False
    """
    flags = {"numba__fastmath": False}
    if not pytensor.config.generated_src_dir:
        flags["generated_src_dir"] = str(Path(pytensor.config.compiledir) / "generated_src")
    return pytensor.config.change_flags(**flags)
