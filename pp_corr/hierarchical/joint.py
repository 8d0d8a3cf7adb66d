"""Joint hierarchical model of k algorithms over q data sets: every pair compared in one posterior.

Comparing k algorithms pair by pair fits k(k-1)/2 separate hierarchical models whose answers can contradict
each other (A better than B, B than C, C than A). Here one model holds all of them. Algorithm 1 (the
``reference``) is the baseline: on data set i, fold j, d_ij in R^m (m = k - 1) holds score(a) - score(reference)
for every other algorithm a. As in the pairwise model, the folds' correlation rho_i makes the likelihood exact
through two sufficient statistics, the mean vector dbar_i and the scatter matrix S_i = sum_j (d_ij - dbar_i)
(d_ij - dbar_i)^T, so the work is O(q k^3), never an n x n matrix:

    dbar_i ~ N_m(delta_i, c_i Sigma_i),   S_i ~ Wishart(n_i - 1, (1 - rho_i) Sigma_i),   c_i = (1 - rho_i)/n_i + rho_i,

independent. Each data set's covariance is Sigma_i = V_i + f^2 I, V_i = diag(v_i) R_i diag(v_i) with the pairwise
model's uniform sds (v_ia ~ U(0, 1000 max(1, sd_ia / s_a)) in units s_a, the median sd of coordinate a) and a
uniform (LKJ, eta = 1) correlation matrix, and f = 0.01 units: every fold difference carries an independent
jitter of 1% of the unit. Why the floor: two algorithms that agree on every fold of a data set (near-identical
learners do) make S_i singular, and the Wishart likelihood then grows without bound as Sigma_i becomes singular.
The pairwise model meets the same at sigma_i -> 0 and bounds sigma_i below by 1% of the unit; at k = 2 the joint
model does that instead of the jitter, and is exactly the pairwise model.

Population: delta_i ~ multivariate Student-t(nu, delta0, Sigma0), Sigma0 = diag(sigma0) R0 diag(sigma0), R0
uniform (LKJ), delta0_a ~ U(-M_a, M_a), sigma0_a ~ U(0, 1000 sd(xbar_a)), nu with the pairwise model's prior
(:func:`pp_corr.hierarchical.priors.nu_log_prior`).

For k > 2 the sampler sees Sigma0 and the V_i as regressions of each coordinate on those before it, in an order
that puts near-copies last (:mod:`.covariance`: the same prior, through the Jacobian): two near-identical
algorithms then give a slope near 1 and a small sd, not two sds that must agree to a fraction of their
uncertainty. Where the data leave Sigma0 vague (its sds could be near 0), a population slope on a coordinate
with a small sd is free over a range that grows as that sd shrinks: a funnel. So each population slope is sampled
relative to the ratio of the two sds to a power w between 0 (the slope itself: near-copies, or sds the data pin)
and 1 (a standardised slope, where an sd is vague; :func:`_slope_scaling`); so is each data set's slope, which
matters where algorithms agree on every fold of a data set (uci54's hayes-roth: three coordinates without spread).
delta0 is sampled through a fixed affine map from the data (:func:`_delta0_basis`: the mean of the xbar_i and the
Cholesky factor of their covariance over q), which takes out the near-copies' correlation of delta0 without tying
it to the slopes. On uci54's five classifiers (j48 and j48gr tie on 82% of the folds) the step size went from 0.01
with trees of 1,000 steps (R-hat 1.16) to 0.25-0.29 with 15.

Two forms of this one posterior, as in the pairwise model: the
``"centered"`` form samples delta_i itself (fast, and mixes well when each data set's folds pin its delta_i);
the ``"marginal"`` form writes the population as a normal scale mixture with delta_i integrated out (it holds
in the funnel where near-identical algorithms put Sigma0 near 0):

    dbar_i | delta0, Sigma0, lambda_i, Sigma_i ~ N_m(delta0, Sigma0 / lambda_i + c_i Sigma_i),
    lambda_i ~ Gamma(nu/2, rate nu/2),

and each draw of delta_i comes afterwards from its exact conditional normal: with A = Sigma0 / lambda_i and
B = c_i Sigma_i, mean delta0 + A (A + B)^-1 (dbar_i - delta0) and covariance A - A (A + B)^-1 A (no inverse of
Sigma0, which nearly identical algorithms make nearly singular). At k = 2 this is exactly the pairwise model.

Every pairwise contrast then comes from the same draws: delta0_b - delta0_a for the population, and for a new
data set delta_new ~ t_nu(delta0, Sigma0), whose contrast (e_b - e_a)^T delta_new is t_nu with scale
sqrt((e_b - e_a)^T Sigma0 (e_b - e_a)) - the pairwise model's new-data-set probabilities, per pair.

A data set where some algorithms have no score observes the differences among those it has, y_i = T_i d: the
likelihood above with T_i delta_i, T_i Sigma_i T_i^T and T_i Sigma0 T_i^T, the exact marginal (:mod:`.joint_data`).

Its Sigma_i has its prior in the data set's own coordinates z (:func:`_dataset_basis`, x = B_i z): z_a = y_a, the
difference of each present algorithm a from the data set's own reference r (the reference where present, else its
first algorithm present) in the unit s_a, and z_r = x_r; on z, V_i has the uniform sds and LKJ(eta) prior above. The
data see the block of the p observed z_a alone, so every other coordinate - an absent algorithm's, and r's own where
the data set lacks the reference - is integrated out of the prior: the block keeps uniform sds and an LKJ(eta +
(m - p)/2) correlation, the marginal of an LKJ block (:func:`.covariance.regression_covariance`), and the sampler meets
no parameter the data do not see (the others' free values are standard normal; their rows of Sigma_i, and so
``sigma_scaled`` where a data set does not observe a coordinate - every coordinate of one lacking the reference, x_a =
z_a + (s_r / s_a) z_r - mean nothing). Why z and not x: the reference is already an arbitrary choice of the complete
model (the priors depend on it a little, the likelihood not), and z are the coordinates the complete model would have
with r as its reference (up to the unit of r's own, integrated out), so each data set's prior is that model's prior in
the reference the data set observes; the Sigma_i are independent a priori, so stating each in its own coordinates
still makes one model, and on a data set with the reference z = x: a complete design's model is unchanged. Set on x,
the prior tied the observed block to x_r, seen by no data, whose conditional prior then had several modes: uci54 with
10% of its cells removed, the 5 data sets lacking only aode had R-hat up to 4 in x_r's slopes.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd
import pymc as pm
import pytensor.tensor as pt
from scipy import stats

from .._args import as_generator, as_rope, check_probability_level, check_real
from ..sampling import RefittableModel
from .covariance import covariance_values, pivot_order, regression_covariance, regression_values
from ..results import Result, python_values
from .fit import CHECKED, check_fit_settings, fit_with_policy, unconverged_lines
from .fit import DEFAULT as PAIRWISE_DEFAULT, ROBUST as PAIRWISE_ROBUST
from .joint_data import JointData, prepare_joint
from .model import centred_uniform
from .preparation import SIGMA_CEILING, SIGMA_FLOOR
from .priors import check_hyperprior_name, check_prior_bounds, nu_variable, standardised_mixing

FORMS = ("centered", "marginal")
# marginal first: on uci54's five classifiers, target_accept 0.8 took 31 leapfrog steps a draw, 0.9 took 60 for the
# same ESS (450-550, R-hat at 1.01); the centred form meets the delta_i funnel of near-identical algorithms
DEFAULT = {"form": "marginal", "draws": 1000, "tune": 1000, "target_accept": 0.8}
ROBUST = {"form": "marginal", "draws": 2000, "tune": 2000, "target_accept": 0.95}
PAIRS_CHECKED = ("delta0_pair", "sigma0_pair")  # checked too: what every pair's line reports (pair_contrasts)
NEW_PER_DRAW = 20  # draws of a new data set's delta per posterior draw, for P(best) and ranks on a new data set


def _check_form(form):
    if not isinstance(form, str) or form not in FORMS:
        raise ValueError(f"form must be one of {list(FORMS)}, got {form!r}")


def _limits(data: JointData, bounds) -> dict:
    """The prior's limits per coordinate in its unit s_a (the pairwise model's, coordinate by coordinate)."""
    xbar = data.mean / data.scale
    limits = {"delta0": np.maximum(data.max_abs / data.scale, 1e-6),
              "sigma0": 1000 * np.maximum(np.std(xbar, axis=0, ddof=1), 1e-3),
              "sigma": (SIGMA_FLOOR, SIGMA_CEILING * np.maximum(1.0, data.sd / data.scale))}
    limits.update(bounds or {})
    return limits


def joint_model(x, *, algorithms=None, reference=None, rho=None, n_test=None, n_train=None, folds=None,
                priors="current", scale=None, bounds=None, eta=1.0, missing="marginalise",
                form="marginal") -> pm.Model:
    """The joint hierarchical model of k algorithms (the module docstring gives its mathematics).

    ``x`` is a scores Dataset (:func:`pp_corr.load_scores`; all its algorithms, or ``algorithms``) or an array
    (data sets, folds, algorithms) with ``rho``, ``n_test``/``n_train`` or ``folds``. Ragged designs are NaN
    padding in either: each data set uses its complete folds. ``reference`` (default: the first algorithm) is
    the baseline of the coordinates: the likelihood does not depend on it, the priors (set on the coordinates)
    do, a little. An algorithm without scores on a data set is integrated out there by default
    (``missing="marginalise"``: the data set observes the differences among the algorithms it has, an exact
    marginal of the model, :mod:`.joint_data`), and folds lacking a present algorithm's score are dropped with a
    warning naming them; ``missing="drop"`` drops such data sets too, ``missing="raise"`` refuses any gap.
    ``priors``, ``scale`` (one unit, or one per non-reference algorithm) and ``bounds`` are those of
    :func:`pp_corr.hierarchical_model`, per coordinate;
    ``eta`` is the LKJ shape of the correlation matrices (1: uniform); ``form`` ``"centered"`` or
    ``"marginal"`` (the module docstring).

    Variables: ``delta0_scaled``, ``sigma0_scaled`` (dim ``algorithm``: the non-reference algorithms),
    ``nu``, ``sigma_scaled`` (``dataset`` x ``algorithm``: the sds of Sigma_i), ``delta_scaled`` (centred) or
    ``lambda`` (marginal), ``delta0``, ``sigma0`` (and ``delta``) in the scores' units; for k > 2 also ``corr0``
    (R0) and the values the sampler sees (:mod:`.covariance`): ``population_log_sd``,
    ``population_slopes``, ``dataset_log_sd``, ``dataset_slopes`` and ``delta0_standardised``. The observed
    statistics are ``pm.Data`` (``dbar_obs``, ``scatter_obs``, in units of s), and so are the sampler's fixed maps
    made from the data (``delta0_centre``, ``delta0_basis``, ``population_scaling``, ``dataset_scaling``; with
    gaps ``transform``, ``padding``, ``dataset_present`` and ``dataset_basis``, each data set's coordinates): a
    compiled model refits to new data of the same shape (in the first data's order of the coordinates: the same
    model, sampled less well if the data differ much).

    >>> import numpy as np
    >>> scores = np.random.default_rng(0).normal([0.80, 0.82, 0.85], 0.02, (6, 10, 3))
    >>> model = joint_model(scores, folds=10, algorithms=["a", "b", "c"])
    >>> list(model.coords["algorithm"]), sorted(v.name for v in model.free_RVs)[:3]
    (['b', 'c'], ['dataset_log_sd', 'dataset_slopes', 'delta0_standardised'])
    """
    check_real("eta", eta, low=0, low_open=True)
    _check_form(form)
    data = prepare_joint(x, algorithms, reference, rho, n_test, n_train, folds, scale, missing)
    return _build(data, priors, check_prior_bounds(bounds), eta, form)


def _build(data: JointData, priors, bounds, eta=1.0, form="marginal") -> pm.Model:
    check_hyperprior_name(priors)
    _check_form(form)
    s = np.asarray(data.scale, dtype=np.float64)
    limits = _limits(data, bounds)
    q, m = data.mean.shape
    others = list(data.algorithms[1:])
    coords = {"dataset": data.datasets, "algorithm": others, "algorithm_2": others}
    orders = _orders(data) if m > 1 else None
    values = _data_values(data, orders)
    with pm.Model(coords=coords) as model:
        dbar = pm.Data("dbar_obs", values["dbar_obs"], dims=("dataset", "algorithm"))
        scatter = pm.Data("scatter_obs", values["scatter_obs"], dims=("dataset", "algorithm", "algorithm_2"))
        nu = nu_variable(priors)
        # static shapes: Numba runs the gradient's batched AllocDiag in object mode (Python, under the GIL) when its
        # matrices' size is symbolic (uci54 with 24 gappy data sets: 2.5x the time of a log density and gradient)
        gaps = None if data.transform is None else (
            pt.specify_shape(pm.Data("transform", values["transform"]), (q, m, m)),
            pt.specify_shape(pm.Data("padding", values["padding"]), (q, m)))
        if m > 1:
            delta0, cov0, cov = _covariance_blocks(data, limits, eta, values, orders)
        else:  # the pairwise model's variables
            delta0 = centred_uniform("delta0_scaled", limits["delta0"], dims="algorithm")
            sigma0 = pm.Uniform("sigma0_scaled", 0, limits["sigma0"], dims="algorithm")
            sigma = pm.Uniform("sigma_scaled", *limits["sigma"], dims=("dataset", "algorithm"))
            cov0, cov = sigma0[:, None] ** 2, sigma[:, :, None] ** 2
        root = pt.sqrt(cov) if m == 1 else pt.linalg.cholesky(_seen(cov, gaps))  # of Sigma_i (as observed)
        if form == "marginal":  # delta_i integrated out given lambda_i; drawn afterwards (_draw_delta)
            lam = pm.Gamma("lambda", alpha=nu / 2, beta=nu / 2, dims="dataset") if m == 1 else standardised_mixing(nu)
            total = cov0[None] / lam[:, None, None] + data.c()[:, None, None] * cov
            if m > 1:
                pm.MvNormal("dbar", mu=_seen_mean(delta0, gaps), cov=_seen(total, gaps), observed=dbar,
                            dims=("dataset", "algorithm"))
            else:  # k = 2 in the pairwise model's univariate laws: Numba runs the batched m = 1 gradients in Python
                pm.Normal("dbar", mu=delta0, sigma=pt.sqrt(total[..., 0]), observed=dbar, dims=("dataset", "algorithm"))
        else:
            if m > 1:
                delta = pm.MvStudentT("delta_scaled", nu=nu, mu=delta0, scale=cov0, dims=("dataset", "algorithm"))
                pm.MvNormal("dbar", mu=_seen_mean(delta, gaps), chol=np.sqrt(data.c())[:, None, None] * root,
                            observed=dbar, dims=("dataset", "algorithm"))
            else:
                delta = pm.StudentT("delta_scaled", nu=nu, mu=delta0, sigma=pt.sqrt(cov0[0]),
                                    dims=("dataset", "algorithm"))
                pm.Normal("dbar", mu=delta, sigma=np.sqrt(data.c())[:, None] * root[..., 0], observed=dbar,
                          dims=("dataset", "algorithm"))
            pm.Deterministic("delta", delta * s, dims=("dataset", "algorithm"))
        # S_i ~ Wishart(n_i - 1, (1 - rho_i) Sigma_i): its parameter-dependent part, through root = chol(Sigma_i)
        log_det = m * np.log(1 - data.rho) + 2 * pt.log(pt.diagonal(root, axis1=-2, axis2=-1)).sum(axis=-1)
        half = pt.linalg.solve_triangular(root, scatter, lower=True)  # L^-1 S
        whitened = pt.linalg.solve_triangular(root, half.mT, lower=True)  # L^-1 S L^-T
        trace = pt.diagonal(whitened, axis1=-2, axis2=-1).sum(axis=-1) / (1 - data.rho)
        pm.Potential("scatter", pt.sum(-(data.n - 1) / 2 * log_det - trace / 2))
        pm.Deterministic("delta0", delta0 * s, dims="algorithm")
        pm.Deterministic("sigma0", model["sigma0_scaled"] * s, dims="algorithm")
    return model


def _seen(matrix, gaps):
    """T_i M T_i^T + E_i, the covariance of what data set i observes (:mod:`.joint_data`), for M (q or 1, m, m);
    M itself for a complete design (``gaps`` None)."""
    if gaps is None:
        return matrix
    transform, padding = gaps
    return transform @ matrix @ transform.mT + padding[:, :, None] * pt.eye(padding.shape[-1])


def _seen_mean(vector, gaps):
    """T_i v for v (m,) or (q, m): the mean of what data set i observes; v itself for a complete design."""
    return vector if gaps is None else (gaps[0] @ vector[..., None])[..., 0]


def _estimates(data: JointData) -> tuple[np.ndarray, np.ndarray]:
    """Rough estimates of Sigma0 (m x m) and of the V_i (q, m, m), units of s, each at least the floor f^2 I:
    the sampler's order of the coordinates (:func:`.covariance.pivot_order`) and its initial values."""
    floor = SIGMA_FLOOR**2 * np.eye(data.mean.shape[1])
    cov0 = np.cov(data.mean / data.scale, rowvar=False) + floor
    cov = data.scatter / np.outer(data.scale, data.scale) / ((data.n - 1) * (1 - data.rho))[:, None, None] + floor
    return cov0, cov


def _orders(data: JointData) -> tuple[np.ndarray, np.ndarray]:
    """The sampler's orders of the coordinates (k > 2): for Sigma0 (m,) and for each V_i (q, m), pivoted
    (:func:`.covariance.pivot_order`) on :func:`_estimates`; with gaps, each data set's coordinates are those of
    :func:`_dataset_basis`, those it observes first (:func:`_observed`), the others last: its prior is then that of
    the first block, the others integrated out (:func:`.covariance.regression_covariance`)."""
    estimate0, estimates = _estimates(data)
    orders = pivot_order(estimates)
    if data.transform is not None:
        unseen = ~np.take_along_axis(_observed(data), orders, axis=-1)
        orders = np.take_along_axis(orders, np.argsort(unseen, axis=-1, kind="stable"), axis=-1)
    return pivot_order(estimate0), orders


def _observed(data: JointData) -> np.ndarray:
    """(q, m) per data set, whether its coordinate a of :func:`_dataset_basis` is observed: a present algorithm's
    difference from the data set's own reference (a row e_a - (s_r / s_a) e_r of its map, :mod:`.joint_data`); not the
    own reference r's coordinate, which no difference reads alone, nor an absent algorithm's."""
    return (data.transform > 0).any(axis=-2)


def _dataset_basis(data: JointData, orders) -> np.ndarray:
    """(q, m, m) per data set the map B_i from its coordinates z, in ``orders[1]``, to the model's x (units of s),
    x = B_i z. z = x but where a data set lacks the reference: there z_a = x_a - (s_r / s_a) x_r, the observed
    difference of each present algorithm a from the data set's own reference r, and z_r = x_r. Sigma_i's prior is set
    on cov(z) (the module docstring): the data see z_r in no difference, so it is integrated out, as an absent
    algorithm is. With the prior set on x instead, z_r, seen by no data, kept a conditional prior of several modes
    (uci54, 5 data sets lacking only aode: R-hat up to 4 in its slopes), and sampled in x the common part of the
    present coordinates was a curved ridge (nutpie's chains stopped at a log density that failed)."""
    q, m = data.mean.shape
    basis = np.broadcast_to(np.eye(m), (q, m, m)).copy()
    own = (data.transform < 0).any(axis=-2)  # the own reference's column, where a data set lacks the reference
    for i, r in zip(*np.nonzero(own)):
        rows = np.flatnonzero(data.transform[i, :, r])
        basis[i, data.transform[i, rows].argmax(axis=-1), r] = -data.transform[i, rows, r]
    return np.take_along_axis(basis, orders[1][:, None, :], axis=-1)


def _slope_scaling(estimate, noise, order) -> np.ndarray:
    """The exponent w of each slope's scaling (:func:`.covariance.regression_covariance`) for covariances
    estimated as ``estimate`` (..., m, m), of which ``noise`` (..., m) is the part the data cannot tell from 0, in
    ``order`` (..., m): w = (1 - r^2) u for the slope of coordinate j on k, r their partial correlation in the
    estimate and u the larger noise share of the two variances. w is near 0 (the slope itself) where the data pin
    both sds, or where one coordinate nearly copies the other (then the slope, near 1, is the well-known
    quantity), and grows to 1 (the slope relative to the ratio of the sds, free of the funnel) where an sd is
    vague."""
    partial = regression_values(estimate, order, scaling=1.0)[1]  # standardised slopes: r / sqrt(1 - r^2)
    tri = np.tril_indices(np.shape(order)[-1], -1)
    share = np.take_along_axis(np.clip(noise / np.diagonal(estimate, axis1=-2, axis2=-1), 0, 1), order, axis=-1)
    return np.maximum(share[..., tri[0]], share[..., tri[1]]) / (1 + partial**2)


def _scalings(data: JointData, orders) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_slope_scaling` of Sigma0 (noise: the data sets' own, c_i Sigma_i, on average) and of the V_i
    (noise: the floor f^2: a coordinate without spread on a data set, where algorithms agree on every fold, is
    all noise) in ``orders`` (:func:`_orders`)."""
    estimate0, estimates = _estimates(data)
    noise0 = np.mean(data.c()[:, None] * np.diagonal(estimates, axis1=1, axis2=2), axis=0)
    floor = np.full(data.mean.shape, SIGMA_FLOOR**2)
    return _slope_scaling(estimate0, noise0, orders[0]), _slope_scaling(estimates, floor, orders[1])


def _delta0_basis(data: JointData) -> tuple[np.ndarray, np.ndarray]:
    """The fixed affine map of delta0's free values (units of s): the mean of the data sets' mean differences and
    the Cholesky factor of their covariance over q (with the floor f^2 I), about delta0's posterior location and
    spread. Near-identical algorithms give a correlation near 1 here, which the map takes out."""
    xbar = data.mean / data.scale
    cov = np.cov(xbar, rowvar=False) / len(xbar) + SIGMA_FLOOR**2 * np.eye(xbar.shape[1])
    return xbar.mean(axis=0), np.linalg.cholesky(cov)


def _covariance_blocks(data: JointData, limits, eta, values, orders):
    """delta0, Sigma0 and the Sigma_i (units of s) for k > 2, as regressions (the module docstring) in ``orders``
    (:func:`_orders`), with the deterministics ``delta0_scaled``, ``sigma0_scaled``, ``corr0`` and ``sigma_scaled``
    (sds of Sigma_i); the fixed maps are ``values``' (:func:`_data_values`)."""
    m = data.mean.shape[1]
    order0, orders = orders
    cov0, sigma0 = regression_covariance("population", limits["sigma0"], order0, eta,
                                         pm.Data("population_scaling", values["population_scaling"]))
    # delta0 = M tanh(raw / M) inside its box (-M, M), raw = centre + basis v with v free (a fixed affine map, from
    # the data: :func:`_delta0_basis`): U(-M, M) on delta0 is sech^2(raw / M) / 2M on raw
    standardised = pm.Flat("delta0_standardised", shape=m)
    raw = (pm.Data("delta0_centre", values["delta0_centre"]) + pm.Data("delta0_basis", values["delta0_basis"])
           @ standardised) / limits["delta0"]
    delta0 = limits["delta0"] * pt.tanh(raw)
    pm.Potential("delta0_prior", pt.sum(2 * (np.log(2) - pt.abs(raw) - pt.log1p(pt.exp(-2 * pt.abs(raw))))))
    present, basis = ((None, None) if "dataset_present" not in values else
                      [pt.specify_shape(pm.Data(name, values[name]), values[name].shape)
                       for name in ("dataset_present", "dataset_basis")])
    free, _ = regression_covariance("dataset", limits["sigma"][1], orders, eta,
                                    pm.Data("dataset_scaling", values["dataset_scaling"]), present, basis)
    cov = free + SIGMA_FLOOR**2 * pt.eye(m)
    pm.Deterministic("delta0_scaled", delta0, dims="algorithm")
    pm.Deterministic("sigma0_scaled", sigma0, dims="algorithm")
    pm.Deterministic("corr0", cov0 / (sigma0[:, None] * sigma0[None, :]), dims=("algorithm", "algorithm_2"))
    pm.Deterministic("sigma_scaled", pt.sqrt(pt.diagonal(cov, axis1=-2, axis2=-1)), dims=("dataset", "algorithm"))
    return delta0, cov0, cov


def _start(data: JointData, limits, form, orders=None) -> dict:
    """Initial values near the data, coordinate by coordinate as the pairwise model's (see
    :func:`pp_corr.hierarchical.preparation.start_values`); for k > 2 the covariances start at :func:`_estimates`,
    in ``orders`` (those of the model being fitted; default :func:`_orders` of ``data``: a model refitted to new data
    keeps its first data's orders)."""
    xbar = data.mean / data.scale
    centre = np.median(xbar, axis=0)
    spread = np.maximum(1.4826 * np.median(np.abs(xbar - centre), axis=0), 0.1)
    lo, hi = limits["sigma"]

    def inside(value, low, high):
        return np.clip(value, low + 1e-6 * (high - low), high - 1e-6 * (high - low))

    if data.mean.shape[1] > 1:
        estimate0, estimates = _estimates(data)
        order0, dataset_orders = orders or _orders(data)
        scaling0, scaling = _scalings(data, (order0, dataset_orders))
        start = dict(zip(("population_log_sd", "population_slopes"), regression_values(estimate0, order0, scaling0)))
        start.update(zip(("dataset_log_sd", "dataset_slopes"), regression_values(estimates, dataset_orders, scaling)))
        raw = np.arctanh(inside(centre, -limits["delta0"], limits["delta0"]) / limits["delta0"]) * limits["delta0"]
        offset, basis = _delta0_basis(data)
        start["delta0_standardised"] = np.linalg.solve(basis, raw - offset)
    else:
        start = {"delta0_scaled": inside(centre, -limits["delta0"], limits["delta0"]),
                 "sigma0_scaled": inside(spread, 0, limits["sigma0"]),
                 "sigma_scaled": inside(np.maximum(data.sd / data.scale, 0.1), lo, hi)}
    if form == "centered":
        se2 = (data.sd / data.scale) ** 2 * data.c()[:, None]
        start["delta_scaled"] = centre + (xbar - centre) * spread**2 / (spread**2 + se2)
    return start


def _population_covariance(post) -> np.ndarray:
    """Sigma0 per draw (chain, draw, m, m), units of s."""
    sigma0 = post["sigma0_scaled"].values
    if "corr0" not in post:  # k = 2
        return sigma0[..., None] ** 2
    return sigma0[..., :, None] * post["corr0"].values * sigma0[..., None, :]


def _population(post, data: JointData) -> tuple[np.ndarray, np.ndarray]:
    """Per draw the population levels (chain, draw, k) relative to the reference (0 for it) and Sigma0 (chain, draw,
    k, k, zero row and column for the reference), in the scores' units."""
    levels = _with_reference(post["delta0"].values)
    cov0 = np.zeros(levels.shape + (levels.shape[-1],))
    cov0[..., 1:, 1:] = _population_covariance(post) * np.outer(data.scale, data.scale)
    return levels, cov0


def _with_reference(values) -> np.ndarray:
    """``values`` (..., m) relative to the reference with the reference's own 0 first: (..., k)."""
    return np.concatenate([np.zeros(values.shape[:-1] + (1,)), values], axis=-1)


def pair_contrasts(levels, cov0) -> tuple[np.ndarray, np.ndarray]:
    """For every pair (a, b) of the k algorithms, a before b (``itertools.combinations`` order), the population
    difference delta0_b - delta0_a and the sd of a data set's difference about it, sqrt((e_b - e_a)^T Sigma0
    (e_b - e_a)): arrays (..., pairs) from ``levels`` (..., k) and ``cov0`` (..., k, k).

    >>> diff, sd = pair_contrasts(np.array([0.0, 1.0, 3.0]), np.diag([0.0, 4.0, 9.0]))
    >>> diff.tolist(), sd.tolist()
    ([1.0, 3.0, 2.0], [2.0, 3.0, 3.605551275463989])
    """
    first, second = np.array(list(combinations(range(levels.shape[-1]), 2))).T
    diff = levels[..., second] - levels[..., first]
    variance = cov0[..., first, first] + cov0[..., second, second] - 2 * cov0[..., first, second]
    return diff, np.sqrt(np.maximum(variance, 1e-300))


def _add_pair_contrasts(idata, data: JointData):
    """``idata`` with every pair's :func:`pair_contrasts` in its posterior, ``delta0_pair`` and ``sigma0_pair`` (dim
    ``pair``, labelled "b - a"): what :meth:`JointResult.pairs` reports, so convergence is checked on them too."""
    diff, sd = pair_contrasts(*_population(idata.posterior, data))
    labels = [f"{b} - {a}" for a, b in combinations(data.algorithms, 2)]
    dims = ("chain", "draw", "pair")
    idata["posterior"] = idata.posterior.to_dataset().assign_coords(pair=labels).assign(
        delta0_pair=(dims, diff), sigma0_pair=(dims, sd))
    return idata


def _dataset_covariances(post, data: JointData) -> np.ndarray:
    """The Sigma_i per draw (chain, draw, q, m, m), units of s."""
    if "dataset_log_sd" not in post:  # k = 2
        return post["sigma_scaled"].values[..., None] ** 2
    orders = _orders(data)
    basis = None if data.transform is None else _dataset_basis(data, orders)
    cov = covariance_values(post["dataset_log_sd"].values, post["dataset_slopes"].values, orders[1],
                            _scalings(data, orders)[1], basis)
    return cov + SIGMA_FLOOR**2 * np.eye(data.mean.shape[1])


def _data_values(data: JointData, orders) -> dict:
    """The values of the model's data containers for ``data``: the statistics (units of s) and, for k > 2, the
    sampler's fixed maps in ``orders`` (:func:`_orders`; a compiled model refitted to new data keeps its first
    data's orders, :class:`pp_corr.sampling.RefittableModel`)."""
    s = data.scale
    values = {"dbar_obs": data.mean / s, "scatter_obs": data.scatter / np.outer(s, s)}
    if data.transform is not None:  # what the data sets observe, the maps to it and the padding
        values = {"dbar_obs": data.observed_mean, "scatter_obs": data.observed_scatter,
                  "transform": data.transform, "padding": data.padding}
    if orders is not None:
        values["delta0_centre"], values["delta0_basis"] = _delta0_basis(data)
        values["population_scaling"], values["dataset_scaling"] = _scalings(data, orders)
        if data.transform is not None:  # each data set's coordinates (:func:`_dataset_basis`), those it sees first
            values["dataset_present"] = np.take_along_axis(_observed(data), orders[1], axis=-1) * 1.0
            values["dataset_basis"] = _dataset_basis(data, orders)
    return values


def _draw_delta(idata, data: JointData, random_seed):
    """Add delta_i (``delta_scaled``; ``delta`` in the scores' units) to the posterior: per draw, from its
    exact conditional normal given delta0, Sigma0, lambda_i, Sigma_i and what data set i observes, y_i = T_i dbar_i
    (T_i = I in a complete design, :mod:`.joint_data`): with A = Sigma0 / lambda_i, B = c_i Sigma_i and the gain
    K = A T^T (T (A + B) T^T + E)^-1, mean delta0 + K (y_i - T delta0) and covariance A - K T A (the module
    docstring; with T = I the same bits as A (A + B)^-1)."""
    post = idata.posterior
    rng = as_generator(random_seed)
    cov0, cov = _population_covariance(post), _dataset_covariances(post, data)
    a = cov0[:, :, None] / post["lambda"].values[..., None, None]
    b = data.c()[:, None, None] * cov
    q, m = data.mean.shape
    if data.transform is None:
        t, seen, y = np.broadcast_to(np.eye(m), (q, m, m)), a + b, data.mean / data.scale
    else:
        t, y = data.transform, data.observed_mean
        seen = t @ (a + b) @ np.swapaxes(t, -1, -2) + data.padding[:, :, None] * np.eye(m)
    gain = np.swapaxes(np.linalg.solve(seen, t @ np.swapaxes(a, -1, -2)), -1, -2)  # A T^T S^-1 (S symmetric)
    d0 = post["delta0_scaled"].values[:, :, None, :]
    mean = d0 + (gain @ (y - (t @ d0[..., None])[..., 0])[..., None])[..., 0]
    spread = a - gain @ (t @ a)
    spread = 0.5 * (spread + np.swapaxes(spread, -1, -2))
    values, vectors = np.linalg.eigh(spread)  # PSD: a Cholesky factor may not exist when A is nearly singular
    root = vectors * np.sqrt(np.clip(values, 0, None))[..., None, :]
    delta = mean + (root @ rng.standard_normal(mean.shape + (1,)))[..., 0]
    dims = ("chain", "draw", "dataset", "algorithm")
    idata["posterior"] = post.to_dataset().assign(delta_scaled=(dims, delta), delta=(dims, delta * data.scale))
    return idata


@dataclass(frozen=True, repr=False)
class JointResult(Result):
    """Posterior of the joint model of k algorithms, in the units of the scores. Its :meth:`decision` names the
    algorithm that is the best in the population (largest delta0) with probability above 1 - alpha, else
    ``"none"`` (also when the fit did not converge); :meth:`to_frame` is :meth:`pairs`.

    Differences read "b - a" with a before b in :attr:`algorithms`' order, as in the pairwise tests:
    ``p_left`` = P(a better), ``p_right`` = P(b better). ``convergence_problems`` and ``attempts`` are as in
    :class:`pp_corr.HierarchicalResult`; an unconverged result gives no verdict in its summary.
    """

    idata: object
    data: JointData
    rope: tuple[float, float]
    random_seed: object
    convergence_problems: tuple[str, ...] = ()
    attempts: tuple[dict, ...] = ()

    @property
    def converged(self) -> bool:
        return not self.convergence_problems

    @property
    def algorithms(self) -> tuple[str, ...]:
        return self.data.algorithms

    def _levels(self, name="delta0") -> np.ndarray:
        """(draws, k) population levels relative to the reference (0 for it), the scores' units; ``"delta"``
        gives (draws, q, k) per data set."""
        values = self.idata.posterior[name].values
        return _with_reference(values.reshape(-1, *values.shape[2:]))

    def _sigma0_full(self) -> tuple[np.ndarray, np.ndarray]:
        """(draws, k, k) Sigma0 in the scores' units (zero row and column for the reference) and nu (draws,)."""
        cov0 = _population(self.idata.posterior, self.data)[1]
        return cov0.reshape(-1, *cov0.shape[2:]), self.idata.posterior["nu"].values.ravel()

    def pairs(self, confidence_level=0.95) -> pd.DataFrame:
        """Every pair (a, b): the population difference delta0_b - delta0_a (mean, interval, P(> 0)) and a new
        data set's probabilities (``p_*`` posterior means; ``win_*`` shares of draws where each region is the
        largest, ties shared), as the pairwise hierarchical test reports them."""
        check_probability_level("confidence_level", confidence_level)
        tail = (1 - confidence_level) / 2
        cov0, nu = self._sigma0_full()
        differences, scales = pair_contrasts(self._levels(), cov0)
        lo, hi = self.rope
        records = []
        for p, (i, j) in enumerate(combinations(range(len(self.algorithms)), 2)):
            diff, scale = differences[:, p], scales[:, p]
            left, right = stats.t.cdf((lo - diff) / scale, nu), stats.t.sf((hi - diff) / scale, nu)
            inside = np.clip(1 - left - right, 0, 1)
            regions = np.stack([left, inside, right], axis=1)
            largest = regions == regions.max(axis=1, keepdims=True)
            wins = (largest / largest.sum(axis=1, keepdims=True)).mean(axis=0)
            records.append({"a": self.algorithms[i], "b": self.algorithms[j], "delta0_mean": diff.mean(),
                            "delta0_lower": np.quantile(diff, tail), "delta0_upper": np.quantile(diff, 1 - tail),
                            "p_delta0_positive": np.mean(diff > 0), "p_left": left.mean(), "p_rope": inside.mean(),
                            "p_right": right.mean(), "win_left": wins[0], "win_rope": wins[1],
                            "win_right": wins[2]})
        return pd.DataFrame.from_records(records)

    def ranking(self) -> pd.DataFrame:
        """Per algorithm, ordered by expected rank in the population: P(best) and expected rank (1 = best) in
        the population (delta0) and on a new data set (delta_new ~ t_nu(delta0, Sigma0), ``NEW_PER_DRAW``
        draws per posterior draw, seeded by the fit's ``random_seed``)."""
        levels, (cov0, nu) = self._levels(), self._sigma0_full()
        rng = as_generator(self.random_seed)
        k = len(self.algorithms)
        values, vectors = np.linalg.eigh(cov0)
        root = vectors * np.sqrt(np.clip(values, 0, None))[:, None, :]
        z = rng.standard_normal((len(levels), NEW_PER_DRAW, k))
        lam = rng.gamma(nu[:, None] / 2, 2 / nu[:, None], size=z.shape[:2])
        new = levels[:, None, :] + np.einsum("dij,dnj->dni", root, z) / np.sqrt(lam)[..., None]
        frame = pd.DataFrame({"P(best)": _best_share(levels), "expected rank": _ranks(levels).mean(axis=0),
                              "P(best) new data set": _best_share(new.reshape(-1, k)),
                              "expected rank new data set": _ranks(new.reshape(-1, k)).mean(axis=0)},
                             index=pd.Index(self.algorithms, name="algorithm"))
        return frame.sort_values("expected rank")

    def datasets(self, confidence_level=0.95) -> pd.DataFrame:
        """The shrunk per-data-set difference delta_ib - delta_ia of every pair: mean, interval and rope
        probabilities, one row per (data set, pair)."""
        check_probability_level("confidence_level", confidence_level)
        tail = (1 - confidence_level) / 2
        delta = self._levels("delta")  # (draws, q, k)
        lo, hi = self.rope
        frames = []
        for i, j in combinations(range(len(self.algorithms)), 2):
            diff = delta[:, :, j] - delta[:, :, i]
            frames.append(pd.DataFrame({
                "a": self.algorithms[i], "b": self.algorithms[j], "dataset": self.data.datasets,
                "mean": diff.mean(axis=0), "lower": np.quantile(diff, tail, axis=0),
                "upper": np.quantile(diff, 1 - tail, axis=0), "p_left": (diff < lo).mean(axis=0),
                "p_rope": ((diff >= lo) & (diff <= hi)).mean(axis=0), "p_right": (diff > hi).mean(axis=0)}))
        return pd.concat(frames, ignore_index=True)

    def to_frame(self, *, confidence_level=0.95) -> pd.DataFrame:
        """:meth:`pairs`: one row per pair of algorithms."""
        return self.pairs(confidence_level)

    def _decide(self, alpha) -> str:
        return self._verdict(alpha) if self.converged else "none"

    def _verdict(self, alpha) -> str:
        """The algorithm best in the population with probability above 1 - alpha (converged or not), or "none"."""
        best = _best_share(self._levels())
        return self.algorithms[int(np.argmax(best))] if best.max() > 1 - alpha else "none"

    def to_dict(self, *, confidence_level=0.95) -> dict:
        """Plain Python values (JSON-ready): settings, the absent cells integrated out, the decision at 0.05,
        ranking, pairs, convergence."""
        return python_values({"test": "joint hierarchical", "algorithms": list(self.algorithms),
                              "rope": list(self.rope), "n_datasets": len(self.data.datasets),
                              "absent": {d: list(a) for d, a in self.data.absent},
                              "confidence_level": confidence_level, "decision": self.decision(),
                              "converged": self.converged, "convergence_problems": list(self.convergence_problems),
                              "attempts": [dict(a) for a in self.attempts],
                              "ranking": self.ranking().reset_index().to_dict(orient="records"),
                              "pairs": self.pairs(confidence_level).to_dict(orient="records")})

    def summary(self, *, allow_unconverged=False, alpha=None) -> str:
        """The verdict in words: the ranking, every pair's new-data-set probabilities and the decision at
        ``alpha`` (default 0.05); an unconverged result gives its diagnostics instead (or, with
        ``allow_unconverged``, the numbers under NOT CONVERGED)."""
        lines = [f"Joint hierarchical model, {len(self.algorithms)} algorithms on {len(self.data.datasets)} data sets, "
                 f"rope {self.rope}"]
        if self.data.absent:
            shown = "; ".join(f"{d} lacks {', '.join(a)}" for d, a in self.data.absent[:5])
            lines.append(f"  {len(self.data.absent)} data set{'s' * (len(self.data.absent) != 1)} without some "
                         f"algorithms, integrated out there: {shown}{' ...' if len(self.data.absent) > 5 else ''}")
        if not self.converged:
            lines += unconverged_lines(self.attempts, self.convergence_problems, allow_unconverged)
            if not allow_unconverged:
                return "\n".join(lines)
        ranking = self.ranking()
        lines.append(ranking.to_string(float_format=lambda v: f"{v:.3f}"))
        table = self.pairs()[["a", "b", "p_delta0_positive", "p_left", "p_rope", "p_right"]]
        table.columns = ["a", "b", "P(delta0 b-a > 0)", "new: P(a better)", "new: P(rope)", "new: P(b better)"]
        lines.append(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
        alpha = self._alpha(alpha)
        lines.append(f"decision at alpha = {alpha:g}: {self._verdict(alpha)} (the best in the population with "
                     f"probability above {1 - alpha:g}, else none)")
        return "\n".join(lines)

    def __repr__(self):
        return self.summary()


def _ranks(levels) -> np.ndarray:
    """Ranks (1 = largest) of each row's values."""
    return (-levels).argsort(axis=1).argsort(axis=1) + 1.0


def _best_share(levels) -> np.ndarray:
    """The share of rows in which each column is the largest (ties shared)."""
    largest = levels == levels.max(axis=1, keepdims=True)
    return (largest / largest.sum(axis=1, keepdims=True)).mean(axis=0)


def joint_test(x, *, rope=0.01, algorithms=None, reference=None, rho=None, n_test=None, n_train=None, folds=None,
               priors="current", scale=None, bounds=None, eta=1.0, missing="marginalise", form=None, draws=None,
               tune=None, chains=4, random_seed=None, sampler="pymc", target_accept=None, retry=True,
               progressbar=False) -> JointResult:
    """Fit the joint hierarchical model of k algorithms (:func:`joint_model`) and summarise every pair and
    the ranking. Sampling settings and the convergence policy are those of
    :func:`pp_corr.hierarchical_test` (defaults :data:`DEFAULT`: marginal; one retry with :data:`ROBUST`:
    longer, smaller steps; at k = 2, the pairwise model, the pairwise policy: centred first); R-hat and bulk ESS
    are checked for delta0, sigma0, nu and every delta_i of every algorithm, and for every pair's population
    difference and sd (``delta0_pair``, ``sigma0_pair``: :func:`pair_contrasts`, in the posterior).

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)  # 12 data sets, each with its own level, 10 folds, 3 algorithms
    >>> scores = rng.normal([0.80, 0.81, 0.85], 0.02, (12, 10, 3)) + rng.normal(0, 0.02, (12, 1, 3))
    >>> res = joint_test(scores, folds=10, algorithms=["a", "b", "c"], random_seed=1, draws=500, tune=500,
    ...                  chains=2, retry=False)
    >>> res.converged, res.ranking().index[0], len(res.to_frame())
    (True, 'c', 3)
    """
    chains, given = check_fit_settings(_check_form, form=form, draws=draws, tune=tune,
                                       target_accept=target_accept, chains=chains, sampler=sampler,
                                       random_seed=random_seed)
    check_hyperprior_name(priors)
    bounds = check_prior_bounds(bounds)
    check_real("eta", eta, low=0, low_open=True)
    rope = as_rope(rope) or (0.0, 0.0)
    data = prepare_joint(x, algorithms, reference, rho, n_test, n_train, folds, scale, missing)

    # by form: a retry in the first attempt's form samples the model compiled for it. PyTensor's C backend takes
    # minutes to compile the batched matrix algebra, Numba seconds
    models = {}

    def fit(settings, stop_at_divergence):
        form = settings["form"]
        start = _start(data, _limits(data, bounds), form)
        if form not in models:
            models[form] = RefittableModel(_build(data, priors, bounds, eta, form),
                                           {name: np.shape(value) for name, value in start.items()}, sampler=sampler,
                                           compile_kwargs={"mode": "NUMBA"} if sampler == "pymc" else None)
        idata = models[form].fit({}, initvals=start, draws=settings["draws"], tune=settings["tune"], chains=chains,
                                 random_seed=random_seed, progressbar=progressbar,
                                 target_accept=settings["target_accept"], stop_at_divergence=stop_at_divergence)
        return _add_pair_contrasts(_draw_delta(idata, data, random_seed) if form == "marginal" else idata, data)

    # k = 2 is the pairwise model: its policy (centred first, where the marginal form's lambda_i slow nu down)
    policy = [DEFAULT, ROBUST] if data.mean.shape[1] > 1 else [PAIRWISE_DEFAULT, PAIRWISE_ROBUST]
    idata, problems, attempts = fit_with_policy(fit, policy, given, retry=retry, progressbar=progressbar,
                                                var_names=CHECKED + PAIRS_CHECKED, what="the joint model")
    return JointResult(idata, data, rope, random_seed, problems, attempts)
