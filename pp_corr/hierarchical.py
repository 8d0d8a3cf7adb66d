"""Hierarchical model over data sets (Corani, Benavoli, Demsar, Mangili, Zaffalon 2017; DESIGN.md section 6)."""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import arviz as az
import numpy as np
import pandas as pd
import pymc as pm
import pytensor.tensor as pt
import xarray as xr
from scipy import stats

from ._args import as_generator, as_rope, b_minus_a
from .models import _rows, sample
from .poisson_binomial import PoissonBinomial
from .rank_tests import RegionProbabilities
from .scores import pick_algorithms
from .ttest import DegenerateWarning, correlated_ttest

PRIORS = {"current": {"alpha": (0.5, 5.0), "beta": (0.05, 0.15)}, "older": {"alpha": (1.0, 2.0), "beta": (0.01, 0.1)}}
SIGMA_FLOOR = 0.01  # lower bound of sigma_i, in units of the mean within-data-set sd (see hierarchical_model)


class ConvergenceWarning(UserWarning):
    """R-hat, effective sample size or divergences say the MCMC result is not to be trusted."""


@dataclass(frozen=True)
class _Data:
    names: list
    n: np.ndarray
    mean: np.ndarray     # per-data-set mean differences (original units)
    ss: np.ndarray       # per-data-set sums of squared deviations (original units)
    rho: np.ndarray
    scale: float         # s = mean_i sd(x_i): the model runs on x / s
    max_abs: float       # max |x| over all differences (original units): the range of delta0


def _prepare(x, rho, n_test, n_train, folds, algorithms, scale=None):
    rows, names, rho, _ = _rows(x, algorithms, rho, n_test, n_train, folds)
    n = np.array([len(r) for r in rows])
    if np.any(n < 2) or len(rows) < 2:
        raise ValueError("the hierarchical model needs at least 2 data sets with at least 2 scores each")
    mean = np.array([r.mean() for r in rows])
    ss = np.array([0.0 if np.ptp(r) == 0 else ((r - r.mean()) ** 2).sum() for r in rows])
    sds = np.sqrt(ss / (n - 1))
    if scale is not None and not scale > 0:
        raise ValueError(f"scale must be positive, got {scale!r}")
    scale = scale or float(sds.mean()) or float(np.abs(mean).max()) or 1.0
    return _Data(names, n, mean, ss, np.broadcast_to(np.asarray(rho, dtype=float), n.shape).copy(), scale,
                 max(float(np.abs(r).max()) for r in rows))


def hierarchical_model(x, *, rho=None, n_test=None, n_train=None, folds=None, priors="current",
                       centered=True, scale=None, bounds=None, algorithms=None) -> pm.Model:
    """The hierarchical model of DESIGN.md section 6 on x / s, s = mean_i sd(x_i).

    delta_i ~ t_nu(delta0, sigma0), or with ``centered=False`` delta_i = delta0 + sigma0 z_i,
    z_i ~ t_nu(0, 1) (better when data sets have few folds and the population dominates); the likelihood is
    exact through the sufficient statistics: xbar_i ~ N(delta_i, sigma_i^2 ((1 - rho_i)/n_i + rho_i)) and the
    chi-square term of SS_i, so zero-variance data sets are fine. ``priors`` is ``"current"``
    (alpha ~ U(0.5, 5), beta ~ U(0.05, 0.15)) or ``"older"`` ((1, 2), (0.01, 0.1)). sigma_i ~ U(0.01, 1000)
    in units of s: the lower bound keeps the posterior proper when a data set has zero variance (its
    likelihood grows without bound as sigma_i -> 0) and is far below the sigma_i of any data set that varies.

    The prior's limits depend on the data by default. ``scale`` (the unit s) and ``bounds`` (a dict
    overriding any of ``"delta0"``: max |delta0|, ``"sigma0"``: max sigma0, ``"sigma"``: (min, max) sigma_i,
    in units of s) make them fixed, e.g. for simulation-based calibration or to share one prior across
    analyses. The observed statistics are ``pm.Data`` ("xbar_obs", "ss_obs", in units of s), so a compiled
    model can be refitted to new data of the same shape.

    >>> import numpy as np
    >>> model = hierarchical_model(np.random.default_rng(0).normal(0.01, 0.02, (5, 10)), folds=10)
    >>> sorted(model.coords["dataset"])[:2]
    ['D1', 'D2']
    """
    data = _prepare(x, rho, n_test, n_train, folds, algorithms, scale)
    return _build(data, priors, centered, bounds)


