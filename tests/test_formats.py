"""Input formats (#11 item 1): every format loads into the same scores Dataset as its tidy equivalent, written out
independently here (same scores, same rho, same correlated t-test and Poisson test numbers), through Python and
the command line; bad input is named, and the command line's messages use its own spellings.

The scikit-learn outputs are real: ``cross_validate`` and ``GridSearchCV`` run on iris and wine (a few seconds).
"""
import json
import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from pp_corr import AssumptionWarning, MissingScoresWarning, correlated_ttest, example_path, load_scores, poisson_test
from pp_corr.cli import main

sklearn = pytest.importorskip("sklearn", reason="scikit-learn (the dev extra) builds the cross_validate outputs")
from sklearn.datasets import load_iris, load_wine  # noqa: E402
from sklearn.model_selection import (GridSearchCV, RepeatedStratifiedKFold, StratifiedKFold,  # noqa: E402
                                     cross_validate)
from sklearn.naive_bayes import GaussianNB  # noqa: E402
from sklearn.neighbors import KNeighborsClassifier  # noqa: E402
from sklearn.tree import DecisionTreeClassifier  # noqa: E402

PAIR = ("tree", "knn")


@pytest.fixture(scope="module")
def tidy():
    """The embedded example as a tidy DataFrame of text, as a CSV reader sees it."""
    return pd.read_csv(example_path(), dtype=str, keep_default_na=False)


def same_as(ds, reference, pair=PAIR):
    """``ds`` is ``reference``: identical scores and rho, and the same test numbers."""
    xr.testing.assert_identical(ds, reference)
    for result, expected in ((correlated_ttest(ds, algorithms=pair, rope=0.01),
                              correlated_ttest(reference, algorithms=pair, rope=0.01)),):
        for field in ("p_left", "p_rope", "p_right"):
            np.testing.assert_array_equal(getattr(result, field), getattr(expected, field))
    if ds.sizes["dataset"] > 1:
        got, want = (poisson_test(d, algorithms=pair, rope=0.01) for d in (ds, reference))
        assert (got.p_b_majority, got.p_a_majority, got.decision()) == (want.p_b_majority, want.p_a_majority,
                                                                        want.decision())


def wide_of(tidy, sizes=True):
    """The tidy example pivoted to one column per algorithm, rows in the tidy file's order."""
    index = ["dataset", "run", "fold"] + (["n_test", "n_train"] if sizes else [])
    wide = tidy.pivot(index=index, columns="algorithm", values="score").reset_index()
    wide.columns.name = None
    order = tidy.drop_duplicates(["dataset", "run", "fold"])[["dataset", "run", "fold"]]
    return order.merge(wide, on=["dataset", "run", "fold"])[index + list(tidy.algorithm.unique())]


# --- wide tables ------------------------------------------------------------------------------------------------

def test_wide_csv_equals_tidy(tidy, tmp_path):
    path = tmp_path / "wide.csv"
    wide_of(tidy).to_csv(path, index=False)
    same_as(load_scores(path), load_scores(example_path()))
    # the algorithms named explicitly, and a column that is no algorithm beside them
    wide_of(tidy).assign(note="x").to_csv(path, index=False)
    same_as(load_scores(path, algorithms=["tree", "knn"]),
            load_scores(example_path(), algorithms=["tree", "knn"]))
    with pytest.raises(ValueError, match="column 'note' holds no numbers.*algorithms="):
        load_scores(path)


def test_wide_frame_and_lower_is_better(tidy):
    errors = wide_of(tidy).assign(**{a: lambda f, a=a: 1 - f[a].astype(float) for a in tidy.algorithm.unique()})
    tidy_errors = tidy.assign(score=1 - tidy.score.astype(float))
    same_as(load_scores(errors, higher_is_better=False), load_scores(tidy_errors, higher_is_better=False))


def test_wide_without_run_and_fold_columns_is_split_by_runs(tidy):
    wide = wide_of(tidy, sizes=False).drop(columns=["run", "fold"])
    reference = load_scores(tidy.drop(columns=["n_test", "n_train"]))  # rho = 1/10 from the folds
    same_as(load_scores(wide, runs=10), reference)
    same_as(load_scores(wide, folds=10), reference)
    with pytest.warns(AssumptionWarning, match="one run of 100-fold.*runs="):
        one_run = load_scores(wide)
    np.testing.assert_allclose(one_run.rho, 1 / 100)


# --- one data set, one run --------------------------------------------------------------------------------------

