"""Covariance matrices with uniform standard deviations and an LKJ correlation prior, sampled as regressions.

The joint model of k algorithms puts on every covariance matrix Sigma = diag(sigma) R diag(sigma) (the population's
and each data set's) the prior of the pairwise model: sigma_a ~ U(0, upper_a), independent, and R ~ LKJ(eta).
Sampled through sigma and R's Cholesky factor, two near-identical algorithms make it hard for the sampler: their
sds must agree to within the small scale of their difference while each is known only to 10%, and their
correlation sits near 1 - a narrow, curved ridge (step sizes of 0.01 and trees of 1,000 steps on uci54).

Here Sigma is sampled as the covariance of a sequence of regressions: in an order ``order`` of the coordinates,

    x_j = sum_{k<j} slope_jk x_k + sd_j e_j,    e ~ N(0, I),

so Sigma = L L^T with L = T^-1 diag(sd), T unit lower triangular (T_jk = -slope_jk), rows put back in the model's
order. The free values are log sd_j and the slopes. When the order puts the near-copy after its twin (a greedy
pivoted Cholesky decomposition of an estimate of Sigma, :func:`pivot_order`), its slope on the twin is near 1, its
sd is the small scale of their difference, and the two are nearly independent in the posterior.

The prior is unchanged, by the change of variables: with m coordinates and j the position in the order,

    |d Sigma / d(log sd, slopes)| = 2^m prod_j sd_j^(2 (m - j + 1)),
    p(Sigma) = p(sigma) p_LKJ(R) / (2^m prod_a sigma_a^m),   p_LKJ(R) proportional to det(R)^(eta - 1),
    det(R) = prod_j sd_j^2 / prod_a sigma_a^2,

(the first from Sigma = L L^T and the slopes scaled by the sds; the second from Sigma = diag(sigma) R diag(sigma)),
so the log density of the free values is, up to a constant and while every sigma_a < upper_a,

    (eta - 1) (2 sum_j log sd_j - 2 sum_a log sigma_a) - m sum_a log sigma_a + sum_j 2 (m - j + 1) log sd_j.

A slope on a coordinate whose sd can be near 0 is free over a range that grows as that sd shrinks (a funnel, where
the data leave the covariance vague). With ``scaling`` w (one per slope, or one for all) the free values are
b_jk = slope_jk (sd_k / sd_j)^w instead, which adds sum_jk w_jk (log sd_j - log sd_k) to the log density: w = 1
makes them standardised slopes, free of the funnel; w = 0 keeps the slopes, right for near-copies.
"""
from __future__ import annotations

import numpy as np
import pymc as pm
import pytensor.tensor as pt


def pivot_order(cov) -> np.ndarray:
    """The coordinates in the order of a greedy pivoted Cholesky decomposition of ``cov`` (m x m, or a stack
    (..., m, m) for one order per matrix): each next coordinate has the largest variance left given those before
    it, so a near-copy of a coordinate comes after it, and a coordinate without variance last.

    >>> pivot_order(np.array([[1.0, 0.99, 0.0], [0.99, 1.0, 0.0], [0.0, 0.0, 0.5]])).tolist()
    [0, 2, 1]
    """
    cov = np.asarray(cov, dtype=float)
    if cov.ndim > 2:
        return np.array([pivot_order(c) for c in cov.reshape(-1, *cov.shape[-2:])]).reshape(cov.shape[:-1])
    order, rest = [], list(range(len(cov)))
    while rest:
        j = max(rest, key=lambda a: cov[a, a])
        order.append(j)
        rest.remove(j)
        if cov[j, j] > 0:
            cov = cov - np.outer(cov[:, j], cov[j]) / cov[j, j]
    return np.array(order, dtype=np.int64)


def _rows_in_model_order(chol, order):
    """Rows of L (..., m, m), computed in ``order`` (m,) or one order per matrix (q, m), put in the model's order."""
    inverse = np.argsort(order, axis=-1)
    if inverse.ndim == 1:
        return chol[..., inverse, :]
    return chol[..., np.arange(len(inverse))[:, None], inverse, :]


