"""The exact posterior's inner integrals: each data set's likelihood against the population's t kernel,

    G[k, m, i, :] = int t_nu_m(d; delta0_k, sigma0) L_i(d) [1, y, y^2, 1(d < r_lo), 1(d > r_hi), 1(d > 0)] dd,

on the cells of :class:`pp_corr.hierarchical.exact.likelihoods.Likelihoods` (the rules are described in the
docstring of :mod:`pp_corr.hierarchical.exact`, step 2), in two passes: the five-point rule on every cell with
numpy's vectorised exp and log (:func:`five_point_rule`), then, compiled, the sub-cells of each (cell, nu) on which
the kernel is not smooth, halved only where they need it (:func:`refine_cells`, nothing held but the result). Both
run blocks of delta0 nodes in parallel threads, each block's sums in a fixed order, so results do not depend on the
thread count.
On uci54 j48gr - j48 (benchmarks/bench_hierarchical_batch.py) this took the exact posterior from 41 s to about 18 s
on 2 cores: the all-numpy computation before it spent 30 of its 32 s on the sub-cells of every cell for all nu at
once whenever one nu needed them, with the same number of sub-cells all over the cell.
"""
from __future__ import annotations

import ctypes
import functools
import math
import os
from concurrent.futures import ThreadPoolExecutor

import llvmlite.binding as llvm
import numba
import numpy as np
from numba import types
from numba.extending import get_cython_function_address
from scipy import special

TOLERANCE = 1e-5  # a (sub-)cell keeps the Gauss-Legendre rule while its error bound is below this (relative)
COARSE = np.polynomial.legendre.leggauss(5)  # the rule on every cell: exact for degree 9
# the rule on every sub-cell: exact for degree 9; with three points (degree 5) sub-cells had to be about three times
# narrower for the same error bound: twice the sub-cells visited (uci54 hnb - nbc 8.7M against 4.0M) for as many
# kernel evaluations at the leaves
GAUSS = COARSE
GAUSS_OFFSET = float(-GAUSS[0][0])  # the outer nodes sit at +-0.9062 of the half-width from the centre
_GAUSS_10 = np.polynomial.legendre.leggauss(10)
_STEPS_PER_UNIT, _DENSITY_STEPS = 4, 257  # the kernels' densities tabulated for the smoothness checks: z = 0 .. 64
_COARSE_AT = (COARSE[0] + 1) / 2  # the rules' nodes on [0, 1]
_GAUSS_AT = (GAUSS[0] + 1) / 2
_GAUSS_HALF_WEIGHTS = 0.5 * GAUSS[1]


def _student_cdf_symbol() -> str:
    """Register scipy's compiled Student t CDF ``stdtr(df, t)`` on doubles as a linker symbol, so compiled code
    calls it by name (and numba's cache stays valid in a new process). cython_special names its double version
    by a fused-type index: the one that agrees with ``scipy.special.stdtr`` is taken."""
    signature = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double, ctypes.c_double)
    for name in ("stdtr", "__pyx_fuse_0stdtr", "__pyx_fuse_1stdtr"):
        try:
            address = get_cython_function_address("scipy.special.cython_special", name)
        except ValueError:
            continue
        if signature(address)(3.0, -1.3) == special.stdtr(3.0, -1.3):
            llvm.add_symbol("pp_corr_stdtr", address)
            return "pp_corr_stdtr"
    raise ImportError("scipy.special.cython_special has no stdtr(double, double)")


_stdtr = types.ExternalFunction(_student_cdf_symbol(), types.float64(types.float64, types.float64))


@numba.njit(cache=True)
def t_density(z, nu, constant):
    """The t density f_nu(z), its log normalising ``constant`` given. log(1 + z^2 / nu), not log1p: half the cost,
    and the density's relative error stays below (nu + 1) times the float epsilon where log1p would help.

    >>> from scipy import stats
    >>> bool(abs(t_density(0.7, 3.0, float(log_t_constant(3.0))) - stats.t.pdf(0.7, 3.0)) < 1e-15)
    True
    """
    return math.exp(constant - 0.5 * (nu + 1) * math.log(1.0 + z * z / nu))


def log_t_constant(nu):
    """log of the t density's normalising constant, Gamma((nu + 1) / 2) / (Gamma(nu / 2) sqrt(nu pi)).

    >>> round(float(log_t_constant(1.0)), 12) == round(-math.log(math.pi), 12)
    True
    """
    return special.gammaln((nu + 1) / 2) - special.gammaln(nu / 2) - 0.5 * np.log(nu * np.pi)


