"""Exact Poisson-binomial distribution (the count of data sets where B is better in the Poisson test), batched over
leading axes, and mixtures of them (the hierarchical model's count of delta_i > 0)."""
from __future__ import annotations

import numba
import numpy as np

from .._args import as_generator, check_count

_NEGLIGIBLE = 1e-30  # mixture_pmf drops the counts whose probability falls below this


class PoissonBinomial:
    """Number of successes of independent trials with probabilities ``p`` (last axis).

    The pmf comes from the recursion pmf_j[c] = pmf_{j-1}[c] (1 - p_j) + pmf_{j-1}[c-1] p_j, which has
    no cancellation; ``cdf`` sums the lower tail and ``sf`` the upper tail, each from its own end, so
    tiny tails keep their relative precision. Pass ``complement`` = 1 - p when p is close to 1. Every
    probability returned is in [0, 1] (rounding of a sum of the pmf never exceeds 1).

    >>> X = PoissonBinomial([0.5, 0.5, 0.9])
    >>> X.pmf(3), X.sf(1), X.mean
    (np.float64(0.225), np.float64(0.7), np.float64(1.9))
    """

    def __init__(self, p, complement=None):
        p = _probabilities("p", p)
        q = 1.0 - p if complement is None else _probabilities("complement", complement)
        if p.ndim == 0 or p.shape != q.shape:
            raise ValueError(f"p must have a trial axis and complement its shape; got {p.shape} and {q.shape}")
        if np.any(np.abs(p + q - 1) > 1e-9):
            raise ValueError("complement must equal 1 - p")
        self.p, self.complement = p, q
        self.n_trials = p.shape[-1]
        self._pmf = self._exact_pmf(p, q)

    @staticmethod
    def _exact_pmf(p, q):
        n = p.shape[-1]
        pmf = np.zeros(p.shape[:-1] + (n + 1,))
        pmf[..., 0] = 1.0
        moved = np.empty_like(pmf)  # scratch: no allocation per step
        for j in range(n):
            np.multiply(pmf[..., : j + 1], p[..., j, None], out=moved[..., : j + 1])
            pmf[..., : j + 1] *= q[..., j, None]
            pmf[..., 1 : j + 2] += moved[..., : j + 1]
        return np.clip(pmf, 0.0, 1.0, out=pmf)

    def pmf(self, k=None):
        """P(X = k); the whole pmf (last axis 0..n) when ``k`` is None."""
        return self._pmf if k is None else self._take(self._pmf, k, 0.0, 0.0)

    def cdf(self, k):
        """P(X <= k), summed from the lower end."""
        return self._take(np.minimum(np.cumsum(self._pmf, axis=-1), 1.0), k, 0.0, 1.0)

    def sf(self, k):
        """P(X > k), summed from the upper end (never 1 - cdf)."""
        at_least = np.minimum(np.cumsum(self._pmf[..., ::-1], axis=-1)[..., ::-1], 1.0)  # P(X >= c)
        more_than = np.concatenate([at_least[..., 1:], np.zeros_like(at_least[..., :1])], axis=-1)
        return self._take(more_than, k, 1.0, 0.0)

    @property
    def mean(self):
        return self.p.sum(axis=-1)

    @property
    def var(self):
        return (self.p * self.complement).sum(axis=-1)

    def _take(self, table, k, below, above):
        """table[..., k] for k in 0..n, ``below`` / ``above`` outside; shape batch + k's shape."""
        if isinstance(k, (str, bytes)):
            raise TypeError(f"k must be whole numbers, got the text {k!r}")
        k = np.asarray(k, dtype=float)
        if np.any(k != np.floor(k)):  # NaN too
            raise ValueError(f"k must be whole numbers, got {k}")
        value = table[..., np.clip(np.nan_to_num(k), 0, self.n_trials).astype(int)]
        return np.where(k < 0, below, np.where(k > self.n_trials, above, value))[()]

    def __repr__(self):
        return f"PoissonBinomial(n_trials={self.n_trials}, batch={self.p.shape[:-1]}, mean={np.round(self.mean, 4)})"


