"""Tests on per-data-set mean differences z_1..z_q (DESIGN.md section 5): Wilcoxon signed-rank and
sign tests, frequentist and Bayesian (Dirichlet process, imprecise DP, rope variants)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from ._args import as_generator, check_alternative
from .scores import mean_differences

IDP_STRENGTH = (np.sqrt(17) - 3) / 2
REGIONS = ("left", "rope", "right")


def heaviside(v):
    """H(v) = 1 for v > 0, 1/2 at 0, 0 below.

    >>> heaviside(np.array([-1.0, 0.0, 2.0])).tolist()
    [0.0, 0.5, 1.0]
    """
    return np.where(v > 0, 1.0, np.where(v == 0, 0.5, 0.0))


def dirichlet(rng, alpha, size):
    """Dirichlet draws (size, len(alpha)) through Gamma variates, so that zero weights are allowed.

    >>> w = dirichlet(np.random.default_rng(0), [0.5, 1, 1], size=4)
    >>> w.shape, bool(np.allclose(w.sum(axis=1), 1))
    ((4, 3), True)
    """
    g = rng.standard_gamma(np.broadcast_to(np.asarray(alpha, dtype=float), (size, len(alpha))))
    return g / g.sum(axis=1, keepdims=True)


@dataclass(frozen=True, repr=False)
class RegionProbabilities:
    """Posterior of (P(A better), P(rope), P(B better)) from a Bayesian signed-rank or sign test.

    ``p_left``, ``p_rope``, ``p_right`` are the posterior means; ``win_left``, ``win_rope``, ``win_right``
    the share of draws in which each region has the largest probability (ties shared equally);
    ``samples`` the draws (n_samples, 3) in the order left, rope, right.
    """

    @classmethod
    def from_tails(cls, left, right, method, rope, names) -> RegionProbabilities:
        """Draws of P(A better) and P(B better); P(rope) is the rest (clipped at 0 against rounding).

        >>> RegionProbabilities.from_tails([0.25], [0.5], "example", 0.01, ("A", "B")).samples.tolist()
        [[0.25, 0.25, 0.5]]
        """
        left, right = np.asarray(left, dtype=float), np.asarray(right, dtype=float)
        return cls(np.column_stack([left, np.clip(1 - left - right, 0, 1), right]), method, float(rope), names)

    samples: np.ndarray
    method: str
    rope: float
    names: tuple[str, str]

    @property
    def p_left(self):
        return float(self.samples[:, 0].mean())

    @property
    def p_rope(self):
        return float(self.samples[:, 1].mean())

    @property
    def p_right(self):
        return float(self.samples[:, 2].mean())

    @property
    def wins(self) -> np.ndarray:
        best = self.samples == self.samples.max(axis=1, keepdims=True)
        return (best / best.sum(axis=1, keepdims=True)).mean(axis=0)

    win_left = property(lambda self: float(self.wins[0]))
    win_rope = property(lambda self: float(self.wins[1]))
    win_right = property(lambda self: float(self.wins[2]))

    def decision(self, alpha=0.05) -> str:
        """The algorithm (or ``"rope"``) whose region is largest in more than 1 - alpha of the draws,
        else ``"none"``."""
        labels = (self.names[0], "rope", self.names[1])
        best = int(np.argmax(self.wins))
        return labels[best] if self.wins[best] > 1 - alpha else "none"

    def to_dict(self):
        return {"method": self.method, "a": self.names[0], "b": self.names[1], "rope": self.rope,
                **{f"p_{r}": getattr(self, f"p_{r}") for r in REGIONS},
                **{f"win_{r}": getattr(self, f"win_{r}") for r in REGIONS}}

    def __repr__(self):
        a, b = self.names
        return (f"{self.method}, {b} vs {a}, rope {self.rope}, {len(self.samples)} draws\n"
                f"  posterior mean:      P({a} better) = {self.p_left:.4f}  P(rope) = {self.p_rope:.4f}  "
                f"P({b} better) = {self.p_right:.4f}\n"
                f"  P(region largest):   {a}: {self.win_left:.4f}  rope: {self.win_rope:.4f}  "
                f"{b}: {self.win_right:.4f}")


def bayesian_signed_rank(x, y=None, *, rope=0.0, prior_strength=0.5, z0=0.0, n_samples=50_000, random_seed=None,
                         algorithms=None) -> RegionProbabilities:
    """Bayesian signed-rank test on a Dirichlet process (Benavoli et al. 2014, 2017).

    Weights (w0, w) ~ Dir(s, 1, ..., 1) on the pseudo-observation ``z0`` and the data;
    P(B better) = sum w_i w_j H(z_i + z_j - 2r), P(A better) = sum w_i w_j H(-z_i - z_j - 2r), rope the rest.
    ``prior_strength=0`` is the DP with s -> 0 (Bayesian bootstrap): with ``rope=0`` its P(B better) is
    theta = P(Z + Z' > 0) + P(Z + Z' = 0)/2 and ``win_right`` is P(theta > 1/2). Inputs as :func:`mean_differences`.

    >>> z = [0.02, 0.01, 0.03, -0.01, 0.02, 0.04]
    >>> res = bayesian_signed_rank(z, rope=0.01, random_seed=0)
    >>> bool(res.p_right > res.p_left)
    True
    """
    z, names, _ = mean_differences(x, y, algorithms=algorithms)
    if rope < 0 or prior_strength < 0:
        raise ValueError("rope and prior_strength must be >= 0")
    rng = as_generator(random_seed)
    points = np.concatenate([[z0], z]) if prior_strength > 0 else z
    alpha = np.concatenate([[prior_strength], np.ones(len(z))]) if prior_strength > 0 else np.ones(len(z))
    w = dirichlet(rng, alpha, n_samples)
    pair = points[:, None] + points[None, :]
    right = np.einsum("ni,ij,nj->n", w, heaviside(pair - 2 * rope), w, optimize=True)
    left = np.einsum("ni,ij,nj->n", w, heaviside(-pair - 2 * rope), w, optimize=True)
    method = "Bayesian signed-rank test" + (" (DP, s -> 0)" if prior_strength == 0
                                            else f" (s = {prior_strength}, z0 = {z0})")
    return RegionProbabilities.from_tails(left, right, method, rope, names)


def bayesian_sign_test(x, y=None, *, rope=0.0, prior_strength=1.0, z0=0.0, n_samples=50_000, random_seed=None,
                       algorithms=None) -> RegionProbabilities:
    """Bayesian sign test: (P(left), P(rope), P(right)) ~ Dirichlet(counts + prior pseudo-count in z0's region).

    >>> res = bayesian_sign_test([0.02, 0.01, 0.03, -0.02, 0.02], rope=0.005, random_seed=0)
    >>> round(res.p_right, 2)  # (4 right) / (5 data + 1 prior in the rope)
    0.67
    """
    z, names, _ = mean_differences(x, y, algorithms=algorithms)
    if rope < 0 or prior_strength < 0:
        raise ValueError("rope and prior_strength must be >= 0")
    counts = np.array([np.sum(z < -rope), np.sum(np.abs(z) <= rope), np.sum(z > rope)], dtype=float)
    counts[0 if z0 < -rope else 2 if z0 > rope else 1] += prior_strength
    samples = dirichlet(as_generator(random_seed), counts, n_samples)
    return RegionProbabilities(samples, f"Bayesian sign test (prior {prior_strength} at z0 = {z0})", float(rope), names)


@dataclass(frozen=True, repr=False)
class ImpreciseSignedRankResult:
    """Lower and upper posterior probabilities of theta > 1/2 under the imprecise Dirichlet process.

    ``decision``: B if lower > threshold; A (theta <= 1/2 preferred) if upper < threshold; otherwise
    ``"indeterminate"`` (the answer depends on the prior).
    """

    lower: float
    upper: float
    lower_mean: float
    upper_mean: float
    threshold: float
    names: tuple[str, str]

    @property
    def decision(self) -> str:
        if self.lower > self.threshold:
            return self.names[1]
        if self.upper < self.threshold:
            return self.names[0]
        return "indeterminate"

    def to_dict(self):
        return {"a": self.names[0], "b": self.names[1], "lower": self.lower, "upper": self.upper,
                "lower_mean": self.lower_mean, "upper_mean": self.upper_mean, "threshold": self.threshold,
                "decision": self.decision}

    def __repr__(self):
        a, b = self.names
        return (f"Imprecise DP signed-rank test, {b} vs {a}: P(theta > 1/2) in [{self.lower:.4f}, {self.upper:.4f}]"
                f" (posterior mean of theta in [{self.lower_mean:.4f}, {self.upper_mean:.4f}]); "
                f"threshold {self.threshold:.3g}: {self.decision}")


def imprecise_signed_rank(x, y=None, *, loss_ratio=19.0, n_samples=50_000, random_seed=None,
                          algorithms=None) -> ImpreciseSignedRankResult:
    """Signed-rank test on the imprecise DP, s = (sqrt(17) - 3)/2 (Benavoli et al. 2014).

    Posterior means: lower = [sum_ij H(z_i + z_j) + sum_i H(2 z_i)] / ((s+q)(s+q+1)) (which tends to R+
    as s -> 0), upper = lower + (s^2 + 2qs + s) / ((s+q)(s+q+1)).

    ``loss_ratio`` = l1/l0 gives the threshold t = l1/(l0 + l1) (19 <-> 0.95 <-> alpha = 0.05).

    >>> res = imprecise_signed_rank([0.02, 0.01, 0.03, 0.01, 0.02, 0.04, 0.01, 0.02], random_seed=0)
    >>> res.decision
    'B'
    """
    z, names, _ = mean_differences(x, y, algorithms=algorithms)
    if loss_ratio <= 0:
        raise ValueError(f"loss_ratio must be > 0, got {loss_ratio}")
    q, s = len(z), IDP_STRENGTH
    w = dirichlet(as_generator(random_seed), np.concatenate([[s], np.ones(q)]), n_samples)
    w0, w = w[:, 0], w[:, 1:]
    h = heaviside(z[:, None] + z[None, :])
    low = np.einsum("ni,ij,nj->n", w, h, w, optimize=True)
    high = w0 * (2 - w0) + low
    # E[w_i w_j] = (1 + [i = j]) / ((s+q)(s+q+1)): the diagonal counts twice (DESIGN.md's formula omits it)
    low_mean = (h.sum() + np.trace(h)) / ((s + q) * (s + q + 1))
    return ImpreciseSignedRankResult(float(np.mean(low > 0.5)), float(np.mean(high > 0.5)), float(low_mean),
                                     float(low_mean + (s**2 + 2 * q * s + s) / ((s + q) * (s + q + 1))),
                                     loss_ratio / (1 + loss_ratio), names)


def wilcoxon_test(x, y=None, *, alternative="two-sided", algorithms=None):
    """Frequentist Wilcoxon signed-rank test on the per-data-set mean differences (``scipy.stats.wilcoxon``).

    >>> round(float(wilcoxon_test([0.02, 0.01, 0.03, -0.01, 0.02, 0.04], alternative="greater").pvalue), 4)
    0.0469
    """
    z, _, _ = mean_differences(x, y, algorithms=algorithms)
    return stats.wilcoxon(z, alternative=check_alternative(alternative))


def sign_test(x, y=None, *, alternative="two-sided", algorithms=None):
    """Frequentist sign test: binomial test of #{z > 0} among the non-zero z (``scipy.stats.binomtest``).

    >>> round(float(sign_test([0.02, 0.01, 0.03, -0.01, 0.02, 0.04]).pvalue), 4)
    0.2188
    """
    z, _, _ = mean_differences(x, y, algorithms=algorithms)
    nonzero = z[z != 0]
    return stats.binomtest(int(np.sum(nonzero > 0)), len(nonzero), 0.5, alternative=check_alternative(alternative))