def _limits(data: _Data, bounds):
    """The prior's limits in units of s: from the data (DESIGN.md section 6) unless ``bounds`` fixes them."""
    xbar = data.mean / data.scale
    limits = {"delta0": max(data.max_abs / data.scale, 1e-6),
              # the bound on sigma0 scales with the spread of the means (DESIGN.md: 1000 sd_i(xbar_i))
              "sigma0": 1000 * max(float(np.std(xbar, ddof=1)), 1e-3),
              "sigma": (SIGMA_FLOOR, 1000.0)}
    unknown = set(bounds or {}) - set(limits)
    if unknown:
        raise ValueError(f"bounds: unknown keys {sorted(unknown)}; use {sorted(limits)}")
    limits.update(bounds or {})
    lo, hi = limits["sigma"]
    if not (limits["delta0"] > 0 and limits["sigma0"] > 0 and 0 <= lo < hi):
        raise ValueError(f"bounds must be positive with sigma = (min, max), min < max; got {limits}")
    return limits


def _build(data: _Data, priors, centered=True, bounds=None) -> pm.Model:
    if priors not in PRIORS:
        raise ValueError(f"priors must be one of {list(PRIORS)}, got {priors!r}")
    hyper = PRIORS[priors]
    s = data.scale
    limits = _limits(data, bounds)
    with pm.Model(coords={"dataset": data.names}) as model:
        xbar = pm.Data("xbar_obs", data.mean / s, dims="dataset")
        ss = pm.Data("ss_obs", data.ss / s**2, dims="dataset")
        delta0 = pm.Uniform("delta0_scaled", -limits["delta0"], limits["delta0"])
        sigma0 = pm.Uniform("sigma0_scaled", 0, limits["sigma0"])
        alpha = pm.Uniform("alpha", *hyper["alpha"])
        beta = pm.Uniform("beta", *hyper["beta"])
        nu = pm.Deterministic("nu", pm.Gamma("nu_minus_one", alpha=alpha, beta=beta) + 1)
        if centered:  # each data set's folds pin its delta_i: the centred form mixes better (uci54: 5x ESS)
            delta = pm.StudentT("delta_scaled", nu=nu, mu=delta0, sigma=sigma0, dims="dataset")
        else:
            z = pm.StudentT("z", nu=nu, mu=0, sigma=1, dims="dataset")
            delta = pm.Deterministic("delta_scaled", delta0 + sigma0 * z, dims="dataset")
        sigma = pm.Uniform("sigma_scaled", *limits["sigma"], dims="dataset")
        within = sigma**2 * (1 - data.rho)
        pm.Normal("xbar", mu=delta, sigma=pt.sqrt(within / data.n + sigma**2 * data.rho), observed=xbar,
                  dims="dataset")
        # SS_i / (sigma_i^2 (1 - rho_i)) ~ chi2(n_i - 1): its parameter-dependent part
        pm.Potential("ss", pt.sum(-(data.n - 1) / 2 * pt.log(within) - ss / (2 * within)))
        pm.Deterministic("delta0", delta0 * s)
        pm.Deterministic("sigma0", sigma0 * s)
        pm.Deterministic("delta", delta * s, dims="dataset")
        pm.Deterministic("W", pt.sum(delta > 0))
    return model


