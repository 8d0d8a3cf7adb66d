import numpy as np
import pandas as pd
import pytest

from pp_corr import correlated_ttest, load_scores


def tidy(datasets=("d1", "d2"), algorithms=("A", "B"), runs=2, folds=3, seed=0):
    rng = np.random.default_rng(seed)
    rows = [{"dataset": d, "algorithm": a, "run": r, "fold": f, "score": rng.uniform(0.7, 0.9)}
            for d in datasets for a in algorithms for r in range(1, runs + 1) for f in range(1, folds + 1)]
    return pd.DataFrame(rows)


def test_tidy_frame_to_dataset():
    ds = load_scores(tidy())
    assert ds.score.dims == ("dataset", "algorithm", "run", "fold")
    assert ds.score.shape == (2, 2, 2, 3)
    assert list(ds.dataset.values) == ["d1", "d2"] and list(ds.algorithm.values) == ["A", "B"]
    np.testing.assert_allclose(ds.rho, 1 / 3)


def test_csv_with_renamed_columns_and_n_test(tmp_path):
    frame = tidy().rename(columns={"score": "acc", "dataset": "data"})
    frame["n_test"], frame["n_train"] = 10, 40
    path = tmp_path / "s.csv"
    frame.to_csv(path, index=False)
    ds = load_scores(path, columns={"score": "acc", "dataset": "data"})
    np.testing.assert_allclose(ds.rho, 0.2)


def test_arrays_like_baycomp():
    rng = np.random.default_rng(1)
    a, b = rng.uniform(size=(2, 3, 20))
    ds = load_scores({"A": a, "B": b}, runs=2, datasets=["x", "y", "z"], rho={"x": 0.1, "y": 0.2, "z": 0.3})
    assert ds.score.shape == (3, 2, 2, 10)
    np.testing.assert_allclose(ds.rho, [0.1, 0.2, 0.3])
    res = correlated_ttest(ds)
    np.testing.assert_allclose(res.p_right, correlated_ttest(a, b, rho=np.array([0.1, 0.2, 0.3])).p_right)


def test_different_runs_per_dataset():
    frame = pd.concat([tidy(datasets=("d1",), runs=3), tidy(datasets=("d2",), runs=1, seed=1)])
    ds = load_scores(frame)
    assert ds.score.sizes["run"] == 3
    assert int(ds.score.sel(dataset="d2").notnull().sum()) == 2 * 3
    res = correlated_ttest(ds)
    assert res.stats.n.tolist() == [9, 3]
    d2 = frame[frame.dataset == "d2"].pivot_table(index=["run", "fold"], columns="algorithm", values="score")
    np.testing.assert_allclose(res.p_right[1], correlated_ttest(d2.A.values, d2.B.values, rho=1 / 3).p_right)


@pytest.mark.parametrize("mutate,message", [
    (lambda f: f.assign(score=f.score.where(f.index != 5, np.nan)), "'d1', algorithm 'A'.*NaN"),
    (lambda f: f.assign(score=f.score.where(f.index != 7, np.inf)), "'d1', algorithm 'B'.*inf"),
    (lambda f: f.assign(score=f.score.astype(object).where(f.index != 13, "n/a")), "'d2', algorithm 'A'.*non-numeric"),
    (lambda f: pd.concat([f, f.iloc[[3]]]), "'d1', algorithm 'A'.*duplicate"),
    (lambda f: f.drop(index=20), "'d2', algorithm 'B'.*missing cell run 1, fold 3"),
    (lambda f: f[~((f.dataset == "d2") & (f.algorithm == "B"))], "'d2', algorithm 'B'.*algorithm missing"),
    (lambda f: f[(f.run == 1) & (f.fold == 1)], "'d1'.*fewer than 2"),
    (lambda f: f.drop(columns="fold"), "missing column"),
])
def test_bad_input_names_dataset_and_algorithm(mutate, message):
    with pytest.raises(ValueError, match=message):
        load_scores(mutate(tidy()))


def test_bad_arguments():
    with pytest.raises(ValueError, match="runs=3"):
        load_scores({"A": np.zeros((2, 10)), "B": np.zeros((2, 10))}, runs=3)
    with pytest.raises(ValueError, match="no value for data set"):
        load_scores(tidy(), rho={"d1": 0.1})
    with pytest.raises(ValueError, match="unknown roles"):
        load_scores(tidy(), columns={"accuracy": "score"})
