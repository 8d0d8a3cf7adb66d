"""Independent draws from the exact posterior, following the quadrature's grid one level given the one above (see
:mod:`pp_corr.hierarchical.exact`, "Draws"): log sigma0, (delta0, nu) at a sigma0 node, each delta_i, each sigma_i."""
from __future__ import annotations

import functools
import math

import numba
import numpy as np
from scipy import special

from ..._args import as_generator, check_count
from .grid import NU_LUMP
from .likelihoods import Likelihoods, level_at
from .posterior import ExactPosterior, solve
from .refinement import Node, Problem

_FINE = 8  # the piecewise-linear grids through the interpolants have this many steps per node spacing
_LOG_FLOOR = 80.0  # nats: interpolated log densities are floored this far below their top
_LAGRANGE = 6  # nodes per local interpolant of a log density
_STEP = 0.1  # delta_i's grids: steps in asinh((d - centre) / scale) around delta0 (out to _CORE) and xbar_i
_CORE = 3.0
_SPAN_POINTS = 64  # and this many equal steps in asinh((d - delta0) / sigma0) over L_i's support


def exact_draws(xbar, ss, n, rho, *, delta0_max, sigma0_max, sigma_bounds, alpha=(0.5, 5.0), beta=(0.05, 0.15),
                rope=(0.0, 0.0), grid=None, population="student_t", nu_distribution=None, draws=4000,
                random_seed=None) -> tuple[ExactPosterior, dict]:
    """:func:`exact_posterior` (same arguments) and ``draws`` independent draws from that posterior.

    The draws (a dict of arrays in the model's unit: ``delta0``, ``sigma0``, ``nu`` of shape (draws,),
    ``delta`` and ``sigma`` of shape (draws, q)) follow the joint law, one level given the one above: log
    sigma0 from its marginal (the interpolants of its density between the quadrature's nodes, exponential
    tails beyond), then (delta0, nu) from the conditional law at one of the two sigma0 nodes around it (in
    proportion to their shares of the joint density's linear interpolant there), delta0 from its conditional
    density's interpolant and log(nu - 1) from the interpolant through its nodes given that delta0; then each
    delta_i from L_i(d) t_nu(d; delta0, sigma0) on the union of a grid at L_i's scale around xbar_i and one at
    sigma0's around delta0 (so that either may be far narrower than the other), and sigma_i^-2 given delta_i
    from its truncated gamma law (see :mod:`pp_corr.hierarchical.exact`). ``random_seed``: an int, a numpy
    Generator or None.

    >>> from pp_corr.hierarchical.exact import ExactGrid
    >>> post, d = exact_draws([0.2, 0.5, -0.1], [9.0, 12.0, 7.0], 10, 0.1, delta0_max=3.0, sigma0_max=30.0,
    ...                       sigma_bounds=(0.01, 100.0), grid=ExactGrid(error_estimate=False), draws=1000,
    ...                       random_seed=1)
    >>> d["delta"].shape, bool(abs(np.mean(d["delta0"] > 0) - post.delta0_p_positive) < 0.06)
    ((1000, 3), True)
    """
    draws = check_count("draws", draws)
    as_generator(random_seed)  # checked before the computation
    result, sampler = exact_sampler(xbar, ss, n, rho, delta0_max=delta0_max, sigma0_max=sigma0_max,
                                    sigma_bounds=sigma_bounds, alpha=alpha, beta=beta, rope=rope, grid=grid,
                                    population=population, nu_distribution=nu_distribution)
    return result, sampler(draws, random_seed)


def exact_sampler(xbar, ss, n, rho, *, delta0_max, sigma0_max, sigma_bounds, alpha=(0.5, 5.0), beta=(0.05, 0.15),
                  rope=(0.0, 0.0), grid=None, population="student_t", nu_distribution=None):
    """:func:`exact_posterior` (same arguments) and a function ``sampler(draws, random_seed)`` that draws from it
    when called, as :func:`exact_draws` does (the same draws for the same seed), without computing it again: for
    results that make their draws only when they are first asked for. The sampler pickles (about 6 MB at q = 54).

    >>> from pp_corr.hierarchical.exact import ExactGrid
    >>> post, sampler = exact_sampler([0.2, 0.5, -0.1], [9.0, 12.0, 7.0], 10, 0.1, delta0_max=3.0,
    ...                               sigma0_max=30.0, sigma_bounds=(0.01, 100.0), grid=ExactGrid(error_estimate=False))
    >>> sampler(200, 1)["delta"].shape
    (200, 3)
    """
    result, problem, run = solve(xbar, ss, n, rho, delta0_max, sigma0_max, sigma_bounds, alpha, beta, rope, grid,
                                 population, nu_distribution)
    return result, functools.partial(_sampled, problem, run)


