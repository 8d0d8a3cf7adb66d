"""Simulation studies within the machine: useful workers only, bounded memory, bad sizes named."""
import warnings

import numpy as np
import pytest

from pp_corr import simulation


def test_regression_workers_capped_at_the_cores(monkeypatch):
    monkeypatch.setattr(simulation.os, "cpu_count", lambda: 2)
    with pytest.warns(UserWarning, match="workers=100 is more than the 2 cores"):
        assert simulation._workers(100, n_tasks=50) == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert simulation._workers(None, n_tasks=1) == 1
        assert simulation._workers(2, n_tasks=50) == 2
    with pytest.raises(ValueError, match="workers must be >= 1"):
        simulation._workers(0, n_tasks=5)


def test_regression_repetitions_that_cannot_fit_are_refused_before_any_work(monkeypatch):
    monkeypatch.setattr(simulation, "_network_chunk", lambda *a: pytest.fail("started work"))
    with pytest.raises(ValueError, match="GiB of results"):
        simulation.experiment_1(repetitions=100_000_000, workers=1, progress=False)
    with pytest.raises(ValueError, match="GiB of results"):
        simulation.toy_example(repetitions=10**12)


@pytest.mark.parametrize("kwargs, name", [({"repetitions": 0}, "repetitions"), ({"folds": 1}, "folds"),
                                          ({"repetitions": 2.5}, "repetitions")])
def test_regression_study_sizes_named(kwargs, name):
    with pytest.raises((ValueError, TypeError), match=name):
        simulation.experiment_1(**{"repetitions": 5, "workers": 1, "progress": False, **kwargs})
    with pytest.raises((ValueError, TypeError), match=name):
        simulation.toy_example(**{"repetitions": 5, **kwargs})


def test_streamed_chunks_land_in_their_places():
    """More chunks than the in-flight window: each chunk's statistics must land at its own repetitions (a
    chunk computed alone with its own seed is the oracle)."""
    kwargs = dict(deltas=[0.05], runs=1, n_datasets=10, repetitions=3 * simulation.CHUNK + 7, random_seed=5,
                  progress=False)
    res = simulation.bayesian_network_study(workers=2, **kwargs)
    seed = np.random.SeedSequence(5)
    for chunk, start in enumerate(range(0, kwargs["repetitions"], simulation.CHUNK)):
        size = min(simulation.CHUNK, kwargs["repetitions"] - start)
        alone = simulation._network_chunk("fixed", 0.05, 1, 10, 10, size, simulation._chunk_seed(seed, 0, chunk))
        got = res.p_b_majority.values[0, 0, 0, start:start + size]
        np.testing.assert_array_equal(got, alone[0])
