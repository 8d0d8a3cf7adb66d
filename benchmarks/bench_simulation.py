"""The simulation study: the compiled fold split against numpy's vectorised hypergeometric sampler (the previous
code, kept here as the baseline), the statistics against the public correlated t-test they used before,
counts-based against instance-level simulation on a slice, time against the number of local Dask workers (1 and all
cores), and the full experiment 1 (11 gaps x 2 run counts x 5000 repetitions x 50 data sets, both tests) on all
cores (target: < 15 s on 2 cores) in threads of this process, as now, and on a local cluster of worker processes,
as before."""
import os
import time
import warnings

from _timing import best_of

import numpy as np

from pp_corr.execution import task_seed
from pp_corr.pairwise.poisson_binomial import PoissonBinomial
from pp_corr.pairwise.ttest import DegenerateWarning, correlated_ttest
from pp_corr.studies.bayes_net import SIZES, cv_differences, cv_differences_instances, fold_sizes, split_counts
from pp_corr.studies.simulation import experiment_1, rejection_rates, study_statistics


def split_counts_numpy(counts, sizes, rng):
    """The baseline: sequential multivariate hypergeometric draws with numpy's vectorised sampler."""
    remaining = np.array(counts, dtype=np.int64)
    test = np.empty(sizes.shape + (4,), dtype=np.int64)
    for j in range(sizes.shape[-1] - 1):
        left, pool = sizes[..., j], remaining.sum(axis=-1)
        for cell in range(3):
            pool = pool - remaining[..., cell]
            drawn = rng.hypergeometric(remaining[..., cell], pool, left)
            test[..., j, cell] = drawn
            left = left - drawn
        test[..., j, 3] = left
        remaining -= test[..., j, :]
    test[..., -1, :] = remaining
    return test


def majority_before(x, rho):
    """The baseline: the Poisson test's statistic through the public correlated t-test, its DegenerateWarning
    silenced (the code before study_tails)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateWarning)
        res = correlated_ttest(x.reshape(-1, x.shape[-1]), rho=rho)
    p = np.reshape(res.p_right, x.shape[:-1])
    return PoissonBinomial(p, complement=np.reshape(res.p_not_right, x.shape[:-1])).sf(x.shape[-2] // 2)


def experiment_1_on_processes(**kwargs):
    """The baseline layout: a local cluster of one worker process per core, started for the call."""
    from distributed import Client, LocalCluster

    with (LocalCluster(n_workers=os.cpu_count(), threads_per_worker=1, processes=True, host="127.0.0.1",
                       dashboard_address="127.0.0.1:0") as cluster, Client(cluster) as client):
        return experiment_1(**kwargs, scheduler=client)


if __name__ == "__main__":  # the baseline's worker processes start by spawn and re-import this file
    # 0. the fold split of 250 repetitions of experiment 1 (x 50 data sets x 10 runs, 10 folds)
    rng = np.random.default_rng(0)
    n = rng.choice(SIZES, (250, 50, 1))
    counts = np.broadcast_to(rng.multinomial(n[..., 0], [0.3, 0.2, 0.2, 0.3])[:, :, None], (250, 50, 10, 4))
    folds = np.broadcast_to(fold_sizes(n, 10), (250, 50, 10, 10))
    split_counts(counts[:1], folds[:1], rng)  # compiled (or loaded from numba's cache) before timing
    compiled = best_of(lambda: split_counts(counts, folds, rng), repeat=3)
    baseline = best_of(lambda: split_counts_numpy(counts, folds, rng), repeat=3)
    print(f"fold split of 250 repetitions (125,000 runs of 10-fold CV, the paper's sizes): {compiled:.2f} s, "
          f"numpy {baseline:.2f} s: {baseline / compiled:.1f}x")

    # 0b. the statistics of 250 repetitions (x 50 data sets, one run of 10 folds)
    rng = np.random.default_rng(task_seed(1, (0, 0)))
    x = cv_differences(0.02, rng.choice(SIZES, (250, 50)), runs=1, random_seed=rng)
    assert np.array_equal(study_statistics(x, rho=0.1)[0], majority_before(x, 0.1))  # the same bits
    now = best_of(lambda: study_statistics(x, rho=0.1), repeat=5)
    before = best_of(lambda: (majority_before(x, 0.1), study_statistics(x, rho=0.1)[1:]), repeat=5)
    print(f"statistics of 250 repetitions (12,500 data sets x 10 folds): {now * 1e3:.1f} ms, through the public t-test "
          f"{before * 1e3:.1f} ms: {before / now:.2f}x")

    # 1. a slice: 20 repetitions x 50 data sets, 10 runs of 10-fold CV, delta = 0.05
    rng = np.random.default_rng(0)
    sizes = rng.choice(SIZES, (20, 50))
    counts_t = best_of(lambda: cv_differences(0.05, sizes, runs=10, random_seed=1), repeat=3)
    instances_t = best_of(lambda: cv_differences_instances(0.05, sizes, runs=10, random_seed=1), repeat=1)
    print(f"slice (1000 data sets x 10 runs x 10 folds): counts {counts_t * 1e3:.0f} ms, instances "
          f"{instances_t:.1f} s: counts are {instances_t / counts_t:.0f}x faster")
    full_instances = instances_t * 11 * 5000 / 20 * 1.1  # m = 10 and m = 1 (a tenth more)
    print(f"  the instance-level simulator would need ~{full_instances / 3600:.1f} h of CPU for experiment 1")

    # 2. scaling with the number of local Dask workers (a fifth of experiment 1; start-up included)
    for workers in sorted({1, os.cpu_count() or 1}):
        start = time.perf_counter()
        experiment_1(repetitions=1000, workers=workers, random_seed=1, progressbar=False)
        print(f"experiment 1 with 1000 repetitions on {workers} local worker(s): {time.perf_counter() - start:.1f} s")

    # 3. the full experiment 1: threads of this process (now) against worker processes (before), start-up included
    workers = os.cpu_count()
    start = time.perf_counter()
    results = experiment_1(repetitions=5000, workers=workers, random_seed=1, progressbar=False)
    elapsed = time.perf_counter() - start
    start = time.perf_counter()
    on_processes = experiment_1_on_processes(repetitions=5000, random_seed=1, progressbar=False)
    baseline = time.perf_counter() - start
    assert on_processes.identical(results)
    rates = rejection_rates(results).sel(n_datasets=50)
    print(f"experiment 1 in full: {elapsed:.1f} s on {workers} threads (target < 15 s: {elapsed / 15:.2f} of it); "
          f"{baseline:.1f} s on {workers} worker processes: {baseline / elapsed:.2f}x; the same results")
    print("  Type I error at delta = 0 (rows: Poisson, Wilcoxon; columns: m = 1, 10):",
          rates.rate.sel(delta=0.0).values.round(4).tolist())
