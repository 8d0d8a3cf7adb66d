"""Each data set's likelihood L_i(delta_i) on cells of its own, and its convolution with the population's t kernel
(step 2 of :mod:`pp_corr.hierarchical.exact`; the compiled rules are in :mod:`.convolution`)."""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numba
import numpy as np

from .convolution import (COARSE, GAUSS, dealt_order, five_point_draws, five_point_rule, log_t_constant,
                          refine_cells, refine_draws)
from .grid import ExactGrid
from .integrals import log_sigma_integral

_CELLS_PER_SCALE = 2.0  # cells at most this many per bump scale (per distance in the tails)
_COARSE_POINTS = len(COARSE[0])


@dataclass(frozen=True)
class Likelihoods:
    """Each data set's L_i (divided by its top, exp(``log_top``)) on cells of its own, padded to a common count.

    ``edges`` (q, C + 1) bound the cells (padding cells have width 0). ``points`` (q, 5C) are the five
    Gauss-Legendre nodes of every cell and ``weights`` (q, 5C, 6) the rule's weights times [L, L y, L y^2,
    L 1(d < r_lo), L 1(d > r_hi), L 1(d > 0)], y = (d - xbar_i) / scale_i. ``fine`` (q, C, 2 + 4 + ... + S, 5, 3)
    holds L [1, y, y^2] at the five Gauss-Legendre nodes of each of S equal sub-cells of every cell, for S in
    ``subcells`` = 2, 4, 8, ... up to the grid's ``subcells`` (rounded up to a power of two), one level after the
    other, for cells on which the kernel is not smooth.
    ``top`` (q, C) is the largest L_i on a cell and ``sides`` (q, C, 3) says whether a cell lies below r_lo, above
    r_hi, above 0.
    ``levels`` (q, R) are log L_i / top at the distances ``radii`` (q, R) from xbar_i, equally spaced in
    asinh(r / scale_i) up to the support's end (linear interpolation is good to 1e-5 nats near the top, 1e-3
    far out).
    """

    xbar: np.ndarray
    scale: np.ndarray
    log_top: np.ndarray
    mass: np.ndarray
    edges: np.ndarray
    points: np.ndarray
    weights: np.ndarray
    fine: np.ndarray
    top: np.ndarray
    sides: np.ndarray
    radii: np.ndarray
    levels: np.ndarray
    subcells: np.ndarray

    @property
    def q(self):
        return len(self.xbar)

    @functools.cached_property
    def width(self):
        return np.diff(self.edges, axis=1)

    @functools.cached_property
    def _middles(self):
        """Per data set: its cells' middle nodes, log L_i / top there and the support's ends."""
        out = []
        centre = _COARSE_POINTS // 2
        for i in range(self.q):
            cells = np.count_nonzero(self.width[i])
            middle = self.points[i, centre : _COARSE_POINTS * cells : _COARSE_POINTS]
            level = self.weights[i, centre : _COARSE_POINTS * cells : _COARSE_POINTS, 0]
            logs = np.log(np.maximum(level, 1e-300) / (self.width[i, :cells] * COARSE[1][centre] / 2))
            out.append((middle, logs, self.edges[i, 0], self.edges[i, cells]))
        return out

    def log_value(self, d):
        """log L_i(d) / top for every data set (rows) at every d, interpolated between the cells' middle nodes
        (-inf outside the support): for the pilot."""
        out = np.empty((self.q, len(d)))
        for i, (middle, logs, start, end) in enumerate(self._middles):
            out[i] = np.where((d >= start) & (d <= end), np.interp(d, middle, logs), -np.inf)
        return out

    def log_level(self, i, d):
        """log L_i(d) / top for data set i at d (an array within the support), interpolated linearly in
        ``levels`` (:func:`level_at`)."""
        d = np.asarray(d, dtype=float)
        return np.array([level_at(self.levels[i], self.level_steps[i], self.xbar[i], self.scale[i], v)
                         for v in d.ravel()]).reshape(d.shape)

    def profile_points(self, i, step):
        """d at the points of L_i's profile about ``step`` apart in asinh(|d - xbar_i| / scale_i), both sides."""
        every = max(1, round(step * self.level_steps[i]))
        r = np.append(self.radii[i, :-1:every], self.radii[i, -1])
        return self.xbar[i] + np.concatenate([-r[:0:-1], r])

    @functools.cached_property
    def level_steps(self):
        """(q,) steps of ``levels`` per unit of asinh(|d - xbar_i| / scale_i)."""
        return (self.radii.shape[1] - 1) / np.arcsinh(self.radii[:, -1] / self.scale)

    @functools.cached_property
    def distinct(self):
        """The likelihoods of the distinct data sets (identical cells and values count once: real data often
        repeat a data set of equal scores, e.g. all differences 0), and each data set's row among them."""
        rows = {}
        keys = zip(self.edges, self.weights, self.top, self.sides, self.fine)
        inverse = np.array([rows.setdefault(b"".join(a.tobytes() for a in key), len(rows)) for key in keys])
        return (self if len(rows) == self.q else self.rows(np.unique(inverse, return_index=True)[1])), inverse

    @functools.cached_property
    def fine_table(self):
        """``fine``, each level's offset in it, the levels and :attr:`reach`: what
        :func:`pp_corr.hierarchical.exact.convolution.refine_cells` reads."""
        return self.fine, np.cumsum(self.subcells) - self.subcells, self.subcells, self.reach

    @property
    def reach(self):
        """max(1, y^2) at the farther end of each cell (q, C), y = (d - xbar_i) / scale_i: a bound on L's moments
        over L there."""
        y = np.abs(self.edges - self.xbar[:, None]) / self.scale[:, None]
        return np.maximum(1.0, np.maximum(y[:, :-1], y[:, 1:]) ** 2)

    def rows(self, index) -> Likelihoods:
        """The likelihoods of the data sets ``index`` only."""
        arrays = {name: getattr(self, name)[index] for name in self.__dataclass_fields__ if name != "subcells"}
        return Likelihoods(**arrays, subcells=self.subcells)


