"""All 10 pairs x 54 data sets of the shared uci54 results against the analytic posterior written out in conftest
(:func:`tests.conftest.formula_probs`)."""
import itertools
import warnings

import numpy as np
import pytest

from pp_corr import DegenerateWarning, NormalGamma, correlated_ttest
from tests.conftest import formula_probs


@pytest.mark.parametrize("prior", [None, NormalGamma(0.0, 1.0, 1.0, 0.001)], ids=["matching", "proper"])
def test_all_pairs_match_formula(uci54, prior):
    algos = [str(a) for a in uci54.algorithm.values]
    degenerate = 0
    for a, b in itertools.combinations(algos, 2):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = correlated_ttest(uci54, algorithms=(a, b), rope=0.01, prior=prior)
        assert all(issubclass(w.category, DegenerateWarning) for w in caught), [str(w.message) for w in caught]
        assert len(caught) == int(res.degenerate.any())
        degenerate += int(res.degenerate.sum())
        diff = (uci54.score.sel(algorithm=b) - uci54.score.sel(algorithm=a)).values.reshape(54, -1)
        expected = np.array([formula_probs(row, 0.1, 0.01, prior) for row in diff])
        got = np.column_stack([res.p_left, res.p_rope, res.p_right])
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9, err_msg=f"{a} vs {b}")
    # the shared data's README counts 24 zero-variance (pair, data set) combinations
    assert degenerate == (24 if prior is None else 0)


def test_names_and_orientation(uci54):
    res = correlated_ttest(uci54, algorithms=("nbc", "hnb"))
    assert res.names == ("nbc", "hnb") and res.datasets[0] == "anneal"
    assert "P(hnb better)" in repr(res) and "hnb - nbc" in repr(res)
    diff = uci54.score.sel(algorithm="hnb", dataset="anneal") - uci54.score.sel(algorithm="nbc", dataset="anneal")
    assert res.mean[0] == pytest.approx(float(diff.mean()), abs=1e-15)
    assert res.to_xarray().p_right.sel(dataset="anneal") == res.p_right[0]
    with pytest.raises(ValueError, match="choose two"):
        correlated_ttest(uci54)
    with pytest.raises(ValueError, match="'svm'"):
        correlated_ttest(uci54, algorithms=("nbc", "svm"))
