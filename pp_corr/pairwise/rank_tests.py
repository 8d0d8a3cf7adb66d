"""Bayesian tests on per-data-set mean differences z_1..z_q: the signed-rank and sign tests on a Dirichlet process,
imprecise DP, rope variants (their frequentist counterparts are in :mod:`.frequentist_rank_tests`).

Every test takes a scores Dataset with ``algorithms=(a, b)``, the scores of A (``x``) and of B (``y``), or
differences B - A: ``(q, n)`` per fold or ``(q,)`` per data set (a 1-D array is one value per data set,
never the folds of one data set); see :func:`pp_corr.data.scores.mean_differences`, which keeps exact ties at
exactly 0. A scores Dataset's data sets where the two algorithms have no fold in common are left out (the result's
``left_out`` names them); the others use the folds both have. These tests compare algorithms across data sets:
scores of a single data set are refused (use :func:`pp_corr.correlated_ttest` for one data set). ``rope`` is None
(the default: no rope, the rope region then holds only exact zeros), a half-width r (the interval [-r, r]) or a pair
(lo, hi), as for the correlated t-test."""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import pandas as pd
import xarray as xr

from .._args import as_generator, as_rope, b_minus_a, check_count, check_real, warn_percent_scale
from ..data.scores import mean_differences, pick_algorithms
from ..results import Result, region_decision_line
from .incomplete import common_datasets, left_out_tail

IDP_STRENGTH = (np.sqrt(17) - 3) / 2
REGIONS = ("left", "rope", "right")
TIE_TOLERANCE = 1e-12  # relative: values this close are equal (see tie_step)


def heaviside(v):
    """H(v) = 1 for v > 0, 1/2 at 0, 0 below.

    >>> heaviside(np.array([-1.0, 0.0, 2.0])).tolist()
    [0.0, 0.5, 1.0]
    """
    return np.where(v > 0, 1.0, np.where(v == 0, 0.5, 0.0))


def dirichlet(rng, alpha, size):
    """Dirichlet draws (size, len(alpha)) through Gamma variates, so that zero weights are allowed. The array is the
    transpose of a C-ordered (len(alpha), size) one: each weight's draws lie side by side, as the signed-rank
    kernel (:meth:`PairSumRegions.masses`) reads them.

    >>> w = dirichlet(np.random.default_rng(0), [0.5, 1, 1], size=4)
    >>> w.shape, bool(np.allclose(w.sum(axis=1), 1)), w.T.flags.c_contiguous
    ((4, 3), True, True)
    """
    alpha = np.asarray(alpha, dtype=float)
    g = rng.standard_gamma(np.broadcast_to(alpha[:, None], (len(alpha), size)))
    return (g / g.sum(axis=0)).T


def rank_test_differences(x, y, algorithms):
    """(z, names, left_out) for a rank test (here and in :mod:`.frequentist_rank_tests`): the per-data-set mean
    differences on the data sets where both algorithms have scores, refusing scores of one data set, and the names
    of the data sets left out.

    >>> rank_test_differences([0.1, 0.2], [0.3, 0.1], None)[0].tolist()
    [0.19999999999999998, -0.1]
    """
    advice = "to compare two algorithms on one data set use correlated_ttest"
    left_out = ()
    if isinstance(x, xr.Dataset):
        x, left_out = common_datasets(x, *pick_algorithms(x, algorithms, y))
        if x.sizes.get("dataset", 0) == 1:
            where = f" where both algorithms have scores (left out: {', '.join(left_out)})" if left_out else ""
            raise ValueError(f"the rank tests compare data sets: the scores hold only one data set{where} "
                             f"({str(x.dataset.values[0])!r}); {advice}")
    elif (shape := b_minus_a(x, y).shape) and len(shape) == 2 and shape[0] == 1:
        raise ValueError(f"the rank tests compare data sets: x has the {shape[1]} per-fold values of only one "
                         f"data set (shape {shape}); {advice} (a 1-D x is one value per data set)")
    z, names, _ = mean_differences(x, y, algorithms=algorithms)
    return z, names, left_out


