"""The Nadeau & Bengio simulation study: problem 1's learners against scikit-learn and their mean losses against
the exact errors, problem 2's learners against scikit-learn, the rho estimator against a known intraclass
correlation, the summaries against hand computations, and the reduced study: the same on 1 and 2 workers, fast."""
import time

import numpy as np
import pytest
from sklearn.dummy import DummyRegressor
from sklearn.linear_model import LinearRegression

from pp_corr.studies.nadeau_bengio import PROCEDURES, procedure_dfs, t_statistics
from pp_corr.studies.nadeau_bengio_study import (CONFIGURATIONS, REDUCED, classification_losses, draw_classification,
                                                 draw_regression, equal_error_slope, nadeau_bengio_study, pseudo_power,
                                                 regression_errors, regression_losses, study_summary)
from pp_corr.studies.resampling import design_splits


@pytest.mark.parametrize("n_train", [8, 20, 60])
def test_problem_1_mean_losses_are_the_exact_errors(n_train):
    rng = np.random.default_rng(n_train)
    reps, n_test, b = 40000, 5, 0.7
    x, y = draw_regression(reps * (n_train + n_test), b, rng)
    x, y = x.reshape(reps, -1), y.reshape(reps, -1)
    # one split per data set: the data sets side by side as rows, train on the first n_train columns
    flat = np.arange(reps)[:, None] * (n_train + n_test)
    loss_a, loss_b = regression_losses(x.ravel(), y.ravel(), flat + np.arange(n_train),
                                       flat + n_train + np.arange(n_test))
    for simulated, exact in zip((loss_a.mean(axis=1), loss_b.mean(axis=1)), regression_errors(n_train, b)):
        se = simulated.std(ddof=1) / np.sqrt(reps)
        assert abs(simulated.mean() - exact) < 4 * se, (simulated.mean(), exact, se)


def test_equal_error_slope_makes_the_errors_equal():
    mu_a, mu_b = regression_errors(30, equal_error_slope(30))
    assert mu_a == pytest.approx(mu_b, rel=1e-14)


def test_problem_1_learners_are_scikit_learns():
    x, y = draw_regression(40, 0.5, np.random.default_rng(1))
    plan = design_splits("subsampling", 40, n_test=10, splits=3, random_seed=2)
    loss_a, loss_b = regression_losses(x, y, np.stack(plan.train), np.stack(plan.test))
    for k, (train, test) in enumerate(zip(plan.train, plan.test)):
        for losses, model in ((loss_a, DummyRegressor()), (loss_b, LinearRegression())):
            fitted = model.fit(x[train, None], y[train])
            np.testing.assert_allclose(losses[k], (y[test] - fitted.predict(x[test, None])) ** 2, rtol=1e-9)


def test_problem_2_least_squares_is_scikit_learns():
    x, y = draw_classification(60, np.random.default_rng(3))
    train, test = np.arange(45), np.arange(45, 60)
    _, loss_b = classification_losses(x, y, train[None], test[None], np.random.default_rng(0))
    predicted = LinearRegression().fit(x[train], y[train]).predict(x[test]) > 0.5
    np.testing.assert_array_equal(loss_b[0], predicted != y[test])


@pytest.mark.parametrize("rho,j", [(0.05, 15), (0.3, 15), (0.3, 2)])
def test_rho_estimator_recovers_a_known_correlation(rho, j):
    # J equicorrelated Gaussian split estimates per repetition: the study's rho must find rho within its error
    rng = np.random.default_rng(4)
    reps = 4000
    values = np.sqrt(rho) * rng.normal(size=(reps, 1)) + np.sqrt(1 - rho) * rng.normal(size=(reps, j))
    fake = _fake_results(values.mean(axis=1), values.var(axis=1, ddof=1) / j, j)
    summary = study_summary(fake)
    assert abs(float(summary.rho[0]) - rho) < 4 * float(summary.rho_se[0])
    assert 0 < float(summary.rho_se[0]) < 0.05


def _fake_results(estimate, variance, splits):
    """A results Dataset with the given resampled-t estimates and variances (others copies), target 0."""
    import xarray as xr

    reps = len(estimate)
    est = np.repeat(estimate[None, :, None], len(PROCEDURES), axis=2)
    var = np.repeat(variance[None, :, None], len(PROCEDURES), axis=2)
    return xr.Dataset({"estimate": (("config", "repetition", "procedure"), est),
                       "variance": (("config", "repetition", "procedure"), var),
                       "target": (("config", "procedure"), np.zeros((1, len(PROCEDURES)))),
                       "target_se": (("config", "procedure"), np.zeros((1, len(PROCEDURES)))),
                       "rho0": ("config", [0.1]), "repetitions": ("config", [reps])},
                      coords={"config": ["fake"], "repetition": np.arange(reps), "procedure": list(PROCEDURES)},
                      attrs={"splits": splits, "bootstrap_repetitions": splits})


@pytest.fixture(scope="module")
def reduced():
    configurations = (CONFIGURATIONS[0], CONFIGURATIONS[3], CONFIGURATIONS[4])
    args = {k: v for k, v in REDUCED.items()}
    start = time.perf_counter()
    one = nadeau_bengio_study(configurations=configurations, random_seed=7, workers=1, progressbar=False, **args)
    elapsed = time.perf_counter() - start
    return one, elapsed, configurations, args


