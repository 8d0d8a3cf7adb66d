"""The priors of the hierarchical models (:mod:`.model`, and :mod:`.joint` per coordinate) and the checks of the
arguments that choose them: the named priors of nu (:data:`NU_PRIORS`, the one table a prior is added to), the
populations of the delta_i (the joint model's Student-t as a normal scale mixture, its weights sampled standardised:
:func:`standardised_mixing`), and the prior limits a caller may fix (``bounds``).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import pymc as pm
import pytensor.tensor as pt
from scipy import stats

from .._args import check_real


@dataclass(frozen=True)
class NuPrior:
    """A prior of nu by name (an entry of :data:`NU_PRIORS`), as the models need it.

    ``hyper``: ``{"alpha": (a1, a2), "beta": (b1, b2)}`` when nu - 1 ~ Gamma(alpha, rate beta) with alpha ~ U(a1,
    a2) and beta ~ U(b1, b2): the PyMC models integrate alpha and beta out (:func:`integrated_nu_minus_one`), the
    exact quadrature (:mod:`pp_corr.hierarchical.exact`) and the joint model take it. ``variable``: otherwise, a
    function that returns nu (a PyMC variable, called inside the model), a prior the models sample; with ``law``
    (a frozen scipy.stats law of nu - 1, on x > 0) the quadrature integrates it too.

    >>> NU_PRIORS["current"].hyper["alpha"], NU_PRIORS["kruschke"].hyper is None
    ((0.5, 5.0), True)
    """

    hyper: dict | None = None
    variable: Callable | None = None
    law: object = None

    def nu(self):
        """nu under this prior, as a PyMC variable; call inside a model.

        >>> with pm.Model() as model:
        ...     nu = NU_PRIORS["kruschke"].nu()
        >>> [v.name for v in model.free_RVs]
        ['nu_minus_one']
        """
        return integrated_nu_minus_one(self.hyper) + 1 if self.hyper is not None else self.variable()


def _gamma(alpha, beta) -> NuPrior:
    return NuPrior(hyper={"alpha": alpha, "beta": beta})


NU_PRIORS = {  # the priors of nu by name: nu - 1 ~ Gamma(alpha, beta), alpha and beta uniform ("current", "older");
    # Kruschke's nu - 1 ~ Exponential(rate 1/29) (mean 30); Juarez and Steel's nu ~ Gamma(2, rate 0.1) (mode 10)
    "current": _gamma((0.5, 5.0), (0.05, 0.15)),
    "older": _gamma((1.0, 2.0), (0.01, 0.1)),
    "kruschke": NuPrior(variable=lambda: pm.Exponential("nu_minus_one", lam=1 / 29) + 1, law=stats.expon(scale=29)),
    "juarez_steel": NuPrior(variable=lambda: pm.Gamma("nu_gamma", alpha=2.0, beta=0.1)),  # nu itself, > 0
}
POPULATIONS = ("student_t", "normal")  # the population of the delta_i: t_nu(delta0, sigma0) or N(delta0, sigma0)
NU_NODES = 24  # Gauss-Legendre points of the integral over nu's hyperparameter a (nu_log_prior)


def quadrature_prior(priors) -> dict | None:
    """The arguments of the exact quadrature (:func:`pp_corr.hierarchical.exact.exact_posterior`) for the prior of nu
    ``priors`` (a name of :data:`NU_PRIORS` or hyperprior bounds): ``alpha`` and ``beta``, or ``nu_distribution``;
    None for a prior it cannot integrate (nu may fall below 1 under Juarez and Steel's).

    >>> quadrature_prior("older"), quadrature_prior("juarez_steel")
    ({'alpha': (1.0, 2.0), 'beta': (0.01, 0.1)}, None)
    >>> float(quadrature_prior("kruschke")["nu_distribution"].mean())
    29.0
    """
    if isinstance(priors, Mapping) or NU_PRIORS[priors].hyper is not None:
        return hyperprior_bounds(priors)
    law = NU_PRIORS[priors].law
    return None if law is None else {"nu_distribution": law}


def hyperprior_names() -> list[str]:
    """The priors of :data:`NU_PRIORS` with nu's Gamma hyperpriors: those the exact quadrature and the joint model
    take.

    >>> hyperprior_names()
    ['current', 'older']
    """
    return [name for name, prior in NU_PRIORS.items() if prior.hyper is not None]


def check_hyperprior_name(priors):
    """``priors`` one of :func:`hyperprior_names` (the joint model's choice: nu's Gamma with uniform hyperpriors).

    >>> check_hyperprior_name("kruschke")
    Traceback (most recent call last):
    ...
    ValueError: priors must be one of ['current', 'older'], got 'kruschke'
    """
    if not isinstance(priors, str):
        raise TypeError(f"priors must be one of {hyperprior_names()}, got {type(priors).__name__} {priors!r}")
    if priors not in hyperprior_names():
        raise ValueError(f"priors must be one of {hyperprior_names()}, got {priors!r}")


def check_variant(priors, population, delta0_prior=None):
    """``priors`` a name of :data:`NU_PRIORS` or hyperprior bounds ``{"alpha": (a1, a2), "beta": (b1, b2)}``, and
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


def nu_log_prior(x, alpha=NU_PRIORS["current"].hyper["alpha"], beta=NU_PRIORS["current"].hyper["beta"],
                 nodes=NU_NODES):
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
    """nu under the prior ``priors`` (a name of :data:`NU_PRIORS`, or hyperprior bounds), as the Deterministic
    ``nu``; call inside a model."""
    prior = NuPrior(hyper=hyperprior_bounds(priors)) if isinstance(priors, Mapping) else NU_PRIORS[priors]
    return pm.Deterministic("nu", prior.nu())


def hyperprior_bounds(priors) -> dict:
    """The bounds of alpha and beta of nu - 1 ~ Gamma(alpha, beta): those of the prior named ``priors``
    (:func:`hyperprior_names`), or ``priors`` itself.

    >>> hyperprior_bounds("older"), hyperprior_bounds({"alpha": [1, 2], "beta": [0.1, 0.2]})["alpha"]
    ({'alpha': (1.0, 2.0), 'beta': (0.01, 0.1)}, (1.0, 2.0))
    """
    return {key: tuple(float(v) for v in priors[key]) for key in ("alpha", "beta")} if isinstance(priors, Mapping) \
        else NU_PRIORS[priors].hyper


def integrated_nu_minus_one(hyper):
    """nu - 1 with its hyperprior integrated out (:func:`nu_log_prior`); prior draws go through a and b."""
    def random(size=None, rng=None):
        a, b = (rng.uniform(*hyper[key], size=size) for key in ("alpha", "beta"))
        return rng.gamma(a, 1 / b, size=size)

    return pm.CustomDist("nu_minus_one", logp=lambda value: nu_log_prior(value, hyper["alpha"], hyper["beta"]),
                         random=random, support_point=lambda rv, size: pt.as_tensor(20.0),
                         transform=pm.distributions.transforms.log, signature="->()")


def standardised_mixing(nu):
    """lambda_i ~ Gamma(nu/2, rate nu/2) sampled standardised: log lambda_i = m(nu) + s(nu) z_i with m and s^2 about
    the mean and variance of log lambda (digamma(a) - log(a) and trigamma(a), a = nu/2, by their series -1/2a -
    1/12a^2 and 1/a + 1/2a^2 + 1/6a^3), so z_i has mean 0 and sd about 1 whatever nu. Any smooth m and s keep the
    model exact, as the density of z_i is the log-gamma density at log lambda_i times s; the series need no
    digamma, whose gradient (trigamma) Numba runs in object mode. Sampled as lambda_i itself, a small nu spreads
    the lambda_i and a large one pins them near 1: a funnel with nu.

    >>> with pm.Model(coords={"dataset": range(3)}):
    ...     lam = standardised_mixing(pt.constant(4.0))
    >>> lam.name, lam.eval({"lambda_standardised": np.zeros(3)}).round(4).tolist()
    ('lambda', [0.7627, 0.7627, 0.7627])
    """
    half = nu / 2
    z = pm.Flat("lambda_standardised", dims="dataset")
    spread = pt.sqrt(1 / half + 1 / (2 * half**2) + 1 / (6 * half**3))
    log_lam = -1 / (2 * half) - 1 / (12 * half**2) + spread * z
    lam = pt.exp(log_lam)
    pm.Potential("lambda_prior", pt.sum(half * pt.log(half) - pt.gammaln(half) + half * log_lam - half * lam
                                        + pt.log(spread)))
    return pm.Deterministic("lambda", lam, dims="dataset")
