"""pairwise/ttest.py: what a user reads off a correlated t-test result (``to_dict``, the attributes of
``to_xarray``, ``to_frame``, ``with_rope``, the repr) and the words and origin of its errors and warnings. Expected
numbers come from the matching-prior posterior written here, mu | x ~ Student-t(n - 1, mean, s sqrt(1/n + rho/(1 -
rho))) with scipy, and from scipy's t-test. The posterior itself against brute-force integration and scipy's t-tests:
tests/test_ttest_analytic.py."""
import math
import re
import sys
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, strategies as st
from hypothesis.extra import numpy as hnp
from scipy import stats

import pp_corr
from pp_corr import (DegenerateWarning, NormalGamma, bayesian_sign_test, bayesian_signed_rank, compare_all_pairs,
                     corrected_ttest, correlated_ttest, example_path, imprecise_signed_rank, intraclass_logp,
                     load_scores, mean_differences, paired_ttest, poisson_test, sign_test, wilcoxon_test)
from pp_corr.testing import check_result as check_protocol
from tests.conftest import (BASE_MATRIX, ERRORS, INF, NAN, RHO_KEYS, PROPERTY_SETTINGS, TINY, WIDE, assert_close,
                            assert_probability, assert_sums_to_one, bad_corr, campaign, check_error, grid, matrices,
                            names_any, quiet, rope_bounds, scores_frame, t_oracle)


RHO = 0.1


ROPE = 0.01


X = np.array([[0.021, 0.013, 0.034, -0.004, 0.027, 0.018, 0.025, 0.009, 0.031, 0.016],
              [0.002, -0.011, 0.007, -0.003, 0.012, -0.008, 0.001, 0.004, -0.006, 0.009]])


def posterior(x):
    n = x.shape[-1]
    return stats.t(n - 1, x.mean(axis=-1), x.std(axis=-1, ddof=1) * np.sqrt(1 / n + RHO / (1 - RHO)))


def expected_records(x, rope):
    post, n = posterior(x), x.shape[-1]
    lo, hi = post.interval(0.95)
    t = x.mean(axis=-1) / (x.std(axis=-1, ddof=1) * np.sqrt(1 / n + RHO / (1 - RHO)))
    return [{"dataset": f"D{i + 1}", "mean": x[i].mean(), "95% lo": lo[i], "95% hi": hi[i],
             "P(svm better)": post.cdf(-rope)[i], "P(rope)": post.cdf(rope)[i] - post.cdf(-rope)[i],
             "P(knn better)": post.sf(rope)[i], "p (two-sided)": 2 * stats.t.sf(abs(t[i]), n - 1),
             "degenerate": False} for i in range(len(x))]


@pytest.fixture(scope="module")
def result():
    return correlated_ttest(X, rho=RHO, rope=ROPE, names=("svm", "knn"))


POINT_MASS = "all differences are equal and the prior is improper, so the posterior of the mean is a point mass"


def many(q):
    """q data sets of 10 differences; D1 clearly positive (P(A better) below 1e-4, printed with an exponent)."""
    rng = np.random.default_rng(19)
    x = rng.normal(0.0, 0.02, (q, 10))
    x[0] = X[0] + 0.05
    return x


@pytest.fixture(scope="module")
def scores():
    return load_scores(example_path())


class TestToDict:
    def test_to_dict_keys_and_values(self, result):
        d = result.to_dict()
        assert set(d) == {"a", "b", "rope", "left_out", "rho", "prior", "results"}
        assert (d["a"], d["b"], d["rope"], d["rho"], d["prior"], d["left_out"]) == ("svm", "knn", (-ROPE, ROPE), RHO,
                                                                                  "matching", [])
        assert len(d["results"]) == len(X)
        for got, want, decision in zip(d["results"], expected_records(X, ROPE), result.decision()):
            assert list(got) == [*want, "decision"] and got["decision"] == decision
            assert got["dataset"] == want["dataset"] and got["degenerate"] is False
            for key in list(want)[1:-1]:
                assert got[key] == pytest.approx(want[key], rel=1e-9, abs=1e-14), key

    def test_to_dict_of_a_proper_prior_lists_its_parameters(self):
        prior = NormalGamma(0.0, 2.0, 3.0, 0.001)
        d = correlated_ttest(X, rho=[0.1, 0.2], prior=prior).to_dict()
        assert d["prior"] == {"mu0": 0.0, "k0": 2.0, "a": 3.0, "b": 0.001}
        assert d["rho"] == [0.1, 0.2] and d["rope"] is None


class TestToXarray:
    def test_to_xarray_attributes(self, result):
        prior = NormalGamma(0.0, 2.0, 3.0, 0.001)
        assert result.to_xarray().attrs == {"a": "svm", "b": "knn", "rope": str((-ROPE, ROPE)),
                                            "prior": repr(NormalGamma.matching())}
        other = correlated_ttest(X, rho=RHO, prior=prior)
        assert other.to_xarray().attrs == {"a": "A", "b": "B", "rope": "None", "prior": repr(prior)}
        assert repr(prior) != repr(NormalGamma.matching())


class TestToFrame:
    def test_to_frame_labels_the_interval_with_its_level(self, result):
        frame = result.to_frame(confidence_level=0.975)
        lo, hi = posterior(X).interval(0.975)
        assert list(frame.columns[1:3]) == ["97.5% lo", "97.5% hi"]
        np.testing.assert_allclose(frame["97.5% lo"], lo, rtol=1e-9)
        np.testing.assert_allclose(frame["97.5% hi"], hi, rtol=1e-9)


class TestWithRope:
    def test_with_rope_keeps_the_data_prior_and_rho(self, result):
        other = result.with_rope(0.02)
        assert other.to_dict()["rho"] == RHO and other.to_dict()["prior"] == "matching"
        assert other.p_right.tolist() == pytest.approx(posterior(X).sf(0.02).tolist(), rel=1e-9)
        expected = stats.ttest_1samp(X, 0.0, axis=-1, alternative="greater")   # rho enters t, not its sign
        n = X.shape[-1]
        t = expected.statistic * np.sqrt(1 / n) / np.sqrt(1 / n + RHO / (1 - RHO))
        assert other.frequentist("greater").pvalue.tolist() == pytest.approx(stats.t.sf(t, n - 1).tolist(), rel=1e-9)

    def test_with_rope_keeps_the_data_set_names(self, result):
        other = result.with_rope(0.02)
        assert other.datasets == result.datasets == ("D1", "D2")
        assert list(other.to_frame().index) == ["D1", "D2"] and other.to_frame().index.name == "dataset"


