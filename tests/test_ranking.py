"""Bayesian Plackett-Luce ranking against oracles written here: brute-force products over rankings, the exact Beta
posterior of two algorithms, numerical integration over the simplex, enumeration of rankings, simulation."""
import itertools
import json
import math
import warnings

import arviz as az
import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats

from pp_corr import load_scores
from pp_corr.ranking import _break_ties, dataset_ranks, plackett_luce, plackett_luce_model
from pp_corr.sampling import ConvergenceWarning
from pp_corr.testing import check_result
from tests.conftest import INF, JOINT_X, UCI54, check_error, result_from_weights


def brute_log_probability(order, w):
    """log P(order | w) of a strict order (algorithm indices, best first), as the product of choices."""
    remaining, logp = list(order), 0.0
    for a in order:
        logp += math.log(w[a] / math.fsum(w[b] for b in remaining))
        remaining.remove(a)
    return logp


def compatible_orders(ranks):
    """Every strict order (best first) that a row of ranks with ties allows."""
    return [p for p in itertools.permutations(range(len(ranks)))
            if all(ranks[p[i]] <= ranks[p[i + 1]] for i in range(len(p) - 1))]


def average_rule(ranks, w):
    """The documented tie rule: the mean of log P over the orders the ties allow."""
    return np.mean([brute_log_probability(p, w) for p in compatible_orders(ranks)])


def model_log_likelihood(rankings, w):
    model = plackett_luce_model(rankings)
    return float(model.potentials[0].eval({model["w"]: np.asarray(w, dtype=float)}))


def quantile_tolerance(draws, prob):
    """Four Monte Carlo standard errors of the draws' quantile, as a probability (the exact cdf at the quantile)."""
    return 4 * np.sqrt(prob * (1 - prob) / float(az.ess(draws, method="quantile", prob=prob)))


def fit(frame, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)  # every fit here must converge
        return plackett_luce(frame, **kwargs)


@pytest.mark.long
@pytest.mark.parametrize("k", [3, 4])
def test_log_likelihood_is_the_product_of_choices_and_sums_to_one(k):
    w = np.random.default_rng(k).dirichlet(np.ones(k))
    total = 0.0
    for order in itertools.permutations(range(k)):
        ranks = np.empty(k)
        ranks[list(order)] = np.arange(1, k + 1)
        logp = model_log_likelihood([ranks], w)
        assert logp == pytest.approx(brute_log_probability(order, w), rel=1e-12)
        total += math.exp(logp)
    assert total == pytest.approx(1, rel=1e-12)
    # several data sets add up
    rankings = [[1, 2, 3] + list(range(4, k + 1)), [3, 1, 2] + list(range(4, k + 1))]
    assert model_log_likelihood(rankings, w) == pytest.approx(
        sum(brute_log_probability(list(np.argsort(r)), w) for r in rankings), rel=1e-12)


@pytest.mark.parametrize("ranks", [[1, 1, 3, 4], [1, 2, 2, 2], [1.5, 1.5, 3.5, 3.5], [2.5, 2.5, 2.5, 2.5],
                                   [3, 1, 3, 3], [2, 1, 4, 2]])
def test_ties_average_the_log_probability_over_their_orders(ranks):
    w = np.random.default_rng(7).dirichlet(np.ones(4))
    assert model_log_likelihood([ranks], w) == pytest.approx(average_rule(ranks, w), rel=1e-12)


@pytest.mark.long
def test_two_algorithms_posterior_is_beta_with_ties_as_half_wins():
    # 9 wins of A, 4 of B, 5 ties; prior alpha = (2, 0.5): w_A ~ Beta(2 + 9 + 2.5, 0.5 + 4 + 2.5) exactly
    a = [0.9] * 9 + [0.5] * 4 + [0.7] * 5
    b = [0.6] * 9 + [0.8] * 4 + [0.7] * 5
    frame = pd.DataFrame({"A": a, "B": b})
    res = fit(frame, prior={"B": 0.5, "A": 2.0}, draws=2000, chains=2, random_seed=3)
    exact = stats.beta(2 + 9 + 2.5, 0.5 + 4 + 2.5)
    draws = res.idata.posterior["w"].sel(algorithm="A")
    mcse = float(az.mcse(draws))
    assert abs(float(draws.mean()) - exact.mean()) <= 4 * mcse
    for prob in (0.05, 0.5, 0.95):
        assert abs(exact.cdf(float(draws.quantile(prob))) - prob) <= quantile_tolerance(draws, prob), prob
    frame_out = res.to_frame()
    assert frame_out.loc["A", "p_first"] == pytest.approx(exact.mean(), abs=4 * mcse)
    # the reported MCSE is the one of the draws
    assert frame_out.loc["A", "p_first_mcse"] == pytest.approx(mcse, rel=1e-9)


