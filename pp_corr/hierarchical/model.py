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

Convergence policy (:func:`hierarchical_test`): R-hat <= 1.01 and bulk ESS >= 400 for delta0, sigma0, nu
and every delta_i, no divergences; one retry with the robust settings (:data:`ROBUST`, for what the caller did not
set: the marginal form, longer warm-up, smaller steps); if that fails too, the exact posterior by quadrature
(:mod:`pp_corr.hierarchical.exact`; the Student-t population with the uniform delta0 and nu's hyperpriors has
one), or with ``method="mcmc"`` (and the other variants) a result that says ``converged = False`` and gives no
verdict.
"""
from __future__ import annotations

import math
import sys
import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import arviz as az
import numpy as np
import pandas as pd
import pymc as pm
import pytensor.tensor as pt
import xarray as xr
from pymc.distributions.transforms import Interval
from pymc.logprob.transforms import ChainedTransform, ScaleTransform
from scipy import stats

from .._args import (as_generator, as_rope, b_minus_a, check_count, check_flag, check_probability_level, check_real,
                     check_sampler)
from ..data.scores import pick_algorithms
from ..pairwise.models import dataset_rows
from ..pairwise.poisson_binomial import PoissonBinomial
from ..pairwise.rank_tests import RegionProbabilities
from ..pairwise.ttest import DegenerateWarning, correlated_ttest
from ..sampling import ConvergenceWarning, RefittableModel, compilation_settings, diagnose
from .dataset_likelihood import integrated_log_likelihood
from .exact import check_method, exact_draws

PRIORS = {"current": {"alpha": (0.5, 5.0), "beta": (0.05, 0.15)}, "older": {"alpha": (1.0, 2.0), "beta": (0.01, 0.1)}}
# the priors of nu by name: PRIORS' hyperpriors (nu - 1 ~ Gamma(alpha, beta), alpha and beta uniform), Kruschke's
# nu - 1 ~ Exponential(rate 1/29) (mean 30) and Juarez and Steel's nu ~ Gamma(2, rate 0.1) (mode 10)
NU_PRIORS = (*PRIORS, "kruschke", "juarez_steel")
POPULATIONS = ("student_t", "normal")  # the population of the delta_i: t_nu(delta0, sigma0) or N(delta0, sigma0)
NU_NODES = 24  # Gauss-Legendre points of the integral over nu's hyperparameter a (nu_log_prior)
SIGMA_FLOOR = 0.01  # lower bound of sigma_i, in units of s, the median within-data-set sd (see hierarchical_model)
SIGMA_CEILING = 1000.0  # upper bound of sigma_i: this many times the larger of s and the data set's sd
FAR_OUT = 100.0  # a data set whose sd, or whose mean's distance from the others', is this many times theirs
FORMS = ("centered", "noncentered", "marginal")
CHECKED = ("delta0", "sigma0", "nu", "delta")  # the variables whose R-hat and ESS decide convergence
# hierarchical_test's first fit (on uci54 the centred form mixes best: ESS of nu 2100 against 500 for the marginal
# form), and its retry (the marginal form holds in the funnel of near-identical algorithms; twice the draws for nu)
DEFAULT = {"form": "centered", "draws": 1000, "tune": 1000, "target_accept": 0.9}
ROBUST = {"form": "marginal", "draws": 2000, "tune": 2000, "target_accept": 0.95}
COMPILED_MODELS = 8  # compiled models kept for later fits of the same shape (_refittable), the least recent dropped
_COMPILED = {}


class OutlierWarning(UserWarning):
    """A data set lies far outside the others (its sd, or its mean's distance from theirs, is over 100 times
    theirs): check it for an error in the scores; the model's unit and prior limits are set to cover it."""


@dataclass(frozen=True)
class _Data:
    names: list
    n: np.ndarray
    mean: np.ndarray     # per-data-set mean differences (original units)
    sd: np.ndarray       # per-data-set standard deviations (original units)
    rho: np.ndarray
    scale: float         # s, the median within-data-set sd (see _unit): the model runs on x / s
    max_abs: float       # max |x| over all differences (original units): the range of delta0

    def ss(self, unit=1.0) -> np.ndarray:
        """Sums of squared deviations in units of ``unit`` (scaled first: squares of 1e-170 underflow)."""
        return (self.n - 1) * (self.sd / unit) ** 2


def _unit(sd, mean) -> float:
    """The model's unit s: the median of the data sets' sds, so that no single data set sets it (their mean
    did: one absurd fold made every other data set look constant). When most data sets have zero variance, the
    median of the non-zero sds; when all have, the median of the non-zero |means|; else 1."""
    for values in (sd, sd[sd > 0], np.abs(mean)[mean != 0]):
        if values.size and np.median(values) > 0:
            return float(np.median(values))
    return 1.0


def _warn_far_out(names, sd, mean, unit):
    """OutlierWarning naming each data set whose sd is over FAR_OUT times the median sd (``unit``), or whose
    mean is over FAR_OUT times further from the median mean than is typical (the larger of the median distance
    and ``unit``)."""
    centre = np.median(mean)
    distance = np.abs(mean - centre)
    typical = max(float(np.median(distance)), unit)
    notes = []
    for name, sd_i, d_i, mean_i in zip(names, sd, distance, mean):
        reasons = []
        if sd_i > FAR_OUT * unit:
            reasons.append(f"its sd {sd_i:.3g} is {sd_i / unit:.3g} times the median sd {unit:.3g}")
        if d_i > FAR_OUT * typical:
            reasons.append(f"its mean {mean_i:.3g} is {d_i / typical:.3g} times further from the median mean "
                           f"{centre:.3g} than typical ({typical:.3g})")
        if reasons:
            notes.append(f"data set {name!r}: {' and '.join(reasons)}")
    if notes:
        warnings.warn("far outside the other data sets, check for an error in the scores: " + "; ".join(notes)
                      + ". The model's unit (the median sd) ignores it, its prior limits cover it.",
                      OutlierWarning, stacklevel=4)  # the caller of hierarchical_test or _model


