"""Independent oracles for the all-pairs matrices (issue #19) on the uci54 scores: every entry other than the
Poisson probabilities against scipy, Dirichlet moments, Dirichlet draws made here, and the documented decision
rules. Mean differences are computed here from the raw scores (column minus row), never by the library."""
import itertools

import numpy as np
import pytest
from scipy import stats

from pp_corr import bayesian_signed_rank, compare_all_pairs

N_LIB = 20_000      # the library's draws per pair
N_OWN = 20_000      # ours
SIGNED_RANK_PRIOR = 0.5   # documented defaults of the Bayesian signed-rank and sign tests, both at z0 = 0
SIGN_PRIOR = 1.0


def step(v):
    return (v > 0) + 0.5 * (v == 0)


def dirichlet_second_moments(c):
    """E[w_i w_j] of Dir(c): (c_i c_j + c_i [i = j]) / (S (S + 1)), S = sum c."""
    total = c.sum()
    return (np.outer(c, c) + np.diag(c)) / (total * (total + 1))


def mean_differences(d):
    """Per-data-set means, rounded to 1e-12 so that differences that are exactly zero (or exactly opposite) in
    exact arithmetic are so here too, whatever the order of the floating-point sum."""
    return np.round(d.mean(axis=1), 12)


def poisson_binomial_pmf(p):
    pmf = np.array([1.0])
    for pj in p:
        pmf = np.concatenate([pmf * (1 - pj), [0.0]]) + np.concatenate([[0.0], pmf * pj])
    return pmf


