"""Independent oracles for the signed-rank tests (issue #19): the imprecise DP's lower and upper probabilities
and posterior means, the 1/2 weight of exact ties, and the B - A orientation taken from raw scores.

Every expected value here is written from the definitions (Dirichlet weights drawn here, Dirichlet moments,
scipy), never from the library's helpers."""
import numpy as np
import pytest
from scipy import stats

from pp_corr import (bayesian_sign_test, bayesian_signed_rank, compare_all_pairs, imprecise_signed_rank, load_scores,
                     poisson_test, sign_test, wilcoxon_test)

S_IDP = (np.sqrt(17) - 3) / 2
N = 50_000


def step(v):
    """H(v): 1 above zero, 0 below, 1/2 at exactly zero."""
    v = np.asarray(v, dtype=float)
    return (v > 0) + 0.5 * (v == 0)


def pair_sums(z):
    z = np.asarray(z, dtype=float)
    return z[:, None] + z[None, :]


def dirichlet_second_moments(alpha):
    """E[w_i w_j] of Dir(alpha): (alpha_i alpha_j + alpha_i [i = j]) / (S (S + 1))."""
    alpha = np.asarray(alpha, dtype=float)
    total = alpha.sum()
    return (np.outer(alpha, alpha) + np.diag(alpha)) / (total * (total + 1))


def idp_draws(z, n, seed):
    """(w0, lower g, upper g) of the imprecise DP, drawn here: (w0, w) ~ Dir(s, 1, ..., 1)."""
    z = np.asarray(z, dtype=float)
    w = np.random.default_rng(seed).dirichlet(np.concatenate([[S_IDP], np.ones(len(z))]), size=n)
    lower = np.einsum("ni,ij,nj->n", w[:, 1:], step(pair_sums(z)), w[:, 1:])
    return w[:, 0], lower, w[:, 0] * (2 - w[:, 0]) + lower


def close_in_mc(p_lib, n_lib, p_own, n_own, k=4):
    """Two Monte Carlo estimates of one probability agree within k standard errors of their difference."""
    p = (p_lib * n_lib + p_own * n_own) / (n_lib + n_own)
    se = np.sqrt(max(p * (1 - p), 1 / n_own) * (1 / n_lib + 1 / n_own))
    return abs(p_lib - p_own) <= k * se


# small q keeps w0 large, so lower and upper are far apart; the decisions cover B, A and indeterminate at the
# default threshold 0.95 and at 1/2 (loss ratio 1)
IDP_CASES = [
    ([0.02, 0.01, 0.03, -0.005], 19.0, "indeterminate"),          # lower ~ .81, upper ~ .99
    ([0.02, -0.01, -0.015], 19.0, "A"),                           # lower ~ .31, upper ~ .69
    ([0.03, 0.02, 0.01, 0.04, 0.01, 0.02, 0.005, 0.01, 0.02, 0.03], 19.0, "B"),   # lower ~ .99
    ([0.02, 0.01, -0.015, 0.005], 1.0, "B"),                      # lower ~ .59, upper ~ .88
    ([0.02, -0.01, -0.03, -0.005], 1.0, "A"),                     # lower ~ .12, upper ~ .42
    ([0.02, -0.01, -0.015], 1.0, "indeterminate"),                # lower ~ .31, upper ~ .69
]


@pytest.mark.parametrize("z,loss_ratio,decision", IDP_CASES)
def test_imprecise_lower_and_upper_probabilities_by_simulation(z, loss_ratio, decision):
    res = imprecise_signed_rank(z, loss_ratio=loss_ratio, draws=N, random_seed=11)
    _, lower, upper = idp_draws(z, N, seed=12)
    own_lower, own_upper = np.mean(lower > 0.5), np.mean(upper > 0.5)
    assert close_in_mc(res.lower, N, own_lower, N), (res.lower, own_lower)
    assert close_in_mc(res.upper, N, own_upper, N), (res.upper, own_upper)
    threshold = loss_ratio / (1 + loss_ratio)
    assert res.threshold == pytest.approx(threshold, rel=1e-12)
    # the documented rule on the independent estimates (each case is far from its threshold)
    expected = "B" if own_lower > threshold else "A" if own_upper < threshold else "indeterminate"
    assert expected == decision and res.decision == decision


def test_upper_probability_is_sensitive_to_the_upper_bound():
    """The case above where the upper bound decides: the w0 (2 - w0) term moves P(upper g > 1/2) far more
    than the Monte Carlo error, so a wrong upper-bound formula (w0 alone, w0^2, no term) cannot pass."""
    z = [0.02, -0.01, -0.015]
    res = imprecise_signed_rank(z, draws=N, random_seed=11)
    w0, lower, _ = idp_draws(z, N, seed=12)
    for wrong in (w0 + lower, w0**2 + lower, lower, w0 * (1 - w0) + lower):
        assert not close_in_mc(res.upper, N, np.mean(wrong > 0.5), N, k=8)


