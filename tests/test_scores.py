import warnings

import numpy as np
import pandas as pd
import pytest

import pp_corr
from pp_corr import (AssumptionWarning, MissingScoresWarning, bayesian_sign_test, compare_all_pairs, correlated_ttest,
                     example_path, load_scores, mean_differences, missing_cells, poisson_test, sign_test,
                     wilcoxon_test)
from pp_corr.testing import messy_benchmark


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
    (lambda f: f.assign(score=f.score.where(f.index != 7, np.inf)), "'d1', algorithm 'B'.*inf"),
    (lambda f: f.assign(score=f.score.astype(object).where(f.index != 13, "n/a")), "'d2', algorithm 'A'.*non-numeric"),
    (lambda f: pd.concat([f, f.iloc[[3]]]), "'d1', algorithm 'A'.*duplicate"),
    (lambda f: f.assign(score=f.score.where(f.dataset != "d2", np.nan)), "'d2'.*every score is missing"),
    (lambda f: f[(f.run == 1) & (f.fold == 1)], "'d1'.*fewer than 2"),
    (lambda f: f.drop(columns="fold"), "missing column"),
])
def test_bad_input_names_dataset_and_algorithm(mutate, message):
    with pytest.raises(ValueError, match=message):
        load_scores(mutate(tidy()))


# --- missing scores ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("mutate,cells", [
    (lambda f: f.assign(score=f.score.where(f.index != 5, np.nan)), [("d1", "A", 2, [3])]),  # run 2, fold 3
    (lambda f: f.drop(index=[20, 18]), [("d2", "B", 1, [1, 3])]),  # rows a tidy table lacks
    (lambda f: f[~((f.dataset == "d2") & (f.algorithm == "B"))], [("d2", "B", 1, "all"), ("d2", "B", 2, "all")]),
])
def test_missing_scores_are_nan_and_named_once(mutate, cells):
    with pytest.warns(MissingScoresWarning) as caught:
        ds = load_scores(mutate(tidy()))
    assert len(caught) == 1 and issubclass(MissingScoresWarning, AssumptionWarning)
    assert [tuple(row) for row in missing_cells(ds).itertuples(index=False)] == cells
    assert ds.score.shape == (2, 2, 2, 3) and int(ds.score.isnull().sum()) == sum(
        3 if folds == "all" else len(folds) for *_, folds in cells)
    complete = load_scores(tidy())  # every other score as it was
    present = ds.score.notnull()
    np.testing.assert_array_equal(ds.score.values[present.values], complete.score.values[present.values])
    np.testing.assert_array_equal(ds.rho, complete.rho)


