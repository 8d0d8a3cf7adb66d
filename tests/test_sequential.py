"""Sequential comparison (issue 40) against independent oracles: correlated_ttest on the runs seen, the floor
written out, the predictive probability by brute force from the Normal-Gamma posterior with scipy."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import pp_corr
from pp_corr.execution import task_seed
from pp_corr.hierarchical.exact import exact_posterior
from pp_corr.hierarchical.fit import exact_arguments
from pp_corr.hierarchical.preparation import prepare_hierarchical
from pp_corr.sequential.rules import decide, floor_regions, floor_success, posterior_regions, predictive_success
from pp_corr.sequential.study import simulate_differences
from pp_corr.testing import check_result
from tests.conftest import check_error


def _diffs(seed, runs=6, folds=5, mu=0.01, sigma=0.02, rho=0.2, q=1):
    return simulate_differences(mu, sigma, rho, runs, folds, q, np.random.default_rng(seed))


@settings(max_examples=25, deadline=None, derandomize=True, database=None)
@given(seed=st.integers(0, 10_000), mu=st.floats(-0.03, 0.03), max_runs=st.integers(2, 6),
       alpha=st.sampled_from([0.2, 0.1, 0.05]), futility=st.sampled_from([0.05, 0.3, 0.6]))
def test_replay_is_the_posterior_of_the_runs_seen(seed, mu, max_runs, alpha, futility):
    """Each step's posterior is correlated_ttest on the first r runs, to the last bit; the stop is within the
    budget, no region reached 1 - alpha before it, and the decision is the posterior's at the stop."""
    x = _diffs(seed, mu=mu)[0]
    res = pp_corr.sequential_test(x, rope=0.01, alpha=alpha, futility=futility, max_runs=max_runs, rho=0.2,
                                  simulations=50, random_seed=seed)
    hist = res.to_frame().xs("D1", level="dataset")
    used = int(res.runs_used.iloc[0])
    assert 2 <= used <= max_runs and hist.index[-1] == used
    for r, row in hist.iterrows():
        oracle = pp_corr.correlated_ttest(x[:r].ravel(), rho=0.2, rope=0.01)
        assert (row.p_left, row.p_rope, row.p_right) == (oracle.p_left, oracle.p_rope, oracle.p_right)
    last, decision, reason = hist.iloc[-1], res.outcomes.decision.iloc[0], res.outcomes.reason.iloc[0]
    probs = {"left": last.p_left, "rope": last.p_rope, "right": last.p_right}
    if decision == "none":
        assert max(probs.values()) < 1 - alpha
    else:
        assert probs[decision] >= 1 - alpha and f"after {used} of {max_runs} runs" in reason
    earlier = hist.iloc[:-1]  # every earlier step passed every rule
    assert (earlier[["p_left", "p_rope", "p_right"]].to_numpy() < 1 - alpha).all()
    assert (earlier.p_floor >= futility).all() and (earlier.p_success >= futility).all()
    if decision == "none" and used < max_runs:  # a futility stop: the rule that fired, below the threshold
        fired = last.p_floor if "add data sets" in reason else last.p_success
        assert fired < futility
    if last.p_floor < futility:  # the floor is checked first and names its advice
        assert "add data sets, not runs" in reason


def test_decide_at_one_minus_alpha_itself():
    assert decide((0.0, 0.05, 0.95), 0.05) == "right" and decide((0.95, 0.05, 0.0), 0.05) == "left"
    assert decide((0.0, 0.9500001, 0.0499999), 0.05) == "rope" and decide((0.3, 0.3, 0.4), 0.05) == "none"


