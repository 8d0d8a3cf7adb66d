"""One posterior computation at one resolution (step 4 of :mod:`pp_corr.hierarchical.exact`): a pilot finds where the
posterior lives, the log sigma0 panels are adapted until their error is small, and each sigma0 node is evaluated
exactly on delta0 segments re-built until they cover its conditional posterior, then summarised."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from ...pairwise.poisson_binomial import mixture_pmf
from .convolution import log_t_constant
from .grid import DELTA0_NATS, PEAK_NATS, ExactGrid, NuGrid, panels_covering, segments_covering, trimmed
from .integrals import gauss_legendre, legendre_rule, legendre_series, legendre_values
from .likelihoods import build_likelihoods, convolve

_SIGMA0_FLOOR = 1e-6  # the sigma0 grid reaches this many units (times U when U < 1)
_SIGMA0_NATS = 15.0  # the pilot's sigma0 region ends where the density of log sigma0 is this far below
_PILOT_SPOTS = 200  # the pilot's delta0 points include every xbar_i, or this many of their quantiles (its cost is
# points x q a sigma0: every xbar_i made it 24 CPU-s at q = 1,000, these 8)
_REBUILDS = 6  # a sigma0 node's delta0 segments are evaluated at most this many times


@dataclass
class Node:
    """What one sigma0 node contributes: log phi(t) (the posterior density of t = log sigma0, unnormalised) and
    expectations given sigma0."""

    t: float
    log_value: float
    segments: list
    joint: list  # per segment (nodes, nu): the conditional density of (delta0, nu node) (integrating to 1)
    nu: np.ndarray
    delta0: np.ndarray  # E[delta0], E[delta0^2], P(delta0 > 0)
    new: np.ndarray  # E[p_left], E[p_rope], E[p_right], P(left / rope / right largest)
    datasets: np.ndarray  # (q, 5): E[y], E[y^2], P(delta_i < r_lo), P(delta_i > r_hi), P(delta_i > 0)
    count: np.ndarray  # P(#{delta_i > 0} = j), j = 0..q

    @property
    def density(self):
        """Per segment: the conditional density of delta0 at its nodes."""
        return [joint.sum(axis=1) for joint in self.joint]


class Problem:
    """One posterior computation at one grid resolution."""

    def __init__(self, xbar, ss, n, rho, lo, hi, bounds, sigma0_max, alpha, beta, rope, grid: ExactGrid,
                 population="student_t", nu_distribution=None):
        self.grid, self.bounds, self.sigma0_max, self.rope = grid, bounds, sigma0_max, rope
        self.data = xbar, ss, n, rho, lo, hi
        self.alpha, self.beta, self.nu_distribution, self.population = alpha, beta, nu_distribution, population
        self.splits = tuple(sorted({rope[0], rope[1], 0.0}))
        self.lik = build_likelihoods(xbar, ss, n, rho, lo, hi, (rope[0], rope[1], 0.0), grid)
        self.nus = NuGrid.normal() if population == "normal" else NuGrid.build(alpha, beta, grid, nu_distribution)
        self.floor = math.log(_SIGMA0_FLOOR * min(1.0, sigma0_max))
        self.ceiling = math.log(sigma0_max)
        self.evaluations = 0

    def coarser(self) -> Problem:
        """The same posterior at the resolution of ``grid.coarser()`` (the error estimate's)."""
        return Problem(*self.data, self.bounds, self.sigma0_max, self.alpha, self.beta, self.rope, self.grid.coarser(),
                       self.population, self.nu_distribution)

    # --- pilot: every g_i replaced by a t density, to find where the posterior lives
    def pilot(self):
        """t = log sigma0 nodes, the approximate log marginal of t and delta0 segments at each."""
        lik, grid = self.lik, self.grid
        ts = np.arange(self.floor, self.ceiling + 0.25, 0.25)
        ts[-1] = min(ts[-1], self.ceiling)
        pick = np.unique(np.linspace(0, len(self.nus.nu) - 1, 5).round().astype(int))
        nu, log_w = self.nus.nu[pick], np.log(self.nus.weight[pick])
        constants = log_t_constant(nu)
        low, high = self.bounds
        center = float(np.clip(np.median(lik.xbar), low, high))
        means = lik.xbar if lik.q <= _PILOT_SPOTS else np.quantile(lik.xbar, np.linspace(0, 1, _PILOT_SPOTS))
        spots = np.clip(np.concatenate([means, np.linspace(lik.xbar.min(), lik.xbar.max(), 80)]), low, high)
        log_mass = np.log(lik.mass)
        values, segments = [], []
        for t in ts:
            sigma0 = math.exp(t)
            width = max(sigma0, lik.scale.min()) / 2
            v = np.linspace(np.arcsinh((low - center) / width), np.arcsinh((high - center) / width), 160)
            x = np.unique(np.concatenate([spots, np.clip(center + width * np.sinh(v), low, high)]))
            log_l = lik.log_value(x)
            spread = np.sqrt(sigma0**2 + lik.scale**2)[:, None, None]
            z = (x[None, :, None] - lik.xbar[:, None, None]) / spread
            # g_i is L_i(delta0) as sigma0 -> 0, and the t kernel's tail reaching L_i far from it: the t density of
            # scale sqrt(sigma0^2 + scale_i^2) (L_i as a t of scale_i) times (sigma0 / spread)^nu, which makes its
            # tail that of the kernel alone; L_i's term fades as the kernel outgrows L_i, as g_i falls like 1 / sigma0
            log_t = (constants - 0.5 * (nu + 1) * np.log1p(z * z / nu) - np.log(spread) + log_mass[:, None, None]
                     + nu * np.log(sigma0 / spread))
            fade = 2 * np.log(lik.scale[:, None, None] / spread)
            log_g = np.logaddexp(log_t, log_l[..., None] + fade)  # (q, points, nu)
            log_p = log_g.sum(axis=0) + log_w  # (points, nu)
            profile = special.logsumexp(log_p, axis=1)
            dx = np.gradient(x) if len(x) > 1 else np.ones(1)
            values.append(special.logsumexp(profile + np.log(dx)) + t)
            segments.append(segments_covering(x, profile, self.bounds, grid.delta0_points, sigma0, self.splits))
        return ts, np.array(values), segments

    # --- the sigma0 panels
    def run(self, panels=None, seeds=None):
        """Nodes of log sigma0 (Gauss-Legendre panels, adapted) with their weights, the panels and the extra
        weights of the end nodes for the tails beyond them. Given ``panels`` and ``seeds`` (nodes evaluated at
        another resolution), the nodes of those panels as they are, each node's delta0 segments from the nearest
        seed or node of its own, without the pilot: the error estimate's run on the main run's panels merged."""
        seeded = panels is not None
        if not seeded:
            ts, values, pilot_segments = self.pilot()
            panels = self._first_panels(ts, values)
        flat = self._flat()
        nodes, seeds = {}, dict(seeds or {})

        def guess(t):
            known = {u: node for u, node in {**seeds, **nodes}.items() if node.segments}
            if known:
                near = min(known, key=lambda u: abs(u - t))
                if seeded or abs(near - t) <= 1.0:
                    return self._refitted(known[near], t)
            found = [j for j in np.argsort(np.abs(ts - t)) if pilot_segments[j]]
            return pilot_segments[found[0]]

        points = self.grid.sigma0_points
        for _ in range(40):
            for a, b in panels:
                for t in gauss_legendre(a, b, points)[0]:
                    if t not in nodes:
                        nodes[t] = self.node(t, guess(t))
            top = max(node.log_value for node in nodes.values())
            weighted, masses, errors = [], [], []
            for a, b in panels:
                t, w = gauss_legendre(a, b, points)
                log_phi = np.array([nodes[u].log_value - top for u in t])
                weighted.extend((nodes[u], wu) for u, wu in zip(t, w))
                masses.append(w @ np.exp(log_phi))
                wins = np.array([nodes[u].new[3:5] for u in t]).T  # P(left), P(rope) largest: kinks in sigma0
                errors.append(_panel_error(log_phi, 0.5 * (b - a), wins))
            tolerance = self.grid.sigma0_tolerance * sum(masses)
            (low, high), steady = self._tails(panels, weighted), self._steady(weighted)
            result = panels, weighted, (low, high)  # the panels the weights belong to
            if seeded:  # the error estimate's panels are kept as given
                break
            first, last = panels[0], panels[-1]
            grow_down = (first[0] > self.floor + 1e-9 and math.exp(weighted[0][0].log_value - top) * low > tolerance
                         and not (first[0] <= flat and steady[0]))
            grow_up = (last[1] < self.ceiling - 1e-9 and math.exp(weighted[-1][0].log_value - top) * high > tolerance
                       and not steady[1])
            split = [panel for panel, error in zip(panels, errors) if error > tolerance]
            panels = sorted([panel for panel in panels if panel not in split]
                            + [half for a, b in split for half in ((a, 0.5 * (a + b)), (0.5 * (a + b), b))])
            if grow_down:
                panels.insert(0, (max(self.floor, first[0] - self.grid.sigma0_panel), first[0]))
            if grow_up:
                panels.append((last[1], min(self.ceiling, last[1] + self.grid.sigma0_panel)))
            if not (split or grow_down or grow_up):
                break
        return result

    def _first_panels(self, ts, values):
        """The log sigma0 panels over the pilot's region (``values``, its log marginal at ``ts``)."""
        inside = np.flatnonzero(values > values.max() - _SIGMA0_NATS)
        start, stop = ts[max(inside[0] - 1, 0)], ts[min(inside[-1] + 1, len(ts) - 1)]
        start = max(start, min(self._flat(), ts[int(np.argmax(values))] - 1.0))
        width = min(self.grid.sigma0_panel, max((stop - start) / 4, 0.05))
        return panels_covering(start, stop, width, self.cuts)

    def _flat(self):
        """log sigma0 below which prod g_i barely depends on sigma0."""
        return math.log(1e-3 * self.lik.scale.min())

    @property
    def cuts(self):
        """log sigma0 where the panels have an edge: sigma0 = 0.01 (for P(sigma0 < 0.01)) and the kinks."""
        return (math.log(0.01), *self._kinks())

    def coarser_panels(self, panels, weighted, tolerance):
        """The error estimate's panels: neighbours of ``panels`` merged in pairs from the lowest, never across one
        of :attr:`cuts`, where the merged panel's rule on the interpolants of the pair's nodes (``weighted``, the
        run's) is within ``tolerance`` of the total mass of the pair's rules, for phi and for phi times the
        probabilities of the left and the rope being largest (elsewhere the finer run split the panels to follow
        them, as across a kink)."""
        points = len(weighted) // len(panels)
        top = max(node.log_value for node, _ in weighted)
        values = np.array([[1.0, *node.new[3:5]] for node, _ in weighted]) * np.exp(
            [[node.log_value - top] for node, _ in weighted])  # (nodes, 3)
        weights = np.array([w for _, w in weighted])
        limit = tolerance * (weights @ values[:, 0])
        cuts = self.cuts
        out, j = [], 0
        while j < len(panels):
            (a, b), pair = panels[j], slice(j * points, (j + 2) * points)
            if (j + 1 < len(panels) and not any(abs(b - c) < 1e-12 for c in cuts)
                    and _merge_error(a, b, panels[j + 1][1], values[pair], weights[pair]) <= limit):
                out.append((a, panels[j + 1][1]))
                j += 2
            else:
                out.append((a, b))
                j += 1
        return out

    def _kinks(self):
        """log sigma0 where the rope stops being the most probable region at its centre, for the smallest and
        the largest nu: there P(rope largest) has a kink in sigma0 (for each nu in between)."""
        half = 0.5 * (self.rope[1] - self.rope[0])
        if half <= 0:
            return ()
        kinks = {math.log(half / special.stdtrit(v, 2 / 3)) for v in (self.nus.nu.min(), self.nus.nu.max())}
        return tuple(sorted(kinks))  # one when nu has one node (the normal population): no empty panel

    @staticmethod
    def _steady(weighted):
        """Whether log phi is straight (slopes within 1%) over the three lowest and the three highest nodes:
        the tails beyond then follow the exponential of :meth:`_tails`."""
        def straight(a, b, c):
            left = (b.log_value - a.log_value) / (b.t - a.t)
            right = (c.log_value - b.log_value) / (c.t - b.t)
            return abs(left - right) <= 0.01 * max(abs(left), abs(right))

        nodes = [node for node, _ in weighted]
        return straight(*nodes[:3]), straight(*nodes[-3:])

    @staticmethod
    def tail_slopes(weighted):
        """The rates at which log phi falls beyond the lowest node (downwards, at least 1) and beyond the highest
        (upwards), from the two end nodes on each side."""
        (first, _), (second, _) = weighted[0], weighted[1]
        (last, _), (before, _) = weighted[-1], weighted[-2]
        return (max(1.0, (second.log_value - first.log_value) / (second.t - first.t)),
                (before.log_value - last.log_value) / (last.t - before.t))

    def _tails(self, panels, weighted):
        """Extra weights of the lowest and the highest node for the mass beyond the panels, phi continued as the
        exponential through the two end nodes (at least like e^t below: below the floor prod g_i no longer
        depends on sigma0; nothing above the ceiling)."""
        (first, _), (last, _) = weighted[0], weighted[-1]
        slope_low, slope = self.tail_slopes(weighted)
        low = math.exp(-slope_low * (first.t - panels[0][0])) / slope_low
        beyond = self.ceiling - panels[-1][1]
        high = 0.0
        if beyond > 0:
            if abs(slope) * beyond < 1e-9:
                high = beyond
            else:
                high = math.exp(-slope * (panels[-1][1] - last.t)) * -math.expm1(-slope * beyond) / slope
        return low, high

    def _refitted(self, node: Node, t):
        """Segments for the sigma0 node at t from those of a nearby evaluated ``node``, trimmed to where its
        conditional density lives (a segment that covers is not trimmed by :meth:`node`) and with the cuts of
        this sigma0."""
        with np.errstate(divide="ignore"):
            profile = np.log(np.concatenate(node.density))
        return trimmed(node.segments, profile, self.bounds, self.grid.delta0_points, math.exp(t), self.splits)

    # --- one sigma0 node, exactly
    def node(self, t, segments) -> Node:
        """Evaluate the node at t = log sigma0, re-building its delta0 segments from the exact values until they
        cover the conditional posterior (ends low enough, peaks resolved), at most ``_REBUILDS`` evaluations; the
        node is summarised on the last segments evaluated."""
        sigma0 = math.exp(t)
        samples_x, samples_p = np.empty(0), np.empty(0)
        for attempt in range(_REBUILDS):
            x = np.concatenate([s.nodes for s in segments])
            conv = convolve(self.lik, sigma0, x, self.nus.nu)
            self.evaluations += 1
            with np.errstate(divide="ignore"):
                log_g = np.log(conv[..., 0]) + self.lik.log_top  # (points, nu, q)
            log_p = log_g.sum(axis=2) + np.log(self.nus.weight)  # (points, nu)
            profile = special.logsumexp(log_p, axis=1)
            if self._covers(segments, profile) or attempt == _REBUILDS - 1:  # the last segments are the evaluated ones
                break
            samples_x = np.concatenate([samples_x, x])
            samples_p = np.concatenate([samples_p, profile])
            order = np.argsort(samples_x)
            better = segments_covering(samples_x[order], samples_p[order], self.bounds, self.grid.delta0_points, sigma0,
                               self.splits)
            if not better:
                break
            segments = better
        return self._summarise(t, segments, x, conv, log_p)

    def _covers(self, segments, profile):
        """Every segment's ends are DELTA0_NATS - 3 below the overall top or bounds of delta0's prior, and its
        peak has nodes within PEAK_NATS in proportion to the grid's ``delta0_points`` (5 of 16; a segment spreads
        its points over 6 units of v and a peak spans about 3: a coarser grid cannot have more)."""
        top = profile.max()
        if not np.isfinite(top):
            return True
        start, span = 0, self.bounds[1] - self.bounds[0]
        peak_nodes = max(3, math.ceil(5 * self.grid.delta0_points / 16))
        for s in segments:
            part = profile[start : start + s.size]
            ends = s.ends
            start += s.size
            at_bound = (ends[0] <= self.bounds[0] + 1e-9 * span, ends[1] >= self.bounds[1] - 1e-9 * span)
            for j, bound in ((0, at_bound[0]), (-1, at_bound[1])):
                if part[j] > top - DELTA0_NATS + 3 and not bound:
                    return False
            if np.count_nonzero(part > part.max() - PEAK_NATS) < peak_nodes and part.max() > top - 20:
                return False
        return True

    def _summarise(self, t, segments, x, conv, log_p) -> Node:
        sigma0, lik, nus = math.exp(t), self.lik, self.nus
        rule = np.concatenate([s.weights() for s in segments])
        log_w = log_p + np.log(rule)[:, None]
        top = np.max(log_w)
        q = lik.q
        if not np.isfinite(top):
            return Node(t, -np.inf, segments, [], np.zeros(len(nus.nu)), np.zeros(3), np.zeros(6),
                         np.zeros((q, 5)), np.zeros(q + 1))
        w = np.exp(log_w - top)
        total = w.sum()
        p = w / total
        log_value = top + math.log(total) + t - math.log(self.sigma0_max)
        nu_p = p.sum(axis=0)
        # delta0 given sigma0 (and given sigma0 and nu, for the regions of a new data set)
        density_nu = np.exp(log_p - top)  # (points, nu), unnormalised densities at the nodes
        bounds = np.cumsum([0] + [s.size for s in segments])
        pieces = [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:])]
        r_lo, r_hi = self.rope
        nu = nus.nu
        cut_low, cut_high = _region_cuts(r_lo, r_hi, sigma0, nu)
        where = np.concatenate([[0.0, np.inf], cut_low, cut_high])
        cdf = sum(density_nu[piece].T @ s.cdf_weights(where) for s, piece in zip(segments, pieces))  # (nu, where)
        total = cdf[:, 1]
        delta0 = np.array([(p.sum(axis=1) * x).sum(), (p.sum(axis=1) * x * x).sum(),
                           1 - cdf[:, 0].sum() / total.sum()])
        left = special.stdtr(nu, (r_lo - x[:, None]) / sigma0)
        right = special.stdtr(nu, (x[:, None] - r_hi) / sigma0)
        inside = np.maximum(1 - left - right, 0.0) if r_hi > r_lo else np.zeros_like(left)
        means = [(p * left).sum(), (p * inside).sum(), (p * right).sum()]
        m = np.arange(len(nu))
        with np.errstate(invalid="ignore", divide="ignore"):
            below_low = np.where(total > 0, cdf[m, 2 + m] / total, 0.0)
            below_high = np.where(total > 0, cdf[m, 2 + len(nu) + m] / total, 0.0)
        wins = np.clip(nu_p @ np.stack([below_low, below_high - below_low, 1 - below_high], axis=1), 0.0, 1.0)
        norm = total.sum()
        with np.errstate(invalid="ignore", divide="ignore"):
            ratios = np.where(conv[..., :1] > 0, conv[..., 1:] / conv[..., :1], 0.0)  # (points, nu, q, 5)
        datasets = np.einsum("km,kmij->ij", p, ratios)
        count = self._count(p, ratios[..., 4])
        joint = [density_nu[piece] / norm for piece in pieces]
        return Node(t, log_value, segments, joint, nu_p, delta0, np.concatenate([means, wins]), datasets, count)

    def _count(self, p, positive):
        """P(#{delta_i > 0} = j) given sigma0: Poisson-binomial given (delta0, nu), averaged (terms of weight
        below 1e-12 of the largest dropped)."""
        keep = p > 1e-12 * p.max()
        return mixture_pmf(p[keep], np.clip(positive[keep], 0.0, 1.0))


