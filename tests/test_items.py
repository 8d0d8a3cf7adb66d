"""Item-level comparison (pp_corr.items): reading item scores, the posterior of one benchmark against independent
oracles (scipy, exact Dirichlet laws), its coverage by simulation, run shifts, and many benchmarks."""
import json
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp
from scipy import stats

import pp_corr.studies.simulation
from pp_corr import AssumptionWarning, MissingScoresWarning
from pp_corr.cli import main
from pp_corr.items import benchmark_scores, compare_items, load_items
from pp_corr.items.comparison import pseudo_items
from pp_corr.items.variance import run_shift_draws, two_way
from pp_corr.results import region_decision
from pp_corr.testing import check_result
from tests.conftest import NAN, assert_close, campaign, check_error, names_any, quiet


def continuous_benchmark(rng, items=300, runs=3, shift=0.0, difference=0.1):
    """y[m] (items, runs) = mu_m + a_i + b_mi + u_mr + e_mir with sds 1, 0.5, ``shift``, 1."""
    a = rng.normal(0, 1, items)
    return {m: mu + a[:, None] + rng.normal(0, 0.5, items)[:, None] + rng.normal(0, shift, runs)[None]
            + rng.normal(0, 1, (items, runs)) for m, mu in (("A", 0.0), ("B", difference))}


# --- reading -------------------------------------------------------------------------------------------------------

def test_long_table_with_harness_names_missing_cells_and_runs(tmp_path):
    path = tmp_path / "evals.csv"
    path.write_text("task,doc_id,model_name,epoch,correct\n"
                    "gsm,1,m1,1,1\ngsm,2,m1,1,0\ngsm,1,m2,1,1\ngsm,2,m2,1,NA\n"
                    "gsm,1,m1,2,1\ngsm,2,m1,2,1\ngsm,1,m2,2,0\ngsm,2,m2,2,1\n"
                    "arc,7,m1,1,true\narc,7,m2,1,false\n")
    with pytest.warns(MissingScoresWarning, match=r"m1 1 of 6, m2 2 of 6") as caught:
        items = load_items(path)
    assert items.score.dims == ("item", "model", "run")
    assert items.attrs["score_kind"] == "binary"
    assert items.model.values.tolist() == ["m1", "m2"] and items.run.values.tolist() == ["1", "2"]
    assert caught[0].filename == __file__  # the warning points at the caller
    np.testing.assert_array_equal(items.score.sel(benchmark="gsm", model="m2").values, [[1.0, 0.0], [np.nan, 1.0]])
    np.testing.assert_array_equal(items.score.sel(benchmark="arc").values, [[[1.0, np.nan], [0.0, np.nan]]])


def test_wide_table_one_column_per_model_and_models_order():
    wide = pd.DataFrame({"item": ["q1", "q2", "q3"], "small": [0.2, 0.9, 0.5], "large": [0.4, 1.0, 0.5]})
    items = load_items(wide, models=["large", "small"])
    assert items.model.values.tolist() == ["large", "small"]
    assert items.attrs["score_kind"] == "graded"
    assert items.score.sel(model="small").values.ravel().tolist() == [0.2, 0.9, 0.5]


@pytest.mark.parametrize("source, kwargs, message", [
    (pd.DataFrame({"q": [1], "model": ["a"], "score": [1]}), {}, r"no item column .*columns=\{\"item\": NAME\}"),
    (pd.DataFrame({"item": [1, 1], "model": ["a", "a"], "score": [1, 0]}), {}, "two scores of model 'a' on item '1'"),
    (pd.DataFrame({"item": [1], "model": ["a"], "score": ["yes"]}), {}, "is 'yes', not a number"),
    (pd.DataFrame({"item": [1], "model": ["a"], "score": [1]}), {"models": ["b"]}, r"models= names \['b'\]"),
    (pd.DataFrame({"item": [1], "model": ["a"], "score": [1]}), {"columns": {"task": "x"}}, "unknown roles"),
    ({"A": [1, 0], "B": [1, 0, 1]}, {}, "differ in shape"),
])
def test_bad_item_tables_name_what_is_wrong(source, kwargs, message):
    with pytest.raises(ValueError, match=message):
        load_items(source, **kwargs)