@dataclass(frozen=True, repr=False)
class HierarchicalResult:
    """Posterior of the hierarchical model, in the original units of the scores."""

    idata: object
    data: _Data
    rope: tuple[float, float]
    names: tuple[str, str]
    independent: object

    @property
    def delta0(self) -> np.ndarray:
        return self.idata.posterior["delta0"].values.ravel()

    @property
    def p_delta0_positive(self) -> float:
        return float(np.mean(self.delta0 > 0))

    def datasets(self, confidence_level=0.95) -> pd.DataFrame:
        """Each data set's shrunk delta_i (mean, interval, rope probabilities) next to its independent estimate."""
        delta = self.idata.posterior["delta"].stack(sample=("chain", "draw")).transpose("dataset", "sample").values
        lo, hi = self.rope
        tail = (1 - confidence_level) / 2
        a, b = self.names
        frame = pd.DataFrame({
            "hier. mean": delta.mean(axis=1), "hier. lo": np.quantile(delta, tail, axis=1),
            "hier. hi": np.quantile(delta, 1 - tail, axis=1), f"hier. P({a} better)": (delta < lo).mean(axis=1),
            "hier. P(rope)": ((delta >= lo) & (delta <= hi)).mean(axis=1),
            f"hier. P({b} better)": (delta > hi).mean(axis=1),
            "indep. mean": self.independent.mean, f"indep. P({a} better)": self.independent.p_left,
            "indep. P(rope)": self.independent.p_rope, f"indep. P({b} better)": self.independent.p_right,
        }, index=pd.Index(self.data.names, name="dataset"))
        return frame

    def new_dataset(self) -> RegionProbabilities:
        """P(A better), P(rope), P(B better) on a new data set, delta_new ~ t_nu(delta0, sigma0), per draw.

        ``p_*`` are their posterior means, ``win_*`` the share of draws in which each region is largest
        (ties shared equally between the tied regions).
        """
        post = self.idata.posterior
        d0, s0, nu = (post[v].values.ravel() for v in ("delta0", "sigma0", "nu"))
        lo, hi = self.rope
        left = stats.t.cdf((lo - d0) / s0, nu)
        right = stats.t.sf((hi - d0) / s0, nu)
        return RegionProbabilities.from_tails(left, right, "hierarchical model, a new data set", hi, self.names)

    def w_distribution(self) -> pd.DataFrame:
        """Posterior of W = #{i : delta_i > 0} next to the Poisson-binomial of the independent analysis."""
        w = self.idata.posterior["W"].values.ravel()
        q = len(self.data.names)
        independent = self.independent.with_rope(None)  # W counts delta_i > 0 whatever the rope
        exact = PoissonBinomial(np.atleast_1d(independent.p_right),
                                complement=np.atleast_1d(independent.p_not_right)).pmf()
        return pd.DataFrame({"hierarchical": np.bincount(w.astype(int), minlength=q + 1) / len(w),
                             "independent (Poisson-binomial)": exact}, index=pd.Index(np.arange(q + 1), name="W"))

    def posterior_predictive(self, random_seed=None):
        """The DataTree with posterior-predictive per-data-set means and standard deviations (and the observed
        ones), for ``arviz.plot_ppc_dist``."""
        rng = as_generator(random_seed)
        post = self.idata.posterior
        s, n, rho = self.data.scale, self.data.n, self.data.rho
        delta, sigma = post["delta_scaled"].values, post["sigma_scaled"].values
        within = sigma**2 * (1 - rho)
        means = rng.normal(delta, np.sqrt(within / n + sigma**2 * rho)) * s
        sds = np.sqrt(within * rng.chisquare(n - 1, size=delta.shape) / (n - 1)) * s
        dims = ["chain", "draw", "dataset"]
        coords = {"chain": post.chain.values, "draw": post.draw.values, "dataset": self.data.names}
        tree = self.idata.copy()
        tree["posterior_predictive"] = xr.Dataset({"mean": (dims, means), "sd": (dims, sds)}, coords=coords)
        tree["observed_data"] = xr.Dataset({"mean": ("dataset", self.data.mean),
                                            "sd": ("dataset", np.sqrt(self.data.ss / (n - 1)))},
                                           coords={"dataset": self.data.names})
        return tree

    def __repr__(self):
        a, b = self.names
        new = self.new_dataset()
        lo, hi = np.quantile(self.delta0, [0.025, 0.975])
        return (f"Hierarchical model, {b} - {a} on {len(self.data.names)} data sets, rope {self.rope}\n"
                f"  delta0 (mean difference in the population of data sets): mean {self.delta0.mean():+.4f}, "
                f"95% [{lo:+.4f}, {hi:+.4f}], P(delta0 > 0) = {self.p_delta0_positive:.3f}\n"
                f"  a new data set, posterior mean:   P({a} better) = {new.p_left:.3f}  P(rope) = {new.p_rope:.3f}"
                f"  P({b} better) = {new.p_right:.3f}\n"
                f"  a new data set, P(region largest): {a} {new.win_left:.3f}  rope {new.win_rope:.3f}  "
                f"{b} {new.win_right:.3f}  (ties shared)")