def _prepare(x, rho, n_test, n_train, folds, algorithms, scale=None, runs=None):
    if scale is not None:
        scale = check_real("scale", scale, low=0, low_open=True)
    rows, names, rho, _ = dataset_rows(x, algorithms, rho, n_test, n_train, folds, runs)
    if len(rows) < 2:
        raise ValueError(f"x holds {len(rows)} data set: the hierarchical model needs at least 2")
    n = np.array([len(r) for r in rows])
    if np.any(n < 2):
        short = [f"{names[i]!r} ({n[i]})" for i in np.flatnonzero(n < 2)]
        raise ValueError(f"the hierarchical model needs at least 2 scores in each data set: {', '.join(short)}")
    rho = np.asarray(rho, dtype=float)
    if rho.ndim > 1 or rho.size not in (1, len(rows)):
        raise ValueError(f"rho must be one value or one per data set ({len(rows)}), got {rho.size} values")
    mean = np.array([r.mean() for r in rows])
    sd = np.array([_sd(r) for r in rows])
    unit = _unit(sd, mean)
    _warn_far_out(names, sd, mean, unit)
    return _Data(names, n, mean, sd, np.broadcast_to(rho.ravel() if rho.ndim else rho, n.shape).copy(),
                 scale or unit, max(float(np.abs(r).max()) for r in rows))


def _sd(row) -> float:
    """The sample sd, exactly 0 for a constant row, computed on row / max |row| so that neither 1e-170 nor 1e160
    differences under- or overflow when squared."""
    if np.ptp(row) == 0:
        return 0.0
    big = float(np.abs(row).max())
    return big * float(np.std(row / big, ddof=1))


def hierarchical_model(x, *, rho=None, n_test=None, n_train=None, folds=None, runs=None, priors="current",
                       form="centered", scale=None, bounds=None, algorithms=None, population="student_t",
                       delta0_prior=None) -> pm.Model:
    """The hierarchical model over data sets on x / s, s the median of the data sets' sds.

    delta_i ~ t_nu(delta0, sigma0); the likelihood is exact through the sufficient statistics, with
    c_i = (1 - rho_i)/n_i + rho_i: xbar_i ~ N(delta_i, sigma_i^2 c_i) and SS_i / (sigma_i^2 (1 - rho_i)) ~
    chi^2(n_i - 1), so zero-variance data sets are fine. nu - 1 ~ Gamma(alpha, rate beta) with ``priors``
    ``"current"`` (alpha ~ U(0.5, 5), beta ~ U(0.05, 0.15)) or ``"older"`` ((1, 2), (0.01, 0.1)); alpha and
    beta are integrated out (:func:`nu_log_prior`), so the model samples nu alone. Variants for comparison and
    sensitivity (:data:`NU_PRIORS`): ``priors="kruschke"``, nu - 1 ~ Exponential(rate 1/29), and
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
    - ``"marginal"`` (:func:`hierarchical_test`'s retry): delta_i integrated out given lambda_i,
      xbar_i ~ N(delta0, sigma0^2 / lambda_i + sigma_i^2 c_i); :func:`hierarchical_test` then draws each
      delta_i from its exact conditional normal. The model has no delta_i (nor ``delta``, ``W``).

    The unit s is the median sd, not the mean: one data set cannot set it, so an absurd outlier (one fold of
    1e6 among accuracies) no longer makes the others look constant. (When most data sets have zero variance
    it is the median of the non-zero sds.) A data set whose sd, or whose mean's distance from the others',
    is over 100 times theirs is named in an :class:`OutlierWarning`. In units of s, delta0 ~ U(-M, M) with
    M = max |x| over all differences, sigma0 ~ U(0, 1000 sd_i(xbar_i)) and sigma_i ~ U(0.01, 1000 max(1,
    sd_i / s)): each data set's own upper limit, so the limits cover every data set, an outlier included,
    without letting all the sigma_i grow as large as the outlier's (chains stuck there). The lower bound 0.01 keeps
    the posterior proper when a data set has zero variance (its likelihood grows without bound as
    sigma_i -> 0); a data set whose sd is below 1% of the median is treated as nearly constant. delta0's
    log-odds transform is scaled so that, near 0, one unconstrained unit is one unit of s, and
    :func:`hierarchical_test` starts the chains near the data: with a huge range, the samplers' default start
    (the middle of each range, plus a jitter of +-1 unconstrained unit) left chains far from the posterior.

    The prior's limits depend on the data by default. ``scale`` (the unit s, finite and > 0) and ``bounds``
    (a dict overriding any of ``"delta0"``: max |delta0|, ``"sigma0"``: max sigma0, ``"sigma"``: (min, max)
    sigma_i, in units of s) make them fixed, e.g. for simulation-based calibration or to share one prior
    across analyses. Everything that depends on the data is ``pm.Data`` (:func:`_model_values`: the statistics
    "xbar_obs" and "ss_obs" in units of s, "n_folds", "rho", the unit "unit" and the limits "delta0_max",
    "sigma0_max", "sigma_min", "sigma_max"), so a compiled model can be refitted to any data with as many data sets.

    >>> import numpy as np
    >>> model = hierarchical_model(np.random.default_rng(0).normal(0.01, 0.02, (5, 10)), folds=10)
    >>> sorted(model.coords["dataset"])[:2]
    ['D1', 'D2']
    """
    _check_variant(priors, population, delta0_prior)
    bounds = _check_bounds(bounds)
    data = _prepare(x, rho, n_test, n_train, folds, algorithms, scale, runs)
    _check_form(form)
    return _build(data, priors, form, bounds, population, delta0_prior)


def _check_priors(priors):
    if not isinstance(priors, str):
        raise TypeError(f"priors must be one of {list(PRIORS)}, got {type(priors).__name__} {priors!r}")
    if priors not in PRIORS:
        raise ValueError(f"priors must be one of {list(PRIORS)}, got {priors!r}")


def _check_variant(priors, population, delta0_prior=None):
    """``priors`` one of :data:`NU_PRIORS` or hyperprior bounds ``{"alpha": (a1, a2), "beta": (b1, b2)}``, and
    ``population`` one of :data:`POPULATIONS`; ``delta0_prior`` None or a callable."""
    if delta0_prior is not None and not callable(delta0_prior):
        raise TypeError(f"delta0_prior must be a callable (name, unit) -> PyMC variable, got {delta0_prior!r}")
    if isinstance(priors, Mapping):
        if set(priors) != {"alpha", "beta"}:
            raise ValueError(f"priors: a dict needs exactly the keys 'alpha' and 'beta', got {sorted(priors)}")
        for key, pair in priors.items():
            if isinstance(pair, (str, bytes)) or np.ndim(pair) != 1 or len(pair) != 2:
                raise ValueError(f"priors['{key}'] must be a pair (low, high), got {pair!r}")
            low, high = (check_real(f"priors['{key}']", v, low=0, low_open=True) for v in pair)
            if not low < high:
                raise ValueError(f"priors['{key}'] must be a pair (low, high) with low < high, got {pair!r}")
        priors = "current"
    for name, value, choices in (("priors", priors, NU_PRIORS), ("population", population, POPULATIONS)):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be one of {list(choices)}, got {type(value).__name__} {value!r}")
        if value not in choices:
            raise ValueError(f"{name} must be one of {list(choices)}, got {value!r}")