def test_floor_against_the_limit_written_out():
    """The plug-in floor is the t posterior with scale^2 = rho/(1-rho) s^2 as df -> infinity."""
    x = _diffs(3)[0].ravel()
    rho, lo, hi = 0.2, -0.01, 0.01
    limit = stats.t(df=1e12, loc=x.mean(), scale=np.sqrt(rho / (1 - rho) * x.var(ddof=1)))
    expected = (limit.cdf(lo), limit.cdf(hi) - limit.cdf(lo), limit.sf(hi))
    np.testing.assert_allclose(floor_regions(x, rho, 0.01), expected, atol=1e-9)
    # and it is what the posterior of ever more runs with the same mean and spread tends to
    spread = np.tile(x, 2000) - x.mean()
    big = x.mean() + spread * np.sqrt(x.var(ddof=1) / spread.var(ddof=1))
    np.testing.assert_allclose(posterior_regions(big, rho, 0.01), expected, atol=2e-3)


def _brute_force_completion(x, rho, rope, alpha, total, simulations, rng):
    """Completions from the Normal-Gamma posterior written out with scipy: nu ~ Gamma(a, rate b), mu | nu, then
    the new folds from the Gaussian conditional on the folds seen with the full intraclass covariance."""
    n = x.size
    A = n / (1 + (n - 1) * rho)  # 1' C^-1 1 of the intraclass correlation matrix C
    C = (1 - rho) * np.eye(total) + rho
    c_inv = np.linalg.inv(C[:n, :n])
    resid = x - x.mean()
    a, b = (n - 1) / 2, resid @ c_inv @ resid / 2
    nu = stats.gamma(a, scale=1 / b).rvs(simulations, random_state=rng)
    mu = stats.norm(x.mean(), np.sqrt(1 / (A * nu))).rvs(random_state=rng)
    gain = C[n:, :n] @ c_inv
    chol = np.linalg.cholesky(C[n:, n:] - gain @ C[:n, n:])
    mean = mu[:, None] + (x[None, :] - mu[:, None]) @ gain.T
    new = mean + (rng.standard_normal((simulations, total - n)) @ chol.T) / np.sqrt(nu)[:, None]
    res = pp_corr.correlated_ttest(np.concatenate([np.broadcast_to(x, (simulations, n)), new], axis=1), rho=rho,
                                   rope=rope)
    decided = np.maximum(np.maximum(res.p_left, res.p_rope), res.p_right) >= 1 - alpha
    return decided.mean(), decided.std() / np.sqrt(simulations)


def test_predictive_success_against_brute_force():
    """rho = 0.5, a case where the answer is near 0.7; leaving out the shared component's own spread moves it by
    0.04, which the 40,000 completions on each side (MCSE 0.0023 each) resolve."""
    x = _diffs(11, runs=2, mu=0.03, rho=0.5)[0].ravel()
    ours, ours_se = predictive_success(x, 0.5, 0.01, 0.1, 30, simulations=40_000, random_seed=1)
    brute, brute_se = _brute_force_completion(x, 0.5, 0.01, 0.1, 30, 40_000, np.random.default_rng(2))
    assert 0.2 < brute < 0.9
    assert abs(ours - brute) < 4 * np.hypot(ours_se, brute_se)


def test_floor_success_is_the_limit_of_long_completions():
    """The predictive probability that infinitely many runs decide, against completions of 400 more runs
    (rho = 0.5: a floor with the variance rho/(1 - rho) sigma^2 instead of rho sigma^2 answers 0.28, not 0.70)."""
    x = _diffs(11, runs=2, mu=0.03, rho=0.5)[0].ravel()
    ours, ours_se = floor_success(x, 0.5, 0.01, 0.1, simulations=4000, random_seed=0)
    long, long_se = predictive_success(x, 0.5, 0.01, 0.1, x.size + 2000, simulations=1500, random_seed=1)
    assert 0.2 < long < 0.9
    assert abs(ours - long) < 4 * np.hypot(ours_se, long_se) + 0.02  # 400 runs are not quite infinitely many