def test_a_model_missing_on_a_benchmark_leaves_that_benchmark_out():
    table = pd.DataFrame({"benchmark": ["x"] * 6 + ["y"] * 3, "item": [1, 2, 3] * 3,
                          "model": ["A"] * 3 + ["B"] * 3 + ["A"] * 3, "score": [1, 0, 1, 1, 1, 1, 0, 0, 1]})
    with pytest.warns(MissingScoresWarning, match=r"missing scores \(B 3 of 6"):
        items = load_items(table)
    with pytest.warns(MissingScoresWarning, match="benchmarks left out, where models 'A' and 'B' share fewer"):
        res = compare_items(items, random_seed=0)
    assert res.benchmarks == ("x",) and res.left_out_benchmarks == ("y",)
    assert "benchmarks left out (fewer than 2 items scored by both): y" in res.summary()


# --- one benchmark: against oracles ----------------------------------------------------------------------------------

def test_binary_one_run_is_the_dirichlet_law_of_the_three_outcomes():
    """B - A on 40 items: 7 only B right, 3 only A right, 30 ties. The posterior is Dirichlet(counts + 1/3) of
    (theta_A, theta_tie, theta_B) and delta = theta_B - theta_A: its CDF by one-dimensional quadrature over
    theta_A + theta_B ~ Beta, given which theta_B / (theta_A + theta_B) is Beta."""
    a = np.array([0] * 7 + [1] * 3 + [1] * 20 + [0] * 10)
    b = np.array([1] * 7 + [0] * 3 + [1] * 20 + [0] * 10)
    n_samples = 200_000
    res = compare_items({"A": a, "B": b}, rope=0.05, draws=n_samples, random_seed=3)
    alpha = np.array([3, 30, 7]) + 1 / 3

    def cdf(t):  # P(theta_B - theta_A <= t)
        def given(s):  # s = theta_A + theta_B; theta_B = s x, x ~ Beta(alpha_B, alpha_A); delta = s (2x - 1)
            return stats.beta.cdf((t / s + 1) / 2, alpha[2], alpha[0]) * stats.beta.pdf(s, alpha[0] + alpha[2],
                                                                                          alpha[1])
        from scipy import integrate
        return integrate.quad(given, 0, 1, limit=200, epsabs=1e-12)[0]

    want = {"p_left": cdf(-0.05), "p_right": 1 - cdf(0.05)}
    for name, p in want.items():
        se = np.sqrt(p * (1 - p) / n_samples)
        assert abs(getattr(res, name)[0] - p) < 4 * se + 1e-12, (name, getattr(res, name)[0], p)
    mean = (7 - 3) / alpha.sum()
    assert res.mean[0] == pytest.approx(mean, rel=1e-12)
    assert res.samples.mean() == pytest.approx(mean, abs=4 * res.samples.std() / np.sqrt(n_samples))


@pytest.mark.long
def test_width_at_2000_items_equals_the_item_clustered_interval():
    rng = np.random.default_rng(11)
    res = compare_items(continuous_benchmark(rng, items=2000), draws=100_000, random_seed=1)
    lo, hi = res.interval()
    clo, chi = res.clustered_interval()
    assert (hi - lo)[0] / (chi - clo)[0] == pytest.approx(1.0, abs=0.03)
    d = res.differences[0]
    ci = stats.ttest_1samp(d, 0).confidence_interval()
    assert (clo[0], chi[0]) == pytest.approx((ci.low, ci.high), rel=1e-12)