@pytest.mark.long
def test_three_algorithms_posterior_matches_integration_over_the_simplex():
    ranks = np.array([[1, 2, 3], [2, 1, 3], [1, 2.5, 2.5], [1.5, 1.5, 3]])
    alpha = np.array([1.0, 2.0, 1.5])
    frame = pd.DataFrame(-ranks, columns=["a", "b", "c"])  # higher is better: scores -rank rank as ranks

    orders = [compatible_orders(r) for r in ranks]

    def density(w1, w0):
        w = (w0, w1, 1 - w0 - w1)
        log_likelihood = sum(math.fsum(brute_log_probability(p, w) for p in allowed) / len(allowed)
                             for allowed in orders)
        return math.exp(log_likelihood + sum((a - 1) * math.log(v) for a, v in zip(alpha, w)))

    def integral(f):
        return integrate.dblquad(lambda w1, w0: f((w0, w1, 1 - w0 - w1)) * density(w1, w0), 0, 1, 0,
                                 lambda w0: 1 - w0, epsabs=0, epsrel=1e-8)[0]

    norm = integral(lambda w: 1.0)
    res = fit(frame, prior=list(alpha), draws=2000, chains=2, random_seed=5)
    draws = res._per_draw()
    table, before = res.to_frame(), res.before()
    for j, name in enumerate("abc"):
        assert abs(table.loc[name, "p_first"] - integral(lambda w: w[j]) / norm) <= 4 * table.loc[name, "p_first_mcse"]
    exact_before = integral(lambda w: w[0] / (w[0] + w[1])) / norm
    mcse = float(az.mcse(draws["before"].sel(algorithm="a", other="b")))
    assert abs(before.loc["a", "b"] - exact_before) <= 4 * mcse


@pytest.fixture(scope="module")
def recovery():
    """Rankings simulated from a known PL model (k = 4, q = 300) by sequential choice without replacement."""
    truth = np.array([0.45, 0.3, 0.15, 0.1])
    rng = np.random.default_rng(11)
    orders = [rng.choice(4, size=4, replace=False, p=truth) for _ in range(300)]
    ranks = np.empty((300, 4))
    for i, order in enumerate(orders):
        ranks[i, order] = np.arange(1, 5)
    frame = pd.DataFrame(-ranks, columns=["w45", "w30", "w15", "w10"])
    return truth, ranks, fit(frame, draws=1000, chains=2, random_seed=12)


@pytest.mark.long
def test_recovers_the_weights_of_simulated_rankings(recovery):
    truth, ranks, res = recovery
    w = res.weights
    assert res.converged and res.algorithms == ["w45", "w30", "w15", "w10"]
    assert np.all(np.abs(w.mean(axis=0) - truth) <= 4 * w.std(axis=0))
    assert res.to_frame().index.tolist() == ["w45", "w30", "w15", "w10"]
    np.testing.assert_allclose(res.to_frame().loc[res.algorithms, "observed_mean_rank"], ranks.mean(axis=0))