def test_futility_says_add_data_sets():
    """Folds centred on the rope's edge with rho = 0.3: the floor keeps every region near 1/2, whatever the runs."""
    x = 0.01 + 0.001 * np.random.default_rng(0).standard_normal((10, 10))
    res = pp_corr.sequential_test(x, rope=0.01, rho=0.3, random_seed=0)
    assert res.decision() == ("none",) and res.runs_used.iloc[0] == 2
    assert "add data sets, not runs" in res.outcomes.reason.iloc[0]
    hist = res.to_frame()
    assert hist.p_floor.iloc[-1] < 0.05 and hist.floor.iloc[-1] < 0.95


def test_over_datasets_replays_the_tests_in_order():
    x = _diffs(7, runs=2, folds=5, mu=0.012, sigma=0.02, q=12)  # undecided at first: the draws matter
    order = list(np.random.default_rng(4).permutation(12))
    res = pp_corr.sequential_test(x, over="datasets", order=order, rope=0.005, min_datasets=4, random_seed=9,
                                  draws=2000, algorithms=("knn", "tree"))
    hist = res.to_frame()
    assert res.stopped_at == hist.index[-1] >= 4 and res.decision() == "tree"
    for k, row in hist.iterrows():
        z = x[order[:k]].reshape(k, -1).mean(axis=1)
        wins = pp_corr.bayesian_signed_rank(z, rope=0.005, draws=2000, random_seed=task_seed(9, k)).wins
        np.testing.assert_allclose([row.p_left, row.p_rope, row.p_right], wins, atol=1e-12)
    assert "tree better" in res.summary() and "you could have stopped after" in res.summary()
    pois = pp_corr.sequential_test(x, over="datasets", test="poisson", order=order, rope=0.005, min_datasets=4,
                                   rho=0.2)
    first = pois.to_frame().iloc[0]
    oracle = pp_corr.poisson_test(x[order[:4]].reshape(4, -1), rho=0.2, rope=0.005)
    assert (first.p_left, first.p_right) == (oracle.p_a_majority, oracle.p_b_majority)


@pytest.mark.long
def test_over_datasets_with_the_hierarchical_model(capsys):
    """Each step is the hierarchical test of the data sets seen: the new data set's probability that each region
    is the largest, the exact posterior's (no draws: the seed does not change it), and that of hierarchical_test's
    4000 draws within their binomial error; a progress line per step on stderr."""
    x = _diffs(3, runs=1, folds=10, mu=0.03, sigma=0.02, q=7)
    res = pp_corr.sequential_test(x, over="datasets", order=list(range(7)), test="hierarchical", rope=0.01,
                                  min_datasets=5, random_seed=2, progressbar=True)
    again = pp_corr.sequential_test(x, over="datasets", order=list(range(7)), test="hierarchical", rope=0.01,
                                    min_datasets=5, random_seed=3)
    hist = res.to_frame()
    assert hist.equals(again.to_frame())
    for k, row in hist.iterrows():
        args, kwargs = exact_arguments(prepare_hierarchical(x[:k].reshape(k, -1), 0.1, None, None, None, None),
                                       "current", {}, (-0.01, 0.01))
        post = exact_posterior(*args, **kwargs)
        new = pp_corr.hierarchical_test(x[:k].reshape(k, -1), rope=0.01, rho=0.1, random_seed=k).new_dataset()
        assert (row.p_left, row.p_rope, row.p_right) == (post.win_left, post.win_rope, post.win_right)
        drawn = np.array([new.win_left, new.win_rope, new.win_right])
        assert np.all(np.abs(drawn - row[["p_left", "p_rope", "p_right"]].to_numpy(float))
                      <= 4 * np.sqrt(0.25 / 4000) + post.max_error)
    assert res.decision() == "B" and "hierarchical model" in res.summary()
    assert "sequential hierarchical test: 5 of 7 data sets" in capsys.readouterr().err


