"""Normal-Gamma prior on (mu, nu = 1/sigma^2) and its exact posterior (Corani & Benavoli 2015, Theorem 2)."""
from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np
from scipy import stats

from .intraclass import SufficientStats, broadcasts_into, power_of_two_scale, real_array


@dataclass(frozen=True)
class NormalGamma:
    """nu ~ Gamma(shape a, rate b); mu | nu ~ Normal(mu0, variance k0 / nu).

    Parameters may be arrays (one distribution per problem). ``NormalGamma.matching()`` is the
    improper prior under which the Bayesian test reproduces the frequentist corrected t-test.
    The parameters must be finite (``k0 = np.inf`` is the flat prior on mu), with k0 > 0, a >= -1/2
    and b >= 0. mu0 is in the units of the differences and b in those units squared.

    >>> prior = NormalGamma(mu0=0.0, k0=1.0, a=2.0, b=0.01)
    >>> stats = SufficientStats.from_samples([0.02, 0.01, 0.03, 0.02], rho=0.25)
    >>> post = prior.update(stats)
    >>> round(float(post.mu_marginal().mean()), 6)
    0.013913
    """

    mu0: float | np.ndarray = 0.0
    k0: float | np.ndarray = 1.0
    a: float | np.ndarray = 1.0
    b: float | np.ndarray = 1.0

    def __post_init__(self):
        mu0, a, b = (real_array(name, getattr(self, name)) for name in ("mu0", "a", "b"))
        k0 = real_array("k0", self.k0, finite=False)
        if np.any(~(k0 > 0)):  # NaN too
            raise ValueError(f"k0 must be > 0 (np.inf for a flat prior on mu), got {self.k0}")
        if np.any(k0 < 1 / np.finfo(float).max):
            raise ValueError(f"k0 must be at least 1 / {np.finfo(float).max:.4g} (its reciprocal is used), "
                             f"got {self.k0}")
        if np.any(b < 0):
            raise ValueError(f"b must be >= 0, got {self.b}")
        if np.any(a < -0.5):
            raise ValueError(f"a must be >= -1/2, got {self.a}")
        try:
            np.broadcast_shapes(mu0.shape, k0.shape, a.shape, b.shape)
        except ValueError:
            raise ValueError("mu0, k0, a and b must broadcast together (one value or one per problem), got shapes "
                             f"{mu0.shape}, {k0.shape}, {a.shape}, {b.shape}") from None

    @classmethod
    def _unchecked(cls, mu0, k0, a, b) -> "NormalGamma":
        """A posterior: its parameters come from the arithmetic here and may be out of range (b = inf)."""
        law = object.__new__(cls)
        for field, value in zip(fields(cls), (mu0, k0, a, b)):
            object.__setattr__(law, field.name, value)
        return law

    @classmethod
    def matching(cls) -> "NormalGamma":
        """The matching prior mu0 = 0, k0 = inf, a = -1/2, b = 0 (improper).

        >>> NormalGamma.matching().is_matching
        True
        """
        return cls(mu0=0.0, k0=np.inf, a=-0.5, b=0.0)

    @property
    def is_matching(self) -> bool:
        return bool(np.all(np.isinf(self.k0)) and np.all(np.asarray(self.a) == -0.5)
                    and np.all(np.asarray(self.b) == 0))

    @property
    def is_proper(self) -> bool:
        return bool(np.all(np.isfinite(self.k0)) and np.all(np.asarray(self.a) > 0)
                    and np.all(np.asarray(self.b) > 0))

    def in_units(self, scale) -> "NormalGamma":
        """The same law for mu / scale: (mu0 / scale, k0, a, b / scale^2).

        >>> NormalGamma(0.5, 2.0, 1.0, 4.0).in_units(2.0)
        NormalGamma(mu0=0.25, k0=2.0, a=1.0, b=1.0)
        """
        with np.errstate(over="ignore", under="ignore"):
            return NormalGamma._unchecked(self.mu0 / scale, self.k0, self.a, self.b / scale / scale)

    def update(self, stats: SufficientStats) -> "NormalGamma":
        """The exact Normal-Gamma posterior given the data's sufficient statistics (Theorem 2,
        with the published erratum in b corrected: see the README), in the units of the data.

        Its ``b`` is in squared units and overflows to inf (or underflows to 0) for differences beyond
        about 1e154 (below about 1e-154); :meth:`update_scaled` keeps it in range.
        """
        post, scale = self.update_scaled(stats)
        with np.errstate(over="ignore", under="ignore"):
            return NormalGamma._unchecked(post.mu0 * scale, post.k0, post.a, post.b * scale * scale)

    def update_scaled(self, stats: SufficientStats):
        """The posterior of mu / scale and ``scale``, a power of two per problem near the larger of the data's
        magnitude and the prior's (|mu0| when k0 is finite, sqrt(b)); every parameter stays in float range.

        >>> s = SufficientStats.from_samples([3e200, 5e200, 4e200], rho=0.0)
        >>> post, scale = NormalGamma.matching().update_scaled(s)
        >>> float(post.mu0 * scale), bool(np.isinf(NormalGamma.matching().update(s).b))
        (4e+200, True)
        """
        mu0, k0, a, b = (np.asarray(v, dtype=float) for v in (self.mu0, self.k0, self.a, self.b))
        _fits("prior", np.broadcast_shapes(mu0.shape, k0.shape, a.shape, b.shape), np.shape(stats.n))
        mu0 = np.where(np.isinf(k0), 0.0, mu0)  # a flat prior on mu has no centre
        prior_size = np.maximum(np.abs(mu0), np.sqrt(b))
        all_zero = stats.zero_variance & (stats.scaled_mean == 0)  # data of no magnitude: the prior's units
        data_scale = np.where(all_zero, 0.0, stats.scale)
        scale = np.maximum(data_scale, power_of_two_scale(prior_size) * (prior_size > 0))
        scale = np.where(scale > 0, scale, 1.0)
        with np.errstate(under="ignore", over="ignore"):
            # a power of two <= 1: exact, or an underflow of what is negligible next to the prior
            ratio = np.where(all_zero, 0.0, stats.scale / scale)
            mu_hat, Q = stats.scaled_mean * ratio, stats.scaled_ss * ratio * ratio
            prior = NormalGamma._unchecked(mu0, k0, a, b).in_units(scale)
        A = stats.effective_n
        inv_k0 = 1.0 / k0
        k_post = 1.0 / (A + inv_k0)
        shrink = k_post * inv_k0  # weight of the prior's centre, 0 when flat
        mu_post = mu_hat + shrink * (prior.mu0 - mu_hat)  # = k~ (A mu_hat + mu0 / k0), exact when flat
        a_post = a + stats.n / 2
        with np.errstate(under="ignore"):
            b_post = prior.b + Q / 2 + A * shrink * (mu_hat - prior.mu0) ** 2 / 2
        return NormalGamma._unchecked(mu_post, k_post, a_post, b_post), scale

    def mu_marginal(self):
        """Marginal of mu: Student-t(df = 2a, loc = mu0, scale = sqrt(b k0 / a)), a frozen scipy law."""
        return stats.t(df=2 * np.asarray(self.a), loc=self.mu0, scale=np.sqrt(self.b * self.k0 / self.a))

    def nu_marginal(self):
        """Marginal of the precision nu = 1/sigma^2: Gamma(a, rate b), a frozen scipy law."""
        return stats.gamma(np.asarray(self.a), scale=1.0 / np.asarray(self.b))

    def logpdf(self, mu, nu):
        """Joint log density of (mu, nu) (up to a constant for an improper prior)."""
        mu, nu = np.asarray(mu, dtype=float), np.asarray(nu, dtype=float)
        return (stats.gamma.logpdf(nu, self.a, scale=1.0 / self.b)
                + stats.norm.logpdf(mu, self.mu0, np.sqrt(self.k0 / nu)))


def _fits(name, shape, batch):
    if not broadcasts_into(shape, batch):
        count = int(np.prod(batch))
        raise ValueError(f"{name} parameters have shape {shape} but there {'is' if count == 1 else 'are'} "
                         f"{count} data set{'s' * (count != 1)}: give one value or one per data set")
