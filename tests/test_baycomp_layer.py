"""The baycomp-compatible layer (pp_corr.baycomp, issue #11): baycomp's correlated t-test formula as an independent
oracle on the 540 uci54 cases, the numbers printed in baycomp's documentation, the shares of draws against
pp_corr's tests, the orientation, and the argument checks.

baycomp is not imported: its correlated t-test is written here from its mathematics (a Student-t posterior with
n - 1 degrees of freedom, the mean difference y - x and the variance corrected by Nadeau and Bengio), and its
documented numbers are compared within Monte Carlo error. baycomp's documentation examples use the uci54 scores
as published (percent, three decimals: Percent_correct.dat) with its 7th data set replaced by a copy of the 6th,
as in baycomp's own copy of the data; the single-data-set examples are nbc and j48 on data set 41 (its first
run of 10 folds, which reproduces the printed digits), the hierarchical example the first run of every data set.
"""
import warnings
from itertools import combinations
from pathlib import Path

import arviz as az
import matplotlib.figure
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import pp_corr
from pp_corr import baycomp as bc
from pp_corr.data.scores import AssumptionWarning
from pp_corr.pairwise.ttest import DegenerateWarning

UCI54_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "uci54"
NBC, J48 = 1, 4  # ClassifierID.dat: 1..5 = nbc aode hnb j48 j48gr
Z = 4.0  # tolerance in standard errors for Monte Carlo comparisons (two-sided 6e-5 under a fixed seed)

# Numbers printed in baycomp's documentation (https://baycomp.readthedocs.io, and its README on PyPI)
DOCS_SINGLE = {"no rope": (0.0, (0.4145119975061462, 0.5854880024938538)),  # functions.rst, posterior.rst
               "rope 0.5": (0.5, (0.28584464173791002, 0.2691518716880249, 0.44500348657406508))}  # functions.rst
DOCS_SIGNED_RANK = [(0.23124, 0.00666, 0.7621),  # README.md, index.rst
                    (0.23014, 0.00674, 0.76312)]  # functions.rst, classes.rst, posterior.rst
DOCS_SIGN = [(0.26508, 0.13274, 0.60218),  # README.md, index.rst
             (0.26344, 0.13722, 0.59934)]  # classes.rst
DOCS_HIERARCHICAL = (0.0795, 0.0365, 0.884)  # functions.rst: 4 chains x 1000 draws of PyStan 2 (baycomp 2018)
DOCS_DRAWS = {"rank": 50_000, "hierarchical": 4000}


@pytest.fixture(scope="module")
def docs_scores():
    """baycomp's documentation data: (classifier 1..5, data set, 100 scores) in percent, data set 7 = data set 6."""
    files = [UCI54_DIR / name for name in ("Percent_correct.dat", "ClassifierID.dat", "DatasetID.dat")]
    if not all(f.exists() for f in files):
        pytest.skip(f"the shared uci54 data are not at {UCI54_DIR} (a clone without ../shared)")
    score, classifier, dataset = (np.loadtxt(f) for f in files)
    blocks = np.array([[score[(classifier == c) & (dataset == d)] for d in range(1, 55)] for c in range(1, 6)])
    blocks[:, 6] = blocks[:, 5]
    return {c: blocks[c - 1] for c in range(1, 6)}


# --- the correlated t-test: baycomp's formula as the oracle ---------------------------------------------------

def baycomp_t_formula(x, y, rope, runs):
    """baycomp's correlated t-test, from its mathematics: (mean, var, df) of y - x and the probabilities."""
    diff = np.asarray(y, float) - np.asarray(x, float)
    n = len(diff)
    mean, df = diff.mean(), n - 1
    var = np.var(diff, ddof=1) * (1 / n + 1 / (n / runs - 1))
    if var == 0:  # a point mass at the mean
        if rope == 0:
            right = float(mean > 0) + 0.5 * float(mean == 0)
            return (mean, var, df), (1 - right, right)
        left, right = float(mean < -rope), float(mean > rope)
    else:
        law = stats.t(df, mean, np.sqrt(var))
        if rope == 0:
            right = 1 - law.cdf(0)
            return (mean, var, df), (1 - right, right)
        left, right = law.cdf(-rope), 1 - law.cdf(rope)
    return (mean, var, df), (left, 1 - left - right, right)