@pytest.mark.parametrize("z", [
    [0.02, -0.01, -0.015],
    [0.0, 0.0, 0.25, -0.25, 0.5, -0.125, 0.125, 0.375],   # exact ties: z_i = 0 and z_i + z_j = 0
    np.random.default_rng(13).normal(0.01, 0.02, 30),
])
def test_imprecise_posterior_means_from_dirichlet_moments(z):
    q = len(z)
    moments = dirichlet_second_moments(np.concatenate([[S_IDP], np.ones(q)]))
    lower = (moments[1:, 1:] * step(pair_sums(z))).sum()
    # E[w0 (2 - w0)] = 2 E[w0] - E[w0^2]
    upper = lower + 2 * S_IDP / (S_IDP + q) - moments[0, 0]
    res = imprecise_signed_rank(z, draws=2000, random_seed=14)
    assert res.lower_mean == pytest.approx(lower, rel=1e-9)
    assert res.upper_mean == pytest.approx(upper, rel=1e-9)
    # and the moments themselves against draws made here
    _, g_lower, g_upper = idp_draws(z, N, seed=15)
    for draws, mean in ((g_lower, lower), (g_upper, upper)):
        assert abs(draws.mean() - mean) <= 4 * draws.std() / np.sqrt(N)


TIES = np.array([0.0, 0.0, 0.25, -0.25, 0.5, -0.125, 0.125, 0.375])  # dyadic: every sum below is exact


@pytest.mark.parametrize("prior_strength,rope", [(0.0, 0.0), (0.5, 0.0), (0.5, 0.125), (0.0, 0.0625)])
def test_signed_rank_exact_ties_count_one_half(prior_strength, rope):
    """Pair sums exactly at the boundary (z_i = 0, z_i + z_j = 0, z_i + z_j = 2r) weigh 1/2 on each side
    they touch. Expected means from the Dirichlet moments; the shares of largest regions from draws made here."""
    z0 = 0.0
    points = TIES if prior_strength == 0 else np.concatenate([[z0], TIES])
    alpha = np.ones(len(TIES)) if prior_strength == 0 else np.concatenate([[prior_strength], np.ones(len(TIES))])
    sums = pair_sums(points)
    assert (sums - 2 * rope == 0).sum() >= 2 and (sums == 0).sum() >= 2  # ties at the boundaries do occur
    moments = dirichlet_second_moments(alpha)
    right, left = (moments * step(sums - 2 * rope)).sum(), (moments * step(-sums - 2 * rope)).sum()
    res = bayesian_signed_rank(TIES, rope=rope, prior_strength=prior_strength, z0=z0, draws=N, random_seed=16)
    for column, mean in ((2, right), (0, left)):
        draws = res.samples[:, column]
        assert abs(draws.mean() - mean) <= 4 * draws.std() / np.sqrt(N), (column, draws.mean(), mean)
    # counting the ties as 0 or 1 instead of 1/2 moves the means by far more than the error
    for wrong in ((sums - 2 * rope > 0), (sums - 2 * rope >= 0)):
        assert abs(res.samples[:, 2].mean() - (moments * wrong).sum()) > 20 * res.samples[:, 2].std() / np.sqrt(N)
    if rope == 0:
        assert res.p_rope == pytest.approx(0, abs=1e-9)  # the half weights of a tie go left and right
    # shares of the largest region, by simulation here (regions tied in a draw share it equally)
    w = np.random.default_rng(17).dirichlet(alpha, size=N)
    own_left, own_right = (np.einsum("ni,ij,nj->n", w, step(v), w) for v in (-sums - 2 * rope, sums - 2 * rope))
    own = np.stack([own_left, 1 - own_left - own_right, own_right], axis=1)
    top = np.isclose(own, own.max(axis=1, keepdims=True), rtol=0, atol=1e-12)
    own_wins = (top / top.sum(axis=1, keepdims=True)).mean(axis=0)
    for lib, mine in zip((res.win_left, res.win_rope, res.win_right), own_wins):
        assert close_in_mc(lib, N, mine, N), (res.wins, own_wins)


