"""Scaling curves: time against problem size for each heavy kernel, and against the number of local Dask workers
for the simulation study (of threads for the exact posterior of the hierarchical model), so that a user can
extrapolate to a larger problem, a cluster or more cores.

For each kernel, the sizes grow by a constant factor; the script prints the times and the exponent b of
time ~ a * size^b fitted by least squares on the log-log points (b = 1: linear; under 1 at small sizes, where fixed
costs dominate). For the study, the speed-up of 2 workers over 1 (start-up of the local cluster included).

Usage: python benchmarks/bench_scaling.py [--quick] [--csv FILE]
"""
import argparse
import os
import time
from pathlib import Path

from _timing import best_of

import numba
import numpy as np
import pandas as pd

from pp_corr import bayesian_signed_rank, correlated_ttest, load_scores
from pp_corr.hierarchical.exact import exact_posterior
from pp_corr.hierarchical.preparation import prepare_hierarchical, prior_limits
from pp_corr.studies.bayes_net import SIZES, cv_differences
from pp_corr.studies.simulation import experiment_1


def exponent(sizes, seconds) -> float:
    """b of seconds ~ a * size^b (least squares on the logarithms)."""
    return float(np.polyfit(np.log(sizes), np.log(seconds), 1)[0])


UCI54 = Path(__file__).resolve().parents[2] / "shared" / "data" / "uci54" / "uci54_tidy.csv"


def exact_rows(quick):
    """The exact posterior (with its error estimate) of j48gr - j48 on the first q of uci54's data sets, on 1 and
    on all of numba's threads; none (with the reason) without ../shared."""
    if not UCI54.exists():
        print(f"exact posterior: skipped, {UCI54} is absent")
        return []
    scores = load_scores(UCI54, columns={"score": "accuracy"})
    rows = []
    for q in ([14, 27] if quick else [14, 27, 54]):
        data = prepare_hierarchical(scores.isel(dataset=slice(q)), None, None, None, None, ("j48", "j48gr"))
        limits = prior_limits(data, {})
        s, (lo, hi) = data.scale, limits["sigma"]
        args = (data.mean / s, data.ss(s), data.n, data.rho)
        kwargs = dict(delta0_max=limits["delta0"], sigma0_max=limits["sigma0"],
                      sigma_bounds=np.broadcast_arrays(lo, hi), rope=(-0.01 / s, 0.01 / s))
        for threads in sorted({1, numba.config.NUMBA_NUM_THREADS}):
            numba.set_num_threads(threads)
            start = time.perf_counter()
            exact_posterior(*args, **kwargs)
            rows.append({"kernel": "exact posterior, j48gr - j48 (data sets)", "size": q, "workers": threads,
                         "seconds": time.perf_counter() - start})
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    return rows


def curves(quick):
    rng = np.random.default_rng(0)
    scale = 0.1 if quick else 1.0
    kernels = {
        "correlated_ttest (rows of 100 folds)": (
            [int(s * scale) for s in (10_000, 30_000, 100_000)],
            lambda q: (lambda x=rng.normal(0.01, 0.05, (q, 100)): correlated_ttest(x, rho=0.1, rope=0.01))),
        "bayesian_signed_rank (data sets, 50,000 draws)": (
            [54, 540, 5400] if not quick else [54, 540],
            lambda q: (lambda z=rng.normal(0.005, 0.02, q): bayesian_signed_rank(z, rope=0.01, random_seed=1))),
        "cv_differences (data sets of 10 runs x 10 folds)": (
            [int(s * scale) for s in (2_500, 12_500, 62_500)],
            lambda q: (lambda n=rng.choice(SIZES, q): cv_differences(0.05, n, runs=10, random_seed=1))),
    }
    rows = []
    for name, (sizes, make) in kernels.items():
        make(sizes[0])()  # compile or warm up
        for size in sizes:
            rows.append({"kernel": name, "size": size, "workers": 1, "seconds": best_of(make(size), repeat=3)})
    workers = sorted({1, os.cpu_count() or 1})
    for repetitions in ([100, 300] if quick else [500, 1500, 5000]):
        for n in workers:
            start = time.perf_counter()
            experiment_1(repetitions=repetitions, workers=n, random_seed=1, progressbar=False)
            rows.append({"kernel": "experiment 1 (repetitions)", "size": repetitions, "workers": n,
                         "seconds": time.perf_counter() - start})
    return pd.DataFrame(rows + exact_rows(quick))


if __name__ == "__main__":  # local Dask worker processes start by spawn and re-import this file
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes (a minute or two)")
    parser.add_argument("--csv", help="also write the measurements to this CSV file")
    args = parser.parse_args()
    table = curves(args.quick)
    for (name, workers), group in table.groupby(["kernel", "workers"], sort=False):
        points = ", ".join(f"{s:,}: {t:.3g} s" for s, t in zip(group["size"], group["seconds"]))
        unit = "thread(s)" if name.startswith("exact") else "worker(s)"
        print(f"{name}, {workers} {unit}: {points}; time ~ size^{exponent(group['size'], group['seconds']):.2f}")
    for prefix, unit, what in (("experiment", "workers", "repetitions"), ("exact", "threads", "data sets")):
        study = table[table.kernel.str.startswith(prefix)].pivot(index="size", columns="workers", values="seconds")
        if study.shape[1] > 1:
            speedup = study.iloc[:, 0] / study.iloc[:, -1]
            print(f"{prefix}, speed-up of {study.columns[-1]} {unit} over 1:",
                  ", ".join(f"{s:,} {what} {v:.2f}x" for s, v in speedup.items()))
    if args.csv:
        table.to_csv(args.csv, index=False)