def _sampled(problem: Problem, run, draws, random_seed) -> dict:
    """``draws`` independent draws (checked) of the posterior that ``problem``'s ``run`` computed."""
    return draw(problem, *run, check_count("draws", draws), as_generator(random_seed))


def draw(problem: Problem, panels, weighted, tails, size, rng) -> dict:
    """``size`` independent draws of the posterior."""
    t, chosen = _draw_log_sigma0(problem, panels, weighted, tails, size, rng)
    delta0, masses = np.empty(size), np.empty((size, len(problem.nus.nu)))
    for j in np.unique(chosen):
        rows = np.flatnonzero(chosen == j)
        delta0[rows], masses[rows] = _draw_delta0(weighted[j][0], len(rows), rng)
    if problem.nus.normal_population:  # the kernel's nu; the draws say inf
        nu, kernel_nu = np.full(size, np.inf), np.full(size, problem.nus.nu[0])
    else:
        nu = kernel_nu = _draw_nu(problem, masses, rng)
    sigma0 = np.exp(t)
    delta = draw_members(problem.lik, delta0, sigma0, kernel_nu, rng)
    return {"delta0": delta0, "sigma0": sigma0, "nu": nu, "delta": delta,
            "sigma": draw_sigmas(problem.data, delta, rng)}


def _draw_log_sigma0(problem: Problem, panels, weighted, tails, size, rng):
    """t = log sigma0 from its marginal: a panel in proportion to its mass (or a tail beyond the panels, the
    exponentials of :meth:`Problem._tails`), then within it the interpolant of log phi. And per draw the index
    of the sigma0 node whose conditional law of (delta0, nu) it takes: between two nodes, each in proportion to
    its share of the joint density's linear interpolant at t; beyond the outermost, that node."""
    points = problem.grid.sigma0_points
    t_nodes = np.array([node.t for node, _ in weighted])
    log_phi = np.array([node.log_value for node, _ in weighted])
    phi = np.exp(log_phi - log_phi.max())  # 0 at a node without mass (it has no conditional law to draw from)
    log_phi = np.maximum(log_phi - log_phi.max(), -_LOG_FLOOR)
    rule = np.array([w for _, w in weighted])
    masses = np.concatenate([[phi[0] * tails[0]], (phi * rule).reshape(-1, points).sum(axis=1), [phi[-1] * tails[1]]])
    piece = rng.choice(len(masses), size=size, p=masses / masses.sum())
    t = np.empty(size)
    slope_low, slope_high = problem.tail_slopes(weighted)
    below, above = piece == 0, piece == len(masses) - 1
    t[below] = panels[0][0] - _truncated_exponential(slope_low, np.inf, rng.random(below.sum()))
    t[above] = panels[-1][1] + _truncated_exponential(slope_high, problem.ceiling - panels[-1][1],
                                                      rng.random(above.sum()))
    for p, (a, b) in enumerate(panels):
        rows = np.flatnonzero(piece == p + 1)
        if len(rows):
            fine = np.linspace(a, b, _FINE * points + 1)
            index, weights = _lagrange_weights(t_nodes, fine)
            density = np.exp((log_phi[index] * weights).sum(axis=1))
            t[rows] = _linear_draws(fine, density, rng.random(len(rows)))
    j = np.searchsorted(t_nodes, t) - 1  # t_nodes[j] < t <= t_nodes[j + 1]
    chosen = np.clip(j, 0, len(t_nodes) - 1)
    between = np.flatnonzero((j >= 0) & (j < len(t_nodes) - 1))
    k = j[between]
    share = (t[between] - t_nodes[k]) / (t_nodes[k + 1] - t_nodes[k])
    upper, lower = share * phi[k + 1], (1 - share) * phi[k]
    chosen[between] = k + (rng.random(len(between)) * (upper + lower) < upper)
    massive = np.flatnonzero(phi > 0)
    empty = np.flatnonzero(phi[chosen] == 0)  # beyond an outermost node without mass: the nearest with mass
    chosen[empty] = massive[np.argmin(np.abs(chosen[empty, None] - massive), axis=1)]
    return t, chosen


