"""What a user reads off a Poisson test, checked against an enumeration written here (issue #19, mutation
survivors): every key of ``to_dict``, every variable, dimension, coordinate and attribute of ``to_xarray``, and the
numbers in the repr. The per-data-set probabilities come from scipy's Student-t (the matching-prior posterior) and
the counts' distributions from all 2^q outcomes (tests/test_oracles_poisson.py)."""
import re

import numpy as np
import pytest

from pp_corr import poisson_test
from tests.test_oracles_poisson import FOLDS, count_distribution, make_differences, posterior_tails

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


def test_to_dict_keys_and_values(case):
    res, expected = case
    d = res.to_dict()
    assert d.pop("left_out") == []
    assert set(d) == {"a", "b", "n_datasets", "p_b_majority", "p_a_majority", "alpha", "decision", "pmf_b", "pmf_a",
                      "p_right"}
    assert (d["a"], d["b"], d["n_datasets"], d["alpha"], d["decision"]) == ("svm", "knn", Q, 0.1, "knn")
    for key in ("p_b_majority", "p_a_majority"):
        assert d[key] == pytest.approx(expected[key], rel=1e-10), key
    for key in ("pmf_b", "pmf_a"):
        assert d[key] == pytest.approx(expected[key].tolist(), rel=1e-10, abs=1e-15), key
    assert list(d["p_right"]) == [f"D{i + 1}" for i in range(Q)]
    assert list(d["p_right"].values()) == pytest.approx(expected["p_right"].tolist(), rel=1e-10)


def test_to_xarray_variables_dimensions_coordinates_and_attributes(case):
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


def test_repr_states_the_count_and_the_numbers(case):
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
