"""pairwise/ttest.py: what a user reads off a correlated t-test result (``to_dict``, the attributes of
``to_xarray``, ``to_frame``, ``with_rope``, the repr) and the words and origin of its errors and warnings. Expected
numbers come from the matching-prior posterior written here, mu | x ~ Student-t(n - 1, mean, s sqrt(1/n + rho/(1 -
rho))) with scipy, and from scipy's t-test. The posterior itself against brute-force integration and scipy's t-tests:
tests/test_ttest_analytic.py."""
import sys
import warnings

import numpy as np
import pytest
from scipy import stats

from pp_corr import DegenerateWarning, NormalGamma, correlated_ttest, example_path, load_scores


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
        for got, want in zip(d["results"], expected_records(X, ROPE)):
            assert list(got) == list(want)
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
        frame = result.to_frame(0.975)
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