def _lagrange_weights(nodes, x):
    """Local interpolation at each x through the _LAGRANGE sorted ``nodes`` around it (the first or last ones at
    the ends; all when there are fewer): their indices and Lagrange weights, each (len(x), _LAGRANGE). For log
    densities: no oscillation where a polynomial through all the nodes has it, exact for a normal density."""
    count = min(_LAGRANGE, len(nodes))
    start = np.clip(np.searchsorted(nodes, x) - count // 2, 0, len(nodes) - count)
    index = start[:, None] + np.arange(count)
    at = nodes[index]  # (len(x), count)
    weights = np.ones(index.shape)
    for j in range(count):
        for m in range(count):
            if m != j:
                weights[:, j] *= (x - at[:, m]) / (at[:, j] - at[:, m])
    return index, weights


def _floored_log(values):
    """log of values >= 0, at least _LOG_FLOOR below the largest along the last axis (and finite)."""
    return np.log(np.maximum(values, np.maximum(values.max(axis=-1, keepdims=True) * math.exp(-_LOG_FLOOR), 1e-300)))


def _truncated_exponential(rate, length, u):
    """The inverse CDF at u of the density proportional to exp(-rate x) on [0, length], elementwise (rate of
    either sign; length may be infinite where rate > 0)."""
    rate, length, u = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (rate, length, u)))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(np.abs(rate) * length < 1e-9, u * length, -np.log1p(u * np.expm1(-rate * length)) / rate)


def _draw_delta0(node: Node, size, rng):
    """delta0 given the node's sigma0 (the local interpolant of its log conditional density in each segment's v,
    exponentiated on a grid _FINE times as fine as the nodes, piecewise linear between; the quadrature's own
    interpolants, polynomials of the density through a piece's nodes, oscillate where a piece is wide), and per
    draw the masses of the nu nodes given that delta0 (the same interpolants of the log joint densities)."""
    fine = [segment.fine_v(_FINE) for segment in node.segments]
    local = [_lagrange_weights(segment.v, v) for segment, v in zip(node.segments, fine)]
    log_density = _floored_log(np.concatenate([joint.sum(axis=1) for joint in node.joint]))
    xs, densities, start = [], [], 0
    for segment, v, (index, weights) in zip(node.segments, fine, local):
        x = segment.center + segment.scale * np.sinh(v)
        density = np.exp((log_density[start + index] * weights).sum(axis=1))
        xs.append(np.concatenate([[x[0]], x, [x[-1]]]))  # zero at both ends: no mass between segments
        densities.append(np.concatenate([[0.0], density, [0.0]]))
        start += segment.size
    delta0 = _linear_draws(np.concatenate(xs), np.concatenate(densities), rng.random(size))
    log_joint = _floored_log(np.concatenate(node.joint).T).T  # (nodes, nu), floored per nu node
    masses, start = np.empty((size, log_joint.shape[1])), 0
    for segment, x in zip(node.segments, xs):
        rows = np.flatnonzero((delta0 >= x[0]) & (delta0 <= x[-1]))
        index, weights = _lagrange_weights(segment.v, np.arcsinh((delta0[rows] - segment.center) / segment.scale))
        logs = np.einsum("rk,rkm->rm", weights, log_joint[start + index])
        masses[rows] = np.exp(logs - logs.max(axis=1, keepdims=True))
        start += segment.size
    return delta0, masses


def _draw_nu(problem: Problem, masses, rng):
    """nu given the masses of its nodes (draws, nodes): the lump below nu = 1.001 or a panel of log(nu - 1) in
    proportion to their masses, then within the panel the local interpolant of the log density (masses over the
    rule's weights), exponentiated on a grid _FINE times as fine as the nodes."""
    nus = problem.nus
    size, start = len(masses), int(nus.lump)
    pieces = np.concatenate([masses[:, :start], masses[:, start:].reshape(size, -1, nus.points).sum(axis=2)],
                            axis=1)
    cumulative = np.cumsum(pieces, axis=1)
    piece = (cumulative < (rng.random(size) * cumulative[:, -1])[:, None]).sum(axis=1)
    piece = np.minimum(piece, pieces.shape[1] - 1)
    nu = np.empty(size)
    lump = piece < start
    nu[lump] = 1 + draw_lump(problem.alpha, problem.beta, int(lump.sum()), rng, problem.nu_distribution)
    rows = np.flatnonzero(~lump)
    panel = piece[rows] - start
    tau = np.log(nus.nu[start:] - 1)
    fine = np.array([np.linspace(a, b, _FINE * nus.points + 1) for a, b in nus.panels])  # (panels, F)
    index, weights = _lagrange_weights(tau, fine.ravel())
    index, weights = (v.reshape(*fine.shape, -1)[panel] for v in (index, weights))  # (rows, F, _LAGRANGE)
    log_density = _floored_log(masses[rows, start:] / nus.rule[start:])
    logs = (np.take_along_axis(log_density, index.reshape(len(rows), -1), axis=1).reshape(index.shape)
            * weights).sum(axis=2)
    density = np.exp(logs - logs.max(axis=1, keepdims=True))
    nu[rows] = 1 + np.exp(_linear_draws(fine[panel], density, rng.random(len(rows))))
    return nu


