"""The intraclass-correlated Gaussian likelihood, in O(n).

x ~ MVN(mu 1, sigma^2 M), M = (1 - rho) I + rho 1 1^T. Everything the models need is in the
sufficient statistics (n, GLS mean, weighted residual sum of squares Q, effective n A = 1^T M^-1 1).

Scale: the statistics are computed on x divided by a power of two near max |x| of each problem (an exact
rescaling), and the power of two is kept, so that nothing squares raw values: the tests give the same
probabilities for data of any magnitude a float can hold.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from .._args import check_count

#: the rms spread, relative to max |x|, below which values count as all equal (rounding of a mean of ties)
TIE_TOLERANCE = 8 * np.finfo(float).eps


def resolve_rho(rho=None, *, n_test=None, n_train=None, folds=None):
    """The correlation fixed by the Nadeau-Bengio heuristic, rho = n_test / (n_test + n_train).

    Give exactly one of ``rho``, ``n_test`` with ``n_train``, or ``folds`` (k-fold CV: rho = 1/k).
    Arrays broadcast (one value per data set). Each must be finite: ``folds`` a whole number >= 2,
    ``n_test`` and ``n_train`` positive, rho in [0, 1).

    >>> resolve_rho(folds=10)
    0.1
    >>> resolve_rho(n_test=30, n_train=270)
    0.1
    >>> resolve_rho(folds=float("inf"))
    Traceback (most recent call last):
    ...
    ValueError: folds must be finite, got inf
    """
    given = [name for name, v in (("rho", rho), ("n_test/n_train", n_test if n_test is not None else n_train),
                                  ("folds", folds)) if v is not None]
    if len(given) != 1:
        raise ValueError("give exactly one of rho, n_test with n_train, or folds "
                         f"(got {', '.join(given) or 'none'})")
    if folds is not None:
        folds = real_array("folds", folds)
        if np.any(folds < 2) or np.any(folds != np.round(folds)):
            raise ValueError(f"folds must be a whole number >= 2, got {_show(folds)}")
        rho = 1.0 / folds
    elif rho is None:
        if n_test is None or n_train is None:
            raise ValueError("n_test and n_train must be given together")
        n_test, n_train = real_array("n_test", n_test), real_array("n_train", n_train)
        for name, v in (("n_test", n_test), ("n_train", n_train)):
            if np.any(v <= 0):
                raise ValueError(f"{name} must be positive, got {_show(v)}")
        try:
            np.broadcast_shapes(n_test.shape, n_train.shape)
        except ValueError:
            raise ValueError(f"n_test (shape {n_test.shape}) and n_train (shape {n_train.shape}) must have the "
                             "same length (one value per data set)") from None
        rho = n_test / (n_test + n_train)
    else:
        rho = real_array("rho", rho)
    if np.any(rho < 0) or np.any(rho >= 1):
        raise ValueError(f"rho must be in [0, 1), got {_show(rho)}")
    return float(rho) if rho.ndim == 0 else rho


def folds_from_runs(runs, n_scores) -> int:
    """The folds per run of ``runs`` repetitions of k-fold cross-validation giving ``n_scores`` scores:
    a ValueError names ``runs`` when it does not divide them evenly, or leaves one score per run (rho = 1/k
    needs k >= 2; for repeated hold-out give rho or n_test with n_train).

    >>> folds_from_runs(10, 100)
    10
    >>> folds_from_runs(3, 100)
    Traceback (most recent call last):
    ...
    ValueError: runs=3 does not divide the 100 scores into runs of equal length
    """
    runs = check_count("runs", runs)
    if n_scores % runs:
        raise ValueError(f"runs={runs} does not divide the {n_scores} scores into runs of equal length")
    if runs == n_scores:
        raise ValueError(f"runs={runs} leaves one score per run: the correlation of k-fold cross-validation, 1/k, "
                         "needs k >= 2 folds per run; for repeated hold-out give rho = n_test / (n_test + n_train) "
                         "(or n_test and n_train)")
    return n_scores // runs


def check_no_runs(runs):
    """A ValueError if ``runs`` is given with a scores Dataset, which records its own runs and folds.

    >>> check_no_runs(None)
    >>> check_no_runs(10)
    Traceback (most recent call last):
    ...
    ValueError: runs=10 is for arrays of scores: a scores Dataset records its runs and folds (give rho, n_test with n_train, or folds to override its rho)
    """
    if runs is not None:
        raise ValueError(f"runs={runs} is for arrays of scores: a scores Dataset records its runs and folds "
                         "(give rho, n_test with n_train, or folds to override its rho)")


def rho_for(x_shape, *, rho=None, n_test=None, n_train=None, folds=None, runs=None):
    """:func:`resolve_rho` for data of shape ``(n,)`` (one data set) or ``(q, n)``: each argument given must be
    one number or one per data set (q values); a ValueError names the one that is not. ``runs`` (the n scores
    of each data set are ``runs`` repetitions of k-fold cross-validation) gives folds = n / runs.

    >>> rho_for((3, 10), folds=[5, 10, 10]).tolist()
    [0.2, 0.1, 0.1]
    >>> rho_for((100,), runs=10)
    0.1
    >>> rho_for((10,), rho=[0.1, 0.2, 0.3])
    Traceback (most recent call last):
    ...
    ValueError: rho has 3 values but x holds 1 data set: give one value or one per data set
    """
    if all(v is None for v in (rho, n_test, n_train, folds, runs)):
        raise ValueError("give how the scores were obtained: runs (r runs of k-fold cross-validation: rho = 1/k), "
                         "folds (k), rho, or n_test with n_train")
    if runs is not None:
        if folds is not None:
            raise ValueError("give runs or folds, not both (folds = number of scores / runs)")
        folds = folds_from_runs(runs, x_shape[-1])
    q = 1 if len(x_shape) == 1 else x_shape[0]
    values = {}
    for name, value in (("rho", rho), ("n_test", n_test), ("n_train", n_train), ("folds", folds)):
        if value is not None and not isinstance(value, (str, bytes)) and np.ndim(value) > 0:
            size = np.size(value)
            if np.ndim(value) > 1 or size != q:
                count = f"{size} values" if np.ndim(value) == 1 else f"shape {np.shape(value)}"
                raise ValueError(f"{name} has {count} but x holds {q} data set{'s' * (q != 1)}: give one value "
                                 "or one per data set")
            if len(x_shape) == 1:  # one data set: its one value
                value = np.asarray(value).reshape(())[()]
        values[name] = value
    return resolve_rho(values["rho"], n_test=values["n_test"], n_train=values["n_train"], folds=values["folds"])


def real_array(name, value, *, finite=True, copy=True) -> np.ndarray:
    """``value`` as a float array of finite numbers: a TypeError names it for text or other non-numbers,
    a ValueError for NaN or inf (unless ``finite=False``).

    >>> real_array("folds", [5, 10]).tolist()
    [5.0, 10.0]
    """
    if isinstance(value, (str, bytes, bool, np.bool_)):
        raise TypeError(f"{name} must be a number or an array of numbers, got {type(value).__name__} {value!r}")
    array = np.asarray(value)
    if array.dtype.kind == "O":
        if not all(isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)) for v in array.ravel()):
            raise TypeError(f"{name} must be numbers, got {value!r}")
    elif array.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be numbers, got {array.dtype} values {value!r}")
    array = array.astype(float, copy=copy)
    if finite and not np.all(np.isfinite(array)):
        if array.ndim == 0:
            raise ValueError(f"{name} must be finite, got {array.item()}")
        where = tuple(int(i) for i in np.argwhere(~np.isfinite(array))[0])
        raise ValueError(f"{name} must be finite, got {array[where]} at index {where}")
    return array


def _show(array):
    return array.item() if array.ndim == 0 else array


def power_of_two_scale(magnitude):
    """The power of two 2^(e-1) with 2^(e-1) <= ``magnitude`` < 2^e (1 where the magnitude is 0): dividing by
    it is exact and leaves values of at most that magnitude in (-2, 2).

    >>> power_of_two_scale(np.array([3.0, 0.75, 1e-300, 0.0])) == [2.0, 0.5, 2.0**-997, 1.0]
    array([ True,  True,  True,  True])
    """
    magnitude = np.asarray(magnitude, dtype=float)
    exponent = np.frexp(magnitude)[1] - 1
    return np.where(magnitude > 0, np.ldexp(1.0, exponent), 1.0)


@dataclass(frozen=True)
class SufficientStats:
    """Sufficient statistics of correlated samples, one entry per problem (leading shape).

    They are stored in units of ``scale``, a power of two per problem: ``scaled_mean`` is the GLS mean
    mu_hat / scale, ``scaled_ss`` is Q / scale^2 with Q = (x - mu_hat 1)^T M^-1 (x - mu_hat 1). ``scale`` is
    1 where the raw values can be squared and summed without overflow or underflow, else a power of two near
    max |x|, so the stored values are in range whatever the magnitude of x (an exact rescaling: the tests
    give the same probabilities for x and c x). ``mean`` and ``weighted_ss`` give them in the units of x
    (``weighted_ss`` overflows to inf for |x| beyond about 1e154 and underflows below about 1e-154; the
    tests use the scaled values). ``effective_n`` is A = 1^T M^-1 1 (the GLS mean has variance
    sigma^2 / A); ``zero_variance`` flags samples whose values are all equal: exactly, or up to an rms
    spread of ``TIE_TOLERANCE`` times their magnitude (rounding of differences computed from scores).

    >>> s = SufficientStats.from_samples([0.1, 0.3, 0.2, 0.2], rho=1 / 3)
    >>> float(s.mean), float(s.effective_n), float(s.scale)
    (0.2, 2.0, 1.0)
    >>> tiny = SufficientStats.from_samples(np.array([0.1, 0.3, 0.2, 0.2]) * 1e-300, rho=1 / 3)
    >>> float(tiny.weighted_ss), round(float(tiny.scaled_ss * (tiny.scale / 1e-300) ** 2 / s.weighted_ss), 12)
    (0.0, 1.0)
    """

    n: np.ndarray
    scaled_mean: np.ndarray
    scaled_ss: np.ndarray
    effective_n: np.ndarray
    zero_variance: np.ndarray
    scale: np.ndarray | float = 1.0

    @property
    def mean(self):
        """The GLS mean mu_hat in the units of x."""
        return self.scaled_mean * self.scale

    @property
    def weighted_ss(self):
        """Q in the units of x squared (inf or 0 when that is out of the float range)."""
        with np.errstate(over="ignore", under="ignore"):
            return self.scaled_ss * self.scale * self.scale

    @classmethod
    def from_samples(cls, x, rho=None, *, corr=None, padded=False):
        """Statistics over the last axis of ``x``.

        ``rho`` (scalar or one per problem) gives the intraclass M; ``corr`` a general known
        correlation matrix ``(n, n)`` or ``(..., n, n)`` instead (finite, symmetric, positive definite).
        With ``padded=True`` NaN marks absent cells (ragged problems) rather than bad data.
        """
        x = real_array("x", x, finite=False, copy=False)
        if x.ndim == 0:
            raise ValueError("x must have at least one axis (the folds)")
        batch = x.shape[:-1]
        rows = x.reshape(int(np.prod(batch)), x.shape[-1])
        if corr is None and not padded:  # the statistics do not depend on rho: one pass checks x and computes them
            found = _fast_rows(rows, batch)
        else:
            _check_finite_rows(rows, batch, padded)
        if corr is not None:
            return cls._from_corr(x, corr)
        rho = real_array("rho", rho)
        _fits_batch("rho", rho.shape, x.shape[:-1])
        if np.any(rho < 0) or np.any(rho >= 1):
            raise ValueError(f"rho must be in [0, 1), got {_show(rho)}")
        present = ~np.isnan(rows) if padded else None
        mean, ss, scale, zero = _scaled_rows(rows, present) if padded else found
        n = present.sum(axis=-1) if padded else np.full(len(rows), x.shape[-1])
        n, mean, ss, scale, zero = (v.reshape(batch)[()] for v in (n, mean, ss, scale, zero))
        effective_n = n / (1 + (n - 1) * rho)
        return cls(n, mean, ss / (1 - rho), effective_n, zero, scale)

    @classmethod
    def _from_corr(cls, x, corr):
        n = x.shape[-1]
        corr = real_array("corr", corr)
        if corr.ndim < 2 or corr.shape[-2:] != (n, n):
            raise ValueError(f"corr must be ({n}, {n}) to match x, got {corr.shape}")
        _fits_batch("corr", corr.shape[:-2], x.shape[:-1])
        if np.any(np.abs(corr - np.swapaxes(corr, -1, -2)) > 1e-12 * np.abs(corr).max()):
            raise ValueError("corr must be symmetric")
        try:
            np.linalg.cholesky(corr)
        except np.linalg.LinAlgError:
            raise ValueError("corr must be positive definite") from None
        high, low = x.max(axis=-1), x.min(axis=-1)
        scale = power_of_two_scale(np.maximum(high, -low))
        xs = x / scale[..., None]
        ones = np.ones(corr.shape[:-1])
        m_inv_1 = np.linalg.solve(corr, ones[..., None])[..., 0]
        effective_n = m_inv_1.sum(axis=-1)
        mean = np.einsum("...i,...i->...", m_inv_1, xs) / effective_n
        resid = xs - mean[..., None]
        m_inv_r = np.linalg.solve(np.broadcast_to(corr, resid.shape + (n,)), resid[..., None])[..., 0]
        ss = np.einsum("...i,...i->...", resid, m_inv_r)
        zero = high == low
        mean, effective_n = np.broadcast_arrays(mean, effective_n)
        return cls(np.full(x.shape[:-1], n), mean, np.where(zero, 0.0, ss), effective_n, zero, scale)


# Rows whose sum of squares lies in [2^-600, 2^600] are computed on the raw values: nothing can overflow or
# underflow there, and dividing by a power of two would change no bit of the result. The other rows, and those
# that may be ties, are recomputed on x / scale.
_SAFE_SS = (2.0**-600, 2.0**600)
_TIE_CANDIDATE = 1024 * np.finfo(float).eps  # far above the rounding of a mean of equal values


_BLOCK_VALUES = 2**16  # values in a block of rows: 512 KiB, which stays in the cache between the passes over it


def _check_finite_rows(rows, batch, padded, offset=0):
    """A ValueError naming the first NaN or inf (only inf if ``padded``: NaN marks absent cells) of ``rows``, the
    rows from ``offset`` on of an x of shape ``batch + (n,)``; its index is given in x's shape."""
    bad = np.isinf(rows) if padded else ~np.isfinite(rows)
    if bad.any():
        row, column = (int(i) for i in np.argwhere(bad)[0])
        where = tuple(int(i) for i in np.unravel_index(offset + row, batch)) + (column,)
        raise ValueError(f"x contains {'inf' if padded else 'NaN or inf'} (first at index {where})")


