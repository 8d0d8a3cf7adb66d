"""The data of the joint model of k algorithms (:mod:`.joint`): each data set's sufficient statistics, and for an
incomplete design the linear map from the model's coordinates to the differences a data set observes.

Coordinates. The model's coordinate a is score(a) - score(reference). On a data set where some algorithms have no
score, the differences among those present are a linear map of the full vector: with r the data set's own reference
(the reference if present, else the first algorithm present) and a the others present, d_a - d_r = (e_a - e_r)^T d,
e_reference = 0. The multivariate normal's marginal is exact, so the data set's fold differences y = T d (T the
rows e_a - e_r) have mean T delta_i and covariance T Sigma_i T^T (and the population t's marginal is T's too): the
missing cells are integrated out, not imputed. Rows are divided by the unit of their coordinate a (complete data sets
get T = I), and padded to m rows by rows of zeros with a unit variance added (observed at 0: a constant), so that
every data set keeps the shape (m,) and (m, m).

The full-coordinate ``mean`` and ``scatter`` where cells are missing are estimates, not data: coordinates present
with the reference are their values; the others are the column's mean over the data sets that have it, and the
median variance; they only place the sampler's start, scalings and order (the likelihood uses ``observed_*``).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import xarray as xr

from .._args import check_real
from ..data.scores import check_layout
from ..pairwise.intraclass import resolve_rho
from .preparation import model_unit, warn_far_out

MISSING = ("marginalise", "raise", "drop")


@dataclass(frozen=True)
class JointData:
    """Per-data-set statistics of the differences from the reference algorithm, in the model's unit."""

    datasets: list         # their names
    algorithms: tuple      # k names, the reference first
    n: np.ndarray          # (q,) folds used per data set
    rho: np.ndarray        # (q,)
    mean: np.ndarray       # (q, m) mean differences from the reference, original units (estimated where absent)
    scatter: np.ndarray    # (q, m, m) scatter matrices, original units (estimated where absent)
    scale: np.ndarray      # (m,) the unit s_a of each coordinate
    max_abs: np.ndarray    # (m,) max |d| over all folds
    absent: tuple = ()     # (data set, (algorithms...)) of the cells marginalised
    transform: np.ndarray | None = None  # (q, m, m) rows T_i in units of s; None: a complete design
    observed_mean: np.ndarray | None = None     # (q, m) the observed differences' means, rows of T_i's units
    observed_scatter: np.ndarray | None = None  # (q, m, m) their scatter matrices
    padding: np.ndarray | None = None           # (q, m) 1 on padded rows

    @property
    def sd(self) -> np.ndarray:
        """(q, m) per-data-set sds of each coordinate."""
        return np.sqrt(np.diagonal(self.scatter, axis1=1, axis2=2) / (self.n[:, None] - 1))

    def c(self) -> np.ndarray:
        return (1 - self.rho) / self.n + self.rho


def _score_blocks(x, algorithms):
    """(q, cells, k) scores, data set names and algorithm names from a scores Dataset or a (q, n, k) array."""
    if isinstance(x, xr.Dataset):
        check_layout(x)
        present = [str(v) for v in x.algorithm.values]
        chosen = present if algorithms is None else [str(a) for a in algorithms]
        unknown = [a for a in chosen if a not in present]
        if unknown:
            raise ValueError(f"algorithms {unknown} are not in the scores (have {present})")
        block = x.score.sel(algorithm=chosen).transpose("dataset", ..., "algorithm").values
        return block.reshape(block.shape[0], -1, block.shape[-1]), [str(d) for d in x.dataset.values], chosen
    block = np.asarray(x, dtype=float)
    if block.ndim != 3:
        raise ValueError(f"x must be a scores Dataset or an array (data sets, folds, algorithms), got shape "
                         f"{block.shape}")
    chosen = [f"A{j + 1}" for j in range(block.shape[2])] if algorithms is None else [str(a) for a in algorithms]
    if len(chosen) != block.shape[2]:
        raise ValueError(f"algorithms names {len(chosen)} algorithms, x holds {block.shape[2]}")
    return block, [f"D{i + 1}" for i in range(block.shape[0])], chosen