def test_uci54_acceptance_on_one_pair(uci54):
    """The issue's targets on the pair with the most decisions: >= 95% agreement where the full design decides,
    <= 40% of the runs."""
    res = pp_corr.sequential_test(uci54, ("aode", "nbc"), rope=0.01, random_seed=1)
    out = res.outcomes
    decided = out.full_decision != "none"
    assert decided.sum() >= 20
    assert (out.decision == out.full_decision)[decided].mean() >= 0.95
    assert out.used.sum() / out.budget.sum() <= 0.4
    assert "nbc" in repr(res) and "aode" in repr(res)


def test_plot_and_records(tmp_path):
    x = _diffs(1, q=2)
    res = pp_corr.sequential_test(x, rope=0.01, rho=0.2, algorithms=("knn", "tree"), random_seed=0)
    fig = res.plot(dataset="D2")
    ax = fig.axes[0]
    assert ax.get_xlabel() == "runs seen" and ax.get_ylabel() == "posterior probability"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "knn better" in labels and "tree better" in labels
    fig.savefig(tmp_path / "path.png")
    record = res.to_dict()
    assert record["a"] == "knn" and len(record["outcomes"]) == 2
    with pytest.raises(ValueError, match="stopped_at"):
        res.stopped_at


@pytest.mark.parametrize("kwargs, name", [({"over": "folds"}, "over"), ({"alpha": 1.5}, "alpha"),
                                          ({"max_runs": 20}, "max_runs"), ({"min_runs": 0}, "min_runs"),
                                          ({"test": "wilcoxon"}, "test"), ({"futility": 0}, "futility"),
                                          ({"over": "datasets", "min_datasets": 9}, "min_datasets"),
                                          ({"over": "datasets", "order": [0, 0]}, "order")])
def test_bad_arguments_are_named(kwargs, name):
    with pytest.raises(ValueError, match=name):
        pp_corr.sequential_test(_diffs(0, q=2), **kwargs)


@pytest.mark.long
def test_study_fixed_design_is_exact_and_calibration_is_the_largest_alpha():
    """At the rope boundary the fixed design's wrong rate is the one-sided t-test's alpha (the matching prior is
    exact under the intraclass model); the calibrated alpha is the largest whose rate is within nominal."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = pp_corr.sequential_study((0.0, 0.01), repetitions=300, chunk=300, simulations=40, alphas=(0.05, 0.01),
                                       random_seed=3, workers=1, runs=4, folds=5, sigma=0.01)
    boundary = res.table.xs(0.01, level="mu")
    fixed = boundary.loc[0.05]
    assert abs(fixed.wrong_fixed - 0.05) < 3 * np.sqrt(0.05 * 0.95 / 300)
    assert (boundary.runs_used <= 4).all() and (boundary.saving >= 0).all()
    ok = boundary.index[boundary.wrong <= 0.05]
    assert res.calibrated_alpha == (ok[-1] if len(ok) else None)
    assert "rope boundary" in res.summary()
    inside = res.table.xs(0.0, level="mu")  # mostly "rope" decisions there, which are right
    assert (inside.truth == "rope").all() and (inside.wrong <= 0.02).all() and (inside.saving > 0.2).all()


def test_command_replays_a_file(uci54, capsys):
    """The subcommand the lead hooks into cli.py, on a parser of its own."""
    import argparse

    from pp_corr.sequential.command import add_command
    from tests.conftest import UCI54

    sub = argparse.ArgumentParser(prog="pp-corr").add_subparsers(dest="command")
    add_command(sub)
    parser = sub.choices["sequential"]
    args = parser.parse_args([str(UCI54), "-a", "nbc", "-b", "hnb", "--column", "score=accuracy", "--algorithms",
                              "nbc,hnb"])
    args.func(args)
    out = capsys.readouterr().out
    assert "you could have stopped after" in out and "hnb - nbc" in out and out.count("\n") == 56
    args = parser.parse_args([str(UCI54), "-a", "nbc", "-b", "hnb", "--column", "score=accuracy", "--over",
                              "datasets", "--orders", "2"])
    args.func(args)
    out = capsys.readouterr().out
    assert out.count("order ") == 2 and "of 54 data sets" in out
    with pytest.raises(SystemExit):
        parser.parse_args([str(UCI54), "-a", "nbc", "-b", "hnb", "--alpha", "2"])


def test_sequential_cv_stops_by_itself_and_its_scores_reproduce_the_decision():
    """Breast cancer, a depth-2 tree against Gaussian naive Bayes: it stops before the 10-run budget, and
    correlated_ttest on the scores it returns (written out and read back by load_scores) is its last posterior."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.naive_bayes import GaussianNB
    from sklearn.tree import DecisionTreeClassifier

    from pp_corr.sequential.cv import sequential_cv

    X, y = load_breast_cancer(return_X_y=True)
    res = sequential_cv(DecisionTreeClassifier(max_depth=2), GaussianNB(), X, y, max_runs=10, rope=0.01,
                        names=("tree", "nb"), random_seed=4)
    used = int(res.result.runs_used.iloc[0])
    assert 2 <= used < 10 and res.scores.sizes == {"dataset": 1, "algorithm": 2, "run": used, "fold": 10}
    looks = res.result.to_frame().index.get_level_values("runs").tolist()
    assert looks == list(range(2, used + 1))  # a look after every run from min_runs = 2 on
    tidy = res.scores.score.to_dataframe().reset_index()
    tidy["score"] = -tidy["score"]  # back to the losses, read as losses
    again = pp_corr.load_scores(tidy, format="tidy", higher_is_better=False, rho=float(res.scores.rho[0]))
    post = pp_corr.correlated_ttest(again, algorithms=("tree", "nb"), rope=0.01)
    last = res.result.to_frame().iloc[-1]
    np.testing.assert_allclose([post.p_left[0], post.p_rope[0], post.p_right[0]],
                               [last.p_left, last.p_rope, last.p_right], rtol=1e-12)
    assert res.result.outcomes.decision.iloc[0] == decide((post.p_left[0], post.p_rope[0], post.p_right[0]), 0.05)
    assert "nb" in repr(res) and "tree" in repr(res)