def _fast_rows(x, batch):
    """Mean, sum of squared deviations (both in units of scale), scale and ties of the rows of a 2-D x, the
    rows of an array of shape ``batch + (n,)``; a ValueError names the first NaN or inf in that shape. Block by
    block, so that x is read from memory once (the check, the mean and the deviations then read a block from the
    cache): on 100,000 x 100 about a third of the time of whole-array passes (benchmarks/bench_ttest.py)."""
    mean, ss = np.empty(len(x)), np.empty(len(x))
    step = max(1, _BLOCK_VALUES // max(x.shape[-1], 1))
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):  # such rows are recomputed below
        for start in range(0, len(x), step):
            block = x[start:start + step]
            if not np.isfinite(block).all():
                _check_finite_rows(block, batch, padded=False, offset=start)
            mean[start:start + step] = block.mean(axis=-1)
            dev = block - mean[start:start + step, None]
            ss[start:start + step] = np.einsum("ij,ij->i", dev, dev)
        fast = (ss >= _SAFE_SS[0]) & (ss <= _SAFE_SS[1]) & (ss > x.shape[-1] * (_TIE_CANDIDATE * mean) ** 2)
    scale, zero = np.ones(len(x)), np.zeros(len(x), dtype=bool)
    if not fast.all():
        redo = ~fast
        mean[redo], ss[redo], scale[redo], zero[redo] = _scaled_rows(x[redo])
    return mean, ss, scale, zero


