import numpy as np
import pytest
from scipy import stats

from pp_corr import (bayesian_sign_test, bayesian_signed_rank, imprecise_signed_rank, mean_differences, sign_test,
                     wilcoxon_test)
from pp_corr.rank_tests import IDP_STRENGTH, heaviside

N = 50_000


def within_mc_error(samples, value, k=4):
    return abs(samples.mean() - value) <= k * samples.std() / np.sqrt(len(samples))


def test_dp_mean_equals_r_plus():
    z = np.random.default_rng(0).normal(0.01, 0.02, size=30)
    res = bayesian_signed_rank(z, prior_strength=0, n_samples=N, random_seed=1)
    t_plus = stats.wilcoxon(z, alternative="greater").statistic
    assert within_mc_error(res.samples[:, 2], 2 * t_plus / (30 * 31))
    assert res.p_rope == pytest.approx(0, abs=1e-12)
    assert res.win_right == pytest.approx(np.mean(res.samples[:, 2] > 0.5))


def test_imprecise_means_equal_closed_forms(uci54):
    z, _, _ = mean_differences(uci54, algorithms=("nbc", "aode"))
    q, s = len(z), IDP_STRENGTH
    res = imprecise_signed_rank(z, n_samples=N, random_seed=2)
    h = heaviside(z[:, None] + z[None, :])
    lower = (h.sum() + np.trace(h)) / ((s + q) * (s + q + 1))
    assert res.lower_mean == pytest.approx(lower, rel=1e-12)
    assert res.upper_mean == pytest.approx(lower + (s**2 + 2 * q * s + s) / ((s + q) * (s + q + 1)), rel=1e-12)
    # the same means by simulation, from the DESIGN definitions
    rng = np.random.default_rng(3)
    w = rng.dirichlet(np.concatenate([[s], np.ones(q)]), size=N)
    g = np.einsum("ni,ij,nj->n", w[:, 1:], heaviside(z[:, None] + z[None, :]), w[:, 1:])
    assert within_mc_error(g, res.lower_mean)
    assert within_mc_error(w[:, 0] * (2 - w[:, 0]) + g, res.upper_mean)
    assert 0 <= res.lower <= res.upper <= 1
    # DESIGN.md section 5 prints the lower mean without the diagonal's second moment: that misses the
    # simulation above by far more than its error, and would not tend to R+ as s -> 0
    assert not within_mc_error(g, h.sum() / ((s + q) * (s + q + 1)), k=20)


def test_imprecise_lower_mean_tends_to_r_plus():
    z = np.random.default_rng(10).normal(0.01, 0.02, size=25)
    h = heaviside(z[:, None] + z[None, :])
    t_plus = stats.wilcoxon(z, alternative="greater").statistic
    assert (h.sum() + np.trace(h)) / (25 * 26) == pytest.approx(2 * t_plus / (25 * 26), rel=1e-12)


def test_imprecise_decisions():
    rng = np.random.default_rng(4)
    assert imprecise_signed_rank(rng.normal(0.02, 0.01, 30), random_seed=0).decision == "B"
    assert imprecise_signed_rank(rng.normal(-0.02, 0.01, 30), random_seed=0).decision == "A"
    few = imprecise_signed_rank([0.01, 0.02, -0.005, 0.01, 0.015], random_seed=0)
    assert few.decision == "indeterminate" and few.lower < few.threshold < few.upper


def test_rope_variant_is_antisymmetric_and_seeded():
    z = np.random.default_rng(5).normal(0.005, 0.02, size=40)
    one = bayesian_signed_rank(z, rope=0.01, random_seed=6)
    other = bayesian_signed_rank(-z, rope=0.01, random_seed=6)
    np.testing.assert_allclose(one.samples[:, ::-1], other.samples, atol=1e-12)
    np.testing.assert_array_equal(one.samples, bayesian_signed_rank(z, rope=0.01, random_seed=6).samples)
    assert sum(one.wins) == pytest.approx(1) and np.allclose(one.samples.sum(axis=1), 1)


def test_rope_variant_means_by_definition():
    z = np.random.default_rng(7).normal(0.005, 0.02, size=20)
    res = bayesian_signed_rank(z, rope=0.01, prior_strength=0.5, z0=0.0, n_samples=N, random_seed=8)
    pts = np.concatenate([[0.0], z])
    alpha = np.concatenate([[0.5], np.ones(20)])
    pair = pts[:, None] + pts[None, :]
    # E[w_i w_j] of a Dirichlet: alpha_i (alpha_j + [i = j]) / (S (S + 1))
    S = alpha.sum()
    moments = (np.outer(alpha, alpha) + np.diag(alpha)) / (S * (S + 1))
    assert within_mc_error(res.samples[:, 2], (moments * heaviside(pair - 0.02)).sum())
    assert within_mc_error(res.samples[:, 0], (moments * heaviside(-pair - 0.02)).sum())


def test_sign_test_means():
    z = np.array([0.02, 0.01, 0.03, -0.02, 0.002, 0.05, -0.001])
    res = bayesian_sign_test(z, rope=0.005, prior_strength=1.0, n_samples=N, random_seed=9)
    expected = np.array([1, 2 + 1, 4]) / 8
    for i in range(3):
        assert within_mc_error(res.samples[:, i], expected[i])
    assert res.decision() in ("none", "B")


def test_frequentist_equal_scipy(uci54):
    z, _, _ = mean_differences(uci54, algorithms=("nbc", "hnb"))
    for alt in ("two-sided", "greater", "less"):
        assert wilcoxon_test(uci54, algorithms=("nbc", "hnb"), alternative=alt).pvalue == \
            stats.wilcoxon(z, alternative=alt).pvalue
    assert sign_test(z).pvalue == stats.binomtest(int((z > 0).sum()), int((z != 0).sum())).pvalue


def test_bad_input():
    with pytest.raises(ValueError, match="rope"):
        bayesian_signed_rank([0.1, 0.2], rope=-1)
    with pytest.raises(ValueError, match="NaN"):
        bayesian_sign_test([0.1, np.nan])
    with pytest.raises(ValueError, match="alternative"):
        wilcoxon_test([0.1, 0.2, 0.3], alternative="bigger")