def draw_lump(alpha, beta, size, rng, distribution=None):
    """nu - 1 from its prior given nu - 1 < NU_LUMP: (a, b) from the prior accepted with probability
    P(a, b NU_LUMP) over its largest value (at the smallest a and largest b: Gamma(a) grows with a in
    distribution), then nu - 1 from Gamma(a, rate b) truncated to (0, NU_LUMP) by inversion; or, another prior
    ``distribution`` (a frozen scipy.stats law of nu - 1), by inversion of its CDF."""
    if distribution is not None:
        return np.minimum(distribution.ppf(rng.random(size) * distribution.cdf(NU_LUMP)), NU_LUMP)
    out = np.empty(0)
    bound = special.gammainc(alpha[0], beta[1] * NU_LUMP)
    while len(out) < size:
        count = 64 * (size - len(out))
        a, b = rng.uniform(*alpha, count), rng.uniform(*beta, count)
        inside = special.gammainc(a, b * NU_LUMP)
        keep = rng.random(count) * bound < inside
        x = special.gammaincinv(a[keep], rng.random(keep.sum()) * inside[keep]) / b[keep]
        out = np.concatenate([out, np.minimum(x, NU_LUMP)])
    return out[:size]


def draw_members(lik: Likelihoods, delta0, sigma0, nu, rng):
    """delta_i given (delta0, sigma0, nu) for every draw (rows) and data set (columns): the density
    L_i(d) t_nu(d; delta0, sigma0) on the union of two grids, d = delta0 + sigma0 sinh(v) (v in equal steps of
    _STEP over L_i's support, or where that takes more than _SPAN_POINTS, that many steps and steps of _STEP out to
    _CORE) and L_i's profile points (steps of _STEP), so that either factor may be far narrower than the other and
    both modes of a heavy-tailed kernel far from L_i are there; piecewise exponential in between. Compiled, the
    draws in parallel threads (numpy took 3 s for 4000 draws of 54 data sets, mostly sorting and temporaries)."""
    u = rng.random((len(delta0), lik.q))
    profiles = [lik.profile_points(i, _STEP) for i in range(lik.q)]
    own = np.zeros((lik.q, max(len(p) for p in profiles)))
    for i, points in enumerate(profiles):
        own[i, : len(points)] = points
    core = np.linspace(-_CORE, _CORE, round(2 * _CORE / _STEP) + 1)
    out = np.empty((len(delta0), lik.q))
    _member_draws(*(np.ascontiguousarray(v, dtype=float) for v in (delta0, sigma0, nu)), lik.edges[:, 0],
                  lik.edges[:, -1], own, np.array([len(p) for p in profiles]), lik.xbar, lik.scale, lik.level_steps,
                  lik.levels, _SPAN_POINTS, core, _STEP, u, out)
    return out


