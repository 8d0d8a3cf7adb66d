"""The simulation studies of Corani & Benavoli 2015, section 4: the Poisson test against the
Wilcoxon signed-rank test, in calibration (Type I error) and power.

Work is cut into fixed chunks of repetitions, tasks on a Dask cluster (:mod:`pp_corr.execution`), each with its
own seed ``SeedSequence(random_seed, spawn_key=(setting, chunk))``, so results are the same whatever the number of
workers or machines.
"""
from __future__ import annotations

import os

import numpy as np
import xarray as xr
from scipy import stats

from .._args import check_count
from ..execution import as_seed_sequence, check_execution, map_tasks
from ..pairwise.poisson_binomial import PoissonBinomial
from ..pairwise.ttest import study_tails
from .bayes_net import SIZES, cv_differences

# repetitions per task: a task costs the local cluster's scheduler milliseconds of this process's time, so experiment 1
# runs as 110 tasks (as 440 of 250 repetitions it took 15% longer on two threads)
CHUNK = 1000
DISTRIBUTIONS = ("fixed", "cauchy")
STATISTICS = ("p_b_majority", "wilcoxon_pvalue", "mean_difference")
TESTS = ("poisson", "wilcoxon")
TEST_NAMES = {"poisson": "Poisson test", "wilcoxon": "Wilcoxon signed-rank"}
EXPERIMENT_1 = {"deltas": np.round(np.arange(0, 0.1001, 0.01), 2), "distribution": "fixed", "n_datasets": 50}
TOY_MEANS = np.repeat([0.1, -0.1], 5)
EXPERIMENT_2 = {"deltas": np.round(np.arange(0, 0.0501, 0.01), 2), "distribution": "cauchy", "n_datasets": (50, 25)}


