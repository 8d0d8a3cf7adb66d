"""Normal-Gamma prior on (mu, nu = 1/sigma^2) and its exact posterior (DESIGN.md section 3)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from .intraclass import SufficientStats


@dataclass(frozen=True)
class NormalGamma:
    """nu ~ Gamma(shape a, rate b); mu | nu ~ Normal(mu0, variance k0 / nu).

    Parameters may be arrays (one distribution per problem). ``NormalGamma.matching()`` is the
    improper prior under which the Bayesian test reproduces the frequentist corrected t-test.

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
        if np.any(np.asarray(self.k0) <= 0):
            raise ValueError(f"k0 must be > 0 (np.inf for a flat prior on mu), got {self.k0}")
        if np.any(np.asarray(self.b) < 0):
            raise ValueError(f"b must be >= 0, got {self.b}")
        if np.any(np.asarray(self.a) < -0.5):
            raise ValueError(f"a must be >= -1/2, got {self.a}")

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

    def update(self, stats: SufficientStats) -> "NormalGamma":
        """The exact Normal-Gamma posterior given the data's sufficient statistics (Theorem 2,
        with the erratum of DESIGN.md section 3 corrected)."""
        A, mu_hat, Q = stats.effective_n, stats.mean, stats.weighted_ss
        inv_k0 = 1.0 / np.asarray(self.k0, dtype=float)
        k_post = 1.0 / (A + inv_k0)
        mu_post = k_post * (A * mu_hat + self.mu0 * inv_k0)
        a_post = self.a + stats.n / 2
        b_post = self.b + Q / 2 + A * inv_k0 * (mu_hat - self.mu0) ** 2 / (2 * (A + inv_k0))
        return NormalGamma(mu_post, k_post, a_post, b_post)

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