def test_single_dataset_without_dataset_column(tidy, tmp_path):
    iris = tidy[tidy.dataset == "iris"]
    path = tmp_path / "iris.csv"
    iris.drop(columns="dataset").to_csv(path, index=False)
    same_as(load_scores(path), load_scores(iris))  # named after the file
    wide = wide_of(iris).drop(columns="dataset")
    same_as(load_scores(wide, datasets=["iris"]), load_scores(iris))
    assert list(load_scores(wide).dataset.values) == ["D1"]


def test_no_run_column_is_one_run(tidy, tmp_path):
    one = tidy[(tidy.dataset == "iris") & (tidy.run == "1")].drop(columns=["n_test", "n_train"])
    same_as(load_scores(one.drop(columns="run")), load_scores(one))
    with pytest.raises(ValueError, match="duplicate cell run 1, fold 1 .no run column"):
        load_scores(tidy.drop(columns="run"))  # ten runs whose folds repeat: not one run
    # folds numbered across runs in one column: 100 folds of one run, which is said
    across = tidy[tidy.dataset == "iris"].drop(columns=["n_test", "n_train", "run"])
    across = across.assign(fold=across.groupby("algorithm").cumcount() + 1)
    with pytest.warns(AssumptionWarning, match="one run of 100-fold"):
        load_scores(across)


# --- delimiters -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("delimiter", [";", "\t"])
def test_delimiter_detected(tidy, tmp_path, delimiter):
    path = tmp_path / "scores.csv"
    text = tidy if delimiter != ";" else tidy.assign(score=tidy.score.str.replace(".", ",", regex=False))
    text.to_csv(path, index=False, sep=delimiter)
    same_as(load_scores(path), load_scores(example_path()))
    same_as(load_scores(path, delimiter=delimiter), load_scores(example_path()))
    with pytest.raises(ValueError, match="delimiter="):
        load_scores(path, delimiter=",")


def test_semicolon_with_decimal_points_too(tidy, tmp_path):
    path = tmp_path / "scores.csv"
    tidy.to_csv(path, index=False, sep=";")
    same_as(load_scores(path), load_scores(example_path()))


# --- a pair where a third algorithm is missing ------------------------------------------------------------------

def test_pair_when_a_third_algorithm_is_missing(tidy, tmp_path):
    holes = tidy[~((tidy.algorithm == "logistic") & (tidy.dataset == "wine"))]
    with pytest.warns(MissingScoresWarning, match="logistic on wine: no scores$"):  # a missing cell, not an error
        load_scores(holes)
    reference = load_scores(example_path(), algorithms=list(PAIR))
    same_as(load_scores(holes, algorithms=list(PAIR)), reference)
    wide = wide_of(tidy)
    wide.loc[wide.dataset == "wine", "logistic"] = ""  # empty cells: no scores
    same_as(load_scores(wide, algorithms=list(PAIR)), reference)
    with pytest.raises(ValueError, match="algorithms= names \\['svm'\\]"):
        load_scores(holes, algorithms=["tree", "svm"])
    path = tmp_path / "holes.csv"
    holes.to_csv(path, index=False)
    main(["compare", str(path), "-a", "tree", "-b", "knn"])  # loads the pair only


# --- scikit-learn ------------------------------------------------------------------------------------------------

ESTIMATORS = {"tree": DecisionTreeClassifier(random_state=0), "nb": GaussianNB(), "knn": KNeighborsClassifier()}


@pytest.fixture(scope="module")
def cv_outputs():
    """cross_validate of three estimators on iris and wine, 2 repeats of stratified 5-fold, with the indices."""
    data = {"iris": load_iris(return_X_y=True), "wine": load_wine(return_X_y=True)}
    cv = RepeatedStratifiedKFold(n_splits=5, n_repeats=2, random_state=0)
    return {name: {algo: cross_validate(est, X, y, cv=cv, return_indices=True) for algo, est in ESTIMATORS.items()}
            for name, (X, y) in data.items()}


def cv_tidy(outputs):
    """The tidy table of nested cross_validate outputs written out by hand: split s is run s // 5 + 1, fold
    s % 5 + 1 (RepeatedStratifiedKFold's order), sizes from the indices."""
    rows = [{"dataset": d, "algorithm": a, "run": s // 5 + 1, "fold": s % 5 + 1, "score": result["test_score"][s],
             "n_test": len(result["indices"]["test"][s]), "n_train": len(result["indices"]["train"][s])}
            for d, by_algorithm in outputs.items() for a, result in by_algorithm.items() for s in range(10)]
    return pd.DataFrame(rows)