def poisson_binomial_monte_carlo(p, draws=100_000, random_seed=None, chunk=10_000):
    """The paper's estimate of the pmf: ``draws`` simulated rounds of coin flips. Returns (pmf, standard error).

    ``p`` is one problem (1-D, each in [0, 1]); the flips are drawn ``chunk`` rounds at a time.

    >>> pmf, se = poisson_binomial_monte_carlo([0.5, 0.9], draws=20_000, random_seed=1)
    >>> bool(abs(pmf[2] - 0.45) < 4 * se[2])
    True
    """
    p = _probabilities("p", p)
    if p.ndim != 1:
        raise ValueError(f"p must be one problem (1-D), got shape {p.shape}")
    draws, chunk = check_count("draws", draws), check_count("chunk", chunk)
    rng = as_generator(random_seed)
    counts = np.zeros(len(p) + 1)
    for start in range(0, draws, chunk):
        size = min(chunk, draws - start)
        counts += np.bincount((rng.random((size, len(p))) < p).sum(axis=1), minlength=len(p) + 1)
    pmf = counts / draws
    return pmf, np.sqrt(pmf * (1 - pmf) / draws)


def mixture_pmf(weights, p) -> np.ndarray:
    """The pmf (0..n) of a mixture of Poisson-binomial distributions: ``weights`` (m,) >= 0, not all 0, of the
    components whose trial probabilities are the rows of ``p`` (m, n). The recursion of :class:`PoissonBinomial`,
    compiled, one component at a time over only the counts whose probability is still above 1e-30 (the rest is
    dropped: far fewer counts where many trials are near-certain, and memory of n + 1 counts, not m (n + 1)).

    >>> mixture_pmf([1.0, 3.0], [[0.5, 0.5], [1.0, 0.0]]).tolist()
    [0.0625, 0.875, 0.0625]
    """
    p = _probabilities("p", p)
    weights = np.asarray(weights, dtype=float)
    if p.ndim != 2 or weights.shape != p.shape[:1]:
        raise ValueError(f"p must be (components, trials) and weights one per component, got shapes {p.shape} and "
                         f"{weights.shape}")
    if not (np.all(weights >= 0) and weights.sum() > 0):
        raise ValueError("weights must be >= 0 and not all 0")
    out = np.zeros(p.shape[1] + 1)
    _mixture_into(weights, np.ascontiguousarray(p), out)
    return np.clip(out / weights.sum(), 0.0, 1.0)


@numba.njit(cache=True)
def _mixture_into(weights, p, out):
    """Adds weights[b] times the pmf of the trials p[b] to ``out``, for every b."""
    trials = p.shape[1]
    pmf = np.zeros(trials + 2)
    for b in range(len(weights)):
        pmf[0], low, high = 1.0, 0, 0  # pmf[low..high] holds every count above _NEGLIGIBLE
        for j in range(trials):
            success = p[b, j]
            failure = 1.0 - success
            pmf[high + 1] = pmf[high] * success
            for m in range(high, low, -1):
                pmf[m] = pmf[m] * failure + pmf[m - 1] * success
            pmf[low] *= failure
            high += 1
            while high > low and pmf[high] < _NEGLIGIBLE:
                pmf[high] = 0.0
                high -= 1
            while low < high and pmf[low] < _NEGLIGIBLE:
                pmf[low] = 0.0
                low += 1
        for m in range(low, high + 1):
            out[m] += weights[b] * pmf[m]
            pmf[m] = 0.0


def _probabilities(name, values) -> np.ndarray:
    """``values`` as floats in [0, 1]; errors name the argument (TypeError for text, ValueError for NaN)."""
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{name} must be probabilities, got the text {values!r}")
    kind = np.asarray(values).dtype.kind
    try:
        if kind not in "iufbO":  # text
            raise TypeError
        values = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be probabilities (numbers in [0, 1]), got {values!r}") from None
    nan = np.isnan(values)
    if nan.any():
        raise ValueError(f"{name} contains NaN (first at index {tuple(int(i) for i in np.argwhere(nan)[0])})")
    outside = (values < 0) | (values > 1)
    if outside.any():
        where = tuple(int(i) for i in np.argwhere(outside)[0])
        raise ValueError(f"{name} must lie in [0, 1], got {float(values[where])} at index {where}")
    return values