@pytest.mark.long
def test_correlated_ttest_equals_baycomp_formula_on_uci54(uci54):
    """All 10 pairs x 54 data sets, with and without a rope, with runs = 10 and baycomp's default runs = 1."""
    worst_p, worst_stats, cases = 0.0, 0.0, 0
    scores = uci54.score.transpose("algorithm", "dataset", "run", "fold").values.reshape(5, 54, 100)
    for a, b in combinations(range(5), 2):
        for x, y in zip(scores[a], scores[b]):
            for rope, runs in ((0.0, 10), (0.01, 10), (0.01, 1)):
                (mean, var, df), expected = baycomp_t_formula(x, y, rope, runs)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", DegenerateWarning)
                    post = bc.CorrelatedTTest(x, y, rope, runs)
                    shortcut = bc.two_on_single(x, y, rope, runs)
                assert shortcut == post.probs() and len(shortcut) == len(expected)
                worst_p = max(worst_p, np.max(np.abs(np.subtract(shortcut, expected))))
                assert post.df == df and (post.var == 0) == (var == 0)
                worst_stats = max(worst_stats, abs(post.mean - mean) / max(abs(mean), 1e-300),
                                  abs(post.var - var) / max(var, 1e-300))
            cases += 1
    print(f"\n{cases} cases: max |p - baycomp formula| = {worst_p:.2g}, max relative error of mean/var "
          f"= {worst_stats:.2g}")
    assert cases == 540
    assert worst_p <= 1e-13  # baycomp's 1 - cdf loses at most a few ulps of 1
    assert worst_stats <= 1e-12


@pytest.mark.parametrize("case", DOCS_SINGLE)
def test_docs_two_on_single(docs_scores, case):
    rope, expected = DOCS_SINGLE[case]
    nbc, j48 = docs_scores[NBC][40, :10], docs_scores[J48][40, :10]
    for probs in (bc.two_on_single(nbc, j48, rope=rope), bc.CorrelatedTTest(nbc, j48, rope=rope).probs(),
                  bc.CorrelatedTTest.probs(nbc, j48, rope=rope)):
        np.testing.assert_allclose(probs, expected, rtol=0, atol=1e-14)
    probs, fig = bc.two_on_single(nbc, j48, rope=rope, plot=True, names=("nbc", "j48"))
    assert probs == bc.two_on_single(nbc, j48, rope=rope) and isinstance(fig, matplotlib.figure.Figure)
    assert "j48" in fig.axes[0].get_xlabel()


# --- several data sets: shares of draws -------------------------------------------------------------------------

def mc_tolerance(ours, ours_se, docs_draws):
    """Z standard errors of the difference between our share and the docs' (iid draws for the docs)."""
    ours = np.asarray(ours)
    return Z * np.sqrt(ours_se**2 + ours * (1 - ours) / docs_draws)


@pytest.mark.long
def test_docs_signed_rank(docs_scores):
    nbc, j48 = docs_scores[NBC].mean(axis=1), docs_scores[J48].mean(axis=1)
    results = [bc.two_on_multiple(nbc, j48, rope=1, random_state=1),
               bc.SignedRankTest.probs(nbc, j48, rope=1, random_state=2),
               bc.SignedRankTest(nbc, j48, rope=1, random_state=3).probs()]
    for probs in results:
        se = np.sqrt(np.multiply(probs, np.subtract(1, probs)) / 50_000)
        for expected in DOCS_SIGNED_RANK:
            assert np.all(np.abs(np.subtract(probs, expected)) <= mc_tolerance(probs, se, DOCS_DRAWS["rank"]))


def test_docs_sign_test(docs_scores):
    nbc, j48 = docs_scores[NBC].mean(axis=1), docs_scores[J48].mean(axis=1)
    for seed in (1, 2):
        probs = bc.SignTest.probs(nbc, j48, rope=1, random_state=seed)
        se = np.sqrt(np.multiply(probs, np.subtract(1, probs)) / 50_000)
        for expected in DOCS_SIGN:
            assert np.all(np.abs(np.subtract(probs, expected)) <= mc_tolerance(probs, se, DOCS_DRAWS["rank"]))


