"""The quadrature's rules on each axis (step 4 of :mod:`pp_corr.hierarchical.exact`): the resolution
(:class:`ExactGrid`), the nodes of nu with their prior masses, the delta0 segments and their interpolants, and the
panels of an interval."""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace

import numpy as np
from scipy import special

from ..._args import check_count, check_real
from .integrals import gauss_legendre, legendre_integrals, legendre_values, nu_prior_functions

NU_LUMP = 1e-3  # prior mass of nu - 1 below this sits on one node
_NU_TAIL = 1e-12  # prior mass of nu left out below
_NU_TOP = 1e-7  # prior mass of nu left out above (nu of several hundred: the kernel is all but the normal)
_NEAR_CAUCHY, _NEAR_NORMAL = 1.05, 51.0  # below and above, the kernel barely changes with nu: wider panels
DELTA0_NATS = 30.0  # a delta0 segment ends where the conditional density is this far below its top
END_NATS = DELTA0_NATS + 10.0  # a segment's end may be placed where the density's chord falls this far
PEAK_NATS = 2.0  # the half-width of a peak is where it falls this far (sets the scale of a delta0 segment)
# the normal population's kernel: the t density at this nu differs from the normal density by a factor within
# z^4 / (4 nu) of 1 (1e-7 at z = 3, where the normal density is 1e-2) and log(1 + z^2 / nu) rounds by ~1e-16, which
# (nu + 1) / 2 makes 6e-9 in the log kernel
NORMAL_NU = 1e8


@dataclass(frozen=True)
class ExactGrid:
    """Resolution of :func:`exact_posterior` (defaults give about three decimals; see the package's tests).

    ``delta0_points``: nodes per delta0 segment; ``nu_points``: Gauss-Legendre nodes per log(nu - 1) panel of
    at most ``nu_panel``; ``sigma0_points``: nodes per log sigma0 panel of at most ``sigma0_panel``, split until its
    estimated error is below ``sigma0_tolerance`` of the total; ``cell_nats``: how much log L_i may change across
    one likelihood cell; ``subcells``: the most sub-cells of a cell where the kernel is narrower than the cell (a
    power of two: others are rounded up);
    ``support_nats``: L_i is cut this many nats below its top. ``error_estimate`` repeats the computation on
    ``coarser()`` and reports the differences.

    >>> ExactGrid().scaled(2).delta0_points  # twice as fine in every direction
    32
    """

    delta0_points: int = 16
    nu_points: int = 4
    nu_panel: float = 2.0
    sigma0_points: int = 5
    sigma0_panel: float = 1.0
    sigma0_tolerance: float = 1e-4
    cell_nats: float = 2.5
    subcells: int = 16
    support_nats: float = 50.0
    error_estimate: bool = True

    def __post_init__(self):
        for name, minimum in (("delta0_points", 4), ("nu_points", 2), ("sigma0_points", 4), ("subcells", 2)):
            check_count(name, getattr(self, name), minimum=minimum)
        for name in ("nu_panel", "sigma0_panel", "sigma0_tolerance", "cell_nats", "support_nats"):
            check_real(name, getattr(self, name), low=0, low_open=True)

    def scaled(self, factor: float) -> ExactGrid:
        """Every resolution multiplied by ``factor`` (2: twice as fine in every direction)."""
        return replace(self, delta0_points=max(4, round(self.delta0_points * factor)),
                       nu_points=max(2, round(self.nu_points * factor)), nu_panel=self.nu_panel / factor,
                       sigma0_points=max(4, round(self.sigma0_points * factor)),
                       sigma0_panel=self.sigma0_panel / factor, sigma0_tolerance=self.sigma0_tolerance / factor**4,
                       cell_nats=self.cell_nats / factor, subcells=max(2, round(self.subcells * factor)),
                       error_estimate=False)

    def coarser(self) -> ExactGrid:
        """Half the resolution in every direction, with at least three nodes per nu panel, 12 per delta0 segment
        and as many per sigma0 panel (the error estimate's grid: with two nu nodes its error in P(nu < 2) and the
        regions' probabilities is ten times the finer grid's; with 8 delta0 nodes on segments that end where the
        density does, up to 1e-3 in a data set's probabilities, where 12 or the default 16 err by 5e-5 or less; the
        estimate's sigma0 panels are the finer grid's merged in pairs, on which four nodes instead of five made the
        estimate of P(nu < 2) and the regions' up to ten times larger).

        >>> ExactGrid().coarser().delta0_points, ExactGrid().coarser().sigma0_points
        (12, 5)
        """
        return replace(self.scaled(0.5), nu_points=max(3, round(self.nu_points * 0.5)),
                       delta0_points=min(self.delta0_points, max(12, round(self.delta0_points * 0.5))),
                       sigma0_points=self.sigma0_points)