def _check_bounds(bounds) -> dict:
    """``bounds`` as a dict of checked limits: "delta0" and "sigma0" finite and > 0, "sigma" a pair (min, max)
    with 0 <= min < max."""
    if bounds is None:
        return {}
    if not isinstance(bounds, Mapping):
        raise TypeError(f"bounds must be a dict with keys 'delta0', 'sigma0', 'sigma', got "
                        f"{type(bounds).__name__} {bounds!r}")
    unknown = set(bounds) - {"delta0", "sigma0", "sigma"}
    if unknown:
        raise ValueError(f"bounds: unknown keys {sorted(unknown, key=str)}; use ['delta0', 'sigma', 'sigma0']")
    checked = {key: check_real(f"bounds['{key}']", bounds[key], low=0, low_open=True)
               for key in ("delta0", "sigma0") if key in bounds}
    if "sigma" in bounds:
        pair = bounds["sigma"]
        if isinstance(pair, (str, bytes)) or np.ndim(pair) != 1 or len(pair) != 2:
            raise ValueError(f"bounds['sigma'] must be a pair (min, max), got {pair!r}")
        lo, hi = (check_real(f"bounds['sigma'] {end}", v, low=0) for end, v in zip(("min", "max"), pair))
        if not lo < hi:
            raise ValueError(f"bounds['sigma'] must be a pair (min, max) with min < max, got {pair!r}")
        checked["sigma"] = (lo, hi)
    return checked


def _limits(data: _Data, bounds):
    """The prior's limits in units of s: from the data unless ``bounds`` (checked) fixes them."""
    s = np.float64(data.scale)  # typed: a Python float is first tried as float32 (overflow warnings at 1e160)
    xbar = data.mean / s
    limits = {"delta0": max(data.max_abs / s, 1e-6),
              # the bound on sigma0 scales with the spread of the means (1000 sd_i(xbar_i))
              "sigma0": 1000 * max(float(np.std(xbar, ddof=1)), 1e-3),
              # ... and that on sigma_i with the data set's own sd, which may be far above the unit (a common
              # bound set by a far-out data set would let every sigma_i grow large enough for all the delta_i to
              # follow the outlier: a local mode where chains stick)
              "sigma": (SIGMA_FLOOR, SIGMA_CEILING * np.maximum(1.0, data.sd / s))}
    limits.update(bounds or {})
    return limits


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


def _start(data: _Data, limits, form="centered") -> dict:
    """The samplers' initial values (``initvals``, by variable name), near the data in units of s (the samplers
    add their jitter): delta0 at the median mean, sigma0 at the means' robust spread, sigma_i at the sds (at
    least 0.1), delta_i at its mean shrunk towards delta0 as a normal population of that spread would (a data
    set too noisy to locate its delta_i starts at delta0). PyMC's default, the middle of each prior's range,
    puts sigma0 and every sigma_i at hundreds of units, at 1e8 with an outlier, where chains stayed."""
    def inside(value, lo, hi):  # strictly within the prior's support
        return np.clip(value, lo + 1e-6 * (hi - lo), hi - 1e-6 * (hi - lo))

    xbar = data.mean / data.scale
    centre = float(np.median(xbar))
    spread = 1.4826 * float(np.median(np.abs(xbar - centre)))  # the sd, for normal means
    spread = max(spread, 0.1)
    se2 = (data.sd / data.scale) ** 2 * _c(data)
    lo, hi = limits["sigma"]
    delta0 = float(inside(centre, -limits["delta0"], limits["delta0"]))
    sigma0 = float(inside(spread, 0, limits["sigma0"]))
    delta = centre + (xbar - centre) * spread**2 / (spread**2 + se2)
    start = {"delta0_scaled": delta0, "sigma0_scaled": sigma0,
             "sigma_scaled": inside(np.maximum(data.sd / data.scale, 0.1), lo, hi)}
    if form == "centered":
        start["delta_scaled"] = delta
    elif form == "noncentered":
        start["z"] = (delta - delta0) / sigma0
    return start


def _c(data: _Data) -> np.ndarray:
    """c_i = (1 - rho_i)/n_i + rho_i: the variance of a data set's mean fold difference in units of sigma_i^2."""
    return (1 - data.rho) / data.n + data.rho


def _model_values(data: _Data, bounds) -> dict:
    """The values of the model's data containers (``pm.Data``) for ``data``, in units of s: the statistics,
    n_i, rho_i, the unit s itself and the prior limits (:func:`_limits`, ``bounds`` checked). Everything that
    depends on the data goes through them, so one built (and compiled) model takes any data of the same number of
    data sets (``pm.set_data``, nutpie's ``with_data``) and has the log density a model built for that data has."""
    s = np.float64(data.scale)
    limits = _limits(data, bounds)
    lo, hi = (np.broadcast_to(np.asarray(end, dtype=float), data.n.shape).copy() for end in limits["sigma"])
    return {"xbar_obs": data.mean / s, "ss_obs": data.ss(s), "n_folds": data.n.astype(float),
            "rho": data.rho.astype(float), "unit": s, "delta0_max": np.float64(limits["delta0"]),
            "sigma0_max": np.float64(limits["sigma0"]), "sigma_min": lo, "sigma_max": hi}


def _build(data: _Data, priors, form="centered", bounds=None, population="student_t", delta0_prior=None) -> pm.Model:
    _check_variant(priors, population, delta0_prior)
    _check_form(form)
    normal = population == "normal"
    with pm.Model(coords={"dataset": data.names}) as model:
        given = {name: pm.Data(name, value, dims="dataset" if np.ndim(value) else None)
                 for name, value in _model_values(data, _check_bounds(bounds)).items()}
        xbar, ss, n, rho, s = (given[name] for name in ("xbar_obs", "ss_obs", "n_folds", "rho", "unit"))
        delta0 = centred_uniform("delta0_scaled", given["delta0_max"]) if delta0_prior is None else \
            delta0_prior("delta0_scaled", s)
        sigma0 = pm.Uniform("sigma0_scaled", 0, given["sigma0_max"])
        nu = None if normal else _nu(priors)
        sigma = pm.Uniform("sigma_scaled", given["sigma_min"], given["sigma_max"], dims="dataset")
        within = sigma**2 * (1 - rho)
        se2 = sigma**2 * ((1 - rho) / n + rho)  # the variance of xbar_i given delta_i and sigma_i (_c)
        if form == "marginal":  # delta_i integrated out given lambda_i; drawn afterwards (_draw_delta)
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


