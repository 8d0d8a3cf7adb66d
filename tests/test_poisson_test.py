"""pairwise/poisson_test.py. What a user reads off a result is checked against an enumeration written here: the
per-data-set probabilities from scipy's Student-t (the matching-prior posterior) and the counts' distributions from all
2^q outcomes (TestMajorityByEnumeration)."""
import json
import re

import numpy as np
import pytest
from hypothesis import assume, given, strategies as st

import pp_corr
from pp_corr import correlated_ttest, poisson_test
from pp_corr.testing import check_result
from tests.conftest import (poisson_binomial_exact, FOLDS, INF, NAN, RHO, assert_close, assert_probability, campaign,
                            check_error, count_distribution, grid, make_differences, matrices, posterior_tails, quiet,
                            rope_bounds, t_oracle)


def test_majority_probabilities_by_enumeration():
    x = np.random.default_rng(0).normal(0.005, 0.03, size=(9, 10))
    res = poisson_test(x, folds=10)
    p = res.per_dataset.p_right
    # enumerate all 2^9 outcomes
    outcomes = np.array(np.meshgrid(*[[0, 1]] * 9)).reshape(9, -1).T
    weights = np.prod(np.where(outcomes == 1, p, 1 - p), axis=1)
    wins = outcomes.sum(axis=1)
    assert res.p_b_majority == pytest.approx(weights[wins > 4.5].sum(), rel=1e-12)
    assert res.p_a_majority == pytest.approx(weights[wins < 4.5].sum(), rel=1e-12)


