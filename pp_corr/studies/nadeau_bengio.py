"""The seven procedures of Nadeau & Bengio (2003) for inference about the difference in generalization error of
two learners, and the two exact variants of Dietterich's 5x2cv t, side by side.

mu = E[L_A - L_B] for a training size n1: positive when B has the lower loss (B better). Each procedure gives an
estimate mu_hat, a variance sigma_hat^2, and a reference distribution (normal or Student t with df degrees of
freedom): statistic (mu_hat - mu0) / sigma_hat, p-values, interval mu_hat +- c sigma_hat. docs/theory.md explains
them. The inputs are the split results of :mod:`pp_corr.studies.resampling` (:func:`nadeau_bengio` runs every design
needed) or plain arrays (:func:`procedure_moments`, vectorised over repetitions for the simulation study).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import xarray as xr
from scipy import stats

from .._args import check_alternative, check_count, check_probability_level, check_real

PROCEDURES = ("one_split_t", "resampled_t", "dietterich_5x2cv", "dietterich_5x2cv_4", "dietterich_5x2cv_mean",
              "conservative_z", "pseudo_bootstrap", "corrected_resampled_t", "corrected_pseudo_bootstrap")
PROCEDURE_NAMES = {
    "one_split_t": "1 t-test on one split", "resampled_t": "2 resampled t", "dietterich_5x2cv": "3 5x2cv t",
    "dietterich_5x2cv_4": "3a 5x2cv t, 4 halvings in the variance (t4)",
    "dietterich_5x2cv_mean": "3b 5x2cv t, mean of halving 1 (t5)", "conservative_z": "4 conservative Z",
    "pseudo_bootstrap": "5 pseudo-bootstrap", "corrected_resampled_t": "6 corrected resampled t",
    "corrected_pseudo_bootstrap": "7 corrected pseudo-bootstrap"}
# whose generalization error each procedure estimates: training on n1 instances, or on a half (the 5x2 designs)
TRAINED_ON_HALF = ("dietterich_5x2cv", "dietterich_5x2cv_4", "dietterich_5x2cv_mean")


def procedure_moments(one_split, one_split_var, split_means, five_by_two, half_means, bootstrap_means, *,
                      n_train, n_test):
    """Estimates, variances and degrees of freedom (inf: normal) of the procedures of :data:`PROCEDURES`, last axis.

    ``one_split`` mu_hat_1 and ``one_split_var`` the sample variance S_L^2 of its n_test per-instance differences;
    ``split_means`` (..., J) the mu_hat_j of J random splits (n_train, n_test); ``five_by_two`` (..., 5, 2)
    mu~_(m) and mu~^c_(m); ``half_means`` (..., M, 2) the J-split means inside D_m and D_m^c; ``bootstrap_means``
    (..., R) the R repetitions of the J-split mean. Leading axes (repetitions of a study) broadcast.

    >>> est, var, df = procedure_moments(0.1, 0.5, [0.1, 0.2, 0.3], np.full((5, 2), 0.2), np.full((3, 2), 0.2),
    ...                                  [0.2, 0.25], n_train=90, n_test=10)
    >>> round(float(est[1]), 3), round(float(var[1]), 5), float(df[1])
    (0.2, 0.00333, 2.0)
    """
    split_means, five_by_two = np.asarray(split_means, float), np.asarray(five_by_two, float)
    half_means, bootstrap_means = np.asarray(half_means, float), np.asarray(bootstrap_means, float)
    if split_means.shape[-1] < 2 or bootstrap_means.shape[-1] < 2:
        raise ValueError("split_means and bootstrap_means need at least 2 values on their last axis, got shapes "
                         f"{split_means.shape} and {bootstrap_means.shape}")
    if five_by_two.shape[-2:] != (5, 2):
        raise ValueError(f"five_by_two must end in shape (5, 2), got {five_by_two.shape}")
    if half_means.shape[-1] != 2:
        raise ValueError(f"half_means must end in shape (M, 2), got {half_means.shape}")
    n_train, n_test = check_count("n_train", n_train), check_count("n_test", n_test)
    j, r = split_means.shape[-1], bootstrap_means.shape[-1]
    mean_j = split_means.mean(axis=-1)
    s2 = split_means.var(axis=-1, ddof=1)
    sigma_check2 = bootstrap_means.var(axis=-1, ddof=1)
    gaps2 = (five_by_two[..., 0] - five_by_two[..., 1]) ** 2
    five_var = gaps2.sum(axis=-1) / 10
    z_var = ((half_means[..., 0] - half_means[..., 1]) ** 2).mean(axis=-1) / 2
    ratio = n_test / n_train
    estimates = [one_split, mean_j, five_by_two[..., 0, 0], five_by_two[..., 0, 0], five_by_two[..., 0, :].mean(-1),
                 mean_j, mean_j, mean_j, mean_j]
    variances = [np.asarray(one_split_var, float) / n_test, s2 / j, five_var, gaps2[..., 1:].sum(axis=-1) / 8,
                 five_var / 2, z_var, sigma_check2, (1 / j + ratio) * s2, (1 + j * ratio) * sigma_check2]
    df = procedure_dfs(j, r)
    shape = np.broadcast_shapes(*(np.shape(v) for v in estimates + variances))
    return (np.stack([np.broadcast_to(v, shape) for v in estimates], axis=-1),
            np.stack([np.broadcast_to(v, shape) for v in variances], axis=-1), df)


def procedure_dfs(splits, bootstrap_repetitions):
    """The degrees of freedom of each procedure's reference distribution (inf: normal) for J = ``splits`` and R =
    ``bootstrap_repetitions``.

    >>> procedure_dfs(15, 15).tolist()[:3]
    [inf, 14.0, 5.0]
    """
    j, r = splits, bootstrap_repetitions
    return np.array([np.inf, j - 1, 5, 4, 5, np.inf, r - 1, j - 1, r - 1], dtype=float)


def moments_from_splits(results: xr.Dataset):
    """:func:`procedure_moments` from split results holding the four designs of :func:`run_designs` (see
    :func:`split_moments`).

    >>> from sklearn.dummy import DummyRegressor
    >>> from sklearn.linear_model import LinearRegression
    >>> X = np.arange(40.0)[:, None]; y = X[:, 0] + np.random.default_rng(0).normal(size=40)
    >>> res = run_designs(DummyRegressor(), LinearRegression(), X, y, n_test=4, splits=3, halvings=2,
    ...                   repetitions=2, random_seed=0)
    >>> moments_from_splits(res)[0].shape
    (9,)
    """
    diff = (results.loss.isel(algorithm=0) - results.loss.isel(algorithm=1)).values
    return split_moments(diff, results.difference_var.values, results.design.values, results.group.values,
                         results.part.values, results.n_train.values, results.n_test.values)


def split_moments(difference, difference_var, design, group, part, n_train, n_test):
    """:func:`procedure_moments` from per-split arrays: mean loss differences mu_hat (L_A - L_B), the variance of
    the per-instance differences, and each split's design, group, part and sizes (as in
    :class:`pp_corr.studies.resampling.SplitPlan`). Procedure 1 uses the first subsampling split.

    >>> design = np.array(["subsampling"] * 2 + ["5x2"] * 10 + ["half-splits"] * 2 + ["pseudo-bootstrap"] * 2)
    >>> group, part = np.r_[0, 0, np.repeat(np.arange(5), 2), 0, 0, 0, 1], np.r_[0, 0, [0, 1] * 5, 0, 1, 0, 0]
    >>> est, var, df = split_moments(np.arange(16.0), np.ones(16), design, group, part, np.full(16, 8),
    ...                              np.full(16, 2))
    >>> est[:2].tolist(), float(var[5])
    ([0.0, 0.5], 0.5)
    """
    design = np.asarray(design)
    missing = [d for d in ("subsampling", "5x2", "half-splits", "pseudo-bootstrap") if not (design == d).any()]
    if missing:
        raise ValueError(f"the results lack the designs {missing}: run them with run_designs")
    sub, boot = design == "subsampling", design == "pseudo-bootstrap"
    five, half = design == "5x2", design == "half-splits"
    if five.sum() != 10:
        raise ValueError(f"the 5x2 design must hold 10 splits, got {five.sum()}")
    n_train, n_test = np.unique(np.asarray(n_train)[sub]), np.unique(np.asarray(n_test)[sub])
    if len(n_train) != 1 or len(n_test) != 1:
        raise ValueError("the subsampling splits must share one n_train and one n_test")
    half_means = np.array([[difference[half & (group == m) & (part == side)].mean() for side in (0, 1)]
                           for m in np.unique(group[half])])
    bootstrap = np.array([difference[boot & (group == g)].mean() for g in np.unique(group[boot])])
    first = np.flatnonzero(sub)[0]
    return procedure_moments(difference[first], difference_var[first], difference[sub],
                             difference[five].reshape(5, 2), half_means, bootstrap, n_train=int(n_train[0]),
                             n_test=int(n_test[0]))


def t_statistics(estimate, variance, df, mu0=0.0, alternative="two-sided"):
    """Statistic (estimate - mu0) / sqrt(variance) and its p-value under a Student t with ``df`` (normal where
    df is inf); mu0 broadcasts (one per procedure, or a grid for power curves).

    >>> t, p = t_statistics(np.array([0.2]), np.array([0.01]), np.array([np.inf]))
    >>> round(float(t[0]), 3), round(float(p[0]), 4)
    (2.0, 0.0455)
    """
    check_alternative(alternative)
    with np.errstate(divide="ignore", invalid="ignore"):
        statistic = (np.asarray(estimate) - mu0) / np.sqrt(variance)
    df = np.broadcast_to(df, np.shape(statistic))
    sf = np.where(np.isinf(df), stats.norm.sf(statistic), stats.t.sf(statistic, np.where(np.isinf(df), 1, df)))
    cdf = np.where(np.isinf(df), stats.norm.cdf(statistic), stats.t.cdf(statistic, np.where(np.isinf(df), 1, df)))
    if alternative == "greater":
        return statistic, sf
    if alternative == "less":
        return statistic, cdf
    return statistic, np.minimum(1.0, 2 * np.minimum(sf, cdf))


def critical_value(df, level):
    """The quantile ``level`` of the reference distribution: normal where df is inf, else Student t.

    >>> round(float(critical_value(np.inf, 0.975)), 3), round(float(critical_value(5, 0.975)), 3)
    (1.96, 2.571)
    """
    df = np.asarray(df, float)
    return np.where(np.isinf(df), stats.norm.ppf(level), stats.t.ppf(level, np.where(np.isinf(df), 1, df)))


@dataclass(frozen=True)
class NadeauBengioResult:
    """The procedures of :data:`PROCEDURES` on one data set: ``estimate``, ``variance`` and ``df`` per procedure
    (inf: normal reference), tested against ``mu0``; B - A in losses is L_A - L_B (positive: B better).

    >>> res = NadeauBengioResult(np.array([0.1]), np.array([0.0025]), np.array([np.inf]), ("one_split_t",))
    >>> round(float(res.pvalue()[0]), 4), round(float(res.pvalue("greater")[0]), 4)
    (0.0455, 0.0228)
    """

    estimate: np.ndarray
    variance: np.ndarray
    df: np.ndarray
    procedures: tuple[str, ...] = PROCEDURES
    mu0: float = 0.0
    names: tuple[str, str] = ("A", "B")

    @property
    def standard_error(self):
        """sqrt of the variance."""
        return np.sqrt(self.variance)

    @property
    def statistic(self):
        """(estimate - mu0) / standard error."""
        return t_statistics(self.estimate, self.variance, self.df, self.mu0)[0]

    def pvalue(self, alternative="two-sided"):
        """p-values: ``"greater"`` tests mu > mu0 (B better by more than mu0), ``"less"`` mu < mu0."""
        return t_statistics(self.estimate, self.variance, self.df, self.mu0, alternative)[1]

    def interval(self, confidence_level=0.95, alternative="two-sided"):
        """Confidence interval estimate +- c standard error (one-sided bounds are inf for one-sided tests).

        >>> res = NadeauBengioResult(np.array([0.1]), np.array([0.0025]), np.array([np.inf]), ("one_split_t",))
        >>> [round(float(v[0]), 3) for v in res.interval(0.95)]
        [0.002, 0.198]
        """
        check_probability_level("confidence_level", confidence_level)
        check_alternative(alternative)
        if alternative == "two-sided":
            half = critical_value(self.df, 0.5 + confidence_level / 2) * self.standard_error
            return self.estimate - half, self.estimate + half
        bound = critical_value(self.df, confidence_level) * self.standard_error
        if alternative == "greater":
            return self.estimate - bound, np.full_like(self.estimate, np.inf)
        return np.full_like(self.estimate, -np.inf), self.estimate + bound

    def to_frame(self, confidence_level=0.95) -> pd.DataFrame:
        """One row per procedure: estimate, standard error, df, statistic, the three p-values and the two-sided
        interval.

        >>> res = NadeauBengioResult(np.array([0.1]), np.array([0.0025]), np.array([np.inf]), ("one_split_t",))
        >>> list(res.to_frame().columns)[:4]
        ['estimate', 'standard error', 'df', 'statistic']
        """
        lo, hi = self.interval(confidence_level)
        level = f"{round(100 * confidence_level, 6):g}%"
        frame = pd.DataFrame({"estimate": self.estimate, "standard error": self.standard_error, "df": self.df,
                              "statistic": self.statistic, "p (two-sided)": self.pvalue(),
                              "p (greater)": self.pvalue("greater"), "p (less)": self.pvalue("less"),
                              f"{level} lo": lo, f"{level} hi": hi},
                             index=pd.Index([PROCEDURE_NAMES[p] for p in self.procedures], name="procedure"))
        return frame

    def to_dict(self) -> dict:
        """Plain Python values: names, mu0 and one record per procedure."""
        records = self.to_frame().reset_index().replace({np.inf: None}).to_dict(orient="records")
        return {"a": self.names[0], "b": self.names[1], "mu0": self.mu0, "results": records}

    def __repr__(self):
        a, b = self.names
        head = f"Nadeau-Bengio procedures: mu = E[L_{a} - L_{b}] (positive: {b} better), H0: mu = {self.mu0:g}"
        with pd.option_context("display.width", 200, "display.max_columns", None,
                               "display.float_format", "{:.4g}".format):
            return f"{head}\n{self.to_frame()}"


def procedures_from_splits(results: xr.Dataset, mu0=0.0) -> NadeauBengioResult:
    """The procedures on split results from :func:`run_designs` (see :func:`moments_from_splits`).

    >>> from sklearn.dummy import DummyRegressor
    >>> from sklearn.linear_model import LinearRegression
    >>> X = np.arange(40.0)[:, None]; y = X[:, 0] + np.random.default_rng(0).normal(size=40)
    >>> res = run_designs(DummyRegressor(), LinearRegression(), X, y, n_test=4, splits=3, halvings=2,
    ...                   repetitions=2, random_seed=0)
    >>> bool((procedures_from_splits(res).estimate > 0).all())
    True
    """
    estimate, variance, df = moments_from_splits(results)
    names = tuple(str(v) for v in results.algorithm.values)
    return NadeauBengioResult(estimate, variance, df, PROCEDURES, check_real("mu0", mu0), names)


def run_designs(estimator_a, estimator_b, X, y, *, n_test, splits=15, halvings=10, repetitions=15,
                loss="squared", names=("A", "B"), random_seed=None, n_jobs=None) -> xr.Dataset:
    """The four designs the procedures need, on the same data, as one split table (see
    :func:`pp_corr.studies.resampling.evaluate`): J = ``splits`` random splits (n - ``n_test``, ``n_test``), 5x2, the
    conservative Z's ``halvings`` half-splits and ``repetitions`` repetitions of the J-split subsampling for the
    pseudo-bootstrap. ``random_seed`` seeds the splits and the estimators.

    >>> from sklearn.dummy import DummyRegressor
    >>> from sklearn.linear_model import LinearRegression
    >>> X = np.arange(40.0)[:, None]; y = X[:, 0]
    >>> res = run_designs(DummyRegressor(), LinearRegression(), X, y, n_test=4, splits=3, halvings=2,
    ...                   repetitions=2, random_seed=0)
    >>> sorted(set(res.design.values.tolist()))
    ['5x2', 'half-splits', 'pseudo-bootstrap', 'subsampling']
    """
    from .resampling import design_splits, evaluate, split_and_fit_streams

    rng, fit_rng = split_and_fit_streams(random_seed)
    common = {"n_test": n_test, "splits": splits}
    plan = (design_splits("subsampling", len(y), random_seed=rng, **common)
            + design_splits("5x2", len(y), random_seed=rng)
            + design_splits("half-splits", len(y), halvings=halvings, random_seed=rng, **common)
            + design_splits("pseudo-bootstrap", len(y), repetitions=repetitions, random_seed=rng, **common))
    return evaluate(estimator_a, estimator_b, X, y, plan, loss=loss, names=names, random_seed=fit_rng, n_jobs=n_jobs)


def nadeau_bengio(estimator_a, estimator_b, X, y, *, n_test, splits=15, halvings=10, repetitions=15,
                  loss="squared", mu0=0.0, names=("A", "B"), random_seed=None, n_jobs=None) -> NadeauBengioResult:
    """Run both scikit-learn estimators on the designs of :func:`run_designs` and apply every procedure:
    J = ``splits`` random splits testing on ``n_test`` instances, M = ``halvings``, R = ``repetitions``; ``loss``
    ``"squared"``, ``"zero_one"`` or a callable (per-instance losses). Costs J (R + 1) + 2 M J + 10 fits per
    estimator.

    >>> from sklearn.dummy import DummyRegressor
    >>> from sklearn.linear_model import LinearRegression
    >>> X = np.arange(60.0)[:, None]; y = 0.1 * X[:, 0] + np.random.default_rng(0).normal(size=60)
    >>> res = nadeau_bengio(DummyRegressor(), LinearRegression(), X, y, n_test=6, splits=5, halvings=3,
    ...                     repetitions=4, random_seed=0)
    >>> res.to_frame().shape
    (9, 9)
    """
    results = run_designs(estimator_a, estimator_b, X, y, n_test=n_test, splits=splits, halvings=halvings,
                          repetitions=repetitions, loss=loss, names=names, random_seed=random_seed, n_jobs=n_jobs)
    return procedures_from_splits(results, mu0)
