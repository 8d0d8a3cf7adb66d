"""The resampling runner: scikit-learn's own cross-validation fold by fold, the designs' splits, per-split results
against a hand loop, the bridge to correlated_ttest, reproducibility and errors."""
import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression
from sklearn.dummy import DummyRegressor
from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge
from sklearn.model_selection import KFold, RepeatedKFold, StratifiedKFold, cross_val_score
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from pp_corr import corrected_ttest, correlated_ttest
from pp_corr.studies.resampling import design_splits, evaluate, given_splits, instance_losses, resample, to_scores


@pytest.fixture(scope="module")
def classification():
    return make_classification(n_samples=120, n_features=5, random_state=0)


@pytest.fixture(scope="module")
def regression():
    return make_regression(n_samples=80, n_features=3, noise=5.0, random_state=0)


@pytest.mark.parametrize("cv", [KFold(5, shuffle=True, random_state=0), StratifiedKFold(4),
                                RepeatedKFold(n_splits=3, n_repeats=2, random_state=1)], ids=["kfold", "strat", "rep"])
def test_reproduces_cross_val_score_classification(classification, cv):
    X, y = classification
    tree, logistic = DecisionTreeClassifier(random_state=3), LogisticRegression()
    res = resample(tree, logistic, X, y, cv=cv, loss="zero_one", random_seed=0)
    for name, estimator in (("A", tree), ("B", logistic)):
        accuracy = cross_val_score(estimator, X, y, cv=cv)
        np.testing.assert_allclose(1 - res.loss.sel(algorithm=name).values, accuracy, rtol=0, atol=1e-12)


def test_reproduces_cross_val_score_regression(regression):
    X, y = regression
    cv = KFold(4, shuffle=True, random_state=2)
    res = resample(Ridge(alpha=1.0), LinearRegression(), X, y, cv=cv, loss="squared")
    for name, estimator in (("A", Ridge(alpha=1.0)), ("B", LinearRegression())):
        mse = -cross_val_score(estimator, X, y, cv=cv, scoring="neg_mean_squared_error")
        np.testing.assert_allclose(res.loss.sel(algorithm=name).values, mse, rtol=1e-12)


def test_split_results_equal_a_hand_loop(regression):
    X, y = regression
    plan = design_splits("subsampling", len(y), n_test=20, splits=4, random_seed=5)
    res = evaluate(DummyRegressor(), LinearRegression(), X, y, plan)
    for j, (train, test) in enumerate(zip(plan.train, plan.test)):
        a = (y[test] - y[train].mean()) ** 2
        coef, *_ = np.linalg.lstsq(np.column_stack([np.ones(len(train)), X[train]]), y[train], rcond=None)
        b = (y[test] - np.column_stack([np.ones(len(test)), X[test]]) @ coef) ** 2
        np.testing.assert_allclose(res.loss.values[:, j], [a.mean(), b.mean()], rtol=1e-10)
        np.testing.assert_allclose(res.difference_var.values[j], np.var(a - b, ddof=1), rtol=1e-9)
    assert res.n_train.values.tolist() == [60] * 4 and res.n_test.values.tolist() == [20] * 4


