"""The simulation study: counts-based against instance-level simulation on a slice, time against the number of local
Dask workers (1 and all cores), and the full experiment 1 (11 gaps x 2 run counts x 5000 repetitions x 50 data
sets, both tests) on all cores (target: < 2 minutes)."""
import os
import time

from _timing import best_of

import numpy as np

from pp_corr.bayes_net import SIZES, cv_differences, cv_differences_instances
from pp_corr.simulation import experiment_1, rejection_rates

if __name__ == "__main__":  # local Dask worker processes start by spawn and re-import this file
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
        experiment_1(repetitions=1000, workers=workers, random_seed=1, progress=False)
        print(f"experiment 1 with 1000 repetitions on {workers} local worker(s): {time.perf_counter() - start:.1f} s")

    # 3. the full experiment 1
    workers = os.cpu_count()
    start = time.perf_counter()
    results = experiment_1(repetitions=5000, workers=workers, random_seed=1, progress=False)
    elapsed = time.perf_counter() - start
    rates = rejection_rates(results).sel(n_datasets=50)
    print(f"experiment 1 in full: {elapsed:.0f} s on {workers} cores (target < 120 s: {elapsed / 120:.2f} of it)")
    print("  Type I error at delta = 0 (rows: Poisson, Wilcoxon; columns: m = 1, 10):",
          rates.rate.sel(delta=0.0).values.round(4).tolist())
