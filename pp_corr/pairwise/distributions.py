"""The intraclass-correlated likelihood as a PyMC distribution, O(n) (the likelihood of pp_corr.pairwise.intraclass).

Observations of q data sets are one flat vector with an integer ``group`` (data set of each value), so
data sets may have different n. The logp never builds an n x n matrix.
"""
from __future__ import annotations

import numpy as np
import pymc as pm
import pytensor
import pytensor.tensor as pt


def _normal_logp(value, mu, sigma, rho, group):
    """Sum over groups of the closed-form log density, from per-group n, mean and sum of squares."""
    zeros = pt.zeros(mu.shape, dtype=value.dtype)
    n = pt.inc_subtensor(zeros[group], 1.0)
    xbar = pt.inc_subtensor(zeros[group], value) / n
    ss = pt.inc_subtensor(zeros[group], (value - xbar[group]) ** 2)
    logdet = 2 * n * pt.log(sigma) + (n - 1) * pt.log1p(-rho) + pt.log1p((n - 1) * rho)
    quad = (ss / (1 - rho) + n / (1 + (n - 1) * rho) * (xbar - mu) ** 2) / sigma**2
    return pt.sum(-0.5 * (n * np.log(2 * np.pi) + logdet + quad))


def _normal_dist(mu, sigma, rho, group, size):
    """Generative graph: mu + sigma (sqrt(rho) shared + sqrt(1 - rho) own), shared within a group."""
    shared = pm.Normal.dist(size=rho.shape)[group]
    own = pm.Normal.dist(size=group.shape)
    return mu[group] + sigma[group] * (pt.sqrt(rho[group]) * shared + pt.sqrt(1 - rho[group]) * own)


def IntraclassNormal(name, mu, sigma, rho, *, group, **kwargs):
    """x ~ MVN(mu_g 1, sigma_g^2 M_g) within each group g, M = (1 - rho) I + rho 1 1^T; logp in O(n).

    ``mu``, ``sigma``, ``rho`` hold one entry per group (scalars for one data set); ``group`` gives the
    group of each observation. Usable as ``observed`` and for prior/posterior predictive sampling.

    >>> import pymc as pm, numpy as np
    >>> with pm.Model() as m:
    ...     mu = pm.Normal("mu", 0, 1)
    ...     x = IntraclassNormal("x", mu, 0.5, 0.1, group=np.zeros(10, int), observed=np.zeros(10))
    >>> bool(np.isfinite(m.compile_logp()({"mu": 0.0})))
    True
    """
    # pytensor makes a Python float that fits float32 exactly (0.5) a float32 constant, and the logp would
    # then run in float32: cast to floatX (exact, as the value fits)
    floatx = pytensor.config.floatX
    mu, sigma, rho = (pt.atleast_1d(pt.cast(pt.as_tensor_variable(p), floatx)) for p in (mu, sigma, rho))
    group = pt.as_tensor_variable(np.asarray(group, dtype="int64"))
    return pm.CustomDist(name, mu, sigma, rho, group, logp=_normal_logp, dist=_normal_dist,
                         signature="(q),(q),(q),(n)->(n)", **kwargs)