@dataclass(frozen=True)
class NuGrid:
    """Nodes of nu with their prior masses ``weight`` (summing to ~1) and whether they count as nu < 2; the
    nodes after the lump (when there is one, the first node, with ``rule`` 0) are ``points`` Gauss-Legendre nodes
    in each of the ``panels`` of log(nu - 1), ``rule`` their rule's weights."""

    nu: np.ndarray
    weight: np.ndarray
    below_2: np.ndarray
    rule: np.ndarray
    panels: tuple
    points: int

    @classmethod
    def build(cls, alpha, beta, grid: ExactGrid, distribution=None) -> NuGrid:
        """Gauss-Legendre panels in t = log(nu - 1) (the likelihood changes smoothly with it), at most
        ``grid.nu_panel`` and 2 prior sds of t wide and cut at nu = 2, from nu = 1.001 (the prior mass below
        sits on one node there) to the prior's 1 - 1e-7 quantile; panels twice as wide below nu = 1.05 and above
        nu = 51, where the t kernel barely changes with nu (one each under the default prior); the weights are
        the rule's times the prior density of t, scaled so that each panel carries its prior mass. The prior: nu's
        Gamma hyperpriors ``alpha`` and ``beta``, or ``distribution`` (:func:`.integrals.nu_prior_functions`)."""
        cdf, density, quantile = nu_prior_functions(alpha, beta, distribution)
        lump = float(cdf(1 + NU_LUMP))
        quantiles = np.log(quantile(np.array([_NU_TAIL, 0.1587, 0.8413, 1 - _NU_TOP])) - 1)
        low = math.log(NU_LUMP) if lump > _NU_TAIL else quantiles[0]
        high = quantiles[-1]
        width = min(grid.nu_panel, quantiles[2] - quantiles[1])  # 2 prior sd of t, at most nu_panel
        # where the kernel barely changes with nu (near the Cauchy and near the normal) panels twice as wide, which
        # still follow the prior's own scale when it is concentrated
        ends = (min(max(math.log(_NEAR_CAUCHY - 1), low), high), max(min(math.log(_NEAR_NORMAL - 1), high), low))
        panels = [(a, b) for a, b in (*panels_covering(low, ends[0], 2 * width),
                                      *panels_covering(ends[0], ends[1], width, (0.0,)),
                                      *panels_covering(ends[1], high, 2 * width)) if b > a]
        t, rule = (np.concatenate(v) for v in zip(*(gauss_legendre(a, b, grid.nu_points) for a, b in panels)))
        nu, w = 1 + np.exp(t), rule * density(1 + np.exp(t)) * np.exp(t)
        # each panel's weights carry its exact prior mass (wide panels integrate the prior alone to ~1e-4)
        mass = np.diff(cdf(1 + np.exp(np.array([panels[0][0], *(b for _, b in panels)]))))
        rows = w.reshape(len(panels), -1)
        sums = rows.sum(axis=1)
        w = (rows * np.divide(mass, sums, out=np.ones_like(sums), where=sums > 0)[:, None]).ravel()
        if lump > _NU_TAIL:
            nu, w, rule = np.append(1 + NU_LUMP, nu), np.append(lump, w), np.append(0.0, rule)
        return cls(nu, w, nu < 2, rule, tuple(panels), grid.nu_points)

    @classmethod
    def normal(cls) -> NuGrid:
        """The normal population: one node, nu = :data:`NORMAL_NU`, with all the mass.

        >>> NuGrid.normal().nu.tolist(), bool(NuGrid.normal().lump)
        ([100000000.0], False)
        """
        return cls(np.array([NORMAL_NU]), np.ones(1), np.zeros(1, dtype=bool), np.ones(1), (), 1)

    @property
    def normal_population(self):
        """Whether this is :meth:`normal`'s single node."""
        return len(self.nu) == 1 and self.nu[0] == NORMAL_NU

    @property
    def lump(self):
        """Whether the first node stands for the prior mass below nu = 1.001."""
        return self.rule[0] == 0