@pytest.mark.slow
def test_docs_hierarchical(docs_scores):
    """The first run (10 folds) of nbc and j48 on the 54 data sets, rope 1, runs = 1 (the docs' 54 x 10 matrices).
    Our standard error comes from the effective sample size of each region's indicator; the docs' is taken as
    that of iid draws of their 4000, corrected by our ratio of effective to actual draws (the same sampler
    efficiency assumed). baycomp also differs in two ways that move the numbers slightly: it replaces the two
    zero-variance data sets (14 and 22) by noise within the rope, and it bounds sigma_i at 1000 times the mean
    standard deviation."""
    nbc, j48 = docs_scores[NBC][:, :10], docs_scores[J48][:, :10]
    post = bc.HierarchicalTest(nbc, j48, rope=1, random_state=1)
    probs = np.array(post.probs())
    chains = post.result.idata.posterior.sizes["chain"]
    winners = post.sample.argmax(axis=1).reshape(chains, -1)
    ess = np.array([az.ess((winners == k).astype(float)) if 0 < p < 1 else len(post.sample)
                    for k, p in enumerate(probs)])
    se = np.sqrt(probs * (1 - probs) / ess)
    docs_se = np.sqrt(probs * (1 - probs) / (DOCS_DRAWS["hierarchical"] * ess / len(post.sample)))
    gap = np.abs(probs - DOCS_HIERARCHICAL)
    print(f"\nhierarchical: {probs.round(4)} vs docs {DOCS_HIERARCHICAL}; ESS {ess.round()}, "
          f"gap / combined se {(gap / np.hypot(se, docs_se)).round(2)}")
    assert np.all(gap <= Z * np.hypot(se, docs_se))
    assert probs.tolist() == list(bc.two_on_multiple(nbc, j48, rope=1, random_state=1))


def test_shares_are_pp_corr_wins():
    """The layer's probabilities are the shares of draws where each region is largest (pp_corr's win_*), not
    the posterior means p_*; the layer passes prior and seed through."""
    rng = np.random.default_rng(5)
    x = rng.normal(0.8, 0.05, 30)
    y = x + rng.normal(0.01, 0.02, 30)
    for layer, test, prior in ((bc.SignTest, pp_corr.bayesian_sign_test, 1.0),
                               (bc.SignedRankTest, pp_corr.bayesian_signed_rank, 0.5)):
        for rope in (0.005, 0.02):
            ours = layer.probs(x, y, rope=rope, nsamples=20_000, random_state=7, prior=2 * prior)
            theirs = test(x, y, rope=rope, prior_strength=2 * prior, draws=20_000, random_seed=7)
            assert ours == (theirs.win_left, theirs.win_rope, theirs.win_right)
            assert ours != (theirs.p_left, theirs.p_rope, theirs.p_right)


def test_without_rope_two_shares():
    """rope = 0: the shares of draws where P(left) > P(right) and the reverse, ties halved; for the signed-rank
    test (rope region empty) that is win_left and win_right."""
    rng = np.random.default_rng(6)
    x = rng.normal(0.8, 0.05, 20)
    y = x + rng.normal(0.005, 0.02, 20)
    ranks = pp_corr.bayesian_signed_rank(x, y, rope=0, draws=20_000, random_seed=3)
    assert bc.SignedRankTest.probs(x, y, nsamples=20_000, random_state=3) == (ranks.win_left, ranks.win_right)
    y[:12] = x[:12]  # 12 ties in 20: the rope region (ties and the prior) wins some draws
    signs = pp_corr.bayesian_sign_test(x, y, rope=0, draws=20_000, random_seed=3).samples
    left = np.mean(signs[:, 0] > signs[:, 2]) + 0.5 * np.mean(signs[:, 0] == signs[:, 2])
    assert bc.SignTest.probs(x, y, nsamples=20_000, random_state=3) == pytest.approx((left, 1 - left), abs=1e-15)


@pytest.mark.parametrize("test", [bc.SignTest, bc.SignedRankTest])
def test_no_difference_gives_even_odds(test):
    """Every difference 0 and no rope: baycomp's sign test gives NaN (0/0), its signed-rank test whatever rounding
    decides (all draws are (1/2, 0, 1/2) exactly); here both give (0.5, 0.5)."""
    x = [0.81, 0.75, 0.9, 0.66]
    assert test.probs(x, list(x), random_state=0) == (0.5, 0.5)
    assert test(x, list(x), random_state=0).probs(with_rope=False) == (0.5, 0.5)