def _rope_bounds(rope) -> tuple[float, float]:
    """(lo, hi) of a rope given as None (no rope), a half-width or a pair."""
    bounds = as_rope(rope)
    return (0.0, 0.0) if bounds is None else bounds


def _prior_arguments(rope, prior_strength, z0, draws):
    """The checked (lo, hi, prior_strength, z0, draws) of a Bayesian signed-rank or sign test."""
    lo, hi = _rope_bounds(rope)
    return (lo, hi, check_real("prior_strength", prior_strength, low=0), check_real("z0", z0),
            check_count("draws", draws))


def _rope_record(rope):
    """The rope as a result records it: None (no rope), the half-width r for [-r, r], else the pair (lo, hi)."""
    if rope is None:
        return None
    if np.ndim(rope) == 0:
        return float(rope)
    lo, hi = (float(v) for v in np.ravel(rope))
    return hi if lo == -hi else (lo, hi)


def tie_step(a, b, magnitude):
    """H(a - b) by comparison: 1 above, 1/2 on, 0 below. a and b count as equal when they differ by at most
    TIE_TOLERANCE x ``magnitude`` (the size of the numbers they were summed from): mean differences of scores
    carry rounding, so a pair sum equal to a rope boundary in exact arithmetic misses it by a few ulps.

    >>> tie_step(np.array([0.1 + 0.2, 0.31, 0.29]), 0.3, 0.3).tolist()  # 0.1 + 0.2 is 0.30000000000000004
    [0.5, 1.0, 0.0]
    """
    close = np.abs(a - b) <= TIE_TOLERANCE * magnitude
    return np.where(close, 0.5, np.where(a > b, 1.0, 0.0))


def in_unit(values, *bounds):
    """``values`` and ``bounds`` divided by a power of two near their largest magnitude (exact for normal floats),
    so that sums and differences of two of them cannot overflow.

    >>> values, bound = in_unit(np.array([3.0, -1.0]), 0.5)  # the largest, 3, is in [2, 4): divided by 2
    >>> values.tolist(), float(bound)
    ([1.5, -0.5], 0.25)
    """
    largest = max(np.max(np.abs(values), initial=0.0), *(abs(b) for b in bounds))
    unit = np.ldexp(1.0, np.frexp(largest)[1] - 1) if largest > 0 else 1.0  # largest / unit in [1, 2)
    return (np.asarray(values) / unit, *(b / unit for b in bounds))


def _first_false(predicate, n):
    """For each row i of a predicate(i, j) that is True then False along j in [0, n): the first j where it is
    False (n if none), by a binary search over all rows at once (log2(n) evaluations of n pairs)."""
    rows = np.arange(n)
    low, high = np.zeros(n, dtype=np.int64), np.full(n, n, dtype=np.int64)
    while (active := low < high).any():
        i, mid = rows[active], (low[active] + high[active]) // 2
        true = predicate(i, mid)
        low[active], high[active] = np.where(true, mid + 1, low[active]), np.where(true, high[active], mid)
    return low