class TestRepr:
    def test_repr_names_the_prior_and_rounds_to_four_digits(self, result):
        head, *table = repr(result).splitlines()
        assert head == f"Bayesian correlated t-test: knn - svm (positive: knn better), rope = {(-ROPE, ROPE)}, " \
                       "prior = matching"
        prior = NormalGamma(0.0, 2.0, 3.0, 0.001)
        assert repr(correlated_ttest(X, rho=RHO, prior=prior)).splitlines()[0].endswith(f"prior = {repr(prior)}")
        first = table[2].split()   # table[0]: column names, table[1]: the index name
        want = expected_records(X, ROPE)[0]
        assert first[0] == "D1" and first[-1] == "False"
        assert [float(v) for v in first[1:-1]] == [float(f"{want[k]:.4g}") for k in list(want)[1:-1]]

    def test_repr_shows_up_to_60_data_sets_then_only_the_first_and_last_five(self):
        """pandas truncates a frame longer than display.max_rows (60 here) to display.min_rows (10 by default)."""
        table = repr(correlated_ttest(many(60), rho=RHO)).splitlines()[1:]
        assert [line.split()[0] for line in table[2:]] == [f"D{i + 1}" for i in range(60)]
        table = repr(correlated_ttest(many(61), rho=RHO)).splitlines()[1:]
        shown = [f"D{i + 1}" for i in [*range(5), *range(56, 61)]]
        assert [line.split()[0] for line in table[2:] if line.startswith("D")] == shown
        assert table[-1] == "[61 rows x 8 columns]"

    def test_repr_keeps_a_table_of_long_names_on_one_block_and_formats_numbers_with_4_digits(self):
        """With 20-character names each line of the table is about 135 characters: within the 200 the repr allows,
        so no column is wrapped below the others. Every number is written as f'{v:.4g}' (an exponent with 'e')."""
        names = ("a" * 20, "b" * 20)
        x = many(3)
        head, *table = repr(correlated_ttest(x, rho=RHO, names=names)).splitlines()
        assert len(table) == 2 + len(x)   # column names, index name, one line per data set
        assert 80 < len(table[0]) <= 200
        post, n = posterior(x), x.shape[-1]
        t = x.mean(axis=-1) / (x.std(axis=-1, ddof=1) * np.sqrt(1 / n + RHO / (1 - RHO)))
        lo, hi = post.interval(0.95)
        for i, line in enumerate(table[2:]):
            want = [x[i].mean(), lo[i], hi[i], post.cdf(0.0)[i], 0.0, post.sf(0.0)[i], 2 * stats.t.sf(abs(t[i]), n - 1)]
            cells = line.split()
            assert cells[0] == f"D{i + 1}" and cells[-1] == "False"
            assert cells[1:-1] == [f"{v:.4g}" for v in want]
        assert "e-" in table[2].split()[4]   # P(A better) of D1


class TestEdgesOfTheFloatRange:
    """An interval or a rope end beyond the float range, a point mass on the rope's ends."""

    def test_an_interval_beyond_float_range_is_infinite_quietly(self):
        """Differences near the largest float with rho = 0.9: the 95% interval, written here from the Student-t
        posterior of x / 2^1023, reaches past the largest float on both sides, so it is (-inf, inf), without a
        warning."""
        unit, rho = 2.0**1023, 0.9
        x_scaled = np.array([1.2, -1.1, 1.3, -1.4, 1.25, -1.0])
        n = len(x_scaled)
        lo, hi = stats.t(n - 1, x_scaled.mean(), x_scaled.std(ddof=1) * np.sqrt(1 / n + rho / (1 - rho))).interval(0.95)
        assert lo < -np.finfo(float).max / unit and hi > np.finfo(float).max / unit
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            res = correlated_ttest(x_scaled * unit, rho=rho)
            interval = res.interval(0.95)
        assert (float(interval[0]), float(interval[1])) == (-np.inf, np.inf)

    def test_a_rope_end_beyond_the_float_range_in_the_data_units_is_quiet(self):
        """Differences near 1e-300 are kept in units of a power of two near their magnitude, where a rope of 1e10 is
        beyond the largest float: its ends are +-inf there. The posterior (a Student-t of width about 1e-300) then lies
        wholly in the rope: P(rope) = 1 and both tails 0, without an overflow warning."""
        x = np.array([1.2, 0.7, 1.5, 0.9, 1.1, 1.3]) * 1e-300
        assert np.log10(1e10) - np.log10(x.max()) > np.log10(np.finfo(float).max)   # the rope / unit overflows
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            res = correlated_ttest(x, rho=RHO, rope=1e10)
        assert (float(res.p_left), float(res.p_rope), float(res.p_right)) == (0.0, 1.0, 0.0)

    def test_a_point_mass_on_either_edge_of_the_rope_is_in_the_rope(self):
        """The rope is closed, P(rope) = P(lo <= mu <= hi): a point mass at 0.25 (exact in binary) on a rope's lower
        or upper end lies in it; just outside either end it does not."""
        point = np.full(5, 0.25)
        for rope, want in [((0.25, 0.5), (0.0, 1.0, 0.0)), ((0.0, 0.25), (0.0, 1.0, 0.0)),
                           ((0.2500001, 0.5), (1.0, 0.0, 0.0)), ((0.0, 0.2499999), (0.0, 0.0, 1.0))]:
            with pytest.warns(DegenerateWarning):
                res = correlated_ttest(point, folds=5, rope=rope)
            assert (float(res.p_left), float(res.p_rope), float(res.p_right)) == want, rope


