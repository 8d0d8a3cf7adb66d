"""Simulation studies within the machine: at most one worker per core, bounded memory, bad sizes named."""
import warnings

import numpy as np
import pytest

from pp_corr import execution
from pp_corr.studies import simulation


def test_regression_workers_capped_at_the_cores(monkeypatch):
    monkeypatch.setattr(execution.os, "cpu_count", lambda: 2)
    with pytest.warns(UserWarning, match="workers=100 is more than the 2 cores"):
        assert execution.local_workers(100) == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert execution.local_workers(None) == 2
        assert execution.local_workers(1) == 1
    with pytest.raises(ValueError, match="workers must be >= 1"):
        execution.local_workers(0)
    with pytest.raises(ValueError, match="workers must be >= 1"):  # before any work
        simulation.experiment_1(repetitions=5, workers=0, progressbar=False)


def test_regression_repetitions_that_cannot_fit_are_refused_before_any_work(monkeypatch):
    monkeypatch.setattr(simulation, "_network_chunk", lambda *a: pytest.fail("started work"))
    with pytest.raises(ValueError, match="GiB of results"):
        simulation.experiment_1(repetitions=100_000_000, workers=1, progressbar=False)
    with pytest.raises(ValueError, match="GiB of results"):
        simulation.toy_example(repetitions=10**12)


@pytest.mark.parametrize("kwargs, name", [({"repetitions": 0}, "repetitions"), ({"folds": 1}, "folds"),
                                          ({"repetitions": 2.5}, "repetitions")])
def test_regression_study_sizes_named(kwargs, name):
    with pytest.raises((ValueError, TypeError), match=name):
        simulation.experiment_1(**{"repetitions": 5, "workers": 1, "progressbar": False, **kwargs})
    with pytest.raises((ValueError, TypeError), match=name):
        simulation.toy_example(**{"repetitions": 5, **kwargs})


@pytest.mark.long
def test_streamed_chunks_land_in_their_places():
    """More chunks than the in-flight window: each chunk's statistics must land at its own repetitions (a
    chunk computed alone with its own seed is the oracle)."""
    kwargs = dict(deltas=[0.05], runs=1, n_datasets=10, repetitions=3 * simulation.CHUNK + 7, random_seed=5,
                  progressbar=False)
    res = simulation.bayesian_network_study(workers=1, **kwargs)  # two tasks in flight
    for chunk, start in enumerate(range(0, kwargs["repetitions"], simulation.CHUNK)):
        size = min(simulation.CHUNK, kwargs["repetitions"] - start)
        alone = simulation._network_chunk("fixed", 0.05, 1, 10, 10, size, execution.task_seed(5, (0, chunk)))
        got = res.p_b_majority.values[0, 0, 0, start:start + size]
        np.testing.assert_array_equal(got, alone[0])