def study_statistics(x, *, rho):
    """Per repetition, for differences B - A of shape ``(..., q, n)``: the Poisson test's P(B better on a
    majority) = P(X > q/2) (correlated t-test with ``rho``, matching prior), the one-sided (B better) Wilcoxon
    signed-rank p-value on the per-data-set means (NaN when they are all 0), and the mean difference.

    >>> x = np.random.default_rng(0).normal(0.02, 0.01, (3, 20, 10))
    >>> majority, pvalue, mean = study_statistics(x, rho=0.1)
    >>> bool((majority > 0.95).all() and (pvalue < 0.05).all())
    True
    """
    x = np.asarray(x, dtype=float)
    p_right, p_not_right = study_tails(x, rho)  # no warning for the point masses of small data sets
    majority = PoissonBinomial(p_right, complement=p_not_right).sf(x.shape[-2] // 2)
    z = x.mean(axis=-1)
    nonzero = (z != 0).any(axis=-1)
    pvalue = np.full(z.shape[:-1], np.nan)
    if nonzero.any():
        pvalue[nonzero] = stats.wilcoxon(z[nonzero], axis=-1, alternative="greater").pvalue
    return majority, pvalue, z.mean(axis=-1)


def draw_deltas(distribution, value, shape, rng):
    """Accuracy gaps of the data sets: ``value`` everywhere (``"fixed"``) or Cauchy(value, value) clipped to
    [-0.5, 0.5] (``"cauchy"``, experiment 2).

    >>> deltas = draw_deltas("cauchy", 0.02, 1000, np.random.default_rng(0))
    >>> bool(abs(np.median(deltas) - 0.02) < 0.005 and np.abs(deltas).max() <= 0.5)
    True
    """
    if distribution == "fixed":
        return np.full(shape, float(value))
    return np.clip(value + value * rng.standard_cauchy(shape), -0.5, 0.5)


def _execution(scheduler, workers, progressbar):
    """The checked execution arguments of a study, for :func:`pp_corr.execution.map_tasks`: its chunks release the
    GIL (compiled fold splits, numpy statistics), so a local cluster runs them in threads of this process."""
    scheduler, workers = check_execution(scheduler, workers)
    return {"scheduler": scheduler, "workers": workers, "threads": True, "progressbar": progressbar}


def _network_chunk(distribution, delta, runs, n_datasets, folds, repetitions, seed):
    rng = np.random.default_rng(seed)
    deltas = draw_deltas(distribution, delta, (repetitions, n_datasets), rng)
    sizes = rng.choice(SIZES, (repetitions, n_datasets))
    x = cv_differences(deltas, sizes, runs=runs, folds=folds, random_seed=rng)
    return study_statistics(x, rho=1 / folds)


def _chunks(repetitions):
    return [min(CHUNK, repetitions - start) for start in range(0, repetitions, CHUNK)]


def _check_memory(n_values, what):
    """Refuse a study whose results alone would take more than half of the memory available now."""
    available = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    needed = 8 * n_values
    if needed > available / 2:
        raise ValueError(f"{what} would hold {needed / 2**30:.1f} GiB of results, more than half of the "
                         f"{available / 2**30:.1f} GiB available: use fewer repetitions or settings")


def _run_chunks(chunk_fn, settings, repetitions, seed, execution, desc):
    """``chunk_fn(*setting, size, seed)`` for every setting and chunk of repetitions, keyed (setting, chunk), on
    :func:`pp_corr.execution.map_tasks`; the statistics as an array (statistic, setting, repetition)."""
    chunks = _chunks(repetitions)
    tasks = [((s, c), (*setting, size)) for s, setting in enumerate(settings) for c, size in enumerate(chunks)]
    values = np.empty((len(STATISTICS), len(settings), repetitions))
    for (setting, chunk), result in map_tasks(chunk_fn, tasks, random_seed=seed, desc=desc, **execution):
        values[:, setting, chunk * CHUNK: chunk * CHUNK + chunks[chunk]] = result
    return values


def bayesian_network_study(deltas, *, distribution="fixed", runs=(1, 10), n_datasets=50, repetitions=5000,
                           folds=10, scheduler=None, workers=None, random_seed=None, progressbar=True) -> xr.Dataset:
    """The Bayesian-network experiment: BN-hat (B) against zeroR (A) on ``n_datasets`` simulated data sets of
    random size (uniform on 25, 50, 100, 250, 500, 1000), ``runs`` x ``folds``-fold cross-validation, each
    data set's accuracy gap given by ``distribution`` (see :func:`draw_deltas`) with ``deltas`` values.

    Returns the per-repetition statistics of :func:`study_statistics` with dims (delta, runs, n_datasets,
    repetition); :func:`rejection_rates` turns them into rejection rates. The chunks of repetitions run on a
    Dask cluster (:func:`pp_corr.execution.dask_client`): a local one of ``workers`` threads of this process
    (default: all cores) or the one at the address ``scheduler`` (``"tcp://HOST:PORT"``); ``random_seed`` an int
    (None: fresh entropy, stored in ``attrs["random_seed"]``).

    >>> res = bayesian_network_study([0.0, 0.1], runs=1, n_datasets=10, repetitions=20, random_seed=0,
    ...                              workers=1, progressbar=False)
    >>> dict(res.sizes)
    {'delta': 2, 'runs': 1, 'n_datasets': 1, 'repetition': 20}
    """
    seed = as_seed_sequence(random_seed)
    deltas, runs, n_datasets = (np.atleast_1d(v) for v in (deltas, runs, n_datasets))
    if distribution not in DISTRIBUTIONS:
        raise ValueError(f"distribution must be one of {DISTRIBUTIONS}, got {distribution!r}")
    repetitions, folds = check_count("repetitions", repetitions), check_count("folds", folds, minimum=2)
    if np.any(runs < 1) or np.any(n_datasets < 2):
        raise ValueError(f"runs must be >= 1 and n_datasets >= 2, got runs={runs}, n_datasets={n_datasets}")
    if np.any(np.abs(deltas) > 0.5):
        raise ValueError("deltas must be in [-0.5, 0.5]: the accuracy of BN-hat is at most 1")
    execution = _execution(scheduler, workers, progressbar)
    settings = [(distribution, d, int(m), int(q), folds) for d in deltas for m in runs for q in n_datasets]
    _check_memory(len(STATISTICS) * len(settings) * repetitions, f"{len(settings)} settings x {repetitions} "
                  "repetitions")
    values = _run_chunks(_network_chunk, settings, repetitions, seed, execution, f"{distribution} deltas")
    dims = ("delta", "runs", "n_datasets", "repetition")
    shape = (len(deltas), len(runs), len(n_datasets), repetitions)
    return xr.Dataset({name: (dims, values[k].reshape(shape)) for k, name in enumerate(STATISTICS)},
                      coords={"delta": deltas, "runs": runs, "n_datasets": n_datasets,
                              "repetition": np.arange(repetitions)},
                      attrs={"study": "Bayesian network", "distribution": distribution, "folds": folds,
                             "rho": 1 / folds, "random_seed": str(seed.entropy), "a": "zeroR", "b": "BN-hat"})


def experiment_1(*, repetitions=5000, **kwargs) -> xr.Dataset:
    """Experiment 1 of the paper: the same accuracy gap delta in {0, 0.01, ..., 0.1} on all 50 data sets,
    m in {1, 10} runs; other arguments as :func:`bayesian_network_study`.

    >>> res = experiment_1(repetitions=5, runs=1, workers=1, progressbar=False, random_seed=0)
    >>> res.delta.values[[0, -1]].tolist()
    [0.0, 0.1]
    """
    return bayesian_network_study(**{**EXPERIMENT_1, **kwargs}, repetitions=repetitions)


def experiment_2(*, repetitions=5000, **kwargs) -> xr.Dataset:
    """Experiment 2: each data set's gap ~ Cauchy(d, d) clipped to [-0.5, 0.5], d in {0, 0.01, ..., 0.05},
    q in {50, 25}, m in {1, 10}; other arguments as :func:`bayesian_network_study`.

    >>> res = experiment_2(repetitions=5, runs=1, n_datasets=25, workers=1, progressbar=False, random_seed=0)
    >>> res.attrs["distribution"], res.n_datasets.values.tolist()
    ('cauchy', [25])
    """
    return bayesian_network_study(**{**EXPERIMENT_2, **kwargs}, repetitions=repetitions)


def _toy_chunk(sigma, folds, rho, repetitions, seed):
    rng = np.random.default_rng(seed)
    return study_statistics(rng.normal(TOY_MEANS[:, None], sigma[:, None], (repetitions, 10, folds)), rho=rho)


def toy_example(*, repetitions=5000, folds=10, rho=0.0, scheduler=None, workers=None, random_seed=None,
                progressbar=True) -> xr.Dataset:
    """The toy example: 10 data sets, ``folds`` independent differences x ~ N(mu_i, sigma_i^2) each, with
    mu = +0.1 on D1..D5 and -0.1 on D6..D10; case 1: sigma = 0.05 everywhere; case 2: sigma = 0.15 on D6..D10.
    B is better on exactly half the data sets, so neither test should declare it better. ``rho`` = 0 as the
    differences are independent. Returns the statistics of :func:`study_statistics`, dims (case, repetition);
    ``scheduler``, ``workers`` and ``progressbar`` as in :func:`bayesian_network_study`.

    The two cases do not give the Wilcoxon test the same p-values. In case 1 the ten |means| are exchangeable,
    so T+ is the rank sum of a random half of 1..10 (sd 4.79) and the one-sided p-value never falls below
    0.116. In case 2 the noisier D6..D10 take both ends of the ranking and now and then change sign, so T+
    spreads more (sd about 5.2), yet Wilcoxon declares B better in only about 1 in 10,000 repetitions. The
    Poisson test's P(X > q/2) grows by orders of magnitude in case 2 (median about 0.001 -> 0.3) and rarely
    (about 0.15% of repetitions) passes 0.95.

    >>> res = toy_example(repetitions=200, random_seed=0, workers=1, progressbar=False)
    >>> # the noisier case 2 makes the Poisson test less sure that B is not better on a majority
    >>> bool(res.p_b_majority[1].median() > res.p_b_majority[0].median())
    True
    """
    repetitions, folds = check_count("repetitions", repetitions), check_count("folds", folds, minimum=2)
    seed = as_seed_sequence(random_seed)
    execution = _execution(scheduler, workers, progressbar)
    _check_memory(2 * len(STATISTICS) * repetitions, f"the toy example with {repetitions} repetitions")
    sigmas = {"1: sd 0.05 on all": np.full(10, 0.05), "2: sd 0.15 on D6-D10": np.repeat([0.05, 0.15], 5)}
    values = _run_chunks(_toy_chunk, [(sigma, folds, rho) for sigma in sigmas.values()], repetitions, seed,
                         execution, "toy example")
    dims = ("case", "repetition")
    return xr.Dataset({name: (dims, values[k]) for k, name in enumerate(STATISTICS)},
                      coords={"case": list(sigmas), "repetition": np.arange(repetitions)},
                      attrs={"study": "toy example", "folds": folds, "rho": rho, "random_seed": str(seed.entropy),
                             "a": "A", "b": "B"})


def rejection_rates(results: xr.Dataset, alpha=0.05) -> xr.Dataset:
    """How often each test declares B better at level ``alpha``: the Poisson test when P(X > q/2) > 1 - alpha,
    the Wilcoxon test when its one-sided p-value < alpha. ``rate`` and its standard error ``se`` per test and
    setting (mean over ``repetition``), with the mean simulated difference.

    >>> rates = rejection_rates(toy_example(repetitions=100, random_seed=0, workers=1, progressbar=False))
    >>> rates.rate.dims
    ('test', 'case')
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    rejects = xr.concat([results.p_b_majority > 1 - alpha, results.wilcoxon_pvalue < alpha],
                        dim=xr.DataArray(list(TESTS), dims="test", name="test"))
    n = results.sizes["repetition"]
    rate = rejects.mean("repetition")
    return xr.Dataset({"rate": rate, "se": np.sqrt(rate * (1 - rate) / n),
                       "mean_difference": results.mean_difference.mean("repetition")},
                      attrs={**results.attrs, "alpha": alpha, "repetitions": n})