def test_cross_validate_equals_tidy(cv_outputs, tmp_path):
    reference = load_scores(cv_tidy(cv_outputs))
    nb_tree = ("nb", "tree")
    same_as(load_scores(cv_outputs), reference, nb_tree)
    iris = load_scores(cv_outputs["iris"], datasets=["iris"])
    same_as(iris, reference.sel(dataset=["iris"]), nb_tree)
    n = 150  # rho = n_test / n from the indices: 30 / 150
    np.testing.assert_allclose(iris.rho, 30 / n)
    # without the indices the runs and the rho are the user's: runs=2 (rho = 1/5, the same here)
    bare = {a: {"test_score": r["test_score"]} for a, r in cv_outputs["iris"].items()}
    same_as(load_scores(bare, runs=2, datasets=["iris"]),
            load_scores(cv_tidy({"iris": cv_outputs["iris"]}).drop(columns=["n_test", "n_train"])), nb_tree)
    with pytest.warns(AssumptionWarning):  # 10 splits: one run of 10 folds is the usual reading, said above 10
        load_scores({a: {"test_score": np.tile(r["test_score"], 2)} for a, r in bare.items()})
    # as a JSON file (the command line's form)
    path = tmp_path / "cv.json"
    path.write_text(json.dumps({d: {a: {"test_score": r["test_score"].tolist(),
                                        "indices": {k: [i.tolist() for i in r["indices"][k]] for k in ("train", "test")}}
                                    for a, r in by.items()} for d, by in cv_outputs.items()}))
    same_as(load_scores(path), reference, nb_tree)


def test_cross_validate_without_indices_is_never_a_silent_rho(cv_outputs):
    """5 folds x 2 repeats without return_indices=True: 10 splits, read as one run (rho 1/10, not 1/5), and said."""
    bare = {a: {"test_score": r["test_score"]} for a, r in cv_outputs["iris"].items()}
    with pytest.warns(AssumptionWarning, match=r"the 10 scores of each data set are one run of 10-fold .*pass "
                                               r"return_indices=True to cross_validate .*runs=r \(or folds=k"):
        np.testing.assert_allclose(load_scores(bare).rho, 0.1)
    with warnings.catch_warnings():  # the indices, or the runs, say it: no warning
        warnings.simplefilter("error")
        np.testing.assert_allclose(load_scores(cv_outputs["iris"]).rho, 0.2)
        np.testing.assert_allclose(load_scores(bare, runs=2).rho, 0.2)
        np.testing.assert_allclose(load_scores(bare, folds=5).rho, 0.2)


def test_cross_validate_refuses_different_splits(cv_outputs):
    X, y = load_iris(return_X_y=True)
    other = cross_validate(GaussianNB(), X, y, cv=StratifiedKFold(5, shuffle=True, random_state=1),
                           return_indices=True)
    tree = cross_validate(ESTIMATORS["tree"], X, y, cv=StratifiedKFold(5, shuffle=True, random_state=2),
                          return_indices=True)
    with pytest.raises(ValueError, match="'tree' and 'nb' were not cross-validated on the same splits"):
        load_scores({"tree": tree, "nb": other})
    multi = {a: {"test_accuracy": r["test_score"], "test_f1": r["test_score"]} for a, r in cv_outputs["iris"].items()}
    with pytest.raises(ValueError, match="several metrics.*scoring="):
        load_scores(multi, runs=2)
    xr.testing.assert_identical(load_scores(multi, runs=2, scoring="f1"), load_scores(multi, runs=2,
                                                                                   scoring="accuracy"))


@pytest.fixture(scope="module")
def search():
    X, y = load_wine(return_X_y=True)
    grid = {"n_neighbors": [1, 5, 15], "weights": ["uniform", "distance"]}
    return GridSearchCV(KNeighborsClassifier(), grid, cv=StratifiedKFold(5, shuffle=True, random_state=0)).fit(X, y)


def search_tidy(search):
    """The tidy table of a search by hand: candidate i's split<k>_test_score is its fold k + 1 of one run."""
    results = search.cv_results_
    rows = [{"dataset": "D1", "algorithm": ", ".join(f"{k}={v}" for k, v in params.items()), "run": 1, "fold": k + 1,
             "score": results[f"split{k}_test_score"][i]}
            for i, params in enumerate(results["params"]) for k in range(5)]
    return pd.DataFrame(rows)