class TestWarnings:
    """The point-mass and folds warnings: their words and the line they point at."""

    def test_a_point_mass_warning_names_the_data_set(self):
        """Under the (improper) matching prior equal differences give a point mass; the warning says which data sets,
        in the words written here."""
        with pytest.warns(DegenerateWarning) as caught:
            correlated_ttest(np.full(5, 0.1), folds=5)
        with pytest.warns(DegenerateWarning) as caught_rows:
            correlated_ttest(np.array([np.full(5, 0.1), [0.1, 0.2, 0.3, 0.1, 0.2], np.full(5, 0.2)]), folds=5)
        assert [str(w.message) for w in caught] == [f"data set: {POINT_MASS}"]
        assert [str(w.message) for w in caught_rows] == [f"data set(s) 'D1', 'D3': {POINT_MASS}"]

    def test_folds_unlike_the_scores_warn_in_these_words(self, scores):
        with pytest.warns(UserWarning) as caught:
            correlated_ttest(scores, algorithms=("tree", "knn"), folds=100)
        assert [str(w.message) for w in caught] == [
            "folds=100 but the scores have 10 folds per run: rho is fixed by folds as 1/folds; give the number of "
            "folds of one cross-validation run"]

    @pytest.mark.skipif("mutmut" in sys.modules,
                        reason="mutmut's trampolines add a frame to every call of pp_corr.pairwise.ttest")
    def test_the_warnings_point_at_the_line_that_called_correlated_ttest(self, scores):
        """stacklevel: the point-mass warning (raised two calls down, in _result) and the folds warning are reported at
        the user's line, here, not inside pp_corr."""
        with pytest.warns(DegenerateWarning) as point_mass:
            correlated_ttest(np.full(5, 0.1), folds=5)
        with pytest.warns(UserWarning) as folds:
            correlated_ttest(scores, algorithms=("tree", "knn"), folds=100)
        assert [w.filename for w in [*point_mass, *folds]] == [__file__, __file__]


class TestErrors:
    """The messages of the prior, corr and too-few-scores errors."""

    def test_a_prior_of_another_type_is_named_in_the_error(self):
        with pytest.raises(TypeError,
                           match=r"^prior must be a NormalGamma \(or None for the matching prior\), got dict$"):
            correlated_ttest(X, rho=RHO, prior={"mu0": 0.0})

    def test_corr_and_rho_together_are_refused_saying_which(self):
        with pytest.raises(ValueError, match=r"^give either corr or rho \(n_test/n_train, folds, runs\), not both$"):
            correlated_ttest(X, rho=RHO, corr=np.eye(X.shape[1]))

    def test_scores_without_folds_have_no_common_data_set_not_no_data_sets(self, scores):
        with pytest.raises(ValueError, match=r"^algorithms 'tree' and 'knn' have no data set where both have scores "
                                             r"\(of 4 data sets\): nothing to compare$"):
            correlated_ttest(scores.isel(fold=slice(0, 0)), algorithms=("tree", "knn"))

    def test_corr_with_a_missing_run_names_the_data_set(self, scores):
        """corr is one matrix over every score of a data set, so a run missing (NaN) in 'wine' is refused by name."""
        gappy = scores.copy(deep=True)
        gappy["score"][dict(dataset=1, run=9)] = np.nan
        n = scores.sizes["run"] * scores.sizes["fold"]
        with pytest.raises(ValueError, match=r"^corr needs every score: data set\(s\) 'wine' have missing runs$"):
            correlated_ttest(gappy, algorithms=("tree", "knn"), corr=np.eye(n))

    def test_too_few_scores_names_only_the_data_sets_below_two(self, scores):
        """One fold per run, three runs; 'wine' keeps one score and 'breast_cancer' two: only 'wine' is too short."""
        short = scores.isel(run=[0, 1, 2], fold=[0]).copy(deep=True)
        short["score"][dict(dataset=1, run=[1, 2])] = np.nan
        short["score"][dict(dataset=2, run=[2])] = np.nan
        with pytest.raises(ValueError, match=r"^algorithms 'tree' and 'knn' have fewer than 2 folds in common "
                                             r"\(where both have a score\) on data set\(s\) 'wine': the correlated "
                                             r"t-test needs at least 2$"):
            correlated_ttest(short, algorithms=("tree", "knn"))


# --- bad and extreme inputs, generated ones too (issue #10); properties of the analytic test ------------------------


def exact_sum(values) -> Fraction:
    return sum((Fraction(float(v)) for v in np.ravel(values)), Fraction(0))


SWEEP = range(-300, 301)


BASE_ROW = np.array([1.0, 2.0, 3.0])


def _ttest_cases():
    """label -> function (x) -> (args, kwargs, names): one bad argument each."""
    def kw(**kwargs):
        names = tuple(k for k in kwargs)
        return lambda x: ((x,), kwargs, names)

    cases = {f"rope={v!r}": kw(rope=v) for v in
             [NAN, INF, -INF, -0.01, "0.01", [0.01], [0.01, 0.02, 0.03], (0.02, -0.02), (NAN, 0.01), (-INF, 0.01)]}
    cases.update({f"rho={v!r}": kw(rho=v) for v in [NAN, INF, -INF, 1.0, 1.5, "0.1"]})
    cases["rho of q + 1 values"] = lambda x: ((x,), {"rho": np.full(np.atleast_2d(x).shape[0] + 1, 0.1)}, ("rho",))
    cases["three rhos, one data set"] = lambda x: ((np.atleast_2d(x)[0],), {"rho": [0.1, 0.1, 0.1]}, ("rho",))
    cases.update({f"folds={v!r}": kw(folds=v) for v in [INF, NAN, 0, 1, -5, 2.5, "10"]})
    cases.update({f"n_train={v!r}": (lambda v: lambda x: ((x,), {"n_test": 10, "n_train": v}, ("n_train",)))(v)
                  for v in [INF, NAN, -90, 0]})
    cases.update({f"n_test={v!r}": (lambda v: lambda x: ((x,), {"n_test": v, "n_train": 90}, ("n_test",)))(v)
                  for v in [INF, NAN, -1]})
    cases.update({f"corr {k}": (lambda k: lambda x: ((x,), {"corr": bad_corr(k, np.shape(x)[-1])}, ("corr",)))(k)
                  for k in ["nan", "asymmetric", "not positive definite", "singular", "wrong shape"]})
    cases["rho and folds"] = lambda x: ((x,), {"rho": 0.1, "folds": 10}, ("rho", "folds"))
    cases["prior=42"] = kw(prior=42)
    cases["x 3-D"] = lambda x: ((np.stack([np.atleast_2d(x)] * 2, axis=1),), {}, ("x",))
    cases["x with NaN"] = lambda x: ((np.where(np.arange(x.size).reshape(x.shape) == 0, NAN, x),), {}, ("x",))
    cases["x with inf"] = lambda x: ((np.where(np.arange(x.size).reshape(x.shape) == 0, INF, x),), {}, ("x",))
    cases["x empty"] = lambda x: ((np.empty((0, np.shape(x)[-1])),), {}, ("x", "data set", "data sets", "empty"))
    cases["x text"] = lambda x: ((np.full(np.shape(x), "a"),), {}, ("x",))
    cases["y with NaN"] = lambda x: ((x, np.where(np.arange(x.size).reshape(x.shape) == 0, NAN, x)), {}, ("y",))
    cases["y another shape"] = lambda x: ((x, np.atleast_2d(x)[..., :-1]), {}, ("x", "y"))
    return cases


