"""Running the models (pp_corr.sampling): nutpie's background run gives the draws of a blocking one, a fit asked to
stop at its first divergence after warm-up stops there, the convergence policy asks only the fits that
something replaces to stop, and PyMC runs chains in parallel from the main thread only, with the draws of one at a
time."""
import importlib.util
import os
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor

import arviz as az
import numpy as np
import pymc as pm
import pytest

from pp_corr import sampling
from pp_corr.hierarchical.fit import fit_with_policy
from pp_corr.sampling import ConvergenceWarning, RefittableModel, diagnose, parallel_chains, sample

needs_nutpie = pytest.mark.skipif(importlib.util.find_spec("nutpie") is None, reason="nutpie is not installed")


def funnel():
    """Neal's funnel: NUTS diverges in its neck whatever its step size (the centred hierarchical model's trouble)."""
    with pm.Model() as model:
        scale = pm.Data("scale", 3.0)
        log_width = pm.Normal("log_width", 0, scale)
        pm.Normal("x", 0, pm.math.exp(log_width / 2), shape=9)
    return model


def normal_mean():
    with pm.Model() as model:
        y = pm.Data("y", np.zeros(20))
        mu = pm.Normal("mu", 0, 10)
        pm.Normal("obs", mu, 1, observed=y)
    return model


@needs_nutpie
@pytest.mark.long
def test_a_fit_gives_the_draws_of_a_blocking_nutpie_run():
    """RefittableModel samples nutpie in the background (to be able to stop it): for a fit that runs to its end,
    the draws of nutpie.sample(blocking=True) on the same compiled model with the same seed, bit for bit."""
    import nutpie

    refit = RefittableModel(normal_mean(), sampler="nutpie")
    y = np.random.default_rng(0).normal(2.0, 1.0, 20)
    idata = refit.fit({"y": y}, draws=300, tune=300, chains=2, random_seed=5, stop_at_divergence=True)
    seed = int(np.random.default_rng(5).spawn(2)[0].integers(2**30))  # pm.sample's first chain seed
    blocking = nutpie.sample(refit._compiled.with_data(y=y), draws=300, tune=300, chains=2, seed=seed,
                             progress_bar=False, save_warmup=False, target_accept=0.8)
    np.testing.assert_array_equal(idata.posterior["mu"].values, blocking.posterior["mu"].values)
    assert "stopped_at_divergence" not in idata.sample_stats.attrs


@needs_nutpie
@pytest.mark.long
def test_a_fit_asked_to_stop_at_a_divergence_stops_there_and_says_so():
    refit = RefittableModel(funnel(), sampler="nutpie")
    full = refit.fit({"scale": 3.0}, draws=40_000, tune=300, chains=2, random_seed=1)
    stopped = refit.fit({"scale": 3.0}, draws=40_000, tune=300, chains=2, random_seed=1, stop_at_divergence=True)
    full_divergences = int(full.sample_stats["diverging"].sum())
    assert full_divergences > 10 and not np.isnan(full.posterior["log_width"].values).any()
    # stopped within a few of nutpie's 50 ms progress reports of the first: far fewer draws and divergences
    kept = np.isfinite(stopped.posterior["log_width"].values)
    assert 1 <= int(stopped.sample_stats["diverging"].sum()) < full_divergences
    assert kept.sum() < 0.5 * full.posterior["log_width"].size and stopped.sample_stats.attrs["stopped_at_divergence"] == 1
    problems = diagnose(stopped, ["log_width"])
    assert problems[-1].endswith("divergent transitions (sampling stopped there)"), problems
    assert not any("stopped" in problem for problem in diagnose(full, ["log_width"]))


@pytest.mark.parametrize("retry, expected", [(True, [True, False]), (False, [False])])
def test_the_policy_lets_only_replaceable_fits_stop_early(retry, expected):
    """A fit may stop at its first divergence when a retry follows its failure; the last attempt runs in full, so
    its draws can be inspected."""
    flags = []

    def failing_fit(settings, stop_at_divergence):
        flags.append(stop_at_divergence)
        return _diverging_draws()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # the last attempt fails
        fit_with_policy(failing_fit, [{"draws": 500}, {"draws": 1000}], {}, retry=retry, var_names=["delta0"])
    assert flags == expected


def _diverging_draws(divergences=3):
    diverging = np.zeros((4, 500), dtype=bool)
    diverging[0, :divergences] = True
    return az.from_dict({"posterior": {"delta0": np.random.default_rng(0).normal(size=(4, 500))},
                         "sample_stats": {"diverging": diverging}})


def test_chains_run_one_per_usable_core_from_the_main_thread_and_one_at_a_time_elsewhere():
    assert threading.current_thread() is threading.main_thread()  # where pytest runs a test
    usable = len(os.sched_getaffinity(0))
    assert [parallel_chains(chains) for chains in (1, 2, 4, 64)] == [1, min(2, usable), min(4, usable), usable]
    with ThreadPoolExecutor(1) as pool:  # a Dask worker's task runs in a thread of its own
        assert pool.submit(parallel_chains, 4).result() == 1


@pytest.mark.slow
def test_chains_sampled_in_parallel_are_those_sampled_one_at_a_time(monkeypatch):
    """sample() passes PyMC one process per chain (up to the cores) and the draws are the same as with one."""
    monkeypatch.setattr(sampling, "parallel_chains", parallel_chains)  # the rule itself (conftest.py sets 1)
    asked = []
    original = pm.sample

    def recording(*args, **kwargs):
        asked.append(kwargs.get("cores"))
        return original(*args, **kwargs)

    monkeypatch.setattr(pm, "sample", recording)
    model = normal_mean()
    parallel = sample(model, draws=100, tune=100, chains=2, random_seed=3)
    one_at_a_time = sample(model, draws=100, tune=100, chains=2, random_seed=3, cores=1)
    assert asked == [parallel_chains(2), 1]
    np.testing.assert_array_equal(parallel.posterior["mu"].values, one_at_a_time.posterior["mu"].values)