@pytest.mark.slow
def test_intervals_cover_with_and_without_run_shifts():
    """200 benchmarks of 300 items x 3 runs each way. runs='samples' without shifts and runs='seeds' with them
    cover 95% (within 4 binomial standard errors); with shifts the item-clustered interval under-covers."""
    rng = np.random.default_rng(2026)
    counts = {"samples": [], "seeds": [], "clustered": []}
    for shift, kind in ((0.0, "samples"), (0.3, "seeds")):
        for k in range(200):
            res = compare_items(continuous_benchmark(rng, shift=shift), runs=kind, draws=4000, random_seed=k)
            lo, hi = res.interval()
            counts[kind].append(lo[0] <= 0.1 <= hi[0])
            if kind == "seeds":
                clo, chi = res.clustered_interval()
                counts["clustered"].append(clo[0] <= 0.1 <= chi[0])
    se = np.sqrt(0.95 * 0.05 / 200)
    for kind in ("samples", "seeds"):
        assert abs(np.mean(counts[kind]) - 0.95) < 4 * se, (kind, np.mean(counts[kind]))
    assert np.mean(counts["clustered"]) < 0.6


def test_a_handful_of_items_never_gives_certainty():
    res = compare_items({"A": [1, 0, 1, 1, 0, 1], "B": [1, 1, 1, 1, 0, 1]}, random_seed=0)
    assert 0.05 < res.p_left[0] < 0.5
    bare = compare_items({"A": [1, 0, 1, 1, 0, 1], "B": [1, 1, 1, 1, 0, 1]}, prior_strength=0, random_seed=0)
    assert bare.p_left[0] == 0.0  # the Bayesian bootstrap never goes below the smallest difference seen


def test_pseudo_items_are_symmetric_so_the_prior_mean_is_zero():
    for kind in ("binary", "graded", "continuous"):
        values, weights = pseudo_items(kind, 1.5)
        assert weights.sum() == pytest.approx(1.5) and values @ weights == 0


# --- runs --------------------------------------------------------------------------------------------------------

def test_two_way_components_are_unbiased():
    """Method-of-moments variances over 400 simulated layouts, item 1.0, run 0.25, residual 0.5 (sds 1, .5, .71)."""
    rng = np.random.default_rng(5)
    found = []
    for _ in range(400):
        y = rng.normal(0, 1, (60, 1)) + rng.normal(0, 0.5, (1, 4)) + rng.normal(0, np.sqrt(0.5), (60, 4))
        summary = two_way(y)
        run_square = summary.items * summary.run_squares / (summary.runs - 1)
        found.append(((summary.item_square - summary.resid) / summary.runs, (run_square - summary.resid) / 60,
                      summary.resid))
    found = np.array(found)
    for column, want in zip(found.T, (1.0, 0.25, 0.5)):
        assert abs(column.mean() - want) < 4 * column.std() / np.sqrt(len(column)), (column.mean(), want)


@pytest.mark.parametrize("floor", [0.0, 0.02])
def test_run_shift_variance_is_the_truncated_inverse_gamma(floor):
    """Two models of 3 runs and equal floors f: tau = s_run + f has the prior 1 / tau and the likelihood of
    (SS_A + SS_B) / tau ~ chi^2(4), so tau | data ~ InvGamma(2, (SS_A + SS_B) / 2) cut to tau >= f (scipy)."""
    from pp_corr.items.variance import TwoWay

    summaries = [TwoWay(50, 3, 0.05, floor * 50, 98, 1.0), TwoWay(50, 3, 0.11, floor * 50, 98, 1.0)]
    draws = run_shift_draws(summaries, 40_000, np.random.default_rng(8)) + floor
    law = stats.invgamma(2, scale=0.08)
    cut = law.sf(floor)
    statistic = stats.kstest(draws, lambda t: (law.cdf(t) - law.cdf(floor)) / cut).statistic
    assert statistic < 1.63 / np.sqrt(len(draws))  # KS at 1%