@dataclass(frozen=True)
class Segment:
    """A piece of the delta0 axis and its rule, in v with delta0 = center + scale sinh(v), v in [low, high].
    Where the conditional density has decayed at both ends and nothing is cut: the trapezoid rule on ``points``
    equally spaced v (spectrally accurate, and so is the sinc interpolant's integral up to any x). Otherwise
    (``hard`` ends: a bound of delta0's prior; or ``cuts``, v where a summand has a step, for small sigma0):
    Gauss-Legendre on every piece between them, and the pieces' Legendre interpolants."""

    center: float
    scale: float
    low: float
    high: float
    points: int
    cuts: tuple = ()
    hard: bool = False

    @property
    def trapezoid(self):
        return not self.cuts and not self.hard

    @functools.cached_property
    def pieces(self):
        """(start, end, nodes) of the Gauss-Legendre pieces, nodes in proportion to their length (at least 6); a
        cut that rounds onto an end (far out on the arcsinh scale) makes no empty piece."""
        edges = [self.low, *self.cuts, self.high]
        span = self.high - self.low
        return tuple((a, b, max(6, round(self.points * (b - a) / span))) for a, b in zip(edges[:-1], edges[1:])
                     if b > a)

    @functools.cached_property
    def v(self):
        if self.trapezoid:
            return np.linspace(self.low, self.high, self.points)
        return np.concatenate([gauss_legendre(a, b, n)[0] for a, b, n in self.pieces])

    @property
    def size(self):
        return len(self.v)

    @property
    def nodes(self):
        return self.center + self.scale * np.sinh(self.v)

    @property
    def ends(self):
        """delta0 at the segment's two ends."""
        return self.center + self.scale * np.sinh([self.low, self.high])

    @property
    def jacobian(self):
        return self.scale * np.cosh(self.v)

    def weights(self):
        """The rule's weights on the density at the nodes."""
        if self.trapezoid:
            weights = (self.high - self.low) / (self.points - 1) * self.jacobian
            weights[[0, -1]] *= 0.5
            return weights
        return np.concatenate([gauss_legendre(a, b, n)[1] for a, b, n in self.pieces]) * self.jacobian

    def fine_v(self, factor):
        """v on a grid ``factor`` times as fine as the nodes, from the segment's start to its end."""
        if self.trapezoid:
            return np.linspace(self.low, self.high, factor * (self.points - 1) + 1)
        return np.unique(np.concatenate([np.linspace(a, b, factor * n + 1) for a, b, n in self.pieces]))

    def _to_v(self, x):
        return np.atleast_1d(np.arcsinh((np.asarray(x, dtype=float) - self.center) / self.scale))

    def cdf_weights(self, x):
        """W (nodes, len(x)) with density @ W the integral from the segment's start to each x of the density's
        interpolant (sinc in v for the trapezoid rule, the pieces' Legendre interpolants otherwise)."""
        vx = self._to_v(x)
        if self.trapezoid:
            step = (self.high - self.low) / (self.points - 1)
            si, _ = special.sici(np.pi * (vx[None, :] - self.v[:, None]) / step)
            return (self.jacobian * step)[:, None] * (0.5 + si / np.pi)
        blocks = []
        for a, b, n in self.pieces:
            u = 2 * (np.clip(vx, a, b) - a) / (b - a) - 1
            blocks.append(0.5 * (b - a) * legendre_integrals(n, u))
        return np.concatenate(blocks) * self.jacobian[:, None]

    def interpolation_weights(self, x):
        """W (nodes, len(x)) with density @ W the density's interpolant at each x (0 outside the segment)."""
        vx = self._to_v(x)
        inside = (vx >= self.low) & (vx <= self.high)
        if self.trapezoid:
            step = (self.high - self.low) / (self.points - 1)
            weights = self.jacobian[:, None] * np.sinc((vx[None, :] - self.v[:, None]) / step)
        else:
            blocks = []
            for a, b, n in self.pieces:
                u = 2 * (vx - a) / (b - a) - 1
                own = (vx >= a) & ((vx < b) | (b == self.high))
                blocks.append(legendre_values(n, np.clip(u, -1, 1)) * own)
            weights = np.concatenate(blocks) * self.jacobian[:, None]
        return weights * inside / (self.scale * np.cosh(vx))