def test_missing_cells_leave_the_design_alone():
    frame = pd.concat([tidy(datasets=("d1",), runs=3), tidy(datasets=("d2",), runs=1, seed=1)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert missing_cells(load_scores(frame)).empty  # d2's absent runs 2 and 3: not part of its design


def test_messy_benchmark_loads_with_one_warning_naming_the_failed_folds(tmp_path):
    path = tmp_path / "messy.csv"
    messy_benchmark(random_seed=1).to_csv(path, index=False, na_rep="NA")
    with pytest.warns(MissingScoresWarning) as caught:
        ds = load_scores(path)
    assert [str(w.message) for w in caught] == [
        "2 missing scores, kept as NaN: passive on dataset_02, run 1: folds 3, 7"]
    assert ds.score.shape == (80, 16, 1, 10) and ds.dataset.values[1] == "dataset_02"  # db: the data sets
    assert np.isnan(ds.score.sel(dataset="dataset_02", algorithm="passive", fold=[3, 7])).all()
    assert int(ds.score.isnull().sum()) == 2


@pytest.mark.parametrize("spelling", ["NA", "NaN", "nan", "", "-", " NA "])
def test_missing_spellings_in_wide_and_tidy_csv(tmp_path, spelling):
    wide = pd.DataFrame({"db": ["iris"] * 3 + ["wine"] * 3, "fold": [1, 2, 3] * 2,
                         "A": ["0.8", spelling, "0.7", "0.9", "0.85", "0.8"], "B": ["0.81", "0.9", "0.75"] * 2})
    path = tmp_path / "wide.csv"
    wide.to_csv(path, index=False)
    tidy_path = tmp_path / "tidy.csv"
    wide.melt(id_vars=["db", "fold"], var_name="algorithm", value_name="score").rename(
        columns={"db": "dataset"}).to_csv(tidy_path, index=False)
    for source in (path, tidy_path, pd.read_csv(path, dtype=str, keep_default_na=False)):
        with pytest.warns(MissingScoresWarning, match="1 missing score, kept as NaN: A on iris, run 1: fold 2$"):
            ds = load_scores(source)
        assert ds.dataset.values.tolist() == ["iris", "wine"] and int(ds.score.isnull().sum()) == 1


def test_na_values_adds_spellings(tmp_path):
    path = tmp_path / "s.csv"
    pd.DataFrame({"fold": [1, 2, 3], "A": ["0.8", "failed", "0.7"], "B": ["0.81", "0.9", "0.75"]}).to_csv(
        path, index=False)
    with pytest.raises(ValueError, match="non-numeric score 'failed'"):
        load_scores(path)
    with pytest.warns(MissingScoresWarning, match="A on s, run 1: fold 2"):
        load_scores(path, na_values=["failed"])
    with pytest.raises(TypeError, match="na_values must be a text or a list of texts"):
        load_scores(path, na_values=0)


def test_missing_scores_summarised_when_many():
    frame = messy_benchmark(3, 40, random_seed=0, failed=[("lr", i, (1, 2)) for i in range(30)])
    with pytest.warns(MissingScoresWarning) as caught:
        load_scores(frame)
    message = str(caught[0].message)
    assert message.startswith("60 missing scores, kept as NaN: lr on dataset_01, run 1: folds 1, 2; ")
    assert message.count(" on ") == 12 and message.endswith("; and 18 more (on 30 data sets in all)")


# --- the data-set column ----------------------------------------------------------------------------------------

def test_the_one_text_column_names_the_data_sets():
    frame = messy_benchmark(3, 4, random_seed=0, failed=())
    assert load_scores(frame).dataset.values.tolist() == [f"dataset_{i:02d}" for i in (1, 2, 3)] + [
        "molecular_biology_promoters_04"]
    assert load_scores(frame.drop(columns="fold")).sizes["dataset"] == 4  # rows in order, without a fold column
    tidy_frame = frame.melt(id_vars=["db", "fold"], var_name="algorithm", value_name="score")
    assert load_scores(tidy_frame).sizes["dataset"] == 4
    assert load_scores(frame, algorithms=["lr", "ridge"]).sizes["dataset"] == 4


def test_several_text_columns_are_named_in_the_error():
    frame = messy_benchmark(3, 4, random_seed=0, failed=()).assign(note="ok")
    with pytest.raises(ValueError, match=r"several text columns \['db', 'note'\] .*columns=\{\"dataset\": NAME\}"):
        load_scores(frame)
    assert load_scores(frame, columns={"dataset": "db"}, algorithms=["lr", "ridge"]).sizes["dataset"] == 4
    with pytest.raises(ValueError, match="datasets= names the data sets of a source without a dataset column"):
        load_scores(frame.drop(columns="note"), datasets=["x"])


# --- leaving algorithms and data sets out -----------------------------------------------------------------------

def test_exclude_algorithms_and_datasets():
    frame = messy_benchmark(16, 3, random_seed=0)
    with pytest.warns(MissingScoresWarning):
        load_scores(frame)
    ds = load_scores(frame, exclude_algorithms=["passive", "tree"], exclude_datasets=["dataset_03"])
    assert "passive" not in ds.algorithm.values and ds.sizes["algorithm"] == 14
    assert ds.dataset.values.tolist() == ["dataset_01", "dataset_02"]
    assert not ds.score.isnull().any()
    with pytest.raises(ValueError, match=r"exclude_datasets= names \['iris'\], not in the scores"):
        load_scores(frame, exclude_datasets=["dataset_01", "iris"])
    with pytest.raises(TypeError, match="exclude_algorithms must be a list of names"):
        load_scores(frame, exclude_algorithms="passive")


def test_bad_arguments():
    with pytest.raises(ValueError, match="runs=3"):
        load_scores({"A": np.zeros((2, 10)), "B": np.zeros((2, 10))}, runs=3)
    with pytest.raises(ValueError, match="no value for data set"):
        load_scores(tidy(), rho={"d1": 0.1})
    with pytest.raises(ValueError, match="unknown roles"):
        load_scores(tidy(), columns={"accuracy": "score"})


# --- loading scores at the edges ---------------------------------------------------------------------------

import csv  # noqa: E402
import json
import math
import sys
import tempfile
import textwrap
from fractions import Fraction
from pathlib import Path

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from scipy import stats

from pp_corr.data import scores as scores_module  # noqa: E402
from pp_corr.data.scores import differences, pick_algorithms  # noqa: E402
from pp_corr.cli import main
from tests.conftest import (run_limited, ERRORS, INF, NAN, assert_close, assert_probability, campaign, check_error,
                            cli_error, error_or_warning, names_any, quiet, scores_frame)

HEADER = "dataset,algorithm,run,fold,score"


def write(path, lines, encoding="utf-8"):
    path.write_bytes(("\n".join(lines) + "\n").encode(encoding))
    return path


def no_warnings(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return fn()


@pytest.mark.parametrize("runs,error,message", [(0, ValueError, "runs must be >= 1"),
                                                (-2, ValueError, "runs must be >= 1"),
                                                (2.5, TypeError, "runs must be a whole number")])
def test_runs_must_be_a_whole_number_at_least_one(runs, error, message):
    with pytest.raises(error, match=message):  # runs=0 used to divide by zero
        load_scores({"A": np.zeros((2, 10)), "B": np.ones((2, 10))}, runs=runs)


def test_names_are_read_as_text_exactly_as_written(tmp_path):
    names = ["NA", "None", "001", "1", "1.0", "null"]
    rng = np.random.default_rng(2)
    lines = [HEADER] + [f"{d},{a},1,{f},{rng.uniform(0.5, 1):.6f}" for d in names for a in ("NA", "nan")
                        for f in (1, 2, 3)]
    path = write(tmp_path / "names.csv", lines)
    ds = no_warnings(lambda: load_scores(path))
    assert list(ds.dataset.values) == names and list(ds.algorithm.values) == ["NA", "nan"]
    with open(path, newline="") as handle:  # oracle: the csv module, every field as text
        rows = list(csv.DictReader(handle))
    for d in names:
        for a in ("NA", "nan"):
            expected = sorted(float(r["score"]) for r in rows if r["dataset"] == d and r["algorithm"] == a)
            got = ds.score.sel(dataset=d, algorithm=a).values
            np.testing.assert_array_equal(np.sort(got[~np.isnan(got)]), expected)


def test_empty_name_is_an_error_naming_line_and_column(tmp_path):
    path = write(tmp_path / "s.csv", [HEADER, "d1,A,1,1,0.5", "d1,B,1,1,0.6", "d1,,1,2,0.7", "d1,B,1,2,0.8"])
    with pytest.raises(ValueError, match="empty or missing algorithm name at line 4 of .*s.csv.*'algorithm'"):
        load_scores(path)
    frame = tidy()
    frame.loc[4, "dataset"] = None
    with pytest.raises(ValueError, match="empty or missing dataset name at row 4.*keep_default_na"):
        load_scores(frame)


def test_run_and_fold_labels_are_not_merged(tmp_path):
    # "1" and "1.0" are two fold labels (and two runs): six cells per algorithm, none merged as duplicates
    cells = [(r, f) for r in ("1", "1.0") for f in ("1", "1.0", "x")]
    lines = [HEADER] + [f"d,{a},{r},{f},{0.1 * i + (a == 'B') * 0.01:.2f}"
                        for a in "AB" for i, (r, f) in enumerate(cells)]
    ds = load_scores(write(tmp_path / "labels.csv", lines))
    assert ds.score.shape == (1, 2, 2, 3)
    np.testing.assert_allclose(np.sort(differences(ds, "A", "B").values.ravel()), np.full(6, 0.01))


def test_text_n_test_names_column_and_dataset(tmp_path):
    frame = tidy()
    frame["n_test"], frame["n_train"] = 10, 40
    frame["n_test"] = frame["n_test"].astype(object)
    frame.loc[frame.dataset == "d2", "n_test"] = "ten"
    with pytest.raises(ValueError, match="data set 'd2', algorithm 'A': n_test is 'ten', not a positive number"):
        load_scores(frame)
    frame.to_csv(tmp_path / "s.csv", index=False)
    with pytest.raises(ValueError, match="'d2'.*n_test is 'ten'.*line 14 of"):
        load_scores(tmp_path / "s.csv")


def test_non_utf8_file_names_the_file_and_the_encoding(tmp_path):
    lines = [HEADER] + [f"caf\u00e9,{a},1,{f},0.{f}{i}" for i, a in enumerate("AB") for f in (1, 2)]
    path = write(tmp_path / "latin.csv", lines, encoding="latin-1")
    with pytest.raises(ValueError, match="latin.csv.*not utf-8.*encoding="):
        load_scores(path)
    assert list(load_scores(path, encoding="latin-1").dataset.values) == ["caf\u00e9"]


def test_missing_file_and_directory_name_the_path(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.csv"):
        load_scores(tmp_path / "nope.csv")
    with pytest.raises(IsADirectoryError, match=str(tmp_path.name)):
        load_scores(tmp_path)
    with pytest.raises(ValueError, match="empty.csv.*is empty"):
        load_scores(write(tmp_path / "empty.csv", []))


@pytest.mark.parametrize("make", [
    lambda tmp: {},
    lambda tmp: {"A": np.zeros((0, 10)), "B": np.zeros((0, 10))},
    lambda tmp: {"A": np.zeros((3, 0)), "B": np.zeros((3, 0))},
    lambda tmp: write(tmp / "header_only.csv", [HEADER]),
    lambda tmp: pd.DataFrame(),
    lambda tmp: tidy().iloc[:0],
])
def test_zero_data_sets_is_an_error(make, tmp_path):
    with pytest.raises(ValueError, match="no algorithms|no scores"):
        load_scores(make(tmp_path))


def test_one_algorithm_cannot_be_compared():
    ds = load_scores(tidy(algorithms=("A",)))
    for fn in (lambda: pick_algorithms(ds), lambda: pick_algorithms(ds, ("A", "B")),
               lambda: differences(ds, "A", "A"), lambda: correlated_ttest(ds)):
        with pytest.raises(ValueError, match=r"1 algorithm\(s\) \['A'\]: nothing to compare"):
            fn()


def test_same_algorithm_twice_is_an_error():
    ds = load_scores(tidy())
    for fn in (lambda: pick_algorithms(ds, ("B", "B")), lambda: differences(ds, "B", "B"),
               lambda: correlated_ttest(ds, algorithms=("B", "B"))):
        with pytest.raises(ValueError, match="both algorithm 'B'"):
            fn()
    with pytest.raises(ValueError, match="pair of names"):
        pick_algorithms(ds, "AB")  # a string is not a pair of names
    with pytest.raises(ValueError, match="b='C' is not in the scores"):
        pick_algorithms(ds, ("A", "C"))


def test_percentages_warn_that_ropes_are_in_points():
    frame = tidy()
    with pytest.warns(AssumptionWarning, match="percentages.*rope=0.01 means 0.01 percentage points"):
        load_scores(frame.assign(score=100 * frame.score))
    no_warnings(lambda: load_scores(frame))  # proportions
    no_warnings(lambda: load_scores(frame.assign(score=frame.score - 0.5)))  # signed scores are no percentages
    no_warnings(lambda: load_scores(frame.assign(score=frame.score + 100)))  # above 100


def test_arrays_without_runs_warn_that_one_run_was_assumed():
    rng = np.random.default_rng(3)
    a, b = rng.uniform(0.7, 0.9, size=(2, 2, 100))
    with pytest.warns(AssumptionWarning, match="one run of 100-fold.*rho = 1/100.*runs="):
        ds = load_scores({"A": a, "B": b})
    np.testing.assert_allclose(ds.rho, 1 / 100)
    for kwargs in ({"runs": 10}, {"rho": 0.1}, {"folds": 10}, {"n_test": 10, "n_train": 90}):
        no_warnings(lambda: load_scores({"A": a, "B": b}, **kwargs))
    no_warnings(lambda: load_scores({"A": a[:, :10], "B": b[:, :10]}))  # one run of 10 folds: the usual reading


def test_labelled_folds_without_runs_warn_with_advice_that_works():
    """A tidy table with folds 1..100 and no run column cannot be split by runs=: the warning says what can be
    done (a run column, or rho), each way it offers gives rho = 1/10 without a warning, and runs= is refused."""
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"dataset": "d", "algorithm": np.repeat(["A", "B"], 100),
                          "fold": np.tile(np.arange(1, 101), 2), "score": rng.uniform(0.7, 0.9, 200)})
    with pytest.warns(AssumptionWarning, match="one run of 100-fold.*add a run column.*rho=1/k") as caught:
        load_scores(frame)
    assert "give runs=" not in str(caught[0].message)
    with_runs = frame.assign(run=(frame.fold - 1) // 10 + 1, fold=(frame.fold - 1) % 10 + 1)
    for ds in (no_warnings(lambda: load_scores(frame, rho=0.1)), no_warnings(lambda: load_scores(with_runs))):
        np.testing.assert_allclose(ds.rho, 0.1)
    with pytest.raises(ValueError, match="runs=10 contradicts the data"):
        load_scores(frame, runs=10)


def test_a_table_with_an_algorithm_column_but_no_score_column_names_the_score_column(tmp_path):
    path = tmp_path / "scores.csv"
    pd.DataFrame({"dataset": ["d"] * 4, "algorithm": ["A", "B"] * 2, "fold": [1, 1, 2, 2],
                  "accuracy": [0.8, 0.7, 0.9, 0.8]}).to_csv(path, index=False)
    with pytest.raises(ValueError, match=r"missing column\(s\) \['score'\].*columns="):
        load_scores(path)
    assert load_scores(path, columns={"score": "accuracy"}).score.sizes["algorithm"] == 2


def test_folds_split_arrays_into_runs():
    rng = np.random.default_rng(4)
    a, b = rng.uniform(0.7, 0.9, size=(2, 3, 100))
    by_folds, by_runs = load_scores({"A": a, "B": b}, folds=10), load_scores({"A": a, "B": b}, runs=10)
    assert by_folds.score.shape == (3, 2, 10, 10)
    xr_equal = by_folds.score.equals(by_runs.score) and by_folds.rho.equals(by_runs.rho)
    assert xr_equal and np.allclose(by_folds.rho, 0.1)
    np.testing.assert_array_equal(by_folds.score.sel(algorithm="B").values.reshape(3, 100), b)
    with pytest.raises(ValueError, match="folds = 7.*does not split its 100 scores"):
        load_scores({"A": a, "B": b}, folds=7)


@pytest.mark.parametrize("source,kwargs,message", [
    (lambda: tidy(runs=2, folds=3), {"folds": 6},
     "folds=6 contradicts the data: data set 'd1' holds 2 runs x 3 folds"),
    (lambda: tidy(runs=2, folds=3), {"folds": {"d1": 3, "d2": 2}}, "folds=2 contradicts.*'d2'"),
    (lambda: tidy(runs=2, folds=3), {"runs": 3}, "runs=3 contradicts the data: data set 'd1' holds 2 runs x 3 folds"),
    (lambda: tidy(runs=1, folds=3), {"runs": 2}, "runs=2 contradicts the data: data set 'd1' holds 1 run x 3 folds"),
    (lambda: {"A": np.zeros((1, 100)), "B": np.ones((1, 100))}, {"runs": 10, "folds": 100},
     "folds=100 contradicts the data: data set 'D1' holds 10 runs x 10 folds"),
])
def test_design_arguments_that_contradict_the_data_are_errors(source, kwargs, message):
    with pytest.raises(ValueError, match=message):
        load_scores(source(), **kwargs)


def test_lower_is_better_scores_are_negated_once():
    accuracy = tidy()
    error = accuracy.assign(score=1 - accuracy.score)
    kept = error.copy()
    ds = load_scores(error, higher_is_better=False)
    pd.testing.assert_frame_equal(error, kept)  # the caller's frame is untouched
    assert ds.attrs["higher_is_better"] is False and "negated" in ds.attrs["score_sense"]
    assert load_scores(accuracy).attrs["higher_is_better"] is True
    # B better = lower error: the same differences as the accuracies 1 - error
    np.testing.assert_allclose(differences(ds, "A", "B"), differences(load_scores(accuracy), "A", "B"), atol=1e-12)
    np.testing.assert_allclose(correlated_ttest(ds).p_right, correlated_ttest(load_scores(accuracy)).p_right)
    with pytest.raises(TypeError, match="higher_is_better"):
        load_scores(error, higher_is_better="lower")


def canonical(q, runs, folds, seed, algorithms=("A", "B", "C")):
    """Rows of a design with data set d holding runs[d] runs of folds[d] folds, labels 1..k."""
    rng = np.random.default_rng(seed)
    rows = [(d, a, r, f) for d in range(q) for a in algorithms for r in range(1, runs[d] + 1)
            for f in range(1, folds[d] + 1)]
    frame = pd.DataFrame(rows, columns=["d", "algorithm", "r", "f"])
    return frame.assign(score=rng.uniform(0, 1, len(frame)).round(6))


RUN_LABELS = {"plain": lambda d, r, f: r, "across_datasets": lambda d, r, f: 100 * d + r,
              "text": lambda d, r, f: f"run-{r}"}
FOLD_LABELS = {"plain": lambda d, r, f: f, "across_datasets": lambda d, r, f: 1000 * d + f,
               "across_runs": lambda d, r, f: 100 * r + f, "text": lambda d, r, f: f"fold-{f}"}


@pytest.mark.long
@settings(max_examples=40, deadline=None)
@given(st.integers(1, 3).flatmap(lambda q: st.tuples(st.lists(st.integers(1, 3), min_size=q, max_size=q),
                                                     st.lists(st.integers(2, 4), min_size=q, max_size=q))),
       st.sampled_from(sorted(RUN_LABELS)), st.sampled_from(sorted(FOLD_LABELS)), st.integers(0, 2**16))
def test_runs_and_folds_are_matched_by_label_within_each_data_set(design, run_scheme, fold_scheme, seed):
    runs, folds = design
    base = canonical(len(runs), runs, folds, seed)
    frame = pd.DataFrame({
        "dataset": "set" + base.d.astype(str), "algorithm": base.algorithm,
        "run": [RUN_LABELS[run_scheme](d, r, f) for d, r, f in zip(base.d, base.r, base.f)],
        "fold": [FOLD_LABELS[fold_scheme](d, r, f) for d, r, f in zip(base.d, base.r, base.f)],
        "score": base.score}).sample(frac=1, random_state=seed)  # rows in any order
    ds = load_scores(frame)
    assert ds.score.sizes == {"dataset": len(runs), "algorithm": 3, "run": max(runs), "fold": max(folds)}
    np.testing.assert_allclose(ds.rho.sel(dataset=[f"set{d}" for d in range(len(runs))]), 1 / np.array(folds))
    # oracle: pandas pivot of the canonical rows, B - A per (data set, run, fold)
    pivot = base.pivot_table(index=["d", "r", "f"], columns="algorithm", values="score")
    for d in range(len(runs)):
        expected = (pivot.B - pivot.A).loc[d].to_numpy()
        got = differences(ds, "A", "B").sel(dataset=f"set{d}").values
        assert np.isnan(got).sum() == got.size - runs[d] * folds[d]
        if "text" in (run_scheme, fold_scheme):  # labels in order of first appearance: compare as sets
            got, expected = np.sort(got[~np.isnan(got)]), np.sort(expected)
        else:  # numeric labels keep their order: cell by cell
            got = got[:runs[d], :folds[d]].ravel()
        np.testing.assert_array_equal(got, expected)


def test_folds_numbered_across_runs_with_a_short_run_name_it():
    base = canonical(1, [3], [4], 0)
    frame = pd.DataFrame({"dataset": "x", "algorithm": base.algorithm, "run": base.r, "fold": 10 * base.r + base.f,
                          "score": base.score})
    with pytest.raises(ValueError, match="data set 'x': run 2 has 3 folds where another run has 4"):
        load_scores(frame[frame.fold != 24])
    with pytest.warns(MissingScoresWarning, match="B on x, run 2: fold 4$"):  # fold 24: the 4th of run 2
        load_scores(frame[(frame.fold != 24) | (frame.algorithm != "B")])
    kept = load_scores(frame[(frame.fold != 24) | (frame.algorithm != "B")], algorithms=["A", "C"])
    assert kept.algorithm.values.tolist() == ["A", "C"]


def test_fold_labels_across_data_sets_do_not_grow_the_grid(tmp_path):
    q, folds = 300, 20  # labels 1..6000: a grid over every label would hold 300 x 2 x 6000 cells
    base = canonical(q, [1] * q, [folds] * q, 5, algorithms=("A", "B"))
    frame = pd.DataFrame({"dataset": base.d, "algorithm": base.algorithm, "run": 1,
                          "fold": base.d * folds + base.f, "score": base.score})
    frame.to_csv(tmp_path / "s.csv", index=False)
    ds = load_scores(tmp_path / "s.csv")
    assert ds.score.shape == (q, 2, 1, folds) and int(ds.score.notnull().sum()) == len(frame)


def test_absurd_grid_is_refused(monkeypatch):
    monkeypatch.setattr(scores_module, "MAX_GRID_CELLS", 1000)
    # one data set with 1 run of 200 folds, one with 200 runs of 2 folds: 2 x 2 x 200 x 200 cells for 1,200 rows
    frame = pd.concat([tidy(datasets=("wide",), runs=1, folds=200), tidy(datasets=("tall",), runs=200, folds=2)])
    with pytest.raises(ValueError, match="grid would hold 160,000 cells for 1,200 scores.*'tall' has 200 runs"):
        load_scores(frame)
    monkeypatch.setattr(scores_module, "MAX_GRID_CELLS", 10**8)
    assert load_scores(frame).score.shape == (2, 2, 200, 200)


def test_runs_numbered_across_data_sets_keep_ragged_designs():
    frame = pd.concat([tidy(datasets=("d1",), runs=3), tidy(datasets=("d2",), runs=1, seed=1).assign(run=7)])
    ds = load_scores(frame)
    assert ds.score.sizes["run"] == 3
    assert ds.score.sel(dataset="d2").notnull().sum("fold").values.tolist() == [[3, 0, 0], [3, 0, 0]]
    np.testing.assert_array_equal(ds.score.sel(dataset="d2", run=1).values,
                                  frame[frame.dataset == "d2"].pivot(index="algorithm", columns="fold",
                                                                     values="score").loc[["A", "B"]].values)


def test_uci54_matches_a_pivot_of_the_file(uci54):
    raw = pd.read_csv(scores_module.Path(__file__).resolve().parents[2] / "shared" / "data" / "uci54" /
                      "uci54_tidy.csv")
    pivot = raw.set_index(["dataset", "algorithm", "run", "fold"]).accuracy.to_xarray()
    assert sorted(uci54.dataset.values) == sorted(pivot.dataset.values)
    np.testing.assert_array_equal(uci54.score.values, pivot.sel(dataset=uci54.dataset, algorithm=uci54.algorithm,
                                                                run=uci54.run, fold=uci54.fold).values)


# --- scores in percent, given as arrays ---------------------------------------------------------------------------

@pytest.mark.parametrize("test", [
    lambda a, b, rope: pp_corr.poisson_test(a, b, rope=rope, folds=10),
    lambda a, b, rope: pp_corr.correlated_ttest(a[0], b[0], rope=rope, folds=10),
    lambda a, b, rope: pp_corr.bayesian_signed_rank(a.mean(axis=1), b.mean(axis=1), rope=rope, draws=100),
    lambda a, b, rope: pp_corr.bayesian_sign_test(a.mean(axis=1), b.mean(axis=1), rope=rope, draws=100),
])
def test_percent_scores_as_arrays_with_a_rope_for_fractions_are_warned(test):
    rng = np.random.default_rng(0)
    a = rng.uniform(70, 90, (6, 10))
    b = a + rng.normal(1, 1, a.shape)
    with pytest.warns(AssumptionWarning, match=r"look like percentages \(all in \[0, 100\], the largest \d.*rope=0.01 "
                                               "is 0.01 percentage points"):
        test(a, b, 0.01)
    with warnings.catch_warnings():  # a rope in points, or scores in [0, 1]: nothing to say
        warnings.simplefilter("error", AssumptionWarning)
        test(a, b, 1)
        test(a / 100, b / 100, 0.01)


# --- bad and extreme inputs: refused by name, or the documented answer (issue #10) ----------------------------------


def decimal_sum(values) -> Fraction:
    """The exact sum of the values as written in decimal (the data's own resolution: 0.85 is 85/100)."""
    return sum((Fraction(repr(float(v))) for v in np.ravel(values)), Fraction(0))


TRICKY_NAMES = ["NA", "None", "null", "nan", "NaN", "N/A", "001", "1", "1.0", "01", "true", "0", "-", "a b", "é",
                "x,y", "#1", "n/a"]


LOAD_BAD = ([({"runs": v}, ("runs",)) for v in [0, -1, 2.5, INF, NAN, "2", 3]]
            + [({"folds": v}, ("folds",)) for v in [INF, NAN, 0, 1, -2, 2.5, 7]]
            + [({"n_test": 10, "n_train": v}, ("n_train",)) for v in [INF, NAN, -5]]
            + [({"n_test": v, "n_train": 90}, ("n_test",)) for v in [INF, NAN, -1]]
            + [({"rho": v}, ("rho",)) for v in [NAN, INF, 1.0]]
            + [({"rho": {"nowhere": 0.1}}, ("nowhere", "rho")), ({"datasets": ["d1"]}, ("datasets",)),
               ({"datasets": ["d1", "d1"]}, ("datasets", "d1"))])


class TestDifferences:
    @pytest.mark.long
    @campaign(120)
    @given(data=st.data(), q=st.integers(1, 6), n=st.integers(2, 12), resolution=st.sampled_from([30, 100, 1000]))
    def test_a_tie_stays_zero(self, data, q, n, resolution):
        """Fold scores on a resolution grid; B repeats A's scores in another order on some data sets (an exact tie):
        the mean difference is exactly 0 there and has the sign of the exact difference elsewhere."""
        a = np.array(data.draw(st.lists(st.lists(st.integers(0, resolution), min_size=n, max_size=n),
                                        min_size=q, max_size=q))) / resolution
        b = a.copy()
        for i in range(q):
            if data.draw(st.booleans(), label=f"tie on data set {i}"):
                b[i] = data.draw(st.permutations(list(a[i])))
            else:
                b[i] = np.array(data.draw(st.lists(st.integers(0, resolution), min_size=n, max_size=n))) / resolution
        exact = np.array([decimal_sum(b[i]) - decimal_sum(a[i]) for i in range(q)])
        # the sign of the difference of the grid values (integers / resolution): the floats' own sums may differ by a
        # rounding residue when the grid sums are equal (1/30 + 9/30 against 10/30), and that is a tie too
        grid = np.rint(b * resolution).astype(int).sum(axis=1) - np.rint(a * resolution).astype(int).sum(axis=1)
        sign = np.sign(grid)
        z, names, datasets = mean_differences(a, b)
        np.testing.assert_array_equal(np.sign(z), sign, err_msg=f"mean differences {z!r}, exact signs {sign}")
        ds = quiet(load_scores, {"A": a, "B": b}, runs=1)
        z_ds = mean_differences(ds, algorithms=("A", "B"))[0]
        np.testing.assert_array_equal(np.sign(z_ds), sign, err_msg=f"Dataset path: {z_ds!r}")
        assert_close(z, [float(d) / n for d in exact], "mean differences", rtol=1e-12, atol=1e-15)

    def test_regression_rank_ties_uci54_j48_j48gr(self, uci54):
        """uci54 j48 vs j48gr, rope 0: exact ties stay 0, so the sign test's P(j48gr better) is 28 / 55 = 0.509."""
        a = uci54.score.sel(algorithm="j48").values
        b = uci54.score.sel(algorithm="j48gr").values
        exact = [decimal_sum(b[i][np.isfinite(b[i])]) - decimal_sum(a[i][np.isfinite(a[i])]) for i in range(a.shape[0])]
        ties, wins = sum(d == 0 for d in exact), sum(d > 0 for d in exact)
        z = mean_differences(uci54, algorithms=("j48", "j48gr"))[0]
        assert int((z == 0).sum()) == ties and int((z > 0).sum()) == wins
        q = len(z)
        res = bayesian_sign_test(uci54, algorithms=("j48", "j48gr"), rope=0, random_seed=0)
        expected = wins / (q + 1)  # prior 1 at z0 = 0, in the rope
        se = math.sqrt(expected * (1 - expected) / (q + 2) / 50000)
        assert abs(res.p_right - expected) < 4 * se, (res.p_right, expected)
        assert round(expected, 3) == 0.509
        freq = sign_test(uci54, algorithms=("j48", "j48gr"), alternative="greater")
        assert_close(freq.pvalue, stats.binomtest(wins, q - ties, alternative="greater").pvalue, "sign test",
                     rtol=1e-12)
        # the 15 exact ties reach Wilcoxon as zeros (and so compare_all_pairs): an answer, that of scipy on exact z
        counts = np.isfinite(a).reshape(q, -1).sum(axis=1)
        z_exact = np.array([float(d / int(n)) for d, n in zip(exact, counts)])
        wil = wilcoxon_test(uci54, algorithms=("j48", "j48gr"), alternative="greater")
        assert_close(wil.pvalue, stats.wilcoxon(z_exact, alternative="greater").pvalue, "wilcoxon with ties", rtol=0,
                     atol=0.01)
        table = quiet(compare_all_pairs, uci54.sel(algorithm=["j48", "j48gr"]), rope=0.0, draws=1000, random_seed=0)
        off = ~np.eye(2, dtype=bool)
        for var in ("p_b_majority", "wilcoxon_pvalue", "signed_rank_right", "sign_right"):
            assert_probability(var, table[var].values[off])

    @campaign(40)
    @given(case=st.sampled_from(["unknown a", "unknown b", "a == b", "text names"]))
    def test_differences_refuses_bad_names(self, case):
        ds = quiet(load_scores, example_path())
        a, b = {"unknown a": ("nope", "knn"), "unknown b": ("knn", "nope"), "a == b": ("knn", "knn"),
                "text names": (3, "knn")}[case]
        names = {"a == b": ("knn", "a", "b"), "text names": ("a", "3")}.get(case, ("nope",))
        check_error(lambda: differences(ds, a, b), names)
        if case != "text names":
            check_error(lambda: mean_differences(ds, algorithms=(a, b)), names + ("algorithms",))

    @campaign(30)
    @given(case=st.sampled_from(["y nan", "x nan", "shape", "3-D", "empty"]))
    def test_mean_differences_refuses_bad_input(self, case):
        x = np.array([[0.8, 0.9], [0.7, 0.6]])
        args, names = {"y nan": ((x, np.array([[0.8, NAN], [0.7, 0.6]])), ("y",)),
                       "x nan": ((np.array([[0.8, NAN], [0.7, 0.6]]), x), ("x",)),
                       "shape": ((x, x[:, :1]), ("x", "y")),
                       "3-D": ((np.zeros((2, 2, 2, 2)),), ("x",)),
                       "empty": ((np.empty((0, 3)),), ("x", "data set", "data sets", "empty"))}[case]
        check_error(lambda: mean_differences(*args), names)


class TestLoadScoresEdges:
    @pytest.mark.long
    @campaign(60)
    @given(data=st.data(), runs=st.integers(1, 2), folds=st.integers(2, 4), as_csv=st.booleans())
    def test_load_scores_reads_names_as_text(self, data, runs, folds, as_csv):
        datasets = data.draw(st.lists(st.sampled_from(TRICKY_NAMES), min_size=1, max_size=3, unique=True))
        algorithms = data.draw(st.lists(st.sampled_from(TRICKY_NAMES), min_size=2, max_size=3, unique=True))
        frame = scores_frame(np.random.default_rng(len(datasets) * 7 + folds), datasets, algorithms, runs, folds)
        frame["dataset"] = frame["dataset"].astype(object)
        frame["algorithm"] = frame["algorithm"].astype(object)
        with tempfile.TemporaryDirectory() as tmp:
            source = frame
            if as_csv:
                source = Path(tmp) / "scores.csv"
                frame.to_csv(source, index=False)
            ds = quiet(load_scores, source)
        assert sorted(map(str, ds.dataset.values)) == sorted(datasets)
        assert sorted(map(str, ds.algorithm.values)) == sorted(algorithms)
        for (d, a), group in frame.groupby(["dataset", "algorithm"]):
            values = ds.score.sel(dataset=d, algorithm=a).values.ravel()
            assert sorted(values[np.isfinite(values)]) == sorted(group.score), f"scores of {d!r}, {a!r}"
        assert_close(ds.rho.values, np.full(len(datasets), 1 / folds), "rho = 1 / folds")

    @campaign(60)
    @given(case=st.sampled_from(LOAD_BAD))
    def test_load_scores_refuses_bad_arguments(self, case):
        kwargs, names = case
        rng = np.random.default_rng(0)
        source = {"A": rng.uniform(0.7, 0.9, (2, 4)), "B": rng.uniform(0.7, 0.9, (2, 4))}
        kwargs = {"runs": 2, **kwargs} if "runs" not in kwargs else kwargs
        check_error(lambda: load_scores(source, **kwargs), names)

    @campaign(20)
    @given(case=st.sampled_from(["shapes differ", "text values", "one algorithm", "empty"]))
    def test_load_scores_refuses_bad_arrays(self, case):
        rng = np.random.default_rng(0)
        source, names = {"shapes differ": ({"A": rng.random((2, 4)), "B": rng.random((3, 4))}, ("A", "B")),
                         "text values": ({"A": [["x", "y"]], "B": [[0.5, 0.6]]}, ("A",)),
                         "one algorithm": ({"A": rng.random((2, 4))}, ("algorithm", "algorithms", "A")),
                         "empty": ({}, ("source", "algorithm", "algorithms", "empty"))}[case]
        if case == "one algorithm":  # loading one may be fine; comparing it must not be
            try:
                ds = quiet(load_scores, source, runs=1)
            except ERRORS as err:
                assert names_any(str(err), names), str(err)
                return
            check_error(lambda: correlated_ttest(ds), ("algorithm", "algorithms", "A"))
            return
        check_error(lambda: load_scores(source, runs=1), names)

    def test_regression_runs_zero(self):
        source = {"A": [[0.8, 0.9, 0.85, 0.7]], "B": [[0.82, 0.93, 0.9, 0.75]]}
        check_error(lambda: load_scores(source, runs=0), ("runs",))

    def test_regression_null_like_names(self, tmp_path):
        """NA, None and null are names (read as text); an empty name is refused clearly or kept as it is."""
        frame = scores_frame(np.random.default_rng(2), ["NA", "None", "null"], ["NA", "B"], 1, 3)
        path = tmp_path / "names.csv"
        frame.to_csv(path, index=False)
        ds = quiet(load_scores, path)
        assert sorted(map(str, ds.dataset.values)) == ["NA", "None", "null"]
        assert sorted(map(str, ds.algorithm.values)) == ["B", "NA"]
        empty = frame.copy()
        empty.loc[empty.dataset == "null", "dataset"] = ""
        empty.to_csv(path, index=False)
        try:
            ds = quiet(load_scores, path)
        except ERRORS as err:
            assert names_any(str(err), ("dataset", "data set", "empty", "name", "line")) \
                and "Categorical" not in str(err)
        else:
            assert "" in set(map(str, ds.dataset.values))

    def test_regression_names_read_as_text(self, tmp_path):
        """'001' stayed '1'; '1' and '1.0' merged and then failed as a duplicate."""
        frame = scores_frame(np.random.default_rng(3), ["001", "1", "1.0"], ["01", "1"], 1, 3)
        path = tmp_path / "numbers.csv"
        frame.to_csv(path, index=False)
        ds = quiet(load_scores, path)
        assert sorted(map(str, ds.dataset.values)) == ["001", "1", "1.0"]
        assert sorted(map(str, ds.algorithm.values)) == ["01", "1"]

    def test_regression_text_n_test_column(self, tmp_path):
        frame = scores_frame(np.random.default_rng(4), ["d1", "d2"], ["A", "B"], 1, 3)
        frame["n_test"] = "abc"
        frame["n_train"] = 90
        path = tmp_path / "text.csv"
        frame.to_csv(path, index=False)
        check_error(lambda: load_scores(path), ("n_test",))

    def test_regression_non_utf8_file(self, tmp_path):
        path = tmp_path / "latin1.csv"
        text = "dataset,algorithm,run,fold,score\n" + "".join(
            f"caf\xe9,{a},1,{f},{0.7 + 0.01 * f + (0.02 if a == 'B' else 0):.2f}\n" for a in "AB" for f in range(1, 4))
        path.write_bytes(text.encode("latin-1"))
        try:
            ds = quiet(load_scores, path)
        except ERRORS as err:
            assert names_any(str(err), (str(path), path.name)), f"the file is not named: {err}"
        else:
            assert list(map(str, ds.dataset.values)) == ["café"]

    def test_regression_header_only_csv(self, tmp_path, capsys):
        path = tmp_path / "header.csv"
        path.write_text("dataset,algorithm,run,fold,score\n")
        check_error(lambda: load_scores(path), (str(path), path.name, "empty", "no rows", "no scores", "no data"))
        cli_error(capsys, ["compare", path], (str(path), path.name, "empty", "no rows", "no scores", "no data"))

    def test_regression_one_algorithm(self, tmp_path, capsys):
        frame = scores_frame(np.random.default_rng(5), ["d1", "d2", "d3"], ["A"], 1, 4)
        path = tmp_path / "one.csv"
        frame.to_csv(path, index=False)
        names = ("algorithm", "algorithms", "A")
        try:
            ds = quiet(load_scores, path)
        except ERRORS as err:
            assert names_any(str(err), names)
        else:
            check_error(lambda: compare_all_pairs(ds, draws=200, random_seed=0), names)
            check_error(lambda: poisson_test(ds), names)
        cli_error(capsys, ["compare", path], names + (str(path),))
        cli_error(capsys, ["compare", path, "--all-pairs"], names + (str(path),))

    def test_regression_a_equals_b(self, tmp_path, capsys):
        ds = quiet(load_scores, example_path())
        check_error(lambda: differences(ds, "knn", "knn"), ("knn", "a", "b"))
        check_error(lambda: correlated_ttest(ds, algorithms=("knn", "knn")), ("knn", "algorithms"))
        check_error(lambda: poisson_test(ds, algorithms=("knn", "knn")), ("knn", "algorithms"))
        cli_error(capsys, ["compare", example_path(), "-a", "knn", "-b", "knn"], ("knn", "-a", "-b"))

    def test_regression_percent_scores(self, tmp_path, capsys):
        """Scores in percent with the default rope 0.01: a warning saying what was assumed (or an error)."""
        frame = scores_frame(np.random.default_rng(6), [f"d{i}" for i in range(5)], ["A", "B"], 1, 10)
        frame["score"] = (frame.score * 100).round(1)
        error_or_warning(lambda: poisson_test(load_scores(frame), rope=0.01), ("score", "scores", "rope"),
                         ("percent", "%"))
        path = tmp_path / "percent.csv"
        frame.to_csv(path, index=False)
        try:
            main(["compare", str(path), "-a", "A", "-b", "B"])
        except SystemExit as exc:
            message = exc.code if isinstance(exc.code, str) else capsys.readouterr().err
            assert exc.code not in (0, None) and ("percent" in message.lower() or "%" in message)
        else:
            err = capsys.readouterr().err
            assert "percent" in err.lower() or "%" in err, f"no word about percentages on stderr: {err!r}"

    def test_regression_dict_without_runs(self):
        """load_scores({...}) without runs= on repeated CV: a warning (AssumptionWarning, a UserWarning) that one run
        was assumed."""
        assert issubclass(pp_corr.AssumptionWarning, UserWarning)
        rng = np.random.default_rng(7)
        source = {"A": rng.uniform(0.7, 0.9, (2, 100)), "B": rng.uniform(0.7, 0.9, (2, 100))}
        with pytest.warns(pp_corr.AssumptionWarning, match="runs"):
            load_scores(source)
        ds = quiet(load_scores, source, runs=10)
        assert_close(ds.rho.values, [0.1, 0.1], "10 runs of 10 folds: rho = 1/10")

    def test_regression_folds_equal_number_of_scores(self):
        """folds equal to the number of scores of a repeated CV (10 x 10): an error or a warning naming folds."""
        rng = np.random.default_rng(8)
        source = {"A": rng.uniform(0.7, 0.9, (2, 100)), "B": rng.uniform(0.7, 0.9, (2, 100))}
        error_or_warning(lambda: load_scores(source, runs=10, folds=100), ("folds",), ("folds",))
        ds = quiet(load_scores, source, runs=10)
        error_or_warning(lambda: correlated_ttest(ds, folds=100), ("folds",), ("folds",))

    def test_regression_lower_is_better(self):
        frame = scores_frame(np.random.default_rng(10), ["d1", "d2", "d3"], ["A", "B"], 1, 10)
        frame["score"] = 1 - frame.score  # errors
        lower = quiet(load_scores, frame, higher_is_better=False)
        negated = quiet(load_scores, frame.assign(score=-frame.score))
        one = correlated_ttest(lower, algorithms=("A", "B"), rope=0.01)
        two = correlated_ttest(negated, algorithms=("A", "B"), rope=0.01)
        assert_close([one.p_left, one.p_rope, one.p_right], [two.p_left, two.p_rope, two.p_right], "lower is better")

    @pytest.mark.long
    def test_regression_memory_folds_numbered_across_datasets(self, tmp_path):
        """A 100,000-row CSV whose folds are numbered across data sets loads in seconds and under 500 MB."""
        script = textwrap.dedent("""
        import json, sys, time
        import numpy as np, pandas as pd
        q, n = 1000, 50
        d = np.repeat(np.arange(q), 2 * n)
        a = np.tile(np.repeat(["A", "B"], n), q)
        fold = d * n + np.tile(np.arange(1, n + 1), 2 * q)
        score = np.round(np.random.default_rng(0).uniform(0.6, 0.9, len(d)), 3)
        pd.DataFrame({"dataset": "d" + pd.Series(d).astype(str), "algorithm": a, "run": 1, "fold": fold,
                      "score": score}).to_csv(sys.argv[1], index=False)
        from pp_corr import load_scores
        start = time.perf_counter()
        try:
            ds = load_scores(sys.argv[1])
            out = {"cells": int(np.isfinite(ds.score.values).sum())}
        except ValueError as err:
            out = {"error": str(err)}
        out["seconds"] = time.perf_counter() - start
        # VmHWM, the peak of this program's own address space: ru_maxrss would also count the pytest worker's
        # pages that the child held between fork and exec (600 MB late in a full run)
        status = dict(line.split(":", 1) for line in open("/proc/self/status"))
        out["max_rss_mb"] = int(status["VmHWM"].split()[0]) / 1024
        print(json.dumps(out))
    """)
        proc = run_limited([sys.executable, "-c", script, str(tmp_path / "big.csv")], timeout=180)
        assert proc.returncode == 0, proc.stderr[-2000:]
        out = json.loads(proc.stdout.strip().splitlines()[-1])
        if "error" in out:
            assert "fold" in out["error"].lower(), out
        else:
            assert out["cells"] == 100_000, out
        assert out["seconds"] < 30 and out["max_rss_mb"] < 500, out

    def test_example_path_loads(self):
        path = example_path()
        assert path.is_file()
        ds = quiet(load_scores, path)
        assert ds.sizes["algorithm"] == 4 and ds.sizes["dataset"] == 4

    def test_missing_scores_are_named_once_and_listed(self):
        """A wide table with a failed fold: one MissingScoresWarning naming it, and missing_cells lists the same cell;
        missing_cells refuses what is not a scores Dataset."""
        frame = pd.DataFrame({"dataset": ["d1"] * 3, "fold": [1, 2, 3], "A": [0.8, 0.9, 0.85], "B": [0.8, np.nan, 0.9]})
        with pytest.warns(pp_corr.MissingScoresWarning, match="B on d1, run 1: fold 2") as record:
            scores = pp_corr.load_scores(frame)
        assert len(record) == 1
        assert pp_corr.missing_cells(scores).to_dict(orient="records") == [
            {"dataset": "d1", "algorithm": "B", "run": 1, "folds": [2]}]
        check_error(lambda: pp_corr.missing_cells(frame), ("scores",))


class TestScoresDatasetChecks:
    @pytest.mark.parametrize("call", [
        lambda s: pp_corr.correlated_ttest(s, algorithms=("tree", "knn")),
        lambda s: pp_corr.bayesian_sign_test(s, algorithms=("tree", "knn")),
        lambda s: pp_corr.bayesian_signed_rank(s, algorithms=("tree", "knn")),
        lambda s: pp_corr.poisson_test(s, algorithms=("tree", "knn")),
        lambda s: pp_corr.hierarchical_model(s, algorithms=("tree", "knn")),
        lambda s: pp_corr.joint_model(s),
    ], ids=["ttest", "sign", "signed_rank", "poisson", "hierarchical", "joint"])
    def test_scores_without_their_dataset_dimension_are_refused_by_name(self, call):
        """scores.isel(dataset=0, drop=True) drops the dimension every test reads: an error that says so and how to
        keep it, not an AttributeError from inside."""
        scores = pp_corr.load_scores(pp_corr.data.scores.example_path()).isel(dataset=0, drop=True)
        with pytest.raises(ValueError, match=r"lacks the dimension\(s\) \['dataset'\].*isel\(dataset=\[0\]\)"):
            call(scores)

    @pytest.mark.parametrize("test", ["correlated_ttest", "poisson_test", "bayesian_signed_rank", "bayesian_sign_test",
                                      "imprecise_signed_rank", "wilcoxon_test", "sign_test", "hierarchical_test"])
    def test_a_dataset_with_y_is_refused_and_the_pair_is_named(self, test):
        """x a scores Dataset and y given: y was ignored (a pair passed positionally, or B's scores, gave the answer for
        the Dataset's default pair or the "choose two" error); now the message says how the pair is chosen."""
        scores = pp_corr.load_scores(pp_corr.example_path())
        function = getattr(pp_corr, test)
        with pytest.raises(ValueError, match=r"y is for arrays .* chosen by name: algorithms=\('tree', 'knn'\)$"):
            function(scores, ("tree", "knn"))
        two = scores.sel(algorithm=["tree", "knn"])
        with pytest.raises(ValueError, match=r"y is for arrays .* chosen by name: algorithms=\(a, b\)$"):
            function(two, two.score.sel(algorithm="knn").values)