def test_samples_warn_of_run_shifts_and_seeds_need_two_runs():
    rng = np.random.default_rng(4)
    with pytest.warns(AssumptionWarning, match=r"runs of model '[AB]' differ .* pass runs='seeds'"):
        compare_items(continuous_benchmark(rng, shift=0.5), draws=1000, random_seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", AssumptionWarning)
        compare_items(continuous_benchmark(rng, shift=0.0), draws=1000, random_seed=0)
    one_run = {m: v[:, :1] for m, v in continuous_benchmark(rng).items()}
    with pytest.raises(ValueError, match="has 1 run; runs='seeds' needs at least two"):
        compare_items(one_run, runs="seeds")
    lacking = np.arange(300)[:, None] % 3 == np.arange(3)[None]  # item i lacks run i % 3
    staggered = {m: np.where(lacking, np.nan, v) for m, v in continuous_benchmark(rng).items()}
    with pytest.warns(MissingScoresWarning), pytest.raises(ValueError, match="has 0 item\\(s\\) scored in every"):
        compare_items(staggered, runs="seeds")


# --- many benchmarks -----------------------------------------------------------------------------------------------

def test_benchmark_scores_carry_the_run_shifts_in_rho():
    """With runs='seeds', rho is the shifts' share of one item difference's variance: with shift sd 1, 20 runs a
    model and the other sds of continuous_benchmark, V = 1 * (2 / 20) and var(d_i) = 2 * 0.25 + 2 / 20, so
    rho = V / (V + var(d_i)) = 1 / 7. Estimated on 8 benchmarks (the shifts' variance on 38 degrees of freedom
    each: a relative sd of about 0.23), their mean is within 4 standard errors of it; without seeds rho is 0."""
    rng = np.random.default_rng(9)
    frames = [pd.DataFrame({"benchmark": f"b{k}", "item": np.repeat(np.arange(300), 20), "model": m,
                            "run": np.tile(np.arange(20), 300), "score": v.ravel()})
              for k in range(8) for m, v in continuous_benchmark(rng, runs=20, shift=1.0).items()]
    items = load_items(pd.concat(frames))
    scores = benchmark_scores(items, runs="seeds")
    assert scores.score.dims == ("dataset", "algorithm", "run", "fold") and scores.sizes["fold"] == 300
    rho = scores.rho.values
    assert abs(rho.mean() - 1 / 7) < 4 * rho.std(ddof=1) / np.sqrt(len(rho)), rho
    assert (benchmark_scores(items).rho == 0).all()


# --- command line ----------------------------------------------------------------------------------------------------

def test_items_command_prints_a_table_and_writes_json(tmp_path, capsys):
    rng = np.random.default_rng(1)
    y = continuous_benchmark(rng, items=50, runs=2)
    rows = [pd.DataFrame({"question": np.repeat(np.arange(50), 2), "model": m, "seed": np.tile([1, 2], 50),
                          "score": v.ravel()}) for m, v in y.items()]
    path = tmp_path / "scores.csv"
    pd.concat(rows).to_csv(path, index=False)
    out = tmp_path / "result.json"
    main(["items", str(path), "-a", "A", "-b", "B", "--column", "item=question", "--runs", "seeds", "-o", str(out)])
    printed = capsys.readouterr().out
    assert "B - A (positive: B better)" in printed and "runs are training seeds" in printed
    written = json.loads(out.read_text())
    assert written["runs"] == "seeds" and written["results"][0]["items"] == 50
    for alpha in (0.05, 0.45):  # --alpha sets the written decision (none, then A) and interval
        main(["items", str(path), "-a", "A", "-b", "B", "--column", "item=question", "--runs", "seeds",
              "--alpha", str(alpha), "-o", str(out)])
        record = json.loads(out.read_text())["results"][0]
        p = [record[f"P({name})"] for name in ("A better", "rope", "B better")]
        assert record["decision"] == region_decision(("A", "B"), *p, alpha)
        assert f"{100 * (1 - alpha):g}% lo" in record
    with pytest.raises(SystemExit, match="give both -a and -b"):
        main(["items", str(path), "-a", "A", "--column", "item=question"])


def test_items_command_ranks_more_than_two_models(tmp_path, capsys):
    rng = np.random.default_rng(2)
    wide = pd.DataFrame({"item": np.arange(300), **{m: rng.normal(gap, 1, 300) for m, gap in
                                                     (("m1", 0.0), ("m2", 0.5), ("m3", 0.52))}})
    path = tmp_path / "wide.csv"
    wide.to_csv(path, index=False)
    out = tmp_path / "ranks.csv"
    main(["items", str(path), "--rope", "0.1", "-o", str(out), "--report", str(tmp_path / "report")])
    assert "Comparison of 3 models on 1 benchmark" in (tmp_path / "report" / "report.md").read_text()
    assert "3 models ranked" in capsys.readouterr().out
    written = pd.read_csv(out)
    assert written["model"].tolist()[2] == "m1" and written["group"].tolist() == [1, 1, 2]


# --- planning ----------------------------------------------------------------------------------------------------

@pytest.mark.long
@pytest.mark.parametrize("runs", [3, 1])
def test_assurance_equals_the_power_of_the_design(runs):
    """continuous_benchmark's item differences have variance 2 * 0.25 + 2 / R (b_mi and the runs' noise), so with
    I items the posterior is about N(mean d, var / I) and "B better at 0.95" is mean d > 1.645 sd: the assurance
    of a true 0.1 is Phi(0.1 / sd - 1.645). The plan from a pilot of 2000 items x 3 runs (sd estimated to about
    2%, the assurance to about 0.015) matches it within 4 Monte Carlo errors plus that."""
    from pp_corr.items import plan_items

    pilot = continuous_benchmark(np.random.default_rng(21), items=2000, difference=0.3)
    plan = plan_items(pilot, items=600, runs=runs, difference=0.1, simulations=400, draws=1000, random_seed=2)
    row = plan.table.iloc[0]
    want = stats.norm.cdf(0.1 / np.sqrt((0.5 + 2 / runs) / 600) - stats.norm.ppf(0.95))
    assert abs(row["P(decide B better)"] - want) < 4 * np.sqrt(want * (1 - want) / 400) + 0.015, (row, want)
    assert row["P(decide A better)"] == 0


def test_planning_refuses_what_the_pilot_cannot_tell():
    from pp_corr.items import plan_items

    one_run = {"A": [1, 0, 1, 1], "B": [1, 1, 1, 0]}
    with pytest.raises(ValueError, match="the pilot has one run"):
        plan_items(one_run, items=100, runs=3, difference=0.1)
    two = load_items(pd.DataFrame({"benchmark": ["x", "x", "y", "y"] * 2, "item": [1, 2, 1, 2] * 2,
                                   "model": ["A"] * 4 + ["B"] * 4, "score": [1, 0, 1, 1, 0, 1, 1, 0]}))
    with pytest.raises(ValueError, match="choose one with benchmark="):
        plan_items(two, items=100, difference=0.1)
    plan = plan_items(two, items=[10, 20], difference=0.5, benchmark="y", simulations=20, random_seed=0)
    assert plan.table["items"].tolist() == [10, 20]
    reached = plan.table[plan.table.assurance >= 0.5]
    assert (plan.smallest(0.5) is None) == reached.empty


# --- k models ------------------------------------------------------------------------------------------------------

def test_ranking_draws_are_the_pairs_bayesian_bootstrap():
    """Two models' joint draws give their difference the law of compare_items without a prior (two-sample KS),
    and the ranking's groups follow P(leader better by more than the rope) >= 1 - alpha."""
    from pp_corr.items import rank_items
    from pp_corr.items.ranking import joint_means

    rng = np.random.default_rng(3)
    y = continuous_benchmark(rng, items=200, runs=1, difference=0.15)
    pair = compare_items(y, prior_strength=0, draws=20_000, random_seed=1).samples[0]
    joint = joint_means(np.column_stack([y["A"][:, 0], y["B"][:, 0]]), 20_000, np.random.default_rng(2))
    assert stats.ks_2samp(pair, joint[:, 1] - joint[:, 0]).pvalue > 0.001
    table = rank_items(y, rope=0.05, alpha=0.05, prior_strength=0, random_seed=0)
    separated = (joint[:, 1] - joint[:, 0] > 0.05).mean() >= 0.95
    assert table.index.tolist() == ["B", "A"] and table["group"].tolist() == [1, 2 if separated else 1]
    assert table["P(best)"].sum() == pytest.approx(1.0)


def test_a_model_right_on_every_one_of_three_items_is_not_surely_best():
    from pp_corr.items import rank_items

    scores = {"A": [1, 1, 1], "B": [1, 0, 1], "C": [0, 1, 1]}
    table = rank_items(scores, random_seed=0)
    assert table.index[0] == "A" and 0.5 < table.loc["A", "P(best)"] < 0.99
    assert rank_items(scores, prior_strength=0, random_seed=0).loc["A", "P(best)"] == 1.0


# --- against the independent oracles of tests/item_oracles.py ------------------------------------------------------

@pytest.mark.parametrize("strength", [1.0, 0.0])
def test_graded_differences_follow_the_dirichlet_law_of_their_values(strength):
    """Binary answers in 3 runs make item differences in {-1, -2/3, ..., 1}: the posterior is Dirichlet over those
    values and the prior's pseudo-items (a third of ``strength`` each at -1, 0, 1). The oracle's CDF (Beta
    integrals, or Gil-Pelaez inversion for many values) against the draws, within 4 Monte Carlo se, and the
    quantiles of the interval against the oracle's, within the draws' quantile error."""
    from tests.item_oracles import dirichlet_mean_difference_cdf, dirichlet_mean_difference_quantile

    y_a, y_b, _ = simulate(np.random.default_rng(17), items=60, runs=3, difference=0.1)
    n_samples = 100_000
    res = compare_items({"A": y_a, "B": y_b}, rope=0.05, prior_strength=strength, draws=n_samples,
                        random_seed=5)
    d = y_b.mean(axis=1) - y_a.mean(axis=1)
    values = np.concatenate([d, [-1.0, 0.0, 1.0]])
    counts = np.concatenate([np.ones(len(d)), np.full(3, strength / 3)])
    for p, want in ((res.p_left[0], dirichlet_mean_difference_cdf(values, counts, -0.05)),
                    (res.p_right[0], 1 - dirichlet_mean_difference_cdf(values, counts, 0.05))):
        assert abs(p - want) < 4 * np.sqrt(want * (1 - want) / n_samples) + 1e-12, (p, want)
    lo, hi = res.interval(0.9)
    for got, prob in ((lo[0], 0.05), (hi[0], 0.95)):
        want = dirichlet_mean_difference_quantile(values, counts, prob)
        assert abs(got - want) < 0.01, (got, want, prob)  # quantile se ~ sqrt(.05 .95 / n) / density ~ 0.001


def simulate(rng, **kwargs):
    from tests.item_oracles import simulate_benchmark

    return simulate_benchmark(rng, kind="binary", **kwargs)


@pytest.mark.slow
def test_binary_intervals_cover_the_population_difference():
    """The oracle's logistic benchmarks (truth by Gauss-Hermite quadrature): 300 items x 3 runs, 200 benchmarks, the
    95% interval covers within 4 binomial se of 0.95; with run shifts and runs='seeds' too."""
    from tests.item_oracles import coverage

    rng = np.random.default_rng(31)
    for shift, kind in ((0.0, "samples"), (0.5, "seeds")):
        intervals, truths = [], []
        for k in range(200):
            y_a, y_b, truth = simulate(rng, difference=0.05, run_shift_sd=shift)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", AssumptionWarning)
                res = compare_items({"A": y_a, "B": y_b}, runs=kind, draws=2000, random_seed=k)
            intervals.append([v[0] for v in res.interval()])
            truths.append(truth)
        share, _ = coverage(intervals, np.array(truths))
        assert abs(share - 0.95) < 4 * np.sqrt(0.95 * 0.05 / 200), (shift, kind, share)


# --- bad and extreme inputs: refused by name, or the documented answer (issue #10) ----------------------------------


class TestItemArguments:
    @campaign(60)
    @given(a=hnp.arrays(float, st.tuples(st.integers(1, 12), st.integers(1, 3)),
                        elements=st.sampled_from([0.0, 1.0, 0.5, NAN])),
           shift=st.sampled_from([0.0, 1.0, -1.0]), rope=st.sampled_from([None, 0.05, (-0.2, 0.1)]),
           strength=st.sampled_from([0.0, 1.0]))
    def test_compare_items_answers_or_names_the_benchmark(self, a, shift, rope, strength):
        """Small item tables with missing scores: an error naming the benchmark (too few items both models have) or
        three probabilities in [0, 1] that add up, an interval holding its own median, and items counted right."""
        b = np.clip(a + shift * (np.arange(a.size).reshape(a.shape) % 2), 0, 1)
        call = lambda: pp_corr.compare_items({"A": a, "B": b}, rope=rope, prior_strength=strength, draws=200,
                                             random_seed=0)
        try:
            res = quiet(call)
        except ValueError as err:
            assert names_any(str(err), ["benchmark"]) and "fewer than 2" in str(err), err
            return
        total = res.p_left + res.p_rope + res.p_right
        assert_close(total, 1.0, "sum of the probabilities", atol=1e-12)
        assert ((res.p_left >= 0) & (res.p_right >= 0) & (res.p_rope >= -1e-12)).all()
        both = (np.isfinite(a).any(axis=1) & np.isfinite(b).any(axis=1)).sum()
        assert res.items[0] == both
        lo, hi = res.interval()
        assert lo[0] <= np.median(res.samples) <= hi[0]

    @pytest.mark.parametrize("call, names", [
        (lambda: pp_corr.compare_items({"A": [1, 0], "B": [0, 1]}, rope=-1), ["rope"]),
        (lambda: pp_corr.compare_items({"A": [1, 0], "B": [0, 1]}, runs="epochs"), ["runs"]),
        (lambda: pp_corr.compare_items({"A": [1, 0], "B": [0, 1]}, draws=0), ["draws"]),
        (lambda: pp_corr.compare_items({"A": [1, 0], "B": [0, 1]}, prior_strength=-1), ["prior_strength"]),
        (lambda: pp_corr.compare_items({"A": [1, 0], "B": [0, 1]}, models=("A", "A")), ["models"]),
        (lambda: pp_corr.compare_items({"A": [1, 0], "B": [0, 1]}, models=("A", "Z")), ["Z"]),
        (lambda: pp_corr.compare_items({"A": [1, 0], "B": [0, 1]}, models="AB"), ["models"]),
        (lambda: pp_corr.compare_items({"A": [1, 0], "B": [0, 1], "C": [1, 1]}), ["models"]),
        (lambda: pp_corr.compare_items({"A": [1, 0], "B": [0, 1]}).interval(2), ["confidence_level"]),
        (lambda: pp_corr.load_items(42), ["source"]),
        (lambda: pp_corr.load_items({"A": [1, 0]}, na_values=5), ["na_values"]),
        (lambda: pp_corr.load_items({"A": [1, 0]}, metric="acc"), ["metric"]),
        (lambda: pp_corr.load_items({"A": [[1, 0]], "B": [[1, 1]]}, columns={"item": "q"}), ["columns"]),
        (lambda: pp_corr.benchmark_scores(pp_corr.load_items({"A": [1, 0], "B": [0, 1]}), runs="x"), ["runs"]),
        (lambda: pp_corr.benchmark_scores(pp_corr.load_items({"A": [1, 0], "B": [0, 1]}), runs="seeds"), ["runs"]),
        (lambda: pp_corr.plan_items({"A": [1, 0, 1], "B": [0, 1, 1]}, items=1, difference=0.1), ["items"]),
        (lambda: pp_corr.plan_items({"A": [1, 0, 1], "B": [0, 1, 1]}, items=9, difference="big"), ["difference"]),
        (lambda: pp_corr.plan_items({"A": [1, 0, 1], "B": [0, 1, 1]}, items=9, difference=0.1, simulations=0),
         ["simulations"]),
        (lambda: pp_corr.plan_items({"A": [1, 0, 1], "B": [0, 1, 1]}, items=9, difference=0.1, alpha=1.5), ["alpha"]),
        (lambda: pp_corr.rank_items({"A": [1, 0, 1], "B": [0, 1, 1]}, alpha=0), ["alpha"]),
        (lambda: pp_corr.rank_items({"A": [1, 0, 1], "B": [0, 1, 1]}, runs="seeds"), ["runs"]),
        (lambda: pp_corr.rank_items({"A": [1, 0, 1]}), ["model"]),
    ], ids=["rope", "runs", "draws", "prior_strength", "same-model", "unknown-model", "models-text",
            "three-models", "level", "source", "na_values", "metric", "columns", "scores-runs", "scores-one-run",
            "plan-items", "plan-difference", "plan-simulations", "plan-alpha", "rank-alpha", "rank-seeds",
            "rank-one-model"])
    def test_item_arguments_are_checked_by_name(self, call, names):
        err = check_error(call, names)
        assert err is not None, "no error"

    def test_item_comparison_to_dict_is_json(self):
        res = pp_corr.compare_items({"A": [1, 0, 1], "B": [1, 1, 1]}, rope=0.1, random_seed=0)
        assert isinstance(res, pp_corr.ItemComparison)
        assert isinstance(pp_corr.plan_items({"A": [1, 0, 1], "B": [1, 1, 1]}, items=5, difference=0.1, simulations=5),
                          pp_corr.ItemPlan)
        record = json.loads(json.dumps(res.to_dict()))
        assert record["results"][0]["items"] == 3 and record["rope"] == [-0.1, 0.1]


class TestItemComparisonProtocol:
    A, B = np.r_[np.ones(30), np.zeros(30)], np.r_[np.ones(45), np.zeros(15)]

    def result(self, rope=None):
        """Two benchmarks of 60 items: B better on x, A and B identical on y."""
        n = len(self.A)
        table = pd.DataFrame({"benchmark": np.repeat(["x", "y"], 2 * n), "item": np.tile(np.arange(n), 4),
                              "model": np.tile(np.repeat(["A", "B"], n), 2),
                              "score": np.concatenate([self.A, self.B, self.A, self.A])})
        return compare_items(load_items(table), rope=rope, draws=4000, random_seed=0)

    def test_contract(self):
        check_result(self.result())

    def test_frame_numbers_are_the_fields(self):
        res = self.result(rope=0.02)
        frame = res.to_frame()
        np.testing.assert_array_equal(frame["mean"], res.mean)
        for column, field in (("P(A better)", res.p_left), ("P(rope)", res.p_rope), ("P(B better)", res.p_right)):
            np.testing.assert_array_equal(frame[column], field)
        assert json.loads(json.dumps(res.to_dict()))["results"][0]["P(B better)"] == res.p_right[0]

    @pytest.mark.parametrize("alpha", [0.05, 0.5])
    def test_decisions_per_benchmark_follow_the_probabilities(self, alpha):
        res = self.result(rope=0.02)
        want = tuple("B" if r > 1 - alpha else "A" if lo > 1 - alpha else "rope" if mid > 1 - alpha else "none"
                     for lo, mid, r in zip(res.p_left, res.p_rope, res.p_right))
        assert res.decision(alpha) == want and want[0] == "B"
        assert [line.split()[-1] for line in res.summary(alpha=alpha).splitlines()[3:]] == list(want)
        check_error(lambda: res.decision(alpha=2.0), ("alpha",))