class PairSumRegions:
    """Where each pair sum z_i + z_j falls against the rope (lo, hi), without the q x q matrix of pairs.

    With H as in :func:`tie_step` (a sum within TIE_TOLERANCE of a boundary counts 1/2), the right region holds
    R_ij = H(z_i + z_j - 2 hi) and the left L_ij = H(2 lo - z_i - z_j). With the points sorted once, row i of R
    is 0 up to ``right_half[i]``, 1/2 up to ``right_full[i]``, then 1; row i of L is 1 up to ``left_full[i]``, 1/2
    up to ``left_half[i]``, then 0 (each found by a binary search with the same comparison as the matrix). So
    sum_ij w_i w_j R_ij is, per draw, a cumulative sum of the sorted weights and a gather at those positions:
    O(q) a draw instead of O(q^2). ``columns`` maps the points to columns of the weights (default: the same
    order); ``right_trace`` is sum_i R_ii.

    >>> regions = PairSumRegions(np.array([-0.02, 0.01, 0.03]), -0.01, 0.01)
    >>> # pair sums: -0.04 left; -0.01 and 0.01 in the rope; 0.02 on its edge (half); 0.04 and 0.06 right
    >>> masses = regions.masses(np.array([[0.2, 0.3, 0.5]]))  # left, rope, right: they sum to (sum w)^2
    >>> bool(np.allclose(masses, [[0.2**2, 2 * 0.2 * 0.3 + 2 * 0.2 * 0.5 + 0.3**2 / 2,
    ...                             0.3**2 / 2 + 2 * 0.3 * 0.5 + 0.5**2]]))
    True
    """

    def __init__(self, points, lo, hi, columns=None):
        points, lo, hi = in_unit(points, lo, hi)
        order = np.argsort(points, kind="stable")
        self.columns = (order if columns is None else np.asarray(columns)[order]).astype(np.int64)
        self.points = p = points[order]
        size, low, high, edge = np.abs(p), 2 * lo, 2 * hi, 2 * max(abs(lo), abs(hi))

        def right(i, j):
            return tie_step(p[i] + p[j], high, size[i] + size[j] + edge)

        def left(i, j):
            return tie_step(low, p[i] + p[j], size[i] + size[j] + edge)

        n = len(p)
        self.right_half = _first_false(lambda i, j: right(i, j) == 0, n)
        self.right_full = _first_false(lambda i, j: right(i, j) < 1, n)
        self.left_full = _first_false(lambda i, j: left(i, j) == 1, n)
        self.left_half = _first_false(lambda i, j: left(i, j) > 0, n)
        # the rope's entries 1 - L - R are >= 0, so the rope is empty when every row's sum of them is 0
        self.rope_empty = bool((self.left_full + self.left_half == self.right_half + self.right_full).all())
        self.right_trace = float(right(np.arange(n), np.arange(n)).sum())

    @classmethod
    def of_rows(cls, rows, lo, hi, columns=None) -> list[PairSumRegions]:
        """The regions of every row of ``rows`` (m, n), as ``PairSumRegions(row, lo, hi, columns)`` one by one, found
        for all rows at once: each predicate of the binary searches is True then False along a sorted row, so the
        position where it turns False is its count of True (m n^2 comparisons instead of m Python constructions).

        >>> rows = np.array([[-0.02, 0.01, 0.03], [0.02, -0.01, 0.0]])
        >>> [r.right_full.tolist() for r in PairSumRegions.of_rows(rows, -0.01, 0.01)] == [
        ...     PairSumRegions(row, -0.01, 0.01).right_full.tolist() for row in rows]
        True
        """
        rows = np.atleast_2d(np.asarray(rows, dtype=float))
        largest = np.maximum(np.abs(rows).max(axis=1, initial=0.0), max(abs(lo), abs(hi)))
        unit = np.where(largest > 0, np.ldexp(1.0, np.frexp(largest)[1] - 1), 1.0)[:, None]  # as in_unit per row
        order = np.argsort(rows / unit, axis=1, kind="stable")
        p, lo, hi = np.take_along_axis(rows / unit, order, axis=1), lo / unit[:, :, None], hi / unit[:, :, None]
        sums, size = p[:, :, None] + p[:, None, :], np.abs(p)
        magnitude = size[:, :, None] + size[:, None, :] + 2 * np.maximum(np.abs(lo), np.abs(hi))
        right, left = tie_step(sums, 2 * hi, magnitude), tie_step(2 * lo, sums, magnitude)
        out = []
        for k in range(len(rows)):
            regions = cls.__new__(cls)
            regions.columns = (order[k] if columns is None else np.asarray(columns)[order[k]]).astype(np.int64)
            regions.points = p[k]
            regions.right_half, regions.right_full = (right[k] == 0).sum(axis=1), (right[k] < 1).sum(axis=1)
            regions.left_full, regions.left_half = (left[k] == 1).sum(axis=1), (left[k] > 0).sum(axis=1)
            regions.rope_empty = bool((regions.left_full + regions.left_half
                                       == regions.right_half + regions.right_full).all())
            regions.right_trace = float(np.trace(right[k]))
            out.append(regions)
        return out

    def right_count(self) -> float:
        """sum_ij R_ij (each pair sum in the right region counts 1, on its boundary 1/2)."""
        n = len(self.points)
        return float(np.sum(n - self.right_full) + 0.5 * np.sum(self.right_full - self.right_half))

    def masses(self, w) -> np.ndarray:
        """(w L w, w (1 - L - R) w, w R w) for every draw (row) of the weights ``w``, shape (n, 3); a region
        that cannot occur gets exactly 0. The kernel reads w.T, each weight's draws side by side: weights laid
        out so (:func:`dirichlet`) are not copied."""
        by_point = np.asarray(w, dtype=float).T
        if not by_point.flags.c_contiguous:
            by_point = np.ascontiguousarray(by_point)
        out = np.empty((by_point.shape[1], 3))
        _region_kernel()(by_point, self.columns, self.left_full, self.left_half, self.right_half, self.right_full,
                         out)
        if self.rope_empty:
            out[:, 1] = 0.0
        return out


