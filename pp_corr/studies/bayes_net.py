"""The Bayesian network of the simulation study (Corani & Benavoli 2015, section 4): data, fold splits and the two classifiers.

The network is C -> F with a binary class and a binary feature: P(c0) = 1/2, P(f0 | c0) = P(f1 | c1) = theta,
theta = 1/2 + delta. A data set is then a multiset of four instance types (cells c0f0, c0f1, c1f0, c1f1), a
cross-validation test fold is a multivariate hypergeometric draw of cell counts, and both classifiers depend
on counts only:

- zeroR predicts the majority class of the training fold (a fair coin on ties);
- BN-hat learns the network by maximum likelihood, so for each feature value f it predicts the class c with
  the most training instances (c, f) (a fair coin on ties).

So :func:`cv_differences` never builds an instance; :func:`cv_differences_instances` is the straightforward
instance-level simulator it is tested and benchmarked against.

The compiled kernels draw their random bits from xoshiro256** (Blackman & Vigna 2021) kept in registers, seeded
from the caller's numpy Generator: numba reaches numpy's generators through a function pointer at about 8 ns a
draw, five times the inline generator's cost, and a run of 10-fold cross-validation on a data set of n instances
takes up to 0.9 n draws.
"""
from __future__ import annotations

import math

import numba
import numpy as np
from scipy import special

from .._args import as_generator

SIZES = (25, 50, 100, 250, 500, 1000)  # data-set sizes of the paper, drawn uniformly
_ITEMWISE = 120  # folds of at most this many instances are drawn one by one (beyond, 3 inversions are cheaper)
_SHIFT32, _LOW32 = np.uint64(32), np.uint64(0xFFFFFFFF)


def cell_probabilities(delta) -> np.ndarray:
    """P(c0 f0), P(c0 f1), P(c1 f0), P(c1 f1) for accuracy gaps ``delta`` in [0, 1/2] (last axis).

    >>> cell_probabilities(0.1).tolist()
    [0.3, 0.2, 0.2, 0.3]
    """
    theta = 0.5 + np.asarray(delta, dtype=float)
    if np.any((theta < 0.5) | (theta > 1)):
        raise ValueError("delta must be in [0, 0.5] (simulate |delta| and negate the differences)")
    return np.stack([theta / 2, (1 - theta) / 2, (1 - theta) / 2, theta / 2], axis=-1)


def fold_sizes(n, folds) -> np.ndarray:
    """Test-fold sizes of ``n`` instances in ``folds`` folds, the first ``n % folds`` one larger (as
    ``numpy.array_split``); shape ``n.shape + (folds,)``.

    >>> fold_sizes(25, 10).tolist()
    [3, 3, 3, 3, 3, 2, 2, 2, 2, 2]
    """
    n = np.asarray(n)[..., None]
    return n // folds + (np.arange(folds) < n % folds)


def split_counts(counts, sizes, rng) -> np.ndarray:
    """Cell counts of each test fold, ``sizes.shape + (4,)``: the folds drawn in turn without replacement from
    ``counts`` (``sizes.shape[:-1] + (4,)``), each a multivariate hypergeometric draw from what is left; a small
    fold instance by instance, a larger one cell by cell by inversion (compiled, :func:`_split_run`).

    >>> test = split_counts(np.array([7, 3, 5, 10]), fold_sizes(25, 10), np.random.default_rng(0))
    >>> test.sum(axis=0).tolist(), test.sum(axis=1).tolist()
    ([7, 3, 5, 10], [3, 3, 3, 3, 3, 2, 2, 2, 2, 2])
    """
    sizes = np.asarray(sizes, dtype=np.int64)
    counts = np.broadcast_to(np.asarray(counts, dtype=np.int64), sizes.shape[:-1] + (4,))
    flat_counts = np.ascontiguousarray(counts).reshape(-1, 4)
    flat_sizes = np.ascontiguousarray(sizes).reshape(-1, sizes.shape[-1])
    log_factorial = _log_factorials(flat_counts.sum(axis=1).max(initial=0))
    test = np.empty(flat_sizes.shape + (4,), dtype=np.int64)
    _split(flat_counts, flat_sizes, _generator_state(rng), log_factorial, test)
    return test.reshape(sizes.shape + (4,))