@pytest.mark.long
def test_derived_quantities_match_enumeration_of_rankings(recovery):
    _, _, res = recovery
    w, names = res.weights, res.algorithms
    table, before = res.to_frame(), res.before()
    # P(a before b) is the posterior mean of w_a / (w_a + w_b)
    for (i, a), (j, b) in itertools.permutations(enumerate(names), 2):
        assert before.loc[a, b] == pytest.approx(np.mean(w[:, i] / (w[:, i] + w[:, j])), rel=1e-12)
    # expected ranks: the PL probability of each of the 4! rankings, per draw, times the positions
    expected = np.zeros(4)
    for order in itertools.permutations(range(4)):
        remaining = w.sum(axis=1)
        probability = np.ones(len(w))
        for a in order:
            probability *= w[:, a] / remaining
            remaining = remaining - w[:, a]
        expected[list(order)] += np.mean(probability) * np.arange(1, 5)
    np.testing.assert_allclose(table.loc[names, "expected_rank"], expected, rtol=1e-10)
    # scmamp's definitions: expected.win.prob = colMeans(w), expected.mode.rank = colMeans(rank(-w))
    np.testing.assert_allclose(table.loc[names, "p_first"], w.mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(table.loc[names, "mode_rank"], stats.rankdata(-w, axis=1).mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(table.loc[names, "p_best"], np.bincount(w.argmax(axis=1), minlength=4) / len(w))
    lower, upper = np.quantile(w, [0.05, 0.95], axis=0)
    interval = res.to_frame(confidence_level=0.9)
    np.testing.assert_allclose(interval.loc[names, "w_lower"], lower)
    np.testing.assert_allclose(interval.loc[names, "w_upper"], upper)
    assert table.index.tolist() == list(before.index) == list(before.columns)
    assert np.isnan(np.diag(before.to_numpy())).all()
    assert "w45 has the best expected rank" in repr(res)


def test_mean_scores_that_tie_in_exact_arithmetic_tie_and_ties_chain():
    # 0.7 + 0.85 and 0.8 + 0.75 differ in binary floating point, not in the recorded decimals
    scores = load_scores({"A": [[0.9, 0.95], [0.5, 0.5]], "B": [[0.7, 0.85], [0.6, 0.6]],
                          "C": [[0.8, 0.75], [0.7, 0.7]], "D": [[0.6, 0.6], [0.8, 0.8]]}, runs=1)
    assert 0.7 + 0.85 != 0.8 + 0.75
    ranks = dataset_ranks(scores)
    assert ranks.to_numpy().tolist() == [[1.0, 2.5, 2.5, 4.0], [4.0, 3.0, 2.0, 1.0]]
    assert ranks.index.tolist() == ["D1", "D2"] and ranks.columns.tolist() == ["A", "B", "C", "D"]
    # 3 and 3 steps of 2^-53 apart tie (the tolerance is 4 eps x 0.5 = 4 steps); 6 steps alone would not
    x = [0.5 + i * 2.0**-53 for i in (0, 3, 6)]
    assert dataset_ranks(pd.DataFrame([[x[0], x[1], x[2], 0.7]])).to_numpy().tolist() == [[3.0, 3.0, 3.0, 1.0]]
    assert dataset_ranks(pd.DataFrame([[x[0], x[2], 0.7]])).to_numpy().tolist() == [[3.0, 2.0, 1.0]]
    # a frame of losses ranks the other way; so does a Dataset of losses loaded as such
    losses = pd.DataFrame({"A": [0.1, 0.3], "B": [0.2, 0.2]}, index=["x", "y"])
    assert dataset_ranks(losses, higher_is_better=False).to_numpy().tolist() == [[1.0, 2.0], [2.0, 1.0]]
    negated = load_scores({"A": [[0.1, 0.1], [0.3, 0.3]], "B": [[0.2, 0.2], [0.2, 0.2]]}, higher_is_better=False)
    assert dataset_ranks(negated).to_numpy().tolist() == [[1.0, 2.0], [2.0, 1.0]]


def test_random_tie_breaks_are_uniform_within_groups_and_seeded():
    row = np.array([2.0, 2.0, 2.0, 1.0])  # algorithm 3 first, then 0, 1, 2 in any order
    broken = _break_ties(np.tile(row, (6000, 1)), np.random.default_rng(1))
    assert (broken[:, 3] == 1).all() and np.sort(broken, axis=1).tolist() == [[1, 2, 3, 4]] * 6000
    orders, counts = np.unique(broken[:, :3], axis=0, return_counts=True)
    assert len(orders) == 6 and stats.chisquare(counts).pvalue > 1e-3
    w = np.array([0.1, 0.2, 0.3, 0.4])
    models = [plackett_luce_model([row] * 5, ties="random", random_seed=seed) for seed in (4, 4, 5)]
    logps = [float(m.potentials[0].eval({m["w"]: w})) for m in models]
    assert logps[0] == logps[1] != logps[2]


def test_bad_input_names_the_argument_or_data_set():
    with pytest.raises(ValueError, match=r"1 algorithm\(s\) \['A'\]: rank at least two"):
        dataset_ranks(pd.DataFrame({"A": [0.1, 0.2]}))
    with pytest.raises(ValueError, match="rankings rank 1 algorithm"):
        plackett_luce_model([[1], [1]])
    frame = pd.DataFrame({"A": [0.9, 0.8, 0.7], "B": [0.8, np.nan, 0.7], "C": [0.1, 0.2, np.nan]},
                         index=["iris", "wine", "glass"])
    with pytest.raises(ValueError, match=r"data set 'wine' lacks \['B'\]; data set 'glass' lacks \['C'\]"):
        dataset_ranks(frame, missing="error")
    np.testing.assert_array_equal(dataset_ranks(frame).to_numpy(), [[1, 2, 3], [1, np.nan, 2], [1.5, 1.5, np.nan]])
    with pytest.warns(UserWarning, match=r"left out 2 data set\(s\).*\['wine', 'glass'\]"):
        assert dataset_ranks(frame, missing="drop").index.tolist() == ["iris"]
    with pytest.raises(ValueError, match="missing must be one of"):
        dataset_ranks(frame, missing="ignore")
    # a Dataset where one algorithm has no score at all on one data set
    scores = load_scores({"A": [[0.8, 0.9], [0.7, 0.6]], "B": [[0.7, 0.8], [0.6, 0.7]]})
    scores["score"] = scores.score.where(~((scores.dataset == "D2") & (scores.algorithm == "B")))
    with pytest.raises(ValueError, match=r"data set 'D2' lacks \['B'\]"):
        dataset_ranks(scores, missing="error")
    with pytest.raises(ValueError, match="'x', algorithm 'A' is inf"):
        dataset_ranks(pd.DataFrame({"A": [np.inf], "B": [0.0]}, index=["x"]))
    with pytest.raises(ValueError, match=r"rankings hold inf \(row 1, column 0\)"):
        plackett_luce_model([[1, 2], [np.inf, 1]])
    with pytest.raises(ValueError, match="are negated already"):
        dataset_ranks(load_scores({"A": [[0.1, 0.2]], "B": [[0.2, 0.2]]}, higher_is_better=False),
                      higher_is_better=False)
    with pytest.raises(TypeError, match="scores must be a scores Dataset"):
        dataset_ranks(np.ones((3, 2)))
    with pytest.raises(ValueError, match="scores hold no data set"):
        dataset_ranks(pd.DataFrame({"A": [], "B": []}))
    with pytest.raises(ValueError, match="prior must be in"):
        plackett_luce_model([[1, 2]], prior=0)
    with pytest.raises(ValueError, match=r"prior\['A2'\] must be in"):
        plackett_luce_model([[1, 2]], prior=[1, -1])
    with pytest.raises(ValueError, match="prior must be one positive number, 2 of them"):
        plackett_luce_model([[1, 2]], prior=[1, 1, 1])
    with pytest.raises(ValueError, match=r"unknown \['Z'\], missing \['A2'\]"):
        plackett_luce_model([[1, 2]], prior={"A1": 1, "Z": 1})
    with pytest.raises(ValueError, match="ties must be one of"):
        plackett_luce_model([[1, 2]], ties="first")
    with pytest.raises(ValueError, match="algorithms must be 2 distinct names"):
        plackett_luce_model([[1, 2]], algorithms=["a", "a"])
    with pytest.raises(ValueError, match="row 0 ties 17 algorithms"):
        plackett_luce_model([np.ones(17)])
    with pytest.raises(ValueError, match="draws must be >= 1"):
        plackett_luce(pd.DataFrame({"A": [1.0], "B": [0.0]}), draws=0)
    with pytest.raises(ValueError, match="sampler must be"):
        plackett_luce(pd.DataFrame({"A": [1.0], "B": [0.0]}), sampler="stan")


def test_dataset_and_frame_of_means_rank_alike():
    rng = np.random.default_rng(3)
    arrays = {name: rng.normal(0.8, 0.05, size=(6, 10)) for name in ("p", "q", "r")}
    scores = load_scores(arrays, runs=2)
    means = pd.DataFrame({name: a.mean(axis=1) for name, a in arrays.items()}, index=[f"D{i + 1}" for i in range(6)])
    pd.testing.assert_frame_equal(dataset_ranks(scores), dataset_ranks(means), check_names=False)


@pytest.mark.slow
def test_uci54_converges_and_agrees_with_the_mean_ranks(request):
    if not UCI54.exists():
        pytest.skip(f"the shared uci54 data are not at {UCI54}")
    res = fit(request.getfixturevalue("uci54"), random_seed=1)
    assert res.converged and int(res.idata.sample_stats.diverging.sum()) == 0
    table = res.to_frame()
    k = len(table)
    # identities: expected ranks add up to 1 + ... + k, P(first) to 1
    assert table.expected_rank.sum() == pytest.approx(k * (k + 1) / 2, rel=1e-12)
    assert table.p_first.sum() == pytest.approx(1, rel=1e-12)
    # the model's order is the order of the observed mean ranks, each within 0.1 of it
    assert table.index.tolist() == table.sort_values("observed_mean_rank").index.tolist()
    assert np.all(np.abs(table.expected_rank - table.observed_mean_rank) <= 0.1)
    # 15 of the 54 data sets hold an exact tie (j48 and j48gr, mostly)
    assert "15 data sets tied" in res.summary()


# ---- partial rankings: algorithms absent from some data sets --------------------------------------------------------

def marginal_log_probability(order, w):
    """log P of a strict order of some of the algorithms (best first), as the sum of P over the full orders of all of
    them whose restriction is that order: no product over the subset is used."""
    present = list(order)
    return math.log(math.fsum(math.exp(brute_log_probability(full, w)) for full in itertools.permutations(range(len(w)))
                              if [a for a in full if a in present] == present))


@pytest.mark.parametrize("row", [[1, np.nan, 2, 3], [np.nan, 2, np.nan, 1], [3, 1, 2, np.nan], [1, np.nan, 1, 3],
                                 [np.nan, 2, 2, 1], [1, np.nan, np.nan, np.nan], [np.nan] * 4])
def test_a_partial_ranking_is_the_marginal_of_the_full_rankings(row):
    """A data set that lacks some algorithms contributes the probability of the full rankings that order the present
    ones as it does (ties: the average rule over the present ones' orders), computed here by summing full rankings."""
    w = np.random.default_rng(38).dirichlet(np.ones(4))
    present = [j for j, r in enumerate(row) if not np.isnan(r)]
    orders = [[present[i] for i in p] for p in compatible_orders([row[j] for j in present])]
    oracle = np.mean([marginal_log_probability(order, w) for order in orders])
    rankings = [row, [1, 2, 3, 4]]  # with a complete ranking beside it: the two add up
    expected = oracle + brute_log_probability([0, 1, 2, 3], w)
    assert model_log_likelihood(rankings, w) == pytest.approx(expected, rel=1e-12, abs=1e-12)
    random = plackett_luce_model(rankings, ties="random", random_seed=0)
    broken = float(random.potentials[0].eval({random["w"]: w}))
    assert any(broken == pytest.approx(marginal_log_probability(o, w) + brute_log_probability([0, 1, 2, 3], w),
                                       rel=1e-12) for o in orders)


def test_dataset_ranks_rank_the_algorithms_present():
    scores = load_scores({"A": [[0.8, 0.9], [0.7, 0.6], [0.5, 0.5]], "B": [[0.7, 0.8], [0.6, 0.7], [0.6, 0.6]],
                          "C": [[0.1, 0.2], [0.9, 0.9], [0.2, 0.2]]})
    scores["score"] = scores.score.where(~((scores.dataset == "D2") & (scores.algorithm == "A")))
    ranks = dataset_ranks(scores)
    np.testing.assert_array_equal(ranks.to_numpy(), [[1, 2, 3], [np.nan, 2, 1], [2, 1, 3]])
    with pytest.warns(UserWarning, match=r"left out 1 data set\(s\).*\['D2'\]"):
        assert dataset_ranks(scores, missing="drop").index.tolist() == ["D1", "D3"]


def change_tolerance(complete, partial, draws_complete, draws_partial):
    """Four standard deviations of the difference of two posterior means of the expected ranks: the two MCSEs and
    the spread that removing data gives a posterior mean. By the law of total variance, given the data kept the
    complete data's posterior mean varies (over the data removed) by Var(partial posterior) - E[Var(complete
    posterior)], estimated by the difference of the two fits' posterior variances."""
    spread = np.maximum(draws_partial.var(("chain", "draw")).values - draws_complete.var(("chain", "draw")).values, 0)
    return 4 * np.sqrt(complete.expected_rank_mcse ** 2 + partial.expected_rank_mcse ** 2 + spread)


@pytest.mark.slow
def test_uci54_with_a_tenth_of_its_cells_missing_ranks_every_algorithm_as_the_complete_data(uci54, uci54_gappy):
    """27 of the 270 cells removed at random: every data set is kept (24 of them as partial rankings), every algorithm
    gets its expected rank, and each is within the tolerance of change_tolerance of the complete data's."""
    gappy, mask = uci54_gappy
    complete, partial = fit(uci54, random_seed=1), fit(gappy, random_seed=1)
    assert partial.ranks.index.tolist() == [str(d) for d in uci54.dataset.values]
    assert (partial.ranks.notna().to_numpy() == mask.values).all()
    assert "24 data sets rank only the algorithms they have (partial rankings)" in partial.summary()
    table_c, table_p = complete.to_frame(), partial.to_frame().loc[complete.to_frame().index]
    assert table_p.expected_rank.sum() == pytest.approx(15, rel=1e-12)
    assert table_p.n_datasets.tolist() == mask.sel(algorithm=table_c.index).sum("dataset").values.tolist()
    tolerance = change_tolerance(table_c, table_p, complete._per_draw().expected_rank.sel(algorithm=table_c.index),
                                 partial._per_draw().expected_rank.sel(algorithm=table_c.index))
    change = (table_p.expected_rank - table_c.expected_rank).to_numpy()
    assert (np.abs(change) <= tolerance).all(), (change, tolerance)
    # the partial fit itself, against its posterior computed by importance sampling from the prior
    oracle, oracle_se = importance_expected_ranks(partial.ranks[table_c.index].to_numpy(), 400_000, seed=2)
    assert (np.abs(table_p.expected_rank - oracle)
            <= 4 * np.sqrt(table_p.expected_rank_mcse ** 2 + oracle_se ** 2)).all()


def importance_expected_ranks(ranks, n, seed):
    """The posterior mean of the expected ranks under a Dirichlet(1) prior and its Monte Carlo standard error, by
    self-normalised importance sampling from the prior, with each data set's likelihood the product of choices over
    the algorithms it ranks (its ties: the average over their orders) - no tail sets."""
    w = np.random.default_rng(seed).dirichlet(np.ones(ranks.shape[1]), size=n)
    log_lik = np.zeros(n)
    for row in ranks:
        present = np.flatnonzero(~np.isnan(row))
        orders = [[present[i] for i in p] for p in compatible_orders(row[present])]
        per_order = []
        for order in orders:
            tails = np.cumsum(w[:, order[::-1]], axis=1)[:, ::-1]  # sum of w over each position and those after it
            per_order.append(np.log(w[:, order]).sum(axis=1) - np.log(tails).sum(axis=1))
        log_lik += np.mean(per_order, axis=0)
    weights = np.exp(log_lik - log_lik.max())
    weights /= weights.sum()
    expected = 0.5 + (w[:, :, None] / (w[:, :, None] + w[:, None, :])).sum(axis=1)
    mean = weights @ expected
    return mean, np.sqrt((weights[:, None] ** 2 * (expected - mean) ** 2).sum(axis=0))


# --- bad and extreme inputs: refused by name, or the documented answer (issue #10) ----------------------------------

RANK_SCORES = JOINT_X.mean(axis=1)  # (4 data sets, 3 algorithms) of per-data-set mean scores


RANKING_BAD = {
    "one algorithm": (lambda f: f(pd.DataFrame(RANK_SCORES[:, :1])), ("at least two",)),
    "no data set": (lambda f: f(pd.DataFrame(np.empty((0, 3)))), ("no data set",)),
    "inf score": (lambda f: f(pd.DataFrame(np.where(np.eye(4, 3) == 1, INF, RANK_SCORES))), ("inf",)),
    "text scores": (lambda f: f(pd.DataFrame([["a", "b"], ["c", "d"]])), ("scores",)),
    "missing unknown": (lambda f: f(pd.DataFrame(RANK_SCORES), missing="skip"), ("missing",)),
    "higher_is_better text": (lambda f: f(pd.DataFrame(RANK_SCORES), higher_is_better="yes"), ("higher_is_better",)),
}


class TestRankingArguments:
    @pytest.mark.parametrize("label", sorted(RANKING_BAD))
    def test_plackett_luce_and_dataset_ranks_refuse_bad_scores(self, label):
        """dataset_ranks and plackett_luce check their scores first, naming the problem."""
        from pp_corr import dataset_ranks, plackett_luce

        call, names = RANKING_BAD[label]
        for fn in (dataset_ranks, lambda *a, **k: plackett_luce(*a, draws=10, tune=10, chains=1, **k)):
            if fn is dataset_ranks and label == "higher_is_better text":
                continue
            check_error(lambda: call(fn), names)

    @pytest.mark.parametrize("rankings, names", [
        (np.ones((0, 3)), ("rankings",)), (np.ones((3, 1)), ("rankings",)), ([["a", "b"]], ("rankings",)),
        (np.array([[1.0, 2.0]]) * [[1, INF]], ("inf", "rankings")),
    ])
    def test_plackett_luce_model_refuses_bad_rankings(self, rankings, names):
        from pp_corr import PlackettLuceResult, plackett_luce_model

        check_error(lambda: plackett_luce_model(rankings), names)
        check_error(lambda: plackett_luce_model(np.array([[1, 2], [2, 1]]), prior=-1.0), ("prior",))
        assert PlackettLuceResult.__doc__

    def test_order_by_ranking_needs_two_algorithms_a_scores_table_and_a_boolean_direction(self):
        from pp_corr import example_path, load_scores, order_by_ranking

        scores = load_scores(example_path())
        with pytest.raises(ValueError, match="at least two"):
            order_by_ranking(scores.sel(algorithm=["knn"]))
        with pytest.raises(TypeError, match="scores"):
            order_by_ranking([1, 2])
        with pytest.raises(TypeError, match="higher_is_better"):
            order_by_ranking(scores, higher_is_better="no")


class TestPlackettLuceResultProtocol:
    result = staticmethod(result_from_weights)

    def test_contract(self):
        check_result(self.result())

    def test_frame_numbers_are_the_fields(self):
        res = self.result()
        frame = res.to_frame()
        largest = res.weights == res.weights.max(axis=1, keepdims=True)
        assert frame.loc[["A", "B", "C"], "p_best"].tolist() == pytest.approx(largest.mean(axis=0).tolist())
        assert frame.loc[["A", "B", "C"], "p_first"].tolist() == pytest.approx(res.weights.mean(axis=0).tolist())
        record = json.loads(json.dumps(res.to_dict()))
        assert [r["algorithm"] for r in record["ranking"]] == frame.index.tolist()

    @pytest.mark.parametrize("alpha", [0.05, 0.4])
    def test_decision_is_the_largest_weight_above_the_level(self, alpha):
        for concentration in ((8.0, 2.0, 1.0), (40.0, 2.0, 1.0)):
            res = self.result(concentration)
            p_best = res.to_frame()["p_best"]
            want = str(p_best.idxmax()) if p_best.max() > 1 - alpha else "none"
            assert res.decision(alpha) == want and f"decision at alpha = {alpha:g}: {want}" in res.summary(alpha=alpha)
        assert self.result(converged=False).decision(0.4) == "none"
        check_error(lambda: res.decision(alpha=0.0), ("alpha",))