@pytest.mark.parametrize("n", [21, 40])
def test_designs(n):
    sub = design_splits("subsampling", n, n_test=5, n_train=10, splits=6, random_seed=0)
    for train, test in zip(sub.train, sub.test):
        assert len(train) == 10 and len(test) == 5 and not set(train) & set(test)
    kfold = design_splits("kfold", n, folds=4, runs=2, random_seed=0)
    assert kfold.group.tolist() == [0] * 4 + [1] * 4
    for run in (0, 1):
        tests = [kfold.test[j] for j in np.flatnonzero(kfold.group == run)]
        assert sorted(np.concatenate(tests).tolist()) == list(range(n))
        assert sorted(len(t) for t in tests) == sorted(len(t) for t in np.array_split(np.arange(n), 4))
    for train, test in zip(kfold.train, kfold.test):
        assert sorted(np.concatenate([train, test]).tolist()) == list(range(n))
    five = design_splits("5x2", n, random_seed=0)
    for m in range(5):
        first, second = (np.flatnonzero((five.group == m) & (five.part == side))[0] for side in (0, 1))
        assert np.array_equal(five.train[first], five.test[second])
        assert np.array_equal(five.test[first], five.train[second])
    half = design_splits("half-splits", n, n_test=4, splits=3, halvings=2, random_seed=0)
    assert len(half) == 2 * 2 * 3
    for m in range(2):
        sides = [np.concatenate([np.r_[half.train[j], half.test[j]] for j in
                                 np.flatnonzero((half.group == m) & (half.part == side))]) for side in (0, 1)]
        assert not set(sides[0]) & set(sides[1])  # the two halves of a halving are disjoint
        assert all(len(set(s)) <= n // 2 for s in sides)
    assert all(len(t) == n // 2 - 4 for t in half.train)
    boot = design_splits("pseudo-bootstrap", n, n_test=5, splits=3, repetitions=4, random_seed=0)
    assert boot.group.tolist() == np.repeat(np.arange(4), 3).tolist()


def test_designs_are_seeded():
    a, b = (design_splits("pseudo-bootstrap", 30, n_test=5, splits=3, repetitions=2, random_seed=9) for _ in "ab")
    assert all(np.array_equal(x, y) for x, y in zip(a.test, b.test))
    c = design_splits("pseudo-bootstrap", 30, n_test=5, splits=3, repetitions=2, random_seed=10)
    assert not all(np.array_equal(x, y) for x, y in zip(a.test, c.test))


def test_scores_feed_correlated_ttest(regression):
    X, y = regression
    res = resample(DummyRegressor(), LinearRegression(), X, y, n_test=16, splits=8, random_seed=1)
    scores = to_scores(res)
    diff = (res.loss.sel(algorithm="A") - res.loss.sel(algorithm="B")).values
    bayes = correlated_ttest(scores)
    freq = corrected_ttest(diff, n_test=16, n_train=64, alternative="greater")
    assert float(scores.rho[0]) == pytest.approx(16 / 80, abs=1e-15)
    assert float(bayes.p_right[0]) == pytest.approx(1 - float(freq.pvalue), abs=1e-12)
    kfold = resample(DummyRegressor(), LinearRegression(), X, y, design="kfold", folds=4, runs=3, random_seed=1)
    assert dict(to_scores(kfold).score.sizes) == {"dataset": 1, "algorithm": 2, "run": 3, "fold": 4}


@pytest.mark.long
def test_parallel_and_seeded_estimators(classification):
    X, y = classification
    tree = DecisionTreeRegressor(max_features=2)  # random_state None: the runner seeds each split's fit
    one = resample(tree, LinearRegression(), X, y, n_test=30, splits=6, random_seed=4, n_jobs=1)
    two = resample(tree, LinearRegression(), X, y, n_test=30, splits=6, random_seed=4, n_jobs=2)
    np.testing.assert_array_equal(one.loss.values, two.loss.values)
    other = resample(tree, LinearRegression(), X, y, n_test=30, splits=6, random_seed=5, n_jobs=1)
    assert not np.array_equal(one.loss.values, other.loss.values)


def test_dask_backend(classification):
    from joblib import parallel_backend

    from pp_corr.execution import dask_client

    X, y = classification
    local = resample(DecisionTreeClassifier(), LogisticRegression(), X, y, n_test=30, splits=4, loss="zero_one",
                     random_seed=2)
    with dask_client(workers=1), parallel_backend("dask"):
        remote = resample(DecisionTreeClassifier(), LogisticRegression(), X, y, n_test=30, splits=4, loss="zero_one",
                          random_seed=2, n_jobs=-1)
    np.testing.assert_array_equal(local.loss.values, remote.loss.values)


def test_callable_loss_and_pandas(regression):
    import pandas as pd

    X, y = regression
    absolute = resample(DummyRegressor(), LinearRegression(), pd.DataFrame(X), pd.Series(y), cv=KFold(3),
                        loss=lambda t, p: np.abs(t - p))
    mae = -cross_val_score(LinearRegression(), X, y, cv=KFold(3), scoring="neg_mean_absolute_error")
    np.testing.assert_allclose(absolute.loss.sel(algorithm="B").values, mae, rtol=1e-12)


def test_errors_name_the_argument(regression):
    X, y = regression
    with pytest.raises(ValueError, match="loss must be one of"):
        resample(DummyRegressor(), LinearRegression(), X, y, n_test=5, loss="hinge")
    with pytest.raises(ValueError, match="loss must return one value per test instance"):
        instance_losses(lambda t, p: 0.0, np.zeros(3), np.zeros(3))
    with pytest.raises(ValueError, match="design must be one of"):
        design_splits("bootstrap", 10, n_test=2)
    with pytest.raises(ValueError, match="n_test is needed"):
        design_splits("subsampling", 10)
    with pytest.raises(ValueError, match="n_train \\+ n_test must be at most n"):
        design_splits("subsampling", 10, n_test=4, n_train=7)
    with pytest.raises(ValueError, match="n_test must leave a training set"):
        design_splits("half-splits", 10, n_test=5)
    with pytest.raises(ValueError, match="folds must be at most n"):
        design_splits("kfold", 3, folds=4)
    with pytest.raises(ValueError, match="names must be two different names"):
        resample(DummyRegressor(), LinearRegression(), X, y, n_test=5, names=("A", "A"))
    with pytest.raises(ValueError, match="X and y must hold the same instances"):
        evaluate(DummyRegressor(), LinearRegression(), X[:-1], y, given_splits(KFold(3), y))
    with pytest.raises(ValueError, match="cv gave no splits"):
        given_splits([], X)