def test_rope_counts_each_side_separately():
    x = np.random.default_rng(1).normal(0.0, 0.002, size=(20, 10))  # all equivalent within 0.01
    res = poisson_test(x, folds=10, rope=0.01)
    assert res.p_b_majority < 1e-6 and res.p_a_majority < 1e-6 and res.decision() == "none"
    np.testing.assert_allclose(res.distribution_a.pmf(), poisson_test(-x, folds=10, rope=0.01).distribution.pmf(),
                               rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("shift,winner", [(0.02, "B"), (-0.02, "A"), (0.0, "none")])
def test_decision(shift, winner):
    x = np.random.default_rng(2).normal(shift, 0.02, size=(30, 10))
    if shift == 0:
        x -= x.mean(axis=1, keepdims=True) * np.resize([1, 1.0], (30, 1))
        x[::2] += 0.004
        x[1::2] -= 0.004
    assert poisson_test(x, folds=10).decision() == winner


def test_uci54_names_and_exports(uci54):
    res = poisson_test(uci54, algorithms=("nbc", "hnb"))
    assert "hnb better on a majority" in repr(res) and res.decision() == "hnb"
    assert res.to_xarray().pmf_b.sum() == pytest.approx(1)
    first = res.to_dict()["results"][0]
    assert first["dataset"] == "anneal"
    assert first["p_right"] == correlated_ttest(uci54, algorithms=("nbc", "hnb")).p_right[0]


def test_one_dataset_says_what_it_is():
    """q = 1 is allowed: the majority is that data set, P(X > 0) = its P(B better); the result says so."""
    x = np.random.default_rng(3).normal(0.01, 0.02, size=10)
    single = correlated_ttest(x, folds=10, rope=0.005)
    for data in (x, x[None, :]):
        res = poisson_test(data, folds=10, rope=0.005)
        assert res.n_datasets == 1 and res.per_dataset.datasets == ("D1",)
        assert res.p_b_majority == pytest.approx(float(single.p_right), rel=1e-14)
        assert res.p_a_majority == pytest.approx(float(single.p_left), rel=1e-14)
        assert "one data set" in repr(res) and "1 data set " in repr(res)
        assert [(r["dataset"], r["p_right"]) for r in res.to_dict()["results"]] == [("D1", float(single.p_right))]
        assert res.to_xarray().pmf_b.values.tolist() == pytest.approx([float(single.p_not_right),
                                                                       float(single.p_right)])
    assert "one data set" not in repr(poisson_test(np.stack([x, x]), folds=10))


def test_rho_vector_length_must_match_datasets_in_poisson_test():
    """One data set with three rhos used to give three results, counted as three data sets."""
    x = np.random.default_rng(4).normal(0.01, 0.02, size=10)
    with pytest.raises(ValueError, match="^rho has 3 values but x holds 1 data set"):
        poisson_test(x, rho=[0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="^folds has 2 values but x holds 3 data sets"):
        poisson_test(np.stack([x, x, x]), folds=[10, 5])


@pytest.mark.parametrize("alpha,error", [(0, ValueError), (1, ValueError), (np.nan, ValueError),
                                         (-0.5, ValueError), ("0.05", TypeError), (None, TypeError)])
def test_alpha_checked_by_name(alpha, error):
    with pytest.raises(error, match="^alpha must"):
        poisson_test(np.random.default_rng(5).normal(size=(3, 10)), folds=10, alpha=alpha)


def test_empty_problem_is_an_error():
    with pytest.raises(ValueError, match="no data sets"):
        poisson_test(np.zeros((0, 10)), folds=10)
    with pytest.raises(ValueError, match="at least 2"):
        poisson_test(np.zeros((3, 1)), folds=10)
    with pytest.raises(ValueError, match="^mu0 must be finite"):
        poisson_test(np.ones((3, 10)), folds=10, prior=pp_corr.NormalGamma(np.nan, 1.0, 1.0, 1.0))


def test_a_pair_uses_the_data_sets_where_both_have_scores():
    """knn not run on 'iris': the test counts the other three data sets, equals the complete data's test on them
    exactly, and names 'iris' in its fields and its printout; no common data set is an error naming the pair."""
    scores = pp_corr.load_scores(pp_corr.example_path())
    gappy = scores.copy(deep=True)
    gappy["score"] = gappy.score.where(~((gappy.dataset == "iris") & (gappy.algorithm == "knn")))
    res = poisson_test(gappy, algorithms=("tree", "knn"), rope=0.01)
    restricted = poisson_test(scores.isel(dataset=[1, 2, 3]), algorithms=("tree", "knn"), rope=0.01)
    assert (res.n_datasets, res.left_out, restricted.left_out) == (3, ("iris",), ())
    assert (res.p_b_majority, res.p_a_majority) == (restricted.p_b_majority, restricted.p_a_majority)
    assert "left out: 1 data set where tree and knn do not both have scores: iris" in repr(res)
    assert "left out" not in repr(restricted)
    assert res.to_dict()["left_out"] == ["iris"] and res.to_xarray().attrs["left_out"] == "iris"
    with pytest.raises(ValueError, match=r"'tree' and 'knn' have no data set where both have scores"):
        poisson_test(gappy.sel(dataset=["iris"]), algorithms=("tree", "knn"))


Q = 5


ROPE = 0.004


NAMES = ("svm", "knn")


@pytest.fixture(scope="module")
def case():
    """q = 5 data sets where B (knn) is better at alpha = 0.1, and the enumerated answer."""
    x = make_differences(Q, seed=7)
    x = x + 0.02 + 0.01 * np.arange(Q)[:, None] / Q
    p_right, p_left = posterior_tails(x, ROPE)
    pmf_b, pmf_a = count_distribution(p_right), count_distribution(p_left)
    majority = np.arange(Q + 1) > Q / 2
    expected = {"p_right": p_right, "p_left": p_left, "pmf_b": pmf_b, "pmf_a": pmf_a,
                "p_b_majority": pmf_b[majority].sum(), "p_a_majority": pmf_a[majority].sum()}
    assert expected["p_b_majority"] > 0.9 > expected["p_a_majority"]   # a decision for B at alpha = 0.1
    res = poisson_test(x, folds=FOLDS, rope=ROPE, alpha=0.1, names=NAMES)
    return res, expected


class TestResult:
    """What a user reads off a Poisson test: every key of ``to_dict``, every variable, dimension, coordinate
    and attribute of ``to_xarray``, and the numbers in the repr, against the enumerated answer."""

    def test_to_dict_keys_and_values(self, case):
        res, expected = case
        d = res.to_dict()
        assert d.pop("left_out") == []
        assert set(d) == {"a", "b", "rope", "rho", "prior", "n_datasets", "p_b_majority", "p_a_majority", "alpha",
                          "decision", "results"}   # and left_out, popped above
        assert (d["a"], d["b"], d["n_datasets"], d["alpha"], d["decision"]) == ("svm", "knn", Q, 0.1, "knn")
        for key in ("p_b_majority", "p_a_majority"):
            assert d[key] == pytest.approx(expected[key], rel=1e-10), key
        assert [r["dataset"] for r in d["results"]] == [f"D{i + 1}" for i in range(Q)]
        assert [r["p_right"] for r in d["results"]] == pytest.approx(expected["p_right"].tolist(), rel=1e-10)

    def test_to_xarray_variables_dimensions_coordinates_and_attributes(self, case):
        res, expected = case
        ds = res.to_xarray()
        assert set(ds.data_vars) == {"pmf_b", "pmf_a", "p_right", "p_left"}
        assert set(ds.coords) == {"count", "dataset"}
        assert ds.indexes["count"].tolist() == list(range(Q + 1))
        assert ds.indexes["dataset"].tolist() == [f"D{i + 1}" for i in range(Q)]
        for name in ("pmf_b", "pmf_a"):
            assert ds[name].dims == ("count",)
            np.testing.assert_allclose(ds[name].values, expected[name], rtol=1e-10, atol=1e-15, err_msg=name)
        for name in ("p_right", "p_left"):
            assert ds[name].dims == ("dataset",)
            np.testing.assert_allclose(ds[name].values, expected[name], rtol=1e-10, err_msg=name)
        assert set(ds.attrs) == {"a", "b", "p_b_majority", "p_a_majority", "alpha", "decision", "left_out"}
        assert (ds.attrs["a"], ds.attrs["b"], ds.attrs["alpha"], ds.attrs["decision"], ds.attrs["left_out"]) == (
            "svm", "knn", 0.1, "knn", "")
        for key in ("p_b_majority", "p_a_majority"):
            assert ds.attrs[key] == pytest.approx(expected[key], rel=1e-10), key

    def test_repr_states_the_count_and_the_numbers(self, case):
        res, expected = case
        lines = repr(res).splitlines()
        assert lines[0] == f"Poisson test, knn vs svm on {Q} data sets (rope {(-ROPE, ROPE)}):"
        labels = ["expected number of data sets where knn is better", "P(knn better on a majority)",
                  "P(svm better on a majority)"]
        values = [expected["p_right"].sum(), expected["p_b_majority"], expected["p_a_majority"]]
        for line, label, value in zip(lines[1:4], labels, values):   # no one-data-set note for q = 5
            match = re.fullmatch(rf"  {re.escape(label)}(?::| =) (\S+)", line)
            assert match, line
            assert float(match[1]) == pytest.approx(value, abs=0.005), line
        assert lines[4] == "  decision at alpha = 0.1: knn"
        assert len(lines) == 5


# --- bad and extreme inputs (issue #10); the majority by enumeration, an independent oracle (issue #19) -------------


class TestPoissonTestArguments:
    @campaign(30)
    @given(alpha=st.sampled_from([NAN, INF, 0.0, 1.0, 2.0, -0.1, "0.05"]), x=matrices(grid(), q=(1, 4), n=(3, 8)))
    def test_poisson_test_refuses_bad_alpha(self, alpha, x):
        check_error(lambda: poisson_test(x, rho=0.1, alpha=alpha), ("alpha",))

    @campaign(50)
    @given(x=matrices(grid(-20, 20), q=(1, 6), n=(3, 6)), rho=st.sampled_from([0.0, 0.1]),
           rope=st.sampled_from([None, 0.05, (-0.1, 0.02)]), alpha=st.sampled_from([0.05, 0.2]))
    def test_poisson_test_matches_exact_enumeration(self, x, rho, rope, alpha):
        assume(np.all(np.ptp(x, axis=-1) > 0))
        res = quiet(poisson_test, x, rho=rho, rope=rope, alpha=alpha)
        assert isinstance(res, pp_corr.PoissonTestResult)
        bounds = rope_bounds(rope)
        probs = t_oracle(x, rho, bounds)
        q = x.shape[0]
        pmf_b = poisson_binomial_exact(probs[:, 2])
        pmf_a = poisson_binomial_exact(probs[:, 0])
        p_b = float(sum(pmf_b[k] for k in range(q + 1) if 2 * k > q))
        p_a = float(sum(pmf_a[k] for k in range(q + 1) if 2 * k > q))
        assert_probability("p_b_majority", res.p_b_majority)
        assert_probability("p_a_majority", res.p_a_majority)
        assert_close([res.p_b_majority, res.p_a_majority], [p_b, p_a], "P(majority) vs enumeration", rtol=1e-6,
                     atol=1e-8)
        expected = "B" if res.p_b_majority > 1 - alpha else "A" if res.p_a_majority > 1 - alpha else "none"
        names = getattr(res, "names", ("A", "B"))
        assert res.decision() in (expected, {"A": names[0], "B": names[1]}.get(expected, expected))


class TestMajorityByEnumeration:
    @pytest.mark.parametrize("q", [4, 6, 7, 10])
    def test_majority_is_strictly_more_than_half_by_enumeration(self, q):
        x = make_differences(q, seed=q)
        p_right, _ = posterior_tails(x)
        pmf = count_distribution(p_right)
        counts = np.arange(q + 1)
        res = poisson_test(x, folds=FOLDS)
        np.testing.assert_allclose(res.per_dataset.p_right, p_right, rtol=1e-10)
        assert res.p_b_majority == pytest.approx(pmf[counts > q / 2].sum(), rel=1e-10)
        # without a rope A wins where B does not: Y = q - X
        assert res.p_a_majority == pytest.approx(pmf[q - counts > q / 2].sum(), rel=1e-10)
        if q % 2 == 0:
            # a tie (X = q/2) is a majority for neither; it is likely here, so counting it would show
            assert pmf[q // 2] > 0.15
            assert res.p_b_majority < pmf[counts >= q / 2].sum() - 0.1
            assert res.p_a_majority < pmf[q - counts >= q / 2].sum() - 0.1
            assert res.p_b_majority + res.p_a_majority == pytest.approx(1 - pmf[q // 2], rel=1e-10)
        else:
            assert res.p_b_majority + res.p_a_majority == pytest.approx(1, rel=1e-10)

    @pytest.mark.parametrize("q", [4, 7])
    def test_with_a_rope_each_side_has_its_own_count(self, q):
        rope = 0.004
        x = make_differences(q, seed=100 + q)
        p_right, p_left = posterior_tails(x, rope)
        assert (p_right + p_left < 0.97).all()          # the rope holds real mass, so Y != q - X
        res = poisson_test(x, folds=FOLDS, rope=rope)
        counts = np.arange(q + 1)
        assert res.p_b_majority == pytest.approx(count_distribution(p_right)[counts > q / 2].sum(), rel=1e-10)
        assert res.p_a_majority == pytest.approx(count_distribution(p_left)[counts > q / 2].sum(), rel=1e-10)

    @pytest.mark.parametrize("shift,decision", [(1.5, "B"), (-1.5, "A"), (0.0, "none")])
    def test_decision_follows_the_enumerated_majority(self, shift, decision):
        q = 7
        x = make_differences(q, seed=200)
        n = x.shape[1]
        x = x + shift * x.std(axis=1, ddof=1, keepdims=True) * np.sqrt(1 / n + RHO / (1 - RHO))  # t moves by shift
        p_right, p_left = posterior_tails(x)
        counts = np.arange(q + 1)
        b, a = (count_distribution(p)[counts > q / 2].sum() for p in (p_right, p_left))
        expected = "B" if b > 0.95 else "A" if a > 0.95 else "none"
        assert expected == decision
        assert poisson_test(x, folds=FOLDS, alpha=0.05).decision() == decision


class TestPoissonTestResultProtocol:
    X = np.random.default_rng(5).normal(0.004, 0.02, size=(8, 10))

    def test_contract(self):
        check_result(poisson_test(self.X, folds=10))

    def test_frame_numbers_are_the_fields(self):
        res = poisson_test(self.X, folds=10, rope=0.005)
        frame = res.to_frame()
        np.testing.assert_array_equal(frame["p_right"], res.per_dataset.p_right)
        np.testing.assert_array_equal(frame["p_left"], res.per_dataset.p_left)
        assert (frame["p_b_majority"] == res.p_b_majority).all() and (frame["decision"] == res.decision()).all()
        record = json.loads(json.dumps(res.to_dict()))
        assert (record["p_b_majority"], record["p_a_majority"]) == (res.p_b_majority, res.p_a_majority)

    @pytest.mark.parametrize("alpha", [0.05, 0.6])
    def test_decision_at_any_alpha_from_the_majority_probabilities(self, alpha):
        res = poisson_test(self.X, folds=10)
        want = "B" if res.p_b_majority > 1 - alpha else "A" if res.p_a_majority > 1 - alpha else "none"
        assert res.decision(alpha) == want == poisson_test(self.X, folds=10, alpha=alpha).decision()
        assert res.summary(alpha=alpha).endswith(f"decision at alpha = {alpha}: {want}")

    def test_the_tests_alpha_is_the_default_and_a_bad_one_is_refused(self):
        res = poisson_test(self.X, folds=10, alpha=0.6)
        assert res.decision() == res.decision(0.6)
        with pytest.raises(ValueError, match="^alpha must"):
            res.decision(1.0)
