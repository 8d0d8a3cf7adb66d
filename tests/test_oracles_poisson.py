"""Independent oracle for the Poisson test's majority threshold (issue #19): P(X > q/2) strictly, by exact
enumeration of all 2^q outcomes, for even and odd q, with per-data-set probabilities computed here from the
matching-prior posterior (a Student-t) with scipy (tests/conftest.py)."""
import numpy as np
import pytest

from pp_corr import poisson_test
from tests.conftest import FOLDS, RHO, count_distribution, make_differences, posterior_tails


@pytest.mark.parametrize("q", [4, 6, 7, 10])
def test_majority_is_strictly_more_than_half_by_enumeration(q):
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
def test_with_a_rope_each_side_has_its_own_count(q):
    rope = 0.004
    x = make_differences(q, seed=100 + q)
    p_right, p_left = posterior_tails(x, rope)
    assert (p_right + p_left < 0.97).all()          # the rope holds real mass, so Y != q - X
    res = poisson_test(x, folds=FOLDS, rope=rope)
    counts = np.arange(q + 1)
    assert res.p_b_majority == pytest.approx(count_distribution(p_right)[counts > q / 2].sum(), rel=1e-10)
    assert res.p_a_majority == pytest.approx(count_distribution(p_left)[counts > q / 2].sum(), rel=1e-10)


@pytest.mark.parametrize("shift,decision", [(1.5, "B"), (-1.5, "A"), (0.0, "none")])
def test_decision_follows_the_enumerated_majority(shift, decision):
    q = 7
    x = make_differences(q, seed=200)
    n = x.shape[1]
    x = x + shift * x.std(axis=1, ddof=1, keepdims=True) * np.sqrt(1 / n + RHO / (1 - RHO))  # t moves by shift
    p_right, p_left = posterior_tails(x)
    counts = np.arange(q + 1)
    b, a = (count_distribution(p)[counts > q / 2].sum() for p in (p_right, p_left))
    expected = "B" if b > 0.95 else "A" if a > 0.95 else "none"
    assert expected == decision
    assert poisson_test(x, folds=FOLDS, alpha=0.05).decision == decision