def add_dataset_log_likelihood(idata, data: _Data, bounds=None, population="student_t"):
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
    lo, hi = _limits(data, bounds)["sigma"]
    integrated = integrated_log_likelihood(xbar, ss, data.n, data.rho, d0, s0, nu, (lo, hi)) - jacobian
    dims = ("chain", "draw", "dataset")
    idata["log_likelihood"] = xr.Dataset({"by_dataset": (dims, integrated.reshape(shape + (-1,))),
                                          "by_dataset_conditional": (dims, conditional)},
                                         coords={"chain": post.chain.values, "draw": post.draw.values,
                                                 "dataset": data.names})
    return idata


def add_log_prior(idata, model):
    """``idata`` with the log prior densities of ``model``'s population-level parameters (its free variables
    without a ``dataset`` dimension: delta0, sigma0 and nu's) in its ``log_prior`` group, per draw, for power-scaling
    prior sensitivity (``az.psense_summary``). The delta_i and sigma_i are left out: power-scaling the population
    itself would change the model, not its prior.

    >>> x = np.random.default_rng(0).normal(0.02, 0.02, (4, 10))
    >>> res = hierarchical_test(x, folds=10, method="exact", draws=100, chains=2, random_seed=1)
    >>> sorted(res.idata.log_prior.data_vars)
    ['delta0_scaled', 'nu_minus_one', 'sigma0_scaled']
    """
    top = [rv.name for rv in model.free_RVs if "dataset" not in (model.named_vars_to_dims.get(rv.name) or ())]
    post = idata.posterior
    if "nu_minus_one" in top and "nu_minus_one" not in post:  # the exact posterior's draws carry nu
        idata["posterior"] = post.to_dataset().assign(nu_minus_one=post["nu"] - 1)
    with compilation_settings():  # the function it compiles writes its generated source where sample's do
        idata["log_prior"] = pm.stats.compute_log_prior(idata, var_names=top, model=model, extend_inferencedata=False,
                                                        progressbar=False)
    return idata


def nu_log_prior(x, alpha=PRIORS["current"]["alpha"], beta=PRIORS["current"]["beta"], nodes=NU_NODES):
    """The log density of nu - 1 = x when nu - 1 ~ Gamma(a, rate b) with a ~ U(alpha), b ~ U(beta).

    The sampler gets nu - 1 with a and b integrated out (a and b, barely informed by the data, made nu mix
    slowly): over b in closed form, int Gamma(x; a, b) db = a x^-2 [P(a + 1, b2 x) - P(a + 1, b1 x)], P the
    regularised lower incomplete gamma function (its upper complement where that is the accurate one);
    over a by ``nodes``-point Gauss-Legendre (relative error below 1e-6). ``x`` is a PyTensor tensor.

    >>> import pytensor.tensor as pt
    >>> from scipy import integrate, stats
    >>> exact = integrate.dblquad(lambda b, a: stats.gamma.pdf(3.0, a, scale=1 / b), 0.5, 5, 0.05, 0.15)[0] / 0.45
    >>> bool(np.isclose(np.exp(nu_log_prior(pt.as_tensor(3.0)).eval()), exact, rtol=1e-6))
    True
    """
    (a1, a2), (b1, b2) = alpha, beta
    nodes, weights = np.polynomial.legendre.leggauss(nodes)
    a = ((a1 + a2) / 2 + (a2 - a1) / 2 * nodes).reshape((-1,) + (1,) * x.ndim)
    weights = (weights / 2).reshape(a.shape)  # the mean over a of the integral over b
    lower = pt.gammainc(a + 1, b2 * x) - pt.gammainc(a + 1, b1 * x)
    upper = pt.gammaincc(a + 1, b1 * x) - pt.gammaincc(a + 1, b2 * x)
    inner = pt.switch(b1 * x > a + 1, upper, lower)
    return pt.log(pt.sum(weights * a * inner, axis=0)) - 2 * pt.log(x) - np.log(b2 - b1)


def _nu(priors):
    """nu under the prior named ``priors`` (:data:`NU_PRIORS`), as the Deterministic ``nu``; call inside a model."""
    if isinstance(priors, Mapping) or priors in PRIORS:
        return pm.Deterministic("nu", _nu_minus_one(_hyper(priors)) + 1)
    if priors == "kruschke":
        return pm.Deterministic("nu", pm.Exponential("nu_minus_one", lam=1 / 29) + 1)
    return pm.Deterministic("nu", pm.Gamma("nu_gamma", alpha=2.0, beta=0.1))  # juarez_steel: nu itself, > 0


def _hyper(priors) -> dict:
    """The bounds of alpha and beta of nu - 1 ~ Gamma(alpha, beta): ``PRIORS[priors]``, or ``priors`` itself."""
    return {key: tuple(float(v) for v in priors[key]) for key in ("alpha", "beta")} if isinstance(priors, Mapping) \
        else PRIORS[priors]


def _nu_minus_one(hyper):
    """nu - 1 with its hyperprior integrated out (:func:`nu_log_prior`); prior draws go through a and b."""
    def random(size=None, rng=None):
        a, b = (rng.uniform(*hyper[key], size=size) for key in ("alpha", "beta"))
        return rng.gamma(a, 1 / b, size=size)

    return pm.CustomDist("nu_minus_one", logp=lambda value: nu_log_prior(value, hyper["alpha"], hyper["beta"]),
                         random=random, support_point=lambda rv, size: pt.as_tensor(20.0),
                         transform=pm.distributions.transforms.log, signature="->()")


def _check_form(form):
    if not isinstance(form, str) or form not in FORMS:
        raise ValueError(f"form must be one of {list(FORMS)}, got {form!r}")


def _draw_delta(idata, data: _Data, random_seed):
    """Add delta_i (``delta_scaled``, ``delta``) and W to the posterior of the marginal form: per draw, delta_i
    from its exact conditional normal given delta0, sigma0, lambda_i, sigma_i and xbar_i (precision
    lambda_i / sigma0^2 + 1 / (sigma_i^2 c_i))."""
    post = idata.posterior
    rng = as_generator(random_seed)
    d0, s0 = post["delta0_scaled"].values[..., None], post["sigma0_scaled"].values[..., None]
    sigma = post["sigma_scaled"].values
    lam = post["lambda"].values if "lambda" in post else np.ones_like(sigma)  # the normal population: lambda_i = 1
    xbar = data.mean / data.scale
    prior_precision, data_precision = lam / s0**2, 1 / (sigma**2 * _c(data))
    precision = prior_precision + data_precision
    mean = (d0 * prior_precision + xbar * data_precision) / precision
    delta = mean + rng.standard_normal(mean.shape) / np.sqrt(precision)
    dims = ("chain", "draw", "dataset")
    post = post.to_dataset().assign(delta_scaled=(dims, delta), delta=(dims, delta * data.scale),
                                    W=(("chain", "draw"), (delta > 0).sum(axis=-1)))
    idata["posterior"] = post
    return idata