def test_runs_added_one_at_a_time_replay_the_recorded_design(uci54):
    """SequentialRuns fed a uci54 pair's runs one by one (from a runner it calls) stops where sequential_test's
    replay of the same runs stops, with the same history, on every data set: the same rules under the same seed."""
    a, b = "nbc", "hnb"
    replay = pp_corr.sequential_test(uci54, algorithms=(a, b), rope=0.01, random_seed=5)
    diff_a, diff_b = (uci54.score.sel(algorithm=n).transpose("dataset", "run", "fold").values for n in (a, b))
    for i, name in enumerate(uci54.dataset.values[:12]):
        seq = pp_corr.SequentialRuns(rope=0.01, max_runs=10, rho=float(uci54.rho[i]), names=(a, b),
                                     random_seed=task_seed(5, i))
        seq.run(lambda run: (diff_a[i, run], diff_b[i, run]))
        expected = replay.outcomes.loc[str(name)]
        assert (seq.runs, seq.decision, seq.reason) == (expected.used, expected.decision, expected.reason)
        got, want = seq.result.to_frame().droplevel("dataset"), replay.to_frame().loc[str(name)]
        np.testing.assert_allclose(got.values, want.values, rtol=1e-12, equal_nan=True)


def test_runs_added_by_hand_are_checked():
    seq = pp_corr.SequentialRuns(rope=0.01, max_runs=3, names=("A", "B"), random_seed=0)
    assert not seq.add_run([0.8, 0.82, 0.81], [0.9, 0.91, np.nan])  # a failed fold: one look needs 2 runs
    assert seq.runs == 1 and seq.result.to_frame().empty and "not stopped" in repr(seq)
    with pytest.raises(ValueError, match="run 2: scores_a and scores_b must hold the same folds"):
        seq.add_run([0.8, 0.8, 0.8], [0.9, 0.9])
    with pytest.raises(ValueError, match="run 2 has 4 folds, the first run had 3"):
        seq.add_run([0.8] * 4, [0.9] * 4)
    while not seq.add_run([0.8, 0.82, 0.81], [0.9, 0.91, 0.92]):
        pass
    assert seq.decision == "right" and seq.result.outcomes.used.iloc[0] == seq.runs == 2
    with pytest.raises(RuntimeError, match="has stopped"):
        seq.add_run([0.8] * 3, [0.9] * 3)
    with pytest.raises(ValueError, match="min_runs must be at most max_runs=2"):
        pp_corr.SequentialRuns(max_runs=2, min_runs=3)


