"""The data of the hierarchical model (:mod:`.model`): each data set's summaries (n_i, mean, sd, rho_i), the
model's unit s (the median sd) and the warning for a data set far outside the others, the prior's limits, the
samplers' start values and the values of the model's data containers. The joint model (:mod:`.joint_data`) uses
the unit and the warning coordinate by coordinate.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from .._args import check_real
from ..pairwise.models import dataset_rows

SIGMA_FLOOR = 0.01  # lower bound of sigma_i, in units of s, the median within-data-set sd (see hierarchical_model)
SIGMA_CEILING = 1000.0  # upper bound of sigma_i: this many times the larger of s and the data set's sd
FAR_OUT = 100.0  # a data set whose sd, or whose mean's distance from the others', is this many times theirs


class OutlierWarning(UserWarning):
    """A data set lies far outside the others (its sd, or its mean's distance from theirs, is over 100 times
    theirs): check it for an error in the scores; the model's unit and prior limits are set to cover it."""


@dataclass(frozen=True)
class HierarchicalData:
    """Each data set's summaries (:func:`prepare_hierarchical`): all the hierarchical model needs of the scores."""

    datasets: list       # their names
    n: np.ndarray
    mean: np.ndarray     # per-data-set mean differences (original units)
    sd: np.ndarray       # per-data-set standard deviations (original units)
    rho: np.ndarray
    scale: float         # s, the median within-data-set sd (see model_unit): the model runs on x / s
    max_abs: float       # max |x| over all differences (original units): the range of delta0

    def ss(self, unit=1.0) -> np.ndarray:
        """Sums of squared deviations in units of ``unit`` (scaled first: squares of 1e-170 underflow)."""
        return (self.n - 1) * (self.sd / unit) ** 2


def model_unit(sd, mean) -> float:
    """The model's unit s: the median of the data sets' sds, so that no single data set sets it (their mean
    did: one absurd fold made every other data set look constant). When most data sets have zero variance, the
    median of the non-zero sds; when all have, the median of the non-zero |means|; else 1."""
    for values in (sd, sd[sd > 0], np.abs(mean)[mean != 0]):
        if values.size and np.median(values) > 0:
            return float(np.median(values))
    return 1.0


def warn_far_out(datasets, sd, mean, unit):
    """OutlierWarning naming each data set whose sd is over FAR_OUT times the median sd (``unit``), or whose
    mean is over FAR_OUT times further from the median mean than is typical (the larger of the median distance
    and ``unit``)."""
    centre = np.median(mean)
    distance = np.abs(mean - centre)
    typical = max(float(np.median(distance)), unit)
    notes = []
    for name, sd_i, d_i, mean_i in zip(datasets, sd, distance, mean):
        reasons = []
        if sd_i > FAR_OUT * unit:
            reasons.append(f"its sd {sd_i:.3g} is {sd_i / unit:.3g} times the median sd {unit:.3g}")
        if d_i > FAR_OUT * typical:
            reasons.append(f"its mean {mean_i:.3g} is {d_i / typical:.3g} times further from the median mean "
                           f"{centre:.3g} than typical ({typical:.3g})")
        if reasons:
            notes.append(f"data set {name!r}: {' and '.join(reasons)}")
    if notes:
        warnings.warn("far outside the other data sets, check for an error in the scores: " + "; ".join(notes)
                      + ". The model's unit (the median sd) ignores it, its prior limits cover it.",
                      OutlierWarning, stacklevel=4)  # the caller of hierarchical_test or _model


def prepare_hierarchical(x, rho, n_test, n_train, folds, algorithms, scale=None, runs=None) -> HierarchicalData:
    """The hierarchical model's data from the arguments of :func:`~.model.hierarchical_model` (checked here): each
    data set's n_i, mean, sd and rho_i, the unit s (``scale``, or :func:`model_unit`) and max |x|; an
    :class:`OutlierWarning` names a data set far outside the others (:func:`warn_far_out`)."""
    if scale is not None:
        scale = check_real("scale", scale, low=0, low_open=True)
    rows, datasets, rho, _ = dataset_rows(x, algorithms, rho, n_test, n_train, folds, runs)
    if len(rows) < 2:
        raise ValueError(f"x holds {len(rows)} data set: the hierarchical model needs at least 2")
    n = np.array([len(r) for r in rows])
    if np.any(n < 2):
        short = [f"{datasets[i]!r} ({n[i]})" for i in np.flatnonzero(n < 2)]
        raise ValueError(f"the hierarchical model needs at least 2 scores in each data set: {', '.join(short)}")
    rho = np.asarray(rho, dtype=float)
    if rho.ndim > 1 or rho.size not in (1, len(rows)):
        raise ValueError(f"rho must be one value or one per data set ({len(rows)}), got {rho.size} values")
    mean = np.array([r.mean() for r in rows])
    sd = np.array([_sd(r) for r in rows])
    unit = model_unit(sd, mean)
    warn_far_out(datasets, sd, mean, unit)
    return HierarchicalData(datasets, n, mean, sd, np.broadcast_to(rho.ravel() if rho.ndim else rho, n.shape).copy(),
                            scale or unit, max(float(np.abs(r).max()) for r in rows))