def test_imprecise_exact_ties_count_one_half():
    res = imprecise_signed_rank(TIES, draws=N, random_seed=18)
    _, lower, upper = idp_draws(TIES, N, seed=19)
    assert close_in_mc(res.lower, N, np.mean(lower > 0.5), N)
    assert close_in_mc(res.upper, N, np.mean(upper > 0.5), N)
    # H(0) = 0 or 1 would give other lower means (the closed form with ties is checked above)
    moments = dirichlet_second_moments(np.concatenate([[S_IDP], np.ones(len(TIES))]))[1:, 1:]
    for wrong in (pair_sums(TIES) > 0, pair_sums(TIES) >= 0):
        assert abs(res.lower_mean - (moments * wrong).sum()) > 0.01


# ---- orientation: B - A from raw scores, B better on 8 of 10 data sets --------------------------------------------

@pytest.fixture(scope="module")
def raw():
    rng = np.random.default_rng(20)
    old = rng.uniform(0.7, 0.9, (10, 1)) + rng.normal(0, 0.02, (10, 20))
    gain = np.array([0.03, 0.025, 0.04, 0.03, 0.035, 0.02, 0.03, 0.045, -0.01, -0.015])
    new = old + gain[:, None] + rng.normal(0, 0.01, (10, 20))
    scores = load_scores({"old": old, "new": new}, runs=2)
    z = new.mean(axis=1) - old.mean(axis=1)   # computed here from the raw scores, not by the library
    assert (z > 0).sum() == 8 and (z != 0).all()
    return scores, z


def test_every_rank_test_reads_b_minus_a_from_raw_scores(raw):
    scores, z = raw
    ab, ba = ("old", "new"), ("new", "old")
    greater = wilcoxon_test(scores, algorithms=ab, alternative="greater").pvalue
    assert greater == pytest.approx(stats.wilcoxon(z, alternative="greater").pvalue, rel=1e-12) and greater < 0.05
    assert wilcoxon_test(scores, algorithms=ba, alternative="greater").pvalue > 0.95
    assert wilcoxon_test(scores, algorithms=ba, alternative="less").pvalue == pytest.approx(greater, rel=1e-12)
    assert sign_test(scores, algorithms=ab, alternative="greater").pvalue == pytest.approx(
        stats.binomtest(8, 10, alternative="greater").pvalue, rel=1e-12)
    for test in (bayesian_signed_rank, bayesian_sign_test):
        right, left = (test(scores, algorithms=names, random_seed=21) for names in (ab, ba))
        assert right.p_right > 0.7 and right.p_left < 0.25, test.__name__
        assert left.p_left == pytest.approx(right.p_right, abs=0.02) and left.p_right < 0.25, test.__name__
        assert right.decision() == left.decision() == "new", test.__name__
    idp_ab, idp_ba = (imprecise_signed_rank(scores, algorithms=names, random_seed=22) for names in (ab, ba))
    assert idp_ab.lower > 0.95 and idp_ba.upper < 0.05 and idp_ab.decision == idp_ba.decision == "new"
    assert poisson_test(scores, algorithms=ab).p_b_majority > 0.95
    assert poisson_test(scores, algorithms=ba).p_a_majority > 0.95
    assert poisson_test(scores, algorithms=ab).decision == poisson_test(scores, algorithms=ba).decision == "new"


def test_all_pairs_reads_column_minus_row_from_raw_scores(raw):
    scores, z = raw
    table = compare_all_pairs(scores, rope=0.0, draws=20_000, random_seed=23)
    cell = table.sel(a="old", b="new")      # column "new" minus row "old"
    assert float(cell.wilcoxon_pvalue) == pytest.approx(stats.wilcoxon(z, alternative="greater").pvalue, rel=1e-12)
    assert float(table.wilcoxon_pvalue.sel(a="new", b="old")) > 0.95
    assert float(cell.signed_rank_right) > 0.7 and float(table.signed_rank_right.sel(a="new", b="old")) < 0.25
    assert float(cell.p_b_majority) > 0.95
    for test in ("poisson", "wilcoxon", "signed_rank"):
        assert cell[f"decision_{test}"] == "new" and table[f"decision_{test}"].sel(a="new", b="old") == "new"


def test_regions_tied_in_every_draw_share_the_win():
    """All differences zero, no rope: every draw gives P(left) = P(right) = 1/2 exactly (ties weigh 1/2 each
    way), so the two regions share each draw's win equally; the hierarchical new-data-set summary uses the
    same rule."""
    res = bayesian_signed_rank([0.0, 0.0, 0.0], prior_strength=0.0, draws=1000, random_seed=24)
    np.testing.assert_array_equal(res.samples, np.tile([0.5, 0.0, 0.5], (1000, 1)))
    assert (res.win_left, res.win_rope, res.win_right) == (0.5, 0.0, 0.5)
    assert res.decision() == "none"