def test_grid_search_equals_tidy(search, tmp_path):
    reference = load_scores(search_tidy(search))  # rho = 1/5: one run of 5-fold
    pair = ("n_neighbors=1, weights=uniform", "n_neighbors=15, weights=distance")
    same_as(load_scores(search), reference, pair)
    same_as(load_scores(search.cv_results_), reference, pair)
    path = tmp_path / "search.csv"
    pd.DataFrame(search.cv_results_).to_csv(path, index=False)
    same_as(load_scores(path, datasets=["D1"]), reference, pair)
    with pytest.warns(AssumptionWarning, match="one run of 5-fold .*give folds=k .*cv_results_ hold no split indices"):
        np.testing.assert_allclose(load_scores(search).rho, 1 / 5)  # right for cv=5; said, as 5 could be 5 x 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(load_scores(search, folds=5).rho, 1 / 5)
    with pytest.raises(ValueError, match="folds = 2 .*does not split"):
        load_scores(search, folds=2)
    with pytest.raises(ValueError, match="scoring='f1' is not among the metrics"):
        load_scores(search, scoring="f1")


# --- the command line -------------------------------------------------------------------------------------------

def cli_output(capsys, argv):
    assert main(argv) == 0
    return capsys.readouterr().out


def test_cli_per_format(capsys, tidy, cv_outputs, search, tmp_path):
    """Each format through ``pp-corr compare`` prints what the tidy equivalent prints."""
    tidy_path = tmp_path / "tidy.csv"
    tidy.to_csv(tidy_path, index=False)
    expected = cli_output(capsys, ["compare", str(tidy_path), "-a", "tree", "-b", "knn"])
    wide, semicolon = tmp_path / "wide.csv", tmp_path / "semicolon.csv"
    wide_of(tidy).to_csv(wide, index=False)
    tidy.assign(score=tidy.score.str.replace(".", ",", regex=False)).to_csv(semicolon, index=False, sep=";")
    for path, extra in ((wide, []), (wide, ["--format", "wide", "--algorithms", "tree,knn"]), (semicolon, []),
                        (semicolon, ["--delimiter", ";"])):
        assert cli_output(capsys, ["compare", str(path), "-a", "tree", "-b", "knn", *extra]) == expected
    one = tmp_path / "iris.csv"
    tidy[tidy.dataset == "iris"].drop(columns="dataset").to_csv(one, index=False)
    iris = tmp_path / "iris_tidy.csv"
    tidy[tidy.dataset == "iris"].to_csv(iris, index=False)
    assert cli_output(capsys, ["compare", str(one), "-a", "tree", "-b", "knn"]) == \
        cli_output(capsys, ["compare", str(iris), "-a", "tree", "-b", "knn"])

    cv_json, cv_csv = tmp_path / "cv.json", tmp_path / "cv.csv"
    cv_json.write_text(json.dumps({d: {a: {"test_score": r["test_score"].tolist(),
                                           "indices": {k: [i.tolist() for i in r["indices"][k]]
                                                       for k in ("train", "test")}}
                                       for a, r in by.items()} for d, by in cv_outputs.items()}))
    cv_tidy(cv_outputs).to_csv(cv_csv, index=False)
    assert cli_output(capsys, ["compare", str(cv_json), "-a", "nb", "-b", "tree"]) == \
        cli_output(capsys, ["compare", str(cv_csv), "-a", "nb", "-b", "tree"])

    grid_csv, grid_tidy = tmp_path / "search.csv", tmp_path / "search_tidy.csv"
    pd.DataFrame(search.cv_results_).to_csv(grid_csv, index=False)
    search_tidy(search).assign(dataset="search").to_csv(grid_tidy, index=False)
    pair = ["-a", "n_neighbors=1, weights=uniform", "-b", "n_neighbors=15, weights=distance"]
    assert cli_output(capsys, ["compare", str(grid_csv), *pair]) == cli_output(capsys, ["compare", str(grid_tidy),
                                                                                        *pair])


def test_cli_version(capsys):
    import pp_corr

    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0 and capsys.readouterr().out.strip() == f"pp-corr {pp_corr.__version__}"