@numba.njit(cache=True, parallel=True)
def _member_draws(delta0, sigma0, nu, low, high, own, own_count, xbar, scale, reach, levels, span_points, core, step,
                  u, out):
    """:func:`draw_members`' draws into ``out`` (draws, q): per draw and data set the grid's points, sorted, the
    log density there (``levels`` interpolated at ``reach`` steps per unit of asinh((d - xbar_i) / scale_i), the
    t kernel) and the piecewise-exponential inverse CDF at ``u``. Over the support, v in equal steps of at most
    ``step`` (then the ``core`` adds nothing) or ``span_points`` of them and the core inside the support."""
    q, size = len(xbar), span_points + len(core) + own.shape[1]
    for r in numba.prange(len(delta0)):
        grown, central = np.empty(span_points), np.empty(len(core))
        points, g, level, cumulative = np.empty(size), np.empty(size), np.empty(size), np.empty(size)
        d0, s0, v = delta0[r], sigma0[r], nu[r]
        half = 0.5 * (v + 1)
        for i in range(q):
            v_low, v_high = math.asinh((low[i] - d0) / s0), math.asinh((high[i] - d0) / s0)
            steps = min(span_points - 1, max(1, math.ceil((v_high - v_low) / step)))
            for j in range(steps + 1):
                grown[j] = d0 + s0 * math.sinh(v_low + (v_high - v_low) * j / steps)
            inside = 0
            if steps == span_points - 1:
                for j in range(len(core)):
                    if v_low < core[j] < v_high:
                        central[inside] = d0 + s0 * math.sinh(core[j])
                        inside += 1
            count = _merge(grown[: steps + 1], central[:inside], own[i, : own_count[i]], low[i], high[i], points)
            for j in range(count):
                z = (points[j] - d0) / s0
                g[j] = level_at(levels[i], reach[i], xbar[i], scale[i], points[j]) - half * math.log(1 + z * z / v)
            out[r, i] = _exponential_draw(points[:count], g[:count], u[r, i], level, cumulative)


@numba.njit(cache=True)
def _merge(a, b, c, low, high, out):
    """The sorted arrays ``a``, ``b`` and ``c`` merged into ``out``, each value clipped to [low, high] (which keeps
    each sorted); returns their count. numba's sort took four times as long as the rest of a draw."""
    i = j = k = 0
    for m in range(len(a) + len(b) + len(c)):
        x = a[i] if i < len(a) else np.inf
        y = b[j] if j < len(b) else np.inf
        z = c[k] if k < len(c) else np.inf
        if x <= y and x <= z:
            i += 1
        elif y <= z:
            x = y
            j += 1
        else:
            x = z
            k += 1
        out[m] = min(max(x, low), high)
    return len(a) + len(b) + len(c)


@numba.njit(cache=True)
def _exponential_draw(x, g, u, level, cumulative):
    """The inverse CDF at u of the piecewise-exponential density through (x, exp(g)), x sorted (g finite; made
    relative to its top here); ``level`` and ``cumulative`` are working space."""
    top, count = g.max(), len(x)
    for j in range(count):
        g[j] = max(g[j] - top, -700.0)
        level[j] = math.exp(g[j])
    total = 0.0
    for j in range(count - 1):
        total += _step_mass(x[j + 1] - x[j], g[j + 1] - g[j], level[j], level[j + 1])
        cumulative[j] = total
    target = u * total
    j = min(np.searchsorted(cumulative[: count - 1], target), count - 2)  # the first step whose mass reaches it
    h, rise = x[j + 1] - x[j], g[j + 1] - g[j]
    mass = _step_mass(h, rise, level[j], level[j + 1])
    if not mass > 0:
        return x[j]
    share = min(max((target - (cumulative[j] - mass)) / mass, 0.0), 1.0)
    if abs(rise) < 1e-6:
        fraction = share * (1 - 0.5 * rise * (1 - share))
    else:
        fraction = math.log1p(share * math.expm1(rise)) / rise
    return x[j] + h * min(max(fraction, 0.0), 1.0)


@numba.njit(cache=True)
def _step_mass(h, rise, start, end):
    """int of exp(g) over a step of width h on which g rises linearly by ``rise``, from exp(g) = ``start`` to
    ``end``."""
    if abs(rise) < 1e-6:
        return h * start * (1 + rise * (0.5 + rise / 6))
    return h * (end - start) / rise


def draw_sigmas(data, delta, rng):
    """sigma_i given delta_i: u = sigma_i^-2 has density proportional to u^(k - 1) exp(-B_i u), k = (n_i - 1) / 2,
    on [1 / hi_i^2, 1 / lo_i^2] (the likelihood sigma^-n exp(-B / sigma^2) times the uniform prior, see
    :mod:`pp_corr.hierarchical.exact`); B_u = x is drawn from Gamma(k) truncated to [B / hi^2, B / lo^2]."""
    xbar, ss, n, rho, lo, hi = data
    c = (1 - rho) / n + rho
    b = np.maximum(0.5 * ((delta - xbar) ** 2 / c + ss / (1 - rho)), 1e-300)  # B = 0 only at a tie's own mean
    x = _truncated_gamma((n - 1) / 2, b / hi**2, b / lo**2, rng)
    return np.clip(np.sqrt(b / x), lo, hi)