def _scaled_rows(x, present=None):
    """The same on x / scale, scale a power of two near max |x| of each row (NaN cells absent if ``present``).

    Ties are values exactly equal or whose rms spread is within TIE_TOLERANCE of the largest |x| (which is
    scale times [1, 2)): what rounding leaves of equal differences computed from different scores.
    """
    if present is None:
        high, low, n = x.max(axis=-1), x.min(axis=-1), x.shape[-1]
    else:
        n = present.sum(axis=-1)
        high, low = np.nanmax(x, axis=-1, initial=-np.inf), np.nanmin(x, axis=-1, initial=np.inf)
        high, low = np.where(n > 0, high, 0.0), np.where(n > 0, low, 0.0)
    scale = power_of_two_scale(np.maximum(high, -low))
    xs = x / scale[:, None]
    if present is None:
        mean = xs.mean(axis=-1)
        dev = xs - mean[:, None]
    else:
        xs = np.where(present, xs, 0.0)
        mean = xs.sum(axis=-1) / np.maximum(n, 1)
        dev = np.where(present, xs - mean[:, None], 0.0)
    ss = np.einsum("ij,ij->i", dev, dev)
    zero = (high == low) | (ss <= n * (2 * TIE_TOLERANCE) ** 2)
    mean = np.where(high == low, high / scale, mean)  # exact ties: the value itself, not a rounded mean of it
    return mean, np.where(zero, 0.0, ss), scale, zero