def check_convergence(idata, var_names=("delta0", "sigma0", "delta"), *, max_rhat=1.01, min_ess=400):
    """Warn (``ConvergenceWarning``) naming each variable whose R-hat or bulk ESS fails, and divergences.

    Returns the list of problems (empty when all is well).

    >>> import arviz as az
    >>> rng = np.random.default_rng(0)
    >>> idata = az.from_dict({"posterior": {"delta0": rng.normal(size=(4, 500))},
    ...                       "sample_stats": {"diverging": np.zeros((4, 500), dtype=bool)}})
    >>> check_convergence(idata, var_names=["delta0"])
    []
    """
    problems = []
    rhat = az.rhat(idata, var_names=list(var_names))
    ess = az.ess(idata, var_names=list(var_names))
    for name in var_names:
        for label, values, limit in (("R-hat", rhat[name], f"> {max_rhat}"), ("bulk ESS", ess[name], f"< {min_ess}")):
            failed = values.where(values > max_rhat if label == "R-hat" else values < min_ess)
            cells = failed.to_series().items() if failed.ndim else [("", float(failed))]
            for where, value in cells:  # vector variables: name each failing data set
                if not np.isnan(value):
                    problems.append(f"{label} of {name}{f'[{where}]' if where != '' else ''} is {value:.4g} {limit}")
    divergences = int(idata.sample_stats["diverging"].sum())
    if divergences:
        problems.append(f"{divergences} divergent transitions")
    if problems:
        warnings.warn("; ".join(problems), ConvergenceWarning, stacklevel=2)
    return problems


def hierarchical_test(x, y=None, *, rope=0.01, rho=None, n_test=None, n_train=None, folds=None, priors="current",
                      centered=True, scale=None, bounds=None, algorithms=None, names=None, draws=1000, tune=1000,
                      chains=4, random_seed=None,
                      sampler="pymc", target_accept=0.9, progressbar=False) -> HierarchicalResult:
    """Fit the hierarchical model to per-fold differences B - A of q data sets and summarise it.

    ``x`` is a scores Dataset (with ``algorithms``), ``(q, n)`` differences, or the scores of A with ``y``
    those of B. ``priors``, ``centered``, ``scale`` and ``bounds`` are those of :func:`hierarchical_model`.
    Convergence is checked (R-hat, bulk ESS, divergences) with a ``ConvergenceWarning``.

    >>> import numpy as np
    >>> x = np.random.default_rng(0).normal(0.02, 0.02, (6, 10))
    >>> # few data sets with few folds: the sigma0 funnel wants the non-centred form and small steps
    >>> res = hierarchical_test(x, folds=10, centered=False, target_accept=0.99, random_seed=1)
    >>> bool(res.p_delta0_positive > 0.9)
    True
    """
    if y is not None:
        x = b_minus_a(x, y)
    data = _prepare(x, rho, n_test, n_train, folds, algorithms, scale)
    rope = as_rope(rope) or (0.0, 0.0)
    if isinstance(x, xr.Dataset):
        names = names or pick_algorithms(x, algorithms)
    names = tuple(names or ("A", "B"))
    with warnings.catch_warnings():  # the independent analysis is shown beside the model, point masses and all
        warnings.simplefilter("ignore", DegenerateWarning)
        independent = correlated_ttest(x, rho=data.rho, rope=rope, algorithms=algorithms, names=names)
    model = _build(data, priors, centered, bounds)
    idata = sample(model, draws=draws, tune=tune, chains=chains, random_seed=random_seed, sampler=sampler,
                   progressbar=progressbar, target_accept=target_accept)
    check_convergence(idata)
    return HierarchicalResult(idata, data, rope, names, independent)