@dataclass(frozen=True, repr=False)
class HierarchicalResult:
    """Posterior of the hierarchical model, in the original units of the scores.

    ``convergence_problems`` holds what :func:`diagnose` found in the last fit (empty: converged), and
    ``attempts`` the settings of each fit (see :func:`hierarchical_test`). An unconverged result keeps its
    draws for inspection, but its summary (``repr``) gives the diagnostics instead of a verdict.
    """

    idata: object
    data: _Data
    rope: tuple[float, float]
    names: tuple[str, str]
    independent: object
    convergence_problems: tuple[str, ...] = ()
    attempts: tuple[dict, ...] = ()
    model: object = None  # the pm.Model of the last fit (the centred form's for the exact posterior)
    priors: str = "current"  # the variant (see hierarchical_model)
    population: str = "student_t"
    bounds: object = None  # the prior limits the caller fixed (see hierarchical_model)

    def with_log_likelihood(self) -> HierarchicalResult:
        """This result, its ``idata`` now holding the per-data-set log-likelihoods ``by_dataset`` (integrated) and
        ``by_dataset_conditional`` (:func:`add_dataset_log_likelihood`), computed unless already there.

        >>> x = np.random.default_rng(0).normal(0.02, 0.02, (4, 10))
        >>> res = hierarchical_test(x, folds=10, method="exact", draws=100, chains=2, random_seed=1)
        >>> "log_likelihood" in res.idata.children, res.with_log_likelihood().idata.log_likelihood["by_dataset"].shape
        (False, (2, 100, 4))
        """
        if "log_likelihood" not in self.idata.children:
            add_dataset_log_likelihood(self.idata, self.data, self.bounds, self.population)
        return self

    @property
    def converged(self) -> bool:
        return not self.convergence_problems

    @property
    def method(self) -> str:
        """``"mcmc"``, or ``"exact"`` when the draws come from the exact posterior (see :func:`hierarchical_test`)."""
        return "exact" if self.attempts and self.attempts[-1].get("method") == "exact quadrature" else "mcmc"

    @property
    def delta0(self) -> np.ndarray:
        return self.idata.posterior["delta0"].values.ravel()

    @property
    def p_delta0_positive(self) -> float:
        return float(np.mean(self.delta0 > 0))

    def datasets(self, confidence_level=0.95, rope=None) -> pd.DataFrame:
        """Each data set's shrunk delta_i (mean, interval, rope probabilities) next to its independent estimate;
        ``rope`` (a half-width or a pair; the fit's if None) changes the regions, not the posterior."""
        delta = self.idata.posterior["delta"].stack(sample=("chain", "draw")).transpose("dataset", "sample").values
        rope = self._rope(rope)
        lo, hi = rope
        independent = self.independent if rope == self.rope else self.independent.with_rope(rope)
        tail = (1 - confidence_level) / 2
        a, b = self.names
        frame = pd.DataFrame({
            "hier. mean": delta.mean(axis=1), "hier. lo": np.quantile(delta, tail, axis=1),
            "hier. hi": np.quantile(delta, 1 - tail, axis=1), f"hier. P({a} better)": (delta < lo).mean(axis=1),
            "hier. P(rope)": ((delta >= lo) & (delta <= hi)).mean(axis=1),
            f"hier. P({b} better)": (delta > hi).mean(axis=1),
            "indep. mean": independent.mean, f"indep. P({a} better)": independent.p_left,
            "indep. P(rope)": independent.p_rope, f"indep. P({b} better)": independent.p_right,
        }, index=pd.Index(self.data.names, name="dataset"))
        return frame

    def to_frame(self, confidence_level=0.95, rope=None) -> pd.DataFrame:
        """One row per data set, columns ``a, b, dataset`` and the hierarchical (``hier_*``: mean, interval,
        ``p_left`` = P(A better), ``p_rope``, ``p_right`` = P(B better)) and independent (``indep_*``) estimates;
        the names do not depend on the algorithms', so frames of several pairs stack.

        >>> import numpy as np
        >>> x = np.random.default_rng(0).normal(0.02, 0.02, (3, 10))
        >>> res = hierarchical_test(x, folds=10, draws=200, tune=200, chains=2, random_seed=1, names=("j48", "nbc"),
        ...                         retry=False)
        >>> res.to_frame().iloc[0, :5].tolist()[:3], list(res.to_frame().columns)[3:5]
        (['j48', 'nbc', 'D1'], ['hier_mean', 'hier_lower'])
        """
        table = self.datasets(confidence_level, rope)
        table.columns = ["hier_mean", "hier_lower", "hier_upper", "hier_p_left", "hier_p_rope", "hier_p_right",
                         "indep_mean", "indep_p_left", "indep_p_rope", "indep_p_right"]
        table = table.reset_index()
        table["converged"] = self.converged
        table.insert(0, "b", self.names[1])
        table.insert(0, "a", self.names[0])
        return table

    def to_dict(self, confidence_level=0.95, rope=None) -> dict:
        """Plain Python values (NaN as None): the algorithms, rope, delta0 (mean, interval, P(delta0 > 0)), a new
        data set's probabilities (``p_*`` posterior means, ``win_*`` shares of draws where the region is
        largest), the convergence problems and one record per data set as in :meth:`to_frame`.

        >>> import numpy as np
        >>> x = np.random.default_rng(0).normal(0.02, 0.02, (3, 10))
        >>> res = hierarchical_test(x, folds=10, draws=200, tune=200, chains=2, random_seed=1, retry=False)
        >>> summary = res.to_dict()
        >>> summary["n_datasets"], summary["datasets"][0]["dataset"], type(summary["p_delta0_positive"])
        (3, 'D1', <class 'float'>)
        """
        check_probability_level("confidence_level", confidence_level)
        tail = (1 - confidence_level) / 2
        lower, upper = np.quantile(self.delta0, [tail, 1 - tail])
        new = self.new_dataset(rope)
        records = self.to_frame(confidence_level, rope).drop(columns=["a", "b", "converged"]).to_dict(orient="records")
        result = {"test": "hierarchical", "a": self.names[0], "b": self.names[1], "rope": list(self._rope(rope)),
                  "n_datasets": len(self.data.names), "confidence_level": confidence_level,
                  "delta0_mean": self.delta0.mean(), "delta0_lower": lower, "delta0_upper": upper,
                  "p_delta0_positive": self.p_delta0_positive,
                  **{f"{kind}_{region}": getattr(new, f"{kind}_{region}")
                     for kind in ("p", "win") for region in ("left", "rope", "right")},
                  "converged": self.converged, "convergence_problems": list(self.convergence_problems),
                  "attempts": [dict(a) for a in self.attempts], "datasets": records}
        return _plain(result)

    def new_dataset(self, rope=None) -> RegionProbabilities:
        """P(A better), P(rope), P(B better) on a new data set, delta_new ~ t_nu(delta0, sigma0), per draw;
        ``rope`` (a half-width or a pair; the fit's if None) changes the regions, not the posterior.

        ``p_*`` are their posterior means, ``win_*`` the share of draws in which each region is largest
        (ties shared equally between the tied regions). They differ when the posterior is unsure which region
        dominates: p_* averages the probabilities of a new data set, win_* counts the draws in which a region
        is the most probable one, so win_* is the more extreme when the draws agree and splits when they do not.

        >>> x = np.random.default_rng(0).normal(0.02, 0.02, (4, 10))
        >>> res = hierarchical_test(x, folds=10, draws=300, tune=300, chains=2, random_seed=1, retry=False)
        >>> wide, narrow = res.new_dataset(rope=0.1), res.new_dataset(rope=0.001)
        >>> bool(wide.p_rope > narrow.p_rope), wide.rope
        (True, 0.1)
        """
        rope = self._rope(rope)
        post = self.idata.posterior
        d0, s0 = (post[v].values.ravel() for v in ("delta0", "sigma0"))
        nu = post["nu"].values.ravel() if "nu" in post else np.inf  # the normal population: t with nu = inf
        lo, hi = rope
        left = stats.t.cdf((lo - d0) / s0, nu)
        right = stats.t.sf((hi - d0) / s0, nu)
        return RegionProbabilities.from_tails(left, right, "hierarchical model, a new data set", rope, self.names)

    def _rope(self, rope) -> tuple[float, float]:
        """The rope as a pair: ``rope`` (a half-width, a pair, or 0 for none) or the fit's if None."""
        return self.rope if rope is None else (as_rope(rope) or (0.0, 0.0))

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
                                            "sd": ("dataset", self.data.sd)},
                                           coords={"dataset": self.data.names})
        return tree

    def summary(self, allow_unconverged=False) -> str:
        """The verdict in words (the ``repr``): delta0 and a new data set's probabilities. An unconverged
        result gives its diagnostics instead, or with ``allow_unconverged=True`` the numbers under a
        NOT CONVERGED line.

        >>> import numpy as np
        >>> x = np.random.default_rng(0).normal(0.02, 0.02, (3, 10))
        >>> res = hierarchical_test(x, folds=10, draws=300, tune=300, chains=2, random_seed=1, retry=False)
        >>> res.summary().splitlines()[0]
        'Hierarchical model, B - A on 3 data sets, rope (-0.01, 0.01)'
        """
        a, b = self.names
        lines = [f"Hierarchical model, {b} - {a} on {len(self.data.names)} data sets, rope {self.rope}"]
        if not self.converged:
            lines += _unconverged_lines(self.attempts, self.convergence_problems, allow_unconverged)
            if not allow_unconverged:
                return "\n".join(lines)
        if self.method == "exact":
            failed = len(self.attempts) - 1
            lines.append(f"  posterior by exact quadrature (estimated error {self.attempts[-1]['max_error']:.1g})"
                         + (f", as {failed} MCMC fit(s) did not converge" if failed else ""))
        new = self.new_dataset()
        lo, hi = np.quantile(self.delta0, [0.025, 0.975])
        lines += [f"  delta0 (mean difference in the population of data sets): mean {self.delta0.mean():+.4f}, "
                  f"95% [{lo:+.4f}, {hi:+.4f}], P(delta0 > 0) = {self.p_delta0_positive:.3f}",
                  f"  a new data set, posterior mean:   P({a} better) = {new.p_left:.3f}  P(rope) = {new.p_rope:.3f}"
                  f"  P({b} better) = {new.p_right:.3f}",
                  f"  a new data set, P(region largest): {a} {new.win_left:.3f}  rope {new.win_rope:.3f}  "
                  f"{b} {new.win_right:.3f}  (ties shared)"]
        return "\n".join(lines)

    def __repr__(self):
        return self.summary()