TTEST_CASES = _ttest_cases()


PROBABILITIES = ("p_left", "p_rope", "p_right", "p_not_left", "p_not_right")


@st.composite
def problems(draw):
    """(x, y, options): differences or two score arrays of random shape and magnitude, possibly with ties."""
    q = draw(st.one_of(st.none(), st.integers(1, 5)))  # None: one data set as a 1-D array
    n = draw(st.integers(2, 12))
    shape = (n,) if q is None else (q, n)
    # |values| in [1e-6, 1] or 0, times a magnitude 10^e: never below the normal range once scaled back
    unit = draw(st.lists(st.one_of(st.just(0.0), st.floats(1e-6, 1), st.floats(-1, -1e-6)),
                         min_size=int(np.prod(shape)), max_size=int(np.prod(shape))))
    x = np.reshape(unit, shape)
    rows = x.reshape(-1, n)
    for i in range(len(rows)):
        kind = draw(st.sampled_from(["free", "free", "tie", "rounding tie"]))
        if kind == "tie":
            rows[i] = rows[i, 0]
        elif kind == "rounding tie":  # equal differences computed from different scores
            scores = draw(st.lists(st.floats(0.3, 0.9), min_size=n, max_size=n))
            rows[i] = (np.array(scores) + 0.1) - np.array(scores)
    magnitude = 10.0 ** draw(st.integers(-300, 300))
    x = x * magnitude
    options = {}
    design = draw(st.sampled_from(["rho", "rho per data set", "folds", "n_test", "corr"]))
    if design == "rho":
        options["rho"] = draw(st.sampled_from([0.0, 0.1, 0.5, 0.9]))
    elif design == "rho per data set":
        options["rho"] = draw(st.lists(st.floats(0, 0.95), min_size=q or 1, max_size=q or 1))
    elif design == "folds":
        options["folds"] = draw(st.integers(2, 20))
    elif design == "n_test":
        options["n_test"], options["n_train"] = draw(st.integers(1, 100)), draw(st.integers(1, 1000))
    else:
        r = draw(st.floats(0, 0.9))
        options["corr"] = (1 - r) * np.eye(n) + r
    rope = draw(st.one_of(st.none(), st.floats(0, 2), st.tuples(st.floats(-2, 0), st.floats(0, 2))))
    options["rope"] = None if rope is None else np.multiply(rope, magnitude).tolist()
    if draw(st.booleans()):
        options["prior"] = NormalGamma(draw(st.floats(-1, 1)) * magnitude, draw(st.sampled_from([0.01, 1.0, np.inf])),
                                       draw(st.sampled_from([-0.5, 0.5, 3.0])),
                                       draw(st.sampled_from([0.0, 1e-3, 1.0])) * min(magnitude, 1e150) ** 2)
    y = None
    if draw(st.booleans()):  # the same differences as scores of A and B
        base = np.full(shape, 0.5 * magnitude)
        x, y = base, base + x
    return x, y, options


BAD = {  # argument: values that must be refused with its name in the message
    "rho": [np.nan, np.inf, -0.1, 1.0, "0.1", [0.1] * 7, [[0.1]]],
    "folds": [np.inf, np.nan, 1, 2.5, "10", [10] * 7],
    "n_test": [np.inf, np.nan, 0, -3.0, "5"],
    "n_train": [np.inf, np.nan, 0, -3.0],
    "rope": [np.nan, np.inf, "0.1", (0.1, -0.1), (0.0, np.nan), [0.1, 0.2, 0.3]],
    "corr": ["nan", "asymmetric", "shape", "not positive definite"],
    "mu0": [np.nan, np.inf], "k0": [np.nan, 0.0, -1.0, -np.inf], "a": [np.nan, np.inf, -1.0],
    "b": [np.nan, np.inf, -1.0],
    "x": ["nan", "inf", "3-D", "no data sets", "one score"], "y": ["nan", "-inf"],
}


def spoil(x, y, options, name, value, where):
    """(x, y, options) with ``name`` set to the bad ``value``."""
    options = {k: v for k, v in options.items() if k not in ("rho", "folds", "n_test", "n_train", "corr")}
    options["rho"] = 0.1
    n = x.shape[-1]
    if name in ("rho", "folds"):
        options.pop("rho")
        options[name] = value
    elif name in ("n_test", "n_train"):
        options.pop("rho")
        options.update(n_test=10, n_train=90)
        options[name] = value
    elif name == "rope":
        options["rope"] = value
    elif name == "corr":
        options.pop("rho")
        options["corr"] = {"nan": np.full((n, n), np.nan), "asymmetric": np.triu(np.full((n, n), 0.3)) + np.eye(n),
                           "shape": np.eye(n + 1), "not positive definite": np.ones((n, n))}[value]
    elif name in ("mu0", "k0", "a", "b"):
        options["prior"] = (name, value)  # built inside the call, where the error must come from
    elif name == "x":
        if value in ("nan", "inf"):
            x = x.astype(float).copy()
            x.flat[where % x.size] = np.nan if value == "nan" else np.inf
        else:
            x = {"3-D": np.zeros((2, 2, n)), "no data sets": np.zeros((0, n)), "one score": np.ones((3, 1))}[value]
            y = None
    elif name == "y":
        y = (np.zeros_like(x) if y is None else y).astype(float).copy()
        y.flat[where % y.size] = np.nan if value == "nan" else -np.inf
    return x, y, options


def call(fn, x, y, options):
    options = dict(options)
    if isinstance(options.get("prior"), tuple):
        name, value = options["prior"]
        options["prior"] = NormalGamma(**{"mu0": 0.0, "k0": 1.0, "a": 1.0, "b": 1.0, name: value})
    return fn(x, y, **options)


def check_result(res):
    values = {f: np.asarray(getattr(res, f), dtype=float) for f in PROBABILITIES}
    for field, v in values.items():
        assert not np.isnan(v).any() and ((v >= 0) & (v <= 1)).all(), (field, v)
    np.testing.assert_allclose(values["p_left"] + values["p_rope"] + values["p_right"], 1, atol=1e-12, rtol=0)
    np.testing.assert_allclose(values["p_left"] + values["p_not_left"], 1, atol=1e-12, rtol=0)
    np.testing.assert_allclose(values["p_right"] + values["p_not_right"], 1, atol=1e-12, rtol=0)
    assert not np.isnan(res.mean).any()
    assert not np.isnan(np.asarray(res.interval(0.9))).any()
    freq = res.frequentist()
    assert not np.isnan(freq.statistic).any()
    assert not np.isnan(freq.pvalue).any() and ((freq.pvalue >= 0) & (freq.pvalue <= 1)).all()