def prepare_joint(x, algorithms=None, reference=None, rho=None, n_test=None, n_train=None, folds=None,
                  scale=None, missing="marginalise") -> JointData:
    """The joint model's data (:class:`JointData`) from scores of k algorithms: the arguments are those of
    :func:`pp_corr.hierarchical.joint.joint_model`, checked here."""
    if missing not in MISSING:
        raise ValueError(f"missing must be one of {list(MISSING)}, got {missing!r}")
    block, datasets, chosen = _score_blocks(x, algorithms)
    if len(chosen) < 2:
        raise ValueError(f"the joint model compares at least 2 algorithms, got {len(chosen)}: {chosen}")
    if len(set(chosen)) != len(chosen):
        raise ValueError(f"algorithms must be distinct, got {chosen}")
    if reference is not None:
        if str(reference) not in chosen:
            raise ValueError(f"reference={reference!r} is not among the algorithms {chosen}")
        order = [chosen.index(str(reference))] + [j for j, a in enumerate(chosen) if a != str(reference)]
        block, chosen = block[..., order], [chosen[j] for j in order]
    if np.isinf(block).any():
        raise ValueError("x holds infinite scores")
    if isinstance(x, xr.Dataset) and all(v is None for v in (rho, n_test, n_train, folds)):
        rho = np.asarray(x.rho.values, dtype=float)
    else:
        rho = np.broadcast_to(resolve_rho(rho, n_test=n_test, n_train=n_train, folds=folds), (len(datasets),)).copy()
    keep, problems, rows, present = [], [], [], []
    for i, name in enumerate(datasets):
        cells = block[i][~np.isnan(block[i]).all(axis=1)]  # padding of a ragged design: no algorithm has a score
        has = ~np.isnan(cells).all(axis=0)
        absent = [a for a, h in zip(chosen, has) if not h]
        if absent and missing != "marginalise":
            problems.append(f"{name!r}: no scores of {absent}")
            continue
        if has.sum() < 2:
            problems.append(f"{name!r}: scores of {int(has.sum())} algorithm(s) only, at least 2 are needed")
            continue
        cells = cells[:, has]
        partial = int(np.isnan(cells).any(axis=1).sum())
        if partial:
            problems.append(f"{name!r}: {partial} of {len(cells)} folds lack some algorithm's score")
            cells = cells[~np.isnan(cells).any(axis=1)]
        if len(cells) < 2:
            problems.append(f"{name!r}: {len(cells)} complete fold(s), at least 2 are needed")
            continue
        keep.append(i)
        rows.append(cells)
        present.append(has)
    if problems and missing == "raise":
        raise ValueError("incomplete scores: " + "; ".join(problems) + ". Leave missing at 'marginalise' (absent "
                         "algorithms integrated out, the complete folds of the others), or missing='drop' to compare "
                         "on the complete folds and data sets only.")
    if problems:
        warnings.warn("dropped: " + "; ".join(problems), UserWarning, stacklevel=3)
    if len(rows) < 2:
        raise ValueError(f"{len(rows)} data set(s) with scores of 2 algorithms or more: the joint model needs at "
                         "least 2")
    datasets, present = [datasets[i] for i in keep], np.array(present)
    n = np.array([len(r) for r in rows])
    local = [r[:, 1:] - r[:, :1] for r in rows]  # differences from each data set's first algorithm present
    if present.all():
        mean = np.array([r.mean(axis=0) for r in local])
        scatter = np.array([_scatter(r) for r in local])
        max_abs = np.array([max(float(np.abs(r[:, a]).max()) for r in local) for a in range(mean.shape[1])])
        gaps = None
    else:
        mean, scatter, max_abs, gaps = _estimated(local, present, n)
    sd = np.sqrt(np.diagonal(scatter, axis1=1, axis2=2) / (n[:, None] - 1))
    units = np.array([model_unit(sd[:, a], mean[:, a]) for a in range(mean.shape[1])])
    for a, other in enumerate(chosen[1:]):
        warn_far_out([f"{d} ({other} - {chosen[0]})" for d in datasets], sd[:, a], mean[:, a], units[a])
    if scale is not None:
        units = np.broadcast_to([check_real("scale", v, low=0, low_open=True) for v in np.ravel(scale)],
                                units.shape).astype(float)
    data = JointData(datasets, tuple(chosen), n, rho[keep], mean, scatter, units, max_abs)
    return data if gaps is None else _with_gaps(data, present, local)