def broadcasts_into(shape, batch) -> bool:
    """Whether a parameter of ``shape`` broadcasts to the problems' shape ``batch`` without adding problems.

    >>> broadcasts_into((3,), (2, 3)), broadcasts_into((2, 3), (3,))
    (True, False)
    """
    try:
        return np.broadcast_shapes(shape, batch) == tuple(batch)
    except ValueError:
        return False


def _fits_batch(name, shape, batch):
    """A per-problem parameter must broadcast to the problems' shape without adding problems."""
    if not broadcasts_into(shape, batch):
        raise ValueError(f"{name} has shape {shape} but x holds {int(np.prod(batch))} problem(s) of shape "
                         f"{tuple(batch)}: give one value or one per problem")


def intraclass_logp(x, mu, sigma, rho):
    """Log density of x ~ MVN(mu 1, sigma^2 M) over the last axis, in O(n).

    x, mu must be finite, sigma > 0 and -1/(n-1) < rho < 1 (where M is positive definite); a ValueError
    names the argument that is not.

    Computed on x, mu and sigma divided by a power of two near the largest of them, so it is finite
    wherever the log density is (no squares of raw values).

    >>> from scipy import stats
    >>> x = np.array([0.1, -0.2, 0.4]); M = 0.7 * np.eye(3) + 0.3
    >>> bool(np.isclose(intraclass_logp(x, 0.1, 0.5, 0.3),
    ...                 stats.multivariate_normal(np.full(3, 0.1), 0.25 * M).logpdf(x)))
    True
    """
    x, mu, sigma, rho = (real_array(name, v) for name, v in (("x", x), ("mu", mu), ("sigma", sigma), ("rho", rho)))
    if x.ndim == 0:
        raise ValueError("x must have at least one axis (the folds)")
    if np.any(sigma <= 0):
        raise ValueError(f"sigma must be > 0, got {_show(sigma)}")
    n = x.shape[-1]
    low = -1 / (n - 1) if n > 1 else -1.0  # M is positive definite for -1/(n-1) < rho < 1
    if np.any(rho <= low) or np.any(rho >= 1):
        raise ValueError(f"rho must be in ({low:.4g}, 1) for {n} values, got {_show(rho)}")
    scale = power_of_two_scale(np.maximum(np.abs(x).max(axis=-1), np.maximum(np.abs(mu), sigma)))
    xs, mus, sigmas = x / scale[..., None], mu / scale, sigma / scale
    xbar = xs.mean(axis=-1)
    dev = xs - xbar[..., None]
    spread = _over(np.sqrt(np.einsum("...i,...i->...", dev, dev) / (1 - rho)), sigmas)
    offset = _over(xbar - mus, sigmas)
    with np.errstate(over="ignore"):  # inf only where the density is 0 in float
        quad = spread**2 + n / (1 + (n - 1) * rho) * offset**2
    logdet = (n - 1) * np.log1p(-rho) + np.log1p((n - 1) * rho)
    return -0.5 * (n * np.log(2 * np.pi) + 2 * n * np.log(sigma) + logdet + quad)