@pytest.mark.long
def test_reduced_study_is_fast(reduced):
    _, elapsed, _, _ = reduced
    assert elapsed < 60, elapsed


@pytest.mark.slow  # a local cluster of two worker processes starts (about 30 s on a loaded machine)
def test_reduced_study_is_the_same_on_two_workers(reduced):
    one, _, configurations, args = reduced
    two = nadeau_bengio_study(configurations=configurations, random_seed=7, workers=2, progressbar=False, **args)
    assert one.identical(two)


@pytest.mark.long
def test_repetitions_are_new_data_sets(reduced):
    # every chunk of repetitions draws from its own stream: no two repetitions alike, another seed other data
    results, _, configurations, args = reduced
    for c in range(results.sizes["config"]):
        rows = np.hstack([results.estimate.values[c], results.variance.values[c]])
        assert len(np.unique(rows, axis=0)) == len(rows)
    other = nadeau_bengio_study(configurations=configurations[:1], random_seed=8, workers=1, progressbar=False, **args)
    assert not np.array_equal(other.estimate.values[0], results.estimate.values[0])


@pytest.mark.long
def test_summaries_equal_hand_computations(reduced):
    results = reduced[0]
    summary = study_summary(results, alpha=0.05)
    df = procedure_dfs(results.attrs["splits"], results.attrs["bootstrap_repetitions"])
    for c in range(results.sizes["config"]):
        est, var = results.estimate.values[c], results.variance.values[c]
        target = results.target.values[c]
        _, p = t_statistics(est, var, df, target)
        np.testing.assert_allclose(summary["size"].values[c], (p < 0.05).mean(axis=0), rtol=1e-14)
        np.testing.assert_allclose(summary.political_ratio.values[c], est.var(axis=0, ddof=1) / var.mean(axis=0),
                                   rtol=1e-12)
    power = pseudo_power(results, steps=[0.0, 2.0])
    np.testing.assert_allclose(power.rate.sel(step=0.0).values, summary["size"].values, rtol=1e-14)
    # the exact targets of problem 1: mu(n1), and mu(n/2) for the 5x2 designs
    config = CONFIGURATIONS[0]
    b = equal_error_slope(config["n"] - config["n_test"])
    half = np.subtract(*regression_errors(config["n"] // 2, b))
    assert float(results.target[0, PROCEDURES.index("dietterich_5x2cv")]) == pytest.approx(half, rel=1e-12)
    assert abs(float(results.target[0, PROCEDURES.index("resampled_t")])) < 1e-12
    assert float(results.target_se[2, 0]) > 0 and float(results.target_se[0, 0]) == 0


def test_errors_name_the_argument():
    with pytest.raises(ValueError, match="n must be even and n_test at most n/2 - 4"):
        nadeau_bengio_study(configurations=[{"problem": "regression", "n": 20, "n_test": 8, "b": 1.0}],
                            workers=1, progressbar=False)
    with pytest.raises(ValueError, match="problem 'regression' or 'classification'"):
        nadeau_bengio_study(configurations=[{"problem": "ranking", "n": 20}], workers=1, progressbar=False)
    with pytest.raises(ValueError, match="repetitions has no count for the problem"):
        nadeau_bengio_study(repetitions={"regression": 5}, configurations=CONFIGURATIONS[4:], workers=1,
                            progressbar=False)
    with pytest.raises(ValueError, match="configurations is empty"):
        nadeau_bengio_study(configurations=[], workers=1, progressbar=False)


@pytest.mark.long
def test_cli_simulate_writes_what_the_functions_compute(tmp_path, monkeypatch, capsys):
    """pp-corr simulate nadeau-bengio passes --repetitions, --seed and --alpha through, and its files hold the
    study's summary and power curves (a reduced design stands in for the full one)."""
    import functools

    import pandas as pd

    from pp_corr.studies import nadeau_bengio_study as nbs
    from pp_corr.cli import main

    small = dict(configurations=nbs.CONFIGURATIONS[:2], splits=3, halvings=2, bootstrap_repetitions=2,
                 truth_training_sets=2)
    monkeypatch.setattr(nbs, "nadeau_bengio_study", functools.partial(nbs.nadeau_bengio_study, **small))
    assert main(["simulate", "nadeau-bengio", "--repetitions", "6", "--seed", "3", "--alpha", "0.2", "--workers",
                 "1", "--no-progress", "-o", str(tmp_path)]) in (None, 0)
    expected = nbs.nadeau_bengio_study.func(repetitions=6, random_seed=3, workers=1, progressbar=False, **small)
    summary = nbs.study_summary(expected, alpha=0.2)
    sizes = pd.read_csv(tmp_path / "nadeau_bengio_sizes.csv").set_index(["config", "procedure"])
    np.testing.assert_allclose(sizes["size"].values, summary["size"].to_dataframe()["size"].values)
    power = pd.read_csv(tmp_path / "nadeau_bengio_power.csv")
    np.testing.assert_allclose(power["rate"].values,
                               nbs.pseudo_power(expected, alpha=0.2).to_dataframe().reset_index()["rate"].values)
    printed = capsys.readouterr().out
    assert "alpha = 0.2" in printed and "C2: " + str(summary.config.values[1]) in printed
    assert {p.name for p in tmp_path.iterdir()} >= {"nadeau_bengio_results.nc", "nadeau_bengio_sizes.png",
                                                    "nadeau_bengio_rho.png", "nadeau_bengio_power.png"}