def ttest_functions():
    with_rope = lambda x, y, **o: correlated_ttest(x, y, **o)  # noqa: E731
    frequentist = lambda x, y, **o: corrected_ttest(x, y, **{k: v for k, v in o.items()  # noqa: E731
                                                             if k not in ("rope", "prior", "corr")})
    poisson = lambda x, y, **o: poisson_test(x, y, **o)  # noqa: E731
    return {"correlated_ttest": with_rope, "corrected_ttest": frequentist, "poisson_test": poisson}


samples = hnp.arrays(float, st.integers(2, 40), elements=st.floats(-1, 1, allow_subnormal=False))


rhos = st.sampled_from([0.0, 0.1, 0.2, 0.5])


def spread_enough(x):
    return np.ptp(x) > 1e-6


class TestCorrelatedTtestMagnitudes:
    @pytest.mark.long
    def test_magnitude_sweep_1e_minus_300_to_1e300(self):
        """Every power of ten from 1e-300 to 1e300: the same answers as the data scaled to 1 (1e-12 relative)."""
        base = quiet(correlated_ttest, BASE_MATRIX, rho=0.1, rope=0.01)
        base_row = quiet(correlated_ttest, BASE_ROW, rho=0)
        base_corrected = corrected_ttest(BASE_MATRIX, rho=0.1)
        base_paired = paired_ttest(BASE_ROW)
        base_poisson = quiet(poisson_test, BASE_MATRIX, rho=0.1, rope=0.01)
        base_logp = intraclass_logp(BASE_MATRIX, 0.01, 0.02, 0.1)
        failures = []
        for k in SWEEP:
            s = 10.0 ** k
            try:
                res = quiet(correlated_ttest, BASE_MATRIX * s, rho=0.1, rope=0.01 * s)
                for name in ("p_left", "p_rope", "p_right"):
                    assert_close(getattr(res, name), getattr(base, name), f"correlated_ttest {name}", atol=1e-15)
                assert_close(res.mean / s, base.mean, "correlated_ttest mean")
                assert_close(np.array(res.interval()) / s, np.array(base.interval()), "correlated_ttest interval")
                row = quiet(correlated_ttest, BASE_ROW * s, rho=0)
                assert_close(row.p_right, base_row.p_right, "correlated_ttest([1, 2, 3] * s) P(B better)")
                cor = corrected_ttest(BASE_MATRIX * s, rho=0.1)
                assert_close(cor.statistic, base_corrected.statistic, "corrected_ttest statistic")
                assert_close(cor.pvalue, base_corrected.pvalue, "corrected_ttest pvalue")
                par = paired_ttest(BASE_ROW * s)
                assert_close(par.pvalue, base_paired.pvalue, "paired_ttest pvalue")
                poi = quiet(poisson_test, BASE_MATRIX * s, rho=0.1, rope=0.01 * s)
                assert_close([poi.p_b_majority, poi.p_a_majority],
                             [base_poisson.p_b_majority, base_poisson.p_a_majority], "poisson_test P(majority)",
                             atol=1e-15)
                n = BASE_MATRIX.shape[1]
                assert_close(intraclass_logp(BASE_MATRIX * s, 0.01 * s, 0.02 * s, 0.1) + n * math.log(s), base_logp,
                             "intraclass_logp", rtol=1e-9, atol=1e-9)
            except (AssertionError, ArithmeticError, ValueError, TypeError, RuntimeWarning) as err:
                failures.append(f"1e{k}: {type(err).__name__}: {str(err).strip().splitlines()[0][:150]}")
        assert not failures, f"{len(failures)} of {len(SWEEP)} scales differ from scale 1, e.g.:\n" + "\n".join(
            failures[:: max(1, len(failures) // 12)])

    @campaign(60)
    @given(x=matrices(grid(), q=(1, 4), n=(2, 10)), k=st.integers(-1000, 1000),
           rho=st.sampled_from([0.0, 0.1, 0.5]), rope=st.sampled_from([None, 0.05, 0.5, (-0.25, 0.125)]))
    def test_t_tests_do_not_depend_on_the_unit(self, x, k, rho, rope):
        """Scaling the data (and the rope) by an exact power of two 2^k, |k| <= 1000, changes no probability."""
        s = math.ldexp(1.0, k)
        scaled_rope = None if rope is None else (rope * s if np.ndim(rope) == 0 else (rope[0] * s, rope[1] * s))
        base = quiet(correlated_ttest, x, rho=rho, rope=rope)
        res = quiet(correlated_ttest, x * s, rho=rho, rope=scaled_rope)
        for name in ("p_left", "p_rope", "p_right"):
            assert_close(getattr(res, name), getattr(base, name), name, atol=1e-15)
        assert_close(np.asarray(res.mean) / s, base.mean, "mean", atol=1e-300)
        assume(np.all(np.ptp(x, axis=-1) > 0))
        assert_close(corrected_ttest(x * s, rho=rho).pvalue, corrected_ttest(x, rho=rho).pvalue,
                     "corrected_ttest pvalue", atol=1e-15)
        assert_close(paired_ttest(x * s).pvalue, paired_ttest(x).pvalue, "paired_ttest pvalue", atol=1e-15)
        poi, poi_base = (quiet(poisson_test, d, rho=rho, rope=r) for d, r in ((x * s, scaled_rope), (x, rope)))
        assert_close(poi.p_b_majority, poi_base.p_b_majority, "poisson_test p_b_majority", atol=1e-15)

    def test_regression_magnitude_1e_minus_170(self):
        """correlated_ttest([1e-170, 2e-170, 3e-170], rho=0) is the answer of [1, 2, 3], without a degenerate
        warning."""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            tiny = correlated_ttest([1e-170, 2e-170, 3e-170], rho=0)
        assert not [w for w in caught if issubclass(w.category, pp_corr.DegenerateWarning)], "false degenerate warning"
        one = correlated_ttest([1.0, 2.0, 3.0], rho=0)
        expected = stats.t.sf(-2 / (1 / math.sqrt(3)), 2)  # t = mean / (sd / sqrt(n)) = 2 / (1 / sqrt 3), df 2
        assert_close(one.p_right, expected, "P(B better) of [1, 2, 3]", rtol=1e-10)
        assert_close(tiny.p_right, one.p_right, "P(B better) of [1, 2, 3] * 1e-170")
        assert not bool(np.asarray(tiny.degenerate).any())

    @pytest.mark.parametrize("scale", [1e160, 1e-160, 1e300])
    def test_regression_magnitude_1e160(self, scale):
        """x * 1e160 gave NaN or p = 0.5: every t-test, the Poisson test and all pairs give the unscaled answer."""
        expected = t_oracle(BASE_MATRIX, 0.1, None)
        res = quiet(correlated_ttest, BASE_MATRIX * scale, rho=0.1)
        assert_close(np.column_stack([res.p_left, res.p_right]), expected[:, [0, 2]], "correlated_ttest", rtol=1e-9)
        pvalue = 2 * np.minimum(expected[:, 0], expected[:, 2])  # two-sided p of the corrected t-test
        assert_close(corrected_ttest(BASE_MATRIX * scale, rho=0.1).pvalue, pvalue, "corrected_ttest", rtol=1e-9)
        assert_close(paired_ttest(BASE_MATRIX * scale).pvalue, stats.ttest_1samp(BASE_MATRIX, 0, axis=-1).pvalue,
                     "paired_ttest", rtol=1e-9)
        assert_close(quiet(poisson_test, BASE_MATRIX * scale, rho=0.1).p_b_majority,
                     quiet(poisson_test, BASE_MATRIX, rho=0.1).p_b_majority, "poisson_test", rtol=1e-12)
        frame = scores_frame(np.random.default_rng(5), ["d1", "d2", "d3"], ["P", "Q", "R"], 1, 10)
        scaled = frame.assign(score=frame.score * scale)
        table, table_scaled = (quiet(compare_all_pairs, quiet(load_scores, f), rope=r, draws=500, random_seed=0)
                               for f, r in ((frame, 0.01), (scaled, 0.01 * scale)))
        for var in ("p_b_majority", "wilcoxon_pvalue", "signed_rank_right", "sign_right"):
            assert_close(table_scaled[var].values, table[var].values, f"compare_all_pairs {var}", rtol=1e-9, atol=1e-12)


class TestCorrelatedTtestArguments:
    @campaign(300)
    @given(x=matrices(grid(), q=(1, 4), n=(3, 8)), label=st.sampled_from(sorted(TTEST_CASES)),
           test=st.sampled_from(["correlated_ttest", "poisson_test", "corrected_ttest"]))
    def test_t_tests_refuse_bad_arguments(self, x, label, test):
        args, kwargs, names = TTEST_CASES[label](x)
        fn = {"correlated_ttest": correlated_ttest, "poisson_test": poisson_test,
              "corrected_ttest": corrected_ttest}[test]
        if test == "corrected_ttest" and (label.startswith("rope") or label.startswith("corr") or label == "prior=42"):
            return  # no such argument
        if not RHO_KEYS & set(kwargs):
            kwargs = {**kwargs, "rho": 0.1}
        check_error(lambda: fn(*args, **kwargs), names)

    @campaign(200)
    @given(x=matrices(WIDE, q=(1, 4), n=(2, 10)), rho=st.sampled_from([0.0, 0.1, 1 / 3, 0.9]),
           rope=st.one_of(st.none(), st.floats(0, 1e300), st.sampled_from([(-1.0, 0.5), (-1e-300, 0.0), (0.0, 0.0)])))
    def test_correlated_ttest_answers_are_probabilities(self, x, rho, rope):
        """Any finite data: probabilities in [0, 1] adding up to 1, a finite mean and interval, point masses flagged."""
        has_subnormal = bool(np.any((x != 0) & (np.abs(x) < TINY)))
        try:
            res = quiet(correlated_ttest, x, rho=rho, rope=rope)
        except ERRORS as err:  # only acceptable where no finite answer exists (subnormal inputs at most)
            assert has_subnormal and names_any(str(err), ("x",)), f"refused finite data: {err}"
            return
        p_left, p_rope, p_right = (np.asarray(getattr(res, n), dtype=float) for n in ("p_left", "p_rope", "p_right"))
        for name, p in (("p_left", p_left), ("p_rope", p_rope), ("p_right", p_right), ("p_not_left", res.p_not_left),
                        ("p_not_right", res.p_not_right)):
            assert_probability(name, p)
        assert_sums_to_one(p_left, p_rope, p_right)
        assert_close(res.p_not_left, 1 - p_left, "p_not_left", rtol=0, atol=1e-12)
        assert_close(res.p_not_right, 1 - p_right, "p_not_right", rtol=0, atol=1e-12)
        if rope is None:
            assert np.all(p_rope == 0), "without a rope P(rope) is 0"
        mean = np.asarray(res.mean, dtype=float)
        lo, hi = (np.asarray(v, dtype=float) for v in res.interval())
        assert np.isfinite(mean).all() and np.isfinite(lo).all() and np.isfinite(hi).all(), "NaN or inf mean/interval"
        assert np.all(lo <= mean) and np.all(mean <= hi)
        exact_means = np.array([float(exact_sum(row) / len(row)) for row in np.atleast_2d(x)])
        top = np.max(np.abs(np.atleast_2d(x)), axis=-1)  # the mean is ill-conditioned: error relative to max |x|
        assert np.all(np.abs(np.atleast_1d(mean) - exact_means) <= 1e-12 * top + 1e-300), \
            f"posterior mean {mean} vs the mean of the differences {exact_means}"
        constant = np.ptp(np.atleast_2d(x), axis=-1) == 0
        np.testing.assert_array_equal(np.atleast_1d(res.degenerate), constant, err_msg="degenerate flags")
        bounds = rope_bounds(rope) or (0.0, 0.0)
        for i in np.flatnonzero(constant):
            c = exact_means[i]
            if c > bounds[1]:
                assert np.atleast_1d(p_right)[i] == 1
            elif c < bounds[0]:
                assert np.atleast_1d(p_left)[i] == 1
            elif rope is not None and bounds[0] < c < bounds[1]:
                assert np.atleast_1d(p_rope)[i] == 1
        rows = np.atleast_2d(x)
        spread = np.ptp(rows, axis=-1) > 1e-6 * np.max(np.abs(rows), axis=-1)
        if not has_subnormal and spread.any():
            expected = t_oracle(rows[spread], rho, None if rope is None else bounds)
            got = np.column_stack([np.atleast_1d(p_left)[spread], np.atleast_1d(p_right)[spread]])
            assert_close(got, expected[:, [0, 2]], "P(A better), P(B better) vs the Student-t written out", rtol=1e-6,
                         atol=1e-7)

    @campaign(40)
    @given(level=st.sampled_from([NAN, 0.0, 1.0, 1.5, -0.5, "0.95"]))
    def test_result_methods_refuse_bad_levels(self, level):
        res = correlated_ttest(BASE_MATRIX, rho=0.1, rope=0.01)
        check_error(lambda: res.interval(level), ("confidence_level",))
        check_error(lambda: res.to_frame(confidence_level=level), ("confidence_level",))
        check_error(lambda: corrected_ttest(BASE_MATRIX, rho=0.1).confidence_interval(level), ("confidence_level",))

    @campaign(20)
    @given(rope=st.sampled_from([NAN, INF, -0.01, "0.01", [0.01], (0.02, -0.02)]))
    def test_with_rope_refuses_bad_ropes(self, rope):
        res = correlated_ttest(BASE_MATRIX, rho=0.1, rope=0.01)
        assert isinstance(res, pp_corr.CorrelatedTTestResult)
        check_error(lambda: res.with_rope(rope), ("rope",))

    def test_regression_zero_datasets(self, capsys):
        x = np.empty((0, 10))
        names = ("x", "data set", "data sets", "empty")
        check_error(lambda: correlated_ttest(x, folds=10), names)
        check_error(lambda: poisson_test(x, folds=10), names)
        for fn in (bayesian_sign_test, bayesian_signed_rank, imprecise_signed_rank, sign_test, wilcoxon_test):
            check_error(lambda: fn(np.empty(0)), names)

    def test_regression_rho_vector_length(self):
        """One data set with three rhos gave three results, and poisson_test counted three data sets."""
        x = BASE_MATRIX[0]
        check_error(lambda: correlated_ttest(x, rho=[0.1, 0.1, 0.1]), ("rho",))
        check_error(lambda: poisson_test(x[None, :], rho=[0.1, 0.1, 0.1]), ("rho",))
        check_error(lambda: correlated_ttest(BASE_MATRIX, rho=[0.1, 0.1]), ("rho",))

    def test_regression_corr_not_valid(self):
        for kind in ("nan", "asymmetric", "not positive definite", "singular", "wrong shape"):
            check_error(lambda: correlated_ttest(BASE_MATRIX[0], corr=bad_corr(kind, 10)), ("corr",))

    def test_regression_x_3d(self):
        x = np.zeros((2, 3, 10)) + BASE_MATRIX[:2, None, :]
        check_error(lambda: correlated_ttest(x, folds=10), ("x",))
        check_error(lambda: poisson_test(x, folds=10), ("x",))
        check_error(lambda: corrected_ttest(x, folds=10), ("x",))

    def test_regression_rope_spellings(self):
        """rope=np.array(0.01) equals 0.01; rope='0.01' and rope=[0.01] are refused naming rope (not unpacking
        errors)."""
        x = BASE_MATRIX
        ref = correlated_ttest(x, rho=0.1, rope=0.01)
        for spelling in (np.array(0.01), np.float64(0.01), np.array([-0.01, 0.01])):
            res = correlated_ttest(x, rho=0.1, rope=spelling)
            assert_close(res.p_rope, ref.p_rope, f"rope={spelling!r}")
        for bad in ("0.01", [0.01], (0.01,)):
            check_error(lambda: correlated_ttest(x, rho=0.1, rope=bad), ("rope",))
            check_error(lambda: poisson_test(x, rho=0.1, rope=bad), ("rope",))
            check_error(lambda: bayesian_sign_test(x, rope=bad, draws=100, random_seed=0), ("rope",))
            check_error(lambda: bayesian_signed_rank(x, rope=bad, draws=100, random_seed=0), ("rope",))

    def test_regression_nan_in_y_reported_as_y(self):
        x = BASE_MATRIX
        y = x.copy()
        y[1, 3] = NAN
        for fn in (correlated_ttest, corrected_ttest, poisson_test):
            err = check_error(lambda: fn(x, y, rho=0.1), ("y",))
            assert not re.search(r"(?<!\w)x contains", str(err)), f"the NaN of y reported as x: {err}"
        check_error(lambda: mean_differences(x, y), ("y",))


class TestTTestsOnGeneratedProblems:
    @pytest.mark.long
    @PROPERTY_SETTINGS
    @given(problems())
    def test_valid_input_gives_probabilities(self, problem):
        x, y, options = problem
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateWarning)
            warnings.simplefilter("error", RuntimeWarning)  # no overflow or 0/0 along the way
            res = correlated_ttest(x, y, **options)
            check_result(res)
            pois = poisson_test(x, y, **options)
        for p in (pois.p_b_majority, pois.p_a_majority):
            assert 0 <= p <= 1
        assert pois.n_datasets == (1 if x.ndim == 1 else x.shape[0])
        assert pois.distribution.pmf().sum() == pytest.approx(1, abs=1e-12)
        np.testing.assert_allclose(pois.per_dataset.p_right, np.atleast_1d(res.p_right), rtol=0, atol=0)

    @pytest.mark.long
    @PROPERTY_SETTINGS
    @given(problems(), st.integers(-990, 990))
    def test_other_units_give_the_same_answer(self, problem, k):
        """Differences, rope and prior in units 2^k (exact): the same probabilities, p-values and statistics."""
        x, y, options = problem
        c = 2.0**k
        diff = x if y is None else y - x
        moved = dict(options)
        with np.errstate(over="ignore", under="ignore"):
            if np.abs(diff * c).max() > 1e300 or np.abs(diff[diff != 0] * c).min(initial=1) < 1e-300:
                return  # out of the normal float range in the other units
            if options["rope"] is not None:
                moved["rope"] = np.multiply(options["rope"], c).tolist()
                given, rope = np.abs(options["rope"]), np.abs(moved["rope"])
                if not np.all(np.isfinite(rope)) or (np.minimum(given, rope)[given != 0] < 1e-300).any():
                    return
        if "prior" in options:
            prior = options["prior"]
            with np.errstate(over="ignore", under="ignore"):
                b, mu0 = prior.b * c * c, prior.mu0 * c
            if not ((1e-300 < b < 1e300 or prior.b == 0) and (1e-300 < abs(mu0) < 1e300 or prior.mu0 == 0)):
                return  # not representable in the other units
            moved["prior"] = NormalGamma(prior.mu0 * c, prior.k0, prior.a, prior.b * c * c)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateWarning)
            one, other = correlated_ttest(diff, **options), correlated_ttest(diff * c, **moved)
        for field in PROBABILITIES:
            np.testing.assert_allclose(getattr(other, field), getattr(one, field), rtol=1e-12, atol=0, err_msg=field)
        np.testing.assert_array_equal(other.degenerate, one.degenerate)
        np.testing.assert_allclose(other.mean / c, one.mean, rtol=1e-12, atol=0)
        f_one, f_other = one.frequentist(), other.frequentist()
        np.testing.assert_allclose(f_other.statistic, f_one.statistic, rtol=1e-12, atol=0)
        np.testing.assert_allclose(f_other.pvalue, f_one.pvalue, rtol=1e-12, atol=0)

    @pytest.mark.long
    @PROPERTY_SETTINGS
    @given(problems(), st.sampled_from(sorted(BAD)), st.data())
    def test_bad_input_is_refused_by_name(self, problem, name, data):
        x, y, options = problem
        value = data.draw(st.sampled_from(BAD[name]), label="value")
        where = data.draw(st.integers(0, 10**6), label="where")
        fn_name = data.draw(st.sampled_from(sorted(ttest_functions())), label="function")
        if fn_name == "corrected_ttest" and name in ("rope", "corr", "mu0", "k0", "a", "b"):
            fn_name = "correlated_ttest"  # the frequentist test takes none of these
        bad_x, bad_y, bad_options = spoil(x, y, options, name, value, where)
        if name in ("rho", "folds") and isinstance(value, list) and np.ndim(value) == 1:
            q = 1 if bad_x.ndim == 1 else bad_x.shape[0]
            bad_options[name] = value[: q + 1 if q < 7 else q - 1]  # a length that is not the number of data sets
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateWarning)
            with pytest.raises((ValueError, TypeError)) as caught:
                call(ttest_functions()[fn_name], bad_x, bad_y, bad_options)
        assert re.search(rf"\b{name}\b", str(caught.value)), (name, value, str(caught.value))

    @pytest.mark.long
    @PROPERTY_SETTINGS
    @given(problems(), st.sampled_from([0.0, 1.0, -0.2, 1.5, np.nan, np.inf, "0.9", None]))
    def test_bad_levels_are_refused_by_name(self, problem, level):
        x, y, options = problem
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateWarning)
            res = correlated_ttest(x, y, **options)
            for fn in (res.interval, lambda level: res.to_frame(confidence_level=level),
                       paired_ttest(x, y).confidence_interval):
                with pytest.raises((ValueError, TypeError), match="^confidence_level must"):
                    fn(level)
            with pytest.raises((ValueError, TypeError), match="^alpha must"):
                poisson_test(x, y, alpha=level, **options)
        with pytest.raises(ValueError, match="^alternative must"):
            corrected_ttest(x, y, rho=0.1, alternative=str(level))