def _scatter(r) -> np.ndarray:
    dev = r - r.mean(axis=0)
    return dev.T @ dev


def _estimated(local, present, n):
    """Full-coordinate means and scatters where cells are absent (the module docstring), max |d| per coordinate,
    and a marker that the design has gaps."""
    q, m = present.shape[0], present.shape[1] - 1
    mean, scatter, max_abs = np.zeros((q, m)), np.zeros((q, m, m)), np.zeros(m)
    for i in np.flatnonzero(present[:, 0]):
        coords = np.flatnonzero(present[i, 1:])
        mean[i, coords] = local[i].mean(axis=0)
        scatter[i][np.ix_(coords, coords)] = _scatter(local[i])
        max_abs[coords] = np.maximum(max_abs[coords], np.abs(local[i]).max(axis=0))
    known = present[:, 1:] & present[:, :1]  # coordinates observed with the reference
    spread = np.median(np.concatenate([r.var(axis=0, ddof=1) for r in local]))
    variance, column = np.full(m, spread), np.zeros(m)
    for a in np.flatnonzero(known.any(axis=0)):
        variance[a] = np.median(scatter[known[:, a], a, a] / (n[known[:, a]] - 1))
        column[a] = mean[known[:, a], a].mean()
    for i in range(q):
        unknown = ~known[i]
        if not present[i, 0]:  # differences from another algorithm r: placed at r's column mean
            r, others = np.flatnonzero(present[i])[0], np.flatnonzero(present[i])[1:]
            mean[i, others - 1] = local[i].mean(axis=0) + column[r - 1]
            scatter[i][np.ix_(others - 1, others - 1)] = _scatter(local[i])
            unknown[others - 1] = False
        fill = np.flatnonzero(unknown)
        mean[i, fill] = column[fill]
        scatter[i, fill, fill] = variance[fill] * (n[i] - 1)
    return mean, scatter, np.maximum(max_abs, np.abs(mean).max(axis=0)), True


def _with_gaps(data: JointData, present, local) -> JointData:
    """``data`` with the observed statistics, the maps T_i (units of s, rows by the unit of their coordinate a),
    the padding and the names of the absent cells (the module docstring)."""
    q, m = data.mean.shape
    transform, padding = np.zeros((q, m, m)), np.zeros((q, m))
    observed_mean, observed_scatter = np.zeros((q, m)), np.zeros((q, m, m))
    for i, (has, r) in enumerate(zip(present, local)):
        first, others = np.flatnonzero(has)[0], np.flatnonzero(has)[1:]
        unit = data.scale[others - 1]
        rows = np.arange(len(others))
        transform[i, rows, others - 1] = 1.0
        if first > 0:
            transform[i, rows, first - 1] = -data.scale[first - 1] / unit
        observed_mean[i, rows] = r.mean(axis=0) / unit
        observed_scatter[i][np.ix_(rows, rows)] = _scatter(r) / np.outer(unit, unit)
        padding[i, len(others):] = 1.0
    absent = tuple((name, tuple(a for a, h in zip(data.algorithms, has) if not h))
                   for name, has in zip(data.datasets, present) if not has.all())
    return JointData(data.datasets, data.algorithms, data.n, data.rho, data.mean, data.scatter, data.scale,
                      data.max_abs, absent, transform, observed_mean, observed_scatter, padding)