# --- bad and extreme inputs: refused by name, or the documented answer (issue #10) ----------------------------------


class TestSequentialArguments:
    @pytest.mark.parametrize("call, names", [
        (lambda: pp_corr.sequential_test(np.zeros((3, 10)), rope=-0.01), ("rope",)),
        (lambda: pp_corr.sequential_test(np.full((3, 10), np.nan)), ("NaN", "finite", "scores")),
        (lambda: pp_corr.sequential_test(np.zeros((1, 10))), ("runs", "min_runs")),
        (lambda: pp_corr.sequential_study(mus=(0.0, 0.01), repetitions=0), ("repetitions",)),
        (lambda: pp_corr.sequential_study(alphas=(0.05, 1.2)), ("alphas",)),
        (lambda: pp_corr.sequential_cv(None, None, np.zeros((20, 2)), np.zeros(20), max_runs=0), ("max_runs",)),
        (lambda: pp_corr.SequentialRuns(rope=-0.01), ("rope",)),
        (lambda: pp_corr.SequentialRuns(alpha=1.5), ("alpha",)),
        (lambda: pp_corr.SequentialRuns(rho=1.0), ("rho",)),
        (lambda: pp_corr.SequentialRuns().add_run(["a", "b"], [0.8, 0.9]), ("scores_a", "scores_b")),
    ], ids=["negative rope", "all NaN", "one run", "no repetitions", "alpha above 1", "no runs", "runs: negative rope",
            "runs: alpha above 1", "runs: rho 1", "runs: text scores"])
    def test_sequential_edges_are_refused_by_name(self, call, names):
        """The sequential comparison's entry points refuse degenerate input by name (its SequentialResult is what
        sequential_test returns: tests/test_sequential.py checks it)."""
        check_error(call, names)


class TestSequentialResultProtocol:
    X = 0.02 + 0.01 * np.random.default_rng(3).standard_normal((3, 4, 5))   # 3 data sets x 4 runs x 5 folds

    def result(self, **options):
        return pp_corr.sequential_test(self.X, rope=0.005, rho=0.2, random_seed=0, algorithms=("old", "new"),
                                       **options)

    def test_contract_at_its_own_alpha(self):
        res = self.result()
        check_result(res, alphas=(res.alpha,))

    def test_decisions_are_the_outcomes_in_names(self):
        res = self.result()
        words = {"left": "old", "right": "new", "rope": "rope", "none": "none"}
        assert res.decision() == tuple(words[d] for d in res.outcomes.decision)
        assert res.full_decision == tuple(words[d] for d in res.outcomes.full_decision)
        assert res.to_dict()["decision"] == list(res.decision())
        assert res.to_frame().equals(res.history)

    @pytest.mark.parametrize("alpha", [0.1, 0.01])
    def test_only_the_replays_alpha_is_taken(self, alpha):
        res = self.result(alpha=alpha)
        assert res.alpha == alpha and res.decision(alpha) == res.decision()
        with pytest.raises(ValueError, match=r"^alpha=0\.2: .* replay at alpha=0\.2"):
            res.decision(0.2)
        with pytest.raises(ValueError, match="^alpha must"):
            res.decision(1.0)