class TestCorrelatedTtestProperties:
    @given(samples, rhos, st.floats(-5, 5), st.floats(0.1, 10))
    def test_shift_and_scale_equivariance(self, x, rho, shift, scale):
        assume(spread_enough(x))
        base = correlated_ttest(x, rho=rho, rope=0.05)
        moved = correlated_ttest(scale * x + shift, rho=rho, rope=(scale * -0.05 + shift, scale * 0.05 + shift))
        np.testing.assert_allclose(moved.mean, scale * base.mean + shift, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(np.array(moved.interval()), scale * np.array(base.interval()) + shift,
                                   rtol=1e-7, atol=1e-7)
        np.testing.assert_allclose([moved.p_left, moved.p_rope, moved.p_right],
                                   [base.p_left, base.p_rope, base.p_right], atol=1e-7)

    @given(samples, samples, rhos, st.floats(0, 0.2))
    def test_swapping_a_and_b_swaps_left_and_right(self, a, b, rho, rope):
        n = min(len(a), len(b))
        a, b = a[:n], b[:n]
        assume(n >= 2 and spread_enough(b - a))
        prior = NormalGamma(0.0, 1.0, 1.0, 0.1)
        ab = correlated_ttest(a, b, rho=rho, rope=rope, prior=prior)
        ba = correlated_ttest(b, a, rho=rho, rope=rope, prior=prior)
        np.testing.assert_allclose([ab.p_left, ab.p_rope, ab.p_right], [ba.p_right, ba.p_rope, ba.p_left], atol=1e-12)

    @given(samples, rhos, st.randoms(use_true_random=False))
    def test_fold_order_does_not_matter(self, x, rho, random):
        assume(spread_enough(x))
        perm = list(range(len(x)))
        random.shuffle(perm)
        one, other = correlated_ttest(x, rho=rho, rope=0.01), correlated_ttest(x[perm], rho=rho, rope=0.01)
        np.testing.assert_allclose([one.p_left, one.p_rope, one.p_right],
                                   [other.p_left, other.p_rope, other.p_right], atol=1e-12)


class TestCorrelatedTTestResultProtocol:
    """The Result methods: numbers from the fields, one decision per data set from its three probabilities."""

    result = staticmethod(lambda: correlated_ttest(X, rho=RHO, rope=ROPE, names=("svm", "knn")))

    def test_contract(self):
        check_protocol(self.result())

    def test_frame_numbers_are_the_fields(self):
        res = self.result()
        frame = res.to_frame()
        np.testing.assert_array_equal(frame["mean"], res.mean)
        for column, field in (("P(svm better)", res.p_left), ("P(rope)", res.p_rope), ("P(knn better)", res.p_right)):
            np.testing.assert_array_equal(frame[column], field)

    @pytest.mark.parametrize("alpha", [0.05, 0.3])
    def test_decisions_follow_the_probabilities(self, alpha):
        res = self.result()
        want = tuple("knn" if r > 1 - alpha else "svm" if lo > 1 - alpha else "rope" if mid > 1 - alpha else "none"
                     for lo, mid, r in zip(res.p_left, res.p_rope, res.p_right))
        assert res.decision(alpha) == want
        assert [row["decision"] for row in res.to_dict()["results"]] == list(res.decision())
        lines = res.summary(alpha=alpha).splitlines()[3:]
        assert [line.split()[-1] for line in lines] == list(want)

    def test_a_bad_alpha_is_refused_by_name(self):
        check_error(lambda: self.result().decision(1.5), ("alpha",))