def test_sign_prior_region():
    """The sign test's prior (strength, region) puts the pseudo-count in that region (baycomp's code order)."""
    x = np.zeros(3)
    y = np.array([0.05, -0.05, 0.0])
    for region, column in ((bc.SignTest.LEFT, 0), (bc.SignTest.ROPE, 1), (bc.SignTest.RIGHT, 2)):
        sample = bc.SignTest.sample(x, y, rope=0.01, prior=(3.0, region), nsamples=40_000, random_state=1)
        expected = np.ones(3) / 6  # Dirichlet(1 + 3 [k = region], 1, 1) means
        expected[column] += 3 / 6
        se = np.sqrt(expected * (1 - expected) / (7 * 40_000))  # sd of a Dirichlet component / sqrt(draws)
        assert np.all(np.abs(sample.mean(axis=0) - expected) <= Z * se)


# --- the hierarchical test's arguments, without sampling -------------------------------------------------------

def test_hierarchical_arguments_reach_pp_corr(monkeypatch):
    from pp_corr.hierarchical import fit as hierarchical

    calls = []

    class Fit:
        def new_dataset(self):
            return pp_corr.RegionProbabilities.from_tails([0.6, 0.2], [0.3, 0.7], "fake", 0.5, ("A", "B"))

    def fake(x, y, **kwargs):
        calls.append((np.asarray(x), np.asarray(y), kwargs))
        return Fit()

    monkeypatch.setattr(hierarchical, "hierarchical_test", fake)
    x, y = np.zeros((3, 20)), np.ones((3, 20))
    probs = bc.two_on_multiple(x, y, rope=0.5, runs=2, random_state=4, nsamples=300, chains=2,
                               lower_alpha=0.5, upper_alpha=5, lower_beta=0.05, upper_beta=0.15)
    got_x, got_y, kwargs = calls[-1]
    assert (got_x == x).all() and (got_y == y).all()  # x first: differences y - x
    assert kwargs == {"rope": 0.5, "folds": 10, "priors": "current", "names": None, "draws": 300, "chains": 2,
                      "random_seed": 4}
    assert probs == (0.5, 0.0, 0.5)  # the fake's draws: left wins one, right the other
    bc.HierarchicalTest(x, y, 0.5, runs=1)
    assert calls[-1][2]["priors"] == "older" and calls[-1][2]["draws"] is None  # baycomp's priors, pp_corr's draws


# --- orientation (hypothesis) -------------------------------------------------------------------------------------

scores = st.lists(st.floats(50, 100, allow_nan=False).map(lambda v: round(v, 2)), min_size=4, max_size=20)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(scores, scores, st.sampled_from([0.0, 0.5, 2.0]))
def test_swapping_x_and_y_mirrors_the_t_test(x, y, rope):
    n = min(len(x), len(y))
    x, y = x[:n], y[:n]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateWarning)
        forward, backward = bc.two_on_single(x, y, rope, runs=1), bc.two_on_single(y, x, rope, runs=1)
    np.testing.assert_allclose(forward, backward[::-1], rtol=0, atol=1e-14)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(scores, scores, st.sampled_from([0.0, 0.5, 2.0]))
def test_swapping_x_and_y_mirrors_the_signed_rank_test(x, y, rope):
    """The Dirichlet weights do not depend on the data, so with one seed the mirror is exact."""
    n = min(len(x), len(y))
    x, y = x[:n], y[:n]
    forward = bc.SignedRankTest.probs(x, y, rope, nsamples=2000, random_state=1)
    assert forward == bc.SignedRankTest.probs(y, x, rope, nsamples=2000, random_state=1)[::-1]


@settings(max_examples=30, deadline=None, derandomize=True)
@given(scores, scores, st.sampled_from([0.0, 0.5, 2.0]))
def test_swapping_x_and_y_mirrors_the_sign_test(x, y, rope):
    """The Dirichlet's parameters are reversed, its draws are not the same: mirrored within Monte Carlo error."""
    n, draws = min(len(x), len(y)), 20_000
    x, y = x[:n], y[:n]
    forward = np.array(bc.SignTest.probs(x, y, rope, nsamples=draws, random_state=1))
    backward = np.array(bc.SignTest.probs(y, x, rope, nsamples=draws, random_state=2))[::-1]
    share = (forward + backward) / 2
    assert np.all(np.abs(forward - backward) <= 5 * np.sqrt(2 * share * (1 - share) / draws) + 1e-12)


def test_orientation_is_baycomps():
    """y better: p_right (baycomp's 'second classifier') is large, for every test."""
    rng = np.random.default_rng(2)
    x = rng.normal(0.8, 0.02, 20)
    y = x + 0.03 + rng.normal(0, 0.005, 20)
    assert bc.two_on_single(x, y, runs=1)[1] > 0.99
    assert bc.two_on_multiple(x, y, random_state=0)[1] > 0.99
    assert bc.SignTest.probs(x, y, rope=0.01, random_state=0)[2] > 0.99