@pytest.mark.parametrize("make,argv,words", [
    (lambda t: t.rename(columns={"score": "acc"}), ["--column", "algorithm=algorithm"],
     ["missing column(s) ['score']", "--column ROLE=NAME"]),
    (lambda t: t, ["--algorithms", "tree,svm"], ["--algorithms names ['svm']"]),
    (lambda t: t, ["-a", "tree", "-b", "svm"], ["-b 'svm' is not in"]),
    (lambda t: wide_of(t).assign(note="x"), [], ["column 'note' holds no numbers", "--algorithms"]),
    (lambda t: t[t.dataset == "iris"].drop(columns="run").assign(fold=lambda f: f.groupby("algorithm").cumcount()),
     ["--folds", "7"], ["--folds 7 contradicts", "--rho"]),
])
def test_cli_errors_use_cli_spellings(capsys, tidy, tmp_path, make, argv, words):
    path = tmp_path / "bad.csv"
    make(tidy).to_csv(path, index=False)
    with pytest.raises(SystemExit) as exit_:
        main(["compare", str(path), *argv])
    message = str(exit_.value.code)
    assert message.startswith("pp-corr: ") and "\n" not in message
    for word in words:
        assert word in message, message
    for python in ("columns=", "algorithms=", "runs=", "folds=", "rho="):
        assert python not in message, message


def test_cli_warning_uses_cli_spellings(capsys, tidy, tmp_path):
    path = tmp_path / "across.csv"
    across = tidy[tidy.dataset == "iris"].drop(columns=["n_test", "n_train", "run"])
    across.assign(fold=across.groupby("algorithm").cumcount() + 1).to_csv(path, index=False)
    main(["compare", str(path), "-a", "tree", "-b", "knn"])
    err = capsys.readouterr().err
    assert "one run of 100-fold" in err and "add a run column" in err and "--rho 1/k" in err and "runs=" not in err


# runs= where users expect it: the n scores of a data set are r repetitions of k-fold cross-validation, k = n / r


def _corrected_t_p_right(x, rho):
    """P(B better) under the matching prior, written out: 1 - p of the one-sided corrected t-test, computed here
    from the Nadeau-Bengio variance (1/n + rho/(1 - rho)) s^2 and scipy's Student-t."""
    from scipy import stats
    n = x.shape[-1]
    t = x.mean(-1) / np.sqrt((1 / n + rho / (1 - rho)) * x.var(-1, ddof=1))
    return stats.t.cdf(t, n - 1)


@pytest.mark.parametrize("runs, n", [(1, 10), (2, 10), (10, 100), (5, 15)])
def test_runs_gives_rho_runs_over_n(runs, n):
    from pp_corr import corrected_ttest
    x = np.random.default_rng(runs * n).normal(0.01, 0.03, (4, n))
    expected = _corrected_t_p_right(x, runs / n)
    np.testing.assert_allclose(correlated_ttest(x, runs=runs).p_right, expected, rtol=1e-10)
    np.testing.assert_allclose(poisson_test(x, runs=runs).per_dataset.p_right, expected, rtol=1e-10)
    one_sided = corrected_ttest(x, runs=runs, alternative="greater").pvalue
    np.testing.assert_allclose(1 - one_sided, expected, rtol=1e-10)


@pytest.mark.long
def test_runs_reaches_the_pymc_models():
    from pp_corr.hierarchical.model import hierarchical_model
    from pp_corr.pairwise.models import correlated_t_model
    x = np.random.default_rng(3).normal(0.01, 0.03, (4, 12))
    for build in (hierarchical_model, correlated_t_model):
        by_runs, by_rho = build(x, runs=3), build(x, rho=0.25)
        point = by_rho.initial_point()
        assert by_runs.compile_logp()(point) == pytest.approx(by_rho.compile_logp()(point), rel=1e-12)
        assert by_runs.compile_logp()(point) != pytest.approx(build(x, rho=0.1).compile_logp()(point), rel=1e-6)


@pytest.mark.parametrize("kwargs, error, words", [
    (dict(runs=3), ValueError, "runs=3 does not divide the 10 scores"),
    (dict(runs=10), ValueError, "runs=10 leaves one score per run"),
    (dict(runs=0), ValueError, "runs"),
    (dict(runs=1.5), (TypeError, ValueError), "runs"),
    (dict(runs=2, folds=5), ValueError, "give runs or folds, not both"),
    (dict(runs=2, rho=0.2), ValueError, "give exactly one of rho"),
])
def test_runs_errors_name_it(kwargs, error, words):
    x = np.random.default_rng(0).normal(0.01, 0.03, (3, 10))
    with pytest.raises(error, match=words):
        correlated_ttest(x, **kwargs)


def test_runs_with_a_scores_dataset_is_refused(tidy):
    from pp_corr import hierarchical_test
    scores = load_scores(tidy)
    for test in (correlated_ttest, hierarchical_test):
        with pytest.raises(ValueError, match="runs=2 is for arrays of scores"):
            test(scores, runs=2)