def _region_cuts(r_lo, r_hi, sigma0, nu):
    """For each nu: delta0 below the first cut makes 'left' the most probable region for a new data set, above
    the second 'right', in between the rope (the cuts coincide when the rope never wins)."""
    center, half = 0.5 * (r_lo + r_hi), 0.5 * (r_hi - r_lo)
    nu = np.asarray(nu, dtype=float)
    offset = np.zeros(nu.shape)
    wins = special.stdtr(nu, half / sigma0) > 2 / 3  # P(rope) > P(left) = P(right) at the rope's centre
    if half > 0 and wins.any():
        def excess(b):  # P(rope) - P(right) at delta0 = centre + b
            return 2 * special.stdtr(nu, (half - b) / sigma0) - special.stdtr(nu, (-half - b) / sigma0) - 1

        low, high = np.zeros(nu.shape), np.full(nu.shape, half)
        for _ in range(54):  # to half * 2^-54, below the offset's rounding
            middle = 0.5 * (low + high)
            ahead = excess(middle) > 0
            low, high = np.where(ahead, middle, low), np.where(ahead, high, middle)
        offset = np.where(wins, 0.5 * (low + high), 0.0)
    return center - offset, center + offset


def _merge_error(a, b, c, values, weights):
    """The largest change of a column's integral over [a, c] from the panels [a, b] and [b, c] (``values`` at
    their Gauss-Legendre nodes, ``weights`` their rule's) to the rule of [a, c] on the two panels' interpolants."""
    points = len(values) // 2
    nodes, rule = gauss_legendre(a, c, points)
    merged = np.zeros(values.shape[1])
    for (start, end), part in (((a, b), values[:points]), ((b, c), values[points:])):
        inside = (nodes >= start) & (nodes <= end) if end == c else (nodes >= start) & (nodes < end)
        u = (2 * nodes[inside] - start - end) / (end - start)
        merged += rule[inside] @ (legendre_values(points, u).T @ part)
    return float(np.max(np.abs(merged - weights @ values)))


def _panel_error(log_phi, half_width, shares=()):
    """An estimate of a panel's Gauss-Legendre error (phi = exp(log_phi) at its nodes, which are fewer than its
    highest degree, also times each of ``shares``, values in [0, 1] at the nodes): the rule is exact up to degree
    2p - 1, so the error is of the order of the Legendre coefficients of degree 2p, extrapolated from the decay
    of the interpolant's last ones. A panel over which log phi spans more than 10 nats counts as unresolved
    (its whole mass)."""
    phi = np.exp(log_phi)
    mass = float(phi @ legendre_rule(len(phi))[1]) * half_width
    if not np.all(np.isfinite(log_phi)) or np.ptp(log_phi) > 10:
        return mass
    error = 0.0
    for values in (phi, *(phi * share for share in shares)):
        c = np.abs(legendre_series(values, -1.0, 1.0).coef)
        tail, before = c[-1] + c[-2], c[-3] + c[-4]
        ratio = min(1.0, tail / before) if before > 0 else 1.0
        error = max(error, half_width * tail * ratio ** ((len(phi) + 1) / 2))
    return error