# --- argument checks name baycomp's arguments -------------------------------------------------------------------

X4, Y4 = [0.8, 0.82, 0.85, 0.81], [0.83, 0.84, 0.86, 0.85]
BAD_CALLS = [
    (lambda: bc.two_on_single([X4], [Y4]), ValueError, "x must be a 1-dimensional"),
    (lambda: bc.two_on_single(X4, Y4[:3]), ValueError, "x and y must have the same shape"),
    (lambda: bc.two_on_single(X4, ["a"] * 4), TypeError, "y must be an array of numbers"),
    (lambda: bc.two_on_single(X4, Y4, rope=-0.1), ValueError, "rope must be in"),
    (lambda: bc.two_on_single(X4, Y4, runs=0), ValueError, "runs must be >= 1"),
    (lambda: bc.two_on_single(X4, Y4, runs=3), ValueError, "runs=3 does not divide"),
    (lambda: bc.two_on_single(X4, Y4, runs=4), ValueError, "runs=4 leaves one score per run"),
    (lambda: bc.two_on_single(X4, Y4, plot="yes"), TypeError, "plot must be True or False"),
    (lambda: bc.two_on_single(X4, Y4, names=("a",)), ValueError, "names must be a pair"),
    (lambda: bc.CorrelatedTTest(X4, Y4, nsamples=0), ValueError, "nsamples must be >= 1"),
    (lambda: bc.CorrelatedTTest.sample(X4, Y4, random_state=-1), ValueError, "random_state must be >= 0"),
    (lambda: bc.two_on_multiple(X4, Y4, random_state="a"), TypeError, "random_state must be an int"),
    (lambda: bc.two_on_multiple(X4, Y4, nsamples=2.5), TypeError, "nsamples must be a whole number"),
    (lambda: bc.two_on_multiple([[X4]], [[Y4]]), ValueError, "x must be a 1-dimensional"),
    (lambda: bc.SignedRankTest.probs(X4, Y4, prior=-0.5), ValueError, "prior must be in"),
    (lambda: bc.SignTest.probs(X4, Y4, prior=(1.0, 5)), ValueError, "prior must be a strength or a pair"),
    (lambda: bc.SignTest.probs(X4, Y4, prior=(bc.SignTest.LEFT, 1.0)), ValueError, "prior must be a strength"),
    (lambda: bc.SignTest.probs(X4, Y4, runs=2), TypeError,
     "^SignTest got an unexpected keyword argument 'runs': it takes x, y, rope, prior, nsamples, random_state, names$"),
    (lambda: bc.SignedRankTest.probs(X4, Y4, test="x"), TypeError, "^SignedRankTest got an unexpected keyword "
                                                                   "argument 'test': it takes x, y, rope, prior,"),
    (lambda: bc.two_on_multiple(X4, Y4, rope=1, test="x"), TypeError, "^SignedRankTest got an unexpected keyword "
                                                                      "argument 'test'"),
    (lambda: bc.HierarchicalTest.probs([X4, X4], [Y4, Y4], priors="older"), TypeError,
     "^HierarchicalTest got an unexpected keyword argument 'priors': it takes x, y, rope, runs, lower_alpha"),
    (lambda: bc.HierarchicalTest(X4, Y4), ValueError, "x must be a 2-dimensional"),
    (lambda: bc.two_on_multiple([X4, X4], [Y4, Y4], runs=3), ValueError, "runs=3 does not divide"),
    (lambda: bc.two_on_multiple([X4, X4], [Y4, Y4], lower_alpha=3), ValueError, "lower_alpha, upper_alpha"),
    (lambda: bc.two_on_multiple([X4, X4], [Y4, Y4], upper_sigma=10), ValueError, "upper_sigma must be 1000"),
    (lambda: bc.two_on_multiple([X4, X4], [Y4, Y4], chains=0), ValueError, "chains must be >= 1"),
]