def intraclass_fold_logp(x, mu, sigma, rho):
    """Log density of each value x_j given the other values of its problem (leave-one-fold-out), over the
    last axis of x ~ MVN(mu 1, sigma^2 M), M = (1 - rho) I + rho 1 1^T; the same shape as x, in O(n).

    Conditioning by the Schur complement: with u = x - mu, the other n - 1 values have covariance
    sigma^2 ((1 - rho) I + rho 1 1^T), whose inverse is (I - rho / (1 + (n - 2) rho) 1 1^T) / (sigma^2 (1 - rho));
    their covariance with x_j is sigma^2 rho 1^T. Hence

        x_j | x_-j ~ N(mu + r sum_{l != j} u_l, sigma^2 (1 - rho)(1 + (n - 1) rho) / (1 + (n - 2) rho)),
        r = rho / (1 + (n - 2) rho).

    These n terms do not sum to :func:`intraclass_logp` (the folds are not independent): each is the exact
    predictive density of one fold given the others, the unit of leave-one-fold-out cross-validation. Same
    arguments, checks and scaling as :func:`intraclass_logp`; n must be at least 2.

    >>> from scipy import stats
    >>> x = np.array([0.1, -0.2, 0.4]); cov = 0.25 * (0.7 * np.eye(3) + 0.3)
    >>> mean_0 = 0.1 + cov[0, 1:] @ np.linalg.solve(cov[1:, 1:], x[1:] - 0.1)
    >>> var_0 = cov[0, 0] - cov[0, 1:] @ np.linalg.solve(cov[1:, 1:], cov[1:, 0])
    >>> bool(np.isclose(intraclass_fold_logp(x, 0.1, 0.5, 0.3)[0], stats.norm(mean_0, np.sqrt(var_0)).logpdf(0.1)))
    True
    """
    x, mu, sigma, rho = (real_array(name, v) for name, v in (("x", x), ("mu", mu), ("sigma", sigma), ("rho", rho)))
    if x.ndim == 0 or x.shape[-1] < 2:
        raise ValueError(f"x must have at least 2 values on its last axis (the folds), got shape {x.shape}")
    if np.any(sigma <= 0):
        raise ValueError(f"sigma must be > 0, got {_show(sigma)}")
    n = x.shape[-1]
    low = -1 / (n - 1)
    if np.any(rho <= low) or np.any(rho >= 1):
        raise ValueError(f"rho must be in ({low:.4g}, 1) for {n} values, got {_show(rho)}")
    scale = power_of_two_scale(np.maximum(np.abs(x).max(axis=-1), np.maximum(np.abs(mu), sigma)))
    u = (x - mu[..., None]) / scale[..., None]
    sigmas, rho_ = (sigma / scale)[..., None], rho[..., None]
    r = rho_ / (1 + (n - 2) * rho_)
    residual = u - r * (u.sum(axis=-1, keepdims=True) - u)
    variance_factor = (1 - rho_) * (1 + (n - 1) * rho_) / (1 + (n - 2) * rho_)
    with np.errstate(over="ignore"):  # inf only where the density is 0 in float
        quad = _over(residual, sigmas) ** 2 / variance_factor
    return -0.5 * (np.log(2 * np.pi) + 2 * np.log(sigma[..., None]) + np.log(variance_factor) + quad)


def _over(numerator, scaled_sigma):
    """numerator / scaled_sigma, where sigma over the scale may have underflowed to 0 (sigma far below the values):
    then 0 where the numerator is 0 (the values at their mean: a finite density) and +-inf elsewhere (the density
    is 0 in float), without a warning."""
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        return np.where(numerator == 0, 0.0, numerator / scaled_sigma)