@numba.njit(cache=True)
def level_at(levels, steps_per_unit, xbar, scale, d):
    """log L / top at d from its ``levels`` at equal steps in asinh(|d - xbar| / scale), ``steps_per_unit`` of
    them per unit, interpolated linearly (constant beyond the last).

    >>> level_at(np.array([0.0, -1.0, -3.0]), 2.0, 0.0, 1.0, math.sinh(0.75))
    -2.0
    """
    position = math.asinh(abs(d - xbar) / scale) * steps_per_unit
    k = min(int(position), len(levels) - 2)
    return levels[k] + min(position - k, 1.0) * (levels[k + 1] - levels[k])


def build_likelihoods(xbar, ss, n, rho, lo, hi, splits, grid: ExactGrid) -> Likelihoods:
    """Cells for every data set (see :mod:`pp_corr.hierarchical.exact`, step 2) and L_i on them."""
    c = (1 - rho) / n + rho
    spread = ss / (1 - rho)
    scale = np.sqrt(c) * np.clip(np.sqrt(spread / (n - 1)), lo, hi)

    def log_l(i, d):
        return log_sigma_integral(0.5 * ((d - xbar[i]) ** 2 / c[i] + spread[i]), n[i], lo[i], hi[i])

    q, sub = len(xbar), grid.subcells
    log_top = np.array([log_l(i, xbar[i]) for i in range(q)])
    radius = _support_radius(log_l, xbar, log_top, scale, grid.support_nats)
    cell_edges, profile_r, profile_level = [], np.empty((q, 2001)), np.empty((q, 2001))
    for i in range(q):
        r = scale[i] * np.sinh(np.linspace(0.0, np.arcsinh(radius[i] / scale[i]), 2001))
        below = log_top[i] - log_l(i, xbar[i] + r)  # nats below the top, increasing in r
        profile_r[i], profile_level[i] = r, -below
        nats = grid.cell_nats * np.maximum(1.0, below / 10.0)
        monitor = np.sqrt(_CELLS_PER_SCALE**2 / (scale[i] ** 2 + r * r) + (np.gradient(below, r) / nats) ** 2)
        cumulative = np.concatenate([[0.0], np.cumsum(0.5 * (monitor[1:] + monitor[:-1]) * np.diff(r))])
        radii = np.interp(np.linspace(0.0, cumulative[-1], max(2, math.ceil(cumulative[-1])) + 1), cumulative, r)
        edges = np.concatenate([xbar[i] - radii[:0:-1], xbar[i] + radii])
        for point in sorted(set(splits)):
            if edges[0] < point < edges[-1]:
                edges = _insert(edges, point)
        cell_edges.append(edges)
    cells = max(len(edges) - 1 for edges in cell_edges)
    edges = np.empty((q, cells + 1))
    for i, own in enumerate(cell_edges):
        edges[i, : len(own)], edges[i, len(own):] = own, own[-1]
    width = np.diff(edges, axis=1)
    nodes = (GAUSS[0] + 1) / 2  # on [0, 1]
    levels = [2**j for j in range(1, max(1, math.ceil(math.log2(sub))) + 1)]  # each level halves the one before
    fractions = np.concatenate([(COARSE[0] + 1) / 2] + [((np.arange(s)[:, None] + nodes) / s).ravel()
                                                         for s in levels])
    at = edges[:, :-1, None] + width[..., None] * fractions  # (q, C, 5 + 5 (2 + 4 + ... + S))
    level = np.zeros(at.shape)
    for i, own in enumerate(cell_edges):
        level[i, : len(own) - 1] = np.exp(log_l(i, at[i, : len(own) - 1]) - log_top[i])
    y = (at - xbar[:, None, None]) / scale[:, None, None]
    moments = level[..., None] * np.stack([np.ones_like(y), y, y * y], axis=-1)  # (q, C, points, 3)
    lower, upper = edges[:, :-1], edges[:, 1:]
    inside = (lower <= xbar[:, None]) & (xbar[:, None] <= upper)
    ends = np.zeros(edges.shape)  # L_i / top at the cell edges
    for i, own in enumerate(cell_edges):
        ends[i, : len(own)] = np.exp(log_l(i, own) - log_top[i])
    top = np.where(inside, 1.0, np.maximum(ends[:, :-1], ends[:, 1:]))
    sides = np.stack([upper <= splits[0], lower >= splits[1], lower >= 0.0], axis=-1).astype(float)
    points = _COARSE_POINTS
    coarse = moments[:, :, :points] * (width[..., None] * COARSE[1] / 2)[..., None]  # (q, C, 5, 3)
    weights = np.concatenate([coarse, coarse[..., :1] * sides[:, :, None, :]], axis=-1).reshape(q, points * cells, 6)
    # level after level
    fine = np.ascontiguousarray(moments[:, :, points:]).reshape(q, cells, sum(levels), len(nodes), 3)
    return Likelihoods(xbar, scale, log_top, weights[:, :, 0].sum(axis=1), edges,
                        at[:, :, :points].reshape(q, -1), weights, fine, top, sides, profile_r,
                        profile_level, np.array(levels))