def segments_covering(x, log_density, bounds, points, sigma0=np.inf, splits=()):
    """delta0 segments covering where ``log_density`` (at sorted points x) is within DELTA0_NATS of its top: one
    per run of such points, from the point before the run to the point after it (or nearer, see :func:`_end`; or to
    the bounds; or, past the last point, twice as far from the peak as the run reaches), centred on
    the run's top with scale half the width where it is within PEAK_NATS of that top. A run that reaches a
    point on a bound of delta0's prior gets a hard end there; the ``splits`` inside a segment become cuts where
    sigma0 is below three node spacings (summands then step there within a few sigma0)."""
    top = np.max(log_density)
    if not np.isfinite(top):
        return []
    above = log_density > top - DELTA0_NATS
    starts = np.flatnonzero(above & ~np.concatenate([[False], above[:-1]]))
    ends = np.flatnonzero(above & ~np.concatenate([above[1:], [False]]))
    span = bounds[1] - bounds[0]
    out = []
    for j0, j1 in zip(starts, ends):
        on_low, on_high = x[j0] <= bounds[0] + 1e-12 * span, x[j1] >= bounds[1] - 1e-12 * span
        run = slice(j0, j1 + 1)
        peak = j0 + int(np.argmax(log_density[run]))
        center = x[peak]
        # a run reaching the first or the last point (not on a bound) is extended to twice its reach from the peak
        reach = max(center - x[j0], x[j1] - center, 0.5 * (x[j1] - x[j0]), 1e-9 * span)
        if on_low:
            a = bounds[0]
        else:
            a = _end(x, log_density, j0, -1, top) if j0 > 0 else max(bounds[0], center - 2 * reach)
        if on_high:
            b = bounds[1]
        else:
            b = _end(x, log_density, j1, 1, top) if j1 + 1 < len(x) else min(bounds[1], center + 2 * reach)
        near = np.flatnonzero(log_density[run] > log_density[peak] - PEAK_NATS) + j0
        left = x[near[0] - 1] if near[0] > 0 else a
        right = x[near[-1] + 1] if near[-1] + 1 < len(x) else b
        half = ((x[near[-1]] - x[near[0]]) + (right - left)) / 4  # between the inner and the outer bracket
        scale = max(half / 2, 1e-9 * max(b - a, abs(center), 1e-300))  # a normal's sd
        out.append(segment_between(center, scale, a, b, points, sigma0, splits, on_low or on_high))
    return out


def segment_between(center, scale, a, b, points, sigma0=np.inf, splits=(), hard=False) -> Segment:
    """The segment from a to b with ``center`` and ``scale``: ``points`` nodes for every 6 units of v (at least
    ``points``), the ``splits`` inside as cuts where sigma0 is below three node spacings there.

    >>> segment_between(0.0, 1.0, -10.0, 10.0, 16).points
    16
    """
    low, high = math.asinh((a - center) / scale), math.asinh((b - center) / scale)
    count = max(points, math.ceil((high - low) * points / 6))
    step = (high - low) / count
    cuts = tuple(sorted({math.asinh((r - center) / scale) for r in splits if a < r < b
                         and sigma0 < 3 * scale * math.cosh(math.asinh((r - center) / scale)) * step}))
    return Segment(float(center), float(scale), low, high, int(count), cuts, bool(hard))


def trimmed(segments, log_density, bounds, points, sigma0=np.inf, splits=()):
    """``segments`` cut to where ``log_density`` (at their nodes) is within DELTA0_NATS of its top, each end
    where the chord to the next node falls END_NATS below it (see :func:`_end`), with their centres and scales
    (found on denser samples) kept; the node counts and cuts follow the new ends and ``sigma0``. A segment may
    cover far more than its sigma0 node's conditional posterior: it is only re-built when it covers too little."""
    top = np.max(log_density)
    if not np.isfinite(top):
        return list(segments)
    out, start, span = [], 0, bounds[1] - bounds[0]
    for segment in segments:
        x, part = segment.nodes, log_density[start : start + segment.size]
        start += segment.size
        inside = np.flatnonzero(part > top - DELTA0_NATS)
        if not len(inside):
            continue
        j0, j1 = inside[0], inside[-1]
        a = _end(x, part, j0, -1, top) if j0 > 0 else segment.ends[0]
        b = _end(x, part, j1, 1, top) if j1 + 1 < len(x) else segment.ends[1]
        hard = a <= bounds[0] + 1e-12 * span or b >= bounds[1] - 1e-12 * span
        out.append(segment_between(segment.center, segment.scale, a, b, points, sigma0, splits, hard))
    return out or list(segments)


def _end(x, log_density, j, step, top):
    """Where a run of points within DELTA0_NATS of ``top`` ending at point j may end (``step`` -1: the run's start):
    the next point, or nearer, where the chord to it is END_NATS below the top (the next point may lie far out,
    sampled on a grid of another sigma0; a log-concave density lies above its chord, so an end placed too near
    shows in the values evaluated there)."""
    inner, outer = log_density[j], log_density[j + step]
    level = top - END_NATS
    if not outer < level < inner:
        return x[j + step]
    return x[j] + (x[j + step] - x[j]) * (inner - level) / (inner - outer)


def panels_covering(start, stop, width, cuts=()):
    """Panels of at most ``width`` covering [start, stop], with the ``cuts`` inside among their edges."""
    edges = [start, *sorted(c for c in cuts if start < c < stop), stop]
    out = []
    for a, b in zip(edges[:-1], edges[1:]):
        pieces = max(1, math.ceil((b - a) / width - 1e-9))
        out.extend((a + (b - a) * j / pieces, a + (b - a) * (j + 1) / pieces) for j in range(pieces))
    return out
