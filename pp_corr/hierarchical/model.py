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

Fitting it, the convergence policy and the result: :mod:`pp_corr.hierarchical.fit`.
"""
from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pymc as pm
import pytensor
import pytensor.tensor as pt
import xarray as xr
from pymc.distributions.transforms import Interval
from pymc.logprob.transforms import ChainedTransform, ScaleTransform
from pymc.model.transform.conditioning import remove_value_transforms
from pytensor.graph.replace import vectorize_graph

from .._args import as_generator, check_real
from ..pairwise.models import dataset_rows
from ..sampling import compilation_settings, kept
from .dataset_likelihood import integrated_log_likelihood

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
LOG_PRIORS = 8  # compiled log-prior functions kept (add_log_prior), the least recently used dropped
_LOG_PRIORS = {}


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
    - ``"marginal"`` (:func:`~.fit.hierarchical_test`'s retry): delta_i integrated out given lambda_i,
      xbar_i ~ N(delta0, sigma0^2 / lambda_i + sigma_i^2 c_i); :func:`~.fit.hierarchical_test` then draws each
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
    :func:`~.fit.hierarchical_test` starts the chains near the data: with a huge range, the samplers' default start
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