def _support_radius(log_l, xbar, log_top, scale, nats):
    """The distance from xbar_i at which L_i falls ``nats`` below its top (L_i decreases away from xbar_i), by
    bisection for all data sets at once (``log_l(index, d)`` is elementwise)."""
    every = np.arange(len(xbar))

    def drop(r):
        return log_top - log_l(every, xbar + r)

    inner, outer = np.zeros(len(xbar)), np.array(scale, dtype=float)
    short = drop(outer) < nats
    while short.any():
        inner, outer = np.where(short, outer, inner), np.where(short, 2 * outer, outer)
        short = drop(outer) < nats
    for _ in range(60):
        middle = 0.5 * (inner + outer)
        near = drop(middle) < nats
        inner, outer = np.where(near, middle, inner), np.where(near, outer, middle)
    return outer


def _insert(edges, point):
    """Sorted cell edges with ``point`` among them: the nearest edge moves there when it is within 1e-6 of a
    cell (not the first or last edge), otherwise the cell is cut."""
    j = int(np.searchsorted(edges, point))  # edges[j - 1] < point <= edges[j]
    cell = edges[j] - edges[j - 1]
    if edges[j] - point < 1e-6 * cell and j < len(edges) - 1:
        return np.concatenate([edges[:j], [point], edges[j + 1:]])
    if point - edges[j - 1] < 1e-6 * cell and j > 1:
        return np.concatenate([edges[:j - 1], [point], edges[j:]])
    return np.insert(edges, j, point)