def _truncated_gamma(k, a, b, rng):
    """Gamma(k, 1) truncated to [a, b], elementwise: a draw of Gamma(k, 1) where it falls in [a, b] (usually: the
    bounds of sigma_i are wide; 20x faster than inverting), else by :func:`_inverted_gamma` (either way the
    truncated law)."""
    shape = np.broadcast(k, a, b).shape
    k, a, b = (np.ravel(v) for v in np.broadcast_arrays(k, a, b))
    x = rng.standard_gamma(k)
    outside = np.flatnonzero((x < a) | (x > b))
    x[outside] = _inverted_gamma(k[outside], a[outside], b[outside], rng)
    return x.reshape(shape)


def _inverted_gamma(k, a, b, rng):
    """Gamma(k, 1) truncated to [a, b], elementwise (1-D): by inversion of the regularised incomplete gamma
    function from the side where it is small (lower below the median, upper above it); where even that underflows
    (the interval far in a tail: k - b or a - k over ~37 sqrt(k)), by rejection from the exponential tangent to the
    log density of log x at the interval's end nearer the mode (acceptance near 1 there)."""
    u = rng.random(k.shape)
    x = np.empty(k.shape)
    pb = special.gammainc(k, b)
    low = np.flatnonzero(pb < 0.5)  # the interval below the median: P is small and accurate there
    p = pb[low] - u[low] * (pb[low] - special.gammainc(k[low], a[low]))
    x[low] = special.gammaincinv(k[low], np.maximum(p, 1e-300))
    high = np.flatnonzero(pb >= 0.5)
    qa = special.gammaincc(k[high], a[high])
    q = qa - u[high] * (qa - special.gammaincc(k[high], b[high]))
    x[high] = np.where(q < 0.5, special.gammainccinv(k[high], q), special.gammaincinv(k[high], 1 - q))
    far = np.concatenate([low[pb[low] < 1e-290], high[qa < 1e-290]])
    if len(far):
        x[far] = _gamma_tail(k[far], a[far], b[far], pb[far] < 0.5, rng)
    return np.clip(x, a, b)


def _gamma_tail(k, a, b, below, rng):
    """Gamma(k, 1) truncated to [a, b] far in its lower tail (``below``: b < k) or its upper tail (a > k): w =
    log x has the concave log density f(w) = k w - e^w; from the end w0 nearer the mode its tangent
    f(w0) - r |w - w0| (r = |k - e^w0|) bounds it, so |w - w0| is proposed from the exponential of rate r
    truncated to the interval and accepted with probability exp(f(w) - tangent)."""
    with np.errstate(divide="ignore"):
        w_a, w_b = np.log(a), np.log(b)
    start = np.where(below, w_b, w_a)
    rate = np.abs(k - np.exp(start))
    sign = np.where(below, -1.0, 1.0)
    out, todo = np.empty(len(k)), np.arange(len(k))
    while len(todo):
        length = w_b[todo] - w_a[todo]
        step = _truncated_exponential(rate[todo], length, rng.random(len(todo)))
        w = start[todo] + sign[todo] * step
        gap = np.exp(start[todo]) * (np.expm1(w - start[todo]) - (w - start[todo]))  # tangent - f >= 0
        accept = np.log(rng.random(len(todo))) < -gap
        out[todo[accept]] = np.exp(w[accept])
        todo = todo[~accept]
    return out


def _linear_draws(x, density, u):
    """The inverse CDF at u (one per row) of the piecewise-linear density through (x, density): one density per
    row of 2-D x and density, or one for all rows when they are 1-D."""
    x, density = np.atleast_2d(x), np.atleast_2d(density)
    h = np.diff(x, axis=1)
    mass = 0.5 * h * (density[:, 1:] + density[:, :-1])
    cumulative = np.cumsum(mass, axis=1)
    target = u * cumulative[:, -1]
    j = np.minimum((cumulative < target[:, None]).sum(axis=1), h.shape[1] - 1)
    rows = np.arange(len(u)) if len(x) > 1 else np.zeros(len(u), dtype=int)
    left, width = density[rows, j], h[rows, j]
    m = np.maximum(target - (cumulative[rows, j] - mass[rows, j]), 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        slope = np.where(width > 0, (density[rows, j + 1] - left) / width, 0.0)
        root = left + np.sqrt(np.maximum(left * left + 2 * slope * m, 0.0))
        step = np.where(root > 0, 2 * m / root, 0.0)  # f0 s + slope s^2 / 2 = m
    return x[rows, j] + np.clip(step, 0.0, width)