def _log_factorials(n) -> np.ndarray:
    """log(k - 1)! at index k = 0 .. n + 1, the table :func:`_hypergeometric` reads (log k! at k + 1)."""
    return special.gammaln(np.arange(int(n) + 2))


def _generator_state(rng) -> tuple:
    """The kernels' xoshiro256** state, a tuple of four words from ``rng``, none of them 0 (an all-zero state stays
    zero)."""
    return tuple(rng.integers(1, 2**64, size=4, dtype=np.uint64))


@numba.njit(inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@numba.njit(inline="always")
def _next(state):
    """xoshiro256**: the next 64 random bits and the new state, a tuple of four uint64 (kept in registers)."""
    s0, s1, s2, s3 = state
    bits = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    shifted = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= shifted
    return bits, (s0, s1, s2, _rotl(s3, 45))


@numba.njit(inline="always")
def _uniform(state):
    """A uniform double in [0, 1) from the top 53 of 64 random bits, and the new state."""
    bits, state = _next(state)
    return np.float64(bits >> np.uint64(11)) * 2.0**-53, state


@numba.njit(inline="always")
def _below(bits, bound, state):
    """A uniform integer in [0, ``bound``) from 32 random ``bits`` (``bound`` < 2**32), and the new state: Lemire's
    multiply-and-reject, exact; a rejection (probability below bound / 2**32) draws fresh bits."""
    product = bits * bound
    if product & _LOW32 < bound:
        threshold = (np.uint64(2**32) - bound) % bound  # 2**32 mod bound: the low words that would bias the draw
        while product & _LOW32 < threshold:
            fresh, state = _next(state)
            product = (fresh >> _SHIFT32) * bound
    return product >> _SHIFT32, state


@numba.njit(inline="always")
def _remove(position, ends):
    """The cells' ``ends`` once the instance at ``position`` is removed: every end above it moves down by one
    (unsigned, so each is a compare and a subtract-with-borrow)."""
    a, b, c = ends
    return a - np.uint64(position < a), b - np.uint64(position < b), c - np.uint64(position < c)


@numba.njit(inline="always")
def _draw_instances(ends, pool, size, state):
    """Draw ``size`` of ``pool`` instances one at a time without replacement; cells 0, 1, 2 end at the cumulative
    counts ``ends`` and cell 3 holds the rest. An instance uniform in [0, pool) belongs to the first cell whose
    end exceeds it (:func:`_remove`): no branch but Lemire's rare rejections, two draws from each 64 random bits.
    Returns the ends after the draws and the state."""
    ends = (np.uint64(ends[0]), np.uint64(ends[1]), np.uint64(ends[2]))
    left = np.uint64(pool)
    for _ in range(size // 2):
        bits, state = _next(state)
        position, state = _below(bits >> _SHIFT32, left, state)
        ends = _remove(position, ends)
        position, state = _below(bits & _LOW32, left - np.uint64(1), state)
        ends = _remove(position, ends)
        left -= np.uint64(2)
    if size % 2:
        bits, state = _next(state)
        position, state = _below(bits >> _SHIFT32, left, state)
        ends = _remove(position, ends)
    return (np.int64(ends[0]), np.int64(ends[1]), np.int64(ends[2])), state


@numba.njit(cache=True)
def _hypergeometric(good, bad, sample, log_factorial, u):
    """The inverse of the hypergeometric cdf at the uniform ``u`` (``sample`` drawn from ``good`` + ``bad``),
    searched outwards from the mode: the mode's probability from a table of log k!, the others by the ratios of
    neighbouring probabilities, so a draw costs about one standard deviation of steps (the folds it serves, larger
    than ``_ITEMWISE``, are cheaper so than instance by instance)."""
    total = good + bad
    low, high = max(0, sample - bad), min(sample, good)
    if low == high:
        return low
    mode = min(max((sample + 1) * (good + 1) // (total + 2), low), high)
    lf = log_factorial
    p = math.exp(lf[good + 1] - lf[mode + 1] - lf[good - mode + 1] + lf[bad + 1] - lf[sample - mode + 1]
                 - lf[bad - sample + mode + 1] - lf[total + 1] + lf[sample + 1] + lf[total - sample + 1])
    u -= p
    up, p_up, down, p_down = mode, p, mode, p
    while u > 0 and (up < high or down > low):
        if up < high:
            p_up *= (good - up) * (sample - up) / ((up + 1) * (bad - sample + up + 1))
            up += 1
            u -= p_up
            if u <= 0:
                return up
        if down > low:
            p_down *= down * (bad - sample + down) / ((good - down + 1) * (sample - down + 1))
            down -= 1
            u -= p_down
            if u <= 0:
                return down
    return mode  # u <= p, or the rounding residue of the probabilities' sum (about 1e-16)


@numba.njit(cache=True)
def _split_run(counts, sizes, state, log_factorial, test):
    """One run's test folds: ``test`` (folds, 4) from the cell ``counts`` (4,) and the fold ``sizes``; returns the
    generator's state. Small folds instance by instance (:func:`_draw_instances`), larger ones by three
    hypergeometric inversions (:func:`_hypergeometric`). Scalars only, no temporary arrays (an allocation costs
    as much as a draw)."""
    last = len(sizes) - 1
    for cell in range(4):
        test[last, cell] = counts[cell]  # what remains, fold by fold
    for j in range(last):
        left, pool = sizes[j], test[last, 0] + test[last, 1] + test[last, 2] + test[last, 3]
        if left <= _ITEMWISE and pool < 2**32:  # the instances drawn below each cell's end give the cells' counts
            end0 = test[last, 0]
            end1 = end0 + test[last, 1]
            end2 = end1 + test[last, 2]
            (a, b, c), state = _draw_instances((end0, end1, end2), pool, left, state)
            test[j, 0], test[j, 1], test[j, 2] = end0 - a, (end1 - b) - (end0 - a), (end2 - c) - (end1 - b)
            left -= end2 - c
        else:
            for cell in range(3):
                pool -= test[last, cell]
                u, state = _uniform(state)
                drawn = _hypergeometric(test[last, cell], pool, left, log_factorial, u)
                test[j, cell] = drawn
                left -= drawn
        test[j, 3] = left
        for cell in range(4):
            test[last, cell] -= test[j, cell]
    return state


@numba.njit(cache=True)
def _split(counts, sizes, state, log_factorial, test):
    """The loop of :func:`split_counts` on flat arrays: counts (m, 4), sizes (m, folds), test (m, folds, 4)."""
    for row in range(counts.shape[0]):
        state = _split_run(counts[row], sizes[row], state, log_factorial, test[row])


@numba.njit(cache=True)
def zeror_correct(train, test, coin) -> int:
    """Test instances zeroR classifies correctly, given a fold's training and test cell counts (4 each).

    >>> int(zeror_correct(np.array([10, 5, 3, 2]), np.array([2, 1, 0, 1]), coin=False))  # class c0: 3 of 4
    3
    """
    train_c0, train_c1 = train[0] + train[1], train[2] + train[3]
    picks_c0 = train_c0 > train_c1 or (train_c0 == train_c1 and coin)
    return test[0] + test[1] if picks_c0 else test[2] + test[3]


@numba.njit(cache=True)
def bn_correct(train, test, coin_f0, coin_f1) -> int:
    """Test instances the maximum-likelihood network classifies correctly; the coins break ties for f0, f1.

    >>> # trained: f0 -> c0 (10 > 3), f1 -> c1 (5 < 8); the test fold has 2 + 1 such instances of 4
    >>> int(bn_correct(np.array([10, 5, 3, 8]), np.array([2, 1, 0, 1]), False, False))
    3
    """
    correct = 0
    for f in range(2):  # the cells (c0, f) and (c1, f) are f and f + 2
        coin = coin_f1 if f else coin_f0
        picks_c0 = train[f] > train[f + 2] or (train[f] == train[f + 2] and coin)
        correct += test[f] if picks_c0 else test[f + 2]
    return correct


@numba.njit(cache=True, nogil=True)
def _cv_runs(counts, sizes, runs, state, log_factorial, out):
    """Per data set (rows of counts (m, 4), sizes (m, folds)), ``runs`` re-splits and both classifiers on every
    fold: out (m, runs * folds) = accuracy of BN-hat minus zeroR, three fair coins per fold for ties."""
    folds = sizes.shape[1]
    test, train = np.empty((folds, 4), dtype=np.int64), np.empty(4, dtype=np.int64)
    for row in range(counts.shape[0]):
        for run in range(runs):
            state = _split_run(counts[row], sizes[row], state, log_factorial, test)
            for j in range(folds):
                for cell in range(4):
                    train[cell] = counts[row, cell] - test[j, cell]
                bits, state = _next(state)
                coins = bits >> np.uint64(61)  # three random bits
                correct = bn_correct(train, test[j], coins & 2 > 0, coins & 4 > 0) - zeror_correct(
                    train, test[j], coins & 1 > 0)
                out[row, run * folds + j] = correct / sizes[row, j]


def _signed(diff, deltas):
    """A negative delta means zeroR is better: its data set was simulated with |delta|, so negate (in place, only
    those rows: a copy of a chunk's differences costs as much as its statistics)."""
    diff[np.asarray(deltas) < 0] *= -1
    return diff


def cv_differences(deltas, sizes, *, runs=1, folds=10, random_seed=None) -> np.ndarray:
    """Accuracy of BN-hat minus zeroR on every fold of ``runs`` x ``folds`` cross-validation, simulated on counts.

    ``deltas`` (accuracy gaps, negative: zeroR better) and ``sizes`` (instances) broadcast to the data sets'
    shape; the result has shape ``that + (runs * folds,)``, runs outer. Each run re-splits the same data set.

    >>> x = cv_differences([0.1, -0.1], [1000, 1000], runs=2, random_seed=0)
    >>> x.shape, bool(x[0].mean() > 0.05), bool(x[1].mean() < -0.05)
    ((2, 20), True, True)
    """
    rng = as_generator(random_seed)
    deltas, sizes = np.broadcast_arrays(np.asarray(deltas, dtype=float), np.asarray(sizes, dtype=np.int64))
    if np.any(sizes < folds):
        raise ValueError(f"sizes must be at least folds = {folds}")
    counts = rng.multinomial(sizes, cell_probabilities(np.abs(deltas))).reshape(-1, 4)
    diff = np.empty((len(counts), runs * folds))
    _cv_runs(counts, fold_sizes(sizes, folds).reshape(-1, folds), runs, _generator_state(rng),
             _log_factorials(sizes.max(initial=0)), diff)
    return _signed(diff.reshape(deltas.shape + (runs * folds,)), deltas)


def cv_differences_instances(deltas, sizes, *, runs=1, folds=10, random_seed=None) -> np.ndarray:
    """The same experiment as :func:`cv_differences`, instance by instance: draw the instances, shuffle them,
    cut ``numpy.array_split`` folds, train both classifiers and classify each test instance. Slow; a reference.

    >>> cv_differences_instances([0.1], [100], random_seed=0).shape
    (1, 10)
    """
    rng = as_generator(random_seed)
    deltas, sizes = np.broadcast_arrays(np.asarray(deltas, dtype=float), np.asarray(sizes, dtype=np.int64))
    out = np.empty(deltas.shape + (runs * folds,))
    for idx in np.ndindex(deltas.shape):
        theta, n = 0.5 + abs(deltas[idx]), sizes[idx]
        cls = (rng.random(n) >= 0.5).astype(int)                          # P(c0) = 1/2
        feature = np.where(rng.random(n) < theta, cls, 1 - cls)           # P(f = c) = theta
        for run in range(runs):
            for j, test in enumerate(np.array_split(rng.permutation(n), folds)):
                train = np.setdiff1d(np.arange(n), test)
                coin = rng.random(3) < 0.5
                votes = np.bincount(cls[train], minlength=2)
                majority = 0 if votes[0] > votes[1] or (votes[0] == votes[1] and coin[0]) else 1
                predict = np.empty(2, dtype=int)
                for f in (0, 1):
                    votes = np.bincount(cls[train][feature[train] == f], minlength=2)
                    predict[f] = 0 if votes[0] > votes[1] or (votes[0] == votes[1] and coin[1 + f]) else 1
                out[idx + (run * folds + j,)] = np.mean(predict[feature[test]] == cls[test]) - np.mean(
                    cls[test] == majority)
    return _signed(out, deltas)