@pytest.mark.parametrize("call, error, message", BAD_CALLS, ids=[m for _, _, m in BAD_CALLS])
def test_errors_name_the_argument(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_inputs_baycomp_users_pass():
    """Lists and pandas Series (autorank passes Series by keyword), runs given as 2.0."""
    import pandas as pd

    frame = pd.DataFrame({"a": [0.8, 0.82, 0.85, 0.81, 0.9, 0.7], "b": [0.83, 0.84, 0.86, 0.85, 0.9, 0.75]})
    posterior = bc.SignedRankTest(x=frame["a"], y=frame["b"], rope=0.01, nsamples=1000, random_state=0)
    assert len(posterior.probs()) == 3  # autorank reads p_rope from the instance's probs(), even with rope 0
    assert len(bc.SignedRankTest(x=frame["a"], y=frame["b"], rope=0, random_state=0).probs()) == 3
    assert bc.two_on_single(list(frame["a"]), list(frame["b"]), runs=2.0) == bc.two_on_single(frame["a"], frame["b"],
                                                                                             runs=2)


def test_correlated_sample_is_seeded_and_cached():
    post = bc.CorrelatedTTest(X4, Y4, nsamples=40_000, random_state=3)
    assert post.sample is post.sample
    assert np.array_equal(post.sample, bc.CorrelatedTTest.sample(X4, Y4, nsamples=40_000, random_state=3))
    law = post.result.posterior
    assert abs(post.sample.mean() - post.mean) <= Z * float(law.std()) / np.sqrt(40_000)
    with pytest.warns(DegenerateWarning):  # equal differences: a point mass
        point = bc.CorrelatedTTest([0.8, 0.9], [0.85, 0.95], nsamples=3)
    assert point.var == 0 and np.allclose(point.sample, point.mean)


def test_plots():
    rng = np.random.default_rng(1)
    x = rng.normal(0.8, 0.05, 15)
    y = x + rng.normal(0.01, 0.02, 15)
    probs, fig = bc.two_on_multiple(x, y, rope=0.01, plot=True, names=("nbc", "j48"), random_state=0)
    assert probs == bc.two_on_multiple(x, y, rope=0.01, random_state=0)
    assert "nbc better" in fig.axes[0].get_legend().get_texts()[0].get_text()  # the simplex
    _, fig = bc.two_on_multiple(x, y, plot=True, names=("nbc", "j48"), random_state=0)
    assert fig.axes[0].get_xlabel() == "P(j48 better) in a draw"  # no rope: the histogram
    assert isinstance(bc.SignTest.plot_histogram(x, y, random_state=0), matplotlib.figure.Figure)
    assert isinstance(bc.SignedRankTest.plot_simplex(x, y, 0.01, random_state=0), matplotlib.figure.Figure)


def test_runs_not_given_is_baycomps_one_run_and_said_when_it_matters():
    """baycomp assumes one run; with 100 scores that makes rho 1/100 where 10 runs of 10 folds give 1/10 and a
    far surer answer, so the layer warns (and computes what runs=1 computes); with 10 scores it does not."""
    rng = np.random.default_rng(7)
    x, y = rng.normal(0.80, 0.03, 100), rng.normal(0.81, 0.03, 100)
    with pytest.warns(AssumptionWarning, match="one run of 100-fold.*rho = 1/100.*give runs=r"):
        assumed = bc.two_on_single(x, y, rope=0.01)
    assert assumed == bc.two_on_single(x, y, rope=0.01, runs=1)
    assert assumed == tuple(bc.CorrelatedTTest.probs(x, y, rope=0.01, runs=1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bc.two_on_single(x, y, rope=0.01, runs=10)
        bc.two_on_single(x[:10], y[:10], rope=0.01)
    with pytest.raises(ValueError, match="runs .r runs of k-fold"):
        pp_corr.correlated_ttest(x, y, rope=0.01)


def test_percent_scores_with_a_rope_for_fractions_are_warned():
    """baycomp's examples use percentages with rope=1: that is right; rope=0.01 on them is 0.01 points."""
    x, y = [80.0, 82.0, 85.0, 81.0], [83.0, 84.0, 86.0, 85.0]
    for call in (bc.two_on_single, bc.two_on_multiple, bc.SignTest.probs):
        with pytest.warns(AssumptionWarning, match="rope=0.01 is 0.01 percentage points"):
            call(x, y, rope=0.01)
    with pytest.warns(AssumptionWarning, match="rope=0.01 is 0.01"), pytest.raises(ValueError, match="chains"):
        bc.HierarchicalTest([x, y], [y, x], rope=0.01, chains=0)  # said before any work (chains=0 stops it)
        with warnings.catch_warnings():
            warnings.simplefilter("error", AssumptionWarning)
            call(x, y, rope=1)