def convolve(lik: Likelihoods, sigma0, delta0, nu):
    """G[k, m, i, :] = int t_nu_m(d; delta0_k, sigma0) L_i(d) [1, y, y^2, 1(d < r_lo), 1(d > r_hi), 1(d > 0)] dd
    (see :mod:`pp_corr.hierarchical.exact`, step 2): the five-point rule on every cell, then the sub-cells where the
    kernel is not smooth (:mod:`.convolution`, in parallel threads). Identical data sets are computed once. The
    sub-cells replace a cell's rule by adding their difference, which can leave a G[..., 0] that is 0 to rounding a
    few 1e-16 of the largest below 0 (seen on coarse grids): it is set to 0, as its logarithm is taken.
    """
    distinct, inverse = lik.distinct
    if distinct is not lik:
        return convolve(distinct, sigma0, delta0, nu)[:, :, inverse]
    nu, delta0 = np.asarray(nu, dtype=float), np.asarray(delta0, dtype=float)
    constants = log_t_constant(nu)
    out = np.empty((len(delta0), len(nu), lik.q, 6))
    five_point_rule(lik.points, lik.weights, float(sigma0), delta0, nu, constants, out)
    refine_cells(out, lik.weights, lik.edges, lik.top, lik.sides, *lik.fine_table, float(sigma0), delta0, nu,
                 constants, dealt_order(len(delta0)))
    np.maximum(out[..., 0], 0.0, out=out[..., 0])
    return out


def convolve_draws(lik: Likelihoods, sigma0, delta0, nu):
    """G[k, i, :] of :func:`convolve` for draws k, each with its own ``sigma0``, ``delta0`` and ``nu`` (arrays of
    one per draw): the same rules, the draws in parallel threads.

    >>> from .grid import ExactGrid
    >>> two = np.ones(2)
    >>> lik = build_likelihoods(np.array([0.1, -0.2]), np.array([9.0, 4.0]), 10 * two, 0.1 * two, 0.01 * two,
    ...                         100 * two, (0.0, 0.0), ExactGrid())
    >>> each = [convolve(lik, s, np.array([d]), np.array([v]))[0, 0] for s, d, v in ((0.5, 0, 3), (2, 1, 30))]
    >>> bool(np.allclose(convolve_draws(lik, [0.5, 2.0], [0.0, 1.0], [3.0, 30.0]), each, rtol=1e-12, atol=0))
    True
    """
    distinct, inverse = lik.distinct
    if distinct is not lik:
        return convolve_draws(distinct, sigma0, delta0, nu)[:, inverse]
    sigma0, delta0, nu = (np.ascontiguousarray(v, dtype=float) for v in (sigma0, delta0, nu))
    constants = log_t_constant(nu)
    out = np.empty((len(delta0), lik.q, 6))
    five_point_draws(lik.points, lik.weights, sigma0, delta0, nu, constants, out)
    refine_draws(out, lik.weights, lik.edges, lik.top, lik.sides, *lik.fine_table, sigma0, delta0, nu, constants)
    np.maximum(out[..., 0], 0.0, out=out[..., 0])
    return out