def _sd(row) -> float:
    """The sample sd, exactly 0 for a constant row, computed on row / max |row| so that neither 1e-170 nor 1e160
    differences under- or overflow when squared."""
    if np.ptp(row) == 0:
        return 0.0
    big = float(np.abs(row).max())
    return big * float(np.std(row / big, ddof=1))


def prior_limits(data: HierarchicalData, bounds):
    """The prior's limits in units of s: from the data unless ``bounds`` (checked) fixes them."""
    s = np.float64(data.scale)  # typed: a Python float is first tried as float32 (overflow warnings at 1e160)
    xbar = data.mean / s
    limits = {"delta0": max(data.max_abs / s, 1e-6),
              # the bound on sigma0 scales with the spread of the means (1000 sd_i(xbar_i))
              "sigma0": 1000 * max(float(np.std(xbar, ddof=1)), 1e-3),
              # ... and that on sigma_i with the data set's own sd, which may be far above the unit (a common
              # bound set by a far-out data set would let every sigma_i grow large enough for all the delta_i to
              # follow the outlier: a local mode where chains stick)
              "sigma": (SIGMA_FLOOR, SIGMA_CEILING * np.maximum(1.0, data.sd / s))}
    limits.update(bounds or {})
    return limits


def start_values(data: HierarchicalData, limits, form="centered") -> dict:
    """The samplers' initial values (``initvals``, by variable name), near the data in units of s (the samplers
    add their jitter): delta0 at the median mean, sigma0 at the means' robust spread, sigma_i at the sds (at
    least 0.1), delta_i at its mean shrunk towards delta0 as a normal population of that spread would (a data
    set too noisy to locate its delta_i starts at delta0). PyMC's default, the middle of each prior's range,
    puts sigma0 and every sigma_i at hundreds of units, at 1e8 with an outlier, where chains stayed."""
    def inside(value, lo, hi):  # strictly within the prior's support
        return np.clip(value, lo + 1e-6 * (hi - lo), hi - 1e-6 * (hi - lo))

    xbar = data.mean / data.scale
    centre = float(np.median(xbar))
    spread = 1.4826 * float(np.median(np.abs(xbar - centre)))  # the sd, for normal means
    spread = max(spread, 0.1)
    se2 = (data.sd / data.scale) ** 2 * mean_variance_factor(data)
    lo, hi = limits["sigma"]
    delta0 = float(inside(centre, -limits["delta0"], limits["delta0"]))
    sigma0 = float(inside(spread, 0, limits["sigma0"]))
    delta = centre + (xbar - centre) * spread**2 / (spread**2 + se2)
    start = {"delta0_scaled": delta0, "sigma0_scaled": sigma0,
             "sigma_scaled": inside(np.maximum(data.sd / data.scale, 0.1), lo, hi)}
    if form == "centered":
        start["delta_scaled"] = delta
    elif form == "noncentered":
        start["z"] = (delta - delta0) / sigma0
    return start


def mean_variance_factor(data: HierarchicalData) -> np.ndarray:
    """c_i = (1 - rho_i)/n_i + rho_i: the variance of a data set's mean fold difference in units of sigma_i^2."""
    return (1 - data.rho) / data.n + data.rho


def model_values(data: HierarchicalData, bounds) -> dict:
    """The values of the model's data containers (``pm.Data``) for ``data``, in units of s: the statistics,
    n_i, rho_i, the unit s itself and the prior limits (:func:`prior_limits`, ``bounds`` checked). Everything that
    depends on the data goes through them, so one built (and compiled) model takes any data of the same number of
    data sets (``pm.set_data``, nutpie's ``with_data``) and has the log density a model built for that data has."""
    s = np.float64(data.scale)
    limits = prior_limits(data, bounds)
    lo, hi = (np.broadcast_to(np.asarray(end, dtype=float), data.n.shape).copy() for end in limits["sigma"])
    return {"xbar_obs": data.mean / s, "ss_obs": data.ss(s), "n_folds": data.n.astype(float),
            "rho": data.rho.astype(float), "unit": s, "delta0_max": np.float64(limits["delta0"]),
            "sigma0_max": np.float64(limits["sigma0"]), "sigma_min": lo, "sigma_max": hi}
