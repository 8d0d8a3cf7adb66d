"""Two scikit-learn estimators evaluated on the same splits of one data set: the resampling designs of Nadeau &
Bengio (2003) and any scikit-learn splitter, a per-instance loss, per-split results as xarray.

scikit-learn is imported inside the functions that fit estimators (it is a dev and ``examples`` dependency, not
needed to import pp_corr). Per-instance losses are L_A and L_B on the same test instance; ``loss`` holds each
learner's mean test loss per split and ``difference_var`` the sample variance of L_A - L_B over the split's test
instances, so mu_hat_j = loss[A] - loss[B] is positive when B has the lower loss (B better, as everywhere in
pp_corr). :func:`to_scores` turns the result into the library's scores Dataset.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
import xarray as xr

from .._args import as_generator, check_count

DESIGNS = ("subsampling", "kfold", "5x2", "half-splits", "pseudo-bootstrap")
LOSSES = ("squared", "zero_one")


@dataclass(frozen=True)
class SplitPlan:
    """Train and test indices of every split, with where each split belongs: ``design`` (one of :data:`DESIGNS`
    or ``"given"``), ``group`` (the run of k-fold, the halving m, the repetition r of the pseudo-bootstrap) and
    ``part`` (0: trained on the half D_m, 1: on its complement; 0 elsewhere).

    >>> plan = design_splits("5x2", 10, random_seed=0)
    >>> len(plan), plan.group.tolist()[:4], plan.part.tolist()[:4]
    (10, [0, 0, 1, 1], [0, 1, 0, 1])
    """

    train: tuple[np.ndarray, ...]
    test: tuple[np.ndarray, ...]
    design: tuple[str, ...]
    group: np.ndarray
    part: np.ndarray

    def __len__(self):
        return len(self.train)

    def __add__(self, other: SplitPlan) -> SplitPlan:
        return SplitPlan(self.train + other.train, self.test + other.test, self.design + other.design,
                         np.concatenate([self.group, other.group]), np.concatenate([self.part, other.part]))


def _plan(pairs, design, group, part) -> SplitPlan:
    train, test = zip(*pairs) if pairs else ((), ())
    return SplitPlan(tuple(train), tuple(test), (design,) * len(pairs), np.asarray(group, dtype=int),
                     np.asarray(part, dtype=int))


def _random_pairs(indices, n_train, n_test, splits, rng):
    """``splits`` random splits of ``indices``: n_train instances to train on, n_test others to test on."""
    chosen = [rng.permutation(indices)[: n_train + n_test] for _ in range(splits)]
    return [(c[:n_train], c[n_train:]) for c in chosen]


def design_splits(design, n, *, n_test=None, n_train=None, splits=15, folds=10, runs=1, halvings=None,
                  repetitions=15, random_seed=None) -> SplitPlan:
    """The splits of ``n`` instances for one design (docs/theory.md, section 8):

    - ``"subsampling"``: ``splits`` (J) independent random splits, ``n_train`` (default n - n_test) to train on,
      ``n_test`` to test on (test sets may overlap across splits);
    - ``"kfold"``: ``runs`` repetitions of ``folds``-fold cross-validation on a fresh permutation (fold sizes as
      scikit-learn's KFold: the first n % folds folds one larger);
    - ``"5x2"``: ``halvings`` (default 5) random halvings D_m | D_m^c, trained on one half and tested on the other,
      both ways;
    - ``"half-splits"``: ``halvings`` (default 10) random halvings, and inside each half (floor(n/2) instances)
      J random splits testing on ``n_test`` and training on the floor(n/2) - n_test others (the conservative Z);
    - ``"pseudo-bootstrap"``: ``repetitions`` (R) independent repetitions of the J-split subsampling.

    >>> plan = design_splits("subsampling", 20, n_test=5, splits=3, random_seed=1)
    >>> [(len(a), len(b)) for a, b in zip(plan.train, plan.test)]
    [(15, 5), (15, 5), (15, 5)]
    """
    rng = as_generator(random_seed)
    n = check_count("n", n, minimum=2)
    if design not in DESIGNS:
        raise ValueError(f"design must be one of {DESIGNS}, got {design!r}")
    indices = np.arange(n)
    if design == "kfold":
        folds, runs = check_count("folds", folds, minimum=2), check_count("runs", runs)
        if folds > n:
            raise ValueError(f"folds must be at most n = {n}, got {folds}")
        pairs, group = [], []
        for run in range(runs):
            parts = np.array_split(rng.permutation(n), folds)
            pairs += [(np.sort(np.concatenate(parts[:k] + parts[k + 1:])), parts[k]) for k in range(folds)]
            group += [run] * folds
        return _plan(pairs, design, group, np.zeros(len(pairs)))
    if design == "5x2":
        halvings = check_count("halvings", 5 if halvings is None else halvings)
        pairs = []
        for _ in range(halvings):
            perm = rng.permutation(n)
            half, other = perm[: n // 2], perm[n // 2:]
            pairs += [(half, other), (other, half)]
        return _plan(pairs, design, np.repeat(np.arange(halvings), 2), np.tile([0, 1], halvings))
    splits = check_count("splits", splits)
    if n_test is None:
        raise ValueError(f"n_test is needed for the design {design!r}")
    n_test = check_count("n_test", n_test)
    if design == "half-splits":
        halvings, size = check_count("halvings", 10 if halvings is None else halvings), n // 2
        if n_train is not None:
            raise ValueError("n_train is fixed by the half-splits design (floor(n/2) - n_test): leave it None")
        if n_test > size - 1:
            raise ValueError(f"n_test must leave a training set inside a half of {size} instances, got {n_test}")
        pairs, group, part = [], [], []
        for m in range(halvings):
            perm = rng.permutation(n)
            for side, half in enumerate((perm[:size], perm[size: 2 * size])):
                pairs += _random_pairs(half, size - n_test, n_test, splits, rng)
                group += [m] * splits
                part += [side] * splits
        return _plan(pairs, design, group, part)
    n_train = n - n_test if n_train is None else check_count("n_train", n_train)
    if n_train + n_test > n:
        raise ValueError(f"n_train + n_test must be at most n = {n}, got {n_train} + {n_test}")
    if design == "subsampling":
        return _plan(_random_pairs(indices, n_train, n_test, splits, rng), design, np.zeros(splits),
                     np.zeros(splits))
    repetitions = check_count("repetitions", repetitions, minimum=2)
    pairs = [p for _ in range(repetitions) for p in _random_pairs(indices, n_train, n_test, splits, rng)]
    return _plan(pairs, design, np.repeat(np.arange(repetitions), splits), np.zeros(len(pairs)))


def given_splits(cv, X, y=None, groups=None) -> SplitPlan:
    """The splits of a scikit-learn splitter (anything with ``split(X, y, groups)``) or an iterable of
    ``(train, test)`` index arrays, in their order; design ``"given"``.

    >>> from sklearn.model_selection import KFold
    >>> plan = given_splits(KFold(4), np.zeros((8, 1)))
    >>> len(plan), plan.test[0].tolist()
    (4, [0, 1])
    """
    pairs = list(cv.split(X, y, groups) if hasattr(cv, "split") else cv)
    if not pairs:
        raise ValueError("cv gave no splits")
    pairs = [(np.asarray(train, dtype=int), np.asarray(test, dtype=int)) for train, test in pairs]
    return SplitPlan(tuple(p[0] for p in pairs), tuple(p[1] for p in pairs), ("given",) * len(pairs),
                     np.zeros(len(pairs), dtype=int), np.zeros(len(pairs), dtype=int))


def instance_losses(loss, y_true, y_pred) -> np.ndarray:
    """The loss of each test instance: ``"squared"`` (y - prediction)^2, ``"zero_one"`` 1 where the prediction
    is wrong, or ``loss(y_true, y_pred)`` for a callable returning one value per instance.

    >>> instance_losses("zero_one", np.array([0, 1, 1]), np.array([0, 0, 1])).tolist()
    [0.0, 1.0, 0.0]
    """
    if callable(loss):
        values = np.asarray(loss(y_true, y_pred), dtype=float)
        if values.shape != np.shape(y_true):
            raise ValueError(f"loss must return one value per test instance (shape {np.shape(y_true)}), got shape "
                             f"{values.shape}")
        return values
    if loss == "squared":
        return (np.asarray(y_true, dtype=float) - np.asarray(y_pred, dtype=float)) ** 2
    if loss == "zero_one":
        return (np.asarray(y_true) != np.asarray(y_pred)).astype(float)
    raise ValueError(f"loss must be one of {LOSSES} or a callable (y_true, y_pred) -> per-instance losses, "
                     f"got {loss!r}")


def _take(data, rows):
    return data.iloc[rows] if hasattr(data, "iloc") else np.asarray(data)[rows]


def _evaluate_split(estimators, X, y, train, test, loss, seeds):
    """Fit clones of both estimators on ``train``; their mean losses on ``test`` and the variance of L_A - L_B."""
    from sklearn.base import clone

    y_test, per_instance = _take(y, test), []
    for estimator, seed in zip(estimators, seeds):
        model = clone(estimator)
        if seed is not None:
            model.set_params(random_state=seed)
        model.fit(_take(X, train), _take(y, train))
        per_instance.append(instance_losses(loss, y_test, model.predict(_take(X, test))))
    difference = per_instance[0] - per_instance[1]
    variance = difference.var(ddof=1) if len(test) > 1 else np.nan
    return [values.mean() for values in per_instance], variance


def _needs_seed(estimator):
    params = estimator.get_params(deep=False)
    return "random_state" in params and params["random_state"] is None


def evaluate(estimator_a, estimator_b, X, y, plan: SplitPlan, *, loss="squared", names=("A", "B"),
             random_seed=None, n_jobs=None) -> xr.Dataset:
    """Both estimators fitted and tested on every split of ``plan`` (a :class:`SplitPlan`, see
    :func:`design_splits` and :func:`given_splits`), in parallel through joblib (``n_jobs``; inside
    ``joblib.parallel_backend("dask")`` the fits run on a Dask cluster). An estimator whose ``random_state`` is
    None gets a seed per split from ``random_seed``, so results are reproducible.

    Returns dims (algorithm, split): ``loss`` (mean test loss), and per split ``difference_var`` (sample variance
    of L_A - L_B over the test instances), ``n_train``, ``n_test``, ``design``, ``group``, ``part``.

    >>> from sklearn.dummy import DummyRegressor
    >>> from sklearn.linear_model import LinearRegression
    >>> X = np.arange(20.0)[:, None]; y = 2 * X[:, 0] + np.random.default_rng(0).normal(size=20)
    >>> res = evaluate(DummyRegressor(), LinearRegression(), X, y, design_splits("kfold", 20, folds=4, random_seed=0))
    >>> bool((res.loss.sel(algorithm="A") > res.loss.sel(algorithm="B")).all())
    True
    """
    from joblib import Parallel, delayed

    a, b = (str(name) for name in names)
    if a == b:
        raise ValueError(f"names must be two different names, got {names!r}")
    instance_losses(loss, np.zeros(2), np.zeros(2))  # checks loss before any fit
    if len(plan) == 0:
        raise ValueError("plan holds no splits")
    n = len(y)
    if len(X) != n:
        raise ValueError(f"X and y must hold the same instances, got {len(X)} and {n} rows")
    rng = as_generator(random_seed)
    estimators = (estimator_a, estimator_b)
    seeds = [[int(rng.integers(2**31)) if _needs_seed(e) else None for e in estimators] for _ in range(len(plan))]
    results = Parallel(n_jobs=n_jobs)(delayed(_evaluate_split)(estimators, X, y, train, test, loss, seed)
                                      for train, test, seed in zip(plan.train, plan.test, seeds))
    means = np.array([r[0] for r in results]).T
    split = np.arange(len(plan))
    return xr.Dataset(
        {"loss": (("algorithm", "split"), means),
         "difference_var": ("split", np.array([r[1] for r in results])),
         "n_train": ("split", np.array([len(t) for t in plan.train])),
         "n_test": ("split", np.array([len(t) for t in plan.test]))},
        coords={"algorithm": [a, b], "split": split, "design": ("split", list(plan.design)),
                "group": ("split", plan.group), "part": ("split", plan.part)},
        attrs={"loss": loss if isinstance(loss, str) else getattr(loss, "__name__", "callable"), "n": n,
               "a": a, "b": b})


def resample(estimator_a, estimator_b, X, y, *, design="subsampling", cv=None, groups=None, loss="squared",
             names=("A", "B"), random_seed=None, n_jobs=None, **design_args) -> xr.Dataset:
    """:func:`evaluate` on the splits of ``design`` (with ``design_args`` as in :func:`design_splits`), or on those
    of a scikit-learn splitter ``cv`` (then ``design`` is ignored). ``random_seed`` seeds the splits and the
    estimators (separate streams).

    >>> from sklearn.dummy import DummyRegressor
    >>> from sklearn.linear_model import LinearRegression
    >>> X = np.arange(30.0)[:, None]; y = X[:, 0] + np.random.default_rng(0).normal(size=30)
    >>> res = resample(DummyRegressor(), LinearRegression(), X, y, n_test=10, splits=5, random_seed=0)
    >>> res.sizes["split"], int(res.n_test[0]), int(res.n_train[0])
    (5, 10, 20)
    """
    split_rng, fit_rng = split_and_fit_streams(random_seed)
    if cv is not None:
        plan = given_splits(cv, X, y, groups)
    else:
        plan = design_splits(design, len(y), random_seed=split_rng, **design_args)
    return evaluate(estimator_a, estimator_b, X, y, plan, loss=loss, names=names, random_seed=fit_rng,
                    n_jobs=n_jobs)


def split_and_fit_streams(random_seed):
    """Two independent Generators from ``random_seed``: one draws the splits, the other seeds the estimators (so
    the splits of a seed do not depend on how many estimators need seeds).

    >>> a, b = split_and_fit_streams(0); bool(a.random() != b.random())
    True
    """
    split_seed, fit_seed = np.random.SeedSequence(as_generator(random_seed).integers(2**63)).spawn(2)
    return np.random.default_rng(split_seed), np.random.default_rng(fit_seed)


def to_scores(results: xr.Dataset, dataset="D1"):
    """The per-split losses as pp_corr's scores Dataset (one data set; scores are the negated losses, so B - A
    is L_A - L_B; a run per ``group``, the splits of a group its folds; n_test and n_train kept, so rho is
    n_test / n), ready for :func:`pp_corr.correlated_ttest`.

    >>> res = xr.Dataset({"loss": (("algorithm", "split"), [[0.3, 0.4, 0.2], [0.2, 0.3, 0.2]]),
    ...                   "n_train": ("split", [8, 8, 8]), "n_test": ("split", [2, 2, 2])},
    ...                  coords={"algorithm": ["A", "B"], "group": ("split", [0, 0, 0])})
    >>> scores = to_scores(res); round(float(scores.rho[0]), 3), scores.attrs["higher_is_better"]
    (0.2, False)
    """
    from ..data.scores import AssumptionWarning, load_scores

    group = results.group.values
    fold = np.concatenate([np.arange(np.sum(group == g)) for g in np.unique(group)])
    order = np.argsort(group, kind="stable")
    rows = []
    for name in results.algorithm.values:
        loss = results.loss.sel(algorithm=name).values
        rows.append(pd.DataFrame({"dataset": str(dataset), "algorithm": str(name), "run": group[order] + 1,
                                  "fold": fold + 1, "score": loss[order], "n_test": results.n_test.values[order],
                                  "n_train": results.n_train.values[order]}))
    with warnings.catch_warnings():  # losses above 1 are not percentages: that guess does not apply here
        warnings.filterwarnings("ignore", "the scores look like percentages", AssumptionWarning)
        return load_scores(pd.concat(rows, ignore_index=True), format="tidy", higher_is_better=False)