def _log_ratio(log_sd, scaling, m):
    """w_jk (log sd_j - log sd_k) for every slope (j > k, row by row, m coordinates): the log of the slopes'
    scaling; numpy arrays or PyTensor tensors."""
    tri = np.tril_indices(m, -1)
    return scaling * (log_sd[..., tri[0]] - log_sd[..., tri[1]])


def regression_covariance(name, upper, order, eta=1.0, scaling=0.0, present=None, basis=None):
    """Covariance matrices (..., m, m) with sigma_a ~ U(0, ``upper_a``) and R ~ LKJ(``eta``), as regressions in
    ``order`` (m,) or one order per matrix (q, m) (the module docstring). Free variables ``{name}_log_sd`` and
    ``{name}_slopes`` (shapes (..., m) and (..., m (m - 1) / 2), in the order; the slopes scaled by ``scaling``, the
    module docstring), the prior a Potential ``{name}_prior``. Returns Sigma and sigma. Call inside a model.

    ``present`` (..., m), 1 or 0 per position of the order, the 1s first: where the data see only the first p
    coordinates of a matrix, their block alone has the prior, integrated over the others: uniform sds and
    LKJ(eta + (m - p) / 2), the marginal of an LKJ(eta) block. The others' free values are then standard normal and
    their rows and columns of cov(z) (below) mean nothing. Sampled with the others' rows instead, the sampler would meet
    their prior alone: the sds piled against their bound (uniform, far above the data's scale) and the slopes with
    Cauchy tails - uci54 with 17 such data sets: almost every transition divergent.

    ``basis`` (..., m, m), by default the permutation of ``order``: the regressions are those of z (position j of
    the order is z_j), Sigma = cov(x) for x = basis z, and the prior is set on cov(z), the bound of z_j that of the
    coordinate at position j of the order. A permutation changes nothing; another basis states the prior in other
    coordinates, as :mod:`.joint` does for a data set whose differences are from an algorithm of its own.

    >>> with pm.Model() as model:
    ...     cov, sd = regression_covariance("pop", np.full(3, 10.0), np.array([2, 0, 1]))
    >>> point = {"pop_log_sd": np.log([1.0, 2.0, 3.0]), "pop_slopes": np.array([0.5, 0.0, 0.0])}
    >>> value = model.compile_fn(model.replace_rvs_by_values([cov])[0], inputs=model.value_vars)(point)
    >>> # x_2 = e_0, x_0 = 0.5 x_2 + 2 e_1, x_1 = 3 e_2
    >>> value.round(9).tolist()
    [[4.25, 0.0, 0.5], [0.0, 9.0, 0.0], [0.5, 0.0, 1.0]]
    """
    order = np.asarray(order)
    m = order.shape[-1]
    batch = order.shape[:-1]
    tri = np.tril_indices(m, -1)
    log_sd = pm.Flat(f"{name}_log_sd", shape=(*batch, m))
    free = pm.Flat(f"{name}_slopes", shape=(*batch, len(tri[0])))
    log_ratio = _log_ratio(log_sd, scaling, m)
    slopes = free * pt.exp(log_ratio)
    unit = pt.eye(m) - pt.set_subtensor(pt.zeros((*batch, m, m))[..., tri[0], tri[1]], slopes)
    chol = pt.linalg.solve_triangular(unit, pt.exp(log_sd)[..., None, :] * pt.eye(m), lower=True)  # of cov(z)
    log_sigma_z = pt.log((chol**2).sum(axis=-1)) / 2  # z's sds, in the order
    below = log_sigma_z < np.log(np.take_along_axis(np.broadcast_to(upper, order.shape), order, axis=-1))
    chol = _rows_in_model_order(chol, order) if basis is None else basis @ chol
    cov = chol @ chol.mT
    sigma = pt.sqrt(pt.diagonal(cov, axis1=-2, axis2=-1))
    position = np.arange(1, m + 1)
    present = np.ones(order.shape) if present is None else present
    p, shown = present.sum(axis=-1), present[..., tri[0]]  # a slope is seen where its row is
    log_sigma = (present * log_sigma_z).sum(axis=-1)
    log_prior = ((eta + (m - p) / 2 - 1) * 2 * ((present * log_sd).sum(axis=-1) - log_sigma) - p * log_sigma
                 + (present * 2 * (p[..., None] - position + 1) * log_sd).sum(axis=-1)
                 + (shown * log_ratio).sum(axis=-1)
                 - ((1 - present) * log_sd**2).sum(axis=-1) / 2 - ((1 - shown) * free**2).sum(axis=-1) / 2)
    pm.Potential(f"{name}_prior", pt.switch(pt.all(below | pt.eq(present, 0)), log_prior.sum(), -np.inf))
    return cov, sigma


