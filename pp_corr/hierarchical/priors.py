"""The priors of the hierarchical models (:mod:`.model`, and :mod:`.joint` per coordinate) and the checks of the
arguments that choose them: the named priors of nu and their hyperpriors, the populations of the delta_i, and the
prior limits a caller may fix (``bounds``).
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pymc as pm
import pytensor.tensor as pt

from .._args import check_real

PRIORS = {"current": {"alpha": (0.5, 5.0), "beta": (0.05, 0.15)}, "older": {"alpha": (1.0, 2.0), "beta": (0.01, 0.1)}}
# the priors of nu by name: PRIORS' hyperpriors (nu - 1 ~ Gamma(alpha, beta), alpha and beta uniform), Kruschke's
# nu - 1 ~ Exponential(rate 1/29) (mean 30) and Juarez and Steel's nu ~ Gamma(2, rate 0.1) (mode 10)
NU_PRIORS = (*PRIORS, "kruschke", "juarez_steel")
POPULATIONS = ("student_t", "normal")  # the population of the delta_i: t_nu(delta0, sigma0) or N(delta0, sigma0)
NU_NODES = 24  # Gauss-Legendre points of the integral over nu's hyperparameter a (nu_log_prior)


def check_hyperprior_name(priors):
    """``priors`` one of :data:`PRIORS` by name (the joint model's choice: nu's Gamma with uniform hyperpriors)."""
    if not isinstance(priors, str):
        raise TypeError(f"priors must be one of {list(PRIORS)}, got {type(priors).__name__} {priors!r}")
    if priors not in PRIORS:
        raise ValueError(f"priors must be one of {list(PRIORS)}, got {priors!r}")


def check_variant(priors, population, delta0_prior=None):
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


def check_prior_bounds(bounds) -> dict:
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


def nu_variable(priors):
    """nu under the prior named ``priors`` (:data:`NU_PRIORS`), as the Deterministic ``nu``; call inside a model."""
    if isinstance(priors, Mapping) or priors in PRIORS:
        return pm.Deterministic("nu", integrated_nu_minus_one(hyperprior_bounds(priors)) + 1)
    if priors == "kruschke":
        return pm.Deterministic("nu", pm.Exponential("nu_minus_one", lam=1 / 29) + 1)
    return pm.Deterministic("nu", pm.Gamma("nu_gamma", alpha=2.0, beta=0.1))  # juarez_steel: nu itself, > 0


def hyperprior_bounds(priors) -> dict:
    """The bounds of alpha and beta of nu - 1 ~ Gamma(alpha, beta): ``PRIORS[priors]``, or ``priors`` itself."""
    return {key: tuple(float(v) for v in priors[key]) for key in ("alpha", "beta")} if isinstance(priors, Mapping) \
        else PRIORS[priors]


def integrated_nu_minus_one(hyper):
    """nu - 1 with its hyperprior integrated out (:func:`nu_log_prior`); prior draws go through a and b."""
    def random(size=None, rng=None):
        a, b = (rng.uniform(*hyper[key], size=size) for key in ("alpha", "beta"))
        return rng.gamma(a, 1 / b, size=size)

    return pm.CustomDist("nu_minus_one", logp=lambda value: nu_log_prior(value, hyper["alpha"], hyper["beta"]),
                         random=random, support_point=lambda rv, size: pt.as_tensor(20.0),
                         transform=pm.distributions.transforms.log, signature="->()")