def majority_probability(d, rho, rope):
    """P(X > q/2), X = #{data sets with mu_i > rope}, under the matching prior: Student-t posteriors, and a
    point mass at the mean for a data set without variance."""
    n = d.shape[1]
    xbar, s = d.mean(axis=1), d.std(axis=1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = stats.t.sf(rope, n - 1, xbar, s * np.sqrt(1 / n + rho / (1 - rho)))
    point = (xbar > rope) + 0.5 * ((xbar == rope) & (rope == 0))   # P(mu > 0) = 1/2 for a point mass at 0
    p = np.where(s == 0, point, p)
    pmf = poisson_binomial_pmf(p)
    return pmf[np.arange(len(pmf)) > len(p) / 2].sum()


def shares_of_largest(samples):
    """Share of draws in which each of (left, rope, right) is largest, ties shared equally."""
    top = np.isclose(samples, samples.max(axis=1, keepdims=True), rtol=0, atol=1e-12)
    return (top / top.sum(axis=1, keepdims=True)).mean(axis=0)


def mc_margin(alpha):
    """4 standard errors of the difference of two estimates (ours, the library's) of a share near 1 - alpha."""
    return 4 * np.sqrt(alpha * (1 - alpha) * (1 / N_LIB + 1 / N_OWN))


def decision_from_shares(shares, names, alpha, margin):
    """The documented rule: the region largest in more than 1 - alpha of the draws, else "none"; None where
    Monte Carlo error could put a share on either side of 1 - alpha."""
    if (np.abs(shares - (1 - alpha)) < margin).any():
        return None
    labels = (names[0], "rope", names[1])
    best = int(np.argmax(shares))
    return labels[best] if shares[best] > 1 - alpha else "none"


# alpha 0.02 puts the level between shares that alpha 0.05 decides (e.g. hnb vs j48, about 0.97)
@pytest.fixture(scope="module", params=[(0.0, 0.05), (0.01, 0.05), (0.0, 0.02)],
                ids=["no rope", "rope 0.01", "no rope, alpha 0.02"])
def case(request, uci54):
    rope, alpha = request.param
    table = compare_all_pairs(uci54, rope=rope, alpha=alpha, draws=N_LIB, random_seed=0)
    scores = uci54.score.transpose("dataset", "algorithm", "run", "fold").values
    algorithms = list(uci54.algorithm.values)
    q = scores.shape[0]
    diffs = {(a, b): (scores[:, j] - scores[:, i]).reshape(q, -1)
             for (i, a), (j, b) in itertools.permutations(enumerate(algorithms), 2)}
    return rope, alpha, table, diffs, uci54.rho.values


def test_wilcoxon_pvalues_equal_scipy(case):
    _, alpha, table, diffs, _ = case
    checked = 0
    for (a, b), d in diffs.items():
        z = mean_differences(d)
        if (z == 0).any():
            continue   # zero differences: their handling is settled elsewhere
        expected = stats.wilcoxon(z, alternative="greater").pvalue
        assert float(table.wilcoxon_pvalue.sel(a=a, b=b)) == pytest.approx(expected, rel=1e-9), (a, b)
        # the documented rule: the column if its one-sided p-value is below alpha, the row if the reverse is
        reverse = stats.wilcoxon(-z, alternative="greater").pvalue
        rule = b if expected < alpha else a if reverse < alpha else "none"
        assert table.decision_wilcoxon.sel(a=a, b=b) == rule, (a, b)
        checked += 1
    assert checked >= 8


def signed_rank_terms(z, rope):
    """Prior weights and H(z_i + z_j - 2r), H(-z_i - z_j - 2r) over (z0 = 0, z), with the boundary decided in
    exact arithmetic (the pair sums rounded to 1e-12)."""
    points = np.concatenate([[0.0], z])
    concentration = np.concatenate([[SIGNED_RANK_PRIOR], np.ones(len(z))])
    sums = points[:, None] + points[None, :]
    return concentration, np.round(sums - 2 * rope, 12), np.round(-sums - 2 * rope, 12)


def test_signed_rank_means_and_decisions(case):
    rope, alpha, table, diffs, _ = case
    rng = np.random.default_rng(1)
    decided = checked = 0
    for (a, b), d in diffs.items():
        concentration, to_right, to_left = signed_rank_terms(mean_differences(d), rope)
        if rope > 0 and ((to_right == 0).any() or (to_left == 0).any()):
            continue   # pair sums exactly on the rope's edge: see test_pair_sums_on_the_rope_edge_weigh_one_half
        moments = dirichlet_second_moments(concentration)
        right, left = (moments * step(to_right)).sum(), (moments * step(to_left)).sum()
        w = rng.dirichlet(concentration, size=N_OWN)
        own_right = np.einsum("ni,ni->n", w @ step(to_right), w)
        own_left = np.einsum("ni,ni->n", w @ step(to_left), w)
        assert abs(own_right.mean() - right) <= 4 * own_right.std() / np.sqrt(N_OWN)   # the oracle itself
        assert abs(float(table.signed_rank_right.sel(a=a, b=b)) - right) <= 4 * own_right.std() / np.sqrt(N_LIB) \
            + 1e-12, (a, b, right)
        # p_left of (a, b) is p_right of (b, a)
        assert abs(float(table.signed_rank_right.sel(a=b, b=a)) - left) <= 4 * own_left.std() / np.sqrt(N_LIB) \
            + 1e-12, (a, b, left)
        checked += 1
        shares = shares_of_largest(np.column_stack([own_left, 1 - own_left - own_right, own_right]))
        rule = decision_from_shares(shares, (a, b), alpha, margin=mc_margin(alpha))
        if rule is not None:
            assert table.decision_signed_rank.sel(a=a, b=b) == rule, (a, b, shares)
            decided += 1
    assert checked >= (20 if rope == 0 else 14) and decided >= checked - 4


def test_pair_sums_on_the_rope_edge_weigh_one_half(uci54):
    """nbc - aode on uci54 has pair sums z_i + z_j exactly 0.02 (mean differences are ratios of counts)."""
    scores = uci54.score.transpose("dataset", "algorithm", "run", "fold")
    d = (scores.sel(algorithm="nbc") - scores.sel(algorithm="aode")).values.reshape(len(scores.dataset), -1)
    concentration, to_right, _ = signed_rank_terms(mean_differences(d), 0.01)
    assert (to_right == 0).sum() >= 2
    right = (dirichlet_second_moments(concentration) * step(to_right)).sum()
    res = bayesian_signed_rank(uci54, algorithms=("aode", "nbc"), rope=0.01, draws=200_000, random_seed=3)
    draws = res.samples[:, 2]
    assert abs(draws.mean() - right) <= 4 * draws.std() / np.sqrt(len(draws)), (draws.mean(), right)


def test_sign_means_and_decisions(case):
    rope, alpha, table, diffs, _ = case
    rng = np.random.default_rng(2)
    decided = 0
    for (a, b), d in diffs.items():
        z = mean_differences(d)
        if rope > 0 and np.isclose(np.abs(z), rope, rtol=0, atol=1e-12).any():
            continue   # a mean difference on the rope's edge in exact arithmetic: floating point decides its side
        # counts in (left, rope, right) plus the prior pseudo-count at z0 = 0; the rope is closed, so without a
        # rope an exact zero counts in it
        counts = np.array([(z < -rope).sum(), (np.abs(z) <= rope).sum() + SIGN_PRIOR, (z > rope).sum()])
        total = counts.sum()
        mean = counts[2] / total
        se = np.sqrt(mean * (1 - mean) / (total + 1) / N_LIB)   # Beta marginal of a Dirichlet
        assert abs(float(table.sign_right.sel(a=a, b=b)) - mean) <= 4 * se + 1e-12, (a, b, mean)
        shares = shares_of_largest(rng.dirichlet(counts, size=N_OWN))
        rule = decision_from_shares(shares, (a, b), alpha, margin=mc_margin(alpha))
        if rule is not None:
            assert table.decision_sign.sel(a=a, b=b) == rule, (a, b, shares)
            decided += 1
    assert decided >= (16 if rope == 0 else 12), decided


def test_poisson_decisions_follow_the_documented_rule(case):
    rope, alpha, table, diffs, rho = case
    assert np.allclose(rho, rho[0])
    for (a, b), d in diffs.items():
        p_b, p_a = (majority_probability(sign * d, rho[0], rope) for sign in (1, -1))
        assert float(table.p_b_majority.sel(a=a, b=b)) == pytest.approx(p_b, rel=1e-8, abs=1e-12), (a, b)
        rule = b if p_b > 1 - alpha else a if p_a > 1 - alpha else "none"
        assert table.decision_poisson.sel(a=a, b=b) == rule, (a, b, p_b, p_a)