@functools.cache
def _threads(count) -> ThreadPoolExecutor:
    """``count`` threads for :func:`five_point_rule`, as many as numba's (``numba.set_num_threads`` sets both); a
    forked child starts its own (the parent's threads do not exist there)."""
    return ThreadPoolExecutor(count, thread_name_prefix="pp_corr-kernel")


os.register_at_fork(after_in_child=_threads.cache_clear)


def five_point_rule(points, weights, sigma0, delta0, nu, constants, out):
    """The five-point rule's G (delta0, nu, q, 6) into ``out``: the t kernel at the cells' nodes ``points`` (q, 5C)
    against their ``weights`` (q, 5C, 6). numpy's exp and log are vectorised (several times faster than a
    compiled loop's), so blocks of delta0 nodes run in threads (numpy releases the GIL); the blocks are fixed,
    so results do not depend on the thread count. The kernel takes log(1 + z^2 / nu) for log1p's half the time
    (see :func:`t_density`).

    >>> pts, w = np.array([[0.0, 1.0]]), np.ones((1, 2, 6))
    >>> out = np.empty((1, 1, 1, 6))
    >>> five_point_rule(pts, w, 1.0, np.array([0.0]), np.array([1.0]), log_t_constant(np.array([1.0])), out)
    >>> bool(np.isclose(out[0, 0, 0, 0], 1 / np.pi + 1 / (2 * np.pi)))  # Cauchy density at 0 and 1
    True
    """
    log_sigma0 = math.log(sigma0)

    def block(rows):
        z2 = ((points[None] - delta0[rows, None, None]) / sigma0) ** 2  # (block, q, 5C)
        for m, (v, constant) in enumerate(zip(nu, constants)):
            kernel = _t_kernel(z2, v, constant - log_sigma0)
            out[rows, m] = np.matmul(kernel.transpose(1, 0, 2), weights).transpose(1, 0, 2)

    # a kernel of at most 3 MB, but two delta0 nodes at least (numpy's matmul of a single row per data set took as
    # long as the kernel at q = 1,000; two rows cost 0.7 of one's time a row)
    _run_blocks(block, len(delta0), max(2, min(8, int(4e5 // points.size))))


def five_point_draws(points, weights, sigma0, delta0, nu, constants, out):
    """:func:`five_point_rule` for draws, each with its own ``sigma0``, ``delta0``, ``nu`` and ``constants``
    (arrays of one per draw): G (draws, q, 6) into ``out``, blocks of draws in threads."""
    def block(rows):
        scale = sigma0[rows, None, None]
        z2 = ((points[None] - delta0[rows, None, None]) / scale) ** 2  # (block, q, 5C)
        kernel = _t_kernel(z2, nu[rows, None, None], constants[rows, None, None] - np.log(scale))
        out[rows] = np.matmul(kernel.transpose(1, 0, 2), weights).transpose(1, 0, 2)

    _run_blocks(block, len(delta0), max(1, min(64, int(4e5 // points.size))))


def _t_kernel(z2, nu, log_constant):
    """The t density over sigma0 at squared standardised distances ``z2``, in one new buffer (``log_constant``
    includes -log sigma0); log(1 + x) costs half of log1p(x) (see :func:`t_density`)."""
    kernel = np.divide(z2, nu)
    kernel += 1.0
    np.log(kernel, out=kernel)
    kernel *= -0.5 * (nu + 1)
    kernel += log_constant
    np.exp(kernel, out=kernel)
    return kernel


def _run_blocks(block, count, size):
    """``block(rows)`` on consecutive slices of ``size`` of range(count), in threads when there are several (the
    slices are fixed, so results do not depend on the thread count)."""
    blocks = [slice(start, start + size) for start in range(0, count, size)]
    if len(blocks) == 1:  # one block (the data-set likelihoods' one node at a time): no hop to a thread
        block(blocks[0])
    else:
        list(_threads(numba.get_num_threads()).map(block, blocks))


@numba.njit(cache=True)
def _roughness(gap, width, nu):
    """The largest log-slope scale of the kernel on [gap, gap + width] (gap >= 0, in units of sigma0): its log
    density changes by about roughness * dz over dz there. (nu + 1)(1 + z) / (nu + z^2) peaks at
    z = sqrt(1 + nu) - 1."""
    z = min(max(math.sqrt(1 + nu) - 1, gap), gap + width)
    return (nu + 1) * (1 + z) / (nu + z * z)


@numba.njit(cache=True)
def rule_error(density, gap, width, nu, points):
    """A bound on the Gauss-Legendre error (``points`` = 3 or 5 nodes) for int kernel * L over a cell
    [gap, gap + width] (units of sigma0, gap >= 0), relative to L, given the kernel's ``density`` at ``gap``. The
    3-point rule's error is width^7 (3!)^4 / (7 (6!)^3) ~ 5e-7 width^7 times the integrand's 6th derivative, at
    most about 20 roughness^6 times the kernel (the normal and Cauchy densities' 6th derivatives at 0 are 15 and
    720 times their value, where roughness is 1 and 2); the 5-point rule's is ~ 3.9e-13 width^11 times the 10th
    derivative, at most about 3500 roughness^10 times the kernel (945 and 3628800 times, roughness 1 and 2).

    >>> density = t_density(0.0, 3.0, float(log_t_constant(3.0)))
    >>> bool(rule_error(density, 0.0, 0.1, 3.0, 3) < 1e-11 < rule_error(density, 0.0, 2.0, 3.0, 3))  # 0.1 or 2 sigma0
    True
    """
    return _scaled_error(density, width, width * _roughness(gap, width, nu), points)


@numba.njit(cache=True)
def _scaled_error(density, width, scale, points):
    """:func:`rule_error` given the cell's ``width`` times the kernel's roughness on it, ``scale``."""
    square = scale * scale
    if points == 3:
        return density * width * 1e-5 * square * square * square
    return density * width * 1.4e-9 * (square * square) ** 2 * square


@numba.njit(cache=True)
def kernel_moments(left, right, middle, nu, constant):
    """int f_nu, int (z - middle) f_nu and int (z - middle)^2 f_nu over [left, right] (see the module docstring
    of :mod:`pp_corr.hierarchical.exact`: with A(z) = (nu + z^2) f_nu(z), A' = -(nu - 1) z f_nu).

    >>> from scipy import integrate, stats
    >>> m0, m1, m2 = kernel_moments(-0.5, 2.0, 0.5, 3.0, float(log_t_constant(3.0)))
    >>> want = [integrate.quad(lambda z: (z - 0.5) ** p * stats.t.pdf(z, 3.0), -0.5, 2.0)[0] for p in (0, 1, 2)]
    >>> bool(np.allclose([m0, m1, m2], want, rtol=1e-12, atol=0))
    True
    """
    tail_left, tail_right = _stdtr(nu, -abs(left)), _stdtr(nu, -abs(right))  # from each end
    if left >= 0:
        m0 = tail_left - tail_right
    elif right <= 0:
        m0 = tail_right - tail_left
    else:
        m0 = 1 - tail_left - tail_right
    half_excess = 0.5 * (nu - 1)  # > 0
    log_left, log_right = math.log1p(left * left / nu), math.log1p(right * right / nu)
    scale = math.exp(constant) * nu  # A(z) = scale (1 + z^2 / nu)^-(nu - 1) / 2
    a_left, a_right = scale * math.exp(-half_excess * log_left), scale * math.exp(-half_excess * log_right)
    # m1 = -(A(right) - A(left)) / (nu - 1), written to stay exact as nu -> 1
    sign = 1.0 if log_left > log_right else -1.0 if log_left < log_right else 0.0
    m1 = (-0.5 * scale * sign * math.exp(-half_excess * min(log_left, log_right))
          * -math.expm1(-half_excess * abs(log_left - log_right)) / half_excess)
    m2 = (nu * m0 - (right * a_right - left * a_left)) / (nu - 2)
    return m0, m1 - middle * m0, m2 - 2 * middle * m1 + middle * middle * m0


@numba.njit(cache=True)
def _rough_subcell(left, width, values, nu, constant, out):
    """int kernel * L [1, y, y^2] over the sub-cell [left, left + width] (units of sigma0) added to ``out`` (3,), L's
    moments taken as their quadratics through the sub-cell's outer and middle Gauss-Legendre nodes (``values``
    (nodes, 3 moments)): ten-point Gauss-Legendre where the kernel is at least 2/3 of a sub-cell wide (its poles at
    +-i sqrt(nu) are then far enough for 1e-10), the kernel's exact moments where it is narrower."""
    tau, w = _GAUSS_10
    if width <= 1.5:
        s0 = s1 = s2 = 0.0
        for j in range(len(tau)):
            density = t_density(left + 0.5 * width + 0.5 * width * tau[j], nu, constant) * (0.5 * width) * w[j]
            u = tau[j] / GAUSS_OFFSET
            s0 += density
            s1 += density * u
            s2 += density * u * u
    else:
        m0, c1, c2 = kernel_moments(left, left + width, left + 0.5 * width, nu, constant)
        half = GAUSS_OFFSET * 0.5 * width
        s0, s1, s2 = m0, c1 / half, c2 / (half * half)
    middle = len(values) // 2
    for r in range(3):
        low, mid, high = values[0, r], values[middle, r], values[-1, r]
        out[r] += s0 * mid + s1 * 0.5 * (high - low) + s2 * 0.5 * (high - 2 * mid + low)


@numba.njit(cache=True)
def _density_steps(nu, constants):
    """The kernels' densities (nu, steps) at z = j / _STEPS_PER_UNIT, j = 0, 1, ...: at a gap, the one
    at the step below it bounds the density from above (the density falls with |z|)."""
    out = np.empty((len(nu), _DENSITY_STEPS))
    for m in range(len(nu)):
        for j in range(_DENSITY_STEPS):
            out[m, j] = t_density(j / _STEPS_PER_UNIT, nu[m], constants[m])
    return out


@numba.njit(cache=True)
def _smooth_cell(gap, cell_z, top, nu, constant, steps, threshold):
    """Whether the five-point rule's error bound on a cell is below ``threshold``. The bound with the density at
    the step below ``gap`` (``steps``: this kernel's :func:`_density_steps`) for its density at ``gap`` settles
    81 to 94 in 100 cells without a logarithm on uci54, the 16-classifier file and the stress battery (the
    kernel's peak, used before, 57 to 82)."""
    bound = steps[min(int(gap * _STEPS_PER_UNIT), _DENSITY_STEPS - 1)]
    if rule_error(bound, gap, cell_z, nu, 5) * top <= threshold:
        return True
    return rule_error(t_density(gap, nu, constant), gap, cell_z, nu, 5) * top <= threshold


@numba.njit(cache=True)
def _smooth_for_every_nu(gap, cell_z, top, peak, threshold):
    """Whether the five-point rule's error bound on a cell is below ``threshold`` for every nu >= 1, given the
    largest ``peak`` of the kernels: the kernel's roughness (:func:`_roughness`) on [gap, gap + cell_z] is at most
    2 (1 + gap + cell_z) for every nu >= 1 ((nu + 1) / (nu + z^2) is at most 1 for z >= 1, at most 2 below).
    It settles, before the loop over nu, the cells on which every kernel is wide (1 to 47 in 100 on uci54, the
    16-classifier file and the stress battery)."""
    return _scaled_error(peak, cell_z, cell_z * 2 * (1 + gap + cell_z), 5) * top <= threshold


@numba.njit(cache=True)
def _subcells(z_start, cell_z, values, offsets, levels, nu, constant, top, threshold, negligible, stack, out):
    """int kernel * L [1, y, y^2] over the cell [z_start, z_start + cell_z] (units of sigma0) into ``out`` (3,),
    by sub-cells halved where the kernel is not smooth on them: a sub-cell of level S (S equal sub-cells of the
    cell) keeps the five-point rule where its error bound is below ``threshold`` / S (so the cell's bound stays
    below ``threshold``), else it is halved, down to the last of ``levels`` (each twice the one before); there
    the sub-cells still rough take :func:`_rough_subcell`. Sub-cells on which the kernel stays below
    ``negligible`` (its largest density times the sub-cell's width) are left out. ``values`` (sum of levels,
    5 nodes, 3 moments) are L's moments at every level's sub-cells' nodes, level ``levels[l]`` from
    ``offsets[l]``; ``stack`` (>= 2 x levels, 2) is working space."""
    last = len(levels) - 1
    out[:] = 0.0
    stack[0, 0], stack[0, 1], stack[1, 0], stack[1, 1] = 0, 1, 0, 0
    size = 2
    while size > 0:
        size -= 1
        level, index = stack[size, 0], stack[size, 1]
        width = cell_z / levels[level]
        left = z_start + width * index
        gap = max(max(left, -(left + width)), 0.0)
        density = t_density(gap, nu, constant)
        if density * width <= negligible:
            continue
        error = rule_error(density, gap, width, nu, len(_GAUSS_AT))
        if level < last and error * top * levels[level] >= threshold:
            stack[size, 0], stack[size, 1] = level + 1, 2 * index + 1
            stack[size + 1, 0], stack[size + 1, 1] = level + 1, 2 * index
            size += 2
            continue
        cell = values[offsets[level] + index]
        if level == last and error > TOLERANCE / levels[level]:
            _rough_subcell(left, width, cell, nu, constant, out)
            continue
        for j in range(len(_GAUSS_AT)):
            weight = t_density(left + width * _GAUSS_AT[j], nu, constant) * _GAUSS_HALF_WEIGHTS[j] * width
            for r in range(3):
                out[r] += weight * cell[j, r]


def dealt_order(n, hands=None) -> np.ndarray:
    """0 .. n - 1 dealt to ``hands`` (default: numba's threads) in turn and laid out hand after hand: hand h holds
    h, h + hands, ... (computed here, not in the compiled kernel: asking numba for its thread count there would
    keep the kernel out of numba's cache).

    >>> dealt_order(7, 3).tolist()
    [0, 3, 6, 1, 4, 2, 5]
    """
    hands = numba.get_num_threads() if hands is None else hands
    return np.concatenate([np.arange(hand, n, hands) for hand in range(hands)]).astype(np.int64)


@numba.njit(cache=True, parallel=True)
def refine_cells(out, weights, edges, top, sides, fine, offsets, levels, reach, sigma0, delta0, nu, constants,
                 order):
    """Add to ``out`` (delta0, nu, q, 6), the five-point rule's G on every cell, the sub-cells' correction for each
    (cell, nu) where that rule's error bound is above :data:`TOLERANCE` of the data set's integral: the sub-cells of
    :func:`_subcells` minus the cell's rule. The likelihood cells: ``edges`` (q, C + 1), the rule's weights
    ``weights`` (q, 5C, 6), the cells' largest L ``top`` (q, C) and ``sides`` (q, C, 3), the sub-cells' values
    ``fine`` (q, C, sum of levels, 5 nodes, 3 moments), level ``levels[l]`` from ``offsets[l]``, and the largest
    max(1, y^2) on each cell ``reach`` (q, C): sub-cells whose share of a moment stays below 1e-12 of the data
    set's integral are left out. The delta0 nodes run in parallel threads in the ``order`` given: :func:`dealt_order`
    (numba gives each thread one run of consecutive iterations, and the costly nodes, near the data, are
    neighbours: 8% faster on uci54 j48gr - j48)."""
    steps = _density_steps(nu, constants)
    for turn in numba.prange(len(delta0)):
        k = order[turn]
        _refine_node(out[k], weights, edges, top, sides, fine, offsets, levels, reach, sigma0, delta0[k], nu,
                     constants, steps)


@numba.njit(cache=True, parallel=True)
def refine_draws(out, weights, edges, top, sides, fine, offsets, levels, reach, sigma0, delta0, nu, constants):
    """:func:`refine_cells` for draws: ``out`` (draws, q, 6) and each draw's own ``sigma0``, ``delta0``, ``nu`` and
    ``constants`` (arrays of one per draw), the draws in parallel threads."""
    for k in numba.prange(len(delta0)):
        _refine_node(out[k : k + 1], weights, edges, top, sides, fine, offsets, levels, reach, sigma0[k], delta0[k],
                     nu[k : k + 1], constants[k : k + 1], _density_steps(nu[k : k + 1], constants[k : k + 1]))


@numba.njit(cache=True)
def _refine_node(out, weights, edges, top, sides, fine, offsets, levels, reach, sigma0, d0, nu, constants, steps):
    """:func:`refine_cells` at one delta0 node ``d0``: ``out`` (nu, q, 6); ``steps`` the kernels'
    :func:`_density_steps`."""
    q, cells = top.shape
    base = np.empty(len(nu))
    change = np.empty(3)
    stack = np.empty((2 * len(levels) + 2, 2), dtype=np.int64)
    highest = steps[:, 0].max()  # the largest peak
    for i in range(q):
        for m in range(len(nu)):
            base[m] = out[m, i, 0]
        lowest = TOLERANCE * base.min()
        for c in range(cells):
            lower, upper = edges[i, c], edges[i, c + 1]
            if upper == lower:  # padding
                continue
            cell_z = (upper - lower) / sigma0
            gap = max(max(lower - d0, d0 - upper), 0.0) / sigma0
            if _smooth_for_every_nu(gap, cell_z, top[i, c], highest, lowest):
                continue
            z_start = (lower - d0) / sigma0
            for m in range(len(nu)):
                v, constant, threshold = nu[m], constants[m], TOLERANCE * base[m]
                if _smooth_cell(gap, cell_z, top[i, c], v, constant, steps[m], threshold):
                    continue
                _subcells(z_start, cell_z, fine[i, c], offsets, levels, v, constant, top[i, c], threshold,
                          1e-12 * base[m] / (top[i, c] * reach[i, c]), stack, change)
                for j in range(5):  # minus the cell's five-point rule
                    density = t_density(z_start + cell_z * _COARSE_AT[j], v, constant) / sigma0
                    for r in range(3):
                        change[r] -= density * weights[i, 5 * c + j, r]
                for r in range(3):
                    out[m, i, r] += change[r]
                for r in range(3):
                    out[m, i, 3 + r] += change[0] * sides[i, c, r]
