"""The intraclass-correlated Gaussian likelihood (DESIGN.md section 2), in O(n).

x ~ MVN(mu 1, sigma^2 M), M = (1 - rho) I + rho 1 1^T. Everything the models need is in the
sufficient statistics (n, GLS mean, weighted residual sum of squares Q, effective n A = 1^T M^-1 1).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def resolve_rho(rho=None, *, n_test=None, n_train=None, folds=None):
    """The correlation fixed by the Nadeau-Bengio heuristic, rho = n_test / (n_test + n_train).

    Give exactly one of ``rho``, ``n_test`` with ``n_train``, or ``folds`` (k-fold CV: rho = 1/k).
    Arrays broadcast (one value per data set).

    >>> resolve_rho(folds=10)
    0.1
    >>> resolve_rho(n_test=30, n_train=270)
    0.1
    """
    given = [name for name, v in (("rho", rho), ("n_test/n_train", n_test if n_test is not None else n_train),
                                  ("folds", folds)) if v is not None]
    if len(given) != 1:
        raise ValueError("give exactly one of rho, n_test with n_train, or folds "
                         f"(got {', '.join(given) or 'none'})")
    if folds is not None:
        folds = np.asarray(folds, dtype=float)
        if np.any(folds < 2) or np.any(folds != np.round(folds)):
            raise ValueError(f"folds must be an integer >= 2, got {folds}")
        rho = 1.0 / folds
    elif rho is None:
        if n_test is None or n_train is None:
            raise ValueError("n_test and n_train must be given together")
        n_test, n_train = np.asarray(n_test, dtype=float), np.asarray(n_train, dtype=float)
        if np.any(n_test <= 0) or np.any(n_train <= 0):
            raise ValueError("n_test and n_train must be positive")
        rho = n_test / (n_test + n_train)
    rho = np.asarray(rho, dtype=float)
    if np.any(~np.isfinite(rho)) or np.any(rho < 0) or np.any(rho >= 1):
        raise ValueError(f"rho must be in [0, 1), got {rho}")
    return float(rho) if rho.ndim == 0 else rho


@dataclass(frozen=True)
class SufficientStats:
    """Sufficient statistics of correlated samples, one entry per problem (leading shape).

    ``mean`` is the GLS mean mu_hat, ``weighted_ss`` is Q = (x - mu_hat 1)^T M^-1 (x - mu_hat 1),
    ``effective_n`` is A = 1^T M^-1 1 (the GLS mean has variance sigma^2 / A), ``zero_variance``
    flags samples whose values are all equal.

    >>> s = SufficientStats.from_samples([0.1, 0.3, 0.2, 0.2], rho=1 / 3)
    >>> float(s.mean), float(s.effective_n)
    (0.2, 2.0)
    """

    n: np.ndarray
    mean: np.ndarray
    weighted_ss: np.ndarray
    effective_n: np.ndarray
    zero_variance: np.ndarray

    @classmethod
    def from_samples(cls, x, rho=None, *, corr=None, padded=False):
        """Statistics over the last axis of ``x``.

        ``rho`` (scalar or one per problem) gives the intraclass M; ``corr`` a general known
        correlation matrix ``(n, n)`` or ``(..., n, n)`` instead. With ``padded=True`` NaN marks
        absent cells (ragged problems) rather than bad data.
        """
        x = np.asarray(x, dtype=float)
        if x.ndim == 0:
            raise ValueError("x must have at least one axis (the folds)")
        if corr is not None:
            return cls._from_corr(x, np.asarray(corr, dtype=float))
        rho = np.asarray(rho, dtype=float)
        if padded:
            present = ~np.isnan(x)
            n = present.sum(axis=-1)
            mean = np.nansum(x, axis=-1) / np.where(n > 0, n, 1)
            dev = np.where(present, x - mean[..., None], 0.0)
            ss = np.einsum("...i,...i->...", dev, dev)
            spread = np.nanmax(x, axis=-1, initial=-np.inf) - np.nanmin(x, axis=-1, initial=np.inf)
            zero = spread == 0
        else:
            n = np.full(x.shape[:-1], x.shape[-1])
            mean = x.mean(axis=-1)
            ss = x.var(axis=-1) * x.shape[-1]
            # values all equal leave only rounding in ss: a few ulps of the mean per fold
            zero = ss <= n * (8 * np.finfo(float).eps * np.abs(mean)) ** 2
        ss = np.where(zero, 0.0, ss)
        effective_n = n / (1 + (n - 1) * rho)
        return cls(n, mean, ss / (1 - rho), effective_n, zero)

    @classmethod
    def _from_corr(cls, x, corr):
        n = x.shape[-1]
        if corr.shape[-2:] != (n, n):
            raise ValueError(f"corr must be ({n}, {n}) to match x, got {corr.shape}")
        ones = np.ones(corr.shape[:-1])
        m_inv_1 = np.linalg.solve(corr, ones[..., None])[..., 0]
        effective_n = m_inv_1.sum(axis=-1)
        mean = np.einsum("...i,...i->...", m_inv_1, x) / effective_n
        resid = x - mean[..., None]
        m_inv_r = np.linalg.solve(np.broadcast_to(corr, resid.shape + (n,)), resid[..., None])[..., 0]
        ss = np.einsum("...i,...i->...", resid, m_inv_r)
        zero = np.ptp(x, axis=-1) == 0
        return cls(np.full(x.shape[:-1], n), mean, np.where(zero, 0.0, ss), effective_n, zero)


def intraclass_logp(x, mu, sigma, rho):
    """Log density of x ~ MVN(mu 1, sigma^2 M) over the last axis, in O(n).

    >>> from scipy import stats
    >>> x = np.array([0.1, -0.2, 0.4]); M = 0.7 * np.eye(3) + 0.3
    >>> bool(np.isclose(intraclass_logp(x, 0.1, 0.5, 0.3),
    ...                 stats.multivariate_normal(np.full(3, 0.1), 0.25 * M).logpdf(x)))
    True
    """
    x = np.asarray(x, dtype=float)
    n = x.shape[-1]
    mu, sigma, rho = (np.asarray(v, dtype=float) for v in (mu, sigma, rho))
    xbar = x.mean(axis=-1)
    ss = ((x - xbar[..., None]) ** 2).sum(axis=-1)
    logdet = (n - 1) * np.log1p(-rho) + np.log1p((n - 1) * rho)
    quad = ss / (1 - rho) + n / (1 + (n - 1) * rho) * (xbar - mu) ** 2
    return -0.5 * (n * np.log(2 * np.pi) + 2 * n * np.log(sigma) + logdet + quad / sigma**2)
