import numpy as np
import pytest

from pp_corr import correlated_ttest, poisson_test


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
    assert res.p_b_majority < 1e-6 and res.p_a_majority < 1e-6 and res.decision == "none"
    np.testing.assert_allclose(res.distribution_a.pmf(), poisson_test(-x, folds=10, rope=0.01).distribution.pmf(),
                               rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("shift,winner", [(0.02, "B"), (-0.02, "A"), (0.0, "none")])
def test_decision(shift, winner):
    x = np.random.default_rng(2).normal(shift, 0.02, size=(30, 10))
    if shift == 0:
        x -= x.mean(axis=1, keepdims=True) * np.resize([1, 1.0], (30, 1))
        x[::2] += 0.004
        x[1::2] -= 0.004
    assert poisson_test(x, folds=10).decision == winner


def test_uci54_names_and_exports(uci54):
    res = poisson_test(uci54, algorithms=("nbc", "hnb"))
    assert "hnb better on a majority" in repr(res) and res.decision == "hnb"
    assert res.to_xarray().pmf_b.sum() == pytest.approx(1)
    assert res.to_dict()["p_right"]["anneal"] == correlated_ttest(uci54, algorithms=("nbc", "hnb")).p_right[0]