# numba cannot compile mutmut's wrapper of a mutated function: this one is left out of `make mutation` (the
# dense oracle of tests/test_signed_rank_kernel.py checks it)
def _region_masses(by_point, columns, left_full, left_half, right_half, right_full, out):  # pragma: no mutate block
    """The compiled loop of :meth:`PairSumRegions.masses`, ``by_point`` the weights (points, draws): per draw,
    the cumulative sum c of the weights in the order of the points, then for each i: left_i = c[left_full] +
    (c[left_half] - c[left_full]) / 2, right_i = (c[n] - c[right_full]) + (c[right_full] - c[right_half]) / 2
    and rope_i the rest of c[n] (at least 0; rows computed alike give equal masses exactly, as the matrices did;
    c[right_full] - c[left_full] in a row without pair sums on an edge), summed over i weighted by w_i.

    A block of draws at a time, side by side (512 at q = 54, fewer when q is large, so that c stays in the L2
    cache): every step is the same operation on consecutive numbers (vectorised by the compiler, no chain of
    dependent additions), and each draw's arithmetic is done in the same order as one draw at a time, so the
    masses are the same to the last bit. At q = 54 this took a third to a half of the time of one draw at a
    time (which waited on its running sums), with the draws laid out so; reading draws stored one after the
    other (row by row) into the block cost about half of that again."""
    n, draws = columns.shape[0], by_point.shape[1]
    block = max(8, min(512, 2**15 // n))
    c = np.zeros((n + 1, block))
    sums = np.empty((3, block))
    plain = (left_full == left_half) & (right_half == right_full)  # rows without pair sums on an edge
    for start in range(0, draws, block):
        size = min(block, draws - start)
        for k in range(n):
            weights, before, after = by_point[columns[k], start:start + size], c[k], c[k + 1]
            for d in range(size):
                after[d] = before[d] + weights[d]
        left, rope, right, total = sums[0], sums[1], sums[2], c[n]
        left[:size], rope[:size], right[:size] = 0.0, 0.0, 0.0
        for i in range(n):
            weights, c_lf, c_rf = by_point[columns[i], start:start + size], c[left_full[i]], c[right_full[i]]
            if plain[i]:
                for d in range(size):
                    left[d] += weights[d] * c_lf[d]
                    rope[d] += weights[d] * (c_rf[d] - c_lf[d])
                    right[d] += weights[d] * (total[d] - c_rf[d])
            else:
                c_lh, c_rh = c[left_half[i]], c[right_half[i]]
                for d in range(size):
                    row_left = c_lf[d] + 0.5 * (c_lh[d] - c_lf[d])
                    row_right = (total[d] - c_rf[d]) + 0.5 * (c_rf[d] - c_rh[d])
                    left[d] += weights[d] * row_left
                    rope[d] += weights[d] * max(total[d] - row_left - row_right, 0.0)
                    right[d] += weights[d] * row_right
        out[start:start + size, 0], out[start:start + size, 1], out[start:start + size, 2] = (
            left[:size], rope[:size], right[:size])


@functools.cache
def _region_kernel():
    """:func:`_region_masses` compiled by numba (imported and compiled on first use; cached on disk)."""
    import numba

    return numba.njit(cache=True, nogil=True)(_region_masses)


def _draw_chunks(rng, alpha, draws, width):
    """Dirichlet draws (see :func:`dirichlet`) in consecutive chunks of 2^20 // width draws, in bounded memory."""
    rows = max(1, 2**20 // width)
    for start in range(0, draws, rows):
        yield dirichlet(rng, alpha, min(rows, draws - start))


@dataclass(frozen=True, repr=False)
class RegionProbabilities(Result):
    """Posterior of (P(A better), P(rope), P(B better)) from a Bayesian signed-rank or sign test.

    ``p_left``, ``p_rope``, ``p_right`` are the posterior means; ``win_left``, ``win_rope``, ``win_right``
    the share of draws in which each region has the largest probability (ties shared equally);
    ``samples`` the draws (draws, 3) in the order left, rope, right. ``rope`` is None (no rope), the half-width r
    of the rope [-r, r], or the pair (lo, hi) when the rope is not symmetric. ``left_out`` names the data sets
    where A and B do not both have scores. ``exact``, when given, holds (p_left, p_rope, p_right, win_left,
    win_rope, win_right) computed without Monte Carlo error (the hierarchical model's quadrature): they are the
    answer, and the draws stay for the figures.
    """

    @classmethod
    def from_tails(cls, left, right, method, rope, names) -> RegionProbabilities:
        """Draws of P(A better) and P(B better); P(rope) is the rest (clipped at 0 against rounding).
        ``rope`` is a half-width or a pair (lo, hi).

        >>> RegionProbabilities.from_tails([0.25], [0.5], "example", 0.01, ("A", "B")).samples.tolist()
        [[0.25, 0.25, 0.5]]
        """
        left, right = (np.asarray(v, dtype=float) for v in (left, right))
        for name, values in (("left", left), ("right", right)):
            if not ((values >= 0) & (values <= 1)).all():
                raise ValueError(f"{name} must hold probabilities in [0, 1] (no NaN), got {values[:5]}")
        if (left + right > 1 + 1e-9).any():
            raise ValueError("left + right must be at most 1 in every draw")
        return cls(np.column_stack([left, np.clip(1 - left - right, 0, 1), right]), method, _rope_record(rope),
                   names)

    samples: np.ndarray
    method: str
    rope: float | tuple[float, float] | None
    names: tuple[str, str]
    left_out: tuple[str, ...] = ()
    exact: tuple[float, ...] | None = None

    @property
    def p_left(self):
        return self._means[0]

    @property
    def p_rope(self):
        return self._means[1]

    @property
    def p_right(self):
        return self._means[2]

    @property
    def _means(self) -> tuple[float, float, float]:
        if self.exact is not None:
            return tuple(self.exact[:3])
        return tuple(float(v) for v in self.samples.mean(axis=0))

    @property
    def wins(self) -> np.ndarray:
        if self.exact is not None:
            return np.array(self.exact[3:])
        best = self.samples == self.samples.max(axis=1, keepdims=True)
        return (best / best.sum(axis=1, keepdims=True)).mean(axis=0)

    win_left = property(lambda self: float(self.wins[0]))
    win_rope = property(lambda self: float(self.wins[1]))
    win_right = property(lambda self: float(self.wins[2]))

    def _decide(self, alpha) -> str:
        """The algorithm (or ``"rope"``) whose region is largest in more than 1 - alpha of the draws,
        else ``"none"``."""
        labels = (self.names[0], "rope", self.names[1])
        best = int(np.argmax(self.wins))
        return labels[best] if self.wins[best] > 1 - alpha else "none"

    def to_frame(self) -> pd.DataFrame:
        """One row per region (``left`` = A better, ``rope``, ``right`` = B better): who it favours, its posterior
        mean probability ``p`` and ``win``, the share of draws in which it is the largest.

        >>> bayesian_sign_test([0.02, 0.01, 0.03, -0.02, 0.02], random_seed=0).to_frame().index.tolist()
        ['left', 'rope', 'right']
        """
        return pd.DataFrame({"favours": [self.names[0], "rope", self.names[1]],
                             "p": [self.p_left, self.p_rope, self.p_right], "win": self.wins},
                            index=pd.Index(REGIONS, name="region"))

    def to_dict(self) -> dict:
        """Plain Python values: the method, the pair, the rope, the ``p_*`` and ``win_*`` of the three regions,
        the decision at 0.05 and the data sets left out.

        >>> bayesian_sign_test([0.02, 0.01, 0.03, -0.02, 0.02], random_seed=0).to_dict()["decision"]
        'none'
        """
        return {"method": self.method, "a": self.names[0], "b": self.names[1], "rope": self.rope,
                **{f"p_{r}": getattr(self, f"p_{r}") for r in REGIONS},
                **{f"win_{r}": getattr(self, f"win_{r}") for r in REGIONS},
                "decision": self.decision(), "left_out": list(self.left_out)}

    def summary(self, *, alpha=None) -> str:
        """In words: the posterior means, the shares of draws where each region is largest and the decision at
        ``alpha`` (default 0.05), which tells practical equivalence ("rope") from no decision ("none").

        >>> res = bayesian_sign_test([0.02, 0.01, 0.03, -0.02, 0.02], random_seed=0)
        >>> print(res.summary(alpha=0.2).splitlines()[-1])
          decision at alpha = 0.2: B (B better: its region is the largest in more than 80% of the draws)
        """
        alpha = self._alpha(alpha)
        return f"{self!r}\n{region_decision_line(self.decision(alpha), alpha)}"

    def __repr__(self):
        a, b = self.names
        how = "exact quadrature" if self.exact is not None else f"{len(self.samples)} draws"
        return (f"{self.method}, {b} vs {a}, rope {self.rope}, {how}\n"
                f"  posterior mean:      P({a} better) = {self.p_left:.4f}  P(rope) = {self.p_rope:.4f}  "
                f"P({b} better) = {self.p_right:.4f}\n"
                f"  P(region largest):   {a}: {self.win_left:.4f}  rope: {self.win_rope:.4f}  "
                f"{b}: {self.win_right:.4f}" + left_out_tail(self.left_out, self.names))


def bayesian_signed_rank(x, y=None, *, rope=None, prior_strength=0.5, z0=0.0, draws=50_000, random_seed=None,
                         algorithms=None) -> RegionProbabilities:
    """Bayesian signed-rank test on a Dirichlet process (Benavoli et al. 2014, 2017).

    Weights (w0, w) ~ Dir(s, 1, ..., 1) on the pseudo-observation ``z0`` and the data; with the rope
    (lo, hi) (a half-width r is (-r, r)), P(B better) = sum w_i w_j H(z_i + z_j - 2 hi),
    P(A better) = sum w_i w_j H(2 lo - z_i - z_j), rope the rest; H(0) = 1/2, so a pair sum exactly on
    a boundary counts half on each side. ``prior_strength=0`` is the DP with s -> 0 (Bayesian bootstrap):
    without a rope its P(B better) is theta = P(Z + Z' > 0) + P(Z + Z' = 0)/2 and ``win_right`` is
    P(theta > 1/2). Inputs as in the module docstring.

    Edge cases: when every z (and z0) is 0 and there is no rope, every draw is (1/2, 0, 1/2) (theta = 1/2
    exactly, decision "none"); with a rope containing 0, every draw is (0, 1, 0). One data set (q = 1, a
    1-D x of length 1) is allowed: with s > 0 the weight on z0 keeps the posterior spread, with s = 0 the
    posterior is a point mass on the single observation.

    >>> z = [0.02, 0.01, 0.03, -0.01, 0.02, 0.04]
    >>> res = bayesian_signed_rank(z, rope=0.01, random_seed=0)
    >>> bool(res.p_right > res.p_left)
    True
    >>> bayesian_signed_rank([0.0, 0.0], random_seed=0).samples[0].tolist()
    [0.5, 0.0, 0.5]
    """
    lo, hi, prior_strength, z0, draws = _prior_arguments(rope, prior_strength, z0, draws)
    rng = as_generator(random_seed)
    z, names, left_out = rank_test_differences(x, y, algorithms)
    warn_percent_scale(x, y, rope, stacklevel=2)
    points = np.concatenate([[z0], z]) if prior_strength > 0 else z
    alpha = np.concatenate([[prior_strength], np.ones(len(z))]) if prior_strength > 0 else np.ones(len(z))
    regions = PairSumRegions(points, lo, hi)
    samples = np.concatenate([regions.masses(w) for w in _draw_chunks(rng, alpha, draws, len(alpha))])
    samples /= samples.sum(axis=1, keepdims=True)
    method = "Bayesian signed-rank test" + (" (DP, s -> 0)" if prior_strength == 0
                                            else f" (s = {prior_strength}, z0 = {z0})")
    return RegionProbabilities(samples, method, _rope_record(as_rope(rope)), names, left_out)


def bayesian_sign_test(x, y=None, *, rope=None, prior_strength=1.0, z0=0.0, draws=50_000, random_seed=None,
                       algorithms=None) -> RegionProbabilities:
    """Bayesian sign test: (P(left), P(rope), P(right)) ~ Dirichlet(counts + prior pseudo-count in z0's region).

    With the rope (lo, hi) (a half-width r is (-r, r)) the counts are #{z < lo}, #{lo <= z <= hi} and
    #{z > hi}: without a rope, a zero difference counts in the rope region [0, 0]. Inputs as in the module docstring;
    one data set (q = 1) is allowed (its count and the prior make the posterior). All z equal to 0 (and
    z0 in the rope): every draw is (0, 1, 0).

    >>> res = bayesian_sign_test([0.02, 0.01, 0.03, -0.02, 0.02], rope=0.005, random_seed=0)
    >>> round(res.p_right, 2)  # (4 right) / (5 data + 1 prior in the rope)
    0.67
    """
    lo, hi, prior_strength, z0, draws = _prior_arguments(rope, prior_strength, z0, draws)
    rng = as_generator(random_seed)
    z, names, left_out = rank_test_differences(x, y, algorithms)
    warn_percent_scale(x, y, rope, stacklevel=2)
    z_unit, lo_unit, hi_unit = in_unit(z, lo, hi)
    below = tie_step(lo_unit, z_unit, np.abs(z_unit) + abs(lo_unit)) == 1
    above = tie_step(z_unit, hi_unit, np.abs(z_unit) + abs(hi_unit)) == 1
    counts = np.array([below.sum(), (~below & ~above).sum(), above.sum()], dtype=float)
    counts[0 if z0 < lo else 2 if z0 > hi else 1] += prior_strength
    samples = dirichlet(rng, counts, draws)
    return RegionProbabilities(samples, f"Bayesian sign test (prior {prior_strength} at z0 = {z0})",
                               _rope_record(as_rope(rope)), names, left_out)


@dataclass(frozen=True, repr=False)
class ImpreciseSignedRankResult(Result):
    """Lower and upper posterior probabilities of theta > 1/2 under the imprecise Dirichlet process.

    :meth:`decision`: B if lower > threshold; A (theta <= 1/2 preferred) if upper < threshold; otherwise
    ``"indeterminate"`` (the answer depends on the prior: this test's "none"). The threshold is the test's
    (from ``loss_ratio``), or 1 - ``alpha`` when an ``alpha`` is given. ``left_out``: as for
    :class:`RegionProbabilities`.
    """

    lower: float
    upper: float
    lower_mean: float
    upper_mean: float
    threshold: float
    names: tuple[str, str]
    left_out: tuple[str, ...] = ()

    @property
    def alpha(self) -> float:
        """1 - threshold, the level of the decisions (0.05 for ``loss_ratio=19``)."""
        return 1 - self.threshold

    def _decide(self, alpha) -> str:
        threshold = self.threshold if alpha == self.alpha else 1 - alpha
        if self.lower > threshold:
            return self.names[1]
        if self.upper < threshold:
            return self.names[0]
        return "indeterminate"

    def to_frame(self) -> pd.DataFrame:
        """One row per bound (``lower``, ``upper``): P(theta > 1/2) and the posterior mean of theta.

        >>> imprecise_signed_rank([0.02, 0.01, 0.03, 0.01, 0.02], random_seed=0).to_frame().columns.tolist()
        ['p_theta_above_half', 'theta_mean']
        """
        return pd.DataFrame({"p_theta_above_half": [self.lower, self.upper],
                             "theta_mean": [self.lower_mean, self.upper_mean]},
                            index=pd.Index(["lower", "upper"], name="bound"))

    def to_dict(self) -> dict:
        """Plain Python values: the pair, the bounds, the threshold, the decision and the data sets left out.

        >>> imprecise_signed_rank([0.02, 0.01, 0.03, 0.01, 0.02], random_seed=0).to_dict()["decision"]
        'indeterminate'
        """
        return {"a": self.names[0], "b": self.names[1], "lower": self.lower, "upper": self.upper,
                "lower_mean": self.lower_mean, "upper_mean": self.upper_mean, "threshold": self.threshold,
                "decision": self.decision(), "left_out": list(self.left_out)}

    def summary(self) -> str:
        """In words (the ``repr``): the bounds of P(theta > 1/2) and of theta's mean, and the decision.

        >>> imprecise_signed_rank([0.02, 0.01, 0.03, 0.01, 0.02], random_seed=0).summary().split(": ")[-1]
        'indeterminate'
        """
        a, b = self.names
        return (f"Imprecise DP signed-rank test, {b} vs {a}: P(theta > 1/2) in [{self.lower:.4f}, {self.upper:.4f}]"
                f" (posterior mean of theta in [{self.lower_mean:.4f}, {self.upper_mean:.4f}]); "
                f"threshold {self.threshold:.3g}: {self.decision()}" + left_out_tail(self.left_out, self.names))

    def __repr__(self):
        return self.summary()


def imprecise_signed_rank(x, y=None, *, loss_ratio=19.0, draws=50_000, random_seed=None,
                          algorithms=None) -> ImpreciseSignedRankResult:
    """Signed-rank test on the imprecise DP, s = (sqrt(17) - 3)/2 (Benavoli et al. 2014).

    Posterior means: lower = [sum_ij H(z_i + z_j) + sum_i H(2 z_i)] / ((s+q)(s+q+1)) (which tends to R+
    as s -> 0), upper = lower + (s^2 + 2qs + s) / ((s+q)(s+q+1)).

    ``loss_ratio`` = l1/l0 gives the threshold t = l1/(l0 + l1) (19 <-> 0.95 <-> alpha = 0.05).
    All z equal to 0: in every draw the lower g is (1 - w0)^2 / 2 < 1/2 and the upper g is
    1/2 + w0 - w0^2 / 2 > 1/2, so the probabilities are 0 and 1 and the decision is indeterminate.

    >>> res = imprecise_signed_rank([0.02, 0.01, 0.03, 0.01, 0.02, 0.04, 0.01, 0.02], random_seed=0)
    >>> res.decision()
    'B'
    """
    loss_ratio = check_real("loss_ratio", loss_ratio, low=0, low_open=True)
    draws = check_count("draws", draws)
    rng = as_generator(random_seed)
    z, names, left_out = rank_test_differences(x, y, algorithms)
    q, s = len(z), IDP_STRENGTH
    regions = PairSumRegions(z, 0.0, 0.0, columns=np.arange(1, q + 1))  # column 0 of the draws: w0
    alpha = np.concatenate([[s], np.ones(q)])
    w0, low = (np.concatenate(parts) for parts in zip(*((w[:, 0], regions.masses(w)[:, 2])
                                                         for w in _draw_chunks(rng, alpha, draws, q + 1))))
    high = w0 * (2 - w0) + low
    # E[w_i w_j] = (1 + [i = j]) / ((s+q)(s+q+1)): the diagonal counts twice
    low_mean = (regions.right_count() + regions.right_trace) / ((s + q) * (s + q + 1))
    return ImpreciseSignedRankResult(float(np.mean(low > 0.5)), float(np.mean(high > 0.5)), float(low_mean),
                                     float(low_mean + (s**2 + 2 * q * s + s) / ((s + q) * (s + q + 1))),
                                     loss_ratio / (1 + loss_ratio), names, left_out)