def regression_values(cov, order, scaling=0.0):
    """The free values (log sd, scaled slopes) that give ``cov`` (..., m, m) in ``order``: initial values near an
    estimate.

    >>> cov = np.array([[4.25, 0.0, 0.5], [0.0, 9.0, 0.0], [0.5, 0.0, 1.0]])
    >>> log_sd, slopes = regression_values(cov, np.array([2, 0, 1]))
    >>> np.exp(log_sd).round(6).tolist(), (slopes.round(6) + 0.0).tolist()
    ([1.0, 2.0, 3.0], [0.5, 0.0, 0.0])
    """
    order = np.asarray(order)
    if order.ndim == 1:
        permuted = np.asarray(cov)[..., order, :][..., :, order]
    else:
        permuted = np.array([c[np.ix_(o, o)] for c, o in zip(cov, order)])
    chol = np.linalg.cholesky(permuted)
    sd = np.diagonal(chol, axis1=-2, axis2=-1)
    unit = np.linalg.inv(chol / sd[..., None, :])
    tri = np.tril_indices(order.shape[-1], -1)
    log_sd = np.log(sd)
    return log_sd, -unit[..., tri[0], tri[1]] * np.exp(-_log_ratio(log_sd, scaling, order.shape[-1]))


def innovation_matrix(slopes) -> np.ndarray:
    """T (..., m, m), unit lower triangular with T_jk = -slope_jk: T x (x in the order) are the innovations.

    >>> innovation_matrix(np.array([0.5, 0.0, 2.0])).tolist()
    [[1.0, 0.0, 0.0], [-0.5, 1.0, 0.0], [-0.0, -2.0, 1.0]]
    """
    slopes = np.asarray(slopes, dtype=float)
    m = int(round((1 + np.sqrt(1 + 8 * slopes.shape[-1])) / 2))
    tri = np.tril_indices(m, -1)
    unit = np.broadcast_to(np.eye(m), (*slopes.shape[:-1], m, m)).copy()
    unit[..., tri[0], tri[1]] = -slopes
    return unit


def covariance_values(log_sd, slopes, order, scaling=0.0, basis=None) -> np.ndarray:
    """Sigma (..., m, m) from draws of the free values (as :func:`regression_covariance` computes it).

    >>> covariance_values(np.log([1.0, 2.0, 3.0]), np.array([0.5, 0.0, 0.0]), np.array([2, 0, 1])).round(9).tolist()
    [[4.25, 0.0, 0.5], [0.0, 9.0, 0.0], [0.5, 0.0, 1.0]]
    """
    slopes = slopes * np.exp(_log_ratio(np.asarray(log_sd), scaling, np.shape(log_sd)[-1]))
    chol = np.linalg.inv(innovation_matrix(slopes)) * np.exp(log_sd)[..., None, :]
    chol = _rows_in_model_order(chol, order) if basis is None else basis @ chol
    return chol @ np.swapaxes(chol, -1, -2)