def _plain(value):
    """``value`` with numpy scalars and arrays as Python values and NaN as None, recursively (JSON-ready)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def check_convergence(idata, var_names=CHECKED, *, max_rhat=1.01, min_ess=400) -> list[str]:
    """:func:`diagnose`, with a ``ConvergenceWarning`` naming the problems when there are any.

    >>> import arviz as az
    >>> rng = np.random.default_rng(0)
    >>> idata = az.from_dict({"posterior": {"delta0": rng.normal(size=(4, 500))},
    ...                       "sample_stats": {"diverging": np.zeros((4, 500), dtype=bool)}})
    >>> check_convergence(idata, var_names=["delta0"])
    []
    """
    problems = diagnose(idata, var_names, max_rhat=max_rhat, min_ess=min_ess)
    if problems:
        warnings.warn("; ".join(problems), ConvergenceWarning, stacklevel=2)
    return problems


def hierarchical_test(x, y=None, *, rope=0.01, rho=None, n_test=None, n_train=None, folds=None, runs=None,
                      priors="current", form=None, scale=None, bounds=None, algorithms=None, names=None, draws=None,
                      tune=None, chains=4, random_seed=None, sampler="pymc", target_accept=None, retry=True,
                      method="auto", progressbar=False, population="student_t", delta0_prior=None,
                      log_likelihood=False) -> HierarchicalResult:
    """Fit the hierarchical model to per-fold differences B - A of q data sets and summarise it.

    ``x`` is a scores Dataset (with ``algorithms``), ``(q, n)`` differences, or the scores of A with ``y``
    those of B; rho as for :func:`pp_corr.correlated_ttest` (``rho``, ``n_test`` with ``n_train``, ``folds``, or
    ``runs`` for arrays). ``rope`` defaults to 0.01, one point on scores in [0, 1] such as accuracies: a verdict
    over data sets needs a rope, or two near-identical algorithms are never found equivalent (give the rope
    in your scores' units). ``priors``, ``population``, ``delta0_prior``, ``form``, ``scale`` and ``bounds`` are
    those of :func:`hierarchical_model` (only the Student-t population with the uniform delta0 and the hyperpriors of
    nu has an exact posterior: the other variants have no ``method="exact"``, and ``"auto"`` acts as ``"mcmc"``).
    ``draws``, ``tune`` (per chain) and ``chains`` are whole numbers >= 1, ``target_accept`` is in (0, 1),
    ``sampler`` is ``"pymc"`` or ``"nutpie"``; every argument is checked before any work. ``form``,
    ``draws``, ``tune`` and ``target_accept`` left as None take the defaults (:data:`DEFAULT`). A fixed
    ``random_seed`` gives the same draws whether or not PyTensor's compilation cache is warm; the progress
    bar (``progressbar=True``) goes to stderr. Fits with as many data sets (and the same form, priors, population
    and sampler) share one compiled model, whatever their data: with nutpie only the first waits for the compilation
    (:func:`pp_corr.hierarchical.batch.hierarchical_tests` fits many pairs).

    Convergence policy: R-hat <= 1.01 and bulk ESS >= 400 for delta0, sigma0, nu and every delta_i, and no
    divergences. When the fit fails them and ``retry`` is true, the model is fitted once more with the
    robust settings (:data:`ROBUST`, for what the caller did not set). If that fails too, ``method``
    decides: ``"auto"`` (default) computes the posterior exactly instead, by deterministic quadrature
    (:mod:`pp_corr.hierarchical.exact`: sigma_i integrated in closed form, delta_i in one dimension, a grid
    over delta0, sigma0 and nu; about three decimals; tens of seconds at q = 50), and the result holds
    ``chains x draws`` independent draws from it; ``"mcmc"`` gives a result with ``converged = False`` and
    ``convergence_problems``, a ``ConvergenceWarning`` says so, and its summary shows the diagnostics instead
    of a verdict. ``retry=False`` fits once and stops there (no retry, no exact fallback); ``method="exact"``
    skips MCMC. ``attempts`` records the settings of each fit (the exact computation as
    ``{"method": "exact quadrature", ...}`` with its estimated error ``max_error``).

    The DataTree (``idata``) holds the population-level log priors (:func:`add_log_prior`, for
    ``az.psense_summary``) and, with ``log_likelihood=True`` (or later :meth:`HierarchicalResult.with_log_likelihood`),
    the per-data-set log-likelihoods (:func:`add_dataset_log_likelihood`: ``az.loo(res.idata, var_name="by_dataset")``
    is leave-one-data-set-out). They are left out by default, as in PyMC, because integrating each data set's
    parameters out costs about 5 ms per draw at q = 54 (20 s for 4000 draws, as long as the fit).

    >>> import numpy as np
    >>> rng = np.random.default_rng(1)  # 8 data sets, each with its own level, 10 folds
    >>> x = rng.normal(0.02, 0.02, (8, 10)) + rng.normal(0, 0.02, (8, 1))
    >>> res = hierarchical_test(x, folds=10, random_seed=1)
    >>> res.converged, bool(res.p_delta0_positive > 0.9)
    (True, True)
    """
    chains, given = check_fit_settings(_check_form, form=form, draws=draws, tune=tune, target_accept=target_accept,
                                       chains=chains, sampler=sampler, random_seed=random_seed)
    check_method(method)
    check_flag("log_likelihood", log_likelihood)
    _check_variant(priors, population, delta0_prior)
    exact_known = (isinstance(priors, Mapping) or priors in PRIORS) and population == "student_t" and \
        delta0_prior is None
    if method == "exact" and not exact_known:
        raise ValueError(f"method: 'exact' needs the Student-t population, delta0's uniform prior and priors in "
                         f"{list(PRIORS)} (or their bounds), got population={population!r}, priors={priors!r}"
                         f"{', a delta0_prior' if delta0_prior is not None else ''}")
    bounds = _check_bounds(bounds)
    rope = as_rope(rope) or (0.0, 0.0)
    if isinstance(x, xr.Dataset):
        pick_algorithms(x, algorithms, y)
    elif y is not None:
        x = b_minus_a(x, y)
    data = _prepare(x, rho, n_test, n_train, folds, algorithms, scale, runs)
    if isinstance(x, xr.Dataset):
        names = names or pick_algorithms(x, algorithms)
    names = tuple(names or ("A", "B"))
    with warnings.catch_warnings():  # the independent analysis is shown beside the model, point masses and all
        warnings.simplefilter("ignore", DegenerateWarning)
        independent = correlated_ttest(x, rho=data.rho, rope=rope, algorithms=algorithms, names=names)
    def fit(settings):
        return _fit(data, priors, bounds, settings, chains=chains, random_seed=random_seed, sampler=sampler,
                    progressbar=progressbar, population=population, delta0_prior=delta0_prior)

    def exact():
        return _exact_fit(data, priors, bounds, rope, chains=chains, draws={**DEFAULT, **given}["draws"],
                          random_seed=random_seed)

    if method == "exact":
        idata, note = exact()
        problems, attempts = (), (note,)
    else:
        checked = [v for v in CHECKED if v != "nu" or population == "student_t"]
        idata, problems, attempts = fit_with_policy(fit, [DEFAULT, ROBUST], given, retry=retry,
                                                    progressbar=progressbar, var_names=checked,
                                                    fallback=exact if method == "auto" and retry and exact_known
                                                    else None)
    # the model of the draws: the last fit's form, the centred one for the exact posterior (whose draws have no lambda)
    model = _build(data, priors, attempts[-1].get("form", DEFAULT["form"]), bounds, population, delta0_prior)
    result = HierarchicalResult(add_log_prior(idata, model), data, rope, names, independent, problems, attempts, model,
                                priors, population, bounds)
    return result.with_log_likelihood() if log_likelihood else result


def _exact_fit(data: _Data, priors, bounds, rope, *, chains, draws, random_seed):
    """Independent draws from the exact posterior (:mod:`pp_corr.hierarchical.exact`, deterministic quadrature)
    as a DataTree shaped like a fit's, and the note recorded in ``attempts``."""
    s = np.float64(data.scale)
    limits = _limits(data, bounds)
    lo, hi = limits["sigma"]
    post, values = exact_draws(data.mean / s, data.ss(s), data.n, data.rho, delta0_max=limits["delta0"],
                               sigma0_max=limits["sigma0"], sigma_bounds=tuple(np.broadcast_arrays(lo, hi)),
                               alpha=_hyper(priors)["alpha"], beta=_hyper(priors)["beta"],
                               rope=(rope[0] / s, rope[1] / s), draws=chains * draws, random_seed=random_seed)
    shaped = {name: np.asarray(values[name]).reshape((chains, draws) + np.shape(values[name])[1:])
              for name in ("delta0", "sigma0", "nu", "delta", "sigma")}
    delta = shaped["delta"]
    posterior = {"delta0_scaled": shaped["delta0"], "sigma0_scaled": shaped["sigma0"], "nu": shaped["nu"],
                 "sigma_scaled": shaped["sigma"], "delta_scaled": delta, "delta0": shaped["delta0"] * s,
                 "sigma0": shaped["sigma0"] * s, "delta": delta * s, "W": (delta > 0).sum(axis=-1)}
    dims = {name: ["dataset"] for name in ("sigma_scaled", "delta_scaled", "delta")}
    idata = az.from_dict({"posterior": posterior,
                          "sample_stats": {"diverging": np.zeros((chains, draws), dtype=bool)}},
                         dims=dims, coords={"dataset": data.names})
    return idata, {"method": "exact quadrature", "draws": chains * draws, "max_error": float(post.max_error)}


def check_fit_settings(check_form, *, form, draws, tune, target_accept, chains, sampler, random_seed):
    """Check the sampling arguments of a test (``check_form`` checks its ``form``); returns ``chains`` and the
    settings the caller gave (those not None), for :func:`fit_with_policy`.

    >>> check_fit_settings(_check_form, form=None, draws=500, tune=None, target_accept=None, chains=2,
    ...                    sampler="pymc", random_seed=1)
    (2, {'draws': 500})
    """
    chains = check_count("chains", chains)
    given = {"form": form, "draws": draws, "tune": tune, "target_accept": target_accept}
    given = {key: value for key, value in given.items() if value is not None}
    for key in ("draws", "tune"):
        if key in given:
            check_count(key, given[key])
    if "target_accept" in given:
        check_probability_level("target_accept", target_accept)
    if "form" in given:
        check_form(form)
    check_sampler(sampler)
    if random_seed is not None:
        as_generator(random_seed)  # the check only: PyMC takes the seed itself
    return chains, given


def fit_with_policy(fit, settings, given, *, retry=True, progressbar=False, var_names=CHECKED,
                    what="the hierarchical model", fallback=None):
    """The convergence policy: ``fit(settings[0] | given)``, then once more with ``settings[1] | given`` when
    :func:`diagnose` finds problems in ``var_names`` and ``retry`` is true (and the second differs from the
    first). When the last attempt failed too: ``fallback()`` (a DataTree that needs no diagnostics and the
    note recorded in the attempts) if given, otherwise a ``ConvergenceWarning``. Returns the DataTree, its
    problems and the settings of each attempt.

    >>> import arviz as az
    >>> rng = np.random.default_rng(0)
    >>> def fit(settings):  # a stand-in for a sampler: chains disagree unless draws are many
    ...     shift = 0.0 if settings["draws"] > 1000 else np.arange(4)[:, None]
    ...     return az.from_dict({"posterior": {"delta0": rng.normal(size=(4, 500)) + shift},
    ...                          "sample_stats": {"diverging": np.zeros((4, 500), dtype=bool)}})
    >>> idata, problems, attempts = fit_with_policy(fit, [{"draws": 500}, {"draws": 2000}], {}, var_names=["delta0"])
    >>> problems, attempts
    ((), ({'draws': 500}, {'draws': 2000}))
    """
    attempts = [{**settings[0], **given}]
    if retry and {**settings[1], **given} != attempts[0]:  # nothing to retry when the caller set every setting
        attempts.append({**settings[1], **given})
    for number, chosen in enumerate(attempts, start=1):
        if progressbar and number == 2:
            print(f"not converged ({_summary(problems)}): fitting again with {_describe(chosen)}", file=sys.stderr)
        idata = fit(chosen)
        problems = diagnose(idata, var_names)
        if not problems:
            break
    attempts = attempts[:number]
    if problems and fallback is not None:
        if progressbar:
            print(f"not converged ({_summary(problems)}): computing the exact posterior instead", file=sys.stderr)
        idata, note = fallback()
        return idata, (), (*attempts, note)
    if problems:
        warnings.warn(f"{what} did not converge ({len(attempts)} attempt(s), last with "
                      f"{_describe(attempts[-1])}): {_summary(problems)}. The result gives no verdict.",
                      ConvergenceWarning, stacklevel=3)
    return idata, tuple(problems), tuple(attempts)


def _fit(data, priors, bounds, settings, *, chains, random_seed, sampler, progressbar, population="student_t",
         delta0_prior=None):
    """Sample the model with ``settings`` (form, draws, tune, target_accept): the compiled model of this shape
    (:func:`_refittable`) with ``data``'s values."""
    form = settings["form"]
    refit = _refittable(data, priors, form, bounds, population, delta0_prior, sampler)
    idata = refit.fit(_model_values(data, bounds), coords={"dataset": data.names},
                      initvals=_start(data, _limits(data, bounds), form), draws=settings["draws"],
                      tune=settings["tune"], chains=chains, random_seed=random_seed, progressbar=progressbar,
                      target_accept=settings["target_accept"])
    return _draw_delta(idata, data, random_seed) if form == "marginal" else idata


def _refittable(data, priors, form, bounds, population, delta0_prior, sampler) -> RefittableModel:
    """The model of ``form``, ``priors``, ``population`` and ``delta0_prior`` (by identity) for ``len(data.names)``
    data sets, compiled for ``sampler`` once (built on ``data`` the first time) and kept for every later fit of that
    shape, whatever its data, unit and limits (:func:`_model_values`): the last :data:`COMPILED_MODELS` of them."""
    key = (len(data.names), _priors_key(priors), form, population, delta0_prior, sampler)
    if key not in _COMPILED:
        model = _build(data, priors, form, bounds, population, delta0_prior)
        q = (len(data.names),)
        start = {"delta0_scaled": (), "sigma0_scaled": (), "sigma_scaled": q,
                 **({"delta_scaled": q} if form == "centered" else {"z": q} if form == "noncentered" else {})}
        _COMPILED[key] = RefittableModel(model, start, sampler=sampler)
        while len(_COMPILED) > COMPILED_MODELS:
            _COMPILED.pop(next(iter(_COMPILED)))
    _COMPILED[key] = _COMPILED.pop(key)  # the most recently used last
    return _COMPILED[key]


def _priors_key(priors):
    """``priors`` as a dictionary key: its name, or its hyperprior bounds."""
    return tuple(sorted(_hyper(priors).items())) if isinstance(priors, Mapping) else priors


def _unconverged_lines(attempts, problems, allow_unconverged) -> list[str]:
    """A summary's NOT CONVERGED lines: the attempts and the problems found."""
    tried = "; ".join(_describe(settings) for settings in attempts)
    return [f"  NOT CONVERGED{'' if allow_unconverged else ', no verdict'} ({len(attempts)} attempt(s): {tried})",
            f"  {len(problems)} problem(s): {_summary(problems)}"]


def _describe(settings) -> str:
    return ", ".join(f"{key}={value!r}" for key, value in settings.items())


def _summary(problems, shown=4) -> str:
    """The first few problems, and how many more."""
    more = len(problems) - shown
    return "; ".join(problems[:shown]) + (f"; and {more} more" if more > 0 else "")
